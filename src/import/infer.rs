//! `gentable init` (a new project: gentable.toml, one example table and its schema) and `gentable infer
//! FILE` (a JSON Schema guessed from a header row and data), for teams coming from
//! UnityGameFramework, ET, tabtoy or plain CSV (docs/conventions.md §8).
//!
//! Inference per column, over every non-empty data cell: all `true`/`false` → boolean; all integers →
//! integer; all numbers → number; else string, or a string enum when a column of at least 4 rows has at
//! most 8 distinct values that each repeat; the primary key is the first column whose values are unique
//! and non-empty (integers or strings). The guess is a starting point: review it.

use super::write::{write, Report};
use crate::diag::lang::{frame, message, Lang};
use crate::read::raw::{RawCell, RawTable};
use serde_json::{json, Map, Value as J};
use std::path::Path;

const EXAMPLE_CSV: &str =
    "Id,Name,Price,Tradable\n1,Sword,120,true\n2,Shield,80,false\n3,Potion,5,true\n";

/// `gentable init DIR`: write a new project that builds (`gentable build` in DIR), without replacing any
/// existing file.
pub fn init(dir: &Path, lang: Lang) -> Report {
    if dir.join("gentable.toml").exists() {
        return Report {
            stderr: frame(
                lang,
                "error: {} already has a gentable.toml; nothing was written",
                &[&dir.display()],
            ) + "\n",
            exit_code: 2,
            ..Report::default()
        };
    }
    let name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().to_string()))
        .unwrap_or_else(|| "Project".into());
    let toml = format!(
        "[project]\nname = {}\ntables = [\"Table\"]\nschemas = \"schema\"\ngenerated = \"generated\"\n\n[rust]\ncrate_name = \"tables\"\n\n[csharp]\nnamespace = \"GameConfig\"\n",
        toml::Value::String(name)
    );
    let table = match read_csv(EXAMPLE_CSV.as_bytes()) {
        Some(t) => t,
        None => {
            return Report {
                stderr: frame(lang, "error: the example table does not parse", &[]) + "\n",
                exit_code: 2,
                ..Report::default()
            }
        }
    };
    let schema = schema_of(&table, "Item");
    let files = vec![
        ("gentable.toml".to_string(), toml),
        ("Table/Item.csv".to_string(), EXAMPLE_CSV.to_string()),
        (
            "schema/Item.schema.json".to_string(),
            serde_json::to_string_pretty(&schema).expect("json") + "\n",
        ),
    ];
    match write(dir, &files, None, false) {
        Ok(changes) => Report {
            stdout: changes
                .iter()
                .map(|c| format!("{}\n", c.say(lang)))
                .collect::<String>()
                + &frame(
                    lang,
                    "next: gentable build -c {}",
                    &[&shell_word(
                        &dir.join("gentable.toml").display().to_string(),
                    )],
                )
                + "\n",
            ..Report::default()
        },
        Err(e) => Report {
            stderr: frame(lang, "error: {}", &[&message(&format!("{e:#}"), lang)]) + "\n",
            exit_code: 2,
            ..Report::default()
        },
    }
}

