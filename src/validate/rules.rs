//! Rule expressions: `x-gentable-rules` in a table schema, written in CEL (the `cel` crate).
//!
//! ```json
//! "x-gentable-rules": [
//!   {"rule": "row.Tier <= 4", "message": "tier ${row.Tier} is above 4"},
//!   {"scope": "table", "rule": "rows.filter(r, r.Piece == 'Lord').size() == 2", "message": "two Lords"},
//!   {"rule": "row.Key.startsWith('UI_')", "message": "…", "severity": "warning", "field": "Key"}
//! ]
//! ```
//!
//! * `scope` `"row"` (default): evaluated once per row with `row` bound to the row as a CEL map (absent
//!   optional fields are absent keys: test them with `has(row.Field)`); a failure names the row, and the
//!   column when the rule reads exactly one field (`row.X`) or names it with `field`.
//! * `scope` `"table"`: evaluated once with `rows` bound to the list of the table's rows; a failure names the
//!   table's file.
//! * Every rule may read `rows`, `tables.<Table>` (a list of row maps; a singleton table such as `Const` is
//!   its one row map) and `byKey.<Table>[key]` (the row of a table with a single-field primary key).
//! * `message` may embed CEL expressions as `${expr}`, evaluated where the rule failed.
//! * `severity` `"error"` (default) or `"warning"`.
//!
//! A rule that does not compile, names an unknown field (`row.Tierr`) or an unknown table is a schema error
//! (GT0312) naming the schema file. Evaluation is linear: the data is converted to CEL values once per run,
//! rows and tables are bound by reference in nested scopes.

use crate::diag::Code;
use crate::diag::{closest, Diagnostic, Severity};
use crate::ir::{Project, Table, TableMode};
use crate::schema::{SchemaSet, TableSchema};
use cel::objects::{Key, Map};
use cel::{Context, Env, Program, Value as C};
use serde_json::Value as J;
use std::collections::HashMap;
use std::sync::Arc;

/// A compiled rule.
struct Rule {
    index: usize,
    source: String,
    program: Program,
    table_scope: bool,
    severity: Severity,
    /// Field the rule is about (explicit `field`, or the one field it reads as `row.X`).
    field: Option<usize>,
    /// The message split into literal text and compiled `${…}` parts.
    message: Vec<Part>,
}

enum Part {
    Text(String),
    Expr(String, Program),
}

fn env() -> Arc<Env> {
    let mut env = Env::stdlib();
    // Extensions are a convenience; a failure to add one leaves the standard library.
    let _ = env.add_extension(cel::extensions::strings);
    let _ = env.add_extension(cel::extensions::lists);
    let _ = env.add_extension(cel::extensions::math);
    Arc::new(env)
}

/// Identifiers `x` of every `<var>.x` in `src` (outside string literals).
pub fn selected_fields(src: &str, var: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' {
            quote = Some(c);
            i += 1;
            continue;
        }
        let ident_start =
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.');
        if ident_start && src[i..].starts_with(var) && src[i + var.len()..].starts_with('.') {
            let s = i + var.len() + 1;
            let mut e = s;
            while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
                e += 1;
            }
            if e > s {
                out.push(src[s..e].to_string());
            }
            i = e;
            continue;
        }
        i += 1;
    }
    out
}

fn split_message(msg: &str) -> Result<Vec<(bool, String)>, String> {
    let mut parts = vec![];
    let mut rest = msg;
    while let Some(p) = rest.find("${") {
        if p > 0 {
            parts.push((false, rest[..p].to_string()));
        }
        let after = &rest[p + 2..];
        // Find the matching `}` (CEL map literals may nest braces).
        let mut depth = 0usize;
        let mut end = None;
        for (k, ch) in after.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = Some(k);
                    break;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        let Some(e) = end else {
            return Err("\"${\" without a closing \"}\" in the message".into());
        };
        parts.push((true, after[..e].to_string()));
        rest = &after[e + 1..];
    }
    if !rest.is_empty() {
        parts.push((false, rest.to_string()));
    }
    Ok(parts)
}

