//! What the importer reads from a Luban project, before it is mapped: luban.conf, the definitions (XML and
//! the `__tables__`/`__beans__`/`__enums__` workbooks, `##var`/`##type` rows) and where each came from.
//!
//! Luban's terms throughout: a *bean* is a record type (with `parent` beans: polymorphic), a *table* reads
//! *input* files into rows of one bean, *groups* (`c`, `s`, `e`) select what a *target* exports.

/// Where a definition was written: the Luban file (relative to the folder of luban.conf) and, for
/// workbooks, the sheet and the A1 cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub sheet: Option<String>,
    /// 1-based row, 0 = the whole file.
    pub row: usize,
    /// 0-based column.
    pub col: Option<usize>,
}

/// One enum item (`<var name alias value>`).
#[derive(Clone, Debug)]
pub struct EnumItem {
    pub name: String,
    pub alias: Option<String>,
    /// As written (`1`, `0x10`, `WRITE|READ`); `None` = previous + 1.
    pub value: Option<String>,
    pub comment: String,
}

/// `<enum>` or an `__enums__.xlsx` row group.
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// `module.Name` (module may be empty).
    pub full: String,
    pub flags: bool,
    pub items: Vec<EnumItem>,
    pub comment: String,
    pub place: Place,
}

/// One `<var>` of a bean: a field.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    /// Luban type text, e.g. `(list#sep=;),DemoE2#sep=,`.
    pub ty: String,
    pub group: Vec<String>,
    pub comment: String,
    /// `alias=`: another header text that names the field's column (`x-gentable-aliases`).
    pub alias: Option<String>,
    /// `variants=` and other attributes the importer cannot map (reported).
    pub unmapped: Vec<String>,
    pub place: Place,
}

/// `<bean>` or an `__beans__.xlsx` row group.
#[derive(Clone, Debug)]
pub struct BeanDef {
    pub full: String,
    /// `parent=` (resolved to a full name later) or the enclosing `<bean>`.
    pub parent: Option<String>,
    pub sep: Option<String>,
    pub alias: Option<String>,
    pub vars: Vec<Var>,
    pub comment: String,
    pub place: Place,
}

/// `<table>` or an `__tables__.xlsx` row, or an auto-import `#Name.xlsx` workbook.
#[derive(Clone, Debug)]
pub struct TableDef {
    pub full: String,
    /// The bean of a row (full or module-relative name).
    pub value: String,
    pub index: String,
    pub mode: String,
    /// Inputs as written: `sheet@file`, `file`, `dir`, `*sheet@file.json`.
    pub input: Vec<String>,
    pub group: Vec<String>,
    pub comment: String,
    /// `readSchemaFromFile`: the bean is defined by the sheet's `##var`/`##type` rows.
    pub schema_from_file: bool,
    pub place: Place,
}

/// `<refgroup name ref>`: a `ref=` target naming several tables.
#[derive(Clone, Debug)]
pub struct RefGroup {
    pub full: String,
    pub tables: Vec<String>,
}

/// `luban.conf`'s `targets` entry.
#[derive(Clone, Debug)]
pub struct Target {
    pub name: String,
    pub groups: Vec<String>,
}

/// Everything read from a Luban project.
#[derive(Clone, Debug, Default)]
pub struct Luban {
    /// The `groups` of luban.conf: `(names, default)`.
    pub groups: Vec<(Vec<String>, bool)>,
    pub targets: Vec<Target>,
    /// `dataDir`, relative to the folder of luban.conf.
    pub data_dir: String,
    pub enums: Vec<EnumDef>,
    pub beans: Vec<BeanDef>,
    pub tables: Vec<TableDef>,
    pub refgroups: Vec<RefGroup>,
    /// `<constalias>` names (reported: cells naming them are not resolved).
    pub constaliases: Vec<String>,
}

/// The module part of a full name (`test` of `test.DemoType1`).
pub fn module_of(full: &str) -> &str {
    full.rsplit_once('.').map_or("", |(m, _)| m)
}

/// The name part of a full name (`DemoType1` of `test.DemoType1`).
pub fn name_of(full: &str) -> &str {
    full.rsplit_once('.').map_or(full, |(_, n)| n)
}

/// `module.name`, or `name` in the root module.
pub fn join(module: &str, name: &str) -> String {
    if module.is_empty() {
        name.to_string()
    } else {
        format!("{module}.{name}")
    }
}
