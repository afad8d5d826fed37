//! Every diagnostic gentable emits reads whole in Simplified Chinese (issue 17 item 4, docs/diagnostics.md
//! "Languages"): its message and help match a template of `src/diag/zh.rs` *whole*
//! (`gentable::diag::lang::translate_checked`: every translated part translated, no English prose in a
//! copied part, no other library's English copied), and what `--lang zh` prints is that Chinese, with
//! Chinese list joiners (`、`, `或`, `和`: `gentable::diag::list`), never an English or a half-English
//! sentence. The tests fail — they do not only list — for each text without one
//! (`tests/common/zh.rs` says what is checked).
//!
//! The corpora, each run by the `gentable` binary in English and in Chinese: every diagnostic case
//! (`tests/diagnostics/*`, whose golden English `expected.json` is checked too), every fidelity case
//! (`tests/fidelity/*`, built from its parts), FunnyPitch, `examples/*`, the torture set,
//! `tests/fixtures/*`, `tests/luban`, `tests/realdata/*` when `../shared/realdata` is there; the hardening
//! attacks are checked where they are made (`tests/hardening.rs` renders every attack that fails in Chinese
//! with the same checks), and the fuzz regressions (`fuzz/regressions/`) through the fuzz targets' own
//! bodies here. Beyond the corpora, the source scan below finds every sentence of `src/` without Chinese.
//!
//! The one text that is not gentable's is a rule's own `message` (GT0310/GT0311: the schema author wrote
//! it, in any language); its help is still checked.

mod common;

#[path = "../fuzz/src/targets.rs"]
#[allow(dead_code)]
mod targets;

use common::zh::{english_joiner, problem, problems_of};
use gentable::diag::lang::{has_cjk, message, translate_checked, Lang};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

