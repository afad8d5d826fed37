//! The language of messages: English (the default) or Simplified Chinese (`--lang zh`, or a `LC_ALL` /
//! `LC_MESSAGES` / `LANG` locale starting with `zh`).
//!
//! Diagnostics are built in English everywhere (that text is also what tests and the JSON of an English
//! run see); the Chinese text is looked up at the edge, when a diagnostic is rendered, from the catalog in
//! `src/diag/zh.rs`:
//!
//! * every [`Code`] has a Chinese title and explanation ([`title`], [`explanation`]: `gentable explain`);
//! * a message or help is matched against the catalog's English templates ([`translate`]): `{}` stands for
//!   a part copied as it is (a cell's text, a table name, a number — never English prose, [`is_prose`]),
//!   `{w}` for a copied part without spaces (a path, a JSON pointer: `{w} allows {t}` cannot swallow a list),
//!   `{t}` for a part that is itself translated (an inner message, a type in words such as "an integer"),
//!   `{e}` for another library's text (an operating-system or JSON parser error: translated when a template
//!   matches it, else copied), `{m}` for the TOML parser's message about a bad `gentable.toml` (translated
//!   by its structure, [`super::foreign`], or by a serde template; else a Chinese lead-in before the
//!   original words, for a text a later parser version adds); the Chinese template names the parts `{0}`, `{1}`, … in its own order. The
//!   most specific template (most literal text) that matches *whole* wins. A message no template matches
//!   whole stays all English — never half Chinese — and `tests/messages.rs` fails for every message of the
//!   test corpora (diagnostic cases, fidelity suite, torture set, examples, real data) that has none;
//! * the frame words of the renderers ([`Words`]) and of the designer tools' output (`diff`, `report`,
//!   `watch`, `import`: [`Words`] and templates of the same catalog).
//!
//! Adding a diagnostic: give its code a line in `zh::CODES` (a test fails for a code without one) and its
//! message and help a template in `zh::MESSAGES` (docs/diagnostics.md "Languages").

pub use super::words::Words;
use super::words::EN;
use super::Code;
use regex::{Regex, RegexSet};
use std::sync::OnceLock;

/// The language messages are printed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English, the language diagnostics are written in.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

impl Lang {
    /// `zh`, `zh-CN`, `zh_CN.UTF-8`, `zh-Hans` → Chinese; `en`, `C`, `POSIX`, `en_US.UTF-8` → English;
    /// anything else is `None`.
    pub fn parse(s: &str) -> Option<Lang> {
        let l = s.trim().to_ascii_lowercase();
        let base = l.split(['_', '-', '.', '@']).next().unwrap_or("");
        match base {
            "zh" => Some(Lang::Zh),
            "en" | "c" | "posix" => Some(Lang::En),
            _ => None,
        }
    }

    /// The language of the POSIX locale variables as `getenv` would give them: the first set and non-empty
    /// of `LC_ALL`, `LC_MESSAGES`, `LANG` decides; Chinese when it starts with `zh`, else English (so CI
    /// logs are English unless a locale says otherwise).
    pub fn from_locale(var: impl Fn(&str) -> Option<String>) -> Lang {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|k| var(k).filter(|v| !v.is_empty()))
            .and_then(|v| Lang::parse(&v))
            .unwrap_or(Lang::En)
    }

    /// [`Lang::from_locale`] of this process's environment.
    pub fn from_env() -> Lang {
        Lang::from_locale(|k| std::env::var(k).ok())
    }

    /// The frame words of the renderers in this language.
    pub fn words(self) -> &'static Words {
        match self {
            Lang::En => &EN,
            Lang::Zh => &super::zh::WORDS,
        }
    }
}

/// `N errors, M warnings` in `lang` (English with singulars).
pub fn counts(lang: Lang, errors: usize, warnings: usize) -> String {
    match lang {
        Lang::En => {
            let e = if errors == 1 {
                "1 error".to_string()
            } else {
                format!("{errors} errors")
            };
            let w = if warnings == 1 {
                "1 warning".to_string()
            } else {
                format!("{warnings} warnings")
            };
            format!("{e}, {w}")
        }
        Lang::Zh => format!("{errors} 个错误，{warnings} 个警告"),
    }
}

