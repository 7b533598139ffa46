//! One JSON POST over HTTP/1.1 (hyper's client), for the model API.
//!
//! Plain `http://` only: what local model servers speak. An `https://` URL
//! is refused up front with what to do instead (this build carries no TLS
//! stack; see the `--model-url` docs).

use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// The largest reply body read (a chat completion is far smaller).
const MAX_REPLY_BYTES: usize = 16 << 20;

/// Where the API is: `http://host:port/base`.
#[derive(Debug, Clone)]
pub struct Endpoint {
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
    /// Parses an API base URL such as `http://127.0.0.1:11434/v1`.
    pub fn parse(url: &str) -> Result<Self, String> {
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| format!("not a URL ({e}); expected e.g. http://127.0.0.1:11434/v1"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                return Err(
                    "https is not supported by this zot-host build: use a local \
                            OpenAI-compatible server (ollama, llama.cpp, vLLM) over http://, \
                            or a local proxy in front of a remote API"
                        .into(),
                )
            }
            _ => return Err("expected an http:// URL, e.g. http://127.0.0.1:11434/v1".into()),
        }
        let authority = uri
            .authority()
            .ok_or("the URL names no host")?
            .as_str()
            .to_owned();
        if authority.contains('@') {
            return Err("credentials in the URL are not sent; use --model-key-env".into());
        }
        let authority = if uri.port().is_some() {
            authority
        } else {
            format!("{authority}:80")
        };
        Ok(Self {
            authority,
            base_path: uri.path().trim_end_matches('/').to_owned(),
            url: url.trim_end_matches('/').to_owned(),
        })
    }
}

/// POSTs `body` to `{endpoint}/{path}` and returns the JSON reply of a 2xx
/// answer; any other answer is an error naming the status and the API's
/// message.
pub async fn post_json(
    endpoint: &Endpoint,
    path: &str,
    key: Option<&str>,
    body: &Value,
    timeout: Duration,
) -> Result<Value, String> {
    tokio::time::timeout(timeout, post(endpoint, path, key, body))
        .await
        .map_err(|_| format!("no answer within {} s", timeout.as_secs()))?
}

async fn post(
    endpoint: &Endpoint,
    path: &str,
    key: Option<&str>,
    body: &Value,
) -> Result<Value, String> {
    let stream = tokio::net::TcpStream::connect(&endpoint.authority)
        .await
        .map_err(|e| format!("cannot connect to {}: {e}", endpoint.authority))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    // The connection's driver; it ends when the exchange does.
    let driver = tokio::spawn(conn);
    let mut req = Request::post(format!("{}/{path}", endpoint.base_path))
        .header(hyper::header::HOST, &endpoint.authority)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::ACCEPT, "application/json");
    if let Some(key) = key {
        req = req.header(hyper::header::AUTHORIZATION, format!("Bearer {key}"));
    }
    let req = req
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| e.to_string())?;
    let resp = sender.send_request(req).await.map_err(|e| e.to_string())?;
    let status = resp.status();
    let bytes = Limited::new(resp.into_body(), MAX_REPLY_BYTES)
        .collect()
        .await
        .map_err(|e| format!("reading the reply: {e}"))?
        .to_bytes();
    driver.abort();
    let json = serde_json::from_slice::<Value>(&bytes);
    if !status.is_success() {
        let detail = match &json {
            Ok(v) => v
                .pointer("/error/message")
                .and_then(Value::as_str)
                .map_or_else(|| v.to_string(), str::to_owned),
            Err(_) => String::from_utf8_lossy(&bytes).into_owned(),
        };
        let detail: String = detail.chars().take(300).collect();
        return Err(format!("HTTP {status}: {detail}"));
    }
    json.map_err(|e| format!("the reply is not JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_before_any_request() {
        let e = Endpoint::parse("http://127.0.0.1:11434/v1/").unwrap();
        assert_eq!(
            (e.authority.as_str(), e.base_path.as_str()),
            ("127.0.0.1:11434", "/v1")
        );
        assert_eq!(
            Endpoint::parse("http://localhost/v1").unwrap().authority,
            "localhost:80"
        );
        assert!(Endpoint::parse("https://api.openai.com/v1")
            .unwrap_err()
            .contains("https"));
        assert!(Endpoint::parse("ftp://x").unwrap_err().contains("http://"));
        assert!(Endpoint::parse("not a url").is_err());
    }
}
