//! Seed 003 acceptance: map central-v2, trash cans, contracts, deck and constants through the generated crate.

use eaveswar_acceptance::*;
use eaveswar_tables::{
    CardCategory, Cell, Content, EffectKind, MapInfo, Mercenary, Role, RoleId, Rules, Side, TacticCard, Terrain,
    TrashMix, TrashMixId,
};
use std::collections::BTreeSet;

#[test]
fn map_has_94_cells_in_11_columns_alternating_9_and_8() {
    let m = MapInfo::get();
    assert_eq!(m.id, "central-v2");
    assert_eq!(Cell::all().len(), 94);
    assert_eq!(Cell::all().len(), m.cell_count as usize);
    for q in 0..m.columns {
        let n = Cell::all().iter().filter(|c| c.q == q).count();
        let expected = if q % 2 == 0 { m.even_column_cells } else { m.odd_column_cells };
        assert_eq!(n, expected as usize, "column {q}");
        for r in 0..expected {
            assert!(cell((q as i32, r as i32)).is_some(), "({q},{r}) present, rows from 0");
        }
    }
    assert_eq!((m.columns, m.even_column_cells, m.odd_column_cells), (11, 9, 8));
}

#[test]
fn rotation_maps_every_cell_onto_a_cell_of_the_same_terrain() {
    let m = MapInfo::get();
    assert_eq!((m.rotate_q, m.rotate_r), (10, 8));
    for c in Cell::all() {
        let p = pos(c);
        let img = cell(rotate(p)).unwrap_or_else(|| panic!("{p:?} rotates off the map"));
        assert_eq!(img.terrain, c.terrain, "{p:?} -> {:?}", rotate(p));
        // Ownership swaps sides; blocks pair up g <-> g+3.
        let swapped = c.owner.map(|o| if o == Side::West { Side::East } else { Side::West });
        assert_eq!(img.owner, swapped, "{p:?}");
        assert_eq!(img.block.is_some(), c.block.is_some());
        assert_eq!(rotate(rotate(p)), p, "the rotation is an involution");
    }
    // It maps neighbours to neighbours (so it is a symmetry of the hex grid, not just of the cell set).
    for c in Cell::all() {
        let p = pos(c);
        let a: BTreeSet<Pos> = neighbours(p).into_iter().map(rotate).collect();
        let b: BTreeSet<Pos> = neighbours(rotate(p)).into_iter().collect();
        assert_eq!(a, b, "{p:?}");
    }
}

#[test]
fn neighbour_table_is_symmetric() {
    assert_eq!(directions().len(), 6);
    for c in Cell::all() {
        let p = pos(c);
        for n in neighbours(p) {
            assert!(neighbours(n).contains(&p), "{p:?} ~ {n:?}");
        }
    }
    // Interior cells have 6 neighbours.
    assert_eq!(neighbours((5, 3)).len(), 6);
    assert_eq!(neighbours((4, 4)).len(), 6);
}

#[test]
fn recruit_points_need_at_least_two_ordinary_moves_from_every_nest() {
    let recruits: Vec<Pos> = cells_of(Terrain::RecruitPoint).into_iter().map(pos).collect();
    // 第 6 列第 3、6 行 (1-based) = (5,2), (5,5).
    assert_eq!(recruits, vec![(5, 2), (5, 5)]);
    let nests = cells_of(Terrain::Nest);
    assert_eq!(nests.len(), 6);
    for side in [Side::West, Side::East] {
        assert_eq!(nests.iter().filter(|n| n.owner == Some(side)).count(), 3);
    }
    for nest in nests {
        let side = nest.owner.unwrap();
        let dist = bfs(pos(nest), |p| ordinary_moves(p, side).into_iter().collect());
        for r in &recruits {
            let d = dist.get(r).copied();
            assert!(d.is_some(), "{r:?} reachable from {:?}", pos(nest));
            assert!(d.unwrap() >= 2, "nest {:?} reaches {r:?} in {d:?} moves", pos(nest));
        }
        // Also with single steps over odd-q neighbours (buildings and enemy nests impassable).
        let steps = bfs(pos(nest), |p| {
            neighbours(p)
                .into_iter()
                .filter(|n| {
                    let c = cell(*n).unwrap();
                    c.terrain != Terrain::Building && !(c.terrain == Terrain::Nest && c.owner != Some(side))
                })
                .collect()
        });
        assert!(recruits.iter().all(|r| steps[r] >= 2));
    }
}

