//! What a user of the host sees: the host-observable steps of a session, kept
//! in order, streamed to a live printer and renderable as readable text or as
//! one JSON object per step (`--json`).

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

use serde::Serialize;

/// One host-observable step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Observation {
    /// An extension finished its handshake.
    Loaded {
        /// Manifest name.
        ext: String,
        /// `hello.version`.
        version: String,
        /// `--ext`, `project` or `global`.
        source: String,
        /// The manifest's `language`, when it declares one.
        #[serde(skip_serializing_if = "String::is_empty")]
        language: String,
    },
    /// An extension could not be loaded (HOST-174).
    LoadError {
        /// Manifest name or directory basename.
        ext: String,
        /// The full error (multi-line).
        message: String,
    },
    /// A per-extension diagnostic (conflicts, malformed frames, ready state...).
    Diagnostic {
        /// The extension.
        ext: String,
        /// The diagnostic.
        message: String,
    },
    /// An extension disconnected at runtime (crash, overflow, oversize line...).
    Disconnected {
        /// The extension.
        ext: String,
        /// Why.
        reason: String,
        /// Its stderr log.
        log: String,
    },
    /// An extension process ended during shutdown.
    Exited {
        /// The extension.
        ext: String,
        /// `exit status N` or `signal: ...`.
        status: String,
        /// The signal the host had to send when the grace ran out.
        #[serde(skip_serializing_if = "Option::is_none")]
        escalated: Option<String>,
    },
    /// The session started or switched.
    Session {
        /// Session id.
        id: String,
        /// Working directory.
        cwd: String,
    },
    /// The model changed.
    Model {
        /// Provider.
        provider: String,
        /// Model.
        model: String,
    },
    /// A user prompt was accepted.
    User {
        /// The text.
        text: String,
        /// Queued behind a running turn.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        queued: bool,
        /// Who produced it (`user`, or the extension for `prompt`/`submit`).
        from: String,
    },
    /// The user ran a slash command.
    Command {
        /// The input, with its `/`.
        text: String,
    },
    /// Visible assistant text.
    Assistant {
        /// What the user sees.
        text: String,
    },
    /// An assistant message hidden by an interceptor.
    AssistantHidden {
        /// The block reason.
        reason: String,
    },
    /// A tool call proposed by the model (or started by `call_tool` / `tool_prompt`).
    ToolCall {
        /// Transcript tool id.
        tool_id: String,
        /// Tool name.
        name: String,
        /// Arguments as proposed.
        args: serde_json::Value,
        /// Extension whose `call_tool`/`tool_prompt` started it.
        #[serde(skip_serializing_if = "String::is_empty")]
        origin_extension: String,
    },
    /// The host asked for approval and got an answer.
    Confirmation {
        /// Transcript tool id.
        tool_id: String,
        /// Tool name.
        name: String,
        /// The preview shown.
        preview: String,
        /// `approve`, `deny` or `remember`.
        answer: String,
    },
    /// A tool call ended.
    ToolResult {
        /// Transcript tool id.
        tool_id: String,
        /// Tool name.
        name: String,
        /// Outcome status.
        status: String,
        /// Whether it is an error result.
        is_error: bool,
        /// The text blocks joined (images shown as `[image <mime>]`).
        text: String,
    },
    /// A note under the transcript (interactive mode).
    Note {
        /// The extension.
        ext: String,
        /// `info`, `success`, `warn`, `error`.
        level: String,
        /// The text.
        text: String,
    },
    /// Notes of an extension that a flood pushed out of the notes area
    /// (it keeps the last [`crate::session::notes::MAX_NOTES_PER_EXT`] of each),
    /// counted when the notes were cleared. Each was printed as it came.
    NotesDropped {
        /// The extension.
        ext: String,
        /// How many.
        count: u64,
    },
    /// An extension's notes were cleared.
    NotesCleared {
        /// The extension.
        ext: String,
    },
    /// A `display` note.
    Display {
        /// The extension.
        ext: String,
        /// The text.
        text: String,
    },
    /// A status line (red for errors).
    Status {
        /// `info`, `warn` or `error`.
        level: String,
        /// The text.
        text: String,
    },
    /// A line written to stderr (print / JSON modes).
    Stderr {
        /// The line.
        text: String,
    },
    /// An RPC event (`ext_notify`, `ext_display`, `ext_clear_notes`).
    Rpc {
        /// The event object.
        event: serde_json::Value,
    },
    /// Text inserted into the editor.
    Editor {
        /// The editor's content after the insert.
        text: String,
    },
    /// A panel was opened or redrawn.
    Panel {
        /// Owner.
        ext: String,
        /// Panel id.
        id: String,
        /// Title (the extension name when empty).
        title: String,
        /// Body rows.
        lines: Vec<String>,
        /// Footer.
        footer: String,
        /// `open` or `render`.
        event: String,
    },
    /// A panel was closed.
    PanelClosed {
        /// Owner.
        ext: String,
        /// Panel id.
        id: String,
        /// `user`, `extension` or `replaced`.
        by: String,
    },
    /// A `before_agent_start` pass completed.
    SystemPrompt {
        /// The pass id.
        agent_run_id: String,
        /// The prompt now in force.
        text: String,
    },
    /// A compaction attempt finished.
    Compaction {
        /// Pairs the events.
        compaction_id: String,
        /// Outcome.
        status: String,
        /// Messages after.
        message_count: u64,
    },
    /// A subagent run finished.
    Subagent {
        /// Agent id.
        agent_id: String,
        /// Outcome.
        status: String,
    },
    /// `/reload-ext` finished.
    Reload {
        /// Extensions stopped.
        stopped: usize,
        /// Extensions loaded.
        loaded: usize,
        /// Extensions ready.
        ready: usize,
        /// Load errors.
        errors: usize,
    },
    /// The tools advertised to the model.
    Tools {
        /// Names, sorted.
        names: Vec<String>,
    },
    /// A codemode-style call resolved or rejected.
    Codemode {
        /// Tool name.
        name: String,
        /// The resolved value (structured content, or the joined text).
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<serde_json::Value>,
        /// The rejection, when the call failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A lifecycle event fired by hand (an `emit` step).
    Event {
        /// The event name.
        event: String,
    },
    /// The verdict of an interception chain fired by hand (an `intercept`
    /// step).
    Verdict {
        /// The intercepted event.
        event: String,
        /// `allow` or `block`.
        verdict: String,
        /// The block reason.
        #[serde(skip_serializing_if = "String::is_empty")]
        reason: String,
        /// What the chain let through: the arguments (`tool_call`), the
        /// text (`assistant_message`), the system prompt
        /// (`before_agent_start`).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<serde_json::Value>,
    },
    /// A host warning.
    Warning {
        /// The text.
        text: String,
    },
    /// A failed `expect` check of the script.
    ExpectFailed {
        /// What was expected.
        message: String,
    },
}

