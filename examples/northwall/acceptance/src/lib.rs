//! A Northwall Muster volley resolver driven by the generated tables: unit HP / damage / target preference
//! from `Unit`, lanes from `Lane`, and the rule switches and lane point from the `Battle` singleton.

use northwall_tables::{Battle, Lane, LaneId, Outcome, Placement, Rank, ScenarioId, Side, Unit, UnitId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub side: Side,
    pub lane: LaneId,
    pub rank: Rank,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fighter {
    pub slot: Slot,
    pub unit: UnitId,
    pub hp: u8,
}

/// One attack arrow, chosen on the pre-volley board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrow {
    pub from: Slot,
    pub target: Option<Slot>,
    pub damage: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneScore {
    pub lane: LaneId,
    pub player_hp: u32,
    pub enemy_hp: u32,
    pub point: Outcome,
}

#[derive(Clone, Debug)]
pub struct VolleyResult {
    pub arrows: Vec<Arrow>,
    /// Every fighter of the pre-volley board with its HP after the damage (0 = removed).
    pub after: Vec<Fighter>,
    pub lanes: Vec<LaneScore>,
    pub player_points: u32,
    pub enemy_points: u32,
    pub winner: Outcome,
}

pub fn unit(id: UnitId) -> &'static Unit {
    Unit::get(id).expect("unit row")
}

pub fn opponent(side: Side) -> Side {
    match side {
        Side::Player => Side::Enemy,
        Side::Enemy => Side::Player,
    }
}

/// A fresh formation at full HP (from `Unit.Hp`) for a scenario's placements.
pub fn formation(scenario: ScenarioId) -> Vec<Fighter> {
    Placement::all()
        .iter()
        .filter(|p| p.scenario == scenario)
        .map(|p| Fighter { slot: Slot { side: p.side, lane: p.lane, rank: p.rank }, unit: p.unit, hp: unit(p.unit).hp })
        .collect()
}

/// The target of `f`: the first rank of its preference holding a living enemy in its own lane.
pub fn choose_target(board: &[Fighter], f: &Fighter) -> Option<Slot> {
    let battle = Battle::get();
    assert!(!battle.cross_lane_targeting, "this resolver implements own-lane targeting only");
    unit(f.unit).preference.iter().find_map(|rank| {
        board
            .iter()
            .find(|e| e.hp > 0 && e.slot.side == opponent(f.slot.side) && e.slot.lane == f.slot.lane && e.slot.rank == *rank)
            .map(|e| e.slot)
    })
}

pub fn resolve(board: &[Fighter]) -> VolleyResult {
    let battle = Battle::get();
    assert!(battle.simultaneous_damage && battle.remove_at_zero_hp, "this resolver implements the seed's volley");
    // 1. Every unit alive at the start chooses its target on the same (pre-volley) board.
    let arrows: Vec<Arrow> = board
        .iter()
        .filter(|f| f.hp > 0)
        .map(|f| {
            let target = choose_target(board, f);
            Arrow { from: f.slot, target, damage: if target.is_some() { unit(f.unit).damage } else { 0 } }
        })
        .collect();
    // 2. All damage at once; damage to a shared target adds up. 3. 0 HP = removed.
    let after: Vec<Fighter> = board
        .iter()
        .map(|f| {
            let taken: u32 = arrows.iter().filter(|a| a.target == Some(f.slot)).map(|a| a.damage as u32).sum();
            Fighter { hp: (f.hp as u32).saturating_sub(taken) as u8, ..*f }
        })
        .collect();
    // 4. Lane totals of survivors; higher total takes LanePoint, a tie gives nobody anything.
    let mut lanes = vec![];
    let (mut pp, mut ep) = (0, 0);
    for lane in Lane::all() {
        let total = |side: Side| -> u32 {
            after.iter().filter(|f| f.hp > 0 && f.slot.side == side && f.slot.lane == lane.id).map(|f| f.hp as u32).sum()
        };
        let (p, e) = (total(Side::Player), total(Side::Enemy));
        let point = if p > e {
            pp += battle.lane_point as u32;
            Outcome::Player
        } else if e > p {
            ep += battle.lane_point as u32;
            Outcome::Enemy
        } else {
            Outcome::Draw
        };
        lanes.push(LaneScore { lane: lane.id, player_hp: p, enemy_hp: e, point });
    }
    // 5. More lane points wins.
    let winner = match pp.cmp(&ep) {
        std::cmp::Ordering::Greater => Outcome::Player,
        std::cmp::Ordering::Less => Outcome::Enemy,
        std::cmp::Ordering::Equal => Outcome::Draw,
    };
    VolleyResult { arrows, after, lanes, player_points: pp, enemy_points: ep, winner }
}

/// Before the next match the same units are restored to full HP (`Battle.RestoreHpBetweenMatches`).
pub fn restore(after: &[Fighter]) -> Vec<Fighter> {
    assert!(Battle::get().restore_hp_between_matches);
    after.iter().map(|f| Fighter { hp: unit(f.unit).hp, ..*f }).collect()
}
