//! Seed 002 acceptance: the volley resolver of `src/lib.rs` over the generated tables reproduces the worked
//! example and the six acceptance cases (their hand-computed expectations are the Scenario / Placement /
//! Attack / LaneResult tables).

use northwall_acceptance::{formation, resolve, restore, unit, Fighter, Slot, VolleyResult};
use northwall_tables::{
    Attack, Battle, Lane, LaneId, LaneResult, Outcome, Placement, Rank, Scenario, ScenarioId, Side, UnitId,
};

fn run(id: &'static str) -> (Vec<Fighter>, VolleyResult) {
    let board = formation(ScenarioId(id));
    assert!(!board.is_empty(), "scenario {id} has placements");
    let r = resolve(&board);
    (board, r)
}

fn slot(side: Side, lane: &'static str, rank: Rank) -> Slot {
    Slot { side, lane: LaneId(lane), rank }
}

fn hp_after(r: &VolleyResult, s: Slot) -> u8 {
    r.after.iter().find(|f| f.slot == s).unwrap().hp
}

/// Compare a resolver run with the scenario's expectation rows.
fn check_against_tables(id: ScenarioId, r: &VolleyResult) {
    for p in Placement::all().iter().filter(|p| p.scenario == id) {
        assert_eq!(hp_after(r, Slot { side: p.side, lane: p.lane, rank: p.rank }), p.hp_after, "{id:?} {p:?}");
    }
    let expected: Vec<_> = Attack::all().iter().filter(|a| a.scenario == id).collect();
    assert_eq!(r.arrows.len(), expected.len(), "{id:?}: one attack per living unit");
    for a in expected {
        let from = Slot { side: a.side, lane: a.lane, rank: a.rank };
        let got = r.arrows.iter().find(|x| x.from == from).unwrap();
        assert_eq!(got.target.map(|t| t.rank), a.target, "{id:?} {a:?}");
        assert_eq!(got.damage, a.damage, "{id:?} {a:?}");
        if let Some(t) = got.target {
            assert_eq!((t.lane, t.side), (a.lane, northwall_acceptance::opponent(a.side)), "same lane, enemy");
        }
    }
    for l in LaneResult::all().iter().filter(|l| l.scenario == id) {
        let got = r.lanes.iter().find(|x| x.lane == l.lane).unwrap();
        assert_eq!((got.player_hp, got.enemy_hp, got.point), (l.player_hp as u32, l.enemy_hp as u32, l.point), "{id:?} {l:?}");
    }
    let s = Scenario::get(id).unwrap();
    assert_eq!((r.player_points, r.enemy_points, r.winner), (s.player_points as u32, s.enemy_points as u32, s.winner), "{id:?}");
}

#[test]
fn worked_example_north_2_1_south_2_2_player_wins_1_0() {
    let (board, r) = run("Worked");
    assert_eq!(board.len(), 6);
    assert_eq!(r.arrows.len(), 6, "six units alive at the start: six attacks");
    let lanes: Vec<(&str, u32, u32, Outcome)> = r.lanes.iter().map(|l| (l.lane.0, l.player_hp, l.enemy_hp, l.point)).collect();
    assert_eq!(lanes, vec![("North", 2, 1, Outcome::Player), ("South", 2, 2, Outcome::Draw)]);
    assert_eq!((r.player_points, r.enemy_points, r.winner), (1, 0, Outcome::Player));
    // The seed's prose: the player's south spear (2 HP) takes 1+2=3 and is removed, yet its 2 damage lands.
    let spear = slot(Side::Player, "South", Rank::Front);
    assert_eq!(hp_after(&r, spear), 0);
    let on_spear: Vec<u8> = r.arrows.iter().filter(|a| a.target == Some(spear)).map(|a| a.damage).collect();
    assert_eq!(on_spear, vec![1, 2]);
    assert_eq!(hp_after(&r, slot(Side::Enemy, "South", Rank::Front)), 1); // shield 3-2
    // The whole-board HP sum is not the score: player 4 vs enemy 3 overall, but the encounter is decided by lanes.
    let total = |s: Side| r.after.iter().filter(|f| f.slot.side == s).map(|f| f.hp as u32).sum::<u32>();
    assert_eq!((total(Side::Player), total(Side::Enemy)), (4, 3));
    check_against_tables(ScenarioId("Worked"), &r);
}

