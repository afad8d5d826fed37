//! Golden tests of diagnostics: one case directory per kind of diagnostic under `tests/diagnostics/<case>/`,
//! holding the inputs (`gentable.toml`, `Table/`, `schema/`, an optional `args` file with extra command-line
//! arguments) and what `gentable check` prints in all three formats:
//!
//! * `expected.human.txt`: stderr of `--message-format human`, then a line `[exit N]`;
//! * `expected.json`: stderr of `--message-format json -q` (one object per line);
//! * `expected.github.txt`: stderr of `--message-format github -q`;
//! * `expected.zh.txt`: stderr of `--message-format human --lang zh` (Simplified Chinese), then `[exit N]`.
//!
//! Every message and help of every case must have its Chinese (`src/diag/zh.rs`):
//! [`every_message_of_the_cases_has_chinese`] fails for one that stays English.
//!
//! The golden files change only on explicit opt-in: `GENTABLE_BLESS=1 cargo test --test diagnostics`.
//! Also here: the FunnyPitch count-table fixture (`tests/fixtures/funnypitch-counttable/`), the promise that
//! every code emitted anywhere in the source has a `gentable explain` text, and a scale check.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("GENTABLE_BLESS").is_some_and(|v| v == "1")
}

/// One lock per case folder: the tests of this file run in parallel, and two runs of one project at once
/// would make the second wait for the project lock and say so on stderr, which is no part of a golden.
fn case_lock(dir: &Path) -> std::sync::Arc<std::sync::Mutex<()>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
    let mut m = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    m.entry(dir.to_path_buf()).or_default().clone()
}

/// Run `gentable check` in `dir` with `args`; (stderr, exit code).
fn run(dir: &Path, args: &[&str]) -> (String, i32) {
    let lock = case_lock(dir);
    let _one_at_a_time = lock.lock().unwrap_or_else(|p| p.into_inner());
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .arg("check")
        .args(["-c", "gentable.toml"])
        .args(args)
        .current_dir(dir)
        // The goldens are English unless a case asks for --lang zh, whatever the machine's locale.
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LANG")
        .output()
        .expect("run gentable");
    assert!(
        out.stdout.is_empty(),
        "check prints nothing on stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        String::from_utf8(out.stderr).expect("UTF-8 output"),
        out.status.code().unwrap_or(-1),
    )
}

fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("tests/diagnostics"))
        .expect("tests/diagnostics")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("gentable.toml").is_file())
        .collect();
    v.sort();
    v
}