/// The English plural ending for a count: `""` for 1, else `"s"` (`1 table`, `2 tables`, `0 tables`). Templates
/// write it as a part (`{} table{}`), which the Chinese line leaves out.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The code's title in `lang` ("wrong type", "类型不符").
pub fn title(code: Code, lang: Lang) -> &'static str {
    match lang {
        Lang::En => code.title(),
        Lang::Zh => zh_code(code).map(|c| c.1).unwrap_or(code.title()),
    }
}

/// The code's explanation in `lang` (what `gentable explain` prints).
pub fn explanation(code: Code, lang: Lang) -> &'static str {
    match lang {
        Lang::En => code.explanation(),
        Lang::Zh => zh_code(code).map(|c| c.2).unwrap_or(code.explanation()),
    }
}

/// The catalog line of `code` (code, title, explanation), if it has one.
pub fn zh_code(code: Code) -> Option<&'static (Code, &'static str, &'static str)> {
    super::zh::CODES.iter().find(|c| c.0 == code)
}

/// `text` (a message, a help, a summary line) in `lang`: itself in English; in Chinese the catalog's
/// translation when a template matches the whole text ([`translate`]), else the whole English text — never
/// a mix of the two.
pub fn message(text: &str, lang: Lang) -> String {
    match lang {
        Lang::En => text.to_string(),
        Lang::Zh => translate(text).unwrap_or_else(|| text.to_string()),
    }
}

/// A list ([`super::list`]) of English words of the catalog (`an integer`, `case`), joined by `joiner`:
/// the English text, whose Chinese form joins the words' translations ([`message`]; a word the catalog
/// lacks stays English).
pub fn word_list<T: std::fmt::Display>(
    joiner: super::list::Joiner,
    items: impl IntoIterator<Item = T>,
) -> String {
    items
        .into_iter()
        .fold(super::list::List::new(joiner), |list, w| {
            let w = w.to_string();
            let zh = message(&w, Lang::Zh);
            list.item_in(w, zh)
        })
        .text()
}

/// What a template's part is (module docs): copied (`{}`), translated (`{t}`) or another library's text
/// (`{e}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Copied,
    Translated,
    Foreign,
    Parser,
}

/// A line or a label of a designer tool's output — the frame of `gentable diff`, `report`, `watch` and
/// `import`, and the command line's own errors — in `lang`. `en` is its English with a `{}` for each of
/// `parts`, in order; the Chinese is the line of `zh::FRAMES` keyed by `en` exactly (no matching), whose
/// `{0}`, `{1}`, … name the parts in its own order (it may leave out one, such as an English plural `s`).
/// A key without a Chinese line prints English; `tests/messages.rs` reads every `frame(` call of the
/// source and fails for a key `zh::FRAMES` lacks.
pub fn frame(lang: Lang, en: &str, parts: &[&dyn std::fmt::Display]) -> String {
    let parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    if lang == Lang::Zh {
        if let Some(zh) = frame_zh(en) {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| super::list::chinese(p).unwrap_or_else(|| p.clone()))
                .collect();
            return fill(zh, &parts);
        }
    }
    let mut out = String::with_capacity(en.len() + 16);
    let mut rest = en;
    let mut next = parts.iter();
    while let Some(i) = rest.find("{}") {
        out.push_str(&rest[..i]);
        out.push_str(next.next().map(String::as_str).unwrap_or("{}"));
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    out
}

/// The Chinese line of `zh::FRAMES` for the English key `en`, if there is one.
pub fn frame_zh(en: &str) -> Option<&'static str> {
    static M: OnceLock<std::collections::HashMap<&'static str, &'static str>> = OnceLock::new();
    M.get_or_init(|| super::zh::FRAMES.iter().copied().collect())
        .get(en)
        .copied()
}

/// One compiled template: its pattern, its parts, its Chinese form and its weight (the number of literal
/// characters, the most specific wins).
struct Template {
    re: Regex,
    parts: Vec<Part>,
    zh: &'static str,
    weight: usize,
}

struct Catalog {
    set: RegexSet,
    templates: Vec<Template>,
}