#[test]
fn every_message_and_help_of_the_corpora_reads_whole_in_chinese() {
    let r = root();
    let mut missing = vec![];
    let mut count = 0;
    // The golden English of the diagnostic cases (some are made by `build --check` or `--deny warnings`,
    // which the runs below do not repeat).
    for case in subdirs(&r.join("tests/diagnostics")) {
        let Ok(s) = std::fs::read_to_string(case.join("expected.json")) else {
            continue;
        };
        for d in common::zh::parse(&s, &case.display().to_string()) {
            let code = d["code"].as_str().unwrap_or("?");
            for key in ["message", "help"] {
                let Some(text) = d[key].as_str() else {
                    continue;
                };
                if key == "message" && matches!(code, "GT0310" | "GT0311") {
                    continue;
                }
                // Lists were made in the process that wrote the golden file: only the templates are checked.
                if let Some(p) = common::zh::template_problem(text) {
                    missing.push(format!(
                        "{code} {key} ({p}): {text:?}\n    in {}",
                        case.display()
                    ));
                }
            }
        }
    }
    let mut projects: Vec<(PathBuf, String)> = vec![];
    for case in subdirs(&r.join("tests/diagnostics")) {
        projects.push((case.join("gentable.toml"), case.display().to_string()));
    }
    let work = common::fidelity::work("messages");
    let fidelity = common::fidelity::cases();
    assert!(fidelity.len() >= 20, "the fidelity suite is there");
    for case in &fidelity {
        let dir = common::fidelity::prepare(case, &work.join(common::fidelity::name(case)));
        projects.push((dir.join("gentable.toml"), case.display().to_string()));
    }
    let mut others = vec![
        r.join("gentable.toml"),
        r.join("tests/torture/gentable.toml"),
    ];
    others.extend(
        subdirs(&r.join("examples"))
            .iter()
            .map(|d| d.join("gentable.toml")),
    );
    others.extend(
        subdirs(&r.join("tests/fixtures"))
            .iter()
            .map(|d| d.join("gentable.toml")),
    );
    others.push(r.join("tests/luban/gentable.toml"));
    if r.join("../shared/realdata/README.md").is_file() {
        others.extend(
            subdirs(&r.join("tests/realdata"))
                .iter()
                .map(|d| d.join("gentable.toml")),
        );
    }
    projects.extend(others.into_iter().map(|t| {
        let o = t.display().to_string();
        (t, o)
    }));
    for (toml, origin) in projects.iter().filter(|(t, _)| t.is_file()) {
        let (n, p) = problems_of(toml, origin);
        count += n;
        missing.extend(p);
    }
    assert!(
        count >= 150,
        "the corpora hold {count} diagnostics: fewer than expected, is a corpus missing?"
    );
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "{} messages without whole Chinese; add a template to MESSAGES in src/diag/zh.rs, or make the list \
         with gentable::diag::list (docs/diagnostics.md \"Languages\"):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// What the fuzz targets' bodies refused in `fuzz/regressions/` (the inputs the fuzzers found, once fixed)
/// reads in Chinese, lists included: the targets run in this process, so their lists are translated here.
#[test]
fn the_fuzz_regressions_read_in_chinese() {
    let mut missing = vec![];
    let mut count = 0;
    for target in ["cell", "csv", "workbook", "schema"] {
        for (name, data) in targets::regressions(target) {
            for (m, h) in targets::findings(target, &data) {
                for text in std::iter::once(m).chain(h) {
                    count += 1;
                    if let Some(p) = problem(&text, &message(&text, Lang::Zh)) {
                        missing.push(format!("{target}/{name} ({p}): {text:?}"));
                    }
                }
            }
        }
    }
    assert!(count >= 3, "only {count} findings of the fuzz regressions");
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "fuzz regressions without whole Chinese:\n{}",
        missing.join("\n")
    );
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

/// Every English sentence of the source has its Chinese: each string literal of `src/` with three English
/// words or more — wherever it is written, so a message made in one module and attached in another (a
/// `CellError`, a `TimeError`, a typer error, an `anyhow!` of the configuration) is seen — fits a template
/// of `zh::MESSAGES` (its `{…}` arguments fit any part) or is a line of `zh::FRAMES`, unless it is one of
/// the texts that are no message: a literal inside `expect(`, `panic!`, `unreachable!` or an `assert`
/// (a bug of gentable, not the user's), the clap attributes and the table of `cli/help.rs` (checked by
/// `cli::help::tests`), the generated code of `src/emit/` (only `emit/front.rs` makes messages there),
/// and the unit tests. The
/// few others are listed in [`NOT_MESSAGES`] with why. A new message without Chinese fails here even when
/// no test prints it.
#[test]
fn every_sentence_of_the_source_has_chinese() {
    let literal = regex::Regex::new(r#""((?:[^"\\]|\\.)*)""#).unwrap();
    let raw = regex::Regex::new(r##"r#*""##).unwrap();
    let continued = regex::Regex::new(r"\\\n\s*").unwrap();
    // A format argument (`{}`, `{name}`, `{x:?}`, `{:.1}`), not a literal brace of the text.
    let argument = regex::Regex::new(r"\{[A-Za-z0-9_.]*(?::[^{}]*)?\}").unwrap();
    // Three English words in a row once the arguments are left out: a sentence, not a path or markup.
    let sentence =
        regex::Regex::new(r"(^|[^\w/.<\-])(?:a|[a-z]{2,})(?: (?:a|[a-z]{2,})){2}($|[^\w/.>\-])")
            .unwrap();
    let bug = regex::Regex::new(
        r"\.expect\(|panic!\(|unreachable!\(|assert(_eq|_ne)?!\(|#\[(arg|command|serde|error|doc)",
    )
    .unwrap();
    let src = root().join("src");
    let mut files = vec![];
    let mut stack = vec![src.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs")
                && !matches!(rel.as_str(), "diag/zh.rs" | "diag/code.rs" | "cli/help.rs")
                && (!rel.starts_with("emit/") || rel == "emit/front.rs")
            {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut checked, mut missing) = (0, vec![]);
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        let rel = p.strip_prefix(root()).unwrap().display().to_string();
        // The code before the unit tests, with string continuations (`\` at a line's end) joined.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let code = continued.replace_all(code, "");
        let mut seen = std::collections::BTreeSet::new();
        // A call that reports a bug of gentable spans the lines up to its closing parenthesis.
        let mut open_bug: i32 = 0;
        for line in code.lines() {
            let t = line.trim_start();
            if t.starts_with("//") || raw.is_match(line) {
                continue;
            }
            let bare = literal.replace_all(line, "\"\"");
            if open_bug > 0 {
                open_bug += depth(&bare);
                continue;
            }
            if let Some(m) = bug.find(&bare) {
                open_bug = depth(&bare[m.start()..]).max(0);
                continue;
            }
            for c in literal.captures_iter(line) {
                let s = unescape(&c[1]);
                let words = argument.replace_all(&s, "").replace("  ", " ");
                if EXPANDED.iter().any(|(f, _)| *f == s) {
                    continue;
                }
                if !sentence.is_match(&words) || !seen.insert(s.clone()) {
                    continue;
                }
                if NOT_MESSAGES
                    .iter()
                    .any(|(f, m, _)| rel.ends_with(f) && s == *m)
                {
                    continue;
                }
                checked += 1;
                let shape = argument
                    .replace_all(&s, "\u{1}")
                    .replace("{{", "{")
                    .replace("}}", "}");
                // A piece of a message (it has an argument, or starts or ends with a space or a bracket:
                // it is written next to others) may be covered by its whole message's template; a
                // phrase on its own is a part some template translates, and needs its own.
                let piece = s.contains('{')
                    || s.starts_with([' ', '(', ';', ','])
                    || s.ends_with([' ', ')', ':']);
                if !gentable::diag::lang::fits(&shape)
                    && gentable::diag::lang::frame_zh(&s).is_none()
                    && !(piece && gentable::diag::lang::covers(&s))
                {
                    missing.push(format!("{rel}: {s:?}"));
                }
            }
        }
    }
    assert!(
        checked >= 400,
        "only {checked} sentences found in the source"
    );
    assert!(
        missing.is_empty(),
        "{} sentences of the source without Chinese (a template in MESSAGES or a line in FRAMES of \
         src/diag/zh.rs, docs/diagnostics.md \"Languages\"; or, if it is no message, NOT_MESSAGES here):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// A Rust string literal's text: `\"`, `\\`, `\n`, `\t` unescaped.
fn unescape(lit: &str) -> String {
    let mut out = String::with_capacity(lit.len());
    let mut chars = lit.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

/// The balance of `(` over `)` in a line without its string literals.
fn depth(s: &str) -> i32 {
    s.chars()
        .map(|c| match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        })
        .sum()
}

/// Literals of three English words or more that are no message (file, literal, why).
const NOT_MESSAGES: &[(&str, &str, &str)] = &[
    (
        "import/luban/map.rs",
        "The kind of the row (Luban's $type, the sheet's __type__ column).",
        "a description the importer writes into an imported schema (documentation of generated code); never shown",
    ),
    (
        "import/luban/map.rs",
        "The kinds of {bean}: the leaf beans a row may be.",
        "a description the importer writes into an imported schema (documentation of generated code); never shown",
    ),
    (
        "validate/native.rs",
        "an open record or a tuple",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "values of type {}",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "schemas nest too deep (a recursive $ref)",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "a schema that accepts nothing",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "{k} on the row object",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "an unusual type",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "a row that is not an object",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "an enum that is not an array",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "items that is not a schema",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "properties that is not an object",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "properties on a map",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "required that is not an array",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "a required name that is not a string",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "validate/native.rs",
        "the keyword {k} is not checked natively",
        "why the native validation plan leaves a table to jsonschema (Plan::covered, for tests); never shown",
    ),
    (
        "diag/foreign.rs",
        "cannot extend value of type ",
        "the toml crate's message, taken apart to translate it (zh::TOML_ERRORS)",
    ),
    (
        "diag/foreign.rs",
        " with a dotted key",
        "the toml crate's message, taken apart to translate it (zh::TOML_ERRORS)",
    ),
    (
        "build/commit.rs",
        "no space left on device (GENTABLE_FAIL_AT={n}, {what})",
        "fault injection of tests/commit.rs",
    ),
    (
        "build/commit.rs",
        "gentable: paused at step {n} ({what})",
        "fault injection of tests/commit.rs",
    ),
    (
        "build/commit.rs",
        "old tree removed",
        "a step name of the fault injection",
    ),
    (
        "build/commit.rs",
        "staging folder created",
        "a step name of the fault injection",
    ),
    (
        "build/commit.rs",
        "before the swap",
        "a step name of the fault injection",
    ),
    (
        "build/commit.rs",
        "old folder set aside",
        "a step name of the fault injection",
    ),
    (
        "build/outputs.rs",
        "no data hash for table {}",
        "an invariant of gentable (every table is hashed first)",
    ),
    (
        "emit/front.rs",
        "no data hash for table {}",
        "an invariant of gentable (every table is hashed first)",
    ),
    (
        "build/outputs.rs",
        "gentable:   canonical data {:.1} ms",
        "the developers' timing trace",
    ),
    (
        "build/mod.rs",
        "rebuilding {} of {} tables: {}",
        "the developers' timing trace (tests/cache.rs reads it)",
    ),
    (
        "emit/front.rs",
        "generated by gentable — do not edit",
        "written into generated files, which are the same in every language",
    ),
    (
        "report/mod.rs",
        "generated by gentable report — do not edit\n",
        "written into the report's files",
    ),
    (
        "import/luban/map.rs",
        "imported from Luban by `gentable import luban`; re-run it to update this file",
        "the $comment written into imported schemas",
    ),
    (
        "import/luban/map.rs",
        "Tables left out by the import, each with its reason (the import's report lists all it could not map):",
        "a comment written into the imported gentable.toml, which is the same in every language",
    ),
    (
        "import/luban/map.rs",
        ": table left out",
        "the end of a note the importer strips to name a table's reason in gentable.toml; never shown alone",
    ),
    (
        "diag/sarif.rs",
        "the folder of gentable.toml",
        "SARIF metadata read by code-scanning tools",
    ),
    (
        "diag/render.rs",
        "ESCAPE (terminal control sequences)",
        "a Unicode character name; hidden_note gives its Chinese form",
    ),
    (
        "read/guard.rs",
        "bytes of cell text",
        "an argument of an EXPANDED format (its sheets would need …)",
    ),
    (
        "schema/typer.rs",
        ", or \"type\": [\"{}\"] for a scalar union",
        "an argument of an EXPANDED format (the keywords are about different types …)",
    ),
    (
        "typing/sheet.rs",
        "is a hidden column",
        "an argument of an EXPANDED format (… of the worksheet)",
    ),
    (
        "typing/sheet.rs",
        "are hidden columns",
        "an argument of an EXPANDED format (… of the worksheet)",
    ),
];

/// Format strings whose arguments are one of a few words, so that their Chinese is given for each expanded
/// form: (format, every expanded form with sample data); `every_expanded_form_reads_in_chinese` translates
/// each form.
const EXPANDED: &[(&str, &[&str])] = &[
    ("is stale: it differs from what the tables produce", &["generated/data/Unit.json is stale: it differs from what the tables produce"]),
    ("is extra: the tables no longer produce it", &["generated/data/Old.json is extra: the tables no longer produce it"]),
    (" (a key of {}.{})", &["\"Soldeir\" (a key of Board.Piece) is not a key of PieceType"]),
    ("{name} has {declared} {what} but the value has {} parts", &["Vec2 has 2 fields but the value has 3 parts", "Pair has 2 elements but the value has 3 parts"]),
    ("the {what} is nested {depth} levels deep, more than the limit of {max}", &["the JSON literal is nested 40 levels deep, more than the limit of 32", "the value is nested 40 levels deep, more than the limit of 32"]),
    ("the {what} {shown:?} has no time zone offset (the machine's zone is never used)", &["the time \"10:00\" has no time zone offset (the machine's zone is never used)", "the Excel date-time \"2024-01-01 10:00\" has no time zone offset (the machine's zone is never used)", "the Excel time \"10:00\" has no time zone offset (the machine's zone is never used)"]),
    ("Excel shows 1900-02-29, a day that does not exist (Excel's 1900 leap-year bug), as a {what}", &["Excel shows 1900-02-29, a day that does not exist (Excel's 1900 leap-year bug), as a date", "Excel shows 1900-02-29, a day that does not exist (Excel's 1900 leap-year bug), as a date-time"]),
    ("the cell holds the time {shown} with no date (Excel shows day 0 as 1900-01-00), not a {what}", &["the cell holds the time 10:00:00 with no date (Excel shows day 0 as 1900-01-00), not a date", "the cell holds the time 10:00:00 with no date (Excel shows day 0 as 1900-01-00), not a date-time"]),
    ("{what} in the worksheet (by hand, by a filter or a collapsed outline), but exported like every row", &["row 5 is hidden in the worksheet (by hand, by a filter or a collapsed outline), but exported like every row", "rows 5-9 are hidden in the worksheet (by hand, by a filter or a collapsed outline), but exported like every row"]),
    ("{list} {what} of the worksheet, but exported like every column", &["C (Hp) is a hidden column of the worksheet, but exported like every column", "C (Hp), D (Mp) are hidden columns of the worksheet, but exported like every column"]),
    ("column {letter} has no header, so its {n} value{} {} not exported", &["column F has no header, so its 1 value is not exported", "column F has no header, so its 3 values are not exported"]),
    ("its sheets would need {n} {what}, more than [limits] {key} ({max})", &["its sheets would need 300000 cells, more than [limits] sheet_cells (200000)", "its sheets would need 5000000 bytes of cell text, more than [limits] file_bytes (4194304)"]),
    ("{what} reads row.{f}, but a table rule has no row (use rows)", &["the rule reads row.Hp, but a table rule has no row (use rows)", "the message reads row.Hp, but a table rule has no row (use rows)"]),
    ("{what} reads row.{f}, which is not a field of {}", &["the rule reads row.Hpp, which is not a field of Unit", "the message reads row.Hpp, which is not a field of Unit"]),
    ("{}: {what} and {prev} both map to the {kind} {ident}{file}; rename one", &["C#: table Foo and table foo both map to the type name Foo (file Foo.cs); rename one", "TypeScript: table Foo and table foo both map to the name Foo; rename one"]),
    ("{}: $ref {r:?} does not resolve: {e}; {help}", &["Unit.Side: $ref \"http://example.com/side.json\" does not resolve: no such file; nothing is fetched: copy the schema into the schema folder and refer to it by file name (other.schema.json#/$defs/X)", "Unit.Side: $ref \"#/$defs/Sied\" does not resolve: no such file; a $ref names a file of the schema folder and a JSON pointer (#/$defs/X, with ~0, ~1 and %XX escapes) or an $anchor"]),
    ("the keywords are about different types: {}; add \"type\" (for example \"type\": \"{}\"{union})", &["the keywords are about different types: minimum, minLength; add \"type\" (for example \"type\": \"integer\")", "the keywords are about different types: minimum, minLength; add \"type\" (for example \"type\": \"integer\", or \"type\": [\"integer\", \"string\"] for a scalar union)"]),
    ("{} {} not decide the type of the value: add \"type\" (\"integer\", \"number\", \"string\", \"boolean\", \"array\" or \"object\")", &["\"not\" does not decide the type of the value: add \"type\" (\"integer\", \"number\", \"string\", \"boolean\", \"array\" or \"object\")", "\"if\" and \"then\" do not decide the type of the value: add \"type\" (\"integer\", \"number\", \"string\", \"boolean\", \"array\" or \"object\")"]),
    ("{} ({n} {} it, the first at {}:{})", &["the default \"x\" of Unit.Hp does not fit its type: expected an integer, found \"x\" (1 row takes it, the first at Table/Unit.csv:3)", "the default \"x\" of Unit.Hp does not fit its type: expected an integer, found \"x\" (4 rows take it, the first at Table/Unit.csv:3)"]),
    ("gentable: {} is up to date ({} file{})\n", &["gentable: generated is up to date (1 file)", "gentable: generated is up to date (12 files)"]),
    ("gentable: {} table{} valid, {}\n", &["gentable: 1 table valid, 0 warnings", "gentable: 5 tables valid, 1 warning"]),
    ("gentable: {} table{} -> {} (0 written, {} unchanged, 0 removed)\n", &["gentable: 1 table -> generated (0 written, 9 unchanged, 0 removed)", "gentable: 5 tables -> generated (0 written, 9 unchanged, 0 removed)"]),
    ("gentable: {} table{} -> {} ({} written, {} unchanged, {} removed)\n", &["gentable: 1 table -> generated (2 written, 9 unchanged, 0 removed)", "gentable: 5 tables -> generated (2 written, 9 unchanged, 1 removed)"]),
    ("{} has {unread} row{} whose key could not be read (see those errors): it may be one of them; else add a row with this key, or fix the reference", &["PieceType has 1 row whose key could not be read (see those errors): it may be one of them; else add a row with this key, or fix the reference", "PieceType has 2 rows whose key could not be read (see those errors): it may be one of them; else add a row with this key, or fix the reference"]),
];

#[test]
fn every_expanded_form_reads_in_chinese() {
    let mut missing = vec![];
    for (format, forms) in EXPANDED {
        assert!(!forms.is_empty(), "{format:?} has no expanded form");
        for f in *forms {
            match translate_checked(f) {
                Some(t) if has_cjk(&t.text) => {}
                t => missing.push(format!("{format:?}: {f:?} → {t:?}")),
            }
        }
    }
    assert!(
        missing.is_empty(),
        "expanded forms without Chinese:\n{}",
        missing.join("\n")
    );
}

/// Lists inside messages are joined in each language's own way, from their items (issue 17 item 4): an
/// enum's members with their aliases, an `enum` of three and of five values, a string enum whose members
/// hold the English joiners themselves, a did-you-mean among keys, and `oneOf`/`anyOf` failures.
#[test]
fn lists_join_in_each_language_from_their_items() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("gentable.toml", "[project]\nname = \"Lists\"\n");
    write(
        "schema/Unit.schema.json",
        r##"{
  "type": "object",
  "x-gentable-primaryKey": "Id",
  "$defs": {
    "Color": {"type": "string", "enum": ["Red", "Blue", "Green", "Purple"],
      "x-gentable-enumAliases": {"Red": ["红", "赤"], "Purple": ["紫"]}}
  },
  "properties": {
    "Id": {"type": "integer"},
    "Color": {"$ref": "#/$defs/Color"},
    "Level": {"type": "integer", "enum": [1, 2, 3]},
    "Grade": {"type": "integer", "enum": [1, 2, 3, 5, 8]},
    "Tag": {"type": "string", "enum": ["a, b", "c or d", "x"]},
    "Pick": {"type": "integer", "oneOf": [{"minimum": 10}, {"maximum": -10}]},
    "Any": {"type": "integer", "anyOf": [{"minimum": 10}, {"maximum": -10}]},
    "Owner": {"type": "string", "x-gentable-foreignKey": "Hero"}
  },
  "required": ["Id"]
}"##,
    );
    write(
        "schema/Hero.schema.json",
        r#"{"type": "object", "x-gentable-primaryKey": "Name", "properties": {"Name": {"type": "string"}}, "required": ["Name"]}"#,
    );
    write("Table/Hero.csv", "Name\nSoldier\nSoldiers\nMinister\n");
    write(
        "Table/Unit.csv",
        "Id,Color,Level,Grade,Tag,Pick,Any,Owner\n1,紫色,4,4,y,0,0,Soldir\n2,Yellow,1,1,x,11,11,Soldier\n",
    );
    let toml = dir.path().join("gentable.toml");
    let texts = |lang: &str| -> Vec<String> {
        let (d, err) = common::zh::check_json(&toml, &["check", "--no-cache"], lang);
        assert!(!d.is_empty(), "{err}");
        d.iter()
            .flat_map(|d| [d["message"].as_str(), d["help"].as_str()])
            .flatten()
            .map(str::to_string)
            .collect()
    };
    let (en, zh) = (texts("en"), texts("zh"));
    for want in [
        "did you mean \"紫\" (Purple)? (Color is one of: Red (红, 赤), Blue, Green, Purple (紫))",
        "Color is one of: Red (红, 赤), Blue, Green, Purple (紫)",
        "4 is not one of 1, 2 or 3 (schema keyword enum)",
        "4 is not one of 1, 2 or 3 other candidates (schema keyword enum)",
        "UnitTag is one of: \"a, b\", \"c or d\", x",
        "0 is not valid under any of the schemas listed in the 'oneOf' keyword (schema keyword oneOf)",
        "0 is not valid under any of the schemas listed in the 'anyOf' keyword (schema keyword anyOf)",
        "did you mean \"Soldier\"? (also close: \"Soldiers\")",
    ] {
        assert!(en.iter().any(|t| t == want), "no {want:?} in {en:#?}");
    }
    for want in [
        "是不是想写 \"紫\" (Purple)？（Color 是以下之一：Red（红、赤）、Blue、Green、Purple（紫））",
        "Color 是以下之一：Red（红、赤）、Blue、Green、Purple（紫）",
        "4 不是 1、2 或 3 之一（结构关键字 enum）",
        "4 不是 1、2 或另外 3 个候选值 之一（结构关键字 enum）",
        // A member that holds a joiner is quoted, and keeps it: only the joiners are Chinese.
        "UnitTag 是以下之一：\"a, b\"、\"c or d\"、x",
        "0 不符合 'oneOf' 中列出的任何结构（结构关键字 oneOf）",
        "0 不符合 'anyOf' 中列出的任何结构（结构关键字 anyOf）",
        "是不是想写 \"Soldier\"？（也很接近：\"Soldiers\"）",
    ] {
        assert!(zh.iter().any(|t| t == want), "no {want:?} in {zh:#?}");
    }
    // Every Chinese text is whole Chinese with Chinese joiners (quoted cell texts aside).
    for (e, z) in en.iter().zip(&zh) {
        assert_eq!(problem(e, z), None, "{e:?} → {z:?}");
    }
    assert_eq!(english_joiner("1、2 或 3"), None);
    assert_eq!(english_joiner("1, 2 或 3"), Some(", "));
    assert_eq!(english_joiner("\"a, b\" 或 (x, y)"), None);
}

/// `gentable [args]` with no locale variables (plus `env`): exit code, standard output, standard error.
fn cli(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gentable"));
    c.args(args)
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// The command line's help and usage errors in Chinese (issue 17 item 4; `src/cli/help.rs`): with
/// `--lang zh` every option of `build --help` has a Chinese help, the headings, defaults and possible
/// values are Chinese, a `zh` locale does the same, `help <command>` too, and an unknown flag is explained
/// in Chinese before clap's own English; English stays clap's own and the default.
#[test]
fn the_command_line_help_speaks_chinese_when_asked() {
    let (code, out, _) = cli(&["--lang", "zh", "build", "--help"], &[]);
    assert_eq!(code, 0);
    assert!(out.contains("用法：gentable build"), "{out}");
    let options = [
        "--config",
        "--message-format",
        "--deny",
        "--quiet",
        "--max-per-kind",
        "--no-cache",
        "--no-wait",
        "--check",
        "--help",
        "--lang",
    ];
    let lines: Vec<&str> = out.lines().collect();
    for o in options {
        let i = lines
            .iter()
            .position(|l| l.trim_start().starts_with('-') && l.split([',', ' ']).any(|w| w == o))
            .unwrap_or_else(|| panic!("no {o} in:\n{out}"));
        // The help is on the option's line or the next one.
        let help = format!("{} {}", lines[i], lines.get(i + 1).unwrap_or(&""));
        assert!(has_cjk(&help), "{o} has no Chinese help: {help:?}");
    }
    assert!(
        out.contains("［可选值：human、json、github、sarif（"),
        "{out}"
    );
    assert!(out.contains("［默认：gentable.toml］"), "{out}");
    for english in [
        "Usage:",
        "Options:",
        "Print help",
        "[default:",
        "possible values",
    ] {
        assert!(!out.contains(english), "{english:?} left in:\n{out}");
    }
    let (_, top, _) = cli(&["--help"], &[("LANG", "zh_CN.UTF-8")]);
    assert!(
        top.contains("命令") && top.contains("读取、校验并写出 generated/"),
        "{top}"
    );
    let (code, h, _) = cli(&["help", "build"], &[("LC_ALL", "zh_CN.UTF-8")]);
    assert_eq!(code, 0);
    assert!(
        h.contains("用法：gentable build") && h.contains("项目文件"),
        "{h}"
    );
    // English: clap's own text, the default without a locale.
    let (_, en, _) = cli(&["--help"], &[]);
    assert_eq!(
        cli(&["--lang", "en", "--help"], &[("LANG", "zh_CN.UTF-8")]).1,
        en
    );
    assert!(en.starts_with("Config tables (CSV/Excel) + JSON Schema -> validated Rust, C# and TypeScript\n\nUsage: gentable [OPTIONS] <COMMAND>\n\nCommands:\n  build "), "{en}");
    assert!(
        en.contains("  -h, --help         Print help\n  -V, --version      Print version\n"),
        "{en}"
    );
    assert!(!has_cjk(&en));
    // A usage error: in Chinese only (every kind: `every_usage_error_reads_in_chinese`); English is clap's.
    let (code, _, err) = cli(&["--lang", "zh", "build", "--chek"], &[]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "错误：不认识的参数 '--chek'\n\n  提示：有相近的参数：'--check'\n\n用法：gentable build [选项]\n\n更多信息请运行 '--help'。\n"
    );
    let (code, _, err) = cli(&["build", "--chek"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: unexpected argument '--chek' found"),
        "{err}"
    );
}

/// The Chinese help's layout (issue 17 item 4): headings with full-width colons (`用法：`, `命令：`,
/// `参数：`, `选项：`), Chinese placeholders everywhere (`[选项]`, `<命令>`, `<项目文件>`, `[旧版本]`),
/// the columns aligned by display width (an ideograph is two columns), positionals in their order.
#[test]
fn the_chinese_help_has_chinese_headings_and_placeholders() {
    let (_, top, _) = cli(&["--lang", "zh", "--help"], &[]);
    assert!(
        top.contains("\n用法：gentable [选项] <命令>\n\n命令：\n  build "),
        "{top}"
    );
    assert!(
        top.contains("\n\n选项：\n      --lang <语言>  消息的语言"),
        "{top}"
    );
    let (_, diff, _) = cli(&["--lang", "zh", "diff", "--help"], &[]);
    assert!(
        diff.contains(
            "用法：gentable diff [选项] [旧版本] [新版本]\n\n参数：\n  [旧版本]  旧版本："
        ) && diff.contains(
            "\n  [新版本]  新版本（默认：工作区）\n\n选项：\n  -c, --config <项目文件>  项目文件"
        ),
        "{diff}"
    );
    // `<项目文件>` is 10 columns wide, `<格式>` 6: the help texts start in one column.
    assert!(
        diff.contains("\n      --format <格式>      输出：")
            && diff.contains("\n      --exit-code          两个版本不同时"),
        "{diff}"
    );
    for args in [
        vec!["--help"],
        vec!["build", "--help"],
        vec!["diff", "--help"],
        vec!["explain", "--help"],
        vec!["import", "luban", "--help"],
        vec!["report", "-h"],
        vec!["help", "watch"],
        vec!["help"],
    ] {
        let mut a = vec!["--lang", "zh"];
        a.extend(&args);
        let (code, out, _) = cli(&a, &[]);
        assert_eq!(code, 0, "{args:?}");
        for ascii in [
            "用法:",
            "命令:",
            "选项:",
            "参数:",
            "Usage",
            "[OPTIONS]",
            "<COMMAND>",
            "<CONFIG>",
        ] {
            assert!(!out.contains(ascii), "{ascii:?} in {args:?}:\n{out}");
        }
        assert!(
            out.contains("用法：gentable") && out.contains("\n选项：\n"),
            "{args:?}:\n{out}"
        );
    }
}

/// The English help is byte for byte what it was before the Chinese help existed: every page is compared
/// with its snapshot in `tests/help/` (written with `GENTABLE_BLESS=1`, on an explicit opt-in only).
#[test]
fn english_help_is_byte_identical_to_its_snapshot() {
    let pages: &[&[&str]] = &[
        &["--help"],
        &["-h"],
        &["help"],
        &["build", "--help"],
        &["check", "--help"],
        &["config-schema", "--help"],
        &["explain", "--help"],
        &["diff", "--help"],
        &["report", "--help"],
        &["textconv", "--help"],
        &["watch", "--help"],
        &["import", "--help"],
        &["import", "luban", "--help"],
        &["init", "--help"],
        &["infer", "--help"],
        &["help", "watch"],
        &["report", "-h"],
    ];
    let dir = root().join("tests/help");
    let bless = std::env::var_os("GENTABLE_BLESS").is_some();
    for args in pages {
        let (code, out, _) = cli(args, &[]);
        assert_eq!(code, 0, "{args:?}");
        // The same with an English locale and with `--lang en` under a Chinese one.
        assert_eq!(cli(args, &[("LANG", "en_US.UTF-8")]).1, out, "{args:?}");
        let mut en = vec!["--lang", "en"];
        en.extend(args.iter());
        assert_eq!(cli(&en, &[("LC_ALL", "zh_CN.UTF-8")]).1, out, "{args:?}");
        let name: Vec<String> = args
            .iter()
            .map(|a| match (a.strip_prefix("--"), a.strip_prefix('-')) {
                (Some(l), _) => format!("opt-{l}"),
                (None, Some(s)) => format!("short-{s}"),
                _ => a.to_string(),
            })
            .collect();
        let file = dir.join(format!("{}.txt", name.join("_")));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&file, &out).unwrap();
        }
        let want = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e} (GENTABLE_BLESS=1 writes it)", file.display()));
        assert_eq!(out, want, "{args:?} differs from {}", file.display());
        assert!(!has_cjk(&out), "{args:?}");
    }
}

/// Every usage error the command line can raise (clap's `ErrorKind`s gentable's arguments reach) reads in
/// Chinese whole, with the facts clap gives in English: the argument, the value, the possible values, the
/// suggestion, the usage line; exit code 2 in both languages.
#[test]
fn every_usage_error_reads_in_chinese() {
    let cases: &[(&[&str], &str, &[&str])] = &[
        // A missing option value (not "an invalid empty value").
        (
            &["build", "-c"],
            "错误：'--config <项目文件>' 需要一个值，但没有给出\n",
            &["a value is required for '--config <CONFIG>' but none was supplied"],
        ),
        (
            &["diff", "--format"],
            "错误：'--format <格式>' 需要一个值，但没有给出\n  ［可选值：human、json、markdown］\n",
            &["a value is required for '--format <FORMAT>'", "[possible values: human, json, markdown]"],
        ),
        // A missing required argument.
        (
            &["textconv"],
            "错误：缺少以下必需的参数：\n  <文件>\n\n用法：gentable textconv [选项] <文件>\n",
            &["<FILE>"],
        ),
        // An unknown argument, without and with a suggestion.
        (
            &["build", "--bogus"],
            "错误：不认识的参数 '--bogus'\n\n用法：gentable build [选项]\n",
            &["unexpected argument '--bogus' found"],
        ),
        (
            &["check", "--no-cach"],
            "错误：不认识的参数 '--no-cach'\n\n  提示：有相近的参数：'--no-cache'\n\n用法：gentable check [选项]\n",
            &["unexpected argument '--no-cach' found", "a similar argument exists: '--no-cache'"],
        ),
        (
            &["diff", "a", "b", "c"],
            "错误：不认识的参数 'c'\n\n用法：gentable diff [选项] [旧版本] [新版本]\n",
            &["unexpected argument 'c' found"],
        ),
        // clap's own tip for a dash-led positional value.
        (
            &["explain", "-x"],
            "错误：不认识的参数 '-x'\n\n  提示：要把 '-x' 当作值传入，请写 '-- -x'\n\n用法：gentable explain [选项] [代码]\n",
            &["unexpected argument '-x' found", "tip: to pass '-x' as a value, use '-- -x'"],
        ),
        // An invalid value with the possible values, and with the closest one.
        (
            &["build", "--message-format", "yml"],
            "错误：'--message-format <格式>' 的值 'yml' 无效\n  ［可选值：human、json、github、sarif］\n",
            &["invalid value 'yml' for '--message-format <MESSAGE_FORMAT>'", "[possible values: human, json, github, sarif]"],
        ),
        (
            &["build", "--message-format", "jsn"],
            "错误：'--message-format <格式>' 的值 'jsn' 无效\n  ［可选值：human、json、github、sarif］\n\n  提示：有相近的值：'json'\n",
            &["a similar value exists: 'json'"],
        ),
        // A value its parser refuses.
        (
            &["build", "--max-per-kind", "x"],
            "错误：'--max-per-kind <N>' 的值 'x' 无效：含有不是数字的字符\n",
            &["invalid value 'x' for '--max-per-kind <N>': invalid digit found in string"],
        ),
        (
            &["watch", "--debounce", "99999999999999999999999"],
            "错误：'--debounce <毫秒>' 的值 '99999999999999999999999' 无效：数字太大\n",
            &["number too large to fit in target type"],
        ),
        // An unknown subcommand with a suggestion, at the top and below `import`.
        (
            &["bild"],
            "错误：不认识的命令 'bild'\n\n  提示：有相近的命令：'build'\n\n用法：gentable [选项] <命令>\n",
            &["unrecognized subcommand 'bild'", "a similar subcommand exists: 'build'"],
        ),
        (
            &["import", "lubn"],
            "错误：不认识的命令 'lubn'\n\n  提示：有相近的命令：'luban'\n\n用法：gentable import [选项] <命令>\n",
            &["unrecognized subcommand 'lubn'"],
        ),
        // An argument given twice (clap's argument conflict).
        (
            &["build", "--quiet", "--quiet"],
            "错误：参数 '--quiet' 只能给出一次\n\n用法：gentable build [选项]\n",
            &["the argument '--quiet' cannot be used multiple times"],
        ),
        (
            &["watch", "--debounce", "1", "--debounce", "2"],
            "错误：参数 '--debounce <毫秒>' 只能给出一次\n\n用法：gentable watch [选项]\n",
            &["the argument '--debounce <MS>' cannot be used multiple times"],
        ),
        // Too many values for a flag (`--quiet=yes`).
        (
            &["build", "--quiet=yes"],
            "错误：'--quiet' 的值 'yes' 是多余的：不需要更多的值\n",
            &["unexpected value 'yes' for '--quiet' found; no more were expected"],
        ),
        // `--lang` itself invalid: under a Chinese locale the error is Chinese.
        (
            &["--lang", "fr", "check"],
            "错误：'--lang <语言>' 的值 'fr' 无效\n  ［可选值：en、zh］\n",
            &["invalid value 'fr' for '--lang <LANG>'", "[possible values: en, zh]"],
        ),
    ];
    for (args, zh, en_facts) in cases {
        let locale = [("LANG", "zh_CN.UTF-8")];
        let (code, out, err) = if args[0] == "--lang" {
            cli(args, &locale)
        } else {
            let mut a = vec!["--lang", "zh"];
            a.extend(args.iter());
            cli(&a, &[])
        };
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
        assert!(
            err.starts_with(zh),
            "{args:?}: want {zh:?} first, got:\n{err}"
        );
        assert!(
            err.ends_with("\n更多信息请运行 '--help'。\n"),
            "{args:?}:\n{err}"
        );
        // The possible values and the command names are typed as they are in both languages.
        let mut values = vec!["human", "json", "github", "sarif", "markdown", "warnings"];
        values.extend(common::zh::COMMANDS);
        let english = common::zh::english_words(&err, &values);
        assert!(
            english.is_empty(),
            "{args:?}: English left: {english:#?}\n{err}"
        );
        let (code, _, en) = cli(args, &[]);
        assert_eq!(code, 2, "{args:?}: {en}");
        for f in *en_facts {
            assert!(
                en.contains(f),
                "{args:?}: no {f:?} in clap's English:\n{en}"
            );
        }
    }
}

/// A project file the TOML parser refuses is a located configuration error in both languages: every
/// family of the parser's messages (toml 1.2 / toml_parser 1.1 / toml_datetime 1.1: strings, escapes,
/// arrays, tables, keys, numbers, dates, comments, dotted keys) and serde's (unknown field and variant with
/// their lists of names, wrong type, out of range) read whole in Chinese, lists with `、` and `或`
/// (`diag::foreign`); the location is the same and the parser's picture of the line is kept as drawn
/// (`config::invalid_toml`).
#[test]
fn a_bad_project_file_is_explained_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("gentable.toml");
    let head = "[project]\nname = \"Bad\"\n";
    // (the rest of the file after `head`, its line, column, English message, Chinese message)
    let cases: &[(&str, usize, usize, &str, &str)] = &[
        ("[limits]\nsheet_cels = 5\n", 4, 1,
         "unknown field `sheet_cels`, expected one of `nesting_depth`, `cell_bytes`, `file_bytes`, `workbook_inflated_bytes`, `sheet_cells`",
         "未知字段 `sheet_cels`，应为以下之一：`nesting_depth`、`cell_bytes`、`file_bytes`、`workbook_inflated_bytes`、`sheet_cells`"),
        ("[limits]\nnesting_depth = \"x\"\n", 4, 17,
         "invalid type: string \"x\", expected usize", "类型不对：字符串 \"x\"，应为非负整数"),
        ("[limits]\nnesting_depth = -1\n", 4, 17,
         "invalid value: integer `-1`, expected usize", "值不对：整数 `-1`，应为非负整数"),
        ("[csharp]\ndata = [\"yaml\"]\n", 4, 9,
         "unknown variant `yaml`, expected `json` or `binary`", "未知的取值 `yaml`，应为 `json` 或 `binary`"),
        ("[rust]\ncrate_name = 5\n", 4, 14,
         "invalid type: integer `5`, expected a string", "类型不对：整数 `5`，应为字符串"),
        ("[[tables]]\n", 3, 1,
         "invalid type: sequence, expected a map", "类型不对：数组，应为表"),
        ("tables = [\"Table\"\n", 3, 18,
         "unclosed array, expected `]`", "数组没有闭合，应为 `]`"),
        ("tables = [\"A\" \"B\"]\n", 3, 15,
         "missing comma between array elements, expected `,`", "数组元素之间缺少逗号，应为 `,`"),
        ("tables = [\"A\",,]\n", 3, 15,
         "extra comma in array, expected value", "数组中多了逗号，应为值"),
        ("schemas = \"schema\n", 3, 18,
         "invalid basic string, expected `\"`", "基本字符串无效，应为 `\"`"),
        ("schemas = \"sch\\qema\"\n", 3, 16,
         "missing escaped value, expected `b`, `e`, `f`, `n`, `r`, `\\`, `\"`, `x`, `u`, `U`",
         "缺少转义字符，应为 `b`、`e`、`f`、`n`、`r`、`\\`、`\"`、`x`、`u` 或 `U`"),
        ("schemas = schema\n", 3, 11,
         "string values must be quoted, expected literal string", "字符串值必须加引号，应为字面量字符串"),
        ("name = \"Again\"\n", 3, 1, "duplicate key", "键重复"),
        ("[rust\n", 3, 6, "unclosed table, expected `]`", "表头没有闭合，应为 `]`"),
        ("schemas \"schema\"\n", 3, 9, "key with no value, expected `=`", "键没有值，应为 `=`"),
        ("[limits]\nnesting_depth = 012\n", 4, 17,
         "unexpected leading zero, expected nothing", "不允许有前导零，此处不应再有内容"),
        ("[limits]\nnesting_depth = 1__2\n", 4, 18,
         "`_` may only go between digits, expected nothing", "`_` 只能写在数字之间，此处不应再有内容"),
        ("[limits]\nnesting_depth = 0X12\n", 4, 17,
         "radix must be lowercase, expected `0x`", "进制前缀必须小写，应为 `0x`"),
        ("when = 1979-05-27T25:00:00\n", 3, 8,
         "invalid time, expected hour between 00 and 23", "时间无效，应为 00 到 23 之间的小时"),
        ("x = {a = 1,,}\n", 3, 12, "extra comma in inline table, expected key", "内联表中多了逗号，应为键"),
        ("x = 1\nx.y = 2\n", 4, 1,
         "cannot extend value of type integer with a dotted key", "不能用带点的键扩展整数类型的值"),
        ("x = tru\n", 3, 5, "invalid boolean, expected `true`", "布尔值无效，应为 `true`"),
        ("= 1\n", 3, 1,
         "unquoted keys cannot be empty, expected letters, numbers, `-`, `_`",
         "不加引号的键不能为空，应为字母、数字、`-` 或 `_`"),
    ];
    for (rest, line, column, en, zh) in cases {
        let text = format!("{head}{rest}");
        std::fs::write(&toml, &text).unwrap();
        let shown = text.lines().nth(line - 1).unwrap();
        for (lang, msg, lead) in [
            (
                "en",
                en,
                format!(
                    "error: {}: invalid project file at line {line}, column {column}: ",
                    toml.display()
                ),
            ),
            (
                "zh",
                zh,
                format!(
                    "错误：{}：项目文件第 {line} 行第 {column} 列有误：",
                    toml.display()
                ),
            ),
        ] {
            let (code, _, err) = cli(
                &["check", "--lang", lang, "-c", toml.to_str().unwrap()],
                &[],
            );
            assert_eq!(code, 2, "{err}");
            let lines: Vec<&str> = err.lines().collect();
            let want = format!("{lead}{msg}");
            assert_eq!(
                lines.first().copied(),
                Some(want.as_str()),
                "{rest:?} in {lang}:\n{err}"
            );
            // The parser's picture of the line, as drawn.
            assert_eq!(
                lines.get(2).copied(),
                Some(format!("{line} | {shown}").as_str()),
                "{err}"
            );
        }
    }
}

/// The project file's own checks (src/config.rs) in Chinese: each one whole, never the English text.
#[test]
fn project_file_checks_read_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("gentable.toml");
    for (extra, zh) in [
        (
            "[rust]\ncrate_name = \"bad-name!\"",
            "[rust] crate_name 必须是 snake_case 的 ASCII 名称，实际为 \"bad-name!\"",
        ),
        (
            "[tables.U]\nencoding = \"klingon\"",
            "[tables.U] 的编码 \"klingon\" 无法识别",
        ),
        ("[tables.U]\nheader_row = 0", "[tables.U] 的行号从 1 开始"),
        (
            "[tables.U]\nheader_row = 1\nheader_marker = \"##\"",
            "[tables.U] 的 header_row 与 header_marker 不能同时使用",
        ),
    ] {
        std::fs::write(
            &toml,
            format!(
                "[project]\nname = \"Z\"\ntables = [\"Table\"]\nschemas = \"schema\"\n{extra}\n"
            ),
        )
        .unwrap();
        let (code, _, err) = cli(
            &["check", "--lang", "zh", "-c", toml.to_str().unwrap()],
            &[],
        );
        assert_eq!(code, 2, "{err}");
        let want = format!("错误：{}：{zh}", toml.display());
        assert_eq!(err.lines().next(), Some(want.as_str()), "{err}");
    }
}

