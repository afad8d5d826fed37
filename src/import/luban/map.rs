//! Mapping a read Luban project ([`super::model::Luban`]) to a gentable project: `gentable.toml`, one
//! `schema/<Table>.schema.json` per table and `schema/luban.schema.json` holding every bean and enum as
//! `$defs` (docs/migrating-from-luban.md has the table of what maps to what).
//!
//! Whatever cannot be mapped is listed per table and field with the reason ([`Imported::unmapped`]); the
//! rest still builds.

use super::defs::{error, read_every_sheet};
use super::model::*;
use super::types::{parse, LubanType};
use crate::diag::Diagnostic;
use serde_json::{json, Map, Value as J};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A text Luban reads as another kind than the one whose tag it is: `(text, the tag's leaf, Luban's leaf)`.
type Unsayable = (String, String, String);

/// How to import.
#[derive(Clone, Debug)]
pub struct Options {
    /// Fixed offset of Luban's `datetime` cells (Luban reads them in the export machine's zone): `+08:00`.
    pub time_zone: String,
}

/// One imported table: its gentable name, Luban's full name and Luban's JSON export file name.
#[derive(Clone, Debug)]
pub struct ImportedTable {
    pub name: String,
    pub luban: String,
    /// `<module>_<name>.json` in lower case: what Luban's JSON target writes.
    pub luban_json: String,
    /// Its inputs: files relative to Luban's data folder, and the sheet when one is named.
    pub inputs: Vec<(String, Option<String>)>,
}

/// The gentable project made from a Luban project.
#[derive(Clone, Debug, Default)]
pub struct Imported {
    /// `(path relative to the project folder, content)`, sorted by path.
    pub files: Vec<(String, String)>,
    /// `(where, why)`: what was not mapped (kept as string, left out, or read differently).
    pub unmapped: Vec<(String, String)>,
    /// `(Luban table, reason)` of every table left out, in the order of Luban's tables: gentable.toml names
    /// each with its reason.
    pub left_out: Vec<(String, String)>,
    pub tables: Vec<ImportedTable>,
    /// Luban's data folder (luban.conf's `dataDir`, from the folder of luban.conf).
    pub data: std::path::PathBuf,
    /// The same folder as `gentable.toml`'s `[project] tables` names it (from the project folder).
    pub data_rel: String,
}

/// The head of the `gentable.toml` comment naming every table the import left out, each with its reason.
pub const LEFT_OUT: &str =
    "Tables left out by the import, each with its reason (the import's report lists all it could not map):";

/// Marker of every imported file (a re-import replaces and removes only files carrying it).
pub const MARKER: &str =
    "imported from Luban by `gentable import luban`; re-run it to update this file";

struct Ctx<'a> {
    l: &'a Luban,
    opts: &'a Options,
    /// `$defs` key of each bean and enum, by full name.
    keys: BTreeMap<String, String>,
    /// Children of each bean, by full name.
    children: BTreeMap<String, Vec<String>>,
    /// Table name of each Luban table, by full name.
    table_names: BTreeMap<String, String>,
    /// Tables whose rows are partly in sources gentable does not read (JSON, Lua, XML, YAML): references to
    /// them are not checked.
    partial: BTreeSet<String>,
    /// The member whose value is 0 of each enum that has one (Luban's empty enum cell), by full name.
    zero: BTreeMap<String, String>,
    unmapped: Vec<(String, String)>,
    /// `(Luban table, reason)` of every table left out.
    left_out: Vec<(String, String)>,
    defs: Map<String, J>,
    /// Errors in the definitions (GT0601).
    diags: Vec<Diagnostic>,
}

fn bean_named<'a>(l: &'a Luban, full: &str) -> Option<&'a BeanDef> {
    l.beans.iter().find(|b| b.full == full)
}

