//! `zot-host dev DIR`: the inner loop of writing an extension. It loads the
//! extension in a live session ([`crate::live`], what `zot-host inspect`
//! drives), watches its folder (`watch`: `ext install`'s ignore rules),
//! rebuilds when the language needs it (`build`) and restarts the
//! extension (the session's `/reload-ext`), and reads commands at a prompt
//! (`repl`): each line is a script step, so a REPL session does what a
//! script would. A failed build is shown and the running extension is kept
//! until a build succeeds.
//!
//! Owns the watcher, the builds and the prompt; like [`crate::inspect`] it
//! acts on the session only through [`crate::live`]. Nothing else in the
//! crate uses it.

pub(crate) mod build;
pub(crate) mod repl;
mod streamed;
pub(crate) mod watch;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{CompletionType, Config, Editor, ExternalPrinter};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use crate::live::feed::FeedEvent;
use crate::live::{Live, LiveError, LiveOptions};
use crate::transcript::Renderer;
use repl::Action;

/// `zot-host dev`'s options.
#[derive(clap::Args, Debug, Clone)]
#[command(after_help = concat!(
    "At the prompt:\n",
    crate::help_text!(),
    "\n\nChanges in DIR (except what .gitignore and .zotignore ignore, .git, node_modules and a \
     Rust target/) rebuild the extension when its language needs it (cargo build beside a \
     Cargo.toml, tsc beside a tsconfig.json) and restart it. A failed build is shown and the \
     running extension is kept."
))]
pub struct DevArgs {
    /// The extension's folder (it holds extension.json).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Override $ZOT_HOME.
    #[arg(long = "zot-home", value_name = "DIR")]
    pub zot_home: Option<PathBuf>,
    /// A live model for prompts (the scripted model by default).
    #[command(flatten)]
    pub model: crate::model::ModelArgs,
}

/// Prints a line above the prompt (or plainly when there is no terminal).
type Print = Arc<dyn Fn(String) + Send + Sync>;

fn absolute(p: PathBuf) -> PathBuf {
    if p.is_absolute() {
        p
    } else {
        std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
    }
}

