//! Invoking an extension slash command (§10.1, HOST-44..47, OP-31).
//! Applying the response's action is the session's job
//! ([`crate::session::engine::SessionEngine`]), because it depends on the host mode.

use std::sync::Arc;

use zot_protocol::{CommandInvoked, CommandResponse, HostFrame};

use crate::process::extension::{LoadedExtension, Reply};
use crate::process::outbound::Expired;
use crate::process::shared::Shared;

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
    match tokio::time::timeout(t.write, ticket.written).await {
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
    let res = tokio::time::timeout(t.command, rx).await;
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
