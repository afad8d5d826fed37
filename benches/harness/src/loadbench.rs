//! gentable's load benchmark (issue 15; figures in docs/performance.md "Loading"). Run through
//! `Tools/bench.sh load`.
//!
//! ```text
//! loadbench [--sets load-10,load-100,load-500] [--gentable PATH] [--runs N] [--langs csharp,typescript]
//! ```
//!
//! For every set (10, 100 and 500 CSV tables × 1,000 rows, generated on first use by `src/datagen.rs` into
//! `target/bench-data/<set>/`, then built by the release `gentable` twice: JSON only into `generated-json/`,
//! binary only into `generated-binary/`), it compiles the
//! set's generated C# with `mcs -optimize+` and its generated TypeScript with the pinned `tsc` of
//! `tests/conformance`, each together with a small driver (`benches/load/LoadBench.cs`, `loadbench.ts`), and
//! runs every mode in its own child process `--runs` times (default 5):
//! * **read**: the file-read floor (every data file's bytes read);
//! * **parse**: the plain-parse floor (C#: a general JSON reader into a generic tree; TypeScript: `JSON.parse`
//!   of every file's text);
//! * **json**: the generated loader on `<Table>.json`;
//! * **binary**: the generated loader on `<Table>.bytes` (when gentable writes them).
//!
//! Each child reports the time of its mode alone (its runtime's start-up excluded; the loader's own JIT is
//! included: that is start-up cost a game pays); the harness takes the median and the child's peak memory (max
//! RSS, from `wait4`; the runtime's own baseline included, reported separately as the `read` mode's figure).

#[path = "datagen.rs"]
#[allow(dead_code)]
mod datagen;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One child run: the milliseconds it reports and its max RSS in KiB.
struct Sample {
    ms: f64,
    rss_kb: u64,
}

/// Run `cmd` (which prints its own milliseconds); panics with its output if it fails.
// The child is reaped by `wait4`, not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn sample(cmd: &mut Command) -> Sample {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let mut stdout = String::new();
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let mut status = 0;
    // SAFETY: plain FFI call with valid pointers; the child is ours and not waited on elsewhere.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    assert!(r > 0, "wait4 failed");
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        panic!("{cmd:?} failed (status {status}):\n{stdout}{stderr}");
    }
    Sample {
        ms: stdout
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{cmd:?} printed {stdout:?}")),
        rss_kb: ru.ru_maxrss as u64,
    }
}

/// Run `cmd`, panicking with its output unless it succeeds.
fn check(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{cmd:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The median time and the largest max RSS of `runs` runs of `make()`.
fn measure(runs: usize, mut make: impl FnMut() -> Command) -> Sample {
    let mut all: Vec<Sample> = (0..runs).map(|_| sample(&mut make())).collect();
    all.sort_by(|a, b| a.ms.total_cmp(&b.ms));
    let rss = all.iter().map(|s| s.rss_kb).max().unwrap_or(0);
    Sample {
        ms: all[all.len() / 2].ms,
        rss_kb: rss,
    }
}

fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn bytes_of(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum()
}

fn mb(kb: u64) -> String {
    format!("{:.0} MB", kb as f64 * 1024.0 / 1e6)
}

fn ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} s", v / 1000.0)
    } else {
        format!("{v:.0} ms")
    }
}

/// One language's results for one set: mode → sample.
type Results = BTreeMap<&'static str, Sample>;

