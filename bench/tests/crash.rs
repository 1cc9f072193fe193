//! The benchmark binary run as a test: a short crash run in `cargo test --workspace` (`make
//! test`), the same command `make bench-crash` runs with 200 cycles.
//!
//! `lodestone-bench crash` starts the `lodestone` binary found next to itself, which a
//! workspace build puts there (`cargo test -p lodestone-bench` alone does not build it).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

use std::process::Command;

/// A short run of the crash benchmark: kill -9 during graph replacements, restart, check.
#[test]
fn crash_cycles_keep_every_graph_whole() {
    let output = Command::new(env!("CARGO_BIN_EXE_lodestone-bench"))
        .args(["crash", "--cycles", "4", "--graphs", "12"])
        .output()
        .expect("run lodestone-bench");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(report.contains("violations:               0"), "{report}");
}
