//! The host's ids of the requests in flight (`tool_call`,
//! `command_invoked`, `event_intercept`): for `tool_cancel`, and to refuse a
//! second request with the id of one still running.
//!
//! A duplicate is answered at once with an error and never run (issue 13):
//! running it too would give the host two replies with one id, and a
//! `tool_cancel` could reach only one of the two. The running request is
//! left alone. Each kind has its own ids, since each has its own reply
//! frame; events and panel input carry no request id. A request that was
//! cancelled or whose interception deadline passed no longer holds its id:
//! nothing more is sent for it, so a new request with that id is unambiguous
//! and runs.

use crate::runtime::fast_hash::FastMap;
use crate::{OpenJob, OpenKind};

/// The requests that carry an id the extension answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdKind {
    Tool,
    Command,
    Intercept,
}

impl IdKind {
    pub(crate) fn of(kind: &OpenKind) -> Option<Self> {
        match kind {
            OpenKind::Tool => Some(Self::Tool),
            OpenKind::Command => Some(Self::Command),
            OpenKind::Intercept(_) => Some(Self::Intercept),
            OpenKind::Serial(_) => None,
        }
    }
}

#[derive(Default)]
pub(crate) struct RequestIds {
    tools: FastMap<String, u64>,
    commands: FastMap<String, u64>,
    intercepts: FastMap<String, u64>,
}

impl RequestIds {
    fn of(&self, kind: IdKind) -> &FastMap<String, u64> {
        match kind {
            IdKind::Tool => &self.tools,
            IdKind::Command => &self.commands,
            IdKind::Intercept => &self.intercepts,
        }
    }

    fn of_mut(&mut self, kind: IdKind) -> &mut FastMap<String, u64> {
        match kind {
            IdKind::Tool => &mut self.tools,
            IdKind::Command => &mut self.commands,
            IdKind::Intercept => &mut self.intercepts,
        }
    }

    /// The job of the `tool_call` `id`, if it is open.
    pub(crate) fn tool(&self, id: &str) -> Option<u64> {
        self.tools.get(id).copied()
    }

    /// Whether a request of `kind` with `id` still runs (open and not
    /// cancelled).
    pub(crate) fn running(&self, kind: IdKind, id: &str, jobs: &FastMap<u64, OpenJob>) -> bool {
        self.of(kind)
            .get(id)
            .and_then(|job| jobs.get(job))
            .is_some_and(|j| !j.token.is_cancelled())
    }

    /// Records `job` as the request `id` of `kind` (replacing a cancelled
    /// one, see the module docs).
    pub(crate) fn insert(&mut self, kind: IdKind, id: String, job: u64) {
        self.of_mut(kind).insert(id, job);
    }

    /// Forgets `id` if it still names `job` (a later request may have taken
    /// it over).
    pub(crate) fn remove(&mut self, kind: IdKind, id: &str, job: u64) {
        let ids = self.of_mut(kind);
        if ids.get(id) == Some(&job) {
            ids.remove(id);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.tools.clear();
        self.commands.clear();
        self.intercepts.clear();
    }
}