/// The extension's folder, absolute, once its manifest can be read.
/// Invalid JSON is reported by the session (and can be fixed while it
/// watches); a manifest that cannot be read at all (missing, a FIFO, over
/// the size limit) ends here.
fn extension_dir(given: &Path) -> Result<PathBuf, String> {
    let dir = absolute(given.to_owned());
    let dir = dunce::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    match crate::store::manifest::read_manifest(&dir) {
        Ok(_) => Ok(dir),
        Err(crate::store::manifest::ManifestError::Missing { .. }) => Err(format!(
            "{} has no extension.json (`zot-host new NAME --lang ...` makes one)",
            dir.display()
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs `zot-host dev` until quit, Ctrl-C, Ctrl-D or `/exit`.
pub fn main(args: DevArgs) -> ExitCode {
    let dir = match extension_dir(&args.dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("zot-host dev: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("zot-host dev: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut editor, print, terminal) = match terminal() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("zot-host dev: cannot set up the terminal: {e}");
            return ExitCode::from(2);
        }
    };
    let colour = std::io::stdout().is_terminal();
    let opened = rt.block_on(start(&dir, &args, print.clone(), colour));
    let (live, _watcher) = match opened {
        Ok(x) => x,
        Err(e) => {
            eprintln!("zot-host dev: {e}");
            return ExitCode::from(1);
        }
    };
    editor.set_helper(Some(repl::Helper::new(live.clone())));
    read_lines(&rt, &mut editor, &live, &print, terminal);
    drop(editor);
    rt.block_on(live.close());
    ExitCode::SUCCESS
}

/// The line editor, how to print above its prompt, and whether it is on a
/// terminal.
fn terminal() -> rustyline::Result<(Editor<repl::Helper, DefaultHistory>, Print, bool)> {
    let config = Config::builder()
        .auto_add_history(true)
        .max_history_size(1000)
        .map(|c| c.completion_type(CompletionType::List).build());
    let mut editor: Editor<repl::Helper, DefaultHistory> = config.and_then(Editor::with_config)?;
    // On a terminal each line runs beside the prompt (a panel key can reach
    // a running call); from a pipe lines run one after the other, as a
    // script's steps do.
    let mut terminal = true;
    let print: Print = match editor.create_external_printer() {
        Ok(p) => {
            let p = Mutex::new(p);
            Arc::new(move |s: String| {
                let _ = p
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .print(format!("{s}\n"));
            })
        }
        // Not a terminal: lines go out as they come.
        Err(_) => {
            terminal = false;
            Arc::new(|s: String| println!("{s}"))
        }
    };
    Ok((editor, print, terminal))
}

/// Reads and runs lines until `quit`, the end of input or the session's
/// end.
fn read_lines(
    rt: &tokio::runtime::Runtime,
    editor: &mut Editor<repl::Helper, DefaultHistory>,
    live: &Arc<Live>,
    print: &Print,
    terminal: bool,
) {
    let name = live
        .engine()
        .manager()
        .extensions()
        .first()
        .map(|e| e.name.to_string())
        .unwrap_or_else(|| "dev".into());
    let prompt = format!("{name}> ");
    while !live.is_closed() {
        match editor.readline(&prompt) {
            Ok(line) => match repl::parse(&line) {
                Ok(Action::Quit) => break,
                Ok(Action::Nothing) => {}
                Ok(Action::Help) => print(repl::HELP.to_owned()),
                Ok(action) if terminal => {
                    let (live, print) = (live.clone(), print.clone());
                    rt.spawn(async move { act(&live, action, &print).await });
                }
                Ok(action) => rt.block_on(act(live, action, print)),
                Err(e) => print(format!("error: {e}")),
            },
            Err(ReadlineError::Interrupted | ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("zot-host dev: reading the terminal: {e}");
                break;
            }
        }
    }
}

/// The restart requests of the watcher and of `restart` (one pending at
/// most: a burst of changes is one rebuild).
static RESTART: std::sync::OnceLock<mpsc::Sender<String>> = std::sync::OnceLock::new();

fn request_restart(why: String) {
    if let Some(tx) = RESTART.get() {
        let _ = tx.try_send(why);
    }
}

/// Builds once, opens the session, and starts the printer, the watcher and
/// the rebuild loop.
async fn start(
    dir: &Path,
    args: &DevArgs,
    print: Print,
    colour: bool,
) -> Result<(Arc<Live>, watch::Watcher), String> {
    let model = args.model.resolve()?;
    let plan = build::plan(dir, colour)?;
    if let Some(b) = &plan {
        print(format!("building: {}", b.describe()));
        match build::run(b, dir).await {
            Ok(out) => print(built(out)),
            Err(out) => print(format!(
                "{out}\nthe build failed; fix it and save: it runs again"
            )),
        }
    }
    let cwd = absolute(args.cwd.clone().unwrap_or_else(|| PathBuf::from(".")));
    let cwd = dunce::canonicalize(&cwd).unwrap_or(cwd);
    let zot_home = absolute(
        args.zot_home
            .clone()
            .unwrap_or_else(crate::store::discovery::zot_home_from_env),
    );
    let live = Live::open(LiveOptions {
        explicit: vec![dir.to_owned()],
        cwd,
        zot_home,
        no_discovery: true,
        header: Map::new(),
        model,
    })
    .await
    .map_err(|e| e.to_string())?;
    // What the session showed while it started (the feed keeps it), then
    // what comes next, each once.
    let rx = live.feed().subscribe();
    let renderer = Renderer::new(colour);
    let mut shown = None;
    for o in live.feed().observations().0 {
        print(renderer.render(&o.o));
        shown = Some(o.n);
    }
    tokio::spawn(show(rx, shown, print.clone(), renderer));
    let (tx, rx) = mpsc::channel(1);
    let _ = RESTART.set(tx);
    let p = print.clone();
    let watcher = watch::watch(
        dir,
        |path| request_restart(format!("changed: {}", path.display())),
        move |e| p(format!("warning: {e}")),
    )?;
    tokio::spawn(rebuild_loop(
        live.clone(),
        dir.to_owned(),
        rx,
        print.clone(),
        colour,
    ));
    print(format!(
        "watching {} — type help for the commands, Ctrl-C to quit",
        dir.display()
    ));
    Ok((live, watcher))
}

/// Prints what the session shows, as `zot-host run` does, a live model's
/// text as it streams, and the extension's stderr.
async fn show(
    mut rx: tokio::sync::broadcast::Receiver<FeedEvent>,
    shown: Option<u64>,
    print: Print,
    renderer: Renderer,
) {
    let mut streamed = streamed::Streamed::default();
    loop {
        match rx.recv().await {
            Ok(FeedEvent::Obs(o)) if shown.is_some_and(|n| o.n <= n) => {}
            Ok(FeedEvent::Obs(o)) if streamed.shown(&o.o) => {}
            Ok(FeedEvent::Obs(o)) => print(renderer.render(&o.o)),
            Ok(FeedEvent::Model(note)) => streamed.note(&note, &print, &renderer),
            // The host's own `[zot] ...` lines in the log say what the
            // observations above already said; the extension's stderr is
            // what is new.
            Ok(FeedEvent::Log { text, .. }) if text.starts_with("[zot] ") => {}
            Ok(FeedEvent::Log { ext, text }) => print(format!("  [{ext}] {text}")),
            Ok(_) => {}
            Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => print(format!(
                "  ({n} lines not shown: they came faster than the terminal took them)"
            )),
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
        }
    }
}

/// Rebuilds and restarts on each request; a failed build keeps the running
/// extension.
async fn rebuild_loop(
    live: Arc<Live>,
    dir: PathBuf,
    mut rx: mpsc::Receiver<String>,
    print: Print,
    colour: bool,
) {
    while let Some(why) = rx.recv().await {
        if live.is_closed() {
            break;
        }
        print(why);
        match build::plan(&dir, colour) {
            Err(e) => {
                print(format!("cannot build: {e}; the running extension is kept"));
                continue;
            }
            Ok(Some(b)) => {
                print(format!("building: {}", b.describe()));
                let out = match build::run(&b, &dir).await {
                    Ok(out) => out,
                    Err(out) => {
                        print(format!(
                            "{out}\nthe build failed; the running extension is kept until a build succeeds"
                        ));
                        continue;
                    }
                };
                print(built(out));
            }
            Ok(None) => {}
        }
        print("restarting".into());
        // A running call would hold the session: it is cancelled first.
        live.cancel();
        if let Err(e) = run_when_free(&live, step("reload", json!(true))).await {
            print(format!("cannot restart: {e}"));
        }
    }
}

/// What a successful build printed (warnings, a summary), then `built`.
fn built(out: String) -> String {
    if out.is_empty() {
        "built".into()
    } else {
        format!("{out}\nbuilt")
    }
}

fn step(key: &str, v: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), v);
    m
}

/// Runs a step once no other step runs.
async fn run_when_free(live: &Live, s: Map<String, Value>) -> Result<(), LiveError> {
    loop {
        let mut changes = live.feed().subscribe();
        match live.run(s.clone()).await {
            Err(LiveError::Busy(_)) => {
                // Wait for the running step to end (the feed says when the
                // session's state changes), then try again.
                loop {
                    match changes.recv().await {
                        Ok(FeedEvent::State) => break,
                        Ok(_) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                            return Err(LiveError::Closed)
                        }
                    }
                }
            }
            other => return other.map(drop),
        }
    }
}

/// Does what a line asked for.
async fn act(live: &Live, action: Action, print: &Print) {
    let r = match action {
        Action::Step(s) => live.run(s).await.map(drop),
        Action::Key { key, text } => live.key(&key, &text).await,
        Action::Cancel => {
            if !live.cancel() {
                print("no tool call is running".into());
            }
            Ok(())
        }
        Action::Restart => {
            request_restart("restart requested".into());
            Ok(())
        }
        Action::Help | Action::Quit | Action::Nothing => Ok(()),
    };
    if let Err(e) = r {
        print(format!("error: {e}"));
    }
    if live.is_closed() {
        // `/exit`: the prompt waits in the terminal until the next key.
        print("the session has ended; press Enter to leave".into());
    }
}

#[cfg(test)]
mod tests {
    use clap::Args as _;

    #[test]
    fn help_lists_every_verb_of_the_prompt() {
        let help = super::DevArgs::augment_args(clap::Command::new("dev"))
            .render_long_help()
            .to_string();
        for verb in super::repl::VERBS {
            assert!(help.contains(&format!("  {verb}")), "{verb} in\n{help}");
        }
    }
}
