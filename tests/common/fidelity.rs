//! The fidelity suite's cases (`tests/fidelity/<case>/`, docs/conventions.md §7): finding them, making a
//! buildable copy of one (workbooks are written from their XML parts), and building it with the gentable
//! binary. Used by `tests/fidelity.rs` (expected data and diagnostics) and `tests/conformance.rs` (the three
//! languages load every accepted case identically).
//!
//! A case folder holds `README.md` (the policy line it shows), `gentable.toml`, `Table/`, `schema/` and
//! `expected/`: `exit` (the exit code), `diagnostics.json` (`--message-format json`, one object per line) and,
//! for an accepted case, `data/` (the canonical data and content hash). A folder `Table/<Book>.xlsx.parts/`
//! holds the XML parts of a workbook byte for byte (`xl/workbook.xml`, `xl/worksheets/sheet1.xml`, …); the
//! copy zips it into `Table/<Book>.xlsx`, adding the package boilerplate a part list does not give
//! (`[Content_Types].xml`, `_rels/.rels`, `xl/_rels/workbook.xml.rels` for `sheetN.xml`, `styles.xml` and
//! `sharedStrings.xml`).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every case folder, sorted by name.
pub fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/fidelity"))
        .expect("tests/fidelity")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("gentable.toml").is_file())
        .collect();
    v.sort();
    v
}

/// The case's name (its folder name).
pub fn name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

/// The exit code the case expects (`expected/exit`; 0 when not blessed yet).
pub fn expected_exit(case: &Path) -> i32 {
    std::fs::read_to_string(case.join("expected/exit"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// A fresh buildable copy of `case` under `work/<name>`: every file copied as is, every `*.xlsx.parts`
/// folder zipped into its workbook. Returns the copy's folder.
pub fn prepare(case: &Path, work: &Path) -> PathBuf {
    let dst = work.join(name(case));
    let _ = std::fs::remove_dir_all(&dst);
    copy(case, &dst);
    dst
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let mut entries: Vec<_> = std::fs::read_dir(from).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let n = e.file_name().to_string_lossy().into_owned();
        if n == "expected" && from.join("gentable.toml").is_file() {
            continue;
        }
        if p.is_dir() {
            match n.strip_suffix(".parts") {
                Some(book) => zip_parts(&p, &to.join(book)),
                None => copy(&p, &to.join(&n)),
            }
        } else {
            std::fs::copy(&p, to.join(&n)).unwrap();
        }
    }
}

/// The files under `dir` by `/`-separated relative path (empty when `dir` does not exist).
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(d: &Path, base: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, out);
            } else {
                let rel = p
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Zip the XML parts under `parts` into the workbook `out` (stored, fixed timestamps: byte-stable), adding
/// the boilerplate parts that are missing (module docs).
pub fn zip_parts(parts: &Path, out: &Path) {
    let files = tree(parts);
    let has = |n: &str| files.contains_key(n);
    let sheets: Vec<String> = files
        .keys()
        .filter_map(|r| r.strip_prefix("xl/worksheets/").map(String::from))
        .filter(|n| n.ends_with(".xml"))
        .collect();
    let mut extra: Vec<(String, String)> = vec![];
    if !has("[Content_Types].xml") {
        let mut t = String::from(
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>"#,
        );
        for s in &sheets {
            t.push_str(&format!(r#"<Override PartName="/xl/worksheets/{s}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>"#));
        }
        if has("xl/styles.xml") {
            t.push_str(r#"<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>"#);
        }
        if has("xl/sharedStrings.xml") {
            t.push_str(r#"<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>"#);
        }
        t.push_str("</Types>");
        extra.push(("[Content_Types].xml".into(), t));
    }
    if !has("_rels/.rels") {
        extra.push(("_rels/.rels".into(), r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.into()));
    }
    if !has("xl/_rels/workbook.xml.rels") {
        let mut t = String::from(
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
        );
        for s in &sheets {
            // sheet1.xml is rId1, sheet2.xml is rId2, … as workbook.xml's r:id attributes say.
            let n = s.trim_start_matches("sheet").trim_end_matches(".xml");
            t.push_str(&format!(r#"<Relationship Id="rId{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/{s}"/>"#));
        }
        if has("xl/styles.xml") {
            t.push_str(r#"<Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>"#);
        }
        if has("xl/sharedStrings.xml") {
            t.push_str(r#"<Relationship Id="rIdStrings" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>"#);
        }
        t.push_str("</Relationships>");
        extra.push(("xl/_rels/workbook.xml.rels".into(), t));
    }
    let mut entries: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .chain(extra.into_iter().map(|(r, t)| (r, t.into_bytes())))
        .collect();
    entries.sort();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(out).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .last_modified_time(zip::DateTime::default());
    for (name, bytes) in entries {
        zip.start_file(name, opts).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// `gentable build -q --no-cache --message-format json --lang en` in `project`: (stderr, exit code).
pub fn build(project: &Path) -> (String, i32) {
    build_in(project, "en")
}

/// [`build`] with the messages in `lang` (`--lang en`, `--lang zh`).
pub fn build_in(project: &Path, lang: &str) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["build", "-q", "--no-cache", "--message-format", "json"])
        .args(["--lang", lang, "-c", "gentable.toml"])
        .current_dir(project)
        .output()
        .expect("run gentable");
    (
        String::from_utf8(out.stderr).expect("UTF-8 output"),
        out.status.code().unwrap_or(-1),
    )
}

/// The work folder of the suite under the target directory.
pub fn work(sub: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        repo().join(target)
    };
    let w = target.join(sub);
    std::fs::create_dir_all(&w).unwrap();
    w
}
