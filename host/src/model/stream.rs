//! A streamed chat completion (`stream: true`): the chunks' deltas put
//! back together into the message a non-streamed reply would have held,
//! so that a turn is the same either way.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::chat::{self, ModelTurn, Usage};

/// One tool call being assembled.
#[derive(Debug, Default)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

/// The state of a stream so far.
#[derive(Debug, Default)]
pub struct Assembler {
    text: String,
    /// By the delta's `index`: a call's pieces arrive in several chunks,
    /// and calls may interleave.
    calls: BTreeMap<u64, Call>,
    last_index: Option<u64>,
    finish: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl Assembler {
    /// Takes the data of one event; returns the text it adds, if any.
    pub fn event(&mut self, data: &str) -> Result<Option<String>, String> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            format!(
                "a chunk of the stream is not JSON ({e}): {}",
                super::failure::one_line(data)
            )
        })?;
        if let Some(e) = chat::api_error(&chunk) {
            return Err(e);
        }
        if let Some(u) = Usage::of(&chunk) {
            self.usage = Some(u);
        }
        // A chunk may have no choice (the last one, with the usage only).
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(None);
        };
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(f.to_owned());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(None);
        };
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for c in calls {
                self.tool_call(c);
            }
        }
        match delta.get("content") {
            Some(Value::String(s)) if !s.is_empty() => {
                self.text.push_str(s);
                Ok(Some(s.clone()))
            }
            _ => Ok(None),
        }
    }

    fn tool_call(&mut self, c: &Value) {
        let str_at = |p: &str| c.pointer(p).and_then(Value::as_str).unwrap_or_default();
        let id = str_at("/id");
        let index = match c.get("index").and_then(Value::as_u64) {
            Some(i) => i,
            // No index (some servers send each call whole): a new id is a
            // new call, otherwise it continues the last one.
            None => match self.last_index {
                Some(last) if id.is_empty() || self.calls[&last].id == id => last,
                _ => self.calls.keys().next_back().map_or(0, |k| k + 1),
            },
        };
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if call.id.is_empty() {
            call.id = id.to_owned();
        }
        // The name comes whole in its first delta; a server that repeats
        // it in later deltas must not double it.
        let name = str_at("/function/name");
        if call.name.is_empty() {
            call.name = name.to_owned();
        } else if !name.is_empty() && name != call.name {
            call.name.push_str(name);
        }
        match c.pointer("/function/arguments") {
            Some(Value::String(s)) => call.arguments.push_str(s),
            // Some servers send the arguments object itself.
            Some(v @ Value::Object(_)) => call.arguments.push_str(&v.to_string()),
            _ => {}
        }
    }

    /// Whether the stream said it is over (`[DONE]`).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The turn, once the stream has ended; a stream that stopped before
    /// `[DONE]` and before any finish reason was cut.
    pub fn finish(self) -> Result<ModelTurn, String> {
        if !self.done && self.finish.is_none() {
            return Err(format!(
                "the stream ended before [DONE] or a finish_reason, after {} characters \
                 of text and {} tool call(s): the connection was cut or the server stopped",
                self.text.chars().count(),
                self.calls.len()
            ));
        }
        let tool_calls: Vec<Value> = self
            .calls
            .into_values()
            .map(|c| {
                json!({"id": c.id, "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments}})
            })
            .collect();
        let mut msg = json!({"role": "assistant", "content": self.text});
        if !tool_calls.is_empty() {
            msg["tool_calls"] = Value::Array(tool_calls);
        }
        let mut turn = chat::turn_from(&msg, self.finish.as_deref())?;
        turn.usage = self.usage;
        Ok(turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assemble(events: &[Value]) -> (ModelTurn, String) {
        let mut a = Assembler::default();
        let mut shown = String::new();
        for e in events {
            if let Some(t) = a.event(&e.to_string()).unwrap() {
                shown.push_str(&t);
            }
        }
        a.event("[DONE]").unwrap();
        (a.finish().unwrap(), shown)
    }

    fn delta(d: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": d, "finish_reason": null}]})
    }

    #[test]
    fn interleaved_tool_call_deltas_are_assembled_by_index() {
        let (t, shown) = assemble(&[
            delta(json!({"role": "assistant", "content": "Adding"})),
            delta(json!({"content": " now."})),
            delta(
                json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                "function": {"name": "add", "arguments": ""}}]}),
            ),
            delta(
                json!({"tool_calls": [{"index": 1, "id": "c2", "type": "function",
                "function": {"name": "add", "arguments": "{\"a\":"}}]}),
            ),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\":1}"}}]})),
            delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": "5}"}}]})),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 7}}),
        ]);
        assert_eq!(shown, "Adding now.");
        assert_eq!(
            t.script,
            json!({"text": "Adding now.", "tool_calls": [
                {"id": "c1", "name": "add", "args": {"a": 1}},
                {"id": "c2", "name": "add", "args": {"a": 5}}]})
        );
        assert_eq!(
            t.usage,
            Some(Usage {
                prompt: 12,
                completion: 7
            })
        );
    }

    #[test]
    fn the_same_reply_streamed_or_whole_is_the_same_turn() {
        let whole = chat::parse_reply(&json!({"choices": [{"finish_reason": "length",
            "message": {"content": "Hi", "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": "{}"}}]}}]}))
        .unwrap();
        let (streamed, _) = assemble(&[
            delta(json!({"content": "H"})),
            delta(json!({"content": "i"})),
            delta(
                json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}]}),
            ),
            json!({"choices": [{"delta": {}, "finish_reason": "length"}]}),
        ]);
        assert_eq!(streamed.script, whole.script);
        assert_eq!(format!("{:?}", streamed.turn), format!("{:?}", whole.turn));
    }

    #[test]
    fn calls_without_an_index_are_told_apart_by_id() {
        let (t, _) = assemble(&[
            delta(
                json!({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{\"x\":1}"}}]}),
            ),
            delta(
                json!({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": {"y": 2}}}]}),
            ),
        ]);
        assert_eq!(
            t.script["tool_calls"],
            json!([{"id": "a", "name": "f", "args": {"x": 1}},
                   {"id": "b", "name": "g", "args": {"y": 2}}])
        );
    }

    #[test]
    fn a_cut_stream_or_an_error_chunk_says_so() {
        let mut a = Assembler::default();
        a.event(&delta(json!({"content": "Hel"})).to_string())
            .unwrap();
        let e = a.finish().unwrap_err();
        assert!(
            e.contains("ended before [DONE]") && e.contains("3 characters"),
            "{e}"
        );

        let mut a = Assembler::default();
        let e = a
            .event(r#"{"error": {"message": "upstream timed out", "code": 502}}"#)
            .unwrap_err();
        assert!(e.contains("upstream timed out"), "{e}");
        let e = Assembler::default().event("{oops").unwrap_err();
        assert!(e.contains("not JSON") && e.contains("{oops"), "{e}");
    }
}