/// `path` as one word of a POSIX shell command line: as it is when it has only safe characters, else in
/// single quotes (a `'` inside written `'\''`), so that the printed command runs when pasted.
fn shell_word(path: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c) || !c.is_ascii();
    // A relative path starting with '-' would read as an option.
    let path = if path.starts_with('-') {
        format!("./{path}")
    } else {
        path.to_string()
    };
    if !path.is_empty() && path.chars().all(safe) {
        path
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// `gentable infer FILE [--sheet NAME]`: print the guessed schema of a CSV file or a worksheet.
pub fn command(file: &Path, sheet: Option<&str>, lang: Lang) -> Report {
    let fail = |m: String| Report {
        stderr: frame(lang, "error: {}", &[&message(&m, lang)]) + "\n",
        exit_code: 2,
        ..Report::default()
    };
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let name = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("Table")
        .to_string();
    let table = if crate::read::discover::WORKBOOK_EXT.contains(&ext.as_str()) {
        let src = crate::read::discover::SourceFile {
            path: file.to_path_buf(),
            rel: file.to_string_lossy().to_string(),
            rel_in_folder: file.to_string_lossy().to_string(),
        };
        let mut diags = vec![];
        let (sheets, seen) = crate::read::workbook::read_workbook_file_and_sheets(
            &src,
            &crate::config::Limits::default(),
            &mut diags,
        );
        if let Some(d) = diags.first() {
            return fail(d.message.clone());
        }
        // Sheet names are NFC as read (a name typed on macOS may come in NFD).
        let wanted = sheet.map(|s| crate::read::raw::normalize_text(s).into_owned());
        match sheets
            .into_iter()
            .find(|t| wanted.is_none() || t.sheet.as_deref() == wanted.as_deref())
        {
            Some(t) => t,
            None => return fail(no_sheet(file, wanted.as_deref(), &seen)),
        }
    } else if let Some(s) = sheet {
        // A CSV file has no sheets: a --sheet would be ignored, so it is refused.
        return fail(format!(
            "{} is a CSV file, which has no sheets: --sheet {s:?} applies to workbooks (.xlsx, .xls, .ods)",
            file.display()
        ));
    } else {
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
        };
        if let Some((e32, _)) = crate::read::csv::utf32(&bytes) {
            return fail(format!(
                "{} is {e32} text, not UTF-8 CSV: save it as \"CSV UTF-8\" and infer it again",
                file.display()
            ));
        }
        match read_csv(&bytes) {
            Some(t) => t,
            // The build names a UTF-16 file without a byte-order mark at the file (GT0102); say the same
            // here instead of "not UTF-8" alone.
            None => match crate::read::csv::utf16_without_bom(&bytes) {
                Some(e) => {
                    return fail(format!(
                        "{} is {} text without a byte-order mark, not UTF-8 CSV: save it as \"CSV UTF-8\" and infer it again",
                        file.display(),
                        e.name()
                    ))
                }
                None => {
                    return fail(format!(
                        "{} is not UTF-8 CSV: save it as \"CSV UTF-8\" and infer it again",
                        file.display()
                    ))
                }
            },
        }
    };
    let title = table.sheet.as_deref().map(str::to_string).unwrap_or(name);
    let schema = schema_of(&table, &title);
    // An empty schema is no answer: a CI step or a designer pasting it would get a table without columns.
    if schema["properties"].as_object().is_some_and(Map::is_empty) {
        return fail(format!(
            "{} has no header row with column names (it is empty, or has only blank and # comment rows): nothing to infer",
            file.display()
        ));
    }
    Report {
        stdout: serde_json::to_string_pretty(&schema).expect("json") + "\n",
        ..Report::default()
    }
}

/// Why `gentable infer` has no sheet `wanted` (or, without `--sheet`, no sheet at all) of the workbook
/// `file` to read: a sheet of that name that exists is skipped as a comment sheet or as empty (say so, and
/// what makes it a table); else the sheets it has.
fn no_sheet(
    file: &Path,
    wanted: Option<&str>,
    sheets: &[(String, Option<crate::read::workbook::Skipped>)],
) -> String {
    use crate::read::workbook::Skipped;
    let Some(wanted) = wanted else {
        return format!(
            "{} has no sheet with a value to infer a schema from: its sheets are empty or comment sheets (named #…)",
            file.display()
        );
    };
    match sheets.iter().find(|(n, _)| n == wanted).and_then(|(_, why)| *why) {
        Some(Skipped::Comment) => format!(
            "sheet {wanted:?} of {} is skipped: its name starts with #, which makes it a comment sheet, not a table (rename it to make it a table)",
            file.display()
        ),
        Some(Skipped::Empty) => format!(
            "sheet {wanted:?} of {} is skipped: it has no cell with a value, and an empty sheet is no table",
            file.display()
        ),
        None if sheets.is_empty() => format!("{} has no sheet {wanted:?}", file.display()),
        None => format!(
            "{} has no sheet {wanted:?}; its sheets are {}",
            file.display(),
            crate::diag::list::and(sheets.iter().map(|(n, _)| format!("{n:?}")))
        ),
    }
}

/// A UTF-8 (or UTF-16 with BOM) CSV text as a raw table; `None` when it does not decode.
fn read_csv(bytes: &[u8]) -> Option<RawTable> {
    let mut diags = vec![];
    let limits = crate::config::Limits::default();
    let t = crate::read::csv::read_csv_bytes(
        "Table",
        "table.csv",
        bytes,
        None,
        b',',
        &limits,
        &mut diags,
    );
    t.filter(|_| diags.is_empty())
}

