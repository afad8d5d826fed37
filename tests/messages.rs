//! Every diagnostic gentable emits on the test corpora reads whole in Simplified Chinese (issue 17 item 4,
//! docs/diagnostics.md "Languages"): its message and help match a template of `src/diag/zh.rs` *whole*
//! (`gentable::diag::lang::translate_checked`: every translated part translated, no English prose in a
//! copied part, no other library's English copied), so `--lang zh` never prints an English or a half-English
//! sentence. The test fails — it does not only list — for each text without one.
//!
//! The corpora: the golden English diagnostics of `tests/diagnostics/*/expected.json` and
//! `tests/fidelity/*/expected/diagnostics.json`, and what `gentable check --message-format json` reports on
//! every other project of the repository (FunnyPitch, `examples/*`, the torture set, `tests/fixtures/*`,
//! `tests/luban`, `tests/realdata/*` when `../shared/realdata` is there). The hardening attacks (written by
//! tests/hardening.rs in code) and the fuzz regressions (`fuzz/regressions/`, inputs of the fuzz targets,
//! not projects) are not run here; the source scan below covers their messages' format strings.
//!
//! The one text that is not gentable's is a rule's own `message` (GT0310/GT0311: the schema author wrote
//! it, in any language); its help is still checked.

use gentable::diag::lang::{has_cjk, translate_checked};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The diagnostics (JSON objects) of a `--message-format json` output.
fn parse(lines: &str, origin: &str) -> Vec<(String, serde_json::Value)> {
    lines
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| {
            (
                origin.to_string(),
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{origin}: {e}: {l}")),
            )
        })
        .collect()
}

/// `gentable check --message-format json -q` of the project file `toml`, in English.
fn check(toml: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["check", "--no-cache", "--message-format", "json", "-q"])
        .args(["--lang", "en", "-c"])
        .arg(toml)
        .output()
        .expect("run gentable");
    String::from_utf8(out.stderr).expect("UTF-8 diagnostics")
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every diagnostic of the corpora, with where it came from.
fn corpus() -> Vec<(String, serde_json::Value)> {
    let r = root();
    let mut all = vec![];
    for case in subdirs(&r.join("tests/diagnostics")) {
        if let Ok(s) = std::fs::read_to_string(case.join("expected.json")) {
            all.extend(parse(&s, &case.display().to_string()));
        }
    }
    let fidelity = subdirs(&r.join("tests/fidelity"));
    assert!(fidelity.len() >= 20, "the fidelity suite is there");
    for case in fidelity {
        if let Ok(s) = std::fs::read_to_string(case.join("expected/diagnostics.json")) {
            all.extend(parse(&s, &case.display().to_string()));
        }
    }
    let mut projects = vec![
        r.join("gentable.toml"),
        r.join("tests/torture/gentable.toml"),
    ];
    projects.extend(
        subdirs(&r.join("examples"))
            .iter()
            .map(|d| d.join("gentable.toml")),
    );
    projects.extend(
        subdirs(&r.join("tests/fixtures"))
            .iter()
            .map(|d| d.join("gentable.toml")),
    );
    projects.push(r.join("tests/luban/gentable.toml"));
    if r.join("../shared/realdata/README.md").is_file() {
        projects.extend(
            subdirs(&r.join("tests/realdata"))
                .iter()
                .map(|d| d.join("gentable.toml")),
        );
    }
    for toml in projects.into_iter().filter(|p| p.is_file()) {
        all.extend(parse(&check(&toml), &toml.display().to_string()));
    }
    all
}

