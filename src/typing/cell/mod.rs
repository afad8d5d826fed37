//! **typing/cell/** owns the grammar of one cell (and [`time`] its date-time and duration forms). It may
//! import the IR, the raw cell type and diagnostics; nothing of table layout.
//!
//! The cell grammar: the text of one cell → a typed [`Value`], directed by the field's [`Type`].
//!
//! Grammar (docs/conventions.md §3):
//! ```text
//! top-level array cell := elem ('|' elem)*            e.g. 1|2|3   Forward|Left   (0,1)|(1,1)
//! record               := '(' part (',' part)* ')'    positional in `properties` order, or name=value
//! nested array         := '[' elem (',' elem)* ']'    inside records and arrays: [1,2]|[3]
//! escape               := '\' any                     \| \, \( \) \[ \] \= \\ and '\ ' (kept space)
//! JSON literal         := a top-level cell starting with '[' or '{' that parses as JSON
//! ```
//! Scalars are trimmed of white space (incl. U+00A0 NBSP); a top-level string cell is taken verbatim.
//! Errors are [`CellError`]s: what was expected, with a hint when one is obvious.

pub mod json;
pub mod print;
pub mod stream;
pub mod time;

use crate::diag::Code;
use crate::ir::{IntWidth, Project, RecordDef, RecordForm, Type, Value};
use crate::read::RawCell;

/// Why a cell's text does not fit its type. `message` says what was expected; `help` suggests a fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellError {
    /// Stable diagnostic code (GT02xx).
    pub code: Code,
    pub message: String,
    pub help: Option<String>,
}

/// A date-time or duration that does not parse is a wrong-type cell.
impl From<time::TimeError> for CellError {
    fn from(e: time::TimeError) -> Self {
        CellError {
            code: Code::WrongType,
            message: e.message,
            help: e.help,
        }
    }
}

impl CellError {
    /// The diagnostic for this error at column `col` (0-based) of `origin`'s row, in field `field`, whose
    /// cell reads `text`.
    pub fn at(
        self,
        origin: &crate::diag::RowOrigin,
        col: usize,
        field: &str,
        text: &str,
    ) -> crate::diag::Diagnostic {
        let mut d = crate::diag::Diagnostic::cell_error(
            self.code,
            origin,
            Some(col),
            Some(field),
            Some(text),
            self.message,
        );
        d.help = self.help;
        d
    }

    pub(crate) fn new(code: Code, message: impl Into<String>) -> Self {
        CellError {
            code,
            message: message.into(),
            help: None,
        }
    }
    fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }
}

/// White space trimmed by the grammar: Unicode White_Space, which includes U+00A0 NBSP and U+3000.
pub fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

/// Trim grammar white space.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_ws)
}

/// The error of a cell nested deeper than `[limits] nesting_depth`.
fn too_deep(what: &str, depth: usize, max: usize) -> CellError {
    CellError::new(
        Code::LimitExceeded,
        format!("the {what} is nested {depth} levels deep, more than the limit of {max}"),
    )
    .help("flatten the value (use more columns or rows), or raise [limits] nesting_depth in gentable.toml")
}

/// The deepest nesting of unescaped `(` and `[` in grammar text, counted as [`split`] counts them (a `\`
/// escapes the next character). Linear; unbalanced text counts what is open.
pub fn grammar_depth(s: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '(' | '[' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). Linear;
/// the text need not be valid JSON.
pub fn json_depth(s: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for b in s.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// How a table's compound cells are read besides their type: the top-level array separator and the
/// nesting bound (`[tables.<Name>] array_separator`, `[limits] nesting_depth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grammar {
    /// Separator of the elements of a one-cell array (default `|`; `,` for UnityGameFramework and ET).
    pub separator: char,
    /// Deepest nesting of brackets and parentheses (cell grammar) or of arrays and objects (JSON literal);
    /// a deeper cell is a GT0104 error before anything recursive looks at it, so parsing is linear in the
    /// cell's length times this bound and never overflows the stack.
    pub max_depth: usize,
}

impl Default for Grammar {
    fn default() -> Self {
        Grammar {
            separator: '|',
            max_depth: crate::config::Limits::default().nesting_depth,
        }
    }
}

/// Parse the whole text of a cell (already known not to be blank) as `ty`.
pub fn parse_cell(text: &str, ty: &Type, project: &Project) -> Result<Value, CellError> {
    parse_cell_with(text, ty, project, Grammar::default())
}

/// [`parse_cell`] with a table's [`Grammar`]: another top-level array separator (e.g. `,`; nested arrays and
/// records keep their bracket/parenthesis grammar) and the nesting bound.
pub fn parse_cell_with(
    text: &str,
    ty: &Type,
    project: &Project,
    g: Grammar,
) -> Result<Value, CellError> {
    match parse_text(text, ty, project, g) {
        Err(e) if !matches!(ty.strip_optional(), Type::String) => {
            Err(full_width(e, text, ty, project, g))
        }
        r => r,
    }
}

/// A cell that did not read and holds full-width digits, letters, signs or separators (`１２`, `（０，１）`):
/// the message names them and the help offers the half-width cell when it reads (docs/conventions.md §3).
/// They are never read as their half-width forms: Excel does not either (`１２` is text there).
fn full_width(mut e: CellError, text: &str, ty: &Type, project: &Project, g: Grammar) -> CellError {
    use crate::diag::hint;
    let chars = hint::full_width(text);
    if chars.is_empty() {
        return e;
    }
    let half = hint::half_width(text);
    e.message = format!(
        "{}: the cell is written with full-width characters {}",
        e.message,
        hint::name_chars(&chars, 4)
    );
    if parse_text(&half, ty, project, g).is_ok() {
        e.help = Some(format!(
            "gentable reads half-width digits, letters, signs and separators only: write {half:?}"
        ));
    } else {
        let forms =
            crate::diag::list::series(chars.iter().take(4).map(|(f, h)| format!("{f} → {h}")));
        e.help = Some(match e.help.take() {
            Some(h) => format!("write them half-width ({forms}); {h}"),
            None => format!("write them half-width ({forms})"),
        });
    }
    e
}

/// [`parse_cell_with`] without the full-width hint.
fn parse_text(text: &str, ty: &Type, project: &Project, g: Grammar) -> Result<Value, CellError> {
    let sep = g.separator;
    let ty = ty.strip_optional();
    match ty {
        Type::String => Ok(Value::Str(text.into())),
        Type::Json => parse_json_cell(trim(text)),
        Type::Choice(name) => parse_choice(text, name, project),
        Type::Array(_) | Type::Record(_) | Type::Map(..) | Type::Union(_) | Type::Flags(_) => {
            let t = trim(text);
            let list_like = matches!(ty, Type::Array(_) | Type::Flags(_))
                || matches!(ty, Type::Record(n) if matches!(project.records[n].form, RecordForm::Tuple { .. }));
            if t.starts_with('{') || (t.starts_with('[') && list_like) {
                let depth = json_depth(t);
                if depth > g.max_depth {
                    return Err(too_deep("JSON literal", depth, g.max_depth));
                }
                match json::parse(t) {
                    Ok(json) => {
                        return json_to_value(&json, ty, project).map_err(|m| {
                            CellError::new(m.code(), format!("JSON literal does not fit: {m}"))
                        })
                    }
                    Err(json::Error::Duplicate(m)) => {
                        return Err(
                            CellError::new(Code::BadGrammar, m).help("give each member once")
                        )
                    }
                    Err(json::Error::OutOfRange(m)) => {
                        return Err(CellError::new(Code::OutOfRange, m)
                            .help("write a smaller number, or the value as text if it is one"))
                    }
                    Err(json::Error::Inexact(m)) => {
                        return Err(CellError::new(Code::OutOfRange, m).help(INEXACT_HELP))
                    }
                    Err(json::Error::Syntax(_)) => {}
                }
                if t.starts_with('{') {
                    return Err(CellError::new(
                        Code::BadGrammar,
                        "a cell starting with '{' must be a JSON object",
                    )
                    .help("write the object as (a,b) or as valid JSON"));
                }
            }
            let depth = grammar_depth(t);
            if depth > g.max_depth {
                return Err(too_deep("value", depth, g.max_depth));
            }
            match ty {
                Type::Array(inner) => {
                    let parts = split(t, sep)?;
                    parts
                        .iter()
                        .map(|p| parse_element(p, inner, project))
                        .collect::<Result<_, _>>()
                        .map(Value::Array)
                }
                Type::Flags(e) => parse_flags(&split(t, sep)?, e, project),
                Type::Map(k, v) => parse_map(&split(t, sep)?, k, v, project),
                _ => parse_element(t, ty, project),
            }
        }
        _ => parse_scalar(&unescape(trim(text))?, ty, project),
    }
}

/// Flags from their parts (member names or aliases): declaration order, duplicates removed.
pub(crate) fn parse_flags(
    parts: &[String],
    e: &str,
    project: &Project,
) -> Result<Value, CellError> {
    let def = &project.enums[e];
    let mut seen = vec![false; def.members.len()];
    for p in parts {
        let p = trim_raw(p);
        if p.is_empty() {
            continue;
        }
        match parse_scalar(&unescape(p)?, &Type::Enum(e.to_string()), project)? {
            Value::Enum(m) => {
                if let Some(i) = def.members.iter().position(|x| *x == m) {
                    seen[i] = true;
                }
            }
            _ => unreachable!("enum parse"),
        }
    }
    Ok(Value::Array(
        def.members
            .iter()
            .zip(seen)
            .filter(|(_, s)| *s)
            .map(|(m, _)| Value::Enum(m.as_str().into()))
            .collect(),
    ))
}