fn compile(env: &Env, src: &str) -> Result<Program, String> {
    env.compile(src).map_err(|e| {
        e.errors
            .iter()
            .map(|x| format!("{} (column {})", x.msg, x.pos.1 + 1))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Parse and compile the rules of one schema; problems are GT0312 at the schema file.
fn compile_rules(
    env: &Env,
    project: &Project,
    ts: &TableSchema,
    file: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Rule> {
    let bad = |i: usize, m: String| {
        Diagnostic::file_error(
            Code::BadRule,
            file,
            format!("{}: x-gentable-rules[{i}]: {m}", ts.name),
        )
    };
    let list = match &ts.rules {
        Ok(list) => list,
        Err(m) => {
            diags.push(Diagnostic::file_error(
                Code::BadRule,
                file,
                format!("{}: {m}", ts.name),
            ));
            return vec![];
        }
    };
    let table_names: Vec<&str> = project.tables.iter().map(|t| t.name.as_str()).collect();
    let field_names: Vec<&str> = ts.fields.iter().map(|f| f.name.as_str()).collect();
    let mut out = vec![];
    for (i, spec) in list.iter().enumerate() {
        let spec = match spec {
            Ok(s) => s,
            Err(m) => {
                diags.push(bad(i, m.clone()));
                continue;
            }
        };
        let source = spec.rule.as_str();
        let table_scope = spec.table_scope;
        let severity = spec.severity;
        let program = match compile(env, source) {
            Ok(p) => p,
            Err(e) => {
                diags.push(
                    bad(i, format!("rule {source:?} does not compile: {e}")).with_help(
                        "rules are CEL expressions, e.g. \"row.Tier >= 0 && has(row.Name)\"",
                    ),
                );
                continue;
            }
        };
        let check_names = |src: &str, what: &str, diags: &mut Vec<Diagnostic>| -> bool {
            let mut ok = true;
            for f in selected_fields(src, "row") {
                if table_scope {
                    diags.push(bad(
                        i,
                        format!("{what} reads row.{f}, but a table rule has no row (use rows)"),
                    ));
                    ok = false;
                } else if !field_names.contains(&f.as_str()) {
                    let mut d = bad(
                        i,
                        format!("{what} reads row.{f}, which is not a field of {}", ts.name),
                    );
                    if let Some(c) = closest(&f, field_names.iter().copied()) {
                        d = d.with_help(format!("did you mean row.{c}?"));
                    }
                    diags.push(d);
                    ok = false;
                }
            }
            for var in ["tables", "byKey"] {
                for t in selected_fields(src, var) {
                    if !table_names.contains(&t.as_str()) {
                        let mut d = bad(i, format!("{what} reads {var}.{t}, which is not a table"));
                        if let Some(c) = closest(&t, table_names.iter().copied()) {
                            d = d.with_help(format!("did you mean {var}.{c}?"));
                        }
                        diags.push(d);
                        ok = false;
                    }
                }
            }
            ok
        };
        let mut ok = check_names(source, "the rule", diags);
        let msg = spec.message.as_str();
        let mut message = vec![];
        match split_message(msg) {
            Ok(parts) => {
                for (is_expr, text) in parts {
                    if !is_expr {
                        message.push(Part::Text(text));
                        continue;
                    }
                    ok &= check_names(&text, "the message", diags);
                    match compile(env, &text) {
                        Ok(p) => message.push(Part::Expr(text, p)),
                        Err(e) => {
                            diags.push(bad(
                                i,
                                format!("message part ${{{text}}} does not compile: {e}"),
                            ));
                            ok = false;
                        }
                    }
                }
            }
            Err(e) => {
                diags.push(bad(i, e));
                ok = false;
            }
        }
        let field = match spec.field.as_deref() {
            Some(f) => match ts.fields.iter().position(|x| x.name == f) {
                Some(fi) => Some(fi),
                None => {
                    diags.push(bad(i, format!("field {f:?} is not a field of {}", ts.name)));
                    ok = false;
                    None
                }
            },
            None if table_scope => None,
            None => {
                let mut read = selected_fields(source, "row");
                read.sort();
                read.dedup();
                if read.len() == 1 {
                    ts.fields.iter().position(|x| x.name == read[0])
                } else {
                    None
                }
            }
        };
        if ok {
            out.push(Rule {
                index: i,
                source: source.to_string(),
                program,
                table_scope,
                severity,
                field,
                message,
            });
        }
    }
    out
}

fn json_to_cel(v: &J) -> C {
    match v {
        J::Null => C::Null,
        J::Bool(b) => C::Bool(*b),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                C::Int(i)
            } else if let Some(u) = n.as_u64() {
                C::UInt(u)
            } else {
                C::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        J::String(s) => C::String(Arc::new(s.clone())),
        J::Array(a) => C::List(Arc::new(a.iter().map(json_to_cel).collect())),
        J::Object(o) => C::Map(Map {
            map: Arc::new(
                o.iter()
                    .map(|(k, v)| (Key::String(Arc::new(k.clone())), json_to_cel(v)))
                    .collect(),
            ),
        }),
    }
}

fn key_of(v: &C) -> Option<Key> {
    match v {
        C::String(s) => Some(Key::String(s.clone())),
        C::Int(i) => Some(Key::Int(*i)),
        C::UInt(u) => Some(Key::Uint(*u)),
        C::Bool(b) => Some(Key::Bool(*b)),
        _ => None,
    }
}

fn cel_map(entries: impl IntoIterator<Item = (Key, C)>) -> C {
    C::Map(Map {
        map: Arc::new(entries.into_iter().collect()),
    })
}

/// Text of a CEL value inside a message: strings bare, lists as `[a, b]`.
pub fn show(v: &C) -> String {
    match v {
        C::String(s) => s.to_string(),
        C::Int(i) => i.to_string(),
        C::UInt(u) => u.to_string(),
        C::Float(f) => f.to_string(),
        C::Bool(b) => b.to_string(),
        C::Null => "null".into(),
        C::List(l) => format!("[{}]", l.iter().map(show).collect::<Vec<_>>().join(", ")),
        C::Map(m) => {
            let mut kv: Vec<String> = m
                .map
                .iter()
                .map(|(k, v)| format!("{}: {}", show_key(k), show(v)))
                .collect();
            kv.sort();
            format!("{{{}}}", kv.join(", "))
        }
        other => format!("{other:?}"),
    }
}

fn show_key(k: &Key) -> String {
    match k {
        Key::String(s) => s.to_string(),
        Key::Int(i) => i.to_string(),
        Key::Uint(u) => u.to_string(),
        Key::Bool(b) => b.to_string(),
    }
}

fn render_message(rule: &Rule, ctx: &Context) -> String {
    let mut s = String::new();
    for p in &rule.message {
        match p {
            Part::Text(t) => s.push_str(t),
            Part::Expr(src, prog) => match prog.execute(ctx) {
                Ok(v) => s.push_str(&show(&v)),
                Err(e) => s.push_str(&format!("${{{src}: {e}}}")),
            },
        }
    }
    if s.is_empty() {
        s = format!("rule {:?} is false", rule.source);
    }
    s
}

/// Evaluate every rule of every table. Problems with a rule itself are GT0312 (at the schema file); failures
/// are GT0310 (row) and GT0311 (table); evaluation errors GT0313.
/// Whether `rules` (expressions or messages) read other tables: `tables` or `byKey`.
fn read_other_tables(rules: &[Rule]) -> bool {
    ["tables", "byKey"].iter().any(|var| {
        rules.iter().any(|r| {
            r.program.references().has_variable(var)
                || r.message
                    .iter()
                    .any(|p| matches!(p, Part::Expr(_, e) if e.references().has_variable(var)))
        })
    })
}

/// Whether a rule of any table in `schemas` reads other tables (`tables`, `byKey`): then one table's rule
/// results depend on other tables' rows, and tables cannot be rebuilt one by one ([`crate::build::plan`]).
/// Rules that do not compile are not counted (they are reported by [`check`]).
pub fn any_reads_other_tables(project: &Project, set: &SchemaSet, schemas: &[TableSchema]) -> bool {
    let env = env();
    schemas.iter().any(|ts| {
        let rules = compile_rules(&env, project, ts, &set.rel(&ts.schema_file), &mut vec![]);
        read_other_tables(&rules)
    })
}

pub fn check(
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    diags: &mut Vec<Diagnostic>,
) {
    let env = env();
    let mut compiled: Vec<(&TableSchema, &Table, Vec<Rule>)> = vec![];
    for ts in schemas {
        let Some(t) = project.table(&ts.name) else {
            continue;
        };
        let rules = compile_rules(&env, project, ts, &set.rel(&ts.schema_file), diags);
        if !rules.is_empty() {
            compiled.push((ts, t, rules));
        }
    }
    if compiled.is_empty() {
        return;
    }
    // Every table's rows as CEL maps, converted once (only when some rule reads other tables).
    let need_all = compiled
        .iter()
        .any(|(_, _, rules)| read_other_tables(rules));
    let schema_of: HashMap<&str, &TableSchema> =
        schemas.iter().map(|s| (s.name.as_str(), s)).collect();
    let rows_of = |t: &Table| -> Vec<C> {
        match schema_of.get(t.name.as_str()) {
            Some(ts) => t
                .rows
                .iter()
                .map(|r| json_to_cel(&super::json_schema::row_to_json(project, ts, r)))
                .collect(),
            None => vec![],
        }
    };
    let mut all_rows: HashMap<&str, Arc<Vec<C>>> = HashMap::new();
    for t in &project.tables {
        if need_all || compiled.iter().any(|(_, ct, _)| ct.name == t.name) {
            all_rows.insert(&t.name, Arc::new(rows_of(t)));
        }
    }
    let mut root = Context::with_env(env.clone());
    if need_all {
        let tables = cel_map(project.tables.iter().map(|t| {
            let rows = all_rows[t.name.as_str()].clone();
            let v = if t.mode == TableMode::One {
                rows.first().cloned().unwrap_or(C::Null)
            } else {
                C::List(rows)
            };
            (Key::String(Arc::new(t.name.clone())), v)
        }));
        root.add_variable_from_value("tables", tables);
        let by_key = cel_map(
            project
                .tables
                .iter()
                .filter(|t| t.primary_key.len() == 1)
                .map(|t| {
                    let pk = &t.fields[t.primary_key[0]].name;
                    let rows = &all_rows[t.name.as_str()];
                    let m = cel_map(rows.iter().filter_map(|r| match r {
                        C::Map(m) => Some((
                            key_of(m.map.get(&Key::String(Arc::new(pk.clone())))?)?,
                            r.clone(),
                        )),
                        _ => None,
                    }));
                    (Key::String(Arc::new(t.name.clone())), m)
                }),
        );
        root.add_variable_from_value("byKey", by_key);
    }
    for (ts, t, rules) in &compiled {
        let rows = all_rows[t.name.as_str()].clone();
        let mut scope = root.new_inner_scope();
        scope.add_variable_from_value("rows", C::List(rows.clone()));
        let (table_rules, row_rules): (Vec<&Rule>, Vec<&Rule>) =
            rules.iter().partition(|r| r.table_scope);
        for r in table_rules {
            let first = t.rows.first();
            let mk = |code, msg: String| {
                let mut d = Diagnostic::file_error(
                    code,
                    first
                        .map(|r| r.origin.file.to_string())
                        .unwrap_or_else(|| set.rel(&ts.schema_file)),
                    msg,
                );
                d.sheet = first.and_then(|r| r.origin.sheet.as_deref().map(str::to_string));
                d
            };
            match r.program.execute(&scope) {
                Ok(C::Bool(true)) => {}
                Ok(C::Bool(false)) => {
                    let mut d = mk(
                        Code::TableRuleFailed,
                        format!("{}: {}", t.name, render_message(r, &scope)),
                    )
                    .with_help(format!(
                        "the table rule x-gentable-rules[{}] of {} is false",
                        r.index,
                        set.rel(&ts.schema_file)
                    ));
                    d.severity = r.severity;
                    diags.push(d);
                }
                Ok(v) => diags.push(mk(
                    Code::RuleError,
                    format!(
                        "{}: table rule {:?} returned {}, not a boolean",
                        t.name,
                        r.source,
                        show(&v)
                    ),
                )),
                Err(e) => diags.push(mk(
                    Code::RuleError,
                    format!(
                        "{}: table rule {:?} could not be evaluated: {e}",
                        t.name, r.source
                    ),
                )),
            }
        }
        if row_rules.is_empty() {
            continue;
        }
        for (row, value) in t.rows.iter().zip(rows.iter()) {
            let mut rs = scope.new_inner_scope();
            rs.add_variable_from_value("row", value.clone());
            for r in &row_rules {
                let cell = |fi: usize| cell_text(value, &ts.fields[fi].name);
                let at = |code, msg: String, fi: Option<usize>| -> Diagnostic {
                    Diagnostic::cell_error(
                        code,
                        &row.origin,
                        fi.and_then(|i| row.column(i)),
                        fi.map(|i| ts.fields[i].name.as_str()),
                        fi.and_then(cell).as_deref(),
                        msg,
                    )
                };
                match r.program.execute(&rs) {
                    Ok(C::Bool(true)) => {}
                    Ok(C::Bool(false)) => {
                        let mut d = at(Code::RuleFailed, render_message(r, &rs), r.field)
                            .with_help(format!(
                                "the rule x-gentable-rules[{}] of {} is false for this row",
                                r.index,
                                set.rel(&ts.schema_file)
                            ));
                        d.severity = r.severity;
                        diags.push(d);
                    }
                    Ok(v) => diags.push(at(
                        Code::RuleError,
                        format!("rule {:?} returned {}, not a boolean", r.source, show(&v)),
                        r.field,
                    )),
                    Err(e) => diags.push(
                        at(
                            Code::RuleError,
                            format!(
                                "rule {:?} could not be evaluated on this row: {e}",
                                r.source
                            ),
                            r.field,
                        )
                        .with_help("test optional fields with has(row.Field) before reading them"),
                    ),
                }
            }
        }
    }
}

fn cell_text(row: &C, field: &str) -> Option<String> {
    let C::Map(m) = row else { return None };
    match m.map.get(&Key::String(Arc::new(field.to_string())))? {
        C::String(s) => Some(s.to_string()),
        v => Some(show(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_fields_skip_strings_and_other_vars() {
        assert_eq!(
            selected_fields(
                "row.A > 1 && row.B_2 == 'row.C' && xrow.D && rows.size() > 0",
                "row"
            ),
            vec!["A", "B_2"]
        );
        assert_eq!(
            selected_fields("tables.PieceType.exists(p, p.Id == row.To)", "tables"),
            vec!["PieceType"]
        );
    }

    #[test]
    fn messages_split_into_text_and_expressions() {
        let p = split_message("a ${x.y} b ${{'k': 1}.k}").unwrap();
        assert_eq!(
            p,
            vec![
                (false, "a ".into()),
                (true, "x.y".into()),
                (false, " b ".into()),
                (true, "{'k': 1}.k".into())
            ]
        );
        assert!(split_message("a ${x").is_err());
    }

    #[test]
    fn nested_scopes_see_the_outer_bindings() {
        let env = env();
        let mut root = Context::with_env(env.clone());
        root.add_variable_from_value(
            "tables",
            cel_map([(Key::String(Arc::new("T".into())), C::Int(3))]),
        );
        let mut s = root.new_inner_scope();
        s.add_variable_from_value(
            "row",
            cel_map([(Key::String(Arc::new("A".into())), C::Int(2))]),
        );
        let p = compile(&env, "row.A < tables.T && [1,2].exists(x, x == row.A)").unwrap();
        assert_eq!(p.execute(&s), Ok(C::Bool(true)));
        assert!(compile(&env, "row.A <").is_err());
    }
}
