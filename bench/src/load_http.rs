//! `load-http`: `wrk` against the real server on the bundled sample dataset, cycling through a
//! list of requests (`bench/load-mix.txt`, one GET path per line, so that other routes are
//! added by adding lines). Prints wrk's figures, the errors (socket errors and non-2xx
//! answers), and the server's resident memory after a warm-up and after the run.

use crate::process::{lodestone_binary, ServerProcess};
use anyhow::{bail, Context};
use std::path::PathBuf;
use std::process::Command;

/// Options of `lodestone-bench load-http`.
#[derive(Debug, clap::Args)]
pub(crate) struct LoadHttpArgs {
    /// Seconds of load.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Open connections.
    #[arg(long, default_value_t = 64)]
    pub connections: usize,
    /// wrk threads.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// The request list.
    #[arg(long, default_value = "bench/load-mix.txt")]
    pub mix: PathBuf,
    /// Seconds of warm-up before the memory is first measured.
    #[arg(long, default_value_t = 10)]
    pub warmup: u64,
}

/// The wrk script: each connection walks the list from its own starting point.
fn lua_script(paths: &[String]) -> String {
    let list: Vec<String> = paths
        .iter()
        .map(|p| format!("  {:?},", p.replace('\\', "\\\\")))
        .collect();
    format!(
        "local paths = {{\n{}\n}}\nlocal i = 0\nwrk.headers[\"Accept\"] = \"application/sparql-results+json, text/turtle;q=0.9, */*;q=0.1\"\nfunction setup(thread) thread:set(\"id\", math.random(1, #paths)) end\nfunction init(args) i = id or 0 end\nfunction request()\n  i = i % #paths + 1\n  return wrk.format(\"GET\", paths[i])\nend\n",
        list.join("\n")
    )
}

fn run_wrk(
    base: &str,
    script: &std::path::Path,
    args: &LoadHttpArgs,
    seconds: u64,
) -> anyhow::Result<String> {
    let output = Command::new("wrk")
        .arg(format!("-t{}", args.threads))
        .arg(format!("-c{}", args.connections))
        .arg(format!("-d{seconds}s"))
        .arg("--latency")
        .arg("--timeout")
        .arg("30s")
        .arg("-s")
        .arg(script)
        .arg(base)
        .output()
        .context("cannot run wrk (install it with `make deps`)")?;
    if !output.status.success() {
        bail!("wrk failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The number after `label` in wrk's report (0 if the line is absent, as wrk omits zeros).
fn wrk_count(report: &str, label: &str) -> u64 {
    report
        .lines()
        .find_map(|line| line.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Socket errors (connect, read, write, timeout) summed from wrk's report.
fn socket_errors(report: &str) -> u64 {
    report
        .lines()
        .find_map(|line| line.trim().strip_prefix("Socket errors:"))
        .map_or(0, |rest| {
            rest.split(',')
                .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
                .sum()
        })
}

/// Runs the benchmark; fails if any request failed.
pub(crate) fn run(args: &LoadHttpArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.mix)
        .with_context(|| format!("cannot read {}", args.mix.display()))?;
    let paths: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    if paths.is_empty() {
        bail!("{} lists no request", args.mix.display());
    }
    let temp = tempfile::tempdir()?;
    let script = temp.path().join("mix.lua");
    std::fs::write(&script, lua_script(&paths))?;
    let slots = args.connections.max(16).to_string();
    let server = ServerProcess::start(
        &lodestone_binary()?,
        &temp.path().join("data"),
        &["--max-concurrent-queries", &slots],
    )?;
    println!(
        "load-http: {} requests in the mix, {} connections, {} s (sample dataset; query slots = {slots})",
        paths.len(),
        args.connections,
        args.seconds
    );
    run_wrk(&server.url("/"), &script, args, args.warmup)?;
    let before = server.rss_kib().unwrap_or(0);
    let report = run_wrk(&server.url("/"), &script, args, args.seconds)?;
    let after = server.rss_kib().unwrap_or(0);
    print!("{report}");
    let non_2xx = wrk_count(&report, "Non-2xx or 3xx responses:");
    let socket = socket_errors(&report);
    println!(
        "errors: {non_2xx} non-2xx answers, {socket} socket errors; memory after warm-up {} MiB, after the run {} MiB ({:+.1} %)",
        before / 1024,
        after / 1024,
        (after as f64 - before as f64) * 100.0 / before.max(1) as f64
    );
    server.terminate()?;
    if non_2xx + socket > 0 {
        bail!("{} failed requests", non_2xx + socket);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_reports_are_read() {
        let report = "  Socket errors: connect 0, read 2, write 0, timeout 3\n  Non-2xx or 3xx responses: 17\n";
        assert_eq!(socket_errors(report), 5);
        assert_eq!(wrk_count(report, "Non-2xx or 3xx responses:"), 17);
        assert_eq!(wrk_count("", "Non-2xx or 3xx responses:"), 0);
    }

    #[test]
    fn the_script_lists_every_path() {
        let script = lua_script(&["/a?q=%22".into(), "/health".into()]);
        assert!(script.contains("\"/a?q=%22\","));
        assert!(script.contains("\"/health\","));
    }
}
