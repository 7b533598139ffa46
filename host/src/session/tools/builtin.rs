//! The built-in tools of the reference host: `read`, `write`, `edit`, `bash`
//! working in the session's cwd, and a `skill` stub (no skills ship with the
//! reference host). File paths are jailed to the session cwd: a path outside
//! is a tool-local refusal (status `blocked`, `executed: true`, HOST-141).

use std::path::{Component, Path, PathBuf};
use std::process::Stdio;

use serde::Deserialize;
use tokio_util::sync::CancellationToken;
use zot_protocol::{RawJson, ToolStatus};

use crate::session::tools::invoke::ToolOutput;

/// Whether `name` is a built-in tool.
pub fn is_builtin(name: &str) -> bool {
    crate::process::registry::BUILTIN_TOOLS.contains(&name)
}

/// Whether the tool needs interactive approval under the `ask` policy.
pub fn needs_confirmation(name: &str) -> bool {
    matches!(name, "write" | "edit" | "bash")
}

/// The short preview shown in the confirmation dialog.
pub fn preview(name: &str, args: &RawJson) -> String {
    let v = args.to_value();
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_owned();
    match name {
        "bash" => s("command"),
        "write" | "edit" | "read" => format!("{name} {}", s("path")),
        _ => format!("{name} {}", args),
    }
}

#[derive(Deserialize)]
struct PathArgs {
    path: String,
}

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    #[serde(default)]
    content: String,
}

#[derive(Deserialize)]
struct EditArgs {
    path: String,
    old_text: String,
    #[serde(default)]
    new_text: String,
}

#[derive(Deserialize)]
struct BashArgs {
    command: String,
}

fn bad_args(name: &str, e: impl std::fmt::Display) -> ToolOutput {
    ToolOutput::error(
        format!("{name}: invalid arguments: {e}"),
        ToolStatus::Failed,
        true,
    )
}

fn refuse(reason: String) -> ToolOutput {
    let mut out = ToolOutput::error(reason.clone(), ToolStatus::Blocked, true);
    out.local_refusal = Some(reason);
    out
}

/// Resolves `p` inside `cwd` lexically; `None` when it escapes.
pub fn jail(cwd: &Path, p: &str) -> Option<PathBuf> {
    let joined = if Path::new(p).is_absolute() {
        PathBuf::from(p)
    } else {
        cwd.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out.starts_with(cwd).then_some(out)
}

/// Runs a built-in tool.
pub async fn run(name: &str, args: &RawJson, cwd: &Path, cancel: &CancellationToken) -> ToolOutput {
    match name {
        "read" => match args.parse() {
            Ok(a) => read(a, cwd).await,
            Err(e) => bad_args(name, e),
        },
        "write" => match args.parse() {
            Ok(a) => write(a, cwd).await,
            Err(e) => bad_args(name, e),
        },
        "edit" => match args.parse() {
            Ok(a) => edit(a, cwd).await,
            Err(e) => bad_args(name, e),
        },
        "bash" => match args.parse::<BashArgs>() {
            Ok(a) => bash(&a.command, cwd, cancel).await,
            Err(e) => bad_args(name, e),
        },
        "skill" => ToolOutput::error(
            "skill: no skills are installed in the reference host",
            ToolStatus::Failed,
            true,
        ),
        other => ToolOutput::error(format!("unknown tool {other:?}"), ToolStatus::Failed, false),
    }
}

/// The failure of `tool` on `path`.
fn failed(tool: &str, path: &str, e: impl std::fmt::Display) -> ToolOutput {
    ToolOutput::error(format!("{tool} {path}: {e}"), ToolStatus::Failed, true)
}

/// The largest file `read` and `edit` take: its text travels to the model
/// and to extensions in one frame.
pub const MAX_FILE_BYTES: u64 = zot_protocol::limits::MAX_FRAME_BYTES as u64 / 2;

/// The text of the regular file at `p`. Anything else is refused before it
/// is opened: opening a FIFO waits for a writer that may never come, and a
/// device or a huge file has no end worth reading.
async fn read_text(p: &Path) -> Result<String, String> {
    let meta = tokio::fs::metadata(p).await.map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} bytes, more than the {MAX_FILE_BYTES} this tool reads",
            meta.len()
        ));
    }
    let file = tokio::fs::File::open(p).await.map_err(|e| e.to_string())?;
    // Bounded even if the file grows after the check.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    tokio::io::AsyncReadExt::read_to_end(
        &mut tokio::io::AsyncReadExt::take(file, MAX_FILE_BYTES + 1),
        &mut bytes,
    )
    .await
    .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "grew past the {MAX_FILE_BYTES} bytes this tool reads"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "stream did not contain valid UTF-8".into())
}

/// Refuses to write over anything but a regular file (or nothing).
async fn writable(p: &Path) -> Result<(), String> {
    match tokio::fs::metadata(p).await {
        Ok(m) if !m.is_file() => Err("not a regular file".into()),
        _ => Ok(()),
    }
}

async fn read(a: PathArgs, cwd: &Path) -> ToolOutput {
    let Some(p) = jail(cwd, &a.path) else {
        return refuse(format!("read: {} is outside the working directory", a.path));
    };
    match read_text(&p).await {
        Ok(t) => ToolOutput::text(t),
        Err(e) => failed("read", &a.path, e),
    }
}

async fn write(a: WriteArgs, cwd: &Path) -> ToolOutput {
    let Some(p) = jail(cwd, &a.path) else {
        return refuse(format!(
            "write: {} is outside the working directory",
            a.path
        ));
    };
    if let Err(e) = writable(&p).await {
        return failed("write", &a.path, e);
    }
    if let Some(dir) = p.parent() {
        let _ = tokio::fs::create_dir_all(dir).await;
    }
    match tokio::fs::write(&p, a.content.as_bytes()).await {
        Ok(()) => ToolOutput::text(format!("wrote {} bytes to {}", a.content.len(), a.path)),
        Err(e) => failed("write", &a.path, e),
    }
}

