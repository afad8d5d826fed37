//! The project file `gentable.toml` (docs/conventions.md §1).
//!
//! Its JSON Schema, `schema/gentable.toml.schema.json`, is generated from these types with `schemars`
//! (`gentable config-schema`), so editors complete and check the file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The whole `gentable.toml`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub project: ProjectConfig,
    #[serde(default)]
    pub rust: RustConfig,
    #[serde(default)]
    pub csharp: CSharpConfig,
    #[serde(default)]
    pub typescript: TypeScriptConfig,
    /// Per-table reading overrides, keyed by table name.
    #[serde(default)]
    pub tables: BTreeMap<String, TableOverride>,
    /// Export group names (`x-gentable-groups`).
    #[serde(default)]
    pub groups: GroupsConfig,
    /// Localized texts (`x-gentable-text`).
    #[serde(default)]
    pub localization: Option<LocalizationConfig>,
    /// Resource limits on what gentable reads (docs/conventions.md §1 "Limits").
    #[serde(default)]
    pub limits: Limits,
    /// How rows are validated against their JSON Schemas.
    #[serde(default)]
    pub validation: ValidationConfig,
    /// The 1-based line of `gentable.toml` where each `[tables.X]` override starts (see [`override_lines`]),
    /// for the diagnostics about an override. Not a setting.
    #[serde(skip)]
    #[schemars(skip)]
    pub override_lines: BTreeMap<String, usize>,
}

/// The 1-based line where each table override of the TOML text `text` starts: a `[tables.X]` or
/// `[tables."X"]` header, or a key `X = {...}` / `X.files = ...` under a `[tables]` header. Overrides
/// written otherwise are not listed (their diagnostics then name the file alone).
pub fn override_lines(text: &str) -> BTreeMap<String, usize> {
    /// The first key of `s` (bare or a basic/literal string) and what follows it.
    fn key(s: &str) -> Option<(String, &str)> {
        let s = s.trim_start();
        let (k, rest) = if let Some(q) = s.strip_prefix('"') {
            // The closing quote: one not escaped by a backslash.
            let mut escaped = false;
            let end = q.char_indices().find_map(|(i, c)| match c {
                '"' if !escaped => Some(i),
                '\\' => {
                    escaped = !escaped;
                    None
                }
                _ => {
                    escaped = false;
                    None
                }
            })?;
            let quoted = &s[..end + 2];
            (
                toml::from_str::<BTreeMap<String, String>>(&format!("k = {quoted}"))
                    .ok()?
                    .remove("k")?,
                &q[end + 1..],
            )
        } else if let Some(q) = s.strip_prefix('\'') {
            let end = q.find('\'')?;
            (q[..end].to_string(), &q[end + 1..])
        } else {
            let end = s
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(s.len());
            if end == 0 {
                return None;
            }
            (s[..end].to_string(), &s[end..])
        };
        Some((k, rest.trim_start()))
    }
    let mut out = BTreeMap::new();
    let mut in_tables = false;
    // Inside a multi-line string (`"""` or `'\'\''), whose lines are text, not TOML.
    let mut open: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let starts_inside = open.is_some();
        for delimiter in ["\"\"\"", "\'\'\'"] {
            if open.is_none_or(|o| o == delimiter) && line.matches(delimiter).count() % 2 == 1 {
                open = if open.is_some() {
                    None
                } else {
                    Some(delimiter)
                };
            }
        }
        if starts_inside {
            continue;
        }
        if let Some(h) = t.strip_prefix('[') {
            in_tables = false;
            if h.starts_with('[') {
                continue;
            }
            if let Some(("tables", rest)) = key(h).as_ref().map(|(k, r)| (k.as_str(), *r)) {
                match rest.strip_prefix('.').and_then(key) {
                    Some((name, _)) => {
                        out.entry(name).or_insert(i + 1);
                    }
                    None => in_tables = rest.starts_with(']'),
                }
            }
        } else if in_tables {
            if let Some((name, rest)) = key(t) {
                if rest.starts_with('=') || rest.starts_with('.') {
                    out.entry(name).or_insert(i + 1);
                }
            }
        }
    }
    out
}

