//! The line codec: limits, resynchronisation, and the writer's guarantees.

use std::io::Cursor;

use tokio::io::BufReader;
use zot_protocol::codec::blocking;
use zot_protocol::limits::MAX_FRAME_BYTES;
use zot_protocol::{
    encode_frame, CodecError, ContentBlock, ExtFrame, Frame, FrameReader, FrameWriter, HostFrame,
    Notify, NotifyLevel, ToolResult,
};

/// A 5 MiB line, then a valid frame.
fn oversize_then_valid() -> Vec<u8> {
    let mut input = br#"{"type":"notify","level":"info","message":""#.to_vec();
    input.extend(std::iter::repeat_n(b'x', 5 * 1024 * 1024));
    input.extend_from_slice(b"\"}\n");
    input.extend_from_slice(b"{\"type\":\"ready\"}\n");
    input
}

#[tokio::test]
async fn async_reader_reports_an_oversize_line_and_resynchronises() {
    let input = oversize_then_valid();
    // A small buffer forces the line to arrive in many chunks.
    let mut r = FrameReader::<_, ExtFrame>::new(BufReader::with_capacity(8192, &input[..]));
    match r.next_frame().await {
        Err(CodecError::FrameTooLarge { len, limit }) => {
            assert_eq!(limit, MAX_FRAME_BYTES);
            assert!(len > 5 * 1024 * 1024, "{len}");
        }
        other => panic!("expected FrameTooLarge, got {other:?}"),
    }
    assert_eq!(r.next_frame().await.unwrap(), Some(ExtFrame::Ready));
    assert_eq!(r.next_frame().await.unwrap(), None);
}

#[test]
fn blocking_reader_reports_an_oversize_line_and_resynchronises() {
    let input = oversize_then_valid();
    let mut r = blocking::FrameReader::<_, ExtFrame>::new(std::io::BufReader::with_capacity(
        4096,
        Cursor::new(input),
    ));
    let err = r.next_frame().unwrap_err();
    assert_eq!(err.kind(), "frame_too_large");
    assert!(err.is_recoverable());
    assert_eq!(r.next_frame().unwrap(), Some(ExtFrame::Ready));
    assert!(r.next_frame().unwrap().is_none());
}

#[test]
fn a_line_of_exactly_the_limit_is_accepted_and_one_byte_more_is_not() {
    let frame = |len: usize| {
        let head = br#"{"type":"submit","text":""#;
        let tail = b"\"}\n";
        let mut v = head.to_vec();
        v.extend(std::iter::repeat_n(b'a', len - head.len() - tail.len()));
        v.extend_from_slice(tail);
        assert_eq!(v.len(), len);
        v
    };
    let mut input = frame(MAX_FRAME_BYTES);
    input.extend(frame(MAX_FRAME_BYTES + 1));
    let mut r = blocking::FrameReader::<_, ExtFrame>::new(Cursor::new(input));
    assert!(matches!(r.next_frame(), Ok(Some(ExtFrame::Submit(_)))));
    assert!(matches!(
        r.next_frame(),
        Err(CodecError::FrameTooLarge { len, .. }) if len == MAX_FRAME_BYTES + 1
    ));
    assert!(r.next_frame().unwrap().is_none());
}

#[test]
fn an_oversize_line_cut_by_eof_is_reported_once() {
    let input = vec![b'y'; MAX_FRAME_BYTES + 10];
    let mut r = blocking::LineReader::new(Cursor::new(input));
    assert_eq!(r.next_line().unwrap_err().kind(), "frame_too_large");
    assert!(r.next_line().unwrap().is_none());
}

