//! The pictures of `x-gentable-view` as inline SVG (docs/designer.md "Pictures"): boards (`grid`), hex maps
//! (`hex`, axial or offset coordinates, flat or pointy tops) and move diagrams (`moves`). Every item is a link
//! to the row it comes from and has a tooltip naming it; a legend says what the colours, marks and tags mean.
//! The output depends only on the data (no random ids, no time), so a report is byte-stable.

use super::path::{Index, Scope};
use crate::diag::lang::{frame, Lang};
use crate::ir::Table;
use crate::schema::view::{HexCoords, Layer, Num, Orientation, Shape, View, ViewKind};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// A drawn picture: the SVG element and its legend (colour or mark, meaning), as HTML.
pub struct Picture {
    pub svg: String,
    pub legend: String,
}

/// Where an item links to: the anchor of a table row (`None`: no link).
pub type Anchor<'a> = dyn Fn(&Table, usize) -> Option<String> + 'a;

const PALETTE: &[&str] = &[
    "#1565c0", "#c62828", "#2e7d32", "#f9a825", "#6a1b9a", "#00838f", "#ef6c00", "#5d4037",
    "#ad1457", "#455a64",
];

/// XML/HTML text and attribute escaping.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Black or white, whichever reads better on `color` (`#rrggbb`; names count as dark).
fn ink(color: &str) -> &'static str {
    let hex = color.trim_start_matches('#');
    let hex: String = if hex.len() == 3 {
        hex.chars().flat_map(|c| [c, c]).collect()
    } else {
        hex.chars().take(6).collect()
    };
    match u32::from_str_radix(&hex, 16) {
        Ok(v) if hex.len() == 6 => {
            let (r, g, b) = ((v >> 16) & 255, (v >> 8) & 255, v & 255);
            if r * 299 + g * 587 + b * 114 > 150_000 {
                "#111"
            } else {
                "#fff"
            }
        }
        _ => "#fff",
    }
}

/// One thing drawn in a cell.
struct Glyph {
    at: (i64, i64),
    shape: Shape,
    fill: Option<String>,
    outline: Option<String>,
    label: Option<String>,
    tip: String,
    href: Option<String>,
}

/// Colours of the values of one role (fill or outline) of a layer: the layer's map, else the palette in the
/// order of the sorted values.
struct Colors {
    map: BTreeMap<String, String>,
}

impl Colors {
    fn new(given: &BTreeMap<String, String>, values: &BTreeSet<String>) -> Colors {
        let mut map = BTreeMap::new();
        let mut next = 0;
        for v in values {
            let c = match given.get(v) {
                Some(c) => c.clone(),
                None => {
                    next += 1;
                    PALETTE[(next - 1) % PALETTE.len()].to_string()
                }
            };
            map.insert(v.clone(), c);
        }
        Colors { map }
    }
}

/// A number of the view: fixed, or read from the project.
fn number(index: &Index, scope: Scope, n: &Option<Num>) -> Option<i64> {
    match n.as_ref()? {
        Num::Fixed(v) => Some(*v),
        Num::Path(p) => index.int(scope, p),
    }
}

/// A short description of a row for tooltips: `Table key` (or `Table row N`).
pub fn row_name(index: &Index, t: &Table, n: usize) -> String {
    let r = &t.rows[n];
    if t.primary_key.is_empty() {
        return format!("{} row {}", t.name, r.origin.row);
    }
    let key: Vec<String> = t
        .primary_key
        .iter()
        .map(|&i| {
            crate::typing::cell::print::cell_text(index.project, &t.fields[i].ty, &r.values[i], '|')
        })
        .collect();
    format!("{} {}", t.name, key.join(", "))
}

