//! `zot-host inspect`: a web page to poke extensions with. It runs a live
//! session ([`crate::live`]) and serves the page (TypeScript in
//! `host/inspect-ui/`, built into `host/inspect-ui/dist/` and embedded in
//! the binary) and its API on 127.0.0.1, behind a per-run token.
//!
//! Owns the web server, its guard and the API; everything a person does
//! goes through [`crate::live`], never straight to the session or the
//! extensions. Nothing else in the crate uses it.

mod api;
mod guard;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Map;

use crate::live::{Live, LiveOptions};

/// `zot-host inspect`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct InspectArgs {
    /// Load this extension directory (repeatable; wins over installed
    /// extensions of the same name).
    #[arg(long = "ext", short = 'e', value_name = "DIR")]
    pub ext: Vec<PathBuf>,
    /// Skip discovery; explicit --ext paths still load.
    #[arg(long = "no-ext", alias = "no-extensions")]
    pub no_ext: bool,
    /// The port (default: a free one).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub port: u16,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Listen on this address instead of 127.0.0.1. Anything but a loopback
    /// address lets other machines reach the page (the token still guards
    /// it); zot-host warns when it does.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<IpAddr>,
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

fn absolute(p: PathBuf) -> PathBuf {
    if p.is_absolute() {
        p
    } else {
        std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
    }
}

/// Runs the inspector until Ctrl-C (or SIGTERM, SIGHUP, `/exit`), then ends
/// the session.
pub fn main(args: InspectArgs) -> ExitCode {
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
    match rt.block_on(serve(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zot-host inspect: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve(args: InspectArgs) -> Result<(), String> {
    let model = args.model.resolve()?;
    let ip = args.listen.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(ip, args.port))
        .await
        .map_err(|e| format!("cannot listen on {ip}:{}: {e}", args.port))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    if !ip.is_loopback() {
        eprintln!(
            "zot-host inspect: warning: listening on {addr}, reachable from other machines; \
             anyone who has the URL (its token) can run your extensions"
        );
    }
    let token = guard::new_token().map_err(|e| format!("cannot make a token: {e}"))?;
    let cwd = absolute(args.cwd.unwrap_or_else(|| PathBuf::from(".")));
    let cwd = dunce::canonicalize(&cwd).unwrap_or(cwd);
    let zot_home = absolute(
        args.zot_home
            .unwrap_or_else(crate::store::discovery::zot_home_from_env),
    );
    let live = Live::open(LiveOptions {
        explicit: args.ext.into_iter().map(absolute).collect(),
        cwd,
        zot_home,
        no_discovery: args.no_ext,
        header: Map::new(),
        model,
    })
    .await
    .map_err(|e| e.to_string())?;
    let shown = if ip.is_unspecified() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
    } else {
        addr
    };
    let url = format!("http://{shown}/?token={token}");
    println!("zot-host inspect: {url}");
    println!("Press Ctrl-C to stop.");
    if args.open {
        open_browser(&url);
    }
    let app = api::router(live.clone(), guard::Guard::new(token, addr));
    // Ctrl-C / SIGTERM / SIGHUP end the session gracefully (the usual way to
    // stop the inspector); a second one kills the extensions at once.
    let stop = tokio_util::sync::CancellationToken::new();
    if let Err(e) = crate::process::interrupts::watch(
        Some(stop.clone()),
        zot_protocol::limits::SIGTERM_TO_SIGKILL,
    ) {
        eprintln!("zot-host inspect: cannot watch for interrupts: {e}");
    }
    let closed = live.clone();
    let served = axum::serve(listener, app).with_graceful_shutdown(async move {
        tokio::select! {
            () = stop.cancelled() => {}
            () = closed.closed() => {}
        }
    });
    let result = served.await.map_err(|e| format!("server: {e}"));
    live.close().await;
    result
}

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("zot-host inspect: cannot run {opener} ({e}); open the URL yourself");
    }
}
