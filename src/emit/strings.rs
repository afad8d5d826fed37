//! String literals that spreadsheet and schema text can never escape, shared by the C# and TypeScript
//! backends (Rust literals come from `proc_macro2::Literal`, doc comments from each backend's comment
//! syntax over `hbs::doc_lines`).

use crate::ir::canonical;

/// A double-quoted string literal holding `s`, valid in C# (a regular string literal) and in TypeScript /
/// JavaScript. Only printable ASCII is written as is; everything else (control characters, the line
/// terminators U+0085/U+2028/U+2029, all non-ASCII) becomes a `\uXXXX` escape per UTF-16 code unit, so the
/// literal can neither end early nor span lines. Backticks and `${` are plain characters in it.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for u in s.encode_utf16() {
        match u {
            0x22 => out.push_str("\\\""),
            0x5c => out.push_str("\\\\"),
            0x0a => out.push_str("\\n"),
            0x0d => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x20..=0x7e => out.push(u as u8 as char),
            _ => out.push_str(&format!("\\u{u:04x}")),
        }
    }
    out.push('"');
    out
}

/// The [`quoted`] literal of the canonical JSON text of `s` (a JSON string literal, as
/// [`crate::ir::canonical::write_string`] writes it), followed by `suffix`: what a generated canonical
/// writer appends for a constant string.
pub fn quoted_json(s: &str, suffix: &str) -> String {
    let mut json = String::new();
    canonical::write_string(&mut json, s);
    json.push_str(suffix);
    quoted(&json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_escape_everything_but_printable_ascii() {
        assert_eq!(quoted("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quoted("\n\r\t"), r#""\n\r\t""#);
        assert_eq!(quoted("é\u{2028}\u{202e}"), r#""\u00e9\u2028\u202e""#);
        assert_eq!(quoted("😀"), r#""\ud83d\ude00""#);
        assert_eq!(quoted("${x}`"), "\"${x}`\"");
        assert_eq!(quoted_json("a\"", ","), r#""\"a\\\"\",""#);
    }
}
