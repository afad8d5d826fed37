//! `gentable diff` and `gentable textconv` on real git histories (docs/designer.md "Diff"): a scratch repository
//! holding a copy of FunnyPitch gets commits that edit cells, add and remove rows, reorder rows and rewrite
//! a number without changing it; the real binary's diff must list exactly the changes by value. A workbook
//! made with rust_xlsxwriter is committed twice with `*.xlsx diff=gentable`, and `git diff` shows the one
//! changed cell through `gentable textconv`.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::copy_dir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn gentable(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// A git repository whose `game/` folder holds FunnyPitch's tables, schemas and project file (one commit).
fn funnypitch_repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("game");
    copy_dir(&Path::new(ROOT).join("Table"), &game.join("Table"));
    copy_dir(&Path::new(ROOT).join("schema"), &game.join("schema"));
    std::fs::copy(
        Path::new(ROOT).join("gentable.toml"),
        game.join("gentable.toml"),
    )
    .unwrap();
    git(tmp.path(), &["init", "-q"]);
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-qm", "tables"]);
    (tmp, game)
}

fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{} has no {from:?}", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

fn commit(repo: &Path, msg: &str) {
    git(repo, &["commit", "-qam", msg]);
}

#[test]
fn a_commit_that_edits_two_cells_diffs_as_exactly_those_two_changes() {
    let (tmp, game) = funnypitch_repo();
    let repo = tmp.path();
    edit(
        &game.join("Table/PieceType.csv"),
        "Knight,Piece_Knight,2,Military,Military,false,false,,4\n",
        "Knight,Piece_Knight,2,Military,Military,false,false,,5\n",
    );
    edit(
        &game.join("Table/Lang.csv"),
        "Piece_Knight,骑,Knight\n",
        "Piece_Knight,骑士,Knight\n",
    );
    commit(repo, "two cells");

    let (out, err, code) = gentable(&game, &["diff", "HEAD~1", "HEAD"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("gentable diff HEAD~1 → HEAD: 2 tables changed; 0 rows added, 0 removed, 2 changed (2 cells)\n"),
        "{out}"
    );
    let changes: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" → ") && !l.starts_with("gentable"))
        .collect();
    assert_eq!(changes.len(), 2, "{out}");
    assert!(
        out.contains("\nLang\n  ~ Piece_Knight\n      zh  骑 → 骑士    Table/Lang.csv:7:B\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "\nPieceType\n  ~ Knight\n      AiWeight  4 → 5    Table/PieceType.csv:13:I\n"
        ),
        "{out}"
    );

    // The same as JSON: values typed, locations in both versions.
    let (json, _, _) = gentable(&game, &["diff", "HEAD~1", "HEAD", "--format", "json"]);
    let d: serde_json::Value = serde_json::from_str(&json).unwrap();
    let tables = d["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 2);
    let cells: Vec<(String, String, String, String, String)> = tables
        .iter()
        .flat_map(|t| {
            t["rows_changed"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(move |r| {
                    r["cells"].as_array().unwrap().iter().map(move |c| {
                        (
                            t["table"].as_str().unwrap().to_string(),
                            r["key"].as_str().unwrap().to_string(),
                            c["field"].as_str().unwrap().to_string(),
                            c["old"].to_string(),
                            c["new"].to_string(),
                        )
                    })
                })
        })
        .collect();
    let s = |x: &str| x.to_string();
    assert_eq!(
        cells,
        vec![
            (
                s("Lang"),
                s("Piece_Knight"),
                s("zh"),
                s("\"骑\""),
                s("\"骑士\"")
            ),
            (s("PieceType"), s("Knight"), s("AiWeight"), s("4"), s("5")),
        ]
    );
    assert_eq!(
        tables[1]["rows_changed"][0]["cells"][0]["new_at"]["column"],
        "I"
    );
    assert_eq!(
        tables[1]["rows_changed"][0]["cells"][0]["old_at"]["row"],
        13
    );

    // Markdown for a PR comment.
    let (md, _, _) = gentable(&game, &["diff", "HEAD~1", "HEAD", "--format", "markdown"]);
    assert!(
        md.contains("| `Knight` | AiWeight | `4` | `5` | Table/PieceType.csv:13:I |"),
        "{md}"
    );
    // One blank line between a table's name and its rows (helper-17 saw two).
    assert!(
        md.contains("**PieceType**\n\n| row | field | old | new | at |\n"),
        "{md}"
    );
    assert!(!md.contains("\n\n\n"), "{md}");

    // In Chinese (--lang zh or a zh locale) the frame is Chinese; names, cells and places are as written; the
    // JSON is the same in every language.
    let (zh, _, _) = gentable(&game, &["diff", "HEAD~1", "HEAD", "--lang", "zh"]);
    assert!(
        zh.starts_with("gentable diff HEAD~1 → HEAD：2 张表有变化；新增 0 行，删除 0 行，修改 2 行（2 个单元格）\n"),
        "{zh}"
    );
    assert!(
        zh.contains("\nPieceType\n  ~ Knight\n      AiWeight  4 → 5    Table/PieceType.csv:13:I\n"),
        "{zh}"
    );
    let (zmd, _, _) = gentable(
        &game,
        &[
            "diff", "HEAD~1", "HEAD", "--format", "markdown", "--lang", "zh",
        ],
    );
    assert!(
        zmd.contains("| 行 | 字段 | 原值 | 新值 | 位置 |\n|---|---|---|---|---|\n| `Knight` | AiWeight | `4` | `5` | Table/PieceType.csv:13:I |"),
        "{zmd}"
    );
    let (zjson, _, _) = gentable(
        &game,
        &["diff", "HEAD~1", "HEAD", "--format", "json", "--lang", "zh"],
    );
    assert_eq!(zjson, json);
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .current_dir(&game)
        .args(["diff", "HEAD"])
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "zh_CN.UTF-8")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "gentable diff HEAD → 工作区：没有变化\n"
    );
    let (_, err, code) = gentable(&game, &["diff", "no-such-rev", "--lang", "zh"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(
            "错误：\"no-such-rev\" 既不是文件夹，也不是 gentable.toml 所在仓库的 git 版本"
        ),
        "{err}"
    );

    // --exit-code says whether anything changed.
    assert_eq!(
        gentable(&game, &["diff", "HEAD~1", "HEAD", "--exit-code"]).2,
        1
    );
    assert_eq!(
        gentable(&game, &["diff", "HEAD", "HEAD", "--exit-code"]).2,
        0
    );
}

