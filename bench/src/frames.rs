//! Host → extension frames, encoded by hand into byte buffers (outside the
//! timed sections) so the harness spends as little as possible per message.

use std::io::Write;
use std::path::Path;

use serde_json::json;

/// Appends `s` as a JSON string literal.
fn push_str(buf: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *buf, s).expect("writing to a Vec cannot fail");
}

/// `hello_ack` with capability `call_tool`; `cwd`, `extension_dir` and
/// `data_dir` all name the extension directory.
pub fn hello_ack(ext_dir: &Path) -> Vec<u8> {
    let dir = ext_dir.to_string_lossy();
    let mut v = serde_json::to_vec(&json!({
        "type": "hello_ack",
        "protocol_version": 1,
        "capabilities": ["call_tool"],
        "zot_version": concat!("zot-bench ", env!("CARGO_PKG_VERSION")),
        "provider": "bench",
        "model": "bench",
        "cwd": dir,
        "extension_dir": dir,
        "data_dir": dir,
    }))
    .expect("static JSON");
    v.push(b'\n');
    v
}

/// Appends a `tool_call` for tool `name` with already-encoded `args`.
pub fn tool_call(buf: &mut Vec<u8>, id: &str, name: &str, args_json: &str) {
    buf.extend_from_slice(b"{\"type\":\"tool_call\",\"id\":");
    push_str(buf, id);
    buf.extend_from_slice(b",\"name\":");
    push_str(buf, name);
    buf.extend_from_slice(b",\"args\":");
    buf.extend_from_slice(args_json.as_bytes());
    buf.extend_from_slice(b"}\n");
}

/// Appends a `tool_call` of `echo` with `{"text": text}`.
pub fn echo_call(buf: &mut Vec<u8>, id: &str, text: &str) {
    buf.extend_from_slice(b"{\"type\":\"tool_call\",\"id\":");
    push_str(buf, id);
    buf.extend_from_slice(b",\"name\":\"echo\",\"args\":{\"text\":");
    push_str(buf, text);
    buf.extend_from_slice(b"}}\n");
}

/// A `tool_cancel`.
pub fn tool_cancel(id: &str) -> Vec<u8> {
    let mut buf = b"{\"type\":\"tool_cancel\",\"id\":".to_vec();
    push_str(&mut buf, id);
    buf.extend_from_slice(b"}\n");
    buf
}

/// Appends a lifecycle `event` `tool_call` (a model-proposed `bash ls`).
pub fn event_tool_call(buf: &mut Vec<u8>, sequence: u64) {
    let _ = writeln!(
        buf,
        "{{\"type\":\"event\",\"event\":\"tool_call\",\"session_id\":\"bench-session\",\"cwd\":\"/tmp/bench\",\"sequence\":{sequence},\"tool_id\":\"toolu_{sequence:08}\",\"tool_name\":\"bash\",\"tool_args\":{{\"command\":\"ls -la\"}}}}"
    );
}

/// Appends a lifecycle `event` `tool_result` whose result is one text block.
pub fn event_tool_result(buf: &mut Vec<u8>, sequence: u64, text: &str) {
    let _ = write!(
        buf,
        "{{\"type\":\"event\",\"event\":\"tool_result\",\"session_id\":\"bench-session\",\"cwd\":\"/tmp/bench\",\"sequence\":{sequence},\"status\":\"completed\",\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":"
    );
    push_str(buf, text);
    let _ = writeln!(
        buf,
        "}}],\"is_error\":false}},\"executed\":true,\"tool_id\":\"toolu_{sequence:08}\",\"tool_name\":\"bash\",\"tool_args\":{{\"command\":\"cat big.txt\"}}}}"
    );
}

/// The host's `tool_result` answering the extension's `call_tool`.
pub fn host_tool_result(id: &str, name: &str, text: &str) -> Vec<u8> {
    let mut buf = b"{\"type\":\"tool_result\",\"id\":".to_vec();
    push_str(&mut buf, id);
    buf.extend_from_slice(b",\"name\":");
    push_str(&mut buf, name);
    buf.extend_from_slice(b",\"content\":[{\"type\":\"text\",\"text\":");
    push_str(&mut buf, text);
    buf.extend_from_slice(b"}]}\n");
    buf
}

/// `shutdown`.
pub const SHUTDOWN: &[u8] = b"{\"type\":\"shutdown\"}\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(buf: &[u8]) -> Vec<serde_json::Value> {
        buf.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    #[test]
    fn frames_are_valid_json_lines() {
        let mut buf = hello_ack(Path::new("/x\"y"));
        tool_call(&mut buf, "1", "big", r#"{"bytes":3}"#);
        echo_call(&mut buf, "2", "a\"b\n");
        buf.extend(tool_cancel("3"));
        event_tool_call(&mut buf, 4);
        event_tool_result(&mut buf, 5, "out");
        buf.extend(host_tool_result("c-1", "echo", "inner:hi"));
        buf.extend_from_slice(SHUTDOWN);
        let v = parse(&buf);
        assert_eq!(v.len(), 8);
        assert_eq!(v[0]["cwd"], "/x\"y");
        assert_eq!(v[2]["args"]["text"], "a\"b\n");
        assert_eq!(v[4]["tool_args"]["command"], "ls -la");
        assert_eq!(v[5]["result"]["content"][0]["text"], "out");
        assert_eq!(v[6]["content"][0]["text"], "inner:hi");
    }
}