#[test]
fn six_blocks_of_adjacent_building_and_high_ground() {
    let blocks: BTreeSet<u8> = Cell::all().iter().filter_map(|c| c.block).collect();
    assert_eq!(blocks, (1..=6).collect());
    for b in blocks {
        let members: Vec<&Cell> = Cell::all().iter().filter(|c| c.block == Some(b)).collect();
        let building: Vec<Pos> = members.iter().filter(|c| c.terrain == Terrain::Building).map(|c| pos(c)).collect();
        let high: Vec<Pos> = members.iter().filter(|c| c.terrain == Terrain::HighGround).map(|c| pos(c)).collect();
        assert!(!building.is_empty() && !high.is_empty(), "block {b}");
        assert!(building.iter().any(|bp| high.iter().any(|h| neighbours(*bp).contains(h))), "block {b} adjacent");
    }
    assert!(Cell::all().iter().all(|c| c.block.is_some() == matches!(c.terrain, Terrain::Building | Terrain::HighGround)));
}

#[test]
fn twelve_trash_cans_and_their_round_mix() {
    let cans = cells_of(Terrain::TrashCan);
    assert_eq!(cans.len(), Rules::get().trash_cans as usize);
    assert_eq!(cans.len(), 12);
    for side in [Side::West, Side::East] {
        assert_eq!(cans.iter().filter(|c| c.owner == Some(side)).count(), 2, "{side:?} side cans");
    }
    assert_eq!(cans.iter().filter(|c| c.owner.is_none()).count(), 8, "middle cans");
    // The mix fills exactly the cans of the map.
    let total: u32 = TrashMix::all().iter().map(|m| m.cans as u32).sum();
    assert_eq!(total as usize, cans.len());
    let mix = |c: Content| TrashMix::get(TrashMixId(c)).map(|m| (m.cans, m.per_can)).unwrap();
    assert_eq!(mix(Content::Shiny), (3, 1));
    assert_eq!(mix(Content::Food), (3, 2));
    assert_eq!(mix(Content::Card), (2, 1));
    assert_eq!(mix(Content::Empty), (4, 0));
    // Shinies available per round: 3; food 6.
    let amount = |c: Content| { let (n, k) = mix(c); n as u32 * k as u32 };
    assert_eq!((amount(Content::Shiny), amount(Content::Food)), (3, 6));
}

#[test]
fn roles_mercenaries_and_deck() {
    assert_eq!(Role::all().len(), 4);
    assert_eq!(Mercenary::all().len(), 13);
    // Pigeon: the default birds plus its extra-bird effect.
    let pigeon = Role::get(RoleId("pigeon")).unwrap();
    let extra: u8 = pigeon.effects.iter().filter(|e| e.kind == EffectKind::ExtraBird).filter_map(|e| e.amount).sum();
    assert_eq!(pigeon.starting_birds, Rules::get().starting_birds + extra);
    assert_eq!(pigeon.starting_birds, 4);
    for r in Role::all().iter().filter(|r| r.id.0 != "pigeon") {
        assert_eq!(r.starting_birds, Rules::get().starting_birds);
    }
    // Deck: the in-deck copies are exactly Rules.DeckSize; the permanent bluff stays outside.
    let in_deck: u32 = TacticCard::all().iter().map(|c| c.copies as u32).sum();
    assert_eq!(in_deck, Rules::get().deck_size as u32);
    assert_eq!(in_deck, 24);
    let bluffs: Vec<_> = TacticCard::all().iter().filter(|c| c.effects.iter().any(|e| e.kind == EffectKind::Bluff)).collect();
    assert_eq!(bluffs.len(), 1);
    assert_eq!(bluffs[0].copies, 0);
    for cat in [CardCategory::EnhanceMove, CardCategory::EnhanceSearch, CardCategory::EnhanceFight, CardCategory::General] {
        assert!(TacticCard::all().iter().any(|c| c.category == cat && c.copies > 0), "{cat:?}");
    }
    // The seed's adapted cards cost 1: 深挖 慧眼 压阵 绕后.
    for name in ["深挖", "慧眼", "压阵", "绕后"] {
        let c = TacticCard::all().iter().find(|c| c.name == name).unwrap();
        assert_eq!((c.cost, c.designed), (1, false), "{name}");
    }
    // Escape cards are enhance-fight (逃脱牌统一归入强化火拼).
    assert!(TacticCard::all()
        .iter()
        .filter(|c| c.effects.iter().any(|e| e.kind == EffectKind::Escape))
        .all(|c| c.category == CardCategory::EnhanceFight));
}

#[test]
fn constants() {
    let r = Rules::get();
    assert_eq!((r.hand_limit, r.starting_food, r.win_delivered), (5, 2, 6));
    assert_eq!((r.starting_hand, r.draw_per_round, r.food_per_round, r.orders_per_round), (3, 1, 1, 3));
    assert!(r.defender_wins_ties && r.base_attack > r.base_defense);
    // Food after n rounds of pure idling: start + n × (per round + 3 idle orders).
    let food_after = |n: u32| r.starting_food as u32 + n * (r.food_per_round as u32 + r.orders_per_round as u32 * r.idle_food as u32);
    assert_eq!(food_after(1), 6);
}