/// Order of map keys: integers numerically, strings by UTF-8 bytes.
pub fn cmp_map_key(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => std::cmp::Ordering::Equal,
    }
}

pub(crate) fn finish_map(mut entries: Vec<(Value, Value)>) -> Result<Value, String> {
    entries.sort_by(|a, b| cmp_map_key(&a.0, &b.0));
    for w in entries.windows(2) {
        if cmp_map_key(&w[0].0, &w[1].0).is_eq() {
            let k = match &w[0].0 {
                Value::Str(s) => format!("{s:?}"),
                Value::Int(i) => i.to_string(),
                v => format!("{v:?}"),
            };
            return Err(format!("the key {k} is given twice"));
        }
    }
    Ok(Value::Map(entries))
}

/// A map from its `key=value` parts.
fn parse_map(parts: &[String], k: &Type, v: &Type, project: &Project) -> Result<Value, CellError> {
    let mut entries = vec![];
    for p in parts {
        if trim_raw(p).is_empty() {
            if parts.len() == 1 {
                break;
            }
            return Err(CellError::new(Code::BadGrammar, "empty map entry")
                .help("write entries as key=value, separated by |"));
        }
        let Some((key, val)) = split_named(p) else {
            return Err(CellError::new(
                Code::BadGrammar,
                format!("expected a map entry key=value, found {:?}", trim_raw(p)),
            )
            .help("write entries as key=value (escape a literal = as \\=)"));
        };
        let key = parse_scalar(&unescape(&key)?, k, project).map_err(|mut e| {
            e.message = format!("map key: {}", e.message);
            e
        })?;
        let val = parse_element(&val, v, project).map_err(|mut e| {
            e.message = format!("map value: {}", e.message);
            e
        })?;
        entries.push((key, val));
    }
    finish_map(entries).map_err(|m| CellError::new(Code::BadGrammar, m))
}

/// Fill a record's fields (`fields`, of a record of `form`) from the parts of `(…)`: positional or
/// `name=value`. Missing fields take their `default`, else `null` (optional) or `[]` (array), else are an
/// error. An open record keeps `name=value` parts of undeclared names as extra members; a tuple with a
/// rest takes positional parts after its prefix as rest elements.
fn record_values(
    name: &str,
    fields: &[crate::ir::Field],
    form: RecordForm,
    parts: &[String],
    project: &Project,
) -> Result<Vec<Value>, CellError> {
    let (declared, extra) = match form {
        RecordForm::Closed => (fields.len(), false),
        RecordForm::Open => (fields.len() - 1, true),
        RecordForm::Tuple { rest, .. } => (fields.len() - usize::from(rest), false),
    };
    let rest = matches!(form, RecordForm::Tuple { rest: true, .. });
    let positional = parts.iter().filter(|p| split_named(p).is_none()).count();
    if (parts.len() > declared && !rest && !extra) || (extra && positional > declared) {
        let what = if matches!(form, RecordForm::Tuple { .. }) {
            "elements"
        } else {
            "fields"
        };
        return Err(CellError::new(
            Code::BadGrammar,
            format!(
                "{name} has {declared} {what} but the value has {} parts",
                parts.len()
            ),
        )
        .help("escape a literal comma with \\,"));
    }
    let mut values: Vec<Option<Value>> = vec![None; fields.len()];
    let mut extras: Vec<(Value, Value)> = vec![];
    let mut rest_items: Vec<Value> = vec![];
    for (i, p) in parts.iter().enumerate() {
        let (idx, vtext) = match split_named(p) {
            Some((k, v)) => match fields[..declared].iter().position(|f| f.name == k) {
                Some(idx) => (idx, v),
                None if extra => {
                    let Type::Map(_, vt) = &fields[declared].ty else {
                        unreachable!("IR invariant: extra members are a map")
                    };
                    let x = parse_element(&v, vt, project).map_err(|mut e| {
                        e.message = format!("member {k:?}: {}", e.message);
                        e
                    })?;
                    extras.push((Value::Str(k.into()), x));
                    continue;
                }
                None => {
                    let mut e =
                        CellError::new(Code::BadGrammar, format!("{name} has no field {k:?}"));
                    if let Some(c) =
                        crate::diag::closest(&k, fields.iter().map(|f| f.name.as_str()))
                    {
                        e = e.help(format!("did you mean {c:?}?"));
                    }
                    return Err(e);
                }
            },
            // An open record's positional part after its declared fields (`(hp=0,x,a=3)` with one
            // declared field) has no field to go to: extra members must be named (found by the `cell`
            // fuzz target; it reached the tuple branch below).
            None if i >= declared && !rest => {
                return Err(CellError::new(
                    Code::BadGrammar,
                    format!(
                        "part {} ({:?}) of {name} is after its declared fields: an extra member must be named",
                        i + 1,
                        trim_raw(p)
                    ),
                )
                .help("name an extra member as key=value"));
            }
            None if i >= declared => {
                let Type::Array(it) = &fields[declared].ty else {
                    unreachable!("IR invariant: a tuple's rest is an array")
                };
                rest_items.push(parse_element(p, it, project).map_err(|mut e| {
                    e.message = format!("element {i}: {}", e.message);
                    e
                })?);
                continue;
            }
            None => (i, p.clone()),
        };
        if values[idx].is_some() {
            return Err(CellError::new(
                Code::BadGrammar,
                format!("field {:?} given twice", fields[idx].name),
            ));
        }
        values[idx] = Some(
            parse_element(&vtext, &fields[idx].ty, project).map_err(|mut e| {
                e.message = format!("field {:?}: {}", fields[idx].name, e.message);
                e
            })?,
        );
    }
    if extra {
        values[declared] =
            Some(finish_map(extras).map_err(|m| CellError::new(Code::BadGrammar, m))?);
    }
    if rest && !rest_items.is_empty() {
        values[declared] = Some(Value::Array(rest_items));
    }
    let mut out = Vec::with_capacity(values.len());
    for (v, f) in values.into_iter().zip(fields) {
        match v {
            Some(v) => out.push(v),
            None => out.push(
                missing_field(name, f, project).map_err(|m| CellError::new(Code::BadGrammar, m))?,
            ),
        }
    }
    check_tuple(name, form, &out).map_err(|m| CellError::new(Code::BadGrammar, m))?;
    Ok(out)
}

/// A tuple's absent elements (from `min` on) must all be at its end, with no rest after them: an array has
/// no holes.
pub fn check_tuple(name: &str, form: RecordForm, vals: &[Value]) -> Result<(), String> {
    let RecordForm::Tuple { min, rest } = form else {
        return Ok(());
    };
    let prefix = vals.len() - usize::from(rest);
    if let Some(gap) = (min..prefix).find(|&i| vals[i] == Value::Null) {
        let later = (gap + 1..prefix).find(|&i| vals[i] != Value::Null);
        let rest_given = rest && vals[prefix] != Value::Array(vec![]);
        if let Some(j) = later {
            return Err(format!(
                "{name}: element {gap} is missing but element {j} is given (a tuple has no gaps)"
            ));
        }
        if rest_given {
            return Err(format!(
                "{name}: element {gap} is missing but elements after the first {prefix} are given"
            ));
        }
    }
    Ok(())
}

/// The value of a record field that was left out: its `default`, else `null`/`[]`/`{}`, else an error.
pub fn missing_field(
    owner: &str,
    f: &crate::ir::Field,
    project: &Project,
) -> Result<Value, String> {
    if let Some(d) = &f.default {
        return json_to_value(d, &f.ty, project)
            .map_err(|m| format!("the default of {owner}.{} does not fit: {m}", f.name));
    }
    match &f.ty {
        Type::Optional(_) => Ok(Value::Null),
        Type::Array(_) | Type::Flags(_) => Ok(Value::Array(vec![])),
        Type::Map(..) => Ok(Value::Map(vec![])),
        _ => Err(format!("{owner} is missing field {:?}", f.name)),
    }
}

