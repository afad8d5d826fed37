//! A project as it was at a git revision, unpacked into a temporary folder: its project file, then the table
//! folders, the schema folder and the template folders that this project file names (`git archive`), so
//! that the revision is read exactly as `gentable build` would have read it then. Nothing of the working tree
//! or the index is touched.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

/// A revision's project, unpacked; the folder is removed when this is dropped.
pub struct Checkout {
    /// The project file inside the temporary folder.
    pub config: PathBuf,
    _dir: tempfile::TempDir,
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn project_dir(config: &Path) -> PathBuf {
    match config.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether `rev` names a commit of the repository holding the project file `config`.
pub fn is_revision(config: &Path, rev: &str) -> bool {
    git(
        &project_dir(config),
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .is_ok()
}

/// `a/b/../c` → `a/c` without the file system; `None` when the path leaves its root.
fn normalize(p: &Path) -> Option<PathBuf> {
    let mut out: Vec<String> = vec![];
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s.to_string_lossy().into_owned()),
            Component::ParentDir => {
                out.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out.iter().collect())
}

/// Unpack the project of `config` (a project file in a git work tree) as it was at `rev`.
pub fn checkout(config: &Path, rev: &str) -> Result<Checkout, String> {
    let dir = project_dir(config);
    let top = String::from_utf8_lossy(&git(&dir, &["rev-parse", "--show-toplevel"])?)
        .trim()
        .to_string();
    let top = std::fs::canonicalize(&top).map_err(|e| format!("{top}: {e}"))?;
    let abs_dir = std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let prefix = abs_dir
        .strip_prefix(&top)
        .map_err(|_| {
            format!(
                "{} is not inside the git work tree {}",
                dir.display(),
                top.display()
            )
        })?
        .to_path_buf();
    let name = config
        .file_name()
        .ok_or_else(|| format!("{} names no file", config.display()))?;
    let spec = |p: &Path| p.to_string_lossy().replace('\\', "/");
    let rel_config = prefix.join(name);
    let tmp = tempfile::Builder::new()
        .prefix("gentable-diff-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let text = git(&top, &["show", &format!("{rev}:{}", spec(&rel_config))])?;
    let at = tmp.path().join(&rel_config);
    if let Some(p) = at.parent() {
        std::fs::create_dir_all(p).map_err(|e| e.to_string())?;
    }
    std::fs::write(&at, text).map_err(|e| e.to_string())?;
    // The folders this revision's project file names, relative to the repository root.
    let loaded = crate::config::load(&at).map_err(|e| format!("{rev}: {e:#}"))?;
    let c = &loaded.config;
    let mut folders: Vec<PathBuf> = c.project.tables.clone();
    folders.push(c.project.schemas.clone());
    folders.extend(c.csharp.templates.iter().cloned());
    folders.extend(c.typescript.templates.iter().cloned());
    let mut paths = vec![];
    for f in folders {
        let rel = normalize(&prefix.join(&f)).ok_or_else(|| {
            format!(
                "{rev}: the folder {} lies outside the git repository",
                f.display()
            )
        })?;
        let rel = spec(&rel);
        // A folder that did not exist then is simply absent (the build reports it).
        if git(&top, &["cat-file", "-e", &format!("{rev}:{rel}")]).is_ok() {
            paths.push(rel);
        }
    }
    if !paths.is_empty() {
        let mut args = vec!["archive", "--format=tar", rev, "--"];
        args.extend(paths.iter().map(String::as_str));
        let tar = git(&top, &args)?;
        tar::Archive::new(std::io::Cursor::new(tar))
            .unpack(tmp.path())
            .map_err(|e| format!("cannot unpack {rev}: {e}"))?;
    }
    Ok(Checkout {
        config: at,
        _dir: tmp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_inside_their_root() {
        assert_eq!(
            normalize(Path::new("game/../shared/Tables")),
            Some(PathBuf::from("shared/Tables"))
        );
        assert_eq!(
            normalize(Path::new("./Table")),
            Some(PathBuf::from("Table"))
        );
        assert_eq!(normalize(Path::new("../outside")), None);
    }
}
