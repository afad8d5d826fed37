//! Seed 000 acceptance: primitives over the generated Direction table, and the tutorial scenarios' targets
//! derived from the generated Unit / Tactic / Action tables, against the seed's prose.

use std::collections::BTreeSet;
use warchest_acceptance::*;
use warchest_tables::{CoinSetup, Direction, DirectionId, FollowUp, Side, TacticKind, Unit, UnitId, Zone, ZoneInfo};

fn set(cells: &[Hex]) -> BTreeSet<Hex> {
    cells.iter().copied().collect()
}
fn piece(s: &State, at: Hex) -> Piece {
    *s.piece_at(at).unwrap()
}

#[test]
fn direction_table_is_the_seeds_six_vectors() {
    let v: Vec<(&str, Hex)> = Direction::all().iter().map(|d| (d.id.0, (d.vector.q as i32, d.vector.r as i32))).collect();
    assert_eq!(v.len(), 6);
    for (name, vec) in [("n", (0, -1)), ("ne", (1, -1)), ("se", (1, 0)), ("s", (0, 1)), ("sw", (-1, 1)), ("nw", (-1, 0))] {
        assert!(v.contains(&(name, vec)), "{name}");
    }
    for d in Direction::all() {
        let o = Direction::get(d.opposite).unwrap();
        assert_eq!((o.vector.q + d.vector.q, o.vector.r + d.vector.r), (0, 0));
        assert_eq!(axial_distance((0, 0), (d.vector.q as i32, d.vector.r as i32)), 1);
    }
    assert_eq!(Direction::get(DirectionId("se")).unwrap().opposite, DirectionId("nw"));
}

#[test]
fn primitives_give_the_seeds_distances_and_lines() {
    assert_eq!(pos_delta((0, 0), (2, 0)), (2, 0));
    assert_eq!(axial_distance((0, 0), (2, 0)), 2);
    assert_eq!(axial_distance((0, 0), (1, -2)), 2);
    assert_eq!(direction_and_steps((0, 0), (2, 0)), Some(((1, 0), 2)));
    assert_eq!(direction_and_steps((0, 0), (1, -2)), None);
    assert_eq!(cells_between((0, 0), (1, 0), 3), vec![(1, 0), (2, 0)]);
    // [0 0] + k × [1 0] is a hex line.
    for k in 1..=3 {
        assert_eq!(direction_and_steps((0, 0), (k, 0)), Some(((1, 0), k)));
    }
    // straight-range-two: exactly the doubled vectors; [2 0] is in, [1 -2] is not.
    let two = straight_range_two_deltas();
    assert_eq!(two.len(), 6);
    assert!(two.contains(&(2, 0)) && !two.contains(&(1, -2)));
    // 12 cells at distance 2, 6 of them straight.
    let s = State::scenario("bolster");
    let ring2: Vec<Hex> = s.cells().into_iter().filter(|&c| axial_distance((0, 0), c) == 2).collect();
    assert_eq!(ring2.len(), 12);
    assert_eq!(ring2.iter().filter(|&&c| direction_and_steps((0, 0), c).is_some()).count(), 6);
    // line-clear: [0 0] -> [2 0] is blocked by any piece on [1 0].
    let c = State::scenario("crossbow");
    assert!(!c.line_clear((0, 0), (2, 0)));
    assert!(c.line_clear((0, 0), (0, -2)));
    assert!(!c.line_clear((0, 0), (1, -2)), "not collinear");
}

#[test]
fn archer_moves_one_and_shoots_at_distance_two_without_a_line() {
    let s = State::scenario("archer");
    let archer = piece(&s, (0, 0));
    assert!(!unit(archer.unit).normal_attack, "the archer has no normal attack");
    assert!(s.normal_attacks(&archer).is_empty());
    assert_eq!(s.normal_moves(&archer), set(&neighbours((0, 0))));
    // Both distance-2 enemies: [2 0] on a line, [1 -2] not; for the archer there is no difference.
    assert_eq!(s.tactic_targets(&archer), set(&[(2, 0), (1, -2)]));
}

#[test]
fn crossbow_shot_at_2_0_is_blocked_by_1_0_and_at_0_m2_is_clear() {
    let s = State::scenario("crossbow");
    let xb = piece(&s, (0, 0));
    assert_eq!(s.normal_attacks(&xb), set(&[(1, 0)]), "the adjacent archer: normal attack");
    assert_eq!(s.tactic_targets(&xb), set(&[(0, -2)]), "the clear shot only");
    // [2 0] is at distance 2 and collinear, but the line is not clear: the grey dashed target.
    assert_eq!(axial_distance((0, 0), (2, 0)), 2);
    assert!(direction_and_steps((0, 0), (2, 0)).is_some() && !s.line_clear((0, 0), (2, 0)));
    // A friendly blocker blocks too ("无论中间棋子属于哪一方").
    let mut t = s.clone();
    t.pieces.iter_mut().find(|p| p.at == (1, 0)).unwrap().side = Side::Red;
    assert!(!t.tactic_targets(&xb).contains(&(2, 0)));
    // Without the blocker the shot is legal.
    let mut t = s.clone();
    t.pieces.retain(|p| p.at != (1, 0));
    assert_eq!(t.tactic_targets(&xb), set(&[(0, -2), (2, 0)]));
}