/// A union value from `Tag(…)`, `(disc=Tag,…)` or a bare `Tag`.
fn parse_union(t: &str, name: &str, project: &Project) -> Result<Value, CellError> {
    let u = &project.unions[name];
    let tags: Vec<&str> = u.variants.iter().map(|v| v.tag.as_str()).collect();
    let (tag, parts): (String, Vec<String>) = if let Some(body) = strip_delims(t, '(', ')') {
        let mut parts = if trim(body).is_empty() {
            vec![]
        } else {
            split(body, ',')?
        };
        let pos = parts
            .iter()
            .position(|p| split_named(p).is_some_and(|(k, _)| k == u.discriminator));
        match pos {
            Some(i) => {
                let (_, v) = split_named(&parts.remove(i)).expect("checked");
                (unescape(trim_raw(&v))?, parts)
            }
            None => {
                return Err(CellError::new(
                    Code::BadGrammar,
                    format!(
                        "a {name} needs its {} first: ({}=…, …) or Tag(…)",
                        u.discriminator, u.discriminator
                    ),
                )
                .help(format!(
                    "{name} is one of: {}",
                    crate::diag::list::series(&tags)
                )))
            }
        }
    } else if let Some(open) = t.find('(') {
        let body = strip_delims(&t[open..], '(', ')').ok_or_else(|| {
            CellError::new(
                Code::BadGrammar,
                format!("expected Tag(…) for a {name}, found {t:?}"),
            )
        })?;
        let parts = if trim(body).is_empty() {
            vec![]
        } else {
            split(body, ',')?
        };
        (unescape(trim(&t[..open]))?, parts)
    } else {
        (unescape(t)?, vec![])
    };
    let Some(v) = project.union_variant(name, &tag) else {
        let mut e = CellError::new(Code::NotInEnum, format!("{tag:?} is not a kind of {name}"));
        e = match crate::diag::closest(&tag, tags.iter().copied()) {
            Some(c) => e.help(format!(
                "did you mean {c:?}? ({name} is one of: {})",
                crate::diag::list::series(&tags)
            )),
            None => e.help(format!(
                "{name} is one of: {}",
                crate::diag::list::series(&tags)
            )),
        };
        return Err(e);
    };
    let vals = record_values(
        &format!("{name} {tag}"),
        &v.fields,
        RecordForm::Closed,
        &parts,
        project,
    )?;
    Ok(Value::union(v.tag.clone(), vals))
}

/// Parse one element of a compound value (raw text, escapes still in place).
fn parse_element(raw: &str, ty: &Type, project: &Project) -> Result<Value, CellError> {
    let t = trim_raw(raw);
    if t.is_empty() {
        if let Type::Optional(_) = ty {
            return Ok(Value::Null);
        }
        return Err(CellError::new(Code::BadGrammar, "empty element")
            .help("remove the doubled separator, or escape a literal separator with \\"));
    }
    match ty.strip_optional() {
        Type::Array(inner) => {
            let body = strip_delims(t, '[', ']').ok_or_else(|| {
                CellError::new(
                    Code::BadGrammar,
                    format!("expected a nested array in brackets like [1,2], found {t:?}"),
                )
            })?;
            if trim(body).is_empty() {
                return Ok(Value::Array(vec![]));
            }
            split(body, ',')?
                .iter()
                .map(|p| parse_element(p, inner, project))
                .collect::<Result<_, _>>()
                .map(Value::Array)
        }
        Type::Record(name) => {
            let rec = &project.records[name];
            let body = strip_delims(t, '(', ')').ok_or_else(|| {
                let example: Vec<&str> = rec.fields.iter().map(|f| f.name.as_str()).collect();
                CellError::new(
                    Code::BadGrammar,
                    format!(
                        "expected a {name} in parentheses like ({}), found {t:?}",
                        example.join(",")
                    ),
                )
            })?;
            let parts = if trim(body).is_empty() {
                vec![]
            } else {
                split(body, ',')?
            };
            record_values(name, &rec.fields, rec.form, &parts, project).map(Value::Record)
        }
        Type::Union(name) => parse_union(t, name, project),
        Type::Map(k, v) => {
            let body = strip_delims(t, '[', ']').ok_or_else(|| {
                CellError::new(
                    Code::BadGrammar,
                    format!("expected a nested map in brackets like [a=1,b=2], found {t:?}"),
                )
            })?;
            let parts = if trim(body).is_empty() {
                vec![]
            } else {
                split(body, ',')?
            };
            parse_map(&parts, k, v, project)
        }
        Type::Flags(e) => {
            let body = strip_delims(t, '[', ']').unwrap_or(t);
            let parts = if trim(body).is_empty() {
                vec![]
            } else {
                split(body, ',')?
            };
            parse_flags(&parts, e, project)
        }
        Type::Json => parse_json_cell(&unescape(t)?),
        other => parse_scalar(&unescape(t)?, other, project),
    }
}

/// Parse a scalar (already trimmed and unescaped).
pub fn parse_scalar(s: &str, ty: &Type, project: &Project) -> Result<Value, CellError> {
    match ty.strip_optional() {
        Type::String => Ok(Value::Str(s.into())),
        Type::Bool => parse_bool(s),
        Type::Int(w) => parse_int(s, *w),
        Type::Float => parse_float(s),
        Type::Enum(name) => {
            let e = &project.enums[name];
            if e.members.iter().any(|m| m == s) {
                return Ok(Value::Enum(s.into()));
            }
            if let Some((_, m)) = e.aliases.iter().find(|(a, _)| a == s) {
                return Ok(Value::Enum(m.as_str().into()));
            }
            // `x-gentable-enumValues`: a member may be written as its integer value (Luban's `101`).
            if let (Some(vs), Ok(v)) = (&e.values, s.parse::<i64>()) {
                if let Some(i) = vs.iter().position(|x| *x == v) {
                    return Ok(Value::Enum(e.members[i].as_str().into()));
                }
            }
            Err(not_in_enum(s, name, e))
        }
        Type::DateTime(zone) => time::parse_datetime(s, *zone)
            .map(Value::DateTime)
            .map_err(CellError::from),
        Type::Duration => time::parse_duration(s)
            .map(Value::Duration)
            .map_err(CellError::from),
        Type::Date => time::parse_date(s)
            .map(Value::Date)
            .map_err(CellError::from),
        Type::Time(zone) => time::parse_time(s, *zone)
            .map(Value::Time)
            .map_err(CellError::from),
        Type::Json => parse_json_cell(s),
        Type::Choice(name) => parse_choice(s, name, project),
        Type::Array(_) | Type::Record(_) | Type::Map(..) | Type::Union(_) | Type::Flags(_) => {
            parse_cell(s, ty, project)
        }
        Type::Optional(_) => unreachable!("stripped"),
    }
}

/// GT0203 for `s` in enum `name`: the hint is the closest member or alias (`紫色` → `"紫" (Purple)`), says
/// when the cell differs from it only by width, case or spaces, and lists the members with their aliases.
fn not_in_enum(s: &str, name: &str, e: &crate::ir::EnumDef) -> CellError {
    use crate::diag::hint;
    use crate::diag::list::{Joiner, List};
    let err = CellError::new(Code::NotInEnum, format!("{s:?} is not a {name}"));
    let names = e
        .members
        .iter()
        .map(String::as_str)
        .chain(e.aliases.iter().map(|(a, _)| a.as_str()));
    let member_of = |c: &str| {
        e.aliases
            .iter()
            .find(|(a, _)| a == c)
            .map(|(_, m)| m.as_str())
    };
    let shown = |c: &str| match member_of(c) {
        Some(m) => format!("{c:?} ({m})"),
        None => format!("{c:?}"),
    };
    // A member with its aliases: `Red (红, 赤)`, in Chinese `Red（红、赤）`; a member that holds a comma or
    // an " or " is quoted, so that the list reads one way.
    let list = e
        .members
        .iter()
        .fold(List::new(Joiner::Series), |list, member| {
            let m = if member.contains(',') || member.contains(" or ") {
                format!("{member:?}")
            } else {
                member.clone()
            };
            let aliases: Vec<&str> = e
                .aliases
                .iter()
                .filter(|(_, x)| x == member)
                .map(|(a, _)| a.as_str())
                .collect();
            if aliases.is_empty() {
                list.item(m)
            } else {
                list.item_in(
                    format!("{m} ({})", aliases.join(", ")),
                    format!("{m}（{}）", aliases.join("、")),
                )
            }
        })
        .text();
    match hint::suggest(s, names) {
        Some(c) => match hint::differences(s, c) {
            Some(d) => err.help(format!(
                "{s:?} differs from {} only by {}: write {c:?}",
                shown(c),
                hint::words(&d)
            )),
            None => err.help(format!(
                "did you mean {}? ({name} is one of: {list})",
                shown(c)
            )),
        },
        None => err.help(format!("{name} is one of: {list}")),
    }
}

/// A boolean cell (docs/conventions.md §3, §7): `true`/`false` in any case (Excel's `TRUE`/`FALSE`), or `1`/`0`.
/// Nothing else: `yes`, `no`, `Y`, `N`, `是`, `否`, `对`, `错`, `on`, `off` are errors with a hint, since every
/// team reads them differently and a silent guess is worse than a question.
pub fn parse_bool(s: &str) -> Result<Value, CellError> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "1" => return Ok(Value::Bool(true)),
        "false" | "0" => return Ok(Value::Bool(false)),
        _ => {}
    }
    let meant = match s.to_lowercase().as_str() {
        "yes" | "y" | "on" | "是" | "对" | "真" | "√" | "✓" => Some("true"),
        "no" | "n" | "off" | "否" | "错" | "假" | "×" | "✗" => Some("false"),
        _ => None,
    };
    let e = CellError::new(Code::WrongType, format!("expected a boolean, found {s:?}"));
    Err(match meant {
        Some(b) => e.help(format!(
            "booleans are true or false (or 1/0): write {b} if that is what {s:?} means"
        )),
        None => e.help("write true or false (also TRUE/FALSE, 1/0)"),
    })
}

