//! A pseudo-legal Xiangqi move generator (the seed's geometry layer, `pseudoMoves`) driven only by the
//! generated tables: which table moves a piece (`Piece.Movement`), where it may stand (`Piece.Region` with
//! `Board` / `SideGeometry`), the horse legs, the elephant eyes and the cannon screen rule (`LineMove`).
//! Plus the seed's legality layer (`legal_moves`): try each move, drop those leaving the own general attacked
//! or the generals facing (`Board.GeneralsMayFace`). Check detection runs from the general outwards and reuses
//! the horse table backwards, as the seed describes.

use std::collections::BTreeMap;
use xiangqi_tables::{
    Board, ElephantMove, HorseMove, InitialPosition, LineMove, Movement, Piece, PieceId, Region, Side,
    SideGeometry, SideGeometryId, StepCondition, StepMove,
};

pub type Sq = (i8, i8); // (row, column)

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Man {
    pub side: Side,
    pub piece: PieceId,
}

#[derive(Clone, Debug, Default)]
pub struct Position {
    pub cells: BTreeMap<Sq, Man>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Move {
    pub from: Sq,
    pub to: Sq,
    pub captures: bool,
}

pub fn geometry(side: Side) -> &'static SideGeometry {
    SideGeometry::get(SideGeometryId(side)).expect("side geometry row")
}

pub fn other(side: Side) -> Side {
    if side == Side::Red { Side::Black } else { Side::Red }
}

pub fn on_board(sq: Sq) -> bool {
    let b = Board::get();
    sq.0 >= 0 && sq.1 >= 0 && (sq.0 as u8) < b.rows && (sq.1 as u8) < b.columns
}

/// The seed's `ownHalf(side, row)`.
pub fn own_half(side: Side, row: i8) -> bool {
    let h = geometry(side).own_half;
    row >= h.min as i8 && row <= h.max as i8
}

pub fn in_palace(side: Side, sq: Sq) -> bool {
    let rows = geometry(side).palace_rows;
    let cols = Board::get().palace_columns;
    (rows.min as i8..=rows.max as i8).contains(&sq.0) && (cols.min as i8..=cols.max as i8).contains(&sq.1)
}

pub fn region_allows(region: Region, side: Side, sq: Sq) -> bool {
    on_board(sq)
        && match region {
            Region::Palace => in_palace(side, sq),
            Region::OwnHalf => own_half(side, sq.0),
            Region::Board => true,
        }
}

fn add(a: Sq, dr: i8, dc: i8) -> Sq {
    (a.0 + dr, a.1 + dc)
}

impl Position {
    pub fn empty() -> Self {
        Self::default()
    }
    pub fn initial() -> Self {
        let mut p = Self::empty();
        for r in InitialPosition::all() {
            p.put((r.row as i8, r.column as i8), r.side, r.piece.0);
        }
        p
    }
    pub fn put(&mut self, sq: Sq, side: Side, piece: &'static str) {
        assert!(Piece::get(PieceId(piece)).is_some(), "unknown piece {piece}");
        self.cells.insert(sq, Man { side, piece: PieceId(piece) });
    }
    pub fn at(&self, sq: Sq) -> Option<Man> {
        self.cells.get(&sq).copied()
    }