#[test]
fn lancer_moves_two_and_attacks_the_third_cell() {
    let s = State::scenario("lancer-tactic");
    let lancer = piece(&s, (0, 0));
    assert_eq!(s.normal_moves(&lancer), set(&neighbours((0, 0))));
    let t = s.tactic_targets(&lancer);
    assert_eq!(t, set(&[(3, 0)]), "the only direction with an enemy on the third cell");
    assert_eq!(s.charge_landing(&lancer, (3, 0)), Some((2, 0)));
    // Any piece on cell 1 or the landing cell forbids the charge.
    for blocker in [(1, 0), (2, 0)] {
        let mut b = s.clone();
        b.pieces.push(Piece { at: blocker, side: Side::Blue, unit: UnitId("scout"), strength: 1 });
        assert!(b.tactic_targets(&lancer).is_empty(), "blocked by {blocker:?}");
    }
    // No enemy on the third cell: no charge at all (no bare two-cell move).
    let mut e = s.clone();
    e.pieces.retain(|p| p.at != (3, 0));
    assert!(e.tactic_targets(&lancer).is_empty());
    // After the charge the lancer stands adjacent to its target, so a pikeman there counter-damages it.
    let mut p = s.clone();
    p.pieces.iter_mut().find(|x| x.at == (3, 0)).unwrap().unit = UnitId("pikeman");
    let landed = p.moved((0, 0), (2, 0));
    let after = landed.attack((2, 0), (3, 0));
    assert!(after.piece_at((2, 0)).is_none() && after.piece_at((3, 0)).is_none());
}

#[test]
fn light_cavalry_moves_two_along_a_free_path_but_never_jumps() {
    let s = State::scenario("light-cavalry-tactic");
    let lc = piece(&s, (0, 0));
    // Green: the 4 empty neighbours (pikeman on [1 0], swordsman on [0 -1]).
    assert_eq!(s.normal_moves(&lc), set(&[(1, -1), (0, 1), (-1, 1), (-1, 0)]));
    let ring2: BTreeSet<Hex> = s.cells().into_iter().filter(|&c| axial_distance((0, 0), c) == 2).collect();
    let gold = s.tactic_targets(&lc);
    let grey: BTreeSet<Hex> = ring2.iter().copied().filter(|c| s.empty_cell(*c) && !gold.contains(c)).collect();
    // Straight targets behind a unit have a single middle cell: unreachable.
    assert_eq!(grey, set(&[(2, 0), (0, -2)]));
    assert_eq!(gold.len(), 10);
    // Non-straight targets with one blocked route use the other route.
    for c in [(2, -1), (1, -2), (1, 1), (-1, -1)] {
        assert!(gold.contains(&c), "{c:?} has a free detour");
    }
}

#[test]
fn scout_deploys_on_empty_cells_next_to_a_friend() {
    let s = State::scenario("scout-deploy");
    let cells = s.deploy_cells(Side::Red, UnitId("scout"));
    let expected: BTreeSet<Hex> = neighbours((0, 0)).into_iter().filter(|&c| c != (1, 0)).collect();
    assert_eq!(cells, expected, "the enemy-occupied cell on the right is not offered");
    assert_eq!(cells.len(), 5);
    // A second scout may not be deployed while one is on the board.
    let mut t = s.clone();
    t.pieces.push(Piece { at: (-1, 0), side: Side::Red, unit: UnitId("scout"), strength: 1 });
    assert!(t.deploy_cells(Side::Red, UnitId("scout")).is_empty());
}

#[test]
fn knight_can_only_be_attacked_by_a_bolstered_unit() {
    let s = State::scenario("knight-defense");
    let sword = piece(&s, (-1, 0));
    let pike = piece(&s, (1, 0));
    assert_eq!(sword.strength, 1);
    assert_eq!(pike.strength, 2);
    assert!(!s.normal_attacks(&sword).contains(&(0, 0)), "strength 1 may not attack the knight");
    assert!(s.normal_attacks(&pike).contains(&(0, 0)), "strength 2 may");
    // The gate binds tactics too: an unbolstered crossbow in range and clear cannot shoot it; bolstered it can.
    let mut t = s.clone();
    t.pieces.retain(|p| p.side == Side::Blue);
    t.pieces.push(Piece { at: (0, 2), side: Side::Red, unit: UnitId("crossbow"), strength: 1 });
    let xb = piece(&t, (0, 2));
    assert!(t.line_clear((0, 2), (0, 0)));
    assert!(t.tactic_targets(&xb).is_empty());
    t.pieces.iter_mut().find(|p| p.at == (0, 2)).unwrap().strength = 2;
    let xb = piece(&t, (0, 2));
    assert_eq!(t.tactic_targets(&xb), set(&[(0, 0)]));
}

