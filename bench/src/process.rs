//! A `lodestone serve` child process on 127.0.0.1:0, for benchmarks that kill, restart or
//! measure the real server: started, waited for, killed with SIGKILL or stopped with SIGTERM.

use anyhow::{bail, Context};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The `lodestone` binary next to this benchmark binary (cargo builds both in one folder).
pub(crate) fn lodestone_binary() -> anyhow::Result<PathBuf> {
    let bench = std::env::current_exe().context("cannot find the benchmark binary")?;
    let binary = bench.with_file_name("lodestone");
    if !binary.is_file() {
        bail!(
            "{} is missing: build it in this binary's profile \
             (`cargo build --profile dist -p lodestone-server -p lodestone-bench`, as `make` does)",
            binary.display()
        );
    }
    Ok(binary)
}

/// A running server.
pub(crate) struct ServerProcess {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Time from the start of the process to its first `/health` answer.
    pub startup: Duration,
}

impl ServerProcess {
    /// Starts `lodestone serve --data DATA --bind 127.0.0.1:0 ARGS…` and waits until it
    /// answers `/health`.
    pub(crate) fn start(binary: &Path, data: &Path, args: &[&str]) -> anyhow::Result<Self> {
        let start = Instant::now();
        let mut child = Command::new(binary)
            .arg("serve")
            .arg("--data")
            .arg(data)
            .args(["--bind", "127.0.0.1:0"])
            .args(args)
            // The "listening on" line of `lodestone serve`.
            .env("RUST_LOG", "warn,lodestone_server::commands::serve=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", binary.display()))?;
        let stderr = child.stderr.take().context("no stderr")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let _ = tx.send(line[at + "listening on ".len()..].trim().to_owned());
                }
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(600)) {
            Ok(base) => base,
            Err(_) => {
                let _ = child.kill();
                bail!("the server did not start: {:?}", child.wait());
            }
        };
        let client = reqwest::blocking::Client::new();
        while !client
            .get(format!("{base}/health"))
            .send()
            .is_ok_and(|r| r.status().is_success())
        {
            if start.elapsed() > Duration::from_secs(600) {
                bail!("the server does not answer /health");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(Self {
            child,
            base,
            startup: start.elapsed(),
        })
    }

    /// `base` + `path`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory in KiB (Linux).
    pub(crate) fn rss_kib(&self) -> Option<u64> {
        proc_status_kib(self.child.id(), "VmRSS:")
    }

    /// Kills the process with SIGKILL (no chance to flush anything) and reaps it.
    pub(crate) fn kill(mut self) -> anyhow::Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }

    /// Sends SIGTERM and waits for a clean exit.
    pub(crate) fn terminate(mut self) -> anyhow::Result<()> {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()?;
        if !status.success() {
            bail!("kill -TERM failed");
        }
        let exit = self.child.wait()?;
        if !exit.success() {
            bail!("the server exited with {exit}");
        }
        Ok(())
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `kB` field of `/proc/PID/status`.
fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