impl Ctx<'_> {
    /// The full name of a bean or enum written `name` in module `module`.
    fn resolve(&self, name: &str, module: &str) -> Option<String> {
        let exists = |f: &str| self.keys.contains_key(f);
        if exists(name) {
            return Some(name.to_string());
        }
        let local = join(module, name);
        if exists(&local) {
            return Some(local);
        }
        let bare: Vec<&String> = self.keys.keys().filter(|k| name_of(k) == name).collect();
        // Unique by bare name (Luban resolves `vec3` and same-module names; sheets often omit modules).
        match bare.as_slice() {
            [one] => Some((*one).clone()),
            _ => bare
                .iter()
                .find(|k| module_of(k).is_empty())
                .map(|k| (*k).clone()),
        }
    }

    fn is_enum(&self, full: &str) -> Option<&EnumDef> {
        self.l.enums.iter().find(|e| e.full == full)
    }

    /// Leaf beans of `full` (itself when it has no children), in declaration order.
    fn leaves(&self, full: &str) -> Vec<String> {
        match self.children.get(full) {
            None => vec![full.to_string()],
            Some(cs) => cs.iter().flat_map(|c| self.leaves(c)).collect(),
        }
    }

    /// Every var of `full`, inherited ones first.
    fn vars(&self, full: &str) -> Vec<(Var, String)> {
        let Some(b) = bean_named(self.l, full) else {
            return vec![];
        };
        let mut out = match &b.parent {
            Some(p) => self.vars(&self.resolve(p, module_of(full)).unwrap_or_default()),
            None => vec![],
        };
        out.extend(
            b.vars
                .iter()
                .map(|v| (v.clone(), module_of(full).to_string())),
        );
        out
    }

    fn note(&mut self, at: &str, why: impl Into<String>) {
        self.unmapped.push((at.to_string(), why.into()));
    }

    /// Leave out the table `full`: `why` is noted at the table (the report) and, without its "left out"
    /// words, named in gentable.toml ([`Imported::left_out`]) on one comment line (a TOML comment holds no
    /// control character: a line break is a space, any other is escaped).
    fn leave_out(&mut self, full: &str, why: String) {
        let reason = why.strip_prefix("left out: ").unwrap_or(&why);
        let reason = reason
            .strip_suffix("; table left out")
            .or_else(|| reason.strip_suffix(": table left out"))
            .unwrap_or(reason);
        let reason: String = reason
            .chars()
            .map(|c| match c {
                '\r' | '\n' => " ".to_string(),
                c if c.is_control() && c != '\t' => c.escape_unicode().to_string(),
                c => c.to_string(),
            })
            .collect();
        self.left_out.push((full.to_string(), reason));
        self.note(&format!("table {full}"), why);
    }

    fn def_ref(&self, full: &str) -> J {
        json!({"$ref": format!("luban.schema.json#/$defs/{}", crate::schema::percent_encode(&self.keys[full]))})
    }

    /// The JSON Schema of a Luban type, and whether it is nullable. `at` names the field for notes.
    fn schema(&mut self, t: &LubanType, module: &str, at: &str) -> Result<J, String> {
        let mut s = match t.name.as_str() {
            "bool" => json!({"type": "boolean"}),
            "byte" | "uint8" => json!({"type": "integer", "format": "uint8"}),
            "short" | "int16" => json!({"type": "integer", "format": "int16"}),
            "int" | "int32" => json!({"type": "integer", "format": "int32"}),
            "long" | "int64" => json!({"type": "integer", "format": "int64"}),
            "float" | "float32" | "double" | "float64" => json!({"type": "number"}),
            "string" => json!({"type": "string"}),
            "text" => {
                self.note(at, "text: read as its localization key (a plain string); gentable's [localization] table is not set up from Luban's l10n files");
                json!({"type": "string"})
            }
            "datetime" => {
                json!({"type": "string", "format": "date-time", "x-gentable-timeZone": self.opts.time_zone})
            }
            "bigint" => {
                self.note(at, "bigint: kept as string");
                json!({"type": "string"})
            }
            "list" | "array" | "set" => {
                let item = self.schema(&t.args[0], module, at)?;
                let mut a = json!({"type": "array", "items": item});
                if t.name == "set" {
                    a["uniqueItems"] = json!(true);
                }
                a
            }
            "map" => {
                let k = &t.args[0];
                let key = match k.name.as_str() {
                    "string" => json!({"type": "string"}),
                    "byte" | "short" | "int" | "long" | "int32" | "int64" | "int16" | "uint8" => {
                        self.schema(k, module, at)?
                    }
                    _ => match self
                        .resolve(&k.name, module)
                        .filter(|f| self.is_enum(f).is_some())
                    {
                        // Enum keys: string keys that must be members (`propertyNames`); canonical data
                        // keeps the member names.
                        Some(full) => json!({"type": "string", "enum-keys": self.def_ref(&full)}),
                        None => {
                            self.note(at, format!("map key type {}: kept as string keys", k.name));
                            json!({"type": "string"})
                        }
                    },
                };
                let v = self.schema(&t.args[1], module, at)?;
                let mut m = json!({"type": "object", "additionalProperties": v});
                if key["type"] == "integer" {
                    m["x-gentable-mapKey"] = key;
                } else if let Some(e) = key.get("enum-keys") {
                    m["propertyNames"] = e.clone();
                }
                m
            }
            other => match self.resolve(other, module) {
                Some(full) => match self.is_enum(&full) {
                    Some(e) if e.flags => {
                        json!({"type": "array", "items": self.def_ref(&full), "x-gentable-flags": true})
                    }
                    Some(_) => self.def_ref(&full),
                    None => self.def_ref(&full),
                },
                None => {
                    return Err(format!(
                        "unknown type {other:?} (not a Luban primitive, bean or enum)"
                    ))
                }
            },
        };
        for (k, v) in &t.attrs {
            match k.as_str() {
                "sep" => s["x-gentable-separator"] = json!(v),
                "ref" => {
                    let mut targets = vec![];
                    for r in v.split(['|', ',']) {
                        let (field, table) = match r.split_once('@') {
                            Some((f, t)) => (Some(f), t),
                            None => (None, r),
                        };
                        if let Some(g) = self.l.refgroups.iter().find(|g| g.full == table || name_of(&g.full) == table) {
                            for t in g.tables.clone() {
                                if let Some(n) = self.table_target(&t, module) {
                                    targets.push(n);
                                }
                            }
                            continue;
                        }
                        let partial = self.partial.iter().any(|p| p == table || name_of(p) == table || *p == join(module, table));
                        match self.table_target(table, module) {
                            Some(_) if partial => self.note(at, format!("ref={r}: part of that table's rows come from files gentable does not read; the reference is not checked")),
                            Some(n) => targets.push(match field {
                                Some(f) => format!("{n}.{f}"),
                                None => n,
                            }),
                            None => self.note(at, format!("ref={r}: the table is not imported; the reference is not checked")),
                        }
                    }
                    match targets.len() {
                        0 => {}
                        1 => s["x-gentable-foreignKey"] = json!(targets[0]),
                        _ => s["x-gentable-foreignKey"] = json!(targets),
                    }
                }
                "range" => range(&mut s, v, "minimum", "maximum", at, self)?,
                "size" => {
                    if v.chars().all(|c| c.is_ascii_digit()) {
                        let n: u64 = v.parse().map_err(|_| format!("size={v}"))?;
                        s["minItems"] = json!(n);
                        s["maxItems"] = json!(n);
                    } else {
                        range(&mut s, v, "minItems", "maxItems", at, self)?;
                    }
                }
                "set" => {
                    let items: Vec<&str> = v.split(',').map(str::trim).collect();
                    if s["type"] == "string" {
                        let alts: Vec<String> = items.iter().map(|x| regex_escape(x)).collect();
                        s["pattern"] = json!(format!("^(?:{})$", alts.join("|")));
                    } else if s["type"] == "integer" {
                        let nums: Result<Vec<i64>, _> = items.iter().map(|x| x.parse::<i64>()).collect();
                        match nums {
                            Ok(n) => s["enum"] = json!(n),
                            Err(_) => self.note(at, format!("set={v}: not integers; not checked")),
                        }
                    } else {
                        self.note(at, format!("set={v} on {}: not checked", t.name));
                    }
                }
                "regex" => s["pattern"] = json!(v),
                "default" => {
                    let d = match s["type"].as_str() {
                        Some("integer") => v.parse::<i64>().map(J::from).ok(),
                        Some("number") => v.parse::<f64>().ok().map(J::from),
                        Some("boolean") => Some(J::Bool(matches!(v.to_ascii_lowercase().as_str(), "true" | "1"))),
                        _ => Some(J::String(v.clone())),
                    };
                    if let Some(d) = d {
                        s["default"] = d;
                    }
                }
                "escape" => self.note(at, "escape=1: Luban turns \\n, \\t in the cell into control characters; gentable keeps the text as written"),
                "index" => self.note(at, format!("index={v}: Luban's index of a list by a bean field has no gentable lookup; the list is read as is")),
                other => self.note(at, format!("#{other}={v}: no gentable equivalent (ignored)")),
            }
        }
        Ok(s)
    }

    /// The gentable table of a `ref=` target (`test.TbItem`, `TbItem`).
    fn table_target(&self, t: &str, module: &str) -> Option<String> {
        self.table_names
            .get(t)
            .or_else(|| self.table_names.get(&join(module, t)))
            .or_else(|| {
                self.table_names
                    .iter()
                    .find(|(k, _)| name_of(k) == t)
                    .map(|(_, v)| v)
            })
            .cloned()
    }

    /// `$defs` of an enum.
    fn enum_def(&mut self, e: &EnumDef) {
        let at = format!("enum {}", e.full);
        if e.items.is_empty() {
            self.note(
                &at,
                "an enum without items cannot be a JSON Schema enum: left out",
            );
            return;
        }
        let mut members = vec![];
        let mut values = Map::new();
        let mut aliases = Map::new();
        let mut names = Map::new();
        let mut next = 0i64;
        let by_name: BTreeMap<&str, i64> = BTreeMap::new();
        let mut by_name = by_name;
        for it in &e.items {
            let v = match &it.value {
                None => Some(next),
                Some(v) => parse_value(v, &by_name),
            };
            let Some(v) = v else {
                self.note(
                    &at,
                    format!(
                        "item {}: value {:?} is not an integer or a | of items; left out",
                        it.name,
                        it.value.as_deref().unwrap_or_default()
                    ),
                );
                continue;
            };
            if e.flags && v != 0 && (v & (v - 1)) != 0 {
                self.note(&at, format!("item {} = {v}: a combination of flags, not a flag of its own; write its members (`A|B`) in cells", it.name));
                by_name.insert(&it.name, v);
                continue;
            }
            by_name.insert(&it.name, v);
            if v == 0 && !e.flags {
                self.zero.entry(e.full.clone()).or_insert(it.name.clone());
            }
            next = v + 1;
            members.push(json!(it.name));
            values.insert(it.name.clone(), json!(v));
            names.insert(it.name.clone(), json!(it.name));
            if let Some(a) = &it.alias {
                aliases.insert(it.name.clone(), json!([a]));
            }
        }
        let mut d = json!({"type": "string", "enum": members, "x-gentable-enumValues": values, "x-gentable-name": names});
        if !aliases.is_empty() {
            d["x-gentable-enumAliases"] = J::Object(aliases);
        }
        if e.flags {
            d["x-gentable-flags"] = json!(true);
        }
        if !e.comment.is_empty() {
            d["description"] = json!(e.comment);
        }
        self.defs.insert(self.keys[&e.full].clone(), d);
    }

    /// The object schema of bean `full`'s fields (for a record or a union branch), with the vars' notes.
    fn object(&mut self, full: &str, at: &str) -> J {
        let mut props = Map::new();
        let mut required = vec![];
        for (v, module) in self.vars(full) {
            let vat = format!("{at}.{}", v.name);
            for u in &v.unmapped {
                self.note(&vat, format!("{u}: no gentable equivalent (ignored)"));
            }
            if !v.group.is_empty() {
                self.note(&vat, format!("group={}: export groups apply to table fields only; the field is in every output", v.group.join(",")));
            }
            if let Some((mut s, req)) = self.field(&v, &module, &vat) {
                if req {
                    required.push(json!(v.name));
                }
                // Luban reads the column headed by the var's name or by its alias.
                if let Some(a) = &v.alias {
                    s["x-gentable-aliases"] = json!([a]);
                }
                props.insert(v.name.clone(), s);
            }
        }
        json!({"type": "object", "properties": props, "required": required})
    }

    /// The row schema of a table whose value type is a polymorphic bean (Luban's `__type__` column names
    /// each row's kind; `TbItem2` of Luban's example, sheets `item`, `equipment`, `decorator` and `mixed`): one
    /// flat object holding `$type` (an enum of the leaf kinds' tags, `<Bean>Kind` in the table schema's own
    /// `$defs`, read from the `__type__` column, identifier `kind`), the bean's own fields, and every kind's
    /// fields as optional members without a `default`; plus, per kind, an `if`/`then` that requires the kind's
    /// fields and forbids the other kinds' (`false`: a value in another kind's column is an error, not
    /// dropped). A row's canonical JSON is then Luban's exported row. `Err` when two kinds have a field of one
    /// name with different schemas.
    fn polymorphic_row(&mut self, bean: &str, at: &str) -> Result<J, String> {
        let base = self.object(bean, at);
        let mut props = Map::new();
        let common: Vec<String> = base["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let leaves = self.leaves(bean);
        let mut kinds: Vec<(String, Vec<String>, Vec<J>)> = vec![];
        let mut by_kind = Map::new();
        for leaf in &leaves {
            let tag = kind_tag(bean, leaf).to_string();
            let o = self.object(leaf, &format!("{at} ({tag} rows)"));
            let mut own = vec![];
            let mut required = vec![];
            for (k, v) in o["properties"].as_object().into_iter().flatten() {
                if common.contains(k) {
                    continue;
                }
                let mut v = v.clone();
                if let Some(m) = v.as_object_mut() {
                    m.remove("default");
                }
                // An empty cell of a list or map is an empty value, not an absent one: the rows of the
                // other kinds would all break the `false` that keeps this field theirs.
                if matches!(v["type"].as_str(), Some("array" | "object")) {
                    return Err(format!(
                        "the field {k:?} of the kind {tag} is a list or a map, which a flat row cannot leave out for the other kinds"
                    ));
                }
                // Two kinds may declare one field alike; their comments may differ.
                match by_kind.get(k) {
                    Some(prev) if without_description(prev) != without_description(&v) => {
                        return Err(format!(
                            "two kinds of {bean} have a field {k:?} of different types"
                        ))
                    }
                    Some(_) => {}
                    None => {
                        by_kind.insert(k.clone(), v);
                    }
                }
                if o["required"]
                    .as_array()
                    .is_some_and(|r| r.contains(&json!(k)))
                {
                    required.push(json!(k));
                }
                own.push(k.clone());
            }
            kinds.push((tag, own, required));
        }
        let taken = |n: &str| common.iter().chain(by_kind.keys()).any(|f| f == n);
        let ident = ["kind", "row_kind", "luban_type"]
            .into_iter()
            .find(|n| !taken(n))
            .unwrap_or("luban_type");
        let kind_def = format!("{}Kind", name_of(bean));
        props.insert(
            "$type".into(),
            json!({
                "$ref": format!("#/$defs/{}", crate::schema::percent_encode(&kind_def)),
                "description": "The kind of the row (Luban's $type, the sheet's __type__ column).",
                "x-gentable-name": ident,
                "x-gentable-aliases": ["__type__"],
            }),
        );
        props.extend(base["properties"].as_object().cloned().unwrap_or_default());
        let mut all_of = vec![];
        for (tag, own, required) in &kinds {
            let others: Map<String, J> = by_kind
                .keys()
                .filter(|k| !own.contains(k))
                .map(|k| (k.clone(), J::Bool(false)))
                .collect();
            let mut then = Map::new();
            if !required.is_empty() {
                then.insert("required".into(), J::Array(required.clone()));
            }
            if !others.is_empty() {
                then.insert("properties".into(), J::Object(others));
            }
            all_of.push(json!({
                "if": {"properties": {"$type": {"const": tag}}, "required": ["$type"]},
                "then": J::Object(then),
            }));
        }
        props.extend(by_kind);
        let tags: Vec<J> = kinds.iter().map(|(t, _, _)| json!(t)).collect();
        let mut kind = json!({
            "type": "string",
            "enum": tags,
            "description": format!("The kinds of {bean}: the leaf beans a row may be."),
        });
        // Cells may name a kind by its bean alias or its full name, as in a polymorphic field.
        let (aliases, _) = self.kind_aliases(bean);
        if !aliases.is_empty() {
            kind["x-gentable-enumAliases"] = J::Object(aliases);
        }
        let mut required = vec![json!("$type")];
        required.extend(base["required"].as_array().cloned().unwrap_or_default());
        Ok(json!({
            "type": "object",
            "$defs": {kind_def: kind},
            "properties": props,
            "required": required,
            "allOf": all_of,
        }))
    }

    /// The other names a cell may give each kind (leaf) of the polymorphic bean `root`, by tag, where Luban
    /// reads a kind's name in a cell as the first leaf, in declaration order, whose name or `alias` it is
    /// (`DefBean.GetNotAbstractChildType`): the bean's `alias` and, in another module, its short name
    /// (`Rectangle` for `test2.Rectangle`) when no earlier kind has them; and, for gentable only, its full
    /// name (`test.login.RoleInfo`). A tag always names its own kind. The second list holds the texts Luban
    /// reads as another kind than the one whose tag they are, which no alias can say: `(text, the tag's
    /// leaf, Luban's leaf)` (`m2.Circle` declared before `m.Circle`, both kinds of `m.Shape`: `Circle` is
    /// `m.Circle`'s tag, but Luban reads it as `m2.Circle`).
    fn kind_aliases(&self, root: &str) -> (Map<String, J>, Vec<Unsayable>) {
        let leaves = self.leaves(root);
        let tags: Vec<&str> = leaves.iter().map(|l| kind_tag(root, l)).collect();
        let alias_of = |leaf: &str| {
            bean_named(self.l, leaf)
                .and_then(|b| b.alias.clone())
                .filter(|a| !a.trim().is_empty())
        };
        // Luban's reading of each name or alias: the first leaf that has it.
        let mut luban: Vec<(String, usize)> = vec![];
        for (i, leaf) in leaves.iter().enumerate() {
            for n in [Some(name_of(leaf).to_string()), alias_of(leaf)]
                .into_iter()
                .flatten()
            {
                if !luban.iter().any(|(t, _)| *t == n) {
                    luban.push((n, i));
                }
            }
        }
        let owner = |text: &str| {
            luban
                .iter()
                .find(|(t, _)| t == text)
                .map(|(_, i)| *i)
                .or_else(|| leaves.iter().position(|l| l == text))
        };
        let mut aliases = Map::new();
        for (i, (leaf, tag)) in leaves.iter().zip(&tags).enumerate() {
            let mut names: Vec<J> = vec![];
            for other in [
                alias_of(leaf),
                Some(leaf.clone()),
                Some(name_of(leaf).to_string()),
            ]
            .into_iter()
            .flatten()
            {
                if !tags.contains(&other.as_str())
                    && owner(&other) == Some(i)
                    && !names.contains(&json!(other))
                {
                    names.push(json!(other));
                }
            }
            if !names.is_empty() {
                aliases.insert(tag.to_string(), J::Array(names));
            }
        }
        let mut unsayable = vec![];
        for (text, i) in &luban {
            if let Some(j) = tags.iter().position(|t| t == text).filter(|j| j != i) {
                unsayable.push((text.clone(), leaves[j].clone(), leaves[*i].clone()));
            }
        }
        (aliases, unsayable)
    }

    /// Luban's own check of the kinds of a polymorphic bean `root` (`DefBean.Compile`): a kind's `alias`
    /// that is another kind's name or an earlier kind's alias is an error there ("alias 重复"), so it is one
    /// here (GT0601, at the kind): a cell holding it would name two kinds.
    fn check_kind_aliases(&mut self, root: &str) {
        let leaves = self.leaves(root);
        let mut names: Vec<(String, String)> = leaves
            .iter()
            .map(|l| (name_of(l).to_string(), l.clone()))
            .collect();
        for leaf in &leaves {
            let Some(b) = bean_named(self.l, leaf) else {
                continue;
            };
            let Some(a) = b.alias.clone().filter(|a| !a.trim().is_empty()) else {
                continue;
            };
            match names.iter().find(|(n, l)| *n == a && l != leaf) {
                Some((_, other)) => {
                    let d = error(
                        &b.place,
                        format!(
                            "bean {leaf} has the alias {a:?}, which is already the name or alias of {other}, another kind of {root}: Luban rejects it too (a cell {a:?} would name both kinds); rename the alias"
                        ),
                    );
                    self.diags.push(d);
                }
                None => names.push((a, leaf.clone())),
            }
        }
    }

    /// The property schema of a var and whether it is required; `None` (noted) when its type cannot be read.
    fn field(&mut self, v: &Var, module: &str, at: &str) -> Option<(J, bool)> {
        // A type Luban itself rejects is an error at the var (the XML line, or the workbook cell).
        let t = match parse(&v.ty) {
            Ok(t) => t,
            Err(m) => {
                self.diags.push(error(
                    &v.place,
                    format!("field {}: bad type {:?}: {m}", v.name, v.ty),
                ));
                return None;
            }
        };
        let mut s = match self.schema(&t, module, at) {
            Ok(s) => s,
            Err(m) => {
                self.diags.push(error(
                    &v.place,
                    format!("field {}: type {:?}: {m}", v.name, v.ty),
                ));
                return None;
            }
        };
        if !v.comment.is_empty() {
            s["description"] = json!(v.comment);
        }
        if t.nullable {
            return Some((s, false));
        }
        // Luban's empty cell of a scalar is its zero value: 0, false, "", the enum member of value 0.
        if s.get("default").is_none() {
            if let Some(z) = self
                .resolve(&t.name, module)
                .and_then(|f| self.zero.get(&f))
            {
                s["default"] = json!(z);
            }
            match s["type"].as_str() {
                Some("integer") => s["default"] = json!(0),
                Some("number") => s["default"] = json!(0),
                Some("boolean") => s["default"] = json!(false),
                Some("string") if s.get("format").is_none() => s["default"] = json!(""),
                _ => {}
            }
        }
        Some((s, true))
    }

    /// `$defs` of a bean: a record, or (with children) a union of its leaves told apart by `$type`
    /// ([`kind_tag`]).
    fn bean_def(&mut self, b: &BeanDef) {
        let at = format!("bean {}", b.full);
        if b.alias.is_some() && b.parent.is_none() && !self.children.contains_key(&b.full) {
            self.note(
                &at,
                "alias= of a bean that is not a kind of a polymorphic bean: not used",
            );
        }
        let mut d = if self.children.contains_key(&b.full) {
            let mut branches = vec![];
            for leaf in self.leaves(&b.full) {
                let mut o = self.object(&leaf, &format!("bean {leaf}"));
                let props = o["properties"].as_object_mut().expect("object");
                // A value of a polymorphic bean is read by position (gentable reads no sub-columns of a
                // union), so a kind's field alias would name nothing here: not written, and said.
                let mut unused = vec![];
                for (name, p) in props.iter_mut() {
                    if let Some(a) = p
                        .as_object_mut()
                        .and_then(|m| m.remove("x-gentable-aliases"))
                    {
                        unused.push((format!("bean {leaf}.{name}"), a));
                    }
                }
                for (at, a) in unused {
                    let a = a.get(0).and_then(J::as_str).unwrap_or_default();
                    let why = format!("alias={a}: not written where the bean is a kind of a polymorphic field, whose values are read by position (in a table whose rows are polymorphic, it still names the column)");
                    if !self.unmapped.iter().any(|(w, m)| *w == at && *m == why) {
                        self.note(&at, why);
                    }
                }
                let mut with_type = Map::new();
                with_type.insert("$type".into(), json!({"const": kind_tag(&b.full, &leaf)}));
                with_type.extend(std::mem::take(props));
                o["properties"] = J::Object(with_type);
                o["required"]
                    .as_array_mut()
                    .expect("array")
                    .insert(0, json!("$type"));
                branches.push(o);
            }
            let mut u = json!({"oneOf": branches, "x-gentable-discriminator": "$type"});
            // Luban's bean aliases name kinds in cells (`圆` for `Circle`).
            let (aliases, unsayable) = self.kind_aliases(&b.full);
            if !aliases.is_empty() {
                u["x-gentable-kindAliases"] = J::Object(aliases);
            }
            for (text, tags, luban) in unsayable {
                self.note(&at, format!("a cell {text:?} names the kind {tags}, whose $type it is; Luban reads it as {luban}, the first kind declared with that name or alias: such cells are read differently"));
            }
            if b.parent.is_none() {
                self.check_kind_aliases(&b.full);
            }
            u
        } else {
            self.object(&b.full, &at)
        };
        if let Some(sep) = &b.sep {
            d["x-gentable-separator"] = json!(sep);
        }
        if !b.comment.is_empty() {
            d["description"] = json!(b.comment);
        }
        self.defs.insert(self.keys[&b.full].clone(), d);
    }
}

