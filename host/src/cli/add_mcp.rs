//! `zot-host ext add-mcp NAME -- COMMAND…`: installs an MCP server as an
//! extension. The manifest runs `zot-mcp wrap --name NAME -- COMMAND…`
//! (zot-mcp on `PATH`); it is written into a fresh folder and installed
//! like any folder (`ext install`), under NAME.

use std::io::Write;

use crate::cli::command_line::{AddMcpArgs, InstallArgs};
use crate::cli::{install, CliError, CliOutcome, Context};

/// The manifest of an MCP server run through `zot-mcp wrap`. `--name`
/// makes the extension announce the manifest's name (not the MCP server's)
/// and prefix its prompt commands with it (`/NAME:prompt`).
pub fn manifest(name: &str, command: &[String]) -> serde_json::Value {
    let mut args = ["wrap", "--name", name, "--"].map(str::to_owned).to_vec();
    args.extend(command.iter().cloned());
    serde_json::json!({
        "name": name,
        "description": format!("MCP server: {}", command.join(" ")),
        "exec": "zot-mcp",
        "args": args,
    })
}

/// Writes the manifest into a temporary folder and installs that folder.
pub fn run(ctx: &Context, args: &AddMcpArgs, out: &mut dyn Write) -> Result<CliOutcome, CliError> {
    let staging = tempfile::Builder::new().prefix("zot-add-mcp-").tempdir()?;
    let dir = staging.path().join(&args.name);
    std::fs::create_dir(&dir)?;
    let text = serde_json::to_string_pretty(&manifest(&args.name, &args.command))
        .map_err(std::io::Error::other)?;
    std::fs::write(dir.join("extension.json"), text + "\n")?;
    let install_args = InstallArgs {
        source: dir.to_string_lossy().into_owned(),
        name: Some(args.name.clone()),
        force: args.force,
    };
    install::run(ctx, &install_args, out)
}
