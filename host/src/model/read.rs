//! Reading a reply into a turn: an error status with the provider's
//! message, a whole JSON completion, or a stream of server-sent events —
//! whichever the server sends, whatever was asked (some servers stream
//! when asked not to, others ignore `stream: true`).

use std::time::Duration;

use hyper::body::Bytes;

use super::chat::{self, ModelTurn};
use super::failure::{self, Failure};
use super::http::{next_chunk, Reply};
use super::sse;
use super::stream::Assembler;

/// The largest reply read (a chat completion is far smaller).
pub const MAX_REPLY_BYTES: usize = 16 << 20;

/// The most of an error body read for its message.
const MAX_ERROR_BYTES: usize = 64 << 10;

/// Reads `reply`; `on_text` sees each piece of streamed text as it comes.
pub async fn turn(
    mut reply: Reply,
    idle: Duration,
    on_text: &(dyn Fn(&str) + Send + Sync),
) -> Result<ModelTurn, Failure> {
    if !reply.status.is_success() {
        return Err(status_failure(reply, idle).await);
    }
    let mut body = Body {
        reply: &mut reply,
        idle,
        read: 0,
    };
    // What the body is, from its first bytes (a content type is not always
    // set, nor right).
    let mut head = Vec::new();
    let first = loop {
        let Some(chunk) = body.next().await? else {
            return Err(Failure::Reply("the reply is empty".into()));
        };
        head.extend_from_slice(&chunk);
        if let Some(b) = head.iter().find(|b| !b.is_ascii_whitespace()) {
            break *b;
        }
    };
    if first == b'{' || first == b'[' {
        return whole(body, head).await;
    }
    let sse_type = body
        .reply
        .headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let trimmed = head.trim_ascii_start();
    if sse_type
        || [&b"data:"[..], b":", b"event:", b"id:"]
            .iter()
            .any(|p| trimmed.starts_with(p))
    {
        return streamed(body, head, on_text).await;
    }
    let ctype = body
        .reply
        .headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none");
    Err(Failure::Reply(format!(
        "the reply is neither JSON nor server-sent events (content-type {ctype}): {}",
        failure::one_line(&String::from_utf8_lossy(&head[..head.len().min(200)]))
    )))
}

/// The body being read, bounded.
struct Body<'a> {
    reply: &'a mut Reply,
    idle: Duration,
    read: usize,
}

impl Body<'_> {
    async fn next(&mut self) -> Result<Option<Bytes>, Failure> {
        let chunk = next_chunk(&mut self.reply.body, self.idle).await?;
        if let Some(c) = &chunk {
            self.read += c.len();
            if self.read > MAX_REPLY_BYTES {
                return Err(Failure::Reply(format!(
                    "the reply is longer than {} MiB",
                    MAX_REPLY_BYTES >> 20
                )));
            }
        }
        Ok(chunk)
    }
}

async fn whole(mut body: Body<'_>, mut bytes: Vec<u8>) -> Result<ModelTurn, Failure> {
    while let Some(chunk) = body.next().await? {
        bytes.extend_from_slice(&chunk);
    }
    let json = serde_json::from_slice(&bytes).map_err(|e| {
        Failure::Reply(format!(
            "the reply is not JSON ({e}): {}",
            failure::one_line(&String::from_utf8_lossy(&bytes[..bytes.len().min(200)]))
        ))
    })?;
    chat::parse_reply(&json).map_err(Failure::Reply)
}

async fn streamed(
    mut body: Body<'_>,
    head: Vec<u8>,
    on_text: &(dyn Fn(&str) + Send + Sync),
) -> Result<ModelTurn, Failure> {
    let mut decoder = sse::Decoder::default();
    let mut turn = Assembler::default();
    let mut chunk = Bytes::from(head);
    loop {
        for data in decoder.feed(&chunk).map_err(Failure::Reply)? {
            if let Some(text) = turn.event(&data).map_err(Failure::Reply)? {
                on_text(&text);
            }
        }
        // The stream's own end: a server that keeps the connection open
        // after it is not waited for.
        if turn.is_done() {
            break;
        }
        match body.next().await? {
            Some(next) => chunk = next,
            None => {
                if let Some(data) = decoder.finish().map_err(Failure::Reply)? {
                    if let Some(text) = turn.event(&data).map_err(Failure::Reply)? {
                        on_text(&text);
                    }
                }
                break;
            }
        }
    }
    turn.finish().map_err(Failure::Cut)
}

/// An error status: its code, the provider's message and the wait it asks
/// for.
async fn status_failure(mut reply: Reply, idle: Duration) -> Failure {
    let mut bytes = Vec::new();
    // What arrived is enough for the message; a body that breaks off or
    // stalls still leaves the status.
    while bytes.len() < MAX_ERROR_BYTES {
        match next_chunk(&mut reply.body, idle).await {
            Ok(Some(c)) => bytes.extend_from_slice(&c),
            _ => break,
        }
    }
    bytes.truncate(MAX_ERROR_BYTES);
    let message = if bytes.iter().all(u8::is_ascii_whitespace) {
        "(no message)".to_owned()
    } else {
        failure::provider_message(&bytes)
    };
    Failure::Status {
        code: reply.status.as_u16(),
        reason: reply.status.canonical_reason().unwrap_or("").to_owned(),
        message,
        retry_after: failure::retry_after(&reply.headers),
    }
}
