//! Diagnostic codes: one [`Code`] per kind of finding, with its stable number (`GT0201`), its class
//! ([`Class`]: configuration, data or output, which decides the exit code), a title and the explanation that
//! `gentable explain` prints and docs/diagnostics.md lists.
//!
//! This is the only place a `GT` code is written: stages construct diagnostics with a [`Code`], the CLI
//! derives its exit code from [`Code::class`], and the renderers print [`Code::as_str`].

use serde::{Serialize, Serializer};
use std::fmt;

/// What a diagnostic is about, which decides the exit code of a failed build ([`Class::exit_code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// The project itself cannot be set up: `gentable.toml`, its folders, its globs (exit code 2).
    Configuration,
    /// The tables or the schemas that describe them (exit code 1).
    Data,
    /// What gentable would write: generated names that clash, stale files under `--check` (exit code 1).
    Output,
}

impl Class {
    /// The process exit code of a build that failed with an error of this class: 2 for configuration, 1
    /// otherwise (README "Exit codes").
    pub fn exit_code(self) -> u8 {
        match self {
            Class::Configuration => 2,
            Class::Data | Class::Output => 1,
        }
    }
}

macro_rules! codes {
    ($($variant:ident = $code:literal, $class:ident, $title:literal, $text:literal;)*) => {
        /// A stable diagnostic code. `Display` and JSON show it as `GT` and four digits.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(#[doc = $title] $variant,)*
        }

        impl Code {
            /// Every code, in number order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// `GT` and four digits, e.g. `GT0201`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $code,)*
                }
            }

            /// The class, which decides the exit code.
            pub fn class(self) -> Class {
                match self {
                    $(Code::$variant => Class::$class,)*
                }
            }

            /// A few words, e.g. "wrong type" (the title of GitHub annotations).
            pub fn title(self) -> &'static str {
                match self {
                    $(Code::$variant => $title,)*
                }
            }

            /// The paragraph `gentable explain` prints: what it means, an example and the fix.
            pub fn explanation(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }
        }
    };
}