/// Compare `actual` with the golden file (or write it when blessing). Returns a failure description.
fn golden(path: &Path, actual: &str) -> Option<String> {
    if bless() {
        std::fs::write(path, actual).unwrap();
        return None;
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => Some(format!(
            "{} differs (GENTABLE_BLESS=1 cargo test --test diagnostics to accept)\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        )),
        Err(_) => Some(format!("{} is missing (GENTABLE_BLESS=1 cargo test --test diagnostics writes it)\n{actual}", path.display())),
    }
}

#[test]
fn every_case_matches_its_golden_output_in_all_three_formats() {
    let cases = cases();
    assert!(cases.len() >= 20, "{cases:?}");
    let mut failures = vec![];
    for dir in &cases {
        let extra = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
        let extra: Vec<&str> = extra.split_whitespace().collect();
        let (human, code) = run(
            dir,
            &[&["--message-format", "human"], extra.as_slice()].concat(),
        );
        let (json, jcode) = run(
            dir,
            &[&["--message-format", "json", "-q"], extra.as_slice()].concat(),
        );
        let (github, gcode) = run(
            dir,
            &[&["--message-format", "github", "-q"], extra.as_slice()].concat(),
        );
        assert_eq!(
            (code, code),
            (jcode, gcode),
            "{}: the exit code does not depend on the format",
            dir.display()
        );
        for line in json.lines() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}: not JSON: {line}: {e}", dir.display()));
            let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            assert_eq!(
                keys,
                [
                    "severity",
                    "code",
                    "message",
                    "file",
                    "sheet",
                    "row",
                    "column",
                    "field",
                    "cell_text",
                    "help"
                ],
                "{}",
                dir.display()
            );
        }
        for line in github.lines() {
            assert!(
                line.starts_with("::error ")
                    || line.starts_with("::warning ")
                    || line.starts_with("::notice "),
                "{}: {line}",
                dir.display()
            );
        }
        failures.extend(golden(
            &dir.join("expected.human.txt"),
            &format!("{human}[exit {code}]\n"),
        ));
        failures.extend(golden(&dir.join("expected.json"), &json));
        failures.extend(golden(&dir.join("expected.github.txt"), &github));
        let (zh, zcode) = run(
            dir,
            &[
                &["--message-format", "human", "--lang", "zh"],
                extra.as_slice(),
            ]
            .concat(),
        );
        assert_eq!(
            code,
            zcode,
            "{}: the exit code does not depend on the language",
            dir.display()
        );
        failures.extend(golden(
            &dir.join("expected.zh.txt"),
            &format!("{zh}[exit {code}]\n"),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Whether `s` holds Chinese (an ideograph or full-width / CJK punctuation).
fn has_cjk(s: &str) -> bool {
    s.chars()
        .any(|c| matches!(c as u32, 0x3000..=0x303f | 0x4e00..=0x9fff | 0xff00..=0xffef))
}

/// Every message and help the cases produce reads in Chinese with `--lang zh` (JSON: the same diagnostics,
/// in the same order, as in English). The exceptions are texts the user wrote: a rule's own message
/// (GT0310/GT0311 — its help is still translated).
#[test]
fn every_message_of_the_cases_has_chinese() {
    let mut missing = vec![];
    for dir in cases() {
        let extra = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
        let extra: Vec<&str> = extra.split_whitespace().collect();
        let json = |lang: &str| -> Vec<serde_json::Value> {
            let (out, _) = run(
                &dir,
                &[
                    &["--message-format", "json", "-q", "--lang", lang],
                    extra.as_slice(),
                ]
                .concat(),
            );
            out.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        let (en, zh) = (json("en"), json("zh"));
        assert_eq!(en.len(), zh.len(), "{}", dir.display());
        for (e, z) in en.iter().zip(&zh) {
            assert_eq!(e["code"], z["code"], "{}", dir.display());
            assert_eq!(e["cell_text"], z["cell_text"], "{}", dir.display());
            let code = e["code"].as_str().unwrap();
            for key in ["message", "help"] {
                let (Some(et), Some(zt)) = (e[key].as_str(), z[key].as_str()) else {
                    assert_eq!(e[key], z[key], "{}", dir.display());
                    continue;
                };
                let users_own = key == "message" && matches!(code, "GT0310" | "GT0311");
                if !users_own && (et == zt || !has_cjk(zt)) {
                    missing.push(format!(
                        "{} {code} {key}: {et:?}",
                        dir.file_name().unwrap().to_string_lossy()
                    ));
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "messages without Chinese (add a template to MESSAGES in src/diag/zh.rs):\n{}",
        missing.join("\n")
    );
}

/// The codes each case must produce (so that a golden file cannot silently lose its point).
#[test]
fn each_case_reports_its_kind() {
    let want: &[(&str, &[&str])] = &[
        ("wrong-type", &["GT0201"]),
        ("out-of-range", &["GT0202"]),
        ("not-in-enum", &["GT0203"]),
        ("missing-value", &["GT0204"]),
        ("duplicate-primary-key", &["GT0302"]),
        ("duplicate-composite-key", &["GT0302"]),
        ("duplicate-unique-key", &["GT0303"]),
        ("unknown-column", &["GT0211"]),
        ("unknown-column-alias", &["GT0211", "GT0212"]),
        ("missing-column", &["GT0212"]),
        ("duplicate-column", &["GT0213"]),
        ("bad-cell-grammar", &["GT0205"]),
        ("schema-keyword", &["GT0301"]),
        ("schema-keyword-cell-text", &["GT0301"]),
        ("foreign-key-plain", &["GT0304"]),
        ("foreign-key-array", &["GT0304"]),
        ("foreign-key-nested", &["GT0304"]),
        ("bad-foreign-key-declaration", &["GT0305"]),
        ("rule-failure", &["GT0310", "GT0311"]),
        ("rule-does-not-compile", &["GT0312"]),
        ("rule-evaluation-error", &["GT0313"]),
        ("warning", &["GT0310", "GT0320"]),
        ("warning-denied", &["GT0310", "GT0320"]),
        ("invalid-schema", &["GT0403"]),
        ("invalid-schema-json", &["GT0401"]),
        ("many-errors", &["GT0201"]),
        ("unused-override", &["GT0003"]),
        ("bad-encoding", &["GT0102"]),
        ("utf16-without-bom", &["GT0102"]),
        ("malformed-csv", &["GT0103", "GT0204"]),
        ("fraction-in-integer", &["GT0206"]),
        ("no-header", &["GT0214"]),
        ("singleton-rows", &["GT0215"]),
        ("name-collision", &["GT0216"]),
        ("missing-schema", &["GT0402"]),
        ("bad-default", &["GT0404"]),
        ("type-name-clash", &["GT0405"]),
        ("text-keys", &["GT0330", "GT0331"]),
        ("bad-localization", &["GT0332"]),
        ("full-width", &["GT0201"]),
        ("foreign-key-case", &["GT0304"]),
        ("near-duplicate-key", &["GT0306"]),
    ];
    for (case, codes) in want {
        let dir = root().join("tests/diagnostics").join(case);
        let extra = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
        let extra: Vec<&str> = extra.split_whitespace().collect();
        let (json, exit) = run(
            &dir,
            &[&["--message-format", "json", "-q"], extra.as_slice()].concat(),
        );
        let mut got: Vec<String> = json
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["code"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        got.sort();
        got.dedup();
        assert_eq!(got, *codes, "{case}");
        let expect_exit = match *case {
            "warning" | "unused-override" | "near-duplicate-key" => 0,
            _ => 1,
        };
        assert_eq!(exit, expect_exit, "{case}");
    }
}

#[test]
fn deny_warnings_turns_warnings_into_errors() {
    let dir = root().join("tests/diagnostics/warning");
    let (plain, code) = run(&dir, &["--message-format", "json", "-q"]);
    assert_eq!(code, 0);
    assert!(
        plain
            .lines()
            .all(|l| l.contains("\"severity\":\"warning\"")),
        "{plain}"
    );
    let (denied, code) = run(
        &dir,
        &["--message-format", "json", "-q", "--deny", "warnings"],
    );
    assert_eq!(code, 1);
    assert_eq!(denied.lines().count(), plain.lines().count());
    assert!(
        denied.lines().all(|l| l.contains("\"severity\":\"error\"")),
        "{denied}"
    );
}

#[test]
fn composite_key_duplicates_name_every_cell_of_both_rows() {
    let (json, _) = run(
        &root().join("tests/diagnostics/duplicate-composite-key"),
        &["--message-format", "json", "-q"],
    );
    let d: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(d["row"], 4);
    assert_eq!(d["column"], "C");
    let m = d["message"].as_str().unwrap();
    assert!(m.contains("(Side, Slot) = (\"Red\", 1)"), "{m}");
    assert!(
        m.contains("Table/Unit.csv:2:C and Table/Unit.csv:2:F"),
        "{m}"
    );
}

/// The seed's piece-count table (8 Ministers and 16 Soldiers per side, "双方各32子") instead of its diagram:
/// the layout stays symmetric with one Lord per side and fits the territory, but the table's own numbers add
/// up to 27 pieces per side, not the 32 it states — the rules report exactly that.
#[test]
fn funnypitch_count_table_reading_contradicts_itself() {
    // Assemble the project: the real tables and schemas, the fixture's InitPosition and PiecesPerSide = 32.
    let fixture = root().join("tests/fixtures/funnypitch-counttable");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("Table")).unwrap();
    for e in std::fs::read_dir(root().join("Table")).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), dir.join("Table").join(e.file_name())).unwrap();
        }
    }
    std::fs::copy(
        fixture.join("InitPosition.csv"),
        dir.join("Table/InitPosition.csv"),
    )
    .unwrap();
    let konst = std::fs::read_to_string(root().join("Table/Const.csv")).unwrap();
    let mut lines: Vec<String> = konst.lines().map(String::from).collect();
    let header = lines.iter().position(|l| !l.starts_with('#')).unwrap();
    let col = lines[header]
        .split(',')
        .position(|h| h == "PiecesPerSide")
        .expect("Const.PiecesPerSide");
    let data = (header + 1..lines.len())
        .find(|&i| !lines[i].starts_with('#') && !lines[i].trim().is_empty())
        .unwrap();
    let mut cells: Vec<String> = lines[data].split(',').map(String::from).collect();
    cells[col] = "32".into();
    lines[data] = cells.join(",");
    std::fs::write(dir.join("Table/Const.csv"), lines.join("\n") + "\n").unwrap();
    std::fs::copy(root().join("gentable.toml"), dir.join("gentable.toml")).unwrap();
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    for e in std::fs::read_dir(root().join("schema")).unwrap().flatten() {
        std::fs::copy(e.path(), dir.join("schema").join(e.file_name())).unwrap();
    }
    let loaded = gentable::config::load(&dir.join("gentable.toml")).unwrap();
    let d = match gentable::build::load(&loaded) {
        Ok(_) => panic!("the count-table reading must not validate"),
        Err(d) => d,
    };
    let found: Vec<(String, &str, String)> = d
        .items
        .iter()
        .map(|x| (x.code.to_string(), x.file.as_str(), x.message.clone()))
        .collect();
    assert_eq!(
        found,
        [(
            "GT0311".to_string(),
            "Table/InitPosition.csv",
            "InitPosition: each side must start with Const.PiecesPerSide = 32 pieces, but Red has 27 and Blue has 27".to_string()
        )],
        "{:#?}",
        d.items
    );
    // The fixture really follows the count table: 1 Lord, 2 Loyalists, 8 Ministers, 16 Soldiers per side.
    let text = std::fs::read_to_string(fixture.join("InitPosition.csv")).unwrap();
    for (side, piece, n) in [
        ("Red", "Lord", 1),
        ("Red", "Loyalist", 2),
        ("Red", "Minister", 8),
        ("Red", "Soldier", 16),
        ("Blue", "Minister", 8),
        ("Blue", "Soldier", 16),
    ] {
        let count = text
            .lines()
            .filter(|l| l.contains(&format!(",Piece,{side},{piece},")))
            .count();
        assert_eq!(count, n, "{side} {piece}");
    }
}

/// FunnyPitch's own tables pass every shipped rule, without warnings.
#[test]
fn funnypitch_passes_its_rules() {
    let loaded = gentable::config::load(&root().join("gentable.toml")).unwrap();
    let v = gentable::build::load(&loaded).unwrap_or_else(|d| panic!("{:#?}", d.items));
    assert!(v.warnings.is_empty(), "{:#?}", v.warnings);
    let rules: usize = v
        .schemas
        .iter()
        .map(|s| {
            s.root
                .get("x-gentable-rules")
                .and_then(|r| r.as_array())
                .map_or(0, |a| a.len())
        })
        .sum();
    assert!(rules >= 15, "{rules}");
}

/// Codes are typed: no `"GT…"` code literal in the sources outside the catalogue (`src/diag/code.rs`), every
/// code of the catalogue is used by some stage, and each has an explanation with an example and a fix.
#[test]
fn every_emitted_code_is_explained() {
    let mut sources = String::new();
    let mut stack = vec![root().join("src")];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") && !path.ends_with("diag/code.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                let b = text.as_bytes();
                for (i, _) in text.match_indices("\"GT") {
                    let code = &text[i + 1..(i + 7).min(text.len())];
                    assert!(
                        !(code.len() == 6
                            && code[2..].bytes().all(|c| c.is_ascii_digit())
                            && b.get(i + 7) == Some(&b'"')),
                        "{}: code literal {code}; use gentable::diag::Code",
                        path.display()
                    );
                }
                sources.push_str(&text);
            }
        }
    }
    assert!(gentable::diag::Code::ALL.len() >= 25);
    for c in gentable::diag::Code::ALL {
        assert!(
            sources.contains(&format!("Code::{c:?}")),
            "{c} ({c:?}) is never emitted"
        );
        let text = gentable::diag::code::explain(c.as_str())
            .unwrap_or_else(|| panic!("{c} has no explanation"));
        assert!(
            text.contains("Example") || text.contains("example"),
            "{c}: no example"
        );
        assert!(text.contains("Fix"), "{c}: no fix");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["explain", "gt0310"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("GT0310: "));
    // Without a code: every code and its title, one per line, in number order.
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .arg("explain")
        .output()
        .unwrap();
    assert!(out.status.success());
    let listed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    let want: Vec<String> = gentable::diag::Code::ALL
        .iter()
        .map(|c| format!("{}  {}", c.as_str(), c.title()))
        .collect();
    assert_eq!(listed, want);
}

/// 10,000 broken references in 10,000 rows stay linear and readable: 20 shown per code per file.
#[test]
fn ten_thousand_errors_stay_readable() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("Table")).unwrap();
    std::fs::create_dir_all(p.join("schema")).unwrap();
    std::fs::write(p.join("gentable.toml"), "[project]\nname = \"Scale\"\n").unwrap();
    std::fs::write(
        p.join("schema/Unit.schema.json"),
        r#"{"type":"object","x-gentable-primaryKey":"Id","properties":{"Id":{"type":"integer"},"Weapon":{"type":"string","x-gentable-foreignKey":"Weapon"}},"required":["Id","Weapon"]}"#,
    )
    .unwrap();
    std::fs::write(
        p.join("schema/Weapon.schema.json"),
        r#"{"type":"object","x-gentable-primaryKey":"Id","properties":{"Id":{"type":"string"}},"required":["Id"]}"#,
    )
    .unwrap();
    let n = 10_000;
    let weapons: String = (0..n).map(|i| format!("Weapon{i}\n")).collect();
    std::fs::write(p.join("Table/Weapon.csv"), format!("Id\n{weapons}")).unwrap();
    let units: String = (0..n).map(|i| format!("{i},Missing{i}\n")).collect();
    std::fs::write(p.join("Table/Unit.csv"), format!("Id,Weapon\n{units}")).unwrap();
    let t = std::time::Instant::now();
    let (human, code) = run(p, &["--message-format", "human"]);
    let elapsed = t.elapsed();
    assert_eq!(code, 1);
    assert_eq!(human.matches("error[GT0304]").count(), 20);
    assert!(
        human.contains("note: 9980 more GT0304 (missing reference) in Table/Unit.csv not shown"),
        "{human}"
    );
    assert!(
        human.contains("gentable: 10000 errors, 0 warnings"),
        "{human}"
    );
    let (json, _) = run(p, &["--message-format", "json", "-q"]);
    assert_eq!(json.lines().count(), n);
    assert!(elapsed.as_secs() < 60, "{elapsed:?}");
}