/// The glyphs of one layer (items read from `scope`, or `rows`).
fn layer_glyphs(
    index: &Index,
    layer: &Layer,
    items: Vec<Scope>,
    anchor: &Anchor,
    legend: &mut Vec<String>,
) -> Vec<Glyph> {
    let fills: BTreeSet<String> = items
        .iter()
        .filter_map(|s| index.text(*s, &layer.color))
        .collect();
    let outlines: BTreeSet<String> = items
        .iter()
        .filter_map(|s| index.text(*s, &layer.outline))
        .collect();
    let fill_colors = Colors::new(&layer.colors, &fills);
    let outline_colors = Colors::new(&layer.outlines, &outlines);
    let mut out = vec![];
    for s in items {
        let (Some(a), Some(b)) = (index.int(s, &layer.at.0), index.int(s, &layer.at.1)) else {
            continue;
        };
        let label = index
            .text(s, &layer.label)
            .map(|l| layer.labels.get(&l).cloned().unwrap_or(l));
        let fill = index
            .text(s, &layer.color)
            .and_then(|v| fill_colors.map.get(&v).cloned())
            .or_else(|| layer.fill.clone());
        let outline = index
            .text(s, &layer.outline)
            .and_then(|v| outline_colors.map.get(&v).cloned());
        let mut tip = match s.row {
            Some((t, n)) => row_name(index, t, n),
            None => String::new(),
        };
        if let Some(t) = &layer.title {
            tip = format!("{t}: {tip}");
        }
        let mut facts: Vec<String> = layer
            .color
            .iter()
            .chain(&layer.outline)
            .chain(&layer.label)
            .filter_map(|p| {
                index
                    .text(s, std::slice::from_ref(p))
                    .map(|v| format!("{p} = {v}"))
            })
            .collect();
        facts.dedup();
        if !facts.is_empty() {
            tip = format!("{tip} ({})", facts.join(", "));
        }
        out.push(Glyph {
            at: (a, b),
            shape: layer.shape,
            fill,
            outline,
            label: label.filter(|l| !l.is_empty()),
            tip: format!("{tip} at ({a}, {b})"),
            href: s.row.and_then(|(t, n)| anchor(t, n)),
        });
    }
    let title = layer.title.clone().unwrap_or_default();
    for (v, c) in &fill_colors.map {
        legend.push(swatch(
            c,
            &format!(
                "{}{v}",
                if title.is_empty() {
                    String::new()
                } else {
                    format!("{title}: ")
                }
            ),
            false,
        ));
    }
    for (v, c) in &outline_colors.map {
        legend.push(swatch(c, &format!("{v} (outline)"), true));
    }
    if fill_colors.map.is_empty() && !title.is_empty() {
        let c = layer.fill.clone().unwrap_or_else(|| "#555".into());
        legend.push(swatch(
            &c,
            &title,
            layer.shape == Shape::Ring || layer.shape == Shape::Outline,
        ));
    }
    out
}

fn swatch(color: &str, text: &str, outline: bool) -> String {
    let style = if outline {
        format!("border:3px solid {color};background:transparent")
    } else {
        format!("background:{color}")
    };
    format!(
        "<span class=\"key\"><i style=\"{style}\"></i>{}</span>",
        esc(text)
    )
}

/// The picture of `view` over `items` of each layer (already read), for a grid or hex view.
pub fn board(
    index: &Index,
    view: &View,
    scope: Scope,
    layer_items: Vec<Vec<Scope>>,
    anchor: &Anchor,
) -> Picture {
    let mut legend = vec![];
    let mut glyphs = vec![];
    for (layer, items) in view.layers.iter().zip(layer_items) {
        glyphs.extend(layer_glyphs(index, layer, items, anchor, &mut legend));
    }
    let svg = match view.kind {
        ViewKind::Hex => hex(index, view, scope, &glyphs),
        _ => grid(index, view, scope, &glyphs),
    };
    Picture {
        svg,
        legend: legend.join(""),
    }
}

const CELL: f64 = 44.0;
const MARGIN: f64 = 26.0;

