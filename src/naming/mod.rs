//! **naming/** owns the per-language identifier rules and keyword lists. It is a base module: it imports
//! no stage.
//!
//! Identifier naming: source names (headers, `$defs` keys, enum members) → identifiers per language.
//!
//! The rules are fixed and documented in docs/conventions.md §5:
//! 1. split into words at `_`, `-`, space, `.` and lower→upper case changes (digits stay with their word:
//!    `WeaponId0` → `weapon_id0`, `I8` → `i8`);
//! 2. characters outside `[A-Za-z0-9]` that are not separators become `uXXXX` words (`名字` → `u540d_u5b57`);
//! 3. case per language ([`Case`]);
//! 4. a leading digit gets a `_` prefix;
//! 5. a keyword of the target language gets a trailing `_`.
//!
//! Every emitter calls these functions; none invents its own rule. Collisions are detected by
//! [`check_collisions`].

pub mod files;
pub mod keywords;

pub use files::{collision_key, file_name, is_device};
pub use keywords::{
    CSHARP_KEYWORDS, RUST_KEYWORDS, RUST_PRELUDE_TYPES, RUST_RESERVED_MODULES, TS_GLOBALS,
    TS_KEYWORDS, WINDOWS_DEVICES,
};

/// Target case convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// `move_rule_lib`
    Snake,
    /// `MoveRuleLib`
    Pascal,
    /// `moveRuleLib`
    Camel,
    /// `MOVE_RULE_LIB`
    ScreamingSnake,
}

/// Target language (keyword sets differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Rust,
    CSharp,
    TypeScript,
}

/// Split a source name into ASCII words (rule 1 and 2).
pub fn words(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    let chars: Vec<char> = source.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if let Some(p) = prev {
                let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                let boundary = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                    // "HTTPServer" → HTTP, Server
                    || (p.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower);
                if boundary {
                    flush(&mut cur, &mut out);
                }
            }
            cur.push(c);
            prev = Some(c);
        } else if matches!(c, '_' | '-' | ' ' | '.' | '\t' | '/' | '\u{a0}') {
            flush(&mut cur, &mut out);
            prev = None;
        } else {
            flush(&mut cur, &mut out);
            out.push(format!("u{:04x}", c as u32));
            prev = None;
        }
    }
    flush(&mut cur, &mut out);
    out
}

fn capitalize(w: &str) -> String {
    let lower = w.to_ascii_lowercase();
    let mut cs = lower.chars();
    match cs.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
        None => String::new(),
    }
}

