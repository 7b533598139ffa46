//! Who may talk to `serve --http`: a request must name this server in `Host`
//! (so that a DNS-rebound name cannot reach it), come from this server's own
//! origin when it has an `Origin` (as every request a web page makes does),
//! and carry the token as `Authorization: Bearer TOKEN`.

use std::net::SocketAddr;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// Why a request was refused: its status and the text of the answer.
pub type Refusal = (StatusCode, &'static str);

/// The environment variable that sets the token.
pub const TOKEN_VAR: &str = "ZOT_MCP_TOKEN";

/// The token and the `Host` values a request is checked against.
pub struct Guard {
    token: String,
    hosts: Vec<String>,
}

impl Guard {
    /// A guard for a server listening on the loopback address `addr`.
    pub fn new(token: String, addr: SocketAddr) -> Self {
        let port = addr.port();
        let mut hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        if !hosts.contains(&addr.to_string()) {
            hosts.push(addr.to_string());
        }
        Self { token, hosts }
    }

    /// `Ok` when the request may pass, else why not: 403 for a foreign
    /// host or origin, 401 for a missing or wrong token.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default();
        if !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err((
                StatusCode::FORBIDDEN,
                "refused: the Host header does not name this server",
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let own = format!("http://{host}");
            if !origin.to_str().is_ok_and(|o| o.eq_ignore_ascii_case(&own)) {
                return Err((
                    StatusCode::FORBIDDEN,
                    "refused: a request from another origin",
                ));
            }
        }
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        match given {
            Some(t) if same(t.trim().as_bytes(), self.token.as_bytes()) => Ok(()),
            Some(_) => Err((StatusCode::UNAUTHORIZED, "refused: wrong bearer token")),
            None => Err((
                StatusCode::UNAUTHORIZED,
                "refused: no bearer token (send Authorization: Bearer TOKEN)",
            )),
        }
    }
}

/// The answer to a refused request; a 401 says which scheme it wants
/// (`WWW-Authenticate: Bearer`, as RFC 6750 asks).
pub fn answer((status, text): Refusal) -> Response {
    let mut r = (status, format!("{text}\n")).into_response();
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    r
}

/// Compares in time independent of where the first difference is.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token: `ZOT_MCP_TOKEN` when set (`true`: it came from there), else
/// 128 fresh random bits in hex.
pub fn token() -> Result<(String, bool), String> {
    match std::env::var(TOKEN_VAR) {
        Ok(t) if t.trim().is_empty() => Err(format!("{TOKEN_VAR} is set but empty")),
        Ok(t) => Ok((t.trim().to_owned(), true)),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{TOKEN_VAR} is not UTF-8")),
        Err(std::env::VarError::NotPresent) => {
            Ok((format!("{:032x}", rand::random::<u128>()), false))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(g: &Guard, pairs: &[(&'static str, &str)]) -> Option<StatusCode> {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        g.check(&h).err().map(|(status, _)| status)
    }

    #[test]
    fn token_host_and_origin_are_checked() {
        let g = Guard::new("abc".into(), "127.0.0.1:4000".parse().unwrap());
        let host = ("host", "127.0.0.1:4000");
        let auth = ("authorization", "Bearer abc");
        assert_eq!(status(&g, &[host, auth]), None);
        assert_eq!(status(&g, &[("host", "localhost:4000"), auth]), None);
        let unauthorized = Some(StatusCode::UNAUTHORIZED);
        assert_eq!(status(&g, &[host]), unauthorized);
        assert_eq!(
            status(&g, &[host, ("authorization", "Bearer abd")]),
            unauthorized
        );
        assert_eq!(
            status(&g, &[host, ("authorization", "Bearer ab")]),
            unauthorized
        );
        assert_eq!(status(&g, &[host, ("authorization", "abc")]), unauthorized);
        let forbidden = Some(StatusCode::FORBIDDEN);
        assert_eq!(
            status(&g, &[("host", "evil.example:4000"), auth]),
            forbidden
        );
        assert_eq!(status(&g, &[("host", "127.0.0.1:4001"), auth]), forbidden);
        let own = ("origin", "http://127.0.0.1:4000");
        assert_eq!(status(&g, &[host, auth, own]), None);
        let other = ("origin", "http://evil.example");
        assert_eq!(status(&g, &[host, auth, other]), forbidden);
    }

    #[test]
    fn a_refused_token_asks_for_bearer() {
        let g = Guard::new("abc".into(), "127.0.0.1:4000".parse().unwrap());
        let mut h = HeaderMap::new();
        h.insert("host", HeaderValue::from_static("127.0.0.1:4000"));
        let r = answer(g.check(&h).unwrap_err());
        assert_eq!(r.headers()[header::WWW_AUTHENTICATE], "Bearer");
    }
}
