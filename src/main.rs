//! `gentable` command line: everything — arguments, requests, printing, exit codes — is the library's
//! [`gentable::cli`]; this file only hands it the process arguments.
//!
//! Exit codes: 0 success; 1 data errors (or stale files with `--check`); 2 usage or configuration errors.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(gentable::cli::main(std::env::args_os()))
}
