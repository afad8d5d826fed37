//! Finding table sources: the files under the table folders ([`discover`]) and which table each file or
//! sheet belongs to ([`Sources`], from `[tables.<Name>] files`/`sheets` selections).

use crate::config::Loaded;
use crate::diag::{Code, Diagnostic};
use std::path::{Path, PathBuf};

pub const WORKBOOK_EXT: &[&str] = &["xlsx", "xlsm", "xls", "xlsb", "ods"];

/// A file that holds one or more tables.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceFile {
    pub path: PathBuf,
    /// Relative to the project root, `/`-separated.
    pub rel: String,
    /// Relative to the table folder it was found in, `/`-separated (what `files` globs match).
    pub rel_in_folder: String,
}

/// Which table each source belongs to: the `[tables.<Name>] files`/`sheets` selections (docs/conventions.md §2).
pub struct Sources {
    /// `(table, files globs, sheets globs)` for every table with a selection, by table name.
    selections: Vec<(String, Option<globset::GlobSet>, Option<globset::GlobSet>)>,
    /// Tables with `shared_sources = true`: a source they all claim belongs to each of them.
    shared: Vec<String>,
    /// `[project] selected_only`: a source no table selects is skipped (not a table of its own name).
    selected_only: bool,
}

impl Sources {
    /// Compile the selections of `loaded`'s `[tables]`. Bad globs are configuration errors (GT0002); the
    /// config loader rejects them already.
    pub fn new(loaded: &Loaded) -> Result<Self, Box<Diagnostic>> {
        let set = |name: &str,
                   key: &str,
                   globs: &Option<Vec<String>>|
         -> Result<Option<globset::GlobSet>, Box<Diagnostic>> {
            let Some(globs) = globs else { return Ok(None) };
            let bad = |e: globset::Error| {
                Box::new(Diagnostic::file_error(
                    Code::ProjectLayout,
                    "gentable.toml",
                    format!("[tables.{name}] {key}: bad glob: {e}"),
                ))
            };
            let mut b = globset::GlobSetBuilder::new();
            for g in globs {
                b.add(globset::Glob::new(g).map_err(bad)?);
            }
            b.build().map(Some).map_err(bad)
        };
        let mut selections = vec![];
        for (name, o) in &loaded.config.tables {
            if o.selects_sources() {
                selections.push((
                    name.clone(),
                    set(name, "files", &o.files)?,
                    set(name, "sheets", &o.sheets)?,
                ));
            }
        }
        let shared = loaded
            .config
            .tables
            .iter()
            .filter(|(_, o)| o.shared_sources == Some(true))
            .map(|(n, _)| n.clone())
            .collect();
        Ok(Sources {
            selections,
            shared,
            selected_only: loaded.config.project.selected_only,
        })
    }

    /// True if every table with a selection names its `files` (none selects sheets in any workbook).
    pub fn all_name_files(&self) -> bool {
        self.selections.iter().all(|(_, f, _)| f.is_some())
    }

    /// True if some table's `files` glob selects this file (so a `.txt` file is a table file).
    pub fn selects_file(&self, rel_in_folder: &str) -> bool {
        self.selections
            .iter()
            .any(|(_, f, _)| f.as_ref().is_some_and(|f| f.is_match(rel_in_folder)))
    }

    /// The tables whose selection claims a CSV file (`sheet` = None) or a worksheet.
    pub fn claims(&self, rel_in_folder: &str, sheet: Option<&str>) -> Vec<&str> {
        self.selections
            .iter()
            .filter(|(_, files, sheets)| match sheet {
                None => files.as_ref().is_some_and(|f| f.is_match(rel_in_folder)),
                Some(sh) => {
                    files.as_ref().is_none_or(|f| f.is_match(rel_in_folder))
                        && sheets.as_ref().is_none_or(|s| s.is_match(sh))
                }
            })
            .map(|(n, _, _)| n.as_str())
            .collect()
    }

    /// Where a source of `table` stands among its sources: the position of the first of the table's `files`
    /// globs, in the order `gentable.toml` lists them, that matches `rel_in_folder`, then that of the first
    /// `sheets` glob that matches `sheet` (0 where the table has no such globs). Sources are concatenated by
    /// this rank, then by path, then by sheet order in the workbook (docs/conventions.md §2):
    /// `files = ["b.csv", "a.csv"]` reads b.csv's rows first and `sheets = ["s2", "s1"]` sheet s2's, as Luban
    /// reads a table's `input` list.
    pub fn rank(&self, table: &str, rel_in_folder: &str, sheet: Option<&str>) -> (usize, usize) {
        let Some((_, files, sheets)) = self.selections.iter().find(|(n, _, _)| n == table) else {
            return (0, 0);
        };
        let first = |g: &Option<globset::GlobSet>, s: &str| {
            g.as_ref()
                .and_then(|g| g.matches(s).into_iter().min())
                .unwrap_or(0)
        };
        (
            first(files, rel_in_folder),
            sheet.map_or(0, |s| first(sheets, s)),
        )
    }