/// `[a, b]`, `(a, b]`, `[a,]`: bounds into `lo`/`hi` keywords (exclusive ends as `exclusive…`, or ±1 for
/// item counts).
fn range(s: &mut J, v: &str, lo: &str, hi: &str, at: &str, ctx: &mut Ctx) -> Result<(), String> {
    let v = v.trim();
    let (Some(open), Some(close)) = (v.chars().next(), v.chars().last()) else {
        return Err(format!("range {v:?} is empty"));
    };
    if !"[(".contains(open) || !"])".contains(close) {
        ctx.note(at, format!("range {v}: not [a, b] / (a, b); not checked"));
        return Ok(());
    }
    let inner = &v[1..v.len() - 1];
    let (a, b) = inner.split_once(',').unwrap_or((inner, ""));
    let num = |x: &str| -> Option<J> {
        let x = x.trim();
        x.parse::<i64>()
            .map(J::from)
            .ok()
            .or_else(|| x.parse::<f64>().ok().map(J::from))
    };
    let counts = lo == "minItems";
    if let Some(n) = num(a) {
        if open == '(' {
            if counts {
                s[lo] = json!(n.as_i64().unwrap_or(0) + 1);
            } else {
                s["exclusiveMinimum"] = n;
            }
        } else {
            s[lo] = n;
        }
    }
    if let Some(n) = num(b) {
        if close == ')' {
            if counts {
                s[hi] = json!(n.as_i64().unwrap_or(0) - 1);
            } else {
                s["exclusiveMaximum"] = n;
            }
        } else {
            s[hi] = n;
        }
    }
    Ok(())
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

/// An enum item value: an integer (decimal or `0x` hex) or a `|` of earlier items.
fn parse_value(v: &str, by_name: &BTreeMap<&str, i64>) -> Option<i64> {
    let v = v.trim();
    if let Some(h) = v.strip_prefix("0x") {
        return i64::from_str_radix(h, 16).ok();
    }
    if let Ok(n) = v.parse() {
        return Some(n);
    }
    v.split('|')
        .map(|p| by_name.get(p.trim()).copied())
        .try_fold(0i64, |acc, x| x.map(|x| acc | x))
}

/// The header of a sheet that defines its bean (`readSchemaFromFile`, auto-import): the `##var` (or `##`)
/// names, `##type` types and `##group` groups, by column.
struct SheetHeader {
    marker: String,
    vars: Vec<Var>,
    /// Columns that Luban reads through a second `##var` row (multi-level titles): `(name, why)`.
    skipped: Vec<(String, String)>,
    /// Options written after a header name (`cs2#sep=,`, `x5#default=10`): `(name, options)`.
    options: Vec<(String, String)>,
    /// Lists written over several rows: `*name` or `name#multi_rows=1` (`multi_row_fields`).
    multi_rows: Vec<String>,
}

// The one diagnostic is returned by value: the caller puts it straight into its list.
#[allow(clippy::result_large_err)]
fn sheet_header(
    t: &crate::read::raw::RawTable,
    need_types: bool,
    is_flags: &dyn Fn(&str) -> bool,
) -> Result<SheetHeader, Diagnostic> {
    let marker_of = |r: &crate::read::raw::RawRow| {
        r.cells
            .first()
            .map(|c| c.text().trim().to_string())
            .unwrap_or_default()
    };
    let place = |row: usize, col: Option<usize>| Place {
        file: t.file.to_string(),
        sheet: t.sheet.as_deref().map(str::to_string),
        row,
        col,
    };
    let Some(names) = t.rows.iter().find(|r| marker_of(r).starts_with("##")) else {
        return Err(error(
            &place(1, Some(0)),
            "the sheet has no ##var row (Luban's row of field names)",
        ));
    };
    let marker = marker_of(names);
    if marker.starts_with("##column") {
        if need_types {
            return Err(error(
                &place(names.row, Some(0)),
                "a column-mode sheet (##column) that defines its own fields: not read by the importer",
            ));
        }
        // Read in place as a vertical sheet (typing/vertical.rs, Luban dialect).
        return Ok(SheetHeader {
            marker: "##column".into(),
            vars: vec![],
            skipped: vec![],
            options: vec![],
            multi_rows: vec![],
        });
    }
    let types = t.rows.iter().find(|r| marker_of(r) == "##type");
    let groups = t.rows.iter().find(|r| marker_of(r) == "##group");
    let subs = t
        .rows
        .iter()
        .filter(|r| marker_of(r) == "##var")
        .nth(if marker == "##var" { 1 } else { 0 });
    let mut out = SheetHeader {
        marker,
        vars: vec![],
        skipped: vec![],
        options: vec![],
        multi_rows: vec![],
    };
    for cell in names.cells.iter().skip(1) {
        let raw = cell.text().trim().to_string();
        let (n, o) = raw.split_once('#').unwrap_or((&raw, ""));
        let n = n.trim();
        if let Some(m) = n.strip_prefix('*').filter(|m| !m.is_empty()) {
            out.multi_rows.push(m.to_string());
        } else if !n.is_empty() && o.split('#').any(|x| x.trim() == "multi_rows=1") {
            out.multi_rows.push(n.to_string());
        }
        if !n.is_empty() && !o.is_empty() {
            out.options
                .push((n.trim_start_matches('*').to_string(), o.to_string()));
        }
    }
    if !need_types {
        return Ok(out);
    }
    let Some(types) = types else {
        return Err(error(
            &place(names.row, Some(0)),
            "the sheet defines its fields but has no ##type row",
        ));
    };
    for (c, cell) in names.cells.iter().enumerate().skip(1) {
        let raw = cell.text().trim().to_string();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let (name, opts) = match raw.split_once('#') {
            Some((n, o)) => (n.trim().to_string(), Some(o.to_string())),
            None => (raw.clone(), None),
        };
        let ty = types
            .cells
            .get(c)
            .map(|x| x.text().trim().to_string())
            .unwrap_or_default();
        if name.contains('@') || name == "__type__" {
            out.skipped.push((
                name.clone(),
                if name == "__type__" {
                    "a `__type__` column (polymorphic rows): not read".into()
                } else {
                    "a field variant (`field@variant`, a column per language or platform): not read"
                        .into()
                },
            ));
            continue;
        }
        if ty.is_empty() {
            return Err(error(
                &place(types.row, Some(c)),
                format!("field {name:?} has no type in the ##type row"),
            ));
        }
        if let Err(m) = parse(&ty) {
            return Err(error(
                &place(types.row, Some(c)),
                format!("bad type {ty:?} of field {name:?}: {m}"),
            ));
        }
        let sub = subs
            .and_then(|s| s.cells.get(c))
            .map(|x| x.text().trim().to_string())
            .unwrap_or_default();
        let merged = t
            .merges
            .iter()
            .any(|m| m.rows.0 == names.row && m.cols.0 == c && m.cols.1 > c);
        let name = name.trim_start_matches('*').to_string();
        // A flags enum over merged columns, one column per flag named in the second ##var row: read in
        // place (typing/mod.rs, Luban dialect).
        let flag_columns =
            merged && !sub.is_empty() && is_flags(ty.split('#').next().unwrap_or(""));
        if !sub.is_empty()
            && !flag_columns
            && !matches!(ty.split([',', '#']).next(), Some("list" | "array" | "set"))
        {
            out.skipped.push((name.clone(), format!("multi-level title (sub-columns named in a second ##var row, {sub:?} …) : not read")));
            continue;
        }
        if merged
            && !flag_columns
            && !matches!(parse(&ty).map(|t| t.name), Ok(n) if n == "list" || n == "array" || n == "set")
        {
            out.skipped.push((
                name.clone(),
                "a bean or map spread over merged columns: not read (write it in one cell)".into(),
            ));
            continue;
        }
        let ty = match opts {
            Some(o) => format!("{ty}#{o}"),
            None => ty,
        };
        let group = groups
            .and_then(|g| g.cells.get(c))
            .map(|x| x.text())
            .unwrap_or_default()
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect();
        out.vars.push(Var {
            name,
            ty,
            group,
            comment: String::new(),
            alias: None,
            unmapped: vec![],
            place: place(names.row, Some(c)),
        });
    }
    Ok(out)
}

/// An input of a table: the data file (relative to the data folder) and the sheet, if one is named.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Input {
    file: String,
    sheet: Option<String>,
}

