//! `zot-host`: the reference host's command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use zot_host::cli::{self, CliError, CliOutcome};
use zot_host::store::discovery::zot_home_from_env;
use zot_host::transcript::{Observation, Renderer, Transcript};
use zot_host::wire::WireLog;
use zot_host::{run_script, RunOptions, Script};

/// The reference host of the zot extension protocol.
#[derive(Parser, Debug)]
#[command(
    name = "zot-host",
    version,
    about,
    after_help = "Run `zot-host <command> --help` for the options of a command."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a session script against the extensions.
    Run(RunArgs),
    /// Serve a web page to inspect and drive extensions (http://127.0.0.1, per-run token).
    #[cfg(feature = "inspect")]
    Inspect(zot_host::inspect::InspectArgs),
    /// Create a ready extension folder (manifest, code, test, README) in Rust, Node or Python.
    New(zot_host::scaffold::NewArgs),
    /// Watch an extension's folder, rebuild and restart it on changes, and drive it from a prompt.
    Dev(zot_host::dev::DevArgs),
    /// Manage extensions (list, doctor, install, remove, enable, disable, logs, update).
    Ext(cli::ExtArgs),
    /// Fast-forward every git-installed extension (zot-host does not update itself).
    Update(UpdateCmd),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Example: zot-host completions bash > ~/.local/share/bash-completion/completions/zot-host"
    )]
    Completions(CompletionsArgs),
}

#[derive(clap::Args, Debug)]
struct UpdateCmd {
    #[command(flatten)]
    common: cli::CommonArgs,
    #[command(flatten)]
    args: cli::UpdateArgs,
}

#[derive(clap::Args, Debug)]
struct CompletionsArgs {
    /// The shell to generate completions for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The session script (JSON, see host/SCRIPT.md).
    #[arg(long, value_name = "FILE")]
    script: PathBuf,
    /// Load this extension directory for this run (repeatable; wins over
    /// installed extensions of the same name).
    #[arg(long = "ext", short = 'e', value_name = "DIR")]
    ext: Vec<PathBuf>,
    /// Skip discovery; explicit --ext paths still load.
    #[arg(long = "no-ext", alias = "no-extensions")]
    no_ext: bool,
    /// Print one JSON object per host-observable step instead of text.
    #[arg(long)]
    json: bool,
    /// Write every frame, both directions, as JSON lines to FILE.
    #[arg(long, value_name = "FILE")]
    wire: Option<PathBuf>,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Override $ZOT_HOME.
    #[arg(long = "zot-home", value_name = "DIR")]
    zot_home: Option<PathBuf>,
    /// A live model for the script's prompts, instead of its `replies`.
    #[command(flatten)]
    model: zot_host::model::ModelArgs,
    /// Multiply every deadline and grace (the script's too) by N, for
    /// emulators and slow machines: e.g. 20 under qemu-user.
    #[arg(long, value_name = "N", env = "ZOT_HOST_TIME_SCALE", value_parser = zot_host::config::parse_time_scale)]
    time_scale: Option<f64>,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = Cli::parse();
    // On every way out (a panic included) no extension process outlives
    // the host (normally they are all stopped and reaped long before).
    let _last_resort =
        zot_host::process::supervise::KillAllOnDrop(zot_protocol::limits::SIGTERM_TO_SIGKILL);
    match cli.command {
        Command::Run(args) => run(args),
        #[cfg(feature = "inspect")]
        Command::Inspect(args) => zot_host::inspect::main(args),
        Command::New(args) => zot_host::scaffold::main(&args),
        Command::Dev(args) => zot_host::dev::main(args),
        Command::Ext(args) => finish(cli::run_ext(args, &mut std::io::stdout().lock())),
        Command::Update(u) => finish(cli::run_update(
            &u.common,
            &u.args,
            &mut std::io::stdout().lock(),
        )),
        Command::Completions(c) => {
            clap_complete::generate(
                c.shell,
                &mut Cli::command(),
                "zot-host",
                &mut std::io::stdout(),
            );
            ExitCode::SUCCESS
        }
    }
}

