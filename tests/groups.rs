//! Export groups on FunnyPitch (docs/conventions.md §6): the C# client output has no server-only field or
//! table, the TypeScript server output no client-only field; each has its own data and content hash, and
//! both carry the whole project's hash.

use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn files(rel: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let mut out = vec![];
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.display().to_string(),
                    std::fs::read_to_string(&p).unwrap(),
                ));
            }
        }
    }
    out
}

/// Server-only: the field PieceType.AiWeight and the table ServerConfig (SpySeed, …).
const SERVER_ONLY: &[&str] = &[
    "AiWeight",
    "ServerConfig",
    "SpySeed",
    "AiThinkTime",
    "SeasonStart",
];

#[test]
fn csharp_client_output_has_no_server_only_member() {
    for (path, text) in files("generated/csharp")
        .into_iter()
        .chain(files("generated/data/csharp"))
    {
        for s in SERVER_ONLY {
            assert!(!text.contains(s), "{path} mentions the server-only {s}");
        }
    }
    assert!(read("generated/csharp/PieceType.cs").contains("public string Symbol { get; }"));
}

#[test]
fn typescript_server_output_has_no_client_only_member() {
    for (path, text) in files("generated/ts")
        .into_iter()
        .chain(files("generated/data/typescript"))
    {
        assert!(
            !text.contains("Symbol"),
            "{path} mentions the client-only Symbol"
        );
    }
    let piece = read("generated/ts/tables/PieceType.ts");
    assert!(piece.contains("readonly aiWeight: number;"));
    // The Tables interface lives in browser.ts (index.ts re-exports it for Node.js).
    assert!(read("generated/ts/browser.ts").contains("readonly serverConfig: ServerConfig;"));
}

#[test]
fn each_output_has_its_data_and_hash_and_the_project_hash() {
    let full = read("generated/data/content-hash.txt").trim().to_string();
    let cs = read("generated/data/csharp/content-hash.txt")
        .trim()
        .to_string();
    let ts = read("generated/data/typescript/content-hash.txt")
        .trim()
        .to_string();
    assert!(full != cs && full != ts && cs != ts);
    // The hashes live in one small file per language (docs/data-format.md §4).
    let tables = read("generated/csharp/Tables.Hashes.cs");
    assert!(tables.contains(&format!("ContentHash = \"{cs}\"")));
    assert!(tables.contains(&format!("ProjectHash = \"{full}\"")));
    let index = read("generated/ts/hashes.ts");
    assert!(index.contains(&format!("CONTENT_HASH = \"{ts}\"")));
    assert!(index.contains(&format!("PROJECT_HASH = \"{full}\"")));
    // Each output's data files carry the dataHash of its own (filtered) rows, which its hash file lists.
    for (data, hashes) in [
        ("generated/data/csharp/PieceType.json", &tables),
        ("generated/data/typescript/PieceType.json", &index),
        (
            "generated/data/PieceType.json",
            &read("generated/csharp/Tables.Hashes.cs"),
        ),
    ] {
        let h = gentable::emit::data::json::parse(&read(data)).unwrap().0;
        let listed = hashes.contains(&format!("\"{}\"", h.data_hash));
        assert_eq!(listed, !data.ends_with("data/PieceType.json"), "{data}");
    }
    // The Rust crate selects no groups: everything, the full data, one hash.
    assert_eq!(funnypitch_tables::CONTENT_HASH, full);
    assert_eq!(funnypitch_tables::PROJECT_HASH, full);
    let lord = funnypitch_tables::PieceType::get(funnypitch_tables::PieceTypeId("Lord")).unwrap();
    assert_eq!(lord.ai_weight, 100.0);
    assert!(read("generated/data/PieceType.json").contains("\"AiWeight\""));
    assert!(!read("generated/data/csharp/PieceType.json").contains("\"AiWeight\""));
    assert!(!read("generated/data/typescript/PieceType.json").contains("\"Symbol\""));
}
