//! The atomic commit of `generated/` and the project lock (issue 13 item 2; src/build/commit.rs,
//! src/build/lock.rs).
//!
//! The kill test runs one build that changes, adds and removes files at every step of its commit
//! (`GENTABLE_PAUSE_AT=N` holds the build at step N; the test then kills it with SIGKILL, the real `kill -9`)
//! and checks each time that the generated folder is exactly the old or exactly the new state, and that the
//! next build completes without error, keeps the user's files and leaves nothing beside the folder. The
//! failure test makes every step fail like a full disk (`GENTABLE_FAIL_AT=N`) and checks that the folder is
//! exactly the old state.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const ID_SCHEMA: &str = r#"{"type":"object","x-gentable-primaryKey":"Id","properties":{"Id":{"type":"integer"},"Name":{"type":"string"}},"required":["Id"]}"#;

/// The user's files inside the generated folder: a Unity `.meta`, a cargo `target/`, an npm
/// `node_modules/`, a README at the root. Never gentable's, never touched.
const USER_FILES: &[(&str, &str)] = &[
    ("csharp/A.cs.meta", "guid: 1234\n"),
    ("rust/target/debug/build.log", "compiled\n"),
    ("ts/node_modules/pkg/index.js", "export {};\n"),
    ("README.md", "hand-written\n"),
];

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// The old project: tables A, B and C, built, with the user's files added.
fn old_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "gentable.toml", "[project]\nname = \"Commit\"\n");
    for t in ["A", "B", "C"] {
        write(r, &format!("schema/{t}.schema.json"), ID_SCHEMA);
        write(
            r,
            &format!("Table/{t}.csv"),
            &format!("Id,Name\n1,{t} one\n2,{t} two\n"),
        );
    }
    assert_eq!(build(r, &[]).0, Some(0));
    for (rel, text) in USER_FILES {
        write(&r.join("generated"), rel, text);
    }
    dir
}

/// The edit every test commits: A changes, C goes, D comes.
fn edit(root: &Path) {
    write(
        root,
        "Table/A.csv",
        "Id,Name\n1,A one\n2,A two, changed\n3,A three\n",
    );
    std::fs::remove_file(root.join("Table/C.csv")).unwrap();
    std::fs::remove_file(root.join("schema/C.schema.json")).unwrap();
    write(root, "schema/D.schema.json", ID_SCHEMA);
    write(root, "Table/D.csv", "Id,Name\n7,D seven\n");
}

fn build(root: &Path, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["build", "-c", "gentable.toml"])
        .current_dir(root)
        .env("CI", "true")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (f, t) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&t).unwrap();
            copy_dir(&f, &t);
        } else {
            std::fs::copy(&f, &t).unwrap();
        }
    }
}

/// A fresh copy of `project` (the old state, with its cache), edited.
fn edited_copy(project: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(project, dir.path());
    edit(dir.path());
    dir
}

/// gentable's files under `generated/`: relative path → content (the user's files left out).
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &r, out);
            } else if !USER_FILES.iter().any(|(u, _)| *u == r) {
                out.insert(r, std::fs::read(e.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&root.join("generated"), "", &mut out);
    out
}

/// Every user file is there with its content.
fn user_files_intact(root: &Path) -> Result<(), String> {
    for (rel, text) in USER_FILES {
        match std::fs::read_to_string(root.join("generated").join(rel)) {
            Ok(t) if t == *text => {}
            other => return Err(format!("{rel}: {other:?}")),
        }
    }
    Ok(())
}

/// Nothing of a commit is left beside the generated folder.
fn no_leftovers(root: &Path) -> Result<(), String> {
    let left: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".generated.gentable-"))
        .collect();
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!("left beside generated/: {left:?}"))
    }
}

/// Start a build held at step `n`; `Some(child)` once it says it is paused, `None` if it finished first.
fn paused_build(root: &Path, n: usize, env: &[(&str, &str)]) -> Option<std::process::Child> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["build", "-c", "gentable.toml"])
        .current_dir(root)
        .env("CI", "true")
        .envs(env.iter().copied())
        .env("GENTABLE_PAUSE_AT", n.to_string())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if line.contains(&format!("paused at step {n} ")) {
            return Some(child);
        }
    }
    assert_eq!(
        child.wait().unwrap().code(),
        Some(0),
        "build without pause at {n}"
    );
    None
}

#[test]
fn a_build_killed_at_any_step_leaves_the_old_or_the_new_state() {
    // main: `kill -9` in the rename window left half old, half new and *.gentable-tmp files (8 of 8 tries),
    // and the next build exited 2.
    kill_at_every_step("the atomic exchange", &[]);
}

#[test]
fn a_build_killed_at_any_step_of_the_fallback_swap_leaves_the_old_or_the_new_state() {
    // Where the system has no atomic exchange (Windows, old kernels): two renames, completed by the next build.
    kill_at_every_step("the two-rename fallback", &[("GENTABLE_NO_EXCHANGE", "1")]);
}

