//! Whether what gentable says in Simplified Chinese is Chinese (issue 17 item 4, docs/diagnostics.md
//! "Languages"): shared by `tests/messages.rs` (its corpora and the fuzz regressions) and
//! `tests/hardening.rs` (every attack's diagnostics).

use gentable::diag::lang::{has_cjk, is_prose, translate_checked};
use std::path::Path;
use std::process::Command;

/// What is wrong with the Chinese `zh` gentable printed for its English text `en` (a message or a help),
/// or `None`: the Chinese is not the English left as it was, has no English prose outside quotes
/// ([`is_prose`]: two lower-case English words in a row), no English list joiner ([`english_joiner`]),
/// and the English copies no other library's English that the catalog does not know
/// ([`translate_checked`]'s `foreign`).
pub fn problem(en: &str, zh: &str) -> Option<String> {
    if let Some(t) = translate_checked(en).filter(|t| !t.foreign.is_empty()) {
        return Some(format!(
            "English of another library copied: {:?}",
            t.foreign
        ));
    }
    if zh == en && has_latin_words(en) {
        return Some("printed in English".into());
    }
    if !has_cjk(zh) && has_latin_words(zh) {
        return Some(format!("the Chinese has no Chinese: {zh:?}"));
    }
    if is_prose(zh) {
        return Some(format!("English prose left in {zh:?}"));
    }
    english_joiner(zh).map(|j| format!("English list joiner {j:?} left in {zh:?}"))
}

/// What is wrong with the templates for the English `en` alone (a golden English text, translated in this
/// process): no template matches it whole, or it copies another library's English, or its translation has
/// no Chinese.
pub fn template_problem(en: &str) -> Option<String> {
    match translate_checked(en) {
        None => Some("no template matches whole".into()),
        Some(t) if !t.foreign.is_empty() => Some(format!(
            "English of another library copied: {:?}",
            t.foreign
        )),
        Some(t) if !has_cjk(&t.text) && has_latin_words(&t.text) => {
            Some(format!("the translation has no Chinese: {:?}", t.text))
        }
        Some(_) => None,
    }
}

/// Whether `s` has an English word of three letters or more outside quotes (a translation that is only
/// copied data, like `"Name"`, has none).
pub fn has_latin_words(s: &str) -> bool {
    s.split('"')
        .step_by(2)
        .flat_map(|p| p.split(|c: char| !c.is_ascii_alphabetic()))
        .any(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_lowercase()))
}

/// An English list joiner left in a Chinese text outside double quotes, backticks and brackets (a cell's,
/// a schema's or a formula's own text, a coordinate `(x, y)`, a composite key `(Side, Slot)`): ` or `, ` and `, or `, ` between two items.
pub fn english_joiner(zh: &str) -> Option<&'static str> {
    let mut outside = String::with_capacity(zh.len());
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    for ch in zh.chars() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if ch == '"' || ch == '`' => {
                quote = Some(ch);
                outside.push('\u{1}');
            }
            None if matches!(ch, '(' | '[' | '{' | '（') => depth += 1,
            None if matches!(ch, ')' | ']' | '}' | '）') => depth = depth.saturating_sub(1),
            None if depth > 0 => {}
            None => outside.push(ch),
        }
    }
    // A backslash before a comma is the cell grammar's escape (`\\,`), not a list.
    [" or ", " and ", ", "].into_iter().find(|j| {
        outside
            .match_indices(j)
            .any(|(i, _)| !outside[..i].ends_with('\\'))
    })
}

/// The diagnostics (JSON objects) of a `--message-format json` output.
pub fn parse(lines: &str, origin: &str) -> Vec<serde_json::Value> {
    lines
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{origin}: {e}: {l}")))
        .collect()
}

/// `gentable <args> --message-format json -q --lang <lang> -c <toml>` (no locale variables): its diagnostics
/// and its standard error.
pub fn check_json(toml: &Path, args: &[&str], lang: &str) -> (Vec<serde_json::Value>, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gentable"));
    c.args(args)
        .args(["--message-format", "json", "-q", "--lang", lang, "-c"])
        .arg(toml)
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES");
    let out = c.output().expect("run gentable");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (parse(&err, &toml.display().to_string()), err)
}

/// Every problem of project `toml`'s diagnostics in Chinese: `gentable check` is run in English and in
/// Chinese (JSON lines, the same diagnostics in the same order), and each message and help is checked
/// ([`problem`]); a rule's own `message` (GT0310/GT0311, written by the schema's author) is not gentable's.
/// A run that ends before any diagnostic (a configuration error) has its first standard-error line checked
/// instead: it must be Chinese. `origin` names the project in the problems.
pub fn problems_of(toml: &Path, origin: &str) -> (usize, Vec<String>) {
    let (en, en_err) = check_json(toml, &["check", "--no-cache"], "en");
    let (zh, zh_err) = check_json(toml, &["check", "--no-cache"], "zh");
    let mut out = vec![];
    assert_eq!(
        en.len(),
        zh.len(),
        "{origin}: the English and Chinese runs report different diagnostics:\n{en_err}\n{zh_err}"
    );
    if en.is_empty() {
        let first = |s: &str| s.lines().next().unwrap_or("").to_string();
        let (e, z) = (first(&en_err), first(&zh_err));
        if !e.is_empty() && !z.contains("gentable：") && (z == e || !has_cjk(&z)) {
            out.push(format!("standard error in English: {z:?}\n    in {origin}"));
        }
        return (0, out);
    }
    for (e, z) in en.iter().zip(&zh) {
        let code = e["code"].as_str().unwrap_or("?");
        assert_eq!(
            e["code"], z["code"],
            "{origin}: diagnostics in another order"
        );
        for key in ["message", "help"] {
            let (Some(en_text), Some(zh_text)) = (e[key].as_str(), z[key].as_str()) else {
                continue;
            };
            if key == "message" && matches!(code, "GT0310" | "GT0311") {
                continue;
            }
            if let Some(p) = problem(en_text, zh_text) {
                out.push(format!("{code} {key} ({p}): {en_text:?}\n    in {origin}"));
            }
        }
    }
    (en.len(), out)
}

