//! A small War Chest rule program over the generated tables: hex primitives built on the `Direction` table,
//! and a generic evaluator of the rule compositions (`Action.Target`, `Tactic.Target` / `Then`, `Unit`
//! overrides). Nothing about a specific unit is written here: every unit difference comes from the tables.

use std::collections::{BTreeMap, BTreeSet};
use warchest_tables::{
    Action, ActionId, ActionKind, Board, Condition, Deploy, Direction, Primitive, Scenario, Side,
    Tactic, TacticKind, Unit, UnitId,
};

pub type Hex = (i32, i32);

// ---------------------------------------------------------------- geometry (coordinates only)

pub fn directions() -> Vec<Hex> {
    Direction::all().iter().map(|d| (d.vector.q as i32, d.vector.r as i32)).collect()
}
pub fn add(a: Hex, b: Hex) -> Hex {
    (a.0 + b.0, a.1 + b.1)
}
pub fn scale(a: Hex, n: i32) -> Hex {
    (a.0 * n, a.1 * n)
}
pub fn pos_delta(from: Hex, to: Hex) -> Hex {
    (to.0 - from.0, to.1 - from.1)
}
pub fn axial_s(h: Hex) -> i32 {
    -(h.0 + h.1)
}
pub fn axial_distance(a: Hex, b: Hex) -> i32 {
    ((a.0 - b.0).abs() + (a.1 - b.1).abs() + (axial_s(a) - axial_s(b)).abs()) / 2
}
/// `{:direction d :steps n}` when `to - from = n × d` for a direction vector d and n ≥ 1; else None.
pub fn direction_and_steps(from: Hex, to: Hex) -> Option<(Hex, i32)> {
    let delta = pos_delta(from, to);
    directions().into_iter().find_map(|d| {
        let n = if d.0 != 0 { delta.0 / d.0 } else { delta.1 / d.1 };
        (n >= 1 && scale(d, n) == delta).then_some((d, n))
    })
}
/// The cells strictly between `from` and `from + steps × direction`.
pub fn cells_between(from: Hex, direction: Hex, steps: i32) -> Vec<Hex> {
    (1..steps).map(|i| add(from, scale(direction, i))).collect()
}
/// The seed's straight-range-two-deltas: each direction vector doubled.
pub fn straight_range_two_deltas() -> BTreeSet<Hex> {
    directions().into_iter().map(|d| add(d, d)).collect()
}
pub fn neighbours(h: Hex) -> Vec<Hex> {
    directions().into_iter().map(|d| add(h, d)).collect()
}

// ---------------------------------------------------------------- board state

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub at: Hex,
    pub side: Side,
    pub unit: UnitId,
    pub strength: u8,
}

#[derive(Clone, Debug)]
pub struct State {
    pub pieces: Vec<Piece>,
    /// Owned control points (unowned ones are neutral).
    pub controls: BTreeMap<Hex, Side>,
}

/// The schema default of `ScenarioPiece.strength` (gentable leaves an omitted trailing record field absent).
pub const DEFAULT_STRENGTH: u8 = 1;

