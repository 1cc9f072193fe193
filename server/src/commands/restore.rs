//! `lodestone restore`: put a backup (a folder written by `lodestone backup`) in place as the
//! store folder.
//!
//! The backup is checked by opening it read-only, copied into a temporary folder next to the
//! target, opened again there, and only then renamed into place — so an interrupted restore
//! leaves no half-copied store where the server looks for one. An existing, non-empty store
//! folder is never overwritten.

use anyhow::{bail, Context};
use lodestone_store::{Store, StoreOptions};
use std::path::{Path, PathBuf};

/// Copies the backup `source` to the (missing or empty) store folder `data`.
pub(super) fn restore(source: &Path, data: &Path) -> anyhow::Result<()> {
    let read_only = StoreOptions {
        create_if_missing: false,
        read_only: true,
        ..StoreOptions::default()
    };
    let quads = open_counting(source, &read_only)
        .with_context(|| format!("{} is not a usable Lodestone backup", source.display()))?;
    if std::fs::read_dir(data).is_ok_and(|mut entries| entries.next().is_some()) {
        bail!(
            "{} is not empty: restore into a new folder (or move the old store away first)",
            data.display()
        );
    }
    let staging = staging_folder(data)?;
    if staging.exists() {
        std::fs::remove_dir_all(&staging)
            .with_context(|| format!("cannot remove the leftover {}", staging.display()))?;
    }
    copy_tree(source, &staging)?;
    let restored = open_counting(&staging, &read_only)
        .with_context(|| format!("the copy in {} does not open", staging.display()))?;
    if restored != quads {
        bail!("the copy holds {restored} quads, the backup {quads}");
    }
    if data.exists() {
        std::fs::remove_dir(data).with_context(|| format!("cannot replace {}", data.display()))?;
    }
    std::fs::rename(&staging, data)
        .with_context(|| format!("cannot move {} to {}", staging.display(), data.display()))?;
    println!(
        "restored {quads} quads from {} into {}",
        source.display(),
        data.display()
    );
    Ok(())
}

fn open_counting(path: &Path, options: &StoreOptions) -> anyhow::Result<u64> {
    let store = Store::open(path, options.clone())?;
    let quads = store.reader().quad_count()?;
    Ok(quads)
}

/// `DATA.restoring` beside the target, on the same file system so that the rename is atomic.
fn staging_folder(data: &Path) -> anyhow::Result<PathBuf> {
    let name = data
        .file_name()
        .with_context(|| format!("{} has no folder name", data.display()))?;
    let mut staging = name.to_owned();
    staging.push(".restoring");
    Ok(data.with_file_name(staging))
}

fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!(
                    "cannot copy {} to {}",
                    entry.path().display(),
                    target.display()
                )
            })?;
        }
    }
    // The copy must be on disk before it is renamed into place.
    std::fs::File::open(to)?.sync_all()?;
    Ok(())
}
