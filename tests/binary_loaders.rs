//! The C# and TypeScript loaders of the binary data format (issue 15 items 2 and 3; docs/data-format.md §3,
//! §5): a damaged, truncated, swapped or foreign `<Table>.bytes` fails with the library's own error type
//! (`GentableDataException`, `GentableDataError`) naming the file, the table and what differed — never a wrong
//! value.
//!
//! The torture set's committed C# and TypeScript (`tests/torture/gentable.toml` selects `data = ["json",
//! "binary"]`, so their loaders read `.bytes`) are compiled once with a small driver each; every case is a copy
//! of the torture data folder with one binary file changed, and both drivers load every case in one run,
//! printing `ok <tables>` or the error's message, file and table. Every one-byte change of one file (resealed)
//! is loaded too: the library's error or a load, never another exception. That the intact data loads to the
//! canonical JSON is the conformance harness's part (tests/conformance.rs).
//!
//! Toolchains as in `tests/conformance.rs`: with `CI=true` a missing `mcs`, `mono`, `node` or the pinned `tsc`
//! fails; elsewhere the language is skipped with a message.

mod common;

use common::binary::{layout, reseal};
use common::copy_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `Some(path)` of `name` on `PATH`; `None` (skip) if missing, except on CI.
fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(!on_ci(), "{name} is required on CI (CI=true)");
        eprintln!("skipping: {name} not found");
    }
    found
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Recompute the length and CRC-32 fields of a binary data file after an edit (docs/data-format.md §3.1), so
/// that only the edited value is wrong.
fn data_dir() -> PathBuf {
    repo().join("tests/torture/generated/data")
}

fn bytes(table: &str) -> Vec<u8> {
    std::fs::read(data_dir().join(format!("{table}.bytes"))).unwrap()
}

/// A message built at run time, as the cases' `&'static str`.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Every case: (name, the file changed, its new bytes or `None` to remove it, what each message must contain).
fn cases() -> Vec<(&'static str, &'static str, Option<Vec<u8>>, &'static str)> {
    let pair = bytes("Pair");
    let option = bytes("Option");
    // Intact: every table of the torture set loads (one binary file each).
    let tables = std::fs::read_dir(data_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "bytes"))
        .count();
    let intact: &'static str = Box::leak(format!("ok {tables}").into_boxed_str());
    let mut out = vec![("intact", "Pair", Some(pair.clone()), intact)];
    let mut flipped = pair.clone();
    let mid = 152 + (flipped.len() - 152) / 2;
    flipped[mid] ^= 0x20;
    out.push((
        "flipped",
        "Pair",
        Some(flipped),
        "Pair.bytes: CRC-32 mismatch (a damaged or edited file) (table Pair)",
    ));
    let len = pair.len();
    out.push((
        "truncated",
        "Pair",
        Some(pair[..len - 10].to_vec()),
        leak(format!("Pair.bytes: is {} bytes long but its header says {len} (a truncated or edited file) (table Pair)", len - 10)),
    ));
    out.push((
        "swapped",
        "Pair",
        Some(option.clone()),
        "Pair.bytes: holds table \"Option\", expected Pair (table Pair)",
    ));
    let mut schema = pair.clone();
    schema[88..152].copy_from_slice(&[b'0'; 64]);
    reseal(&mut schema);
    out.push((
        "schema",
        "Pair",
        Some(schema),
        "Pair.bytes: was written for another shape of table Pair: its schemaHash is 0000000000000000000000000000000000000000000000000000000000000000, this code reads ",
    ));
    let mut build = pair.clone();
    build[24..88].copy_from_slice(&[b'0'; 64]);
    reseal(&mut build);
    out.push((
        "build",
        "Pair",
        Some(build),
        "Pair.bytes: is from another build of the tables: its dataHash is 0000000000000000000000000000000000000000000000000000000000000000, this code was generated with ",
    ));
    let mut version = pair.clone();
    version[8] = 2;
    reseal(&mut version);
    out.push((
        "version",
        "Pair",
        Some(version),
        "Pair.bytes: data file format 2; this code reads format 3 (table Pair)",
    ));
    let mut trailing = pair.clone();
    trailing.extend_from_slice(&[0, 0, 0]);
    reseal(&mut trailing);
    out.push((
        "trailing",
        "Pair",
        Some(trailing),
        leak(format!(
            "Pair.bytes: at byte {len}: bytes after the last row (table Pair)"
        )),
    ));
    // Values outside their type, every hash and the CRC intact. Pair's rows are Kind (enum Keyword), N, V (f64);
    // its row count (4) is one byte.
    let rows = layout(&pair).rows + 1;
    let mut kind = pair.clone();
    kind[rows] = 0x7f;
    reseal(&mut kind);
    out.push((
        "enum",
        "Pair",
        Some(kind),
        leak(format!(
            "Pair.bytes[0]: at byte {}: Keyword index 127 is out of range (",
            rows + 1
        )),
    ));
    // One V, 1e-300, has no short decimal form: tag 255 and its 8 bytes.
    let mut nan = pair.clone();
    let mut raw = vec![255];
    raw.extend_from_slice(&1e-300f64.to_le_bytes());
    let at = pair
        .windows(9)
        .position(|w| w == raw)
        .expect("1e-300 is written as its 8 bytes")
        + 1;
    nan[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    reseal(&mut nan);
    out.push((
        "nan",
        "Pair",
        Some(nan),
        leak(format!("at byte {at}: a number is not finite (table Pair)")),
    ));
    // The string table's Huffman code: a code length of 25 bits.
    let mut code = option.clone();
    code[layout(&option).code_lengths] = 25;
    reseal(&mut code);
    out.push((
        "code-length",
        "Option",
        Some(code),
        "a code length of 25 bits (0 to 24) (table Option)",
    ));
    // A JSON value (issue 19's Shapes table) whose kind is outside 0-6: row 0's Any is present (tag 1) and an
    // object (kind 6) of 5 members, the first such bytes of the row.
    let shapes = bytes("Shapes");
    let rows = layout(&shapes).rows + 1;
    let kind_at = rows
        + shapes[rows..]
            .windows(3)
            .position(|w| w == [1, 6, 5])
            .expect("row 0's Any is an object of 5 members")
        + 1;
    let mut json_kind = shapes.clone();
    json_kind[kind_at] = 9;
    reseal(&mut json_kind);
    out.push((
        "json-kind",
        "Shapes",
        Some(json_kind),
        "a JSON value kind index 9 is out of range (7 members) (table Shapes)",
    ));
    out.push((
        "garbage",
        "Pair",
        Some(b"\x89GTB\r\n\x1a\nshort".to_vec()),
        "Pair.bytes: not a gentable binary data file (docs/data-format.md §3) (table Pair)",
    ));
    out.push(("missing", "Pair", None, "Pair.bytes: cannot read "));
    out
}