/// Parse an integer of width `w`: decimal with optional sign, or an integral number like `3.0`.
pub fn parse_int(s: &str, w: IntWidth) -> Result<Value, CellError> {
    // Decimal digits with an optional sign, optionally followed by `.` and zeros only (`3.0`, as spreadsheets
    // export whole numbers). Nothing is read through a float, so `9007199254740993.0` stays exact and
    // `2.9999999999999999` is a fraction, not 3.
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits_ok = !int_part.is_empty() && int_part.bytes().all(|b| b.is_ascii_digit());
    if digits_ok && frac.bytes().all(|b| b == b'0') {
        return match int_part.parse::<i128>() {
            Ok(v) => int_in_range(if neg { -v } else { v }, w),
            Err(_) => Err(CellError::new(
                Code::OutOfRange,
                format!("{s} is too large for any integer width"),
            )),
        };
    }
    if digits_ok && frac.bytes().all(|b| b.is_ascii_digit()) && !frac.is_empty() {
        return Err(CellError::new(
            Code::NotInteger,
            format!("expected an integer, found the fraction {s}"),
        )
        .help(
            "integer fields take whole numbers; change the schema type to \"number\" for fractions",
        ));
    }
    let mut e = CellError::new(Code::WrongType, format!("expected an integer, found {s:?}"));
    if let Ok(f) = s.parse::<f64>() {
        if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e18 {
            e = e.help(format!("write it out in digits: {}", f as i128));
        } else if f.is_finite() && f.fract() == 0.0 {
            // A whole number written with an exponent (1e+308): too big, not a fraction.
            let (lo, hi) = w.range();
            e = CellError::new(
                Code::OutOfRange,
                format!(
                    "{s} is a whole number far too large for {} ({lo}..={hi})",
                    w.rust_name()
                ),
            )
            .help("check the value, or make the field a \"number\" if it is not a count");
        } else if f.is_finite() {
            e = CellError::new(Code::NotInteger, format!("expected an integer, found the fraction {s}"))
                .help("integer fields take whole numbers; change the schema type to \"number\" for fractions");
        }
    }
    Err(e)
}

/// Check `v` against the width's range.
pub fn int_in_range(v: i128, w: IntWidth) -> Result<Value, CellError> {
    let (lo, hi) = w.range();
    if v < lo || v > hi {
        return Err(CellError::new(
            Code::OutOfRange,
            format!("{v} does not fit in {} ({lo}..={hi})", w.rust_name()),
        )
        .help(
            "check the value, or widen the field with \"format\" or minimum/maximum in the schema",
        ));
    }
    Ok(Value::Int(v))
}

/// The decimal number a text writes, normalised: (negative, significant digits without leading or
/// trailing zeros, power of ten of the last digit); `None` for zero or a text that is not a decimal.
fn decimal(s: &str) -> Option<(bool, String, i64)> {
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (mantissa, exp) = match s.find(['e', 'E']) {
        // An exponent beyond i64 (`1e-99999999999999999999`) is saturated, so that a nonzero mantissa never
        // reads as 0 (it is far from any double).
        Some(i) => (&s[..i], {
            let e = &s[i + 1..];
            let digits = e.trim_start_matches(['+', '-']);
            match e.parse::<i64>() {
                Ok(x) => x,
                Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                    if e.starts_with('-') {
                        i64::MIN / 2
                    } else {
                        i64::MAX / 2
                    }
                }
                Err(_) => return None,
            }
        }),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let digits = all.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    if trimmed.is_empty() {
        return None;
    }
    let exp = exp - frac.len() as i64 + (digits.len() - trimmed.len()) as i64;
    Some((neg, trimmed.to_string(), exp))
}

/// The double `f` as the canonical data (and every generated language) prints it, `-0` as `0`: what a number
/// that has no exact 64-bit float would ship as.
fn shipped(f: f64) -> String {
    let mut t = String::new();
    crate::ir::canonical::write_f64(&mut t, if f == 0.0 { 0.0 } else { f });
    t
}

/// True when the text `s` writes exactly the double `f` (every digit of it), whether or not `f` prints that way:
/// `890713491284145.25` (a tie between the two shortest forms `…145.2` and `…145.3`) and
/// `0.1000000000000000055511151231257827021181583404541015625` (the double nearest 0.1) are.
pub(crate) fn exactly_double(s: &str, f: f64) -> bool {
    decimal(s) == decimal(&format!("{f:.1100e}"))
}

/// What is wrong with the number text `s` whose nearest double `f` does not print as `s` (not
/// [`exact_decimal`]), after the text itself (GT0202, GT0404): "is exactly a 64-bit float, whose shortest form is
/// Y: it would ship as Y" when `s` writes that very double (see [`exactly_double`]), "has no exact 64-bit float:
/// it would ship as Y" otherwise. One wording for cells, JSON literals and schema defaults.
pub(crate) fn inexact_words(s: &str, f: f64) -> String {
    let ships = shipped(f);
    if exactly_double(s, f) {
        format!(
            "is exactly a 64-bit float, whose shortest form is {ships}: it would ship as {ships}"
        )
    } else {
        format!("has no exact 64-bit float: it would ship as {ships}")
    }
}

/// The help of a number that has no exact 64-bit float (GT0202).
const INEXACT_HELP: &str =
    "write at most 15 significant digits (what Excel keeps), or make the field a string";

/// True when the double `f` is exactly the decimal number the text `s` writes, after printing `f` the
/// shortest way that reads back, as the canonical JSON and every loader's canonical dump print it (ECMAScript
/// `Number.prototype.toString`, which breaks a tie between two shortest forms towards the even digit): then
/// the value ships as written. `9007199254740993` (2^53 + 1), `0.12345678901234567890`, `1e-400` (0) and
/// `890713491284145.3` (the double 890713491284145.25, printed `890713491284145.2`) are not: the designer
/// would see another number in the output.
fn exact_decimal(s: &str, f: f64) -> bool {
    decimal(s) == decimal(&shipped(f))
}

/// Parse a finite number; `-0` becomes `0` (RFC 8785 has a single zero). A text the nearest double does
/// not write back exactly (more significant digits than a double keeps, an underflow to 0, or a tie the
/// output prints with the even digit: `890713491284145.3`) is an error (GT0202), never a silently rounded
/// value; so is a text that is exactly a double but prints shorter (`890713491284145.25`).
pub fn parse_float(s: &str) -> Result<Value, CellError> {
    let lower = s.to_ascii_lowercase();
    if lower.contains("inf") || lower.contains("nan") {
        return Err(
            CellError::new(Code::OutOfRange, format!("{s:?} is not a finite number"))
                .help("JSON, and so every generated language, has no NaN or infinity"),
        );
    }
    match s.strip_prefix('+').unwrap_or(s).parse::<f64>() {
        Ok(f) if f.is_finite() && !exact_decimal(s, f) => {
            let ships = shipped(f);
            let help = if exactly_double(s, f) {
                format!("write {ships} (the same 64-bit float), or make the field a string")
            } else {
                INEXACT_HELP.to_string()
            };
            Err(CellError::new(Code::OutOfRange, format!("{s} {}", inexact_words(s, f))).help(help))
        }
        Ok(f) if f.is_finite() => Ok(Value::Float(if f == 0.0 { 0.0 } else { f })),
        Ok(_) => Err(CellError::new(
            Code::OutOfRange,
            format!("{s} is out of range for a 64-bit float (at most ±1.7976931348623157e308)"),
        )
        .help("write a number nearer to 0, or make the field a string if the digits are text")),
        Err(_) => Err(CellError::new(
            Code::WrongType,
            format!("expected a number, found {s:?}"),
        )),
    }
}

/// Convert a JSON value (JSON literal cells, `default` keywords) to a typed value.
/// Why a JSON value does not fit a type ([`json_to_value`]): the message, and whether the value has the right
/// kind but lies outside the type (GT0202: an integer beyond its width, a number no double holds exactly, a
/// date beyond year 9999) rather than being of another kind (GT0201), as the same value typed as a plain cell
/// would be reported.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonMismatch {
    pub message: String,
    pub out_of_range: bool,
}

impl JsonMismatch {
    /// The same mismatch, its message prefixed with where it is (`member "x"`, `element 2`).
    fn within(self, place: impl std::fmt::Display) -> JsonMismatch {
        JsonMismatch {
            message: format!("{place}: {}", self.message),
            ..self
        }
    }

    /// The diagnostic code of this mismatch: GT0202 out of range, else GT0201.
    pub fn code(&self) -> Code {
        if self.out_of_range {
            Code::OutOfRange
        } else {
            Code::WrongType
        }
    }
}

impl From<String> for JsonMismatch {
    fn from(message: String) -> JsonMismatch {
        JsonMismatch {
            message,
            out_of_range: false,
        }
    }
}

impl From<CellError> for JsonMismatch {
    fn from(e: CellError) -> JsonMismatch {
        JsonMismatch {
            out_of_range: e.code == Code::OutOfRange,
            message: e.message,
        }
    }
}