/// Apply a case to a source name (rules 1–4), without keyword escaping.
pub fn case(source: &str, case: Case) -> String {
    let ws = words(source);
    let mut s = match case {
        Case::Snake => ws
            .iter()
            .map(|w| w.to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join("_"),
        Case::ScreamingSnake => ws
            .iter()
            .map(|w| w.to_ascii_uppercase())
            .collect::<Vec<_>>()
            .join("_"),
        Case::Pascal => ws.iter().map(|w| capitalize(w)).collect(),
        Case::Camel => ws
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    w.to_ascii_lowercase()
                } else {
                    capitalize(w)
                }
            })
            .collect(),
    };
    if s.is_empty() {
        s.push_str("field");
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// Keyword escaping (rule 5): a trailing `_` when `ident` is a keyword of `lang`.
pub fn escape_keyword(ident: String, lang: Lang) -> String {
    let kws = match lang {
        Lang::Rust => RUST_KEYWORDS,
        Lang::CSharp => CSHARP_KEYWORDS,
        Lang::TypeScript => TS_KEYWORDS,
    };
    if kws.contains(&ident.as_str()) {
        ident + "_"
    } else {
        ident
    }
}

/// Full rule: `source` in `case`, escaped for `lang`. `override_ident` (from `x-gentable-name`) replaces the
/// case conversion but is still escaped.
pub fn ident(source: &str, override_ident: Option<&str>, c: Case, lang: Lang) -> String {
    let base = match override_ident {
        Some(o) => case(o, c),
        None => case(source, c),
    };
    escape_keyword(base, lang)
}

/// Rust field name (`snake_case`).
pub fn rust_field(source: &str, ov: Option<&str>) -> String {
    ident(source, ov, Case::Snake, Lang::Rust)
}
/// Rust type or enum variant name (`UpperCamelCase`).
pub fn rust_type(source: &str) -> String {
    let id = ident(source, None, Case::Pascal, Lang::Rust);
    if RUST_PRELUDE_TYPES.contains(&id.as_str()) {
        id + "_"
    } else {
        id
    }
}
/// Rust enum variant name (`UpperCamelCase`; variants are namespaced, so prelude names such as `None` stay).
pub fn rust_variant(source: &str) -> String {
    ident(source, None, Case::Pascal, Lang::Rust)
}

/// C# type, property or enum member name (`PascalCase`). A member equal to its enclosing type's name gets `_`.
pub fn csharp_member(source: &str, ov: Option<&str>, enclosing: &str) -> String {
    let id = ident(source, ov, Case::Pascal, Lang::CSharp);
    if id == enclosing {
        id + "_"
    } else {
        id
    }
}
/// C# type name (`PascalCase`).
pub fn csharp_type(source: &str) -> String {
    ident(source, None, Case::Pascal, Lang::CSharp)
}
/// A dotted C# namespace as written in generated code: every part that is a C# keyword gets the verbatim
/// prefix `@` (`game.int.items` → `game.@int.items`), which C# 7.2 accepts in namespace declarations and
/// qualified names alike.
pub fn csharp_namespace(ns: &str) -> String {
    ns.split('.')
        .map(|p| {
            if CSHARP_KEYWORDS.contains(&p) {
                format!("@{p}")
            } else {
                p.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// TypeScript property name (`camelCase`). Not keyword-escaped: every identifier name, reserved words
/// included, is a legal property name (`row.const`, `{ class: … }`; ECMAScript 2015 §12.2.6).
pub fn ts_field(source: &str, ov: Option<&str>) -> String {
    match ov {
        Some(o) => case(o, Case::Camel),
        None => case(source, Case::Camel),
    }
}
/// TypeScript parameter or variable name (`camelCase`, keywords escaped: `class` → `class_`).
pub fn ts_param(source: &str, ov: Option<&str>) -> String {
    ident(source, ov, Case::Camel, Lang::TypeScript)
}
/// TypeScript type name (`PascalCase`); a name of [`TS_GLOBALS`] gets a trailing `_` (`ReadonlyMap` →
/// `ReadonlyMap_`), so generated code never shadows the global it uses.
pub fn ts_type(source: &str) -> String {
    let id = ident(source, None, Case::Pascal, Lang::TypeScript);
    if TS_GLOBALS.contains(&id.as_str()) {
        id + "_"
    } else {
        id
    }
}

/// The Rust module (and `src/<module>.rs` file) of a table: [`rust_field`], then a trailing `_` for a name
/// of [`RUST_RESERVED_MODULES`], of `own` (the modules the Rust backend writes itself: `enums`, `types`,
/// …) or of a Windows device (`aux`, `con`: the file `aux.rs` cannot exist there), until it is none.
pub fn rust_module(table: &str, own: &[&str]) -> String {
    let mut m = rust_field(table, None);
    while RUST_RESERVED_MODULES.contains(&m.as_str()) || own.contains(&m.as_str()) || is_device(&m)
    {
        m.push('_');
    }
    m
}

/// Why `name` cannot be a table name, or `None`. A table name is the name of its data file
/// (`data/<name>.json`, which the C# and TypeScript loaders and the users' own loading code open by the
/// table's name) and becomes identifiers in every language, whose files (`<module>.rs`, `<Type>.cs`,
/// `<Type>.ts`) must fit a file system too: the name must pass [`files::component_problem`] (no path
/// separators, `..`, characters Windows forbids, control or bidirectional characters, leading or trailing
/// white space, a trailing dot or a Windows device name such as `Con` or `aux`), and every file made from it
/// must fit [`files::MAX_FILE_NAME`] bytes.
pub fn table_name_problem(name: &str) -> Option<String> {
    if let Some(why) = files::component_problem(name) {
        return Some(why);
    }
    let made = [
        format!("{name}.json"),
        format!("{}.rs", rust_module(name, &[])),
        format!("{}.cs", file_name(&csharp_type(name))),
        format!("{}.ts", file_name(&ts_type(name))),
    ];
    made.into_iter()
        .find(|f| f.len() > files::MAX_FILE_NAME)
        .map(|f| {
            format!(
                "the file {}… made from it would be {} bytes long, more than the {} a file name may have",
                f.chars().take(24).collect::<String>(),
                f.len(),
                files::MAX_FILE_NAME
            )
        })
}

/// Make a generated identifier distinct from `taken` (names already used in the same scope, e.g. a fixed API
/// member such as `Load`, or the user's fields when naming a synthetic member) by appending `_` until it is
/// free. Emitters use this for the few members they add next to user-named ones.
pub fn avoid(ident: String, taken: &[&str]) -> String {
    let mut id = ident;
    while taken.contains(&id.as_str()) {
        id.push('_');
    }
    id
}

/// Find identifiers that two different source names map to. Input: `(source name, identifier)` pairs;
/// output: `(first source, second source, identifier)` for every collision, in input order.
pub fn check_collisions<'a>(
    pairs: impl IntoIterator<Item = (&'a str, String)>,
) -> Vec<(String, String, String)> {
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (src, id) in pairs {
        match seen.get(&id) {
            Some(prev) if *prev != src => out.push((prev.to_string(), src.to_string(), id)),
            Some(_) => {}
            None => {
                seen.insert(id, src);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words() {
        assert_eq!(words("MoveRuleLib"), ["Move", "Rule", "Lib"]);
        assert_eq!(words("move_rule lib"), ["move", "rule", "lib"]);
        assert_eq!(words("HTTPServer2"), ["HTTP", "Server2"]);
        assert_eq!(words("WeaponId0"), ["Weapon", "Id0"]);
        assert_eq!(words("I8"), ["I8"]);
        assert_eq!(words("名字"), ["u540d", "u5b57"]);
    }

    #[test]
    fn cases() {
        assert_eq!(case("MoveRuleLib", Case::Snake), "move_rule_lib");
        assert_eq!(case("move_rule_lib", Case::Pascal), "MoveRuleLib");
        assert_eq!(case("MaxSteps", Case::Camel), "maxSteps");
        assert_eq!(case("3d", Case::Pascal), "_3d");
        assert_eq!(case("3D model", Case::Snake), "_3d_model");
        assert_eq!(case("名字", Case::Snake), "u540d_u5b57");
        assert_eq!(case("", Case::Snake), "field");
    }

    #[test]
    fn keywords_are_escaped_per_language() {
        assert_eq!(rust_field("type", None), "type_");
        assert_eq!(rust_field("self", None), "self_");
        assert_eq!(rust_field("move", None), "move_");
        assert_eq!(rust_type("Self"), "Self_");
        assert_eq!(rust_type("Option"), "Option_");
        assert_eq!(rust_type("String"), "String_");
        assert_eq!(rust_variant("None"), "None");
        assert_eq!(rust_type("SelfId"), "SelfId");
        assert_eq!(csharp_member("params", None, "Row"), "Params");
        assert_eq!(ident("params", None, Case::Camel, Lang::CSharp), "params_");
        assert_eq!(csharp_member("ToString", None, "Row"), "ToString_");
        assert_eq!(csharp_member("Row", None, "Row"), "Row_");
        // TypeScript properties may be reserved words; parameters may not.
        assert_eq!(ts_field("constructor", None), "constructor");
        assert_eq!(ts_field("delete", None), "delete");
        assert_eq!(ts_field("const", None), "const");
        assert_eq!(ts_field("Name", None), "name");
        assert_eq!(ts_param("delete", None), "delete_");
        assert_eq!(ts_param("class", Some("Class")), "class_");
    }

    #[test]
    fn csharp_namespaces_escape_keywords() {
        assert_eq!(csharp_namespace("game.int.items"), "game.@int.items");
        assert_eq!(
            csharp_namespace("FunnyPitch.GameConfig"),
            "FunnyPitch.GameConfig"
        );
        assert_eq!(csharp_namespace("class"), "@class");
    }

    #[test]
    fn avoid_appends_underscores_until_free() {
        assert_eq!(avoid("Key".into(), &["Id", "Name"]), "Key");
        assert_eq!(avoid("Key".into(), &["Key"]), "Key_");
        assert_eq!(avoid("Load".into(), &["Load", "Load_"]), "Load__");
    }

    #[test]
    fn collisions_name_both_sources() {
        let c = check_collisions([
            ("MaxSteps", "max_steps".to_string()),
            ("max steps", "max_steps".to_string()),
        ]);
        assert_eq!(
            c,
            vec![("MaxSteps".into(), "max steps".into(), "max_steps".into())]
        );
        assert!(check_collisions([("a", "a".to_string()), ("b", "b".to_string())]).is_empty());
    }
}
