//! Rendering diagnostics: human text, JSON lines (`--message-format json`) and GitHub Actions workflow
//! commands (`--message-format github`).
//!
//! * **Human**: rendered with `codespan-reporting`. The "source line" of a cell diagnostic is the row's cells
//!   as the designer sees them (`a, b, c`, CSV-quoted where needed), numbered with the table's row number; the
//!   cell is underlined and the help is shown as `= help: …`. Diagnostics are grouped by file (a table source
//!   or a schema) under a `--> file: N errors, M warnings` heading.
//! * **JSON lines**: one object per line with the stable fields of [`Diagnostic`]: severity, code, message,
//!   file, sheet, row, column, field, cell_text, help (absent values are `null`). Never capped.
//! * **GitHub**: `::error file=…,line=…,col=…,title=…::message` (values escaped as the runner expects:
//!   `%`, CR and LF always; `:` and `,` in properties). Rows of workbooks carry no `line`/`col` (the file is not
//!   text); the title names the sheet, row and column.
//!
//! * **SARIF**: [`super::sarif`], one log of the whole run (the command line prints it at the end).
//!
//! Messages, helps and the frame words are in [`Options::lang`] ([`super::lang`]: Chinese by the catalog;
//! a code's title and the JSON field names stay as they are).
//!
//! Human and GitHub output never print a control, bidirectional or invisible formatting character raw
//! ([`terminal_safe`]): a cell holding U+202E RIGHT-TO-LEFT OVERRIDE would otherwise reverse what the
//! designer reads on the terminal (or in the annotation). Such characters are shown as `\u{202e}`, and a
//! human diagnostic that shows one says what it is in a note.
//!
//! [`render_report`] caps human and GitHub output at [`Options::max_per_kind`] diagnostics per code per file
//! and says how many more there are, so that a run with 10,000 errors stays readable. Everything is linear in
//! the number of diagnostics.

use crate::diag::lang::{self, Lang};
use crate::diag::Code;
use crate::diag::{column_from_letters, Diagnostic, Diagnostics, Severity};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Github,
    /// A SARIF 2.1.0 log ([`super::sarif`]): not rendered per batch; the command line writes one log of
    /// the run's diagnostics ([`render_report`] renders nothing for it).
    Sarif,
}

/// Rendering options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// At most this many diagnostics per code per file in human and GitHub output (0 = no limit).
    pub max_per_kind: usize,
    /// The language of messages, helps and frame words.
    pub lang: Lang,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_per_kind: 20,
            lang: Lang::En,
        }
    }
}

/// The cells of the rows that diagnostics point at, as the designer sees them (for human output).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    rows: HashMap<(String, Option<String>, usize), Vec<String>>,
}

impl Sources {
    /// Add one row by hand (tests, tools).
    pub fn insert(&mut self, file: &str, sheet: Option<&str>, row: usize, cells: Vec<String>) {
        self.rows
            .insert((file.to_string(), sheet.map(String::from), row), cells);
    }
    fn get(&self, d: &Diagnostic) -> Option<&Vec<String>> {
        self.rows.get(&(d.file.clone(), d.sheet.clone(), d.row))
    }
    /// The text of the cell `d` points at (its file, sheet, row and column), as read, if its row is here.
    pub fn cell(&self, d: &Diagnostic) -> Option<&str> {
        let col = d.column.as_deref().and_then(column_from_letters)?;
        self.get(d)?.get(col).map(String::as_str)
    }
    /// Give every schema-keyword finding (GT0301) at a cell the cell's text as read, where its row is here:
    /// the validator sees a typed value, whose JSON form (`1e+16`, `0.1`, `[1,2,3]`) is not what the designer
    /// typed or saw (`10000000000000000`, `0.10`, `1|2|3`). A message that starts with that JSON form (the
    /// validator's words are about the whole cell: `1e+16 is greater than the maximum of 100`) starts with the
    /// cell's text instead. A finding whose row is not here keeps that form.
    pub fn fill_cell_texts(&self, diags: &mut [Diagnostic]) {
        for d in diags
            .iter_mut()
            .filter(|d| d.code == Code::SchemaKeyword && d.row > 0)
        {
            if let Some(t) = self.cell(d) {
                let rest = d
                    .cell_text
                    .as_deref()
                    .filter(|json| spells_the_value(json, t.trim()))
                    .and_then(|json| d.message.strip_prefix(json))
                    .filter(|rest| rest.starts_with(' '));
                if let Some(rest) = rest {
                    d.message = format!("{}{rest}", t.trim());
                }
                d.cell_text = Some(t.to_string());
            }
        }
    }
}