#[test]
fn the_diff_is_by_value_and_by_key() {
    let (tmp, game) = funnypitch_repo();
    let repo = tmp.path();
    // Same values: a whole number written with a decimal point, and two rows of a map table swapped.
    let pt = game.join("Table/PieceType.csv");
    edit(
        &pt,
        "Knight,Piece_Knight,2,Military,Military,false,false,,4\n",
        "Knight,Piece_Knight,2.0,Military,Military,false,false,,4\n",
    );
    let text = std::fs::read_to_string(&pt).unwrap();
    let (a, b) = (
        "Soldier,Piece_Soldier,0,Military,T0,true,false,S,1\n",
        "Minister,Piece_Minister,1,Civil,Civil,true,false,M,3\n",
    );
    std::fs::write(&pt, text.replace(&format!("{a}{b}"), &format!("{b}{a}"))).unwrap();
    commit(repo, "same values");
    let (out, err, code) = gentable(&game, &["diff", "HEAD~1", "HEAD", "--exit-code"]);
    assert_eq!(
        (out.as_str(), code),
        ("gentable diff HEAD~1 → HEAD: no change\n", 0),
        "{err}"
    );

    // A row added and one removed, in the working tree (no arguments: HEAD → working tree).
    edit(
        &game.join("Table/Lang.csv"),
        "Side_Red,红方,Red\n",
        "Side_Green,绿方,Green\n",
    );
    let (out, _, _) = gentable(&game, &["diff"]);
    assert!(out.starts_with("gentable diff HEAD → working tree: 1 table changed; 1 row added, 1 removed, 0 changed (0 cells)"), "{out}");
    assert!(
        out.contains("  + Side_Green    Table/Lang.csv:15\n"),
        "{out}"
    );
    assert!(
        out.contains("  - Side_Red    (was Table/Lang.csv:15)\n"),
        "{out}"
    );

    // A cell that does not read: shown as written, with the error's code; the other side's errors are noted.
    let pt = game.join("Table/PieceType.csv");
    edit(
        &pt,
        "Knight,Piece_Knight,2.0,Military,Military,false,false,,4\n",
        "Knight,Piece_Knight,2.0,Military,Military,false,false,,four\n",
    );
    let (out, err, _) = gentable(&game, &["diff"]);
    assert!(
        out.contains(
            "      AiWeight  4 → four (GT0201: does not read)    Table/PieceType.csv:13:I\n"
        ),
        "{out}"
    );
    assert!(err.contains("note: working tree has 1 error"), "{err}");
    git(repo, &["checkout", "--", "."]);

    // Two folders.
    let other = tmp.path().join("copy");
    copy_dir(&game, &other);
    edit(
        &other.join("Table/Const.csv"),
        "9,9,4,0,8,18,",
        "9,9,4,0,8,19,",
    );
    let (out, _, _) = gentable(
        &game,
        &["diff", game.to_str().unwrap(), other.to_str().unwrap()],
    );
    assert!(
        out.contains(
            "\nConst\n  ~ (the row)\n      PiecesPerSide  18 → 19    Table/Const.csv:7:F\n"
        ),
        "{out}"
    );

    // A revision that does not exist is a usage error.
    let (_, err, code) = gentable(&game, &["diff", "no-such-rev"]);
    assert_eq!(code, 2);
    assert!(err.contains("neither a folder nor a git revision"), "{err}");
}

