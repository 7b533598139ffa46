//! What a person answers tool calls with, under one lock: the confirmation
//! policy, the default answer, the tools approved with "remember" and the
//! answers `confirm` steps queued (HOST-140); stub tools and the replies
//! typed for their calls (`stub`, `unstub` and `answer` steps, or the
//! inspector); and the cancel handles of direct calls in flight. Whoever
//! waits for an answer is woken by one notification, also when shutdown
//! begins.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use zot_protocol::{RawJson, ToolResult, ToolStatus};

use crate::session::script::{ConfirmAnswer, ConfirmPolicy, StubAnswer};
use crate::session::tools::invoke::ToolOutput;

/// The answers part of the tool pipeline.
pub(crate) struct Answers {
    desk: Mutex<Desk>,
    /// Woken when answers are queued or shutdown begins.
    arrived: Notify,
}

struct Desk {
    policy: ConfirmPolicy,
    /// Answer when nothing is queued; `None`: wait for a `confirm` step.
    default_answer: Option<ConfirmAnswer>,
    /// Tools approved with "remember".
    remembered: HashSet<String>,
    /// Answers queued by `confirm` steps.
    confirms: VecDeque<ConfirmAnswer>,
    /// Tools whose calls a person answers.
    stubs: BTreeSet<String>,
    /// Replies typed for the next calls of each stub tool.
    replies: HashMap<String, VecDeque<StubAnswer>>,
    /// Direct calls in flight, by a key of their own.
    running: HashMap<u64, CancellationToken>,
    next_running: u64,
}

impl Answers {
    /// The answers of a session with this policy and default answer.
    pub(crate) fn new(policy: ConfirmPolicy, default_answer: Option<ConfirmAnswer>) -> Self {
        Self {
            desk: Mutex::new(Desk {
                policy,
                default_answer,
                remembered: HashSet::new(),
                confirms: VecDeque::new(),
                stubs: BTreeSet::new(),
                replies: HashMap::new(),
                running: HashMap::new(),
                next_running: 0,
            }),
            arrived: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Desk> {
        self.desk.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes every wait for an answer (shutdown began: they look again and
    /// give up).
    pub(crate) fn wake_all(&self) {
        self.arrived.notify_waiters();
    }

    /// The policy, and whether `tool` was approved with "remember".
    pub(crate) fn rule_for(&self, tool: &str) -> (ConfirmPolicy, bool) {
        let d = self.lock();
        (d.policy, d.remembered.contains(tool))
    }

    /// Calls of `tool` are approved from now on.
    pub(crate) fn remember(&self, tool: &str) {
        self.lock().remembered.insert(tool.to_owned());
    }

    /// Queues the answers of a `confirm` step.
    pub(crate) fn queue_confirms(&self, answers: impl IntoIterator<Item = ConfirmAnswer>) {
        self.lock().confirms.extend(answers);
        self.arrived.notify_waiters();
    }

    /// The next queued confirmation answer, else the default one; with the
    /// default `wait`, waits for a `confirm` step (denied once `closing`
    /// says shutdown began).
    pub(crate) async fn next_confirm(&self, closing: impl Fn() -> bool) -> ConfirmAnswer {
        loop {
            let notified = self.arrived.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let default = {
                let mut d = self.lock();
                if let Some(a) = d.confirms.pop_front() {
                    return a;
                }
                d.default_answer
            };
            if let Some(a) = default {
                return a;
            }
            if closing() {
                return ConfirmAnswer::Deny;
            }
            notified.await;
        }
    }

    /// Declares (or withdraws) a stub tool.
    pub(crate) fn set_stub(&self, name: &str, on: bool) {
        let mut d = self.lock();
        if on {
            d.stubs.insert(name.to_owned());
        } else {
            d.stubs.remove(name);
        }
    }

    /// Whether calls of `name` are answered by hand.
    pub(crate) fn is_stub(&self, name: &str) -> bool {
        self.lock().stubs.contains(name)
    }

    /// The stub tool names.
    pub(crate) fn stubs(&self) -> Vec<String> {
        self.lock().stubs.iter().cloned().collect()
    }

    /// Queues the reply to the next call of a stub tool and wakes a call
    /// that waits for it.
    pub(crate) fn queue_reply(&self, a: StubAnswer) {
        self.lock()
            .replies
            .entry(a.tool.clone())
            .or_default()
            .push_back(a);
        self.arrived.notify_waiters();
    }

    /// Executes a call of a stub tool: the first queued reply for it, or
    /// the next one queued, unless the call is cancelled, its deadline
    /// passes or shutdown begins first (`closing`).
    pub(crate) async fn stub_call(
        &self,
        name: &str,
        cancel: &CancellationToken,
        deadline: Option<Duration>,
        closing: impl Fn() -> bool,
    ) -> ToolOutput {
        let wait = async {
            loop {
                let notified = self.arrived.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let next = self
                    .lock()
                    .replies
                    .get_mut(name)
                    .and_then(VecDeque::pop_front);
                if let Some(a) = next {
                    return Some(a);
                }
                if closing() {
                    return None;
                }
                notified.await;
            }
        };
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            a = wait => match a {
                Some(a) => reply_output(name, a),
                None => ToolOutput::error(format!("stub {name}: the session ended before an answer"), ToolStatus::Failed, false),
            },
            _ = cancel.cancelled() => ToolOutput::error(format!("stub {name}: cancelled"), ToolStatus::Cancelled, true),
            _ = sleep => ToolOutput::error(format!("stub {name}: timed out after {deadline:?}"), ToolStatus::TimedOut, true),
        }
    }

    /// Keeps the cancel handle of a direct call in flight; the key takes
    /// it back ([`Answers::untrack`]).
    pub(crate) fn track(&self, cancel: CancellationToken) -> u64 {
        let mut d = self.lock();
        let key = d.next_running;
        d.next_running += 1;
        d.running.insert(key, cancel);
        key
    }

    /// The direct call of `key` is over.
    pub(crate) fn untrack(&self, key: u64) {
        self.lock().running.remove(&key);
    }

    /// Cancels every direct call in flight; whether any was running.
    pub(crate) fn cancel_direct_calls(&self) -> bool {
        let running = std::mem::take(&mut self.lock().running);
        for t in running.values() {
            t.cancel();
        }
        !running.is_empty()
    }
}

/// Converts a hand-typed reply the way an extension's result is converted.
fn reply_output(name: &str, a: StubAnswer) -> ToolOutput {
    let mut content = Vec::new();
    if let Some(t) = a.text {
        content.push(zot_protocol::ContentBlock::text(t));
    }
    content.extend(a.content);
    crate::session::tools::invoke::convert(
        "stub",
        name,
        ToolResult {
            id: String::new(),
            content,
            is_error: a.is_error,
            activate_tools: Vec::new(),
            structured_content: a.structured_content.map(RawJson::from),
        },
    )
}