/// Whether the cell text `text` (trimmed) spells the whole value whose JSON form is `json`, so that a message
/// about the value may start with it: a number, or a list written in one cell (`1|2|3`, `[1,2,3]`). Not an
/// empty cell (the value is a `default`), a string (its JSON form is the text), or one column of a value
/// spread over several (repeated or dotted headers: `1` of `[1,1,2]` or of `{"x":1,"y":2}`).
fn spells_the_value(json: &str, text: &str) -> bool {
    if text.is_empty() || json == text {
        return false;
    }
    match json.as_bytes().first() {
        Some(b'-' | b'0'..=b'9') => true,
        Some(b'[') => text.contains('|') || text.starts_with('['),
        _ => false,
    }
}

/// Render every diagnostic as lines of text (no cap, no source lines).
pub fn render(d: &Diagnostics, format: Format) -> Vec<String> {
    render_in(d, format, Lang::En)
}

/// [`render`] in `lang`.
pub fn render_in(d: &Diagnostics, format: Format, lang: Lang) -> Vec<String> {
    d.items
        .iter()
        .map(|x| render_one_in(x, format, lang))
        .collect()
}

/// Render one diagnostic (human form without a source line).
pub fn render_one(d: &Diagnostic, format: Format) -> String {
    render_one_in(d, format, Lang::En)
}

/// [`render_one`] in `lang`.
pub fn render_one_in(d: &Diagnostic, format: Format, lang: Lang) -> String {
    match format {
        Format::Human => human(d, None, lang),
        Format::Json => json(d, lang),
        Format::Github => github(d, lang),
        Format::Sarif => super::sarif::sarif(std::slice::from_ref(d), lang),
    }
}

fn sev_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// `d` with its message and help in `lang`.
fn translated(d: &Diagnostic, lang: Lang) -> std::borrow::Cow<'_, Diagnostic> {
    if lang == Lang::En {
        return std::borrow::Cow::Borrowed(d);
    }
    let mut t = d.clone();
    t.message = lang::message(&d.message, lang);
    t.help = d.help.as_deref().map(|h| lang::message(h, lang));
    std::borrow::Cow::Owned(t)
}

fn json(d: &Diagnostic, lang: Lang) -> String {
    serde_json::to_string(&*translated(d, lang)).expect("diagnostics serialize")
}

/// The whole report: `d` must be sorted ([`Diagnostics::sort`]). Human output is grouped by file; human and
/// GitHub output are capped per code per file ([`Options::max_per_kind`]); JSON lines are never capped.
/// Every line ends with `\n`.
pub fn render_report(d: &Diagnostics, format: Format, sources: &Sources, opts: &Options) -> String {
    let mut out = String::new();
    let lang = opts.lang;
    if format == Format::Sarif {
        return out;
    }
    if format == Format::Json {
        for x in &d.items {
            out.push_str(&json(x, lang));
            out.push('\n');
        }
        return out;
    }
    // Groups of consecutive diagnostics of one file (the list is sorted by file first).
    let mut i = 0;
    while i < d.items.len() {
        let file = &d.items[i].file;
        let mut j = i;
        while j < d.items.len() && d.items[j].file == *file {
            j += 1;
        }
        let group = &d.items[i..j];
        let errors = group
            .iter()
            .filter(|x| x.severity == Severity::Error)
            .count();
        let warnings = group.len() - errors;
        if format == Format::Human {
            let colon = if lang == Lang::Zh { "：" } else { ": " };
            out.push_str(&format!(
                "--> {}{colon}{}\n\n",
                terminal_safe(file),
                lang::counts(lang, errors, warnings)
            ));
        }
        let mut shown: HashMap<Code, usize> = HashMap::new();
        let mut hidden: BTreeMap<Code, usize> = BTreeMap::new();
        for x in group {
            let n = shown.entry(x.code).or_default();
            if opts.max_per_kind > 0 && *n >= opts.max_per_kind {
                *hidden.entry(x.code).or_default() += 1;
                continue;
            }
            *n += 1;
            match format {
                Format::Human => {
                    out.push_str(&human(x, sources.get(x).map(|v| v.as_slice()), lang));
                    out.push_str("\n\n");
                }
                _ => {
                    out.push_str(&github(x, lang));
                    out.push('\n');
                }
            }
        }
        for (code, n) in hidden {
            let title = lang::title(code, lang);
            let msg = lang::message(
                &format!(
                    "{n} more {code} ({title}) in {file} not shown (--max-per-kind {}; 0 shows all)",
                    opts.max_per_kind
                ),
                lang,
            );
            let msg = terminal_safe(&msg);
            match format {
                Format::Human => out.push_str(&format!("{}{msg}\n\n", lang.words().note)),
                _ => out.push_str(&terminal_safe(&format!(
                    "::notice file={},title={}::{}\n",
                    gh_escape(file, true),
                    gh_escape(&format!("{code} {file}"), true),
                    gh_escape(&msg, false)
                ))),
            }
        }
        i = j;
    }
    out
}

