//! Conformance harness: the three generated languages agree with the pipeline, byte for byte.
//!
//! For every table set in the repository (the root project, `tests/torture`, each `examples/*`, and every
//! accepted case of the fidelity suite `tests/fidelity/*`, built fresh into `target/conformance/fidelity/`
//! and first compared with the case's `expected/data`), it
//! 1. builds the set's generated **Rust** crate into a small dumper binary (one dumper crate depending on every
//!    set's crate, built once with a shared `CARGO_TARGET_DIR`, warnings denied) and writes
//!    `canonical_tables()` and `CONTENT_HASH`;
//! 2. compiles the set's generated **C#** with `mcs -langversion:7.2` (warnings are errors, XML docs checked) plus
//!    a `Main` dumper, runs it with `mono`: `Tables.Load(<set>/generated/data)`, then every
//!    `ToCanonicalJson()` entry and `Tables.ContentHash`;
//! 3. compiles the set's generated **TypeScript** with the pinned `tsc` of `tests/conformance` (strict,
//!    `noUnusedLocals`, …; one `tsc` program for all sets) plus a dumper, runs it with `node`:
//!    `loadTables(<set>/generated/data)` → `canonicalTables` and `CONTENT_HASH`;
//!
//! and requires every dump to be **byte-identical** to the canonical bytes of the committed
//! `generated/data/<Table>.json` (which `tests/up_to_date.rs` proves equal to a fresh build): `[`, its row
//! lines, `]`, checked against the file's `dataHash` (docs/data-format.md §2), with the same set of tables, and
//! every hash to equal `generated/data/content-hash.txt`. A mismatch names the set, the language, the table and the first
//! differing byte offset with context.
//!
//! Toolchains: with `CI=true` a missing `mcs`, `mono`, `node` or `tests/conformance/node_modules/.bin/tsc`
//! fails the test; elsewhere the language is skipped with a loud message on stderr (run `Tools/test.sh`, or
//! install `mono-mcs mono-runtime` and run `npm ci` in `tests/conformance`).
//!
//! Work lives in `target/conformance/` (one set per folder, kept for inspection; a lock file serialises
//! concurrent runs). `GENTABLE_CONFORMANCE=torture,warchest` restricts the run to the sets whose path
//! contains one of the words (or whose `[project] name` is one of them; `root` is the root project).
//! `GENTABLE_CONFORMANCE_PROJECTS=path/to/gentable.toml,…` adds projects from anywhere (paths relative to
//! the repository, where `cargo test` runs tests).
//! The C# and Node dumpers run with `TZ=America/St_Johns`, and the C# one also in the tr-TR culture.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One project: a `gentable.toml` and its committed `generated/` folder.
struct Set {
    /// Path of the project folder relative to the repository (`.`, `tests/torture`, `examples/warchest`).
    label: String,
    /// File-name-safe form of `label` (`root`, `tests_torture`, `examples_warchest`).
    id: String,
    crate_name: String,
    namespace: String,
    generated: PathBuf,
}

/// What one language wrote for one set.
struct Dump {
    tables: BTreeMap<String, Vec<u8>>,
    hash: String,
    /// Table names in the order the language listed them (checked for Rust only).
    order: Option<Vec<String>>,
    /// The data formats the C# or TypeScript dumper loaded (`json`, or `binary,json`: the binary files, then the
    /// JSON ones, whose canonical dumps it found equal).
    formats: Option<String>,
}

/// Per set id: the dump, or why there is none.
type Results = BTreeMap<String, Result<Dump, String>>;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Lang {
    Rust,
    CSharp,
    /// The C# dumper again, in the tr-TR culture.
    CSharpTurkish,
    TypeScript,
}

