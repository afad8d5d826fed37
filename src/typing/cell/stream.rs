//! Luban's stream form of a cell (docs/conventions.md §3 "Luban's cell dialect"): the text is split into
//! tokens by the separator characters of the level being read, and values take tokens in order.
//!
//! Source: Luban's Excel data format (`#sep=`, bean `sep`, `(list#sep=;),Bean#sep=,`), read from its
//! documentation and the example project in `../shared/realdata/luban-examples/`. The rules:
//! * a scalar takes one token (trimmed, except strings, which are taken as written);
//! * a record or union **with** a separator (`x-gentable-separator` on the property or on its definition)
//!   takes one token and splits it into its own tokens; **without** one it reads its fields from the
//!   enclosing tokens, so `1,true,2,false` is two records of `(int, bool)` in a list separated by `,`;
//! * a union first takes the kind (`DemoD2,1,2`), then the variant's fields;
//! * an array or a map with a separator takes one token and reads elements (a map: key, value, key, value…)
//!   until that token is used up; without one it reads elements until the enclosing tokens are used up;
//! * in a nullable type, the table's `null_text` (Luban's `null`) as a token is null;
//! * every token must be used: a left-over token is an error naming it.

use super::{parse_scalar, trim, CellError};
use crate::diag::Code;
use crate::ir::{Field, Project, Type, Value};

/// What splits a whole cell of a list or map that names no separator (Luban's defaults: `1,2,3`, `1;2;3`).
const DEFAULT_SEPARATORS: &str = ",;|";

/// Tokens of one level and the position of the next.
struct Tokens {
    items: Vec<String>,
    at: usize,
    /// The one token is a whole cell (the top level): a list or map without a separator splits it by
    /// [`DEFAULT_SEPARATORS`].
    cell: bool,
}

impl Tokens {
    fn of(text: &str, seps: Option<&str>) -> Tokens {
        let items = match seps {
            Some(s) => text.split(|c| s.contains(c)).map(String::from).collect(),
            None => vec![text.to_string()],
        };
        Tokens {
            items,
            at: 0,
            cell: false,
        }
    }
    fn next(&mut self, what: &str) -> Result<String, CellError> {
        let t = self.items.get(self.at).cloned().ok_or_else(|| {
            CellError::new(
                Code::BadGrammar,
                format!("the cell ends where {what} was expected"),
            )
            .help("Luban's stream form: every field of a record takes one value, in declaration order")
        })?;
        self.at += 1;
        Ok(t)
    }
    fn peek(&self) -> Option<&str> {
        self.items.get(self.at).map(String::as_str)
    }
    fn done(&self) -> bool {
        self.at >= self.items.len()
    }
    /// [`Tokens::done`], after taking a lone empty token (an empty sub-cell is an empty list or map).
    fn skip_empty(&mut self) -> bool {
        if self.items.len() == 1 && self.at == 0 && trim(&self.items[0]).is_empty() {
            self.at = 1;
        }
        self.done()
    }
}

/// The tokens of the next level: with a separator, the next token split by it (kept in `store`); without
/// one, the enclosing tokens.
fn level<'s>(
    t: &'s mut Tokens,
    store: &'s mut Option<Tokens>,
    sep: Option<&str>,
    what: &str,
) -> Result<&'s mut Tokens, CellError> {
    match sep {
        Some(sep) => {
            let tok = t.next(what)?;
            Ok(store.insert(Tokens::of(&tok, Some(sep))))
        }
        None => Ok(t),
    }
}

/// Read one cell of field `f` in Luban's stream form. `null_text` is the table's text for null.
pub fn parse_field(
    text: &str,
    f: &Field,
    project: &Project,
    null_text: Option<&str>,
) -> Result<Value, CellError> {
    let r = Reader { project, null_text };
    let mut top = Tokens::of(text, None);
    top.cell = true;
    let v = r.read(
        &f.ty,
        f.separator.as_deref(),
        f.item_separator.as_deref(),
        &mut top,
    )?;
    r.finish(&top)?;
    Ok(v)
}

/// Luban's string: `""` is the empty string (an empty cell is null in a nullable field, `""` is not);
/// anything else is taken as written.
pub fn luban_string(s: String) -> String {
    if s.trim() == "\"\"" {
        String::new()
    } else {
        s
    }
}