const CS_DRIVER: &str = r#"// written by tests/binary_loaders.rs: loads every folder named on the command line.
public static class BinaryLoadersDriver
{
    public static int Main(string[] args)
    {
        foreach (var dir in args)
        {
            string name = global::System.IO.Path.GetFileName(dir);
            try
            {
                var t = global::Torture.Tables.Tables.Load(dir);
                global::System.Console.WriteLine(name + ": ok " + t.ToCanonicalJson().Count);
            }
            catch (global::Torture.Tables.GentableDataException e)
            {
                global::System.Console.WriteLine(name + ": " + e.Message.Replace("\n", " ") + " | " + e.File + " | " + e.Table + " | " + (e.InnerException != null ? "true" : "false"));
            }
        }
        return 0;
    }
}
"#;

const TS_DRIVER: &str = r#"// written by tests/binary_loaders.rs: loads every folder named on the command line.
import * as path from "node:path";
import { GentableDataError, canonicalTables, loadTables } from "./gen/index.js";

for (const dir of process.argv.slice(2)) {
  const name = path.basename(dir);
  try {
    console.log(name + ": ok " + String(Object.keys(canonicalTables(loadTables(dir))).length));
  } catch (e) {
    if (!(e instanceof GentableDataError)) throw e;
    console.log(name + ": " + e.message.replace(/\n/g, " ") + " | " + e.file + " | " + e.table + " | " + String((e as { cause?: unknown }).cause !== undefined));
  }
}
"#;

/// The case folders (under `work/cases/`), freshly written.
fn write_cases(work: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![];
    for (case, table, content, _) in cases() {
        let dir = work.join("cases").join(case);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(data_dir()).unwrap().flatten() {
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        let file = dir.join(format!("{table}.bytes"));
        match content {
            Some(b) => std::fs::write(&file, b).unwrap(),
            None => std::fs::remove_file(&file).unwrap(),
        }
        dirs.push(dir);
    }
    dirs
}

/// The table whose every byte [`mutants`] changes: the torture set's largest file, its string table coded in
/// both contexts (ASCII, Latin, CJK and astral characters).
const MUTATED: &str = "Alphabet";

/// The decoders under every one-byte change (format 3's string table above all): each byte of
/// `Alphabet.bytes` after the header XOR `0x5A` in turn, the length and CRC-32 recomputed so that only that
/// byte is wrong. (name, bytes) per case.
fn mutants() -> Vec<(String, Vec<u8>)> {
    let original = bytes(MUTATED);
    (152..original.len())
        .map(|at| {
            let mut b = original.clone();
            b[at] ^= 0x5a;
            reseal(&mut b);
            (format!("mutant-{at}"), b)
        })
        .collect()
}

/// The mutants' case folders (under `work/mutants/`), freshly written.
fn write_mutants(work: &Path) -> Vec<PathBuf> {
    let root = work.join("mutants");
    let _ = std::fs::remove_dir_all(&root);
    mutants()
        .into_iter()
        .map(|(name, b)| {
            let dir = root.join(name);
            std::fs::create_dir_all(&dir).unwrap();
            for e in std::fs::read_dir(data_dir()).unwrap().flatten() {
                std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
            }
            std::fs::write(dir.join(format!("{MUTATED}.bytes")), b).unwrap();
            dir
        })
        .collect()
}

/// Each mutant either still decodes (a change that keeps every value in its type, which no loader can tell
/// from the original: the CRC was recomputed) or is refused with the library's error naming the file and the
/// table — never another exception (the drivers rethrow those and fail), a hang or a crash. At least half
/// must be refused.
fn check_mutants(lang: &str, out: &str) {
    let mutants = mutants();
    let mut refused = 0;
    for (name, _) in &mutants {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("{lang}: no line for {name} in\n{out}"));
        if !line.starts_with(&format!("{name}: ok ")) {
            assert!(
                line.ends_with(&format!(" | {MUTATED}.bytes | {MUTATED} | false")),
                "{lang} {name}: not the library's error for the file and table: {line}"
            );
            refused += 1;
        }
    }
    // Changed bits of the coded characters often still decode, to other characters of the alphabet (the file
    // is mostly text): here 435 of 691 changes are refused, in both languages.
    assert!(
        refused * 2 >= mutants.len(),
        "{lang}: only {refused} of {} one-byte changes refused",
        mutants.len()
    );
}

