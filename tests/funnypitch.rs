//! FunnyPitch (seed 004) through the committed generated Rust crate: the values a rule program reads
//! must be the seed's. Facts are listed in docs/funnypitch.md ("Facts tests can assert").

use funnypitch_tables::enums::{CaptureClass, CellKind, MoveKind, MoveMode, Side, Trigger, Zone};
use funnypitch_tables::{
    Const, InitPosition, Lang, LangId, MovePiece, MoveRule, MoveRuleId, MoveRuleLib, MoveRuleLibId,
    PieceType, PieceTypeId, Upgrade,
};

fn piece(id: &'static str) -> &'static PieceType {
    PieceType::get(PieceTypeId(id)).unwrap_or_else(|| panic!("no piece {id}"))
}

/// What `from` becomes by capturing `captured`, following the Upgrade recipes.
fn promote_on_capture(from: &'static str, captured: &'static str) -> Option<PieceTypeId> {
    let class = piece(captured).capture_class;
    let recipes: Vec<&Upgrade> = Upgrade::all()
        .iter()
        .filter(|u| u.from == PieceTypeId(from) && u.trigger == Trigger::Capture)
        .collect();
    recipes
        .iter()
        .find(|u| u.captured_class == Some(class))
        .or_else(|| recipes.iter().find(|u| u.captured_class.is_none()))
        .map(|u| u.to)
}

#[test]
fn officer_capturing_a_minister_becomes_an_assassin() {
    assert_eq!(
        promote_on_capture("Officer", "Minister"),
        Some(PieceTypeId("Assassin"))
    );
    assert_eq!(
        promote_on_capture("Officer", "Soldier"),
        Some(PieceTypeId("IronGuard"))
    );
    assert_eq!(
        promote_on_capture("Officer", "Knight"),
        Some(PieceTypeId("Knight"))
    );
    assert_eq!(
        promote_on_capture("Officer", "Loyalist"),
        Some(PieceTypeId("Censor"))
    );
    assert_eq!(
        promote_on_capture("Minister", "Soldier"),
        Some(PieceTypeId("Chamberlain"))
    );
    assert_eq!(
        promote_on_capture("Minister", "Priest"),
        Some(PieceTypeId("Priest"))
    );
    assert_eq!(
        promote_on_capture("Soldier", "Lord"),
        Some(PieceTypeId("Officer"))
    );
    // Pieces that cannot promote have no recipe.
    assert_eq!(promote_on_capture("Knight", "Soldier"), None);
    let last_row = Upgrade::get(funnypitch_tables::UpgradeId("Soldier_LastRow")).unwrap();
    assert_eq!(
        (last_row.trigger, last_row.captured_class, last_row.to),
        (Trigger::LastRow, None, PieceTypeId("Minister"))
    );
}

#[test]
fn promotion_sources_are_exactly_the_promotable_pieces() {
    let mut promotable: Vec<&str> = PieceType::all()
        .iter()
        .filter(|p| p.can_promote)
        .map(|p| p.id.0)
        .collect();
    let mut sources: Vec<&str> = Upgrade::all().iter().map(|u| u.from.0).collect();
    promotable.sort();
    sources.sort();
    sources.dedup();
    assert_eq!(promotable, ["Minister", "Officer", "Soldier"]);
    assert_eq!(sources, promotable);
    assert!(Upgrade::all()
        .iter()
        .all(|u| u.captured_class != Some(CaptureClass::T4)));
}

#[test]
fn the_lord_is_confined_to_its_own_territory() {
    let lord = piece("Lord");
    assert_eq!((lord.tier, lord.own_territory_only), (4, true));
    // Typed references: `rules_rows()` resolves every MoveRuleId without `Option` (validation proved them).
    let rules: Vec<&MoveRule> = MovePiece::get(PieceTypeId("Lord"))
        .unwrap()
        .rules_rows()
        .collect();
    assert_eq!(rules.len(), 9);
    for r in &rules {
        assert_eq!(r.zone, Zone::OwnTerritory, "{r:?}");
    }
    let face_off = rules.last().unwrap();
    assert_eq!(
        (face_off.kind, face_off.mode, face_off.max_steps),
        (MoveKind::LordFaceOff, MoveMode::CaptureOnly, 0)
    );
}

#[test]
fn soldier_moves_forward_and_captures_diagonally() {
    let rules: Vec<&MoveRule> = MovePiece::get(PieceTypeId("Soldier"))
        .unwrap()
        .rules_rows()
        .collect();
    assert_eq!(rules.len(), 3);
    let fwd = MoveRule::get(MoveRuleId("StepMove_Forward")).unwrap();
    assert_eq!((fwd.mode, fwd.max_steps), (MoveMode::MoveOnly, 1));
    let dir = MoveRuleLib::get(fwd.direction).unwrap().vector;
    assert_eq!((dir.x, dir.y), (0, 1));
    for id in ["StepCapture_ForwardLeft", "StepCapture_ForwardRight"] {
        assert_eq!(
            MoveRule::get(MoveRuleId(id)).unwrap().mode,
            MoveMode::CaptureOnly
        );
    }
    let fl = MoveRuleLib::get(MoveRuleLibId("ForwardLeft"))
        .unwrap()
        .vector;
    assert_eq!((fl.x, fl.y), (-1, 1));
}

#[test]
fn knight_leaps_to_the_eight_l_cells() {
    let mut cells: Vec<(i8, i8)> = MovePiece::get(PieceTypeId("Knight"))
        .unwrap()
        .rules_rows()
        .map(|rule| {
            assert_eq!(rule.kind, MoveKind::Leap);
            let d = rule.direction_row().vector;
            (d.x, d.y)
        })
        .collect();
    cells.sort();
    assert_eq!(
        cells,
        [
            (-2, -1),
            (-2, 1),
            (-1, -2),
            (-1, 2),
            (1, -2),
            (1, 2),
            (2, -1),
            (2, 1)
        ]
    );
}

#[test]
fn initial_layout_follows_the_diagram() {
    let count = |side: Side, p: &'static str| {
        InitPosition::all()
            .iter()
            .filter(|r| r.side == Some(side) && r.piece == Some(PieceTypeId(p)))
            .count()
    };
    for side in [Side::Red, Side::Blue] {
        assert_eq!(count(side, "Soldier"), 9, "{side}");
        assert_eq!(count(side, "Minister"), 6);
        assert_eq!(count(side, "Loyalist"), 2);
        assert_eq!(count(side, "Lord"), 1);
        let total = InitPosition::all()
            .iter()
            .filter(|r| r.side == Some(side))
            .count();
        assert_eq!(total, Const::get().pieces_per_side as usize);
    }
    let lord = |side| {
        InitPosition::all()
            .iter()
            .find(|r| r.side == Some(side) && r.piece == Some(PieceTypeId("Lord")))
            .unwrap()
    };
    assert_eq!((lord(Side::Red).x, lord(Side::Red).y), (4, 0));
    assert_eq!((lord(Side::Blue).x, lord(Side::Blue).y), (4, 8));
    let mut forts: Vec<(u8, u8)> = InitPosition::all()
        .iter()
        .filter(|r| r.cell == CellKind::Fortress)
        .map(|r| (r.x, r.y))
        .collect();
    forts.sort();
    assert_eq!(forts, [(2, 4), (6, 4)]);
    // Mirror symmetry about y = 4.
    for r in InitPosition::all()
        .iter()
        .filter(|r| r.side == Some(Side::Red))
    {
        assert!(InitPosition::all()
            .iter()
            .any(|b| b.side == Some(Side::Blue)
                && b.piece == r.piece
                && b.x == r.x
                && b.y == 8 - r.y));
    }
}

