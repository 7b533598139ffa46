//! The clap definitions of `zot-host ext ...` and `zot-host update`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// Options every `ext` subcommand accepts.
#[derive(Args, Debug, Clone, Default)]
pub struct CommonArgs {
    /// The project directory whose `.zot/extensions` holds project installs
    /// (default: the current directory).
    #[arg(long, value_name = "DIR", global = true)]
    pub cwd: Option<PathBuf>,
    /// Use DIR as $ZOT_HOME (default: $ZOT_HOME, else $XDG_STATE_HOME/zot,
    /// else the per-OS default such as ~/.local/state/zot).
    #[arg(long = "zot-home", value_name = "DIR", global = true)]
    pub zot_home: Option<PathBuf>,
}

/// `zot-host ext`: manage extensions.
#[derive(Args, Debug)]
#[command(
    about = "Manage extensions: list, check, install, remove, enable, disable, logs, update",
    after_help = "An extension is a directory with an extension.json. Global installs live in \
        $ZOT_HOME/extensions/<dir>, project installs in <project>/.zot/extensions/<dir>; \
        when two have the same name, --ext wins over project, project over global.\n\n\
        Examples:\n  \
        zot-host ext list\n  \
        zot-host ext install ./my-extension\n  \
        zot-host ext install https://example.com/me/my-extension.git\n  \
        zot-host ext doctor\n  \
        zot-host ext logs my-extension -f\n\n\
        Run `zot-host ext <command> --help` for the details of one command.",
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct ExtArgs {
    /// Where to look.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The subcommand.
    #[command(subcommand)]
    pub command: ExtCommand,
}

/// The `ext` subcommands.
#[derive(Subcommand, Debug)]
pub enum ExtCommand {
    /// List every discovered extension with its state and source.
    List(ListArgs),
    /// Start every extension like a session does and report what happened.
    Doctor(DoctorArgs),
    /// Install an extension from a directory or a git URL into $ZOT_HOME/extensions.
    Install(InstallArgs),
    /// Delete an installed extension's directory.
    #[command(visible_alias = "rm")]
    Remove(RemoveArgs),
    /// Set `"enabled": true` in an installed extension's manifest.
    Enable(NameArgs),
    /// Set `"enabled": false` in an installed extension's manifest (it stays installed).
    Disable(NameArgs),
    /// Print (or follow) an extension's stderr log.
    Logs(LogsArgs),
    /// Fast-forward git-installed extensions (same as `zot-host update`).
    Update(UpdateArgs),
    /// Install an MCP server (its command line after `--`) as an extension run by zot-mcp.
    AddMcp(AddMcpArgs),
}

/// Which `--ext` paths to add to discovery, for list and doctor.
#[derive(Args, Debug, Clone, Default)]
pub struct DiscoveryArgs {
    /// Also consider this extension directory, as `run --ext` would
    /// (repeatable; wins over installed extensions of the same name).
    #[arg(long = "ext", short = 'e', value_name = "DIR")]
    pub ext: Vec<PathBuf>,
    /// Skip discovery of project and global installs; --ext paths still count.
    #[arg(long = "no-ext", alias = "no-extensions")]
    pub no_ext: bool,
}

/// `ext list`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "States: enabled, disabled (\"enabled\": false), shadowed (another \
    extension with the same name wins), theme-only, skills-only, error (the manifest \
    cannot be used; `zot-host ext doctor` says more).\n\n\
    With --json, prints one JSON array of objects with the fields name, version, \
    language, description, state, kind, shadowed_by, error, source and path."
)]
pub struct ListArgs {
    /// Print JSON for scripts instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Discovery inputs.
    #[command(flatten)]
    pub discovery: DiscoveryArgs,
}

