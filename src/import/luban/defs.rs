//! Reading a Luban project's definitions: `luban.conf` (JSON), `Defines/*.xml` (`<module>`, `<enum>`,
//! `<bean>`, `<table>`, `<refgroup>`, `<constalias>`), the `__tables__`/`__beans__`/`__enums__` workbooks
//! and the auto-import workbooks `#Name.xlsx` whose sheets define their bean by `##var`/`##type` rows.
//!
//! Source: Luban's documentation (luban.conf `schemaFiles`, `dataDir`, `groups`, `targets`; the XML schema;
//! the Excel schema workbooks) and the example project in `../shared/realdata/luban-examples/`. Every problem
//! is a GT0601 diagnostic naming the Luban file (and sheet, row and column); nothing is ever written there.

use super::model::*;
use crate::diag::{Code, Diagnostic};
use crate::read::discover::SourceFile;
use crate::read::raw::{RawCell, RawTable};
use std::path::Path;

/// A GT0601 diagnostic at `place`.
pub fn error(place: &Place, message: impl Into<String>) -> Diagnostic {
    let mut d = Diagnostic::file_error(Code::LubanInput, &place.file, message);
    d.sheet = place.sheet.clone();
    d.row = place.row;
    d.column = place.col.map(crate::diag::column_letters);
    d
}

/// Read the Luban project whose `luban.conf` is `conf`. Diagnostics of every file are collected; the result
/// holds what could be read.
pub fn read(conf: &Path, diags: &mut Vec<Diagnostic>) -> Luban {
    let root = conf.parent().unwrap_or(Path::new("."));
    let conf_name = conf
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let whole = Place {
        file: conf_name.clone(),
        ..Place::default()
    };
    let mut out = Luban::default();
    let text = match std::fs::read_to_string(conf) {
        Ok(t) => t,
        Err(e) => {
            diags.push(error(
                &whole,
                format!("cannot read {}: {e}", conf.display()),
            ));
            return out;
        }
    };
    let j: serde_json::Value = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => {
            let mut d = error(&whole, format!("luban.conf is not JSON: {e}"));
            d.row = e.line();
            diags.push(d);
            return out;
        }
    };
    let strings = |v: Option<&serde_json::Value>| -> Vec<String> {
        v.and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    for g in j
        .get("groups")
        .and_then(|g| g.as_array())
        .into_iter()
        .flatten()
    {
        let default = g.get("default").and_then(|d| d.as_bool()).unwrap_or(false);
        out.groups.push((strings(g.get("names")), default));
    }
    for t in j
        .get("targets")
        .and_then(|g| g.as_array())
        .into_iter()
        .flatten()
    {
        out.targets.push(Target {
            name: t
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or_default()
                .into(),
            groups: strings(t.get("groups")),
        });
    }
    out.data_dir = j
        .get("dataDir")
        .and_then(|d| d.as_str())
        .unwrap_or("Datas")
        .to_string();
    for f in j
        .get("schemaFiles")
        .and_then(|g| g.as_array())
        .into_iter()
        .flatten()
    {
        let name = f
            .get("fileName")
            .and_then(|n| n.as_str())
            .unwrap_or_default();
        let kind = f.get("type").and_then(|n| n.as_str()).unwrap_or_default();
        let path = root.join(name);
        if path.is_dir() {
            let mut files: Vec<_> = std::fs::read_dir(&path)
                .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
                .unwrap_or_default();
            files.sort();
            for p in files
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "xml"))
            {
                let rel = rel_to(root, p);
                read_xml(p, &rel, &mut out, diags);
            }
        } else if !path.is_file() {
            diags.push(error(
                &whole,
                format!("schemaFiles names {name:?}, which does not exist"),
            ));
        } else if kind.is_empty() || name.ends_with(".xml") {
            read_xml(&path, name, &mut out, diags);
        } else {
            let sheets = read_sheets(&path, name, diags);
            match kind {
                "table" => schema_tables(&sheets, &mut out, diags),
                "bean" => schema_beans(&sheets, &mut out, diags),
                "enum" => schema_enums(&sheets, &mut out, diags),
                other => diags.push(error(
                    &whole,
                    format!("schemaFiles entry {name:?} has the unknown type {other:?} (table, bean, enum or empty)"),
                )),
            }
        }
    }
    auto_import(&root.join(&out.data_dir), &out.data_dir.clone(), &mut out);
    out
}

