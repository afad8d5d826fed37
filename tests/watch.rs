//! `gentable watch` on a copy of FunnyPitch, as a designer uses it (docs/designer.md "Watch"): the real binary
//! runs in the background while the test edits the tables like a spreadsheet program would — a save in place,
//! an error and its fix, Excel's `~$` lock file, a save by rename, a slow save and a workbook that is half
//! written — and reads the summaries it prints; Ctrl-C (SIGINT) ends it cleanly.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;
use common::copy_dir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The watch process, killed if the test fails before it is stopped.
struct Watcher {
    child: Option<Child>,
    log: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Watcher {
    fn start(config: &Path) -> Watcher {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gentable"))
            .args(["watch", "--no-clear", "--debounce", "200", "-c"])
            .arg(config)
            .env_remove("GENTABLE_TIMINGS")
            .env("CI", "true")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start gentable watch");
        let mut stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let sink = log.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Watcher {
            child: Some(child),
            log,
            reader: Some(reader),
        }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// The complete summary of build number `n` (up to its "watching" line), waiting for it.
    fn build(&self, n: usize) -> String {
        let head = format!("── gentable watch: build #{n} ");
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            let log = self.log();
            if let Some(i) = log.find(&head) {
                if let Some(j) = log[i..].find("gentable: watching ") {
                    let end = i + j + log[i + j..].find('\n').unwrap_or(0);
                    return log[i..end].to_string();
                }
            }
            assert!(
                Instant::now() < deadline,
                "no summary of build #{n}; the watch printed:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// How many builds the watch has started.
    fn builds(&self) -> usize {
        self.log().matches("── gentable watch: build #").count()
    }
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(d: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, &mut out);
    out
}

/// The Soldier row of `generated/data/PieceType.json`.
fn soldier(project: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(project.join("generated/data/PieceType.json")).unwrap();
    // A data file is one JSON document whose `rows` are the table (docs/data-format.md §2).
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["Id"] == "Soldier")
        .cloned()
        .unwrap()
}

const SOLDIER: &str = "Soldier,Piece_Soldier,0,Military,T0,true,false,S,1\n";

fn with_soldier(original: &str, row: &str) -> String {
    assert!(original.contains(SOLDIER));
    original.replace(SOLDIER, row)
}

#[test]
fn watch_rebuilds_on_save_reports_errors_and_stops_on_ctrl_c() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("FunnyPitch");
    for part in ["Table", "schema", "generated"] {
        copy_dir(&Path::new(ROOT).join(part), &p.join(part));
    }
    std::fs::copy(
        Path::new(ROOT).join("gentable.toml"),
        p.join("gentable.toml"),
    )
    .unwrap();
    let table = p.join("Table/PieceType.csv");
    let original = std::fs::read_to_string(&table).unwrap();
    assert_eq!(soldier(&p)["AiWeight"], 1);

    let w = Watcher::start(&p.join("gentable.toml"));
    let first = w.build(1);
    assert!(
        first.contains("(start)") && first.contains("ok: "),
        "{first}"
    );
    assert!(
        first.contains("watching Table/, schema/, gentable.toml"),
        "{first}"
    );

    // 1. A save in place: the cell's new value is in the rebuilt file, and the summary says what was written.
    std::fs::write(
        &table,
        with_soldier(
            &original,
            "Soldier,Piece_Soldier,0,Military,T0,true,false,S,7\n",
        ),
    )
    .unwrap();
    let second = w.build(2);
    assert!(
        second.contains("(changed: Table/PieceType.csv)"),
        "{second}"
    );
    assert!(
        second.contains("ok: rebuilt") && second.contains("data/PieceType.json"),
        "{second}"
    );
    assert_eq!(soldier(&p)["AiWeight"], 7);

    // 2. An error: reported at its cell, and nothing under generated/ changes.
    let before = snapshot(&p.join("generated"));
    std::fs::write(
        &table,
        with_soldier(
            &original,
            "Soldier,Piece_Soldier,zero,Military,T0,true,false,S,8\n",
        ),
    )
    .unwrap();
    let third = w.build(3);
    assert!(
        third.contains("error[GT0201]: expected an integer, found \"zero\""),
        "{third}"
    );
    assert!(
        third.contains("failed in") && third.contains("Table/PieceType.csv:10:C"),
        "{third}"
    );
    assert!(third.contains("generated/ is unchanged"), "{third}");
    assert_eq!(snapshot(&p.join("generated")), before);

    // 3. Excel opens the workbook (a `~$` lock file appears): no build. Then the fix is saved the way Excel
    //    saves, to a temporary file renamed over the table: one build, of that file only.
    std::fs::write(p.join("Table/~$MoveRules.xlsx"), b"owner").unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(w.builds(), 3, "{}", w.log());
    let tmpfile = p.join("Table/A1B2C3D4");
    std::fs::write(
        &tmpfile,
        with_soldier(
            &original,
            "Soldier,Piece_Soldier,0,Military,T0,true,false,S,9\n",
        ),
    )
    .unwrap();
    std::fs::rename(&tmpfile, &table).unwrap();
    let fourth = w.build(4);
    assert!(
        fourth.contains("(changed: Table/PieceType.csv)") && fourth.contains("ok: rebuilt"),
        "{fourth}"
    );
    assert_eq!(soldier(&p)["AiWeight"], 9);

    // 4. A slow save (the file grows for a second): one build, of the complete file.
    let text = with_soldier(
        &original,
        "Soldier,Piece_Soldier,0,Military,T0,true,false,S,11\n",
    );
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&table).unwrap();
        for chunk in text.as_bytes().chunks(text.len() / 10 + 1) {
            f.write_all(chunk).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(60));
        }
    }
    let fifth = w.build(5);
    assert!(fifth.contains("ok: rebuilt"), "{fifth}");
    assert_eq!(soldier(&p)["AiWeight"], 11);

    // 5. A workbook caught half written: the watch waits for it instead of showing its error.
    let workbook = p.join("Table/MoveRules.xlsx");
    let bytes = std::fs::read(&workbook).unwrap();
    std::fs::write(&workbook, &bytes[..bytes.len() / 2]).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    std::fs::write(&workbook, &bytes).unwrap();
    let sixth = w.build(6);
    assert!(
        sixth.contains("ok: ") && !sixth.contains("GT0101"),
        "{sixth}"
    );
    std::thread::sleep(Duration::from_millis(1500));
    let log = w.log();
    let since = &log[log.find("── gentable watch: build #6").unwrap()..];
    assert!(!since.contains("failed in"), "{log}");

    // 6. Ctrl-C: the watch ends with exit code 0.
    let mut w = w;
    let mut child = w.child.take().unwrap();
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(60);
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "watch did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(code.success(), "{code:?}\n{}", w.log());
    // Everything it printed has been read once its standard error is closed.
    w.reader.take().unwrap().join().unwrap();
    assert!(
        w.log().trim_end().ends_with("gentable: watch stopped"),
        "{}",
        w.log()
    );
}
