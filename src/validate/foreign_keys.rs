//! Foreign keys (`x-gentable-foreignKey`): every value of a foreign-key field (plain, array elements, fields
//! of nested records and polymorphic records, map keys and values) must be a key of the target table; a miss
//! is GT0304 at the value's own cell with the closest keys as a hint, a declaration naming no usable target is
//! GT0305 at the schema. References into a table not all of whose rows are known are not checked, and a cell
//! that failed to type is not a reference ([`super::gaps::Gaps`]).

use super::values::{all_fields, collect_atoms, each_reference, Reference};
use crate::diag::{Code, Diagnostic};
use crate::ir::Project;
use crate::schema::{SchemaSet, TableSchema};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Hints ("did you mean") are computed for at most this many missing references per field, so that
/// 10,000 broken references stay linear; the rest get a generic help.
const MAX_HINTS_PER_FIELD: usize = 200;

/// Key sets of foreign key targets: `(table, field)` → the text of every value (None: no such target).
type KeySets<'a> = HashMap<(&'a str, Option<&'a str>), Option<(HashSet<String>, Vec<String>)>>;

fn key_sets(project: &Project) -> KeySets<'_> {
    let mut sets: KeySets = HashMap::new();
    for f in all_fields(project) {
        for (tt, tf) in f.foreign_keys.iter().chain(&f.key_foreign_keys) {
            sets.entry((tt.as_str(), tf.as_deref()))
                .or_insert_with(|| target_values(project, tt, tf.as_deref()));
        }
    }
    sets
}

/// The values of target `(table, field)` (`field` `None`: the single-field primary key) in row order, as a
/// set and as a list; `None` when the project has no such table or field.
fn target_values(
    project: &Project,
    table: &str,
    field: Option<&str>,
) -> Option<(HashSet<String>, Vec<String>)> {
    let t = project.table(table)?;
    let fi = match field {
        Some(f) => t.field_index(f)?,
        None if t.primary_key.len() == 1 => t.primary_key[0],
        None => return None,
    };
    let mut list = vec![];
    for r in &t.rows {
        collect_atoms(&r.values[fi], &mut list);
    }
    Some((list.iter().cloned().collect(), list))
}

/// Per table, BLAKE3 over what other tables' foreign keys can see of it: for every foreign-key target
/// `(table, field)` declared anywhere in the project (the fields of every table's schema in `schemas`,
/// whether or not the table was typed, and record and union fields), the target's values in row order, as
/// [`check`] lists them for checks and hints. Equal digests mean every reference into the table checks out,
/// and is reported, exactly as before (the one-table rebuild, [`crate::build::plan`]).
pub fn key_digests(project: &Project, schemas: &[TableSchema]) -> BTreeMap<String, [u8; 32]> {
    KeyIndex::new(project).digests(project, schemas)
}

/// The key sets of every foreign-key target of a project (per `(table, field)`: the values as text, as a set
/// for checks and in row order for hints and digests), built once for [`check`] and
/// [`KeyIndex::digests`].
pub struct KeyIndex<'a>(KeySets<'a>);