/// `[limits]`: bounds on the input, so that a hostile or broken file costs bounded memory and time and gets a
/// located diagnostic (GT0104 for files and cells, GT0205 for nesting) instead of a crash. Every default is
/// far above what real tables need (docs/conventions.md §1 "Limits" gives the memory bound of each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Deepest nesting of a cell: brackets and parentheses of the cell grammar, arrays and objects of a JSON
    /// literal. Default 32; at most 128 (the JSON parser's own bound).
    #[schemars(range(min = 1, max = 128))]
    pub nesting_depth: usize,
    /// Largest cell, in bytes of UTF-8 text. Default 1 MiB (1048576); Excel itself stops at 32,767 characters.
    #[schemars(range(min = 1))]
    pub cell_bytes: u64,
    /// Largest table file on disk, and the most cell text read from one file (a workbook's shared strings can
    /// be referenced by many cells). Default 256 MiB (268435456).
    #[schemars(range(min = 1))]
    pub file_bytes: u64,
    /// Most bytes a workbook (xlsx, xlsm, xlsb, ods) may inflate to: the sum of its zip parts, counted while
    /// inflating, before any part is parsed. Default 1 GiB (1073741824).
    #[schemars(range(min = 1))]
    pub workbook_inflated_bytes: u64,
    /// Most cells one worksheet may span: the sum over its rows of the columns up to the row's last non-empty
    /// cell (cells are read sparsely; a declared dimension is never allocated). Default 20,000,000.
    #[schemars(range(min = 1))]
    pub sheet_cells: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nesting_depth: 32,
            cell_bytes: 1 << 20,
            file_bytes: 256 << 20,
            workbook_inflated_bytes: 1 << 30,
            sheet_cells: 20_000_000,
        }
    }
}

impl Limits {
    /// The largest `nesting_depth` (serde_json refuses deeper JSON).
    pub const MAX_NESTING_DEPTH: usize = 128;
}

/// `[validation]`: how rows are validated against their JSON Schemas (docs/json-schema-support.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidationConfig {
    /// Whether `format` is checked (`email`, `uri`, `ipv4`, `uuid`, `date`, …: the `jsonschema` crate's
    /// checks); default `true`. `false` makes `format` an annotation only, as JSON Schema 2020-12 leaves it
    /// by default (`date-time` and `duration` fields are typed and always read by their own grammar).
    #[serde(default = "default_true")]
    pub formats: bool,
}
impl Default for ValidationConfig {
    fn default() -> Self {
        ValidationConfig { formats: true }
    }
}
fn default_true() -> bool {
    true
}

/// `[localization]`: the table of localized texts that `x-gentable-text` fields name keys of.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LocalizationConfig {
    /// The text table (default `Lang`).
    #[serde(default = "default_lang_table")]
    pub table: String,
    /// Its key column (default `Key`).
    #[serde(default = "default_lang_key")]
    pub key: String,
    /// Its language columns, e.g. `["zh", "en"]`; the first is the default language.
    pub languages: Vec<String>,
    /// Export this language's strings inline: every `x-gentable-text` value becomes the text itself (in the
    /// data and the generated code of every output) instead of its key.
    #[serde(default)]
    pub inline: Option<String>,
}
fn default_lang_table() -> String {
    "Lang".into()
}
fn default_lang_key() -> String {
    "Key".into()
}

/// `[groups]`: the export groups tables and fields may be tagged with (`x-gentable-groups`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupsConfig {
    /// The group names; default `["client", "server", "editor"]`.
    #[serde(default = "default_groups")]
    pub names: Vec<String>,
}
impl Default for GroupsConfig {
    fn default() -> Self {
        GroupsConfig {
            names: default_groups(),
        }
    }
}
fn default_groups() -> Vec<String> {
    vec!["client".into(), "server".into(), "editor".into()]
}