/// A rectangular board.
fn grid(index: &Index, view: &View, scope: Scope, glyphs: &[Glyph]) -> String {
    let w = number(index, scope, &view.width);
    let h = number(index, scope, &view.height);
    let xs = glyphs.iter().map(|g| g.at.0);
    let ys = glyphs.iter().map(|g| g.at.1);
    let (x0, x1) = (
        xs.clone().min().unwrap_or(0).min(0),
        xs.max().unwrap_or(0).max(w.map_or(0, |w| w - 1)),
    );
    let (y0, y1) = (
        ys.clone().min().unwrap_or(0).min(0),
        ys.max().unwrap_or(0).max(h.map_or(0, |h| h - 1)),
    );
    let inside =
        |x: i64, y: i64| w.is_none_or(|w| x >= 0 && x < w) && h.is_none_or(|h| y >= 0 && y < h);
    let px = |x: i64| MARGIN + (x - x0) as f64 * CELL;
    let py = |y: i64| {
        MARGIN
            + if view.y_up {
                (y1 - y) as f64
            } else {
                (y - y0) as f64
            } * CELL
    };
    let (width, height) = (
        2.0 * MARGIN + (x1 - x0 + 1) as f64 * CELL,
        2.0 * MARGIN + (y1 - y0 + 1) as f64 * CELL,
    );
    let mut s = open(width, height, &view.title);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let class = if !inside(x, y) {
                "off"
            } else if (x + y) % 2 == 0 {
                "sq a"
            } else {
                "sq b"
            };
            let _ = write!(
                s,
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\"/>",
                px(x),
                py(y)
            );
        }
    }
    for x in x0..=x1 {
        let _ = write!(
            s,
            "<text class=\"axis\" x=\"{}\" y=\"{}\">{x}</text>",
            px(x) + CELL / 2.0,
            height - MARGIN / 2.0 + 4.0
        );
    }
    for y in y0..=y1 {
        let _ = write!(
            s,
            "<text class=\"axis\" x=\"{}\" y=\"{}\">{y}</text>",
            MARGIN / 2.0,
            py(y) + CELL / 2.0 + 4.0
        );
    }
    for g in glyphs {
        let (cx, cy) = (px(g.at.0) + CELL / 2.0, py(g.at.1) + CELL / 2.0);
        let cell = format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\"",
            px(g.at.0),
            py(g.at.1)
        );
        draw(&mut s, g, cx, cy, CELL / 2.0, &cell);
    }
    s.push_str("</svg>");
    s
}

/// The opening of an SVG picture of this size.
fn open(width: f64, height: f64, title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"view\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\"><title>{}</title>",
        esc(title)
    )
}

/// One glyph centred at `(cx, cy)`; `half` is half a cell; `cell` the open tag of the cell's outline shape.
fn draw(s: &mut String, g: &Glyph, cx: f64, cy: f64, half: f64, cell: &str) {
    let fill = g.fill.clone().unwrap_or_else(|| "#555".into());
    if let Some(h) = &g.href {
        let _ = write!(s, "<a href=\"{}\">", esc(h));
    }
    let _ = write!(
        s,
        "<g class=\"item\" data-at=\"{},{}\"><title>{}</title>",
        g.at.0,
        g.at.1,
        esc(&g.tip)
    );
    let stroke = g
        .outline
        .as_ref()
        .map(|o| format!(" stroke=\"{o}\" stroke-width=\"4\""))
        .unwrap_or_default();
    let text_ink = match g.shape {
        Shape::Piece | Shape::Cell => ink(&fill),
        _ => "#111",
    };
    match g.shape {
        Shape::Piece => {
            let _ = write!(
                s,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"{fill}\"{}/>",
                half * 0.8,
                if stroke.is_empty() {
                    " stroke=\"#222\" stroke-width=\"1.5\"".to_string()
                } else {
                    stroke
                }
            );
        }
        Shape::Cell => {
            let _ = write!(s, "{cell} class=\"fillcell\" fill=\"{fill}\"{stroke}/>");
        }
        Shape::Outline => {
            let _ = write!(
                s,
                "{cell} fill=\"none\" stroke=\"{}\" stroke-width=\"4\"/>",
                g.outline.as_deref().unwrap_or(&fill)
            );
        }
        Shape::Ring => {
            let _ = write!(
                s,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"none\" stroke=\"{fill}\" stroke-width=\"3\"/>",
                half * 0.62
            );
        }
    }
    if let Some(l) = &g.label {
        // The label fits the disc (or the cell): CJK characters are about one font size wide.
        let room = if g.shape == Shape::Piece {
            1.45 * half
        } else {
            1.6 * half
        };
        let size = (room / l.chars().count().max(1) as f64).clamp(7.0, 15.0);
        let _ = write!(
            s,
            "<text class=\"label\" x=\"{cx}\" y=\"{}\" fill=\"{text_ink}\" font-size=\"{size:.1}\">{}</text>",
            cy + size * 0.36,
            esc(l)
        );
    }
    s.push_str("</g>");
    if g.href.is_some() {
        s.push_str("</a>");
    }
}

