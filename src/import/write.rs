//! Writing an imported or new project: files are created or replaced only when their content changes, files
//! an earlier import wrote (they carry [`crate::import::luban::map::MARKER`]) and that are no longer
//! produced are removed, and `--check` writes nothing but lists what would change.

use std::path::Path;

/// One change a write makes (or, with `check`, would make).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Create(String),
    Update(String),
    Remove(String),
}

impl Change {
    /// `create schema/Item.schema.json` in `lang`.
    pub fn say(&self, lang: crate::diag::lang::Lang) -> String {
        use crate::diag::lang::frame;
        match self {
            Change::Create(p) => frame(lang, "create {}", &[p]),
            Change::Update(p) => frame(lang, "update {}", &[p]),
            Change::Remove(p) => frame(lang, "remove {}", &[p]),
        }
    }
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::Create(p) => write!(f, "create {p}"),
            Change::Update(p) => write!(f, "update {p}"),
            Change::Remove(p) => write!(f, "remove {p}"),
        }
    }
}

/// Write `files` (`(relative path, content)`) under `dir`. `marker`: a text whose presence marks a schema
/// file as written by an earlier run (stale ones are removed). With `check`, nothing is written. Errors:
/// I/O, with the path.
pub fn write(
    dir: &Path,
    files: &[(String, String)],
    marker: Option<&str>,
    check: bool,
) -> anyhow::Result<Vec<Change>> {
    let mut changes = vec![];
    for (rel, text) in files {
        let p = dir.join(rel);
        match std::fs::read(&p) {
            Ok(old) if old == text.as_bytes() => {}
            Ok(_) => changes.push(Change::Update(rel.clone())),
            Err(_) => changes.push(Change::Create(rel.clone())),
        }
    }
    if let Some(m) = marker {
        let schema = dir.join("schema");
        let mut olds: Vec<_> = std::fs::read_dir(&schema)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".schema.json"))
            .collect();
        olds.sort();
        for n in olds {
            let rel = format!("schema/{n}");
            if files.iter().any(|(r, _)| *r == rel) {
                continue;
            }
            if std::fs::read_to_string(schema.join(&n)).is_ok_and(|t| t.contains(m)) {
                changes.push(Change::Remove(rel));
            }
        }
    }
    if check {
        return Ok(changes);
    }
    for c in &changes {
        match c {
            Change::Create(rel) | Change::Update(rel) => {
                let p = dir.join(rel);
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
                }
                let text = &files.iter().find(|(r, _)| r == rel).expect("listed").1;
                std::fs::write(&p, text)
                    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
            }
            Change::Remove(rel) => {
                let p = dir.join(rel);
                std::fs::remove_file(&p)
                    .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", p.display()))?;
            }
        }
    }
    Ok(changes)
}

/// What a command of `import/` printed and its exit code (0 done; 1 `--check` found changes or data
/// problems; 2 bad input or usage).
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: u8,
}

impl Report {
    /// A report of diagnostics (human format) with exit code 2.
    pub fn failed(diags: Vec<crate::diag::Diagnostic>) -> Report {
        Report::failed_in(diags, crate::diag::lang::Lang::En)
    }

    /// [`Report::failed`] in `lang`.
    pub fn failed_in(diags: Vec<crate::diag::Diagnostic>, lang: crate::diag::lang::Lang) -> Report {
        let mut d = crate::diag::Diagnostics { items: diags };
        d.sort();
        let mut stderr: String =
            crate::diag::render::render_in(&d, crate::diag::render::Format::Human, lang)
                .into_iter()
                .map(|s| s + "\n")
                .collect();
        stderr.push_str(&crate::diag::lang::frame(
            lang,
            "{} error(s); nothing was written",
            &[&d.items.len()],
        ));
        stderr.push('\n');
        Report {
            stdout: String::new(),
            stderr,
            exit_code: 2,
        }
    }
}