impl Lang {
    /// The data folder this language's generated code loads (and whose canonical JSON it must reproduce).
    fn data_dir(self, set: &Set) -> std::path::PathBuf {
        let output = match self {
            Lang::Rust => "rust",
            Lang::CSharp | Lang::CSharpTurkish => "csharp",
            Lang::TypeScript => "typescript",
        };
        gentable::emit::groups::data_dir(&set.generated, output)
    }
    fn name(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::CSharp => "C#",
            Lang::CSharpTurkish => "C#(tr-TR)",
            Lang::TypeScript => "TypeScript",
        }
    }
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Written straight to the process's stderr, past libtest's output capture: a skip must be seen.
fn loud(msg: &str) {
    let bar = "!".repeat(100);
    let _ = writeln!(std::io::stderr().lock(), "\n{bar}\n{msg}\n{bar}");
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Every project in the repository, like `tests/up_to_date.rs`: the root, the torture set, the examples.
fn sets() -> Vec<Set> {
    let mut cfgs = vec![repo().join("gentable.toml")];
    for dir in ["tests/torture", "tests/luban", "tests/reserved", "examples"] {
        let d = repo().join(dir);
        if d.join("gentable.toml").exists() {
            cfgs.push(d.join("gentable.toml"));
        }
        if let Ok(rd) = std::fs::read_dir(&d) {
            let mut subs: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path().join("gentable.toml"))
                .filter(|p| p.exists())
                .collect();
            subs.sort();
            cfgs.extend(subs);
        }
    }
    // The accepted cases of the fidelity suite: built fresh (they commit only their canonical data).
    cfgs.extend(fidelity_projects());
    // Extra projects (any folder): GENTABLE_CONFORMANCE_PROJECTS=path/to/gentable.toml[,…].
    for extra in std::env::var("GENTABLE_CONFORMANCE_PROJECTS")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let p = std::path::absolute(extra).unwrap();
        assert!(
            p.is_file(),
            "GENTABLE_CONFORMANCE_PROJECTS: no file {}",
            p.display()
        );
        cfgs.push(p);
    }
    let filter: Vec<String> = std::env::var("GENTABLE_CONFORMANCE")
        .unwrap_or_default()
        .split(',')
        .map(|w| w.trim().to_string())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = vec![];
    for cfg in cfgs {
        let loaded = gentable::config::load(&cfg).unwrap_or_else(|e| panic!("{e}"));
        let dir = cfg.parent().unwrap();
        let fidelity = common::fidelity::work("conformance/fidelity");
        let label = match (dir.strip_prefix(&fidelity), dir.strip_prefix(repo())) {
            (Ok(case), _) => format!("tests/fidelity/{}", case.to_string_lossy()),
            (_, Ok(rel)) if rel.as_os_str().is_empty() => ".".to_string(),
            (_, Ok(rel)) => rel.to_string_lossy().replace('\\', "/"),
            _ => dir.to_string_lossy().replace('\\', "/"),
        };
        let id = if label == "." {
            "root".to_string()
        } else {
            label
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect()
        };
        let name = &loaded.config.project.name;
        if !filter.is_empty()
            && !filter
                .iter()
                .any(|w| label.contains(w.as_str()) || id == *w || name.eq_ignore_ascii_case(w))
        {
            continue;
        }
        let generated = loaded.generated_dir();
        for sub in [
            "data/content-hash.txt",
            "rust/Cargo.toml",
            "csharp",
            "ts/index.ts",
        ] {
            assert!(
                generated.join(sub).exists(),
                "{}: no {} (run `cargo run -- build -c {}`)",
                label,
                generated.join(sub).display(),
                cfg.display()
            );
        }
        out.push(Set {
            label,
            id,
            crate_name: loaded.config.rust.crate_name.clone(),
            namespace: loaded.config.csharp.namespace.clone(),
            generated,
        });
    }
    let ids: BTreeSet<&String> = out.iter().map(|s| &s.id).collect();
    assert_eq!(
        ids.len(),
        out.len(),
        "two table sets share a work folder name"
    );
    assert!(
        !out.is_empty(),
        "GENTABLE_CONFORMANCE={filter:?} selects no table set"
    );
    out
}

/// Every accepted case of the fidelity suite (`tests/fidelity/<case>`, expected exit 0), prepared and built
/// into `target/conformance/fidelity/<case>`; its fresh canonical data must equal the case's `expected/data`.
/// Only the cases `GENTABLE_CONFORMANCE` selects (by `fidelity` or the case's name) are built.
fn fidelity_projects() -> Vec<PathBuf> {
    use common::fidelity::{build, cases, expected_exit, name, prepare, work};
    let filter = std::env::var("GENTABLE_CONFORMANCE").unwrap_or_default();
    let work = work("conformance/fidelity");
    let mut out = vec![];
    for case in cases() {
        let n = name(&case);
        let label = format!("tests/fidelity/{n}");
        if expected_exit(&case) != 0
            || !(filter.trim().is_empty()
                || filter
                    .split(',')
                    .map(str::trim)
                    .any(|w| !w.is_empty() && label.contains(w)))
        {
            continue;
        }
        let dir = prepare(&case, &work);
        let (diags, exit) = build(&dir);
        assert_eq!(exit, 0, "{label} does not build: {diags}");
        let fresh = dir.join("generated/data");
        let want = case.join("expected/data");
        for e in std::fs::read_dir(&want).unwrap().flatten() {
            let f = e.file_name();
            assert_eq!(
                std::fs::read(fresh.join(&f)).ok(),
                Some(std::fs::read(e.path()).unwrap()),
                "{label}: {} differs from expected/data (cargo test --test fidelity)",
                f.to_string_lossy()
            );
        }
        out.push(dir.join("gentable.toml"));
    }
    out
}

