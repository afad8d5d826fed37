//! Seed 001 acceptance: the move generator of `src/lib.rs` over the generated tables.

use std::collections::BTreeSet;
use xiangqi_acceptance::{geometry, own_half, Move, Position, Sq};
use xiangqi_tables::{Board, HorseMove, InitialPosition, LineMove, Piece, PieceId, Side, SideGeometry};

fn targets(moves: &[Move]) -> BTreeSet<Sq> {
    moves.iter().map(|m| m.to).collect()
}

#[test]
fn horse_has_8_moves_on_an_empty_board_and_6_with_each_leg_blocked() {
    let centre = (4, 4);
    let mut p = Position::empty();
    p.put(centre, Side::Red, "Horse");
    assert_eq!(p.pseudo_moves(centre).len(), 8);

    // The legs are whatever the table says; there must be exactly 4 of them, each shared by 2 destinations.
    let legs: BTreeSet<(i8, i8)> = HorseMove::all().iter().map(|h| (h.leg.dr, h.leg.dc)).collect();
    assert_eq!(legs.len(), 4);
    for (lr, lc) in legs {
        for blocker in [Side::Red, Side::Black] {
            let mut q = p.clone();
            q.put((centre.0 + lr, centre.1 + lc), blocker, "Soldier");
            let moves = q.pseudo_moves(centre);
            assert_eq!(moves.len(), 6, "leg ({lr},{lc}) blocked by {blocker:?}");
            // The two lost destinations are exactly the ones lying beyond that leg.
            for m in &moves {
                let (dr, dc) = (m.to.0 - centre.0, m.to.1 - centre.1);
                assert!(!(lr != 0 && dr == 2 * lr) && !(lc != 0 && dc == 2 * lc), "{m:?} should be blocked");
            }
        }
    }
    // A piece on a diagonal neighbour (not a leg) blocks nothing.
    let mut q = p.clone();
    q.put((3, 3), Side::Black, "Soldier");
    assert_eq!(q.pseudo_moves(centre).len(), 8);
}

#[test]
fn horse_in_the_corner_of_the_initial_position() {
    let p = Position::initial();
    // Red horse on (9,1): (8,3) is blocked by the leg (9,2) (the elephant); two moves remain.
    assert_eq!(targets(&p.pseudo_moves((9, 1))), BTreeSet::from([(7, 0), (7, 2)]));
}

#[test]
fn elephant_never_crosses_the_river_but_returns_to_its_back_rank() {
    // Red elephant on the river bank (row 5, Red's half): both forward destinations are across the river.
    let mut p = Position::empty();
    p.put((5, 2), Side::Red, "Elephant");
    assert!(own_half(Side::Red, 5) && !own_half(Side::Red, 3));
    assert_eq!(targets(&p.pseudo_moves((5, 2))), BTreeSet::from([(7, 0), (7, 4)]));

    // From (7,4) it may go back to its back rank (row 9) as well as forward to row 5.
    let mut p = Position::empty();
    p.put((7, 4), Side::Red, "Elephant");
    let back = geometry(Side::Red).back_rank as i8;
    let t = targets(&p.pseudo_moves((7, 4)));
    assert_eq!(t, BTreeSet::from([(5, 2), (5, 6), (back, 2), (back, 6)]));
    assert!(t.iter().any(|sq| sq.0 == back), "an elephant can return to its back rank");

    // Black mirrors: a black elephant on (4,6) cannot go to row 6.
    let mut p = Position::empty();
    p.put((4, 6), Side::Black, "Elephant");
    assert_eq!(targets(&p.pseudo_moves((4, 6))), BTreeSet::from([(2, 4), (2, 8)]));

    // The eye: a piece on (6,3) blocks (7,4) -> (5,2) only.
    let mut p = Position::empty();
    p.put((7, 4), Side::Red, "Elephant");
    p.put((6, 3), Side::Black, "Soldier");
    assert_eq!(targets(&p.pseudo_moves((7, 4))), BTreeSet::from([(5, 6), (9, 2), (9, 6)]));

    // No elephant destination over the whole board is ever across the river.
    for r in 0..Board::get().rows as i8 {
        for c in 0..Board::get().columns as i8 {
            for side in [Side::Red, Side::Black] {
                let mut p = Position::empty();
                p.put((r, c), side, "Elephant");
                assert!(p.pseudo_moves((r, c)).iter().all(|m| own_half(side, m.to.0)));
            }
        }
    }
}