/// A one-table project whose table is the workbook `Table/Units.xlsx` (sheet `Unit`).
fn unit_project(dir: &Path, hp_of_archer: i64) {
    std::fs::create_dir_all(dir.join("Table")).unwrap();
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::write(dir.join("gentable.toml"), "[project]\nname = \"Units\"\n").unwrap();
    std::fs::write(
        dir.join("schema/Unit.schema.json"),
        r#"{"type":"object","x-gentable-primaryKey":"Id","properties":{"Id":{"type":"string"},"Hp":{"type":"integer"},"Note":{"type":"string"}},"required":["Id","Hp"]}"#,
    )
    .unwrap();
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet().set_name("Unit").unwrap();
    for (c, h) in ["Id", "Hp", "Note"].iter().enumerate() {
        ws.write_string(0, c as u16, *h).unwrap();
    }
    for (r, (id, hp, note)) in [
        ("Archer", hp_of_archer, "ranged | weak"),
        ("Knight", 12, "line1\nline2"),
    ]
    .iter()
    .enumerate()
    {
        ws.write_string(r as u32 + 1, 0, *id).unwrap();
        ws.write_number(r as u32 + 1, 1, *hp as f64).unwrap();
        ws.write_string(r as u32 + 1, 2, *note).unwrap();
    }
    wb.save(dir.join("Table/Units.xlsx")).unwrap();
}