/// Kill a build at every step of its commit. `absent_allowed`: the two-rename fallback has one step at which
/// the generated folder does not exist (between its two renames); a kill there must be completed by the next
/// build, and is counted apart, never as consistent.
fn kill_at_every_step(mode: &str, env: &[(&str, &str)]) {
    let absent_allowed = !env.is_empty();
    let old = old_project();
    let old_state = snapshot(old.path());
    let reference = edited_copy(old.path());
    assert_eq!(build(reference.path(), &[]).0, Some(0));
    let new_state = snapshot(reference.path());
    assert_ne!(old_state, new_state);
    let (mut steps, mut consistent, mut saw_old, mut saw_new, mut absent) = (0, 0, 0, 0, 0);
    let mut problems = vec![];
    for n in 1.. {
        let p = edited_copy(old.path());
        let Some(mut child) = paused_build(p.path(), n, env) else {
            break;
        };
        steps += 1;
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let now = snapshot(p.path());
        let state_ok = if absent_allowed && !p.path().join("generated").exists() {
            absent += 1;
            false
        } else if now == old_state {
            saw_old += 1;
            true
        } else if now == new_state {
            saw_new += 1;
            true
        } else {
            let diff: Vec<&String> = now
                .keys()
                .chain(old_state.keys())
                .filter(|k| now.get(*k) != old_state.get(*k) && now.get(*k) != new_state.get(*k))
                .collect();
            problems.push(format!("step {n}: neither old nor new: {diff:?}"));
            false
        };
        // The next build completes whatever was left: no error, the new state, the user's files, no debris.
        let (code, err) = build(p.path(), env);
        let after = (code == Some(0))
            .then_some(())
            .ok_or_else(|| format!("step {n}: the next build exited {code:?}: {err}"))
            .and_then(|_| {
                (snapshot(p.path()) == new_state)
                    .then_some(())
                    .ok_or(format!(
                        "step {n}: the next build did not give the new state"
                    ))
            })
            .and_then(|_| user_files_intact(p.path()).map_err(|e| format!("step {n}: {e}")))
            .and_then(|_| no_leftovers(p.path()).map_err(|e| format!("step {n}: {e}")));
        match after {
            Ok(()) if state_ok => consistent += 1,
            Ok(()) => {}
            Err(e) => problems.push(e),
        }
    }
    println!(
        "kill test ({mode}): {consistent} of {steps} kills consistent ({saw_old} left the old state, {saw_new} the \
         new one; {absent} inside the fallback's rename window, with no folder, completed by the next build)"
    );
    assert!(
        steps > 20,
        "only {steps} steps: the pause points are missing"
    );
    assert!(
        saw_old > 0 && saw_new > 0,
        "the kills never reached the swap"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(absent <= 1, "{absent} steps without a generated folder");
    assert_eq!(consistent + absent, steps);
}

#[test]
fn a_commit_that_fails_at_any_step_leaves_the_old_state() {
    // main: a disk full after some renames left generated/ half old, half new.
    let old = old_project();
    let old_state = snapshot(old.path());
    let mut failures = 0;
    for n in 1.. {
        let p = edited_copy(old.path());
        let (code, err) = build(p.path(), &[("GENTABLE_FAIL_AT", &n.to_string())]);
        if code == Some(0) {
            break;
        }
        failures += 1;
        assert_eq!(code, Some(2), "step {n}: {err}");
        assert!(err.contains("no space left on device"), "step {n}: {err}");
        assert!(
            snapshot(p.path()) == old_state,
            "step {n}: generated/ changed"
        );
        user_files_intact(p.path()).unwrap_or_else(|e| panic!("step {n}: {e}"));
        no_leftovers(p.path()).unwrap_or_else(|e| panic!("step {n}: {e}"));
        assert_eq!(build(p.path(), &[]).0, Some(0), "step {n}: the next build");
    }
    println!("failure test: {failures} failing steps, each left the old state");
    assert!(failures > 20);
}

/// A table of more rows than one batch of `emit::data::json::BATCH_ROWS` (160,000): its JSON data file goes
/// to the staging folder batch by batch, its header's `dataHash` written last (issue 18). The file reads
/// back as canonical data whose hash is in its header, `build --check` (which renders it whole) finds it
/// current, a build without the cache finds it unchanged, and an edit of one row rebuilds it.
#[test]
fn a_big_table_streamed_to_the_staging_folder_is_the_file_a_check_renders() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "gentable.toml", "[project]\nname = \"Big\"\n");
    write(r, "schema/Big.schema.json", ID_SCHEMA);
    let rows = 165_000;
    let csv = |changed: &str| {
        let mut t = String::from("Id,Name\n");
        for i in 0..rows {
            let name = if i == 123_456 {
                changed
            } else {
                "名字，「引号」"
            };
            t.push_str(&format!("{i},{name}{i}\n"));
        }
        t
    };
    write(r, "Table/Big.csv", &csv("名字，「引号」"));
    let check = |r: &Path| {
        Command::new(env!("CARGO_BIN_EXE_gentable"))
            .args(["build", "--check", "-q"])
            .current_dir(r)
            .output()
            .unwrap()
    };
    let data = |r: &Path| {
        let text = std::fs::read_to_string(r.join("generated/data/Big.json")).unwrap();
        let (header, canonical) = gentable::emit::data::json::parse(&text).unwrap();
        assert_eq!(header.row_count, rows as u64);
        assert_eq!(
            header.data_hash,
            blake3::hash(canonical.as_bytes()).to_hex().as_str()
        );
        text
    };
    let (code, err) = build(r, &[]);
    assert_eq!(code, Some(0), "{err}");
    let first = data(r);
    assert!(first.contains("\"Name\":\"名字，「引号」123456\""));
    let c = check(r);
    assert_eq!(
        c.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&c.stderr)
    );
    std::fs::remove_dir_all(r.join(".gentable-cache")).unwrap();
    let (code, err) = build(r, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("(0 written"), "{err}");
    assert_eq!(data(r), first);
    write(r, "Table/Big.csv", &csv("改名"));
    let (code, err) = build(r, &[]);
    assert_eq!(code, Some(0), "{err}");
    let edited = data(r);
    assert!(edited.contains("\"Name\":\"改名123456\""));
    assert_eq!(
        edited.len(),
        first.len() - "名字，「引号」".len() + "改名".len()
    );
    assert_eq!(check(r).status.code(), Some(0));
    no_leftovers(r).unwrap();
}