impl State {
    pub fn scenario(id: &str) -> State {
        let s = Scenario::all().iter().find(|s| s.id.0 == id).unwrap_or_else(|| panic!("scenario {id}"));
        let pieces: Vec<Piece> = s
            .pieces
            .iter()
            .map(|p| Piece {
                at: (p.at.q as i32, p.at.r as i32),
                side: p.side,
                unit: p.unit,
                strength: p.strength.unwrap_or(DEFAULT_STRENGTH),
            })
            .collect();
        let focus_side = pieces.iter().find(|p| p.at == (s.focus.q as i32, s.focus.r as i32)).map(|p| p.side);
        let mut controls = BTreeMap::new();
        for h in s.friendly_controls.unwrap_or(&[]) {
            controls.insert((h.q as i32, h.r as i32), focus_side.expect("a piece on the focus"));
        }
        State { pieces, controls }
    }
    pub fn inside_board(&self, h: Hex) -> bool {
        axial_distance(h, (0, 0)) <= Board::get().radius as i32
    }
    pub fn cells(&self) -> Vec<Hex> {
        let r = Board::get().radius as i32;
        let mut v = vec![];
        for q in -r..=r {
            for s in -r..=r {
                if self.inside_board((q, s)) {
                    v.push((q, s));
                }
            }
        }
        v
    }
    pub fn piece_at(&self, h: Hex) -> Option<&Piece> {
        self.pieces.iter().find(|p| p.at == h)
    }
    pub fn empty_cell(&self, h: Hex) -> bool {
        self.inside_board(h) && self.piece_at(h).is_none()
    }
    pub fn line_clear(&self, from: Hex, to: Hex) -> bool {
        match direction_and_steps(from, to) {
            Some((d, n)) => cells_between(from, d, n).into_iter().all(|c| self.empty_cell(c)),
            None => false,
        }
    }
    /// Some shortest path of adjacent steps from `from` to `to` whose intermediate cells are all empty.
    pub fn path_clear(&self, from: Hex, to: Hex) -> bool {
        let d = axial_distance(from, to);
        if d <= 1 {
            return true;
        }
        neighbours(from)
            .into_iter()
            .any(|via| axial_distance(via, to) == d - 1 && self.empty_cell(via) && self.path_clear(via, to))
    }
    pub fn is_control_point(&self, h: Hex) -> bool {
        Board::get().control_points.iter().any(|c| (c.q as i32, c.r as i32) == h)
    }
    pub fn friends_at_distance(&self, side: Side, from: Hex, distance: i32) -> Vec<Piece> {
        self.pieces.iter().filter(|p| p.side == side && axial_distance(p.at, from) == distance).copied().collect()
    }
    pub fn moved(&self, from: Hex, to: Hex) -> State {
        let mut s = self.clone();
        s.pieces.iter_mut().find(|p| p.at == from).expect("mover").at = to;
        s
    }

    // ------------------------------------------------------------ rule compositions

    /// Does `cond` hold for target cell `to`, seen from `actor`?
    pub fn holds(&self, actor: &Piece, to: Hex, cond: &Condition) -> bool {
        let target = self.piece_at(to);
        match cond.test {
            Primitive::Distance => axial_distance(actor.at, to) == cond.n.expect("distance needs n") as i32,
            Primitive::Straight => direction_and_steps(actor.at, to).is_some(),
            Primitive::LineClear => self.line_clear(actor.at, to),
            Primitive::PathClear => self.path_clear(actor.at, to),
            Primitive::Empty => self.empty_cell(to),
            Primitive::Enemy => target.is_some_and(|t| t.side != actor.side),
            Primitive::Friend => target.is_some_and(|t| t.side == actor.side),
            Primitive::FriendWithTactic => target.is_some_and(|t| {
                t.side == actor.side
                    && t.at != actor.at
                    && unit(t.unit).tactic_row().is_some_and(|t| t.kind != TacticKind::DelegateTactic)
            }),
            Primitive::ControlPoint => self.is_control_point(to),
            Primitive::NotOwnControl => self.controls.get(&to) != Some(&actor.side),
            Primitive::SameUnit => target.is_some_and(|t| t.unit == actor.unit),
        }
    }
    /// Every board cell satisfying all conditions.
    pub fn targets(&self, actor: &Piece, conds: &[Condition]) -> BTreeSet<Hex> {
        self.cells().into_iter().filter(|&c| conds.iter().all(|k| self.holds(actor, c, k))).collect()
    }
    /// The strength gate of the defender (knight): applies to every attack, normal or tactic.
    pub fn attack_target_allowed(&self, attacker: &Piece, to: Hex) -> bool {
        let defender = self.piece_at(to).expect("a defender");
        unit(defender.unit).attacker_min_strength.map_or(true, |min| attacker.strength >= min)
    }