/// Compile the set's C# with the driver; the assembly's path.
fn build_csharp(repo: &Path, generated: &Path, work: &Path) -> PathBuf {
    let exe = work.join("loadbench.exe");
    let mut sources = files_with(&generated.join("csharp"), "cs");
    sources.push(repo.join("benches/load/LoadBench.cs"));
    check(
        Command::new("mcs")
            .args(["-langversion:7.2", "-optimize+", "-nowarn:1591", "-nologo"])
            .arg(format!("-out:{}", exe.display()))
            .args(&sources),
    );
    exe
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Compile the set's TypeScript with the driver; the driver's compiled path.
fn build_typescript(repo: &Path, generated: &Path, work: &Path) -> PathBuf {
    let ts = work.join("ts");
    let _ = std::fs::remove_dir_all(&ts);
    copy_tree(&generated.join("ts"), &ts.join("gen"));
    std::fs::copy(
        repo.join("benches/load/loadbench.ts"),
        ts.join("loadbench.ts"),
    )
    .unwrap();
    std::fs::write(ts.join("package.json"), "{\"type\":\"module\"}\n").unwrap();
    let tsconfig = serde_json::json!({
        "compilerOptions": {
            "target": "ES2022",
            "lib": ["ES2022"],
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": true,
            "skipLibCheck": true,
            "typeRoots": [repo.join("tests/conformance/node_modules/@types")],
            "types": ["node"],
            "outDir": "out",
        },
        "include": ["loadbench.ts", "gen/**/*.ts"],
    });
    std::fs::write(
        ts.join("tsconfig.json"),
        serde_json::to_string_pretty(&tsconfig).unwrap(),
    )
    .unwrap();
    let tsc = repo.join("tests/conformance/node_modules/typescript/bin/tsc");
    assert!(
        tsc.exists(),
        "{} not found: run `npm ci` in tests/conformance",
        tsc.display()
    );
    check(
        Command::new("node")
            .current_dir(&ts)
            .arg(&tsc)
            .args(["-p", "tsconfig.json"]),
    );
    ts.join("out/loadbench.js")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize().unwrap_or(repo);
    let sets: Vec<String> = arg("--sets")
        .map(|s| s.split(',').map(String::from).collect())
        .unwrap_or_else(|| datagen::LOAD_SETS.iter().map(|s| s.to_string()).collect());
    let langs: Vec<String> = arg("--langs")
        .map(|s| s.split(',').map(String::from).collect())
        .unwrap_or_else(|| vec!["csharp".into(), "typescript".into()]);
    let gentable = arg("--gentable")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target/release/gentable"));
    assert!(
        gentable.exists(),
        "{} not found: run `cargo build --release` first (Tools/bench.sh does)",
        gentable.display()
    );
    let runs: usize = arg("--runs").and_then(|n| n.parse().ok()).unwrap_or(5);
    let root = datagen::data_root();
    println!(
        "| set | language | JSON bytes | binary bytes (× JSON) | read floor | plain parse | JSON load (× parse) | binary load (× JSON load) | peak RSS: read / parse / JSON / binary |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for set in &sets {
        let dir = datagen::generate(&root, set);
        // Two builds of the set: JSON only (what `json` and the floors measure) and binary only (what a game
        // that selects `data = ["binary"]` loads): with both formats selected the loaders read the binary files.
        let toml = std::fs::read_to_string(dir.join("gentable.toml")).unwrap();
        let variant = |format: &str| {
            let text = toml
                .replace(
                    "data = [\"json\", \"binary\"]",
                    &format!("data = [\"{format}\"]"),
                )
                .replace(
                    "generated = \"generated\"",
                    &format!("generated = \"generated-{format}\""),
                );
            assert_ne!(text, toml, "the set's gentable.toml selects both formats");
            let config = dir.join(format!("gentable.{format}.toml"));
            std::fs::write(&config, text).unwrap();
            check(
                Command::new(&gentable)
                    .arg("build")
                    .arg("-c")
                    .arg(&config)
                    .arg("--quiet"),
            );
            dir.join(format!("generated-{format}"))
        };
        let generated = variant("json");
        let generated_binary = variant("binary");
        let data = generated.join("data");
        let data_binary = generated_binary.join("data");
        let json = bytes_of(&files_with(&data, "json"));
        let binary = bytes_of(&files_with(&data_binary, "bytes"));
        let work = repo.join("target/bench-load").join(set);
        std::fs::create_dir_all(&work).unwrap();
        let work_binary = work.join("binary");
        std::fs::create_dir_all(&work_binary).unwrap();
        for lang in &langs {
            let mut modes: Vec<&'static str> = vec!["read", "parse", "json"];
            if binary > 0 {
                modes.push("binary");
            }
            let results: Results = match lang.as_str() {
                "csharp" => {
                    let exe = build_csharp(&repo, &generated, &work);
                    let exe_binary = build_csharp(&repo, &generated_binary, &work_binary);
                    modes
                        .iter()
                        .map(|&m| {
                            let (exe, data) = if m == "binary" {
                                (&exe_binary, &data_binary)
                            } else {
                                (&exe, &data)
                            };
                            let s = measure(runs, || {
                                let mut c = Command::new("mono");
                                c.arg(exe).arg(m).arg(data);
                                c
                            });
                            eprintln!("loadbench: {set} C# {m}: {}", ms(s.ms));
                            (m, s)
                        })
                        .collect()
                }
                "typescript" => {
                    let js = build_typescript(&repo, &generated, &work);
                    let js_binary = build_typescript(&repo, &generated_binary, &work_binary);
                    modes
                        .iter()
                        .map(|&m| {
                            let (js, data) = if m == "binary" {
                                (&js_binary, &data_binary)
                            } else {
                                (&js, &data)
                            };
                            let s = measure(runs, || {
                                let mut c = Command::new("node");
                                c.arg(js).arg(m).arg(data);
                                c
                            });
                            eprintln!("loadbench: {set} TypeScript {m}: {}", ms(s.ms));
                            (m, s)
                        })
                        .collect()
                }
                other => panic!("unknown language {other}"),
            };
            let get = |m: &str| results.get(m);
            let parse = get("parse").map(|s| s.ms).unwrap_or(f64::NAN);
            let load = get("json").map(|s| s.ms).unwrap_or(f64::NAN);
            println!(
                "| {set} | {} | {:.1} MB | {} | {} | {} | {} ({:.2}×) | {} | {} |",
                if lang == "csharp" {
                    "C# (mono)"
                } else {
                    "TypeScript (node)"
                },
                json as f64 / 1e6,
                if binary > 0 {
                    format!(
                        "{:.1} MB ({:.2}×)",
                        binary as f64 / 1e6,
                        binary as f64 / json as f64
                    )
                } else {
                    "-".into()
                },
                ms(get("read").map(|s| s.ms).unwrap_or(f64::NAN)),
                ms(parse),
                ms(load),
                load / parse,
                get("binary")
                    .map(|s| format!("{} ({:.2}×)", ms(s.ms), s.ms / load))
                    .unwrap_or_else(|| "-".into()),
                modes
                    .iter()
                    .map(|m| get(m).map(|s| mb(s.rss_kb)).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" / "),
            );
        }
    }
}