/// Each case's line of `out` holds its message, the file and the table (and, for a missing file, the I/O error).
fn check(lang: &str, out: &str) {
    for (case, table, content, want) in cases() {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{case}: ")))
            .unwrap_or_else(|| panic!("{lang}: no line for case {case} in\n{out}"));
        assert!(
            line.contains(want),
            "{lang} case {case}: expected {want:?} in\n{line}"
        );
        if case != "intact" {
            let fields: Vec<&str> = line.split(" | ").collect();
            assert_eq!(
                fields[1..],
                [
                    format!("{table}.bytes").as_str(),
                    table,
                    if content.is_none() { "true" } else { "false" }
                ],
                "{lang} case {case}: file, table, inner error in {line}"
            );
        }
    }
}

#[test]
fn csharp_refuses_damaged_binary_data_by_name() {
    let (Some(mcs), Some(mono)) = (tool("mcs"), tool("mono")) else {
        return;
    };
    let work = repo().join("target/binary-loaders/csharp");
    std::fs::create_dir_all(&work).unwrap();
    let dirs = write_cases(&work);
    std::fs::write(work.join("Driver.cs"), CS_DRIVER).unwrap();
    let mut sources: Vec<PathBuf> =
        std::fs::read_dir(repo().join("tests/torture/generated/csharp"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "cs"))
            .collect();
    sources.sort();
    run(Command::new(&mcs)
        .current_dir(&work)
        .args([
            "-langversion:7.2",
            "-warnaserror",
            "-nowarn:1591",
            "-out:driver.exe",
            "Driver.cs",
        ])
        .args(&sources));
    let mutants = write_mutants(&work);
    let out = run(Command::new(&mono)
        .arg(work.join("driver.exe"))
        .args(&dirs)
        .args(&mutants));
    check("C#", &out);
    check_mutants("C#", &out);
}

#[test]
fn typescript_refuses_damaged_binary_data_by_name() {
    let Some(node) = tool("node") else { return };
    let tsc = repo().join("tests/conformance/node_modules/typescript/bin/tsc");
    if !tsc.exists() {
        assert!(
            !on_ci(),
            "tests/conformance/node_modules is required on CI (npm ci there)"
        );
        eprintln!("skipping: {} not found", tsc.display());
        return;
    }
    let work = repo().join("target/binary-loaders/ts");
    let _ = std::fs::remove_dir_all(work.join("src"));
    let dirs = write_cases(&work);
    let src = work.join("src");
    copy_dir(&repo().join("tests/torture/generated/ts"), &src.join("gen"));
    std::fs::write(src.join("main.ts"), TS_DRIVER).unwrap();
    std::fs::write(src.join("package.json"), "{\"type\":\"module\"}\n").unwrap();
    let tsconfig = serde_json::json!({
        "compilerOptions": {
            "target": "ES2020",
            "lib": ["ES2020"],
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": true,
            "noUnusedLocals": true,
            "noUncheckedIndexedAccess": true,
            "exactOptionalPropertyTypes": true,
            "skipLibCheck": true,
            "typeRoots": [repo().join("tests/conformance/node_modules/@types")],
            "types": ["node"],
            "outDir": "out",
        },
        "include": ["main.ts", "gen/**/*.ts"],
    });
    std::fs::write(
        src.join("tsconfig.json"),
        serde_json::to_string_pretty(&tsconfig).unwrap(),
    )
    .unwrap();
    run(Command::new(&node)
        .current_dir(&src)
        .arg(&tsc)
        .args(["-p", "tsconfig.json"]));
    let mutants = write_mutants(&work);
    let out = run(Command::new(&node)
        .arg(src.join("out/main.js"))
        .args(&dirs)
        .args(&mutants));
    check("TypeScript", &out);
    check_mutants("TypeScript", &out);
}
