//! Slash commands (§10): running one typed by the user or submitted by an
//! extension, the built-in ones, invoking an extension's (§10.1,
//! HOST-44..47, OP-31), and applying its response's action by host mode
//! (§10.2, §14.4).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use zot_protocol::{CommandAction, CommandInvoked, CommandResponse, HostFrame};

use crate::config::HostMode;
use crate::process::extension::{LoadedExtension, Reply};
use crate::process::outbound::Expired;
use crate::process::registry::BUILTIN_COMMANDS;
use crate::process::shared::Shared;
use crate::session::engine::SessionEngine;
use crate::transcript::Observation;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Splits `/name rest` into the name and the trimmed rest (HOST-44).
pub fn split_command(input: &str) -> (String, String) {
    let s = input.trim().trim_start_matches('/');
    match s.split_once(char::is_whitespace) {
        Some((n, rest)) => (n.to_owned(), rest.trim().to_owned()),
        None => (s.to_owned(), String::new()),
    }
}

/// Sends `command_invoked` to the owner and waits for the response. `Err`
/// holds the status-line error text.
pub async fn invoke(
    shared: &Arc<Shared>,
    ext: &Arc<LoadedExtension>,
    canonical: &str,
    args: &str,
) -> Result<CommandResponse, String> {
    if !ext.is_connected() {
        // OP-31: fail at once instead of waiting 30 s.
        return Err(format!(
            "extension /{canonical}: extension {} disconnected",
            ext.name
        ));
    }
    let id = shared.next_id();
    let rx = ext.expect_reply(&id, crate::process::extension::ReplyKind::Command);
    let frame = HostFrame::CommandInvoked(CommandInvoked {
        id: id.clone(),
        name: canonical.to_owned(),
        args: args.to_owned(),
    });
    let ticket = match ext.outbound.request(&frame) {
        Ok(t) => t,
        Err(e) => {
            ext.forget_reply(&id);
            return Err(format!("extension /{canonical}: write: {e}"));
        }
    };
    let t = &shared.cfg.timeouts;
    let ticket_id = ticket.id;
    match crate::deadline::timeout(t.write, ticket.written).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => {
            ext.forget_reply(&id);
            return Err(format!("extension /{canonical}: write: {e}"));
        }
        Ok(Err(_)) => {
            ext.forget_reply(&id);
            return Err(format!(
                "extension /{canonical}: write: extension {} disconnected",
                ext.name
            ));
        }
        Err(_) => {
            ext.forget_reply(&id);
            if let Expired::NoRoom(why) = ext.outbound.expire(ticket_id, t.write) {
                return Err(format!("extension /{canonical}: {why}"));
            }
            ext.disconnect(shared, "command_invoked write timed out");
            return Err(format!("extension /{canonical}: write: timed out"));
        }
    }
    let res = crate::deadline::timeout(t.command, rx).await;
    ext.forget_reply(&id);
    match res {
        Err(_) => Err(format!(
            "extension /{canonical}: timeout waiting for {}/{canonical}",
            ext.name
        )),
        Ok(Err(_)) => Err(format!(
            "extension /{canonical}: extension {} disconnected",
            ext.name
        )),
        Ok(Ok(Reply::Command(r))) => Ok(r),
        Ok(Ok(Reply::Malformed(e))) => {
            Err(format!("extension /{canonical}: malformed response: {e}"))
        }
        Ok(Ok(other)) => Err(format!(
            "extension /{canonical}: unexpected reply {other:?}"
        )),
    }
}