/// `N errors, M warnings` with singulars.
pub fn counts(errors: usize, warnings: usize) -> String {
    lang::counts(Lang::En, errors, warnings)
}

/// The name of a character [`terminal_safe`] escapes, if it has a well-known one.
fn hidden_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{061c}' => "ARABIC LETTER MARK",
        '\u{200b}' => "ZERO WIDTH SPACE",
        '\u{200c}' => "ZERO WIDTH NON-JOINER",
        '\u{200d}' => "ZERO WIDTH JOINER",
        '\u{200e}' => "LEFT-TO-RIGHT MARK",
        '\u{200f}' => "RIGHT-TO-LEFT MARK",
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        '\u{2060}' => "WORD JOINER",
        '\u{feff}' => "ZERO WIDTH NO-BREAK SPACE (BOM)",
        '\u{00ad}' => "SOFT HYPHEN",
        '\u{1b}' => "ESCAPE (terminal control sequences)",
        '\u{7f}' => "DELETE",
        _ => return None,
    })
}

/// Whether [`terminal_safe`] escapes `c`: control characters other than line feed and tab, bidirectional
/// controls (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), invisible formatting characters
/// (U+00AD, U+180E, U+200B–U+200D, U+2060–U+2064, U+FEFF, U+FFF9–U+FFFB, the Hangul fillers U+115F,
/// U+1160, U+3164, U+FFA0), the line and paragraph separators U+2028–U+2029 and the tag characters
/// U+E0000–U+E007F.
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{00ad}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{180e}' | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{3164}'
            | '\u{feff}' | '\u{ffa0}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e007f}')
}

/// `s` with every character of [`is_hidden`] written as `\u{202e}` (lower-case hex), so terminal and
/// annotation output shows exactly the characters a cell holds and can neither be reordered nor hide text.
/// Idempotent; text without such characters is returned as is.
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The note a human diagnostic gets when it shows escaped characters of `texts`: which they are.
fn hidden_note<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let found: BTreeSet<char> = texts
        .into_iter()
        .flat_map(|t| t.chars().filter(|c| is_hidden(*c)))
        .collect();
    if found.is_empty() {
        return None;
    }
    let names = found
        .iter()
        .take(8)
        .fold(
            super::list::List::new(super::list::Joiner::Series),
            |list, c| {
                let (u, n) = (*c as u32, *c as u32);
                // The Unicode names stay as Unicode writes them; what gentable says of them is translated.
                let (en, zh) = match hidden_name(*c) {
                    Some("ESCAPE (terminal control sequences)") => (
                        "ESCAPE (terminal control sequences)",
                        "ESCAPE（终端控制序列）",
                    ),
                    Some(name) => (name, name),
                    None => ("an invisible or control character", "不可见字符或控制字符"),
                };
                list.item_in(
                    format!("\\u{{{u:x}}} is U+{n:04X} {en}"),
                    format!("\\u{{{u:x}}} 即 U+{n:04X} {zh}"),
                )
            },
        )
        .more(found.len().saturating_sub(8))
        .text();
    Some(format!(
        "note: the text holds characters that are invisible or reorder what is shown; they are written escaped: \
         {names}"
    ))
}