/// `[project]`: where things are.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectConfig {
    /// Project name (docs, content hash).
    pub name: String,
    /// Folders scanned recursively for tables, relative to the project root.
    #[serde(default = "default_tables")]
    pub tables: Vec<PathBuf>,
    /// Folder of `<Table>.schema.json` files and shared schemas.
    #[serde(default = "default_schemas")]
    pub schemas: PathBuf,
    /// Output root (rust/, csharp/, ts/, data/).
    #[serde(default = "default_generated")]
    pub generated: PathBuf,
    /// Glob patterns (relative to each table folder) of files that are not tables, e.g. `backup/**`.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// `true`: only files and sheets selected by some `[tables.X] files`/`sheets` are tables; every other
    /// source is skipped (a Luban project's workbooks hold sheets no table reads).
    #[serde(default)]
    pub selected_only: bool,
}

impl Default for ProjectConfig {
    fn default() -> Self {
        ProjectConfig {
            name: "Project".into(),
            tables: default_tables(),
            schemas: default_schemas(),
            generated: default_generated(),
            ignore: vec![],
            selected_only: false,
        }
    }
}

fn default_tables() -> Vec<PathBuf> {
    vec![PathBuf::from("Table")]
}
fn default_schemas() -> PathBuf {
    PathBuf::from("schema")
}
fn default_generated() -> PathBuf {
    PathBuf::from("generated")
}

/// `[rust]`: the generated crate.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RustConfig {
    /// Cargo package name of `generated/rust` (snake_case).
    #[serde(default = "default_crate")]
    pub crate_name: String,
    /// Export groups this output contains (tables and fields tagged with another group only are left out);
    /// default: everything.
    #[serde(default)]
    pub groups: Option<Vec<String>>,
    /// Row tags (`[tables.X] tag_column`) whose rows this output contains; untagged rows are always in.
    /// Default: every tag.
    #[serde(default)]
    pub include_tags: Option<Vec<String>>,
    /// Row tags whose rows this output leaves out (Luban's `--excludeTag dev`).
    #[serde(default)]
    pub exclude_tags: Vec<String>,
}
impl Default for RustConfig {
    fn default() -> Self {
        RustConfig {
            crate_name: default_crate(),
            groups: None,
            include_tags: None,
            exclude_tags: vec![],
        }
    }
}
fn default_crate() -> String {
    "tables".into()
}

/// A format of an output's data files (docs/data-format.md): `json` (`<Table>.json`, one row per line) or
/// `binary` (`<Table>.bytes`, the compact format every binary loader reads).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DataFormat {
    Json,
    Binary,
}

fn default_data() -> Vec<DataFormat> {
    vec![DataFormat::Json]
}

/// `[csharp]`: the Unity output.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CSharpConfig {
    /// C# namespace of every generated type.
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// Folder of handlebars templates overriding the built-in `src/emit/csharp/templates/*.hbs` (same file
    /// names), relative to the project root. An overriding template works with the runtime of the gentable
    /// version it was copied from: copy it again when upgrading (a `table.cs.hbs` copied before 5934e94 lacks
    /// the row classes' `IGentableLinked` implementation that `GentableRuntime.cs` now calls).
    #[serde(default)]
    pub templates: Option<PathBuf>,
    /// Export groups this output contains; default: everything.
    #[serde(default)]
    pub groups: Option<Vec<String>>,
    /// Row tags (`[tables.X] tag_column`) whose rows this output contains; untagged rows are always in.
    /// Default: every tag.
    #[serde(default)]
    pub include_tags: Option<Vec<String>>,
    /// Row tags whose rows this output leaves out (Luban's `--excludeTag dev`).
    #[serde(default)]
    pub exclude_tags: Vec<String>,
    /// Formats of this output's data files (its data folder: `generated/data/csharp/` with `groups`, else
    /// `generated/data/`): `["json"]` (default), `["binary"]` or both.
    #[serde(default = "default_data")]
    pub data: Vec<DataFormat>,
}
impl Default for CSharpConfig {
    fn default() -> Self {
        CSharpConfig {
            namespace: default_namespace(),
            templates: None,
            groups: None,
            include_tags: None,
            exclude_tags: vec![],
            data: default_data(),
        }
    }
}
fn default_namespace() -> String {
    "GameConfig".into()
}

