//! The published schemas are valid and current: every table schema validates against
//! `schema/gentable.meta.schema.json`, and `schema/gentable.toml.schema.json` is what `gentable config-schema`
//! prints (regenerate with `gentable config-schema > schema/gentable.toml.schema.json`).

use std::path::Path;

fn meta_validator() -> jsonschema::Validator {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("schema/gentable.meta.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::options()
        .offline()
        .build(&meta)
        .expect("meta-schema compiles")
}

fn schema_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![];
    for dir in ["schema", "tests/torture/schema", "tests/luban/schema"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            out.extend(rd.flatten().map(|e| e.path()).filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy();
                n.ends_with(".schema.json") && !n.starts_with("gentable.")
            }));
        }
    }
    out.sort();
    out
}

#[test]
fn every_table_schema_follows_the_meta_schema() {
    let v = meta_validator();
    let files = schema_files();
    assert!(files.len() >= 10, "{files:?}");
    for f in files {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let errors: Vec<String> = v
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", f.display());
    }
}

#[test]
fn meta_schema_rejects_bad_annotations() {
    let v = meta_validator();
    let bad = serde_json::json!({"type": "object", "x-gentable-mode": "dict", "properties": {"A": {"type": "string", "x-gentable-name": "1bad"}}});
    let errors: Vec<String> = v
        .iter_errors(&bad)
        .map(|e| e.instance_path().to_string())
        .collect();
    assert!(
        errors.contains(&"/x-gentable-mode".to_string()),
        "{errors:?}"
    );
    assert!(
        errors.contains(&"/properties/A/x-gentable-name".to_string()),
        "{errors:?}"
    );
    assert!(v.is_valid(&serde_json::json!({"type": "object", "x-gentable-primaryKey": ["A", "B"]})));
}

#[test]
fn config_schema_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(root.join("schema/gentable.toml.schema.json")).unwrap();
    assert_eq!(
        committed,
        gentable::config::json_schema(),
        "run: gentable config-schema > schema/gentable.toml.schema.json"
    );
}