/// The pipeline's canonical output of one output target of a set: the committed `*.json` and
/// `content-hash.txt` of its data folder (`data/<output>/` when export groups give the output its own data,
/// else `data/`; see `gentable::emit::groups::data_dir`).
fn expected(set: &Set, lang: Lang) -> (BTreeMap<String, Vec<u8>>, String) {
    let data = lang.data_dir(set);
    let mut tables = BTreeMap::new();
    for e in std::fs::read_dir(&data)
        .unwrap_or_else(|e| panic!("{}: {e}", data.display()))
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(table) = name.strip_suffix(".json") {
            // The data file (one row per line, docs/data-format.md §2) → its canonical bytes, which it
            // proves by hashing to the dataHash of its header.
            let text = std::fs::read_to_string(e.path()).unwrap();
            let (header, canonical) = gentable::emit::data::json::parse(&text)
                .unwrap_or_else(|m| panic!("{}: {m}", e.path().display()));
            assert_eq!(
                header.table,
                table,
                "{}: header names another table",
                e.path().display()
            );
            tables.insert(table.to_string(), canonical.into_bytes());
        }
    }
    let hash_file = data.join("content-hash.txt");
    let text = std::fs::read_to_string(&hash_file)
        .unwrap_or_else(|e| panic!("{}: {e}", hash_file.display()));
    let hash = text.strip_suffix('\n').unwrap_or(&text).to_string();
    assert!(
        hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) && text.ends_with('\n'),
        "{}: expected 64 hex digits and a newline, got {text:?}",
        hash_file.display()
    );
    (tables, hash)
}

/// Read `<dir>/tables/*.json` and `<dir>/hash` written by a dumper.
fn read_dump(dir: &Path) -> Result<Dump, String> {
    let mut tables = BTreeMap::new();
    let rd = std::fs::read_dir(dir.join("tables"))
        .map_err(|e| format!("the dumper wrote no {}: {e}", dir.join("tables").display()))?;
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(table) = name.strip_suffix(".json") {
            tables.insert(table.to_string(), std::fs::read(e.path()).unwrap());
        }
    }
    let hash = std::fs::read_to_string(dir.join("hash"))
        .map_err(|e| format!("the dumper wrote no hash: {e}"))?;
    let order = std::fs::read_to_string(dir.join("order"))
        .ok()
        .map(|o| o.lines().map(str::to_string).collect());
    let formats = std::fs::read_to_string(dir.join("formats")).ok();
    Ok(Dump {
        tables,
        hash,
        order,
        formats,
    })
}