/// docs/diagnostics.md lists every code of the catalogue with its class and title (generated; blessed on
/// opt-in like the golden files).
#[test]
fn docs_list_every_code() {
    let mut table = String::from("| code | class | title |\n|---|---|---|\n");
    for c in gentable::diag::Code::ALL {
        let class = format!("{:?}", c.class()).to_lowercase();
        table.push_str(&format!("| {c} | {class} | {} |\n", c.title()));
    }
    let path = root().join("docs/diagnostics.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- codes:begin -->\n", "<!-- codes:end -->");
    let a = doc.find(begin).expect("codes:begin marker") + begin.len();
    let b = doc.find(end).expect("codes:end marker");
    if doc[a..b] != table {
        if bless() {
            std::fs::write(&path, format!("{}{table}{}", &doc[..a], &doc[b..])).unwrap();
        } else {
            panic!("docs/diagnostics.md's code table is out of date (GENTABLE_BLESS=1 cargo test --test diagnostics)");
        }
    }
}

/// `gentable` in `dir` with `args` and exactly the locale variables `env`: (stdout, stderr, exit code).
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (String, String, i32) {
    let lock = case_lock(dir);
    let _one_at_a_time = lock.lock().unwrap_or_else(|p| p.into_inner());
    let mut c = Command::new(env!("CARGO_BIN_EXE_gentable"));
    c.args(args).current_dir(dir);
    for k in ["LC_ALL", "LC_MESSAGES", "LANG"] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied());
    let out = c.output().expect("run gentable");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// `--lang` decides; without it the locale does (LC_ALL, then LC_MESSAGES, then LANG; Chinese for `zh*`),
