//! The atomic commit of the generated folder: at every instant it is the old or the new complete state, and
//! whatever a killed build leaves behind, the next one completes or removes (docs/conventions.md §6
//! "Writing generated/").
//!
//! A commit builds the whole new folder as a hidden sibling, `.<name>.gentable-new`, then swaps the two
//! folders in one step:
//!
//! 1. **Stage.** Every file of the old folder that stays (unchanged outputs, Unity `.meta` files, the user's
//!    files) is hard-linked into the staging folder, so its inode and modification time do not change
//!    (Unity and the build cache see the same file); changed outputs are written there; stale outputs are
//!    left out. Symbolic links are recreated as links. Folders the user's tools own (`target/`,
//!    `node_modules/`, `bin/`, `obj/`, `dist/`) are not walked.
//! 2. **Journal.** `.<name>.gentable-moved` lists those tool folders; it is written once staging is complete,
//!    so its existence says the staging folder is complete.
//! 3. **Move** each tool folder into the staging folder (a rename: instant, whatever its size).
//! 4. **Swap.** On Linux `renameat2(RENAME_EXCHANGE)` (macOS: `renamex_np(RENAME_SWAP)`) exchanges the two
//!    folders atomically: the generated folder's path names the new tree, the staging name the old one.
//!    Elsewhere (or on a file system without it) the old folder is renamed to `.<name>.gentable-old` and the
//!    staging folder into place; between those two renames the folder is briefly absent.
//! 5. **Clean up**: the journal, then the old tree.
//!
//! [`recover`] runs before every commit (and every build, under the project lock): with a journal it moves
//! back any tool folder still in the staging folder, rolls a half-done fallback swap forward (the staging
//! folder was complete), then removes the staging folder, the old tree and the journal. A failed commit
//! (disk full, a folder where an output file must go) undoes itself the same way and reports the error; the
//! generated folder is untouched.
//!
//! For the kill test (tests/commit.rs), every step is a numbered [`checkpoint`]: `GENTABLE_PAUSE_AT=N`
//! makes the process print `gentable: paused at step N (…)` and wait there (to be killed),
//! `GENTABLE_FAIL_AT=N` makes step N fail like a full disk, and `GENTABLE_NO_EXCHANGE=1` takes the
//! two-rename fallback of step 4 where the atomic exchange exists.

use super::owned::NOT_OWNED_DIRS;

/// Folders of the generated folder that are moved whole, never walked: the tools' ([`NOT_OWNED_DIRS`]) and
/// version control's.
fn moved_whole(name: &str) -> bool {
    NOT_OWNED_DIRS.contains(&name) || matches!(name, ".git" | ".svn" | ".hg")
}
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The hidden siblings of the generated folder `dir`: (staging folder, fallback old folder, journal).
pub fn siblings(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let parent = dir.parent().unwrap_or(Path::new("."));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "generated".into());
    (
        parent.join(format!(".{name}.gentable-new")),
        parent.join(format!(".{name}.gentable-old")),
        parent.join(format!(".{name}.gentable-moved")),
    )
}

static STEP: AtomicUsize = AtomicUsize::new(0);