#[test]
fn cannon_captures_exactly_the_first_piece_after_its_screen() {
    let cannon = LineMove::get(PieceId("Cannon")).unwrap();
    assert_eq!((cannon.screens_to_capture, cannon.land_beyond_screen), (1, false));

    // Column 1: Red cannon (7,1); screen (4,1) (Red's own soldier - screens may be of either side);
    // (3,1) empty; Black chariot (2,1) - the capture; Black horse (0,1) further on.
    let mut p = Position::empty();
    p.put((7, 1), Side::Red, "Cannon");
    p.put((4, 1), Side::Red, "Soldier");
    p.put((2, 1), Side::Black, "Chariot");
    p.put((0, 1), Side::Black, "Horse");
    let moves = p.pseudo_moves((7, 1));
    let up: BTreeSet<(Sq, bool)> = moves.iter().filter(|m| m.to.1 == 1 && m.to.0 < 7).map(|m| (m.to, m.captures)).collect();
    assert_eq!(up, BTreeSet::from([((6, 1), false), ((5, 1), false), ((2, 1), true)]));
    // It never lands beyond the screen: not on (3,1), (1,1); and never captures the second piece (0,1).
    for sq in [(4, 1), (3, 1), (1, 1), (0, 1)] {
        assert!(moves.iter().all(|m| m.to != sq), "cannon must not reach {sq:?}");
    }
    // Without an enemy after the screen there is no capture at all.
    let mut q = p.clone();
    q.cells.remove(&(2, 1));
    q.cells.remove(&(0, 1));
    assert!(q.pseudo_moves((7, 1)).iter().all(|m| !m.captures));
    // If the first piece after the screen is friendly, nothing behind it is capturable.
    let mut q = p.clone();
    q.put((2, 1), Side::Red, "Chariot");
    assert!(q.pseudo_moves((7, 1)).iter().all(|m| !m.captures));
    // A chariot on the same spot captures the first piece instead (ScreensToCapture = 0).
    let mut q = p.clone();
    q.put((7, 1), Side::Red, "Chariot");
    let caps: Vec<Sq> = q.pseudo_moves((7, 1)).iter().filter(|m| m.captures).map(|m| m.to).collect();
    assert!(caps.is_empty(), "the first piece up the column is Red's own soldier");
}

#[test]
fn cannon_opening_capture_of_the_initial_position() {
    // From the set-up, Red's cannon on (7,1) jumps Black's cannon (2,1) and can take the horse on (0,1).
    let p = Position::initial();
    let caps: Vec<Sq> = p.pseudo_moves((7, 1)).iter().filter(|m| m.captures).map(|m| m.to).collect();
    assert_eq!(caps, vec![(0, 1)]);
}

#[test]
fn initial_position_matches_the_piece_counts_and_geometry() {
    for side in [Side::Red, Side::Black] {
        for piece in Piece::all() {
            let n = InitialPosition::all().iter().filter(|r| r.side == side && r.piece == piece.id).count();
            assert_eq!(n, piece.per_side as usize, "{side:?} {:?}", piece.id);
        }
        // Every starting piece stands where its region allows.
        for r in InitialPosition::all().iter().filter(|r| r.side == side) {
            let region = r.piece_row().region;
            assert!(xiangqi_acceptance::region_allows(region, side, (r.row as i8, r.column as i8)), "{r:?}");
        }
    }
    assert_eq!(InitialPosition::all().len(), 32);
    let halves: Vec<_> = SideGeometry::all().iter().map(|g| (g.own_half.min, g.own_half.max)).collect();
    assert_eq!(halves, vec![(5, 9), (0, 4)]);
    // Red moves first: 44 legal opening moves in standard Xiangqi.
    let first = SideGeometry::all().iter().find(|g| g.moves_first).unwrap().id.0;
    assert_eq!(first, Side::Red);
    assert_eq!(Position::initial().legal_moves(first).len(), 44);
}

#[test]
fn soldier_moves_sideways_only_after_the_river() {
    let mut p = Position::empty();
    p.put((6, 4), Side::Red, "Soldier");
    p.put((4, 0), Side::Red, "Soldier");
    p.put((5, 8), Side::Black, "Soldier");
    assert_eq!(targets(&p.pseudo_moves((6, 4))), BTreeSet::from([(5, 4)]));
    assert_eq!(targets(&p.pseudo_moves((4, 0))), BTreeSet::from([(3, 0), (4, 1)]));
    assert_eq!(targets(&p.pseudo_moves((5, 8))), BTreeSet::from([(6, 8), (5, 7)]));
}

#[test]
fn generals_may_not_face_and_the_horse_table_detects_check_backwards() {
    assert!(!Board::get().generals_may_face);
    // Generals on different columns (the seed warns a test position must not have them facing).
    let mut p = Position::empty();
    p.put((9, 4), Side::Red, "General");
    p.put((0, 3), Side::Black, "General");
    // Red general may not step to column 3: it would face Black's general.
    let legal = targets(&p.legal_moves(Side::Red));
    assert_eq!(legal, BTreeSet::from([(8, 4), (9, 5)]));
    // Palace: the general never leaves columns 3..5 / rows 7..9.
    assert!(!legal.contains(&(9, 6)));

    // A black horse on (7,3) checks the red general on (9,4) (To (2,1), leg (1,0) -> (8,3) empty) ...
    let mut q = p.clone();
    q.put((7, 3), Side::Black, "Horse");
    assert!(q.in_check(Side::Red));
    // ... unless its leg (8,3) is blocked.
    q.put((8, 3), Side::Red, "Advisor");
    assert!(!q.in_check(Side::Red));
    assert!(Piece::get(PieceId("Horse")).is_some());
}
