//! Turns a host wire log into a transcript that is comparable across
//! languages and runs: ids become `h1, h2…` (host-chosen) and `x1, x2…`
//! (extension-chosen) in order of first use, event sequence numbers become
//! their ordinal, preparation-pass ids become `r1, r2…`, and the paths that
//! differ per run (the project directory, the extension directory) become
//! placeholders. Frames are kept per direction: within one direction the
//! order is the protocol's; across directions it depends on timing.

use std::collections::HashMap;

use serde_json::Value;

/// One normalised transcript: every frame of each direction, as compact JSON.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Transcript {
    /// Frames the host wrote, in order.
    pub host_to_ext: Vec<String>,
    /// Frames the extension wrote, in order.
    pub ext_to_host: Vec<String>,
}

impl Transcript {
    /// The file form: two sections, one frame per line.
    pub fn render(&self) -> String {
        let mut out = String::from("# host->ext\n");
        for f in &self.host_to_ext {
            out.push_str(f);
            out.push('\n');
        }
        out.push_str("# ext->host\n");
        for f in &self.ext_to_host {
            out.push_str(f);
            out.push('\n');
        }
        out
    }

    /// Reads the file form back.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut t = Transcript::default();
        let mut section: Option<&mut Vec<String>> = None;
        for (n, line) in text.lines().enumerate() {
            match line {
                "# host->ext" => section = Some(&mut t.host_to_ext),
                "# ext->host" => section = Some(&mut t.ext_to_host),
                "" => {}
                frame => match section.as_mut() {
                    Some(s) => s.push(frame.to_owned()),
                    None => return Err(format!("line {}: frame before a section header", n + 1)),
                },
            }
        }
        Ok(t)
    }
}

/// What varies per run and must be replaced before comparing.
pub struct Context<'a> {
    /// Absolute paths to replace, with their placeholder, longest first.
    pub paths: Vec<(&'a str, &'a str)>,
}

#[derive(Default)]
struct Ids {
    map: HashMap<String, String>,
    next: usize,
}

impl Ids {
    fn assign(&mut self, prefix: &str, id: &str) {
        if !self.map.contains_key(id) {
            self.next += 1;
            self.map
                .insert(id.to_owned(), format!("{prefix}{}", self.next));
        }
    }

    fn get(&self, id: &str) -> String {
        self.map
            .get(id)
            .cloned()
            .unwrap_or_else(|| format!("?{id}"))
    }
}

fn str_field<'v>(frame: &'v Value, key: &str) -> Option<&'v str> {
    frame.get(key).and_then(Value::as_str)
}

/// Normalises the lines of a `--wire` log (`{"ext","dir","frame"}` objects).
pub fn normalize(wire: &str, ctx: &Context<'_>) -> Result<Transcript, String> {
    let mut host = Vec::new();
    let mut ext = Vec::new();
    for (n, line) in wire.lines().enumerate() {
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("wire line {}: {e}", n + 1))?;
        let frame = match (v.get("frame"), v.get("invalid"), v.get("oversize")) {
            (Some(f), _, _) => f.clone(),
            (None, Some(raw), _) => serde_json::json!({ "<invalid line>": raw }),
            (None, None, Some(len)) => serde_json::json!({ "<oversize line>": len }),
            _ => return Err(format!("wire line {}: no frame", n + 1)),
        };
        match str_field(&v, "dir") {
            Some("host->ext") => host.push(frame),
            Some("ext->host") => ext.push(frame),
            other => return Err(format!("wire line {}: bad dir {other:?}", n + 1)),
        }
    }

    // Pass 1: who chose which id.
    let mut host_ids = Ids::default();
    let mut ext_ids = Ids::default();
    let mut runs = Ids::default();
    for f in &host {
        if let ("command_invoked" | "tool_call" | "event_intercept", Some(id)) =
            (str_field(f, "type").unwrap_or(""), str_field(f, "id"))
        {
            host_ids.assign("h", id);
        }
        if let Some(r) = str_field(f, "agent_run_id") {
            runs.assign("r", r);
        }
    }
    for f in &ext {
        if let ("call_tool", Some(id)) = (str_field(f, "type").unwrap_or(""), str_field(f, "id")) {
            ext_ids.assign("x", id);
        }
    }

    // Pass 2: rewrite.
    let mut seq = 0u64;
    let host_to_ext = host
        .into_iter()
        .map(|mut f| {
            let ty = str_field(&f, "type").unwrap_or("").to_owned();
            let id_map = match ty.as_str() {
                "tool_result" => Some(&ext_ids),
                "command_invoked" | "tool_call" | "event_intercept" | "tool_cancel" => {
                    Some(&host_ids)
                }
                _ => None,
            };
            if let (Some(map), Some(id)) = (id_map, str_field(&f, "id")) {
                f["id"] = map.get(id).into();
            }
            if f.get("sequence").is_some() {
                seq += 1;
                f["sequence"] = seq.into();
            }
            if let Some(r) = str_field(&f, "agent_run_id") {
                f["agent_run_id"] = runs.get(r).into();
            }
            finish(f, ctx)
        })
        .collect();
    let ext_to_host = ext
        .into_iter()
        .map(|mut f| {
            let ty = str_field(&f, "type").unwrap_or("").to_owned();
            let id_map = match ty.as_str() {
                "call_tool" | "call_tool_cancel" => Some(&ext_ids),
                "command_response" | "tool_result" | "event_intercept_response" => Some(&host_ids),
                _ => None,
            };
            if let (Some(map), Some(id)) = (id_map, str_field(&f, "id")) {
                f["id"] = map.get(id).into();
            }
            if let Some(p) = str_field(&f, "parent_id") {
                f["parent_id"] = host_ids.get(p).into();
            }
            finish(f, ctx)
        })
        .collect();
    Ok(Transcript {
        host_to_ext,
        ext_to_host,
    })
}