/// Run a command; `Err` with its output unless it succeeds.
fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "{cmd:?} failed ({}):\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Write `text` to `path` unless it already holds exactly that (keeps cargo's and tsc's caches warm).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read(path).ok().as_deref() != Some(text.as_bytes()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// An empty directory at `path`.
fn fresh_dir(path: &Path) {
    if path.exists() {
        std::fs::remove_dir_all(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    std::fs::create_dir_all(path).unwrap();
}

fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
    out.sort();
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

// ---------------------------------------------------------------------------------------------------------
// Rust: one dumper crate for all sets.

/// Write the dumper crate for `sets` and build it; `Err` with cargo's output.
fn build_rust_dumper(sets: &[&Set], work: &Path) -> Result<PathBuf, String> {
    let dump_dir = work.join("rust-dump");
    let mut toml = String::from(
        "# written by tests/conformance.rs\n[package]\nname = \"gentable-conformance-dump\"\nversion = \"0.0.0\"\n\
         edition = \"2021\"\npublish = false\n\n[workspace]\n\n[dependencies]\n",
    );
    let mut main = String::from(
        "// written by tests/conformance.rs: dumps every set's canonical_tables() and CONTENT_HASH.\n\
         use std::path::Path;\n\n\
         fn dump(root: &Path, set: &str, tables: Vec<(&'static str, String)>, hash: &str) {\n\
         \x20   let dir = root.join(set);\n\
         \x20   std::fs::create_dir_all(dir.join(\"tables\")).unwrap();\n\
         \x20   let mut order = String::new();\n\
         \x20   for (name, json) in tables {\n\
         \x20       let file = dir.join(\"tables\").join(format!(\"{name}.json\"));\n\
         \x20       assert!(!file.exists(), \"{set}: canonical_tables() lists {name} twice\");\n\
         \x20       std::fs::write(file, json).unwrap();\n\
         \x20       order.push_str(name);\n\
         \x20       order.push('\\n');\n\
         \x20   }\n\
         \x20   std::fs::write(dir.join(\"order\"), order).unwrap();\n\
         \x20   std::fs::write(dir.join(\"hash\"), hash).unwrap();\n\
         }\n\n\
         fn main() {\n\
         \x20   let root = std::path::PathBuf::from(std::env::args_os().nth(1).expect(\"usage: dump <out>\"));\n",
    );
    for s in sets {
        let dep = format!("set_{}", s.id);
        writeln!(
            toml,
            "{dep} = {{ package = {}, path = {}, features = [\"canonical\"] }}",
            toml_str(&s.crate_name),
            toml_str(&s.generated.join("rust").to_string_lossy())
        )
        .unwrap();
        writeln!(
            main,
            "    dump(&root, {:?}, {dep}::canonical_tables(), {dep}::CONTENT_HASH);",
            s.id
        )
        .unwrap();
    }
    main.push_str("}\n");
    write_if_changed(&dump_dir.join("Cargo.toml"), &toml);
    write_if_changed(&dump_dir.join("src/main.rs"), &main);

    let target = work.join("cargo-target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(dump_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        // Warnings in generated code are bugs too (path dependencies are not lint-capped).
        .env("RUSTFLAGS", "-D warnings")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS"))?;
    Ok(target.join(format!(
        "debug/gentable-conformance-dump{}",
        std::env::consts::EXE_SUFFIX
    )))
}

/// One dumper crate depending on every set's generated crate: one cargo run, one link. If some generated
/// crates do not compile, they fail alone and the dumper is rebuilt without them.
fn rust_leg(sets: &[Set], work: &Path) -> Results {
    let mut results = Results::new();
    let mut remaining: Vec<&Set> = sets.iter().collect();
    let out = work.join("out/rust");
    fresh_dir(&out);
    while !remaining.is_empty() {
        match build_rust_dumper(&remaining, work).and_then(|exe| run(Command::new(exe).arg(&out))) {
            Ok(_) => {
                for s in &remaining {
                    results.insert(s.id.clone(), read_dump(&out.join(&s.id)));
                }
                break;
            }
            Err(e) => {
                let (broken, fine): (Vec<&Set>, Vec<&Set>) = remaining
                    .iter()
                    .partition(|s| e.contains(&format!("could not compile `{}`", s.crate_name)));
                let retry = !broken.is_empty() && !fine.is_empty();
                for s in if broken.is_empty() { &fine } else { &broken } {
                    results.insert(s.id.clone(), Err(e.clone()));
                }
                if !retry {
                    break;
                }
                remaining = fine;
            }
        }
    }
    results
}

// ---------------------------------------------------------------------------------------------------------
// C#: one assembly per set (each set's runtime classes live in its own namespace, but sets must not depend on
// that to compile).

const CS_DUMPER: &str = r#"// written by tests/conformance.rs
namespace GentableConformance
{
    internal static class Dumper
    {
        // args: <data dir> <out dir>; writes <out>/<culture>/tables/<Table>.json and <out>/<culture>/hash, once in
        // the invariant culture and once in tr-TR (decimal comma, dotted/dotless i): a player's culture must not
        // change the data.
        private static int Main(string[] args)
        {
            Dump(args[0], args[1], global::System.Globalization.CultureInfo.InvariantCulture, "invariant");
            Dump(args[0], args[1], new global::System.Globalization.CultureInfo("tr-TR"), "tr-TR");
            return 0;
        }

        private static void Dump(string dataDir, string outDir, global::System.Globalization.CultureInfo culture, string name)
        {
            global::System.Threading.Thread.CurrentThread.CurrentCulture = culture;
            global::System.Threading.Thread.CurrentThread.CurrentUICulture = culture;
            var utf8 = new global::System.Text.UTF8Encoding(false);
            var tables = global::@NS@.Tables.Load(dataDir);
            string dir = global::System.IO.Path.Combine(outDir, name);
            global::System.IO.Directory.CreateDirectory(global::System.IO.Path.Combine(dir, "tables"));
            foreach (var kv in tables.ToCanonicalJson())
            {
                global::System.IO.File.WriteAllText(global::System.IO.Path.Combine(dir, "tables", kv.Key + ".json"), kv.Value, utf8);
            }
            global::System.IO.File.WriteAllText(global::System.IO.Path.Combine(dir, "hash"), global::@NS@.Tables.ContentHash, utf8);
            // With binary data (docs/data-format.md §3) Load read the .bytes files; the .json beside them must load
            // to the same canonical JSON.
            string formats = "json";
            var files = global::@NS@.Tables.DataFiles;
            if (files.Count > 0 && files[0].EndsWith(".bytes", global::System.StringComparison.Ordinal))
            {
                formats = "binary";
                global::System.Func<string, string> json = f => global::System.IO.Path.Combine(dataDir, f.Substring(0, f.Length - 6) + ".json");
                if (global::System.IO.File.Exists(json(files[0])))
                {
                    var fromJson = global::@NS@.Tables.LoadFromBytes(f => global::System.IO.File.ReadAllBytes(json(f))).ToCanonicalJson();
                    foreach (var kv in tables.ToCanonicalJson())
                    {
                        if (fromJson[kv.Key] != kv.Value) throw new global::System.Exception("table " + kv.Key + ": the binary and the JSON data files load differently");
                    }
                    formats = "binary,json";
                }
            }
            global::System.IO.File.WriteAllText(global::System.IO.Path.Combine(dir, "formats"), formats, utf8);
        }
    }
}
"#;

/// Time zone of the C# and TypeScript dumpers: a negative, half-hour offset with daylight saving time, so that
/// no time-zone dependence hides behind UTC.
const TZ: &str = "America/St_Johns";

/// The invariant-culture results and the tr-TR results.
fn csharp_leg(sets: &[Set], work: &Path, mcs: &Path, mono: &Path) -> (Results, Results) {
    let mut results = Results::new();
    let mut turkish = Results::new();
    for s in sets {
        let dir = work.join(&s.id).join("csharp");
        fresh_dir(&dir);
        let ns = s
            .namespace
            .split('.')
            .map(|p| format!("@{p}"))
            .collect::<Vec<_>>()
            .join(".");
        std::fs::write(dir.join("Dumper.cs"), CS_DUMPER.replace("@NS@", &ns)).unwrap();
        let mut sources = vec![];
        files_under(&s.generated.join("csharp"), "cs", &mut sources);
        let out = dir.join("out");
        let r = if sources.is_empty() {
            Err(format!(
                "no .cs files in {}",
                s.generated.join("csharp").display()
            ))
        } else {
            run(Command::new(mcs)
                .current_dir(&dir)
                .args([
                    "-langversion:7.2",
                    "-warnaserror",
                    "-nowarn:1591",
                    "-doc:doc.xml",
                    "-out:dump.exe",
                    "Dumper.cs",
                ])
                .args(&sources))
            .and_then(|_| {
                run(Command::new(mono)
                    .env("TZ", TZ)
                    .arg(dir.join("dump.exe"))
                    .arg(Lang::CSharp.data_dir(s))
                    .arg(&out))
            })
        };
        turkish.insert(
            s.id.clone(),
            r.clone().and_then(|_| read_dump(&out.join("tr-TR"))),
        );
        results.insert(
            s.id.clone(),
            r.and_then(|_| read_dump(&out.join("invariant"))),
        );
    }
    (results, turkish)
}

// ---------------------------------------------------------------------------------------------------------
// TypeScript: each set's generated/ts is copied next to its dumper (an ES-module package), all compiled by one
// tsc program, then each dumper runs in node.

const TS_DUMPER: &str = r#"// written by tests/conformance.rs
// argv: <data dir> <out dir>; writes <out>/tables/<Table>.json and <out>/hash.
import * as fs from "node:fs";
import * as path from "node:path";
import { CONTENT_HASH, DATA_FILES, canonicalTables, loadTables, loadTablesFromBytes } from "./gen/index.js";

const dataDir: string = process.argv[2] ?? "";
const outDir: string = process.argv[3] ?? "";
const tablesDir = path.join(outDir, "tables");
fs.mkdirSync(tablesDir, { recursive: true });
const dumped = canonicalTables(loadTables(dataDir));
for (const [name, json] of Object.entries(dumped)) {
  fs.writeFileSync(path.join(tablesDir, name + ".json"), json);
}
fs.writeFileSync(path.join(outDir, "hash"), CONTENT_HASH);
// With binary data (docs/data-format.md §3) loadTables read the .bytes files; the .json beside them must load to
// the same canonical JSON.
let formats = "json";
const first = DATA_FILES[0] ?? "";
if (first.endsWith(".bytes")) {
  formats = "binary";
  const json = (f: string): string => path.join(dataDir, f.slice(0, -".bytes".length) + ".json");
  if (fs.existsSync(json(first))) {
    const fromJson = canonicalTables(loadTablesFromBytes((f) => fs.readFileSync(json(f))));
    for (const [name, text] of Object.entries(dumped)) {
      if (fromJson[name] !== text) throw new Error("table " + name + ": the binary and the JSON data files load differently");
    }
    formats = "binary,json";
  }
}
fs.writeFileSync(path.join(outDir, "formats"), formats);
"#;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("{}: {e}", from.display()))
        .flatten()
    {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn ts_leg(sets: &[Set], work: &Path, node: &Path, tsc: &Path) -> Results {
    let root = work.join("ts");
    fresh_dir(&root);
    std::fs::write(root.join("package.json"), "{\"type\":\"module\"}\n").unwrap();
    let mut include = vec![];
    for s in sets {
        copy_tree(&s.generated.join("ts"), &root.join(&s.id).join("gen"));
        std::fs::write(root.join(&s.id).join("main.ts"), TS_DUMPER).unwrap();
        include.push(format!("{}/main.ts", s.id));
        include.push(format!("{}/gen/**/*.ts", s.id));
    }
    let types = repo().join("tests/conformance/node_modules/@types");
    // The options of src/emit/typescript's compile test (the strictest a consumer might use), on a plain Node
    // environment (no DOM lib); `skipLibCheck` only skips re-checking @types/node, which is 3/4 of tsc's time.
    let tsconfig = serde_json::json!({
        "compilerOptions": {
            "target": "ES2020",
            "lib": ["ES2020"],
            "skipLibCheck": true,
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": true,
            "noUnusedLocals": true,
            "noUnusedParameters": true,
            "noImplicitReturns": true,
            "noFallthroughCasesInSwitch": true,
            "noUncheckedIndexedAccess": true,
            "exactOptionalPropertyTypes": true,
            "noPropertyAccessFromIndexSignature": true,
            "verbatimModuleSyntax": true,
            "isolatedModules": true,
            "forceConsistentCasingInFileNames": true,
            "typeRoots": [types],
            "types": ["node"],
            "rootDir": ".",
            "outDir": "out",
        },
        "include": include,
    });
    std::fs::write(
        root.join("tsconfig.json"),
        serde_json::to_string_pretty(&tsconfig).unwrap(),
    )
    .unwrap();
    // tsc emits even when it reports errors: attribute each error to its set (`<id>/…(line,col): error`) and
    // still run the sets that compiled cleanly.
    let compiled = run(Command::new(node).current_dir(&root).arg(tsc).args([
        "-p",
        "tsconfig.json",
        "--pretty",
        "false",
    ]));
    let mut results = Results::new();
    for s in sets {
        let prefix = format!("{}/", s.id);
        let r = match &compiled {
            Err(e) => {
                let mine: Vec<&str> = e.lines().filter(|l| l.starts_with(&prefix)).collect();
                let anyone = sets
                    .iter()
                    .any(|o| e.lines().any(|l| l.starts_with(&format!("{}/", o.id))));
                if !mine.is_empty() {
                    Err(format!("tsc reports:\n{}", mine.join("\n")))
                } else if !anyone {
                    Err(e.clone())
                } else {
                    Ok(())
                }
            }
            Ok(_) => Ok(()),
        };
        let out = root.join(&s.id).join("dump");
        let r = r
            .and_then(|_| {
                run(Command::new(node)
                    .env("TZ", TZ)
                    .arg(root.join("out").join(&s.id).join("main.js"))
                    .arg(Lang::TypeScript.data_dir(s))
                    .arg(&out))
            })
            .and_then(|_| read_dump(&out));
        results.insert(s.id.clone(), r);
    }
    results
}

// ---------------------------------------------------------------------------------------------------------
// Comparison.

/// `i` moved back to the start of the UTF-8 character it falls in.
fn char_start(bytes: &[u8], mut i: usize) -> usize {
    i = i.min(bytes.len());
    while i > 0 && i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}

/// `bytes[from..to]` as readable text: UTF-8 shown as is, control characters (and invalid bytes) escaped.
fn show(bytes: &[u8], from: usize, to: usize) -> String {
    let to = char_start(bytes, to);
    let from = char_start(bytes, from).min(to);
    let mut out = String::new();
    for chunk in bytes[from..to].utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') {
                out.extend(c.escape_unicode());
            } else {
                out.push(c);
            }
        }
        out.push_str(&chunk.invalid().escape_ascii().to_string());
    }
    out
}

/// The index of the first row (array element) that differs, if both texts are JSON arrays.
fn first_row(want: &[u8], got: &[u8]) -> Option<usize> {
    let w: Vec<serde_json::Value> = serde_json::from_slice(want).ok()?;
    let g: Vec<serde_json::Value> = serde_json::from_slice(got).ok()?;
    Some(
        w.iter()
            .zip(&g)
            .position(|(a, b)| a != b)
            .unwrap_or(w.len().min(g.len())),
    )
}

/// `None` if equal; else where and how `got` differs from `want`.
fn first_difference(want: &[u8], got: &[u8]) -> Option<String> {
    if want == got {
        return None;
    }
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let row = match first_row(want, got) {
        Some(r) => format!(", in row {r} (0-based)"),
        None => String::new(),
    };
    // Context: 60 bytes either side; the differing character is marked ⟦…⟧.
    let context = |b: &[u8]| {
        let mark = char_start(b, at);
        let mut end = (mark + 1).min(b.len());
        while end < b.len() && (b[end] & 0xC0) == 0x80 {
            end += 1;
        }
        format!(
            "…{}⟦{}⟧{}…",
            show(b, at.saturating_sub(60), mark),
            show(b, mark, end),
            show(b, end, end + 60)
        )
    };
    Some(format!(
        "first difference at byte {at}{row} (expected {} bytes, got {}):\n      expected {}\n      got      {}",
        want.len(),
        got.len(),
        context(want),
        context(got),
    ))
}

fn compare(set: &Set, lang: Lang, dump: &Dump, problems: &mut Vec<String>) {
    let (want, hash) = expected(set, lang);
    let data = lang.data_dir(set);
    assert!(
        !want.is_empty(),
        "{}: no table data (*.json)",
        data.display()
    );
    let mut say = |what: String| problems.push(format!("{} / {}: {what}", set.label, lang.name()));
    let wanted: BTreeSet<&String> = want.keys().collect();
    let got: BTreeSet<&String> = dump.tables.keys().collect();
    for t in wanted.difference(&got) {
        say(format!(
            "table {t} is missing (the pipeline wrote {})",
            data.join(format!("{t}.json")).display()
        ));
    }
    for t in got.difference(&wanted) {
        say(format!(
            "table {t} is not in {} (the language dumps a table the pipeline did not write)",
            data.display()
        ));
    }
    for (t, w) in &want {
        if let Some(g) = dump.tables.get(t) {
            if let Some(d) = first_difference(w, g) {
                say(format!(
                    "table {t}: canonical JSON differs from {}: {d}",
                    data.join(format!("{t}.json")).display()
                ));
            }
        }
    }
    if dump.hash != hash {
        say(format!(
            "content hash {:?} differs from {} ({hash})",
            dump.hash,
            data.join("content-hash.txt").display()
        ));
    }
    // A data folder with binary files: the C# and TypeScript loaders read them, and the JSON files load the same.
    let has_bytes = std::fs::read_dir(&data).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "bytes"))
    });
    if lang != Lang::Rust && has_bytes && dump.formats.as_deref() != Some("binary,json") {
        say(format!(
            "{} has binary data files, but the loader read {:?} (expected the binary files, then the JSON ones)",
            data.display(),
            dump.formats.as_deref().unwrap_or("?")
        ));
    }
    if let Some(order) = &dump.order {
        let mut sorted = order.clone();
        sorted.sort();
        if &sorted != order {
            say(format!(
                "canonical_tables() is not in table-name order: {order:?}"
            ));
        }
    }
}

