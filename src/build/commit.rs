//! The atomic commit of the generated folder: at every instant it is the old or the new complete state, and
//! whatever a killed build leaves behind, the next one completes or removes (docs/conventions.md §6
//! "Writing generated/").
//!
//! A commit builds the whole new folder as a hidden sibling, `.<name>.gentable-new`, then swaps the two
//! folders in one step:
//!
//! 1. **Stage.** Changed outputs are written into the staging folder as the build renders them
//!    ([`Staging::write`]: a big data file is on disk, not in memory, while the next one is rendered); then
//!    every file of the old folder that stays (unchanged outputs, Unity `.meta` files, the user's files) is
//!    hard-linked there, so its inode and modification time do not change (Unity and the build cache see
//!    the same file); stale outputs are left out. Symbolic links are recreated as links, except one at an
//!    output's path (a file, or a folder of outputs), which the output replaces. Folders the user's
//!    tools own (`target/`, `node_modules/`, `bin/`, `obj/`, `dist/`) are not walked.
//! 2. **Journal.** `.<name>.gentable-moved` lists those tool folders; it is written once staging is complete,
//!    so its existence says the staging folder is complete.
//! 3. **Move** each tool folder into the staging folder (a rename: instant, whatever its size).
//! 4. **Swap.** On Linux `renameat2(RENAME_EXCHANGE)` (macOS: `renamex_np(RENAME_SWAP)`) exchanges the two
//!    folders atomically: the generated folder's path names the new tree, the staging name the old one.
//!    Elsewhere (or on a file system without it) the old folder is renamed to `.<name>.gentable-old` and the
//!    staging folder into place; between those two renames the folder is briefly absent.
//! 5. **Clean up**: the journal, then the old tree.
//!
//! A build killed or failing while it renders leaves a staging folder without a journal: it is removed
//! (by [`Staging`]'s drop, or by the next [`recover`]), and the generated folder was never touched.
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
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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

/// A commit in progress on the generated folder: the build writes each changed output into the staging
/// folder as soon as it is rendered ([`Staging::write`], step 1's writing), then [`Staging::finish`] carries
/// the files that stay and swaps (steps 1 to 5). Dropped without `finish` (a build that failed while
/// rendering), it removes the staging folder: the generated folder was never touched.
pub struct Staging {
    /// The generated folder (a symbolic link to a folder resolved: the folder it points at is swapped).
    dir: PathBuf,
    staging: PathBuf,
    journal: PathBuf,
    /// Whether the staging folder exists yet (it is made on the first write, so that a build that changes
    /// nothing never touches anything).
    created: Mutex<bool>,
    /// `finish` has not run: dropping removes the staging folder.
    open: bool,
}

impl Staging {
    /// Start a commit of `dir`: what an earlier commit left behind is completed or removed first
    /// ([`recover`]). Nothing is created until the first [`Staging::write`].
    pub fn begin(dir: &Path) -> io::Result<Staging> {
        // A generated folder that is a symbolic link: swap the folder it points at, keep the link.
        let dir = match dir.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() => dir.canonicalize()?,
            _ => dir.to_path_buf(),
        };
        recover(&dir)?;
        let (staging, _, journal) = siblings(&dir);
        Ok(Staging {
            dir,
            staging,
            journal,
            created: Mutex::new(false),
            open: true,
        })
    }

    /// Make the staging folder (once), with the generated folder's permissions.
    fn create(&self) -> io::Result<()> {
        // A thread that panicked while holding the lock left the flag consistent.
        let mut created = self.created.lock().unwrap_or_else(|e| e.into_inner());
        if !*created {
            std::fs::create_dir_all(&self.staging)?;
            if let Ok(m) = std::fs::metadata(&self.dir) {
                if m.is_dir() {
                    let _ = std::fs::set_permissions(&self.staging, m.permissions());
                }
            }
            checkpoint("staging folder created")?;
            *created = true;
        }
        Ok(())
    }

    /// Write the new content of the output `rel` (relative, `/`), the bytes of `parts` one after the other,
    /// into the staging folder. Safe to call from several threads at once, for distinct `rel`. A folder of
    /// the generated folder where the file must go is the user's: refused (the commit then fails and changes
    /// nothing).
    pub fn write(&self, rel: &str, parts: &[&[u8]]) -> io::Result<()> {
        let (mut f, _) = self.create_file(rel)?;
        for p in parts {
            f.write_all(p)?;
        }
        drop(f);
        checkpoint(&format!("wrote {rel}"))
    }

    /// The new file `rel` in the staging folder, and its path, for a file written as it is rendered
    /// (the sink's `Stream`); the caller calls [`checkpoint`] once it is complete. `Err` if the
    /// generated folder has a folder at `rel`, or the file cannot be created.
    pub fn create_file(&self, rel: &str) -> io::Result<(std::fs::File, PathBuf)> {
        let at = self.dir.join(rel);
        // A real folder, not a link to one (a link gives way to the output, see `carry`).
        if at.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            return Err(io::Error::other(format!(
                "{} is a folder, but gentable writes a file there; move the folder away",
                at.display()
            )));
        }
        self.create()?;
        let path = self.staging.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p)?;
        }
        Ok((std::fs::File::create(&path)?, path))
    }

    /// Complete the commit (see the module docs): every file of the old folder that is neither in
    /// `written` (already in the staging folder) nor in `drop` (stale outputs) is carried over, then the
    /// folders are swapped. On error the generated folder is unchanged.
    pub fn finish(mut self, written: &BTreeSet<&str>, drop: &BTreeSet<&str>) -> io::Result<()> {
        self.open = false;
        match self.carry_and_swap(written, drop) {
            Ok(()) => {
                // The new state is in place: what is left is cleaning up, which the next build finishes if
                // this one cannot (so a failing step here is not an error of the commit).
                let _ = checkpoint("swapped");
                let _ = std::fs::remove_file(&self.journal);
                let _ = checkpoint("journal removed");
                let _ = std::fs::remove_dir_all(&self.staging);
                let _ = checkpoint("old tree removed");
                Ok(())
            }
            Err(e) => {
                // Undo: tool folders back, staging and journal gone. The old folder was never changed.
                let _ = recover(&self.dir);
                Err(e)
            }
        }
    }

    /// Steps 1 to 4 of the module docs, once the changed files are written; `Ok` once the new tree is in
    /// place.
    fn carry_and_swap(&self, written: &BTreeSet<&str>, drop: &BTreeSet<&str>) -> io::Result<()> {
        let (dir, staging, journal) = (&self.dir, &self.staging, &self.journal);
        let existed = dir.is_dir();
        self.create()?;
        let mut tools = vec![];
        if existed {
            carry(dir, staging, "", written, drop, &mut tools)?;
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
}

impl Drop for Staging {
    fn drop(&mut self) {
        // A commit that never finished: no journal was written, so this removes the staging folder.
        if self.open {
            let _ = recover(&self.dir);
        }
    }
}

/// Link (or copy) every file of `from/rel` that stays into `to/rel`, recreating folders and symbolic links
/// (but not a link where an output was staged: the output replaces it, and a folder of outputs reached
/// through a link is not walked); tool folders are collected in `tools` instead.
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
            // A link where gentable writes an output (a file, or a folder of outputs) gives way to the
            // output: the sink never counts such an output unchanged (`sink::linked`), so it is staged.
            if written.contains(r.as_str())
                || drop.contains(r.as_str())
                || target.symlink_metadata().is_ok()
            {
                continue;
            }
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