#[test]
fn every_scenario_matches_its_hand_computed_expectations() {
    assert_eq!(Scenario::all().len(), 7);
    for s in Scenario::all() {
        let board = formation(s.id);
        let size = Battle::get().army_size as usize;
        for side in [Side::Player, Side::Enemy] {
            let n = board.iter().filter(|f| f.slot.side == side).count();
            if s.full_armies {
                assert_eq!(n, size, "{:?} {side:?}", s.id);
            } else {
                assert!(n <= size);
            }
        }
        check_against_tables(s.id, &resolve(&board));
    }
}

#[test]
fn case_preferred_rank_empty_falls_back_to_the_other_rank_of_the_same_lane() {
    let (_, r) = run("PreferredRankEmpty");
    // The player's archer (prefers Back) in North: the enemy North back cell is empty -> it shoots the front.
    let archer = slot(Side::Player, "North", Rank::Front);
    assert_eq!(unit(UnitId("Archer")).preference[0], Rank::Back);
    let a = r.arrows.iter().find(|a| a.from == archer).unwrap();
    assert_eq!(a.target, Some(slot(Side::Enemy, "North", Rank::Front)), "no cross-lane target, no skipped attack");
    assert!(a.damage > 0);
    check_against_tables(ScenarioId("PreferredRankEmpty"), &r);
}

#[test]
fn case_no_enemy_in_lane_means_no_target_and_no_damage() {
    let (board, r) = run("NoEnemyInLane");
    assert!(!board.iter().any(|f| f.slot.side == Side::Enemy && f.slot.lane == LaneId("North")));
    let shield = slot(Side::Player, "North", Rank::Front);
    let a = r.arrows.iter().find(|a| a.from == shield).unwrap();
    assert_eq!((a.target, a.damage), (None, 0));
    // It did not move nor hit anyone in the South: South damage equals the South attackers' damage only.
    let south_damage: u32 = r.arrows.iter().filter(|a| a.from.side == Side::Player).map(|a| a.damage as u32).sum();
    let south_attackers: u32 = board
        .iter()
        .filter(|f| f.slot.side == Side::Player && f.slot.lane == LaneId("South"))
        .map(|f| unit(f.unit).damage as u32)
        .sum();
    assert_eq!(south_damage, south_attackers);
    assert_eq!(r.after.iter().find(|f| f.slot == shield).unwrap().slot, shield);
    check_against_tables(ScenarioId("NoEnemyInLane"), &r);
}

#[test]
fn case_two_attacks_on_one_target_add_up_and_both_attackers_act() {
    let (board, r) = run("TwoAttacksSameTarget");
    // Find every target hit by two arrows; each one's damage is the sum.
    let mut doubled = 0;
    for f in &board {
        let hits: Vec<u8> = r.arrows.iter().filter(|a| a.target == Some(f.slot)).map(|a| a.damage).collect();
        if hits.len() == 2 {
            doubled += 1;
            let sum: u8 = hits.iter().sum();
            assert_eq!(hp_after(&r, f.slot), f.hp.saturating_sub(sum));
        }
    }
    assert_eq!(doubled, 2);
    // The player's North spear dies in the volley but still deals its damage.
    let spear = slot(Side::Player, "North", Rank::Front);
    assert_eq!(hp_after(&r, spear), 0);
    assert_eq!(r.arrows.iter().find(|a| a.from == spear).unwrap().damage, unit(UnitId("Spear")).damage);
    check_against_tables(ScenarioId("TwoAttacksSameTarget"), &r);
}

