//! The differential test (issue 18): the same random host frame sequences,
//! valid and malformed, run straight into the conformance extension of
//! every language (no host in between, so nothing is cleaned up first), and
//! the normalised outputs compared.
//!
//! ```text
//! zot-conformance --differential [--seed N] [--cases N] [--lang rust,node,python]
//! ```
//!
//! Each case is a short sequence of steps drawn from a seeded generator
//! (a small xorshift generator: the same seed gives the same cases on every
//! machine), after the fixed regression cases, one per cause listed in
//! issue 18. Every request whose id can be read must get exactly one reply
//! within [`REPLY_WAIT`](crate::process::REPLY_WAIT) in every language (a missing or extra reply is a
//! failure even when all three agree), and the languages must agree:
//!
//! - a **behaviour** difference: a reply missing or extra, a different
//!   action, `is_error` or verdict, a different result, a crash or exit
//!   status;
//! - a **wording** difference: the same behaviour with a different error
//!   text.
//!
//! Both are reported, separately, and both fail the run. A failing case is
//! shrunk (steps removed while the difference stays) before it is printed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::process::{End, Launch, Proc};

/// What the differential run needs from the command line.
pub struct DiffOptions {
    pub seed: u64,
    pub cases: usize,
    pub langs: Vec<String>,
    pub ext_dirs: Vec<(String, PathBuf)>,
}

/// One step of a case.
#[derive(Debug, Clone)]
enum Step {
    /// A request whose id can be read: exactly one reply to `id` is due.
    Request { line: String, id: String },
    /// A frame that gets no reply (an event, a panel key, a malformed line).
    Fire(String),
    /// `tool_call compose` (or `command_invoked callecho` when `command`):
    /// the extension calls the host's `echo`; the host answers with
    /// `answer` (its `{id}` replaced by the call's id), then the reply is
    /// due.
    Call {
        line: String,
        id: String,
        answer: String,
    },
    /// `command_invoked callecho` left waiting on its `call_tool`: the
    /// session then ends with it pending.
    PendingCall { line: String },
}

#[derive(Debug, Clone)]
struct Case {
    name: String,
    steps: Vec<Step>,
    end: End,
}

/// What one language did with a case, normalised.
#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    /// Per step: the reply to its request (or what went wrong), in order.
    replies: Vec<String>,
    /// Every other frame, sorted (timing decides where in the stream they
    /// fall, not the protocol).
    others: Vec<String>,
    /// How the process ended.
    exit: String,
    /// Broken invariants (a request without its one reply).
    broken: Vec<String>,
}

