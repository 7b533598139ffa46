//! Who may talk to the inspector: a request must carry the run's token (in
//! the `token` query parameter or the `x-zot-token` header), name this
//! server in `Host` (so that a DNS-rebound name cannot reach it), and, when
//! it has an `Origin` (every browser request that could come from another
//! page does), come from this server's own origin.

use std::net::SocketAddr;

use axum::http::{header, HeaderMap, StatusCode};

/// The secrets and names a request is checked against.
#[derive(Debug, Clone)]
pub struct Guard {
    token: String,
    /// `Host` values this server answers to; empty: any (a non-loopback
    /// `--listen`, where the host name is not known in advance).
    hosts: Vec<String>,
}

/// Why a request was refused (the body of the 403).
pub type Refusal = (StatusCode, &'static str);

impl Guard {
    /// A guard for a server bound to `addr`.
    pub fn new(token: String, addr: SocketAddr) -> Self {
        let port = addr.port();
        let hosts = if addr.ip().is_loopback() {
            let mut h = vec![
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("[::1]:{port}"),
            ];
            let own = addr.to_string();
            if !h.contains(&own) {
                h.push(own);
            }
            h
        } else {
            Vec::new()
        };
        Self { token, hosts }
    }

    /// The token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Checks a request.
    pub fn check(&self, headers: &HeaderMap, query: Option<&str>) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default();
        if !self.hosts.is_empty() && !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err((StatusCode::FORBIDDEN, "refused: unexpected Host header\n"));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let ok = origin
                .to_str()
                .is_ok_and(|o| o.eq_ignore_ascii_case(&format!("http://{host}")));
            if !ok {
                return Err((
                    StatusCode::FORBIDDEN,
                    "refused: request from another origin\n",
                ));
            }
        }
        let given = headers
            .get("x-zot-token")
            .and_then(|t| t.to_str().ok())
            .map(str::to_owned)
            .or_else(|| query.and_then(token_param));
        match given {
            Some(t) if same(t.as_bytes(), self.token.as_bytes()) => Ok(()),
            Some(_) => Err((
                StatusCode::FORBIDDEN,
                "refused: wrong token (use the URL zot-host inspect printed)\n",
            )),
            None => Err((
                StatusCode::FORBIDDEN,
                "refused: no token (use the URL zot-host inspect printed)\n",
            )),
        }
    }
}

fn token_param(query: &str) -> Option<String> {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="))
        .map(str::to_owned)
}

/// Compares in time independent of where the first difference is.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh token: 128 bits from the OS's random source, in hex.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut buf = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn token_host_and_origin_are_required() {
        let g = Guard::new("abc".into(), "127.0.0.1:4000".parse().unwrap());
        let host = ("host", "127.0.0.1:4000");
        assert!(g.check(&headers(&[host]), Some("token=abc")).is_ok());
        assert!(g
            .check(&headers(&[host, ("x-zot-token", "abc")]), None)
            .is_ok());
        assert!(g.check(&headers(&[host]), None).is_err());
        assert!(g.check(&headers(&[host]), Some("token=abd")).is_err());
        assert!(g.check(&headers(&[host]), Some("token=ab")).is_err());
        assert!(g
            .check(
                &headers(&[("host", "evil.example:4000")]),
                Some("token=abc")
            )
            .is_err());
        assert!(g
            .check(
                &headers(&[host, ("origin", "http://127.0.0.1:4000")]),
                Some("token=abc")
            )
            .is_ok());
        assert!(g
            .check(
                &headers(&[host, ("origin", "http://evil.example")]),
                Some("token=abc")
            )
            .is_err());
    }
}
