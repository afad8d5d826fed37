//! **import/luban/** owns `gentable import luban <luban.conf>`: a Luban project → a gentable project
//! (docs/migrating-from-luban.md). It reads luban.conf, `Defines/*.xml`, the `__tables__`/`__beans__`/
//! `__enums__` workbooks, the auto-import `#*.xlsx` workbooks and every table's header rows
//! ([`defs`], [`types`]), maps them ([`map`]) and never writes to the Luban project.
//!
//! It may use the base modules, `read/` (to see the workbooks' cells as the build will) and `schema/`'s
//! helpers; no stage imports it.

pub mod defs;
pub mod map;
pub mod model;
pub mod types;

use crate::diag::lang::{frame, message, Lang};
use crate::diag::Diagnostic;
use std::path::Path;

/// Import the Luban project of `conf` for a gentable project in `project_dir` (which only names the path
/// from there to Luban's data folder; nothing is written here). Errors: every GT0601 diagnostic.
pub fn import(
    conf: &Path,
    project_dir: &Path,
    opts: &map::Options,
    exclude: &std::collections::BTreeMap<String, String>,
) -> Result<map::Imported, Vec<Diagnostic>> {
    let mut diags = vec![];
    let l = defs::read(conf, &mut diags);
    if !diags.is_empty() {
        return Err(diags);
    }
    let root = conf.parent().unwrap_or(Path::new("."));
    let data = root.join(&l.data_dir);
    let rel = relative(project_dir, &data);
    let name = std::fs::canonicalize(root)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().to_string()))
        .unwrap_or_else(|| "Luban".into());
    let out = map::map(&l, root, &rel, &name, opts, exclude, &mut diags);
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(diags)
    }
}

/// `gentable import luban <conf> --out <dir> [--check]`: import, write (or with `check` only list) the
/// changes, then list what could not be mapped, per table and field.
pub fn command(conf: &Path, out: &Path, check: bool, time_zone: &str) -> super::write::Report {
    command_in(conf, out, check, time_zone, Lang::En)
}