type Listener = Box<dyn Fn(&Observation) + Send + Sync>;

/// The ordered observations of one host run. Each one goes to the listener
/// as it happens; only a transcript made with [`Transcript::new`] also keeps
/// them in memory. A long session prints (or writes) its transcript as it
/// goes and keeps nothing, so its memory does not grow with its length;
/// script `expect` checks are answered by [`Transcript::watch`] as the
/// observations stream by.
#[derive(Clone)]
pub struct Transcript {
    inner: Arc<Mutex<Inner>>,
    listener: Option<Arc<Listener>>,
}

struct Inner {
    /// Every observation, when this transcript keeps them.
    kept: Option<Vec<Observation>>,
    /// Observations pushed so far.
    pushed: u64,
    watch: Watch,
}

impl Default for Transcript {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcript").finish_non_exhaustive()
    }
}

impl Transcript {
    /// A transcript that keeps every observation in memory (tests, `ext
    /// doctor`, short runs): its size grows with the session.
    pub fn new() -> Self {
        Self::make(true, None)
    }

    /// A transcript that hands every observation to `f` as it happens and
    /// keeps none ([`Transcript::snapshot`] is empty): what `zot-host run`
    /// uses, printing each one.
    pub fn streaming(f: impl Fn(&Observation) + Send + Sync + 'static) -> Self {
        Self::make(false, Some(Arc::new(Box::new(f))))
    }