#[test]
fn pikeman_counter_damage_only_at_distance_one() {
    let s = State::scenario("pikeman-counter");
    let after = s.attack((0, 0), (1, 0));
    assert_eq!((piece(&after, (0, 0)).strength, piece(&after, (1, 0)).strength), (1, 1));
    // A crossbow shot from distance 2 triggers nothing.
    let mut t = s.clone();
    t.pieces.retain(|p| p.at != (0, 0));
    t.pieces.push(Piece { at: (-1, 0), side: Side::Red, unit: UnitId("crossbow"), strength: 2 });
    let after = t.attack((-1, 0), (1, 0));
    assert_eq!((piece(&after, (-1, 0)).strength, piece(&after, (1, 0)).strength), (2, 1));
}

#[test]
fn cavalry_moves_then_attacks_from_its_new_cell() {
    let s = State::scenario("cavalry-tactic");
    let cav = piece(&s, (0, 0));
    assert_eq!(s.normal_attacks(&cav), set(&[(0, -1)]), "red: attack the adjacent pikeman in place");
    let gold = s.tactic_targets(&cav);
    // Landings next to the crossbow [2 0] or the pikeman [0 -1].
    assert!(gold.contains(&(1, 0)) && gold.contains(&(1, -1)));
    assert_eq!(s.then_targets(&cav, (1, 0)), set(&[(2, 0)]));
    assert_eq!(s.then_targets(&cav, (1, -1)), set(&[(0, -1)]), "from [1 -1] only the pikeman is adjacent");
    assert!(!gold.contains(&(-1, 1)), "nothing to attack from there");
}

#[test]
fn war_priest_has_exactly_one_legal_control_target() {
    let s = State::scenario("war-priest-tactic");
    let priest = piece(&s, (2, -1));
    assert_eq!(s.tactic_targets(&priest), set(&[(2, 0)]));
    // The friendly [1 -1] and the enemy-occupied [3 -2] are adjacent control points, not targets.
    for c in [(1, -1), (3, -2)] {
        assert!(s.is_control_point(c) && axial_distance((2, -1), c) == 1);
    }
}

#[test]
fn standard_bearer_orders_adjacent_friends_only_and_the_marshal_delegates_tactics() {
    let s = State::scenario("ensign-order");
    let sb = piece(&s, (0, 0));
    assert_eq!(s.tactic_targets(&sb), set(&[(1, 0)]), "the scout at distance 2 is not orderable");
    let sword = piece(&s, (1, 0));
    assert_eq!(s.normal_attacks(&sword), set(&[(2, 0)]));
    let m = State::scenario("marshal-order");
    let marshal = piece(&m, (0, 0));
    // Only the standard bearer has a tactic to delegate; the swordsman (no tactic) is not a target.
    assert_eq!(m.tactic_targets(&marshal), set(&[(1, 0)]));
    let grants = tactic_of(UnitId("standard-bearer")).unwrap().grants.unwrap();
    assert_eq!(grants.len(), 2);
}

#[test]
fn units_and_coin_setup() {
    assert_eq!(Unit::all().len(), 16);
    let limit2: Vec<&str> = Unit::all().iter().filter(|u| u.deploy_limit > 1).map(|u| u.id.0).collect();
    assert_eq!(limit2, ["infantry"]);
    assert_eq!(unit(UnitId("berserker")).attack_follow_up, FollowUp::AttackAgain);
    assert_eq!(unit(UnitId("swordsman")).attack_follow_up, FollowUp::Move);
    assert!(Unit::all().iter().all(|u| !u.royal_coin_bolsters));
    assert_eq!(tactic_of(UnitId("lancer")).unwrap().kind, TacticKind::Charge);
    // Set-up: with N enabled units a player's bag holds RoyalCoins + N × BagCoinsPerUnit coins.
    let c = CoinSetup::get();
    let n = 4u32;
    assert_eq!(c.royal_coins as u32 + n * c.bag_coins_per_unit as u32, 9);
    assert_eq!(n * c.supply_coins_per_unit as u32, 8);
    assert_eq!(c.refill_from, Zone::Discard);
    assert_eq!(ZoneInfo::all().len(), 6);
    assert_eq!(warchest_tables::Scenario::all().len(), 18);
}