    /// True if some table's `sheets` glob selects the worksheet `sheet` of the workbook `rel_in_folder` (a
    /// hidden sheet is read only then).
    pub fn selects_sheet(&self, rel_in_folder: &str, sheet: &str) -> bool {
        self.selections.iter().any(|(_, files, sheets)| {
            sheets.as_ref().is_some_and(|s| s.is_match(sheet))
                && files.as_ref().is_none_or(|f| f.is_match(rel_in_folder))
        })
    }

    /// The tables a source belongs to: the one table claiming it (or every claimant when all of them have
    /// `shared_sources = true`, as Luban's `TbDemoGroup_C` and `TbDemoGroup_S` read one sheet), else
    /// `default` (file stem or sheet name) unless that table has a selection that does not include the
    /// source or `[project] selected_only` is set (empty: skipped). `Err` lists the tables when several
    /// claim it otherwise.
    pub fn table_of(
        &self,
        rel_in_folder: &str,
        sheet: Option<&str>,
        default: &str,
    ) -> Result<Vec<String>, Vec<String>> {
        match self.claims(rel_in_folder, sheet).as_slice() {
            [one] => Ok(vec![one.to_string()]),
            [] if self.selected_only => Ok(vec![]),
            [] if self.selections.iter().any(|(n, _, _)| n == default) => Ok(vec![]),
            [] => Ok(vec![default.to_string()]),
            many if many.iter().all(|t| self.shared.iter().any(|s| s == t)) => {
                Ok(many.iter().map(|s| s.to_string()).collect())
            }
            many => Err(many.iter().map(|s| s.to_string()).collect()),
        }
    }
}

/// List the table files under the configured folders, sorted by relative path.
// The one diagnostic is returned by value: callers put it straight into their list.
#[allow(clippy::result_large_err)]
pub fn discover(loaded: &Loaded) -> Result<Vec<SourceFile>, Diagnostic> {
    let sources = Sources::new(loaded).map_err(|d| *d)?;
    let mut ignore = globset::GlobSetBuilder::new();
    for g in &loaded.config.project.ignore {
        let glob = globset::Glob::new(g).map_err(|e| {
            Diagnostic::file_error(
                Code::ProjectLayout,
                "gentable.toml",
                format!("bad ignore glob {g:?}: {e}"),
            )
        })?;
        ignore.add(glob);
    }
    let ignore = ignore.build().map_err(|e| {
        Diagnostic::file_error(
            Code::ProjectLayout,
            "gentable.toml",
            format!("bad ignore globs: {e}"),
        )
    })?;
    // `[project] selected_only` with every selection naming its `files`: a file none selects holds no table,
    // so it is not opened (a broken workbook of a table left out of an import stays unread).
    let only_selected_files = sources.selected_only && sources.all_name_files();
    let mut out = Vec::new();
    for dir in &loaded.config.project.tables {
        let abs = loaded.root.join(dir);
        if !abs.is_dir() {
            return Err(Diagnostic::file_error(
                Code::ProjectLayout,
                dir.to_string_lossy(),
                format!("table folder {} does not exist", abs.display()),
            ));
        }
        walk(&abs, &mut |p| {
            let rel_in_dir = p
                .strip_prefix(&abs)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/");
            if ignore.is_match(&rel_in_dir) {
                return;
            }
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("~$") || name.starts_with('.') {
                return;
            }
            if only_selected_files && !sources.selects_file(&rel_in_dir) {
                return;
            }
            let ext = p
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            let stem = p.file_stem().and_then(|e| e.to_str()).unwrap_or("");
            let is_table = match ext.as_str() {
                "csv" | "tsv" => true,
                "txt" => {
                    loaded.config.tables.contains_key(stem) || sources.selects_file(&rel_in_dir)
                }
                e => WORKBOOK_EXT.contains(&e),
            };
            if is_table {
                let rel = rel_path(&loaded.root, p);
                out.push(SourceFile {
                    path: p.to_path_buf(),
                    rel,
                    rel_in_folder: rel_in_dir,
                });
            }
        })
        .map_err(|e| {
            Diagnostic::file_error(
                Code::ProjectLayout,
                dir.to_string_lossy(),
                format!("cannot list folder: {e}"),
            )
        })?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if e.file_type()?.is_dir() {
            if !e.file_name().to_string_lossy().starts_with('.') {
                walk(&p, f)?;
            }
        } else {
            f(&p);
        }
    }
    Ok(())
}

