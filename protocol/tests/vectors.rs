//! Runs the shared corpus in `tests/vectors/` through the Rust decoder:
//! every valid line decodes to its tag and survives decode → encode → decode;
//! every invalid line fails with the expected kind, frame type and field.

use std::path::PathBuf;

use base64::Engine;
use serde_json::Value;
use zot_protocol::{encode_frame, DecodeError, ExtFrame, Frame, HostFrame, LifecycleEvent};

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

/// Splits on LF only: the corpus holds raw U+2028 and friends inside strings.
fn lines(path: &str) -> Vec<(usize, Vec<u8>)> {
    let bytes = std::fs::read(vectors().join(path)).unwrap();
    bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| (i + 1, l.to_vec()))
        .collect()
}

fn tag_of(line: &[u8]) -> (String, Option<String>) {
    let v: Value = serde_json::from_slice(line).unwrap();
    (
        v["type"].as_str().unwrap().to_owned(),
        v.get("event").and_then(Value::as_str).map(str::to_owned),
    )
}

fn round_trip<F: Frame + PartialEq + std::fmt::Debug>(line: &[u8], where_: &str) -> F {
    let first = F::decode(line).unwrap_or_else(|e| panic!("{where_}: {e}"));
    let encoded = encode_frame(&first).unwrap();
    assert!(encoded.ends_with(b"\n"));
    assert_eq!(
        encoded.iter().filter(|b| **b == b'\n').count(),
        1,
        "{where_}: raw LF inside an encoded frame"
    );
    let second = F::decode(&encoded[..encoded.len() - 1])
        .unwrap_or_else(|e| panic!("{where_}: re-decode failed: {e}"));
    assert_eq!(first, second, "{where_}: round trip changed the frame");
    first
}

#[test]
fn every_extension_frame_decodes_and_round_trips() {
    let mut seen = std::collections::BTreeSet::new();
    let all = lines("valid/ext_to_host.jsonl");
    assert!(all.len() > 50, "the corpus is missing");
    for (n, line) in all {
        let where_ = format!("ext_to_host.jsonl:{n}");
        let frame: ExtFrame = round_trip(&line, &where_);
        let (tag, _) = tag_of(&line);
        assert_eq!(frame.type_name(), tag, "{where_}");
        let known = ExtFrame::TYPES.contains(&tag.as_str());
        assert_eq!(known, !matches!(frame, ExtFrame::Unknown(_)), "{where_}");
        seen.insert(tag);
    }
    for t in ExtFrame::TYPES {
        assert!(seen.contains(t), "no vector for extension frame `{t}`");
    }
}

#[test]
fn every_host_frame_and_event_decodes_and_round_trips() {
    let mut types = std::collections::BTreeSet::new();
    let mut events = std::collections::BTreeSet::new();
    for (n, line) in lines("valid/host_to_ext.jsonl") {
        let where_ = format!("host_to_ext.jsonl:{n}");
        let frame: HostFrame = round_trip(&line, &where_);
        let (tag, event) = tag_of(&line);
        assert_eq!(frame.type_name(), tag, "{where_}");
        match &frame {
            HostFrame::Event(e) => {
                assert_eq!(Some(e.name()), event.as_deref(), "{where_}");
                events.insert(e.name().to_owned());
            }
            HostFrame::UnknownEvent(u) | HostFrame::UnknownIntercept(u) => {
                assert_eq!(Some(u.event.as_str()), event.as_deref(), "{where_}")
            }
            HostFrame::EventIntercept(i) => assert_eq!(Some(i.name()), event.as_deref()),
            HostFrame::Unknown(_) => assert!(!HostFrame::TYPES.contains(&tag.as_str())),
            _ => {}
        }
        types.insert(tag);
    }
    for t in HostFrame::TYPES {
        assert!(types.contains(t), "no vector for host frame `{t}`");
    }
    for e in zot_protocol::values::LIFECYCLE_EVENT_NAMES {
        assert!(events.contains(e), "no vector for event `{e}`");
    }
}

#[test]
fn every_invalid_line_fails_with_the_expected_error() {
    let all = lines("invalid/cases.jsonl");
    assert!(all.len() > 20);
    for (n, case) in all {
        let case: Value = serde_json::from_slice(&case).unwrap();
        let name = case["name"].as_str().unwrap();
        let line: Vec<u8> = match case.get("line_base64") {
            Some(b) => base64::engine::general_purpose::STANDARD
                .decode(b.as_str().unwrap())
                .unwrap(),
            None => case["line"].as_str().unwrap().as_bytes().to_vec(),
        };
        let err = match case["direction"].as_str().unwrap() {
            "ext_to_host" => ExtFrame::decode(&line).err(),
            "host_to_ext" => HostFrame::decode(&line).err(),
            d => panic!("bad direction {d}"),
        };
        let err = err.unwrap_or_else(|| panic!("cases.jsonl:{n} `{name}` decoded without error"));
        assert_eq!(
            err.kind(),
            case["expect"].as_str().unwrap(),
            "cases.jsonl:{n} `{name}`: got {err}"
        );
        if let DecodeError::InvalidField {
            frame_type, field, ..
        } = &err
        {
            if let Some(t) = case.get("frame_type").and_then(Value::as_str) {
                assert_eq!(frame_type, t, "cases.jsonl:{n} `{name}`: {err}");
            }
            if let Some(f) = case.get("field").and_then(Value::as_str) {
                assert_eq!(field, f, "cases.jsonl:{n} `{name}`: {err}");
            }
            let msg = err.to_string();
            assert!(msg.contains(frame_type.as_str()) && msg.contains(field.as_str()));
        }
    }
}

#[test]
fn absent_and_zero_stay_distinct() {
    let absent = HostFrame::decode_str(
        r#"{"type":"event","event":"pre_compact","session_id":"s","cwd":"/","sequence":3,"compaction_id":"c"}"#,
    )
    .unwrap();
    let zero = HostFrame::decode_str(
        r#"{"type":"event","event":"pre_compact","session_id":"s","cwd":"/","sequence":3,"compaction_id":"c","message_count":0,"token_estimate":0}"#,
    )
    .unwrap();
    let (
        HostFrame::Event(LifecycleEvent::PreCompact(a)),
        HostFrame::Event(LifecycleEvent::PreCompact(z)),
    ) = (&absent, &zero)
    else {
        panic!("wrong variants")
    };
    assert_eq!((a.message_count, a.token_estimate), (None, None));
    assert_eq!((z.message_count, z.token_estimate), (Some(0), Some(0)));
    let zero_line = String::from_utf8(encode_frame(&zero).unwrap()).unwrap();
    assert!(zero_line.contains(r#""message_count":0"#), "{zero_line}");

    use zot_protocol::EventInterceptResponse as R;
    let keep = R::decode_ext(r#"{"type":"event_intercept_response","id":"1"}"#);
    let remove =
        R::decode_ext(r#"{"type":"event_intercept_response","id":"1","system_prompt":""}"#);
    let null =
        R::decode_ext(r#"{"type":"event_intercept_response","id":"1","system_prompt":null}"#);
    assert_eq!(keep.system_prompt, None);
    assert_eq!(remove.system_prompt, Some(Some(String::new())));
    assert_eq!(null.system_prompt, Some(None));
}

trait DecodeExt {
    fn decode_ext(line: &str) -> Self;
}

impl DecodeExt for zot_protocol::EventInterceptResponse {
    fn decode_ext(line: &str) -> Self {
        match ExtFrame::decode_str(line).unwrap() {
            ExtFrame::EventInterceptResponse(r) => r,
            other => panic!("{other:?}"),
        }
    }
}
