//! Binary data files (docs/data-format.md §3, format 1): the encoder. The same bytes are embedded in the Rust
//! crate (`generated/rust/data/<Table>.bytes`) and, with `data = ["binary"]`, read by the C# and TypeScript
//! loaders.
//!
//! A file is a 152-byte header (magic, version, flags, CRC-32, length, `dataHash`, `schemaHash`), then the
//! table name, the string table (every distinct string once, in order of first use), the row count and the
//! rows, each field written by its schema type: varints for unsigned integers, enum members, union variants,
//! counts and string indexes; zigzag varints for signed integers, date-times, dates and durations; varints for times of day; 8 little-endian
//! bytes for numbers; a 0/1 byte for booleans and optional tags; a scalar union's member index, then the
//! member's value; a JSON value's kind, then its body.

use crate::ir::{Project, Table, Type, Value};
use anyhow::{bail, Context, Result};
use std::collections::HashMap;

/// The file's first 8 bytes: `\x89GTB\r\n\x1a\n` (a text-mode transfer or a line-ending conversion breaks them).
pub const MAGIC: [u8; 8] = [0x89, b'G', b'T', b'B', 0x0d, 0x0a, 0x1a, 0x0a];
/// The format version this module writes.
pub const VERSION: u16 = 1;
/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 152;

