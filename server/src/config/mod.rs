//! Server configuration: `lodestone.toml`, `LODESTONE_*` environment variables and flags.
//!
//! Three layers, each overriding the one before: built-in defaults, the config file, then the
//! command line — where clap already lets a flag win over its environment variable. Every value
//! is checked once, here, before anything starts; an invalid one stops the server with the key,
//! where it came from and why it is wrong. What the HTTP layer needs ends up in
//! [`ServerSettings`] (the leaf `settings` module); the rest (data folder, address, store
//! tuning) in [`Config`]. The flags themselves are clap types in `cli`; the file's format is
//! [`file`]; the merging and checking is `resolve`.

mod file;
mod resolve;
#[cfg(test)]
mod tests;

pub use file::{FileConfig, SearchFileConfig, SparqlFileConfig};

use crate::settings::ServerSettings;
use anyhow::{bail, Context};
use lodestone_store::StoreOptions;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The config file read when `--config` is not given, if it exists in the working directory.
pub const DEFAULT_CONFIG_FILE: &str = "lodestone.toml";

/// Everything `lodestone serve` needs, resolved and checked.
#[derive(Debug, Clone)]
pub struct Config {
    /// Store folder.
    pub data: PathBuf,
    /// Listening address.
    pub bind: SocketAddr,
    /// Whether a new, empty store gets the bundled sample dataset.
    pub load_sample: bool,
    /// Store tuning.
    pub store: StoreOptions,
    /// The HTTP layer's settings.
    pub server: ServerSettings,
    /// The config file that was read, if any.
    pub config_file: Option<PathBuf>,
    /// The text index's settings (`[search]` in the file).
    pub text_index: lodestone_indexer::IndexSettings,
}

/// The text index settings of a config file (`lodestone.toml` in the working folder when none
/// is named and it exists; the defaults otherwise), as `serve` resolves them.
pub fn search_settings(config: Option<&Path>) -> anyhow::Result<lodestone_indexer::IndexSettings> {
    let (file, _) = config_file(config)?;
    Ok(file.search.unwrap_or_default().settings())
}

/// The config file named, else `lodestone.toml` in the working folder if it exists (parsed,
/// with its path), else the defaults.
fn config_file(named: Option<&Path>) -> anyhow::Result<(FileConfig, Option<PathBuf>)> {
    let path = match named {
        Some(path) => path.to_path_buf(),
        None if Path::new(DEFAULT_CONFIG_FILE).is_file() => PathBuf::from(DEFAULT_CONFIG_FILE),
        None => return Ok((FileConfig::default(), None)),
    };
    Ok((read_config_file(&path)?, Some(path)))
}

/// Reads and parses a config file; the error names the file, and toml's message names the key.
pub fn read_config_file(path: &Path) -> anyhow::Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the config file {}", path.display()))?;
    match toml::from_str(&text) {
        Ok(config) => Ok(config),
        Err(e) => bail!(
            "invalid configuration in {}: {}",
            path.display(),
            e.to_string().trim_end()
        ),
    }
}