fn timed(f: impl FnOnce() -> Results) -> (Results, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

/// A lock file under `target/conformance`, held for the whole run so that two `cargo test`s in the same tree
/// do not clobber each other's work folders.
fn lock(work: &Path) -> std::fs::File {
    std::fs::create_dir_all(work).unwrap();
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(work.join(".lock"))
        .unwrap();
    if f.try_lock().is_err() {
        let _ = writeln!(
            std::io::stderr().lock(),
            "conformance: waiting for {} (another run)",
            work.join(".lock").display()
        );
        f.lock().unwrap();
    }
    f
}

#[test]
fn rust_csharp_and_typescript_reproduce_the_canonical_data() {
    let start = Instant::now();
    let sets = sets();
    let work = repo().join("target/conformance");
    let _lock = lock(&work);

    // Toolchains: never skipped on CI.
    let mcs = on_path("mcs");
    let mono = on_path("mono");
    let node = on_path("node");
    let bin_tsc = repo().join("tests/conformance/node_modules/.bin/tsc");
    let tsc = bin_tsc
        .exists()
        .then(|| std::fs::canonicalize(&bin_tsc).ok())
        .flatten()
        .filter(|_| {
            repo()
                .join("tests/conformance/node_modules/@types/node")
                .is_dir()
        });
    let mut missing = vec![];
    if mcs.is_none() {
        missing.push("mcs (Debian: mono-mcs)");
    }
    if mono.is_none() {
        missing.push("mono (Debian: mono-runtime)");
    }
    if node.is_none() {
        missing.push("node");
    }
    if tsc.is_none() {
        missing.push("tests/conformance/node_modules/.bin/tsc and @types/node (`npm ci` in tests/conformance)");
    }
    if !missing.is_empty() {
        let msg = format!(
            "CONFORMANCE HARNESS: missing {}.\nRun Tools/test.sh, which installs them.",
            missing.join(", ")
        );
        if on_ci() {
            panic!("{msg}\nCI=true: a language must never be skipped on CI.");
        }
        loud(&format!(
            "{msg}\nSKIPPING {} (not on CI). This run does NOT prove three-language conformance.",
            [
                (mcs.is_none() || mono.is_none()).then_some("the C# leg"),
                (node.is_none() || tsc.is_none()).then_some("the TypeScript leg"),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" and ")
        ));
    }

    // Three legs in parallel: cargo (itself parallel), mcs + mono, tsc + node.
    let mut results: BTreeMap<Lang, (Results, Duration)> = BTreeMap::new();
    std::thread::scope(|scope| {
        let rust = scope.spawn(|| timed(|| rust_leg(&sets, &work)));
        let cs = match (&mcs, &mono) {
            (Some(mcs), Some(mono)) => Some(scope.spawn(|| {
                let t = Instant::now();
                (csharp_leg(&sets, &work, mcs, mono), t.elapsed())
            })),
            _ => None,
        };
        let ts = match (&node, &tsc) {
            (Some(node), Some(tsc)) => {
                Some(scope.spawn(|| timed(|| ts_leg(&sets, &work, node, tsc))))
            }
            _ => None,
        };
        results.insert(Lang::Rust, rust.join().unwrap());
        if let Some(cs) = cs {
            let ((invariant, turkish), took) = cs.join().unwrap();
            results.insert(Lang::CSharp, (invariant, took));
            results.insert(Lang::CSharpTurkish, (turkish, Duration::ZERO));
        }
        if let Some(ts) = ts {
            results.insert(Lang::TypeScript, ts.join().unwrap());
        }
    });

    let mut problems = vec![];
    let mut summary = String::new();
    for s in &sets {
        let mut line = format!("  {:<20}", s.label);
        for (lang, (res, _)) in &results {
            let before = problems.len();
            match &res[&s.id] {
                Ok(dump) => compare(s, *lang, dump, &mut problems),
                Err(e) => problems.push(format!(
                    "{} / {}: no dump:\n{}",
                    s.label,
                    lang.name(),
                    e.trim_end()
                )),
            }
            let ok = if problems.len() == before {
                "ok"
            } else {
                "FAIL"
            };
            write!(line, " {}={ok}", lang.name()).unwrap();
        }
        writeln!(summary, "{line}").unwrap();
    }
    let timings: Vec<String> = results
        .iter()
        .filter(|(l, _)| **l != Lang::CSharpTurkish)
        .map(|(l, (_, d))| format!("{} {:.1}s", l.name(), d.as_secs_f64()))
        .collect();
    eprintln!(
        "conformance: {} set(s) in {:.1}s ({})\n{summary}",
        sets.len(),
        start.elapsed().as_secs_f64(),
        timings.join(", ")
    );
    assert!(
        problems.is_empty(),
        "{} conformance problem(s) (work folders under {}):\n\n{}\n",
        problems.len(),
        work.display(),
        problems.join("\n\n")
    );
}
