//! Property schemas → IR types (docs/conventions.md §4, docs/json-schema-support.md).
//!
//! A schema is typed by what it allows, the way a schema author reads it: the parts that all hold (the
//! schema's own keywords, its `$ref` target, its `allOf` members, recursively) are merged; `anyOf`/`oneOf`
//! branches are alternatives; `$ref`s resolve through the schema folder's registry ([`SchemaSet::registry`]:
//! `$defs` pointers with `~`/`%` escapes, `$id`s, `$anchor`s), never fetched. The JSON kinds a schema
//! allows decide its IR type:
//!
//! * `type` (or `enum`/`const` values, or the branches of `anyOf`/`oneOf`) names them; without any of
//!   these the keywords decide (`properties`/`required` → object, `items`/`prefixItems` → array,
//!   `minLength`/`pattern` → string, `minimum`/`multipleOf` → number); a schema that allows every value
//!   (`true`, `{}`) is a [`Type::Json`]; keywords that decide nothing, or two kinds at once, are a
//!   diagnostic naming them and the fix (GT0410);
//! * one kind: a boolean, an integer (its width from the bounds), a number, a string (an enum, a
//!   date-time, a duration), an array (a tuple with `prefixItems`), an object (a record, an open record
//!   with `additionalProperties`/`patternProperties`, a map, a polymorphic record with
//!   `x-gentable-discriminator`); `null` besides makes it nullable;
//! * several scalar kinds: a scalar union ([`Type::Choice`]); kinds that include arrays or objects: a JSON
//!   value.
//!
//! Every refusal names the keyword: GT0410 (nothing decides the type), GT0411 (the parts contradict each
//! other), GT0413 (a reference that does not resolve in the folder), GT0414 (a schema that accepts no
//! value), GT0415 (a shape generated code cannot hold).

use super::keywords::{
    alts_len, doc_of, enum_values, fk_targets, member_idents, parse_offset, separator_of,
    string_list, unsupported_format,
};
use super::set::SchemaSet;
use crate::diag::{Code, Diagnostic};
use crate::ir::{
    ChoiceDef, EnumDef, Field, IntWidth, Project, RecordDef, RecordForm, Type, UnionDef, Variant,
};
use referencing::{Draft, Resolver, ResourceRef};
use serde_json::Value as J;
use std::collections::{BTreeMap, HashMap};

/// Keywords that say nothing about the value (annotations) or belong to gentable's field description:
/// a schema made only of these allows every value (also the keywords `validate::native` never checks).
pub const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "definitions",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Field-level annotations that may stand beside a `$ref` without making a new type of it.
const FIELD_ANNOTATIONS: &[&str] = &[
    "x-gentable-foreignKey",
    "x-gentable-name",
    "x-gentable-groups",
    "x-gentable-text",
    // The field's separator in Luban's stream form (`Field::separator`), not a property of its type.
    "x-gentable-separator",
    // Other header texts naming the field's column (`Field::aliases`).
    "x-gentable-aliases",
];

/// The JSON kinds a schema allows, as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kinds(u8);

impl Kinds {
    const NULL: Kinds = Kinds(1);
    const BOOL: Kinds = Kinds(2);
    /// Integral numbers (`1`, `1.0`).
    const INT: Kinds = Kinds(4);
    /// Numbers with a fraction.
    const FRAC: Kinds = Kinds(8);
    const STR: Kinds = Kinds(16);
    const ARR: Kinds = Kinds(32);
    const OBJ: Kinds = Kinds(64);
    const NUM: Kinds = Kinds(4 | 8);
    const ALL: Kinds = Kinds(127);
    const NONE: Kinds = Kinds(0);

    fn of_type(t: &str) -> Option<Kinds> {
        Some(match t {
            "null" => Kinds::NULL,
            "boolean" => Kinds::BOOL,
            "integer" => Kinds::INT,
            "number" => Kinds::NUM,
            "string" => Kinds::STR,
            "array" => Kinds::ARR,
            "object" => Kinds::OBJ,
            _ => return None,
        })
    }
    fn of_value(v: &J) -> Kinds {
        match v {
            J::Null => Kinds::NULL,
            J::Bool(_) => Kinds::BOOL,
            J::Number(n) if n.is_i64() || n.is_u64() => Kinds::INT,
            J::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => Kinds::INT,
            J::Number(_) => Kinds::FRAC,
            J::String(_) => Kinds::STR,
            J::Array(_) => Kinds::ARR,
            J::Object(_) => Kinds::OBJ,
        }
    }
    fn and(self, o: Kinds) -> Kinds {
        Kinds(self.0 & o.0)
    }
    fn or(self, o: Kinds) -> Kinds {
        Kinds(self.0 | o.0)
    }
    fn minus(self, o: Kinds) -> Kinds {
        Kinds(self.0 & !o.0)
    }
    fn has(self, o: Kinds) -> bool {
        self.0 & o.0 != 0
    }
    fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The kinds in words: "an integer or a string".
    fn words(self) -> String {
        let mut w = vec![];
        for (k, name) in [
            (Kinds::NULL, "null"),
            (Kinds::BOOL, "a boolean"),
            (Kinds::STR, "a string"),
            (Kinds::ARR, "an array"),
            (Kinds::OBJ, "an object"),
        ] {
            if k == Kinds::STR && self.has(Kinds::NUM) {
                w.push(if self.has(Kinds::FRAC) {
                    "a number"
                } else {
                    "an integer"
                });
            }
            if self.has(k) {
                w.push(name);
            }
        }
        if w.is_empty() {
            return "nothing".into();
        }
        crate::diag::lang::word_list(crate::diag::list::Joiner::Or, w)
    }
}

/// The kinds that a keyword, written without `type`, is about (its "family").
fn keyword_kind(k: &str) -> Option<Kinds> {
    Some(match k {
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "minProperties"
        | "maxProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties"
        | "x-gentable-mapKey"
        | "x-gentable-discriminator" => Kinds::OBJ,
        "items" | "prefixItems" | "contains" | "minItems" | "maxItems" | "uniqueItems"
        | "minContains" | "maxContains" | "unevaluatedItems" | "x-gentable-flags" => Kinds::ARR,
        "minLength"
        | "maxLength"
        | "pattern"
        | "contentMediaType"
        | "contentEncoding"
        | "contentSchema"
        | "x-gentable-enumAliases"
        | "x-gentable-timeZone" => Kinds::STR,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            Kinds::NUM
        }
        // Every standard format is about strings; gentable's integer formats name widths.
        "format" => return None,
        _ => return None,
    })
}

/// The kinds a schema allows (with the keywords that inferred them), or why they cannot be told: a code
/// and a message for the diagnostic.
type KindsOr = Result<(Kinds, Vec<String>), (Code, String)>;

/// A schema with the resolver that resolves its references (based at its document or `$id`), the schema
/// file it is reported in, and where it was written (for messages and type identity).
#[derive(Clone)]
pub(crate) struct Node<'r> {
    pub s: &'r J,
    pub res: Resolver<'r>,
    pub file: String,
    pub origin: String,
}

/// The merged view of a schema: the objects that all hold (`$ref` targets and `allOf` members flattened),
/// and the alternatives (`anyOf`/`oneOf`) of each.
struct Parts<'r> {
    all: Vec<Node<'r>>,
}

pub(crate) struct Ctx<'a, 'r> {
    pub set: &'a SchemaSet,
    pub project: &'a mut Project,
    pub diags: Vec<Diagnostic>,
    /// Which definition each generated type name came from.
    pub origins: BTreeMap<String, String>,
    /// Named types being filled, by the address of their schema (a `$ref` back to it reuses the type).
    active: HashMap<*const J, Type>,
    depth: usize,
    _r: std::marker::PhantomData<&'r ()>,
}

/// How deep schemas may nest (through references) before typing gives up with a diagnostic.
const MAX_DEPTH: usize = 64;

impl<'a, 'r> Ctx<'a, 'r> {
    pub fn new(set: &'a SchemaSet, project: &'a mut Project) -> Self {
        let mut origins = BTreeMap::new();
        for (n, e) in &project.enums {
            origins.insert(n.clone(), e.origin.clone());
        }
        for (n, r) in &project.records {
            origins.insert(n.clone(), r.origin.clone());
        }
        for (n, c) in &project.choices {
            origins.insert(n.clone(), c.origin.clone());
        }
        Ctx {
            set,
            project,
            diags: vec![],
            origins,
            active: HashMap::new(),
            depth: 0,
            _r: std::marker::PhantomData,
        }
    }

    fn err(&mut self, code: Code, file: &str, m: String) {
        let rel = self.set.rel(file);
        self.diags.push(Diagnostic::file_error(code, rel, m));
    }