impl Input {
    /// `file[sheet]`, or the file.
    fn say(&self) -> String {
        match &self.sheet {
            Some(s) => format!("{}[{s}]", self.file),
            None => self.file.clone(),
        }
    }
}

/// The definition error of table `t` whose `sheet@file` input `i` names a sheet its workbook does not have
/// (Luban stops on it too).
fn no_such_sheet(t: &TableDef, i: &Input) -> Diagnostic {
    error(
        &t.place,
        format!(
            "table {} reads sheet {:?} of {}, which has no such sheet",
            t.full,
            i.sheet.as_deref().unwrap_or(""),
            i.file
        ),
    )
}

/// Whether a data file is a CSV file (one source, no sheets).
fn is_csv(file: &str) -> bool {
    file.to_ascii_lowercase().ends_with(".csv")
}

/// Whether Luban reads a worksheet of a whole-workbook input: its A1 cell starts with `##` (Luban's
/// `SheetLoadUtil.TryParseMeta`); a sheet without the marker (notes) is skipped, a hidden one is read.
fn luban_reads(sheet: &crate::read::RawTable) -> bool {
    sheet
        .rows
        .iter()
        .find(|r| r.row == 1)
        .and_then(|r| r.cells.first())
        .is_some_and(|c| c.text().trim().starts_with("##"))
}

