//! `todo`: tools and a panel over one piece of state, persisted as JSON in
//! the extension's `data_dir` (from `hello_ack`).
//!
//! - tools `todo_add`, `todo_list` (with structured content), `todo_done`;
//! - `/todo` opens a panel: ↑/↓ move, enter toggles, `d` deletes, `q`
//!   closes. Keys arrive in order, one at a time.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use zot_ext::{Ctx, ExtHandle, Extension, Response, ToolOutput, ToolSpec};
use zot_protocol::{PanelKey, PanelKeyName, PanelRender, PanelSpec};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
struct Item {
    text: String,
    done: bool,
}

/// The list and where it is saved.
#[derive(Default)]
struct Todo {
    path: Option<PathBuf>,
    items: Vec<Item>,
}

impl Todo {
    fn load(dir: &str) -> Self {
        let path = PathBuf::from(dir).join("todos.json");
        let items = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Self {
            path: Some(path),
            items,
        }
    }

    fn save(&self) -> std::io::Result<()> {
        if let Some(path) = &self.path {
            std::fs::write(path, serde_json::to_vec_pretty(&self.items)?)?;
        }
        Ok(())
    }

    fn lines(&self, selected: usize) -> Vec<String> {
        if self.items.is_empty() {
            return vec!["(nothing to do)".into()];
        }
        self.items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let mark = if it.done { "x" } else { " " };
                let cursor = if i == selected { "▸ " } else { "  " };
                format!("{cursor}[{mark}] {}", it.text)
            })
            .collect()
    }
}

type State = Arc<Mutex<Todo>>;

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// What to do.
    text: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct DoneArgs {
    /// 1-based position in the list.
    index: usize,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct NoArgs {}

const FOOTER: &str = "↑/↓ move · enter toggle · d delete · q close";

/// Opens a panel over the list; its key handler owns the cursor.
fn open_panel(state: &State, ctx: &Ctx) -> Response {
    // A unique id per panel instance, as the protocol recommends.
    let id = format!("todo-{}", ctx.id());
    let ext: ExtHandle = ctx.ext().clone();
    let (st, key_id) = (state.clone(), id.clone());
    let mut selected = 0usize;
    ext.clone().on_panel_key(&id, move |key: &PanelKey| {
        let mut todo = st.lock().unwrap();
        let n = todo.items.len();
        match (&key.key, key.text.as_str()) {
            (PanelKeyName::Up, _) => selected = selected.saturating_sub(1),
            (PanelKeyName::Down, _) => selected = (selected + 1).min(n.saturating_sub(1)),
            (PanelKeyName::Enter, _) if selected < n => todo.items[selected].done ^= true,
            (PanelKeyName::Rune, "d") if selected < n => {
                todo.items.remove(selected);
                selected = selected.min(todo.items.len().saturating_sub(1));
            }
            (PanelKeyName::Rune, "q") => {
                let _ = ext.close_panel(&key_id);
                return;
            }
            _ => return,
        }
        if let Err(e) = todo.save() {
            ext.log(format!("cannot save: {e}"));
        }
        let _ = ext.render_panel(PanelRender {
            panel_id: key_id.clone(),
            lines: todo.lines(selected),
            footer: FOOTER.into(),
            ..Default::default()
        });
    });
    let lines = state.lock().unwrap().lines(0);
    Response::open_panel(PanelSpec {
        id,
        title: "Todo".into(),
        lines,
        footer: FOOTER.into(),
    })
}

fn extension() -> Extension {
    let state: State = Arc::default();
    let (s1, s2, s3, s4, s5) = (
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
    );
    Extension::new("todo", "0.1.0")
        .on_hello(move |host, _reg| *s1.lock().unwrap() = Todo::load(&host.data_dir))
        .tool(
            "todo_add",
            "Add an item to the todo list",
            move |a: AddArgs, _ctx| {
                let state = s2.clone();
                async move {
                    let mut todo = state.lock().unwrap();
                    todo.items.push(Item {
                        text: a.text.clone(),
                        done: false,
                    });
                    todo.save()?;
                    Ok::<_, zot_ext::Error>(ToolOutput::text(format!(
                        "added #{}: {}",
                        todo.items.len(),
                        a.text
                    )))
                }
            },
        )
        .tool_with(
            ToolSpec::new("todo_list", "List the todo items").output_schema_for::<Vec<Item>>(),
            move |_a: NoArgs, _ctx| {
                let state = s3.clone();
                async move {
                    let todo = state.lock().unwrap();
                    ToolOutput::text(todo.lines(usize::MAX).join("\n")).with_structured(&todo.items)
                }
            },
        )
        .tool(
            "todo_done",
            "Toggle an item done / not done",
            move |a: DoneArgs, _ctx| {
                let state = s4.clone();
                async move {
                    let mut todo = state.lock().unwrap();
                    let Some(item) = a.index.checked_sub(1).and_then(|i| todo.items.get_mut(i))
                    else {
                        return Ok(ToolOutput::error(format!("no item #{}", a.index)));
                    };
                    item.done = !item.done;
                    let text = format!(
                        "#{} is {}",
                        a.index,
                        if item.done { "done" } else { "open" }
                    );
                    todo.save()?;
                    Ok::<_, zot_ext::Error>(ToolOutput::text(text))
                }
            },
        )
        .command("todo", "Open the todo list", move |_args, ctx| {
            let state = s5.clone();
            async move { open_panel(&state, &ctx) }
        })
}

fn main() -> Result<(), zot_ext::RunError> {
    extension().run_blocking()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zot_ext::testing::{default_hello_ack, TestHost};
    use zot_protocol::{ExtFrame, HelloAck};

    fn ack(dir: &std::path::Path) -> HelloAck {
        HelloAck {
            data_dir: dir.display().to_string(),
            ..default_hello_ack()
        }
    }

    #[tokio::test]
    async fn tools_panel_and_persistence() {
        let dir = std::env::temp_dir().join(format!("zot-todo-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(dir.join("todos.json"));

        let mut host = TestHost::start_with(super::extension(), ack(&dir))
            .await
            .unwrap();
        host.tool("todo_add", json!({"text": "write docs"}))
            .await
            .unwrap();
        host.tool("todo_add", json!({"text": "ship"}))
            .await
            .unwrap();
        assert_eq!(
            host.tool("todo_done", json!({"index": 1}))
                .await
                .unwrap()
                .content[0]
                .as_text(),
            Some("#1 is done")
        );
        assert!(
            host.tool("todo_done", json!({"index": 9}))
                .await
                .unwrap()
                .is_error
        );

        let r = host.command("todo", "").await.unwrap();
        let panel = r.open_panel.unwrap();
        assert_eq!(panel.lines, ["▸ [x] write docs", "  [ ] ship"]);
        host.panel_key(&panel.id, "down", "").await.unwrap();
        host.panel_key(&panel.id, "enter", "").await.unwrap();
        host.panel_key(&panel.id, "rune", "q").await.unwrap();
        let frames = host.shutdown().await.unwrap();
        let renders: Vec<Vec<String>> = frames
            .iter()
            .filter_map(|f| match f {
                ExtFrame::PanelRender(r) => Some(r.lines.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(renders.last().unwrap(), &["  [x] write docs", "▸ [x] ship"]);

        // A new session reads the saved list.
        let mut host = TestHost::start_with(super::extension(), ack(&dir))
            .await
            .unwrap();
        let r = host.tool("todo_list", json!({})).await.unwrap();
        assert_eq!(
            r.structured_content.unwrap().get(),
            r#"[{"text":"write docs","done":true},{"text":"ship","done":true}]"#
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
