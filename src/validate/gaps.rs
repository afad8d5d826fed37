//! What reading and typing could not establish ([`Gaps`]), shared by the checks of [`super`].

use std::collections::BTreeSet;

/// What reading and typing could not establish, so that validation checks everything else in the same run
/// (docs/diagnostics.md "What is checked"): a failed cell is left out of every check (its row's
/// [`crate::ir::RowExtra::failed`]), references into a table not all of whose rows are known are not
/// reported as missing, and the checks that need a whole valid project (unreferenced rows, rules) wait.
#[derive(Clone, Debug, Default)]
pub struct Gaps {
    /// Tables not all of whose sources were typed (no header row, a header that does not fit the schema, a
    /// schema that does not build).
    pub tables: BTreeSet<String>,
    /// Some table file could not be read at all: which tables it holds is unknown.
    pub unread_files: bool,
    /// Some error was found before validation (a failed cell, a schema, a file).
    pub failed_cells: bool,
}

impl Gaps {
    /// Whether nothing is missing: every table and every cell is known.
    pub fn none(&self) -> bool {
        self.tables.is_empty() && !self.unread_files && !self.failed_cells
    }
}
