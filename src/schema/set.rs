//! The schema folder: every `*.schema.json` file, read once, and the registry that resolves `$ref`s between
//! them (and to their `$id`s and `$anchor`s) exactly as the `jsonschema` validator does. Files are
//! registered under [`BASE_URI`] with their `$ref`s' file parts percent-encoded; nothing is ever fetched.

use crate::diag::{Code, Diagnostic};
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// All schema files of the schema folder, by file name.
#[derive(Clone, Debug)]
pub struct SchemaSet {
    pub files: BTreeMap<String, J>,
    /// Folder, relative to the project root (for diagnostics).
    pub dir_rel: String,
    /// The registry of `files`, built on first use ([`SchemaSet::registry`]).
    registry: Registry,
    /// Whether rows' `format`s are checked (`[validation] formats`, default on).
    pub formats: bool,
    /// The text of each file of `files` read from the folder: typing looks for number literals in its
    /// `default`s that would not ship as written (the parsed JSON holds only the double they round to).
    pub texts: BTreeMap<String, String>,
}

/// A prepared [`referencing::Registry`] of the schema files (or why it cannot be built: a `$ref` to a
/// resource that is not in the folder, for example).
#[derive(Clone, Default)]
struct Registry(OnceLock<Result<Arc<referencing::Registry<'static>>, String>>);

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Registry")
    }
}

/// Base URI under which schema files are registered for `jsonschema` (never fetched).
pub const BASE_URI: &str = "file:///gentable/schema/";

impl Default for SchemaSet {
    fn default() -> Self {
        SchemaSet::new(BTreeMap::new(), "")
    }
}

impl SchemaSet {
    /// A set of `files` (name → JSON) in the folder `dir_rel`.
    pub fn new(files: BTreeMap<String, J>, dir_rel: &str) -> SchemaSet {
        SchemaSet {
            files,
            dir_rel: dir_rel.to_string(),
            registry: Registry::default(),
            formats: true,
            texts: BTreeMap::new(),
        }
    }

    /// The registry of every file (registered under [`schema_uri`], `$ref`s encoded by [`encode_refs`]),
    /// prepared once. `Err`: the reason it cannot be prepared (a `$ref` to a resource outside the folder).
    pub fn registry(&self) -> Result<&referencing::Registry<'static>, String> {
        let r = self.registry.0.get_or_init(|| {
            let mut builder = referencing::Registry::new().draft(referencing::Draft::Draft202012);
            for (name, doc) in &self.files {
                builder = builder
                    .add(schema_uri(name), encode_refs(doc))
                    .map_err(|e| format!("{name}: {e}"))?;
            }
            builder.prepare().map(Arc::new).map_err(|e| e.to_string())
        });
        match r {
            Ok(r) => Ok(r),
            Err(e) => Err(e.clone()),
        }
    }

    /// The schema file a base URI of the registry belongs to (`None` for a resource named by its own
    /// `$id` elsewhere).
    pub fn file_of_uri(&self, uri: &str) -> Option<String> {
        let rest = uri.strip_prefix(BASE_URI)?;
        let rest = rest.split('#').next().unwrap_or(rest);
        let name = percent_decode(rest);
        self.files.contains_key(&name).then_some(name)
    }

    /// Path of a schema file for diagnostics.
    pub fn rel(&self, file: &str) -> String {
        if self.dir_rel.is_empty() || self.dir_rel == "." {
            file.to_string()
        } else {
            format!("{}/{file}", self.dir_rel)
        }
    }
}

/// Read every `*.json` file of `dir` (not recursive). Unparsable files are errors.
pub fn load_dir(dir: &Path, dir_rel: &str) -> Result<SchemaSet, Vec<Diagnostic>> {
    let mut set = SchemaSet::new(BTreeMap::new(), dir_rel);
    let mut diags = vec![];
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            return Err(vec![Diagnostic::file_error(
                Code::ProjectLayout,
                dir_rel,
                format!("cannot read schema folder: {e}"),
            )])
        }
    };
    let mut names: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        if !name.ends_with(".json")
            || name == "gentable.toml.schema.json"
            || name == "gentable.meta.schema.json"
        {
            continue;
        }
        let rel = set.rel(&name);
        match std::fs::read_to_string(dir.join(&name)) {
            Ok(text) => match serde_json::from_str::<J>(&text) {
                Ok(v) => {
                    set.files.insert(name.clone(), v);
                    set.texts.insert(name, text);
                }
                Err(e) => diags.push(Diagnostic::file_error(
                    Code::UnreadableSchema,
                    rel,
                    format!("schema is not valid JSON: {e}"),
                )),
            },
            Err(e) => diags.push(Diagnostic::file_error(
                Code::UnreadableSchema,
                rel,
                format!("cannot read schema: {e}"),
            )),
        }
    }
    if diags.is_empty() {
        Ok(set)
    } else {
        Err(diags)
    }
}