const HEX: f64 = 28.0;

/// Axial `(q, r)` of a cell written in `coords`.
fn axial(coords: HexCoords, (a, b): (i64, i64)) -> (i64, i64) {
    match coords {
        HexCoords::Axial => (a, b),
        HexCoords::OddQ => (a, b - (a - (a & 1)) / 2),
        HexCoords::EvenQ => (a, b - (a + (a & 1)) / 2),
        HexCoords::OddR => (a - (b - (b & 1)) / 2, b),
        HexCoords::EvenR => (a - (b + (b & 1)) / 2, b),
    }
}

/// The written coordinates of an axial cell (inverse of [`axial`]).
fn written(coords: HexCoords, (q, r): (i64, i64)) -> (i64, i64) {
    match coords {
        HexCoords::Axial => (q, r),
        HexCoords::OddQ => (q, r + (q - (q & 1)) / 2),
        HexCoords::EvenQ => (q, r + (q + (q & 1)) / 2),
        HexCoords::OddR => (q + (r - (r & 1)) / 2, r),
        HexCoords::EvenR => (q + (r + (r & 1)) / 2, r),
    }
}

/// A hex map: the board (every cell within `radius` of the origin, else the items' cells) and the items.
fn hex(index: &Index, view: &View, scope: Scope, glyphs: &[Glyph]) -> String {
    let flat = view.orientation == Orientation::Flat;
    let center = |(q, r): (i64, i64)| -> (f64, f64) {
        let (q, r) = (q as f64, r as f64);
        let s3 = 3f64.sqrt();
        if flat {
            (HEX * 1.5 * q, HEX * s3 * (r + q / 2.0))
        } else {
            (HEX * s3 * (q + r / 2.0), HEX * 1.5 * r)
        }
    };
    let mut board: BTreeSet<(i64, i64)> = BTreeSet::new();
    if let Some(n) = number(index, scope, &view.radius) {
        for q in -n..=n {
            for r in (-n).max(-q - n)..=n.min(-q + n) {
                board.insert((q, r));
            }
        }
    }
    let items: BTreeSet<(i64, i64)> = glyphs.iter().map(|g| axial(view.coords, g.at)).collect();
    let off: BTreeSet<(i64, i64)> = if board.is_empty() {
        BTreeSet::new()
    } else {
        items.difference(&board).copied().collect()
    };
    board.extend(items);
    let centers: Vec<(f64, f64)> = board.iter().map(|c| center(*c)).collect();
    let (mut minx, mut miny, mut maxx, mut maxy) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for (x, y) in &centers {
        minx = minx.min(*x);
        miny = miny.min(*y);
        maxx = maxx.max(*x);
        maxy = maxy.max(*y);
    }
    if centers.is_empty() {
        (minx, miny, maxx, maxy) = (0.0, 0.0, 0.0, 0.0);
    }
    let pad = HEX + 6.0;
    let (dx, dy) = (pad - minx, pad - miny);
    let (width, height) = (
        (maxx - minx + 2.0 * pad).round(),
        (maxy - miny + 2.0 * pad).round(),
    );
    let corners = |(cx, cy): (f64, f64), size: f64| -> String {
        (0..6)
            .map(|i| {
                let a = std::f64::consts::PI / 180.0
                    * (60.0 * i as f64 + if flat { 0.0 } else { 30.0 });
                format!("{:.1},{:.1}", cx + size * a.cos(), cy + size * a.sin())
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = open(width, height, &view.title);
    for c in &board {
        let (x, y) = center(*c);
        let class = if off.contains(c) { "off" } else { "hex" };
        let _ = write!(
            s,
            "<polygon class=\"{class}\" points=\"{}\"/>",
            corners((x + dx, y + dy), HEX - 1.0)
        );
    }
    for g in glyphs {
        let (x, y) = center(axial(view.coords, g.at));
        let (x, y) = (x + dx, y + dy);
        let cell = format!("<polygon points=\"{}\"", corners((x, y), HEX - 1.0));
        draw(&mut s, g, x, y, HEX * 0.9, &cell);
    }
    // Every cell's coordinates as the table writes them, over the items (the seeds give cells this way).
    for c in &board {
        let (x, y) = center(*c);
        let (a, b) = written(view.coords, *c);
        let _ = write!(
            s,
            "<text class=\"coord\" x=\"{:.1}\" y=\"{:.1}\">{a},{b}</text>",
            x + dx,
            y + dy + HEX * 0.72
        );
    }
    s.push_str("</svg>");
    s
}

/// One move mark of a diagram cell.
struct Mark {
    shape: String,
    tags: BTreeSet<String>,
    tip: Vec<String>,
    href: Option<String>,
}

/// A move diagram of the row `scope` (view kind `moves`).
pub fn moves(index: &Index, view: &View, scope: Scope, anchor: &Anchor, lang: Lang) -> Picture {
    let m = view.moves.as_ref().expect("a moves view has moves");
    let mut cells: BTreeMap<(i64, i64), Vec<Mark>> = BTreeMap::new();
    let moves = index.items(scope, &m.moves);
    let mut unlimited = false;
    let mut finite: i64 = 1;
    let mut used_marks: BTreeMap<String, String> = BTreeMap::new();
    let mut used_tags: BTreeMap<String, String> = BTreeMap::new();
    struct Move {
        d: (i64, i64),
        steps: Option<i64>,
        mark: String,
        tags: BTreeSet<String>,
        name: String,
        href: Option<String>,
    }
    let mut list = vec![];
    for mv in moves {
        let (Some(dx), Some(dy)) = (index.int(mv, &m.dx), index.int(mv, &m.dy)) else {
            continue;
        };
        if dx == 0 && dy == 0 {
            continue;
        }
        let steps = match &m.steps {
            Some(p) => index.int(mv, p).unwrap_or(1),
            None => 1,
        };
        let steps = (steps != m.unlimited).then_some(steps.max(1));
        match steps {
            None => unlimited = true,
            Some(n) => finite = finite.max(dx.abs().max(dy.abs()) * n),
        }
        let value = index.text(mv, &m.mark).unwrap_or_default();
        let mark = m
            .marks
            .get(&value)
            .cloned()
            .unwrap_or_else(|| "diamond".into());
        used_marks.insert(value.clone(), mark.clone());
        let mut tags = BTreeSet::new();
        for p in &m.tag {
            if let Some(v) = index.text(mv, std::slice::from_ref(p)) {
                if let Some(t) = m.tags.get(&v).filter(|t| !t.is_empty()) {
                    tags.insert(t.clone());
                    used_tags.insert(t.clone(), v);
                }
            }
        }
        let name = match mv.row {
            Some((t, n)) => {
                let rn = row_name(index, t, n);
                let step = steps.map_or("unlimited".to_string(), |n| {
                    format!("{n} step{}", if n == 1 { "" } else { "s" })
                });
                format!("{rn} ({value}, {step})")
            }
            None => value.clone(),
        };
        list.push(Move {
            d: (dx, dy),
            steps,
            mark,
            tags,
            name,
            href: mv.row.and_then(|(t, n)| anchor(t, n)),
        });
    }
    let reach = if unlimited {
        m.reach.max(finite)
    } else {
        finite
    };
    for mv in &list {
        let mut k = 1;
        loop {
            let (x, y) = (mv.d.0 * k, mv.d.1 * k);
            if x.abs() > reach || y.abs() > reach || mv.steps.is_some_and(|n| k > n) {
                break;
            }
            let marks = cells.entry((x, y)).or_default();
            match marks.iter_mut().find(|mk| mk.shape == mv.mark) {
                Some(mk) => {
                    mk.tags.extend(mv.tags.iter().cloned());
                    mk.tip.push(mv.name.clone());
                }
                None => marks.push(Mark {
                    shape: mv.mark.clone(),
                    tags: mv.tags.clone(),
                    tip: vec![mv.name.clone()],
                    href: mv.href.clone(),
                }),
            }
            k += 1;
        }
    }
    let n = 2 * reach + 1;
    let size = (
        2.0 * MARGIN + n as f64 * CELL,
        2.0 * MARGIN + n as f64 * CELL,
    );
    let px = |x: i64| MARGIN + (x + reach) as f64 * CELL;
    let py = |y: i64| {
        MARGIN
            + if view.y_up {
                (reach - y) as f64
            } else {
                (y + reach) as f64
            } * CELL
    };
    let mut s = open(size.0, size.1, &view.title);
    for y in -reach..=reach {
        for x in -reach..=reach {
            let class = if (x + y) % 2 == 0 { "sq a" } else { "sq b" };
            let _ = write!(
                s,
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\"/>",
                px(x),
                py(y)
            );
        }
    }
    for i in -reach..=reach {
        let _ = write!(
            s,
            "<text class=\"axis\" x=\"{}\" y=\"{}\">{i:+}</text><text class=\"axis\" x=\"{}\" y=\"{}\">{i:+}</text>",
            px(i) + CELL / 2.0,
            size.1 - MARGIN / 2.0 + 4.0,
            MARGIN / 2.0,
            py(i) + CELL / 2.0 + 4.0
        );
    }
    // The piece.
    let (cx, cy) = (px(0) + CELL / 2.0, py(0) + CELL / 2.0);
    let label = index.text(scope, &m.label).unwrap_or_default();
    let piece = match scope.row {
        Some((t, n)) => row_name(index, t, n),
        None => String::new(),
    };
    let _ = write!(
        s,
        "<g class=\"item\"><title>{}</title><circle cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"#263238\"/><text class=\"label\" x=\"{cx}\" y=\"{}\" fill=\"#fff\" font-size=\"13\">{}</text></g>",
        esc(&piece),
        CELL * 0.42,
        cy + 5.0,
        esc(&label)
    );
    for ((x, y), marks) in &cells {
        let (x0, y0) = (px(*x), py(*y));
        let k = marks.len() as f64;
        for (i, mk) in marks.iter().enumerate() {
            let w = CELL / k;
            let cx = x0 + w * (i as f64 + 0.5);
            let cy = y0 + CELL / 2.0;
            let r = (w * 0.36).min(CELL * 0.3);
            if let Some(h) = &mk.href {
                let _ = write!(s, "<a href=\"{}\">", esc(h));
            }
            let tags: String = mk.tags.iter().map(String::as_str).collect();
            let _ = write!(
                s,
                "<g class=\"item mark\" data-at=\"{x},{y}\" data-mark=\"{}\" data-tags=\"{}\"><title>{}</title>",
                esc(&mk.shape),
                esc(&tags),
                esc(&mk.tip.join("\n"))
            );
            mark_shape(&mut s, &mk.shape, cx, cy, r);
            if !mk.tags.is_empty() {
                let tag: Vec<&str> = mk.tags.iter().map(String::as_str).collect();
                let _ = write!(
                    s,
                    "<text class=\"tag\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                    x0 + w * (i as f64 + 1.0) - 3.0,
                    y0 + 12.0,
                    esc(&tag.join(""))
                );
            }
            s.push_str("</g>");
            if mk.href.is_some() {
                s.push_str("</a>");
            }
        }
    }
    s.push_str("</svg>");
    let mut legend = String::new();
    for (value, shape) in &used_marks {
        let mut icon =
            String::from("<svg class=\"icon\" viewBox=\"0 0 20 20\" width=\"20\" height=\"20\">");
        mark_shape(&mut icon, shape, 10.0, 10.0, 7.0);
        icon.push_str("</svg>");
        let _ = write!(legend, "<span class=\"key\">{icon}{}</span>", esc(value));
    }
    for (tag, value) in &used_tags {
        let _ = write!(
            legend,
            "<span class=\"key\"><b>{}</b> {}</span>",
            esc(tag),
            esc(value)
        );
    }
    if unlimited {
        let _ = write!(
            legend,
            "<span class=\"key\">{}</span>",
            esc(&frame(
                lang,
                "unlimited moves drawn {} cells out",
                &[&reach]
            ))
        );
    }
    Picture { svg: s, legend }
}

/// A move mark (`schema::view::MARKS`) centred at `(cx, cy)` with radius `r`.
fn mark_shape(s: &mut String, shape: &str, cx: f64, cy: f64, r: f64) {
    let _ = match shape {
        "square" => write!(
            s,
            "<rect class=\"m-square\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
            cx - r * 0.8,
            cy - r * 0.8,
            r * 1.6,
            r * 1.6
        ),
        "circle" => write!(s, "<circle class=\"m-circle\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\"/>", r * 0.85),
        "ring" => write!(s, "<circle class=\"m-ring\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\"/>", r * 0.8),
        "dot" => write!(s, "<circle class=\"m-dot\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\"/>", r * 0.35),
        "cross" => write!(
            s,
            "<path class=\"m-cross\" d=\"M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}\"/>",
            cx - r * 0.75,
            cy - r * 0.75,
            cx + r * 0.75,
            cy + r * 0.75,
            cx + r * 0.75,
            cy - r * 0.75,
            cx - r * 0.75,
            cy + r * 0.75
        ),
        _ => write!(
            s,
            "<path class=\"m-diamond\" d=\"M{cx:.1},{:.1}L{:.1},{cy:.1}L{cx:.1},{:.1}L{:.1},{cy:.1}Z\"/>",
            cy - r,
            cx + r,
            cy + r,
            cx - r
        ),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_coordinates_round_trip_through_axial() {
        for coords in [
            HexCoords::OddQ,
            HexCoords::EvenQ,
            HexCoords::OddR,
            HexCoords::EvenR,
        ] {
            for a in -5..6 {
                for b in -5..6 {
                    assert_eq!(written(coords, axial(coords, (a, b))), (a, b), "{coords:?}");
                }
            }
        }
        // odd-q: column 1 is shoved down half a cell, so (1,0) sits between (0,0) and (0,1).
        assert_eq!(axial(HexCoords::OddQ, (1, 0)), (1, 0));
        assert_eq!(axial(HexCoords::OddQ, (2, 0)), (2, -1));
    }

    #[test]
    fn text_is_escaped_and_ink_reads_on_its_fill() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(ink("#ffffff"), "#111");
        assert_eq!(ink("#1565c0"), "#fff");
        assert_eq!(ink("#fd3"), "#111");
    }
}