/// The sweep of the command line's error paths in Chinese (issue 17 item 4): every subcommand is run with
/// `--lang zh` on what goes wrong in practice — bad flags, missing files, a project file the parser or
/// the checks refuse, table and schema folders that are not there, a bad cell, `explain` of an unknown
/// code, `diff` with a bad revision or folder, `textconv` of files that are no workbooks, `import luban`
/// of a missing and of a broken conf, `infer` of a missing file, `init` over a project, `report` and
/// `watch` with a bad project file — and fails for every English word of three letters or more in what
/// it prints, outside code, paths, identifiers and values (`common::zh::english_words`, whose allow-list
/// is only those shapes, the names of formats and tools, the command names, and the names this test's
/// own project holds).
#[test]
fn every_error_path_of_the_command_line_reads_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = |p: &Path| p.display().to_string();
    let good = d.join("good");
    assert_eq!(cli(&["init", &s(&good)], &[]).0, 0);
    let good_toml = s(&good.join("gentable.toml"));
    // Projects that go wrong in one way each.
    let project = |name: &str, toml: &str, csv: Option<&str>| -> String {
        let p = d.join(name);
        common::copy_dir(&good, &p);
        if !toml.is_empty() {
            std::fs::write(p.join("gentable.toml"), toml).unwrap();
        }
        if let Some(c) = csv {
            std::fs::write(p.join("Table/Item.csv"), c).unwrap();
        }
        s(&p.join("gentable.toml"))
    };
    let syntax = project(
        "syntax",
        "[project]\nname = \"P\"\ntables = [\"Table\"\nschemas = \"schema\"\n",
        None,
    );
    let field = project("field", "[project]\nname = \"P\"\ntables = [\"Table\"]\nschemas = \"schema\"\n[csharp]\ndata = [\"yaml\"]\n", None);
    let no_tables = project(
        "no_tables",
        "[project]\nname = \"P\"\ntables = [\"Tabel\"]\nschemas = \"schema\"\n",
        None,
    );
    let no_schemas = project(
        "no_schemas",
        "[project]\nname = \"P\"\ntables = [\"Table\"]\nschemas = \"schemata\"\n",
        None,
    );
    let bad_cell = project(
        "bad_cell",
        "",
        Some("Id,Name,Price,Tradable\n1,Sword,１２０,true\n1,Shield,abc,maybe\n"),
    );
    let missing = s(&d.join("nowhere/gentable.toml"));
    let fake_xlsx = d.join("fake.xlsx");
    std::fs::write(&fake_xlsx, "not a workbook").unwrap();
    // A workbook with a table, a comment sheet and an empty sheet, for `infer --sheet`.
    let sheets_xlsx = d.join("sheets.xlsx");
    {
        let mut wb = rust_xlsxwriter::Workbook::new();
        let ws = wb.add_worksheet().set_name("Unit").unwrap();
        ws.write_string(0, 0, "Id").unwrap();
        ws.write_number(1, 0, 1).unwrap();
        let ws = wb.add_worksheet().set_name("#Notes").unwrap();
        ws.write_string(0, 0, "x").unwrap();
        wb.add_worksheet().set_name("Sheet2").unwrap();
        wb.save(&sheets_xlsx).unwrap();
    }
    let fake_ods = d.join("fake.ods");
    std::fs::write(&fake_ods, "not a workbook").unwrap();
    let fake_xls = d.join("fake.xls");
    std::fs::write(&fake_xls, "not a workbook").unwrap();
    let bad_conf = d.join("luban.conf");
    std::fs::write(&bad_conf, "<not json").unwrap();
    // A git repository for `diff` with a bad revision.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&good)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let has_git = git(&["init", "-q"]) && git(&["add", "."]) && git(&["commit", "-qm", "tables"]);
    let runs: Vec<Vec<String>> = [
        vec!["build", "--no-such-flag"],
        vec!["check", "-c"],
        vec!["check", "-c", &missing],
        vec!["build", "-c", &missing],
        vec!["check", "-c", &syntax],
        vec!["build", "-c", &field],
        vec!["check", "-c", &no_tables],
        vec!["build", "-c", &no_schemas],
        vec!["build", "-c", &bad_cell],
        vec!["build", "--check", "-c", &good_toml],
        vec!["explain", "GT9999"],
        vec!["explain", "nonsense"],
        vec!["diff", "no-such-revision", "-c", &good_toml],
        vec!["diff", &s(&d.join("no_such_folder")), "-c", &good_toml],
        vec!["diff", "HEAD", "-c", &syntax],
        vec!["textconv", &s(&d.join("missing.xlsx"))],
        vec!["textconv", &s(&fake_xlsx)],
        vec!["textconv", &s(&fake_ods)],
        vec!["textconv", &s(&fake_xls)],
        vec![
            "import",
            "luban",
            &s(&d.join("missing.conf")),
            "--out",
            &s(&d.join("out")),
        ],
        vec![
            "import",
            "luban",
            &s(&bad_conf),
            "--out",
            &s(&d.join("out")),
        ],
        vec!["infer", &s(&d.join("missing.csv"))],
        vec!["infer", &s(&fake_xlsx)],
        vec!["infer", &s(&sheets_xlsx), "--sheet", "#Notes"],
        vec!["infer", &s(&sheets_xlsx), "--sheet", "Sheet2"],
        vec!["infer", &s(&sheets_xlsx), "--sheet", "Nope"],
        vec!["init", &s(&good)],
        vec!["report", "-c", &missing],
        vec!["report", "-c", &syntax],
        // A folder nobody can write (the tempfile crate's error: `… at path "…"`).
        vec!["report", "-c", &good_toml, "-o", "/proc/gentable-sweep"],
    ]
    .iter()
    .map(|r| r.iter().map(|a| a.to_string()).collect())
    .collect();
    // The words of this test's own project and values (names a designer gave, cells they typed).
    let mut names: Vec<&str> = vec![
        "Item", "Id", "Name", "Price", "Tradable", "Sword", "Shield", "Potion", "abc", "maybe",
        "yaml", "json", "binary", "Tabel", "schemata", "Table", "nonsense", "true", "false", "P",
        "Project",
    ];
    names.extend(common::zh::COMMANDS);
    let mut problems = vec![];
    let mut check = |args: &[String], out: &str, err: &str| {
        for w in common::zh::english_words(&format!("{out}\n{err}"), &names) {
            problems.push(format!("gentable --lang zh {}: {w}", args.join(" ")));
        }
    };
    for args in &runs {
        if !has_git && args[0] == "diff" && args[1] == "no-such-revision" {
            continue;
        }
        let mut a = vec!["--lang", "zh"];
        a.extend(args.iter().map(String::as_str));
        let (code, out, err) = cli(&a, &[]);
        assert_ne!(code, 0, "{args:?} is an error path:\n{out}{err}");
        assert!(
            has_cjk(&err),
            "{args:?} said nothing in Chinese:\n{out}{err}"
        );
        check(args, &out, &err);
    }
    // `watch` with a bad project file keeps running and says so: read until it waits, then stop it.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["--lang", "zh", "watch", "--no-clear", "-c", &syntax])
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut log = String::new();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < until {
        match rx.recv_timeout(std::time::Duration::from_millis(200)) {
            Ok(l) => {
                let waiting = l.contains("Ctrl-C");
                log.push_str(&l);
                log.push('\n');
                if waiting {
                    break;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        log.contains("Ctrl-C") && log.contains("项目文件第 4 行"),
        "{log}"
    );
    check(&["watch".to_string()], "", &log);
    // The sweep can fail: the same runs in English are full of English words.
    let (_, _, en) = cli(&["check", "-c", &syntax], &[]);
    assert!(!common::zh::english_words(&en, &names).is_empty(), "{en}");
    assert!(
        problems.is_empty(),
        "English left in Chinese output:\n{}",
        problems.join("\n")
    );
}