    pub fn normal_moves(&self, actor: &Piece) -> BTreeSet<Hex> {
        if !unit(actor.unit).normal_move {
            return BTreeSet::new();
        }
        self.targets(actor, action(ActionKind::Move).target)
    }
    pub fn normal_attacks(&self, actor: &Piece) -> BTreeSet<Hex> {
        if !unit(actor.unit).normal_attack {
            return BTreeSet::new();
        }
        self.targets(actor, action(ActionKind::Attack).target)
            .into_iter()
            .filter(|&t| self.attack_target_allowed(actor, t))
            .collect()
    }
    /// Cells the actor's tactic may target (attack-like tactics check the strength gate).
    pub fn tactic_targets(&self, actor: &Piece) -> BTreeSet<Hex> {
        let Some(t) = unit(actor.unit).tactic_row() else { return BTreeSet::new() };
        let cells = self.targets(actor, t.target);
        match t.kind {
            TacticKind::Attack | TacticKind::Charge => {
                cells.into_iter().filter(|&c| self.attack_target_allowed(actor, c)).collect()
            }
            TacticKind::MoveThenAttack => cells.into_iter().filter(|&c| !self.then_targets(actor, c).is_empty()).collect(),
            _ => cells,
        }
    }
    /// Charge: the landing cell for a target (from + MoveSteps × direction).
    pub fn charge_landing(&self, actor: &Piece, target: Hex) -> Option<Hex> {
        let t = tactic_of(actor.unit)?;
        let (d, _) = direction_and_steps(actor.at, target)?;
        Some(add(actor.at, scale(d, t.move_steps? as i32)))
    }
    /// Move-then-attack: targets of the `Then` conditions after moving to `landing`.
    pub fn then_targets(&self, actor: &Piece, landing: Hex) -> BTreeSet<Hex> {
        let t = tactic_of(actor.unit).expect("tactic");
        let after = self.moved(actor.at, landing);
        let moved = Piece { at: landing, ..*actor };
        after
            .targets(&moved, t.then.unwrap_or(&[]))
            .into_iter()
            .filter(|&c| after.attack_target_allowed(&moved, c))
            .collect()
    }
    /// Cells where `side` may deploy `unit_id` by its Deploy rule (only the next-to-friend rule is board-free).
    pub fn deploy_cells(&self, side: Side, unit_id: UnitId) -> BTreeSet<Hex> {
        let u = unit(unit_id);
        let on_board = self.pieces.iter().filter(|p| p.side == side && p.unit == unit_id).count();
        if on_board >= u.deploy_limit as usize {
            return BTreeSet::new();
        }
        let ghost = Piece { at: (i32::MAX / 4, 0), side, unit: unit_id, strength: 1 };
        let empty = self.targets(&ghost, action(ActionKind::Deploy).target);
        match u.deploy {
            Deploy::NextToFriend => {
                empty.into_iter().filter(|&c| !self.friends_at_distance(side, c, 1).is_empty()).collect()
            }
            Deploy::Base => panic!("bases are not part of the tutorial board"),
        }
    }
    /// Resolve one attack: the defender loses one layer, and a counter-damage defender hit from distance 1
    /// removes `CounterDamage` layers of the attacker at the same time.
    pub fn attack(&self, from: Hex, to: Hex) -> State {
        let mut s = self.clone();
        let counter = unit(self.piece_at(to).unwrap().unit).counter_damage;
        let adjacent = axial_distance(from, to) == 1;
        for p in s.pieces.iter_mut() {
            if p.at == to {
                p.strength -= 1;
            }
            if p.at == from && adjacent {
                p.strength = p.strength.saturating_sub(counter);
            }
        }
        s.pieces.retain(|p| p.strength > 0);
        s
    }
}

pub fn unit(id: UnitId) -> &'static Unit {
    Unit::get(id).unwrap_or_else(|| panic!("unit {id:?}"))
}
pub fn action(kind: ActionKind) -> &'static Action {
    Action::get(ActionId(kind)).expect("action row")
}
pub fn tactic_of(id: UnitId) -> Option<&'static Tactic> {
    unit(id).tactic_row()
}