#[test]
fn bad_lines_are_reported_one_by_one_and_reading_goes_on() {
    let input = b"not json\n\n   \n[1]\n{\"x\":1}\n{\"type\":5}\n{\"type\":\"notify\",\"level\":\"info\",\"message\":7}\n\xff\xfe\n{\"type\":\"clear_notes\"}";
    let mut r = blocking::FrameReader::<_, ExtFrame>::new(Cursor::new(&input[..]));
    let kinds: Vec<String> = (&mut r)
        .map(|f| match f {
            Ok(f) => f.type_name().to_owned(),
            Err(e) => e.kind().to_owned(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "invalid_json",
            "not_an_object",
            "missing_type",
            "invalid_type_field",
            "invalid_field",
            "invalid_utf8",
            "clear_notes"
        ]
    );
}

#[test]
fn the_field_error_names_frame_type_and_field() {
    let err = zot_protocol::Frame::decode_str(
        r#"{"type":"tool_result","id":"1","content":[{"type":"text","text":5}]}"#,
    )
    .map(|f: ExtFrame| f)
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("`tool_result`") && msg.contains("content[0].text"),
        "{msg}"
    );
}

#[tokio::test]
async fn writer_escapes_newlines_and_refuses_oversize_frames() {
    let mut out = Vec::new();
    let mut w = FrameWriter::new(&mut out);
    w.write_frame(&ExtFrame::Notify(Notify {
        level: NotifyLevel::Warn,
        message: "line one\nline two\r\n\u{2028}".into(),
    }))
    .await
    .unwrap();
    let big = ExtFrame::ToolResult(ToolResult {
        id: "1".into(),
        content: vec![ContentBlock::text("z".repeat(MAX_FRAME_BYTES))],
        ..Default::default()
    });
    let err = w.write_frame(&big).await.unwrap_err();
    assert_eq!(err.kind(), "frame_too_large");
    w.flush().await.unwrap();
    assert_eq!(out.iter().filter(|b| **b == b'\n').count(), 1);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "{\"type\":\"notify\",\"level\":\"warn\",\"message\":\"line one\\nline two\\r\\n\u{2028}\"}\n"
    );
}