#[test]
fn every_message_and_help_of_the_corpora_reads_whole_in_chinese() {
    let all = corpus();
    assert!(
        all.len() >= 120,
        "the corpora hold {} diagnostics: fewer than expected, is a corpus missing?",
        all.len()
    );
    let mut missing = vec![];
    let mut codes = std::collections::BTreeSet::new();
    for (origin, d) in &all {
        let code = d["code"].as_str().unwrap_or("?");
        codes.insert(code.to_string());
        for key in ["message", "help"] {
            let Some(text) = d[key].as_str() else {
                continue;
            };
            if key == "message" && matches!(code, "GT0310" | "GT0311") {
                continue;
            }
            match translate_checked(text) {
                None => missing.push(format!("{code} {key} (no template matches whole): {text:?}\n    in {origin}")),
                Some(t) if !t.foreign.is_empty() => missing.push(format!(
                    "{code} {key} (English of another library copied: {:?}): {text:?}\n    in {origin}",
                    t.foreign
                )),
                Some(t) if !has_cjk(&t.text) && has_latin_words(&t.text) => missing.push(format!(
                    "{code} {key} (the translation has no Chinese: {:?}): {text:?}\n    in {origin}",
                    t.text
                )),
                Some(_) => {}
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "{} messages have no whole Chinese translation; add a template to MESSAGES in src/diag/zh.rs \
         (docs/diagnostics.md \"Languages\"):\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(
        codes.len() >= 40,
        "the corpora cover {} codes: {codes:?}",
        codes.len()
    );
}

/// Whether `s` has an English word of three letters or more outside quotes (a translation that is only
/// copied data, like `"Name"`, has none).
fn has_latin_words(s: &str) -> bool {
    s.split('"')
        .step_by(2)
        .flat_map(|p| p.split(|c: char| !c.is_ascii_alphabetic()))
        .any(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_lowercase()))
}

/// The strictness itself: a message that only part of a template matches is not translated at all (no
/// `column C 是under…`), and the check above would catch it.
#[test]
fn a_partial_match_is_no_translation() {
    // `{} is {t}, but {t}` would match with English parts; the prose check refuses it.
    let mixed = "column C is under a header nobody wrote, but the cell is fine";
    assert_eq!(translate_checked(mixed), None);
    assert_eq!(
        gentable::diag::lang::message(mixed, gentable::diag::lang::Lang::Zh),
        mixed
    );
    // An untranslatable inner part makes the whole template fail.
    assert_eq!(
        translate_checked("map key: something no template says"),
        None
    );
    // Brackets around words do not hide prose in a copied part: the schema keyword suffix of a
    // validator message was copied into the Chinese ("-1.0 小于最小值 0 at d (schema keyword minimum)").
    let t = translate_checked("-1.0 is less than the minimum of 0 at d (schema keyword minimum)")
        .unwrap();
    assert_eq!(t.text, "-1.0 小于最小值 0，位置 d（结构关键字 minimum）");
    // Lists of names stay data.
    assert!(!gentable::diag::lang::is_prose(
        "date-time, date, time, duration"
    ));
    assert!(gentable::diag::lang::is_prose("0 (schema keyword minimum)"));
    // A copied part of data is fine.
    let t = translate_checked("\"Soldeir\" is not a key of PieceType").unwrap();
    assert_eq!(t.text, "\"Soldeir\" 不是 PieceType 的键");
    assert!(t.foreign.is_empty());
    // Another library's error inside a message is translated when the catalog knows it, else reported.
    let t = translate_checked("cannot read file: No such file or directory (os error 2)").unwrap();
    assert!(t.foreign.is_empty() && has_cjk(&t.text), "{t:?}");
    let t = translate_checked("cannot read file: some new error of the OS").unwrap();
    assert_eq!(t.foreign, vec!["some new error of the OS".to_string()]);
}

/// Every `frame(lang, "…", …)` of the source (the designer tools' lines and labels, the command line's own
/// errors) has its Chinese line in `zh::FRAMES`: the source is read, so a new line without Chinese fails here
/// even before a test prints it. The Chinese names no part the English lacks.
#[test]
fn every_frame_line_of_the_source_has_chinese() {
    let call = regex::Regex::new(r#"frame\(\s*[a-z_.]+,\s*"((?:[^"\\]|\\.)*)""#).unwrap();
    let mut keys = vec![];
    let mut stack = vec![root().join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for c in call.captures_iter(&text) {
                    let lit = c[1]
                        .replace("\\\"", "\"")
                        .replace("\\n", "\n")
                        .replace("\\\\", "\\");
                    keys.push((p.strip_prefix(root()).unwrap().display().to_string(), lit));
                }
            }
        }
    }
    assert!(keys.len() >= 80, "only {} frame( calls found", keys.len());
    let mut missing = vec![];
    for (file, key) in &keys {
        match gentable::diag::lang::frame_zh(key) {
            None => missing.push(format!("{file}: {key:?}")),
            Some(zh) => {
                let parts = key.matches("{}").count();
                assert!(
                    !zh.contains(&format!("{{{parts}}}")),
                    "{file}: the Chinese of {key:?} names a part {{{parts}}} it lacks"
                );
                assert!(
                    has_cjk(zh),
                    "{file}: the Chinese of {key:?} is not Chinese: {zh:?}"
                );
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "frame lines without Chinese (add them to FRAMES in src/diag/zh.rs):\n{}",
        missing.join("\n")
    );
}

/// Every message and help written where a diagnostic is made in the stages (`src/read`, `schema`, `typing`,
/// `validate`, `build`, `config.rs`) has a template in `zh::MESSAGES` whose literal text fits its format
/// string: the source is read, so a new message without Chinese fails here even when no test case prints
/// it. A format string is the text of a literal within eight lines after `Code::…`, `Diagnostic::…`,
/// `with_help(` or `.help(` that has three English words or more; its `{…}` arguments fit any part.
#[test]
fn every_message_written_in_the_stages_has_a_template() {
    // Format strings a template of their expanded forms covers (the argument is one of a few words).
    let expanded: &[&str] = &["{name} has {declared} {what} but the value has {} parts"];
    let trigger = regex::Regex::new(r"Code::[A-Z]|Diagnostic::|with_help\(|\.help\(").unwrap();
    let literal = regex::Regex::new(r#""((?:[^"\\]|\\.)*)""#).unwrap();
    let continued = regex::Regex::new(r"\\\n\s*").unwrap();
    let argument = regex::Regex::new(r"\{[^{}]*\}").unwrap();
    let word = regex::Regex::new(r"\b[a-z]{2,}\b").unwrap();
    let src = root().join("src");
    let mut files = vec![src.join("config.rs")];
    let mut stack: Vec<PathBuf> = ["read", "schema", "typing", "validate", "build"]
        .iter()
        .map(|d| src.join(d))
        .collect();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let (mut checked, mut missing) = (0, vec![]);
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        // The code before the unit tests, with string continuations (`\` at a line's end) joined.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let code = continued.replace_all(code, "");
        let lines: Vec<&str> = code.lines().collect();
        let mut seen = std::collections::BTreeSet::new();
        for (i, l) in lines.iter().enumerate() {
            if !trigger.is_match(l) {
                continue;
            }
            for line in &lines[i..(i + 8).min(lines.len())] {
                let t = line.trim_start();
                if t.starts_with("//") {
                    continue;
                }
                for c in literal.captures_iter(line) {
                    let s = c[1].replace("\\\"", "\"").replace("\\\\", "\\");
                    if word.find_iter(&s).count() < 3 || expanded.contains(&s.as_str()) {
                        continue;
                    }
                    if !seen.insert(s.clone()) {
                        continue;
                    }
                    checked += 1;
                    let shape = argument.replace_all(&s, "\u{1}");
                    if !gentable::diag::lang::has_template(&shape) {
                        missing.push(format!(
                            "{}: {s:?}",
                            p.strip_prefix(root()).unwrap().display()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        checked >= 150,
        "only {checked} messages found in the source"
    );
    assert!(
        missing.is_empty(),
        "messages of the stages without a template in src/diag/zh.rs MESSAGES:\n{}",
        missing.join("\n")
    );
}