impl SessionEngine {
    /// Runs a slash command typed by the user or submitted by an extension.
    pub async fn run_command(&self, input: &str) {
        self.observe(Observation::Command {
            text: input.trim().to_owned(),
        });
        let (name, args) = crate::session::commands::split_command(input);
        let key = zot_protocol::validate::command_key(&name);
        if BUILTIN_COMMANDS.contains(&key.as_str()) {
            return self.builtin_command(&key).await;
        }
        let Some(reg) = self.extensions.command(&name) else {
            return self.status("error", format!("unknown command /{name}"));
        };
        let Some(ext) = self.extensions.get(&reg.ext) else {
            return self.status("error", format!("unknown command /{name}"));
        };
        match crate::session::commands::invoke(self.extensions.shared(), &ext, &reg.name, &args)
            .await
        {
            Err(e) => self.status("error", e),
            Ok(r) => self.apply_response(&ext, &reg.name, r).await,
        }
    }

    pub(super) async fn builtin_command(&self, key: &str) {
        match key {
            "help" => {
                let text = self.extensions.help().join("\n");
                self.observe(Observation::Display {
                    ext: "zot".into(),
                    text,
                });
            }
            "reload-ext" => self.reload().await,
            "new" => {
                let id = format!("session-{}", self.next_n() + 1);
                self.switch_session(&crate::session::script::SessionSwitch { id, cwd: None });
            }
            "exit" => self.exit.store(true, Ordering::SeqCst),
            _ => {}
        }
    }

    /// Applies a `command_response` by mode (§10.2, §14.4, HOST-48..61).
    pub(super) async fn apply_response(
        &self,
        ext: &Arc<LoadedExtension>,
        cmd: &str,
        r: CommandResponse,
    ) {
        if !r.error.is_empty() {
            // OP-7: show the error, do not apply the action.
            return self.status("error", format!("/{cmd}: {}", r.error));
        }
        let mode = self.mode();
        match &r.action {
            CommandAction::Prompt => {
                if !r.prompt.trim().is_empty() {
                    self.run_prompt(r.prompt.clone(), ext.name.clone(), 0, false).await;
                }
            }
            CommandAction::ToolPrompt => {
                if !mode.is_interactive() {
                    return self.status(
                        "error",
                        format!("extension /{cmd}: tool_prompt requires an interactive host"),
                    );
                }
                if let Err(e) = zot_protocol::validate::validate_tool_prompt(
                    &r.prompt,
                    &r.tool_name,
                    r.tool_args.as_ref(),
                ) {
                    // OP-19: error status, nothing submitted or run.
                    return self.status("error", format!("extension /{cmd}: {e}"));
                }
                let args = r.tool_args.clone().unwrap_or_else(zot_protocol::RawJson::empty_object);
                self.run_tool_prompt(ext, r.prompt.clone(), r.tool_name.clone(), args).await;
            }
            CommandAction::Insert => {
                if mode.is_interactive() {
                    let text = {
                        let mut screen = lock(&self.screen);
                        screen.editor.push_str(&r.insert);
                        screen.editor.clone()
                    };
                    self.observe(Observation::Editor { text });
                }
            }
            CommandAction::Display => match mode {
                HostMode::Interactive => {
                    lock(&self.screen).notes.push(&ext.name, &r.display);
                    self.observe(Observation::Display {
                        ext: ext.name.clone(),
                        text: r.display.clone(),
                    });
                }
                HostMode::Rpc => self.observe(Observation::Rpc {
                    event: serde_json::json!({"type": "ext_display", "extension": ext.name, "text": r.display}),
                }),
                _ => {}
            },
            CommandAction::OpenPanel => {
                if mode.is_interactive() {
                    match r.open_panel.clone() {
                        Some(spec) => self.open_panel(ext, spec),
                        None => self.status("error", format!("extension /{cmd}: open_panel without a panel")),
                    }
                }
            }
            CommandAction::Noop => {}
            CommandAction::Other(a) if a.is_empty() => {}
            CommandAction::Other(a) => {
                self.status("error", format!("extension /{cmd}: unknown action {a}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_name_and_trimmed_args() {
        assert_eq!(
            split_command("/Greet  bob  "),
            ("Greet".into(), "bob".into())
        );
        assert_eq!(split_command("/x"), ("x".into(), String::new()));
    }
}