    fn make(keep: bool, listener: Option<Arc<Listener>>) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                kept: keep.then(Vec::new),
                pushed: 0,
                watch: Watch::default(),
            })),
            listener,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records an observation.
    pub fn push(&self, o: Observation) {
        let mut inner = self.lock();
        if let Some(l) = &self.listener {
            l(&o);
        }
        inner.pushed += 1;
        inner.watch.feed(&o);
        if let Some(kept) = &mut inner.kept {
            kept.push(o);
        }
    }

    /// Everything observed so far, if this transcript keeps observations
    /// (else nothing).
    pub fn snapshot(&self) -> Vec<Observation> {
        self.lock().kept.clone().unwrap_or_default()
    }

    /// How many observations were pushed so far.
    pub fn len(&self) -> u64 {
        self.lock().pushed
    }

    /// Whether nothing was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many observations are held in memory (0 for a streaming one).
    pub fn retained(&self) -> usize {
        self.lock().kept.as_ref().map_or(0, Vec::len)
    }

    /// Starts tracking whether the JSON form of the transcript (the array
    /// of every observation, as `serde_json` writes it) contains each of
    /// `patterns`; [`Transcript::contains`] then answers for them. Register
    /// them before the observations they may match are pushed: what a
    /// streaming transcript has already passed on is not seen again.
    pub fn watch<I, S>(&self, patterns: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut inner = self.lock();
        let Inner { kept, watch, .. } = &mut *inner;
        let fresh = watch.add(patterns);
        if fresh {
            if let Some(kept) = kept {
                // Replay what this transcript holds, from the start.
                watch.restart();
                for o in kept.iter() {
                    watch.feed(o);
                }
            }
        }
    }

    /// Whether the JSON form of the transcript so far contains `pattern`;
    /// `None` when `pattern` was not registered with [`Transcript::watch`].
    pub fn contains(&self, pattern: &str) -> Option<bool> {
        self.lock().watch.contains(pattern)
    }
}

/// Substring checks over the JSON array of the observations, fed one
/// observation at a time: it keeps a flag per pattern and the last bytes
/// of the text so far (so that a match across two observations is found
/// too), never the text itself.
#[derive(Default)]
struct Watch {
    patterns: Vec<(String, bool)>,
    /// The last `longest - 1` bytes of the text so far.
    tail: Vec<u8>,
    /// Whether the opening `[` was fed.
    started: bool,
}

impl Watch {
    /// Adds patterns; whether any was new.
    fn add<I, S>(&mut self, patterns: I) -> bool
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut fresh = false;
        for p in patterns {
            let p = p.into();
            if !self.patterns.iter().any(|(q, _)| *q == p) {
                self.patterns.push((p, false));
                fresh = true;
            }
        }
        fresh
    }

    fn restart(&mut self) {
        self.tail.clear();
        self.started = false;
        for (_, found) in &mut self.patterns {
            *found = false;
        }
    }

    fn longest(&self) -> usize {
        self.patterns
            .iter()
            .map(|(p, _)| p.len())
            .max()
            .unwrap_or(0)
    }

    fn feed(&mut self, o: &Observation) {
        if self.patterns.is_empty() {
            return;
        }
        let Ok(json) = serde_json::to_vec(o) else {
            return;
        };
        let mut text = std::mem::take(&mut self.tail);
        text.push(if self.started { b',' } else { b'[' });
        self.started = true;
        text.extend_from_slice(&json);
        for (p, found) in &mut self.patterns {
            if !*found && memchr::memmem::find(&text, p.as_bytes()).is_some() {
                *found = true;
            }
        }
        let keep = self.longest().saturating_sub(1).min(text.len());
        text.drain(..text.len() - keep);
        self.tail = text;
    }

    fn contains(&self, pattern: &str) -> Option<bool> {
        let found = self.patterns.iter().find(|(p, _)| p == pattern)?.1;
        if found {
            return Some(true);
        }
        // The closing bracket (and the whole `[]` of an empty transcript).
        let mut end = self.tail.clone();
        end.extend_from_slice(if self.started { b"]" } else { b"[]" });
        Some(memchr::memmem::find(&end, pattern.as_bytes()).is_some())
    }
}

/// Renders observations for a person, with ANSI colour when asked to.
#[derive(Debug, Clone, Copy)]
pub struct Renderer {
    colour: bool,
}

impl Renderer {
    /// A renderer; `colour` enables ANSI styling.
    pub fn new(colour: bool) -> Self {
        Self { colour }
    }