/// The sources Luban reads for `ins`, in its order: a CSV file, a `sheet@file` sheet, and every sheet of a
/// whole workbook that [`luban_reads`], in workbook order (`books`: each workbook's sheets, every one).
/// `Err(why)` when a whole workbook has no such sheet (Luban stops: "不包含有效的单元薄") or one of them is
/// named `#…`, which gentable never reads.
fn luban_sources(
    ins: &[Input],
    books: &BTreeMap<String, Vec<crate::read::RawTable>>,
    data_dir: &str,
) -> Result<Vec<Input>, String> {
    let mut out = vec![];
    for i in ins {
        let (None, Some(sheets)) = (&i.sheet, books.get(&i.file)) else {
            out.push(i.clone());
            continue;
        };
        let read: Vec<&str> = sheets
            .iter()
            .filter(|s| luban_reads(s))
            .filter_map(|s| s.sheet.as_deref())
            .collect();
        if read.is_empty() {
            return Err(format!(
                "{data_dir}/{} has no sheet whose A1 cell starts with ## (Luban reads none of it)",
                i.file
            ));
        }
        if let Some(s) = read.iter().find(|s| s.starts_with('#')) {
            return Err(format!(
                "Luban reads the sheet {s} of {data_dir}/{} (its A1 cell starts with ##), which gentable never reads (a sheet named #… is a comment): rename the sheet",
                i.file
            ));
        }
        out.extend(read.into_iter().map(|s| Input {
            file: i.file.clone(),
            sheet: Some(s.to_string()),
        }));
    }
    Ok(out)
}

/// What the `files` × `sheets` selection written for `read` reads (docs/conventions.md §2): the files in
/// `files` order; of a workbook, its sheets (hidden ones too: they are selected) whose names are in
/// `sheets`, in the `sheets` order; never a sheet named `#…`.
fn selection_reads(
    read: &[Input],
    books: &BTreeMap<String, Vec<crate::read::RawTable>>,
) -> Vec<Input> {
    let sheets = distinct(read.iter().filter_map(|i| i.sheet.as_deref()));
    let mut out = vec![];
    for f in distinct(read.iter().map(|i| i.file.as_str())) {
        let Some(book) = books.get(f) else {
            out.push(Input {
                file: f.to_string(),
                sheet: None,
            });
            continue;
        };
        for s in sheets.iter().filter(|s| !s.starts_with('#')) {
            if book.iter().any(|b| b.sheet.as_deref() == Some(*s)) {
                out.push(Input {
                    file: f.to_string(),
                    sheet: Some(s.to_string()),
                });
            }
        }
    }
    out
}

const READABLE: &[&str] = &["xlsx", "xlsm", "xls", "csv"];

/// A property schema without its `description` (two kinds' declarations of one field compare so).
fn without_description(s: &J) -> J {
    let mut s = s.clone();
    if let Some(m) = s.as_object_mut() {
        m.remove("description");
    }
    s
}

/// `items` without repeats, in the order of their first appearance.
fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = vec![];
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// The characters of `text` that a Chinese or English table rarely holds: not ASCII, not CJK ideographs,
/// kana, Hangul, CJK or general punctuation, or full-width forms. GBK text read as UTF-8 is often full of
/// them (`药` is `ҩ`), but so is a French or Russian text (`Café`), so they only ever raise a note.
fn unusual(text: &str) -> usize {
    text.chars()
        .filter(|&c| {
            !(c.is_ascii()
                || ('\u{4E00}'..='\u{9FFF}').contains(&c)
                || ('\u{3400}'..='\u{4DBF}').contains(&c)
                || ('\u{3000}'..='\u{30FF}').contains(&c)
                || ('\u{AC00}'..='\u{D7AF}').contains(&c)
                || ('\u{2000}'..='\u{206F}').contains(&c)
                || ('\u{FF00}'..='\u{FFEF}').contains(&c)
                || c == '\u{00B7}')
        })
        .count()
}

/// The `[tables.X] encoding` label of a table read from CSV files, chosen from every input's bytes where Luban
/// detects each file's own (its example `test/detect_csv_encoding_*.csv`: UTF-8 and UTF-16 with a byte-order
/// mark, GB2312 and "ANSI", code page 936, without one). A file that starts with a byte-order mark is read as
/// the mark says whatever the label (`read::csv`); a file that is valid UTF-8 needs the default (no label)
/// unless it is ASCII, which every label reads alike (a file that is valid UTF-8 and valid GBK, whose UTF-8
/// reading has more [`unusual`] characters, gets a note with both readings: short GBK text can be valid
/// UTF-8, `药`); any other file must decode as GBK (WHATWG `gbk`, read by the
/// GB18030 decoder) without an error, and is named in a note: GBK is a guess a person checks (Big5 bytes
/// mostly decode as GBK too). `Ok((label, notes))`; `Err(why)` when a file cannot be read, holds NUL bytes
/// (UTF-16 without a BOM), decodes as neither, or the files need two labels (the table is then left out).
fn csv_encoding(
    data_abs: &Path,
    data_dir: &str,
    ins: &[Input],
) -> Result<(Option<&'static str>, Vec<String>), String> {
    let mut utf8 = vec![];
    let mut gbk = vec![];
    let mut notes = vec![];
    for i in ins
        .iter()
        .filter(|i| i.file.to_ascii_lowercase().ends_with(".csv"))
    {
        let bytes = std::fs::read(data_abs.join(&i.file))
            .map_err(|e| format!("{data_dir}/{}: cannot read: {e}", i.file))?;
        let bom = bytes.starts_with(&[0xEF, 0xBB, 0xBF])
            || bytes.starts_with(&[0xFF, 0xFE])
            || bytes.starts_with(&[0xFE, 0xFF]);
        // No table text holds NUL: most likely UTF-16 without a byte-order mark (ASCII with a NUL beside
        // every character, valid UTF-8), which is not guessed.
        if !bom && bytes.contains(&0) {
            return Err(format!(
                "{} holds NUL bytes, which no table text has (UTF-16 without a byte-order mark?): save it as UTF-8",
                format_args!("{data_dir}/{}", i.file)
            ));
        }
        if bom || bytes.is_ascii() {
            continue;
        }
        let as_gbk = encoding_rs::GBK.decode_without_bom_handling_and_without_replacement(&bytes);
        match (std::str::from_utf8(&bytes), as_gbk) {
            // Valid UTF-8 is read as UTF-8: `Café`, `Привет` or `角度90°` are UTF-8 text whose bytes
            // GBK would also decode, into other characters. Short GBK text can be valid UTF-8 too (`药` is
            // D2 A9, the UTF-8 `ҩ`): when the UTF-8 reading holds characters Chinese and English tables
            // rarely use and the GBK reading none, the note shows both readings for a person to choose.
            (Ok(u), Some(g)) => {
                if unusual(&g) < unusual(u) {
                    let sample = |t: &str| t.chars().filter(|c| !c.is_ascii()).take(12).collect::<String>();
                    notes.push(format!(
                        "{} is valid UTF-8 and valid GBK: read as UTF-8 ({}); if its text is {} (GBK), set [tables.X] encoding = \"gbk\"",
                        format_args!("{data_dir}/{}", i.file),
                        sample(u),
                        sample(&g)
                    ));
                }
                utf8.push(i.file.clone());
            }
            (Ok(_), None) => utf8.push(i.file.clone()),
            (Err(_), Some(_)) => gbk.push(i.file.clone()),
            (Err(_), None) => {
                return Err(format!(
                    "{} is neither UTF-8 nor GBK and has no byte-order mark (Luban guesses its encoding; gentable needs [tables.X] encoding)",
                    format_args!("{data_dir}/{}", i.file)
                ))
            }
        }
    }
    match (utf8.is_empty(), gbk.is_empty()) {
        (_, true) => Ok((None, notes)),
        (true, false) => Ok((
            Some("gbk"),
            vec![format!(
                "not UTF-8 and without a byte-order mark: {}; read as GBK (encoding = \"gbk\"), which decodes every byte of them; if the text is Big5 or another code page, set [tables.X] encoding (or save the files as UTF-8)",
                crate::diag::list::series(gbk.iter().map(|f| format!("{data_dir}/{f}"))),
            )],
        )),
        (false, false) => Err(format!(
            "its CSV files need two encodings, UTF-8 ({}) and GBK ({}), and gentable reads one per table (save them all as UTF-8)",
            crate::diag::list::series(utf8.iter().map(|f| format!("{data_dir}/{f}"))),
            crate::diag::list::series(gbk.iter().map(|f| format!("{data_dir}/{f}"))),
        )),
    }
}