impl<'a> KeyIndex<'a> {
    pub fn new(project: &'a Project) -> KeyIndex<'a> {
        KeyIndex(key_sets(project))
    }

    /// [`key_digests`] of `project`, the project this index was built from. The targets are taken from
    /// `schemas` as well as from `project`: a one-table rebuild types only the rebuilt tables and those they
    /// reference, so the tables that reference a rebuilt one are not in `project`, yet their foreign keys
    /// are part of what the full build's digest covered.
    pub fn digests(
        &self,
        project: &Project,
        schemas: &[TableSchema],
    ) -> BTreeMap<String, [u8; 32]> {
        let mut targets: BTreeSet<(&str, Option<&str>)> = self.0.keys().copied().collect();
        for f in schemas.iter().flat_map(|ts| ts.fields.iter()) {
            for (tt, tf) in f.foreign_keys.iter().chain(&f.key_foreign_keys) {
                targets.insert((tt.as_str(), tf.as_deref()));
            }
        }
        let mut out: BTreeMap<String, blake3::Hasher> = project
            .tables
            .iter()
            .map(|t| (t.name.clone(), blake3::Hasher::new()))
            .collect();
        for (table, field) in targets {
            let Some(h) = out.get_mut(table) else {
                continue;
            };
            let computed;
            let s = match self.0.get(&(table, field)) {
                Some(s) => s,
                None => {
                    computed = target_values(project, table, field);
                    &computed
                }
            };
            h.update(field.unwrap_or("\u{0}").as_bytes());
            h.update(b"\0");
            match s {
                None => {
                    h.update(b"-");
                }
                Some((_, list)) => {
                    h.update(&(list.len() as u64).to_le_bytes());
                    for v in list {
                        h.update(&(v.len() as u64).to_le_bytes());
                        h.update(v.as_bytes());
                    }
                }
            }
        }
        out.into_iter()
            .map(|(k, h)| (k, *h.finalize().as_bytes()))
            .collect()
    }
}

/// A "did you mean" candidate as shown in a hint: quoted, and when it looks the same as the missing value
/// (they differ only in characters that do not show: white space, zero-width or control characters), with
/// the invisible characters escaped so the designer can see the difference.
fn shown(candidate: &str, missing: &str) -> String {
    let visible = |s: &str| -> String {
        s.chars()
            .filter(|c| {
                !c.is_whitespace()
                    && !c.is_control()
                    && !matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}')
            })
            .collect()
    };
    if visible(candidate) != visible(missing) || candidate == missing {
        return format!("{candidate:?}");
    }
    let esc = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c == ' '
                    || (!c.is_whitespace()
                        && !c.is_control()
                        && !matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}'))
                {
                    c.to_string()
                } else {
                    format!("\\u{{{:04x}}}", c as u32)
                }
            })
            .collect()
    };
    format!(
        "{candidate:?} (it differs only in invisible characters: \"{}\" here, \"{}\" in the cell)",
        esc(candidate),
        esc(missing)
    )
}