/// A cell's text for a note: quoted and escaped (`{:?}`), the first [`NOTE_CHARS`] characters of a long one.
fn cell_note(prefix: &str, t: &str) -> String {
    let n = t.chars().count();
    if n <= NOTE_CHARS {
        return format!("{prefix}{t:?}");
    }
    let head: String = t.chars().take(NOTE_CHARS).collect();
    format!("{prefix}{head:?}… ({n} characters)")
}

const NOTE_CHARS: usize = 200;

/// One row shown as a source line: its text and the byte range of each displayed cell.
struct RowLine {
    name: String,
    text: String,
    row: usize,
    /// (byte range in `text`, 0-based spreadsheet column) per displayed cell.
    cells: Vec<(Range<usize>, usize)>,
}

const MAX_CELL: usize = 40;
const MAX_LINE: usize = 120;

fn show_cell(s: &str) -> String {
    let s = s.replace(['\r', '\n'], "⏎");
    let s = terminal_safe(&s);
    let mut t: String = if s.chars().count() > MAX_CELL {
        s.chars().take(MAX_CELL - 1).collect::<String>() + "…"
    } else {
        s.to_string()
    };
    if t.contains([',', '"']) || t.starts_with(' ') || t.ends_with(' ') {
        t = format!("\"{}\"", t.replace('"', "\"\""));
    }
    t
}

impl RowLine {
    /// The row's cells around `target` (all of them when they fit in [`MAX_LINE`]).
    fn new(name: String, row: usize, cells: &[String], target: Option<usize>) -> RowLine {
        let shown: Vec<String> = cells.iter().map(|c| show_cell(c)).collect();
        let n = shown.len().max(target.map(|t| t + 1).unwrap_or(0));
        let cell = |i: usize| shown.get(i).cloned().unwrap_or_default();
        // Display columns (a CJK character takes two), as the terminal shows the line.
        let width_of = |i: usize| unicode_width::UnicodeWidthStr::width(cell(i).as_str());
        let total: usize = (0..n).map(|i| width_of(i) + 2).sum();
        let (mut lo, mut hi) = (0, n);
        if total > MAX_LINE {
            let t = target.unwrap_or(0);
            lo = t;
            hi = t + 1;
            let mut width = width_of(t);
            loop {
                let mut grew = false;
                if hi < n && width + width_of(hi) + 2 <= MAX_LINE {
                    width += width_of(hi) + 2;
                    hi += 1;
                    grew = true;
                }
                if lo > 0 && width + width_of(lo - 1) + 2 <= MAX_LINE {
                    width += width_of(lo - 1) + 2;
                    lo -= 1;
                    grew = true;
                }
                if !grew {
                    break;
                }
            }
        }
        let mut text = String::new();
        let mut ranges = vec![];
        if lo > 0 {
            text.push_str("…, ");
        }
        for i in lo..hi {
            if i > lo {
                text.push_str(", ");
            }
            let start = text.len();
            text.push_str(&cell(i));
            ranges.push((start..text.len(), i));
        }
        if hi < n {
            text.push_str(", …");
        }
        RowLine {
            name,
            text,
            row,
            cells: ranges,
        }
    }
}

impl<'a> Files<'a> for RowLine {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;
    fn name(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(&self.name)
    }
    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(&self.text)
    }
    fn line_index(&'a self, (): (), _byte_index: usize) -> Result<usize, FilesError> {
        Ok(0)
    }
    fn line_number(&'a self, (): (), _line_index: usize) -> Result<usize, FilesError> {
        Ok(self.row)
    }
    /// The spreadsheet column (1-based) of the cell at `byte_index`.
    fn column_number(
        &'a self,
        (): (),
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, FilesError> {
        Ok(self
            .cells
            .iter()
            .find(|(r, _)| r.start <= byte_index && byte_index <= r.end)
            .map(|(_, c)| c + 1)
            .unwrap_or(1))
    }
    fn line_range(&'a self, (): (), _line_index: usize) -> Result<Range<usize>, FilesError> {
        Ok(0..self.text.len())
    }
}