    /// The schema `file` as registered (its root node), or a diagnostic.
    pub fn root(&mut self, file: &str) -> Option<Node<'r>>
    where
        'a: 'r,
    {
        let registry = match self.set.registry() {
            Ok(r) => r,
            Err(e) => {
                // Name the `$ref` when the message quotes the resource it could not find.
                let quoted = e.split('\'').nth(1).unwrap_or("").to_string();
                let at = (!quoted.is_empty())
                    .then(|| super::set::find_ref(&self.set.files, &quoted))
                    .flatten();
                let (f, what) = match &at {
                    Some((f, p)) => (f.clone(), format!("{f}#{p}: $ref {quoted:?}")),
                    None => (file.to_string(), "a $ref".to_string()),
                };
                self.err(
                    Code::UnresolvedRef,
                    &f,
                    format!("{what} does not resolve ({e}); nothing is fetched: copy the schema into the schema folder and refer to it by file name"),
                );
                return None;
            }
        };
        let uri = super::set::schema_uri(file);
        let base = referencing::uri::from_str(&uri).ok()?;
        let res = registry.resolver(base);
        let resolved = res.lookup(&uri).ok()?;
        let (s, res, _) = resolved.into_inner();
        Some(Node {
            s,
            res,
            file: file.to_string(),
            origin: file.to_string(),
        })
    }