/// The guessed schema of a table whose first non-blank, non-comment row is the header (a row whose first
/// cell starts with `#` is a comment, docs/conventions.md §1, as the build reads it by default).
pub fn schema_of(t: &RawTable, title: &str) -> J {
    let mut rows = t.rows.iter().filter(|r| {
        !r.cells.iter().all(RawCell::is_blank)
            && !r
                .cells
                .first()
                .is_some_and(|c| c.text().trim_start().starts_with('#'))
    });
    let Some(header) = rows.next() else {
        return json!({"type": "object", "title": title, "properties": {}});
    };
    let data: Vec<_> = rows.collect();
    let mut props = Map::new();
    let mut required = vec![];
    let mut key = None;
    for (c, h) in header.cells.iter().enumerate() {
        let h = h.text().trim().to_string();
        if h.is_empty() || h.starts_with('#') {
            continue;
        }
        let cells: Vec<String> = data
            .iter()
            .map(|r| {
                r.cells
                    .get(c)
                    .map(RawCell::text)
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            })
            .collect();
        let filled: Vec<&String> = cells.iter().filter(|x| !x.is_empty()).collect();
        let all = |f: &dyn Fn(&str) -> bool| !filled.is_empty() && filled.iter().all(|x| f(x));
        let mut distinct: Vec<&String> = filled.clone();
        distinct.sort();
        distinct.dedup();
        let s = if all(&|x| matches!(x.to_ascii_lowercase().as_str(), "true" | "false")) {
            json!({"type": "boolean"})
        } else if all(&|x| x.parse::<i32>().is_ok()) {
            json!({"type": "integer"})
        } else if all(&|x| x.parse::<i64>().is_ok()) {
            // Unbounded integers are 32-bit (docs/conventions.md §4): wider values need the format, or
            // the inferred schema would refuse its own table.
            json!({"type": "integer", "format": "int64"})
        } else if all(&|x| x.parse::<u64>().is_ok()) {
            json!({"type": "integer", "format": "uint64"})
        } else if all(&|x| x.parse::<f64>().is_ok_and(f64::is_finite)) {
            json!({"type": "number"})
        } else if filled.len() >= 4 && distinct.len() <= 8 && distinct.len() * 2 <= filled.len() {
            json!({"type": "string", "enum": distinct})
        } else {
            json!({"type": "string"})
        };
        let unique =
            filled.len() == cells.len() && distinct.len() == filled.len() && !filled.is_empty();
        if key.is_none()
            && unique
            && matches!(s["type"].as_str(), Some("integer" | "string"))
            && s.get("enum").is_none()
        {
            key = Some(h.clone());
        }
        if filled.len() == cells.len() && !cells.is_empty() {
            required.push(json!(h));
        }
        props.insert(h, s);
    }
    let mut out = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "type": "object",
        "properties": props,
        "required": required,
    });
    if let Some(k) = key {
        out["x-gentable-primaryKey"] = json!(k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CSV file that is not UTF-8 is refused with what it is and how to save it; UTF-16 without a
    /// byte-order mark (Excel's "Unicode Text" after another tool dropped the mark) is named as such.
    #[test]
    fn infer_names_utf16_without_a_bom() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("Unit.csv");
        let utf16: Vec<u8> = "Id\tName\r\n1\tArcher\r\n2\tKnight\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        std::fs::write(&csv, &utf16).unwrap();
        let r = command(&csv, None, Lang::En);
        assert_eq!(r.exit_code, 2);
        assert!(
            r.stderr.contains("is UTF-16LE text without a byte-order mark, not UTF-8 CSV: save it as \"CSV UTF-8\""),
            "{}",
            r.stderr
        );
        std::fs::write(&csv, b"Id,Name\n1,\xb9\xad\xbc\xfd\xca\xd6\n").unwrap();
        let r = command(&csv, None, Lang::En);
        assert_eq!(r.exit_code, 2);
        assert!(
            r.stderr
                .contains("is not UTF-8 CSV: save it as \"CSV UTF-8\""),
            "{}",
            r.stderr
        );
        // UTF-32 (with its byte-order mark) is named, never read as UTF-16 with a NUL in every name.
        let utf32: Vec<u8> = "\u{feff}Id,Name\n1,Archer\n"
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        std::fs::write(&csv, &utf32).unwrap();
        let r = command(&csv, None, Lang::En);
        assert_eq!((r.exit_code, r.stdout.as_str()), (2, ""));
        assert!(
            r.stderr
                .contains("is UTF-32LE text, not UTF-8 CSV: save it as \"CSV UTF-8\""),
            "{}",
            r.stderr
        );
    }

    /// A file with no header row (empty, blank lines, comments only) is an error, not an empty schema
    /// printed with success.
    #[test]
    fn infer_refuses_a_file_without_a_header_row() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("Unit.csv");
        for text in ["", "\n\n", "# notes only,\n,,\n"] {
            std::fs::write(&csv, text).unwrap();
            let r = command(&csv, None, Lang::En);
            assert_eq!((r.exit_code, r.stdout.as_str()), (2, ""), "{text:?}");
            assert!(
                r.stderr.contains("has no header row with column names (it is empty, or has only blank and # comment rows): nothing to infer"),
                "{}",
                r.stderr
            );
        }
        std::fs::write(&csv, "Id\n1\n").unwrap();
        assert_eq!(command(&csv, None, Lang::En).exit_code, 0);
    }

    /// `init` names the command to run next with the project's own path (it said "-c gentable.toml (in
    /// that folder)", which ran nothing when pasted), quoted for a shell when it has to be.
    #[test]
    fn init_prints_the_next_command_with_the_project_path() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("my game's 表");
        let r = init(&dir, Lang::En);
        assert_eq!(r.exit_code, 0, "{}", r.stderr);
        let toml = dir.join("gentable.toml").display().to_string();
        let want = format!(
            "next: gentable build -c '{}'\n",
            toml.replace('\'', "'\\''")
        );
        assert!(r.stdout.ends_with(&want), "{}", r.stdout);
        assert!(dir.join("gentable.toml").is_file());
        assert_eq!(
            shell_word("work/Game/gentable.toml"),
            "work/Game/gentable.toml"
        );
        assert_eq!(shell_word("配置/gentable.toml"), "配置/gentable.toml");
        assert_eq!(shell_word("a b/gentable.toml"), "'a b/gentable.toml'");
        assert_eq!(shell_word("-dash/gentable.toml"), "./-dash/gentable.toml");
        assert_eq!(shell_word("it's/gentable.toml"), "'it'\\''s/gentable.toml'");
    }

    /// A `--sheet` given with a CSV file was ignored (the last session's "seen and left alone"): it is an
    /// error now, and without it the same file is read.
    #[test]
    fn a_sheet_of_a_csv_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("Unit.csv");
        std::fs::write(&csv, "Id,Name\n1,a\n").unwrap();
        let r = command(&csv, Some("Nope"), Lang::En);
        assert_eq!(r.exit_code, 2);
        assert!(
            r.stderr.contains(
                "is a CSV file, which has no sheets: --sheet \"Nope\" applies to workbooks"
            ),
            "{}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        let r = command(&csv, None, Lang::En);
        assert_eq!(r.exit_code, 0, "{}", r.stderr);
        assert!(
            r.stdout.contains("\"x-gentable-primaryKey\": \"Id\""),
            "{}",
            r.stdout
        );
    }

    /// `--sheet` naming a sheet that exists but is no table says so and why (it said "has no sheet"): a
    /// comment sheet (`#…`) and an empty one; a sheet that does not exist gets the workbook's sheets; a
    /// workbook without a table sheet says so (it said `has no sheet ""`).
    #[test]
    fn a_skipped_sheet_is_named_with_why() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("Units.xlsx");
        let mut wb = rust_xlsxwriter::Workbook::new();
        let ws = wb.add_worksheet().set_name("Unit").unwrap();
        ws.write_string(0, 0, "Id").unwrap();
        ws.write_number(1, 0, 1).unwrap();
        let ws = wb.add_worksheet().set_name("#Notes").unwrap();
        ws.write_string(0, 0, "Id").unwrap();
        ws.write_number(1, 0, 1).unwrap();
        wb.add_worksheet().set_name("Sheet2").unwrap();
        wb.save(&book).unwrap();
        let shown = book.display().to_string();
        for (sheet, en, zh) in [
            (
                "#Notes",
                format!("error: sheet \"#Notes\" of {shown} is skipped: its name starts with #, which makes it a comment sheet, not a table (rename it to make it a table)\n"),
                format!("错误：{shown} 的工作表 \"#Notes\" 被跳过：它的名称以 # 开头，因此是注释工作表而不是表（改名后才是表）\n"),
            ),
            (
                "Sheet2",
                format!("error: sheet \"Sheet2\" of {shown} is skipped: it has no cell with a value, and an empty sheet is no table\n"),
                format!("错误：{shown} 的工作表 \"Sheet2\" 被跳过：它没有任何有值的单元格，空工作表不是表\n"),
            ),
            (
                "Nope",
                format!("error: {shown} has no sheet \"Nope\"; its sheets are \"Unit\", \"#Notes\" and \"Sheet2\"\n"),
                format!("错误：{shown} 没有工作表 \"Nope\"；它的工作表是 \"Unit\"、\"#Notes\" 和 \"Sheet2\"\n"),
            ),
        ] {
            let r = command(&book, Some(sheet), Lang::En);
            assert_eq!((r.exit_code, r.stdout.as_str()), (2, ""), "{sheet}");
            assert_eq!(r.stderr, en);
            assert_eq!(command(&book, Some(sheet), Lang::Zh).stderr, zh);
        }
        let r = command(&book, Some("Unit"), Lang::En);
        assert_eq!(r.exit_code, 0, "{}", r.stderr);
        assert!(r.stdout.contains("\"title\": \"Unit\""), "{}", r.stdout);
        // No table sheet at all, and no --sheet.
        let empty = dir.path().join("Empty.xlsx");
        let mut wb = rust_xlsxwriter::Workbook::new();
        wb.add_worksheet().set_name("Sheet1").unwrap();
        wb.add_worksheet()
            .set_name("#Notes")
            .unwrap()
            .write_string(0, 0, "x")
            .unwrap();
        wb.save(&empty).unwrap();
        let r = command(&empty, None, Lang::En);
        assert_eq!(
            r.stderr,
            format!(
                "error: {} has no sheet with a value to infer a schema from: its sheets are empty or comment sheets (named #…)\n",
                empty.display()
            )
        );
    }

    /// Comment rows above the header (every FunnyPitch table has them) are skipped, as the build skips them
    /// (found by the final newcomer pass: the schema came out empty).
    #[test]
    fn comment_rows_are_not_the_header() {
        let csv = "# 单位表\n#Id,名字\nId,Name,Hp\n1,步兵,10\n# 注释\n2,骑兵,20\n";
        let t = read_csv(csv.as_bytes()).unwrap();
        let s = schema_of(&t, "Unit");
        assert_eq!(s["x-gentable-primaryKey"], "Id");
        assert_eq!(s["required"], json!(["Id", "Name", "Hp"]));
        assert_eq!(s["properties"]["Hp"]["type"], "integer");
    }

    #[test]
    fn infers_types_enum_and_key() {
        let csv = "Id,Name,Kind,Hp,Speed,Boss\n1,狼，灰,Beast,10,1.5,false\n2,熊「大」,Beast,20,2,false\n3,龙,Dragon,300,3.25,true\n4,鼠,Beast,5,4,false\n";
        let t = read_csv(csv.as_bytes()).unwrap();
        let s = schema_of(&t, "Monster");
        assert_eq!(s["x-gentable-primaryKey"], "Id");
        assert_eq!(s["properties"]["Id"]["type"], "integer");
        assert_eq!(s["properties"]["Name"]["type"], "string");
        assert_eq!(s["properties"]["Kind"]["enum"], json!(["Beast", "Dragon"]));
        assert_eq!(s["properties"]["Speed"]["type"], "number");
        assert_eq!(s["properties"]["Boss"]["type"], "boolean");
        assert_eq!(s["properties"]["Hp"].get("format"), None);
    }

    /// Found by the newcomer pass: 64-bit values were inferred as a plain (32-bit) integer, so the
    /// inferred schema refused its own table (GT0202).
    #[test]
    fn wide_integers_get_their_format() {
        let csv = "Id,Big,Huge\n1,3000000000,18446744073709551615\n2,-9223372036854775808,1\n";
        let t = read_csv(csv.as_bytes()).unwrap();
        let s = schema_of(&t, "Wide");
        assert_eq!(s["properties"]["Id"], json!({"type": "integer"}));
        assert_eq!(
            s["properties"]["Big"],
            json!({"type": "integer", "format": "int64"})
        );
        assert_eq!(
            s["properties"]["Huge"],
            json!({"type": "integer", "format": "uint64"})
        );
    }

    #[test]
    fn init_writes_a_project_that_builds_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let r = init(dir.path(), Lang::En);
        assert_eq!(r.exit_code, 0, "{}", r.stderr);
        assert!(
            r.stdout.starts_with("create gentable.toml\n"),
            "{}",
            r.stdout
        );
        // In Chinese (--lang zh), the same lines.
        let zh_dir = tempfile::tempdir().unwrap();
        let zh = init(zh_dir.path(), Lang::Zh);
        assert!(
            zh.stdout.starts_with("创建 gentable.toml\n")
                && zh.stdout.ends_with(&format!(
                    "下一步：gentable build -c {}\n",
                    shell_word(&zh_dir.path().join("gentable.toml").display().to_string())
                )),
            "{}",
            zh.stdout
        );
        let out = crate::build::run(&crate::build::Request {
            config: dir.path().join("gentable.toml"),
            action: crate::build::Action::Validate,
            cache: false,
            deny_warnings: true,
            quiet: true,
            format: crate::diag::render::Format::Human,
            max_per_kind: 0,
            lang: crate::diag::lang::Lang::En,
            wait: crate::build::lock::Wait::Yes,
        });
        assert_eq!(out.exit_code, 0, "{:?}", out.output);
        assert_eq!(init(dir.path(), Lang::En).exit_code, 2);
    }
}
