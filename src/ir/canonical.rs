//! Canonical data: RFC 8785 (JSON Canonicalization Scheme, JCS) serialization of typed rows, and the
//! content hash.
//!
//! Shape of `generated/data/<Table>.json`: a JSON array of row objects. Object members are sorted by the
//! UTF-16 code units of their names (RFC 8785 §3.2.3); absent optionals ([`Value::Null`]) are omitted;
//! numbers use the ECMAScript `Number.prototype.toString` form (RFC 8785 §3.2.2.3, via `ryu-js`); integers
//! with magnitude above 2^53 − 1 are written as decimal strings so that no JSON reader rounds them;
//! enum values are their member names; records are objects like rows. No white space, no trailing newline.
//!
//! The content hash is BLAKE3 over, per table in name order, the table name, its canonical data and its
//! schema file's canonical JSON, each length-prefixed; see [`content_hash`].

use crate::ir::{Field, Project, RecordDef, RecordForm, Table, Type, Value};

/// Largest integer every IEEE-754 double reader holds exactly: 2^53 − 1.
pub const MAX_SAFE_INTEGER: i128 = (1i128 << 53) - 1;

/// Write `s` as a JCS string literal (RFC 8785 §3.2.2.2): `"`, `\` and the control characters
/// U+0000–U+001F are escaped (the short forms `\b \f \n \r \t` where JSON has them, else `\u00XX`),
/// everything else, all non-ASCII included, is copied as is. Runs of characters that need no escape are
/// copied as whole byte slices: the bytes that need an escape are all ASCII, so a UTF-8 scan finds them
/// without decoding (issue 18: no per-character work for text that needs none).
pub fn write_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        i = plain_words(bytes, i);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => {
                i += 1;
                continue;
            }
        };
        // `i` is an ASCII byte, so both slice ends are character boundaries.
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(esc);
        }
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The first offset from `i` on whose 8-byte word may hold a byte [`write_string`] escapes (`"`, `\`, or
/// below U+0020), or where fewer than 8 bytes are left: whole words of plain text are skipped with three
/// word-wide tests ("has a zero byte" and "has a byte below n", exact for whether any byte matches) instead
/// of one test per byte. Chinese text, 3 bytes per character, is skipped 8 bytes at a time.
fn plain_words(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    while let Some(word) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let special = (w.wrapping_sub(ONES * 0x20) & !w & HIGH)
            | has_zero(w ^ (ONES * u64::from(b'"')))
            | has_zero(w ^ (ONES * u64::from(b'\\')));
        if special != 0 {
            return i;
        }
        i += 8;
    }
    i
}

/// Write a finite float in ECMAScript form (`1e+21`, `1e-7`, `5e-324`, `0.1`); `-0` is written `0`.
pub fn write_f64(out: &mut String, f: f64) {
    debug_assert!(f.is_finite(), "non-finite floats are rejected at typing");
    if f == 0.0 {
        out.push('0');
        return;
    }
    let mut buf = ryu_js::Buffer::new();
    out.push_str(buf.format_finite(f));
}

/// Write an integer: a JSON number within ±(2^53 − 1), else a decimal string.
pub fn write_int(out: &mut String, i: i128) {
    use std::fmt::Write;
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) {
        // Formatting into the output directly: no temporary string per number.
        let _ = write!(out, "{}", i as i64);
    } else {
        let _ = write!(out, "\"{i}\"");
    }
}

/// Sort key of RFC 8785 §3.2.3: UTF-16 code units.
pub fn utf16_key(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// Field indexes of `fields` in JCS member order.
pub fn jcs_order(fields: &[Field]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..fields.len()).collect();
    // Compared as UTF-16 code-unit sequences without collecting them (this runs for every record value).
    idx.sort_by(|&a, &b| {
        fields[a]
            .name
            .encode_utf16()
            .cmp(fields[b].name.encode_utf16())
    });
    idx
}

/// Write one value of type `ty`.
pub fn write_value(out: &mut String, project: &Project, ty: &Type, v: &Value) {
    match (ty.strip_optional(), v) {
        (_, Value::Null) => out.push_str("null"),
        (_, Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        (_, Value::Int(i)) => write_int(out, *i),
        (_, Value::Float(f)) => write_f64(out, *f),
        (_, Value::Str(s)) | (_, Value::Enum(s)) => write_string(out, s),
        (Type::Array(inner), Value::Array(items)) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, project, inner, item);
            }
            out.push(']');
        }
        (Type::Record(name), Value::Record(vals)) => {
            write_record(out, project, &project.records[name], vals);
        }
        (Type::Json, Value::Json(j)) => write_json(out, j),
        (Type::Flags(_), Value::Array(items)) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Value::Enum(m) = item {
                    write_string(out, m);
                }
            }
            out.push(']');
        }
        (_, Value::DateTime(s)) => write_string(out, &crate::ir::time::format_datetime(*s)),
        (_, Value::Duration(ms)) => write_int(out, *ms as i128),
        (_, Value::Date(d)) => write_string(out, &crate::ir::time::format_date(*d)),
        (_, Value::Time(t)) => write_string(out, &crate::ir::time::format_time(*t)),
        (Type::Map(_, vt), Value::Map(entries)) => {
            let mut keyed: Vec<(String, &Value)> =
                entries.iter().map(|(k, v)| (map_key_text(k), v)).collect();
            keyed.sort_by_key(|(k, _)| utf16_key(k));
            out.push('{');
            for (i, (k, v)) in keyed.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, project, vt, v);
            }
            out.push('}');
        }
        (Type::Union(name), Value::Union(uv)) => {
            let (tag, vals) = (&uv.tag, &uv.values);
            let u = &project.unions[name];
            let v = u.variant(tag).expect("IR invariant: union tag");
            write_union(out, project, &u.discriminator, tag, &v.fields, vals);
        }
        (t, v) => panic!("IR invariant broken: value {v:?} does not match type {t:?}"),
    }
}

/// Write an object of `fields` with `values` (same order), members in JCS order, nulls omitted.
pub fn write_object(out: &mut String, project: &Project, fields: &[Field], values: &[Value]) {
    write_object_in(out, project, fields, &jcs_order(fields), values);
}

/// [`write_object`] with the members' JCS order given (`order` = [`jcs_order`] of `fields`), for a caller
/// that writes many objects of the same fields (a table's rows).
pub fn write_object_in(
    out: &mut String,
    project: &Project,
    fields: &[Field],
    order: &[usize],
    values: &[Value],
) {
    out.push('{');
    let mut first = true;
    for &i in order {
        if matches!(values[i], Value::Null) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        write_string(out, &fields[i].name);
        out.push(':');
        write_value(out, project, &fields[i].ty, &values[i]);
    }
    out.push('}');
}

/// Write a record value in its [`RecordForm`]: an object of the declared members (an open record's extra
/// members among them, in JCS order), or a tuple's array (absent trailing elements left out).
pub fn write_record(out: &mut String, project: &Project, rec: &RecordDef, vals: &[Value]) {
    match rec.form {
        RecordForm::Closed => write_object(out, project, &rec.fields, vals),
        RecordForm::Open => {
            let n = rec.fields.len() - 1;
            let Value::Map(extra) = &vals[n] else {
                panic!("IR invariant: the extra members of {} are a map", rec.name)
            };
            let Type::Map(_, vt) = &rec.fields[n].ty else {
                panic!("IR invariant: the extra members of {} are a map", rec.name)
            };
            // (key, declared field index or extra entry index)
            let mut members: Vec<(Vec<u16>, &str, Result<usize, usize>)> = rec.fields[..n]
                .iter()
                .enumerate()
                .filter(|(i, _)| vals[*i] != Value::Null)
                .map(|(i, f)| (utf16_key(&f.name), f.name.as_str(), Ok(i)))
                .collect();
            for (j, (k, _)) in extra.iter().enumerate() {
                let Value::Str(k) = k else {
                    panic!("IR invariant: member names are strings")
                };
                members.push((utf16_key(k), k.as_str(), Err(j)));
            }
            members.sort_by(|a, b| a.0.cmp(&b.0));
            out.push('{');
            for (i, (_, name, at)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, name);
                out.push(':');
                match at {
                    Ok(fi) => write_value(out, project, &rec.fields[fi].ty, &vals[fi]),
                    Err(j) => write_value(out, project, vt, &extra[j].1),
                }
            }
            out.push('}');
        }
        RecordForm::Tuple { .. } => {
            out.push('[');
            let mut first = true;
            for item in tuple_items(rec, vals) {
                if !first {
                    out.push(',');
                }
                first = false;
                write_value(out, project, item.0, item.1);
            }
            out.push(']');
        }
    }
}

/// The elements of a tuple value in order: the present prefix elements (a [`Value::Null`] from `min` on is
/// an absent element and ends the prefix; before `min` it is a JSON null), then the rest.
pub fn tuple_items<'a>(rec: &'a RecordDef, vals: &'a [Value]) -> Vec<(&'a Type, &'a Value)> {
    let RecordForm::Tuple { min, rest } = rec.form else {
        return vec![];
    };
    let prefix = rec.fields.len() - usize::from(rest);
    let mut out = vec![];
    for (i, (f, v)) in rec.fields[..prefix].iter().zip(vals).enumerate() {
        if i >= min && *v == Value::Null {
            return out;
        }
        out.push((&f.ty, v));
    }
    if rest {
        if let (Type::Array(it), Value::Array(items)) = (&rec.fields[prefix].ty, &vals[prefix]) {
            out.extend(items.iter().map(|x| (&**it, x)));
        }
    }
    out
}

/// Write a [`Type::Json`] value as RFC 8785 JSON: members in UTF-16 order, every number in ECMAScript form
/// (as the double it is).
pub fn write_json(out: &mut String, v: &serde_json::Value) {
    write_json_as(out, v, false)
}

/// The JSON member name of a map key: a string as is, an integer in decimal.
pub fn map_key_text(k: &Value) -> String {
    match k {
        Value::Str(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        v => panic!("IR invariant: map key {v:?}"),
    }
}

/// Write a union value: the discriminator member and the variant's fields, in JCS order.
pub fn write_union(
    out: &mut String,
    project: &Project,
    disc: &str,
    tag: &str,
    fields: &[Field],
    values: &[Value],
) {
    let mut members: Vec<(&str, Option<usize>)> = vec![(disc, None)];
    members.extend(
        fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), Some(i))),
    );
    members.sort_by_key(|(n, _)| utf16_key(n));
    out.push('{');
    let mut first = true;
    for (name, i) in members {
        if let Some(i) = i {
            if values[i] == Value::Null {
                continue;
            }
        }
        if !first {
            out.push(',');
        }
        first = false;
        write_string(out, name);
        out.push(':');
        match i {
            None => write_string(out, tag),
            Some(i) => write_value(out, project, &fields[i].ty, &values[i]),
        }
    }
    out.push('}');
}

/// The JSON instance of a value as its JSON Schema sees it (for row validation): like the canonical form,
/// except that a duration is ISO 8601 text (`PT5400S`; the schema says `"type": "string"`).
pub fn schema_json(project: &Project, ty: &Type, v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match (ty.strip_optional(), v) {
        (_, Value::Duration(ms)) => J::String(crate::ir::time::iso_duration(*ms)),
        (_, Value::DateTime(s)) => J::String(crate::ir::time::format_datetime(*s)),
        (_, Value::Date(d)) => J::String(crate::ir::time::format_date(*d)),
        (_, Value::Time(t)) => J::String(crate::ir::time::format_time(*t)),
        (Type::Map(_, vt), Value::Map(entries)) => J::Object(
            entries
                .iter()
                .map(|(k, x)| (map_key_text(k), schema_json(project, vt, x)))
                .collect(),
        ),
        (Type::Union(name), Value::Union(uv)) => {
            let (tag, vals) = (&uv.tag, &uv.values);
            let u = &project.unions[name];
            let var = u.variant(tag).expect("IR invariant: union tag");
            let mut m = serde_json::Map::new();
            m.insert(u.discriminator.clone(), J::String(tag.clone()));
            for (f, x) in var.fields.iter().zip(vals) {
                if *x != Value::Null {
                    m.insert(f.name.clone(), schema_json(project, &f.ty, x));
                }
            }
            J::Object(m)
        }
        (Type::Record(name), Value::Record(vals)) => {
            let rec = &project.records[name];
            match rec.form {
                RecordForm::Tuple { .. } => J::Array(
                    tuple_items(rec, vals)
                        .into_iter()
                        .map(|(t, x)| schema_json(project, t, x))
                        .collect(),
                ),
                form => {
                    let n = rec.declared().len();
                    let mut m: serde_json::Map<String, J> = rec.fields[..n]
                        .iter()
                        .zip(vals)
                        .filter(|(_, x)| **x != Value::Null)
                        .map(|(f, x)| (f.name.clone(), schema_json(project, &f.ty, x)))
                        .collect();
                    if let (RecordForm::Open, Some(Type::Map(_, vt)), Some(Value::Map(extra))) =
                        (form, rec.fields.get(n).map(|f| &f.ty), vals.get(n))
                    {
                        for (k, x) in extra {
                            m.insert(map_key_text(k), schema_json(project, vt, x));
                        }
                    }
                    J::Object(m)
                }
            }
        }
        (Type::Json, Value::Json(j)) => (**j).clone(),
        (Type::Array(inner), Value::Array(items)) => J::Array(
            items
                .iter()
                .map(|x| schema_json(project, inner, x))
                .collect(),
        ),
        (_, Value::Array(items)) => J::Array(
            items
                .iter()
                .map(|x| schema_json(project, &Type::String, x))
                .collect(),
        ),
        _ => {
            let mut s = String::new();
            write_value(&mut s, project, ty, v);
            serde_json::from_str(&s).unwrap_or(J::Null)
        }
    }
}

/// Rows per task when one big table is rendered on several cores.
pub const CHUNK_ROWS: usize = 20_000;

/// The canonical JSON of one table: an array of its rows (see module docs). A table of more than
/// [`CHUNK_ROWS`] rows is rendered in chunks on all cores (rayon) and joined in order.
pub fn table_json(project: &Project, table: &Table) -> String {
    use rayon::prelude::*;
    let chunk = |rows: &[crate::ir::Row]| {
        let mut out = String::with_capacity(64 * rows.len());
        for (i, row) in rows.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_object(&mut out, project, &table.fields, &row.values);
        }
        out
    };
    let parts: Vec<String> = if table.rows.len() > CHUNK_ROWS {
        table.rows.par_chunks(CHUNK_ROWS).map(chunk).collect()
    } else {
        vec![chunk(&table.rows)]
    };
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum::<usize>() + 2);
    out.push('[');
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(p);
    }
    out.push(']');
    out
}

/// Canonical JSON (JCS) of an arbitrary `serde_json::Value` (used to hash schema files independently of
/// their formatting).
pub fn json_value(v: &serde_json::Value) -> String {
    let mut out = String::new();
    write_json_value(&mut out, v);
    out
}

fn write_json_value(out: &mut String, v: &serde_json::Value) {
    write_json_as(out, v, true)
}

/// JCS of `v`; with `exact_ints`, 64-bit integers keep all their digits (schema files), else every number is
/// written as the double it is (JSON values of the data).
fn write_json_as(out: &mut String, v: &serde_json::Value, exact_ints: bool) {
    match v {
        serde_json::Value::Null => out.push_str("null"),
        serde_json::Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        serde_json::Value::Number(n) => match (exact_ints, n.as_i64(), n.as_u64()) {
            (true, Some(i), _) => out.push_str(&i.to_string()),
            (true, _, Some(u)) => out.push_str(&u.to_string()),
            _ => write_f64(out, n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => write_string(out, s),
        serde_json::Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_as(out, x, exact_ints);
            }
            out.push(']');
        }
        serde_json::Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by_key(|k| utf16_key(k));
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_json_as(out, &m[k.as_str()], exact_ints);
            }
            out.push('}');
        }
    }
}

/// BLAKE3 content hash (64 lowercase hex digits) over `(table name, canonical data, canonical schema)` for
/// each table, in the order given (callers pass name order). See [`content_hash_of_digests`].
pub fn content_hash<'a>(parts: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> String {
    content_hash_of_digests(parts.into_iter().map(|(name, data, schema)| {
        (
            name,
            *blake3::hash(data.as_bytes()).as_bytes(),
            *blake3::hash(schema.as_bytes()).as_bytes(),
        )
    }))
}

/// The content hash from `(table name, BLAKE3 of the canonical data, BLAKE3 of the canonical schema)` per
/// table: BLAKE3 of `gentable-content-hash-v2`, then per part the name's byte length (little-endian u64),
/// the name, and the two 32-byte digests. Hashing digests lets a one-table rebuild
/// ([`crate::build::plan`]) combine the new table's data with the recorded digests of the others (the
/// BLAKE3 of `data/<Table>.json`, which the manifest keeps) without reading them.
pub fn content_hash_of_digests<'a>(
    parts: impl IntoIterator<Item = (&'a str, [u8; 32], [u8; 32])>,
) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"gentable-content-hash-v2");
    for (name, data, schema) in parts {
        h.update(&(name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update(&data);
        h.update(&schema);
    }
    h.finalize().to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8785 §3.2.2.2 byte by byte: the form [`write_string`] must write.
    fn escaped(s: &str) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// Word-at-a-time skipping finds every byte to escape wherever it sits in a word: each character
    /// U+0000–U+007F (and DEL, U+0080, U+00FF, 「，」, 😀 as neighbours) at every offset 0–19 of Chinese text,
    /// and random mixes.
    #[test]
    fn strings_escape_every_special_byte_at_every_offset() {
        let fillers = ["长", "a", "😀", "\u{7f}", "\u{80}", "ÿ", "「，」"];
        for c in (0u8..=0x7f).map(char::from) {
            for filler in fillers {
                for at in 0..20 {
                    let s: String = std::iter::repeat_n(filler, at)
                        .chain([c.encode_utf8(&mut [0; 4]) as &str])
                        .chain(std::iter::repeat_n(filler, 20 - at))
                        .collect();
                    let mut out = String::new();
                    write_string(&mut out, &s);
                    assert_eq!(out, escaped(&s), "{s:?}");
                }
            }
        }
        let alphabet: Vec<char> = "兵，。「」\"\\\n\r\t\u{0}\u{1f} az\u{7f}😀"
            .chars()
            .collect();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let s: String = (0..x % 40)
                .map(|k| alphabet[((x >> (k % 50)) as usize + k as usize) % alphabet.len()])
                .collect();
            let mut out = String::new();
            write_string(&mut out, &s);
            assert_eq!(out, escaped(&s), "{s:?}");
        }
    }

    fn f(x: f64) -> String {
        let mut s = String::new();
        write_f64(&mut s, x);
        s
    }

    #[test]
    fn big_tables_are_written_in_chunks_in_order() {
        use crate::ir::{Field, IntWidth, Row, Table, TableMode, Type};
        let n = CHUNK_ROWS * 2 + 7;
        let t = Table {
            name: "T".into(),
            doc: String::new(),
            mode: TableMode::List,
            fields: vec![Field::new("N", Type::Int(IntWidth::U32))],
            primary_key: vec![],
            unique_keys: vec![],
            rows: (0..n)
                .map(|i| Row {
                    values: vec![Value::Int(i as i128)],
                    origin: Default::default(),
                    columns: std::sync::Arc::from(Vec::new()),
                    tags: vec![],
                    extra: None,
                })
                .collect(),
            schema_file: "T.schema.json".into(),
            groups: vec![],
            source_order: false,
        };
        let expected: Vec<String> = (0..n).map(|i| format!("{{\"N\":{i}}}")).collect();
        assert_eq!(
            table_json(&Project::default(), &t),
            format!("[{}]", expected.join(","))
        );
    }

    #[test]
    fn numbers_follow_ecmascript() {
        assert_eq!(f(0.1), "0.1");
        assert_eq!(f(1e21), "1e+21");
        assert_eq!(f(1e20), "100000000000000000000");
        assert_eq!(f(1e-7), "1e-7");
        assert_eq!(f(5e-324), "5e-324");
        assert_eq!(f(1.7976931348623157e308), "1.7976931348623157e+308");
        assert_eq!(f(-0.0), "0");
        assert_eq!(f(3.0), "3");
        assert_eq!(f(-1.5), "-1.5");
    }

    #[test]
    fn big_integers_become_strings() {
        let mut s = String::new();
        write_int(&mut s, (1 << 53) + 1);
        assert_eq!(s, "\"9007199254740993\"");
        s.clear();
        write_int(&mut s, MAX_SAFE_INTEGER);
        assert_eq!(s, "9007199254740991");
        s.clear();
        write_int(&mut s, i64::MIN as i128);
        assert_eq!(s, "\"-9223372036854775808\"");
    }

    #[test]
    fn strings_agree_with_serde_json_on_every_escape_position() {
        // serde_json escapes exactly what RFC 8785 §3.2.2.2 requires, in the same forms: an independent
        // oracle for the slice-copying fast path, with escapes at the start, the end, back to back and
        // between multi-byte characters.
        let pieces = [
            "",
            "a",
            "，",
            "。",
            "「引号」",
            "😀",
            "\"",
            "\\",
            "\n",
            "\r",
            "\t",
            "\u{8}",
            "\u{c}",
            "\u{0}",
            "\u{1f}",
            "\u{7f}",
            "\u{2028}",
            "é",
            "HP+15%",
        ];
        let mut n = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = format!("{a}{b}{c}");
                    let mut ours = String::new();
                    write_string(&mut ours, &text);
                    assert_eq!(ours, serde_json::to_string(&text).unwrap(), "{text:?}");
                    n += 1;
                }
            }
        }
        assert_eq!(n, pieces.len().pow(3));
    }

    #[test]
    fn strings_escape_only_what_jcs_requires() {
        let mut s = String::new();
        write_string(&mut s, "a\"b\\c\td\n\u{1}€😀\u{2028}</");
        assert_eq!(s, "\"a\\\"b\\\\c\\td\\n\\u0001€😀\u{2028}</\"");
    }

    #[test]
    fn object_keys_sort_by_utf16() {
        // RFC 8785 §3.2.3 example: "\u{20ac}" (U+20AC) sorts before "😀" (D83D DE00) in UTF-16 but after it in
        // code points? No: U+20AC = 0x20AC < 0xD83D, and U+FB33 (0xFB33) sorts after 0xD83D in UTF-16.
        let v: serde_json::Value = serde_json::json!({"\u{fb33}": 1, "😀": 2, "a": 3, "€": 4});
        assert_eq!(json_value(&v), "{\"a\":3,\"€\":4,\"😀\":2,\"\u{fb33}\":1}");
    }

    #[test]
    fn hash_depends_on_every_part() {
        let a = content_hash([("T", "[1]", "{}")]);
        assert_eq!(a.len(), 64);
        assert_ne!(a, content_hash([("T", "[2]", "{}")]));
        assert_ne!(a, content_hash([("T", "[1]", "{\"a\":1}")]));
        assert_ne!(
            content_hash([("ab", "c", "")]),
            content_hash([("a", "bc", "")])
        );
        assert_eq!(a, content_hash([("T", "[1]", "{}")]));
    }
}