impl std::fmt::Display for JsonMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A JSON value (a JSON literal, a `default`) as a value of `ty`; errors say why it does not fit.
pub fn json_to_value(
    j: &serde_json::Value,
    ty: &Type,
    project: &Project,
) -> Result<Value, JsonMismatch> {
    use serde_json::Value as J;
    match (ty, j) {
        // A JSON null in a field of any JSON value is that value, not an absent one.
        (Type::Optional(t), J::Null) if **t == Type::Json => Ok(Value::json(J::Null)),
        (Type::Optional(_), J::Null) => Ok(Value::Null),
        (Type::Optional(t), j) => json_to_value(j, t, project),
        (Type::Bool, J::Bool(b)) => Ok(Value::Bool(*b)),
        (Type::Int(w), J::Number(n)) => {
            let v = if let Some(i) = n.as_i64() {
                i as i128
            } else if let Some(u) = n.as_u64() {
                u as i128
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.fract() != 0.0 || !f.is_finite() {
                    return Err(format!("{n} is not an integer").into());
                }
                if f.abs() >= 1e38 {
                    let (lo, hi) = w.range();
                    return Err(JsonMismatch {
                        message: format!(
                            "{n} is a whole number far too large for {} ({lo}..={hi})",
                            w.rust_name()
                        ),
                        out_of_range: true,
                    });
                }
                f as i128
            };
            Ok(int_in_range(v, *w)?)
        }
        (Type::Float, J::Number(n)) => {
            let f = n.as_f64().ok_or_else(|| format!("{n} is not a number"))?;
            // A whole number the parser kept as an integer (`9007199254740993`) must be the double's.
            json::exact_integer(n).map_err(|message| JsonMismatch {
                message,
                out_of_range: true,
            })?;
            Ok(Value::Float(if f == 0.0 { 0.0 } else { f }))
        }
        (Type::String, J::String(s)) => Ok(Value::Str(
            crate::read::raw::normalize_text(s).as_ref().into(),
        )),
        (Type::Enum(_), J::String(s)) => Ok(parse_scalar(s, ty, project)?),
        (Type::Array(inner), J::Array(items)) => items
            .iter()
            .map(|x| json_to_value(x, inner, project))
            .collect::<Result<_, _>>()
            .map(Value::Array),
        (Type::Record(name), j) => json_record(name, &project.records[name], j, project),
        (Type::Json, j) => json::check_value(j)
            .map(|()| Value::json(j.clone()))
            .map_err(|message| JsonMismatch {
                message,
                out_of_range: true,
            }),
        (Type::Choice(name), j) => {
            let def = &project.choices[name];
            let member = def.members.iter().find(|m| {
                matches!(
                    (m, j),
                    (Type::Bool, J::Bool(_))
                        | (Type::Int(_) | Type::Float, J::Number(_))
                        | (Type::String | Type::Enum(_), J::String(_))
                )
            });
            match member {
                Some(m) => json_to_value(j, m, project),
                None => Err(format!("expected {}, found {j}", ty.words()).into()),
            }
        }
        (Type::Union(name), J::Object(m)) => {
            let u = &project.unions[name];
            let Some(J::String(tag)) = m.get(&u.discriminator) else {
                return Err(format!(
                    "a {name} needs the member {:?} naming its kind",
                    u.discriminator
                )
                .into());
            };
            let v = u
                .variant(tag)
                .ok_or_else(|| format!("{tag:?} is not a kind of {name}"))?;
            json_fields(
                &format!("{name} {tag}"),
                &v.fields,
                m,
                Some(&u.discriminator),
                project,
            )
            .map(|vals| Value::union(tag.clone(), vals))
        }
        (Type::Map(k, v), J::Object(m)) => {
            let mut entries = vec![];
            for (key, val) in m {
                let key = match &**k {
                    Type::Int(w) => {
                        parse_int(key, *w).map_err(|e| JsonMismatch::from(e).within("map key"))?
                    }
                    _ => Value::Str(key.as_str().into()),
                };
                entries.push((key, json_to_value(val, v, project)?));
            }
            Ok(finish_map(entries)?)
        }
        (Type::Flags(e), J::Array(items)) => {
            let parts: Vec<String> = items
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(|s| s.replace('\\', "\\\\").replace(',', "\\,"))
                        .ok_or_else(|| format!("expected a {e} name, found {x}"))
                })
                .collect::<Result<_, _>>()?;
            Ok(parse_flags(&parts, e, project)?)
        }
        (Type::DateTime(_) | Type::Duration | Type::Date | Type::Time(_), J::String(s)) => {
            Ok(parse_scalar(s, ty, project)?)
        }
        (Type::Duration, J::Number(n)) => n
            .as_i64()
            .ok_or_else(|| format!("{n} is not a whole number of milliseconds"))
            .and_then(|ms| crate::ir::time::check_duration(ms as i128))
            .map(Value::Duration)
            .map_err(JsonMismatch::from),
        (t, j) => Err(format!("expected {}, found {j}", t.words()).into()),
    }
}