/// `[typescript]`: the Node.js output.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeScriptConfig {
    /// Folder of handlebars templates overriding the built-in `src/emit/typescript/templates/*.hbs` (same file
    /// names), relative to the project root; like C#'s, tied to the runtime of the version it was copied from.
    #[serde(default)]
    pub templates: Option<PathBuf>,
    /// Export groups this output contains; default: everything.
    #[serde(default)]
    pub groups: Option<Vec<String>>,
    /// Row tags (`[tables.X] tag_column`) whose rows this output contains; untagged rows are always in.
    /// Default: every tag.
    #[serde(default)]
    pub include_tags: Option<Vec<String>>,
    /// Row tags whose rows this output leaves out (Luban's `--excludeTag dev`).
    #[serde(default)]
    pub exclude_tags: Vec<String>,
    /// Formats of this output's data files (its data folder: `generated/data/typescript/` with `groups`,
    /// else `generated/data/`): `["json"]` (default), `["binary"]` or both.
    #[serde(default = "default_data")]
    pub data: Vec<DataFormat>,
}
impl Default for TypeScriptConfig {
    fn default() -> Self {
        TypeScriptConfig {
            templates: None,
            groups: None,
            include_tags: None,
            exclude_tags: vec![],
            data: default_data(),
        }
    }
}

/// `[tables.<Name>]`: how to read one table's files (docs/conventions.md §1, §2).
///
/// By default a table is one CSV file named `<Name>.csv` (or `.tsv`, or `.txt` when this section exists) or
/// every worksheet named `<Name>`. `files` and `sheets` select its sources instead; the row/column keys
/// describe where the header, the comments and the data are.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableOverride {
    /// Text encoding label (WHATWG: `utf-8`, `gbk`, `utf-16le`, …). Default UTF-8 (BOM honoured).
    pub encoding: Option<String>,
    /// Field delimiter, one character. Default `,` (`.tsv` files: tab).
    pub delimiter: Option<String>,
    /// 1-based header row (default: first non-comment, non-blank row). Excludes `header_marker`.
    pub header_row: Option<usize>,
    /// 1-based first data row (default: the row after the header row).
    pub data_row: Option<usize>,
    /// First column letter read (default `A`); columns to its left are ignored.
    pub first_column: Option<String>,
    /// Schema name if it differs from the table name.
    pub schema: Option<String>,
    /// Globs (globset syntax) of the files that form this table, matched against the file's path relative to
    /// its table folder, `/`-separated (`Data*.csv`, `**/AIConfig.xlsx`). Every selected CSV file and every
    /// (selected) sheet of every selected workbook is a source of this table; sources are concatenated in
    /// the order of these globs (a file by the first glob it matches), in path order within one glob, then
    /// in sheet order. A selected file or sheet is not a table of its own name.
    pub files: Option<Vec<String>>,
    /// Globs of the worksheet names that form this table (`AIConfig_*`), in the workbooks selected by
    /// `files` (or in every workbook when `files` is absent). Within a workbook, sheets are concatenated in
    /// the order of these globs, then in the workbook's order.
    pub sheets: Option<Vec<String>>,
    /// Column letter holding row markers (default: `first_column`). A row whose marker cell starts with
    /// `comment_marker` is a comment row; the marker column may lie left of `first_column` (ET: `B`, Luban: `A`).
    pub marker_column: Option<String>,
    /// Prefix that marks comment rows (in the marker column) and comment columns (in the header row or the
    /// `column_marker_row`). Default `#`.
    pub comment_marker: Option<String>,
    /// The header row is the first row whose marker cell is exactly this text (trimmed), e.g. `##var` or
    /// `##` (Luban). Excludes `header_row`.
    pub header_marker: Option<String>,
    /// 1-based row whose cells tag columns: a column whose cell here starts with `comment_marker` is a comment
    /// column (ET's export-tag row 2: `#` = designer-only column).
    pub column_marker_row: Option<usize>,
    /// Separator of the elements of a one-cell array, one character. Default `|`; `,` reads UnityGameFramework
    /// and ET cells such as `1,2,3`.
    pub array_separator: Option<String>,
    /// `horizontal` (default: a header row of field names, one row per record) or `vertical` (a singleton
    /// written as a key/value sheet: the first column names the field, the next holds its value).
    pub layout: Option<String>,
    /// `key` (default: a map table's rows sorted by primary key) or `source`: keep the sheets' row order in
    /// canonical data and in `all()` of every language (lookups by key stay binary search / dictionary).
    /// The Luban importer sets `source` (Luban keeps the sheet's order).
    pub order: Option<String>,
    /// A cell whose whole text is this (e.g. Luban's `null`) is null in a nullable field (an error elsewhere).
    pub null_text: Option<String>,
    /// `true`: a header naming no schema property is skipped (Luban ignores unknown columns) instead of being
    /// an error.
    pub ignore_unknown_columns: Option<bool>,
    /// `gentable` (default: the cell grammar of docs/conventions.md §3) or `luban`: records, lists and maps
    /// are read in Luban's stream form, split by `x-gentable-separator` (Luban's `sep`): `DemoD2,1,2`,
    /// `1,true;2,false`, `1,2,3,4` for a map. Fields with an `x-gentable-separator` are read so in any table.
    pub cell_dialect: Option<String>,
    /// `true`: a file or sheet this table selects may also be selected by other tables that say so too
    /// (each gets every row; Luban's `TbDemoGroup_C`/`_S`/`_E` read one sheet). Default: a source selected by
    /// two tables is an error.
    pub shared_sources: Option<bool>,
    /// Column letter whose cell holds a data row's tags, comma-separated (Luban: `A`, where rows say `dev`,
    /// `test`, `unchecked`). Outputs choose rows by tag (`include_tags`, `exclude_tags`).
    pub tag_column: Option<String>,
    /// `layout = "vertical"`: the column letter of the values (default: the column right of `first_column`),
    /// e.g. `"C"` for Luban's `##column` sheets (name | type | value).
    pub value_column: Option<String>,
    /// `layout = "vertical"`: the column letter of a type column (Luban: `int`, `string`, `list,int`): never
    /// read as a value; a type that contradicts the schema's is a warning.
    pub type_column: Option<String>,
    /// List fields written over several rows (Luban's `*field` / `field#multi_rows=1`): a data row whose
    /// cells outside these fields are all empty continues the record above, adding its cells' elements to
    /// each of these lists. Default: none (every row is a record).
    pub multi_row_fields: Option<Vec<String>>,
}