/// Luban's forms of other scalars: hexadecimal integers (`0x200`, `0X200`) as decimal; flags separated by
/// `,` as well as `|` (`A,B`). Other text is returned as is.
pub fn luban_scalar(s: &str, ty: &Type) -> String {
    match ty {
        Type::Int(_) => {
            let (neg, body) = match s.strip_prefix('-') {
                Some(b) => (true, b),
                None => (false, s),
            };
            match body
                .strip_prefix("0x")
                .or_else(|| body.strip_prefix("0X"))
                .and_then(|h| i128::from_str_radix(h, 16).ok())
            {
                Some(v) => format!("{}{v}", if neg { "-" } else { "" }),
                None => s.to_string(),
            }
        }
        Type::Flags(_) => s.replace(',', "|"),
        _ => s.to_string(),
    }
}

/// Luban's date-time text with one-digit parts (`1999-8-4 10:09:09`, `2020-1-1 0:00`) zero-padded to the
/// form gentable's date-time reader takes (`1999-08-04 10:09:09`); other text is returned as is.
pub fn luban_datetime(s: &str) -> String {
    let Some((date, time)) = s.split_once(' ').or(Some((s, ""))) else {
        return s.to_string();
    };
    let d: Vec<&str> = date.split('-').collect();
    let tm: Vec<&str> = if time.is_empty() {
        vec![]
    } else {
        time.split(':').collect()
    };
    let digits = |x: &&str| !x.is_empty() && x.len() <= 2 && x.bytes().all(|b| b.is_ascii_digit());
    if d.len() != 3
        || d[0].len() != 4
        || !d[1..].iter().all(digits)
        || !tm.iter().all(digits)
        || tm.len() > 3
    {
        return s.to_string();
    }
    let pad = |x: &str| format!("{x:0>2}");
    let mut out = format!("{}-{}-{}", d[0], pad(d[1]), pad(d[2]));
    if !tm.is_empty() {
        out.push(' ');
        out.push_str(&tm.iter().map(|x| pad(x)).collect::<Vec<_>>().join(":"));
    }
    out
}

/// Read field `f` from several cells (a field over merged columns): each cell is one part of the stream;
/// empty cells are skipped in lists and maps and take the field's default in records.
pub fn parse_cells(
    cells: &[String],
    f: &Field,
    project: &Project,
    null_text: Option<&str>,
) -> Result<Value, CellError> {
    let r = Reader { project, null_text };
    let items: Vec<String> = match f.ty.strip_optional() {
        Type::Array(_) | Type::Map(..) => cells
            .iter()
            .filter(|c| !trim(c).is_empty())
            .cloned()
            .collect(),
        _ => cells.to_vec(),
    };
    let mut top = Tokens {
        items,
        at: 0,
        cell: false,
    };
    let v = r.read(
        &f.ty,
        f.separator.as_deref(),
        f.item_separator.as_deref(),
        &mut top,
    )?;
    // Trailing empty cells of a merged range are not left-over parts.
    while top.peek().is_some_and(|x| trim(x).is_empty()) {
        top.at += 1;
    }
    r.finish(&top)?;
    Ok(v)
}

struct Reader<'a> {
    project: &'a Project,
    null_text: Option<&'a str>,
}

