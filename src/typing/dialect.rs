//! Which grammar a field's cell is read with (docs/conventions.md §3): the standard cell grammar, or, in a
//! `cell_dialect = "luban"` table (and for fields with an `x-gentable-separator`), Luban's stream form and
//! scalar forms. Shared by horizontal and vertical sheets.

use crate::ir::{Project, Type, Value};
use crate::read::RawCell;
use crate::typing::cell::{self, type_cell_with, CellError};
use crate::typing::layout::Layout;

/// Type one cell of field `f` in `layout`: Luban's stream form for compound fields of a `cell_dialect =
/// "luban"` table (or any field with a separator), Luban's scalar forms (`""`, `0x200`, `1999-8-4`) in such
/// tables, else the standard cell grammar (docs/conventions.md §3). Used by horizontal and vertical sheets.
pub fn type_field_cell(
    project: &Project,
    f: &crate::ir::Field,
    raw: &RawCell,
    layout: &Layout,
) -> Result<Value, CellError> {
    let sep = layout.grammar();
    if stream_form(layout, f) {
        cell::stream::parse_field(&raw.text(), f, project, layout.null_text.as_deref())
    } else if let (true, RawCell::Text(t)) = (layout.luban, raw) {
        // Luban's `""` (the empty string) and one-digit date parts (`1999-8-4`).
        match f.ty.strip_optional() {
            Type::String => Ok(Value::Str(cell::stream::luban_string(t.to_string()).into())),
            Type::DateTime(_) => type_cell_with(
                project,
                &f.ty,
                &RawCell::Text(cell::stream::luban_datetime(cell::trim(t)).into()),
                sep,
            ),
            base @ (Type::Int(_) | Type::Flags(_)) => type_cell_with(
                project,
                &f.ty,
                &RawCell::Text(cell::stream::luban_scalar(cell::trim(t), base).into()),
                sep,
            ),
            _ => type_cell_with(project, &f.ty, raw, sep),
        }
    } else {
        type_cell_with(project, &f.ty, raw, sep)
    }
}

/// Whether field `f` is read in Luban's stream form: a compound field of a `cell_dialect = "luban"` table, or
/// any field with an `x-gentable-separator`.
pub fn stream_form(layout: &Layout, f: &crate::ir::Field) -> bool {
    let compound = matches!(
        f.ty.strip_optional(),
        Type::Array(_) | Type::Map(..) | Type::Record(_) | Type::Union(_)
    );
    compound && (layout.luban || f.separator.is_some() || f.item_separator.is_some())
}
