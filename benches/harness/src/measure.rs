//! Measuring one child process: wall time, CPU time and peak memory, from `wait4` in a small wrapper process (so exactly that child and
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

/// The first argument of this harness binary when it runs as the measuring wrapper of [`run`].
const MEASURE_CHILD: &str = "--measure-child";

/// Run `cmd` to completion with stdout discarded and stderr in `log`; panics (with the log) if it fails.
///
/// The child is started by a fresh copy of this binary ([`child_mode`]), which waits for it with `wait4` and
/// reports the figures. Linux's `ru_maxrss` of a child includes the high-water mark of the address space it
/// was started from (a fork's copy of the parent's, or with `posix_spawn` the parent's own until exec, which
/// records it), so a child started straight from this harness after it read a 200,000-row workbook for the
/// read floor "used" the harness's 536 MB whatever the child did. The wrapper is small when it starts one.
pub fn run(cmd: &mut Command, log: &Path) -> Run {
    let err = std::fs::File::create(log).expect("log file");
    let report = log.with_extension("rusage");
    let _ = std::fs::remove_file(&report);
    let mut wrapper = Command::new(std::env::current_exe().expect("the harness binary"));
    wrapper
        .arg(MEASURE_CHILD)
        .arg(&report)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        wrapper.current_dir(dir);
    }
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => wrapper.env(k, v),
            None => wrapper.env_remove(k),
        };
    }
    let status = wrapper
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .status()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    if !status.success() {
        panic!(
            "{cmd:?} failed ({status}):\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    }
    let text = std::fs::read_to_string(&report).expect("the wrapper's report");
    let n: Vec<u64> = text
        .split_whitespace()
        .map(|x| x.parse().expect("a number"))
        .collect();
    Run {
        wall: Duration::from_nanos(n[0]),
        cpu: Duration::from_nanos(n[1]),
        max_rss_kb: n[2],
    }
}

/// When this binary was started by [`run`] as the measuring wrapper (`--measure-child <report> <program>
/// <args>…`): run the program with this process's stdio, reap it with `wait4`, write `wall-ns cpu-ns
/// max-rss-KiB` to the report file and exit with the program's exit code (1 if a signal ended it). Call first thing in `main`; returns
/// otherwise.
// The child is reaped by `wait4`, not by `Child::wait`.
#[allow(clippy::zombie_processes)]
pub fn child_mode() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().map(|a| a.as_os_str()) != Some(std::ffi::OsStr::new(MEASURE_CHILD)) {
        return;
    }
    let report = &args[1];
    let t = Instant::now();
    let child = Command::new(&args[2])
        .args(&args[3..])
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", args[2]));
    let mut status = 0;
    // SAFETY: plain FFI call with valid pointers; the child is ours and not waited on elsewhere.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    let wall = t.elapsed();
    assert!(r > 0, "wait4 failed");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
    std::fs::write(
        report,
        format!("{} {} {}\n", wall.as_nanos(), cpu.as_nanos(), ru.ru_maxrss),
    )
    .expect("the report file");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        1
    };
    std::process::exit(code);
}

/// `1.23 s` or `456 ms`.
pub fn secs(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{:.0} ms", d.as_secs_f64() * 1e3)
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}