/// The pattern of an English template (see the module docs): its regex, its parts and its weight.
fn pattern(en: &str) -> (String, Vec<Part>, usize) {
    let mut re = String::from("(?s)^");
    let mut parts = vec![];
    let mut weight = 0;
    let mut rest = en;
    loop {
        let next = [
            ("{}", Part::Copied, "(.+?)"),
            ("{w}", Part::Copied, r"(\S+?)"),
            ("{t}", Part::Translated, "(.+?)"),
            ("{e}", Part::Foreign, "(.+?)"),
            ("{m}", Part::Parser, "(.+?)"),
        ]
        .iter()
        .filter_map(|(p, t, g)| rest.find(p).map(|i| (i, p.len(), *t, *g)))
        .min_by_key(|(i, _, _, _)| *i);
        match next {
            Some((i, len, t, group)) => {
                re.push_str(&regex::escape(&rest[..i]));
                weight += rest[..i].chars().count();
                re.push_str(group);
                parts.push(t);
                rest = &rest[i + len..];
            }
            None => {
                re.push_str(&regex::escape(rest));
                weight += rest.chars().count();
                break;
            }
        }
    }
    re.push('$');
    (re, parts, weight)
}

fn catalog() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| {
        let mut pats = vec![];
        let mut templates = vec![];
        for (en, zh) in super::zh::MESSAGES {
            let (p, parts, weight) = pattern(en);
            templates.push(Template {
                re: Regex::new(&p).expect("catalog templates are valid patterns"),
                parts,
                zh,
                weight,
            });
            pats.push(p);
        }
        Catalog {
            set: RegexSet::new(&pats).expect("catalog templates are valid patterns"),
            templates,
        }
    })
}

/// Whether a message's format string fits the catalog, as a source scan asks (`tests/messages.rs`): in
/// `shape` every argument, whose value the scan cannot know, is the character U+0001; a template fits when
/// its literal text matches and each of its parts is an argument (or several), or — a translated part —
/// fits itself, or — a copied part — holds no English prose besides the arguments. So `{}: {t}` fits
/// `\u{1}: [limits] \u{1} must be at least 1` only if some template fits the part after the colon.
pub fn fits(shape: &str) -> bool {
    translate_in(shape, 0, &mut vec![], true).is_some()
}

