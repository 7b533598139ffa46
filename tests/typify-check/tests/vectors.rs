//! The committed JSON Schema, read by typify, describes the protocol: the
//! Rust types typify generates from it (see build.rs) parse every valid test
//! vector of their direction and reject the invalid ones.
//!
//! Known gaps: the committed schema lists only the *documented* frame types,
//! event names, content block types and values, while receivers must also
//! accept unknown ones (WIRE-5, WIRE-12; tests/vectors/README.md). A valid
//! line that uses such a value cannot parse into the typify types yet; the
//! kinds of gap still open are listed in [`OPEN_GAPS`] and those lines must
//! *fail* (so that the list shrinks as soon as the schema admits a kind: the
//! test then asks for the entry to be removed). Every other line must parse.

use std::path::PathBuf;

use serde_json::Value;
use zot_protocol::values::{
    Capability, CommandAction, Decision, DecisionSource, DecisionStage, Exposure, NotifyLevel,
    PanelKeyName, RunStatus, SessionEndReason, ToolStatus,
};
use zot_typify_check::{ext_to_host, host_to_ext};

/// A kind of value that receivers accept but the schema does not describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unknown {
    /// A `type` not in the direction's list (typify's root enum is closed).
    FrameType,
    /// An `event` / `event_intercept` with an unknown event name.
    EventName,
    /// A content block whose `type` is neither `text` nor `image`.
    ContentBlockType,
    /// A value outside a documented value set (`capabilities`, `action`...).
    SetValue,
}

/// The gaps of the committed schema. Remove an entry once the schema admits
/// that kind of value (the test fails until you do).
const OPEN_GAPS: &[Unknown] = &[];

/// (frame type, event name, field, documented values) of every field that
/// holds a value set.
const VALUE_SETS: &[(&str, Option<&str>, &str, &[&str])] = &[
    ("hello", None, "capabilities", Capability::KNOWN),
    ("hello_ack", None, "capabilities", Capability::KNOWN),
    ("register_tool", None, "exposure", Exposure::KNOWN),
    ("command_response", None, "action", CommandAction::KNOWN),
    ("notify", None, "level", NotifyLevel::KNOWN),
    ("panel_key", None, "key", PanelKeyName::KNOWN),
    ("event", Some("tool_result"), "status", ToolStatus::KNOWN),
    ("event", Some("post_compact"), "status", RunStatus::KNOWN),
    ("event", Some("subagent_stop"), "status", RunStatus::KNOWN),
    (
        "event",
        Some("session_end"),
        "reason",
        SessionEndReason::KNOWN,
    ),
    (
        "event",
        Some("permission_decision"),
        "decision",
        Decision::KNOWN,
    ),
    (
        "event",
        Some("permission_decision"),
        "source",
        DecisionSource::KNOWN,
    ),
    (
        "event",
        Some("permission_decision"),
        "stage",
        DecisionStage::KNOWN,
    ),
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Direction {
    ExtToHost,
    HostToExt,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::ExtToHost => "ext_to_host",
            Direction::HostToExt => "host_to_ext",
        }
    }

    fn known_types(self) -> &'static [&'static str] {
        match self {
            Direction::ExtToHost => &zot_protocol::ExtFrame::TYPES,
            Direction::HostToExt => &zot_protocol::HostFrame::TYPES,
        }
    }

    /// Parses a line into the typify type of the direction.
    fn parse(self, line: &str) -> Result<(), serde_json::Error> {
        match self {
            Direction::ExtToHost => serde_json::from_str::<ext_to_host::ExtFrame>(line).map(drop),
            Direction::HostToExt => serde_json::from_str::<host_to_ext::HostFrame>(line).map(drop),
        }
    }
}

