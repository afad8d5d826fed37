//! Validator rules shipped with the examples catch what their seeds forbid. Eaves War (seed 003): the map
//! central-v2 has 94 cells and is rotationally symmetric under (q,r) → (10-q, 8-r-(q&1)).

use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            if e.file_name() != "generated" && e.file_name() != "acceptance" {
                copy_dir(&p, &to.join(e.file_name()));
            }
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Load a copy of Eaves War whose Cell.csv went through `edit`; return the (code, message) of every diagnostic.
fn eaveswar_with(edit: impl Fn(&str) -> String) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/eaveswar");
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&src, tmp.path());
    let cells = tmp.path().join("Table/Cell.csv");
    let text = std::fs::read_to_string(&cells).unwrap();
    std::fs::write(&cells, edit(&text)).unwrap();
    let loaded = gentable::config::load(&tmp.path().join("gentable.toml")).unwrap();
    match gentable::build::load(&loaded) {
        Ok(v) => v
            .warnings
            .iter()
            .map(|d| (d.code.to_string(), d.message.clone()))
            .collect(),
        Err(d) => d
            .items
            .iter()
            .map(|d| (d.code.to_string(), d.message.clone()))
            .collect(),
    }
}

#[test]
fn the_real_map_passes() {
    assert_eq!(eaveswar_with(|t| t.to_string()), vec![]);
}

#[test]
fn breaking_the_rotation_is_reported() {
    // (0,0) is plain; its image (10,8) stays plain, so making (0,0) a building breaks the symmetry.
    let found = eaveswar_with(|t| t.replacen("\n0,0,plain,,", "\n0,0,building,,", 1));
    assert!(
        found
            .iter()
            .any(|(c, m)| c == "GT0311" && m.contains("rotationally symmetric")),
        "{found:?}"
    );
}

#[test]
fn a_missing_cell_is_reported() {
    let found = eaveswar_with(|t| t.replacen("\n0,2,plain,,", "", 1));
    assert!(
        found
            .iter()
            .any(|(c, m)| c == "GT0311" && m.contains("94 cells") && m.contains("found 93")),
        "{found:?}"
    );
}