/// A record value from JSON: an object (closed or open) or a tuple's array.
fn json_record(
    name: &str,
    rec: &RecordDef,
    j: &serde_json::Value,
    project: &Project,
) -> Result<Value, JsonMismatch> {
    use serde_json::Value as J;
    match (rec.form, j) {
        (RecordForm::Closed, J::Object(m)) => {
            json_fields(name, &rec.fields, m, None, project).map(Value::Record)
        }
        (RecordForm::Open, J::Object(m)) => {
            let declared = rec.declared();
            let Type::Map(_, vt) = &rec.fields[declared.len()].ty else {
                unreachable!("IR invariant: extra members are a map")
            };
            let mut vals = declared
                .iter()
                .map(|f| match m.get(&f.name) {
                    Some(v) => json_to_value(v, &f.ty, project)
                        .map_err(|e| e.within(format_args!("member {:?}", f.name))),
                    None => Ok(missing_field(name, f, project)?),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let mut extras = vec![];
            for (k, v) in m {
                if !declared.iter().any(|f| f.name == *k) {
                    let x = json_to_value(v, vt, project)
                        .map_err(|e| e.within(format_args!("member {k:?}")))?;
                    extras.push((Value::Str(k.as_str().into()), x));
                }
            }
            vals.push(finish_map(extras)?);
            Ok(Value::Record(vals))
        }
        (RecordForm::Tuple { min, rest }, J::Array(items)) => {
            let prefix = rec.fields.len() - usize::from(rest);
            if items.len() > prefix && !rest {
                return Err(format!(
                    "{name} has at most {prefix} elements, found {}",
                    items.len()
                )
                .into());
            }
            let mut vals = vec![];
            for (i, f) in rec.fields[..prefix].iter().enumerate() {
                match items.get(i) {
                    Some(J::Null) if i >= min && *f.ty.strip_optional() != Type::Json => {
                        return Err(format!(
                            "element {i} of {name} is null; it may be left out, not null"
                        )
                        .into())
                    }
                    Some(x) => vals.push(
                        json_to_value(x, &f.ty, project)
                            .map_err(|e| e.within(format_args!("element {i}")))?,
                    ),
                    None => vals.push(missing_field(name, f, project)?),
                }
            }
            if rest {
                let Type::Array(it) = &rec.fields[prefix].ty else {
                    unreachable!("IR invariant: a tuple's rest is an array")
                };
                let more = items
                    .iter()
                    .enumerate()
                    .skip(prefix)
                    .map(|(i, x)| {
                        json_to_value(x, it, project)
                            .map_err(|e| e.within(format_args!("element {i}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                vals.push(Value::Array(more));
            }
            check_tuple(name, rec.form, &vals)?;
            Ok(Value::Record(vals))
        }
        (RecordForm::Tuple { .. }, j) => {
            Err(format!("expected a {name} (a JSON array), found {j}").into())
        }
        (_, j) => Err(format!("expected a {name} (a JSON object), found {j}").into()),
    }
}

/// A [`Type::Json`] cell: JSON text (`"text"`, `12`, `true`, `null`, `[…]`, `{…}`), read strictly.
fn parse_json_cell(t: &str) -> Result<Value, CellError> {
    let v = json::parse(t).map_err(|e| {
        let m = match e {
            json::Error::Duplicate(m) => m,
            json::Error::OutOfRange(m) => {
                return CellError::new(Code::OutOfRange, m)
                    .help("write a smaller number; if the value is text, write it as a JSON string in double quotes")
            }
            json::Error::Inexact(m) => {
                return CellError::new(Code::OutOfRange, m).help(
                    "write at most 15 significant digits (what Excel keeps); if the digits are text, write them as a JSON string in double quotes",
                )
            }
            json::Error::Syntax(_) => format!("expected a JSON value, found {t:?}"),
        };
        CellError::new(Code::WrongType, m).help(
            "this field holds any JSON value: write text in double quotes (\"abc\"), numbers, true, false, null, [..] or {..}",
        )
    })?;
    json::check_value(&v).map_err(|m| CellError::new(Code::OutOfRange, m))?;
    Ok(Value::json(v))
}

/// A scalar-union cell ([`Type::Choice`]): the first member (boolean, number, string) the text is a value
/// of; a JSON string literal (`"12"`) is the string member's value. Booleans are `true`/`false` here (not
/// `1`/`0`/`yes`/`no`, which would be numbers or text).
fn parse_choice(text: &str, name: &str, project: &Project) -> Result<Value, CellError> {
    let def = &project.choices[name];
    let t = trim(text);
    let string_member = def
        .members
        .iter()
        .find(|m| matches!(m, Type::String | Type::Enum(_)));
    if t.starts_with('"') {
        if let (Some(m), Ok(serde_json::Value::String(s))) = (string_member, json::parse(t)) {
            return parse_scalar(&s, m, project);
        }
    }
    let mut last = None;
    for m in &def.members {
        let got = match m {
            Type::Bool if t.eq_ignore_ascii_case("true") => Ok(Value::Bool(true)),
            Type::Bool if t.eq_ignore_ascii_case("false") => Ok(Value::Bool(false)),
            Type::Bool => continue,
            Type::String => return Ok(Value::Str(text.into())),
            m => parse_scalar(t, m, project),
        };
        match got {
            Ok(v) => return Ok(v),
            // A number too big for the member's width is that error, not text.
            Err(e) if e.code == Code::OutOfRange => return Err(e),
            Err(e) => last = Some(e),
        }
    }
    let mut e = CellError::new(
        Code::WrongType,
        format!("expected {}, found {t:?}", def.words()),
    );
    if let Some(l) = last.and_then(|l| l.help) {
        e = e.help(l);
    }
    Err(e)
}

/// The fields of a record (or union variant) from a JSON object; `skip` is the discriminator.
fn json_fields(
    name: &str,
    fields: &[crate::ir::Field],
    m: &serde_json::Map<String, serde_json::Value>,
    skip: Option<&str>,
    project: &Project,
) -> Result<Vec<Value>, JsonMismatch> {
    if let Some(k) = m
        .keys()
        .find(|k| Some(k.as_str()) != skip && !fields.iter().any(|f| &f.name == *k))
    {
        return Err(format!("{name} has no field {k:?}").into());
    }
    fields
        .iter()
        .map(|f| match m.get(&f.name) {
            Some(v) => json_to_value(v, &f.ty, project),
            None => Ok(missing_field(name, f, project)?),
        })
        .collect()
}

/// Split `s` at unescaped `sep` outside brackets/parentheses. Parts keep their escapes.
pub fn split(s: &str, sep: char) -> Result<Vec<String>, CellError> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut stack: Vec<char> = Vec::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                match chars.next() {
                    Some(n) => cur.push(n),
                    None => {
                        return Err(CellError::new(
                            Code::BadGrammar,
                            "the cell ends with a lone \\",
                        )
                        .help("write \\\\ for a backslash"))
                    }
                }
            }
            '(' | '[' => {
                stack.push(c);
                cur.push(c);
            }
            ')' | ']' => {
                let open = if c == ')' { '(' } else { '[' };
                if stack.pop() != Some(open) {
                    return Err(
                        CellError::new(Code::BadGrammar, format!("unbalanced {c:?}"))
                            .help(format!("escape a literal {c} as \\{c}")),
                    );
                }
                cur.push(c);
            }
            c if c == sep && stack.is_empty() => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if let Some(open) = stack.last() {
        return Err(
            CellError::new(Code::BadGrammar, format!("unclosed {open:?}"))
                .help(format!("close it, or escape a literal {open} as \\{open}")),
        );
    }
    parts.push(cur);
    Ok(parts)
}

/// Trim white space that is not escaped.
fn trim_raw(s: &str) -> &str {
    let s = s.trim_start_matches(is_ws);
    let mut end = s.len();
    while let Some(c) = s[..end].chars().next_back() {
        if !is_ws(c) {
            break;
        }
        let before = &s[..end - c.len_utf8()];
        // An odd number of backslashes before the space escapes it.
        let slashes = before.chars().rev().take_while(|&b| b == '\\').count();
        if slashes % 2 == 1 {
            break;
        }
        end -= c.len_utf8();
    }
    &s[..end]
}

/// Remove escapes: `\x` → `x`.
pub fn unescape(s: &str) -> Result<String, CellError> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) => out.push(n),
                None => {
                    return Err(
                        CellError::new(Code::BadGrammar, "the value ends with a lone \\")
                            .help("write \\\\ for a backslash"),
                    )
                }
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn strip_delims(s: &str, open: char, close: char) -> Option<&str> {
    let inner = s.strip_prefix(open)?.strip_suffix(close)?;
    // The closing delimiter must not be escaped.
    let slashes = inner.chars().rev().take_while(|&b| b == '\\').count();
    (slashes % 2 == 0).then_some(inner)
}

/// `name=value` with an unescaped `=` at depth 0 → `(name, value raw)`.
fn split_named(p: &str) -> Option<(String, String)> {
    let mut depth = 0i32;
    let mut escaped = false;
    for (i, c) in p.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '=' if depth == 0 => return Some((trim(&p[..i]).to_string(), p[i + 1..].to_string())),
            _ => {}
        }
    }
    None
}

/// Type one non-blank raw cell.
pub fn type_cell(project: &Project, ty: &Type, raw: &RawCell) -> Result<Value, CellError> {
    type_cell_with(project, ty, raw, Grammar::default())
}

/// [`type_cell`] with a table's [`Grammar`] (`array_separator`, `nesting_depth`).
///
/// Workbook cells are typed as Excel shows them (docs/conventions.md §7): a number is its 15-digit value; a
/// date/time cell is converted from its serial only into a date, time, date-time or duration field (a number
/// field does not silently take the serial); a formula without a stored result is an error.
pub fn type_cell_with(
    project: &Project,
    ty: &Type,
    raw: &RawCell,
    g: Grammar,
) -> Result<Value, CellError> {
    let base = ty.strip_optional();
    let parse = |text: &str| parse_cell_with(text, ty, project, g);
    // A number or boolean cell of a workbook in a scalar union is its number or boolean member (if any).
    if let (Type::Choice(n), RawCell::Int(_) | RawCell::Float(_) | RawCell::Bool(_)) = (base, raw) {
        let want_bool = matches!(raw, RawCell::Bool(_));
        let member = project.choices[n].members.iter().find(|m| {
            matches!(m, Type::Bool) == want_bool && !matches!(m, Type::String | Type::Enum(_))
        });
        if let Some(m) = member {
            return type_cell_with(project, m, raw, g);
        }
    }
    match (base, raw) {
        (Type::Json, RawCell::Int(i)) => {
            let j = serde_json::Value::from(*i);
            return json::check_value(&j)
                .map(|()| Value::json(j))
                .map_err(|m| CellError::new(Code::OutOfRange, m));
        }
        (Type::Json, RawCell::Float(f)) => {
            let f = if *f == 0.0 { 0.0 } else { *f };
            if let Some(n) = serde_json::Number::from_f64(f) {
                return Ok(Value::json(serde_json::Value::Number(n)));
            }
        }
        (Type::Json, RawCell::Bool(b)) => return Ok(Value::json(serde_json::Value::Bool(*b))),
        _ => {}
    }
    match raw {
        RawCell::Text(s) => parse(s),
        RawCell::Undecodable(s) => Err(CellError {
            code: Code::BadEncoding,
            message: format!("the cell {s:?} is not valid text in the file's encoding"),
            help: Some("save the file as UTF-8, or set encoding in the section of its table in gentable.toml".into()),
        }),
        RawCell::Error(e) => Err(CellError {
            code: Code::ExcelError,
            message: format!("the cell holds the Excel error {e}"),
            help: Some(
                "fix the formula or the value it refers to; error cells are never exported".into(),
            ),
        }),
        RawCell::NoResult(u) => {
            let f = if u.formula.is_empty() {
                "(a shared formula)".to_string()
            } else {
                format!("={}", u.formula)
            };
            Err(CellError {
                code: Code::NoFormulaResult,
                message: match &u.placeholder {
                    None => format!("the cell holds the formula {f} but no stored result: the file was written without calculating it"),
                    Some(p) => format!("the cell holds the formula {f}, and the file asks to be recalculated when opened (fullCalcOnLoad): it was written without calculating, so its stored result {p:?} is a placeholder, not what Excel shows"),
                },
                help: Some("open and save the file in Excel or LibreOffice (which calculate and store every formula's result), or write the value instead of the formula".into()),
            })
        }
        RawCell::Int(i) => match base {
            Type::Float => Ok(Value::Float(*i as f64)),
            Type::Int(w) => int_in_range(*i as i128, *w),
            _ => parse(&raw.text()),
        },
        RawCell::Float(f) => type_number(project, ty, *f, &raw.text(), g),
        RawCell::Formatted(f) => match base {
            // A string field takes what Excel shows (a warning says so, [`display_note`]).
            Type::String => parse(&raw.text()),
            _ => type_number(
                project,
                ty,
                f.value,
                &crate::read::raw::number_text(f.value),
                g,
            ),
        },
        RawCell::Bool(b) => match base {
            Type::Bool => Ok(Value::Bool(*b)),
            _ => parse(&raw.text()),
        },
        RawCell::Serial(sr) => {
            let v = match base {
                Type::DateTime(zone) => {
                    time::datetime_from_serial(sr.value, sr.date1904, *zone).map(Value::DateTime)
                }
                Type::Date => time::date_from_serial(sr.value, sr.date1904).map(Value::Date),
                Type::Time(zone) => {
                    time::time_from_serial(sr.value, sr.date1904, *zone).map(Value::Time)
                }
                Type::Duration => time::duration_from_serial(sr.value).map(Value::Duration),
                // A string field takes the date as Excel shows it, ISO ordered (a warning says so).
                Type::String => return parse(&raw.text()),
                _ => {
                    return Err(CellError::new(
                        Code::WrongType,
                        format!(
                            "the cell is an Excel {} ({}), not {}",
                            if sr.duration { "duration" } else { "date/time" },
                            raw.text(),
                            base.words()
                        ),
                    )
                    .help("format the cell as a number or as text, or give the field \"format\": \"date\", \"time\", \"date-time\" or \"duration\""))
                }
            };
            v.map_err(CellError::from)
        }
        RawCell::DateTime(s) => parse(s),
        RawCell::Empty => Ok(Value::Null),
    }
}

/// A workbook number (already Excel's 15-digit value) in a field of type `ty`; `text` is how it reads.
fn type_number(
    project: &Project,
    ty: &Type,
    f: f64,
    text: &str,
    g: Grammar,
) -> Result<Value, CellError> {
    match ty.strip_optional() {
        Type::Float => parse_float(text).map(|_| Value::Float(if f == 0.0 { 0.0 } else { f })),
        Type::Int(w) => {
            if f.fract() != 0.0 {
                Err(CellError {
                    code: Code::NotInteger,
                    message: format!("expected an integer, found the fraction {text}"),
                    help: Some("integer fields take whole numbers; change the schema type to \"number\" for fractions".into()),
                })
            } else if f.abs() >= 1e15 {
                Err(CellError {
                    code: Code::OutOfRange,
                    message: format!("{text} has more than 15 digits: Excel keeps only 15 significant digits of a number, so the digits after them are already lost"),
                    help: Some("store large integers as text cells (format the column as Text, or type a leading ')".into()),
                })
            } else {
                int_in_range(f as i128, *w)
            }
        }
        _ => parse_cell_with(text, ty, project, g),
    }
}

/// A warning for a cell whose exported value is not the text Excel shows without one (docs/conventions.md §7):
/// a number shown through a number format (`007`) or a date cell, taken by a string field. `None` for every
/// other cell.
pub fn display_note(raw: &RawCell, ty: &Type) -> Option<CellError> {
    if !matches!(ty.strip_optional(), Type::String) {
        return None;
    }
    match raw {
        RawCell::Formatted(f) => Some(match &f.shown {
            Some(shown) => CellError::new(
                Code::FormattedNumber,
                format!(
                    "the cell holds the number {} shown as {shown:?} by its number format {:?}; the string field gets {shown:?}",
                    crate::read::raw::number_text(f.value),
                    f.format
                ),
            )
            .help("to keep the text as typed, format the cell as Text (@) or type it with a leading '"),
            None => CellError::new(
                Code::FormattedNumber,
                format!(
                    "the cell holds the number {} shown through the number format {:?}, which gentable cannot reproduce; the string field gets {:?}",
                    crate::read::raw::number_text(f.value),
                    f.format,
                    crate::read::raw::number_text(f.value)
                ),
            )
            .help("format the cell as Text (@) and type what it should say"),
        }),
        RawCell::Serial(_) => Some(
            CellError::new(
                Code::FormattedNumber,
                format!(
                    "the cell is an Excel date/time; the string field gets it as {:?} (ISO 8601 order, whatever the display format)",
                    raw.text()
                ),
            )
            .help("format the cell as Text (@) and type what it should say, or give the field a date/time \"format\""),
        ),
        _ => None,
    }
}

/// Whether a raw cell gives a field of type `ty` no value: empty, or (for every type but a top-level string)
/// only white space. A string field keeps white-space-only text exactly (docs/conventions.md §7).
pub fn is_empty_for(raw: &RawCell, ty: &Type) -> bool {
    match ty.strip_optional() {
        Type::String => raw.is_empty(),
        _ => raw.is_blank(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{EnumDef, Field, RecordDef};

    fn field(name: &str, ty: Type) -> Field {
        Field::new(name, ty)
    }
    fn project() -> Project {
        let mut p = Project::default();
        p.enums.insert(
            "Side".into(),
            EnumDef {
                name: "Side".into(),
                doc: String::new(),
                members: vec!["Red".into(), "Blue".into()],
                aliases: vec![("红".into(), "Red".into())],
                values: None,
                idents: vec![],
                origin: String::new(),
            },
        );
        p.records.insert(
            "Vec2".into(),
            RecordDef {
                name: "Vec2".into(),
                doc: String::new(),
                fields: vec![
                    field("x", Type::Int(IntWidth::I8)),
                    field("y", Type::Int(IntWidth::I8)),
                ],
                origin: String::new(),
                form: Default::default(),
            },
        );
        p.records.insert(
            "Tag".into(),
            RecordDef {
                name: "Tag".into(),
                doc: String::new(),
                fields: vec![
                    field("name", Type::String),
                    field("ids", Type::Array(Box::new(Type::Int(IntWidth::I32)))),
                    field("note", Type::Optional(Box::new(Type::String))),
                ],
                origin: String::new(),
                form: Default::default(),
            },
        );
        p
    }
    fn arr(t: Type) -> Type {
        Type::Array(Box::new(t))
    }
    fn ints(v: &[i128]) -> Value {
        Value::Array(v.iter().map(|&i| Value::Int(i)).collect())
    }

    /// Found by the `cell` fuzz target (fuzz/regressions/cell/open-record-positional-extra.txt): a
    /// positional part after an open record's declared fields reached the tuple branch and panicked.
    #[test]
    fn an_open_records_positional_extra_part_is_an_error() {
        let mut p = project();
        p.records.insert(
            "Stats".into(),
            RecordDef {
                name: "Stats".into(),
                doc: String::new(),
                fields: vec![
                    field("hp", Type::Int(IntWidth::I32)),
                    field(
                        crate::ir::EXTRA_FIELD,
                        Type::Map(Box::new(Type::String), Box::new(Type::Int(IntWidth::I32))),
                    ),
                ],
                origin: String::new(),
                form: RecordForm::Open,
            },
        );
        let ty = Type::Record("Stats".into());
        let e = parse_cell("(hp=0,no1,alpha=3)", &ty, &p).unwrap_err();
        assert_eq!(e.code, Code::BadGrammar);
        assert!(
            e.message
                .contains("part 2 (\"no1\") of Stats is after its declared fields: an extra member must be named"),
            "{}",
            e.message
        );
        assert_eq!(
            parse_cell("(hp=0,alpha=3)", &ty, &p),
            Ok(Value::Record(vec![
                Value::Int(0),
                Value::Map(vec![(Value::Str("alpha".into()), Value::Int(3))]),
            ]))
        );
    }

    /// A number that is exactly a double but prints shorter is not called inexact: the message says it is
    /// the double and what it prints as.
    #[test]
    fn an_exact_double_that_prints_shorter_says_so() {
        let p = project();
        for (text, ships) in [
            ("890713491284145.25", "890713491284145.2"),
            (
                "0.1000000000000000055511151231257827021181583404541015625",
                "0.1",
            ),
        ] {
            let e = parse_cell(text, &Type::Float, &p).unwrap_err();
            assert_eq!(e.code, Code::OutOfRange, "{text}");
            assert_eq!(
                e.message,
                format!("{text} is exactly a 64-bit float, whose shortest form is {ships}: it would ship as {ships}")
            );
            assert_eq!(
                e.help.as_deref(),
                Some(
                    format!("write {ships} (the same 64-bit float), or make the field a string")
                        .as_str()
                )
            );
        }
    }

    /// Found by the newcomer pass: a number text the nearest double does not write back shipped as
    /// another number without a word (2^53 + 1 → 9007199254740992, 1e-400 → 0).
    #[test]
    fn a_number_the_double_cannot_hold_exactly_is_an_error() {
        let p = project();
        for (text, ships) in [
            ("9007199254740993", "9007199254740992"),
            ("123456789012345678901234567890", "1.2345678901234568e+29"),
            ("1e-400", "0"),
            ("-1e-400", "0"),
            ("0.12345678901234567890", "0.12345678901234568"),
            // The double 890713491284145.25 lies halfway between the two shortest forms; ECMAScript (the
            // canonical JSON) prints the even one.
            ("890713491284145.3", "890713491284145.2"),
        ] {
            let e = parse_cell(text, &Type::Float, &p).unwrap_err();
            assert_eq!(e.code, Code::OutOfRange, "{text}");
            assert!(
                e.message.contains(&format!(
                    "{text} has no exact 64-bit float: it would ship as {ships}"
                )),
                "{text}: {}",
                e.message
            );
        }
        for (text, v) in [
            ("9007199254740992", 9007199254740992.0),
            ("0.1", 0.1),
            ("101.0", 101.0),
            ("-0.000", 0.0),
            ("1.5E3", 1500.0),
            ("+007.250", 7.25),
            ("3.141592653589793", std::f64::consts::PI),
            ("5e-324", 5e-324),
            ("890713491284145.2", 890713491284145.0 + 0.25),
        ] {
            assert_eq!(
                parse_cell(text, &Type::Float, &p),
                Ok(Value::Float(v)),
                "{text}"
            );
        }
    }

    #[test]
    fn scalars_trim_whitespace_and_nbsp() {
        let p = project();
        assert_eq!(
            parse_cell(" 42\u{a0}", &Type::Int(IntWidth::I32), &p),
            Ok(Value::Int(42))
        );
        assert_eq!(
            parse_cell("+7", &Type::Int(IntWidth::I32), &p),
            Ok(Value::Int(7))
        );
        assert_eq!(
            parse_cell("3.0", &Type::Int(IntWidth::I32), &p),
            Ok(Value::Int(3))
        );
        assert_eq!(
            parse_cell("7.5", &Type::Int(IntWidth::I32), &p)
                .unwrap_err()
                .code,
            Code::NotInteger
        );
        assert_eq!(
            parse_cell("300", &Type::Int(IntWidth::U8), &p)
                .unwrap_err()
                .code,
            Code::OutOfRange
        );
        // Nothing is read through a float: exact big integers, no rounding of near-integers, no exponents.
        let int = |s: &str, w| parse_cell(s, &Type::Int(w), &p);
        assert_eq!(
            int("2.9999999999999999", IntWidth::I32).unwrap_err().code,
            Code::NotInteger
        );
        assert_eq!(
            int("9007199254740993.0", IntWidth::I64),
            Ok(Value::Int(9007199254740993))
        );
        assert_eq!(int("-0", IntWidth::I32), Ok(Value::Int(0)));
        let e = int("1e3", IntWidth::I32).unwrap_err();
        assert_eq!(
            (e.code, e.help.as_deref()),
            (Code::WrongType, Some("write it out in digits: 1000"))
        );
        // A huge whole number is out of range, not "a fraction"; a JSON literal never coerces text.
        let e = int("1e+308", IntWidth::I32).unwrap_err();
        assert_eq!(e.code, Code::OutOfRange, "{}", e.message);
        assert!(e.message.contains("far too large for i32"), "{}", e.message);
        let e = parse_cell("[\"1\",2]", &arr(Type::Int(IntWidth::I32)), &p).unwrap_err();
        assert!(
            e.message.contains("expected an integer, found \"1\""),
            "{}",
            e.message
        );
        assert_eq!(
            parse_cell("abc", &Type::Int(IntWidth::I32), &p)
                .unwrap_err()
                .code,
            Code::WrongType
        );
        assert_eq!(parse_cell("TRUE", &Type::Bool, &p), Ok(Value::Bool(true)));
        assert_eq!(parse_cell("0", &Type::Bool, &p), Ok(Value::Bool(false)));
        // One documented policy: true/false and 1/0; yes, no, Y, 是 … are errors that say what to write.
        for (s, meant) in [
            ("no", "false"),
            ("yes", "true"),
            ("Y", "true"),
            ("是", "true"),
            ("否", "false"),
        ] {
            let e = parse_cell(s, &Type::Bool, &p).unwrap_err();
            assert_eq!(e.code, Code::WrongType, "{s}");
            assert!(e.help.unwrap().contains(&format!("write {meant}")), "{s}");
        }
        assert_eq!(parse_cell("-0", &Type::Float, &p), Ok(Value::Float(0.0)));
        assert_eq!(parse_cell("1e21", &Type::Float, &p), Ok(Value::Float(1e21)));
        assert_eq!(
            parse_cell("NaN", &Type::Float, &p).unwrap_err().code,
            Code::OutOfRange
        );
        // Strings are verbatim at the top level.
        assert_eq!(
            parse_cell("  a|b \\n ", &Type::String, &p),
            Ok(Value::Str("  a|b \\n ".into()))
        );
    }

    #[test]
    fn enums_give_a_hint() {
        let p = project();
        let ty = Type::Enum("Side".into());
        assert_eq!(parse_cell("Blue", &ty, &p), Ok(Value::Enum("Blue".into())));
        let e = parse_cell("blue", &ty, &p).unwrap_err();
        assert_eq!(e.code, Code::NotInEnum);
        assert_eq!(
            e.help.unwrap(),
            "\"blue\" differs from \"Blue\" only by case: write \"Blue\""
        );
        // Aliases are candidates too, shown with their member; the list names every alias.
        let e = parse_cell("红色", &ty, &p).unwrap_err();
        assert_eq!(
            e.help.unwrap(),
            "did you mean \"红\" (Red)? (Side is one of: Red (红), Blue)"
        );
        let e = parse_cell("Bleu", &ty, &p).unwrap_err();
        assert_eq!(
            e.help.unwrap(),
            "did you mean \"Blue\"? (Side is one of: Red (红), Blue)"
        );
        assert_eq!(
            parse_cell("绿", &ty, &p).unwrap_err().help.unwrap(),
            "Side is one of: Red (红), Blue"
        );
    }

    #[test]
    fn full_width_characters_are_named_and_the_half_width_cell_offered() {
        let p = project();
        let int = Type::Int(IntWidth::I32);
        let e = parse_cell("１２", &int, &p).unwrap_err();
        assert_eq!(e.code, Code::WrongType);
        assert_eq!(
            e.message,
            "expected an integer, found \"１２\": the cell is written with full-width characters １ (U+FF11), ２ (U+FF12)"
        );
        assert_eq!(
            e.help.unwrap(),
            "gentable reads half-width digits, letters, signs and separators only: write \"12\""
        );
        let e = parse_cell("－３．５", &Type::Float, &p).unwrap_err();
        assert!(e.help.unwrap().ends_with("write \"-3.5\""));
        let e = parse_cell("（０，１）", &Type::Record("Vec2".into()), &p).unwrap_err();
        assert!(
            e.message
                .contains("（ (U+FF08), ０ (U+FF10), ， (U+FF0C), １ (U+FF11), …"),
            "{}",
            e.message
        );
        assert!(e.help.unwrap().ends_with("write \"(0,1)\""));
        let ints = Type::Array(Box::new(int.clone()));
        assert!(parse_cell("1｜2", &ints, &p)
            .unwrap_err()
            .help
            .unwrap()
            .ends_with("write \"1|2\""));
        assert!(parse_cell("1、2", &ints, &p)
            .unwrap_err()
            .message
            .contains("、 (U+3001)"));
        let e = parse_cell("Ｂｌｕｅ", &Type::Enum("Side".into()), &p).unwrap_err();
        assert!(e.help.unwrap().ends_with("write \"Blue\""));
        // Still wrong when written half-width: both are said.
        let e = parse_cell("ｘ", &int, &p).unwrap_err();
        assert_eq!(e.help.unwrap(), "write them half-width (ｘ → x)");
        // Never read as the half-width value, and text is text.
        assert!(parse_cell("１２", &int, &p).is_err());
        assert_eq!(
            parse_cell("（０，１）", &Type::String, &p),
            Ok(Value::Str("（０，１）".into()))
        );
    }

    #[test]
    fn arrays_split_on_bar_with_escapes() {
        let p = project();
        assert_eq!(
            parse_cell("1|2| 3 ", &arr(Type::Int(IntWidth::I32)), &p),
            Ok(ints(&[1, 2, 3]))
        );
        assert_eq!(
            parse_cell("a\\|b| c\\,d |\\ e", &arr(Type::String), &p),
            Ok(Value::Array(vec![
                Value::Str("a|b".into()),
                Value::Str("c,d".into()),
                Value::Str(" e".into())
            ]))
        );
        assert_eq!(
            parse_cell("1||2", &arr(Type::Int(IntWidth::I32)), &p)
                .unwrap_err()
                .code,
            Code::BadGrammar
        );
        assert_eq!(
            parse_cell("[1,2]", &arr(Type::Int(IntWidth::I32)), &p),
            Ok(ints(&[1, 2]))
        );
        assert_eq!(
            parse_cell("[1,2]|[]|[3]", &arr(arr(Type::Int(IntWidth::I32))), &p),
            Ok(Value::Array(vec![ints(&[1, 2]), ints(&[]), ints(&[3])]))
        );
        assert_eq!(
            parse_cell("a\\", &arr(Type::String), &p).unwrap_err().code,
            Code::BadGrammar
        );
    }

    #[test]
    fn records_positional_named_and_json() {
        let p = project();
        let v2 = Type::Record("Vec2".into());
        let want = Value::Record(vec![Value::Int(0), Value::Int(-1)]);
        assert_eq!(parse_cell("(0,-1)", &v2, &p), Ok(want.clone()));
        assert_eq!(parse_cell(" ( y = -1 , x=0 ) ", &v2, &p), Ok(want.clone()));
        assert_eq!(parse_cell("{\"x\":0,\"y\":-1}", &v2, &p), Ok(want.clone()));
        assert_eq!(
            parse_cell("(0,-1)|(1,1)", &arr(v2.clone()), &p).unwrap(),
            Value::Array(vec![
                want,
                Value::Record(vec![Value::Int(1), Value::Int(1)])
            ])
        );
        assert_eq!(
            parse_cell("(0,1", &v2, &p).unwrap_err().code,
            Code::BadGrammar
        );
        assert_eq!(
            parse_cell("(0,1,2)", &v2, &p).unwrap_err().code,
            Code::BadGrammar
        );
        let e = parse_cell("(x=0,yy=1)", &v2, &p).unwrap_err();
        assert_eq!(e.help.as_deref(), Some("did you mean \"y\"?"));
        assert_eq!(
            parse_cell("(0,200)", &v2, &p).unwrap_err().code,
            Code::OutOfRange
        );
        let tag = Type::Record("Tag".into());
        assert_eq!(
            parse_cell("(a\\(1\\),[1,2])", &tag, &p),
            Ok(Value::Record(vec![
                Value::Str("a(1)".into()),
                ints(&[1, 2]),
                Value::Null
            ]))
        );
        assert_eq!(
            parse_cell("(x)", &tag, &p),
            Ok(Value::Record(vec![
                Value::Str("x".into()),
                ints(&[]),
                Value::Null
            ]))
        );
    }
}