impl TableOverride {
    /// True when `files` or `sheets` choose this table's sources (instead of the file stem / sheet name).
    pub fn selects_sources(&self) -> bool {
        self.files.is_some() || self.sheets.is_some()
    }
}

/// Which tagged rows an output contains: `include` (None = every tag), `exclude`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TagFilter {
    pub include: Option<Vec<String>>,
    pub exclude: Vec<String>,
}

impl TagFilter {
    /// Whether a row with `tags` is in: untagged rows always; tagged rows when no tag is excluded and, with
    /// `include`, one tag is included.
    pub fn keeps(&self, tags: &[String]) -> bool {
        tags.is_empty()
            || (!tags.iter().any(|t| self.exclude.contains(t))
                && self
                    .include
                    .as_ref()
                    .is_none_or(|i| tags.iter().any(|t| i.contains(t))))
    }
    /// True when it keeps every row.
    pub fn is_all(&self) -> bool {
        self.include.is_none() && self.exclude.is_empty()
    }
}

/// A loaded configuration with the project root it was read from.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub root: PathBuf,
    pub config: Config,
}

impl Loaded {
    pub fn generated_dir(&self) -> PathBuf {
        self.root.join(&self.config.project.generated)
    }
    pub fn schema_dir(&self) -> PathBuf {
        self.root.join(&self.config.project.schemas)
    }
    /// The schema folder as diagnostics name it: relative to the project root, `/`-separated.
    pub fn schema_rel(&self) -> String {
        self.config
            .project
            .schemas
            .to_string_lossy()
            .replace('\\', "/")
    }
}

