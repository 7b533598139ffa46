//! The seed corpora, from `tests/vectors/` (the shared frame corpus) and
//! the repository's `extension.json` files, plus a few sessions that reach
//! the harness extension's own commands, tools, interceptors and panels.
//!
//! `zot-fuzz-seeds <dir>` writes them to `<dir>/<target>/`, with the
//! libFuzzer dictionary [`dictionary`] as `<dir>/protocol.dict`; the replay
//! test runs every check on every seed, so a property that the shared
//! vectors already break fails in plain `cargo test`.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::engine::HELLO_ACK;
use crate::host_intake::HELLO_LINE;

/// One seed input of a target.
#[derive(Debug, Clone)]
pub struct Seed {
    /// The target (a name of [`crate::TARGETS`]).
    pub target: &'static str,
    /// A file name, unique within the target.
    pub name: String,
    /// The input.
    pub data: Vec<u8>,
}

/// The repository root (this crate is `tests/fuzz-harness`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The lines of a `.jsonl` vector file (split on LF only: some strings
/// hold U+2028 and friends).
fn lines(path: &Path) -> Vec<Vec<u8>> {
    let text =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// The invalid cases' raw lines by direction (`line`, or `line_base64`).
fn invalid(root: &Path) -> Vec<(String, String, Vec<u8>)> {
    lines(&root.join("tests/vectors/invalid/cases.jsonl"))
        .iter()
        .map(|l| {
            let case: serde_json::Value = serde_json::from_slice(l).expect("cases are JSON");
            let name = case["name"].as_str().expect("a name").to_owned();
            let direction = case["direction"].as_str().expect("a direction").to_owned();
            let raw = match (case["line"].as_str(), case["line_base64"].as_str()) {
                (Some(line), _) => line.as_bytes().to_vec(),
                (None, Some(b64)) => base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .expect("valid base64"),
                _ => panic!("case {name} has no line"),
            };
            (name, direction, raw)
        })
        .collect()
}

fn with_lf(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        out.extend_from_slice(p);
        out.push(b'\n');
    }
    out
}

/// Sessions that reach what the engine harness registers (the vectors use
/// other names).
const ENGINE_SESSIONS: [&str; 4] = [
    r#"{"type":"command_invoked","id":"c1","name":"echo","args":"hi"}
{"type":"command_invoked","id":"c2","name":"nope","args":""}
{"type":"tool_call","id":"t1","name":"greet","args":{"name":"ana"}}
{"type":"tool_call","id":"t2","name":"greet","args":{"name":7}}
{"type":"tool_call","id":"t3","name":"raw","args":{"x":[1,2]}}
{"type":"tool_call","id":"t4","name":"compose","args":{"text":"hi"}}
{"type":"tool_call","id":"t5","name":"missing","args":{}}
"#,
    r#"{"type":"event_intercept","event":"tool_call","id":"i1","tool_name":"bash","tool_args":{"command":"ls"}}
{"type":"event_intercept","event":"tool_call","id":"i2","tool_name":"edit","tool_args":{}}
{"type":"event_intercept","event":"turn_start","id":"i3","step":1}
{"type":"event_intercept","event":"assistant_message","id":"i4","text":"hello"}
{"type":"event_intercept","event":"before_agent_start","id":"i5","system_prompt":"be brief"}
{"type":"event_intercept","event":"from_the_future","id":"i6"}
{"type":"event","event":"turn_start","session_id":"s","cwd":"/","sequence":1,"step":1}
{"type":"event","event":"from_the_future","sequence":2}
"#,
    r#"{"type":"tool_call","id":"t1","name":"compose","args":{}}
{"type":"tool_cancel","id":"t1"}
{"type":"tool_call","id":"t2","name":"raw","args":{}}
{"type":"tool_call","id":"t2","name":"raw","args":{}}
{"type":"panel_key","panel_id":"main","key":"down"}
{"type":"panel_resize","panel_id":"main","width":80,"height":24}
{"type":"panel_close","panel_id":"main"}
{"type":"hello_ack","protocol_version":2}
{"type":"tool_result","id":"nobody","name":"x","content":[]}
"#,
    r#"{"type":"tool_call","id":"t1","name":"raw","args":{}}
{"type":"shutdown"}
{"type":"tool_call","id":"t2","name":"raw","args":{}}
"#,
];

