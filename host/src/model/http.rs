//! One POST over HTTP/1.1 (hyper's client), plain or TLS, for the model
//! API, with a connect timeout and a first-byte timeout; the body is read
//! by the caller frame by frame (the idle timeout is its).

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{HeaderMap, Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

use super::failure::Failure;
use super::tls;

/// Where the API is: `http(s)://host:port/base`.
#[derive(Debug, Clone)]
pub struct Endpoint {
    tls: bool,
    /// The host name (IPv6 without brackets), for TLS.
    host: String,
    /// `host:port`, to connect to and for the `Host` header.
    authority: String,
    base_path: String,
    url: String,
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.url)
    }
}

impl Endpoint {
    /// Parses an API base URL such as `http://127.0.0.1:11434/v1` or
    /// `https://api.openai.com/v1`.
    pub fn parse(url: &str) -> Result<Self, String> {
        const EXAMPLE: &str = "e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1";
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| format!("not a URL ({e}); expected {EXAMPLE}"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(format!("expected an http:// or https:// URL, {EXAMPLE}")),
        };
        let auth = uri.authority().ok_or("the URL names no host")?;
        if auth.as_str().contains('@') {
            return Err("credentials in the URL are not sent; use --model-key-env".into());
        }
        if uri.query().is_some() {
            return Err(format!(
                "a query (?...) is not part of an API base URL, {EXAMPLE}"
            ));
        }
        let host = auth.host().trim_start_matches('[').trim_end_matches(']');
        let port = auth.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let authority = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        Ok(Self {
            tls,
            host: host.to_owned(),
            authority,
            base_path: uri.path().trim_end_matches('/').to_owned(),
            url: url.trim_end_matches('/').to_owned(),
        })
    }

    /// Whether the URL is `https://`.
    pub fn is_tls(&self) -> bool {
        self.tls
    }
}

/// How long each part of a request may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timeouts {
    /// The TCP connection and the TLS handshake.
    pub connect: Duration,
    /// From the request sent to the reply's headers (a local model on a
    /// CPU may think for minutes before its first token).
    pub first_byte: Duration,
    /// The longest pause within the reply's body.
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(300),
            idle: Duration::from_secs(120),
        }
    }
}

/// A reply whose headers have arrived; the body is still on the wire.
pub struct Reply {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Incoming,
    /// Drives the connection while the body is read; stopped on drop.
    _driver: AbortOnDrop,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A request: path under the endpoint, bearer key, JSON body, `Accept`.
pub struct Post<'a> {
    pub path: &'a str,
    pub key: Option<&'a str>,
    pub body: Bytes,
    pub accept: &'static str,
}

/// POSTs the request and waits for the reply's headers.
pub async fn post(
    endpoint: &Endpoint,
    tls: Option<&Arc<rustls::ClientConfig>>,
    req: Post<'_>,
    timeouts: Timeouts,
) -> Result<Reply, Failure> {
    let tcp = crate::deadline::timeout(
        timeouts.connect,
        tokio::net::TcpStream::connect(&endpoint.authority),
    )
    .await
    .map_err(|_| Failure::ConnectTimeout(timeouts.connect))?
    .map_err(|e| Failure::Connect(format!("{}: {e}", endpoint.authority)))?;
    let _ = tcp.set_nodelay(true);
    let request = build(endpoint, req)?;
    if !endpoint.tls {
        return exchange(tcp, request, timeouts.first_byte).await;
    }
    let config = tls.ok_or_else(|| Failure::Tls("no TLS configuration".into()))?;
    let name = rustls::pki_types::ServerName::try_from(endpoint.host.clone())
        .map_err(|e| Failure::Tls(format!("{} is not a TLS server name: {e}", endpoint.host)))?;
    let connector = tokio_rustls::TlsConnector::from(config.clone());
    let stream = crate::deadline::timeout(timeouts.connect, connector.connect(name, tcp))
        .await
        .map_err(|_| Failure::ConnectTimeout(timeouts.connect))?
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::UnexpectedEof => {
                Failure::Reset(format!("during the TLS handshake: {e}"))
            }
            _ => Failure::Tls(tls::describe(&e, &endpoint.host)),
        })?;
    exchange(stream, request, timeouts.first_byte).await
}