/// `ext doctor`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Doctor spawns every enabled extension exactly as a session does \
    (handshake, readiness wait of up to 3 s), records what happened, then shuts them \
    down. It exits with status 1 when anything is broken: an unusable manifest, an \
    extension that failed to start, timed out or exited, or a command or tool that \
    lost to a conflict. Warnings (auto-ready, diagnostics) do not change the status."
)]
pub struct DoctorArgs {
    /// Print one JSON object for scripts instead of the readable report.
    #[arg(long)]
    pub json: bool,
    /// Discovery inputs.
    #[command(flatten)]
    pub discovery: DiscoveryArgs,
}

/// `ext add-mcp`.
#[derive(Args, Debug)]
#[command(
    after_help = "Example: zot-host ext add-mcp everything -- npx -y @modelcontextprotocol/server-everything\n\
    The extension runs `zot-mcp wrap --name NAME -- COMMAND…` (install it with `cargo install zot-mcp`)."
)]
pub struct AddMcpArgs {
    /// The extension's name (its folder and manifest name).
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Replace an existing install of the same name.
    #[arg(long)]
    pub force: bool,
    /// The MCP server's command line (stdio), after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `ext install`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "SOURCE is a git URL when it starts with https://, http://, ssh://, \
    git://, file:// or git@, or ends with .git (unless it is a local directory holding \
    an extension.json); git URLs are cloned with --depth 1. Anything else is a local \
    directory, copied recursively.\n\n\
    The copy is staged in a temporary directory inside $ZOT_HOME/extensions and moved \
    into place only when its extension.json is valid; on any failure nothing is left \
    behind. Symbolic links are copied as links when they resolve inside the extension; \
    a link that is absolute or leads outside it makes the install fail."
)]
pub struct InstallArgs {
    /// A local extension directory or a git URL.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// Install under this directory name instead of the source's basename.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Replace an existing install of the same directory or extension name.
    #[arg(long)]
    pub force: bool,
}

/// Narrows a name to one scope when it is installed in both.
#[derive(Args, Debug, Clone, Default)]
pub struct ScopeArgs {
    /// Only consider global installs ($ZOT_HOME/extensions).
    #[arg(long, conflicts_with = "project")]
    pub global: bool,
    /// Only consider project installs (the project's .zot/extensions).
    #[arg(long)]
    pub project: bool,
}

/// `ext enable` / `ext disable`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "NAME is the manifest name or the directory name of a global or \
    project install. Only the \"enabled\" value of extension.json is changed; the rest \
    of the file keeps its formatting."
)]
pub struct NameArgs {
    /// Manifest name or directory name of the installed extension.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Scope narrowing.
    #[command(flatten)]
    pub scope: ScopeArgs,
}

/// `ext remove`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "NAME is the manifest name or the directory name of a global or \
    project install. The whole directory is deleted, state inside it included; a \
    symlinked install loses only the link. Running sessions keep their copy of the \
    extension until they reload."
)]
pub struct RemoveArgs {
    /// Manifest name or directory name of the installed extension.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Scope narrowing.
    #[command(flatten)]
    pub scope: ScopeArgs,
}

/// `ext logs`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "The log is $ZOT_HOME/logs/ext-<name>.log: the extension's stderr \
    plus the host's `[zot] ...` lines. It is created when the extension first starts."
)]
pub struct LogsArgs {
    /// Manifest name (a directory name of an install works too).
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Keep printing lines as they are appended, until Ctrl-C.
    #[arg(long, short = 'f')]
    pub follow: bool,
}

/// `ext update` / `update`.
#[derive(Args, Debug, Clone, Default)]
#[command(
    after_help = "Every global and project install that is a git checkout is \
    fast-forwarded to its upstream branch; the old and new commit are reported. Disabled \
    extensions and installs that are not git checkouts are skipped. An install with \
    changes to tracked files, local commits or a history that diverged from upstream is \
    refused and left alone. Failures do not stop the others; the exit status is 1 if any \
    failed. No build step is ever run."
)]
pub struct UpdateArgs {
    /// Only update this extension (manifest or directory name).
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Print one JSON array for scripts instead of text.
    #[arg(long)]
    pub json: bool,
}
