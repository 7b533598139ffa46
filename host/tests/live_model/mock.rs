//! A mock OpenAI-compatible server on 127.0.0.1, plain or TLS, written at
//! the byte level so that a test decides exactly what goes on the wire:
//! a whole JSON reply, server-sent events cut at any byte, a stream broken
//! off halfway, a stall, an HTTP error with its headers, or a connection
//! closed without an answer.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_rustls::rustls;

/// What the server saw of one request.
#[derive(Debug, Clone)]
pub struct Seen {
    pub body: Value,
    pub headers: Vec<(String, String)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// How the server answers one request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A JSON body with this status and extra headers.
    Json(u16, Vec<(&'static str, String)>, Value),
    /// Server-sent events with these data, written in HTTP chunks of
    /// `piece` bytes each.
    Sse { events: Vec<String>, piece: usize },
    /// The first `bytes` bytes of that stream, then the connection closes
    /// mid-body.
    SseCut { events: Vec<String>, bytes: usize },
    /// The headers and the first event, then nothing more, ever.
    SseStall { first: String },
    /// The headers and the `first` events, then, once `gate` is
    /// notified, the `rest`.
    SseGated {
        first: Vec<String>,
        rest: Vec<String>,
        gate: Arc<tokio::sync::Notify>,
    },
    /// No answer at all, ever.
    Stall,
    /// The connection closes without an answer.
    Close,
}

pub type Handler = Arc<dyn Fn(usize, &Value) -> Answer + Send + Sync>;

pub struct Mock {
    /// The API base URL (`http(s)://127.0.0.1:PORT/v1`, or `localhost`
    /// for TLS).
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Mock {
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Serves `handler` over plain HTTP.
pub async fn serve(handler: Handler) -> Mock {
    start(handler, None).await
}

/// Serves `handler` over TLS with `config`.
pub async fn serve_tls(handler: Handler, config: Arc<rustls::ServerConfig>) -> Mock {
    start(handler, Some(config)).await
}

async fn start(handler: Handler, tls: Option<Arc<rustls::ServerConfig>>) -> Mock {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let is_tls = tls.is_some();
    tokio::spawn(async move {
        let mut n = 0;
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (handler, seen, tls) = (handler.clone(), s.clone(), tls.clone());
            tokio::spawn(async move {
                match tls {
                    None => connection(tcp, n, &handler, &seen).await,
                    Some(config) => {
                        // A refused handshake is the client's business.
                        if let Ok(stream) =
                            tokio_rustls::TlsAcceptor::from(config).accept(tcp).await
                        {
                            connection(stream, n, &handler, &seen).await;
                        }
                    }
                }
            });
            n += 1;
        }
    });
    let url = if is_tls {
        format!("https://localhost:{port}/v1")
    } else {
        format!("http://127.0.0.1:{port}/v1")
    };
    Mock { url, seen }
}

/// Reads one request and answers it.
async fn connection<S>(mut io: S, n: usize, handler: &Handler, seen: &Mutex<Vec<Seen>>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let Some((headers, body)) = read_request(&mut io).await else {
        return;
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let answer = handler(n, &body);
    seen.lock().unwrap().push(Seen { body, headers });
    let _ = answer_with(&mut io, answer).await;
}

async fn read_request<S: AsyncRead + Unpin>(
    io: &mut S,
) -> Option<(Vec<(String, String)>, Vec<u8>)> {
    let mut buf = Vec::new();
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = io.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let headers: Vec<(String, String)> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[end..].to_vec();
    while body.len() < len {
        let mut chunk = [0u8; 4096];
        let n = io.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((headers, body))
}

fn sse_bytes(events: &[String]) -> Vec<u8> {
    events
        .iter()
        .flat_map(|e| format!("data: {e}\r\n\r\n").into_bytes())
        .collect()
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                        transfer-encoding: chunked\r\nconnection: close\r\n\r\n";

async fn chunk<S: AsyncWrite + Unpin>(io: &mut S, bytes: &[u8]) -> std::io::Result<()> {
    io.write_all(format!("{:x}\r\n", bytes.len()).as_bytes())
        .await?;
    io.write_all(bytes).await?;
    io.write_all(b"\r\n").await?;
    io.flush().await
}

async fn answer_with<S: AsyncWrite + Unpin>(io: &mut S, answer: Answer) -> std::io::Result<()> {
    match answer {
        Answer::Json(status, headers, body) => {
            let body = body.to_string();
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            io.write_all(head.as_bytes()).await?;
            io.write_all(body.as_bytes()).await?;
        }
        Answer::Sse { events, piece } => {
            io.write_all(SSE_HEAD.as_bytes()).await?;
            for p in sse_bytes(&events).chunks(piece.max(1)) {
                chunk(io, p).await?;
            }
            io.write_all(b"0\r\n\r\n").await?;
        }
        Answer::SseCut { events, bytes } => {
            io.write_all(SSE_HEAD.as_bytes()).await?;
            let all = sse_bytes(&events);
            chunk(io, &all[..bytes.min(all.len())]).await?;
        }
        Answer::SseStall { first } => {
            io.write_all(SSE_HEAD.as_bytes()).await?;
            chunk(io, &sse_bytes(&[first])).await?;
            std::future::pending::<()>().await;
        }
        Answer::SseGated { first, rest, gate } => {
            io.write_all(SSE_HEAD.as_bytes()).await?;
            chunk(io, &sse_bytes(&first)).await?;
            gate.notified().await;
            chunk(io, &sse_bytes(&rest)).await?;
            io.write_all(b"0\r\n\r\n").await?;
        }
        Answer::Stall => std::future::pending::<()>().await,
        Answer::Close => {}
    }
    io.flush().await?;
    io.shutdown().await
}

// ---- the model the mock plays ----

/// The calculator model: asks for `add(2, 3)`, then answers with the
/// tool's result.
pub fn calculator_message(body: &Value) -> Value {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    match messages.iter().rev().find(|m| m["role"] == "tool") {
        None => json!({"role": "assistant", "content": "Let me add them.", "tool_calls": [{
            "id": "call_7", "type": "function",
            "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"},
        }]}),
        Some(result) => json!({"role": "assistant",
            "content": format!("The sum is {}.", result["content"].as_str().unwrap_or("?"))}),
    }
}

/// A message as a whole chat completion.
pub fn completion(message: Value) -> Value {
    let finish = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    json!({"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
}

/// The data of a stream's event with this delta.
pub fn delta(d: Value) -> String {
    json!({"id": "x", "object": "chat.completion.chunk",
           "choices": [{"index": 0, "delta": d, "finish_reason": null}]})
    .to_string()
}

/// A message as the data of a stream's events: the text in pieces of
/// three characters, each tool call's name then its arguments in pieces,
/// the finish reason, the usage, `[DONE]`.
pub fn chunks(message: &Value) -> Vec<String> {
    let mut out = vec![delta(json!({"role": "assistant", "content": ""}))];
    let text: Vec<char> = message["content"].as_str().unwrap_or("").chars().collect();
    for piece in text.chunks(3) {
        out.push(delta(json!({"content": piece.iter().collect::<String>()})));
    }
    let calls = message["tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (i, c) in calls.iter().enumerate() {
        out.push(delta(
            json!({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
            "function": {"name": c["function"]["name"], "arguments": ""}}]}),
        ));
        let args: Vec<char> = c["function"]["arguments"]
            .as_str()
            .unwrap()
            .chars()
            .collect();
        for piece in args.chunks(4) {
            out.push(delta(json!({"tool_calls": [{"index": i,
                "function": {"arguments": piece.iter().collect::<String>()}}]})));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out.push(
        json!({"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
            .to_string(),
    );
    out.push(
        json!({"id": "x", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
            .to_string(),
    );
    out.push("[DONE]".into());
    out
}

/// The calculator, answering as asked: streamed (in `piece`-byte HTTP
/// chunks) when the request says `stream: true`, whole otherwise.
pub fn calculator(piece: usize) -> Handler {
    Arc::new(move |_, body| {
        let message = calculator_message(body);
        if body["stream"] == true {
            Answer::Sse {
                events: chunks(&message),
                piece,
            }
        } else {
            Answer::Json(200, vec![], completion(message))
        }
    })
}

/// Answers the first requests with `first` (one each), then as the
/// calculator.
pub fn after(first: Vec<Answer>) -> Handler {
    let calc = calculator(64);
    Arc::new(move |n, body| match first.get(n) {
        Some(a) => a.clone(),
        None => calc(n, body),
    })
}

// ---- certificates ----

/// A private CA and the server configurations of certificates it signed.
pub struct Pki {
    /// The CA's certificate, PEM.
    pub ca_pem: String,
    /// A server certificate for `localhost`.
    pub localhost: Arc<rustls::ServerConfig>,
    /// A server certificate for another name.
    pub elsewhere: Arc<rustls::ServerConfig>,
}

pub fn pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let server = |name: &str| {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(vec![name.to_owned()])
            .unwrap()
            .signed_by(&key, &issuer)
            .unwrap();
        let der = rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], der)
        .unwrap();
        Arc::new(config)
    };
    Pki {
        ca_pem: ca_cert.pem(),
        localhost: server("localhost"),
        elsewhere: server("api.elsewhere.example"),
    }
}
