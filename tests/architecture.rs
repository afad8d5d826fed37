//! The layout rules of docs/architecture.md, checked on the sources (`src/`):
//!
//! * the stages depend one way: `read → schema → typing → validate → emit → build`, over the shared base
//!   modules `config`, `diag`, `ir` and `naming`, which import no stage;
//! * in particular `emit/` never imports `read/`, `typing/`, `validate/` or `build/`; `validate/` never
//!   imports `emit/` or `build/`; `read/` never imports `schema/` or `typing/`;
//! * no import cycle between modules (files), at any depth;
//! * the designer's tools over a build (`TOOLS`) import the stages and the tools before them, and the library's
//!   command line (`cli`) imports everything while nothing imports it;
//! * `import/` (`gentable import luban`, `init`, `infer`) may import the base modules and every stage, and
//!   only the command line imports it;
//! * no `#[path]` mounts, and the command line (`src/main.rs`) stays thin.
//!
//! A dependency is any path that names a module of the crate: `use crate::a::b`, `crate::a::b::f(…)` in code,
//! `super::…` and `self::…` at the top of a file. Comment lines, `mod` declarations and `pub use`
//! re-exports are not dependencies (a parent owns its children). The parser is deliberately simple: it
//! reads the source text, not the syntax tree, so keep imports on `use` lines or spelled as full paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`["emit", "rust"]`) → source file.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                let mut m = prefix.to_vec();
                m.push(name.clone());
                if p.join("mod.rs").exists() {
                    out.insert(m.clone(), p.join("mod.rs"));
                }
                walk(&p, &m, out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                if stem == "mod" || (prefix.is_empty() && (stem == "lib" || stem == "main")) {
                    continue;
                }
                let mut m = prefix.to_vec();
                m.push(stem.to_string());
                out.insert(m, p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, &[], &mut out);
    out
}

/// Expand one level of braces: `a::{b::c, d}` → `a::b::c`, `a::d` (deeper groups keep their prefix only).
fn expand(path: &str) -> Vec<String> {
    let path = path.trim().trim_end_matches(';');
    match path.find('{') {
        None => vec![path.to_string()],
        Some(i) => {
            let head = &path[..i];
            let body = path[i + 1..].trim_end_matches('}');
            let mut out = vec![];
            let mut depth = 0;
            let mut start = 0;
            for (j, ch) in body.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(format!("{head}{}", body[start..j].trim()));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            out.push(format!("{head}{}", body[start..].trim()));
            out.into_iter()
                .map(|p| {
                    p.split('{')
                        .next()
                        .unwrap()
                        .trim_end_matches("::")
                        .to_string()
                })
                .collect()
        }
    }
}

/// The module that `segments` (absolute, below `crate`) names: its longest prefix that is a module.
fn resolve(mods: &BTreeMap<Vec<String>, PathBuf>, segments: &[String]) -> Option<Vec<String>> {
    (1..=segments.len())
        .rev()
        .map(|n| segments[..n].to_vec())
        .find(|p| mods.contains_key(p))
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(|s| {
            s.trim()
                .trim_start_matches('&')
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
                .to_string()
        })
        .take_while(|s| !s.is_empty() && s != "self" && s != "*")
        .collect()
}

/// The modules `module` (in `text`) depends on.
fn dependencies(
    mods: &BTreeMap<Vec<String>, PathBuf>,
    module: &[String],
    text: &str,
) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let mut add = |segs: Vec<String>| {
        if let Some(m) = resolve(mods, &segs) {
            if m != module {
                out.insert(m);
            }
        }
    };
    // `super` from the top level of this file names its parent; inside an inline `mod tests { … }` it names
    // this file's module (skipped).
    let parent: Vec<String> = module[..module.len().saturating_sub(1)].to_vec();
    let own: Vec<String> = module.to_vec();
    let mut depth: i64 = 0;
    let mut inline_at: Vec<i64> = vec![];
    let mut statement: Option<String> = None;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        let inline = !inline_at.is_empty();
        let opens_inline = {
            let u = t
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            u.starts_with("mod ") && u.trim_end().ends_with('{')
        };
        if opens_inline {
            inline_at.push(depth);
        }
        depth += t.matches('{').count() as i64 - t.matches('}').count() as i64;
        if inline_at.last().is_some_and(|d| depth <= *d) {
            inline_at.pop();
        }
        // A `use` statement, possibly over several lines.
        let stmt = match statement.take() {
            Some(mut s) => {
                s.push_str(t);
                s
            }
            None => {
                let u = t
                    .strip_prefix("pub(crate) use ")
                    .map(|r| ("pub", r))
                    .or_else(|| t.strip_prefix("pub use ").map(|r| ("pub", r)))
                    .or_else(|| t.strip_prefix("use ").map(|r| ("use", r)));
                match u {
                    // A re-export of a child (`pub use child::X`) names it for the parent's users: not a
                    // dependency. `pub use crate::…` re-exports another module and is one.
                    Some(("pub", r)) if !r.starts_with("crate::") && !r.starts_with("super::") => {
                        continue
                    }
                    Some((_, r)) => r.to_string(),
                    None => {
                        // Paths in code: every `crate::…` and `super::…` occurrence.
                        for (pat, base) in [("crate::", None), ("super::", Some(&parent))] {
                            for (i, _) in t.match_indices(pat) {
                                if i > 0
                                    && (t.as_bytes()[i - 1].is_ascii_alphanumeric()
                                        || t.as_bytes()[i - 1] == b':')
                                {
                                    continue;
                                }
                                let mut segs = match base {
                                    None => vec![],
                                    Some(_) if inline => continue,
                                    Some(b) => b.clone(),
                                };
                                segs.extend(segments(&t[i + pat.len()..]));
                                add(segs);
                            }
                        }
                        continue;
                    }
                }
            }
        };
        if !stmt.contains(';') {
            statement = Some(stmt);
            continue;
        }
        for p in expand(&stmt) {
            if let Some(rest) = p.strip_prefix("crate::") {
                add(segments(rest));
            } else if let Some(rest) = p.strip_prefix("super::") {
                if !inline {
                    let mut base = parent.clone();
                    base.extend(segments(rest));
                    add(base);
                }
            } else if let Some(rest) = p.strip_prefix("self::") {
                if !inline {
                    let mut base = own.clone();
                    base.extend(segments(rest));
                    add(base);
                }
            }
        }
    }
    out
}