/// Replaces the one occurrence of `old_text` (none, or more than one, is
/// an error saying so).
async fn edit(a: EditArgs, cwd: &Path) -> ToolOutput {
    let Some(p) = jail(cwd, &a.path) else {
        return refuse(format!("edit: {} is outside the working directory", a.path));
    };
    let text = match read_text(&p).await {
        Ok(t) => t,
        Err(e) => return failed("edit", &a.path, e),
    };
    match text.matches(&a.old_text).count() {
        1 => {}
        0 => return failed("edit", &a.path, "old_text not found"),
        n => {
            return failed(
                "edit",
                &a.path,
                format!("old_text occurs {n} times; make it unique"),
            )
        }
    }
    let new = text.replacen(&a.old_text, &a.new_text, 1);
    match tokio::fs::write(&p, new).await {
        Ok(()) => ToolOutput::text(format!("edited {}", a.path)),
        Err(e) => failed("edit", &a.path, e),
    }
}

async fn bash(command: &str, cwd: &Path, cancel: &CancellationToken) -> ToolOutput {
    let mut cmd = tokio::process::Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return ToolOutput::error(format!("bash: {e}"), ToolStatus::Failed, true),
    };
    tokio::select! {
        out = child.wait_with_output() => match out {
            Ok(o) => {
                let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
                text.push_str(&String::from_utf8_lossy(&o.stderr));
                if o.status.success() {
                    ToolOutput::text(if text.is_empty() { "(no output)".to_owned() } else { text })
                } else {
                    ToolOutput::error(
                        format!("{text}({})", crate::util::describe_exit(o.status)),
                        ToolStatus::Failed,
                        true,
                    )
                }
            }
            Err(e) => ToolOutput::error(format!("bash: {e}"), ToolStatus::Failed, true),
        },
        _ = cancel.cancelled() => ToolOutput::error("bash: cancelled", ToolStatus::Cancelled, true),
    }
}

/// What the model is told about a built-in tool: its description and the
/// JSON Schema of its arguments (what [`run`] reads).
pub fn definition(name: &str) -> Option<(&'static str, serde_json::Value)> {
    use serde_json::json;
    let string = |what: &str| json!({"type": "string", "description": what});
    let object = |props: serde_json::Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required});
    Some(match name {
        "read" => (
            "Read a text file of the project.",
            object(
                json!({"path": string("Path relative to the project directory.")}),
                &["path"],
            ),
        ),
        "write" => (
            "Write a text file of the project (created or replaced).",
            object(
                json!({"path": string("Path relative to the project directory."), "content": string("The whole new content.")}),
                &["path", "content"],
            ),
        ),
        "edit" => (
            "Replace one exact occurrence of a text in a file of the project.",
            object(
                json!({"path": string("Path relative to the project directory."), "old_text": string("The text to replace, exactly as in the file."), "new_text": string("The replacement.")}),
                &["path", "old_text", "new_text"],
            ),
        ),
        "bash" => (
            "Run a bash command in the project directory.",
            object(
                json!({"command": string("The command line.")}),
                &["command"],
            ),
        ),
        "skill" => (
            "Load a skill by name (the reference host ships none).",
            object(json!({"name": string("The skill's name.")}), &["name"]),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jail_keeps_paths_inside() {
        let cwd = Path::new("/w/p");
        assert_eq!(jail(cwd, "a/b"), Some(PathBuf::from("/w/p/a/b")));
        assert_eq!(jail(cwd, "a/../../x"), None);
        assert_eq!(jail(cwd, "/etc/passwd"), None);
    }

    async fn tool(name: &str, args: serde_json::Value, cwd: &Path) -> ToolOutput {
        let args = RawJson::from_value(&args).unwrap();
        run(name, &args, cwd, &CancellationToken::new()).await
    }

    fn text(out: &ToolOutput) -> String {
        out.content.iter().filter_map(|b| b.as_text()).collect()
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_fifo_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        for (name, args) in [
            ("read", serde_json::json!({"path": "pipe"})),
            (
                "edit",
                serde_json::json!({"path": "pipe", "old_text": "a", "new_text": "b"}),
            ),
            ("write", serde_json::json!({"path": "pipe", "content": "x"})),
        ] {
            // A regression would block on the FIFO's open: bounded here,
            // and released (an O_RDWR open of a FIFO never blocks) so the
            // test fails instead of hanging.
            let wait = std::time::Duration::from_secs(10);
            let Ok(out) = tokio::time::timeout(wait, tool(name, args, dir.path())).await else {
                let _ = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&fifo);
                panic!("{name} waited on the FIFO");
            };
            assert_eq!(out.status, ToolStatus::Failed, "{name}");
            assert!(
                text(&out).contains("pipe: not a regular file"),
                "{name}: {}",
                text(&out)
            );
        }
    }

    #[tokio::test]
    async fn a_file_past_the_limit_is_refused_with_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let big = std::fs::File::create(dir.path().join("big")).unwrap();
        big.set_len(MAX_FILE_BYTES + 1).unwrap();
        std::fs::write(dir.path().join("small"), "hello").unwrap();
        let out = tool("read", serde_json::json!({"path": "big"}), dir.path()).await;
        assert!(
            text(&out).contains(&format!(
                "{} bytes, more than the {MAX_FILE_BYTES}",
                MAX_FILE_BYTES + 1
            )),
            "{}",
            text(&out)
        );
        let out = tool("read", serde_json::json!({"path": "small"}), dir.path()).await;
        assert_eq!(text(&out), "hello");
    }
}