/// Whether `fragment` — a piece of a message written apart from the rest (` (did you mean {c}?)`, `row {a}
/// is hidden`), its `{…}` arguments standing for any part — is literal text of some template's English or
/// of a frame line: the source scan of `tests/messages.rs` accepts a piece its whole message's template
/// covers.
pub fn covers(fragment: &str) -> bool {
    static T: OnceLock<Vec<String>> = OnceLock::new();
    let args = |s: &str| -> String {
        let mut out = String::with_capacity(s.len());
        let mut depth = 0;
        for c in s.chars() {
            match c {
                '{' => {
                    if depth == 0 {
                        out.push_str("{}");
                    }
                    depth += 1;
                }
                '}' if depth > 0 => depth -= 1,
                c if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out
    };
    let all = T.get_or_init(|| {
        super::zh::MESSAGES
            .iter()
            .map(|(en, _)| *en)
            .chain(super::zh::FRAMES.iter().map(|(en, _)| *en))
            .map(args)
            .collect()
    });
    let f = args(fragment);
    let f = f.trim();
    !f.is_empty() && all.iter().any(|t| t.contains(f))
}

/// A whole translation of an English text ([`translate_checked`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translation {
    /// The Chinese text.
    pub text: String,
    /// The parts of other libraries' text (`{e}`: an operating-system or JSON parser error) that no
    /// template matched and were copied in English; empty when every word is Chinese or copied data.
    pub foreign: Vec<String>,
}

/// The Chinese of an English `text` by the catalog's templates, or `None` when no template matches it
/// whole. A template matches whole when its literal text matches, every translated part (`{t}`) is itself
/// translated whole, and no copied part (`{}`) is English prose ([`is_prose`]): so a text is either all
/// Chinese (with copied cell texts, names and numbers) or, with `None`, left all English by [`message`].
pub fn translate(text: &str) -> Option<String> {
    translate_checked(text).map(|t| t.text)
}

/// [`translate`] with what it copied of other libraries' English ([`Translation::foreign`]); the tests
/// (`tests/messages.rs`) require that to be empty too.
pub fn translate_checked(text: &str) -> Option<Translation> {
    let mut foreign = vec![];
    let text = translate_at(text, 0, &mut foreign)?;
    Some(Translation { text, foreign })
}

fn translate_at(text: &str, depth: usize, foreign: &mut Vec<String>) -> Option<String> {
    translate_in(text, depth, foreign, false)
}

/// [`translate_at`]; with `shape`, of a format string whose arguments are U+0001 ([`fits`]).
fn translate_in(
    text: &str,
    depth: usize,
    foreign: &mut Vec<String>,
    shape: bool,
) -> Option<String> {
    if depth > 6 || text.is_empty() {
        return None;
    }
    if shape && text.chars().all(|c| c == '\u{1}' || c == ' ') {
        return Some(text.to_string());
    }
    // A list made by diag::list is printed with its Chinese joiners, from its own items.
    if let Some(zh) = super::list::chinese(text) {
        return Some(zh);
    }
    // Another library's text known by its structure (the TOML parser's messages, serde's name lists).
    if !shape {
        if let Some(zh) = super::foreign::chinese(text) {
            return Some(zh);
        }
    }
    let c = catalog();
    let mut matches: Vec<usize> = c.set.matches(text).into_iter().collect();
    // The most specific template first; the first that matches whole wins.
    matches.sort_by_key(|&i| (std::cmp::Reverse(c.templates[i].weight), i));
    'templates: for i in matches {
        let t = &c.templates[i];
        let Some(caps) = t.re.captures(text) else {
            continue;
        };
        let mut parts = Vec::with_capacity(t.parts.len());
        let mut copied = vec![];
        for (n, kind) in t.parts.iter().enumerate() {
            let s = caps.get(n + 1).map(|m| m.as_str()).unwrap_or("");
            parts.push(match kind {
                Part::Copied => match super::list::chinese(s) {
                    Some(zh) => zh,
                    // A format string's copied part: its words with the arguments left out.
                    None if shape
                        && is_prose(
                            &s.split('\u{1}')
                                .map(str::trim)
                                .filter(|w| !w.is_empty())
                                .collect::<Vec<_>>()
                                .join(" "),
                        ) =>
                    {
                        continue 'templates
                    }
                    None if is_prose(s) => continue 'templates,
                    None => s.to_string(),
                },
                Part::Translated => match translate_in(s, depth + 1, foreign, shape) {
                    Some(z) => z,
                    None => continue 'templates,
                },
                Part::Foreign | Part::Parser if shape && s.chars().all(|c| c == '\u{1}') => {
                    s.to_string()
                }
                Part::Parser => match translate_in(s, depth + 1, foreign, shape) {
                    Some(z) => z,
                    None => {
                        copied.push(s.to_string());
                        super::foreign::toml_or_lead_in(s)
                    }
                },
                Part::Foreign => match translate_in(s, depth + 1, foreign, shape) {
                    Some(z) => z,
                    None => {
                        copied.push(s.to_string());
                        s.to_string()
                    }
                },
            });
        }
        foreign.extend(copied);
        return Some(fill(t.zh, &parts));
    }
    None
}

/// Whether a copied part is English prose rather than data: outside double quotes and backticks (a cell's
/// or a schema's own text), two lower-case English words in a row (`under the merged header`, `did you
/// mean`). Names, numbers, paths, cell references and lists of members are not prose.
pub fn is_prose(s: &str) -> bool {
    let mut outside = String::with_capacity(s.len());
    let mut quote: Option<char> = None;
    for ch in s.chars() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if ch == '"' || ch == '`' => {
                quote = Some(ch);
                outside.push(' ');
            }
            None => outside.push(ch),
        }
    }
    // Punctuation around a word does not hide it: `(schema keyword minimum)` is prose.
    let word = |w: &str| {
        let w = w.trim_matches(['(', ')', '[', ']']);
        w.len() >= 2 && w.chars().all(|c| c.is_ascii_lowercase())
    };
    let words: Vec<&str> = outside.split(' ').collect();
    words.windows(2).any(|p| word(p[0]) && word(p[1]))
}