impl Reader<'_> {
    fn finish(&self, t: &Tokens) -> Result<(), CellError> {
        // Trailing empty parts (`3,asdfas,"",,`) are not values.
        let rest = t.items.get(t.at..).unwrap_or_default();
        if rest.iter().all(|x| trim(x).is_empty()) {
            return Ok(());
        }
        match t.peek() {
            None => Ok(()),
            Some(extra) => Err(CellError::new(
                Code::BadGrammar,
                format!(
                    "{extra:?} is left over after the value ({} of {} parts used)",
                    t.at,
                    t.items.len()
                ),
            )
            .help("remove the extra part, or check the separator (x-gentable-separator)")),
        }
    }

    /// Read a value of `ty` from `t`. `own` is this level's separator, `inner` the next level's (items).
    fn read(
        &self,
        ty: &Type,
        own: Option<&str>,
        inner: Option<&str>,
        t: &mut Tokens,
    ) -> Result<Value, CellError> {
        match ty {
            Type::Optional(i) => {
                if self.null_text.is_some() && t.peek().map(trim) == self.null_text {
                    t.at += 1;
                    return Ok(Value::Null);
                }
                // Luban marks a present nullable bean by its name or `{}` before its fields.
                if let Type::Record(r) = &**i {
                    if t.peek().map(trim).is_some_and(|x| x == r || x == "{}") {
                        t.at += 1;
                    }
                }
                self.read(i, own, inner, t)
            }
            Type::Array(item) => {
                let mut store = None;
                let sub = level(
                    t,
                    &mut store,
                    own.or(t.cell.then_some(DEFAULT_SEPARATORS)),
                    "a list",
                )?;
                let mut out = vec![];
                while !sub.skip_empty() {
                    out.push(self.read(item, inner, None, sub)?);
                }
                Ok(Value::Array(out))
            }
            Type::Map(k, v) => {
                let mut store = None;
                let sub = level(
                    t,
                    &mut store,
                    own.or(t.cell.then_some(DEFAULT_SEPARATORS)),
                    "a map",
                )?;
                let mut entries = vec![];
                while !sub.skip_empty() {
                    let key = self.read(k, None, None, sub)?;
                    let value = self.read(v, inner, None, sub)?;
                    entries.push((key, value));
                }
                super::finish_map(entries).map_err(|m| CellError::new(Code::BadGrammar, m))
            }
            Type::Record(name) => {
                let sep = own.or(self.project.separators.get(name).map(String::as_str));
                let mut store = None;
                let sub = level(t, &mut store, sep, &format!("a {name}"))?;
                // `{},2,3,4` / `vec3,2,2,2`: a present nullable bean marked before its fields.
                let fields = &self.project.records[name].fields;
                if sep.is_some()
                    && sub.items.len() > fields.len()
                    && sub.peek().map(trim).is_some_and(|x| x == name || x == "{}")
                {
                    sub.at += 1;
                }
                let v = self.fields(fields, sub)?;
                if sep.is_some() {
                    self.finish(sub)?;
                }
                Ok(Value::Record(v))
            }
            Type::Union(name) => {
                let sep = own.or(self.project.separators.get(name).map(String::as_str));
                let mut store = None;
                let sub = level(t, &mut store, sep, &format!("a {name}"))?;
                let u = &self.project.unions[name];
                let tag = sub.next(&format!("the kind of {name}"))?;
                let tag = trim(&tag);
                let Some(variant) = self.project.union_variant(name, tag) else {
                    let kinds: Vec<&str> = u.variants.iter().map(|v| v.tag.as_str()).collect();
                    return Err(CellError::new(
                        Code::NotInEnum,
                        format!("{tag:?} is not a kind of {name}"),
                    )
                    .help(format!(
                        "{name} is one of: {}",
                        crate::diag::list::series(&kinds)
                    )));
                };
                let v = self.fields(&variant.fields, sub)?;
                if sep.is_some() {
                    self.finish(sub)?;
                }
                Ok(Value::union(variant.tag.clone(), v))
            }
            Type::String => Ok(Value::Str(luban_string(t.next("a string")?).into())),
            Type::DateTime(_) => {
                let tok = t.next("a date and time")?;
                parse_scalar(&luban_datetime(trim(&tok)), ty, self.project)
            }
            scalar => {
                let tok = t.next(&scalar.words())?;
                parse_scalar(&luban_scalar(trim(&tok), scalar), scalar, self.project)
            }
        }
    }

    fn fields(&self, fields: &[Field], t: &mut Tokens) -> Result<Vec<Value>, CellError> {
        fields
            .iter()
            .map(|f| {
                // An empty part of a scalar field takes its default (Luban's zero values), else null.
                let scalar = !matches!(
                    f.ty.strip_optional(),
                    Type::Array(_) | Type::Map(..) | Type::Record(_) | Type::Union(_)
                );
                if scalar && t.peek().is_some_and(|x| trim(x).is_empty()) {
                    match (&f.default, &f.ty) {
                        (Some(d), _) => {
                            t.at += 1;
                            return super::json_to_value(d, &f.ty, self.project)
                                .map_err(|m| CellError::new(Code::BadDefault, m.message));
                        }
                        (None, Type::Optional(_)) => {
                            t.at += 1;
                            return Ok(Value::Null);
                        }
                        _ => {}
                    }
                }
                self.read(
                    &f.ty,
                    f.separator.as_deref(),
                    f.item_separator.as_deref(),
                    t,
                )
            })
            .collect()
    }
}

