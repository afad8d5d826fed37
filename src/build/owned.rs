//! The folders under `generated/` whose files gentable owns, and the files there that a build does not
//! produce (removed by a full build, reported by `build --check`, and a reason to rebuild).

use std::path::Path;

/// Folders under `generated/` whose files gentable owns (stale ones are removed).
pub const OWNED: &[&str] = &[
    "data",
    "rust/src",
    "rust/code/src",
    "rust/data",
    "csharp",
    "ts",
];

/// Folders under the generated folder that belong to the user's tools (a build of the generated crate, npm,
/// .NET): never stale, never walked.
pub(crate) const NOT_OWNED_DIRS: &[&str] = &["target", "node_modules", "bin", "obj", "dist"];

/// Files (relative, `/`) under the owned folders of `dir` that `files` does not produce.
pub(crate) fn extra_files<V>(
    dir: &Path,
    files: &std::collections::BTreeMap<String, V>,
) -> Vec<String> {
    let mut out = vec![];
    for owned in OWNED {
        collect(&dir.join(owned), owned, &mut out);
    }
    out.retain(|f| !files.contains_key(f));
    out.sort();
    out
}

fn collect(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let r = format!("{rel}/{name}");
        match e.file_type() {
            Ok(t) if t.is_dir() => {
                if !NOT_OWNED_DIRS.contains(&name.as_str()) {
                    collect(&e.path(), &r, out)
                }
            }
            // Unity writes a `.meta` file beside every asset; they are the user's, never stale.
            Ok(_) if name.ends_with(".meta") => {}
            Ok(_) => out.push(r),
            Err(_) => {}
        }
    }
}
