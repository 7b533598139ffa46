//! The model's side of the conversation: the replies the script queued
//! for the scripted model and the step number the next prompt's agent loop
//! starts at, or the live model that answers instead and who is told each
//! of its turns.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::model::LiveModel;
use crate::session::script::Turn;

/// What [`Replies::on_live_turn`] calls with each live turn (its script
/// form).
pub type ModelTurnHook = Arc<dyn Fn(&serde_json::Value) + Send + Sync>;

/// Where the model's turns come from.
#[derive(Default)]
pub(crate) struct Replies {
    scripted: Mutex<Scripted>,
    live: OnceLock<Arc<LiveModel>>,
}

#[derive(Default)]
struct Scripted {
    /// Replies queued by `replies` steps, in order.
    turns: VecDeque<Turn>,
    /// The step number the next agent loop starts at (`first_step`).
    first_step: Option<u32>,
    /// Told each live model turn.
    hook: Option<ModelTurnHook>,
}

impl Replies {
    fn lock(&self) -> MutexGuard<'_, Scripted> {
        self.scripted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues scripted replies.
    pub(crate) fn queue(&self, turns: impl IntoIterator<Item = Turn>) {
        self.lock().turns.extend(turns);
    }

    /// The next scripted reply (an empty turn when none is left).
    pub(crate) fn next_scripted(&self) -> Turn {
        self.lock().turns.pop_front().unwrap_or_default()
    }

    /// The step number the next agent loop starts at (`None`: 1).
    pub(crate) fn set_first_step(&self, step: Option<u32>) {
        self.lock().first_step = step;
    }

    /// The step number this agent loop starts at; later loops start at 1.
    pub(crate) fn take_first_step(&self) -> u32 {
        self.lock().first_step.take().unwrap_or(1)
    }

    /// Turns come from `model` from now on (the first one set stays).
    pub(crate) fn use_live(&self, model: Arc<LiveModel>) {
        let _ = self.live.set(model);
    }

    /// The live model, if one answers.
    pub(crate) fn live(&self) -> Option<&Arc<LiveModel>> {
        self.live.get()
    }

    /// Calls `hook` with each turn of the live model.
    pub(crate) fn on_live_turn(&self, hook: ModelTurnHook) {
        self.lock().hook = Some(hook);
    }

    /// Who is told a live turn.
    pub(crate) fn live_turn_hook(&self) -> Option<ModelTurnHook> {
        self.lock().hook.clone()
    }
}