/// The message of a project file the TOML parser refused: `<path>: invalid project file at line L, column
/// C: <the parser's message>` and the parser's picture of the line (`4 | sheet_cels = 5` with a caret
/// line), so that the message's words are one line a template translates (docs/diagnostics.md
/// "Languages") and the picture stays as drawn. Without a position, the parser's whole text.
fn invalid_toml(path: &Path, text: &str, e: &toml::de::Error) -> String {
    let shown = e.to_string();
    let message = e.message().trim();
    let Some(span) = e.span() else {
        return format!("{}: invalid project file:\n{shown}", path.display());
    };
    let before = &text[..span.start.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    // The parser's text is its header line, the picture, then the message: keep the picture.
    let picture = shown
        .trim_end()
        .strip_suffix(message)
        .and_then(|s| s.split_once('\n'))
        .map(|(_, p)| p.trim_end_matches('\n'))
        .unwrap_or("");
    if picture.is_empty() {
        format!(
            "{}: invalid project file at line {line}, column {column}: {message}",
            path.display()
        )
    } else {
        format!(
            "{}: invalid project file at line {line}, column {column}: {message}\n{picture}",
            path.display()
        )
    }
}

/// Read `gentable.toml` at `path`. Errors are configuration errors (exit code 2).
pub fn load(path: &Path) -> anyhow::Result<Loaded> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read project file {}: {e}", path.display()))?;
    let mut config: Config =
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}", invalid_toml(path, &text, &e)))?;
    config.override_lines = override_lines(&text);
    if let Some(l) = &config.localization {
        if l.languages.is_empty() {
            anyhow::bail!(
                "{}: [localization] languages must name at least one language column",
                path.display()
            );
        }
        if let Some(i) = l.inline.as_ref().filter(|i| !l.languages.contains(i)) {
            anyhow::bail!(
                "{}: [localization] inline names {i:?}, which is not in languages {:?}",
                path.display(),
                l.languages
            );
        }
    }
    for (section, groups) in [
        ("rust", &config.rust.groups),
        ("csharp", &config.csharp.groups),
        ("typescript", &config.typescript.groups),
    ] {
        for g in groups.iter().flatten() {
            if !config.groups.names.contains(g) {
                anyhow::bail!(
                    "{}: [{section}] groups names {g:?}, which is not in [groups] names {:?}",
                    path.display(),
                    config.groups.names
                );
            }
        }
    }
    for (section, data) in [
        ("csharp", &config.csharp.data),
        ("typescript", &config.typescript.data),
    ] {
        if data.is_empty() {
            anyhow::bail!(
                "{}: [{section}] data is empty; list \"json\", \"binary\" or both",
                path.display()
            );
        }
        let mut sorted = data.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != data.len() {
            anyhow::bail!("{}: [{section}] data names a format twice", path.display());
        }
    }
    for (name, o) in &config.tables {
        if let Some(d) = &o.delimiter {
            if d.chars().count() != 1 || !d.is_ascii() {
                anyhow::bail!(
                    "{}: [tables.{name}] delimiter must be one ASCII character, got {d:?}",
                    path.display()
                );
            }
        }
        if let Some(why) = o
            .schema
            .as_deref()
            .and_then(|sc| crate::naming::files::path_problem(&format!("{sc}.schema.json")))
        {
            anyhow::bail!(
                "{}: [tables.{name}] schema must name a file of the schema folder: {why}",
                path.display()
            );
        }
        if let Some(e) = &o.encoding {
            if encoding_rs::Encoding::for_label(e.as_bytes()).is_none() {
                anyhow::bail!("{}: [tables.{name}] unknown encoding {e:?}", path.display());
            }
        }
        if let Some(c) = &o.tag_column {
            if crate::diag::column_from_letters(c).is_none() {
                anyhow::bail!(
                    "{}: [tables.{name}] tag_column must be letters like \"A\", got {c:?}",
                    path.display()
                );
            }
        }
        if let Some(c) = &o.first_column {
            if crate::diag::column_from_letters(c).is_none() {
                anyhow::bail!(
                    "{}: [tables.{name}] first_column must be letters like \"C\", got {c:?}",
                    path.display()
                );
            }
        }
        if o.header_row == Some(0) || o.data_row == Some(0) {
            anyhow::bail!("{}: [tables.{name}] rows are 1-based", path.display());
        }
        if o.column_marker_row == Some(0) {
            anyhow::bail!("{}: [tables.{name}] rows are 1-based", path.display());
        }
        if o.header_row.is_some() && o.header_marker.is_some() {
            anyhow::bail!(
                "{}: [tables.{name}] header_row and header_marker exclude each other",
                path.display()
            );
        }
        if let Some(c) = &o.marker_column {
            if crate::diag::column_from_letters(c).is_none() {
                anyhow::bail!(
                    "{}: [tables.{name}] marker_column must be letters like \"A\", got {c:?}",
                    path.display()
                );
            }
        }
        if o.comment_marker
            .as_deref()
            .is_some_and(|m| m.trim().is_empty())
        {
            anyhow::bail!(
                "{}: [tables.{name}] comment_marker must not be empty",
                path.display()
            );
        }
        if o.header_marker
            .as_deref()
            .is_some_and(|m| m.trim().is_empty())
        {
            anyhow::bail!(
                "{}: [tables.{name}] header_marker must not be empty",
                path.display()
            );
        }
        if let Some(l) = &o.layout {
            if l != "horizontal" && l != "vertical" {
                anyhow::bail!(
                    "{}: [tables.{name}] layout must be \"horizontal\" or \"vertical\", got {l:?}",
                    path.display()
                );
            }
        }
        if let Some(x) = o.order.as_deref().filter(|x| *x != "key" && *x != "source") {
            anyhow::bail!(
                "{}: [tables.{name}] order must be \"key\" or \"source\", got {x:?}",
                path.display()
            );
        }
        if let Some(x) = o
            .cell_dialect
            .as_deref()
            .filter(|x| *x != "gentable" && *x != "luban")
        {
            anyhow::bail!(
                "{}: [tables.{name}] cell_dialect must be \"gentable\" or \"luban\", got {x:?}",
                path.display()
            );
        }
        if o.null_text.as_deref().is_some_and(|m| m.trim().is_empty()) {
            anyhow::bail!(
                "{}: [tables.{name}] null_text must not be empty (an empty cell is already null)",
                path.display()
            );
        }
        for (key, c) in [
            ("value_column", &o.value_column),
            ("type_column", &o.type_column),
        ] {
            if let Some(c) = c {
                if crate::diag::column_from_letters(c).is_none() {
                    anyhow::bail!(
                        "{}: [tables.{name}] {key} must be letters like \"C\", got {c:?}",
                        path.display()
                    );
                }
                if o.layout.as_deref() != Some("vertical") {
                    anyhow::bail!(
                        "{}: [tables.{name}] {key} applies to layout = \"vertical\" only",
                        path.display()
                    );
                }
            }
        }
        if o.value_column.is_some() && o.value_column == o.type_column {
            anyhow::bail!(
                "{}: [tables.{name}] value_column and type_column must differ",
                path.display()
            );
        }
        if let Some(s) = &o.array_separator {
            let ok = s.chars().count() == 1
                && !s
                    .chars()
                    .any(|c| "\\()[]{}=".contains(c) || c.is_whitespace());
            if !ok {
                anyhow::bail!(
                    "{}: [tables.{name}] array_separator must be one character other than white space, \\ ( ) [ ] {{ }} or =, got {s:?}",
                    path.display()
                );
            }
        }
        for (key, globs) in [("files", &o.files), ("sheets", &o.sheets)] {
            for g in globs.iter().flatten() {
                if let Err(e) = globset::Glob::new(g) {
                    anyhow::bail!(
                        "{}: [tables.{name}] {key}: bad glob {g:?}: {e}",
                        path.display()
                    );
                }
            }
            if globs.as_ref().is_some_and(Vec::is_empty) {
                anyhow::bail!(
                    "{}: [tables.{name}] {key} must list at least one glob",
                    path.display()
                );
            }
        }
        if let (Some(h), Some(d)) = (o.header_row, o.data_row) {
            if d <= h {
                anyhow::bail!(
                    "{}: [tables.{name}] data_row ({d}) must come after header_row ({h})",
                    path.display()
                );
            }
        }
    }
    let l = &config.limits;
    if !(1..=Limits::MAX_NESTING_DEPTH).contains(&l.nesting_depth) {
        anyhow::bail!(
            "{}: [limits] nesting_depth must be 1 to {}, got {}",
            path.display(),
            Limits::MAX_NESTING_DEPTH,
            l.nesting_depth
        );
    }
    for (key, v) in [
        ("cell_bytes", l.cell_bytes),
        ("file_bytes", l.file_bytes),
        ("workbook_inflated_bytes", l.workbook_inflated_bytes),
        ("sheet_cells", l.sheet_cells),
    ] {
        if v == 0 {
            anyhow::bail!("{}: [limits] {key} must be at least 1", path.display());
        }
    }
    if !is_snake(&config.rust.crate_name) {
        anyhow::bail!(
            "{}: [rust] crate_name must be snake_case ASCII, got {:?}",
            path.display(),
            config.rust.crate_name
        );
    }
    if !config.csharp.namespace.split('.').all(|p| {
        !p.is_empty()
            && p.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    }) {
        anyhow::bail!(
            "{}: [csharp] namespace must be dotted C# identifiers, got {:?}",
            path.display(),
            config.csharp.namespace
        );
    }
    // The generated folder is replaced as a whole by every build (build::commit): it must not hold the
    // project's own files.
    let inside = |p: &Path| {
        let (g, p) = (lexical(&config.project.generated), lexical(p));
        p.starts_with(&g)
    };
    if let Some(what) = [
        (Path::new("gentable.toml"), "the project file"),
        (Path::new(".gentable-cache"), "the build cache"),
        (config.project.schemas.as_path(), "the schema folder"),
    ]
    .into_iter()
    .chain(
        config
            .project
            .tables
            .iter()
            .map(|t| (t.as_path(), "a table folder")),
    )
    .find(|(p, _)| inside(p))
    .map(|(_, what)| what)
    {
        anyhow::bail!(
            "{}: [project] generated = {:?} would hold {what}; every build replaces that folder as a whole, so it \
             must be a folder of its own (for example \"generated\")",
            path.display(),
            config.project.generated
        );
    }
    let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let root = if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    };
    Ok(Loaded { root, config })
}

