//! `lodestone backup`: a consistent copy of the store in a new folder.

use super::open_store_to_read;
use crate::cli::BackupArgs;
use anyhow::bail;

/// `lodestone backup`.
pub(super) fn backup(args: &BackupArgs) -> anyhow::Result<()> {
    if args.target.exists() {
        bail!("{} already exists", args.target.display());
    }
    let store = open_store_to_read(&args.data)?;
    store.backup(&args.target)?;
    println!("backup written to {}", args.target.display());
    Ok(())
}
