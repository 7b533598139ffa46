//! The MCP client side: what the MCP server may send us unasked (progress,
//! log messages, list changes) and who it goes to.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    ClientInfo, Implementation, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken,
};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::ClientHandler;
use zot_ext::{Ctx, ExtHandle, NotifyLevel};

/// State shared by the MCP client handler and the zot tool handlers.
#[derive(Default)]
pub struct Shared {
    /// The extension, once built (the MCP session starts before it).
    pub ext: OnceLock<ExtHandle>,
    /// Calls running now, by the progress token sent with their request.
    calls: Mutex<HashMap<ProgressToken, Ctx>>,
    /// A list changed before the extension was built: list again.
    changed_at_start: AtomicBool,
}

impl Shared {
    /// Writes one line to the extension's log (stderr).
    pub fn log(&self, message: impl AsRef<str>) {
        match self.ext.get() {
            Some(ext) => ext.log(message),
            None => eprintln!("[zot-mcp] {}", message.as_ref()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, Ctx>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Routes the progress of `token` to `ctx`'s notes until the guard drops.
    pub fn track(self: &Arc<Self>, token: ProgressToken, ctx: Ctx) -> Tracked {
        self.lock().insert(token.clone(), ctx);
        Tracked {
            shared: self.clone(),
            token,
        }
    }
}

/// A call's progress routing; removed when the call ends.
pub struct Tracked {
    shared: Arc<Shared>,
    token: ProgressToken,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.shared.lock().remove(&self.token);
    }
}

/// The MCP client handler of `zot-mcp wrap`.
#[derive(Clone)]
pub struct Client(pub Arc<Shared>);

impl ClientHandler for Client {
    fn get_info(&self) -> ClientInfo {
        ClientInfo {
            client_info: Implementation {
                name: "zot-mcp".into(),
                title: None,
                version: env!("CARGO_PKG_VERSION").into(),
                icons: None,
                website_url: None,
            },
            ..ClientInfo::default()
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let ctx = self.0.lock().get(&params.progress_token).cloned();
        if let Some(ctx) = ctx {
            // A note is best-effort: the call may have just ended.
            let _ = ctx.notify(progress_text(&params), NotifyLevel::Info);
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let data = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let level = serde_json::to_value(params.level).unwrap_or_default();
        let level = level.as_str().unwrap_or("log");
        match &params.logger {
            Some(logger) => self.0.log(format!("mcp {level} {logger}: {data}")),
            None => self.0.log(format!("mcp {level}: {data}")),
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.list_changed("tool");
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.list_changed("prompt");
    }
}

impl Shared {
    /// The server's list of `what` changed: zot keeps what was registered
    /// at start (an extension registers before `ready`), so the user is
    /// told, in a note and in the log, to restart the extension.
    fn list_changed(&self, what: &str) {
        let Some(ext) = self.ext.get() else {
            // Nothing is registered yet (servers often add tools once
            // initialised): the set-up lists again.
            self.changed_at_start.store(true, Ordering::SeqCst);
            return;
        };
        let text = kept_note(what, &format!("{what}s"));
        self.log(&text);
        // Best effort: the note fails only once the session is over.
        let _ = ext.notify(text, NotifyLevel::Warn);
    }

    /// Whether a list changed during the set-up since the last call.
    pub fn take_changed_at_start(&self) -> bool {
        self.changed_at_start.swap(false, Ordering::SeqCst)
    }

    /// Once the extension is built: a change that came after the last
    /// listing is logged (before the handshake there is no note to show).
    pub fn log_late_change(&self) {
        if self.take_changed_at_start() {
            self.log(kept_note("tool or prompt", "tools and prompts"));
        }
    }
}

fn kept_note(what: &str, plural: &str) -> String {
    format!(
        "the MCP server's {what} list changed; zot keeps the {plural} registered at start \
         (restart the extension to pick up the change)"
    )
}

/// `progress 3/10: message`, as a note.
fn progress_text(p: &ProgressNotificationParam) -> String {
    let mut text = match p.total {
        Some(total) => format!("progress {}/{}", p.progress, total),
        None => format!("progress {}", p.progress),
    };
    if let Some(m) = p.message.as_deref().filter(|m| !m.is_empty()) {
        text.push_str(": ");
        text.push_str(m);
    }
    text
}