/// [`command`] printing in `lang` (`--lang`, or the locale): the list of changes, the summary, the reasons
/// of what was not mapped and the diagnostics.
pub fn command_in(
    conf: &Path,
    out: &Path,
    check: bool,
    time_zone: &str,
    lang: Lang,
) -> super::write::Report {
    use super::write::{Change, Report};
    let opts = map::Options {
        time_zone: time_zone.to_string(),
    };
    if crate::schema::parse_offset(time_zone).is_none() {
        return Report {
            stderr: frame(
                lang,
                "error: --time-zone must be a fixed offset like +08:00 or UTC, not {}",
                &[&format!("{time_zone:?}")],
            ) + "\n",
            exit_code: 2,
            ..Report::default()
        };
    }
    // Tables whose data does not build are left out (and listed) so that the rest builds: each round maps
    // the project, validates it in a scratch folder and leaves out the tables with errors, until none
    // fails. `--check` runs the same rounds, so it compares the project with exactly what an import would
    // write (a table left out before whose data builds now is imported again).
    let fail = |e: String| Report {
        stderr: frame(lang, "error: {}", &[&message(&e, lang)]) + "\n",
        exit_code: 2,
        ..Report::default()
    };
    let scratch = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            return fail(format!(
                "cannot create a scratch folder to validate the import in: {e}"
            ))
        }
    };
    let mut exclude = std::collections::BTreeMap::new();
    // What the project held before, to report the changes of the whole run.
    let before = snapshot(out);
    let imported = loop {
        let imported = match import(conf, out, &opts, &exclude) {
            Ok(i) => i,
            Err(d) => return Report::failed_in(d, lang),
        };
        let failing = match failing_tables(scratch.path(), &imported) {
            Ok(f) => f,
            Err(e) => return fail(format!("{e:#}")),
        };
        if failing.is_empty() || failing.keys().all(|t| exclude.contains_key(t)) {
            break imported;
        }
        exclude.extend(failing);
    };
    if let Err(e) = super::write::write(out, &imported.files, Some(map::MARKER), check) {
        return fail(format!("{e:#}"));
    }
    let mut changes = vec![];
    for (rel, text) in &imported.files {
        match before.get(rel) {
            None => changes.push(Change::Create(rel.clone())),
            Some(old) if old != text => changes.push(Change::Update(rel.clone())),
            Some(_) => {}
        }
    }
    for rel in before.keys() {
        if rel.starts_with("schema/") && !imported.files.iter().any(|(r, _)| r == rel) {
            changes.push(Change::Remove(rel.clone()));
        }
    }
    let mut stdout = String::new();
    for c in &changes {
        let said = c.say(lang);
        let line = if check {
            frame(lang, "would {}", &[&said])
        } else {
            said
        };
        stdout.push_str(&format!("{line}\n"));
        // A check says what would change in a file it would update (CI logs show no diff otherwise).
        if let (true, Change::Update(rel)) = (check, c) {
            if let (Some(old), Some((_, new))) = (
                before.get(rel),
                imported.files.iter().find(|(r, _)| r == rel),
            ) {
                stdout.push_str(&changed_lines(old, new, lang));
            }
        }
    }
    let state = match (check, changes.is_empty()) {
        (_, true) => frame(lang, " (up to date)", &[]),
        (true, false) => frame(lang, " (out of date: re-run without --check)", &[]),
        (false, false) => String::new(),
    };
    // A check imports nothing: it says what it compared.
    let summary = if check {
        "{} table{} of {} checked against {}{}"
    } else {
        "{} table{} imported from {} into {}{}"
    };
    stdout.push_str(&frame(
        lang,
        summary,
        &[
            &imported.tables.len(),
            &crate::diag::lang::plural(imported.tables.len()),
            &conf.display(),
            &out.display(),
            &state,
        ],
    ));
    stdout.push('\n');
    if !imported.unmapped.is_empty() {
        let head = frame(
            lang,
            "Not mapped or read differently ({}):",
            &[&imported.unmapped.len()],
        );
        stdout.push_str(&format!("\n{head}\n"));
        for (at, why) in &imported.unmapped {
            stdout.push_str(&format!("  {at}: {}\n", message(why, lang)));
        }
    }
    let mut stderr = String::new();
    // A table imported before whose data no longer builds is left out now and its schema removed, so the
    // next build removes its generated code: a designer's one-cell typo must not pass as a quiet success.
    let dropped: Vec<(&String, &String)> = exclude
        .iter()
        .filter(|(t, _)| {
            let schema = format!("schema/{t}.schema.json");
            changes
                .iter()
                .any(|c| matches!(c, Change::Remove(r) if *r == schema))
        })
        .collect();
    for (table, why) in &dropped {
        stderr.push_str(&frame(
            lang,
            "error: table {} was imported before and is left out now, its schema {}: {}",
            &[
                table,
                &if check {
                    frame(lang, "to be removed", &[])
                } else {
                    frame(lang, "removed", &[])
                },
                &message(why, lang),
            ],
        ));
        stderr.push('\n');
    }
    if !dropped.is_empty() {
        stderr.push_str(&frame(
            lang,
            "help: fix the data and re-import; the next build removes the generated code of a table left out",
            &[],
        ));
        stderr.push('\n');
    }
    if check && !changes.is_empty() {
        stderr.push_str(&frame(
            lang,
            "error[{}]: re-importing would change {} file(s) of {}",
            &[
                &crate::diag::Code::StaleImport,
                &changes.len(),
                &out.display(),
            ],
        ));
        stderr.push('\n');
    }
    Report {
        stdout,
        stderr,
        exit_code: u8::from((check && !changes.is_empty()) || !dropped.is_empty()),
    }
}