codes! {
    ProjectLayout = "GT0002", Configuration,
        "project layout",
        "A folder named in gentable.toml ([project] tables or schemas) does not exist or cannot be listed, or an ignore glob is malformed. Example: tables = [\"Tabel\"]. Fix: correct the path in gentable.toml; paths are relative to the folder holding gentable.toml.";
    UnusedOverride = "GT0003", Configuration,
        "unused override",
        "A [tables.<Name>] section names a table that no file provides. Example: [tables.Lnag] for Lang.csv. Fix: correct the table name (file stem or sheet name).";
    UnreadableFile = "GT0101", Data,
        "unreadable file",
        "A table file could not be opened: missing permissions, or a workbook that is not a valid xlsx/xls/ods (for example a renamed CSV). Fix: re-save the file from the spreadsheet application.";
    BadEncoding = "GT0102", Data,
        "bad text encoding",
        "A CSV cell holds bytes that are not valid in the table's encoding (UTF-8 unless [tables.<Name>] encoding says otherwise), or the whole file is UTF-16 text without a byte-order mark (a 0 byte in every other byte), which is reported once at the file. Example: a GBK export read as UTF-8 shows as mojibake; Excel's \"Unicode Text\" re-saved by a tool that dropped its byte-order mark. Fix: save as UTF-8, or set encoding = \"gbk\" (or the right label: \"utf-16le\", \"utf-16be\", ...) for that table.";
    MalformedCsv = "GT0103", Data,
        "malformed CSV",
        "The CSV parser could not read a record, usually because of an unbalanced quote. Example: a cell written as \"Iron Guard with no closing quote. Fix: close the quote; a literal quote inside a quoted cell is written twice (\"\").";
    LimitExceeded = "GT0104", Data,
        "resource limit exceeded",
        "A table file, a workbook's inflated parts, a worksheet, a cell or a cell's nesting is larger than a bound of [limits] in gentable.toml (file_bytes, workbook_inflated_bytes, sheet_cells, cell_bytes, nesting_depth). The bounds keep a broken or hostile file from exhausting memory or the stack; the defaults are far above real tables. Example: a workbook whose one shared string inflates to 400 MiB, a cell at XFD1048576 in every row, or a record cell nested 2,000 deep. Fix: correct the file or the cell (re-save a damaged workbook; flatten a deeply nested value), or raise the bound in [limits] if the data is real.";
    SameSheetName = "GT0105", Data,
        "one table name in several workbooks",
        "Two workbooks each have a sheet of the same name (often Sheet1) and no [tables.<Name>] files/sheets selection says they form one table, so gentable will not merge them silently. Example: Items.xlsx and Skills.xlsx both with a sheet Sheet1. Fix: name the sheets after their tables, or select them on purpose with [tables.<Name>] files = [...] (or sheets = [...]).";
    WrongType = "GT0201", Data,
        "wrong type",
        "The cell's text is not a value of the field's type. Example: \"abc\" in an integer column. Fix: enter a value of the type shown in the message, or change the schema.";
    OutOfRange = "GT0202", Data,
        "out of range",
        "A number does not fit the field's integer width (picked from minimum/maximum/format), is not finite, or has no exact 64-bit float (IEEE 754 double), so it would ship as another number; or it is exactly a double whose shortest form (what every output prints) is written otherwise. Example: 300 in a field with maximum 255; 12345678901234567890 in a number column (it would ship as 12345678901234567000); 890713491284145.3 (its double lies halfway between ...145.2 and ...145.3, and the output prints the even digit: ...145.2). Fix: correct the value, widen the schema bounds, or keep a number with more than 15–17 significant digits as text (type string).";
    NotInEnum = "GT0203", Data,
        "not in enum",
        "The cell is not one of the enum's members (names are case-sensitive). Example: \"blue\" where Side is Red|Blue. Fix: use the member named in the hint.";
    MissingValue = "GT0204", Data,
        "missing required value",
        "A required field's cell is empty. Example: an empty Id. Fix: fill in the cell, or give the field a \"default\" or make it optional in the schema.";
    BadGrammar = "GT0205", Data,
        "bad cell grammar",
        "A compound cell (array, object) breaks the cell grammar: unbalanced brackets, an empty element (1||2), too many parts, a lone backslash. Example: 1||2 in an array column, or (0,1 in a Vec2 column. Fix: follow docs/conventions.md section 3; escape a literal separator with a backslash (\\|, \\,).";
    NotInteger = "GT0206", Data,
        "fraction in an integer field",
        "An integer field holds a fractional number such as 7.5 (an Excel float). Example: 7.5 in a Tier column. Fix: enter a whole number, or change the schema type to number.";
    ExcelError = "GT0207", Data,
        "Excel error cell",
        "The cell holds an Excel error such as #N/A or #DIV/0!, usually from a formula. Example: =VLOOKUP(...) that shows #N/A. Fix: correct the formula or the cells it refers to.";
    NoFormulaResult = "GT0208", Data,
        "formula without a stored result",
        "A workbook cell holds a formula but no stored (cached) result, as files written by scripts and libraries without a calculation engine are (an xlsx <c><f>A3*2</f></c> with no <v>). gentable never calculates formulas, and an empty value would not be what Excel shows. Example: =A3*2 written by a Python script. Fix: open and save the file in Excel or LibreOffice, which calculate and store every result, or write values instead of formulas.";
    FormattedNumber = "GT0209", Data,
        "number shown through a format",
        "A warning: a string field takes a number cell whose number format makes Excel show other text than the plain number (the format 000 shows 7 as 007), or a date cell. The field gets the text Excel shows (dates in ISO 8601 order); the cell itself still holds the number. Example: 7 formatted as 000 in a Code column. Fix: format the cell as Text (@) and type the text, or type it with a leading apostrophe ('007).";
    UnknownColumn = "GT0211", Data,
        "unknown column",
        "A header is not a property of the table's schema. Example: \"Teir\" instead of \"Tier\". Fix: rename it as the hint suggests, add the property to the schema, or start the header with # to make it a comment column.";
    MissingColumn = "GT0212", Data,
        "missing column",
        "A property listed in the schema's required has no column. Example: the schema requires Hp but the header row is Id,Name,Side. Fix: add the column, or remove the property from required.";
    DuplicateColumn = "GT0213", Data,
        "duplicate column",
        "Two columns name the same field: the same header twice when the field is not an array (only arrays may span columns), or the field's name and one of its x-gentable-aliases (or two of its aliases), whatever the field's type, since an alias is only another header for the same column. Example: the header row Id,Hp,Hp where Hp is an integer; or Id,Name,名称 where the schema gives Name \"x-gentable-aliases\": [\"名称\"]. Fix: rename or delete one; of a name and an alias, keep one of the two columns.";
    NoHeader = "GT0214", Data,
        "no header row",
        "The table has no non-comment row to read field names from, or header_row points past the end. Example: a sheet whose every row starts with #, or header_row = 9 in a 5-row file. Fix: add a header row, or correct [tables.<Name>] header_row.";
    SingletonRows = "GT0215", Data,
        "singleton row count",
        "A table with x-gentable-mode \"one\" must have exactly one data row. Example: Const.csv with two data rows. Fix: delete the extra rows or add the missing one.";
    NameCollision = "GT0216", Data,
        "identifier collision",
        "Two field names become the same identifier in generated code (\"MaxSteps\" and \"max steps\" both become max_steps). Example: columns MaxSteps and max_steps. Fix: rename one, or set x-gentable-name on one in the schema.";
    BadTableName = "GT0217", Data,
        "bad table name",
        "A table name (a sheet name, a file stem, or a [tables.<Name>] section that selects files) cannot name the table's files: data/<Name>.json and the code files made from it. It holds a path separator or .., a character Windows forbids (: * ? \" < > |), a control or bidirectional character, leading or trailing white space or a trailing dot; it is a Windows device name (CON, PRN, AUX, NUL, COM1, LPT1, ... in any case, with any extension); a file made from it would be longer than 255 bytes; or it differs from another table's name only in case or Unicode normalisation, so both data files would be one file on Windows and macOS. Example: a sheet named ../../escaped, aux or Item beside a file item.csv. Fix: rename the sheet or the file (or the [tables.<Name>] section).";
    UnheadedValue = "GT0218", Data,
        "value under an empty header",
        "A warning: a column has no header, so it is a note column and its values are not exported, but it holds values in data rows. Example: a designer's remark typed in column F, right of the last field. Fix: give the column a header (a field of the schema), or start its header with # to mark it a comment column on purpose.";
    HiddenCells = "GT0219", Data,
        "hidden rows or columns exported",
        "A warning: data rows or field columns are hidden in the worksheet (by hand, by a filter or a collapsed outline), and they are exported like every other row and column. A designer hides test rows and may not know they ship. Example: rows 5-9 hidden by an autofilter. Fix: delete the rows or columns that must not ship, or unhide them; comment rows out with # instead of hiding them.";
    MergedData = "GT0220", Data,
        "merged cells in the data area",
        "A merged range covers data cells: Excel shows its value across the range, but only the top-left cell holds it, so the other cells would read as empty. Example: A4:A5 merged and holding one id. Fix: unmerge the range and fill every cell (Home > Merge & Center > Unmerge, then fill down).";
    TypeColumn = "GT0221", Data,
        "type column in a vertical sheet",
        "A vertical (key/value) sheet has a column of type names (int, string, list,int ... as Luban's ##column sheets write name | type | value) where gentable expects the values, so every value would be a type name; or a type_column names a type the schema contradicts (a warning). Example: GameId | string | 1001 read as GameId = \"string\". Fix: set [tables.<Name>] type_column = \"B\" and value_column = \"C\" (the letters of those columns), or correct the type or the schema.";
    SchemaKeyword = "GT0301", Data,
        "schema keyword failed",
        "A JSON Schema keyword (minimum, pattern, minItems, uniqueItems, const, ...) rejected the typed value. The message names the keyword. Example: \"mage\" in a Name column with \"pattern\": \"^[A-Z]\". Fix: correct the value, or the schema if the rule is wrong.";
    DuplicateKey = "GT0302", Data,
        "duplicate primary key",
        "Two rows share a primary key (x-gentable-primaryKey). The message names both cells. Example: two rows with Id 2. For a composite key such as (Side, Slot) every key cell of both rows is named. Fix: change or delete one row.";
    DuplicateUnique = "GT0303", Data,
        "duplicate unique key",
        "Two rows share a value of a secondary unique key (x-gentable-unique). Example: two units named \"Archer\" when x-gentable-unique lists [\"Name\"]. Fix: make the values distinct.";
    MissingReference = "GT0304", Data,
        "missing reference",
        "A foreign key (x-gentable-foreignKey) names a key that does not exist in the target table. Example: Piece = \"Soldeir\". Fix: use an existing key (the hint names the closest) or add the row to the target table.";
    BadForeignKey = "GT0305", Data,
        "bad foreign key declaration",
        "x-gentable-foreignKey names a table or field that does not exist, or a table without a single-field primary key. Example: \"x-gentable-foreignKey\": \"Weapons\" when the table is Weapon. Fix: correct the schema.";
    NearDuplicateKey = "GT0306", Data,
        "near-duplicate key",
        "Two rows of a table have primary keys that differ only by character width, case or spaces: \"Soldier\" and \"soldier\", \"Iron Guard\" and \"IronGuard\", \"Ｓｏｌｄｉｅｒ\" (full-width) and \"Soldier\". gentable compares keys exactly, so they are two rows, but they are easy to confuse when a designer writes a reference. Example: PieceType rows Soldier and soldier. It is a warning (--deny warnings makes it an error). Fix: rename one of them, or delete the row that was meant to be the other.";
    RuleFailed = "GT0310", Data,
        "rule failed on a row",
        "A row rule of the table's schema (x-gentable-rules, CEL, evaluated with row bound to the row) is false for this row. The message is the rule's message with its ${...} parts filled in; the column is named when the rule reads one field or declares \"field\". Example: {\"rule\": \"byKey.PieceType[row.To].Tier > byKey.PieceType[row.From].Tier\", \"message\": \"a promotion must lead to a higher tier\"} fails for Minister -> Soldier. Fix: correct the row; if the rule is wrong, the programmer changes it in the schema (the help names it).";
    TableRuleFailed = "GT0311", Data,
        "table rule failed",
        "A table rule (x-gentable-rules with \"scope\": \"table\", evaluated once with rows bound to the list of rows) is false. Example: each side must start with Const.PiecesPerSide = 32 pieces, but Red has 27. Fix: change the rows (or the constants) so that the whole table satisfies the rule.";
    BadRule = "GT0312", Data,
        "bad rule",
        "A rule in x-gentable-rules is malformed: it does not compile as CEL, reads a field the table does not have (row.Hpp), names an unknown table (tables.Weapn), or has a bad scope, severity or field. This is a schema error: it names the schema file. Example: {\"rule\": \"row.Hp > \"}. Fix: correct the rule in the schema; the help suggests the closest field or table.";
    RuleError = "GT0313", Data,
        "rule evaluation error",
        "A rule could not be evaluated on a row, or did not return a boolean. Most often it reads an optional field that is empty (absent) without testing it first. Example: row.Bonus < row.Hp when Bonus is empty. Fix: guard optional fields with has(row.Bonus) && ..., and make the rule return true or false.";
    Unreferenced = "GT0320", Data,
        "unreferenced row",
        "The table's schema asks for every row to be referenced (x-gentable-unreferenced) and no foreign key of the project names this row's key. Example: a Lang key Unit_Old that no table uses any more. It is a warning unless the schema says \"error\"; --deny warnings makes it an error. Fix: delete the row, reference it, or list the key in \"except\".";
    MissingTextKey = "GT0330", Data,
        "missing text key",
        "A field marked x-gentable-text holds a key that the [localization] table (gentable.toml) does not have. Example: PieceType.NameKey = Piece_Soldeir when Lang has Piece_Soldier. Fix: correct the key, or add the row to the text table.";
    MissingTranslation = "GT0331", Data,
        "missing translation",
        "A text key that some x-gentable-text field uses has an empty cell for one of the [localization] languages. It is a warning (--deny warnings makes it an error); the cell named is the empty one in the text table. Example: Lang row Piece_Knight with zh filled but en empty. Fix: write the translation.";
    BadLocalization = "GT0332", Data,
        "bad localization setup",
        "[localization] in gentable.toml names a table, key column or language column that does not exist, or a text table that is not keyed by one string field (x-gentable-primaryKey). Example: languages = [\"zh\", \"jp\"] when the Lang columns are zh and en. Fix: correct gentable.toml or the text table's schema.";
    UnreadableSchema = "GT0401", Data,
        "unreadable schema",
        "A schema file is not valid JSON. Example: a trailing comma, {\"a\": 1,}. Fix: correct the JSON at the line and column given.";
    MissingSchema = "GT0402", Data,
        "missing schema",
        "A table has no schema/<Table>.schema.json. Example: Table/Unit.csv but no schema/Unit.schema.json. Fix: write one, or point [tables.<Name>] schema at an existing one.";
    InvalidSchema = "GT0403", Data,
        "invalid schema",
        "A schema is not a usable row schema: not type object, no properties, a malformed x-gentable annotation, two definitions with one type name (a $ref that does not resolve is GT0412, an unsupported format GT0415). Example: \"type\": \"array\" at the root of a table schema. Fix: as the message says.";
    BadDefault = "GT0404", Data,
        "bad default",
        "A property's default does not fit its own type, or breaks its own schema (every keyword of the property applies to it). It is reported once, at the schema: an error naming how many rows take it (their cells are empty) and the first, or a warning when no row takes it yet; a record field's bad default is always an error. Example: \"default\": \"ten\" on an integer property, or \"default\": 0 with \"minimum\": 1. Fix: correct the default in the schema.";
    TypeNameClash = "GT0405", Data,
        "type name clash",
        "A table and an enum/record definition have the same name, which would be two types of one name in generated code. Example: a table Side and an enum $defs/Side. Fix: rename the $defs entry or give it another title.";
    GeneratedNameClash = "GT0406", Output,
        "generated name clash",
        "An emitter cannot give two things distinct names in one language: enum members that become the same variant (\"self\" and \"Self\" both become Self_ in Rust), a table named like a type the generated code declares itself (Tables, GentableRuntime), or two tables that become one module. Example: enum Side with members self and Self. Fix: rename one of them, or give it an x-gentable-name.";
    BadView = "GT0407", Data,
        "bad view",
        "An x-gentable-view annotation (the pictures of gentable report) is malformed, or names a path that does not exist or cannot be drawn: a position that is not an integer, an items path that is not a list of records, a misspelt field. This is a schema error: it names the schema file. Example: \"x\": \"Xs\" when the field is X. Fix: correct the view in the schema (docs/designer.md, Pictures); the message suggests the closest field.";
    UntypedSchema = "GT0410", Data,
        "untyped schema",
        "A property schema has no \"type\" and its keywords do not decide one: keywords that apply to any value (not, if/then/else, dependentRequired alone…), or keywords of two types at once (minimum is about numbers, minLength about strings). Without \"type\" gentable infers it where the keywords decide it: properties/required → object, items/prefixItems → array, minLength/pattern/format → string, minimum/multipleOf → number, enum/const → the members' common type; a schema that allows every value (true, {}) is a JSON value. Example: {\"minimum\": 1, \"minLength\": 2}. Fix: add \"type\": \"integer\" (or the type you mean; a list such as [\"integer\", \"string\"] is a scalar union).";
    ConflictingTypes = "GT0411", Data,
        "conflicting types",
        "The parts of a schema that must all hold (its own keywords, its $ref target, its allOf members) allow no common value, or give one member two different types. Example: {\"allOf\": [{\"type\": \"integer\"}, {\"type\": \"string\"}]}, or allOf parts declaring \"hp\" once as an integer and once as a string. Fix: make the parts agree; the message names the member.";
    UnresolvedRef = "GT0412", Data,
        "unresolved reference",
        "A $ref does not resolve within the schema folder: a file that is not there, a JSON pointer or $anchor that names nothing, or a remote URL (nothing is ever fetched); also a \"$schema\" naming a custom meta-schema at a URL. Pointers may use ~0, ~1 and %XX escapes; $id and $anchor are honoured. Example: \"$ref\": \"http://example.com/unit.json\", or \"#/$defs/Untis\". Fix: copy the schema into the schema folder and refer to it by file name (\"unit.schema.json#/$defs/Unit\"), or correct the pointer.";
    AcceptsNothing = "GT0413", Data,
        "schema accepts nothing",
        "A property schema accepts no value at all, so no cell could ever be valid: the boolean schema false, an empty enum, or a required member whose schema is false. Example: \"Hp\": false. Fix: give the property a real schema, or remove it (a member that must never appear needs no property).";
    UnsupportedShape = "GT0414", Data,
        "unsupported shape",
        "The schema describes values that generated code cannot hold as typed fields: a $dynamicRef (resolved per value at validation), a tuple item that may be null after minItems (a left-out item and a null one would read the same), a scalar union of a 64-bit integer and a string, a map key that is not a string or an integer, a recursion with no record between, an open record with a member named additionalProperties. Example: \"prefixItems\": [{\"type\": \"integer\"}, {\"type\": [\"string\", \"null\"]}] without minItems 2. Fix: as the message says (use $ref instead of $dynamicRef, raise minItems, bound the integer, rename the member).";
    UnsupportedFormat = "GT0415", Data,
        "unsupported format",
        "A \"format\" that gentable does not implement for the value's type, so it would be ignored: gentable types integer formats int8 … uint64 (the width), number format double, string formats date-time, date, time and duration, and validates the other string formats of JSON Schema 2020-12 (email, hostname, ipv4, ipv6, uri, uuid, regex, …). Anything else (\"float\": every number is a 64-bit double; a typo such as \"date_time\"; a custom format) is refused rather than silently ignored. Example: \"type\": \"number\", \"format\": \"float\". Fix: write a supported format (the message lists them), or remove \"format\".";
    StaleFile = "GT0501", Output,
        "stale generated file",
        "`gentable build --check` found a file under generated/ that differs from what the tables produce (someone edited tables without regenerating, or edited generated code by hand), or a file the tables no longer produce. Example: Table/PieceType.csv changed but generated/ was not rebuilt. Fix: run `gentable build` (Tools/GenTable.sh) and commit generated/.";
    LubanInput = "GT0601", Configuration,
        "bad Luban input",
        "`gentable import luban` cannot read a file of the Luban project: luban.conf is not JSON, a Defines/*.xml file is malformed, an __tables__/__beans__/__enums__ workbook or a sheet's ##var/##type row names an unknown type, or a table's input is missing. The diagnostic names the Luban file and, for workbooks, the sheet and cell. Example: ##type cell `lsit,int` (a typo of list). Fix: correct the Luban file (Luban itself rejects it too); the importer never writes to the Luban project.";
    StaleImport = "GT0602", Output,
        "imported project out of date",
        "`gentable import luban --check` found that re-importing the Luban project would create, change or remove files of the gentable project (someone changed Luban's definitions or the sheets of a workbook a table reads without re-importing, fixed the data of a table the last import left out, or edited an imported schema by hand). Example: a new <var> in Defines/item.xml. Fix: run `gentable import luban <luban.conf> --out <project>` and commit the result.";
}