    /// A subschema of `n` at `path` (`properties/x`): same resolver (entering its `$id` if it has one).
    pub fn child(&mut self, n: &Node<'r>, s: &'r J, path: &str) -> Node<'r> {
        let mut res = n.res.clone();
        if s.get("$id").and_then(J::as_str).is_some() {
            if let Ok(r) = n
                .res
                .in_subresource(ResourceRef::new(s, Draft::Draft202012))
            {
                res = r;
            }
        }
        Node {
            s,
            res,
            file: n.file.clone(),
            origin: format!("{}/{path}", n.origin),
        }
    }

    /// Follow the `$ref` of `n` (if any): the target node and the name its pointer or anchor gives.
    fn follow(&mut self, n: &Node<'r>) -> Option<(Node<'r>, Option<String>)> {
        let Some(r) = n.s.get("$ref").and_then(J::as_str) else {
            return Some((n.clone(), None));
        };
        match n.res.lookup(r) {
            Ok(resolved) => {
                let (s, res, _) = resolved.into_inner();
                let base = res.base_uri();
                let doc = r.split('#').next().unwrap_or("");
                let file = self
                    .set
                    .file_of_uri(base.as_str())
                    .or_else(|| {
                        let d = super::set::percent_decode(doc);
                        self.set.files.contains_key(&d).then_some(d)
                    })
                    .unwrap_or_else(|| n.file.clone());
                let frag = r.split_once('#').map(|(_, f)| f).unwrap_or("");
                let name = frag.rsplit('/').next().filter(|x| !x.is_empty()).map(|x| {
                    super::set::percent_decode(x)
                        .replace("~1", "/")
                        .replace("~0", "~")
                });
                let origin = format!("{file}#{frag}");
                Some((
                    Node {
                        s,
                        res,
                        file,
                        origin,
                    },
                    name,
                ))
            }
            Err(e) => {
                let remote = r.contains("://") || r.starts_with("urn:");
                let help = if remote {
                    "nothing is fetched: copy the schema into the schema folder and refer to it by file name (other.schema.json#/$defs/X)"
                } else {
                    "a $ref names a file of the schema folder and a JSON pointer (#/$defs/X, with ~0, ~1 and %XX escapes) or an $anchor"
                };
                self.err(
                    Code::UnresolvedRef,
                    &n.file,
                    format!("{}: $ref {r:?} does not resolve: {e}; {help}", n.origin),
                );
                None
            }
        }
    }

    /// Flatten `n` into the objects that all hold: its `$ref` target (first: a schema that refers to a base
    /// extends it), itself, then its `allOf` members, each flattened the same way. `None`: a reference did
    /// not resolve, or a part is `false` (reported).
    fn parts(&mut self, n: &Node<'r>) -> Option<Parts<'r>> {
        let mut all = vec![];
        let mut seen: Vec<*const J> = vec![];
        self.flatten(n, &mut all, &mut seen)?;
        Some(Parts { all })
    }

    fn flatten(
        &mut self,
        x: &Node<'r>,
        all: &mut Vec<Node<'r>>,
        seen: &mut Vec<*const J>,
    ) -> Option<()> {
        let key = x.s as *const J;
        if seen.contains(&key) {
            return Some(());
        }
        seen.push(key);
        match x.s {
            J::Bool(true) => Some(()),
            J::Bool(false) => {
                self.err(
                    Code::AcceptsNothing,
                    &x.file,
                    format!("{}: the schema false accepts no value", x.origin),
                );
                None
            }
            J::Object(o) => {
                if o.contains_key("$dynamicRef") {
                    self.err(
                        Code::UnsupportedShape,
                        &x.file,
                        format!("{}: $dynamicRef is resolved by the dynamic scope when a value is validated; generated types are fixed, so write a $ref to the definition", x.origin),
                    );
                    return None;
                }
                if o.contains_key("$ref") {
                    let (t, _) = self.follow(x)?;
                    self.flatten(&t, all, seen)?;
                }
                all.push(x.clone());
                if let Some(J::Array(parts)) = o.get("allOf") {
                    for (i, p) in parts.iter().enumerate() {
                        let c = self.child(x, p, &format!("allOf/{i}"));
                        self.flatten(&c, all, seen)?;
                    }
                }
                Some(())
            }
            _ => {
                self.err(
                    Code::InvalidSchema,
                    &x.file,
                    format!("{}: a schema must be an object or a boolean", x.origin),
                );
                None
            }
        }
    }

    /// The kinds `n` allows, with the keywords that inferred them when nothing names a type; `Err`: a
    /// message for GT0410/GT0411 (not yet reported).
    fn kinds(&mut self, parts: &Parts<'r>) -> Option<KindsOr> {
        let mut named: Option<Kinds> = None;
        let mut constrained = false;
        let mut each: Vec<(String, Kinds)> = vec![];
        for p in &parts.all {
            let o = p.s.as_object().expect("parts are objects");
            let mut k: Option<Kinds> = None;
            match o.get("type") {
                Some(J::String(t)) => k = Kinds::of_type(t),
                Some(J::Array(ts)) => {
                    k = Some(
                        ts.iter()
                            .filter_map(J::as_str)
                            .filter_map(Kinds::of_type)
                            .fold(Kinds::NONE, Kinds::or),
                    )
                }
                _ => {}
            }
            let mut values: Option<Kinds> = None;
            if let Some(J::Array(vals)) = o.get("enum") {
                values = Some(
                    vals.iter()
                        .map(Kinds::of_value)
                        .fold(Kinds::NONE, Kinds::or),
                );
            }
            if let Some(c) = o.get("const") {
                let ck = Kinds::of_value(c);
                values = Some(values.map_or(ck, |v| v.and(ck)));
            }
            if let Some(v) = values {
                k = Some(k.map_or(v, |k| k.and(v)));
            }
            for alt in ["anyOf", "oneOf"] {
                if let Some(J::Array(branches)) = o.get(alt) {
                    let mut u = Kinds::NONE;
                    for (i, b) in branches.iter().enumerate() {
                        let c = self.child(p, b, &format!("{alt}/{i}"));
                        let bp = self.parts_quiet(&c);
                        let bk = match bp {
                            Some(bp) => match self.kinds(&bp)? {
                                Ok((bk, _)) => bk,
                                Err(_) => Kinds::ALL,
                            },
                            // A `false` branch adds nothing; an unresolved one was reported.
                            None if *b == J::Bool(false) => Kinds::NONE,
                            None => return None,
                        };
                        u = u.or(bk);
                    }
                    k = Some(k.map_or(u, |k| k.and(u)));
                }
            }
            if let Some(k) = k {
                named = Some(named.map_or(k, |n| n.and(k)));
                each.push((p.origin.clone(), k));
            }
            constrained |= o.keys().any(|x| {
                !ANNOTATIONS.contains(&x.as_str())
                    && !FIELD_ANNOTATIONS.contains(&x.as_str())
                    && x != "$ref"
                    && x != "allOf"
            });
        }
        if let Some(k) = named {
            if k.is_empty() {
                let empty_enum = parts.all.iter().any(|p| {
                    p.s.get("enum")
                        .and_then(J::as_array)
                        .is_some_and(Vec::is_empty)
                });
                let all_false = parts.all.iter().any(|p| {
                    ["anyOf", "oneOf"].iter().any(|k| {
                        p.s.get(*k)
                            .and_then(J::as_array)
                            .is_some_and(|b| b.iter().all(|x| *x == J::Bool(false)))
                    })
                });
                return Some(Err(if empty_enum {
                    (
                        Code::AcceptsNothing,
                        "\"enum\" is empty: it accepts no value".into(),
                    )
                } else if all_false {
                    (
                        Code::AcceptsNothing,
                        "every branch of its anyOf/oneOf is false: it accepts no value".into(),
                    )
                } else {
                    let said: Vec<String> = each
                        .iter()
                        .map(|(o, k)| format!("{o} allows {}", k.words()))
                        .collect();
                    (
                        Code::ConflictingTypes,
                        format!(
                            "the parts that must all hold allow no common value: {}; make them agree",
                            crate::diag::lang::word_list(crate::diag::list::Joiner::Series, said)
                        ),
                    )
                }));
            }
            return Some(Ok((k, vec![])));
        }
        // Nothing names a type: the keywords decide.
        let mut by_kind: Vec<(Kinds, Vec<String>)> = vec![];
        let mut undecided: Vec<String> = vec![];
        for p in &parts.all {
            for key in p.s.as_object().expect("parts are objects").keys() {
                if ANNOTATIONS.contains(&key.as_str())
                    || FIELD_ANNOTATIONS.contains(&key.as_str())
                    || key == "$ref"
                    || key == "allOf"
                {
                    continue;
                }
                match keyword_kind(key) {
                    Some(k) => match by_kind.iter_mut().find(|(x, _)| *x == k) {
                        Some((_, ks)) => {
                            if !ks.contains(key) {
                                ks.push(key.clone())
                            }
                        }
                        None => by_kind.push((k, vec![key.clone()])),
                    },
                    None => {
                        if key == "format" {
                            let f = p.s.get("format").and_then(J::as_str).unwrap_or("");
                            let k = if matches!(
                                f,
                                "int8"
                                    | "int16"
                                    | "int32"
                                    | "int64"
                                    | "uint8"
                                    | "uint16"
                                    | "uint32"
                                    | "uint64"
                            ) {
                                Kinds::INT
                            } else {
                                Kinds::STR
                            };
                            match by_kind.iter_mut().find(|(x, _)| *x == k) {
                                Some((_, ks)) => ks.push("format".into()),
                                None => by_kind.push((k, vec!["format".into()])),
                            }
                        } else if !key.starts_with(super::PREFIX) {
                            undecided.push(key.clone());
                        }
                    }
                }
            }
        }
        match by_kind.as_slice() {
            [] if !constrained => Some(Ok((Kinds::ALL, vec![]))),
            [] => Some(Err((
                Code::UntypedSchema,
                format!(
                    "{} {} not decide the type of the value: add \"type\" (\"integer\", \"number\", \"string\", \"boolean\", \"array\" or \"object\")",
                    quote_list(&undecided),
                    if undecided.len() == 1 { "does" } else { "do" }
                ),
            ))),
            // A number that is a multiple of a whole number is an integer.
            [(k, ks)] if *k == Kinds::NUM
                && parts.all.iter().any(|p| {
                    p.s.get("multipleOf")
                        .and_then(int_of)
                        .is_some_and(|m| m >= 1)
                }) =>
            {
                Some(Ok((Kinds::INT, ks.clone())))
            }
            [(k, ks)] => Some(Ok((*k, ks.clone()))),
            many => {
                // `"minimum" (a number) and "minLength" (a string)`, in Chinese with 和 and the words translated.
                let parts = many.iter().fold(
                    crate::diag::list::List::new(crate::diag::list::Joiner::And),
                    |list, (k, ks)| {
                        let (q, w) = (quote_list(ks), k.words());
                        let zh = format!(
                            "{}（{}）",
                            crate::diag::list::chinese(&q).unwrap_or_else(|| q.clone()),
                            crate::diag::lang::message(&w, crate::diag::lang::Lang::Zh)
                        );
                        list.item_in(format!("{q} ({w})"), zh)
                    },
                );
                let types: Vec<&str> = many
                    .iter()
                    .map(|(k, _)| type_keyword(*k))
                    .collect();
                let scalar = many.iter().all(|(k, _)| !k.has(Kinds::ARR.or(Kinds::OBJ)));
                let union = if scalar {
                    format!(", or \"type\": [\"{}\"] for a scalar union", types.join("\", \""))
                } else {
                    String::new()
                };
                Some(Err((
                    Code::UntypedSchema,
                    format!(
                        "the keywords are about different types: {}; add \"type\" (for example \"type\": \"{}\"{union})",
                        parts.text(),
                        types[0],
                    ),
                )))
            }
        }
    }

    /// [`Ctx::parts`] without reporting: used to look at `anyOf`/`oneOf` branches (they are reported when
    /// typed).
    fn parts_quiet(&mut self, n: &Node<'r>) -> Option<Parts<'r>> {
        let before = self.diags.len();
        let p = self.parts(n);
        self.diags.truncate(before);
        p
    }

    /// The IR type of a property schema and whether it is nullable. `hint` names generated types when
    /// no `$defs` key or `title` does.
    pub fn type_of(&mut self, n: &Node<'r>, hint: &str) -> Option<(Type, bool)> {
        self.depth += 1;
        let t = if self.depth > MAX_DEPTH {
            self.err(
                Code::UnsupportedShape,
                &n.file,
                format!("{}: the schema nests too deeply or refers to itself without an object or tuple between (a recursive type needs a record)", n.origin),
            );
            None
        } else {
            self.type_inner(n, hint)
        };
        self.depth -= 1;
        t
    }

    fn type_inner(&mut self, n: &Node<'r>, hint: &str) -> Option<(Type, bool)> {
        if let Some(t) = self.active.get(&(n.s as *const J)) {
            return Some((t.clone(), false));
        }
        match n.s {
            J::Bool(true) => return Some((Type::Json, false)),
            J::Bool(false) => {
                self.err(
                    Code::AcceptsNothing,
                    &n.file,
                    format!("{}: the schema false accepts no value", n.origin),
                );
                return None;
            }
            J::Object(_) => {}
            _ => {
                self.err(
                    Code::InvalidSchema,
                    &n.file,
                    format!("{}: a property schema must be an object", n.origin),
                );
                return None;
            }
        }
        let o = n.s.as_object().expect("checked");
        // A `$ref` with nothing beside it but annotations is the definition itself (its name, its type).
        if o.contains_key("$ref")
            && o.keys().all(|k| {
                k == "$ref"
                    || ANNOTATIONS.contains(&k.as_str())
                    || FIELD_ANNOTATIONS.contains(&k.as_str())
            })
        {
            let (t, name) = self.follow(n)?;
            return self.named(&t, name.as_deref(), hint);
        }
        self.named(n, None, hint)
    }

    /// Type `n`, whose generated types are named `name` (a `$defs` key) if given, else by `title`, else
    /// `hint`.
    fn named(&mut self, n: &Node<'r>, name: Option<&str>, hint: &str) -> Option<(Type, bool)> {
        if let Some(t) = self.active.get(&(n.s as *const J)) {
            return Some((t.clone(), false));
        }
        if !n.s.is_object() {
            return self.type_of(n, hint);
        }
        let o = n.s.as_object().expect("checked");
        let type_name = name
            .map(String::from)
            .or_else(|| {
                o.get("title")
                    .and_then(J::as_str)
                    .map(|t| crate::naming::case(t, crate::naming::Case::Pascal))
            })
            .unwrap_or_else(|| hint.to_string());
        // anyOf/oneOf [T, {"type": "null"}] → nullable T (T keeps its own name).
        for k in ["anyOf", "oneOf"] {
            if let Some(J::Array(alts)) = o.get(k) {
                let only = o.keys().all(|x| {
                    x == k
                        || ANNOTATIONS.contains(&x.as_str())
                        || FIELD_ANNOTATIONS.contains(&x.as_str())
                        || x == "x-gentable-discriminator"
                });
                let is_null = |a: &J| {
                    a.get("type").and_then(J::as_str) == Some("null")
                        || a.get("const") == Some(&J::Null)
                };
                let non_null: Vec<(usize, &J)> = alts
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| !is_null(a))
                    .collect();
                if only && non_null.len() == 1 && alts.len() == 2 {
                    let (i, a) = non_null[0];
                    let c = self.child(n, a, &format!("{k}/{i}"));
                    let (t, _) = self.type_of(&c, hint)?;
                    return Some((t, true));
                }
                if k == "oneOf" {
                    if let Some(disc) = o.get("x-gentable-discriminator").and_then(J::as_str) {
                        let nullable = non_null.len() + 1 == alts_len(o, k);
                        let branches: Vec<Node<'r>> = non_null
                            .iter()
                            .map(|(i, a)| self.child(n, a, &format!("oneOf/{i}")))
                            .collect();
                        let t = self.union(&type_name, disc, &branches, n)?;
                        return Some((t, nullable));
                    }
                }
            }
        }
        let parts = self.parts(n)?;
        let (kinds, inferred) = match self.kinds(&parts)? {
            Ok(k) => k,
            Err((code, m)) => {
                self.err(code, &n.file, format!("{}: {m}", n.origin));
                return None;
            }
        };
        let _ = inferred;
        let nullable = kinds.has(Kinds::NULL) && kinds != Kinds::NULL;
        let k = kinds.minus(Kinds::NULL);
        if !self.formats_fit(&parts, k) {
            return None;
        }
        let t = if kinds == Kinds::NULL {
            // Only null: a JSON value that is always null (null is a JSON value, not an absent one).
            return Some((Type::Json, false));
        } else if k == Kinds::ALL.minus(Kinds::NULL) {
            // Any value, null among them.
            return Some((Type::Json, false));
        } else if k == Kinds::BOOL {
            Type::Bool
        } else if k == Kinds::INT {
            Type::Int(self.int_width(&parts))
        } else if k == Kinds::NUM || k == Kinds::FRAC {
            Type::Float
        } else if k == Kinds::STR {
            self.string(n, &parts, &type_name)?
        } else if k == Kinds::ARR {
            self.array(n, &parts, &type_name)?
        } else if k == Kinds::OBJ {
            self.object(n, &parts, &type_name)?
        } else if k
            .minus(Kinds::BOOL.or(Kinds::NUM).or(Kinds::STR))
            .is_empty()
        {
            self.choice(n, &parts, k, &type_name)?
        } else {
            // A union with arrays or objects but not every kind: a JSON value (null among its values),
            // validated by the schema.
            return Some((Type::Json, false));
        };
        Some((t, nullable))
    }

    /// Whether every part's `format` is one gentable implements for the kind `k` of a one-kind type
    /// ([`unsupported_format`]) and `x-gentable-timeZone` stands beside `date-time` or `time`: a typo or an
    /// unsupported width (`float`: 32-bit) must not silently become a plain number or string
    /// (docs/conventions.md §7). Reports the first that does not (GT0415; a misplaced time zone GT0403) and
    /// gives false.
    fn formats_fit(&mut self, parts: &Parts<'r>, k: Kinds) -> bool {
        let ty = if k == Kinds::INT {
            "integer"
        } else if k == Kinds::NUM || k == Kinds::FRAC {
            "number"
        } else if k == Kinds::STR {
            "string"
        } else {
            return true;
        };
        for p in &parts.all {
            let o = p.s.as_object().expect("parts are objects");
            if let Some(m) = o.get("format").and_then(|f| unsupported_format(ty, f)) {
                self.err(
                    Code::UnsupportedFormat,
                    &p.file,
                    format!("{}: {m}", p.origin),
                );
                return false;
            }
            if o.contains_key("x-gentable-timeZone")
                && !parts.all.iter().any(|q| {
                    matches!(
                        q.s.get("format").and_then(J::as_str),
                        Some("date-time" | "time")
                    )
                })
            {
                self.err(
                    Code::InvalidSchema,
                    &p.file,
                    format!("{}: x-gentable-timeZone applies to \"format\": \"date-time\" or \"time\" only", p.origin),
                );
                return false;
            }
        }
        true
    }

    /// The width of an integer: `format` (`int64`, `uint8`, …), else the tightest bounds of every part
    /// (`minimum`/`maximum`, exclusive bounds, `enum`/`const` values).
    fn int_width(&self, parts: &Parts<'r>) -> IntWidth {
        let mut width = None;
        let mut lo: Option<i128> = None;
        let mut hi: Option<i128> = None;
        let tighten_lo = |lo: &mut Option<i128>, v: i128| *lo = Some(lo.map_or(v, |l| l.max(v)));
        let tighten_hi = |hi: &mut Option<i128>, v: i128| *hi = Some(hi.map_or(v, |h| h.min(v)));
        for p in &parts.all {
            let o = p.s.as_object().expect("parts are objects");
            if width.is_none() {
                width = match o.get("format").and_then(J::as_str) {
                    Some("int8") => Some(IntWidth::I8),
                    Some("int16") => Some(IntWidth::I16),
                    Some("int32") => Some(IntWidth::I32),
                    Some("int64") => Some(IntWidth::I64),
                    Some("uint8") => Some(IntWidth::U8),
                    Some("uint16") => Some(IntWidth::U16),
                    Some("uint32") => Some(IntWidth::U32),
                    Some("uint64") => Some(IntWidth::U64),
                    _ => None,
                };
            }
            let num = |k: &str| o.get(k).and_then(J::as_f64).filter(|f| f.is_finite());
            if let Some(f) = num("minimum") {
                tighten_lo(&mut lo, f.ceil().clamp(-1e38, 1e38) as i128);
            } else if let Some(f) = num("exclusiveMinimum") {
                tighten_lo(&mut lo, f.ceil().clamp(-1e38, 1e38) as i128 + 1);
            }
            if let Some(f) = num("maximum") {
                tighten_hi(&mut hi, f.floor().clamp(-1e38, 1e38) as i128);
            } else if let Some(f) = num("exclusiveMaximum") {
                tighten_hi(&mut hi, f.ceil().clamp(-1e38, 1e38) as i128 - 1);
            }
            // An integer `enum`/`const` bounds the width too.
            let listed: Vec<i128> = match (o.get("enum"), o.get("const")) {
                (Some(J::Array(a)), _) => a.iter().filter_map(int_of).collect(),
                (_, Some(c)) => int_of(c).into_iter().collect(),
                _ => vec![],
            };
            if let (Some(&a), Some(&b)) = (listed.iter().min(), listed.iter().max()) {
                tighten_lo(&mut lo, a);
                tighten_hi(&mut hi, b);
            }
        }
        width.unwrap_or_else(|| IntWidth::for_bounds(lo, hi))
    }

    /// A string type: a date-time or duration by `format`, an enum by `enum`, else a string.
    fn string(&mut self, n: &Node<'r>, parts: &Parts<'r>, type_name: &str) -> Option<Type> {
        for p in &parts.all {
            let o = p.s.as_object().expect("parts are objects");
            match o.get("format").and_then(J::as_str) {
                Some(f @ ("date-time" | "time")) => {
                    let zone = match o.get("x-gentable-timeZone") {
                        None => None,
                        Some(z) => match z.as_str().and_then(parse_offset) {
                            Some(off) => Some(off),
                            None => {
                                self.err(Code::InvalidSchema, &p.file, format!("{}: x-gentable-timeZone must be a fixed offset like \"+08:00\" or \"UTC\", not {z}", p.origin));
                                return None;
                            }
                        },
                    };
                    return Some(if f == "time" {
                        Type::Time(zone)
                    } else {
                        Type::DateTime(zone)
                    });
                }
                Some("date") => return Some(Type::Date),
                Some("duration") => return Some(Type::Duration),
                _ => {}
            }
        }
        let with_enum = parts.all.iter().find(|p| {
            p.s.get("enum")
                .and_then(J::as_array)
                .is_some_and(|a| a.iter().all(J::is_string))
        });
        let Some(p) = with_enum else {
            return Some(Type::String);
        };
        let o = p.s.as_object().expect("parts are objects");
        let members: Vec<String> = o
            .get("enum")
            .and_then(J::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|m| m.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        // Cells are read as NFC (docs/conventions.md §7): a member in another form could never match one.
        let nfc = |t: &str| {
            use unicode_normalization::UnicodeNormalization;
            t.nfc().collect::<String>() == t
        };
        if let Some(m) = members.iter().find(|m| !nfc(m)) {
            self.err(Code::InvalidSchema, &p.file, format!("{}: the enum member {m:?} is not in Unicode NFC (cells are read as NFC, so it could never match); write it composed", n.origin));
            return None;
        }
        let mut aliases = vec![];
        if let Some(J::Object(m)) = o.get("x-gentable-enumAliases") {
            for (member, names) in m {
                if !members.contains(member) {
                    self.err(
                        Code::InvalidSchema,
                        &p.file,
                        format!(
                            "{}: x-gentable-enumAliases names {member:?}, which is not a member",
                            n.origin
                        ),
                    );
                    return None;
                }
                for a in string_list(Some(names)) {
                    if !nfc(&a) {
                        self.err(Code::InvalidSchema, &p.file, format!("{}: the alias {a:?} is not in Unicode NFC (cells are read as NFC, so it could never match); write it composed", n.origin));
                        return None;
                    }
                    if members.contains(&a) || aliases.iter().any(|(x, _)| *x == a) {
                        self.err(
                            Code::InvalidSchema,
                            &p.file,
                            format!(
                                "{}: the alias {a:?} is already a member or another alias",
                                n.origin
                            ),
                        );
                        return None;
                    }
                    aliases.push((a, member.clone()));
                }
            }
        }
        let values = match o.get("x-gentable-enumValues") {
            None => None,
            Some(v) => match enum_values(v, &members) {
                Ok(v) => Some(v),
                Err(m) => {
                    self.err(
                        Code::InvalidSchema,
                        &p.file,
                        format!("{}: x-gentable-enumValues {m}", n.origin),
                    );
                    return None;
                }
            },
        };
        let idents = match o.get("x-gentable-name") {
            None => vec![],
            Some(v) => match member_idents(v, &members) {
                Ok(v) => v,
                Err(m) => {
                    self.err(
                        Code::InvalidSchema,
                        &p.file,
                        format!("{}: x-gentable-name {m}", n.origin),
                    );
                    return None;
                }
            },
        };
        let origin = self.identity(n);
        let def = EnumDef {
            name: type_name.to_string(),
            doc: doc_of(o),
            members,
            aliases,
            values,
            idents,
            origin: origin.clone(),
        };
        if !self.register(type_name, &origin, &n.file) {
            return None;
        }
        self.project
            .enums
            .entry(type_name.to_string())
            .or_insert(def);
        Some(Type::Enum(type_name.to_string()))
    }

    /// The identity of a named type: where its schema was written.
    fn identity(&self, n: &Node<'r>) -> String {
        n.origin.clone()
    }

    /// A scalar union of the kinds `k` (at most one boolean, number and string member).
    fn choice(
        &mut self,
        n: &Node<'r>,
        parts: &Parts<'r>,
        k: Kinds,
        type_name: &str,
    ) -> Option<Type> {
        let mut members = vec![];
        if k.has(Kinds::BOOL) {
            members.push(Type::Bool);
        }
        if k.has(Kinds::FRAC) {
            members.push(Type::Float);
        } else if k.has(Kinds::INT) {
            members.push(Type::Int(self.int_width(parts)));
        }
        if k.has(Kinds::STR) {
            members.push(Type::String);
        }
        if members
            .iter()
            .any(|m| matches!(m, Type::Int(w) if w.is_64()))
            && members.contains(&Type::String)
        {
            self.err(
                Code::UnsupportedShape,
                &n.file,
                format!("{}: a scalar union of a 64-bit integer and a string cannot be told apart in the data (integers beyond 2^53 are written as strings): bound the integer with \"maximum\"/\"minimum\" within ±2^53, or make it a string", n.origin),
            );
            return None;
        }
        let origin = self.identity(n);
        if !self.register(type_name, &origin, &n.file) {
            return None;
        }
        let doc = n.s.as_object().map(doc_of).unwrap_or_default();
        self.project
            .choices
            .entry(type_name.to_string())
            .or_insert(ChoiceDef {
                name: type_name.to_string(),
                doc,
                members,
                origin,
            });
        Some(Type::Choice(type_name.to_string()))
    }

    /// An array: a tuple (`prefixItems`), flags (`x-gentable-flags`), or a list of its `items` (any JSON
    /// value when they are not given).
    fn array(&mut self, n: &Node<'r>, parts: &Parts<'r>, type_name: &str) -> Option<Type> {
        // Tuple positions: the schemas that all hold at each (every part's `prefixItems`) and those of
        // branches (`anyOf`/`oneOf`/`if`/`then`/`else`) that declare it.
        let mut positions: Vec<(Vec<Node<'r>>, Vec<Node<'r>>)> = vec![];
        for p in &parts.all {
            for (i, item) in
                p.s.get("prefixItems")
                    .and_then(J::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
            {
                if positions.len() <= i {
                    positions.resize(i + 1, (vec![], vec![]));
                }
                let c = self.child(p, item, &format!("prefixItems/{i}"));
                positions[i].0.push(c);
            }
        }
        let mut seen = vec![];
        let mut branch_prefix: Vec<Vec<Node<'r>>> = vec![];
        for p in &parts.all {
            self.branch_items(p, &mut branch_prefix, &mut seen);
        }
        for (i, b) in branch_prefix.into_iter().enumerate() {
            if positions.len() <= i {
                positions.resize(i + 1, (vec![], vec![]));
            }
            positions[i].1 = b;
        }
        let items: Vec<Node<'r>> = parts
            .all
            .iter()
            .filter_map(|p| p.s.get("items").map(|i| self.child(p, i, "items")))
            .collect();
        // Items after the prefix are allowed unless `items` is false, or `unevaluatedItems` is false with
        // nothing else (`items`, `contains`, an `unevaluatedItems` that is not false) evaluating them.
        let contains = parts.all.iter().any(|p| p.s.get("contains").is_some());
        let unevaluated: Vec<&J> = parts
            .all
            .iter()
            .filter_map(|p| p.s.get("unevaluatedItems"))
            .collect();
        let no_more = items.iter().any(|i| *i.s == J::Bool(false))
            || (items.is_empty()
                && !contains
                && !unevaluated.is_empty()
                && unevaluated.iter().all(|u| **u == J::Bool(false)));
        if !positions.is_empty() {
            return self.tuple(n, parts, positions, &items, no_more, type_name);
        }
        let items: Vec<Node<'r>> = items
            .into_iter()
            .filter(|i| *i.s != J::Bool(true))
            .collect();
        let (inner, nullable) = match items.as_slice() {
            [] => (Type::Json, false),
            [one] if *one.s == J::Bool(false) => (Type::Json, false),
            [one] => self.type_of(one, &format!("{type_name}Item"))?,
            many => self.all_of(n, many, "items", &format!("{type_name}Item"))?,
        };
        let flags = parts
            .all
            .iter()
            .any(|p| p.s.get("x-gentable-flags").and_then(J::as_bool) == Some(true))
            || items.iter().any(|i| {
                self.follow_quiet(i)
                    .is_some_and(|t| t.s.get("x-gentable-flags").and_then(J::as_bool) == Some(true))
            });
        match (flags, &inner) {
            (true, Type::Enum(e)) if !nullable => {
                if self.project.enums[e].members.len() > 64 {
                    self.err(
                        Code::UnsupportedShape,
                        &n.file,
                        format!("{}: a flags enum has at most 64 members", n.origin),
                    );
                    return None;
                }
                Some(Type::Flags(e.clone()))
            }
            (true, _) => {
                self.err(
                    Code::InvalidSchema,
                    &n.file,
                    format!(
                        "{}: x-gentable-flags needs \"items\" to be a string enum",
                        n.origin
                    ),
                );
                None
            }
            _ => Some(Type::Array(Box::new(if nullable {
                Type::Optional(Box::new(inner))
            } else {
                inner
            }))),
        }
    }

    /// The schemas of `branches` of `p` (and of their branches) in the way a member or item declared
    /// there is seen: every `anyOf`/`oneOf` branch, `if`, `then`, `else` and `dependentSchemas` value,
    /// flattened into their parts.
    /// Each comes with whether it applies only under a condition (`if`/`then`/`else`,
    /// `dependentSchemas`, or inside one of those).
    fn branches(&mut self, p: &Node<'r>, seen: &mut Vec<*const J>) -> Vec<(Node<'r>, bool)> {
        let key = p.s as *const J;
        if seen.contains(&key) || seen.len() > 256 {
            return vec![];
        }
        seen.push(key);
        let o = match p.s.as_object() {
            Some(o) => o,
            None => return vec![],
        };
        let mut direct: Vec<(Node<'r>, bool)> = vec![];
        for alt in ["anyOf", "oneOf"] {
            for (i, b) in o
                .get(alt)
                .and_then(J::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                direct.push((self.child(p, b, &format!("{alt}/{i}")), false));
            }
        }
        for k in ["if", "then", "else"] {
            if let Some(b) = o.get(k) {
                direct.push((self.child(p, b, k), true));
            }
        }
        if let Some(J::Object(deps)) = o.get("dependentSchemas") {
            for (d, b) in deps {
                direct.push((
                    self.child(p, b, &format!("dependentSchemas/{}", pointer_escape(d))),
                    true,
                ));
            }
        }
        let mut out = vec![];
        for (b, conditional) in direct {
            let Some(bp) = self.parts_quiet(&b) else {
                continue;
            };
            for part in bp.all {
                let deeper = self.branches(&part, seen);
                out.push((part, conditional));
                out.extend(deeper.into_iter().map(|(d, c)| (d, c || conditional)));
            }
        }
        out
    }

    /// The `prefixItems` of `p`'s branches, by position.
    fn branch_items(
        &mut self,
        p: &Node<'r>,
        out: &mut Vec<Vec<Node<'r>>>,
        seen: &mut Vec<*const J>,
    ) {
        for (b, _) in self.branches(p, seen) {
            for (i, item) in
                b.s.get("prefixItems")
                    .and_then(J::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
            {
                if out.len() <= i {
                    out.resize(i + 1, vec![]);
                }
                let c = self.child(&b, item, &format!("prefixItems/{i}"));
                out[i].push(c);
            }
        }
    }

    fn follow_quiet(&mut self, n: &Node<'r>) -> Option<Node<'r>> {
        let before = self.diags.len();
        let t = self.follow(n).map(|(t, _)| t);
        self.diags.truncate(before);
        t
    }

    /// The type of a value that satisfies every node of `nodes` (the same member or items given in
    /// several `allOf` parts); `None` (reported) when they contradict.
    fn all_of(
        &mut self,
        n: &Node<'r>,
        nodes: &[Node<'r>],
        what: &str,
        hint: &str,
    ) -> Option<(Type, bool)> {
        self.combine(n, nodes, what, hint, true)
    }

    /// The type of a value that satisfies one of `nodes` (a member declared in several `anyOf`/`oneOf`
    /// branches): a JSON value when no narrower type holds them all.
    fn any_of(
        &mut self,
        n: &Node<'r>,
        nodes: &[Node<'r>],
        what: &str,
        hint: &str,
    ) -> Option<(Type, bool)> {
        self.combine(n, nodes, what, hint, false)
    }

    fn combine(
        &mut self,
        n: &Node<'r>,
        nodes: &[Node<'r>],
        what: &str,
        hint: &str,
        all: bool,
    ) -> Option<(Type, bool)> {
        let mut types = vec![];
        for x in nodes {
            if all && *x.s == J::Bool(true) {
                continue;
            }
            types.push(self.type_of(x, hint)?);
        }
        let Some(mut t) = types.first().cloned() else {
            return Some((Type::Json, false));
        };
        for u in &types[1..] {
            t = match (all, if all { meet(&t, u) } else { join(&t, u) }) {
                (_, Some(m)) => m,
                (false, None) => (Type::Json, false),
                (true, None) => {
                    self.err(
                        Code::ConflictingTypes,
                        &n.file,
                        format!(
                            "{}: the parts give {what} two types, {} and {}: they must agree",
                            n.origin,
                            t.0.words(),
                            u.0.words()
                        ),
                    );
                    return None;
                }
            };
        }
        Some(t)
    }

    /// A tuple (a record of [`RecordForm::Tuple`]): one field per position (`"0"`, `"1"`, …; a position
    /// only branches declare, or at or after `minItems`, is optional), and the rest (`items`) unless
    /// `items`/`unevaluatedItems` is false. A position whose schema is false ends the tuple there.
    fn tuple(
        &mut self,
        n: &Node<'r>,
        parts: &Parts<'r>,
        mut positions: Vec<(Vec<Node<'r>>, Vec<Node<'r>>)>,
        items: &[Node<'r>],
        no_more: bool,
        type_name: &str,
    ) -> Option<Type> {
        let origin = self.identity(n);
        if !self.register(type_name, &origin, &n.file) {
            return None;
        }
        if self.project.records.contains_key(type_name) {
            return Some(Type::Record(type_name.to_string()));
        }
        let mut no_more = no_more;
        if let Some(end) = positions
            .iter()
            .position(|(all, _)| all.iter().any(|x| *x.s == J::Bool(false)))
        {
            positions.truncate(end);
            no_more = true;
        }
        let min = parts
            .all
            .iter()
            .filter_map(|x| x.s.get("minItems").and_then(J::as_u64))
            .max()
            .unwrap_or(0)
            .min(positions.len() as u64) as usize;
        let rest_items: Vec<Node<'r>> = items
            .iter()
            .filter(|i| *i.s != J::Bool(false))
            .cloned()
            .collect();
        let unevaluated: Vec<Node<'r>> = parts
            .all
            .iter()
            .filter_map(|x| {
                x.s.get("unevaluatedItems")
                    .filter(|u| **u != J::Bool(false))
                    .map(|u| self.child(x, u, "unevaluatedItems"))
            })
            .collect();
        let rest = !no_more;
        self.project.records.insert(
            type_name.to_string(),
            RecordDef {
                name: type_name.to_string(),
                doc: n.s.as_object().map(doc_of).unwrap_or_default(),
                fields: vec![],
                origin: origin.clone(),
                form: RecordForm::Tuple { min, rest },
            },
        );
        let t = Type::Record(type_name.to_string());
        self.active.insert(n.s as *const J, t.clone());
        let fields = self.tuple_fields(
            n,
            &positions,
            min,
            rest,
            &rest_items,
            unevaluated,
            type_name,
        );
        self.active.remove(&(n.s as *const J));
        let Some(fields) = fields else {
            self.project.records.remove(type_name);
            return None;
        };
        if let Some(r) = self.project.records.get_mut(type_name) {
            r.fields = fields;
        }
        Some(t)
    }

    #[allow(clippy::too_many_arguments)]
    fn tuple_fields(
        &mut self,
        n: &Node<'r>,
        positions: &[(Vec<Node<'r>>, Vec<Node<'r>>)],
        min: usize,
        rest: bool,
        rest_items: &[Node<'r>],
        unevaluated: Vec<Node<'r>>,
        type_name: &str,
    ) -> Option<Vec<Field>> {
        let mut fields = vec![];
        for (i, (all, branch)) in positions.iter().enumerate() {
            let hint = format!("{type_name}{i}");
            let (ty, nullable) = if !all.is_empty() {
                self.all_of(n, all, &format!("item {i}"), &hint)?
            } else {
                self.any_of(n, branch, &format!("item {i}"), &hint)?
            };
            if nullable && i >= min {
                self.err(
                    Code::UnsupportedShape,
                    &n.file,
                    format!("{}/prefixItems/{i}: a tuple item that may be null must be within minItems ({min}): an item after it may be left out, and a left-out item and a null one would read the same", n.origin),
                );
                return None;
            }
            let ty = if nullable || i >= min {
                Type::Optional(Box::new(ty))
            } else {
                ty
            };
            let mut f = Field::new(&i.to_string(), ty);
            f.doc = all
                .first()
                .or(branch.first())
                .and_then(|x| x.s.as_object())
                .map(doc_of)
                .unwrap_or_default();
            fields.push(f);
        }
        if rest {
            let nodes: Vec<Node<'r>> = if rest_items.is_empty() {
                unevaluated
            } else {
                rest_items.to_vec()
            };
            let (ty, nullable) = match nodes.as_slice() {
                [] => (Type::Json, false),
                many => self.all_of(n, many, "items", &format!("{type_name}Item"))?,
            };
            let ty = if nullable {
                Type::Optional(Box::new(ty))
            } else {
                ty
            };
            fields.push(Field::new(crate::ir::REST_FIELD, Type::Array(Box::new(ty))));
        }
        Some(fields)
    }

    /// An object: a record (closed, or open when `additionalProperties`, `patternProperties` or
    /// `unevaluatedProperties` allow more members) or, without declared members, a map.
    fn object(&mut self, n: &Node<'r>, parts: &Parts<'r>, type_name: &str) -> Option<Type> {
        // Members: every part's `properties` (all hold), then the members only some branches declare
        // (`anyOf`/`oneOf`, `if`/`then`/`else`, `dependentSchemas`: optional).
        let mut members: Vec<(String, Vec<Node<'r>>)> = vec![];
        let mut required: Vec<String> = vec![];
        let mut opened: Vec<Node<'r>> = vec![];
        let mut map_key: Option<Node<'r>> = None;
        for p in &parts.all {
            let o = p.s.as_object().expect("parts are objects");
            if let Some(J::Object(props)) = o.get("properties") {
                for (name, ps) in props {
                    let c = self.child(p, ps, &format!("properties/{}", pointer_escape(name)));
                    match members.iter_mut().find(|(m, _)| m == name) {
                        Some((_, v)) => v.push(c),
                        None => members.push((name.clone(), vec![c])),
                    }
                }
            }
            for r in o
                .get("required")
                .and_then(J::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(r) = r.as_str() {
                    if !required.iter().any(|x| x == r) {
                        required.push(r.to_string());
                    }
                }
            }
            self.openers(p, &mut opened);
            if let Some(k) = o.get("x-gentable-mapKey") {
                map_key = Some(self.child(p, k, "x-gentable-mapKey"));
            }
        }
        // Members only branches declare (one of their schemas holds; optional), and their openers.
        let declared: Vec<String> = members.iter().map(|(m, _)| m.clone()).collect();
        // A member that only conditional schemas declare may hold anything when their condition does not
        // hold: it is a JSON value (validated by the schema).
        let mut branch_only: Vec<(String, Vec<Node<'r>>)> = vec![];
        let mut conditional: Vec<String> = vec![];
        let mut seen = vec![];
        let branches: Vec<(Node<'r>, bool)> = parts
            .all
            .iter()
            .flat_map(|p| self.branches(p, &mut seen))
            .collect();
        for (b, cond) in &branches {
            if let Some(J::Object(props)) = b.s.get("properties") {
                for (name, ps) in props {
                    if declared.contains(name) {
                        continue;
                    }
                    if *cond {
                        if !conditional.contains(name) {
                            conditional.push(name.clone());
                        }
                        continue;
                    }
                    let c = self.child(b, ps, &format!("properties/{}", pointer_escape(name)));
                    match branch_only.iter_mut().find(|(m, _)| m == name) {
                        Some((_, v)) => v.push(c),
                        None => branch_only.push((name.clone(), vec![c])),
                    }
                }
            }
            self.openers(b, &mut opened);
        }
        for name in conditional {
            if !branch_only.iter().any(|(m, _)| *m == name) {
                members.push((name.clone(), vec![]));
            }
        }
        let open = !opened.is_empty();
        if members.is_empty() && branch_only.is_empty() {
            return self.map(n, &opened, map_key.as_ref(), type_name);
        }
        // A required name with no schema anywhere holds any value.
        for r in &required {
            if !members.iter().any(|(m, _)| m == r) && !branch_only.iter().any(|(m, _)| m == r) {
                members.push((r.clone(), vec![]));
            }
        }
        let origin = self.identity(n);
        if !self.register(type_name, &origin, &n.file) {
            return None;
        }
        let t = Type::Record(type_name.to_string());
        if self.project.records.contains_key(type_name) {
            return Some(t);
        }
        if let Some(sep) = parts.all.iter().find_map(|p| separator_of(Some(p.s))) {
            self.project.separators.insert(type_name.to_string(), sep);
        }
        self.project.records.insert(
            type_name.to_string(),
            RecordDef {
                name: type_name.to_string(),
                doc: n.s.as_object().map(doc_of).unwrap_or_default(),
                fields: vec![],
                origin: origin.clone(),
                form: if open {
                    RecordForm::Open
                } else {
                    RecordForm::Closed
                },
            },
        );
        self.active.insert(n.s as *const J, t.clone());
        let fields = self.record_fields(
            n,
            &members,
            &branch_only,
            &required,
            &opened,
            open,
            type_name,
        );
        self.active.remove(&(n.s as *const J));
        let fields = match fields {
            Some(f) => f,
            None => {
                self.project.records.remove(type_name);
                return None;
            }
        };
        if let Some(r) = self.project.records.get_mut(type_name) {
            r.fields = fields;
        }
        Some(t)
    }

    /// The schemas that let `p` have members beyond its `properties`: `additionalProperties` and
    /// `unevaluatedProperties` unless false, every `patternProperties` schema that is not false.
    fn openers(&mut self, p: &Node<'r>, out: &mut Vec<Node<'r>>) {
        for key in ["additionalProperties", "unevaluatedProperties"] {
            if let Some(v) = p.s.get(key).filter(|v| **v != J::Bool(false)) {
                out.push(self.child(p, v, key));
            }
        }
        if let Some(J::Object(pats)) = p.s.get("patternProperties") {
            for (pat, ps) in pats {
                if *ps != J::Bool(false) {
                    out.push(self.child(
                        p,
                        ps,
                        &format!("patternProperties/{}", pointer_escape(pat)),
                    ));
                }
            }
            // Without `additionalProperties` (or `unevaluatedProperties`), a member matching no pattern
            // may hold any value (JSON Schema's default `true`): typing every extra member by the
            // patterns' schemas read `(y=1)` under `{"^x_": boolean}` as `y = true`.
            static ANY: J = J::Bool(true);
            if !pats.is_empty()
                && p.s.get("additionalProperties").is_none()
                && p.s.get("unevaluatedProperties").is_none()
            {
                out.push(self.child(p, &ANY, "additionalProperties"));
            }
        }
    }

    /// The `x-gentable-aliases` errors of a record's fields (as of a table's row: [`alias_errors`]), each
    /// reported at the record's schema location.
    fn check_record_aliases(
        &mut self,
        n: &Node<'r>,
        members: &[(String, Vec<Node<'r>>)],
        fields: &[Field],
    ) {
        let raw = members.iter().filter_map(|(name, nodes)| {
            Some((name.as_str(), nodes.first()?.s.get("x-gentable-aliases")?))
        });
        for m in alias_errors(raw, fields) {
            self.err(Code::InvalidSchema, &n.file, format!("{}: {m}", n.origin));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record_fields(
        &mut self,
        n: &Node<'r>,
        members: &[(String, Vec<Node<'r>>)],
        branch_only: &[(String, Vec<Node<'r>>)],
        required: &[String],
        opened: &[Node<'r>],
        open: bool,
        type_name: &str,
    ) -> Option<Vec<Field>> {
        let mut fields = vec![];
        for (name, nodes) in members {
            let hint = format!(
                "{type_name}{}",
                crate::naming::case(name, crate::naming::Case::Pascal)
            );
            let is_req = required.contains(name);
            // A member whose schema is `false` may never appear: a closed record has no field for it.
            if nodes.iter().any(|x| *x.s == J::Bool(false)) {
                if is_req {
                    self.err(
                        Code::AcceptsNothing,
                        &n.file,
                        format!(
                            "{}: the member {name:?} is required but its schema is false",
                            n.origin
                        ),
                    );
                    return None;
                }
                continue;
            }
            let (ty, nullable, first) = if nodes.is_empty() {
                match branch_only.iter().find(|(m, _)| m == name) {
                    Some((_, bn)) => {
                        let (t, nl) = self.any_of(n, bn, name, &hint)?;
                        (t, nl, bn.first().cloned())
                    }
                    None => (Type::Json, false, None),
                }
            } else if nodes.len() == 1 {
                let (t, nl) = self.type_of(&nodes[0], &hint)?;
                (t, nl, Some(nodes[0].clone()))
            } else {
                let (t, nl) = self.all_of(n, nodes, &format!("the member {name:?}"), &hint)?;
                (t, nl, Some(nodes[0].clone()))
            };
            let ty = if nullable || !is_req {
                Type::Optional(Box::new(ty))
            } else {
                ty
            };
            let f = match &first {
                Some(node) => self.field(name, node, ty),
                None => Field::new(name, ty),
            };
            fields.push(f);
        }
        for (name, bn) in branch_only {
            if members.iter().any(|(m, _)| m == name) {
                continue;
            }
            let hint = format!(
                "{type_name}{}",
                crate::naming::case(name, crate::naming::Case::Pascal)
            );
            let (t, _) = self.any_of(n, bn, name, &hint)?;
            let f = self.field(name, &bn[0], Type::Optional(Box::new(t)));
            fields.push(f);
        }
        self.check_record_aliases(n, members, &fields);
        if open {
            if fields.iter().any(|f| f.name == crate::ir::EXTRA_FIELD) {
                self.err(
                    Code::UnsupportedShape,
                    &n.file,
                    format!("{}: an open record keeps its extra members in a field named {:?}, which is also a declared member; rename the member", n.origin, crate::ir::EXTRA_FIELD),
                );
                return None;
            }
            let (vt, vn) = self.any_of(n, opened, "extra members", &format!("{type_name}Value"))?;
            let vt = if vn { Type::Optional(Box::new(vt)) } else { vt };
            fields.push(Field::new(
                crate::ir::EXTRA_FIELD,
                Type::Map(Box::new(Type::String), Box::new(vt)),
            ));
        }
        Some(fields)
    }

    /// A map: a JSON object with free member names (`additionalProperties`, `patternProperties`), keys
    /// typed by `x-gentable-mapKey` (a string or an integer), values by the schemas of the members.
    fn map(
        &mut self,
        n: &Node<'r>,
        values: &[Node<'r>],
        key: Option<&Node<'r>>,
        type_name: &str,
    ) -> Option<Type> {
        let key = match key {
            None => Type::String,
            Some(k) => match self.type_of(k, &format!("{type_name}Key"))? {
                (t @ (Type::String | Type::Int(_)), false) => t,
                _ => {
                    self.err(
                        Code::UnsupportedShape,
                        &n.file,
                        format!("{}: a map key must be a string or an integer", n.origin),
                    );
                    return None;
                }
            },
        };
        let (vt, vn) = match values {
            [] => (Type::Json, false),
            [one] => self.type_of(one, &format!("{type_name}Value"))?,
            many => self.any_of(n, many, "values", &format!("{type_name}Value"))?,
        };
        let vt = if vn { Type::Optional(Box::new(vt)) } else { vt };
        Some(Type::Map(Box::new(key), Box::new(vt)))
    }

    /// Register a polymorphic record type (`oneOf` of objects with a discriminator).
    fn union(
        &mut self,
        name: &str,
        disc: &str,
        branches: &[Node<'r>],
        n: &Node<'r>,
    ) -> Option<Type> {
        let origin = self.identity(n);
        if !self.register(name, &origin, &n.file) {
            return None;
        }
        if self.project.unions.contains_key(name) {
            return Some(Type::Union(name.to_string()));
        }
        if let Some(sep) = separator_of(Some(n.s)) {
            self.project.separators.insert(name.to_string(), sep);
        }
        if let Some(J::Object(m)) = n.s.get("x-gentable-kindAliases") {
            let mut aliases = vec![];
            for (tag, names) in m {
                for a in string_list(Some(names)) {
                    aliases.push((a, tag.clone()));
                }
            }
            self.project.kind_aliases.insert(name.to_string(), aliases);
        }
        self.project.unions.insert(
            name.to_string(),
            UnionDef {
                name: name.to_string(),
                doc: n.s.as_object().map(doc_of).unwrap_or_default(),
                discriminator: disc.to_string(),
                variants: vec![],
                origin: origin.clone(),
            },
        );
        let mut variants: Vec<Variant> = vec![];
        for (i, alt) in branches.iter().enumerate() {
            let (b, _) = self.follow(alt)?;
            let bo = b.s.as_object().cloned().unwrap_or_default();
            let props = bo
                .get("properties")
                .and_then(J::as_object)
                .cloned()
                .unwrap_or_default();
            let tag = props.get(disc).and_then(|d| {
                d.get("const")
                    .and_then(J::as_str)
                    .or_else(
                        || match d.get("enum").and_then(J::as_array).map(Vec::as_slice) {
                            Some([one]) => one.as_str(),
                            _ => None,
                        },
                    )
                    .map(String::from)
            });
            let Some(tag) = tag else {
                self.err(Code::InvalidSchema, &n.file, format!("{}/oneOf/{i}: each branch must be an object whose property {disc:?} has a string \"const\"", n.origin));
                return None;
            };
            if variants.iter().any(|v| v.tag == tag) {
                self.err(
                    Code::InvalidSchema,
                    &n.file,
                    format!("{}: two branches have {disc} = {tag:?}", n.origin),
                );
                return None;
            }
            let required: Vec<&str> = bo
                .get("required")
                .and_then(J::as_array)
                .map(|a| a.iter().filter_map(J::as_str).collect())
                .unwrap_or_default();
            let mut fields = vec![];
            let bprops = b.s.get("properties").and_then(J::as_object);
            for (pname, ps) in bprops.into_iter().flatten() {
                if pname == disc {
                    continue;
                }
                let hint = format!(
                    "{name}{}{}",
                    crate::naming::case(&tag, crate::naming::Case::Pascal),
                    crate::naming::case(pname, crate::naming::Case::Pascal)
                );
                let c = self.child(&b, ps, &format!("properties/{}", pointer_escape(pname)));
                let c = Node {
                    origin: format!("{}/oneOf/{i}/properties/{pname}", n.origin),
                    ..c
                };
                let (pt, pn) = self.type_of(&c, &hint)?;
                let pt = if pn || !required.contains(&pname.as_str()) {
                    Type::Optional(Box::new(pt))
                } else {
                    pt
                };
                fields.push(self.field(pname, &c, pt));
            }
            variants.push(Variant {
                tag,
                doc: doc_of(&bo),
                fields,
            });
        }
        if let Some(u) = self.project.unions.get_mut(name) {
            u.variants = variants;
        }
        Some(Type::Union(name.to_string()))
    }

    /// A field of `ty` from its schema `n`: documentation, foreign keys, default, identifier, groups and
    /// text role (from the schema, or its `$ref` target).
    pub fn field(&mut self, name: &str, n: &Node<'r>, ty: Type) -> Field {
        let ps = n.s;
        let target = if ps.get("$ref").is_some() {
            self.follow_quiet(n).map(|t| t.s)
        } else {
            None
        };
        let doc = ps
            .as_object()
            .map(doc_of)
            .filter(|d| !d.is_empty())
            .or_else(|| target.and_then(J::as_object).map(doc_of))
            .unwrap_or_default();
        let fks = self.value_fks(n, 0);
        let key_fks = match ps.get("x-gentable-mapKey") {
            Some(k) => {
                let c = self.child(n, k, "x-gentable-mapKey");
                self.value_fks(&c, 0)
            }
            None => match target.and_then(|t| t.get("x-gentable-mapKey")) {
                Some(k) => match self.follow_quiet(n) {
                    Some(t) => {
                        let c = self.child(&t, k, "x-gentable-mapKey");
                        self.value_fks(&c, 0)
                    }
                    None => vec![],
                },
                None => vec![],
            },
        };
        let default = self.default_of(n);
        Field {
            name: name.to_string(),
            ident: ps
                .get("x-gentable-name")
                .and_then(J::as_str)
                .map(String::from),
            ty,
            doc,
            foreign_keys: fks,
            key_foreign_keys: key_fks,
            default,
            groups: string_list(ps.get("x-gentable-groups")),
            text: ps
                .get("x-gentable-text")
                .and_then(J::as_bool)
                .unwrap_or(false),
            separator: separator_of(Some(ps)),
            item_separator: separator_of(
                ps.get("items").or_else(|| ps.get("additionalProperties")),
            ),
            aliases: string_list(ps.get("x-gentable-aliases")),
        }
    }

    /// The `x-gentable-foreignKey` of a value schema, wherever the schema puts it (docs/conventions.md §4): on
    /// the property, on the definition its `$ref` names, or below it on `items` (array elements, at any depth)
    /// or `additionalProperties` (map values). The first one found on that path applies to the scalars there.
    fn value_fks(&mut self, n: &Node<'r>, depth: usize) -> Vec<(String, Option<String>)> {
        if depth > 8 {
            return vec![];
        }
        let here = fk_targets(n.s.get("x-gentable-foreignKey"));
        if !here.is_empty() {
            return here;
        }
        let body = match n.s.get("$ref").and_then(|_| self.follow_quiet(n)) {
            Some(t) => {
                let there = fk_targets(t.s.get("x-gentable-foreignKey"));
                if !there.is_empty() {
                    return there;
                }
                t
            }
            None => n.clone(),
        };
        for below in ["items", "additionalProperties"] {
            if let Some(inner) = body.s.get(below).filter(|i| i.is_object()) {
                let c = self.child(&body, inner, below);
                let found = self.value_fks(&c, depth + 1);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        vec![]
    }

    /// The `default` of a property schema, or of the schema its `$ref` leads to (through up to 8 `$ref`s:
    /// `"V": {"$ref": "#/$defs/Far"}` with `Far` a `$ref` to `Ratio`, which holds the default).
    pub fn default_of(&mut self, n: &Node<'r>) -> Option<J> {
        let mut at = n.clone();
        for _ in 0..8 {
            if let Some(d) = at.s.get("default") {
                return Some(d.clone());
            }
            at.s.get("$ref")?;
            at = self.follow_quiet(&at)?;
        }
        None
    }

    /// Claim a generated type name for a definition; false (with an error) if another definition has it.
    fn register(&mut self, name: &str, origin: &str, file: &str) -> bool {
        match self.origins.get(name) {
            Some(o) if o != origin => {
                let o = o.clone();
                self.err(Code::InvalidSchema, file, format!("two definitions are both named {name}: {o} and {origin}; move one into $defs or give it a distinct \"title\""));
                false
            }
            Some(_) => true,
            None => {
                self.origins.insert(name.to_string(), origin.to_string());
                true
            }
        }
    }
}

/// The type of a value of both `a` and `b` (allOf): equal types, or the narrower of an integer and a
/// number, an optional and a plain one; `None` when they contradict.
fn meet(a: &(Type, bool), b: &(Type, bool)) -> Option<(Type, bool)> {
    let nullable = a.1 && b.1;
    let t = match (&a.0, &b.0) {
        (x, y) if x == y => x.clone(),
        (Type::Json, y) => y.clone(),
        (x, Type::Json) => x.clone(),
        (Type::Int(w), Type::Float) | (Type::Float, Type::Int(w)) => Type::Int(*w),
        (Type::Int(x), Type::Int(y)) => {
            let (xl, xh) = x.range();
            let (yl, yh) = y.range();
            Type::Int(IntWidth::for_bounds(Some(xl.max(yl)), Some(xh.min(yh))))
        }
        (Type::Enum(_), Type::String) => a.0.clone(),
        (Type::String, Type::Enum(_)) => b.0.clone(),
        _ => return None,
    };
    Some((t, nullable))
}

/// The type of a value of `a` or `b` (anyOf): equal types, the wider of an integer and a number; `None`
/// when only a JSON value holds both.
fn join(a: &(Type, bool), b: &(Type, bool)) -> Option<(Type, bool)> {
    let nullable = a.1 || b.1;
    let t = match (&a.0, &b.0) {
        (x, y) if x == y => x.clone(),
        (Type::Int(_), Type::Float) | (Type::Float, Type::Int(_)) => Type::Float,
        (Type::Int(x), Type::Int(y)) => {
            let (xl, xh) = x.range();
            let (yl, yh) = y.range();
            Type::Int(IntWidth::for_bounds(Some(xl.min(yl)), Some(xh.max(yh))))
        }
        (Type::Enum(_) | Type::String, Type::Enum(_) | Type::String) => Type::String,
        _ => return None,
    };
    Some((t, nullable))
}

/// An integral JSON number as an integer.
fn int_of(v: &J) -> Option<i128> {
    if let Some(i) = v.as_i64() {
        return Some(i as i128);
    }
    if let Some(u) = v.as_u64() {
        return Some(u as i128);
    }
    v.as_f64()
        .filter(|f| f.fract() == 0.0 && f.abs() < 1e38)
        .map(|f| f as i128)
}

/// `"a", "b" and "c"` for messages.
fn quote_list(ks: &[String]) -> String {
    if ks.is_empty() {
        return "the keywords".into();
    }
    crate::diag::list::and(ks.iter().map(|k| format!("\"{k}\"")))
}

/// The `type` keyword value for kinds inferred from one keyword family.
fn type_keyword(k: Kinds) -> &'static str {
    if k == Kinds::OBJ {
        "object"
    } else if k == Kinds::ARR {
        "array"
    } else if k == Kinds::STR {
        "string"
    } else if k == Kinds::INT {
        "integer"
    } else {
        "number"
    }
}

/// A member name as a JSON pointer segment (`~0`, `~1`).
fn pointer_escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// What is wrong with the `x-gentable-aliases` of a row's or a record's properties (`raw`: each property's
/// name and its keyword as written; `fields`: the typed fields, their aliases read): each must be a list of
/// distinct non-empty header texts without surrounding spaces or `.` (a header is trimmed before it is looked
/// up, and a dotted one names a record's field), and no alias may be another field's name or alias (the
/// column's field would depend on the order of the properties). Messages for [`Code::InvalidSchema`].
pub(crate) fn alias_errors<'a>(
    raw: impl Iterator<Item = (&'a str, &'a J)>,
    fields: &[Field],
) -> Vec<String> {
    let mut out = vec![];
    for (name, a) in raw {
        let ok = a.as_array().is_some_and(|a| {
            a.iter().enumerate().all(|(i, x)| {
                x.as_str().is_some_and(|s| {
                    !s.trim().is_empty() && s.trim() == s && !s.contains('.') && !a[..i].contains(x)
                })
            })
        });
        if !ok {
            out.push(format!(
                "x-gentable-aliases of {name:?} must be a list of distinct header texts, without surrounding spaces or '.', e.g. [\"名称\"]"
            ));
        }
    }
    for (i, f) in fields.iter().enumerate() {
        for a in &f.aliases {
            let clash = fields
                .iter()
                .enumerate()
                .find(|(j, g)| *j != i && (g.name == *a || (*j < i && g.aliases.contains(a))));
            if let Some((_, g)) = clash {
                out.push(format!(
                    "the alias {a:?} of {:?} is also the name or an alias of {:?}: a column headed {a:?} would name both",
                    f.name, g.name
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_in_words() {
        assert_eq!(Kinds::INT.or(Kinds::STR).words(), "an integer or a string");
        assert_eq!(
            Kinds::NUM.or(Kinds::BOOL).or(Kinds::NULL).words(),
            "null, a boolean or a number"
        );
        assert_eq!(Kinds::NONE.words(), "nothing");
    }

    #[test]
    fn meet_and_join() {
        let i = (Type::Int(IntWidth::I32), false);
        let f = (Type::Float, false);
        assert_eq!(meet(&i, &f), Some(i.clone()));
        assert_eq!(join(&i, &f), Some(f.clone()));
        assert_eq!(meet(&(Type::String, false), &i), None);
        assert_eq!(join(&(Type::String, false), &i), None);
    }
}