/// The English words (three ASCII letters or more) of a text gentable printed in Chinese that are not
/// code, paths, identifiers or values, for the sweeps of `tests/messages.rs`; `names` are the words the
/// caller's own input holds (a table's or a field's name, a cell's text) and the names of the tools and
/// formats a Chinese sentence writes in Latin letters ([`LATIN_NAMES`]).
///
/// Not counted: what stands in quotes (`'…'`, `"…"`, `` `…` ``, `「…」`, `“…”`: a flag, a value, a cell's
/// text); the parser's picture of a line (`4 | name = …`, `  |   ^`); and a token (a run without spaces or
/// Chinese) that is a flag (`-c`, `--lang`), a path or a file name (`/`, `\`, a dot between letters:
/// `gentable.toml`, `a.b`), an identifier with `_`, a digit or an inner capital (`sheet_cells`, `GT0302`,
/// `PieceType`), a `key=value` or a `<placeholder>`. Every other word counts, capitalised or not: `Usage`,
/// `error`, `invalid` and `OFFSET` all do.
pub fn english_words(text: &str, names: &[&str]) -> Vec<String> {
    let mut found = vec![];
    for line in text.lines() {
        let t = line.trim_start();
        // The TOML parser's picture of the user's line: `4 | text`, `  |`, `  |     ^^^`.
        if t.starts_with('|')
            || t.split_once(" | ")
                .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
        {
            continue;
        }
        let mut outside = String::with_capacity(line.len());
        let mut close: Option<char> = None;
        let mut prev = ' ';
        for ch in line.chars() {
            match close {
                Some(c) if ch == c => {
                    close = None;
                    outside.push(' ');
                }
                Some(_) => {}
                // An apostrophe inside a word (`clap's`) opens no quote.
                None if ch == '\'' && prev.is_ascii_alphanumeric() => outside.push(ch),
                None => match ch {
                    '\'' | '"' | '`' => close = Some(ch),
                    '「' => close = Some('」'),
                    '“' => close = Some('”'),
                    '<' => close = Some('>'),
                    c => outside.push(c),
                },
            }
            prev = ch;
        }
        let tokens = outside.split(|c: char| c.is_whitespace() || !c.is_ascii());
        for tok in tokens {
            let tok = tok.trim_matches(|c: char| ",;:!?()[]{}".contains(c));
            let letters = |c: char| c.is_ascii_alphabetic();
            if tok.is_empty()
                || tok.starts_with('-')
                || tok.contains([
                    '/', '\\', '_', '=', '@', '#', '$', '%', '&', '+', '*', '~', '|',
                ])
                || tok.chars().any(|c| c.is_ascii_digit())
                || tok.char_indices().any(|(i, c)| {
                    c == '.' && tok[..i].ends_with(letters) && tok[i + 1..].starts_with(letters)
                })
                || tok.chars().skip(1).any(|c| c.is_ascii_uppercase())
                    && tok.chars().any(|c| c.is_ascii_lowercase())
            {
                continue;
            }
            for w in tok.split(|c: char| !c.is_ascii_alphabetic()) {
                if w.len() >= 3 && !names.contains(&w) && !LATIN_NAMES.contains(&w) {
                    found.push(format!("{w:?} in {line:?}"));
                }
            }
        }
    }
    found
}

/// Names a Chinese sentence writes in Latin letters: tools, languages, formats and standards
/// ([`english_words`]).
pub const LATIN_NAMES: &[&str] = &[
    "gentable",
    "Rust",
    "TypeScript",
    "JSON",
    "Schema",
    "CSV",
    "Excel",
    "TOML",
    "HTML",
    "SVG",
    "SARIF",
    "Luban",
    "Unicode",
    "UTF",
    "BOM",
    "NFC",
    "ASCII",
    "HEAD",
    "git",
    "clap",
    "ODS",
    "XLSX",
    "XLS",
    "XLSB",
    "Markdown",
    "Ctrl",
    "GitHub",
    "CEL",
    "RFC",
    "JCS",
    "BLAKE",
    "YYYY",
    "MM",
    "DD",
    "HH",
    "SS",
    "ZIP",
    "EOCD",
    "CFB",
    "OLE",
    "Office",
];

/// gentable's command names, typed as they are in every language (`gentable build`, `import luban`).
pub const COMMANDS: &[&str] = &[
    "build", "check", "config", "schema", "explain", "diff", "report", "textconv", "watch",
    "import", "luban", "init", "infer", "help",
];