    /// Colour when stdout is a terminal and `NO_COLOR` is unset.
    pub fn for_stdout() -> Self {
        Self::new(std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none())
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    fn level(&self, level: &str, s: &str) -> String {
        match level {
            "error" => self.paint("31", s),
            "warn" => self.paint("33", s),
            "success" => self.paint("32", s),
            _ => self.paint("2", s),
        }
    }

    /// The readable form of one observation (may span several lines).
    pub fn render(&self, o: &Observation) -> String {
        use Observation as O;
        match o {
            O::Loaded { .. }
            | O::LoadError { .. }
            | O::Diagnostic { .. }
            | O::Disconnected { .. }
            | O::Exited { .. }
            | O::Reload { .. }
            | O::Tools { .. } => self.extension_line(o),
            O::Session { .. }
            | O::Model { .. }
            | O::User { .. }
            | O::Command { .. }
            | O::Assistant { .. }
            | O::AssistantHidden { .. }
            | O::SystemPrompt { .. }
            | O::Compaction { .. }
            | O::Subagent { .. }
            | O::Warning { .. }
            | O::ExpectFailed { .. } => self.conversation_line(o),
            O::ToolCall { .. }
            | O::Confirmation { .. }
            | O::ToolResult { .. }
            | O::Codemode { .. }
            | O::Event { .. }
            | O::Verdict { .. } => self.tool_line(o),
            O::Note { .. }
            | O::NotesDropped { .. }
            | O::NotesCleared { .. }
            | O::Display { .. }
            | O::Status { .. }
            | O::Stderr { .. }
            | O::Rpc { .. }
            | O::Editor { .. }
            | O::Panel { .. }
            | O::PanelClosed { .. } => self.surface_line(o),
        }
    }

    /// How extensions came and went (loading, diagnostics, exits, reloads).
    fn extension_line(&self, o: &Observation) -> String {
        match o {
            Observation::Loaded {
                ext,
                version,
                source,
                language,
            } => {
                let lang = if language.is_empty() {
                    String::new()
                } else {
                    format!(", {language}")
                };
                self.paint(
                    "2",
                    &format!("· loaded extension {ext} {version} ({source}{lang})"),
                )
            }
            Observation::LoadError { ext, message } => self.paint(
                "31",
                &format!(
                    "✗ extension {ext} failed to load:\n{}",
                    indent(message, "    ")
                ),
            ),
            Observation::Diagnostic { ext, message } => {
                self.paint("33", &format!("! [{ext}] {message}"))
            }
            Observation::Disconnected { ext, reason, log } => self.paint(
                "31",
                &format!("✗ extension {ext} disconnected: {reason} (log: {log})"),
            ),
            Observation::Exited {
                ext,
                status,
                escalated,
            } => match escalated {
                None => self.paint("2", &format!("· extension {ext} exited ({status})")),
                Some(sig) => self.paint(
                    "33",
                    &format!("! extension {ext} ignored the grace; sent {sig} ({status})"),
                ),
            },
            Observation::Reload {
                stopped,
                loaded,
                ready,
                errors,
            } => self.paint(
                "2",
                &format!(
                    "· reloaded extensions: {stopped} stopped, {loaded} loaded, {ready} ready, \
                     {errors} errors"
                ),
            ),
            Observation::Tools { names } => {
                self.paint("2", &format!("· tools: {}", names.join(", ")))
            }
            _ => unreachable!("render sends only its own observations to extension_line"),
        }
    }

    /// The session and its conversation: who said what, and what the host made of it.
    fn conversation_line(&self, o: &Observation) -> String {
        match o {
            Observation::Session { id, cwd } => {
                self.paint("2", &format!("── session {id} in {cwd}"))
            }
            Observation::Model { provider, model } => {
                self.paint("2", &format!("── model {provider}/{model}"))
            }
            Observation::User { text, queued, from } => {
                let who = if from == "user" {
                    String::new()
                } else {
                    format!(" (from {from})")
                };
                let q = if *queued { " [queued]" } else { "" };
                format!("{}{q}{who} {text}", self.paint("1;36", "you ›"))
            }
            Observation::Command { text } => format!("{} {text}", self.paint("1;36", "you ›")),
            Observation::Assistant { text } => {
                format!(
                    "{} {}",
                    self.paint("1;35", "zot ›"),
                    indent(text, "      ").trim_start()
                )
            }
            Observation::AssistantHidden { reason } => {
                self.paint("2", &format!("zot › (message hidden: {reason})"))
            }
            Observation::SystemPrompt { agent_run_id, text } => self.paint(
                "2",
                &format!(
                    "· system prompt ({agent_run_id}): {}",
                    crate::util::ellipsize(&text.replace('\n', "⏎"), 120)
                ),
            ),
            Observation::Compaction {
                compaction_id,
                status,
                message_count,
            } => self.paint(
                "2",
                &format!("· compaction {compaction_id}: {status}, {message_count} messages"),
            ),
            Observation::Subagent { agent_id, status } => {
                self.paint("2", &format!("· subagent {agent_id}: {status}"))
            }
            Observation::Warning { text } => self.paint("33", &format!("⚠ {text}")),
            Observation::ExpectFailed { message } => {
                self.paint("1;31", &format!("✗ expectation failed: {message}"))
            }
            _ => unreachable!("render sends only its own observations to conversation_line"),
        }
    }

    /// Tool calls and what intercepted or answered them.
    fn tool_line(&self, o: &Observation) -> String {
        match o {
            Observation::ToolCall {
                tool_id: _,
                name,
                args,
                origin_extension,
            } => {
                let via = if origin_extension.is_empty() {
                    String::new()
                } else {
                    format!(" via {origin_extension}")
                };
                self.paint("34", &format!("  ⚙ {name} {args}{via}"))
            }
            Observation::Confirmation {
                name,
                preview,
                answer,
                ..
            } => self.paint("33", &format!("  ? allow {name}: {preview} → {answer}")),
            Observation::ToolResult {
                name,
                status,
                is_error,
                text,
                ..
            } => {
                let head = format!("  ↳ {name} [{status}]");
                let body = indent(&clip_for_reading(text), "    ");
                if *is_error {
                    format!("{}\n{}", self.paint("31", &head), self.paint("31", &body))
                } else {
                    format!("{}\n{}", self.paint("32", &head), body)
                }
            }
            Observation::Codemode { name, value, error } => match (value, error) {
                (_, Some(e)) => self.paint("31", &format!("  codemode {name}() rejected: {e}")),
                (Some(v), None) => self.paint("34", &format!("  codemode {name}() = {v}")),
                (None, None) => self.paint("34", &format!("  codemode {name}()")),
            },
            Observation::Event { event } => self.paint("2", &format!("· event {event} fired")),
            Observation::Verdict {
                event,
                verdict,
                reason,
                result,
            } => {
                let mut line = format!("· intercept {event}: {verdict}");
                if !reason.is_empty() {
                    line.push_str(&format!(" ({reason})"));
                }
                if let Some(r) = result {
                    line.push_str(&format!(" → {r}"));
                }
                self.paint(if verdict == "block" { "33" } else { "2" }, &line)
            }
            _ => unreachable!("render sends only its own observations to tool_line"),
        }
    }

    /// What extensions put on the screen: notes, displays, status, panels.
    fn surface_line(&self, o: &Observation) -> String {
        match o {
            Observation::Note { ext, level, text } => indent(text, "")
                .lines()
                .map(|l| self.level(level, &format!("  [{ext}] {l}")))
                .collect::<Vec<_>>()
                .join("\n"),
            Observation::NotesDropped { ext, count } => self.paint(
                "2",
                &format!(
                    "  [{ext}] {count} older notes left the notes area (it keeps the last {})",
                    crate::session::notes::MAX_NOTES_PER_EXT
                ),
            ),
            Observation::NotesCleared { ext } => {
                self.paint("2", &format!("  [{ext}] notes cleared"))
            }
            Observation::Display { ext, text } => {
                format!(
                    "{} {}",
                    self.paint("36", &format!("  [{ext}]")),
                    indent(text, "    ").trim_start()
                )
            }
            Observation::Status { level, text } => self.level(level, &format!("  ▌ {text}")),
            Observation::Stderr { text } => self.paint("2", &format!("  stderr: {text}")),
            Observation::Rpc { event } => self.paint("2", &format!("  rpc: {event}")),
            Observation::Editor { text } => self.paint("36", &format!("  editor: {text}")),
            Observation::Panel {
                ext,
                id,
                title,
                lines,
                footer,
                event,
            } => self.panel(&format!("{ext}:{id} {event}"), title, lines, footer),
            Observation::PanelClosed { ext, id, by } => {
                self.paint("2", &format!("  panel {ext}:{id} closed by {by}"))
            }
            _ => unreachable!("render sends only its own observations to surface_line"),
        }
    }

    /// A panel as a box: its title, its lines, its footer; `label` says
    /// whose panel it is and what happened to it.
    fn panel(&self, label: &str, title: &str, lines: &[String], footer: &str) -> String {
        let width = lines
            .iter()
            .map(|l| l.chars().count())
            .chain([title.chars().count() + 2, footer.chars().count()])
            .max()
            .unwrap_or(0)
            .max(20);
        let mut out = vec![self.paint(
            "36",
            &format!(
                "  ┌─ {title} ─{}┐ ({label})",
                "─".repeat(width.saturating_sub(title.chars().count() + 2))
            ),
        )];
        for l in lines {
            out.push(format!(
                "  │ {l}{} │",
                " ".repeat(width - l.chars().count())
            ));
        }
        if !footer.is_empty() {
            out.push(self.paint(
                "2",
                &format!(
                    "  │ {footer}{} │",
                    " ".repeat(width - footer.chars().count())
                ),
            ));
        }
        out.push(self.paint("36", &format!("  └{}┘", "─".repeat(width + 2))));
        out.join("\n")
    }
}

/// Every line of `s` behind `pre`.
fn indent(s: &str, pre: &str) -> String {
    s.lines()
        .map(|l| format!("{pre}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a person reads of a long tool result: lines over 200 characters are
/// cut, and after 20 lines the rest is counted instead of printed. (`--json`
/// keeps the whole text.)
fn clip_for_reading(text: &str) -> String {
    const MAX_LINE: usize = 200;
    const MAX_LINES: usize = 20;
    let mut out = Vec::new();
    let total = text.lines().count();
    for line in text.lines().take(MAX_LINES) {
        match line.char_indices().nth(MAX_LINE) {
            Some((cut, _)) => out.push(format!("{}… ({} bytes)", &line[..cut], line.len())),
            None => out.push(line.to_owned()),
        }
    }
    if total > MAX_LINES {
        out.push(format!("… ({} more lines)", total - MAX_LINES));
    }
    out.join("\n")
}

#[cfg(test)]
mod watch_tests {
    use super::*;

    fn sample() -> Vec<Observation> {
        vec![
            Observation::User {
                text: "héllo \"quoted\"".into(),
                queued: false,
                from: "user".into(),
            },
            Observation::Note {
                ext: "e".into(),
                level: "info".into(),
                text: "a note".into(),
            },
            Observation::NotesDropped {
                ext: "e".into(),
                count: 7,
            },
        ]
    }

    /// Every substring of the JSON array (up to 40 bytes, at every start)
    /// is found exactly when the whole text contains it, whether the
    /// transcript keeps its observations or streams them.
    #[test]
    fn streaming_checks_agree_with_the_whole_text() {
        let obs = sample();
        for n in 0..=obs.len() {
            let text = serde_json::to_string(&obs[..n]).unwrap();
            let mut patterns: Vec<String> = Vec::new();
            for start in 0..text.len() {
                for len in [1, 2, 5, 13, 40] {
                    if let Some(p) = text.get(start..start + len) {
                        patterns.push(p.to_owned());
                    }
                }
            }
            patterns.extend(["absent".into(), "}{".into(), "]]".into(), "[[".into()]);
            for t in [Transcript::new(), Transcript::streaming(|_| {})] {
                t.watch(patterns.clone());
                for o in &obs[..n] {
                    t.push(o.clone());
                }
                for p in &patterns {
                    assert_eq!(
                        t.contains(p),
                        Some(text.contains(p.as_str())),
                        "{p:?} in {text}"
                    );
                }
                assert_eq!(t.contains("never watched"), None);
            }
        }
    }

    #[test]
    fn a_streaming_transcript_keeps_nothing_and_a_kept_one_replays_late_patterns() {
        let streaming = Transcript::streaming(|_| {});
        let kept = Transcript::new();
        for o in sample() {
            streaming.push(o.clone());
            kept.push(o);
        }
        assert_eq!((streaming.retained(), streaming.len()), (0, 3));
        assert!(streaming.snapshot().is_empty());
        assert_eq!((kept.retained(), kept.len()), (3, 3));
        kept.watch(["a note"]);
        assert_eq!(kept.contains("a note"), Some(true));
    }

    #[test]
    fn dropped_notes_read_as_a_count() {
        let r = Renderer::new(false).render(&sample()[2]);
        assert_eq!(
            r,
            format!(
                "  [e] 7 older notes left the notes area (it keeps the last {})",
                crate::session::notes::MAX_NOTES_PER_EXT
            )
        );
    }
}

#[cfg(test)]
mod clip_tests {
    #[test]
    fn long_results_are_clipped_for_reading_only() {
        let long = "x".repeat(5000);
        assert_eq!(
            super::clip_for_reading(&long),
            format!("{}… (5000 bytes)", "x".repeat(200))
        );
        let many: String = (1..=25).map(|i| format!("{i}\n")).collect();
        let clipped = super::clip_for_reading(&many);
        assert!(clipped.ends_with("20\n… (5 more lines)"), "{clipped}");
        assert_eq!(super::clip_for_reading("short"), "short");
    }
}
