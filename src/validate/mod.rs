//! **validate/** owns the checks on typed rows, in one ordered list ([`run`]). It may import the IR, schemas,
//! the configuration and diagnostics; never `emit/` or `build/`.
//!
//! Validation of typed tables, after [`crate::typing`]: one ordered list of checks ([`run`]), each pushing
//! [`Diagnostic`]s without stopping at the first.

use crate::config::LocalizationConfig;
use crate::diag::{Diagnostic, Severity};
use crate::ir::Project;
use crate::schema::{SchemaSet, TableSchema};
use std::collections::{BTreeMap, BTreeSet};

pub mod foreign_keys;
mod gaps;
pub mod json_schema;
pub mod keys;
pub mod native;
pub mod near_keys;
pub mod rules;
pub mod text;
pub mod unreferenced;
mod values;
pub mod views;

pub use gaps::Gaps;

/// Run every check, in this order:
/// 1. [`json_schema`]: each row of the checked tables against its JSON Schema (decided on the typed row by
///    [`native`]'s plan where it covers the table and the row passes; by `jsonschema` otherwise);
/// 2. [`keys`]: primary and unique keys of every table of `project` (sorts map tables by key), and
///    [`near_keys`]: keys of the checked tables that differ only by width, case or spaces (a warning);
/// 3. [`foreign_keys`]: references from the checked tables into every table of `project`;
/// 4. [`unreferenced`]: rows no reference names, where the schema asks (only when nothing is missing:
///    a failed cell may be the reference);
/// 5. [`text`]: localized text keys and translations (`[localization]`);
/// 6. [`views`]: the `x-gentable-view` pictures of every table (their paths against the project's types),
///    in full builds only: a view depends on the schemas alone, which a one-table rebuild has unchanged
///    since a clean build that checked them (and its `project` lacks the tables a view may name);
/// 7. [`rules`]: the CEL rules of the checked tables, only when 1–6 and everything before validation found
///    no error (rules read other tables through keys and references that must hold).
///
/// `gaps` says what typing could not establish ([`Gaps`]): the checks leave it out and report the rest.
///
/// `checked`: the tables whose rows changed (a one-table rebuild; `project` then also holds the tables they
/// reference), or `None` for every table. Returns the key digests of `project`'s tables
/// ([`foreign_keys::key_digests`]) when `digests` is asked for, computed from the index the reference check
/// built.
#[allow(clippy::too_many_arguments)]
pub fn run(
    project: &mut Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    checked: Option<&BTreeSet<String>>,
    localization: Option<&LocalizationConfig>,
    digests: bool,
    gaps: &Gaps,
    diags: &mut Vec<Diagnostic>,
) -> Option<BTreeMap<String, [u8; 32]>> {
    let in_scope = |name: &str| checked.is_none_or(|c| c.contains(name));
    let checked_schemas: Vec<TableSchema> = schemas
        .iter()
        .filter(|ts| in_scope(&ts.name))
        .cloned()
        .collect();
    json_schema::rows_parallel(project, set, &checked_schemas, diags);
    keys::check(project, gaps, diags);
    near_keys::check(project, &in_scope, diags);
    let index = foreign_keys::KeyIndex::new(project);
    foreign_keys::check(project, &index, set, checked, gaps, diags);
    let digests = digests.then(|| index.digests(project, schemas));
    if gaps.none() {
        unreferenced::check(project, set, schemas, diags);
    }
    text::check(project, localization, gaps, diags);
    if checked.is_none() {
        views::check(project, set, schemas, gaps, diags);
    }
    if gaps.none() && !diags.iter().any(|d| d.severity == Severity::Error) {
        rules::check(project, set, &checked_schemas, diags);
    }
    digests
}
