//! Measuring one child process: wall time, CPU time and peak memory, from `wait4` (so exactly that child and
//! the children it waited for: cargo's rustc processes are counted in cargo's figures).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one child process cost.
pub struct Run {
    pub wall: Duration,
    /// User + system CPU time of the child and its waited-for descendants.
    pub cpu: Duration,
    /// The largest resident set of the child or any waited-for descendant, in KiB.
    pub max_rss_kb: u64,
}

/// Run `cmd` to completion with stdout discarded and stderr in `log`; panics (with the log) if it fails.
// The child is reaped by `wait4`, not by `Child::wait`.
#[allow(clippy::zombie_processes)]
pub fn run(cmd: &mut Command, log: &Path) -> Run {
    let err = std::fs::File::create(log).expect("log file");
    let t = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let mut status = 0;
    // SAFETY: plain FFI call with valid pointers; the child is ours and not waited on elsewhere.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    let wall = t.elapsed();
    assert!(r > 0, "wait4 failed");
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        panic!(
            "{cmd:?} failed (status {status}):\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Run {
        wall,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        max_rss_kb: ru.ru_maxrss as u64,
    }
}

/// `1.23 s` or `456 ms`.
pub fn secs(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{:.0} ms", d.as_secs_f64() * 1e3)
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}
