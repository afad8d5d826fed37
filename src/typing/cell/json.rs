//! JSON text in cells (JSON literal cells, [`crate::ir::Type::Json`] values), read strictly: RFC 8259 with no
//! duplicate member names (`serde_json` would keep the last one and drop the other without a word), and
//! numbers of a JSON value checked to be what the canonical data will hold.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value as J};
use std::fmt;

/// Why a text is not a strict JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Not JSON at all (the parser's message, with line and column): for a cell that may also be read by the
    /// cell grammar, a reason to try that instead.
    Syntax(String),
    /// JSON, but a member name is given twice (or a number is not finite): always an error.
    Duplicate(String),
    /// JSON, but a number in it is too large for a 64-bit double (`1e400`): always an error, never read as
    /// infinity. Holds the message of a located cell error ("a number in … is out of range …").
    OutOfRange(String),
    /// JSON, but a number in it would not ship as written: its double prints otherwise (`1e-400`,
    /// `0.12345678901234567890`, a 30-digit integer, or `890713491284145.25`, exactly a double that prints
    /// shorter): always an error, never a silently different number. Holds the message of a located cell error.
    Inexact(String),
}

/// Parse `text` as one JSON value.
pub fn parse(text: &str) -> Result<J, Error> {
    let classify = |e: serde_json::Error| {
        match e.classify() {
        serde_json::error::Category::Data => Error::Duplicate(e.to_string()),
        // serde_json's own words for a number beyond ±1.7976931348623157e308 (its `NumberOutOfRange`).
        _ if e.to_string().starts_with("number out of range") => Error::OutOfRange(format!(
            "a number in {text:?} is out of range: JSON numbers are 64-bit doubles, at most ±1.7976931348623157e308"
        )),
        _ => Error::Syntax(e.to_string()),
    }
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Strict::deserialize(&mut de).map_err(classify)?;
    de.end().map_err(classify)?;
    if let Some((literal, f)) = inexact_number(text) {
        // The words of [`super::inexact_words`], whole sentences for the Chinese catalog.
        let ships = super::shipped(f);
        let exactly = super::exactly_double(literal, f);
        return Err(Error::Inexact(match (literal.contains(['.', 'e', 'E']), exactly) {
            (true, false) => format!("the number {literal} in {text:?} has no exact 64-bit float: it would ship as {ships}"),
            (true, true) => format!("the number {literal} in {text:?} is exactly a 64-bit float, whose shortest form is {ships}: it would ship as {ships}"),
            // Beyond `i64`/`u64`: no integer field holds it either.
            (false, false) => format!("the whole number {literal} in {text:?} is beyond 64-bit integers and has no exact 64-bit float: it would ship as {ships}"),
            (false, true) => format!("the whole number {literal} in {text:?} is beyond 64-bit integers and is exactly a 64-bit float, whose shortest form is {ships}: it would ship as {ships}"),
        }));
    }
    Ok(v.0)
}

/// The first number literal of `text` (valid JSON) whose nearest double does not write it back exactly, and
/// that double. Integer literals within `i64`/`u64` are kept as
/// integers by the parser and are not doubles here ([`check_value`] judges those of a JSON value).
fn inexact_number(text: &str) -> Option<(&str, f64)> {
    let b = text.as_bytes();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        match b[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'-' | b'0'..=b'9' if !in_string => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let literal = &text[start..i];
                let integer = !literal.contains(['.', 'e', 'E']);
                if integer && (literal.parse::<i64>().is_ok() || literal.parse::<u64>().is_ok()) {
                    continue;
                }
                // Valid JSON: every number literal parses (one beyond a double was refused before).
                let f = literal.parse::<f64>().ok()?;
                if !super::exact_decimal(literal, f) {
                    return Some((literal, f));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Every number literal of the JSON text `text` (valid JSON) that its nearest double does not write back
/// exactly, as ([RFC 6901] JSON pointer of its place, the literal, that double), in text order. Integer literals within `i64`/`u64` are skipped (a JSON literal cell's parser keeps them as integers). Used
/// for schema files, whose parsed JSON has lost the literal (a float `default` that would ship as another
/// number, GT0404).
///
/// [RFC 6901]: https://www.rfc-editor.org/rfc/rfc6901
pub fn inexact_numbers(text: &str) -> Vec<(String, String, f64)> {
    /// Where the scanner is: in an object (the member name the next value belongs to, whether a name is
    /// expected next) or an array (the index of the current item).
    enum Frame {
        Object(Option<String>, bool),
        Array(usize),
    }
    let pointer = |stack: &[Frame]| -> String {
        stack
            .iter()
            .map(|f| match f {
                Frame::Object(Some(k), _) => {
                    format!("/{}", k.replace('~', "~0").replace('/', "~1"))
                }
                Frame::Object(None, _) => String::new(),
                Frame::Array(i) => format!("/{i}"),
            })
            .collect()
    };
    let mut out = vec![];
    if inexact_number(text).is_none() {
        return out;
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = vec![];
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => stack.push(Frame::Object(None, true)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object(_, expect)) => *expect = true,
                Some(Frame::Array(n)) => *n += 1,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let end = (i + 1).min(b.len());
                if let Some(Frame::Object(key, expect @ true)) = stack.last_mut() {
                    *key = serde_json::from_str::<String>(&text[start..end]).ok();
                    *expect = false;
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                if let Some((literal, f)) = inexact_number(&text[start..i]) {
                    out.push((pointer(&stack), literal.to_string(), f));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

struct Strict(J);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = J;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<J, E> {
        Ok(J::Bool(b))
    }
    fn visit_i64<E>(self, v: i64) -> Result<J, E> {
        Ok(J::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<J, E> {
        Ok(J::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<J, E> {
        Number::from_f64(v)
            .map(J::Number)
            .ok_or_else(|| E::custom(format!("{v} is not a finite number")))
    }
    fn visit_str<E>(self, v: &str) -> Result<J, E> {
        Ok(J::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<J, E> {
        Ok(J::String(v))
    }
    fn visit_unit<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_none<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
        let mut out = vec![];
        while let Some(Strict(x)) = seq.next_element()? {
            out.push(x);
        }
        Ok(J::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if out.contains_key(&k) {
                return Err(de::Error::custom(format!(
                    "the member {k:?} is given twice"
                )));
            }
            out.insert(k, v);
        }
        Ok(J::Object(out))
    }
}

/// Check that a number the parser kept as an integer (within `i64`/`u64`) is written back exactly by the
/// double it becomes (a JSON value's numbers and a `number` field's are doubles): `9007199254740993`
/// (2^53 + 1) and `1152921504606846976` (2^60, which prints as `1152921504606847000`) are not. Same words as
/// [`parse`]'s for other numbers; a number the parser read as a double was judged there.
pub fn exact_integer(n: &Number) -> Result<(), String> {
    let v = match (n.as_i64(), n.as_u64()) {
        (Some(i), _) => i128::from(i),
        (_, Some(u)) => i128::from(u),
        _ => return Ok(()),
    };
    let (text, f) = (v.to_string(), v as f64);
    if super::exact_decimal(&text, f) {
        return Ok(());
    }
    Err(format!(
        "the number {text} {}",
        super::inexact_words(&text, f)
    ))
}

/// Check a JSON value for [`crate::ir::Type::Json`]: every number is a double that prints as written (an
/// integer beyond ±2^53 that its double rounds, or prints shorter like 2^60, is an error, never a silently
/// different number).
pub fn check_value(v: &J) -> Result<(), String> {
    match v {
        J::Number(n) => exact_integer(n),
        J::Array(a) => a.iter().try_for_each(check_value),
        J::Object(m) => m.values().try_for_each(check_value),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    /// Pointers of inexact number literals: member names with `/`, `~`, escapes and digits, array items,
    /// strings holding numbers and quotes; exact literals and integers are not listed.
    #[test]
    fn inexact_numbers_are_found_with_their_pointers() {
        let text = r#"{"a/b": {"x~": [1, 0.12345678901234567890, "9007199254740993.5 \" 0.3"]},
            "d\u0065fault": {"default": 890713491284145.3}, "ok": [0.1, 9007199254740993],
            "0.1234567890123456789": 2}"#;
        assert_eq!(
            super::inexact_numbers(text),
            [
                (
                    "/a~1b/x~0/1".to_string(),
                    "0.12345678901234567890".to_string(),
                    0.12345678901234568
                ),
                (
                    "/default/default".to_string(),
                    "890713491284145.3".to_string(),
                    890713491284145.0 + 0.25
                ),
            ]
        );
        assert!(
            super::inexact_numbers(r#"{"a": [0.5, 1e21, "0.12345678901234567890"]}"#).is_empty()
        );
    }
    use super::*;

    #[test]
    fn duplicate_members_and_inexact_numbers_are_errors() {
        assert_eq!(
            parse(r#"{"a":1,"b":[true,null,"x"]}"#),
            Ok(serde_json::json!({"a":1,"b":[true,null,"x"]}))
        );
        let Err(Error::Duplicate(e)) = parse(r#"{"a":1,"a":2}"#) else {
            panic!("a member given twice must be an error")
        };
        assert!(e.contains("\"a\" is given twice"), "{e}");
        assert!(matches!(parse("abc"), Err(Error::Syntax(_))));
        let Err(Error::OutOfRange(e)) = parse("[1, 1e400]") else {
            panic!("a number beyond a double must be out of range, not a syntax error")
        };
        assert!(e.contains("\"[1, 1e400]\" is out of range"), "{e}");
        assert!(parse("[1,2").is_err());
        assert!(parse("1 2").is_err());
        assert!(check_value(&parse("9007199254740992").unwrap()).is_ok());
        let e = check_value(&parse("[9007199254740993]").unwrap()).unwrap_err();
        assert!(e.contains("9007199254740993"), "{e}");
        assert!(check_value(&parse("0.1").unwrap()).is_ok());
        // Numbers a double does not write back: an error naming the literal and what would ship.
        for (text, literal, shipped) in [
            ("1e-400", "1e-400", "0"),
            (
                r#"{"a":[1, 0.12345678901234567890]}"#,
                "0.12345678901234567890",
                "0.12345678901234568",
            ),
            (
                r#"{"s":"1e-400 \" 2","n":-2.50000000000000000001}"#,
                "-2.50000000000000000001",
                "-2.5",
            ),
        ] {
            let Err(Error::Inexact(e)) = parse(text) else {
                panic!("{text}: an inexact number must be an error")
            };
            assert_eq!(
                e,
                format!("the number {literal} in {text:?} has no exact 64-bit float: it would ship as {shipped}")
            );
        }
        // A whole number beyond 64-bit integers says so (no integer field holds it either).
        let Err(Error::Inexact(e)) = parse("[123456789012345678901234567890]") else {
            panic!("a 30-digit integer must be an error")
        };
        assert_eq!(e, "the whole number 123456789012345678901234567890 in \"[123456789012345678901234567890]\" is beyond 64-bit integers and has no exact 64-bit float: it would ship as 1.2345678901234568e+29");
        // An exponent beyond i64 does not make an underflow look like an exact 0; a zero mantissa is 0.
        assert!(matches!(
            parse("1e-99999999999999999999"),
            Err(Error::Inexact(_))
        ));
        assert!(parse("0e-99999999999999999999").is_ok());
        // Integers the parser keeps (within i64/u64) are judged as doubles where they become doubles.
        for (n, shipped) in [
            ("9007199254740993", "9007199254740992"),
            ("18446744073709551615", "18446744073709552000"),
        ] {
            assert_eq!(
                check_value(&parse(n).unwrap()),
                Err(format!(
                    "the number {n} has no exact 64-bit float: it would ship as {shipped}"
                ))
            );
        }
        // 2^60 is a double, every digit of it; it prints shorter.
        assert_eq!(
            check_value(&parse("1152921504606846976").unwrap()),
            Err("the number 1152921504606846976 is exactly a 64-bit float, whose shortest form is 1152921504606847000: it would ship as 1152921504606847000".to_string())
        );
        // The same words in a JSON literal: a tie written exactly, and a whole number beyond 64-bit integers
        // that is a double (2^100).
        let Err(Error::Inexact(e)) = parse("[890713491284145.25]") else {
            panic!("a tie written in full must be an error")
        };
        assert_eq!(e, "the number 890713491284145.25 in \"[890713491284145.25]\" is exactly a 64-bit float, whose shortest form is 890713491284145.2: it would ship as 890713491284145.2");
        let Err(Error::Inexact(e)) = parse("1267650600228229401496703205376") else {
            panic!("2^100 must be an error")
        };
        assert_eq!(e, "the whole number 1267650600228229401496703205376 in \"1267650600228229401496703205376\" is beyond 64-bit integers and is exactly a 64-bit float, whose shortest form is 1.2676506002282294e+30: it would ship as 1.2676506002282294e+30");
        assert!(
            check_value(&parse("[9007199254740992, -9007199254740992, 1024]").unwrap()).is_ok()
        );
        // Exact ones, numbers inside strings and 64-bit integers are not.
        for text in [
            "0.5",
            "-0",
            "1.0e2",
            "[1e308, 2.5e-308]",
            r#"{"s":"1e-400"}"#,
            "18446744073709551615",
            "-9223372036854775808",
        ] {
            assert!(parse(text).is_ok(), "{text}");
        }
    }
}
