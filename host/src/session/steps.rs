//! Running a script's steps: one step's action (what a user or the
//! session does, or what a test drives the host with), its expectations,
//! and the waits for extension frames attached to it.

use crate::session::engine::SessionEngine;
use crate::session::script::{Step, WaitSpec};
use crate::session::waits::NotSeen;
use crate::transcript::Observation;

/// What a step produced besides observations.
#[derive(Debug, Clone, Default)]
pub enum StepOutput {
    /// Nothing.
    #[default]
    None,
    /// The outcome of a `call` step.
    Tool(crate::session::tools::invoke::ToolOutput),
    /// The verdict of an `intercept` step.
    Verdict(crate::session::payload::Verdict),
}

impl SessionEngine {
    /// Runs one script step; a `call` step gives the tool's output, an
    /// `intercept` step its verdict.
    pub async fn step(&self, i: usize, s: &Step) -> StepOutput {
        let wait_from = self.waits.begin_step(s.actions() == 0);
        if let Some(r) = &s.replies {
            self.replies.queue(r.iter().cloned());
        }
        let out = if self.session_action(s).await {
            StepOutput::None
        } else {
            self.check_action(i, s).await
        };
        if let Some(w) = &s.wait {
            self.wait_for(w, wait_from).await;
        }
        out
    }

    /// The step's action if it is one a user or the session takes (a
    /// prompt, a command, a key, a confirmation answer, compaction, a
    /// subagent, a switch, a reload...): whether it was one.
    pub(super) async fn session_action(&self, s: &Step) -> bool {
        if let Some(p) = &s.prompt {
            self.replies.set_first_step(s.first_step);
            self.run_prompt(p.clone(), "user".into(), s.images, false)
                .await;
        } else if let Some(c) = &s.command {
            self.run_command(c).await;
        } else if let Some(k) = &s.key {
            self.panel_key(k, s.text.as_deref().unwrap_or(""));
        } else if let Some(a) = &s.confirm {
            self.answers.queue_confirms(a.to_vec());
        } else if let Some(c) = &s.compact {
            self.compact(c);
        } else if let Some(a) = &s.subagent {
            self.subagent(a);
        } else if let Some(m) = &s.model {
            self.switch_model(m);
        } else if let Some(sw) = &s.session {
            self.switch_session(sw);
        } else if s.clear.is_some() {
            self.clear();
        } else if s.reload.is_some() {
            self.reload().await;
        } else if let Some(name) = &s.restart {
            self.restart_ext(name).await;
        } else if s.tools.is_some() {
            let names = self.extensions.advertised();
            self.observe(Observation::Tools { names });
        } else {
            return false;
        }
        true
    }

    /// The step's action if it is one a test drives the host with (an
    /// expectation, a direct call, an event or interception fired, a stub,
    /// a queued answer, a pause), and what it produced.
    pub(super) async fn check_action(&self, i: usize, s: &Step) -> StepOutput {
        if let Some(e) = &s.expect {
            self.check_expect(i, e);
        } else if let Some(c) = &s.codemode {
            self.codemode_call(c).await;
        } else if let Some(c) = &s.call {
            return StepOutput::Tool(self.direct_call(c).await.output);
        } else if let Some(e) = &s.emit {
            if let Err(e) = self.fire_event(e) {
                self.fail_check(format!("steps[{i}]: {e}"));
            }
        } else if let Some(r) = &s.intercept {
            match self.fire_intercept(r).await {
                Ok(v) => return StepOutput::Verdict(v),
                Err(e) => self.fail_check(format!("steps[{i}]: {e}")),
            }
        } else if let Some(name) = &s.stub {
            self.set_stub(name, true);
        } else if let Some(name) = &s.unstub {
            self.set_stub(name, false);
        } else if let Some(a) = &s.answer {
            self.queue_answer(a.clone());
        } else if let Some(ms) = s.sleep_ms {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
        StepOutput::None
    }

    /// Step `i`'s expectation on the transcript so far.
    pub(super) fn check_expect(&self, i: usize, e: &crate::session::script::Expect) {
        // `run_script` registered these before the session; a step run
        // on its own registers them now (a transcript that keeps its
        // observations replays them).
        let transcript = &self.extensions.shared().transcript;
        transcript.watch(e.contains.iter().chain(&e.not_contains).cloned());
        let has = |c: &String| transcript.contains(c).unwrap_or(false);
        for c in &e.contains {
            if !has(c) {
                self.fail_check(format!("steps[{i}]: transcript does not contain {c:?}"));
            }
        }
        for c in &e.not_contains {
            if has(c) {
                self.fail_check(format!("steps[{i}]: transcript contains {c:?}"));
            }
        }
    }

    /// The position of the next frame read (a reference point for
    /// [`SessionEngine::wait_for`]).
    pub fn seen_mark(&self) -> u64 {
        self.waits.mark()
    }

    /// Waits for (and consumes) the first matching frame at or after position
    /// `from` that no earlier wait consumed.
    ///
    /// Frames of a type the script does not wait for are not kept, so a
    /// wait outside the script matches only frames read from its first call.
    pub async fn wait_for(&self, w: &WaitSpec, from: u64) -> bool {
        let timeout = std::time::Duration::from_millis(w.timeout_ms.unwrap_or(10_000));
        let deadline = crate::deadline::Deadline::after(timeout);
        let Err(NotSeen { dropped }) = self.waits.wait(w, from, deadline).await else {
            return true;
        };
        let bounds = if dropped > 0 {
            format!(
                " ({dropped} earlier frames went unmatched: waits keep at most {} frames)",
                crate::session::waits::MAX_FRAMES
            )
        } else {
            String::new()
        };
        self.fail_check(format!(
            "no {:?} frame{} within {timeout:?}{bounds}",
            w.frame_type,
            w.ext
                .as_ref()
                .map(|e| format!(" from {e}"))
                .unwrap_or_default()
        ));
        false
    }
}
