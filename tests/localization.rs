//! Localization (docs/conventions.md §4 "Localization"): FunnyPitch's `x-gentable-text` keys resolve through
//! the generated `text(key, language)` lookups; missing keys and translations are diagnostics at their cells;
//! `[localization] inline` exports one language's texts in place of the keys.

use funnypitch_tables::{text, Language, PieceType, PieceTypeId};
use std::path::Path;

#[test]
fn funnypitch_piece_names_in_both_languages() {
    let soldier = PieceType::get(PieceTypeId("Soldier")).unwrap();
    assert_eq!(text(soldier.name_key.0, Language::Zh), Some("士兵"));
    assert_eq!(text(soldier.name_key.0, Language::En), Some("Soldier"));
    assert_eq!(text("No_Such_Key", Language::En), None);
    assert_eq!(
        Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>(),
        ["zh", "en"]
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cs = std::fs::read_to_string(root.join("generated/csharp/Tables.cs")).unwrap();
    assert!(cs.contains("public string Text(string key, Language language)"));
    let ts = std::fs::read_to_string(root.join("generated/ts/browser.ts")).unwrap();
    assert!(ts.contains(
        "export function text(t: Tables, key: string, language: Language): string | undefined"
    ));
}

fn project(lang_csv: &str, toml_extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w(
        "gentable.toml",
        &format!(
            "[project]\nname = \"L\"\n\n[localization]\nlanguages = [\"zh\", \"en\"]\n{toml_extra}"
        ),
    );
    w(
        "schema/Lang.schema.json",
        r#"{"type":"object","x-gentable-primaryKey":"Key","properties":{"Key":{"type":"string"},"zh":{"type":"string"},"en":{"type":"string"}},"required":["Key"]}"#,
    );
    w(
        "schema/Unit.schema.json",
        r#"{"type":"object","x-gentable-primaryKey":"Id","properties":{"Id":{"type":"integer"},"Name":{"type":"string","x-gentable-text":true},"Tips":{"type":"array","items":{"type":"string"},"x-gentable-text":true}},"required":["Id","Name"]}"#,
    );
    w("Table/Lang.csv", lang_csv);
    w(
        "Table/Unit.csv",
        "Id,Name,Tips\n1,U_Archer,T_A|T_B\n2,U_Knight,\n",
    );
    dir
}

#[test]
fn missing_keys_and_translations_are_reported_at_their_cells() {
    let dir = project(
        "Key,zh,en\nU_Archer,弓手,Archer\nU_Knight,骑士,\nT_A,提示,Tip\n",
        "",
    );
    let loaded = gentable::config::load(&dir.path().join("gentable.toml")).unwrap();
    let d = match gentable::build::load(&loaded) {
        Err(d) => d.items,
        Ok(_) => panic!("T_B is missing"),
    };
    let got: Vec<String> = d
        .iter()
        .map(|d| format!("{} {:?} {} {}", d.code, d.severity, d.location(), d.message))
        .collect();
    assert!(
        got.iter()
            .any(|g| g.starts_with("GT0330 Error Table/Unit.csv:2:C")
                && g.contains("\"T_B\" is not in Lang")),
        "{got:#?}"
    );
    assert!(
        got.iter()
            .any(|g| g.starts_with("GT0331 Warning Table/Lang.csv:3:C")
                && g.contains("\"U_Knight\" (used by Unit.Name) has no en text")),
        "{got:#?}"
    );
}

#[test]
fn inline_exports_one_language() {
    let dir = project(
        "Key,zh,en\nU_Archer,弓手,Archer\nU_Knight,骑士,Knight\nT_A,提示,Tip\nT_B,再提示,More\n",
        "inline = \"en\"\n",
    );
    let (loaded, v) = gentable::build::load_path(&dir.path().join("gentable.toml")).unwrap();
    let files = gentable::build::generate(&loaded, &v).unwrap();
    assert_eq!(
        gentable::emit::data::json::canonical_bytes(
            std::str::from_utf8(&files["data/Unit.json"]).unwrap()
        )
        .unwrap(),
        r#"[{"Id":1,"Name":"Archer","Tips":["Tip","More"]},{"Id":2,"Name":"Knight","Tips":[]}]"#
    );
    let lib = std::str::from_utf8(&files["rust/code/src/lib.rs"]).unwrap();
    assert!(lib.contains("pub fn text(key: &str, language: Language)"));
}