/// and English is the default.
#[test]
fn the_language_follows_lang_then_the_locale() {
    let dir = root().join("tests/diagnostics/not-in-enum");
    let zh = "错误[GT0203]: \"Green\" 不是 Side";
    let en = "error[GT0203]: \"Green\" is not a Side";
    for (args, env, want) in [
        (&["check"][..], &[][..], en),
        (&["check"], &[("LANG", "zh_CN.UTF-8")], zh),
        (
            &["check"],
            &[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "C.UTF-8")],
            en,
        ),
        (
            &["check"],
            &[("LANG", "en_US.UTF-8"), ("LC_MESSAGES", "zh_CN")],
            zh,
        ),
        (&["check", "--lang", "en"], &[("LANG", "zh_CN.UTF-8")], en),
        (&["--lang", "zh", "check"], &[], zh),
    ] {
        let (_, err, code) = run_env(&dir, args, env);
        assert_eq!(code, 1, "{args:?} {env:?}: {err}");
        assert!(err.contains(want), "{args:?} {env:?}: {err}");
    }
    // The exit code and the JSON field names do not depend on the language.
    let (_, err, _) = run_env(
        &dir,
        &["check", "-q", "--message-format", "json", "--lang", "zh"],
        &[],
    );
    let v: serde_json::Value = serde_json::from_str(err.lines().next().unwrap()).unwrap();
    assert_eq!(v["code"], "GT0203");
    assert_eq!(v["message"], "\"Green\" 不是 Side");
    assert_eq!(v["help"], "Side 是以下之一：Red、Blue");
}

