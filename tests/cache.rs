//! The incremental cache (`.gentable-cache/`, src/build/cache.rs) never changes results: a cached build writes
//! exactly what a clean `--no-cache` build writes, byte for byte, after every kind of edit; and a damaged
//! cache is rebuilt, never trusted. Speed is measured by the benchmark (Tools/bench.sh), not here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A copy of FunnyPitch's project (CSV tables and the MoveRules workbook) in a temporary folder.
fn project() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    for sub in ["Table", "schema"] {
        copy_dir(&root.join(sub), &dir.path().join(sub));
    }
    std::fs::copy(root.join("gentable.toml"), dir.path().join("gentable.toml")).unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Run `gentable build` in `dir`; returns (exit code, stderr).
fn build(dir: &Path, extra: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .current_dir(dir)
        .args(["build"])
        .args(extra)
        .env_remove("GENTABLE_TIMINGS")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir/generated`, by relative path.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, d: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&dir.join("generated"), &dir.join("generated"), &mut out);
    out
}

/// Build `cached` with the cache and `clean` with `--no-cache` from scratch; both must succeed and agree.
fn assert_same(cached: &Path, clean: &Path) -> String {
    let _ = std::fs::remove_dir_all(clean.join("generated"));
    let (code, clean_err) = build(clean, &["--no-cache"]);
    assert_eq!(code, 0, "{clean_err}");
    let (code, err) = build(cached, &[]);
    assert_eq!(code, 0, "{err}");
    let (a, b) = (snapshot(cached), snapshot(clean));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "same files"
    );
    for (k, v) in &a {
        assert!(
            v == &b[k],
            "{k} differs between the cached and the clean build"
        );
    }
    // The project lock (.gentable-cache/lock) is not the cache: --no-cache takes it too.
    let cached_entries: Vec<String> = std::fs::read_dir(clean.join(".gentable-cache"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "lock")
                .collect()
        })
        .unwrap_or_default();
    assert!(
        cached_entries.is_empty(),
        "--no-cache wrote a cache: {cached_entries:?}"
    );
    err
}

/// Apply `edit` to the files of both projects (relative path → new contents).
fn edit(dirs: &[&Path], rel: &str, f: impl Fn(String) -> String) {
    for d in dirs {
        let p = d.join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        let new = f(text.clone());
        assert_ne!(new, text, "the edit changes {rel}");
        std::fs::write(&p, new).unwrap();
    }
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                walk(&e.path(), out);
            } else {
                out.push(e.path());
            }
        }
    }
    let mut out = vec![];
    walk(&dir.join(".gentable-cache"), &mut out);
    out.sort();
    out
}

#[test]
fn cached_builds_equal_clean_builds_byte_for_byte() {
    let (cached, clean) = (project(), project());
    let (c, k) = (cached.path(), clean.path());
    // Cold: the cache is filled (the manifest, and the workbook's raw read).
    assert_same(c, k);
    let files = cache_files(c);
    assert!(
        files.iter().any(|f| f.ends_with("manifest.bin")),
        "{files:?}"
    );
    assert!(
        files.iter().any(|f| f.parent().unwrap().ends_with("read")),
        "{files:?}"
    );
    // Nothing changed: a no-op (no stage runs) that still reports the same summary.
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .current_dir(c)
        .arg("build")
        .env("GENTABLE_TIMINGS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("(0 written,") && err.contains("0 removed)"),
        "{err}"
    );
    assert!(
        !err.contains("reading"),
        "the no-op build read the tables:\n{err}"
    );
    let (code, err) = build(c, &["--check"]);
    assert_eq!(code, 0, "{err}");
    // One cell of a CSV table.
    edit(&[c, k], "Table/Lang.csv", |t| {
        t.replacen("Soldier", "Footman", 1)
    });
    assert_same(c, k);
    // A schema edit (description only: the data stays, the content hash changes).
    edit(&[c, k], "schema/Lang.schema.json", |t| {
        t.replacen("\"description\": \"", "\"description\": \"Edited. ", 1)
    });
    assert_same(c, k);
    // The project file.
    edit(&[c, k], "gentable.toml", |t| t + "\n# edited\n");
    assert_same(c, k);
    // The workbook is rewritten with the same bytes (new mtime): read from the cache, same result.
    let wb = std::fs::read(c.join("Table/MoveRules.xlsx")).unwrap();
    std::fs::write(c.join("Table/MoveRules.xlsx"), &wb).unwrap();
    assert_same(c, k);
    // A new table file and a removed one.
    std::fs::copy(c.join("Table/Upgrade.csv"), c.join("Table/Upgrade2.csv")).unwrap();
    let (code, _) = build(c, &[]);
    assert_eq!(code, 1, "a table without a schema is an error");
    std::fs::remove_file(c.join("Table/Upgrade2.csv")).unwrap();
    assert_same(c, k);
    // Generated files edited, removed, or added by hand are put right by the next (cached) build.
    let gen = c.join("generated");
    let lang = gen.join("data/Lang.json");
    let text = std::fs::read(&lang).unwrap();
    let mut same_len = text.clone();
    same_len[1] ^= 0x01;
    std::fs::write(&lang, &same_len).unwrap();
    assert_same(c, k);
    std::fs::remove_file(gen.join("data/content-hash.txt")).unwrap();
    assert_same(c, k);
    std::fs::write(gen.join("data/Extra.json"), "[]").unwrap();
    assert_same(c, k);
    assert!(!gen.join("data/Extra.json").exists());
}

#[test]
fn a_damaged_cache_is_rebuilt_never_trusted() {
    let (cached, clean) = (project(), project());
    let (c, k) = (cached.path(), clean.path());
    assert_same(c, k);
    let files = cache_files(c);
    assert!(files.len() >= 2, "{files:?}");
    // Truncated, then garbage, then another entry's (intact) bytes under this entry's name.
    #[allow(clippy::type_complexity)]
    let damage: [&dyn Fn(&Path, &[u8]) -> Vec<u8>; 3] = [
        &|_, b| b[..b.len() / 2].to_vec(),
        &|_, b| {
            b.iter()
                .map(|x| x.wrapping_mul(31).wrapping_add(7))
                .collect()
        },
        &|p, b| {
            let other = files
                .iter()
                .find(|f| f.as_path() != p && f.parent() == p.parent());
            other
                .map(|o| std::fs::read(o).unwrap())
                .unwrap_or_else(|| b[1..].to_vec())
        },
    ];
    for (round, d) in damage.iter().enumerate() {
        for f in cache_files(c) {
            let b = std::fs::read(&f).unwrap();
            std::fs::write(&f, d(&f, &b)).unwrap();
        }
        // Inputs changed in the meantime: the damaged manifest must not hide it.
        edit(&[c, k], "Table/Lang.csv", |t| {
            t.replacen("Footman", "Soldier", 1)
                .replacen("Soldier", &format!("Soldier{round}"), 1)
        });
        assert_same(c, k);
        // And a no-op right after a repaired cache is still right.
        assert_same(c, k);
    }
    // A workbook cache entry replaced by another workbook's entry is not used for this workbook.
    let read: Vec<PathBuf> = cache_files(c)
        .into_iter()
        .filter(|f| f.parent().unwrap().ends_with("read"))
        .collect();
    assert_eq!(read.len(), 1, "one workbook: one read entry");
}

#[test]
fn a_failed_build_records_nothing() {
    let (cached, clean) = (project(), project());
    let (c, k) = (cached.path(), clean.path());
    assert_same(c, k);
    let good = std::fs::read_to_string(c.join("Table/Lang.csv")).unwrap();
    // An error (a duplicate key): the build fails, generated/ stays, and the manifest is not a licence to
    // skip the next build.
    let row = good
        .lines()
        .find(|l| !l.starts_with('#') && !l.starts_with("Key,"))
        .unwrap();
    std::fs::write(c.join("Table/Lang.csv"), format!("{good}{row}\n")).unwrap();
    let before = snapshot(c);
    let (code, _) = build(c, &[]);
    assert_ne!(code, 0);
    assert_eq!(snapshot(c), before);
    std::fs::write(c.join("Table/Lang.csv"), &good).unwrap();
    assert_same(c, k);
}

/// A copy of the War Chest example (an eligible project for one-table rebuilds: no export groups, no
/// localization, no cross-table rules) in a temporary folder.
fn warchest() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/warchest");
    let dir = tempfile::tempdir().unwrap();
    for sub in ["Table", "schema"] {
        copy_dir(&root.join(sub), &dir.path().join(sub));
    }
    std::fs::copy(root.join("gentable.toml"), dir.path().join("gentable.toml")).unwrap();
    dir
}

/// `gentable build` with stage timings on: (exit code, what ran: the tables a one-table rebuild rebuilt,
/// `full` or `no-op`, stderr without the timing lines).
fn build_traced(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .current_dir(dir)
        .args(["build", "--max-per-kind", "0"])
        .args(extra)
        .env("GENTABLE_TIMINGS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let rebuilt = match err
        .lines()
        .find_map(|l| l.strip_prefix("gentable: rebuilding "))
    {
        Some(l) => l
            .split_once(": ")
            .map(|(_, t)| t.to_string())
            .unwrap_or_default(),
        None if err.contains("] reading") => "full".to_string(),
        None => "no-op".to_string(),
    };
    let rest: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("gentable: [") && !l.starts_with("gentable:   "))
        .filter(|l| {
            !l.starts_with("gentable: rebuilding ")
                && !l.contains(" tables -> ")
                && !l.contains(" table -> ")
        })
        .collect();
    (out.status.code().unwrap_or(-1), rebuilt, rest.join("\n"))
}

/// Edit both copies, then build the cached one (expecting `rebuilt`: the tables of a one-table rebuild,
/// `full` or `no-op`) and the clean one from scratch: same exit code, same diagnostics, and on success the
/// same bytes in generated/.
fn edit_and_compare(c: &Path, k: &Path, rel: &str, from: &str, to: &str, rebuilt: &str) -> i32 {
    edit(&[c, k], rel, |t| t.replacen(from, to, 1));
    let (code, got, err) = build_traced(c, &[]);
    assert_eq!(got, rebuilt, "after {rel}: {from} → {to}\n{err}");
    let _ = std::fs::remove_dir_all(k.join("generated"));
    let (clean_code, _, clean_err) = build_traced(k, &["--no-cache"]);
    assert_eq!(code, clean_code, "exit codes\n{err}\n---\n{clean_err}");
    assert_eq!(err, clean_err, "diagnostics after {rel}: {from} → {to}");
    if code == 0 {
        assert_same(c, k);
    }
    code
}

/// A chain of three tables, each referencing the previous one by primary key through a plain table field
/// (no records): `Area` ← `Town` ← `Shop`.
fn chain() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("Table")).unwrap();
    std::fs::create_dir_all(d.join("schema")).unwrap();
    std::fs::write(
        d.join("gentable.toml"),
        "[project]\nname = \"Chain\"\ntables = [\"Table\"]\nschemas = \"schema\"\ngenerated = \"generated\"\n\n\
         [rust]\ncrate_name = \"chain_tables\"\n\n[csharp]\nnamespace = \"Chain.GameConfig\"\n",
    )
    .unwrap();
    let schema = |name: &str, fk: Option<(&str, &str)>| {
        let mut props = serde_json::json!({
            "id": {"type": "integer", "minimum": 1},
            "name": {"type": "string"},
        });
        let mut required = vec!["id", "name"];
        if let Some((field, target)) = fk {
            props[field] = serde_json::json!({"type": "integer", "x-gentable-foreignKey": target});
            required.push(field);
        }
        let s = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": name,
            "type": "object",
            "x-gentable-primaryKey": "id",
            "properties": props,
            "required": required,
            "additionalProperties": false,
        });
        std::fs::write(
            d.join(format!("schema/{name}.schema.json")),
            serde_json::to_string_pretty(&s).unwrap(),
        )
        .unwrap();
    };
    schema("Area", None);
    schema("Town", Some(("area", "Area")));
    schema("Shop", Some(("town", "Town")));
    std::fs::write(d.join("Table/Area.csv"), "id,name\n1,北境\n2,南疆\n").unwrap();
    std::fs::write(
        d.join("Table/Town.csv"),
        "id,name,area\n10,雪原镇,1\n20,沙海城,2\n",
    )
    .unwrap();
    std::fs::write(
        d.join("Table/Shop.csv"),
        "id,name,town\n100,铁匠铺,10\n200,药铺,20\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_table_referenced_by_an_untyped_table_rebuilds_alone() {
    // Town is referenced by Shop through a table field: a one-table rebuild of Town types Town and Area only,
    // yet Shop's foreign key is part of Town's key digest (it once was not, and every edit of a referenced
    // table fell back to a full build).
    let (cached, clean) = (chain(), chain());
    let (c, k) = (cached.path(), clean.path());
    assert_same(c, k);
    assert_eq!(
        edit_and_compare(c, k, "Table/Town.csv", "雪原镇", "雪原村", "Town"),
        0
    );
    assert_eq!(
        edit_and_compare(c, k, "Table/Shop.csv", "药铺", "药房", "Shop"),
        0
    );
    assert_eq!(
        edit_and_compare(c, k, "Table/Area.csv", "南疆", "南境", "Area"),
        0
    );
    // A key Shop references: the whole project is rebuilt, and finds the dangling reference.
    assert_eq!(
        edit_and_compare(c, k, "Table/Town.csv", "20,", "21,", "full"),
        1
    );
    assert_eq!(
        edit_and_compare(c, k, "Table/Town.csv", "21,", "20,", "no-op"),
        0
    );
}

#[test]
fn one_table_rebuilds_equal_clean_builds() {
    let (cached, clean) = (warchest(), warchest());
    let (c, k) = (cached.path(), clean.path());
    assert_same(c, k);
    // A plain cell: only Unit is rebuilt (Tactic, which it references, is read for the foreign-key check).
    let code = edit_and_compare(c, k, "Table/Unit.csv", "弓箭手", "弓兵", "Unit");
    assert_eq!(code, 0);
    // A non-key cell of a table others reference.
    let code = edit_and_compare(
        c,
        k,
        "Table/Tactic.csv",
        "archer-shot,attack,\"(distance,2)",
        "archer-shot,attack,\"(distance,3)",
        "Tactic",
    );
    assert_eq!(code, 0);
    // A foreign key to nothing: the error is found by the rebuild, exactly as by a full build; then fixed.
    let code = edit_and_compare(
        c,
        k,
        "Table/Unit.csv",
        ",archer-shot,",
        ",archer-shoot,",
        "Unit",
    );
    assert_eq!(code, 1);
    // Back to what the last clean build recorded: nothing to do.
    let code = edit_and_compare(
        c,
        k,
        "Table/Unit.csv",
        ",archer-shoot,",
        ",archer-shot,",
        "no-op",
    );
    assert_eq!(code, 0);
    // A cell that does not type (DeployLimit of the archer), then fixed.
    let code = edit_and_compare(c, k, "Table/Unit.csv", "base,1,none", "base,x,none", "Unit");
    assert_eq!(code, 1);
    let code = edit_and_compare(
        c,
        k,
        "Table/Unit.csv",
        "base,x,none",
        "base,1,none",
        "no-op",
    );
    assert_eq!(code, 0);
    // A key that Unit references: other tables may break, so the whole project is rebuilt.
    let code = edit_and_compare(
        c,
        k,
        "Table/Tactic.csv",
        "archer-shot,",
        "archer-volley,",
        "full",
    );
    assert_eq!(code, 1);
    let code = edit_and_compare(
        c,
        k,
        "Table/Tactic.csv",
        "archer-volley,",
        "archer-shot,",
        "no-op",
    );
    assert_eq!(code, 0);
    // Two files at once; Scenario references Unit through nested records.
    edit(&[c, k], "Table/Unit.csv", |t| t.replacen("弓兵", "弓手", 1));
    let code = edit_and_compare(
        c,
        k,
        "Table/Scenario.csv",
        "弓箭手",
        "弓兵",
        "Scenario, Unit",
    );
    assert_eq!(code, 0);
    // A stray file in generated/ is removed, as a full build removes it.
    std::fs::write(c.join("generated/data/Stray.json"), "[]").unwrap();
    let code = edit_and_compare(c, k, "Table/Unit.csv", "弓手", "弓兵", "full");
    assert_eq!(code, 0);
    assert!(!c.join("generated/data/Stray.json").exists());
    // The same project reached through another spelling of its path: still a one-table rebuild.
    edit(&[c, k], "Table/Unit.csv", |t| t.replacen("弓兵", "弓手", 1));
    let config = c.join("gentable.toml");
    let (code, got, err) = build_traced(c, &["-c", config.to_str().unwrap()]);
    assert_eq!((code, got.as_str()), (0, "Unit"), "{err}");
    assert_same(c, k);
    // After a schema edit the next build is a full one.
    edit(&[c, k], "schema/Unit.schema.json", |t| {
        t.replacen("\"description\": \"", "\"description\": \"Edited. ", 1)
    });
    let (code, got, err) = build_traced(c, &[]);
    assert_eq!((code, got.as_str()), (0, "full"), "{err}");
    assert_same(c, k);
}

/// A copy of Northwall Muster (every table a sheet of one workbook, Table/Northwall.xlsx).
fn northwall() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/northwall");
    let dir = tempfile::tempdir().unwrap();
    for sub in ["Table", "schema"] {
        copy_dir(&root.join(sub), &dir.path().join(sub));
    }
    std::fs::copy(root.join("gentable.toml"), dir.path().join("gentable.toml")).unwrap();
    dir
}

#[test]
fn the_read_cache_is_keyed_by_every_setting_reading_depends_on() {
    // A workbook's cached raw tables were once keyed by `files`, `sheets`, `encoding` and `delimiter` only:
    // after `[project] selected_only = true` a cached build still made tables of the sheets no table selects,
    // and after lowering a `[limits]` value it skipped the GT0104 a clean build reports.
    let (cached, clean) = (northwall(), northwall());
    let (c, k) = (cached.path(), clean.path());
    let add = |t: String, section: &str| format!("{t}\n{section}\n");
    edit(&[c, k], "gentable.toml", |t| {
        add(t, "[tables.Unit]\nsheets = [\"Unit\"]")
    });
    assert_same(c, k);
    edit(&[c, k], "gentable.toml", |t| {
        t.replacen("[project]\n", "[project]\nselected_only = true\n", 1)
    });
    assert_same(c, k);
    assert!(!c.join("generated/data/Lane.json").exists());
    edit(&[c, k], "gentable.toml", |t| {
        add(t, "[limits]\nsheet_cells = 10")
    });
    let (code, err) = build(c, &[]);
    let _ = std::fs::remove_dir_all(k.join("generated"));
    let (clean_code, clean_err) = build(k, &["--no-cache"]);
    assert_eq!(clean_code, 1, "{clean_err}");
    assert!(clean_err.contains("sheet_cells"), "{clean_err}");
    assert_eq!((code, err), (clean_code, clean_err));
}

#[test]
fn an_edit_of_any_schema_file_the_build_reads_is_seen() {
    // The schema folder's files are read by name (`*.json`), the manifest once tracked them by extension:
    // a file named `.json` (which `$ref`s may name) has none, so an edit of it left the next build a no-op
    // that kept the outputs of the old schema and missed the row it now refuses.
    let project = || {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("Table")).unwrap();
        std::fs::create_dir_all(d.join("schema")).unwrap();
        std::fs::write(d.join("gentable.toml"), "[project]\nname = \"Dot\"\n").unwrap();
        std::fs::write(
            d.join("schema/.json"),
            r#"{"$defs": {"Level": {"type": "integer", "minimum": 0, "maximum": 10}}}"#,
        )
        .unwrap();
        std::fs::write(
            d.join("schema/T.schema.json"),
            r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "x-gentable-primaryKey": "id", "required": ["id", "level"],
                "properties": {"id": {"type": "integer"}, "level": {"$ref": ".json#/$defs/Level"}}}"#,
        )
        .unwrap();
        std::fs::write(d.join("Table/T.csv"), "id,level\n1,5\n2,9\n").unwrap();
        dir
    };
    let (cached, clean) = (project(), project());
    let (c, k) = (cached.path(), clean.path());
    assert_same(c, k);
    edit(&[c, k], "schema/.json", |t| {
        t.replace("\"maximum\": 10", "\"maximum\": 7")
    });
    let (code, err) = build(c, &[]);
    let (clean_code, clean_err) = build(k, &["--no-cache"]);
    assert_eq!(clean_code, 1, "{clean_err}");
    assert_eq!((code, err), (clean_code, clean_err));
}

/// A table of several files concatenates them in the same order in a one-table rebuild as in a full build
/// (found by the newcomer pass): `units/a.csv` and `units/a/x.csv` sort `a/x.csv` first by path components
/// (a full build's order) but `a.csv` first as strings (the rebuild's order before the fix).
#[test]
fn a_one_table_rebuild_concatenates_sources_in_the_full_builds_order() {
    let project = || {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("Table/units/a")).unwrap();
        std::fs::create_dir_all(d.join("schema")).unwrap();
        std::fs::write(
            d.join("gentable.toml"),
            "[project]\nname = \"Order\"\n[tables.Unit]\nfiles = [\"units/**/*.csv\"]\n",
        )
        .unwrap();
        std::fs::write(
            d.join("schema/Unit.schema.json"),
            r#"{"title": "Unit", "type": "object", "x-gentable-mode": "list",
                "properties": {"Id": {"type": "integer"}}, "required": ["Id"]}"#,
        )
        .unwrap();
        std::fs::write(d.join("Table/units/a.csv"), "Id\n1\n").unwrap();
        std::fs::write(d.join("Table/units/a/x.csv"), "Id\n2\n").unwrap();
        dir
    };
    let (cached, clean) = (project(), project());
    let (c, k) = (cached.path(), clean.path());
    assert_same(c, k);
    assert_eq!(
        edit_and_compare(c, k, "Table/units/a.csv", "1", "10", "Unit"),
        0
    );
    let data = std::fs::read_to_string(c.join("generated/data/Unit.json")).unwrap();
    let rows: Vec<&str> = data.lines().skip(1).take(2).collect();
    assert_eq!(rows, ["{\"Id\":2},", "{\"Id\":10}"], "{data}");
}
