//! Settings of the memory allocator (mimalloc) for a long-running server or a load in a
//! small memory budget.
//!
//! mimalloc is built to replace `malloc` and `free` too (the `override` feature), so RocksDB's
//! blocks, table readers and compaction buffers come from it as well. Left to glibc, whose
//! per-thread arenas keep what the engine's threads free, they held about 600 MB at the end
//! of a 100 M-quad load with a 256 MB share of block cache, and the load's peak grew with the
//! input (1.45–1.50 GiB at 35 M quads, 1.93 GiB at 100 M). Through mimalloc the 35 M load
//! peaks at 1.27–1.29 GiB at the same speed; with chunks half as large again, the 35 M load
//! peaks at 1.62–1.74 GiB and the 100 M load at 1.72 GiB (docs/benchmarks.md, Session 37).
//!
//! mimalloc reads its settings from the environment once, when the process starts, so a
//! process that wants other settings executes itself again, once, with them set (same
//! process id, same arguments).
//!
//! Neither a server nor a load should use transparent huge pages for the allocator's arenas:
//! freed memory is returned to the system in small pieces and touched again moments later,
//! and each touch of a huge page makes the kernel clear 2 MB. Measured on entity pages (BSBM
//! 10k, 16 clients): the same CPU per page, a resident size of 230 MB instead of 350–380 MB,
//! and the kernel's page clearing gone from the top of the profile (it was 11–13 % of the
//! CPU). Measured on a load of BSBM 10k: 18.1 → 15.3 s, 7.5 → 2.3 s of system time (page
//! clearing was a fifth of the samples, under every growing buffer of each chunk).

use anyhow::Context;

/// Settings every server, load and text index build runs with.
pub const LONG_RUNNING: [(&str, &str); 1] = [("MIMALLOC_ALLOW_THP", "0")];

/// Added on a small memory budget: freed memory goes back to the system at once and arenas
/// are committed only as they are used, trading some speed for a smaller resident size.
pub const SMALL_FOOTPRINT: [(&str, &str); 2] = [
    ("MIMALLOC_PURGE_DELAY", "0"),
    ("MIMALLOC_ARENA_EAGER_COMMIT", "0"),
];

/// Executes the running program again with the given settings added to its environment,
/// unless each is already set (then it returns at once). Returns only on failure otherwise.
pub fn restart_with(settings: &[(&str, &str)]) -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let missing: Vec<(&str, &str)> = settings
        .iter()
        .copied()
        .filter(|(name, _)| std::env::var_os(name).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let program = std::env::current_exe().context("cannot find the running executable")?;
    let error = std::process::Command::new(program)
        .args(std::env::args_os().skip(1))
        .envs(missing)
        .exec();
    Err(anyhow::Error::new(error).context("cannot restart with the allocator's settings"))
}