#[test]
fn encoding_is_compact_with_defaults_omitted() {
    let line = encode_frame(&HostFrame::Shutdown).unwrap();
    assert_eq!(line, b"{\"type\":\"shutdown\"}\n");
    let line = encode_frame(&ExtFrame::ToolResult(ToolResult {
        id: "9".into(),
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(
        line,
        b"{\"type\":\"tool_result\",\"id\":\"9\",\"content\":[]}\n"
    );
}

#[test]
fn canonical_lines_take_the_fast_path_and_are_still_fully_checked() {
    use zot_protocol::{Frame, LifecycleEvent};
    let kind = |line: &str| match HostFrame::decode_str(line) {
        Ok(f) => f.type_name().to_owned(),
        Err(e) => e.kind().to_owned(),
    };
    let ext_kind = |line: &str| match ExtFrame::decode_str(line) {
        Ok(f) => f.type_name().to_owned(),
        Err(e) => e.kind().to_owned(),
    };
    // Truncated or trailing garbage after a known tag: still invalid JSON.
    assert_eq!(
        ext_kind(r#"{"type":"notify","level":"info","message":"x""#),
        "invalid_json"
    );
    assert_eq!(
        ext_kind(r#"{"type":"submit","text":"x"} trailing"#),
        "invalid_json"
    );
    // ...also when a field before the syntax error has the wrong type
    // (invalid_json is checked before invalid_field, tests/vectors), as the
    // same line with a leading blank (the general path) says. Found by the
    // codec fuzz target (fuzz/regressions/codec/fast-path-field-before-bad-json).
    for line in [
        r#"{"type":"register_tool","name":3,"schema":{"type":"objectject"}}"}}"#,
        r#"{"type":"submit","text":1} trailing"#,
        r#"{"type":"submit","text":1"#,
    ] {
        assert_eq!(ext_kind(line), "invalid_json", "{line}");
        assert_eq!(ext_kind(&format!(" {line}")), "invalid_json", "{line}");
    }
    assert_eq!(
        kind(r#"{"type":"event","event":"turn_start","step":"x"},"#),
        "invalid_json"
    );
    // A payload-less frame is never taken on its tag alone.
    assert_eq!(ext_kind(r#"{"type":"ready"garbage"#), "invalid_json");
    assert_eq!(kind(r#"{"type":"shutdown"}"#), "shutdown");
    // Events: the event name comes off the line too; a wrong field is named.
    let err = HostFrame::decode_str(r#"{"type":"event","event":"turn_start","step":"x"}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("turn_start") && err.contains("step"), "{err}");
    let ok = HostFrame::decode_str(
        r#"{"type":"event","event":"turn_start","session_id":"s","cwd":"/","sequence":2,"step":3}"#,
    )
    .unwrap();
    assert!(matches!(ok, HostFrame::Event(LifecycleEvent::TurnStart(ref t)) if t.step == 3));
    // Unknown events and escaped tags fall back to the full peek.
    assert!(matches!(
        HostFrame::decode_str(r#"{"type":"event","event":"future","x":1}"#),
        Ok(HostFrame::UnknownEvent(_))
    ));
    assert_eq!(
        kind(r#"{"type":"tool\u005fcancel","id":"1"}"#),
        "tool_cancel"
    );
}

/// Every line a `LineSplitter` yields for `input` cut into `chunk`-byte
/// pieces, then at the end of the stream.
fn split_all(input: &[u8], chunk: usize) -> Vec<Result<String, String>> {
    let mut s = zot_protocol::LineSplitter::new();
    let mut out = Vec::new();
    for piece in input.chunks(chunk) {
        let mut rest = piece;
        while !rest.is_empty() {
            let (used, line) = s.push(rest);
            rest = &rest[used..];
            if let Some(line) = line {
                out.push(
                    line.map(|l| String::from_utf8_lossy(l).into_owned())
                        .map_err(|e| e.kind().to_owned()),
                );
            }
        }
    }
    if let Some(line) = s.finish() {
        out.push(
            line.map(|l| String::from_utf8_lossy(l).into_owned())
                .map_err(|e| e.kind().to_owned()),
        );
    }
    out
}

#[test]
fn the_splitter_gives_the_same_lines_whatever_the_chunks() {
    let mut input = b"{\"a\":1}\n\n   \n{\"b\":2}\n".to_vec();
    input.extend(oversize_then_valid());
    input.extend_from_slice(b"{\"last\":true}"); // no LF: still a line at the end
    let want: Vec<Result<String, String>> = vec![
        Ok("{\"a\":1}".into()),
        Ok("{\"b\":2}".into()),
        Err("frame_too_large".into()),
        Ok("{\"type\":\"ready\"}".into()),
        Ok("{\"last\":true}".into()),
    ];
    for chunk in [1, 7, 4096, 65536, input.len()] {
        assert_eq!(split_all(&input, chunk), want, "chunks of {chunk}");
    }
}

#[tokio::test]
async fn a_cancelled_read_gives_back_the_line_it_had_begun() {
    use tokio::io::AsyncWriteExt;
    let (mut host, ext) = tokio::io::duplex(1024);
    host.write_all(b"{\"type\":\"ready\"}\n{\"type\":\"no")
        .await
        .unwrap();
    let mut lines = zot_protocol::LineReader::new(BufReader::new(ext));
    assert_eq!(
        lines.next_line().await.unwrap(),
        Some(&b"{\"type\":\"ready\"}"[..])
    );
    // The next call takes the half line, then waits: cancel it.
    tokio::select! {
        biased;
        r = lines.next_line() => panic!("no whole line yet: {r:?}"),
        _ = std::future::ready(()) => {}
    }
    let (partial, _reader) = lines.into_parts();
    assert_eq!(partial, b"{\"type\":\"no");
}

/// A raw JSON value is written into its frame as is: one built from
/// pretty-printed text (or a frame decoded from text with line feeds)
/// still encodes to one line, which decodes to an equal frame. Found by the
/// codec fuzz target (fuzz/regressions/codec/raw-json-with-a-line-feed).
#[test]
fn raw_json_with_line_feeds_encodes_to_one_line() {
    let pretty = "{\n  \"type\": \"object\",\n  \"required\": [\"a\\nb\"]\n}".to_owned();
    let schema = zot_protocol::RawJson::from_string(pretty).unwrap();
    assert_eq!(
        schema.to_value(),
        serde_json::json!({"type": "object", "required": ["a\nb"]}),
        "the value is unchanged"
    );
    let mut tool: zot_protocol::RegisterTool =
        serde_json::from_str(r#"{"type":"register_tool","name":"t"}"#).unwrap();
    tool.schema = schema;
    let frame = ExtFrame::RegisterTool(tool);
    let line = encode_frame(&frame).unwrap();
    assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1, "one line");
    assert_eq!(ExtFrame::decode(&line[..line.len() - 1]).unwrap(), frame);

    // A frame the host reader does not know is kept raw.
    let text = b"{\"type\":\n\"event_intercept_response\",\"id\":\"1\",\"block\":false}";
    let frame = HostFrame::decode(text).unwrap();
    let line = encode_frame(&frame).unwrap();
    assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1, "one line");
    assert_eq!(HostFrame::decode(&line[..line.len() - 1]).unwrap(), frame);
}

/// A lone UTF-16 surrogate escape is valid JSON text but no string any SDK
/// can hold: wherever it is — a value, or a key the frame does not know —
/// the line is `invalid_field`, on the fast path and the general one alike
/// (a leading blank takes the general path). Found by the codec fuzz target
/// (fuzz/regressions/codec/lone-surrogate-field-vs-leading-space).
#[test]
fn a_lone_surrogate_is_the_same_error_on_both_decode_paths() {
    for line in [
        r#"{"type":"event","event":"user_prompt_submit","session_id":"s","cwd":"/w","s\ud800equence":4,"queued":true,"image_count":0,"text":"hi"}"#,
        r#"{"type":"event","event":"user_prompt_submit","session_id":"s","cwd":"/w","sequence":4,"queued":true,"image_count":0,"text":"h\udc00i"}"#,
        r#"{"type":"tool_call","id":"t1","name":"echo","args":{},"x\ud800":1}"#,
    ] {
        for l in [line.to_owned(), format!(" {line}")] {
            let err = HostFrame::decode_str(&l).unwrap_err();
            assert_eq!(err.kind(), "invalid_field", "{l}: {err}");
        }
    }
    // In a tag the surrogate makes it unreadable: the type is not a string
    // any frame has, and an id with one is no id to answer.
    let tags = zot_protocol::FrameTags::read(
        br#" {"type":"tool_call","id":"t\ud800","name":"echo","args":{}}"#,
    )
    .unwrap();
    assert_eq!((tags.frame_type.as_str(), tags.id), ("tool_call", None));
}

/// JSON's grammar allows text a `serde_json::Value` cannot hold (a lone
/// UTF-16 surrogate escape, a number beyond `f64`): a `RawJson` keeps it,
/// and `to_value` gives it back as its text instead of panicking (it did:
/// the host announced such `call_tool` arguments with it). Values it can
/// hold decode as before.
#[test]
fn raw_json_a_value_cannot_hold_decodes_to_its_text() {
    for text in [
        r#"{"a":"\ud800"}"#,
        r#"["x\udc00"]"#,
        r#"{"lines\ud800":1}"#,
        r#"{"n":1e400}"#,
        "-1e999",
    ] {
        let raw = zot_protocol::RawJson::from_string(text.to_owned()).unwrap();
        assert_eq!(raw.to_value(), serde_json::Value::String(text.to_owned()));
        assert!(raw.parse::<serde_json::Value>().is_err(), "{text}");
    }
    let raw = zot_protocol::RawJson::from_string(r#"{"a":"\ud83d\ude00","n":1e300}"#.to_owned());
    assert_eq!(
        raw.unwrap().to_value(),
        serde_json::json!({"a": "\u{1f600}", "n": 1e300})
    );
}
