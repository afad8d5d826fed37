//! Map primitives of Eaves War over the generated tables: odd-q neighbours from `NeighborOffset`, the
//! rotation from `MapInfo`, straight-line ordinary moves and a BFS counting ordinary moves.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use eaveswar_tables::{Cell, MapInfo, NeighborOffset, Parity, Side, Terrain};

pub type Pos = (i32, i32);

pub fn cell(p: Pos) -> Option<&'static Cell> {
    if p.0 < 0 || p.1 < 0 || p.0 > 255 || p.1 > 255 {
        return None;
    }
    Cell::all().iter().find(|c| (c.q as i32, c.r as i32) == p)
}

pub fn rotate(p: Pos) -> Pos {
    let m = MapInfo::get();
    (m.rotate_q as i32 - p.0, m.rotate_r as i32 - p.1 - (p.0 & 1))
}

pub fn parity(q: i32) -> Parity {
    if q & 1 == 0 { Parity::Even } else { Parity::Odd }
}

/// Direction names in table order.
pub fn directions() -> Vec<&'static str> {
    let mut v: Vec<&str> = NeighborOffset::all().iter().map(|n| n.direction).collect();
    v.sort();
    v.dedup();
    v
}

/// The neighbour of `p` in `direction`, if it is on the map.
pub fn step(p: Pos, direction: &str) -> Option<Pos> {
    let o = NeighborOffset::all()
        .iter()
        .find(|n| n.parity == parity(p.0) && n.direction == direction)
        .expect("offset row")
        .offset;
    let n = (p.0 + o.dq as i32, p.1 + o.dr as i32);
    cell(n).map(|_| n)
}

pub fn neighbours(p: Pos) -> Vec<Pos> {
    directions().into_iter().filter_map(|d| step(p, d)).collect()
}

/// Cells one ordinary move reaches on an empty map: any distance along one straight line; buildings and
/// enemy nests block (friendly birds could be crossed; there are none on an empty map).
pub fn ordinary_moves(p: Pos, side: Side) -> BTreeSet<Pos> {
    let mut out = BTreeSet::new();
    for d in directions() {
        let mut cur = step(p, d);
        while let Some(c) = cur {
            let cell = cell(c).unwrap();
            let blocked = cell.terrain == Terrain::Building || (cell.terrain == Terrain::Nest && cell.owner != Some(side));
            if blocked {
                break;
            }
            out.insert(c);
            cur = step(c, d);
        }
    }
    out
}

/// BFS: the number of moves to every reachable cell, with `moves` as the move generator.
pub fn bfs(start: Pos, moves: impl Fn(Pos) -> Vec<Pos>) -> BTreeMap<Pos, u32> {
    let mut dist = BTreeMap::from([(start, 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(p) = queue.pop_front() {
        for n in moves(p) {
            if !dist.contains_key(&n) {
                dist.insert(n, dist[&p] + 1);
                queue.push_back(n);
            }
        }
    }
    dist
}

pub fn cells_of(t: Terrain) -> Vec<&'static Cell> {
    Cell::all().iter().filter(|c| c.terrain == t).collect()
}

pub fn pos(c: &Cell) -> Pos {
    (c.q as i32, c.r as i32)
}