/// The imported files of the project in `out` now: gentable.toml and the schemas carrying the marker.
fn snapshot(out: &Path) -> std::collections::BTreeMap<String, String> {
    let mut m = std::collections::BTreeMap::new();
    if let Ok(t) = std::fs::read_to_string(out.join("gentable.toml")) {
        m.insert("gentable.toml".to_string(), t);
    }
    for e in std::fs::read_dir(out.join("schema"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        let n = e.file_name().to_string_lossy().to_string();
        if let Ok(t) = std::fs::read_to_string(e.path()) {
            if n.ends_with(".schema.json") && t.contains(map::MARKER) {
                m.insert(format!("schema/{n}"), t);
            }
        }
    }
    m
}

/// Validate `imported` as a project in the folder `scratch` (its files, with `[project] tables` naming
/// Luban's data folder by its absolute path): every table with an error, with its first error's message and
/// place, the data file named as from the imported project (the same wherever the scratch folder is).
fn failing_tables(
    scratch: &Path,
    imported: &map::Imported,
) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    super::write::write(scratch, &imported.files, Some(map::MARKER), false)?;
    let toml_text = imported
        .files
        .iter()
        .find(|(r, _)| r == "gentable.toml")
        .map(|(_, t)| t.as_str())
        .unwrap_or_default();
    let mut project: toml::Table = toml::from_str(toml_text)?;
    let data = std::fs::canonicalize(&imported.data).unwrap_or_else(|_| imported.data.clone());
    if let Some(toml::Value::Table(p)) = project.get_mut("project") {
        p.insert(
            "tables".into(),
            toml::Value::Array(vec![toml::Value::String(
                data.to_string_lossy().into_owned(),
            )]),
        );
    }
    let config = scratch.join("gentable.toml");
    std::fs::write(&config, toml::to_string(&project)?)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", config.display()))?;
    let outcome = crate::build::run(&crate::build::Request {
        config,
        action: crate::build::Action::Validate,
        cache: false,
        deny_warnings: false,
        quiet: true,
        format: crate::diag::render::Format::Json,
        max_per_kind: 0,
        lang: crate::diag::lang::Lang::En,
        wait: crate::build::lock::Wait::Yes,
    });
    // A data file's path from the scratch folder, and from the project folder.
    let here = crate::read::rel_path(scratch, &data);
    let there = if imported.data_rel == "." {
        String::new()
    } else {
        format!("{}/", imported.data_rel)
    };
    let mut failing = std::collections::BTreeMap::new();
    for d in outcome
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::diag::Severity::Error)
    {
        let file = d.file.replace('\\', "/");
        let file = match file.strip_prefix(&format!("{here}/")) {
            Some(f) => format!("{there}{f}"),
            None => file,
        };
        let text = d.message.replace(&format!("{here}/"), &there);
        for t in &imported.tables {
            let schema = format!("schema/{}.schema.json", t.name);
            // The table's input file, and its sheet when the table reads named sheets.
            let by_data = t.inputs.iter().any(|(f, sheet)| {
                file == format!("{there}{f}")
                    && (sheet.is_none() || d.sheet.is_none() || sheet == &d.sheet)
            });
            let by_message = d.message.contains(&format!(" {} ", t.name))
                || d.message.contains(&format!(" {}:", t.name));
            if file == schema || by_data || (file == "gentable.toml" && by_message) {
                let at = match (&d.sheet, d.row) {
                    (Some(s), r) if r > 0 => format!(" at {file}[{s}]:{r}"),
                    (None, r) if r > 0 => format!(" at {file}:{r}"),
                    _ => String::new(),
                };
                failing
                    .entry(t.name.clone())
                    .or_insert_with(|| format!("{}: {text}{at}", d.code));
            }
        }
    }
    Ok(failing)
}

/// `p` made absolute: the part that exists resolved as the file system sees it (symbolic links, `..`), the
/// rest (an output folder not created yet, `../out`) appended with its `..` and `.` applied.
fn absolute(p: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => {
                out.push(other);
                if let Ok(real) = std::fs::canonicalize(&out) {
                    out = real;
                }
            }
        }
    }
    out
}

/// `to` as seen from `from` (both made absolute, `absolute`), `/`-separated; absolute when they share no
/// root.
pub fn relative(from: &Path, to: &Path) -> String {
    let (f, t) = (absolute(from), absolute(to));
    let fc: Vec<_> = f.components().collect();
    let tc: Vec<_> = t.components().collect();
    let common = fc.iter().zip(&tc).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return t.to_string_lossy().replace('\\', "/");
    }
    let mut parts: Vec<String> = vec!["..".into(); fc.len() - common];
    parts.extend(
        tc[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().to_string()),
    );
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// The lines that differ between `old` and `new`, as `    -old` / `    +new` (at most 12, then how many
/// more): what `import luban --check` shows under a file it would update.
fn changed_lines(old: &str, new: &str, lang: Lang) -> String {
    const SHOWN: usize = 12;
    let diff = similar::TextDiff::from_lines(old, new);
    let mut lines = diff.iter_all_changes().filter_map(|c| {
        let sign = match c.tag() {
            similar::ChangeTag::Delete => '-',
            similar::ChangeTag::Insert => '+',
            similar::ChangeTag::Equal => return None,
        };
        Some(format!(
            "    {sign}{}\n",
            c.value().trim_end_matches(['\n', '\r'])
        ))
    });
    let mut out: String = lines.by_ref().take(SHOWN).collect();
    let more = lines.count();
    if more > 0 {
        out.push_str(&format!(
            "    {}\n",
            frame(lang, "… {} more changed lines", &[&more])
        ));
    }
    out
}