/// Frames an extension sends that reach the host's handler and routing.
const HOST_SESSIONS: [&str; 2] = [
    r#"{"type":"register_command","name":"hi","description":"Say hi"}
{"type":"register_tool","name":"echo","schema":{"type":"object"}}
{"type":"subscribe","events":["turn_start"],"intercept":["tool_call","nope"]}
{"type":"ready"}
{"type":"command_response","id":"1","action":"display","display":"hi"}
{"type":"tool_result","id":"2","content":[{"type":"text","text":"ok"}]}
{"type":"event_intercept_response","id":"3","block":true,"reason":"no"}
"#,
    r#"{"type":"ready"}
{"type":"notify","level":"info","message":"note"}
{"type":"clear_notes"}
{"type":"submit","text":"  hello  "}
{"type":"submit_slash","text":"/help"}
{"type":"open_panel","panel":{"id":"main","title":"T","lines":["a"]}}
{"type":"panel_render","panel_id":"main","lines":["b"],"footer":"f"}
{"type":"panel_close","panel_id":"main"}
{"type":"call_tool","id":"c1","name":"echo","args":{"x":1}}
{"type":"call_tool_cancel","id":"c1"}
{"type":"call_tool","id":"c2","name":"read","args":{"path":"/"}}
{"type":"tool_result","id":"2","content":7}
"#,
];

const MANIFESTS: [&str; 6] = [
    r#"{"name":"a","exec":"./run","args":["-x"],"language":"rust","description":"d","version":"1"}"#,
    r#"{"name":"skills","skills":["skills/one","SKILL.md"],"enabled":false}"#,
    r#"{"name":"","exec":"x"}"#,
    r#"{"name":"theme"}"#,
    r#"{"name":"../../evil","exec":"x"}"#,
    r#"{"name":"x","exec":1}"#,
];

/// Every seed of every target.
pub fn all() -> Vec<Seed> {
    let root = repo_root();
    let host_to_ext = lines(&root.join("tests/vectors/valid/host_to_ext.jsonl"));
    let ext_to_host = lines(&root.join("tests/vectors/valid/ext_to_host.jsonl"));
    let cases = invalid(&root);
    let mut seeds = Vec::new();
    let mut add = |target: &'static str, name: String, data: Vec<u8>| {
        seeds.push(Seed { target, name, data });
    };

    // codec: every line on its own, and the start of each file as a stream.
    for (dir, file) in [("host", &host_to_ext), ("ext", &ext_to_host)] {
        for (i, l) in file.iter().enumerate() {
            add("codec", format!("{dir}-{i:03}"), l.clone());
        }
        let head: Vec<&[u8]> = file.iter().take(12).map(Vec::as_slice).collect();
        add("codec", format!("{dir}-stream"), with_lf(&head));
    }
    for (name, _, raw) in &cases {
        add("codec", format!("invalid-{name}"), raw.clone());
    }

    // engine: options byte, then the host's bytes. Bit 0 sends hello_ack
    // first, bit 1 picks the plain dispatcher, bits 2-4 the piece size.
    let ack = HELLO_ACK.as_bytes();
    for (i, l) in host_to_ext.iter().enumerate() {
        let options = 1 | ((i as u8 % 2) << 1) | ((i as u8 % 8) << 2);
        add(
            "engine",
            format!("line-{i:03}"),
            [&[options][..], &with_lf(&[l])].concat(),
        );
    }
    for (name, direction, raw) in &cases {
        if direction == "host_to_ext" {
            add(
                "engine",
                format!("invalid-{name}"),
                [&[1u8][..], &with_lf(&[raw])].concat(),
            );
        }
    }
    let file: Vec<&[u8]> = host_to_ext.iter().map(Vec::as_slice).collect();
    add(
        "engine",
        "file-sdk".into(),
        [&[0u8][..], &with_lf(&file)].concat(),
    );
    add(
        "engine",
        "file-fed".into(),
        [&[2u8 | 5 << 2][..], &with_lf(&file)].concat(),
    );
    for (i, s) in ENGINE_SESSIONS.iter().enumerate() {
        for (suffix, options) in [("sdk", 7u8 << 2), ("fed", 2 | 3 << 2)] {
            let data = [&[options][..], &with_lf(&[ack]), s.as_bytes()].concat();
            add("engine", format!("session-{i}-{suffix}"), data);
        }
    }

    // A call waits (bit 5, plain dispatcher) while more events than the
    // read-ahead bound arrive, then requests behind them.
    let mut flood = Vec::new();
    for seq in 0..1_100 {
        flood.extend_from_slice(format!(
            r#"{{"type":"event","event":"tool_call","session_id":"s","cwd":"/","sequence":{seq},"tool_id":"t{seq}","tool_name":"bash","tool_args":{{}}}}"#
        ).as_bytes());
        flood.push(b'\n');
    }
    flood.extend_from_slice(
        b"{\"type\":\"tool_call\",\"id\":\"after\",\"name\":\"raw\",\"args\":{}}\n",
    );
    flood.extend_from_slice(
        b"{\"type\":\"command_invoked\",\"id\":\"c\",\"name\":\"echo\",\"args\":\"x\"}\n",
    );
    add(
        "engine",
        "waiting-call-flood".into(),
        [&[1u8 | 2 | 32 | 7 << 2][..], &flood].concat(),
    );

    // host_intake: options byte, then the extension's stdout. Bit 0 writes
    // hello first, bits 1-2 the host mode, bit 3 continuous, bits 4-6 the
    // piece size.
    for (i, l) in ext_to_host.iter().enumerate() {
        let options = 1 | ((i as u8 % 4) << 1) | ((i as u8 % 8) << 4);
        add(
            "host_intake",
            format!("line-{i:03}"),
            [&[options][..], &with_lf(&[l])].concat(),
        );
    }
    for (name, direction, raw) in &cases {
        if direction == "ext_to_host" {
            let data = [&[1u8 | 7 << 4][..], &with_lf(&[raw])].concat();
            add("host_intake", format!("invalid-{name}"), data);
        }
    }
    let file: Vec<&[u8]> = ext_to_host.iter().map(Vec::as_slice).collect();
    add(
        "host_intake",
        "file".into(),
        [&[7u8 << 4][..], &with_lf(&file)].concat(),
    );
    for (i, s) in HOST_SESSIONS.iter().enumerate() {
        for (mode, options) in [
            ("interactive", 1u8),
            ("rpc", 1 | 3 << 1 | 5 << 4),
            ("continuous", 1 | 8 | 7 << 4),
        ] {
            let data = [&[options][..], s.as_bytes()].concat();
            add("host_intake", format!("session-{i}-{mode}"), data);
        }
    }
    add(
        "host_intake",
        "hello-only".into(),
        [&[0u8][..], HELLO_LINE.as_bytes()].concat(),
    );

    // manifest: the repository's own, and a few edge cases.
    for (i, m) in MANIFESTS.iter().enumerate() {
        add("manifest", format!("case-{i}"), m.as_bytes().to_vec());
    }
    // Each file shape once, holding a valid manifest.
    for (i, (shape, _)) in crate::manifest::SHAPES.iter().enumerate() {
        let first = crate::manifest::SHAPE_BYTE + u8::try_from(i).expect("a few shapes");
        let data = [&[first][..], br#"{"name": "x", "exec": "x"}"#].concat();
        add("manifest", format!("shape-{shape}"), data);
    }
    for path in manifests(&root) {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string()
            .replace('/', "_");
        let data = std::fs::read(&path).expect("readable manifest");
        add("manifest", name, data);
    }
    seeds
}

