//! `lodestone backup`: a consistent copy of the store in a new folder.

use super::open_store;
use crate::cli::BackupArgs;
use anyhow::bail;

/// `lodestone backup`.
pub(super) fn backup(args: &BackupArgs) -> anyhow::Result<()> {
    if args.target.exists() {
        bail!("{} already exists", args.target.display());
    }
    let store = open_store(&args.data, false)?;
    store.backup(&args.target)?;
    println!("backup written to {}", args.target.display());
    Ok(())
}
