//! Server configuration: `lodestone.toml`, `LODESTONE_*` environment variables and flags.

use clap::Args;
use std::path::PathBuf;

/// `lodestone serve` options.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Store folder.
    #[arg(long, env = "LODESTONE_DATA", default_value = "./lodestone-data")]
    pub data: PathBuf,
    /// Address to listen on.
    #[arg(long, env = "LODESTONE_BIND", default_value = "127.0.0.1:7171")]
    pub bind: String,
}

/// Runs the server until it is stopped.
pub fn serve(args: ServeArgs) -> anyhow::Result<()> {
    anyhow::bail!("the HTTP server is not built yet (data folder {})", args.data.display())
}