/// Percent-encode a schema file name (RFC 3986: everything but unreserved characters and `/`), so that
/// non-ASCII or spaced names (`道具.schema.json`, `Move Rule.schema.json`) form valid URIs.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether a reference starts with a URI scheme (`http:`, `urn:`, `tag:`…): an absolute URI, not a file of
/// the schema folder.
pub fn has_scheme(r: &str) -> bool {
    match r.find(':') {
        Some(i) if i > 0 => {
            let (scheme, _) = r.split_at(i);
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}

/// Where the first `$ref` whose value contains `needle` is written: `(file, JSON pointer)`.
pub fn find_ref(files: &BTreeMap<String, J>, needle: &str) -> Option<(String, String)> {
    fn walk(v: &J, path: &mut String, needle: &str) -> Option<String> {
        match v {
            J::Object(m) => {
                if let Some(J::String(r)) = m.get("$ref") {
                    if r.contains(needle) || percent_encode(r).contains(needle) {
                        return Some(path.clone());
                    }
                }
                for (k, x) in m {
                    let len = path.len();
                    path.push('/');
                    path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    if let Some(p) = walk(x, path, needle) {
                        return Some(p);
                    }
                    path.truncate(len);
                }
                None
            }
            J::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    if let Some(p) = walk(x, path, needle) {
                        return Some(p);
                    }
                    path.truncate(len);
                }
                None
            }
            _ => None,
        }
    }
    files.iter().find_map(|(name, doc)| {
        let mut path = String::new();
        walk(doc, &mut path, needle).map(|p| (name.clone(), p))
    })
}

/// Undo [`percent_encode`] (and any other `%XX` escape); invalid UTF-8 is kept as written.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or(""), 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// The URI under which schema file `file` is registered for `jsonschema` (see [`BASE_URI`]).
pub fn schema_uri(file: &str) -> String {
    format!("{BASE_URI}{}", percent_encode(file))
}

/// A copy of `v` whose `$ref` values have their file part percent-encoded (the fragment is kept), so that
/// `jsonschema` resolves references to non-ASCII file names exactly as [`SchemaSet`] does.
pub fn encode_refs(v: &J) -> J {
    match v {
        J::Object(m) => J::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("$ref", J::String(r)) => {
                            let (file, frag) = r
                                .split_once('#')
                                .map(|(f, g)| (f, Some(g)))
                                .unwrap_or((r.as_str(), None));
                            let file = if has_scheme(file) {
                                file.to_string()
                            } else {
                                percent_encode(file)
                            };
                            J::String(match frag {
                                Some(g) => format!("{file}#{g}"),
                                None => file,
                            })
                        }
                        _ => encode_refs(x),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        J::Array(a) => J::Array(a.iter().map(encode_refs).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod uri_tests {
    use super::*;

    #[test]
    fn file_names_become_valid_uris() {
        assert_eq!(
            schema_uri("Move Rule.schema.json"),
            "file:///gentable/schema/Move%20Rule.schema.json"
        );
        assert_eq!(percent_encode("道具"), "%E9%81%93%E5%85%B7");
        let v = serde_json::json!({"properties": {"a": {"$ref": "道具.schema.json#/$defs/X"}, "b": {"$ref": "#/$defs/Y"}}});
        let e = encode_refs(&v);
        assert_eq!(
            e["properties"]["a"]["$ref"],
            "%E9%81%93%E5%85%B7.schema.json#/$defs/X"
        );
        assert_eq!(e["properties"]["b"]["$ref"], "#/$defs/Y");
    }
}