/// `zh` with `{0}`, `{1}`, … replaced by `parts`, with a space between an ideograph and a Latin letter or
/// digit where a part meets the text around it (`应为 Side`, `Side 列`), as Chinese technical writing does.
fn fill(zh: &str, parts: &[String]) -> String {
    let ideograph = |c: Option<char>| c.is_some_and(|c| matches!(c as u32, 0x4e00..=0x9fff));
    let latin = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let mut out = String::with_capacity(zh.len() + 16);
    let mut rest = zh;
    let mut after_part = false;
    while let Some(i) = rest.find('{') {
        let lit = &rest[..i];
        if after_part && latin(out.chars().last()) && ideograph(lit.chars().next()) {
            out.push(' ');
        }
        out.push_str(lit);
        let after = &rest[i + 1..];
        match after.find('}').map(|j| (j, after[..j].parse::<usize>())) {
            Some((j, Ok(n))) if n < parts.len() => {
                let p = &parts[n];
                if ideograph(out.chars().last()) && latin(p.chars().next()) {
                    out.push(' ');
                }
                out.push_str(p);
                rest = &after[j + 1..];
                after_part = true;
            }
            _ => {
                out.push('{');
                rest = after;
                after_part = false;
            }
        }
    }
    if after_part && latin(out.chars().last()) && ideograph(rest.chars().next()) {
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// Whether `s` holds a CJK ideograph or CJK punctuation (a test's "this is Chinese").
pub fn has_cjk(s: &str) -> bool {
    s.chars()
        .any(|c| matches!(c as u32, 0x3000..=0x303f | 0x4e00..=0x9fff | 0xff00..=0xffef))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locale_decides_unless_asked() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(Lang::from_locale(env(&[])), Lang::En);
        assert_eq!(Lang::from_locale(env(&[("LANG", "zh_CN.UTF-8")])), Lang::Zh);
        assert_eq!(
            Lang::from_locale(env(&[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "C")])),
            Lang::En
        );
        assert_eq!(
            Lang::from_locale(env(&[("LANG", "en_US.UTF-8"), ("LC_MESSAGES", "zh_TW")])),
            Lang::Zh
        );
        assert_eq!(
            Lang::from_locale(env(&[("LC_ALL", ""), ("LANG", "zh")])),
            Lang::Zh
        );
        assert_eq!(Lang::from_locale(env(&[("LANG", "de_DE.UTF-8")])), Lang::En);
        assert_eq!(Lang::parse("zh-Hans"), Some(Lang::Zh));
        assert_eq!(Lang::parse("fr"), None);
    }

    #[test]
    fn word_lists_translate_their_words() {
        let en = word_list(super::super::list::Joiner::Or, ["an integer", "a string"]);
        assert_eq!(en, "an integer or a string");
        assert_eq!(message(&en, Lang::Zh), "整数或字符串");
        let en = word_list(super::super::list::Joiner::And, ["width", "case", "spaces"]);
        assert_eq!(en, "width, case and spaces");
        assert_eq!(message(&en, Lang::Zh), "全角/半角、大小写和空格");
    }

    #[test]
    fn a_frame_spaces_a_latin_part_only() {
        let key = "note: {} has {} error{} (gentable check shows them); a cell that does not read is shown as written, with its code";
        // A Chinese part meets the ideograph after it directly, a Latin one with a space (helper-17 saw
        // "工作区 有").
        let zh = frame(Lang::Zh, key, &[&"工作区", &1, &""]);
        assert!(zh.starts_with("注：工作区有 1 个错误"), "{zh}");
        let zh = frame(Lang::Zh, key, &[&"HEAD", &2, &"s"]);
        assert!(zh.starts_with("注：HEAD 有 2 个错误"), "{zh}");
    }

    #[test]
    fn templates_copy_parts_and_translate_the_marked_ones() {
        assert_eq!(
            translate("expected an integer, found \"abc\"").as_deref(),
            Some("应为整数，实际为 \"abc\"")
        );
        // An inner message is translated, a quoted cell text is not.
        assert_eq!(
            translate("expected an integer, found \"１２\": the cell is written with full-width characters １ (U+FF11), ２ (U+FF12)").as_deref(),
            Some("应为整数，实际为 \"１２\"：单元格里有全角字符 １ (U+FF11), ２ (U+FF12)")
        );
        assert_eq!(
            translate("\"Name\" is required but the cell is empty (expected a list of integer)")
                .as_deref(),
            Some("\"Name\" 是必填字段，但单元格为空（应为整数列表）")
        );
        // The summaries of build and watch.
        assert_eq!(
            translate("gentable: 2 errors, 1 warning; generated/ left unchanged").as_deref(),
            Some("gentable：2 个错误，1 个警告；generated/ 未改动")
        );
        assert_eq!(
            translate("ok: rebuilt PieceType (one-table rebuild) in 0.31 s; wrote data/PieceType.json, rust/src/hashes.rs").as_deref(),
            Some("成功：重新构建了 PieceType（单表重建），用时 0.31 秒；写入 data/PieceType.json, rust/src/hashes.rs")
        );
        assert_eq!(
            translate("failed in 0.20 s: 1 error at Table/PieceType.csv:3:D; generated/ is unchanged — fix and save").as_deref(),
            Some("失败，用时 0.20 秒：1 个错误，位置 Table/PieceType.csv:3:D；generated/ 未改动——请修正后保存")
        );
        // A space where an ideograph meets a Latin part, none where the catalog has punctuation.
        assert_eq!(
            translate("\"Side\" is required but the cell is empty (expected a Side)").as_deref(),
            Some("\"Side\" 是必填字段，但单元格为空（应为 Side）")
        );
        assert_eq!(fill("{0}列", &["C".into()]), "C 列");
        assert_eq!(fill("{0}，{1}", &["C".into(), "字".into()]), "C，字");
        assert_eq!(translate("no template says this"), None);
        assert_eq!(
            message("no template says this", Lang::Zh),
            "no template says this"
        );
        assert_eq!(
            message("expected a number, found \"x\"", Lang::En),
            "expected a number, found \"x\""
        );
    }

    #[test]
    fn the_catalog_is_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for (en, zh) in super::super::zh::MESSAGES {
            assert!(seen.insert(*en), "template {en:?} is given twice");
            let (_, parts, _) = pattern(en);
            for n in 0..parts.len() {
                assert!(
                    zh.contains(&format!("{{{n}}}")),
                    "{zh:?} does not use part {{{n}}} of {en:?}"
                );
            }
            assert!(
                !zh.contains(&format!("{{{}}}", parts.len())),
                "{zh:?} uses a part {en:?} lacks"
            );
            let bare =
                (0..parts.len()).fold(zh.to_string(), |z, n| z.replace(&format!("{{{n}}}"), ""));
            assert!(
                has_cjk(zh) || bare.trim().is_empty(),
                "{zh:?} is not Chinese"
            );
        }
        // Every code has a Chinese title and explanation, and the catalog names no unknown code.
        for c in Code::ALL {
            let Some((_, t, x)) = zh_code(*c) else {
                panic!(
                    "{c} ({}) has no Chinese title and explanation in src/diag/zh.rs CODES",
                    c.title()
                )
            };
            assert!(
                has_cjk(t) && has_cjk(x),
                "{c}: the Chinese text is not Chinese"
            );
            assert!(
                x.contains("修正") || x.contains("改正") || x.contains("解决"),
                "{c}: the Chinese explanation has no fix (修正：…)"
            );
        }
        let mut seen = std::collections::HashSet::new();
        for (en, zh) in super::super::zh::FRAMES {
            assert!(seen.insert(*en), "frame {en:?} is given twice");
            let parts = en.matches("{}").count();
            assert!(
                !zh.contains(&format!("{{{parts}}}")),
                "{zh:?} uses a part {en:?} lacks"
            );
        }
        assert_eq!(frame(Lang::En, "row {}", &[&7]), "row 7");
        assert_eq!(frame(Lang::Zh, "row {}", &[&7]), "第 7 行");
        assert_eq!(
            frame(Lang::Zh, "no such frame {}", &[&7]),
            "no such frame 7"
        );
        let mut seen = std::collections::HashSet::new();
        for (code, _, _) in super::super::zh::CODES {
            assert!(seen.insert(*code), "zh::CODES gives {code} twice");
        }
    }
}
