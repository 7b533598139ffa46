//! The session engine as the tool pipeline sees it
//! ([`crate::session::tools::pipeline::ToolSession`]), and the engine's
//! entry to the pipeline ([`SessionEngine::run_tool`]) that the agent loop,
//! `call_tool`, what a person does by hand and embedding callers share.

use crate::session::engine::SessionEngine;
use crate::session::extensions::Extensions;
use crate::session::fanout::Fanout;
use crate::session::script::{KeyPress, WaitSpec};
use crate::session::tools::answers::Answers;
use crate::session::tools::pipeline::{self, ToolSession};
use crate::session::tools::request::{ToolRequest, ToolRun, WhileRunning};

impl ToolSession for SessionEngine {
    fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    fn fanout(&self) -> &Fanout {
        &self.fanout
    }

    fn answers(&self) -> &Answers {
        &self.answers
    }

    fn interactive(&self) -> bool {
        self.mode().is_interactive()
    }

    fn is_closing(&self) -> bool {
        SessionEngine::is_closing(self)
    }

    fn seen_mark(&self) -> u64 {
        SessionEngine::seen_mark(self)
    }

    async fn wait_for(&self, w: &WaitSpec, from: u64) -> bool {
        SessionEngine::wait_for(self, w, from).await
    }

    async fn press_keys(&self, keys: &[KeyPress], ext: &str, from: u64) {
        SessionEngine::press_keys(self, keys, ext, from).await;
    }
}

impl SessionEngine {
    /// Runs one tool call through the whole pipeline.
    pub async fn run_tool(&self, req: ToolRequest) -> ToolRun {
        self.run_tool_while(req, WhileRunning::default()).await
    }

    /// Runs one tool call through the whole pipeline while the scripted user
    /// works its panel.
    pub(crate) async fn run_tool_while(&self, req: ToolRequest, user: WhileRunning) -> ToolRun {
        pipeline::run(self, req, user).await
    }
}
