//! `data = ["json", "binary"]` per output (docs/data-format.md, issue 15 item 2): FunnyPitch's tables built
//! with the C# client output in binary only and the TypeScript server output in both formats. Each output's
//! data folder holds exactly the formats it selects, every binary file's header carries the same `dataHash`
//! and `schemaHash` as the JSON file of the same table and output, and a bad `data` list is refused.

use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// FunnyPitch's tables and schemas in a temporary folder, with `gentable.toml` edited by `edit`.
fn funnypitch(edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo.join("Table"), &dir.path().join("Table"));
    copy_dir(&repo.join("schema"), &dir.path().join("schema"));
    let toml = std::fs::read_to_string(repo.join("gentable.toml")).unwrap();
    std::fs::write(dir.path().join("gentable.toml"), edit(toml)).unwrap();
    dir
}

/// (dataHash, schemaHash) of a binary data file's header (docs/data-format.md §3.1).
fn binary_hashes(b: &[u8]) -> (String, String) {
    assert_eq!(&b[..8], b"\x89GTB\r\n\x1a\n");
    assert_eq!(u16::from_le_bytes([b[8], b[9]]), 3, "format version");
    assert_eq!(
        u64::from_le_bytes(b[16..24].try_into().unwrap()),
        b.len() as u64
    );
    assert_eq!(
        u32::from_le_bytes(b[12..16].try_into().unwrap()),
        crc32fast::hash(&b[16..])
    );
    (
        String::from_utf8(b[24..88].to_vec()).unwrap(),
        String::from_utf8(b[88..152].to_vec()).unwrap(),
    )
}

#[test]
fn each_output_gets_the_formats_it_selects() {
    let dir = funnypitch(|t| {
        t.replace(
            "groups = [\"client\"]",
            "groups = [\"client\"]\ndata = [\"binary\"]",
        )
        .replace(
            "groups = [\"server\"]",
            "groups = [\"server\"]\ndata = [\"json\", \"binary\"]",
        )
    });
    let (loaded, v) = gentable::build::load_path(&dir.path().join("gentable.toml")).unwrap();
    let files = gentable::build::generate(&loaded, &v).unwrap();
    let in_folder = |folder: &str, ext: &str| -> Vec<String> {
        files
            .keys()
            .filter_map(|k| k.strip_prefix(&format!("{folder}/")))
            .filter(|k| !k.contains('/') && k.ends_with(ext))
            .map(|k| k.trim_end_matches(ext).to_string())
            .collect()
    };
    // The client (C#, no server-only table ServerConfig): binary only.
    let client = in_folder("data/csharp", ".bytes");
    assert_eq!(
        client,
        [
            "Const",
            "InitPosition",
            "Lang",
            "MovePiece",
            "MoveRule",
            "MoveRuleLib",
            "PieceType",
            "SpecialMove",
            "Upgrade"
        ]
    );
    assert!(in_folder("data/csharp", ".json").is_empty());
    assert!(files.contains_key("data/csharp/content-hash.txt"));
    // The server (TypeScript): both, with the same hashes in both headers of each table.
    let json = in_folder("data/typescript", ".json");
    assert_eq!(json, in_folder("data/typescript", ".bytes"));
    assert!(json.contains(&"ServerConfig".to_string()), "{json:?}");
    for t in &json {
        let text = std::str::from_utf8(&files[&format!("data/typescript/{t}.json")]).unwrap();
        let h = gentable::emit::data::json::header(text).unwrap();
        let (data, schema) = binary_hashes(&files[&format!("data/typescript/{t}.bytes")]);
        assert_eq!((data, schema), (h.data_hash, h.schema_hash), "{t}");
    }
    // The whole project's folder stays JSON (no output without groups reads it in binary), and the Rust
    // crate embeds its binary files whatever the other outputs select.
    assert!(in_folder("data", ".bytes").is_empty());
    assert_eq!(in_folder("data", ".json").len(), 10);
    assert_eq!(in_folder("rust/data", ".bytes").len(), 10);
    // The server-only field is in neither of the client's files, in no form.
    let piece = &files["data/csharp/PieceType.bytes"];
    assert!(!piece.windows(8).any(|w| w == b"AiWeight"));
    // And its shape is another one: the client's rows have no AiWeight, so their schema hash differs.
    assert_ne!(
        binary_hashes(piece).1,
        binary_hashes(&files["data/typescript/PieceType.bytes"]).1
    );
}

#[test]
fn a_bad_data_list_is_refused_by_name() {
    for (list, says) in [
        (
            "[]",
            "[csharp] data is empty; list \"json\", \"binary\" or both",
        ),
        ("[\"json\", \"json\"]", "[csharp] data names a format twice"),
        ("[\"xml\"]", "unknown variant `xml`"),
    ] {
        let dir = funnypitch(|t| {
            t.replace(
                "groups = [\"client\"]",
                &format!("groups = [\"client\"]\ndata = {list}"),
            )
        });
        let err = gentable::config::load(&dir.path().join("gentable.toml")).unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains(says), "{list}: {msg}");
    }
}