/// One numbered step of a commit, for the kill and failure tests (see the module docs).
pub fn checkpoint(what: &str) -> io::Result<()> {
    let n = STEP.fetch_add(1, Ordering::SeqCst) + 1;
    let at = |var: &str| {
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
    };
    if at("GENTABLE_FAIL_AT") == Some(n) {
        return Err(io::Error::new(
            io::ErrorKind::StorageFull,
            format!("no space left on device (GENTABLE_FAIL_AT={n}, {what})"),
        ));
    }
    if at("GENTABLE_PAUSE_AT") == Some(n) {
        use std::io::Write;
        let _ = writeln!(io::stderr(), "gentable: paused at step {n} ({what})");
        let _ = io::stderr().flush();
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    Ok(())
}

/// Complete or remove what an earlier commit of `dir` left (see the module docs). Never fails on a missing
/// piece: what is not there is already done.
pub fn recover(dir: &Path) -> io::Result<()> {
    let (staging, old, journal) = siblings(dir);
    if let Some(moved) = read_journal(&journal) {
        // A fallback swap that stopped between its two renames: the staging folder is complete (the
        // journal is written only then), so it becomes the generated folder.
        if dir.symlink_metadata().is_err() && staging.is_dir() {
            std::fs::rename(&staging, dir)?;
        }
        // Tool folders still in the staging folder (the swap did not happen) go back.
        for rel in &moved {
            let (from, to) = (staging.join(rel), dir.join(rel));
            if from.symlink_metadata().is_ok() && to.symlink_metadata().is_err() {
                if let Some(p) = to.parent() {
                    std::fs::create_dir_all(p)?;
                }
                std::fs::rename(&from, &to)?;
            }
        }
    } else if dir.symlink_metadata().is_err() && old.is_dir() {
        // Cannot happen (the journal is written before any rename), but never lose the old state.
        std::fs::rename(&old, dir)?;
    }
    for leftover in [&staging, &old] {
        if leftover.symlink_metadata().is_ok() {
            std::fs::remove_dir_all(leftover)?;
        }
    }
    if journal.symlink_metadata().is_ok() {
        std::fs::remove_file(&journal)?;
    }
    Ok(())
}

fn read_journal(path: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// What the new generated folder holds: `write` are the files to write (relative, `/`), `drop` the stale
/// ones of the old folder to leave out. Every other file of the old folder stays.
pub struct NewState<'a> {
    pub write: Vec<(&'a str, &'a [u8])>,
    pub drop: BTreeSet<&'a str>,
}

/// Commit `state` to `dir` (see the module docs). On error the generated folder is unchanged.
pub fn commit(dir: &Path, state: &NewState) -> io::Result<()> {
    // A generated folder that is a symbolic link: swap the folder it points at, keep the link.
    let real;
    let dir = match dir.symlink_metadata() {
        Ok(m) if m.file_type().is_symlink() => {
            real = dir.canonicalize()?;
            real.as_path()
        }
        _ => dir,
    };
    recover(dir)?;
    let (staging, _, journal) = siblings(dir);
    match stage_and_swap(dir, &staging, &journal, state) {
        Ok(()) => {
            // The new state is in place: what is left is cleaning up, which the next build finishes if
            // this one cannot (so a failing step here is not an error of the commit).
            let _ = checkpoint("swapped");
            let _ = std::fs::remove_file(&journal);
            let _ = checkpoint("journal removed");
            let _ = std::fs::remove_dir_all(&staging);
            let _ = checkpoint("old tree removed");
            Ok(())
        }
        Err(e) => {
            // Undo: tool folders back, staging and journal gone. The old folder was never changed.
            let _ = recover(dir);
            Err(e)
        }
    }
}

/// Steps 1 to 4 of the module docs; `Ok` once the new tree is in place.
fn stage_and_swap(dir: &Path, staging: &Path, journal: &Path, state: &NewState) -> io::Result<()> {
    let existed = dir.is_dir();
    // A folder where an output file must go is the user's: refuse instead of deleting it.
    for (rel, _) in &state.write {
        if dir.join(rel).is_dir() {
            return Err(io::Error::other(format!(
                "{} is a folder, but gentable writes a file there; move the folder away",
                dir.join(rel).display()
            )));
        }
    }
    std::fs::create_dir_all(staging)?;
    if existed {
        if let Ok(m) = std::fs::metadata(dir) {
            let _ = std::fs::set_permissions(staging, m.permissions());
        }
    }
    checkpoint("staging folder created")?;
    let written: BTreeSet<&str> = state.write.iter().map(|(r, _)| *r).collect();
    let mut tools = vec![];
    if existed {
        carry(dir, staging, "", &written, &state.drop, &mut tools)?;
    }
    for (rel, bytes) in &state.write {
        let path = staging.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p)?;
        }
        std::fs::write(&path, bytes)?;
        checkpoint(&format!("wrote {rel}"))?;
    }
    // The journal says: staging is complete, these tool folders move.
    let tmp = journal.with_extension("tmp");
    std::fs::write(&tmp, tools.join("\n") + "\n")?;
    std::fs::rename(&tmp, journal)?;
    checkpoint("journal written")?;
    for rel in &tools {
        std::fs::rename(dir.join(rel), staging.join(rel))?;
        checkpoint(&format!("moved {rel}"))?;
    }
    checkpoint("before the swap")?;
    if existed {
        swap(dir, staging)
    } else {
        std::fs::rename(staging, dir)
    }
}

/// Link (or copy) every file of `from/rel` that stays into `to/rel`, recreating folders and symbolic links;
/// tool folders are collected in `tools` instead.
fn carry(
    from: &Path,
    to: &Path,
    rel: &str,
    written: &BTreeSet<&str>,
    drop: &BTreeSet<&str>,
    tools: &mut Vec<String>,
) -> io::Result<()> {
    let here = if rel.is_empty() {
        from.to_path_buf()
    } else {
        from.join(rel)
    };
    let mut entries: Vec<_> = std::fs::read_dir(&here)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let r = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let t = e.file_type()?;
        let target = to.join(&r);
        if t.is_symlink() {
            let link = std::fs::read_link(e.path())?;
            symlink(&link, &target)?;
        } else if t.is_dir() {
            if moved_whole(&name) {
                tools.push(r);
                std::fs::create_dir_all(target.parent().unwrap_or(to))?;
                continue;
            }
            std::fs::create_dir_all(&target)?;
            if let Ok(m) = e.metadata() {
                let _ = std::fs::set_permissions(&target, m.permissions());
            }
            carry(from, to, &r, written, drop, tools)?;
        } else if !written.contains(r.as_str()) && !drop.contains(r.as_str()) {
            link_or_copy(&e.path(), &target)?;
            checkpoint(&format!("kept {r}"))?;
        }
    }
    Ok(())
}

/// A hard link (same inode and modification time); a copy with the same modification time where the file
/// system has no hard links.
fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(_) => {
            std::fs::copy(from, to)?;
            let mtime = std::fs::metadata(from)?.modified()?;
            std::fs::File::options()
                .write(true)
                .open(to)?
                .set_modified(mtime)
        }
    }
}

#[cfg(unix)]
fn symlink(link: &Path, at: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(link, at)
}

#[cfg(windows)]
fn symlink(link: &Path, at: &Path) -> io::Result<()> {
    std::os::windows::fs::symlink_file(link, at)
}

/// Exchange the folders `a` and `b` atomically where the system can; else rename `a` away and `b` into
/// place (see the module docs).
fn swap(a: &Path, b: &Path) -> io::Result<()> {
    // `GENTABLE_NO_EXCHANGE=1` takes the fallback where the exchange exists too (the kill test runs both).
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios"
    ))]
    if std::env::var_os("GENTABLE_NO_EXCHANGE").is_none() {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            // Not supported here (an old kernel, a file system without it): fall back.
            Err(e)
                if e == rustix::io::Errno::INVAL
                    || e == rustix::io::Errno::NOSYS
                    || e == rustix::io::Errno::NOTSUP => {}
            Err(e) => return Err(e.into()),
        }
    }
    let (_, old, _) = siblings(a);
    std::fs::rename(a, &old)?;
    checkpoint("old folder set aside")?;
    std::fs::rename(b, a)?;
    std::fs::rename(&old, b)
}
