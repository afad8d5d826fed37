//! Helpers shared by the integration tests (`mod common;`): the designer's tools and the fidelity suite.

// Each test file uses what it needs of these helpers.
#![allow(dead_code)]

pub mod binary;
pub mod fidelity;
pub mod zh;

use std::path::Path;

/// Copy the folder `from` to `to`, recursively (leaving out `target/` folders).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if e.file_name() == "target" {
            continue;
        }
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}