/// The non-empty lines of a vector file, split on LF only (some strings hold
/// raw U+2028, U+2029 and U+0085).
fn lines(relative: &str) -> Vec<(usize, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../vectors")
        .join(relative);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = String::from_utf8(bytes).expect("vector files are UTF-8");
    text.split('\n')
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| (i + 1, l.to_owned()))
        .collect()
}

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// The gaps a valid frame runs into.
fn gaps(direction: Direction, frame: &Value) -> Vec<Unknown> {
    let mut found = Vec::new();
    let ty = str_at(frame, "type").expect("valid frames have a string `type`");
    if !direction.known_types().contains(&ty) {
        return vec![Unknown::FrameType];
    }
    let event = str_at(frame, "event");
    let known_events: &[&str] = match ty {
        "event" => &zot_protocol::values::LIFECYCLE_EVENT_NAMES,
        "event_intercept" => &zot_protocol::values::INTERCEPTABLE_EVENT_NAMES,
        _ => &[],
    };
    if !known_events.is_empty() && !event.is_some_and(|e| known_events.contains(&e)) {
        found.push(Unknown::EventName);
    }
    for (set_ty, set_event, field, known) in VALUE_SETS {
        if *set_ty != ty || (set_event.is_some() && *set_event != event) {
            continue;
        }
        let values: Vec<&str> = match frame.get(*field) {
            Some(Value::String(s)) => vec![s],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if values.iter().any(|v| !known.contains(v)) {
            found.push(Unknown::SetValue);
        }
    }
    let blocks = [frame.get("content"), frame.pointer("/result/content")];
    let unknown_block = blocks
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .any(|b| !matches!(str_at(b, "type"), Some("text" | "image")));
    if unknown_block {
        found.push(Unknown::ContentBlockType);
    }
    found
}

fn check_valid(direction: Direction) {
    let file = format!("valid/{}.jsonl", direction.name());
    let mut problems = Vec::new();
    let mut parsed = 0;
    for (n, line) in lines(&file) {
        let frame: Value = serde_json::from_str(&line).expect("valid lines are JSON");
        let open: Vec<Unknown> = gaps(direction, &frame)
            .into_iter()
            .filter(|g| OPEN_GAPS.contains(g))
            .collect();
        match (direction.parse(&line), open.is_empty()) {
            (Ok(()), true) => parsed += 1,
            (Err(e), true) => problems.push(format!("{file}:{n}: does not parse: {e}")),
            (Err(_), false) => {}
            (Ok(()), false) => problems.push(format!(
                "{file}:{n}: parses although it has {open:?}: the schema admits it now, \
                 remove that entry from OPEN_GAPS"
            )),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(parsed > 50, "only {parsed} lines of {file} were checked");
}

#[test]
fn valid_ext_to_host_lines_parse() {
    check_valid(Direction::ExtToHost);
}

#[test]
fn valid_host_to_ext_lines_parse() {
    check_valid(Direction::HostToExt);
}

/// Invalid cases the typify types accept for a reason that is not the
/// schema's: serde's internally tagged enums (typify's `ContentBlock`) read an
/// integer tag as a variant index, so `{"type":1}` is an image block.
const SERDE_QUIRKS: &[&str] = &["field-tool-result-content-block-type-number"];

/// The schema is not too loose either: every invalid case that is valid
/// UTF-8 and JSON (a non-object, a missing or non-string `type`, a field of
/// the wrong JSON type) is rejected.
#[test]
fn invalid_cases_do_not_parse() {
    let mut checked = 0;
    for (n, line) in lines("invalid/cases.jsonl") {
        let case: Value = serde_json::from_str(&line).unwrap();
        let (Some(input), Some(direction)) = (str_at(&case, "line"), str_at(&case, "direction"))
        else {
            continue; // `line_base64`: not UTF-8, no JSON parser accepts it
        };
        if matches!(
            str_at(&case, "expect"),
            Some("invalid_json" | "invalid_utf8")
        ) {
            continue;
        }
        let name = str_at(&case, "name").unwrap_or_default();
        if SERDE_QUIRKS.contains(&name) {
            continue;
        }
        let direction = match direction {
            "ext_to_host" => Direction::ExtToHost,
            _ => Direction::HostToExt,
        };
        assert!(
            direction.parse(input).is_err(),
            "invalid/cases.jsonl:{n} ({name}) parses"
        );
        checked += 1;
    }
    assert!(checked > 50, "only {checked} invalid cases were checked");
}