/// The xorshift64* generator: tiny, seeded, the same everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// JSON texts of values a field may get, valid or not (`\ud800` is a lone
/// surrogate; the big numbers lie beyond 2^53, i64 and u64).
const STRINGS: &[&str] = &[
    r#""hi""#,
    r#""""#,
    r#""héllo ✓""#,
    r#""a\ud800b""#,
    r#""\udc00""#,
    r#""\ud83d\ude00""#,
    "5",
    "null",
    "[]",
    "{}",
];
const INTEGERS: &[&str] = &[
    "0",
    "2",
    "-7",
    "1.0",
    "1e2",
    "-0.0",
    "1.5",
    "9007199254740991",
    "9007199254740992",
    "-9007199254740992",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "1e300",
    r#""3""#,
    "null",
    "true",
];
const NON_OBJECTS: &[&str] = &["null", "[]", "[1]", r#""s""#, "5", "true"];

fn command(id: &str, name: &str, args: &str) -> String {
    format!(r#"{{"type":"command_invoked","id":"{id}","name":{name},"args":{args}}}"#)
}

fn tool(id: &str, name: &str, args: &str) -> String {
    format!(r#"{{"type":"tool_call","id":"{id}","name":"{name}","args":{args}}}"#)
}

fn request(line: String, id: &str) -> Step {
    Step::Request {
        line,
        id: id.to_owned(),
    }
}

/// A random tool call.
fn random_tool(r: &mut Rng, id: &str) -> Step {
    let args = match r.below(9) {
        0 => format!(r#"{{"text":{}}}"#, r.pick(STRINGS)),
        1 | 2 => format!(r#"{{"a":{},"b":{}}}"#, r.pick(INTEGERS), r.pick(INTEGERS)),
        3 => format!(
            r#"{{"bytes":{}}}"#,
            r.pick(&["0", "3", "-1", "1e15", "5000000", "2.0"])
        ),
        4 => format!(
            r#"{{"ms":{}}}"#,
            r.pick(&[
                "0",
                "1",
                "-1",
                "2147483648",
                "18446744073709551616",
                "1.0",
                r#""1""#
            ])
        ),
        5 => r.pick(NON_OBJECTS).to_owned(),
        6 => format!(r#"{{"v":{}{}}}"#, "[".repeat(200), "]".repeat(200)),
        7 => "{}".to_owned(),
        _ => format!(r#"{{"a":1,"b":{}}}"#, r.pick(STRINGS)),
    };
    let name = r.pick(&[
        "echo", "add", "big", "sleep", "fail", "lazy", "loader", "image", "nosuch", "add",
    ]);
    let name = match (name, args.as_str()) {
        // Keep `sleep` short: every valid ms drawn above is at most 1.
        ("sleep", a) if !a.starts_with(r#"{"ms""#) => "add",
        (n, _) => n,
    };
    request(tool(id, name, &args), id)
}

/// A random command.
fn random_command(r: &mut Rng, id: &str) -> Step {
    let name = r.pick(&[
        r#""echo""#,
        r#""Greet""#,
        r#""insert""#,
        r#""oops""#,
        r#""note""#,
        r#""commit""#,
        r#""clear""#,
        r#""nosuch""#,
        "5",
        "null",
    ]);
    request(command(id, name, r.pick(STRINGS)), id)
}

/// A random interception request.
fn random_intercept(r: &mut Rng, id: &str) -> Step {
    let line = match r.below(5) {
        0 => format!(
            r#"{{"type":"event_intercept","event":"tool_call","id":"{id}","tool_name":{},"tool_args":{}}}"#,
            r.pick(&[r#""bash""#, r#""read""#, "5", "null"]),
            r.pick(&[
                r#"{"command":"ls"}"#,
                r#"{"command":"rm -rf /"}"#,
                r#"{"command":"pwd"}"#,
                "null",
                "[]",
                r#""s""#,
                "5",
            ])
        ),
        1 => format!(
            r#"{{"type":"event_intercept","event":"turn_start","id":"{id}","step":{}}}"#,
            r.pick(&["1", "99", "-1", "1.5", "1099511627776", r#""x""#, "null"])
        ),
        2 => format!(
            r#"{{"type":"event_intercept","event":"assistant_message","id":"{id}","text":{}}}"#,
            r.pick(&[
                r#""BLOCKME""#,
                r#""a SECRET b""#,
                r#""fine""#,
                "null",
                "5",
                r#""\ud800""#
            ])
        ),
        3 => format!(
            r#"{{"type":"event_intercept","event":"before_agent_start","id":"{id}","system_prompt":{}}}"#,
            r.pick(&[r#""KEEP it""#, r#""REMOVE""#, r#""base""#, "null", "5"])
        ),
        _ => format!(
            r#"{{"type":"event_intercept","id":"{id}"{}}}"#,
            r.pick(&["", r#","event":5"#, r#","event":"no_such_event""#])
        ),
    };
    request(line, id)
}

/// A random frame that gets no reply.
fn random_fire(r: &mut Rng, seq: usize) -> Step {
    Step::Fire(match r.below(8) {
        0 => format!(r#"{{"type":"event","event":"turn_end","sequence":{seq},"session_id":"s"}}"#),
        1 => format!(
            r#"{{"type":"event","event":"user_prompt_submit","sequence":{seq},"prompt":{}}}"#,
            r.pick(STRINGS)
        ),
        2 => r#"{"type":"tool_cancel","id":"nobody"}"#.to_owned(),
        3 => r
            .pick(&[
                "not json",
                "[]",
                "{}",
                r#"{"type":5}"#,
                r#"{"type":"no_such_frame"}"#,
            ])
            .to_owned(),
        4 => format!(
            r#"{{"type":"panel_key","panel_id":"conf-panel","key":{}}}"#,
            r.pick(&[r#""up""#, r#""down""#, "5"])
        ),
        5 => format!(
            r#"{{"type":"event","event":"tool_call","sequence":{seq},"tool_args":{}}}"#,
            r.pick(NON_OBJECTS)
        ),
        6 => r#"{"type":"command_invoked","name":"echo","args":"no id"}"#.to_owned(),
        _ => r#"{"type":"tool_call","id":5,"name":"echo","args":{}}"#.to_owned(),
    })
}

/// A host answer to a `call_tool` (`{id}` is the call's id).
fn random_answer(r: &mut Rng) -> String {
    r.pick(&[
        r#"{"type":"tool_result","id":"{id}","content":[{"type":"text","text":"inner"}]}"#,
        r#"{"type":"tool_result","id":"{id}","content":[{"type":"text","text":"no"}],"is_error":true}"#,
        r#"{"type":"tool_result","id":"{id}","content":5}"#,
        r#"{"type":"tool_result","id":"{id}","content":[{"type":"text","text":"\ud800"}]}"#,
    ])
    .to_owned()
}

/// The `seed`-th random case.
fn random_case(seed: u64, n: usize) -> Case {
    let mut r = Rng::new(seed ^ (n as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    let len = 2 + r.below(7);
    let mut steps = Vec::new();
    for i in 0..len {
        let id = format!("r{i}");
        steps.push(match r.below(10) {
            0..=2 => random_tool(&mut r, &id),
            3 | 4 => random_command(&mut r, &id),
            5 | 6 => random_intercept(&mut r, &id),
            7 => Step::Call {
                line: if r.below(2) == 0 {
                    tool(&id, "compose", r#"{"text":"x"}"#)
                } else {
                    command(&id, r#""callecho""#, r#""x""#)
                },
                id: id.clone(),
                answer: random_answer(&mut r),
            },
            _ => random_fire(&mut r, i + 1),
        });
    }
    if r.below(4) == 0 {
        steps.push(Step::PendingCall {
            line: command("pending", r#""callecho""#, r#""x""#),
        });
    } else {
        steps.push(request(command("ev", r#""events""#, r#""""#), "ev"));
    }
    Case {
        name: format!("seed {seed} case {n}"),
        steps,
        end: if r.below(2) == 0 {
            End::Shutdown
        } else {
            End::Eof
        },
    }
}

/// One fixed case per cause listed in issue 18.
fn regression_cases() -> Vec<Case> {
    let one = |name: &str, steps: Vec<Step>| Case {
        name: format!("regression: {name}"),
        steps,
        end: End::Shutdown,
    };
    let req = |line: String, id: &str| request(line, id);
    vec![
        one(
            "command_invoked with non-string args, a lone surrogate, non-string name",
            vec![
                req(command("c1", r#""echo""#, "5"), "c1"),
                req(command("c2", r#""echo""#, r#""a\ud800""#), "c2"),
                req(command("c3", "5", r#""x""#), "c3"),
            ],
        ),
        one(
            "event_intercept with wrong-typed fields or no event",
            vec![
                req(r#"{"type":"event_intercept","event":"turn_start","id":"i1","step":-1}"#.into(), "i1"),
                req(r#"{"type":"event_intercept","event":"turn_start","id":"i2","step":1.5}"#.into(), "i2"),
                req(r#"{"type":"event_intercept","event":"turn_start","id":"i3","step":1099511627776}"#.into(), "i3"),
                req(r#"{"type":"event_intercept","event":"assistant_message","id":"i4","text":null}"#.into(), "i4"),
                req(r#"{"type":"event_intercept","event":"before_agent_start","id":"i5","system_prompt":5}"#.into(), "i5"),
                req(r#"{"type":"event_intercept","event":"tool_call","id":"i6","tool_name":5}"#.into(), "i6"),
                req(r#"{"type":"event_intercept","id":"i7","step":1}"#.into(), "i7"),
            ],
        ),
        one(
            "1: integers beyond 2^53 (add 9007199254740991 + 214, 2^53)",
            vec![
                req(tool("t1", "add", r#"{"a":9007199254740991,"b":214}"#), "t1"),
                req(tool("t2", "add", r#"{"a":9007199254740992,"b":0}"#), "t2"),
            ],
        ),
        one(
            "2: integers beyond i64 (add, sleep 2^64)",
            vec![
                req(tool("t1", "add", r#"{"a":9223372036854775808,"b":1}"#), "t1"),
                req(tool("t2", "sleep", r#"{"ms":18446744073709551616}"#), "t2"),
            ],
        ),
        one(
            "3: whole numbers written as floats are integers",
            vec![
                req(tool("t1", "add", r#"{"a":1.0,"b":1e2}"#), "t1"),
                req(tool("t2", "add", r#"{"a":-0.0,"b":2}"#), "t2"),
            ],
        ),
        one(
            "4: non-object arguments",
            NON_OBJECTS
                .iter()
                .enumerate()
                .flat_map(|(i, a)| {
                    [
                        req(tool(&format!("e{i}"), "echo", a), &format!("e{i}")),
                        req(tool(&format!("s{i}"), "sleep", a), &format!("s{i}")),
                    ]
                })
                .collect(),
        ),
        one(
            "5: a lone surrogate in a string argument",
            vec![req(tool("t1", "echo", r#"{"text":"\ud800"}"#), "t1")],
        ),
        one(
            "6: the tool_call interceptor with non-object tool_args",
            ["null", "[]", r#""s""#]
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    req(
                        format!(r#"{{"type":"event_intercept","event":"tool_call","id":"i{i}","tool_name":"bash","tool_args":{a}}}"#),
                        &format!("i{i}"),
                    )
                })
                .collect(),
        ),
        one(
            "7: tool_call arguments nested 5,000 deep, then a valid call",
            vec![
                req(
                    tool("deep", "echo", &format!(r#"{{"text":{}{}}}"#, "[".repeat(5000), "]".repeat(5000))),
                    "deep",
                ),
                req(tool("ok", "echo", r#"{"text":"after"}"#), "ok"),
            ],
        ),
        Case {
            name: "regression: 8: shutdown with a call_tool waiting".into(),
            steps: vec![Step::PendingCall {
                line: command("p", r#""callecho""#, r#""x""#),
            }],
            end: End::Shutdown,
        },
        Case {
            name: "regression: 8: EOF with a call_tool waiting".into(),
            steps: vec![Step::PendingCall {
                line: command("p", r#""callecho""#, r#""x""#),
            }],
            end: End::Eof,
        },
        one(
            "the extensions: big 1e15 and -1, sleep 2^31, add i64 max + 1",
            vec![
                req(tool("b1", "big", r#"{"bytes":1e15}"#), "b1"),
                req(tool("b2", "big", r#"{"bytes":-1}"#), "b2"),
                req(tool("s1", "sleep", r#"{"ms":2147483648}"#), "s1"),
                req(tool("a1", "add", r#"{"a":9223372036854775807,"b":1}"#), "a1"),
                req(tool("ok", "add", r#"{"a":2,"b":40}"#), "ok"),
            ],
        ),
    ]
}

const REPLY_TYPES: [&str; 3] = [
    "command_response",
    "tool_result",
    "event_intercept_response",
];

fn is_reply_to(f: &Value, id: &str) -> bool {
    REPLY_TYPES.contains(&f["type"].as_str().unwrap_or_default()) && f["id"] == id
}

/// A frame as compared: keys sorted, the extension's own call ids named.
fn canonical(f: &Value) -> String {
    let mut f = f.clone();
    if f["type"] == "call_tool" {
        f["id"] = json!("<call>");
    }
    f.sort_all_objects();
    f.to_string()
}

fn run_case(l: &Launch, case: &Case) -> Outcome {
    let mut out = Outcome {
        replies: Vec::new(),
        others: Vec::new(),
        exit: String::new(),
        broken: Vec::new(),
    };
    let mut p = match Proc::start(l) {
        Ok(p) => p,
        Err(e) => {
            out.exit = e;
            return out;
        }
    };
    for step in &case.steps {
        match step {
            Step::Fire(line) => p.send(line),
            Step::Request { line, id } => {
                p.send(line);
                out.replies.push(match p.expect(|f| is_reply_to(f, id)) {
                    Some(f) => canonical(&f),
                    None => {
                        out.broken.push(format!("no reply to {id}"));
                        format!("<no reply to {id}>")
                    }
                });
            }
            Step::Call { line, id, answer } => {
                p.send(line);
                let Some(call) = p.expect(|f| f["type"] == "call_tool" || is_reply_to(f, id))
                else {
                    out.broken.push(format!("no call_tool nor reply for {id}"));
                    out.replies.push(format!("<no reply to {id}>"));
                    continue;
                };
                if call["type"] == "call_tool" {
                    out.others.push(canonical(&call));
                    let call_id = call["id"].as_str().unwrap_or_default();
                    p.send(&answer.replace("{id}", call_id));
                    out.replies.push(match p.expect(|f| is_reply_to(f, id)) {
                        Some(f) => canonical(&f),
                        None => {
                            out.broken.push(format!("no reply to {id}"));
                            format!("<no reply to {id}>")
                        }
                    });
                } else {
                    out.replies.push(canonical(&call));
                }
            }
            Step::PendingCall { line } => {
                p.send(line);
                match p.expect(|f| f["type"] == "call_tool") {
                    Some(call) => out.others.push(canonical(&call)),
                    None => out.broken.push("no call_tool for the pending call".into()),
                }
            }
        }
    }
    out.exit = p.end(case.end);
    // What is left: spontaneous frames, and replies nobody waited for.
    let mut answered: BTreeMap<String, usize> = BTreeMap::new();
    for step in &case.steps {
        if let Step::Request { id, .. } | Step::Call { id, .. } = step {
            answered.insert(id.clone(), 1);
        }
    }
    for line in std::mem::take(&mut p.seen) {
        let f: Value = serde_json::from_str(&line).unwrap_or(Value::String(line.clone()));
        if REPLY_TYPES.contains(&f["type"].as_str().unwrap_or_default()) {
            let id = f["id"].as_str().unwrap_or_default().to_owned();
            if answered.contains_key(&id) {
                out.broken.push(format!("a second reply to {id}: {line}"));
            }
        }
        out.others.push(canonical(&f));
    }
    out.others.sort();
    out
}

/// The behaviour of a frame: its texts of errors reduced to whether there
/// is one.
fn behaviour(frame: &str) -> String {
    let Ok(mut f) = serde_json::from_str::<Value>(frame) else {
        return frame.to_owned();
    };
    let ty = f["type"].as_str().unwrap_or_default().to_owned();
    match ty.as_str() {
        "command_response" if f["error"].as_str().is_some_and(|e| !e.is_empty()) => {
            f["error"] = json!("<error>");
        }
        "tool_result" if f["is_error"] == true => f["content"] = json!("<error text>"),
        "event_intercept_response" if f["reason"].as_str().is_some_and(|r| !r.is_empty()) => {
            f["reason"] = json!("<reason>");
        }
        _ => {}
    }
    f.to_string()
}

fn project(o: &Outcome, f: fn(&str) -> String) -> (Vec<String>, Vec<String>, String, Vec<String>) {
    (
        o.replies.iter().map(|s| f(s)).collect(),
        o.others.iter().map(|s| f(s)).collect(),
        o.exit.clone(),
        o.broken.clone(),
    )
}

/// What differs between two outcomes, as lines.
fn describe(a_lang: &str, a: &Outcome, b_lang: &str, b: &Outcome) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..a.replies.len().max(b.replies.len()) {
        let (x, y) = (a.replies.get(i), b.replies.get(i));
        if x != y {
            out.push(format!(
                "  reply {i}:\n    {a_lang}: {}\n    {b_lang}: {}",
                x.map_or("-", String::as_str),
                y.map_or("-", String::as_str)
            ));
        }
    }
    if a.others != b.others {
        out.push(format!(
            "  other frames:\n    {a_lang}: {:?}\n    {b_lang}: {:?}",
            a.others, b.others
        ));
    }
    if a.exit != b.exit {
        out.push(format!(
            "  exit: {a_lang}: {} / {b_lang}: {}",
            a.exit, b.exit
        ));
    }
    out
}

/// The verdict on one case.
#[derive(Debug, PartialEq)]
enum Verdict {
    Same,
    Wording(Vec<String>),
    Behaviour(Vec<String>),
}

fn judge(launches: &[Launch], case: &Case) -> Verdict {
    let outcomes: Vec<Outcome> = launches.iter().map(|l| run_case(l, case)).collect();
    let mut behaviour_diffs = Vec::new();
    let mut wording_diffs = Vec::new();
    for (l, o) in launches.iter().zip(&outcomes) {
        for b in &o.broken {
            behaviour_diffs.push(format!("  {}: {b}", l.lang));
        }
    }
    let (first, a) = (&launches[0].lang, &outcomes[0]);
    for (l, b) in launches.iter().zip(&outcomes).skip(1) {
        if project(a, behaviour) != project(b, behaviour) {
            behaviour_diffs.extend(describe(first, a, &l.lang, b));
        } else if a != b {
            wording_diffs.extend(describe(first, a, &l.lang, b));
        }
    }
    if !behaviour_diffs.is_empty() {
        Verdict::Behaviour(behaviour_diffs)
    } else if !wording_diffs.is_empty() {
        Verdict::Wording(wording_diffs)
    } else {
        Verdict::Same
    }
}

/// Removes steps while the case still fails the same way (at most a few
/// dozen reruns).
fn shrink(launches: &[Launch], case: &Case, kind: fn(&Verdict) -> bool) -> Case {
    let mut best = case.clone();
    let mut budget = 24;
    let mut i = 0;
    while i < best.steps.len() && budget > 0 {
        let mut smaller = best.clone();
        smaller.steps.remove(i);
        budget -= 1;
        if !smaller.steps.is_empty() && kind(&judge(launches, &smaller)) {
            best = smaller;
        } else {
            i += 1;
        }
    }
    best
}

fn print_case(case: &Case) {
    println!("  steps ({}, then {:?}):", case.name, case.end);
    for s in &case.steps {
        match s {
            Step::Request { line, .. } | Step::Fire(line) | Step::PendingCall { line } => {
                println!("    {}", truncate(line))
            }
            Step::Call { line, answer, .. } => {
                println!(
                    "    {}\n      (call_tool answered with {})",
                    truncate(line),
                    answer
                )
            }
        }
    }
}

fn truncate(s: &str) -> String {
    if s.len() <= 200 {
        s.to_owned()
    } else {
        let mut end = 200;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &s[..end], s.len())
    }
}

/// Runs the differential test; true when every case passed.
pub fn run(o: &DiffOptions, base: &Path) -> bool {
    let mut launches = Vec::new();
    for lang in &o.langs {
        let dir = o
            .ext_dirs
            .iter()
            .find(|(l, _)| l == lang)
            .map_or_else(|| base.join(lang), |(_, d)| d.clone());
        match Launch::new(lang, &dir) {
            Ok(l) => launches.push(l),
            Err(e) => {
                println!("✘ {e}");
                return false;
            }
        }
    }
    let mut cases = regression_cases();
    cases.extend((0..o.cases).map(|n| random_case(o.seed, n)));
    let (mut same, mut wording, mut behaviour) = (0, 0, 0);
    for case in &cases {
        match judge(&launches, case) {
            Verdict::Same => same += 1,
            Verdict::Wording(lines) => {
                wording += 1;
                let small = shrink(&launches, case, |v| matches!(v, Verdict::Wording(_)));
                println!("✘ wording differs: {}", case.name);
                print_case(&small);
                lines.iter().for_each(|l| println!("{l}"));
            }
            Verdict::Behaviour(lines) => {
                behaviour += 1;
                let small = shrink(&launches, case, |v| matches!(v, Verdict::Behaviour(_)));
                println!("✘ behaviour differs: {}", case.name);
                print_case(&small);
                lines.iter().for_each(|l| println!("{l}"));
            }
        }
    }
    println!(
        "{same} of {} differential cases agree ({} regression, {} random from seed {}); {behaviour} differ in behaviour, {wording} only in wording",
        cases.len(),
        cases.len() - o.cases,
        o.cases,
        o.seed
    );
    behaviour == 0 && wording == 0
}