fn config() -> term::Config {
    term::Config {
        chars: term::Chars::ascii(),
        ..Default::default()
    }
}

/// Human form: the codespan-reporting rendering with the row as its source line when `cells` is given, in
/// `lang` (codespan writes `error`/`warning`; the Chinese words replace them at the start).
fn human(d: &Diagnostic, cells: Option<&[String]>, lang: Lang) -> String {
    let w = lang.words();
    let d = &*translated(d, lang);
    let mut c = match d.severity {
        Severity::Error => cs::Diagnostic::error(),
        Severity::Warning => cs::Diagnostic::warning(),
    }
    .with_code(d.code.as_str())
    .with_message(terminal_safe(&d.message));
    let col = d.column.as_deref().and_then(column_from_letters);
    let mut notes = vec![];
    let mut name = d.file.clone();
    if let Some(sh) = &d.sheet {
        name.push_str(&format!("[{sh}]"));
    }
    let name = terminal_safe(&name).into_owned();
    let line = cells
        .filter(|_| d.row > 0)
        .map(|cells| RowLine::new(name.clone(), d.row, cells, col));
    let mut what = vec![];
    if let Some(l) = &d.column {
        what.push(w.column.replace("{}", l));
    }
    if let Some(f) = &d.field {
        what.push(w.field.replace("{}", &format!("{f:?}")));
    }
    if let Some(line) = &line {
        let range = match col {
            Some(ci) => line
                .cells
                .iter()
                .find(|(_, i)| *i == ci)
                .map(|(r, _)| r.clone())
                .unwrap_or(0..0),
            None => 0..line.text.len(),
        };
        c = c.with_label(cs::Label::primary((), range).with_message(what.join(w.comma)));
    } else {
        let mut at = format!("{}{}", w.at, terminal_safe(&d.location()));
        if !what.is_empty() {
            at.push_str(&format!(" ({})", what.join(w.comma)));
        }
        notes.push(at);
    }
    if let Some(t) = &d.cell_text {
        let shown_in_line = line.as_ref().is_some_and(|_| col.is_some());
        if !shown_in_line || t.chars().count() > MAX_CELL || t.contains(['\n', '\r']) {
            notes.push(cell_note(w.cell_text, t));
        }
    }
    if let Some(h) = &d.help {
        notes.push(format!("{}{}", w.help, terminal_safe(h)));
    }
    // What the escapes stand for: in the row shown, the cell text, the message, the names.
    let shown = [
        d.message.as_str(),
        d.file.as_str(),
        d.sheet.as_deref().unwrap_or(""),
        d.cell_text.as_deref().unwrap_or(""),
        d.help.as_deref().unwrap_or(""),
    ];
    let row = cells.filter(|_| line.is_some()).unwrap_or(&[]);
    if let Some(n) = hidden_note(shown.into_iter().chain(row.iter().map(String::as_str))) {
        notes.push(lang::message(&n, lang));
    }
    c = c.with_notes(notes);
    let text = match &line {
        Some(l) => term::emit_into_string(&config(), l, &c),
        None => term::emit_into_string(&config(), &NoFiles, &c),
    };
    let text = text
        .unwrap_or_else(|_| d.to_string())
        .trim_end()
        .to_string();
    let sev = sev_word(d.severity);
    let local = match d.severity {
        Severity::Error => w.error,
        Severity::Warning => w.warning,
    };
    match text.strip_prefix(sev) {
        Some(rest) if local != sev => format!("{local}{rest}"),
        _ => text,
    }
}

/// No files: diagnostics without a source line.
struct NoFiles;

impl<'a> Files<'a> for NoFiles {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;
    fn name(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Err(FilesError::FileMissing)
    }
    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Err(FilesError::FileMissing)
    }
    fn line_index(&'a self, (): (), _: usize) -> Result<usize, FilesError> {
        Err(FilesError::FileMissing)
    }
    fn line_range(&'a self, (): (), _: usize) -> Result<Range<usize>, FilesError> {
        Err(FilesError::FileMissing)
    }
}