/// The binary data file of `table`, whose canonical data hashes to `data_hash` and whose schema hash is
/// `schema_hash` (both 64 hex digits). `Err` only if the IR breaks its invariants (a value that does not
/// match its field's type), which validation rules out.
pub fn encode(
    project: &Project,
    table: &Table,
    data_hash: &str,
    schema_hash: &str,
) -> Result<Vec<u8>> {
    if data_hash.len() != 64 || schema_hash.len() != 64 {
        bail!("table {}: hashes must be 64 hex digits", table.name);
    }
    let mut enc = Encoder {
        project,
        body: Vec::with_capacity(table.rows.len() * 16 * table.fields.len().max(1)),
        strings: HashMap::new(),
        order: vec![],
    };
    for (i, row) in table.rows.iter().enumerate() {
        for (f, v) in table.fields.iter().zip(&row.values) {
            enc.value(&f.ty, v)
                .with_context(|| format!("table {} row {i} field {}", table.name, f.name))?;
        }
    }
    let mut out = Vec::with_capacity(HEADER_LEN + enc.body.len() + 64 * enc.order.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // CRC-32, below
    out.extend_from_slice(&[0; 8]); // length, below
    out.extend_from_slice(data_hash.as_bytes());
    out.extend_from_slice(schema_hash.as_bytes());
    debug_assert_eq!(out.len(), HEADER_LEN);
    varint(&mut out, table.name.len() as u64);
    out.extend_from_slice(table.name.as_bytes());
    varint(&mut out, enc.order.len() as u64);
    for s in &enc.order {
        varint(&mut out, s.len() as u64);
    }
    for s in &enc.order {
        out.extend_from_slice(s.as_bytes());
    }
    varint(&mut out, table.rows.len() as u64);
    out.extend_from_slice(&enc.body);
    let len = out.len() as u64;
    out[16..24].copy_from_slice(&len.to_le_bytes());
    let crc = crc32fast::hash(&out[16..]);
    out[12..16].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// Unsigned LEB128, shortest form.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Zigzag: 0, −1, 1, −2 … → 0, 1, 2, 3 …, then LEB128.
fn zigzag(out: &mut Vec<u8>, v: i64) {
    varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

struct Encoder<'a> {
    project: &'a Project,
    body: Vec<u8>,
    /// String → its index in the string table.
    strings: HashMap<&'a str, u64>,
    /// The string table in index order.
    order: Vec<&'a str>,
}

impl<'a> Encoder<'a> {
    fn string(&mut self, s: &'a str) {
        let next = self.order.len() as u64;
        let i = *self.strings.entry(s).or_insert(next);
        if i == next {
            self.order.push(s);
        }
        varint(&mut self.body, i);
    }

    fn value(&mut self, ty: &Type, v: &'a Value) -> Result<()> {
        match (ty, v) {
            (Type::Optional(t), Value::Null) => {
                let _ = t;
                self.body.push(0);
            }
            (Type::Optional(t), v) => {
                self.body.push(1);
                // Nested optionals count once: the tag, then the innermost value.
                let mut t: &Type = t;
                while let Type::Optional(inner) = t {
                    t = inner;
                }
                self.value(t, v)?;
            }
            (Type::Bool, Value::Bool(b)) => self.body.push(*b as u8),
            (Type::Int(w), Value::Int(i)) => {
                let (lo, hi) = w.range();
                if *i < lo || *i > hi {
                    bail!("integer {i} outside {}", w.rust_name());
                }
                if lo < 0 {
                    zigzag(&mut self.body, *i as i64);
                } else {
                    varint(&mut self.body, *i as u64);
                }
            }
            (Type::Float, Value::Float(f)) => self.number(*f)?,
            (Type::String, Value::Str(s)) => self.string(s),
            (Type::Enum(n), Value::Enum(m)) => {
                let i = self.member(n, m)?;
                varint(&mut self.body, i);
            }
            (Type::Flags(n), Value::Array(items)) => {
                let mut bits = 0u64;
                for it in items {
                    let Value::Enum(m) = it else {
                        bail!("flag {it:?} is not a member");
                    };
                    bits |= 1 << self.member(n, m)?;
                }
                varint(&mut self.body, bits);
            }
            (Type::DateTime(_), Value::DateTime(s)) => zigzag(&mut self.body, *s),
            (Type::Duration, Value::Duration(ms)) => zigzag(&mut self.body, *ms),
            (Type::Date, Value::Date(days)) => zigzag(&mut self.body, *days),
            (Type::Time(_), Value::Time(secs)) => varint(&mut self.body, u64::from(*secs)),
            (Type::Array(t), Value::Array(items)) => {
                varint(&mut self.body, items.len() as u64);
                for it in items {
                    self.value(t, it)?;
                }
            }
            (Type::Map(kt, vt), Value::Map(entries)) => {
                varint(&mut self.body, entries.len() as u64);
                for (k, x) in entries {
                    self.value(kt, k)?;
                    self.value(vt, x)?;
                }
            }
            (Type::Record(n), Value::Record(vals)) => {
                let project = self.project;
                let rec = project.records.get(n).context("record type")?;
                for (f, x) in rec.fields.iter().zip(vals) {
                    self.value(&f.ty, x)?;
                }
            }
            (Type::Union(n), Value::Union(tag, vals)) => {
                let project = self.project;
                let u = project.unions.get(n).context("union type")?;
                let Some(i) = u.variants.iter().position(|v| v.tag == *tag) else {
                    bail!("{tag} is not a kind of {n}");
                };
                varint(&mut self.body, i as u64);
                for (f, x) in u.variants[i].fields.iter().zip(vals) {
                    self.value(&f.ty, x)?;
                }
            }
            (Type::Json, Value::Json(j)) => self.json(j)?,
            (Type::Choice(n), v) => {
                let project = self.project;
                let c = project.choices.get(n).context("scalar union type")?;
                let Some(m) = c.member_of(v) else {
                    bail!("{v:?} is not {}", c.words());
                };
                let i = c.members.iter().position(|x| std::ptr::eq(x, m));
                varint(&mut self.body, i.context("member index")? as u64);
                match (m, v) {
                    // A number member holds whole numbers too: written as the double they are.
                    (Type::Float, Value::Int(x)) => self.number(*x as f64)?,
                    _ => self.value(m, v)?,
                }
            }
            (t, v) => bail!("IR invariant: value {v:?} does not match {t:?}"),
        }
        Ok(())
    }

    /// A finite number as 8 little-endian bytes; `-0` is written as `0`, as canonical JSON writes it.
    fn number(&mut self, f: f64) -> Result<()> {
        if !f.is_finite() {
            bail!("number {f} is not finite");
        }
        let f = if f == 0.0 { 0.0 } else { f };
        self.body.extend_from_slice(&f.to_le_bytes());
        Ok(())
    }

    /// A JSON value ([`Type::Json`]): a varint kind (0 null, 1 false, 2 true, 3 number, 4 string, 5 array,
    /// 6 object), then a number's 8 bytes, a string's index, or a count and the items, or a count and the
    /// members (name's string index, value) in RFC 8785 order (by the UTF-16 code units of the names).
    fn json(&mut self, j: &'a serde_json::Value) -> Result<()> {
        use serde_json::Value as J;
        match j {
            J::Null => varint(&mut self.body, 0),
            J::Bool(b) => varint(&mut self.body, 1 + u64::from(*b)),
            J::Number(n) => {
                varint(&mut self.body, 3);
                self.number(n.as_f64().context("a JSON number")?)?;
            }
            J::String(s) => {
                varint(&mut self.body, 4);
                self.string(s);
            }
            J::Array(items) => {
                varint(&mut self.body, 5);
                varint(&mut self.body, items.len() as u64);
                for x in items {
                    self.json(x)?;
                }
            }
            J::Object(m) => {
                varint(&mut self.body, 6);
                varint(&mut self.body, m.len() as u64);
                let mut members: Vec<(Vec<u16>, &'a String, &'a serde_json::Value)> = m
                    .iter()
                    .map(|(k, v)| (k.encode_utf16().collect(), k, v))
                    .collect();
                members.sort_by(|a, b| a.0.cmp(&b.0));
                for (_, k, v) in members {
                    self.string(k);
                    self.json(v)?;
                }
            }
        }
        Ok(())
    }

    /// The declaration index of member `m` of enum `n`.
    fn member(&self, n: &str, m: &str) -> Result<u64> {
        let e = self.project.enums.get(n).context("enum type")?;
        match e.members.iter().position(|x| x == m) {
            Some(i) => Ok(i as u64),
            None => bail!("{m} is not a member of {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{EnumDef, Field, IntWidth, Row, TableMode};

    fn project() -> Project {
        let mut p = Project::default();
        p.enums.insert(
            "Dir".into(),
            EnumDef {
                name: "Dir".into(),
                doc: String::new(),
                members: vec!["N".into(), "S".into(), "E".into()],
                aliases: vec![],
                values: None,
                idents: vec![],
                origin: String::new(),
            },
        );
        p
    }

    #[test]
    fn bytes_follow_the_documented_layout() {
        let p = project();
        let fields = vec![
            Field::new("id", Type::Int(IntWidth::U16)),
            Field::new("d", Type::Int(IntWidth::I8)),
            Field::new("name", Type::String),
            Field::new("opt", Type::Optional(Box::new(Type::Float))),
            Field::new("dir", Type::Enum("Dir".into())),
            Field::new("flags", Type::Flags("Dir".into())),
            Field::new("tags", Type::Array(Box::new(Type::String))),
        ];
        let e = |m: &str| Value::Enum(m.into());
        let t = Table {
            rows: vec![
                Row::new(vec![
                    Value::Int(300),
                    Value::Int(-2),
                    Value::Str("長槍，「兵」".into()),
                    Value::Float(-0.0),
                    e("S"),
                    Value::Array(vec![e("N"), e("E")]),
                    Value::Array(vec![
                        Value::Str("a".into()),
                        Value::Str("長槍，「兵」".into()),
                    ]),
                ]),
                Row::new(vec![
                    Value::Int(1),
                    Value::Int(3),
                    Value::Str("a".into()),
                    Value::Null,
                    e("E"),
                    Value::Array(vec![]),
                    Value::Array(vec![]),
                ]),
            ],
            ..Table::new("T", TableMode::List, fields)
        };
        let (dh, sh) = ("d".repeat(64), "s".repeat(64));
        let b = encode(&p, &t, &dh, &sh).unwrap();
        assert_eq!(&b[..8], b"\x89GTB\r\n\x1a\n");
        assert_eq!(&b[8..12], &[1, 0, 0, 0]);
        assert_eq!(
            u64::from_le_bytes(b[16..24].try_into().unwrap()),
            b.len() as u64
        );
        assert_eq!(
            u32::from_le_bytes(b[12..16].try_into().unwrap()),
            crc32fast::hash(&b[16..])
        );
        assert_eq!(&b[24..88], dh.as_bytes());
        assert_eq!(&b[88..152], sh.as_bytes());
        let cjk = "長槍，「兵」".as_bytes();
        let mut want = vec![1, b'T', 2, cjk.len() as u8, 1];
        want.extend_from_slice(cjk);
        want.push(b'a');
        want.push(2); // rows
                      // Row 0: 300 = ac 02; -2 → zigzag 3; string 0; optional present, +0.0; S = 1; N|E = 0b101;
                      // two tags: "a" (string 1), the CJK string (string 0).
        want.extend_from_slice(&[0xac, 0x02, 3, 0, 1]);
        want.extend_from_slice(&0.0f64.to_le_bytes());
        want.extend_from_slice(&[1, 0b101, 2, 1, 0]);
        // Row 1: 1; 3 → zigzag 6; "a"; absent; E = 2; no flags; no tags.
        want.extend_from_slice(&[1, 6, 1, 0, 2, 0, 0]);
        assert_eq!(&b[152..], &want[..]);
    }

    #[test]
    fn json_values_and_scalar_unions_follow_the_documented_layout() {
        let mut p = project();
        p.choices.insert(
            "Amount".into(),
            crate::ir::ChoiceDef {
                name: "Amount".into(),
                doc: String::new(),
                members: vec![Type::Float, Type::String],
                origin: String::new(),
            },
        );
        let fields = vec![
            Field::new("j", Type::Json),
            Field::new("a", Type::Array(Box::new(Type::Choice("Amount".into())))),
        ];
        // Members out of RFC 8785 order in the value: written as "a", "€", "😀", "Ａ" (UTF-16 order).
        let j: serde_json::Value =
            serde_json::from_str(r#"{"Ａ":null,"😀":[true,false],"€":-0.0,"a":"長槍，「兵」"}"#)
                .unwrap();
        let t = Table {
            rows: vec![Row::new(vec![
                Value::Json(j),
                Value::Array(vec![
                    Value::Int(12),
                    Value::Str("all".into()),
                    Value::Float(2.5),
                ]),
            ])],
            ..Table::new("T", TableMode::List, fields)
        };
        let b = encode(&p, &t, &"d".repeat(64), &"s".repeat(64)).unwrap();
        // Strings in order of first use: a, 長槍，「兵」, €, 😀, Ａ, all.
        let strings = ["a", "長槍，「兵」", "€", "😀", "Ａ", "all"];
        let mut want = vec![1, b'T', strings.len() as u8];
        want.extend(strings.iter().map(|s| s.len() as u8));
        for s in strings {
            want.extend_from_slice(s.as_bytes());
        }
        want.push(1); // rows
                      // An object of 4 members: "a" → string 1; "€" → number 0 (-0 as 0); "😀" → array [true, false];
                      // "Ａ" → null.
        want.extend_from_slice(&[6, 4, 0, 4, 1, 2, 3]);
        want.extend_from_slice(&0.0f64.to_le_bytes());
        want.extend_from_slice(&[3, 5, 2, 2, 1, 4, 0]);
        // Three amounts: 12 in the number member (index 0) as its double, "all" (member 1, string 5), 2.5.
        want.extend_from_slice(&[3, 0]);
        want.extend_from_slice(&12.0f64.to_le_bytes());
        want.extend_from_slice(&[1, 5, 0]);
        want.extend_from_slice(&2.5f64.to_le_bytes());
        assert_eq!(&b[152..], &want[..]);
    }

    #[test]
    fn varints_and_zigzag() {
        let mut v = vec![];
        varint(&mut v, u64::MAX);
        assert_eq!(
            v,
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        for (n, z) in [(0i64, 0u8), (-1, 1), (1, 2), (-2, 3), (63, 126), (-64, 127)] {
            let mut v = vec![];
            zigzag(&mut v, n);
            assert_eq!(v, [z], "{n}");
        }
        let mut v = vec![];
        zigzag(&mut v, i64::MIN);
        let mut w = vec![];
        varint(&mut w, u64::MAX);
        assert_eq!(v, w);
    }

    #[test]
    fn values_that_break_the_ir_are_errors() {
        let p = project();
        let t = Table {
            rows: vec![Row::new(vec![Value::Int(256)])],
            ..Table::new(
                "T",
                TableMode::List,
                vec![Field::new("x", Type::Int(IntWidth::U8))],
            )
        };
        let err = encode(&p, &t, &"0".repeat(64), &"0".repeat(64)).unwrap_err();
        assert!(format!("{err:#}").contains("row 0 field x"), "{err:#}");
    }
}
