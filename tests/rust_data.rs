//! The Rust crate's embedded data (issue 14, docs/data-format.md §3 and §5): a damaged data file under
//! `generated/rust/data/` fails at first access with a `DataError` naming the file, the table and what is
//! wrong — never a wrong value, never undefined behaviour.
//!
//! FunnyPitch's committed crate is copied once per case into `target/rust-data/` (its own crate names), one
//! embedded file of each copy is damaged the way a hand edit, a truncated copy or a file from another build
//! would, and one runner crate depending on every copy prints what `load()`, `try_all()` and `all()` say.

mod common;

use common::binary::{layout, reseal};
use common::copy_dir;
use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Write `text` unless the file already holds it (keeps cargo's cache warm between runs).
fn write_if_changed(path: &Path, text: &[u8]) {
    if std::fs::read(path).ok().as_deref() != Some(text) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `table`'s embedded data file from FunnyPitch built with that table in its sheet's row order (a copy of the
/// project under `target/rust-data/`, with `[tables.<table>] order = "source"`).
fn in_sheet_order(table: &str) -> Vec<u8> {
    let dir = repo().join("target/rust-data/sheet-order");
    let _ = std::fs::remove_dir_all(&dir);
    for part in ["Table", "schema"] {
        copy_dir(&repo().join(part), &dir.join(part));
    }
    let mut toml = std::fs::read_to_string(repo().join("gentable.toml")).unwrap();
    toml.push_str(&format!("\n[tables.{table}]\norder = \"source\"\n"));
    std::fs::write(dir.join("gentable.toml"), toml).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .arg("build")
        .arg("-c")
        .arg(dir.join("gentable.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(dir.join(format!("generated/rust/data/{table}.bytes"))).unwrap()
}

#[test]
fn damaged_embedded_data_is_a_data_error_naming_the_file() {
    let crate_dir = repo().join("generated/rust");
    let data = |t: &str| std::fs::read(crate_dir.join(format!("data/{t}.bytes"))).unwrap();
    let piece = data("PieceType");
    let lang = data("Lang");
    // (case, file damaged, its new bytes, what the error must say)
    let mut cases: Vec<(&str, &str, Vec<u8>, &str)> = vec![];
    cases.push(("intact", "PieceType", piece.clone(), ""));
    let mut flipped = piece.clone();
    let mid = 152 + (flipped.len() - 152) / 2;
    flipped[mid] ^= 0x20;
    cases.push((
        "flipped",
        "PieceType",
        flipped,
        "at byte 12: its CRC-32 does not match its bytes: the file was changed after gentable wrote it",
    ));
    cases.push((
        "truncated",
        "PieceType",
        piece[..piece.len() - 10].to_vec(),
        "but its header says",
    ));
    // Another table's (valid) file in this table's place: named by the table it holds.
    cases.push((
        "swapped",
        "PieceType",
        lang.clone(),
        // (as `{:?}` prints it: quotes escaped)
        "it holds table \\\"Lang\\\", not PieceType",
    ));
    let mut other_schema = piece.clone();
    other_schema[88..152].copy_from_slice(&[b'0'; 64]);
    reseal(&mut other_schema);
    cases.push((
        "schema",
        "PieceType",
        other_schema,
        "the file was written for another schema",
    ));
    let mut trailing = piece.clone();
    trailing.extend_from_slice(&[0, 0, 0]);
    reseal(&mut trailing);
    cases.push((
        "trailing",
        "PieceType",
        trailing,
        "3 bytes follow the last row",
    ));
    // A value outside its type with every hash and the CRC intact: the last field of the last row is
    // PieceType.AiWeight, a number, here a whole one (tag 22, then a one-byte zigzag varint); written as
    // its 8 bytes instead (tag 255), NaN is no JSON number.
    let mut nan = piece.clone();
    let n = nan.len();
    assert_eq!(nan[n - 2], 22, "the last AiWeight is a small whole number");
    nan.truncate(n - 2);
    nan.push(255);
    nan.extend_from_slice(&f64::NAN.to_le_bytes());
    reseal(&mut nan);
    cases.push(("nan", "PieceType", nan, "NaN is not a finite number"));
    // A bad value in the first field of the first row (a string used before its first use) and a row count
    // one too high (the twelfth row's first read finds the end of the file), CRC intact: each decoder reads
    // its whole row before its one check, so the error must be the first failed read's, not a later one's.
    let rows_at = layout(&piece).rows;
    assert_eq!(piece[rows_at], 11, "PieceType has 11 rows");
    let mut first = piece.clone();
    assert_eq!(first[rows_at + 1], 0, "the first row's Id is a new string");
    first[rows_at + 1] = 100;
    reseal(&mut first);
    cases.push((
        "first_string",
        "PieceType",
        first,
        "string 99 is used before its first use (0 used so far)",
    ));
    let mut count = piece.clone();
    count[rows_at] = 12;
    reseal(&mut count);
    cases.push((
        "row_count",
        "PieceType",
        count,
        "the file ends inside a number",
    ));
    // The string table's Huffman code: a code length of 25 bits, and a code that is not a prefix code
    // (every length 1 in context 0: more than two characters cannot each have a 1-bit code).
    let parts = layout(&lang);
    assert!(parts.alphabet > 2, "Lang's strings use many characters");
    let mut long = lang.clone();
    long[parts.code_lengths] = 25;
    reseal(&mut long);
    cases.push((
        "code_length",
        "Lang",
        long,
        "a code length of 25 bits (0 to 24)",
    ));
    let mut prefix = lang.clone();
    prefix[parts.code_lengths..parts.code_lengths + parts.alphabet].fill(1);
    reseal(&mut prefix);
    cases.push((
        "prefix",
        "Lang",
        prefix,
        "the string table's code lengths are not a prefix code",
    ));
    // Rows out of primary-key order, every hash and the CRC intact (a sorted table's lookups search its rows):
    // FunnyPitch built again with PieceType in sheet order (`order = "source"`: Soldier, then Minister), its
    // hashes taken from the committed file.
    let mut unsorted = in_sheet_order("PieceType");
    unsorted[24..152].copy_from_slice(&piece[24..152]);
    reseal(&mut unsorted);
    cases.push((
        "unsorted",
        "PieceType",
        unsorted,
        "rows 0 and 1 are not in strictly ascending primary-key order",
    ));
    cases.push((
        "garbage",
        "PieceType",
        b"[{\"Id\":\"Soldier\"}]".to_vec(),
        "not a gentable binary data file",
    ));

    let work = repo().join("target/rust-data");
    let mut toml = String::from(
        "[package]\nname = \"rust-data-runner\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[workspace]\n\n[dependencies]\n",
    );
    let mut main = String::from("fn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n");
    for (case, table, bytes, _) in &cases {
        let dir = work.join(case);
        copy_dir(&crate_dir, &dir);
        // Its own crate names (the facade, its code crate `_code` and the linker symbol between them carry
        // the name), so that every copy links into one runner.
        for rel in [
            "Cargo.toml",
            "code/Cargo.toml",
            "src/lib.rs",
            "code/src/lib.rs",
        ] {
            let text = std::fs::read_to_string(crate_dir.join(rel))
                .unwrap()
                .replace("funnypitch_tables", &format!("case_{case}"));
            write_if_changed(&dir.join(rel), text.as_bytes());
        }
        write_if_changed(&dir.join(format!("data/{table}.bytes")), bytes);
        toml.push_str(&format!(
            "case_{case} = {{ path = {:?} }}\n",
            dir.to_string_lossy()
        ));
        main.push_str(&format!(
            "    println!(\"{case} load: {{:?}}\", case_{case}::load().map_err(|e| e.to_string()));\n\
             \x20   println!(\"{case} try_all: {{:?}}\", case_{case}::{table}::try_all().map(|r| r.len()).map_err(|e| (e.file, e.table)));\n\
             \x20   let all = std::panic::catch_unwind(|| case_{case}::{table}::all().len());\n\
             \x20   println!(\"{case} all: {{:?}}\", all.map_err(|p| p.downcast_ref::<String>().cloned().unwrap_or_default()));\n"
        ));
    }
    main.push_str("}\n");
    let runner = work.join("runner");
    write_if_changed(&runner.join("Cargo.toml"), toml.as_bytes());
    write_if_changed(&runner.join("src/main.rs"), main.as_bytes());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--manifest-path"])
        .arg(runner.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", work.join("target"))
        .env("RUSTFLAGS", "-D warnings")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = |case: &str, what: &str| -> String {
        let prefix = format!("{case} {what}: ");
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no line {prefix} in:\n{stdout}"))
            .to_string()
    };
    assert_eq!(line("intact", "load"), "Ok(())");
    assert_eq!(line("intact", "try_all"), "Ok(11)");
    assert_eq!(line("intact", "all"), "Ok(11)");
    for (case, table, _, says) in cases.iter().skip(1) {
        let load = line(case, "load");
        let file = format!("data/{table}.bytes (table {table}): ");
        assert!(load.starts_with(&format!("Err(\"{file}")), "{case}: {load}");
        assert!(load.contains(says), "{case}: {load} lacks {says:?}");
        assert!(
            load.contains("regenerate the crate with `gentable build`"),
            "{case}: {load}"
        );
        if *table == "PieceType" {
            assert_eq!(
                line(case, "try_all"),
                "Err((\"data/PieceType.bytes\", \"PieceType\"))",
                "{case}"
            );
            // The infallible accessor panics with the same message: never a wrong or empty table.
            let all = line(case, "all");
            assert!(
                all.starts_with(&format!("Err(\"{file}")) && all.contains(says),
                "{case}: {all}"
            );
        }
    }
}