/// `gentable explain` in both languages, for every code.
#[test]
fn explain_speaks_both_languages() {
    let dir = root();
    let (out, _, code) = run_env(&dir, &["explain", "GT0203", "--lang", "zh"], &[]);
    assert_eq!(code, 0);
    assert!(out.starts_with("GT0203：不是枚举成员\n\n"), "{out}");
    assert!(out.contains("修正："), "{out}");
    let (out, _, _) = run_env(&dir, &["explain", "gt0203"], &[("LANG", "zh_CN.UTF-8")]);
    assert!(out.starts_with("GT0203：不是枚举成员"), "{out}");
    let (out, _, _) = run_env(&dir, &["explain", "GT0203"], &[]);
    assert!(out.starts_with("GT0203: not in enum\n\n"), "{out}");
    for c in gentable::diag::Code::ALL {
        let zh =
            gentable::diag::code::explain_in(c.as_str(), gentable::diag::lang::Lang::Zh).unwrap();
        let en = gentable::diag::code::explain(c.as_str()).unwrap();
        assert!(has_cjk(&zh) && !has_cjk(en.lines().next().unwrap()), "{c}");
    }
}

/// `--message-format sarif`: one SARIF 2.1.0 log on stdout with a result per diagnostic (the same as the
/// JSON lines), nothing else printed; in Chinese with `--lang zh`.
#[test]
fn sarif_is_one_log_of_every_diagnostic() {
    for case in ["foreign-key-nested", "warning", "rule-does-not-compile"] {
        let dir = root().join("tests/diagnostics").join(case);
        let (json, _) = run(&dir, &["--message-format", "json", "-q"]);
        let lines: Vec<serde_json::Value> = json
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (out, err, code) = run_env(&dir, &["check", "-q", "--message-format", "sarif"], &[]);
        assert_eq!(err, "", "{case}");
        assert_eq!(code, if case == "warning" { 0 } else { 1 }, "{case}");
        let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
        assert_eq!(log["version"], "2.1.0");
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), lines.len(), "{case}");
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        for (r, l) in results.iter().zip(&lines) {
            assert_eq!(r["ruleId"], l["code"], "{case}");
            let i = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], l["code"], "{case}");
            assert_eq!(r["level"], l["severity"], "{case}");
            let loc = &r["locations"][0]["physicalLocation"];
            assert_eq!(loc["artifactLocation"]["uri"], l["file"], "{case}");
            if l["row"].as_u64().unwrap() > 0 {
                assert_eq!(loc["region"]["startLine"], l["row"], "{case}");
            }
            assert!(r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with(l["message"].as_str().unwrap()));
        }
        let (zh, _, _) = run_env(
            &dir,
            &["check", "--message-format", "sarif", "--lang", "zh"],
            &[],
        );
        let log: serde_json::Value = serde_json::from_str(&zh).unwrap();
        let text = log["runs"][0]["tool"]["driver"]["rules"][0]["fullDescription"]["text"]
            .as_str()
            .unwrap();
        assert!(has_cjk(text), "{case}: {text}");
    }
}
