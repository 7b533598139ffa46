//! The `zot-host ext ...` command line (§16.9, HOST-177..187): list, doctor,
//! install, remove, enable, disable, logs and update.
//!
//! Every subcommand that looks at installed extensions goes through
//! [`crate::store::discovery::discover`], the same discovery path a session uses;
//! `doctor` also uses the session's start-up ([`crate::Manager::load`]).
//!
//! Layout: `command_line` (the clap definitions), one module per subcommand
//! (`list`, `doctor`, `install`, `manage`, `logs`, `update`) and
//! their helpers (`resolve` for name look-up, `tree` for copying and the
//! symlink check, `select` for what a folder install copies, `staging`
//! and `lock` for installs that cannot collide or leave debris,
//! `json_edit` for the `enabled` edit, `git`, `style`, `test_hook`).
//!
//! Owns the subcommands' arguments, output and exit codes; it changes
//! installed extensions only through [`crate::store`] and speaks to them only
//! through a session's start-up. Only the binary and [`crate::dev`] (which
//! watches by install's ignore rules) use it: the session, the processes
//! and the store never reach into it.

pub(crate) mod add_mcp;
pub(crate) mod command_line;
pub(crate) mod doctor;
pub(crate) mod doctor_fix;
pub(crate) mod doctor_refused;
pub(crate) mod doctor_report;
pub(crate) mod error;
pub(crate) mod git;
pub(crate) mod install;
pub(crate) mod install_error;
pub(crate) mod json_edit;
pub(crate) mod list;
pub(crate) mod lock;
pub(crate) mod logs;
pub(crate) mod manage;
pub(crate) mod resolve;
pub(crate) mod select;
pub(crate) mod staging;
pub(crate) mod style;
pub(crate) mod test_hook;
pub(crate) mod tree;
pub(crate) mod update;

use std::io::Write;
use std::path::PathBuf;

pub use command_line::{CommonArgs, ExtArgs, ExtCommand, UpdateArgs};
pub use error::CliError;

use crate::store::discovery::{zot_home_from_env, DiscoveryOptions};

/// Whether a command succeeded; a failed one exits with status 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliOutcome {
    /// Everything went well.
    Success,
    /// The command ran but found or caused a failure (doctor found a
    /// problem, an update failed, ...); it already said what.
    Failure,
}

/// Where the commands look: the project directory and `$ZOT_HOME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The project directory (`<cwd>/.zot/extensions` holds project installs).
    pub cwd: PathBuf,
    /// `$ZOT_HOME` (`extensions/` holds global installs, `logs/` the logs).
    pub zot_home: PathBuf,
}

impl Context {
    /// Resolves `--cwd` / `--zot-home` against the process (current
    /// directory, `ZOT_HOME` / XDG / per-OS default, §16.2).
    pub fn from_args(common: &CommonArgs) -> Self {
        let cwd = absolute(common.cwd.clone().unwrap_or_else(|| PathBuf::from(".")));
        let cwd = dunce::canonicalize(&cwd).unwrap_or(cwd);
        let zot_home = absolute(common.zot_home.clone().unwrap_or_else(zot_home_from_env));
        Self { cwd, zot_home }
    }

    /// Discovery options for this context (no `--ext` paths).
    pub fn discovery(&self) -> DiscoveryOptions {
        DiscoveryOptions {
            cwd: self.cwd.clone(),
            zot_home: self.zot_home.clone(),
            explicit: Vec::new(),
            no_discovery: false,
        }
    }

    /// `$ZOT_HOME/extensions`.
    pub fn global_root(&self) -> PathBuf {
        crate::store::discovery::global_root(&self.zot_home)
    }

    /// `<cwd>/.zot/extensions`.
    pub fn project_root(&self) -> PathBuf {
        crate::store::discovery::project_root(&self.cwd)
    }

    /// `$ZOT_HOME/logs/ext-<name>.log` (§16.4).
    pub fn log_path(&self, name: &crate::store::name::ExtName) -> PathBuf {
        crate::HostConfig::new(self.cwd.clone(), self.zot_home.clone()).log_path(name)
    }
}

/// Makes `p` absolute against the current directory.
pub fn absolute(p: PathBuf) -> PathBuf {
    if p.is_absolute() {
        p
    } else {
        std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
    }
}

/// Makes every `--ext` path absolute against the current directory, as
/// `run` does.
pub(crate) fn explicit_paths(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths.iter().map(|p| absolute(p.clone())).collect()
}

/// Runs one `ext` subcommand, writing its report to `out`.
pub fn run_ext(args: ExtArgs, out: &mut dyn Write) -> Result<CliOutcome, CliError> {
    let ctx = Context::from_args(&args.common);
    match args.command {
        ExtCommand::List(a) => list::run(&ctx, &a, out),
        ExtCommand::Doctor(a) => doctor::run(&ctx, &a, out),
        ExtCommand::Install(a) => install::run(&ctx, &a, out),
        ExtCommand::Remove(a) => manage::remove(&ctx, &a, out),
        ExtCommand::Enable(a) => manage::set_enabled(&ctx, &a, true, out),
        ExtCommand::Disable(a) => manage::set_enabled(&ctx, &a, false, out),
        ExtCommand::Logs(a) => logs::run(&ctx, &a, out),
        ExtCommand::Update(a) => update::run(&ctx, &a, out),
        ExtCommand::AddMcp(a) => add_mcp::run(&ctx, &a, out),
    }
}

/// Runs `zot-host update` (OP-16: the extension part of `zot update`).
pub fn run_update(
    common: &CommonArgs,
    args: &UpdateArgs,
    out: &mut dyn Write,
) -> Result<CliOutcome, CliError> {
    update::run(&Context::from_args(common), args, out)
}