fn build(endpoint: &Endpoint, req: Post<'_>) -> Result<Request<Full<Bytes>>, Failure> {
    let mut r = Request::post(format!("{}/{}", endpoint.base_path, req.path))
        .header(hyper::header::HOST, &endpoint.authority)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::ACCEPT, req.accept)
        .header(
            hyper::header::USER_AGENT,
            concat!("zot-host/", env!("CARGO_PKG_VERSION")),
        );
    if let Some(key) = req.key {
        r = r.header(hyper::header::AUTHORIZATION, format!("Bearer {key}"));
    }
    r.body(Full::new(req.body))
        .map_err(|e| Failure::Reply(format!("the request cannot be built: {e}")))
}

async fn exchange<T>(
    io: T,
    request: Request<Full<Bytes>>,
    first_byte: Duration,
) -> Result<Reply, Failure>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| Failure::Reset(e.to_string()))?;
    let driver = AbortOnDrop(tokio::spawn(async move {
        let _ = conn.await;
    }));
    let resp = crate::deadline::timeout(first_byte, sender.send_request(request))
        .await
        .map_err(|_| Failure::FirstByte(first_byte))?
        .map_err(|e| Failure::Reset(cause(&e)))?;
    let (parts, body) = resp.into_parts();
    Ok(Reply {
        status: parts.status,
        headers: parts.headers,
        body,
        _driver: driver,
    })
}

/// A hyper error with the I/O error under it, if any.
pub fn cause(e: &hyper::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s = format!("{s}: {inner}");
        src = inner.source();
    }
    s
}

/// The next piece of the body; `None` at its end; an error after `idle`
/// without data or when the connection breaks.
pub async fn next_chunk(body: &mut Incoming, idle: Duration) -> Result<Option<Bytes>, Failure> {
    loop {
        let frame = crate::deadline::timeout(idle, body.frame())
            .await
            .map_err(|_| Failure::Idle(idle))?;
        match frame {
            None => return Ok(None),
            Some(Err(e)) => return Err(Failure::Cut(cause(&e))),
            // Trailers carry nothing the reply needs.
            Some(Ok(f)) => match f.into_data() {
                Ok(data) => return Ok(Some(data)),
                Err(_) => continue,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_before_any_request() {
        let e = Endpoint::parse("http://127.0.0.1:11434/v1/").unwrap();
        assert_eq!(
            (e.authority.as_str(), e.base_path.as_str(), e.tls),
            ("127.0.0.1:11434", "/v1", false)
        );
        assert_eq!(e.to_string(), "http://127.0.0.1:11434/v1");
        assert_eq!(
            Endpoint::parse("http://localhost/v1").unwrap().authority,
            "localhost:80"
        );
        let e = Endpoint::parse("https://api.openai.com/v1").unwrap();
        assert_eq!(
            (e.authority.as_str(), e.host.as_str(), e.tls),
            ("api.openai.com:443", "api.openai.com", true)
        );
        let e = Endpoint::parse("https://[::1]:8443/v1").unwrap();
        assert_eq!(
            (e.authority.as_str(), e.host.as_str()),
            ("[::1]:8443", "::1")
        );
        assert!(Endpoint::parse("ftp://x")
            .unwrap_err()
            .contains("http:// or https://"));
        assert!(Endpoint::parse("http://u:p@x/v1")
            .unwrap_err()
            .contains("--model-key-env"));
        assert!(Endpoint::parse("http://x/v1?a=b")
            .unwrap_err()
            .contains("query"));
        assert!(Endpoint::parse("not a url").is_err());
    }
}