fn finish(mut f: Value, ctx: &Context<'_>) -> String {
    replace_paths(&mut f, ctx);
    serde_json::to_string(&f).expect("a Value serializes")
}

/// Strings longer than this are replaced by their length and a hash, so
/// that a 2 MiB result is compared exactly without a 2 MiB expected file.
const LONG_STRING: usize = 1024;

/// Applies the path and long-string rules to any JSON value (used for the
/// host's `--json` steps too).
pub fn normalize_value(v: &mut Value, ctx: &Context<'_>) {
    replace_paths(v, ctx);
}

/// Also sorts object keys: a transcript compares content, not the key order
/// each SDK writes (serde_json keeps that order: `preserve_order` is on).
fn replace_paths(v: &mut Value, ctx: &Context<'_>) {
    match v {
        Value::String(s) if s.len() > LONG_STRING => {
            *s = format!("<{} bytes, fnv1a {:016x}>", s.len(), fnv1a(s.as_bytes()));
        }
        Value::String(s) => {
            for (path, placeholder) in &ctx.paths {
                if !path.is_empty() && s.contains(path) {
                    *s = s.replace(path, placeholder);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| replace_paths(i, ctx)),
        Value::Object(map) => {
            map.sort_keys();
            map.values_mut().for_each(|i| replace_paths(i, ctx));
        }
        _ => {}
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The first difference between two transcripts, described for a person:
/// the direction, the frame index, the frame before it for context, both
/// versions, and a caret under the first differing character.
pub fn first_difference(expected: &Transcript, actual: &Transcript) -> Option<String> {
    first_difference_in(&[
        ("host->ext", &expected.host_to_ext, &actual.host_to_ext),
        ("ext->host", &expected.ext_to_host, &actual.ext_to_host),
    ])
}

/// The first difference among named pairs of sequences (see
/// [`first_difference`]).
pub fn first_difference_in(pairs: &[(&str, &Vec<String>, &Vec<String>)]) -> Option<String> {
    for &(dir, e, a) in pairs {
        let n = e.len().max(a.len());
        for i in 0..n {
            let (ef, af) = (e.get(i), a.get(i));
            if ef == af {
                continue;
            }
            let mut out = format!("first difference in {dir}, frame #{} of {}:\n", i + 1, n);
            if i > 0 {
                out.push_str(&format!("  after:    {}\n", clip(&e[i - 1], 0)));
            }
            let col = match (ef, af) {
                (Some(x), Some(y)) => x
                    .char_indices()
                    .zip(y.chars())
                    .find(|((_, c1), c2)| c1 != c2)
                    .map(|((i, _), _)| i)
                    .unwrap_or(x.len().min(y.len())),
                _ => 0,
            };
            let show = |f: Option<&String>| match f {
                Some(s) => clip(s, col),
                None => "(no frame)".to_owned(),
            };
            out.push_str(&format!("  expected: {}\n", show(ef)));
            out.push_str(&format!("  actual:   {}\n", show(af)));
            return Some(out);
        }
    }
    None
}

/// Shortens a long frame around `col` so the difference stays visible.
fn clip(s: &str, col: usize) -> String {
    const WIDTH: usize = 160;
    if s.len() <= WIDTH {
        return s.to_owned();
    }
    let start = col.saturating_sub(WIDTH / 2);
    let start = (0..=start)
        .rev()
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(0);
    let end = (start + WIDTH).min(s.len());
    let end = (end..=s.len())
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(s.len());
    format!(
        "{}{}{} ({} bytes)",
        if start > 0 { "…" } else { "" },
        &s[start..end],
        if end < s.len() { "…" } else { "" },
        s.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(lines: &[(&str, &str)]) -> String {
        lines
            .iter()
            .map(|(dir, frame)| format!(r#"{{"ext":"c","dir":"{dir}","frame":{frame}}}"#))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn ids_sequences_and_paths_are_normalised() {
        let big = format!(
            r#"{{"type":"tool_result","id":"41","content":[{{"type":"text","text":"{}"}}]}}"#,
            "y".repeat(2000)
        );
        let w = wire(&[
            (
                "host->ext",
                r#"{"type":"hello_ack","protocol_version":1,"cwd":"/tmp/p1","data_dir":"/x/ext"}"#,
            ),
            (
                "host->ext",
                r#"{"type":"tool_call","id":"41","name":"compose","args":{}}"#,
            ),
            (
                "ext->host",
                r#"{"type":"call_tool","id":"c-9","name":"echo","args":{},"parent_id":"41"}"#,
            ),
            (
                "host->ext",
                r#"{"type":"event","event":"turn_start","session_id":"s","cwd":"/tmp/p1/sub","sequence":17}"#,
            ),
            (
                "host->ext",
                r#"{"type":"tool_result","id":"c-9","name":"echo","content":[]}"#,
            ),
            ("ext->host", big.as_str()),
        ]);
        let ctx = Context {
            paths: vec![("/x/ext", "<ext_dir>"), ("/tmp/p1", "<cwd>")],
        };
        let t = normalize(&w, &ctx).unwrap();
        assert!(t.host_to_ext[0].contains(r#""cwd":"<cwd>""#));
        assert!(t.host_to_ext[0].contains(r#""data_dir":"<ext_dir>""#));
        assert!(t.host_to_ext[1].contains(r#""id":"h1""#));
        assert!(t.ext_to_host[0].contains(r#""id":"x1""#));
        assert!(t.ext_to_host[0].contains(r#""parent_id":"h1""#));
        assert!(t.host_to_ext[2].contains(r#""sequence":1"#));
        assert!(t.host_to_ext[2].contains(r#""cwd":"<cwd>/sub""#));
        assert!(t.host_to_ext[3].contains(r#""id":"x1""#));
        assert!(t.ext_to_host[1].contains(r#""id":"h1""#));
        assert!(
            t.ext_to_host[1].contains("bytes, fnv1a"),
            "{}",
            t.ext_to_host[1]
        );
        assert_eq!(Transcript::parse(&t.render()).unwrap(), t);
    }

    #[test]
    fn the_first_difference_names_direction_index_and_both_frames() {
        let a = Transcript {
            host_to_ext: vec!["{\"a\":1}".into()],
            ext_to_host: vec!["{\"type\":\"ready\"}".into(), "{\"x\":1}".into()],
        };
        let mut b = a.clone();
        assert_eq!(first_difference(&a, &b), None);
        b.ext_to_host[1] = "{\"x\":2}".into();
        let d = first_difference(&a, &b).unwrap();
        assert!(d.contains("ext->host, frame #2"), "{d}");
        assert!(d.contains("after:    {\"type\":\"ready\"}"), "{d}");
        assert!(
            d.contains("expected: {\"x\":1}") && d.contains("actual:   {\"x\":2}"),
            "{d}"
        );
        b.ext_to_host.pop();
        assert!(first_difference(&a, &b).unwrap().contains("(no frame)"));
    }
}
