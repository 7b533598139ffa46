//! A fix-up between the MCP server's stdout and rmcp 0.11, which reads an
//! embedded resource in a prompt message one level deeper than the MCP
//! schema has it (`{"type": "resource", "resource": {"resource": {…}}}`
//! instead of `{"type": "resource", "resource": {…}}`): without it, every
//! `prompts/get` answer with such a message fails as "Unexpected response
//! type". Lines that carry prompt messages are rewritten to rmcp's form;
//! every other line passes through as it is.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream};

/// How much of the server's output may wait between the two sides.
const BUFFER: usize = 64 * 1024;

/// Reads `stdout` line by line in a task; the returned stream is what rmcp
/// reads. It ends when `stdout` does.
pub fn spawn(stdout: impl AsyncRead + Unpin + Send + 'static) -> DuplexStream {
    let (mut tx, rx) = tokio::io::duplex(BUFFER);
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let fixed = rewrite(&line);
            if tx
                .write_all(fixed.as_deref().unwrap_or(&line))
                .await
                .is_err()
            {
                break;
            }
        }
    });
    rx
}

/// The line in rmcp's form, or `None` when it needs no change.
pub fn rewrite(line: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(line).ok()?;
    if !text.contains("\"messages\"") {
        return None;
    }
    let mut value: Value = serde_json::from_str(text).ok()?;
    let messages = value
        .get_mut("result")?
        .get_mut("messages")?
        .as_array_mut()?;
    let mut changed = false;
    for content in messages.iter_mut().filter_map(|m| m.get_mut("content")) {
        if content.get("type").and_then(Value::as_str) != Some("resource") {
            continue;
        }
        if let Some(resource) = content.get_mut("resource") {
            if resource.get("resource").is_none() {
                *resource = serde_json::json!({ "resource": resource.take() });
                changed = true;
            }
        }
    }
    if !changed {
        return None;
    }
    let mut out = serde_json::to_vec(&value).ok()?;
    out.push(b'\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::GetPromptResult;
    use serde_json::json;

    #[test]
    fn a_prompt_with_an_embedded_resource_becomes_readable_by_rmcp() {
        let line = json!({"jsonrpc": "2.0", "id": 3, "result": {"messages": [
            {"role": "user", "content": {"type": "text", "text": "see"}},
            {"role": "user", "content": {"type": "resource",
                "resource": {"uri": "x:a", "mimeType": "text/plain", "text": "body"}}},
        ]}})
        .to_string()
            + "\n";
        let fixed = rewrite(line.as_bytes()).expect("rewritten");
        assert!(fixed.ends_with(b"\n"));
        let value: Value = serde_json::from_slice(&fixed).unwrap();
        let result: GetPromptResult = serde_json::from_value(value["result"].clone()).unwrap();
        assert_eq!(crate::wrap::prompts::render(result).unwrap(), "see\n\nbody");
    }

    #[test]
    fn other_lines_pass_unchanged() {
        let tool =
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}"#;
        assert_eq!(rewrite(tool), None);
        let text_prompt =
            br#"{"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}}"#;
        assert_eq!(rewrite(text_prompt), None);
        assert_eq!(rewrite(b"not json \"messages\""), None);
    }
}
