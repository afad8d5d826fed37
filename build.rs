//! Build script: `GENTABLE_BUILD_ID`, a hash of the sources that make up this gentable binary (`src/`,
//! `Cargo.lock`), so that the incremental cache (`src/build/cache.rs`) of one build is
//! never trusted by a different one, even at the same version number.

use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let mut files = vec![PathBuf::from("Cargo.lock"), PathBuf::from("Cargo.toml")];
    println!("cargo:rerun-if-changed=src");
    walk(Path::new("src"), &mut files);
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=Cargo.toml");
    files.sort();
    let mut h = DefaultHasher::new();
    for f in &files {
        h.write(f.to_string_lossy().as_bytes());
        h.write_u8(0);
        if let Ok(b) = std::fs::read(f) {
            h.write_usize(b.len());
            h.write(&b);
        }
    }
    println!("cargo:rustc-env=GENTABLE_BUILD_ID={:016x}", h.finish());
}
