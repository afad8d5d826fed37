//! The project lock, `.gentable-cache/lock` next to `gentable.toml`: one gentable run per project at a time
//! (builds write the generated folder and the cache; checks read them). The lock is advisory (the operating
//! system's file lock, `flock` / `LockFileEx`), so it is released however the holder ends, `kill -9`
//! included; the file stays, naming its last holder.
//!
//! A second run waits for the first, after saying so (`gentable: waiting for another gentable run on this
//! project (pid 4242, gentable build) to finish…`); with `--no-wait` it stops at once instead, with exit
//! code 2 and the message "another gentable run is using this project".

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A held project lock; released when dropped (or when the process ends).
pub struct ProjectLock {
    file: File,
}

/// How a run takes the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Wait for another run to finish (the default).
    Yes,
    /// Fail at once (`--no-wait`).
    No,
}

/// The lock file of a project whose root is `root`.
pub fn path(root: &Path) -> PathBuf {
    root.join(super::cache::DIR).join("lock")
}

impl ProjectLock {
    /// Take the lock of the project at `root` for `what` (e.g. `gentable build`). `waiting` is called once,
    /// with a message naming the holder, before a wait. `Err` is the message for the user: another run holds
    /// the lock and `wait` is [`Wait::No`], or the lock file cannot be created.
    pub fn acquire(
        root: &Path,
        what: &str,
        wait: Wait,
        waiting: &mut dyn FnMut(&str),
    ) -> Result<ProjectLock, String> {
        let p = path(root);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&p)
            .map_err(|e| format!("cannot open the project lock {}: {e}", p.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = holder(&mut file);
                match wait {
                    Wait::No => {
                        return Err(format!(
                            "another gentable run is using this project ({holder}); it holds {}. Wait for it to \
                             finish, or run without --no-wait to wait",
                            p.display()
                        ))
                    }
                    Wait::Yes => {
                        waiting(&format!(
                            "gentable: waiting for another gentable run on this project ({holder}) to finish…\n"
                        ));
                        file.lock()
                            .map_err(|e| format!("cannot lock {}: {e}", p.display()))?;
                    }
                }
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(format!("cannot lock {}: {e}", p.display()))
            }
        }
        // Name the holder for whoever waits next (best effort: the lock is the file lock, not this text).
        let _ = file.set_len(0);
        let _ = file.seek(SeekFrom::Start(0));
        let _ = writeln!(file, "pid {}, {what}", std::process::id());
        let _ = file.flush();
        Ok(ProjectLock { file })
    }
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// What the lock file says of its holder (`pid 4242, gentable build`), or that it does not say.
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file.seek(SeekFrom::Start(0));
    let _ = Read::by_ref(file).take(200).read_to_string(&mut text);
    let t = text.trim();
    if t.is_empty() {
        "a run that has not said who it is".into()
    } else {
        crate::diag::render::terminal_safe(t).into_owned()
    }
}