/// GitHub workflow command escaping of a property value or message.
pub fn gh_escape(s: &str, property: bool) -> String {
    let mut out = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    if property {
        out = out.replace(':', "%3A").replace(',', "%2C");
    }
    out
}

fn github(d: &Diagnostic, lang: Lang) -> String {
    let w = lang.words();
    let d = &*translated(d, lang);
    let kind = sev_word(d.severity);
    let mut props = vec![format!("file={}", gh_escape(&d.file, true))];
    if d.row > 0 && d.sheet.is_none() {
        props.push(format!("line={}", d.row));
        if let Some(c) = d.column.as_deref().and_then(column_from_letters) {
            props.push(format!("col={}", c + 1));
        }
    }
    props.push(format!(
        "title={}",
        gh_escape(&format!("{} {}", d.code, d.location()), true)
    ));
    let mut msg = d.message.clone();
    if let Some(f) = &d.field {
        msg.push_str(&format!(" [{}]", w.field.replace("{}", f)));
    }

    if let Some(t) = &d.cell_text {
        msg.push_str(&format!(" ({}{t:?})", w.cell_text));
    }
    if let Some(h) = &d.help {
        msg.push_str(&format!("\n{}{h}", w.help));
    }
    format!(
        "::{kind} {}::{}",
        terminal_safe(&props.join(",")),
        gh_escape(&terminal_safe(&msg), false)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::RowOrigin;

    /// A GT0301 message starts with the cell's text only where that text is the whole value: never an empty
    /// cell filled by a `default`, a string, or one column of a value spread over several columns.
    #[test]
    fn a_message_starts_with_the_cell_text_only_where_it_spells_the_value() {
        let o = RowOrigin {
            file: "Table/D.csv".into(),
            sheet: None,
            row: 2,
        };
        let mut rows = Sources::default();
        rows.insert(
            "Table/D.csv",
            None,
            2,
            vec!["  2e2 ".into(), String::new(), "1".into(), "1|2|3".into()],
        );
        let finding = |col: usize, json: &str, message: &str| {
            let mut d = [Diagnostic::cell_error(
                Code::SchemaKeyword,
                &o,
                Some(col),
                Some("F"),
                Some(json),
                message.to_string(),
            )];
            rows.fill_cell_texts(&mut d);
            d[0].message.clone()
        };
        assert_eq!(
            finding(0, "200.0", "200.0 is greater than the maximum of 100"),
            "2e2 is greater than the maximum of 100"
        );
        // `default`: the cell is empty, the value is 10.
        assert_eq!(
            finding(1, "10", "10 is less than the minimum of 1000"),
            "10 is less than the minimum of 1000"
        );
        // One column of [1,1,2] (a repeated header) and of {"x":1,"y":2} (dotted headers).
        assert_eq!(
            finding(2, "[1,1,2]", "[1,1,2] has non-unique elements"),
            "[1,1,2] has non-unique elements"
        );
        assert_eq!(
            finding(
                2,
                r#"{"x":1,"y":2}"#,
                r#"{"x":1,"y":2} has more than 1 property"#
            ),
            r#"{"x":1,"y":2} has more than 1 property"#
        );
        assert_eq!(
            finding(3, "[1,2,3]", "[1,2,3] has more than 2 items"),
            "1|2|3 has more than 2 items"
        );
    }

    fn diag() -> Diagnostic {
        let o = RowOrigin {
            file: "Table/Unit.csv".into(),
            sheet: None,
            row: 7,
        };
        Diagnostic::cell_error(
            Code::WrongType,
            &o,
            Some(2),
            Some("Hp"),
            Some("abc"),
            "expected an integer, found \"abc\"",
        )
        .with_help("enter a whole number")
    }

    #[test]
    fn human_underlines_the_cell_of_the_row() {
        let mut s = Sources::default();
        s.insert(
            "Table/Unit.csv",
            None,
            7,
            vec!["1".into(), "Archer".into(), "abc".into(), "Red".into()],
        );
        let d = Diagnostics {
            items: vec![diag()],
        };
        let text = render_report(&d, Format::Human, &s, &Options::default());
        assert!(
            text.contains("error[GT0201]: expected an integer"),
            "{text}"
        );
        assert!(text.contains("Table/Unit.csv:7:3"), "{text}");
        assert!(text.contains("7 | 1, Archer, abc, Red"), "{text}");
        assert!(text.contains("^^^ column C, field \"Hp\""), "{text}");
        assert!(text.contains("= help: enter a whole number"), "{text}");
    }

    /// The underline stands under the cell in display columns: a CJK character takes two, in the row and
    /// in the message's language alike.
    #[test]
    fn cjk_rows_keep_the_underline_under_the_cell() {
        use unicode_width::UnicodeWidthStr;
        let mut s = Sources::default();
        s.insert(
            "Table/Unit.csv",
            None,
            7,
            vec!["1".into(), "骑士，重甲".into(), "abc".into(), "红".into()],
        );
        let d = Diagnostics {
            items: vec![diag()],
        };
        for lang in [Lang::En, Lang::Zh] {
            let text = render_report(
                &d,
                Format::Human,
                &s,
                &Options {
                    max_per_kind: 20,
                    lang,
                },
            );
            let row = text
                .lines()
                .find(|l| l.starts_with("7 | "))
                .expect("the row");
            let carets = text
                .lines()
                .find(|l| l.contains('^'))
                .expect("the underline");
            let at = |line: &str, pat: &str| line[..line.find(pat).unwrap()].width();
            assert_eq!(at(carets, "^^^"), at(row, "abc"), "{text}");
            assert_eq!(carets.matches('^').count(), 3, "{text}");
            if lang == Lang::Zh {
                assert!(
                    text.contains("错误[GT0201]: 应为整数，实际为 \"abc\""),
                    "{text}"
                );
                assert!(text.contains("^^^ C 列，字段 \"Hp\""), "{text}");
                assert!(text.contains("= 帮助：enter a whole number"), "{text}");
            }
        }
        // A CJK cell itself is underlined over its full width.
        let mut d = diag();
        d.column = Some("B".into());
        let text = render_report(
            &Diagnostics { items: vec![d] },
            Format::Human,
            &s,
            &Options::default(),
        );
        let carets = text.lines().find(|l| l.contains('^')).unwrap();
        assert_eq!(carets.matches('^').count(), "骑士，重甲".width(), "{text}");
    }

    #[test]
    fn github_escapes_properties_and_message() {
        let mut d = diag();
        d.file = "Table/a,b:c%.csv".into();
        d.help = Some("line1\nline2 100%".into());
        let g = github(&d, Lang::En);
        assert!(g.starts_with("::error file=Table/a%2Cb%3Ac%25.csv,line=7,col=3,title=GT0201 Table/a%2Cb%3Ac%25.csv%3A7%3AC::"), "{g}");
        assert!(g.ends_with("%0Ahelp: line1%0Aline2 100%25"), "{g}");
    }

    #[test]
    fn cap_per_kind_counts_the_rest() {
        let items: Vec<Diagnostic> = (0..10_000)
            .map(|i| {
                let mut d = diag();
                d.row = i + 2;
                d
            })
            .collect();
        let d = Diagnostics { items };
        let t = std::time::Instant::now();
        let text = render_report(
            &d,
            Format::Human,
            &Sources::default(),
            &Options {
                max_per_kind: 20,
                lang: Lang::En,
            },
        );
        assert!(t.elapsed().as_secs() < 5);
        assert_eq!(text.matches("error[GT0201]").count(), 20);
        assert!(
            text.contains("note: 9980 more GT0201 (wrong type) in Table/Unit.csv not shown"),
            "{text}"
        );
        let all = render_report(
            &d,
            Format::Json,
            &Sources::default(),
            &Options {
                max_per_kind: 20,
                lang: Lang::En,
            },
        );
        assert_eq!(all.lines().count(), 10_000);
    }

    #[test]
    fn long_rows_show_a_window_around_the_cell() {
        let cells: Vec<String> = (0..60).map(|i| format!("value{i}")).collect();
        let l = RowLine::new("x".into(), 3, &cells, Some(40));
        assert!(l.text.len() <= MAX_LINE + 10, "{}", l.text);
        assert!(
            l.text.starts_with("…, ") && l.text.ends_with(", …"),
            "{}",
            l.text
        );
        assert!(l.cells.iter().any(|(_, c)| *c == 40));
    }
}