/// Up to `n` candidates close to `needle` (case-insensitive match first, then Jaro–Winkler ≥ 0.7).
pub fn closest_n<'a>(
    needle: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let lower = needle.to_lowercase();
    let mut scored: Vec<(&str, f64)> = candidates
        .into_iter()
        .filter_map(|c| {
            let cl = c.to_lowercase();
            let score = if cl == lower {
                2.0
            } else {
                strsim::jaro_winkler(&lower, &cl)
            };
            (score >= 0.7).then_some((c, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    scored.dedup_by(|a, b| a.0 == b.0);
    scored.into_iter().take(n).map(|(c, _)| c).collect()
}

/// Check the foreign keys with the project's [`KeyIndex`], checking only the references made by the tables in
/// `from` (all when `None`, a one-table rebuild's tables otherwise, [`crate::build::plan`]); the targets may
/// be any table of `project`.
pub fn check(
    project: &Project,
    index: &KeyIndex,
    set: &SchemaSet,
    from: Option<&BTreeSet<String>>,
    gaps: &super::gaps::Gaps,
    diags: &mut Vec<Diagnostic>,
) {
    let sets = &index.0;
    let mut bad_decl: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut hints: HashMap<(String, String), usize> = HashMap::new();
    let mut folded: HashMap<usize, HashMap<String, String>> = HashMap::new();
    // Tables with rows whose key failed to type: a miss may be one of those keys, and the help says so.
    let keyless: HashMap<&str, usize> = project
        .tables
        .iter()
        .map(|t| {
            let n = t
                .rows
                .iter()
                .filter(|r| t.primary_key.iter().any(|&i| r.failed(i)))
                .count();
            (t.name.as_str(), n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    each_reference(project, &mut |r: Reference| {
        let (t, field, row, a, path) = (r.table, r.field, r.row, r.atom, r.path);
        if from.is_some_and(|from| !from.contains(&t.name)) {
            return;
        }
        let mut targets = vec![];
        for (tt, tf) in r.targets {
            // A table whose rows are not all known (or may live in a file that could not be read).
            if gaps.tables.contains(tt) || (gaps.unread_files && project.table(tt).is_none()) {
                return;
            }
            match sets
                .get(&(tt.as_str(), tf.as_deref()))
                .and_then(|s| s.as_ref())
            {
                Some(s) => targets.push((tt.as_str(), s)),
                None => {
                    let target = format!(
                        "{tt}{}",
                        tf.as_ref().map(|f| format!(".{f}")).unwrap_or_default()
                    );
                    if bad_decl.insert((t.schema_file.clone(), field.name.clone(), target.clone()))
                    {
                        diags.push(Diagnostic::file_error(
                            Code::BadForeignKey,
                            set.rel(&t.schema_file),
                            format!(
                                "{}.{}: x-gentable-foreignKey names {target}, which is not a table with a single-field primary key or an existing field",
                                t.name, field.name,
                            ),
                        ));
                    }
                    return;
                }
            }
        }
        if targets.iter().any(|(_, (set, _))| set.contains(&a)) {
            return;
        }
        let names: Vec<&str> = targets.iter().map(|(n, _)| *n).collect();
        let mut d = Diagnostic::cell_error(
            Code::MissingReference,
            &row.origin,
            r.column,
            Some(&field.name),
            Some(&a),
            format!(
                "{a:?}{path} is not a key of {}",
                crate::diag::list::or(&names)
            ),
        );
        let n = hints
            .entry((t.name.clone(), field.name.clone()))
            .or_default();
        *n += 1;
        // The same key written differently (width, case, spaces): say so. Each target's keys are folded
        // once, at its first miss.
        let same = (*n <= MAX_HINTS_PER_FIELD)
            .then(|| {
                let f = crate::diag::hint::fold(&a);
                targets.iter().find_map(|(_, (_, l))| {
                    // Keyed by the key list itself: one table may be the target through several fields.
                    let map = folded.entry(l as *const _ as usize).or_insert_with(|| {
                        let mut m = HashMap::new();
                        for k in l {
                            m.entry(crate::diag::hint::fold(k))
                                .or_insert_with(|| k.clone());
                        }
                        m
                    });
                    let k = map.get(&f)?;
                    crate::diag::hint::differences(&a, k).map(|how| (k.clone(), how))
                })
            })
            .flatten();
        if let Some((k, how)) = same {
            diags.push(d.with_help(format!(
                "{a:?} differs from the key {k:?} only by {}: write {k:?}",
                crate::diag::hint::words(&how)
            )));
            return;
        }
        let close = if *n <= MAX_HINTS_PER_FIELD {
            closest_n(
                &a,
                targets
                    .iter()
                    .flat_map(|(_, (_, l))| l.iter().map(|s| s.as_str())),
                3,
            )
        } else {
            vec![]
        };
        let unread: usize = names.iter().filter_map(|n| keyless.get(n)).sum();
        let close: Vec<String> = close.into_iter().map(|c| shown(c, &a)).collect();
        d = match close.as_slice() {
            _ if unread > 0 => d.with_help(format!(
                "{} has {unread} row{} whose key could not be read (see those errors): it may be one of them; else add a row with this key, or fix the reference",
                crate::diag::list::or(&names),
                if unread == 1 { "" } else { "s" }
            )),
            [] => d.with_help(format!(
                "add a row with this key to {}, or fix the reference",
                crate::diag::list::or(&names)
            )),
            [one] => d.with_help(format!("did you mean {one}?")),
            [one, rest @ ..] => d.with_help(format!(
                "did you mean {one}? (also close: {})",
                crate::diag::list::series(rest)
            )),
        };
        diags.push(d);
    });
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn a_hint_that_looks_like_the_cell_shows_the_difference() {
        assert_eq!(shown("Archer", "Archr"), "\"Archer\"");
        assert_eq!(
            shown("Archer", "Archer\u{200b}"),
            "\"Archer\" (it differs only in invisible characters: \"Archer\" here, \"Archer\\u{200b}\" in the cell)"
        );
        assert!(shown("a b", "a\u{a0}b").contains("\\u{00a0}"));
    }
}
