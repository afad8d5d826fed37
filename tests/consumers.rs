//! FunnyPitch's client (C#, export group `client`) and server (TypeScript, group `server`) example programs
//! (`examples/funnypitch-consumers/`) compile against the committed generated code and, run on the committed
//! data, print what the tables hold, reached through typed references (issue 15).
//!
//! Toolchains as in `tests/conformance.rs`: with `CI=true` a missing `mcs`, `mono`, `node` or the pinned `tsc`
//! fails; elsewhere the language is skipped with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `Some(path)` of `name` on `PATH`; `None` (skip) if missing, except on CI.
fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "{name} is required on CI (CI=true)"
        );
        eprintln!("skipping: {name} not found");
    }
    found
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn work(name: &str) -> PathBuf {
    let dir = repo().join("target/consumers").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_unity_client_navigates_typed_references() {
    let (Some(mcs), Some(mono)) = (tool("mcs"), tool("mono")) else {
        return;
    };
    let dir = work("client");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(repo().join("generated/csharp"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cs"))
        .collect();
    sources.sort();
    sources.push(repo().join("examples/funnypitch-consumers/client/ClientDemo.cs"));
    run(Command::new(&mcs)
        .args([
            "-langversion:7.2",
            "-warnaserror",
            "-nowarn:1591",
            "-r:System.Core.dll",
        ])
        .arg(format!("-out:{}", dir.join("client.exe").display()))
        .args(&sources));
    let out = run(Command::new(&mono)
        .arg(dir.join("client.exe"))
        .arg(repo().join("generated/data/csharp")));
    for line in [
        // Upgrade.From/To → PieceType rows → their Lang rows (English names), with the pieces' tiers.
        "upgrade Minister_Civil: Minister (T1) -> Priest (T2)",
        "upgrade Soldier_LastRow: Soldier (T0) -> Minister (T1)",
        // MovePiece.Piece → PieceType → Lang (Chinese name); Rules → MoveRule rows → MoveRuleLib.
        "moves 刺客: 8 rules, first SlideMove_Forward along Forward",
        // InitPosition.Piece (optional) → PieceType.Tier, over the whole layout.
        "layout: T0 18, T1 12, T2 0, T3 4, T4 2, cells without a piece 2",
        // SpecialMove.Target (optional) and Pieces (array).
        "special LordFaceOff (Lord Face-off): Lord, target Lord",
        "special SpyReveal (Reveal Spies): Minister/Soldier",
        "special FortressExit (Fortress): every piece",
        "spy: Soldier; data files 9",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

#[test]
fn the_node_server_navigates_typed_references_and_reloads() {
    let Some(node) = tool("node") else { return };
    let tsc = repo().join("tests/conformance/node_modules/typescript/bin/tsc");
    if !tsc.exists() {
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "tests/conformance/node_modules is required on CI (npm ci there)"
        );
        eprintln!("skipping: {} not found", tsc.display());
        return;
    }
    let dir = work("server");
    // The example and the generated code keep their places relative to each other, in an ES-module package.
    let src = dir.join("src");
    copy_tree(
        &repo().join("examples/funnypitch-consumers/server"),
        &src.join("examples/funnypitch-consumers/server"),
    );
    copy_tree(&repo().join("generated/ts"), &src.join("generated/ts"));
    std::fs::write(src.join("package.json"), "{\"type\":\"module\"}\n").unwrap();
    let tsconfig = serde_json::json!({
        "compilerOptions": {
            "target": "ES2022",
            "lib": ["ES2022"],
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": true,
            "noUnusedLocals": true,
            "noUncheckedIndexedAccess": true,
            "exactOptionalPropertyTypes": true,
            "skipLibCheck": true,
            "typeRoots": [repo().join("tests/conformance/node_modules/@types")],
            "types": ["node"],
            "rootDir": src,
            "outDir": dir.join("out"),
        },
        "files": [src.join("examples/funnypitch-consumers/server/main.ts")],
    });
    std::fs::write(
        dir.join("tsconfig.json"),
        serde_json::to_string_pretty(&tsconfig).unwrap(),
    )
    .unwrap();
    run(Command::new(&node)
        .current_dir(&dir)
        .arg(&tsc)
        .args(["-p", "tsconfig.json"]));
    std::fs::write(dir.join("out/package.json"), "{\"type\":\"module\"}\n").unwrap();
    let out = run(Command::new(&node)
        .arg(dir.join("out/examples/funnypitch-consumers/server/main.js"))
        .arg(repo().join("generated/data/typescript")));
    // Each side's material, from the canonical data itself: InitPosition.Piece → PieceType.AiWeight.
    let data = |table: &str| -> Vec<serde_json::Value> {
        let text =
            std::fs::read_to_string(repo().join(format!("generated/data/typescript/{table}.json")))
                .unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["rows"]
            .as_array()
            .unwrap()
            .clone()
    };
    let weights: std::collections::HashMap<String, i64> = data("PieceType")
        .iter()
        .map(|p| {
            (
                p["Id"].as_str().unwrap().to_string(),
                p["AiWeight"].as_i64().unwrap(),
            )
        })
        .collect();
    let cells = data("InitPosition");
    let material = |side: &str| -> i64 {
        cells
            .iter()
            .filter(|c| c["Side"] == side)
            .filter_map(|c| c["Piece"].as_str().map(|p| weights[p]))
            .sum()
    };
    let (red, blue) = (material("Red"), material("Blue"));
    // Both sides start with pieces: a score of 0 would be a side name the data does not use.
    assert!(red > 0 && blue > 0, "red {red}, blue {blue}");
    for line in [
        // Upgrade.From/To → PieceType.AiWeight (a server-only field).
        "upgrade Minister_Civil: -2\n",
        "upgrade Officer_T3: +3\n",
        "upgrade Soldier_LastRow: +2\n",
        &format!("material Red {red}\n"),
        &format!("material Blue {blue}\n"),
        "targeted special LordFaceOff -> Lord\n",
        // Navigation is not part of a row's own, enumerable data (JSON.stringify, spreads, Object.keys).
        "references hidden true, own false\n",
        "reload: new rows true, old view intact true, frozen true",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}