/// `p` relative to `root`, `/`-separated.
fn rel_to(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every worksheet of a workbook through gentable's own reader (the cells the build will see).
pub fn read_sheets(path: &Path, rel: &str, diags: &mut Vec<Diagnostic>) -> Vec<RawTable> {
    read_with(path, rel, crate::read::workbook::read_workbook_file, diags)
}

/// [`read_sheets`] with the sheets named `#…` too (which gentable never reads, but Luban does when their A1
/// cell starts with `##`).
pub fn read_every_sheet(path: &Path, rel: &str, diags: &mut Vec<Diagnostic>) -> Vec<RawTable> {
    read_with(
        path,
        rel,
        crate::read::workbook::read_every_sheet_file,
        diags,
    )
}

type ReadFile = fn(&SourceFile, &crate::config::Limits, &mut Vec<Diagnostic>) -> Vec<RawTable>;

fn read_with(path: &Path, rel: &str, read: ReadFile, diags: &mut Vec<Diagnostic>) -> Vec<RawTable> {
    let file = SourceFile {
        path: path.to_path_buf(),
        rel: rel.to_string(),
        rel_in_folder: rel.to_string(),
    };
    let mut d = vec![];
    let sheets = read(&file, &crate::config::Limits::default(), &mut d);
    for x in d {
        let mut x = x;
        x.code = Code::LubanInput;
        diags.push(x);
    }
    sheets
}

fn read_xml(path: &Path, rel: &str, out: &mut Luban, diags: &mut Vec<Diagnostic>) {
    let place = Place {
        file: rel.to_string(),
        ..Place::default()
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return diags.push(error(&place, format!("cannot read: {e}"))),
    };
    let doc = match roxmltree::Document::parse(&text) {
        Ok(d) => d,
        Err(e) => {
            let pos = e.pos();
            let mut d = error(&place, format!("malformed XML: {e}"));
            d.row = pos.row as usize;
            return diags.push(d);
        }
    };
    let root = doc.root_element();
    if root.tag_name().name() != "module" {
        return diags.push(error(
            &place,
            format!(
                "the root element is <{}>, expected <module>",
                root.tag_name().name()
            ),
        ));
    }
    module(root, "", rel, &doc, out, diags);
}

fn attr(n: roxmltree::Node, k: &str) -> Option<String> {
    n.attribute(k).map(|s| s.trim().to_string())
}

fn list(v: Option<String>) -> Vec<String> {
    v.map(|s| {
        s.split([',', ';', '|'])
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

/// The text directly inside an element (Luban's comments after `<enum …>`), trimmed.
fn inner_text(n: roxmltree::Node) -> String {
    n.children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn module(
    node: roxmltree::Node,
    parent: &str,
    rel: &str,
    doc: &roxmltree::Document,
    out: &mut Luban,
    diags: &mut Vec<Diagnostic>,
) {
    let name = attr(node, "name").unwrap_or_default();
    let m = if parent.is_empty() {
        name
    } else if name.is_empty() {
        parent.to_string()
    } else {
        format!("{parent}.{name}")
    };
    for c in node.children().filter(|c| c.is_element()) {
        let place = Place {
            file: rel.to_string(),
            row: doc.text_pos_at(c.range().start).row as usize,
            ..Place::default()
        };
        let Some(name) = attr(c, "name") else {
            if !matches!(c.tag_name().name(), "mapper") {
                diags.push(error(
                    &place,
                    format!("<{}> has no name", c.tag_name().name()),
                ));
            }
            continue;
        };
        match c.tag_name().name() {
            "module" => module(c, &m, rel, doc, out, diags),
            "enum" => {
                let mut items = vec![];
                for v in c.children().filter(|v| v.has_tag_name("var")) {
                    let Some(n) = attr(v, "name") else {
                        diags.push(error(&place, format!("an item of enum {name} has no name")));
                        continue;
                    };
                    items.push(EnumItem {
                        name: n,
                        alias: attr(v, "alias").filter(|a| !a.is_empty()),
                        value: attr(v, "value").filter(|a| !a.is_empty()),
                        comment: attr(v, "comment").unwrap_or_default(),
                    });
                }
                let flags = matches!(attr(c, "flags").as_deref(), Some("1" | "true" | "True"));
                out.enums.push(EnumDef {
                    full: join(&m, &name),
                    flags,
                    items,
                    comment: attr(c, "comment").unwrap_or_else(|| inner_text(c)),
                    place,
                });
            }
            "bean" => bean(c, &m, None, rel, doc, out, diags),
            "table" => out.tables.push(TableDef {
                full: join(&m, &name),
                value: attr(c, "value").unwrap_or_default(),
                index: attr(c, "index").unwrap_or_default(),
                mode: attr(c, "mode").unwrap_or_default(),
                input: list_inputs(&attr(c, "input").unwrap_or_default()),
                group: list(attr(c, "group")),
                comment: attr(c, "comment").unwrap_or_default(),
                schema_from_file: matches!(
                    attr(c, "readSchemaFromFile").as_deref(),
                    Some("1" | "true" | "True")
                ),
                place,
            }),
            "refgroup" => out.refgroups.push(RefGroup {
                full: join(&m, &name),
                tables: list(attr(c, "ref")),
            }),
            "constalias" => out.constaliases.push(name),
            other => diags.push(error(&place, format!("unknown element <{other}> (Luban knows module, enum, bean, table, refgroup, constalias)"))),
        }
    }
}

/// Inputs are separated by `,` (a trailing one is allowed).
fn list_inputs(s: &str) -> Vec<String> {
    s.split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

fn bean(
    c: roxmltree::Node,
    m: &str,
    enclosing: Option<&str>,
    rel: &str,
    doc: &roxmltree::Document,
    out: &mut Luban,
    diags: &mut Vec<Diagnostic>,
) {
    let name = attr(c, "name").unwrap_or_default();
    let full = join(m, &name);
    let place = Place {
        file: rel.to_string(),
        row: doc.text_pos_at(c.range().start).row as usize,
        ..Place::default()
    };
    let mut vars = vec![];
    for v in c.children().filter(|v| v.is_element()) {
        match v.tag_name().name() {
            "var" => {
                let vplace = Place {
                    row: doc.text_pos_at(v.range().start).row as usize,
                    ..place.clone()
                };
                let (Some(n), Some(t)) = (attr(v, "name"), attr(v, "type")) else {
                    diags.push(error(
                        &vplace,
                        format!("a <var> of bean {full} needs name and type"),
                    ));
                    continue;
                };
                let mut unmapped = vec![];
                for k in ["variants", "tags"] {
                    if let Some(x) = attr(v, k).filter(|x| !x.is_empty()) {
                        unmapped.push(format!("{k}={x}"));
                    }
                }
                let mut ty = t;
                // `ref=` written as an attribute of the var is sugar for `#ref=` in the type.
                if let Some(r) = attr(v, "ref").filter(|r| !r.is_empty()) {
                    ty = format!("{ty}#ref={r}");
                }
                vars.push(Var {
                    name: n,
                    ty,
                    group: list(attr(v, "group")),
                    comment: attr(v, "comment").unwrap_or_default(),
                    alias: attr(v, "alias").filter(|a| !a.is_empty()),
                    unmapped,
                    place: vplace,
                });
            }
            "bean" => bean(v, m, Some(&full), rel, doc, out, diags),
            "mapper" => {}
            other => diags.push(error(
                &place,
                format!("unknown element <{other}> in bean {full}"),
            )),
        }
    }
    out.beans.push(BeanDef {
        full,
        parent: attr(c, "parent")
            .filter(|p| !p.is_empty())
            .or(enclosing.map(String::from)),
        sep: attr(c, "sep").filter(|s| !s.is_empty()),
        alias: attr(c, "alias").filter(|s| !s.is_empty()),
        vars,
        comment: attr(c, "comment").unwrap_or_else(|| inner_text(c)),
        place,
    });
}

/// A schema workbook's header: the first `##var` row names the columns; a second `##var` row names the
/// sub-columns of the `*items` / `*fields` column. Gives `(column of each name, data rows)`.
struct Sheet<'a> {
    t: &'a RawTable,
    cols: Vec<(usize, String)>,
    sub: Vec<(usize, String)>,
}

impl<'a> Sheet<'a> {
    fn of(t: &'a RawTable) -> Sheet<'a> {
        let vars: Vec<_> = t
            .rows
            .iter()
            .filter(|r| r.cells.first().map(RawCell::text).as_deref() == Some("##var"))
            .collect();
        let names = |i: usize| -> Vec<(usize, String)> {
            vars.get(i)
                .map(|r| {
                    r.cells
                        .iter()
                        .enumerate()
                        .skip(1)
                        .map(|(c, x)| (c, x.text().trim().to_string()))
                        .filter(|(_, x)| !x.is_empty())
                        .collect()
                })
                .unwrap_or_default()
        };
        Sheet {
            t,
            cols: names(0),
            sub: names(1),
        }
    }
    fn col(&self, name: &str) -> Option<usize> {
        self.cols
            .iter()
            .chain(&self.sub)
            .find(|(_, n)| n.trim_start_matches('*') == name)
            .map(|(c, _)| *c)
    }
    fn data(&self) -> impl Iterator<Item = &'a crate::read::raw::RawRow> {
        self.t.rows.iter().filter(|r| {
            !r.cells
                .first()
                .map(RawCell::text)
                .unwrap_or_default()
                .starts_with('#')
        })
    }
    fn get(&self, r: &crate::read::raw::RawRow, name: &str) -> String {
        self.col(name)
            .and_then(|c| r.cells.get(c))
            .map(|c| c.text().trim().to_string())
            .unwrap_or_default()
    }
    fn place(&self, row: usize, name: &str) -> Place {
        Place {
            file: self.t.file.to_string(),
            sheet: self.t.sheet.as_deref().map(str::to_string),
            row,
            col: self.col(name),
        }
    }
}

fn truthy(s: &str) -> bool {
    matches!(s.to_ascii_lowercase().as_str(), "1" | "true" | "yes")
}

fn schema_tables(sheets: &[RawTable], out: &mut Luban, diags: &mut Vec<Diagnostic>) {
    for t in sheets {
        let s = Sheet::of(t);
        for r in s.data() {
            let full = s.get(r, "full_name");
            if full.is_empty() {
                continue;
            }
            let value = s.get(r, "value_type");
            if value.is_empty() {
                diags.push(error(
                    &s.place(r.row, "value_type"),
                    format!("table {full} has no value_type"),
                ));
                continue;
            }
            out.tables.push(TableDef {
                full,
                value,
                index: s.get(r, "index"),
                mode: s.get(r, "mode"),
                input: list_inputs(&s.get(r, "input")),
                group: list(Some(s.get(r, "group"))),
                comment: s.get(r, "comment"),
                schema_from_file: truthy(&s.get(r, "read_schema_from_file")),
                place: s.place(r.row, "full_name"),
            });
        }
    }
}

fn schema_beans(sheets: &[RawTable], out: &mut Luban, diags: &mut Vec<Diagnostic>) {
    for t in sheets {
        let s = Sheet::of(t);
        for r in s.data() {
            let full = s.get(r, "full_name");
            if !full.is_empty() {
                let parent = s.get(r, "parent");
                let parent = (!parent.is_empty()).then(|| {
                    if parent.contains('.') {
                        parent
                    } else {
                        join(module_of(&full), &parent)
                    }
                });
                out.beans.push(BeanDef {
                    full: full.clone(),
                    parent,
                    sep: Some(s.get(r, "sep")).filter(|x| !x.is_empty()),
                    alias: Some(s.get(r, "alias")).filter(|x| !x.is_empty()),
                    vars: vec![],
                    comment: s.get(r, "comment"),
                    place: s.place(r.row, "full_name"),
                });
            }
            let name = s.get(r, "name");
            if name.is_empty() {
                continue;
            }
            let ty = s.get(r, "type");
            let Some(b) = out.beans.last_mut() else {
                diags.push(error(
                    &s.place(r.row, "name"),
                    format!("field {name} comes before any bean (full_name)"),
                ));
                continue;
            };
            if ty.is_empty() {
                diags.push(error(
                    &s.place(r.row, "type"),
                    format!("field {name} of bean {} has no type", b.full),
                ));
                continue;
            }
            b.vars.push(Var {
                name,
                ty,
                group: list(Some(s.get(r, "group"))),
                comment: s.get(r, "comment"),
                alias: None,
                unmapped: vec![],
                place: s.place(r.row, "type"),
            });
        }
    }
}

fn schema_enums(sheets: &[RawTable], out: &mut Luban, diags: &mut Vec<Diagnostic>) {
    for t in sheets {
        let s = Sheet::of(t);
        for r in s.data() {
            let full = s.get(r, "full_name");
            if !full.is_empty() {
                out.enums.push(EnumDef {
                    full,
                    flags: truthy(&s.get(r, "flags")),
                    items: vec![],
                    comment: s.get(r, "comment"),
                    place: s.place(r.row, "full_name"),
                });
            }
            let name = s.get(r, "name");
            if name.is_empty() {
                continue;
            }
            let Some(e) = out.enums.last_mut() else {
                diags.push(error(
                    &s.place(r.row, "name"),
                    format!("item {name} comes before any enum (full_name)"),
                ));
                continue;
            };
            e.items.push(EnumItem {
                name,
                alias: Some(s.get(r, "alias")).filter(|x| !x.is_empty()),
                value: Some(s.get(r, "value")).filter(|x| !x.is_empty()),
                comment: s.get(r, "comment"),
            });
        }
    }
}

/// Auto-import workbooks: `#Name.xlsx` (or `#Name-comment.xlsx`) anywhere under the data folder is table
/// `<module>.TbName` of bean `<module>.Name` defined by its sheets' `##var`/`##type` rows, the module being
/// the folder path (`test/#AutoImport2.xlsx` → `test.TbAutoImport2`).
fn auto_import(dir: &Path, data_dir: &str, out: &mut Luban) {
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    let mut found = vec![];
    while let Some((d, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().to_string();
            let r = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let p = e.path();
            if p.is_dir() {
                stack.push((p, r));
            } else if name.starts_with('#') && name.ends_with(".xlsx") && !name.starts_with("~$") {
                found.push((rel.clone(), name, r));
            }
        }
    }
    found.sort();
    for (folder, name, rel) in found {
        let stem = name.trim_start_matches('#').trim_end_matches(".xlsx");
        let stem = stem.split('-').next().unwrap_or(stem).trim();
        let module = folder.replace('/', ".");
        out.tables.push(TableDef {
            full: join(&module, &format!("Tb{stem}")),
            value: join(&module, stem),
            index: String::new(),
            mode: String::new(),
            input: vec![rel.clone()],
            group: vec![],
            comment: String::new(),
            schema_from_file: true,
            place: Place {
                file: format!("{data_dir}/{rel}"),
                ..Place::default()
            },
        });
    }
}