/// Luban's flags enum written one column per flag: the merged header names the field, a second `##var`
/// row names one member per column (`A | B | C`), and each cell says whether the row has that flag
/// (`1`/`true` yes; `0`/`false`/empty no, any case). `flags[i]` is `(member name, cell text)`. An error
/// gives the index of the column it is about.
pub fn parse_flag_columns(
    flags: &[(String, String)],
    e: &str,
    project: &Project,
) -> Result<Value, (usize, CellError)> {
    let mut parts = vec![];
    for (i, (name, text)) in flags.iter().enumerate() {
        let on = match trim(text).to_ascii_lowercase().as_str() {
            "" | "0" | "false" => false,
            "1" | "true" => true,
            other => {
                return Err((
                    i,
                    CellError {
                        code: Code::WrongType,
                        message: format!(
                            "{other:?} is not a yes/no cell of flag {name:?} (expected 1, 0, true, false or empty)"
                        ),
                        help: Some("write 1 (or TRUE) where the row has the flag, 0 or nothing where it has not".into()),
                    },
                ));
            }
        };
        if on {
            // A sub-header naming no member is an error where its flag is set.
            super::parse_flags(std::slice::from_ref(name), e, project).map_err(|x| (i, x))?;
            parts.push(name.clone());
        }
    }
    super::parse_flags(&parts, e, project).map_err(|x| (0, x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{IntWidth, RecordDef, UnionDef, Variant};

    fn project() -> Project {
        let mut p = Project::default();
        let int = Type::Int(IntWidth::I32);
        p.records.insert(
            "E2".into(),
            RecordDef {
                name: "E2".into(),
                doc: String::new(),
                fields: vec![
                    Field::new("y1", Type::Optional(Box::new(int.clone()))),
                    Field::new("y2", Type::Bool),
                ],
                origin: String::new(),
                form: Default::default(),
            },
        );
        p.records.insert(
            "Vec3".into(),
            RecordDef {
                name: "Vec3".into(),
                doc: String::new(),
                fields: ["x", "y", "z"]
                    .iter()
                    .map(|n| Field::new(n, Type::Float))
                    .collect(),
                origin: String::new(),
                form: Default::default(),
            },
        );
        p.separators.insert("Vec3".into(), ",".into());
        p.unions.insert(
            "Dyn".into(),
            UnionDef {
                name: "Dyn".into(),
                doc: String::new(),
                discriminator: "$type".into(),
                variants: vec![Variant {
                    tag: "D2".into(),
                    doc: String::new(),
                    fields: vec![Field::new("x1", int.clone()), Field::new("x2", int)],
                }],
                origin: String::new(),
            },
        );
        p
    }

    fn field(ty: Type, sep: Option<&str>, item: Option<&str>) -> Field {
        Field {
            separator: sep.map(String::from),
            item_separator: item.map(String::from),
            ..Field::new("f", ty)
        }
    }

    #[test]
    fn list_of_records_without_their_own_separator_reads_fields_in_turn() {
        let p = project();
        let f = field(
            Type::Array(Box::new(Type::Record("E2".into()))),
            Some(","),
            None,
        );
        let v = parse_field("1,true,2,false", &f, &p, Some("null")).unwrap();
        assert_eq!(
            v,
            Value::Array(vec![
                Value::Record(vec![Value::Int(1), Value::Bool(true)]),
                Value::Record(vec![Value::Int(2), Value::Bool(false)]),
            ])
        );
        // null_text in a nullable field; a missing field is an error; a left-over part too.
        let v = parse_field("null,true", &f, &p, Some("null")).unwrap();
        assert_eq!(
            v,
            Value::Array(vec![Value::Record(vec![Value::Null, Value::Bool(true)])])
        );
        let e = parse_field("1,true,2", &f, &p, None).unwrap_err();
        assert!(e.message.contains("ends where a boolean"), "{}", e.message);
    }

    #[test]
    fn luban_dates_and_empty_strings() {
        assert_eq!(luban_datetime("1999-8-4 10:09:09"), "1999-08-04 10:09:09");
        assert_eq!(luban_datetime("2020-1-1"), "2020-01-01");
        assert_eq!(
            luban_datetime("2020-01-01T00:00:00Z"),
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(luban_string("\"\"".into()), "");
        assert_eq!(luban_scalar("0X200", &Type::Int(IntWidth::I32)), "512");
        assert_eq!(luban_scalar("-0x10", &Type::Int(IntWidth::I32)), "-16");
        assert_eq!(luban_scalar("12", &Type::Int(IntWidth::I32)), "12");
        assert_eq!(luban_string("a\"\"".into()), "a\"\"");
    }

    #[test]
    fn per_level_separators_and_bean_separators() {
        let p = project();
        let f = field(
            Type::Array(Box::new(Type::Record("Vec3".into()))),
            Some(";"),
            None,
        );
        let v = parse_field("1,2,3;4,5,6.5", &f, &p, None).unwrap();
        let vec3 = |a: f64, b: f64, c: f64| {
            Value::Record(vec![Value::Float(a), Value::Float(b), Value::Float(c)])
        };
        assert_eq!(
            v,
            Value::Array(vec![vec3(1.0, 2.0, 3.0), vec3(4.0, 5.0, 6.5)])
        );
        let e = parse_field(
            "1,2,3,4",
            &field(Type::Record("Vec3".into()), None, None),
            &p,
            None,
        )
        .unwrap_err();
        assert!(e.message.contains("\"4\" is left over"), "{}", e.message);
        // A union with the property's separator: kind first.
        let u = field(Type::Union("Dyn".into()), Some(","), None);
        assert_eq!(
            parse_field("D2,1,2", &u, &p, None).unwrap(),
            Value::union("D2".into(), vec![Value::Int(1), Value::Int(2)])
        );
        let e = parse_field("D9,1,2", &u, &p, None).unwrap_err();
        assert!(e.message.contains("not a kind of Dyn"), "{}", e.message);
        // A map: key, value pairs.
        let m = field(
            Type::Map(
                Box::new(Type::Int(IntWidth::I32)),
                Box::new(Type::Int(IntWidth::I32)),
            ),
            Some(","),
            None,
        );
        assert_eq!(
            parse_field("3,4,1,2", &m, &p, None).unwrap(),
            Value::Map(vec![
                (Value::Int(1), Value::Int(2)),
                (Value::Int(3), Value::Int(4))
            ])
        );
    }

    /// Luban's flags one column per flag (`#AutoImport1.xlsx` x13_2: `A | B | C`, cells `1 | TRUE |`).
    #[test]
    fn flags_over_one_column_per_flag() {
        let mut p = Project::default();
        p.enums.insert(
            "Flag".into(),
            crate::ir::EnumDef {
                name: "Flag".into(),
                doc: String::new(),
                members: vec!["A".into(), "B".into(), "C".into()],
                aliases: vec![],
                values: Some(vec![1, 2, 4]),
                idents: vec![],
                origin: String::new(),
            },
        );
        let cols = |cells: &[&str]| -> Vec<(String, String)> {
            ["A", "B", "C"]
                .iter()
                .zip(cells)
                .map(|(n, c)| (n.to_string(), c.to_string()))
                .collect()
        };
        let m = |n: &str| Value::Enum(n.into());
        assert_eq!(
            parse_flag_columns(&cols(&["1", "TRUE", ""]), "Flag", &p).unwrap(),
            Value::Array(vec![m("A"), m("B")])
        );
        assert_eq!(
            parse_flag_columns(&cols(&["0", "FALSE", "true"]), "Flag", &p).unwrap(),
            Value::Array(vec![m("C")])
        );
        assert_eq!(
            parse_flag_columns(&cols(&["", "", ""]), "Flag", &p).unwrap(),
            Value::Array(vec![])
        );
        // Not a yes/no cell: the column is named.
        let (i, e) = parse_flag_columns(&cols(&["1", "2", ""]), "Flag", &p).unwrap_err();
        assert_eq!(i, 1);
        assert!(
            e.message
                .contains("\"2\" is not a yes/no cell of flag \"B\""),
            "{}",
            e.message
        );
        // A set flag whose sub-header names no member.
        let bad = vec![
            ("A".to_string(), "1".to_string()),
            ("Z".to_string(), "1".to_string()),
        ];
        let (i, e) = parse_flag_columns(&bad, "Flag", &p).unwrap_err();
        assert_eq!((i, e.code), (1, Code::NotInEnum));
    }
}