#[test]
fn constants_and_lang() {
    let c = Const::get();
    assert_eq!((c.board_width, c.board_height, c.neutral_row), (9, 9, 4));
    assert_eq!(
        (c.spy_select_count, c.spy_random_piece, c.spy_random_count),
        (1, PieceTypeId("Soldier"), 2)
    );
    assert_eq!(Lang::get(LangId("Piece_Censor")).unwrap().zh, "御史");
    assert_eq!(
        Lang::get(LangId("Piece_IronGuard")).unwrap().en,
        "Iron Guard"
    );
    // Every piece's name key resolves in Lang.
    for p in PieceType::all() {
        assert!(p.name_key.row().is_some(), "{:?}", p.id);
    }
    assert_eq!(PieceType::all().len(), 11);
    assert!(
        PieceType::all().windows(2).all(|w| w[0].id < w[1].id),
        "rows are sorted by key"
    );
}

#[test]
fn generated_crate_dumps_the_committed_canonical_data() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/data");
    let tables = funnypitch_tables::canonical_tables();
    assert_eq!(tables.len(), 10);
    for (name, json) in tables {
        let committed = std::fs::read_to_string(root.join(format!("{name}.json"))).unwrap();
        let canonical = gentable::emit::data::json::canonical_bytes(&committed).unwrap();
        assert_eq!(json, canonical, "{name}");
    }
    let hash = std::fs::read_to_string(root.join("content-hash.txt")).unwrap();
    assert_eq!(funnypitch_tables::CONTENT_HASH, hash.trim());
}
