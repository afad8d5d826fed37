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
    // A usage error: explained in Chinese, then clap's English (which names the closest flag).
    let (code, _, err) = cli(&["--lang", "zh", "build", "--chek"], &[]);
    assert_eq!(code, 2);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with("错误：不认识的参数 --chek") && first.contains("--check"),
        "{err}"
    );
    assert!(err.contains("unexpected argument '--chek' found"), "{err}");
    let (code, _, err) = cli(&["build", "--chek"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: unexpected argument '--chek' found"),
        "{err}"
    );
}

/// A project file the TOML parser refuses is a located configuration error in both languages: the
/// parser's message translated where the catalog knows it (serde's "unknown field", "invalid type"), its
/// picture of the line kept as drawn (`config::invalid_toml`).
#[test]
fn a_bad_project_file_is_explained_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("gentable.toml");
    for (line, en, zh) in [
        (
            "sheet_cels = 5",
            "error: gentable.toml: invalid project file at line 4, column 1: unknown field `sheet_cels`, expected one of `nesting_depth`, `cell_bytes`, `file_bytes`, `workbook_inflated_bytes`, `sheet_cells`",
            "错误：gentable.toml：项目文件第 4 行第 1 列有误：未知字段 `sheet_cels`，应为以下之一：`nesting_depth`, `cell_bytes`, `file_bytes`, `workbook_inflated_bytes`, `sheet_cells`",
        ),
        (
            "nesting_depth = \"x\"",
            "error: gentable.toml: invalid project file at line 4, column 17: invalid type: string \"x\", expected usize",
            "错误：gentable.toml：项目文件第 4 行第 17 列有误：类型不对：字符串 \"x\"，应为非负整数",
        ),
    ] {
        std::fs::write(&toml, format!("[project]\nname = \"Bad\"\n[limits]\n{line}\n")).unwrap();
        for (lang, want) in [("en", en), ("zh", zh)] {
            let (code, _, err) = cli(&["check", "--lang", lang, "-c", toml.to_str().unwrap()], &[]);
            assert_eq!(code, 2, "{err}");
            let lines: Vec<&str> = err.lines().collect();
            let want = want.replacen("gentable.toml", &toml.display().to_string(), 1);
            assert_eq!(lines.first().copied(), Some(want.as_str()), "{err}");
            // The parser's picture of the line, as drawn.
            assert_eq!(lines.get(2).copied(), Some(format!("4 | {line}").as_str()), "{err}");
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