/// `extension.json` files under `examples/`, `tests/conformance/` and
/// `bench/`, sorted.
fn manifests(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name();
            if name == "node_modules" || name == "target" || name == ".venv" {
                continue;
            }
            if path.is_dir() && depth > 0 {
                walk(&path, depth - 1, out);
            } else if name == "extension.json" {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for top in ["examples", "tests/conformance", "bench"] {
        walk(&root.join(top), 3, &mut out);
    }
    out.sort();
    out
}

/// A libFuzzer dictionary (`-dict=`): JSON punctuation, and every property
/// name, `const` and `enum` string of the protocol's JSON Schema (frame
/// types, event names, keys, values), so that mutations speak the
/// protocol. Derived from `zot_protocol::schema`, the one source of truth.
pub fn dictionary() -> String {
    fn walk(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Object(props)) = map.get("properties") {
                    out.extend(props.keys().map(|k| format!("\"{k}\":")));
                }
                if let Some(serde_json::Value::String(c)) = map.get("const") {
                    out.insert(format!("\"{c}\""));
                }
                if let Some(serde_json::Value::Array(values)) = map.get("enum") {
                    out.extend(
                        values
                            .iter()
                            .filter_map(|e| e.as_str())
                            .map(|e| format!("\"{e}\"")),
                    );
                }
                map.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut tokens = std::collections::BTreeSet::new();
    for (_, text) in zot_protocol::schema::files() {
        let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
        walk(&schema, &mut tokens);
    }
    for t in [
        "{", "}", "[", "]", ",", ":", "\"", "null", "true", "false", "-1", "1e400", "\\u0000",
        "\\ud800", "\n",
    ] {
        tokens.insert(t.to_owned());
    }
    let mut dict = String::from("# Generated by zot-fuzz-seeds from the protocol's JSON Schema.\n");
    for t in tokens {
        // libFuzzer's syntax: one quoted string a line; `\\`, `\"` and
        // `\xNN` escapes for anything else outside printable ASCII.
        dict.push('"');
        for b in t.bytes() {
            match b {
                b'\\' | b'"' => dict.extend(['\\', char::from(b)]),
                0x20..=0x7e => dict.push(char::from(b)),
                _ => dict.push_str(&format!("\\x{b:02x}")),
            }
        }
        dict.push_str("\"\n");
    }
    dict
}