/// `p` (relative to the project root) with `.` and `..` resolved lexically (`a/../b` → `b`, `.` → empty);
/// absolute paths keep their root.
fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn is_snake(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !crate::naming::RUST_KEYWORDS.contains(&s)
}

/// The JSON Schema of `gentable.toml`, pretty-printed with a trailing newline.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Config);
    serde_json::to_string_pretty(&schema).expect("schema serializes") + "\n"
}

#[cfg(test)]
mod tests {
    /// Headers (bare, quoted, spaced), keys under `[tables]` (inline and dotted), and look-alikes that are
    /// not overrides.
    #[test]
    fn override_lines_find_each_override() {
        let text = "[project]\nname = \"P\"\n\n[tables.Item]\nfiles = [\"a.csv\"]\n[ tables . \"格 子\" ]\n[tables]\nGear = { files = [\"g.csv\"] }\nRune.order = \"source\"\n'Lit' = {}\n[[tables.Arr]]\n[limits]\nItemX = 1\n[tablesX.Y]\n[tables.Item]\n";
        let got = super::override_lines(text);
        let want: Vec<(&str, usize)> = vec![
            ("Gear", 8),
            ("Item", 4),
            ("Lit", 10),
            ("Rune", 9),
            ("格 子", 6),
        ];
        assert_eq!(
            got.iter()
                .map(|(k, v)| (k.as_str(), *v))
                .collect::<Vec<_>>(),
            want
        );
        // Found by the breaker helper: header-like lines inside multi-line strings, and a quoted name with an
        // escaped quote.
        let text = "[project]\nname = \"\"\"P\n[tables.Ghost]\n[tables]\nPhantom = 1\n\"\"\"\nnote = '''\n[tables.Lit]\n'''\n[tables.Ghost]\n[tables]\nPhantom = {}\n[tables.\"q\\\"x\"]\n";
        let got = super::override_lines(text);
        assert_eq!(
            got.iter()
                .map(|(k, v)| (k.as_str(), *v))
                .collect::<Vec<_>>(),
            vec![("Ghost", 10), ("Phantom", 12), ("q\"x", 13)]
        );
    }
}