#[test]
fn a_folder_where_an_output_file_goes_is_refused_and_nothing_changes() {
    // main: the rename onto the folder failed half-way.
    let old = old_project();
    let old_state = snapshot(old.path());
    let p = edited_copy(old.path());
    std::fs::create_dir_all(p.path().join("generated/data/D.json/keep")).unwrap();
    let (code, err) = build(p.path(), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("D.json is a folder, but gentable writes a file there"),
        "{err}"
    );
    let mut now = snapshot(p.path());
    assert!(now.remove("data/D.json/keep").is_none());
    assert_eq!(now, old_state);
    no_leftovers(p.path()).unwrap();
    std::fs::remove_dir_all(p.path().join("generated/data/D.json")).unwrap();
    assert_eq!(build(p.path(), &[]).0, Some(0));
}

#[test]
fn unchanged_files_keep_their_inode_and_modification_time() {
    use std::os::unix::fs::MetadataExt;
    let old = old_project();
    let p = edited_copy(old.path());
    let meta = |rel: &str| std::fs::metadata(p.path().join("generated").join(rel)).unwrap();
    let before = (
        meta("data/B.json").ino(),
        meta("data/B.json").mtime_nsec(),
        meta("csharp/B.cs").ino(),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(build(p.path(), &[]).0, Some(0));
    let after = (
        meta("data/B.json").ino(),
        meta("data/B.json").mtime_nsec(),
        meta("csharp/B.cs").ino(),
    );
    assert_eq!(before, after);
    assert!(!p.path().join("generated/data/C.json").exists());
    assert!(p.path().join("generated/data/D.json").exists());
    user_files_intact(p.path()).unwrap();
    // A no-op build touches nothing at all.
    let a = meta("data/A.json").ino();
    assert_eq!(build(p.path(), &[]).0, Some(0));
    assert_eq!(meta("data/A.json").ino(), a);
}

#[test]
fn a_second_run_waits_for_the_first_or_fails_with_no_wait() {
    // main: no lock; two builds at once made one of them exit 2 in 3 of 4 runs.
    let old = old_project();
    let p = edited_copy(old.path());
    let mut first =
        paused_build(p.path(), 1, &[]).expect("the first build pauses holding the lock");
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["build", "--no-wait", "-c", "gentable.toml"])
        .current_dir(p.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("another gentable run is using this project (pid ")
            && err.contains("gentable build)"),
        "{err}"
    );
    // Without --no-wait the second one says it waits, and finishes once the first is gone (killed here).
    let mut second = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["build", "-c", "gentable.toml"])
        .current_dir(p.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(second.stderr.take().unwrap()).lines();
    let said = lines.next().unwrap().unwrap();
    assert!(
        said.contains("waiting for another gentable run on this project"),
        "{said}"
    );
    first.kill().unwrap();
    first.wait().unwrap();
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    assert_eq!(second.wait().unwrap().code(), Some(0), "{rest:?}");
    assert!(p.path().join("generated/data/D.json").exists());
    no_leftovers(p.path()).unwrap();
}

#[test]
fn a_generated_folder_that_would_hold_the_project_is_refused() {
    for g in [".", "", "Table/..", "Table", "schema/out/.."] {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "gentable.toml",
            &format!("[project]\nname = \"P\"\ngenerated = \"{g}\"\n"),
        );
        write(dir.path(), "schema/A.schema.json", ID_SCHEMA);
        write(dir.path(), "Table/A.csv", "Id\n1\n");
        let (code, err) = build(dir.path(), &[]);
        assert_eq!(code, Some(2), "{g:?}: {err}");
        assert!(
            err.contains("every build replaces that folder as a whole"),
            "{g:?}: {err}"
        );
    }
}