#[test]
fn case_unit_at_zero_hp_is_removed_before_scoring_but_its_attack_lands() {
    let (board, r) = run("UnitDropsToZero");
    // The player's archer takes exactly its HP.
    let archer = slot(Side::Player, "South", Rank::Front);
    let taken: u32 = r.arrows.iter().filter(|a| a.target == Some(archer)).map(|a| a.damage as u32).sum();
    assert_eq!(taken, board.iter().find(|f| f.slot == archer).unwrap().hp as u32);
    assert_eq!(hp_after(&r, archer), 0);
    let south = r.lanes.iter().find(|l| l.lane == LaneId("South")).unwrap();
    assert_eq!(south.player_hp, 0, "a removed unit's HP never counts");
    // Its attack (on the enemy's back shield) still landed.
    let shot = r.arrows.iter().find(|a| a.from == archer).unwrap();
    let target = shot.target.unwrap();
    assert_eq!(hp_after(&r, target), unit(UnitId("Shield")).hp - shot.damage);
    check_against_tables(ScenarioId("UnitDropsToZero"), &r);
}

#[test]
fn case_lane_tie_gives_no_point_and_is_not_broken_by_count_or_starting_hp() {
    let (board, r) = run("LaneTie");
    let north = r.lanes.iter().find(|l| l.lane == LaneId("North")).unwrap();
    assert_eq!(north.player_hp, north.enemy_hp);
    assert_eq!(north.point, Outcome::Draw);
    // Unit counts and starting HP differ, so a tie-break on either would have given the lane away.
    let alive = |s: Side| r.after.iter().filter(|f| f.hp > 0 && f.slot.side == s && f.slot.lane == LaneId("North")).count();
    let start = |s: Side| board.iter().filter(|f| f.slot.side == s && f.slot.lane == LaneId("North")).map(|f| f.hp as u32).sum::<u32>();
    assert_ne!(alive(Side::Player), alive(Side::Enemy));
    assert_ne!(start(Side::Player), start(Side::Enemy));
    check_against_tables(ScenarioId("LaneTie"), &r);
}

#[test]
fn case_next_match_restores_full_hp_and_allows_reforming() {
    let s = Scenario::get(ScenarioId("NextMatch")).unwrap();
    let previous = s.after.expect("NextMatch follows a scenario");
    let (_, before) = run(previous.0);
    assert!(before.after.iter().any(|f| f.hp < unit(f.unit).hp), "the previous match left damaged units");
    // The same units, restored...
    let restored = restore(&before.after);
    assert!(restored.iter().all(|f| f.hp == unit(f.unit).hp));
    // ...and re-formed: the next formation uses the same three unit types per side at full HP.
    let next = formation(s.id);
    for side in [Side::Player, Side::Enemy] {
        let mut a: Vec<&str> = restored.iter().filter(|f| f.slot.side == side).map(|f| f.unit.0).collect();
        let mut b: Vec<&str> = next.iter().filter(|f| f.slot.side == side).map(|f| f.unit.0).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
    assert!(next.iter().all(|f| f.hp == unit(f.unit).hp));
    assert_ne!(
        next.iter().filter(|f| f.slot.side == Side::Player).map(|f| f.slot).collect::<Vec<_>>(),
        restored.iter().filter(|f| f.slot.side == Side::Player).map(|f| f.slot).collect::<Vec<_>>(),
        "the player re-formed"
    );
    let r = resolve(&next);
    // The previous score is not carried over.
    assert_eq!((r.player_points, r.enemy_points), (s.player_points as u32, s.enemy_points as u32));
    assert_ne!(r.winner, before.winner);
    check_against_tables(s.id, &r);
}

#[test]
fn units_and_lanes_are_the_seeds() {
    let stats: Vec<(&str, u8, u8, &[Rank])> =
        northwall_tables::Unit::all().iter().map(|u| (u.name, u.hp, u.damage, u.preference)).collect();
    assert!(stats.contains(&("盾兵", 3, 1, &[Rank::Front, Rank::Back][..])));
    assert!(stats.contains(&("枪兵", 2, 2, &[Rank::Front, Rank::Back][..])));
    assert!(stats.contains(&("弓手", 2, 1, &[Rank::Back, Rank::Front][..])));
    assert_eq!(Lane::all().len(), 2);
    assert_eq!(Battle::get().lane_point, 1);
}
