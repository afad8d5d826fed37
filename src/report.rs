//! Rendering diagnostics: human text, JSON lines (`--message-format json`) and GitHub Actions workflow
//! commands (`--message-format github`).
//!
//! JSON lines carry the stable fields of [`Diagnostic`]: severity, code, message, file, sheet, row, column,
//! field, cell_text, help (absent values are `null`).

use crate::diag::{Diagnostic, Diagnostics, Severity};

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Github,
}

/// Render every diagnostic as lines of text.
pub fn render(d: &Diagnostics, format: Format) -> Vec<String> {
    d.items.iter().map(|x| render_one(x, format)).collect()
}

/// Render one diagnostic.
pub fn render_one(d: &Diagnostic, format: Format) -> String {
    match format {
        Format::Human => human(d),
        Format::Json => serde_json::to_string(d).expect("diagnostics serialize"),
        Format::Github => github(d),
    }
}

fn human(d: &Diagnostic) -> String {
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut s = format!("{sev}[{}]: {}\n  --> {}", d.code, d.message, d.location());
    if let Some(f) = &d.field {
        s.push_str(&format!(" (column {f:?})"));
    }
    if let Some(t) = &d.cell_text {
        s.push_str(&format!("\n   | cell: {t:?}"));
    }
    if let Some(h) = &d.help {
        s.push_str(&format!("\n   = help: {h}"));
    }
    s
}

/// GitHub workflow command escaping of a property value or message.
fn gh_escape(s: &str, property: bool) -> String {
    let mut out = s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    if property {
        out = out.replace(':', "%3A").replace(',', "%2C");
    }
    out
}

fn github(d: &Diagnostic) -> String {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut props = vec![format!("file={}", gh_escape(&d.file, true))];
    if d.row > 0 && d.sheet.is_none() {
        props.push(format!("line={}", d.row));
    }
    if let Some(c) = d.column.as_deref().and_then(crate::diag::column_from_letters) {
        if d.sheet.is_none() {
            props.push(format!("col={}", c + 1));
        }
    }
    props.push(format!("title={}", gh_escape(&format!("{} {}", d.code, d.location()), true)));
    let mut msg = d.message.clone();
    if let Some(t) = &d.cell_text {
        msg.push_str(&format!(" (cell text: {t:?})"));
    }
    if let Some(h) = &d.help {
        msg.push_str(&format!("\nhelp: {h}"));
    }
    format!("::{kind} {}::{}", props.join(","), gh_escape(&msg, false))
}
