//! `gentable` command line: everything — arguments, requests, printing, exit codes — is the library's
//! [`gentable::cli`]; this file only hands it the process arguments.
//!
//! Exit codes: 0 success; 1 data errors (or stale files with `--check`); 2 usage or configuration errors.

use std::process::ExitCode;

/// mimalloc instead of the system allocator: a build allocates millions of small cells, strings and rows on
/// both cores; glibc's per-thread arenas grew them one `mprotect` call at a time and kept more memory
/// resident (docs/performance.md, issue 18).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    no_transparent_huge_pages();
    ExitCode::from(gentable::cli::main(std::env::args_os()))
}

/// Turns transparent huge pages off for this process (Linux `prctl(PR_SET_THP_DISABLE)`), before the build
/// allocates. mimalloc asks for huge pages on its 1 GiB arenas (`MADV_HUGEPAGE`) and later returns freed
/// 64 KiB spans of them to the kernel; every fresh touch of such a span had the kernel zero a whole 2 MiB
/// page again. On the benchmark's one-million-row CSV that was 30 % of all CPU cycles in `clear_page_erms`:
/// system time 4.7–5.0 s with huge pages, 1.6–2.3 s without, the same peak memory (docs/performance.md,
/// issue 18). A failure (an old kernel, a sandbox refusing `prctl`) changes nothing but the speed.
fn no_transparent_huge_pages() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}
