//! The session and its conversation: its id, cwd and model and their
//! switches (`session_end` / `session_start`), compaction and subagent
//! runs with their events, and `/clear`.

use zot_protocol::{
    LifecycleEvent, PostCompactEvent, PreCompactEvent, RunStatus, SessionEndReason,
    SubagentStartEvent, SubagentStopEvent,
};

use crate::session::engine::SessionEngine;
use crate::session::fanout::Place;
use crate::session::message::{Conversation, Message};
use crate::transcript::Observation;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SessionEngine {
    /// The session's id, cwd, mode, provider and model, as JSON.
    pub fn session_info(&self) -> serde_json::Value {
        let place = self.fanout.place();
        let st = lock(&self.dialogue);
        serde_json::json!({
            "id": place.session_id,
            "cwd": place.cwd.display().to_string(),
            "mode": self.mode().as_str(),
            "provider": st.provider,
            "model": st.model,
            "active": self.is_active(),
        })
    }

    /// The conversation's size so far.
    pub fn conversation(&self) -> Conversation {
        lock(&self.dialogue).conversation
    }

    /// Message count and token estimate (serialized text bytes ÷ 4, HOST-143).
    pub(super) fn conversation_size(&self) -> (u64, u64) {
        let c = lock(&self.dialogue).conversation;
        (c.messages, c.token_estimate())
    }

    pub(super) fn compact(&self, c: &crate::session::script::Compact) {
        let id = format!("compact-{}", self.next_n());
        let (count, tokens) = self.conversation_size();
        self.emit(LifecycleEvent::PreCompact(PreCompactEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            compaction_id: id.clone(),
            message_count: Some(count),
            token_estimate: Some(tokens),
        }));
        let status = RunStatus::from(c.status.as_deref().unwrap_or("completed"));
        if status == RunStatus::Completed {
            let summary = c
                .summary
                .clone()
                .unwrap_or_else(|| "(summary of the conversation)".into());
            let mut st = lock(&self.dialogue);
            st.forget_conversation();
            st.converse(Message::Summary(summary));
        }
        let (count, tokens) = self.conversation_size();
        self.emit(LifecycleEvent::PostCompact(PostCompactEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            status: status.clone(),
            compaction_id: id.clone(),
            message_count: Some(count),
            token_estimate: Some(tokens),
            error: c.error.clone(),
        }));
        self.observe(Observation::Compaction {
            compaction_id: id,
            status: status.to_string(),
            message_count: count,
        });
    }

    pub(super) fn subagent(&self, a: &crate::session::script::Subagent) {
        let agent_id = a.agent_id.clone().unwrap_or_else(|| "agent-1".into());
        let run = format!("subagent-run-{}", self.next_n());
        self.emit(LifecycleEvent::SubagentStart(SubagentStartEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            agent_run_id: run.clone(),
            agent_id: agent_id.clone(),
            name: agent_id.clone(),
        }));
        let status = RunStatus::from(a.status.as_deref().unwrap_or("completed"));
        self.emit(LifecycleEvent::SubagentStop(SubagentStopEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            agent_run_id: run,
            status: status.clone(),
            agent_id: agent_id.clone(),
            name: agent_id.clone(),
            error: a.error.clone(),
        }));
        self.observe(Observation::Subagent {
            agent_id,
            status: status.to_string(),
        });
    }

    pub(super) fn switch_model(&self, m: &crate::session::script::ModelSwitch) {
        let (provider, model) = {
            let mut st = lock(&self.dialogue);
            if let Some(p) = &m.provider {
                st.provider = p.clone();
            }
            st.model = m.model.clone();
            st.prompt = None; // HOST-120: a new pass before the next model call.
            (st.provider.clone(), st.model.clone())
        };
        self.observe(Observation::Model { provider, model });
    }

    pub(super) fn switch_session(&self, sw: &crate::session::script::SessionSwitch) {
        let cwd = self.fanout.cwd();
        let (reason, new_cwd) = match &sw.cwd {
            Some(c) => {
                let p = cwd.join(c);
                if p != cwd {
                    (SessionEndReason::CwdChange, p)
                } else {
                    (SessionEndReason::SessionSwitch, p)
                }
            }
            None => (SessionEndReason::SessionSwitch, cwd),
        };
        self.end_session(reason);
        self.fanout.move_to(Place {
            session_id: sw.id.clone(),
            cwd: new_cwd,
        });
        {
            let mut st = lock(&self.dialogue);
            st.forget_conversation();
            st.prompt = None;
        }
        self.start_session();
    }

    pub(super) fn clear(&self) {
        {
            let mut st = lock(&self.dialogue);
            st.forget_conversation();
            st.prompt = None;
        }
        self.clear_notes();
        self.observe(Observation::Status {
            level: "info".into(),
            text: "conversation cleared".into(),
        });
    }
}
