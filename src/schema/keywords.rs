//! Small readers of schema keywords shared by the schema stage: documentation, string lists, fixed offsets
//! and foreign-key targets.

use serde_json::{Map, Value as J};

pub fn alts_len(o: &Map<String, J>, k: &str) -> usize {
    o.get(k).and_then(J::as_array).map_or(0, Vec::len)
}

pub fn doc_of(o: &Map<String, J>) -> String {
    let title = o.get("title").and_then(J::as_str).unwrap_or("");
    let desc = o.get("description").and_then(J::as_str).unwrap_or("");
    match (title.is_empty(), desc.is_empty()) {
        (true, _) => desc.to_string(),
        (false, true) => title.to_string(),
        (false, false) => format!("{title}\n\n{desc}"),
    }
}

/// A string or a list of strings.
pub fn string_list(v: Option<&J>) -> Vec<String> {
    match v {
        Some(J::String(s)) => vec![s.clone()],
        Some(J::Array(a)) => a.iter().filter_map(J::as_str).map(String::from).collect(),
        _ => vec![],
    }
}

/// A fixed UTC offset `+08:00`, `-05:30`, `Z` or `UTC` → seconds east of UTC.
pub fn parse_offset(s: &str) -> Option<i32> {
    let s = s.trim();
    if s == "Z" || s.eq_ignore_ascii_case("UTC") {
        return Some(0);
    }
    let s = s.strip_prefix("UTC").unwrap_or(s);
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
    // Digits only (no second sign, no `+`), and bounded before any arithmetic: a cell `-247483648` is
    // no offset, not an overflow (found by the `cell` fuzz target).
    let digits = |p: &str| -> Option<i32> {
        (!p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let (h, m) = (digits(h)?, digits(m)?);
    (h <= 18 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

pub fn fk_targets(v: Option<&J>) -> Vec<(String, Option<String>)> {
    let parse = |s: &str| match s.split_once('.') {
        Some((t, f)) => (t.to_string(), Some(f.to_string())),
        None => (s.to_string(), None),
    };
    match v {
        Some(J::String(s)) => vec![parse(s)],
        Some(J::Array(a)) => a.iter().filter_map(J::as_str).map(parse).collect(),
        _ => vec![],
    }
}

/// `x-gentable-enumValues` (docs/conventions.md §4): an object `{member: integer}` naming every member once,
/// values unique and within ±2^31 (Luban's enums are `int`; C#'s default underlying type). Gives the values
/// in declaration order, or why the annotation is malformed.
pub fn enum_values(v: &J, members: &[String]) -> Result<Vec<i64>, String> {
    let J::Object(m) = v else {
        return Err("must be an object {\"Member\": integer}".into());
    };
    if let Some(k) = m.keys().find(|k| !members.contains(k)) {
        return Err(format!("names {k:?}, which is not a member"));
    }
    let mut out = vec![];
    for member in members {
        let Some(x) = m.get(member) else {
            return Err(format!("gives no value for member {member:?}"));
        };
        let Some(x) = x.as_i64().filter(|x| i32::try_from(*x).is_ok()) else {
            return Err(format!(
                "{member:?}: {x} is not an integer between -2147483648 and 2147483647"
            ));
        };
        if let Some(i) = out.iter().position(|y| *y == x) {
            return Err(format!(
                "gives {member:?} the value {x} of {:?}: values must be unique",
                members[i]
            ));
        }
        out.push(x);
    }
    Ok(out)
}

/// `x-gentable-name` on a string enum: an object `{member: identifier}` whose identifiers are used verbatim
/// (ASCII letters, digits and `_`, not starting with a digit) instead of the naming rule. Members left out
/// follow the rule.
pub fn member_idents(v: &J, members: &[String]) -> Result<Vec<Option<String>>, String> {
    let J::Object(m) = v else {
        return Err("on an enum must be an object {\"member\": \"Identifier\"}".into());
    };
    if let Some(k) = m.keys().find(|k| !members.contains(k)) {
        return Err(format!("names {k:?}, which is not a member"));
    }
    let mut out = vec![];
    for member in members {
        match m.get(member) {
            None => out.push(None),
            Some(J::String(id))
                if id.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.push(Some(id.clone()))
            }
            Some(x) => {
                return Err(format!(
                    "{member:?}: {x} is not an identifier (ASCII letters, digits and _)"
                ))
            }
        }
    }
    Ok(out)
}

/// `x-gentable-separator` of a schema: a non-empty string of separator characters.
pub fn separator_of(s: Option<&J>) -> Option<String> {
    s.and_then(|s| s.get("x-gentable-separator"))
        .and_then(J::as_str)
        .filter(|x| !x.is_empty())
        .map(String::from)
}

/// String formats of JSON Schema 2020-12 (§7.3) that only validate: the value stays a string.
pub const VALIDATION_FORMATS: &[&str] = &[
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Why a `format` keyword cannot be honoured for a value of JSON type `ty` (`"integer"`, `"number"` or
/// `"string"`), if it cannot: gentable types `integer` formats `int8`…`uint64`, `number` format `double`
/// (every number is a 64-bit double), and `string` formats `date-time`, `date`, `time`, `duration` plus the
/// validation-only formats ([`VALIDATION_FORMATS`]). Anything else (`float`, `int128`, `date_time`) is an
/// error rather than a plain number or string that silently ignores it.
pub fn unsupported_format(ty: &str, format: &J) -> Option<String> {
    let Some(f) = format.as_str() else {
        return Some(format!("\"format\" must be a string, not {format}"));
    };
    let ints = [
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    ];
    let strings = ["date-time", "date", "time", "duration"];
    match ty {
        "integer" if ints.contains(&f) => None,
        "integer" => Some(format!(
            "integer format {f:?} is not supported (use one of {})",
            crate::diag::list::series(ints)
        )),
        "number" if f == "double" => None,
        "number" if f == "float" => Some(
            "number format \"float\" (32-bit) is not supported: every number is a 64-bit double; remove \"format\" or write \"double\"".into(),
        ),
        "number" => Some(format!(
            "number format {f:?} is not supported: numbers are 64-bit doubles (\"double\")"
        )),
        "string" if strings.contains(&f) || VALIDATION_FORMATS.contains(&f) => None,
        "string" => Some(format!(
            "string format {f:?} is not supported (typed: {}; validated: {})",
            crate::diag::list::series(strings),
            crate::diag::list::series(VALIDATION_FORMATS)
        )),
        _ => None,
    }
}