impl Code {
    /// The code of `text` (`GT0201`, case-insensitive), if there is one.
    pub fn parse(text: &str) -> Option<Code> {
        let t = text.to_ascii_uppercase();
        Code::ALL.iter().copied().find(|c| c.as_str() == t)
    }

    /// The number, e.g. 201 for `GT0201`.
    pub fn number(self) -> u16 {
        self.as_str()[2..]
            .parse()
            .expect("codes are GT and four digits")
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Tests and tools compare a code with its text: `d.code == "GT0304"`.
impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// `gentable explain CODE`: the code, its title and its explanation, or `None` for an unknown code.
pub fn explain(code: &str) -> Option<String> {
    explain_in(code, super::lang::Lang::En)
}

/// [`explain`] in `lang` (Chinese from the catalog of [`super::lang`]).
pub fn explain_in(code: &str, lang: super::lang::Lang) -> Option<String> {
    use super::lang;
    let c = Code::parse(code)?;
    let colon = if lang == lang::Lang::Zh { "：" } else { ": " };
    Some(format!(
        "{c}{colon}{}\n\n{}",
        lang::title(c, lang),
        lang::explanation(c, lang)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_ordered_and_explained() {
        let mut seen = std::collections::BTreeSet::new();
        let mut last = 0;
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
            assert!(c.number() > last, "{c} out of order");
            last = c.number();
            assert!(c.as_str().len() == 6 && c.as_str().starts_with("GT"), "{c}");
            assert!(c.explanation().contains("Fix"), "{c} has no fix");
            assert_eq!(Code::parse(&c.as_str().to_lowercase()), Some(*c));
        }
        assert!(explain("gt0302")
            .unwrap()
            .starts_with("GT0302: duplicate primary key\n\n"));
        assert!(explain("GT9999").is_none());
        assert_eq!(Code::ProjectLayout.class().exit_code(), 2);
        assert_eq!(Code::WrongType.class().exit_code(), 1);
        assert_eq!(Code::StaleFile.class(), Class::Output);
    }
}
