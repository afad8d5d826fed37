//! The bodies of the fuzz targets (issue 13 item 5), shared by the libFuzzer binaries of `fuzz/` and by
//! `tests/fuzz_corpus.rs`, which replays every seed and every regression input through them in the ordinary
//! test run. Each body feeds arbitrary bytes to one reading stage of gentable and asserts only what must hold
//! for any input: no panic, no stack overflow, no unbounded allocation (the binaries run under libFuzzer's
//! `-rss_limit_mb`), and a diagnostic, never silence, for input that is refused.

use gentable::config::Limits;
use gentable::ir::{Project, Type};
use gentable::read::discover::SourceFile;
use gentable::schema::{self, SchemaSet};
use gentable::typing::cell::{self, Grammar};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The torture set's schemas, built once: every kind of field type the grammar reads (scalars, arrays,
/// maps, records, unions, enums, flags, optional and recursive types).
fn torture() -> &'static (Project, Vec<Type>) {
    static T: OnceLock<(Project, Vec<Type>)> = OnceLock::new();
    T.get_or_init(|| {
        let dir = repo().join("tests/torture/schema");
        let set = schema::load_dir(&dir, "schema").expect("the torture schemas load");
        let mut project = Project::default();
        let mut types = vec![];
        for file in set.files.keys() {
            let Some(table) = file.strip_suffix(".schema.json") else {
                continue;
            };
            if table == "common" {
                continue;
            }
            let ts = schema::build_table(&set, &mut project, table, file)
                .unwrap_or_else(|d| panic!("torture schema {file}: {d:?}"));
            types.extend(ts.fields.iter().map(|f| f.ty.clone()));
        }
        types.extend(project.all_field_types().into_iter().cloned());
        types.sort_by_key(|t| format!("{t:?}"));
        types.dedup();
        (project, types)
    })
}

/// The repository root (the fuzz crate is `fuzz/` in it).
pub fn repo() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("fuzz").is_dir() {
        here.to_path_buf()
    } else {
        here.parent().unwrap_or(here).to_path_buf()
    }
}

/// Small limits, so that a fuzzer reaches the bounds quickly and no input can cost more than a few MiB.
fn limits() -> Limits {
    Limits {
        nesting_depth: 32,
        cell_bytes: 64 * 1024,
        file_bytes: 4 * 1024 * 1024,
        workbook_inflated_bytes: 16 * 1024 * 1024,
        sheet_cells: 200_000,
    }
}

/// Target `cell`: the input (UTF-8) is one cell, typed as every field type of the torture set, with the
/// default separator `|` and with `,`. A refused cell must say why.
pub fn cell(data: &[u8]) {
    cell_findings(data);
}

/// A message and its help: what a target's body reported ([`findings`]).
pub type Finding = (String, Option<String>);

/// [`cell`], with the message and help of every refusal.
fn cell_findings(data: &[u8]) -> Vec<Finding> {
    let mut out = vec![];
    let Ok(text) = std::str::from_utf8(data) else {
        return out;
    };
    let (project, types) = torture();
    for separator in ['|', ','] {
        let g = Grammar {
            separator,
            max_depth: 32,
        };
        for ty in types {
            if let Err(e) = cell::parse_cell_with(text, ty, project, g) {
                assert!(
                    !e.message.is_empty(),
                    "a refused cell without a message: {text:?} as {ty:?}"
                );
                out.push((e.message, e.help));
            }
        }
    }
    out
}

/// Target `csv`: the input is a CSV file, read as `[tables.X] encoding` unset (UTF-8 or a BOM's encoding),
/// GBK and UTF-16, comma- and tab-separated. A refused file must say why.
pub fn csv(data: &[u8]) {
    csv_findings(data);
}

/// The message and help of every diagnostic.
fn diagnostics(d: &[gentable::diag::Diagnostic]) -> Vec<Finding> {
    d.iter()
        .map(|d| (d.message.clone(), d.help.clone()))
        .collect()
}

/// [`csv`], with every diagnostic.
fn csv_findings(data: &[u8]) -> Vec<Finding> {
    let mut out = vec![];
    for (encoding, delimiter) in [(None, b','), (Some("gbk"), b','), (Some("utf-16"), b'\t')] {
        let mut diags = vec![];
        let t = gentable::read::csv::read_csv_bytes(
            "Fuzz",
            "Table/Fuzz.csv",
            data,
            encoding,
            delimiter,
            &limits(),
            &mut diags,
        );
        if t.is_none() {
            assert!(!diags.is_empty(), "a CSV file refused without a diagnostic");
        }
        out.extend(diagnostics(&diags));
    }
    out
}

/// Target `workbook`: the input is a workbook, read as the format its first bytes say (a zip: xlsx, ods
/// and xlsb; an OLE compound file: xls), as the build reads a file of that extension. What is read stays
/// within `[limits] sheet_cells`.
pub fn workbook(data: &[u8]) {
    workbook_findings(data);
}

