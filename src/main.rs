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
    ExitCode::from(gentable::cli::main(std::env::args_os()))
}