/// `p` relative to `root`, `/`-separated; falls back to the full path.
pub fn rel_path(root: &Path, p: &Path) -> String {
    let rel = pathdiff(p, root);
    rel.to_string_lossy().replace('\\', "/")
}

fn pathdiff(p: &Path, root: &Path) -> PathBuf {
    let (Ok(p), Ok(root)) = (p.canonicalize(), root.canonicalize()) else {
        return p.to_path_buf();
    };
    let pc: Vec<_> = p.components().collect();
    let rc: Vec<_> = root.components().collect();
    let common = pc.iter().zip(&rc).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..rc.len() {
        out.push("..");
    }
    for c in &pc[common..] {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_claim_sources_and_restrict_their_table() {
        let toml = r#"
            [project]
            name = "P"
            [tables.AIConfig]
            sheets = ["AIConfig_*"]
            [tables.ExampleData]
            files = ["Data*.csv"]
            [tables.Both]
            files = ["Both.xlsx", "sub/*.csv"]
            sheets = ["Main"]
        "#;
        let config: crate::config::Config = toml::from_str(toml).unwrap();
        let loaded = Loaded {
            root: PathBuf::from("."),
            config,
        };
        let s = Sources::new(&loaded).unwrap();
        // sheets alone: any workbook; the sheet's own name is replaced.
        assert_eq!(
            s.table_of("x/AI.xlsx", Some("AIConfig_2"), "AIConfig_2"),
            Ok(vec!["AIConfig".to_string()])
        );
        // files alone: every CSV matching; a CSV is never matched by `sheets`.
        assert_eq!(
            s.table_of("Data2.csv", None, "Data2"),
            Ok(vec!["ExampleData".to_string()])
        );
        assert_eq!(
            s.table_of("AIConfig_1.csv", None, "AIConfig_1"),
            Ok(vec!["AIConfig_1".to_string()])
        );
        // files + sheets: both must match for a sheet; CSV files only need `files`.
        assert_eq!(
            s.table_of("Both.xlsx", Some("Main"), "Main"),
            Ok(vec!["Both".to_string()])
        );
        assert_eq!(
            s.table_of("Both.xlsx", Some("Other"), "Other"),
            Ok(vec!["Other".to_string()])
        );
        assert_eq!(
            s.table_of("sub/b.csv", None, "b"),
            Ok(vec!["Both".to_string()])
        );
        // A source named like a selecting table but not selected is skipped.
        assert_eq!(
            s.table_of("old/ExampleData.csv", None, "ExampleData"),
            Ok(vec![])
        );
        assert_eq!(s.table_of("Other.xlsx", Some("Both"), "Both"), Ok(vec![]));
        // Two claims.
        assert_eq!(
            s.table_of("Both.xlsx", Some("AIConfig_1"), "AIConfig_1"),
            Ok(vec!["AIConfig".to_string()])
        );
        let toml2 = "[project]\nname = \"P\"\n[tables.A]\nsheets = [\"*\"]\n[tables.B]\nfiles = [\"b.xlsx\"]\n";
        let config: crate::config::Config = toml::from_str(toml2).unwrap();
        let s = Sources::new(&Loaded {
            root: PathBuf::from("."),
            config,
        })
        .unwrap();
        assert_eq!(
            s.table_of("b.xlsx", Some("S"), "S"),
            Err(vec!["A".to_string(), "B".to_string()])
        );
        assert!(s.selects_file("b.xlsx") && !s.selects_file("c.txt"));
        // Tables that all say shared_sources share a sheet; selected_only skips the rest.
        let toml3 = "[project]\nname = \"P\"\nselected_only = true\n[tables.A]\nfiles = [\"g.xlsx\"]\nshared_sources = true\n[tables.B]\nfiles = [\"g.xlsx\"]\nsheets = [\"S\"]\nshared_sources = true\n";
        let config: crate::config::Config = toml::from_str(toml3).unwrap();
        let s = Sources::new(&Loaded {
            root: PathBuf::from("."),
            config,
        })
        .unwrap();
        assert_eq!(
            s.table_of("g.xlsx", Some("S"), "S"),
            Ok(vec!["A".to_string(), "B".to_string()])
        );
        assert_eq!(
            s.table_of("g.xlsx", Some("T"), "T"),
            Ok(vec!["A".to_string()])
        );
        assert_eq!(
            s.table_of("other.xlsx", Some("Sheet1"), "Sheet1"),
            Ok(vec![])
        );
    }
}