    /// Geometry layer: every move of the piece on `from` by the tables, ignoring the own general's safety.
    pub fn pseudo_moves(&self, from: Sq) -> Vec<Move> {
        let man = self.at(from).expect("a piece on from");
        let piece = man.piece.row().expect("piece row");
        let side = man.side;
        let mut out = vec![];
        let push = |to: Sq, out: &mut Vec<Move>| {
            if !region_allows(piece.region, side, to) {
                return;
            }
            match self.at(to) {
                None => out.push(Move { from, to, captures: false }),
                Some(t) if t.side != side => out.push(Move { from, to, captures: true }),
                Some(_) => {}
            }
        };
        match piece.movement {
            Movement::Step => {
                // Offsets are written for Red (forward = dr -1); a side's forward sign flips dr.
                let flip = -geometry(side).forward as i8;
                for s in StepMove::all().iter().filter(|s| s.piece == man.piece) {
                    if s.when == StepCondition::AcrossRiver && own_half(side, from.0) {
                        continue;
                    }
                    push(add(from, s.offset.dr * flip, s.offset.dc), &mut out);
                }
            }
            Movement::Horse => {
                for h in HorseMove::all() {
                    let to = add(from, h.to.dr, h.to.dc);
                    if on_board(to) && self.at(add(from, h.leg.dr, h.leg.dc)).is_none() {
                        push(to, &mut out);
                    }
                }
            }
            Movement::Elephant => {
                for e in ElephantMove::all() {
                    let to = add(from, e.to.dr, e.to.dc);
                    if on_board(to) && self.at(add(from, e.eye.dr, e.eye.dc)).is_none() {
                        push(to, &mut out);
                    }
                }
            }
            Movement::Line => {
                let rule = LineMove::all().iter().find(|l| l.piece.0 == man.piece.0).expect("LineMove row");
                for d in rule.directions {
                    let mut sq = add(from, d.dr, d.dc);
                    // Segment 1: empty cells before the first piece.
                    while on_board(sq) && self.at(sq).is_none() {
                        if rule.quiet_until_first_piece {
                            out.push(Move { from, to: sq, captures: false });
                        }
                        sq = add(sq, d.dr, d.dc);
                    }
                    // Jump the screens (any side), then capture the first piece after them.
                    let mut screens = 0;
                    while on_board(sq) {
                        match self.at(sq) {
                            Some(t) if screens == rule.screens_to_capture => {
                                if t.side != side {
                                    out.push(Move { from, to: sq, captures: true });
                                }
                                break;
                            }
                            Some(_) => screens += 1,
                            None if screens > 0 && rule.land_beyond_screen => {
                                out.push(Move { from, to: sq, captures: false })
                            }
                            None => {}
                        }
                        sq = add(sq, d.dr, d.dc);
                    }
                }
            }
        }
        out.sort();
        out
    }

    pub fn pseudo_moves_of(&self, side: Side) -> Vec<Move> {
        let froms: Vec<Sq> = self.cells.iter().filter(|(_, m)| m.side == side).map(|(s, _)| *s).collect();
        froms.into_iter().flat_map(|f| self.pseudo_moves(f)).collect()
    }

    pub fn play(&self, m: Move) -> Position {
        let mut p = self.clone();
        let man = p.cells.remove(&m.from).expect("mover");
        p.cells.insert(m.to, man);
        p
    }

    fn general_of(&self, side: Side) -> Option<Sq> {
        self.cells
            .iter()
            .find(|(_, m)| m.side == side && m.piece.row().unwrap().region == Region::Palace && is_general(m.piece))
            .map(|(s, _)| *s)
    }

    /// Generals on one column with nothing between them (将帅照面).
    pub fn generals_face(&self) -> bool {
        let (Some(a), Some(b)) = (self.general_of(Side::Red), self.general_of(Side::Black)) else { return false };
        a.1 == b.1 && {
            let (lo, hi) = if a.0 < b.0 { (a.0, b.0) } else { (b.0, a.0) };
            (lo + 1..hi).all(|r| self.at((r, a.1)).is_none())
        }
    }

    /// Is `side`'s general attacked? From the general outwards: lines (chariot: first piece; cannon: first
    /// piece after one screen, both from `LineMove`), horse squares reusing `HorseMove` backwards, and steps.
    pub fn in_check(&self, side: Side) -> bool {
        let Some(k) = self.general_of(side) else { return false };
        let enemy = other(side);
        // Horse: a horse at k - To attacks k unless its leg (horse + Leg) is blocked.
        for h in HorseMove::all() {
            let hs = add(k, -h.to.dr, -h.to.dc);
            if let Some(m) = self.at(hs) {
                if m.side == enemy
                    && m.piece.row().unwrap().movement == Movement::Horse
                    && self.at(add(hs, h.leg.dr, h.leg.dc)).is_none()
                {
                    return true;
                }
            }
        }
        // Everything else: does any enemy pseudo move land on k? (lines, steps, elephants)
        self.cells
            .iter()
            .filter(|(_, m)| m.side == enemy && m.piece.row().unwrap().movement != Movement::Horse)
            .any(|(s, _)| self.pseudo_moves(*s).iter().any(|mv| mv.to == k))
    }

    /// Legality layer: try each pseudo move, drop it if the own general is then attacked or the generals face.
    pub fn legal_moves(&self, side: Side) -> Vec<Move> {
        self.pseudo_moves_of(side)
            .into_iter()
            .filter(|m| {
                let p = self.play(*m);
                !p.in_check(side) && (Board::get().generals_may_face || !p.generals_face())
            })
            .collect()
    }
}

/// The general is the one piece whose region is the palace and that steps orthogonally.
pub fn is_general(p: PieceId) -> bool {
    p.row().unwrap().region == Region::Palace
        && StepMove::all().iter().any(|s| s.piece == p && (s.offset.dr == 0 || s.offset.dc == 0))
}