const BASE: &[&str] = &["config", "diag", "ir", "naming"];
const STAGES: &[&str] = &["read", "schema", "typing", "validate", "emit", "build"];
/// The designer's tools over a build, in this order: each may import the base modules, every stage and the
/// tools before it.
const TOOLS: &[&str] = &["diff", "report", "watch"];
/// The command line: it may import everything; nothing imports it.
const CLI: &str = "cli";

/// Whether top-level module `from` may import top-level module `to`.
fn allowed(from: &str, to: &str) -> bool {
    if from == to || from == CLI || BASE.contains(&to) && !BASE.contains(&from) {
        return true;
    }
    if to == CLI {
        return false;
    }
    if let Some(f) = TOOLS.iter().position(|t| *t == from) {
        return STAGES.contains(&to) || TOOLS.iter().position(|t| *t == to).is_some_and(|t| t < f);
    }
    if BASE.contains(&from) {
        // The base modules import each other (not in a cycle) but never a stage.
        return BASE.contains(&to);
    }
    // `import/` (gentable import luban, init, infer) stands beside the pipeline: it may use every stage
    // (reading workbooks, schema helpers, the build to validate what it wrote); only the CLI imports it.
    if from == "import" {
        return STAGES.contains(&to);
    }
    if to == "import" {
        return false;
    }
    let (Some(f), Some(t)) = (
        STAGES.iter().position(|s| *s == from),
        STAGES.iter().position(|s| *s == to),
    ) else {
        return false;
    };
    let forbidden = matches!(
        (from, to),
        ("emit", "read" | "typing" | "validate" | "build")
            | ("validate", "emit" | "build")
            | ("read", "schema" | "typing")
    );
    t < f && !forbidden
}

fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    mods.iter()
        .map(|(m, path)| {
            let text = std::fs::read_to_string(path).unwrap();
            (m.clone(), dependencies(&mods, m, &text))
        })
        .collect()
}

#[test]
fn stages_depend_one_way() {
    let g = graph();
    let mut wrong = vec![];
    for (m, deps) in &g {
        for d in deps {
            if !allowed(&m[0], &d[0]) {
                wrong.push(format!("{} -> {}", m.join("::"), d.join("::")));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "wrong-way dependencies:\n{}",
        wrong.join("\n")
    );
    // The rules see real edges (a parser that found nothing would pass vacuously).
    let uses = |from: &str, to: &str| {
        g.iter()
            .any(|(m, deps)| m[0] == from && deps.iter().any(|d| d[0] == to))
    };
    assert!(uses("build", "emit") && uses("typing", "read") && uses("validate", "schema"));
    assert!(!allowed("emit", "validate") && !allowed("read", "typing") && !allowed("ir", "read"));
    assert!(allowed("cli", "build") && !allowed("build", "cli") && !allowed("diag", "cli"));
}

#[test]
fn no_import_cycles() {
    let g = graph();
    // Depth-first search; every back edge closes a cycle, and each is reported.
    fn visit(
        g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        m: &Vec<String>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for d in g.get(m).into_iter().flatten() {
            match state.get(d).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|x| x == d).unwrap();
                    let mut cycle: Vec<String> = stack[i..].iter().map(|x| x.join("::")).collect();
                    cycle.push(d.join("::"));
                    cycles.push(cycle.join(" -> "));
                }
                0 => visit(g, d, state, stack, cycles),
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
    }
    let mut state = BTreeMap::new();
    let mut cycles = vec![];
    for m in g.keys() {
        if state.get(m).copied().unwrap_or(0) == 0 {
            visit(&g, m, &mut state, &mut vec![], &mut cycles);
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
    assert!(g.len() > 20, "{} modules", g.len());
}

#[test]
fn no_path_mounts_and_a_thin_cli() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                assert!(
                    !text.contains("#[path"),
                    "{} mounts a module with #[path]",
                    p.display()
                );
            }
        }
    }
    let main = std::fs::read_to_string(src.join("main.rs")).unwrap();
    assert!(
        main.lines().count() < 150,
        "src/main.rs has {} lines",
        main.lines().count()
    );
}

#[test]
fn the_parser_finds_grouped_and_relative_imports() {
    let mut mods = BTreeMap::new();
    for m in [&["a"][..], &["a", "b"], &["a", "c"], &["d"]] {
        mods.insert(
            m.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            PathBuf::new(),
        );
    }
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let text = "use crate::a::{b::X, c};\nuse super::c::Y;\nfn f() { crate::d::g(); }\n// crate::a::b\nmod tests {\n    use super::*;\n}\n";
    let deps = dependencies(&mods, &v(&["a", "b"]), text);
    assert_eq!(deps, [v(&["a", "c"]), v(&["d"])].into_iter().collect());
    let deps = dependencies(
        &mods,
        &v(&["d"]),
        "pub use crate::a::b::X;\nuse self::q;\npub use child::Z;\n",
    );
    assert_eq!(deps, [v(&["a", "b"])].into_iter().collect());
}