/// [`workbook`], with every diagnostic.
fn workbook_findings(data: &[u8]) -> Vec<Finding> {
    let mut out = vec![];
    let exts: &[&str] = if data.starts_with(b"PK") {
        &["xlsx", "ods", "xlsb"]
    } else if data.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        &["xls"]
    } else {
        &["xlsx"]
    };
    let limits = limits();
    for ext in exts {
        let file = SourceFile {
            path: PathBuf::from(format!("Table/Fuzz.{ext}")),
            rel: format!("Table/Fuzz.{ext}"),
            rel_in_folder: format!("Fuzz.{ext}"),
        };
        let mut diags = vec![];
        let tables =
            gentable::read::workbook::read_workbook(&file, data, &limits, &|_| true, &mut diags);
        for t in &tables {
            let cells: usize = t.rows.iter().map(|r| r.cells.len()).sum();
            assert!(
                cells as u64 <= limits.sheet_cells,
                "{cells} cells read from one sheet"
            );
        }
        out.extend(diagnostics(&diags));
    }
    out
}

/// Target `schema`: the input is the schema file `T.schema.json` of table `T` (and, after a NUL byte, the
/// shared `common.schema.json`); a schema that does not build must say why.
pub fn schema(data: &[u8]) {
    schema_findings(data);
}

/// [`schema`], with every diagnostic.
fn schema_findings(data: &[u8]) -> Vec<Finding> {
    let (main, common) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let Ok(v) = serde_json::from_slice(main) else {
        return vec![];
    };
    let mut files = std::collections::BTreeMap::new();
    files.insert("T.schema.json".to_string(), v);
    if let Some(Ok(c)) = common.map(serde_json::from_slice) {
        files.insert("common.schema.json".to_string(), c);
    }
    let set = SchemaSet::new(files, "schema");
    let mut project = Project::default();
    match schema::build_table(&set, &mut project, "T", "T.schema.json") {
        Err(d) => {
            assert!(!d.is_empty(), "a schema refused without a diagnostic");
            diagnostics(&d)
        }
        Ok(_) => vec![],
    }
}

/// Run target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    findings(name, data);
}

/// Run target `name` on `data`: the message and help of everything it refused (`tests/messages.rs`
/// renders them in Chinese).
pub fn findings(name: &str, data: &[u8]) -> Vec<Finding> {
    match name {
        "cell" => cell_findings(data),
        "csv" => csv_findings(data),
        "workbook" => workbook_findings(data),
        "schema" => schema_findings(data),
        _ => panic!("no fuzz target {name}"),
    }
}

/// The seed corpus of target `name`, from the repository's own tests and projects (relative name, bytes):
/// `cell`: every cell of the torture set's tables; `csv`: every CSV table (but the generated reserved-name
/// corpus); `workbook`: every committed workbook; `schema`: every schema file.
pub fn seeds(name: &str) -> Vec<(String, Vec<u8>)> {
    let root = repo();
    let mut files = vec![];
    for dir in [
        "Table",
        "schema",
        "examples",
        "tests/torture",
        "tests/luban",
    ] {
        walk(&root.join(dir), &mut files);
    }
    files.sort();
    let rel = |p: &Path| {
        p.strip_prefix(&root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace(['/', '\\'], "_")
    };
    let has_ext = |p: &Path, exts: &[&str]| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e.to_ascii_lowercase().as_str()))
    };
    let read = |p: &Path| std::fs::read(p).ok().map(|b| (rel(p), b));
    match name {
        "cell" => {
            let mut out = vec![];
            for p in files.iter().filter(|p| has_ext(p, &["csv"])) {
                if !p.starts_with(root.join("tests/torture")) {
                    continue;
                }
                let Ok(mut r) = ::csv::ReaderBuilder::new()
                    .has_headers(false)
                    .flexible(true)
                    .from_path(p)
                else {
                    continue;
                };
                for (i, rec) in r.records().flatten().enumerate() {
                    for (j, c) in rec.iter().enumerate() {
                        if !c.trim().is_empty() {
                            out.push((format!("{}_{i}_{j}", rel(p)), c.as_bytes().to_vec()));
                        }
                    }
                }
            }
            out.sort();
            out.dedup_by(|a, b| a.1 == b.1);
            out
        }
        "csv" => files
            .iter()
            .filter(|p| has_ext(p, &["csv", "tsv"]))
            .filter_map(|p| read(p))
            .collect(),
        "workbook" => files
            .iter()
            .filter(|p| has_ext(p, &["xlsx", "xlsm", "xls", "xlsb", "ods"]))
            .filter_map(|p| read(p))
            .collect(),
        "schema" => files
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(".schema.json"))
            .filter_map(|p| read(p))
            .collect(),
        _ => vec![],
    }
}

/// Every input under `fuzz/regressions/<name>/`: the crashes the fuzzers found, kept once fixed.
pub fn regressions(name: &str) -> Vec<(String, Vec<u8>)> {
    let dir = repo().join("fuzz/regressions").join(name);
    let mut files = vec![];
    walk(&dir, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let b = std::fs::read(&p).ok()?;
            Some((p.file_name()?.to_string_lossy().into_owned(), b))
        })
        .collect()
}

/// Every file under `dir`, but generated output and tools' folders.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            if !matches!(
                name.as_str(),
                "generated" | "target" | "node_modules" | "acceptance" | ".gentable-cache"
            ) {
                walk(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}
