//! `ask-user`: an interactive tool. It opens a panel with choices and waits
//! for the user (no host deadline in the interactive TUI); it ends when the
//! user picks a choice, dismisses the panel (Esc → `panel_close`), or the
//! host cancels the call (`tool_cancel`, shutdown, EOF), closing its panel
//! in every case.

use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio::sync::oneshot;
use zot_ext::{Extension, ToolOutput, ToolSpec};
use zot_protocol::{PanelKeyName, PanelRender, PanelSpec};

#[derive(Deserialize, schemars::JsonSchema)]
struct AskArgs {
    /// The question to show.
    question: String,
    /// The possible answers (at least one).
    choices: Vec<String>,
}

const FOOTER: &str = "↑/↓ choose · enter answer · esc dismiss";

fn lines(choices: &[String], selected: usize) -> Vec<String> {
    choices
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}{c}", if i == selected { "▸ " } else { "  " }))
        .collect()
}

fn extension() -> Extension {
    let spec = ToolSpec::new("ask_user", "Ask the user to choose one answer").interactive();
    Extension::new("ask-user", "0.1.0").tool_with(spec, |args: AskArgs, ctx| async move {
        if args.choices.is_empty() {
            return Ok(ToolOutput::error("choices must not be empty"));
        }
        // One panel per invocation.
        let panel = format!("ask-{}", ctx.id());
        let ext = ctx.ext().clone();
        let (tx, rx) = oneshot::channel::<Option<String>>();
        let tx = Arc::new(Mutex::new(Some(tx)));

        let (choices, keys_ext, keys_tx, id) =
            (args.choices.clone(), ext.clone(), tx.clone(), panel.clone());
        let mut selected = 0usize;
        ext.on_panel_key(&panel, move |key| {
            match key.key {
                PanelKeyName::Up => selected = selected.saturating_sub(1),
                PanelKeyName::Down => selected = (selected + 1).min(choices.len() - 1),
                PanelKeyName::Enter => {
                    if let Some(tx) = keys_tx.lock().unwrap().take() {
                        let _ = tx.send(Some(choices[selected].clone()));
                    }
                    return;
                }
                _ => return,
            }
            let _ = keys_ext.render_panel(PanelRender {
                panel_id: id.clone(),
                lines: lines(&choices, selected),
                ..Default::default()
            });
        });
        ext.on_panel_close(&panel, move || {
            if let Some(tx) = tx.lock().unwrap().take() {
                let _ = tx.send(None);
            }
        });
        ext.open_panel(PanelSpec {
            id: panel.clone(),
            title: args.question.clone(),
            lines: lines(&args.choices, 0),
            footer: FOOTER.into(),
        })?;

        let answer = tokio::select! {
            a = rx => a.ok().flatten(),
            _ = ctx.cancelled() => {
                // The host gave up: clean up; this result is not sent.
                let _ = ext.close_panel(&panel);
                return Ok(ToolOutput::text("cancelled"));
            }
        };
        Ok::<_, zot_ext::Error>(match answer {
            Some(choice) => {
                ext.close_panel(&panel)?;
                ToolOutput::text(format!("The user chose: {choice}"))
            }
            None => ToolOutput::error("the user dismissed the question"),
        })
    })
}

fn main() -> Result<(), zot_ext::RunError> {
    extension().run_blocking()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zot_ext::testing::TestHost;
    use zot_protocol::ExtFrame;

    async fn open(host: &mut TestHost) -> (String, String) {
        let id = host
            .start_tool(
                "ask_user",
                json!({"question": "Deploy?", "choices": ["yes", "no"]}),
            )
            .await
            .unwrap();
        let p = host
            .wait_for(|f| match f {
                ExtFrame::OpenPanel(p) => Some(p.clone()),
                _ => None,
            })
            .await
            .unwrap();
        assert_eq!(
            (p.panel.title.as_str(), p.panel.lines.as_slice()),
            (
                "Deploy?",
                ["▸ yes".to_owned(), "  no".to_owned()].as_slice()
            )
        );
        (id, p.panel.id)
    }

    #[tokio::test]
    async fn answer_dismiss_and_cancel() {
        let mut host = TestHost::start(super::extension()).await.unwrap();
        assert!(host.registration().tools[0].interactive);

        let (id, panel) = open(&mut host).await;
        host.panel_key(&panel, "down", "").await.unwrap();
        host.panel_key(&panel, "enter", "").await.unwrap();
        assert_eq!(
            host.tool_result(&id).await.unwrap().content[0].as_text(),
            Some("The user chose: no")
        );

        let (id, panel) = open(&mut host).await;
        host.panel_close(&panel).await.unwrap();
        assert!(host.tool_result(&id).await.unwrap().is_error);

        let (id, panel) = open(&mut host).await;
        host.cancel_tool(&id).await.unwrap();
        // The handler closes its own panel.
        host.wait_for(|f| {
            matches!(f, ExtFrame::PanelClose(c) if c.panel_id == panel).then_some(())
        })
        .await
        .unwrap();
        let frames = host.shutdown().await.unwrap();
        assert!(
            !frames.iter().any(|f| matches!(f, ExtFrame::ToolResult(_))),
            "{frames:?}"
        );
    }
}