/// Exit status of an `ext` command: 0, or 1 with the error on stderr.
fn finish(r: Result<CliOutcome, CliError>) -> ExitCode {
    match r {
        Ok(CliOutcome::Success) => ExitCode::SUCCESS,
        Ok(CliOutcome::Failure) => ExitCode::from(1),
        // The reader went away (`| head`): nothing left to say.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) if e.interrupted_by().is_some() => {
            eprintln!("zot-host: {e}");
            let sig = e.interrupted_by().unwrap_or(0);
            ExitCode::from(128u8.saturating_add(u8::try_from(sig).unwrap_or(0)))
        }
        Err(e) => {
            eprintln!("zot-host: error: {e}");
            ExitCode::from(1)
        }
    }
}

fn absolute(p: PathBuf) -> PathBuf {
    if p.is_absolute() {
        p
    } else {
        std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
    }
}

fn run(args: RunArgs) -> ExitCode {
    let (script, opts) = match prepare(args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("zot-host: {e}");
            return ExitCode::from(2);
        }
    };
    let model = opts.model.clone();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("zot-host: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let stop = opts.stop.clone();
    let outcome = rt.block_on(async {
        // Ctrl-C / SIGTERM / SIGHUP: end the session and stop the
        // extensions gracefully; a second one kills them at once.
        if let Err(e) = zot_host::process::interrupts::watch(
            Some(stop),
            zot_protocol::limits::SIGTERM_TO_SIGKILL,
        ) {
            eprintln!("zot-host: cannot watch for interrupts: {e}");
        }
        run_script(&script, opts).await
    });
    if let Some(sig) = zot_host::process::interrupts::caught() {
        eprintln!("zot-host: interrupted; the extensions were stopped");
        return ExitCode::from(zot_host::process::interrupts::exit_code(sig));
    }
    let mut failed = false;
    // A live model that failed to answer fails the run, as a failed
    // expectation does (the transcript has the same line as a status).
    if let Some(e) = model.as_ref().and_then(|m| m.last_failure()) {
        eprintln!("zot-host: {e}");
        failed = true;
    }
    if outcome.failures > 0 {
        eprintln!("zot-host: {} expectation(s) failed", outcome.failures);
        failed = true;
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The script and the session's options from the command line: the
/// model, the folders, the wire log, and the transcript printed as it
/// happens.
fn prepare(args: RunArgs) -> Result<(Script, RunOptions), String> {
    let model = args.model.resolve()?;
    let script = Script::load(&args.script).map_err(|e| e.to_string())?;
    let cwd = absolute(args.cwd.unwrap_or_else(|| PathBuf::from(".")));
    let cwd = dunce::canonicalize(&cwd).unwrap_or(cwd);
    let zot_home = absolute(args.zot_home.unwrap_or_else(zot_home_from_env));
    let wire = match &args.wire {
        None => None,
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Some(WireLog::new(Box::new(std::io::BufWriter::new(f)))),
            Err(e) => return Err(format!("cannot create wire log {}: {e}", p.display())),
        },
    };
    let mut opts = RunOptions::new(cwd, zot_home);
    opts.explicit = args.ext.into_iter().map(absolute).collect();
    opts.no_discovery = args.no_ext;
    opts.wire = wire;
    opts.transcript = printed(args.json);
    opts.model = model;
    opts.time_scale = args.time_scale.unwrap_or(1.0);
    Ok((script, opts))
}

/// A transcript printed as it happens and not kept (a long session does
/// not grow): readable, or one JSON object a line; the extensions' stderr
/// to stderr.
fn printed(json: bool) -> Transcript {
    let renderer = Renderer::for_stdout();
    Transcript::streaming(move |o| {
        if json {
            if let Ok(line) = serde_json::to_string(o) {
                println!("{line}");
            }
            if let Observation::Stderr { text } = o {
                eprintln!("{text}");
            }
        } else if let Observation::Stderr { text } = o {
            eprintln!("{text}");
        } else {
            println!("{}", renderer.render(o));
        }
    })
}