/// Turn the read Luban project into gentable files. `data_abs` is Luban's data folder, `rel_data` the same
/// seen from the gentable project folder.
pub fn map(
    l: &Luban,
    luban_root: &Path,
    rel_data: &str,
    project_name: &str,
    opts: &Options,
    exclude: &BTreeMap<String, String>,
    diags: &mut Vec<Diagnostic>,
) -> Imported {
    let data_abs = luban_root.join(&l.data_dir);
    let mut ctx = Ctx {
        l,
        opts,
        keys: BTreeMap::new(),
        children: BTreeMap::new(),
        table_names: BTreeMap::new(),
        partial: BTreeSet::new(),
        zero: BTreeMap::new(),
        unmapped: vec![],
        left_out: vec![],
        defs: Map::new(),
        diags: vec![],
    };
    // Beans defined by their sheets: `readSchemaFromFile` tables and auto-import workbooks.
    let mut sheet_beans: Vec<BeanDef> = vec![];
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    // `multi_row_fields` of each table (Luban's `*field`), from its sheet's header.
    let mut multi_rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut header_opts: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut skipped_tables: BTreeSet<String> = BTreeSet::new();
    let mut inputs: BTreeMap<String, Vec<Input>> = BTreeMap::new();
    // `[tables.X] encoding` of the tables read from CSV files that are neither UTF-8 nor marked by a BOM.
    let mut encodings: BTreeMap<String, &'static str> = BTreeMap::new();
    for t in &l.tables {
        let at = format!("table {}", t.full);
        let mut ins = vec![];
        for raw in &t.input {
            let raw = raw.trim_start_matches('*').replace('\\', "/");
            let raw = raw.as_str();
            // `sheet@file`, also written `dir/sheet@file` (Luban's SplitFileAndSheetName).
            let (sheet, file) = match raw.rsplit_once('/') {
                Some((dir, last)) if last.contains('@') => {
                    let (s, f) = last.split_once('@').unwrap_or(("", last));
                    (Some(s.to_string()), format!("{dir}/{f}"))
                }
                _ => match raw.split_once('@') {
                    Some((s, f)) => (Some(s.to_string()), f.to_string()),
                    None => (None, raw.to_string()),
                },
            };
            // `./p.xlsx`, `a//b.xlsx`: the path as the `files` globs match it (`./` matches nothing).
            let file = file
                .split('/')
                .filter(|p| !p.is_empty() && *p != ".")
                .collect::<Vec<_>>()
                .join("/");
            let abs = data_abs.join(&file);
            if abs.is_dir() {
                let mut found = vec![];
                let mut others = vec![];
                let mut stack = vec![(abs.clone(), file.clone())];
                while let Some((d, rel)) = stack.pop() {
                    for e in std::fs::read_dir(&d)
                        .into_iter()
                        .flatten()
                        .filter_map(Result::ok)
                    {
                        let n = e.file_name().to_string_lossy().to_string();
                        let r = format!("{rel}/{n}");
                        // Luban skips names starting with `.`, `_` or `~` (drafts, Excel's lock files)
                        // and Unity's `.meta` files (FileUtil.GetFileOrDirectory).
                        if n.starts_with(['.', '_', '~']) || n.ends_with(".meta") {
                            continue;
                        }
                        if e.path().is_dir() {
                            stack.push((e.path(), r));
                        } else if READABLE
                            .iter()
                            .any(|x| n.to_ascii_lowercase().ends_with(&format!(".{x}")))
                            && !n.starts_with("~$")
                        {
                            found.push(r);
                        } else {
                            others.push(n);
                        }
                    }
                }
                found.sort();
                others.sort();
                if !others.is_empty() {
                    ctx.partial.insert(t.full.clone());
                    ctx.note(&at, format!("input {file}/: Luban also reads {} (JSON/Lua/XML/YAML data); gentable reads only spreadsheets, so those rows are missing", crate::diag::list::series(&others)));
                }
                ins.extend(found.into_iter().map(|f| Input {
                    file: f,
                    sheet: sheet.clone(),
                }));
            } else if !READABLE
                .iter()
                .any(|x| file.to_ascii_lowercase().ends_with(&format!(".{x}")))
            {
                ctx.note(
                    &at,
                    format!(
                        "input {raw}: Luban's {} data sources are not read by gentable",
                        file.rsplit('.').next().unwrap_or("")
                    ),
                );
            } else if !abs.is_file() {
                diags.push(error(
                    &t.place,
                    format!(
                        "table {} reads {file:?}, which does not exist under {}",
                        t.full, l.data_dir
                    ),
                ));
            } else {
                ins.push(Input { file, sheet });
            }
        }
        if ins.is_empty() {
            ctx.leave_out(&t.full, "no spreadsheet input: table left out".into());
            skipped_tables.insert(t.full.clone());
            continue;
        }
        // Every workbook input is read once, every sheet (hidden ones and those named `#…` too), as Luban
        // sees it. A data file that cannot be read leaves its table out, not the import (a definition's
        // can't).
        let mut books: BTreeMap<String, Vec<crate::read::RawTable>> = BTreeMap::new();
        let mut unreadable = None;
        for i in ins.iter().filter(|i| !is_csv(&i.file)) {
            if books.contains_key(&i.file) {
                continue;
            }
            let rel = format!("{}/{}", l.data_dir, i.file);
            let mut d = vec![];
            let sheets = read_every_sheet(&data_abs.join(&i.file), &rel, &mut d);
            if let Some(x) = d
                .iter()
                .find(|x| x.severity == crate::diag::Severity::Error)
            {
                unreadable = Some((rel, x.message.clone()));
                break;
            }
            books.insert(i.file.clone(), sheets);
        }
        if let Some((rel, why)) = unreadable {
            ctx.leave_out(&t.full, format!("{rel}: {why}; table left out"));
            skipped_tables.insert(t.full.clone());
            continue;
        }
        // A `sheet@file` input naming no sheet of its workbook is a definition error (Luban stops too).
        if let Some(i) = ins.iter().find(|i| {
            i.sheet.as_ref().is_some_and(|s| {
                books
                    .get(&i.file)
                    .is_some_and(|b| !b.iter().any(|x| x.sheet.as_deref() == Some(s.as_str())))
            })
        }) {
            diags.push(no_such_sheet(t, i));
            skipped_tables.insert(t.full.clone());
            continue;
        }
        // The sources Luban reads, in its order: a whole workbook's `##` sheets (hidden ones too) in
        // workbook order. The table's `files` × `sheets` selection, read file by file and each file's sheets
        // in the `sheets` order, must read exactly those (`a@p.xlsx,b@q.xlsx` would also read a sheet `b`
        // of p.xlsx).
        let ins = match luban_sources(&ins, &books, &l.data_dir) {
            Ok(read) => {
                let selected = selection_reads(&read, &books);
                if selected != read {
                    let say = |v: &[Input]| crate::diag::list::series(v.iter().map(Input::say));
                    ctx.leave_out(
                        &t.full,
                        format!(
                            "one files/sheets selection cannot read the sheets Luban reads: it would read {}, where Luban reads {}; table left out",
                            say(&selected),
                            say(&read)
                        ),
                    );
                    skipped_tables.insert(t.full.clone());
                    continue;
                }
                read
            }
            Err(why) => {
                ctx.leave_out(&t.full, format!("{why}; table left out"));
                skipped_tables.insert(t.full.clone());
                continue;
            }
        };
        // The first sheet tells the header marker (and, for readSchemaFromFile, the fields).
        let first = &ins[0];
        // Luban detects each CSV file's encoding; gentable reads one label per table, so the importer
        // chooses it here, from every CSV input's bytes, where a person reviews it (gentable.toml).
        let label = match csv_encoding(&data_abs, &l.data_dir, &ins) {
            Ok((label, notes)) => {
                for n in notes {
                    ctx.note(&at, n);
                }
                label
            }
            Err(why) => {
                ctx.leave_out(&t.full, format!("{why}; table left out"));
                skipped_tables.insert(t.full.clone());
                continue;
            }
        };
        if let Some(label) = label {
            encodings.insert(t.full.clone(), label);
        }
        let rel = format!("{}/{}", l.data_dir, first.file);
        // A data file that cannot be read leaves its table out, not the import (a definition's can't).
        let mut d = vec![];
        let sheets = if first.file.to_ascii_lowercase().ends_with(".csv") {
            let bytes = std::fs::read(data_abs.join(&first.file)).unwrap_or_default();
            crate::read::csv::read_csv_bytes(
                name_of(&t.full),
                &rel,
                &bytes,
                label,
                b',',
                &crate::config::Limits::default(),
                &mut d,
            )
            .into_iter()
            .collect()
        } else {
            books.remove(&first.file).unwrap_or_default()
        };
        if let Some(x) = d
            .iter()
            .find(|x| x.severity == crate::diag::Severity::Error)
        {
            ctx.leave_out(&t.full, format!("{rel}: {}; table left out", x.message));
            skipped_tables.insert(t.full.clone());
            continue;
        }
        let sheet = sheets
            .iter()
            .find(|s| first.sheet.is_none() || s.sheet.as_deref() == first.sheet.as_deref());
        let Some(sheet) = sheet else {
            diags.push(no_such_sheet(t, first));
            skipped_tables.insert(t.full.clone());
            continue;
        };
        let is_flags = |ty: &str| {
            l.enums
                .iter()
                .any(|e| e.flags && (e.full == ty || e.full.rsplit('.').next() == Some(ty)))
        };
        match sheet_header(sheet, t.schema_from_file, &is_flags) {
            Ok(h) => {
                headers.insert(t.full.clone(), h.marker.clone());
                if !h.multi_rows.is_empty() {
                    multi_rows.insert(t.full.clone(), h.multi_rows.clone());
                }
                if !t.schema_from_file {
                    header_opts.insert(t.full.clone(), h.options.clone());
                }
                if t.schema_from_file {
                    for (n, why) in &h.skipped {
                        ctx.note(&format!("{}.{n}", t.full), why.clone());
                    }
                    let full = if t.value.contains('.') {
                        t.value.clone()
                    } else {
                        join(module_of(&t.full), &t.value)
                    };
                    sheet_beans.push(BeanDef {
                        full,
                        parent: None,
                        sep: None,
                        alias: None,
                        vars: h.vars,
                        comment: t.comment.clone(),
                        place: t.place.clone(),
                    });
                }
            }
            Err(d) => {
                // A CSV input without a header (an empty file) leaves its table out, not the import: CSV
                // files are data, where a workbook's broken header is a definition error.
                let csv = first.file.to_ascii_lowercase().ends_with(".csv");
                if d.message.contains("##column") || csv {
                    ctx.leave_out(&t.full, format!("{}; table left out", d.message));
                } else {
                    diags.push(d);
                }
                skipped_tables.insert(t.full.clone());
                continue;
            }
        }
        inputs.insert(t.full.clone(), ins);
    }
    let mut beans: Vec<BeanDef> = l.beans.clone();
    beans.extend(sheet_beans);
    let all = Luban { beans, ..l.clone() };
    let l = &all;
    ctx.l = l;
    // `$defs` keys: the bare name when unique, else module_Name.
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for n in l
        .beans
        .iter()
        .map(|b| &b.full)
        .chain(l.enums.iter().map(|e| &e.full))
    {
        *count.entry(name_of(n)).or_default() += 1;
    }
    for n in l
        .beans
        .iter()
        .map(|b| &b.full)
        .chain(l.enums.iter().map(|e| &e.full))
    {
        let key = if count[name_of(n)] > 1 {
            n.replace('.', "_")
        } else {
            name_of(n).to_string()
        };
        ctx.keys.insert(n.clone(), key);
    }
    for b in &l.beans {
        if let Some(p) = &b.parent {
            if let Some(pf) = ctx.resolve(p, module_of(&b.full)) {
                ctx.children.entry(pf).or_default().push(b.full.clone());
            } else {
                diags.push(error(
                    &b.place,
                    format!(
                        "bean {} names the parent {p:?}, which is not a bean",
                        b.full
                    ),
                ));
            }
        }
    }
    // Table names: Luban's name without the module, or module_Name when two modules share it.
    let mut tcount: BTreeMap<&str, usize> = BTreeMap::new();
    for t in l
        .tables
        .iter()
        .filter(|t| !skipped_tables.contains(&t.full))
    {
        *tcount.entry(name_of(&t.full)).or_default() += 1;
    }
    for t in l
        .tables
        .iter()
        .filter(|t| !skipped_tables.contains(&t.full))
    {
        let n = if tcount[name_of(&t.full)] > 1 {
            t.full.replace('.', "_")
        } else {
            name_of(&t.full).to_string()
        };
        if let Some(why) = exclude.get(&n) {
            ctx.leave_out(
                &t.full,
                format!("left out: its data does not build ({why})"),
            );
            continue;
        }
        ctx.table_names.insert(t.full.clone(), n);
    }
    for e in &l.enums {
        ctx.enum_def(e);
    }
    for b in &l.beans {
        ctx.bean_def(b);
    }
    for c in &l.constaliases {
        ctx.note(
            &format!("constalias {c}"),
            "cells naming a constalias are not resolved (write the value)",
        );
    }
    // Tables.
    let mut files: Vec<(String, String)> = vec![];
    let mut tables = vec![];
    let mut toml_tables = String::new();
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for ins in inputs.values() {
        for i in ins {
            *used
                .entry(format!("{}@{}", i.sheet.as_deref().unwrap_or("*"), i.file))
                .or_default() += 1;
        }
    }
    for t in l.tables.iter().filter(|t| inputs.contains_key(&t.full)) {
        let Some(name) = ctx.table_names.get(&t.full).cloned() else {
            continue;
        };
        let at = t.full.clone();
        let module = module_of(&t.full).to_string();
        let Some(bean) = ctx.resolve(&t.value, &module) else {
            diags.push(error(
                &t.place,
                format!(
                    "table {} has the value type {:?}, which is not a bean",
                    t.full, t.value
                ),
            ));
            continue;
        };
        let mut row = if ctx.children.contains_key(&bean) {
            match ctx.polymorphic_row(&bean, &at) {
                Ok(r) => {
                    ctx.note(&format!("table {at}"), format!("rows of the polymorphic bean {bean} are read as one flat row: $type (the __type__ column) and every kind's fields, each kind's required and the other kinds' forbidden; an empty cell of a kind's own field is an error (Luban reads 0)"));
                    r
                }
                Err(why) => {
                    ctx.leave_out(&at, format!("{why}: table left out"));
                    continue;
                }
            }
        } else {
            ctx.object(&bean, &at)
        };
        // Options in the sheet's header (`cs2#sep=,`) apply to the field of this table.
        for (name, opts) in header_opts.get(&t.full).into_iter().flatten() {
            let Some(p) = row["properties"].get_mut(name) else {
                continue;
            };
            match parse(&format!("x#{opts}")) {
                Ok(x) => {
                    for (k, v) in &x.attrs {
                        match k.as_str() {
                            "sep" if !v.is_empty() => p["x-gentable-separator"] = json!(v),
                            "default" => {
                                p["default"] = match p["type"].as_str() {
                                    Some("integer") => {
                                        v.parse::<i64>().map(J::from).unwrap_or(json!(v))
                                    }
                                    Some("number") => {
                                        v.parse::<f64>().map(J::from).unwrap_or(json!(v))
                                    }
                                    _ => json!(v),
                                }
                            }
                            _ => ctx.unmapped.push((
                                format!("{at}.{name}"),
                                format!("header option #{k}={v}: no gentable equivalent (ignored)"),
                            )),
                        }
                    }
                }
                Err(m) => ctx.unmapped.push((
                    format!("{at}.{name}"),
                    format!("header options {opts:?}: {m} (ignored)"),
                )),
            }
        }
        // Row fields may carry export groups.
        for (v, _) in ctx.vars(&bean) {
            if !v.group.is_empty() {
                ctx.unmapped.retain(|(w, m)| {
                    !(w == &format!("{at}.{}", v.name) && m.starts_with("group="))
                });
                if let Some(p) = row["properties"].get_mut(&v.name) {
                    p["x-gentable-groups"] = json!(v.group);
                }
            }
        }
        // The fields Luban's bean declares (a polymorphic row's `$type` is not one: the key stays `id`).
        let fields: Vec<String> = row["properties"]
            .as_object()
            .map(|p| p.keys().filter(|k| *k != "$type").cloned().collect())
            .unwrap_or_default();
        let obj = row.as_object_mut().expect("object");
        let mut schema = Map::new();
        schema.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        schema.insert("$comment".into(), json!(MARKER));
        schema.insert("title".into(), json!(name));
        if !t.comment.is_empty() {
            schema.insert("description".into(), json!(t.comment));
        }
        schema.insert("x-gentable-luban".into(), json!(t.full));
        schema.extend(std::mem::take(obj));
        match t.mode.as_str() {
            "one" | "singleton" => {
                schema.insert("x-gentable-mode".into(), json!("one"));
            }
            "list" => {
                schema.insert("x-gentable-mode".into(), json!("list"));
                if !t.index.is_empty() {
                    let keys: Vec<J> = if t.index.contains('+') || t.index.contains('&') {
                        vec![json!(t
                            .index
                            .split(['+', '&'])
                            .map(str::trim)
                            .collect::<Vec<_>>())]
                    } else {
                        t.index
                            .split([',', '|'])
                            .map(|k| json!([k.trim()]))
                            .collect()
                    };
                    schema.insert("x-gentable-unique".into(), J::Array(keys));
                }
            }
            _ => {
                let pk = if t.index.is_empty() {
                    fields.first().cloned().unwrap_or_default()
                } else {
                    t.index.clone()
                };
                if !fields.contains(&pk) {
                    diags.push(error(
                        &t.place,
                        format!(
                            "table {} has the index {pk:?}, which is not a field of {bean}",
                            t.full
                        ),
                    ));
                    continue;
                }
                schema.insert("x-gentable-primaryKey".into(), json!(pk));
            }
        }
        if !t.group.is_empty() {
            schema.insert("x-gentable-groups".into(), json!(t.group));
        }
        let text = serde_json::to_string_pretty(&J::Object(schema)).expect("json") + "\n";
        files.push((format!("schema/{name}.schema.json"), text));
        // gentable.toml section.
        let ins = &inputs[&t.full];
        let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
        // In Luban's input order: sources are concatenated in the order of the `files` globs, then of the
        // `sheets` globs.
        let fs = distinct(ins.iter().map(|i| globset_escape(&i.file)));
        let sheets = distinct(ins.iter().filter_map(|i| i.sheet.clone()));
        let shared = ins
            .iter()
            .any(|i| used[&format!("{}@{}", i.sheet.as_deref().unwrap_or("*"), i.file)] > 1)
            || ins.iter().any(|i| {
                inputs
                    .iter()
                    .any(|(o, x)| o != &t.full && x.iter().any(|y| y.file == i.file))
            });
        toml_tables.push_str(&format!("\n[tables.{name}]\n"));
        toml_tables.push_str(&format!(
            "files = [{}]\n",
            fs.iter().map(|f| quote(f)).collect::<Vec<_>>().join(", ")
        ));
        if let Some(e) = encodings.get(&t.full) {
            toml_tables.push_str(&format!("encoding = {}\n", quote(e)));
        }
        // `sheets` globs never apply to CSV files (one source each).
        if !sheets.is_empty() {
            toml_tables.push_str(&format!(
                "sheets = [{}]\n",
                sheets
                    .iter()
                    .map(|s| quote(&globset_escape(s)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let marker = headers.get(&t.full).map(String::as_str).unwrap_or("##var");
        if marker == "##column" {
            // Luban's column mode: field names in column A, one field per row, the value in the
            // first column whose cell of the `##column` row is empty.
            toml_tables.push_str("layout = \"vertical\"\nfirst_column = \"A\"\nmarker_column = \"A\"\ncell_dialect = \"luban\"\nnull_text = \"null\"\n");
        } else {
            toml_tables.push_str(&format!(
                "first_column = \"B\"\nmarker_column = \"A\"\nheader_marker = {}\ncell_dialect = \"luban\"\nnull_text = \"null\"\nignore_unknown_columns = true\ntag_column = \"A\"\n",
                quote(marker)
            ));
        }
        // Columns of fields the bean does not have (Luban ignores them) are not multi-row fields.
        let m: Vec<&String> = multi_rows
            .get(&t.full)
            .into_iter()
            .flatten()
            .filter(|f| fields.contains(f))
            .collect();
        if !m.is_empty() {
            toml_tables.push_str(&format!(
                "multi_row_fields = [{}]\n",
                m.iter().map(|f| quote(f)).collect::<Vec<_>>().join(", ")
            ));
        }
        if t.mode != "one" && t.mode != "list" {
            toml_tables.push_str("order = \"source\"\n");
        }
        if shared {
            toml_tables.push_str("shared_sources = true\n");
        }
        tables.push(ImportedTable {
            name: name.clone(),
            luban: t.full.clone(),
            luban_json: format!("{}.json", t.full.replace('.', "_").to_lowercase()),
            inputs: ins
                .iter()
                .map(|i| (i.file.clone(), i.sheet.clone()))
                .collect(),
        });
    }
    // A bean's errors are reported once (its fields are mapped for every place it is used).
    let mut seen: Vec<Diagnostic> = vec![];
    for d in std::mem::take(&mut ctx.diags) {
        if !seen.contains(&d) {
            seen.push(d);
        }
    }
    diags.extend(seen);
    let mut defs = Map::new();
    defs.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    defs.insert("$comment".into(), json!(MARKER));
    defs.insert("$defs".into(), J::Object(std::mem::take(&mut ctx.defs)));
    files.push((
        "schema/luban.schema.json".into(),
        serde_json::to_string_pretty(&J::Object(defs)).expect("json") + "\n",
    ));
    // gentable.toml.
    let group_names: Vec<String> = l.groups.iter().flat_map(|(n, _)| n.clone()).collect();
    let target = |n: &str| {
        l.targets
            .iter()
            .find(|t| t.name == n)
            .map(|t| t.groups.clone())
    };
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    let list = |v: &[String]| {
        format!(
            "[{}]",
            v.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
        )
    };
    let mut toml = format!(
        "# {MARKER}.\n# Luban project: {project_name}. Targets: rust = `all`, csharp = `client`, typescript = `server`.\n[project]\nname = {}\ntables = [{}]\nschemas = \"schema\"\ngenerated = \"generated\"\nselected_only = true\n",
        quote(project_name),
        quote(rel_data)
    );
    if !group_names.is_empty() {
        toml.push_str(&format!("\n[groups]\nnames = {}\n", list(&group_names)));
    }
    let crate_name: String = project_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let crate_name = format!("{}_tables", crate_name.trim_matches('_'));
    let crate_name = if crate_name.starts_with(|c: char| c.is_ascii_lowercase()) {
        crate_name
    } else {
        format!("luban{crate_name}")
    };
    toml.push_str(&format!("\n[rust]\ncrate_name = {}\n", quote(&crate_name)));
    if let Some(g) = target("all") {
        toml.push_str(&format!("groups = {}\n", list(&g)));
    }
    toml.push_str("\n[csharp]\nnamespace = \"cfg\"\n");
    if let Some(g) = target("client") {
        toml.push_str(&format!("groups = {}\n", list(&g)));
    }
    if let Some(g) = target("server") {
        toml.push_str(&format!("\n[typescript]\ngroups = {}\n", list(&g)));
    }
    // Where a migrating studio looks for a table it misses.
    let order = |full: &str| l.tables.iter().position(|t| t.full == full);
    ctx.left_out.sort_by_key(|(full, _)| order(full));
    if !ctx.left_out.is_empty() {
        toml.push_str(&format!("\n# {LEFT_OUT}\n"));
        for (full, why) in &ctx.left_out {
            toml.push_str(&format!("#   {full}: {why}\n"));
        }
    }
    toml.push_str(&toml_tables);
    files.push(("gentable.toml".into(), toml));
    files.sort();
    Imported {
        files,
        unmapped: ctx.unmapped,
        left_out: ctx.left_out,
        tables,
        data: data_abs,
        data_rel: rel_data.to_string(),
    }
}

/// A literal path or sheet name as a globset pattern (`*?[]{}` and `\` escaped).
fn globset_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if "*?[]{}\\".contains(c) {
                vec!['[', c, ']']
            } else {
                vec![c]
            }
        })
        .collect()
}

/// The `$type` Luban writes for kind `leaf` of the polymorphic bean `root` (both `module.Name`): the
/// short name when both are in one module (`Circle`), else the full name (`test2.Rectangle` of
/// `test.Shape`).
fn kind_tag<'a>(root: &str, leaf: &'a str) -> &'a str {
    if module_of(root) == module_of(leaf) {
        name_of(leaf)
    } else {
        leaf
    }
}