#[test]
fn git_diff_of_a_workbook_shows_the_changed_cell_through_textconv() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    unit_project(repo, 5);
    std::fs::write(repo.join(".gitattributes"), "*.xlsx diff=gentable\n").unwrap();
    git(repo, &["init", "-q"]);
    git(
        repo,
        &[
            "config",
            "diff.gentable.textconv",
            &format!("{} textconv", env!("CARGO_BIN_EXE_gentable")),
        ],
    );
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "units"]);

    let (text, _, code) = gentable(repo, &["textconv", "Table/Units.xlsx"]);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        "# gentable textconv Units.xlsx\n== sheet Unit\n1: Id | Hp | Note\n2: Archer | 5 | ranged \\| weak\n3: Knight | 12 | line1\\nline2\n"
    );

    unit_project(repo, 6);
    git(repo, &["commit", "-qam", "archer hp"]);
    let patch = git(repo, &["diff", "HEAD~1", "HEAD"]);
    let changed: Vec<&str> = patch
        .lines()
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+'))
                && !l.starts_with("---")
                && !l.starts_with("+++")
        })
        .collect();
    assert_eq!(
        changed,
        vec![
            "-2: Archer | 5 | ranged \\| weak",
            "+2: Archer | 6 | ranged \\| weak"
        ],
        "{patch}"
    );

    // The semantic diff of the same commit: one cell, located in the sheet.
    let (out, _, _) = gentable(repo, &["diff", "HEAD~1", "HEAD"]);
    assert!(
        out.contains("\nUnit\n  ~ Archer\n      Hp  5 → 6    Table/Units.xlsx[Unit]:2:B\n"),
        "{out}"
    );

    // A file that is not there is an error.
    let (_, err, code) = gentable(repo, &["textconv", "Table/Nope.xlsx"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
}

/// docs/ci.md: its workflow is docs/ci/tables.yml word for word; the workflow's `gentable` steps do what
/// the page says on a repository holding FunnyPitch at its top (the gate passes, then fails with a GitHub
/// annotation at a broken cell; the SARIF file is a log; the job summary gets the changed cell); and
/// docs/ci/pre-commit refuses a commit with a broken cell or a stale generated/, and lets the fixed one in.
#[test]
fn the_ci_workflow_and_the_pre_commit_hook_work() {
    let root = Path::new(ROOT);
    let page = std::fs::read_to_string(root.join("docs/ci.md")).unwrap();
    let workflow = std::fs::read_to_string(root.join("docs/ci/tables.yml")).unwrap();
    assert!(
        page.contains(&format!("```yaml\n{workflow}```")),
        "docs/ci.md and docs/ci/tables.yml differ"
    );
    let steps: Vec<String> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("run: gentable "))
        .map(|c| format!("gentable {c}").replace("${{ github.base_ref }}", "main"))
        .collect();
    assert_eq!(steps.len(), 3, "{steps:?}");

    // The repository: FunnyPitch with its generated/ (built here), branch origin/main as the base.
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    for d in ["Table", "schema"] {
        copy_dir(&root.join(d), &repo.join(d));
    }
    std::fs::copy(root.join("gentable.toml"), repo.join("gentable.toml")).unwrap();
    let (_, err, code) = gentable(repo, &["build", "-q"]);
    assert_eq!(code, 0, "{err}");
    git(repo, &["init", "-q", "-b", "main"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "tables"]);
    git(repo, &["branch", "origin/main"]);
    let bin = Path::new(env!("CARGO_BIN_EXE_gentable"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let summary = repo.join("summary.md");
    let sh = |cmd: &str| {
        let out = Command::new("sh")
            .args(["-c", cmd])
            .current_dir(repo)
            .env("PATH", &path)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env_remove("LANG")
            .env_remove("LC_ALL")
            .output()
            .unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
            out.status.code().unwrap_or(-1),
        )
    };
    // A clean tree passes the gate.
    let (_, err, code) = sh(&steps[0]);
    assert_eq!(code, 0, "{}: {err}", steps[0]);
    assert!(!err.contains("::error"), "{err}");

    // A pull request that edits a cell (and regenerates): the gate passes, the summary shows the cell.
    let pieces = repo.join("Table/PieceType.csv");
    edit(
        &pieces,
        "Military,false,false,,4\n",
        "Military,false,false,,5\n",
    );
    let (_, err, code) = gentable(repo, &["build", "-q"]);
    assert_eq!(code, 0, "{err}");
    git(repo, &["commit", "-qam", "knight count 5"]);
    let (_, err, code) = sh(&steps[0]);
    assert_eq!(code, 0, "{err}");
    let (_, err, code) = sh(&steps[2]);
    assert_eq!(code, 0, "{}: {err}", steps[2]);
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("Knight") && md.contains("PieceType"), "{md}");
    assert!(md.contains('4') && md.contains('5'), "{md}");

    // A broken cell: an annotation at its line, exit 1; the SARIF step still writes a log naming it.
    edit(
        &pieces,
        "Military,false,false,,5\n",
        "Military,false,false,,x5\n",
    );
    let (_, err, code) = sh(&steps[0]);
    assert_eq!(code, 1, "{err}");
    let ann = err
        .lines()
        .find(|l| l.starts_with("::error "))
        .expect("an annotation");
    assert!(ann.contains("file=Table/PieceType.csv,line="), "{ann}");
    let (_, err, code) = sh(&steps[1]);
    assert_eq!(code, 0, "{}: {err}", steps[1]);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo.join("gentable.sarif")).unwrap())
            .unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().any(
            |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "Table/PieceType.csv"
        ),
        "{log}"
    );

    // The pre-commit hook: the broken cell is refused, a fixed cell with a stale generated/ too, then the
    // fixed and regenerated commit goes in.
    let hook = repo.join(".git/hooks/pre-commit");
    std::fs::copy(root.join("docs/ci/pre-commit"), &hook).unwrap();
    let (_, err, code) = sh("git commit -qam broken");
    assert_ne!(code, 0, "the hook let a broken cell in: {err}");
    assert!(
        err.contains("GT0201") && err.contains("pre-commit:"),
        "{err}"
    );
    edit(
        &pieces,
        "Military,false,false,,x5\n",
        "Military,false,false,,6\n",
    );
    let (_, err, code) = sh("git commit -qam stale");
    assert_ne!(code, 0, "the hook let a stale generated/ in: {err}");
    let (_, err, code) = gentable(repo, &["build", "-q"]);
    assert_eq!(code, 0, "{err}");
    git(repo, &["add", "-A"]);
    let (_, err, code) = sh("git commit -qm fixed");
    assert_eq!(code, 0, "{err}");
    // A commit that touches no table skips the check, even with a broken cell in the working tree.
    edit(
        &pieces,
        "Military,false,false,,6\n",
        "Military,false,false,,x6\n",
    );
    std::fs::write(repo.join("notes.txt"), "x").unwrap();
    git(repo, &["add", "notes.txt"]);
    let (_, err, code) = sh("git commit -qm notes");
    assert_eq!(code, 0, "{err}");
}
