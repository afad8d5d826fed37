//! `x-gentable-view` (docs/designer.md "Pictures"): how `gentable report` draws a table as a picture — a board
//! (`grid`), a hex map (`hex`, axial or offset coordinates, flat or pointy tops), or a move diagram relative to
//! a piece (`moves`). This module reads the annotation's shape; the paths it names are checked against the
//! project by `validate::views` and followed by `report`.
//!
//! A **path** names a value from where it is read: `X` (a field of the row or item), `at.q` (through a record
//! field), `Piece.Symbol` (through a foreign key: the field `Piece` names a `PieceType` row, whose `Symbol` is
//! read), or `tables.Const.BoardWidth` (a field of a singleton table, as in `x-gentable-rules`).

use serde_json::{Map, Value as J};
use std::collections::BTreeMap;

/// What a view draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// A rectangular board: items at integer `(x, y)`.
    Grid,
    /// A hex map: items at `(q, r)`.
    Hex,
    /// A move diagram: the moves of a piece drawn around it.
    Moves,
}

/// Hex coordinates (Red Blob Games' names, as the seeds use them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HexCoords {
    /// Axial `(q, r)`.
    Axial,
    /// Offset `(column, row)`: odd columns shoved down (`odd-q`), even columns (`even-q`), or rows
    /// (`odd-r`, `even-r`).
    OddQ,
    EvenQ,
    OddR,
    EvenR,
}

/// Which way hexes point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    /// Flat tops: columns of hexes (War Chest, Eaves War).
    Flat,
    /// Pointy tops: rows of hexes.
    Pointy,
}

/// A number given in the view, or read from the project (a path such as `tables.Const.BoardWidth`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Num {
    Fixed(i64),
    Path(String),
}

/// How the items of a layer are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A disc with the label (pieces on a board).
    Piece,
    /// The whole cell filled, with the label (terrain).
    Cell,
    /// A thick outline of the cell (a focus).
    Outline,
    /// A ring inside the cell (a control point).
    Ring,
}

/// One layer of a board or map: a set of items, where each is, and how it looks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The items: a path to an array (or to one record) of them. `None`: the table's rows (a view per table)
    /// or the row itself (a view per row).
    pub items: Option<String>,
    /// Position paths: `x`, `y` on a grid, `q`, `r` on a hex map.
    pub at: (String, String),
    /// The label: the first of these paths that has a value.
    pub label: Vec<String>,
    /// Value → text shown instead (`{"Fortress": "F"}`).
    pub labels: BTreeMap<String, String>,
    /// The fill colour: the first of these paths that has a value, through `colors` (else a palette).
    pub color: Vec<String>,
    pub colors: BTreeMap<String, String>,
    /// The fill colour when no `color` path gives one (a CSS colour: `#rgb`, `#rrggbb` or a name).
    pub fill: Option<String>,
    /// An outline colour, the same way.
    pub outline: Vec<String>,
    pub outlines: BTreeMap<String, String>,
    pub shape: Shape,
    /// The layer's name in the legend.
    pub title: Option<String>,
}

/// A move diagram's moves (`kind: moves`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moves {
    /// Path to the array of moves (elements may be keys of another table: followed).
    pub moves: String,
    /// Paths (from a move) of the step vector.
    pub dx: String,
    pub dy: String,
    /// Path of how many times the vector applies (absent: once); `unlimited` is the value that means "to
    /// the edge of the diagram".
    pub steps: Option<String>,
    pub unlimited: i64,
    /// How far unlimited moves are drawn: the diagram shows at least `reach` cells each way.
    pub reach: i64,
    /// The mark of a move: the first path with a value, through `marks` (value → shape name).
    pub mark: Vec<String>,
    pub marks: BTreeMap<String, String>,
    /// Small tags beside a mark: the values of these paths, through `tags` (value → text).
    pub tag: Vec<String>,
    pub tags: BTreeMap<String, String>,
    /// The label of the piece in the middle (from the row).
    pub label: Vec<String>,
}

/// The shapes a move mark may take.
pub const MARKS: &[&str] = &["square", "diamond", "circle", "cross", "ring", "dot"];

/// One `x-gentable-view`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub kind: ViewKind,
    pub title: String,
    /// One picture per row (else one for the whole table).
    pub per_row: bool,
    /// Grid size (cells): `width` × `height`; absent: the extent of the items.
    pub width: Option<Num>,
    pub height: Option<Num>,
    /// Grid: y grows upwards (`origin: bottom-left`, as the seeds' boards are drawn); else downwards.
    pub y_up: bool,
    /// Hex: the board is every cell within this distance of `(0, 0)` (axial); absent: the items' cells.
    pub radius: Option<Num>,
    pub coords: HexCoords,
    pub orientation: Orientation,
    pub layers: Vec<Layer>,
    pub moves: Option<Moves>,
}

const COMMON: &[&str] = &["kind", "title", "per"];
const LAYER: &[&str] = &[
    "items", "x", "y", "q", "r", "label", "labels", "color", "colors", "fill", "outline",
    "outlines", "shape", "title",
];
const GRID: &[&str] = &["width", "height", "origin", "layers"];
const HEX: &[&str] = &["radius", "coordinates", "orientation", "layers"];
const MOVES: &[&str] = &[
    "moves",
    "dx",
    "dy",
    "steps",
    "unlimited",
    "reach",
    "mark",
    "marks",
    "tag",
    "tags",
    "label",
    "forward",
];

/// `x-gentable-view` of a table schema → its views (an object or an array of objects), or what is wrong.
pub fn views(v: Option<&J>) -> Result<Vec<View>, String> {
    let Some(v) = v else { return Ok(vec![]) };
    let list: Vec<&J> = match v {
        J::Array(a) => a.iter().collect(),
        o @ J::Object(_) => vec![o],
        _ => return Err("x-gentable-view must be an object or an array of objects".into()),
    };
    list.iter()
        .enumerate()
        .map(|(i, v)| view(v).map_err(|e| format!("x-gentable-view[{i}]: {e}")))
        .collect()
}

fn view(v: &J) -> Result<View, String> {
    let o = v.as_object().ok_or("a view must be an object")?;
    let kind = match o.get("kind").and_then(J::as_str) {
        Some("grid") => ViewKind::Grid,
        Some("hex") => ViewKind::Hex,
        Some("moves") => ViewKind::Moves,
        other => {
            return Err(format!(
                "\"kind\" must be \"grid\", \"hex\" or \"moves\", not {}",
                other.map(|s| format!("{s:?}")).unwrap_or("missing".into())
            ))
        }
    };
    let own: &[&str] = match kind {
        ViewKind::Grid => GRID,
        ViewKind::Hex => HEX,
        ViewKind::Moves => MOVES,
    };
    let layer_keys: &[&str] = if kind == ViewKind::Moves { &[] } else { LAYER };
    for k in o.keys() {
        if !COMMON.contains(&k.as_str())
            && !own.contains(&k.as_str())
            && !layer_keys.contains(&k.as_str())
        {
            let mut known: Vec<&str> = COMMON
                .iter()
                .chain(own)
                .chain(layer_keys)
                .copied()
                .collect();
            known.sort();
            known.dedup();
            return Err(format!(
                "unknown key {k:?} for a {} view (known: {})",
                o["kind"].as_str().unwrap_or(""),
                crate::diag::list::series(known)
            ));
        }
    }
    let per_row = match o.get("per").and_then(J::as_str) {
        None => kind == ViewKind::Moves,
        Some("row") => true,
        Some("table") if kind != ViewKind::Moves => false,
        Some(p) => {
            return Err(format!(
                "\"per\" must be \"table\" or \"row\" (moves: \"row\"), not {p:?}"
            ))
        }
    };
    let title = text(o, "title")?.unwrap_or_default();
    let mut view = View {
        kind,
        title,
        per_row,
        width: num(o, "width")?,
        height: num(o, "height")?,
        y_up: match o.get("origin").and_then(J::as_str) {
            None | Some("top-left") => false,
            Some("bottom-left") => true,
            Some(x) => return Err(format!("\"origin\" must be \"top-left\" or \"bottom-left\", not {x:?}")),
        },
        radius: num(o, "radius")?,
        coords: match o.get("coordinates").and_then(J::as_str) {
            None | Some("axial") => HexCoords::Axial,
            Some("odd-q") => HexCoords::OddQ,
            Some("even-q") => HexCoords::EvenQ,
            Some("odd-r") => HexCoords::OddR,
            Some("even-r") => HexCoords::EvenR,
            Some(x) => {
                return Err(format!(
                    "\"coordinates\" must be \"axial\", \"odd-q\", \"even-q\", \"odd-r\" or \"even-r\", not {x:?}"
                ))
            }
        },
        orientation: match o.get("orientation").and_then(J::as_str) {
            None | Some("flat") => Orientation::Flat,
            Some("pointy") => Orientation::Pointy,
            Some(x) => return Err(format!("\"orientation\" must be \"flat\" or \"pointy\", not {x:?}")),
        },
        layers: vec![],
        moves: None,
    };
    match kind {
        ViewKind::Moves => {
            let forward = o.get("forward").and_then(J::as_str).unwrap_or("up");
            if forward != "up" && forward != "down" {
                return Err(format!(
                    "\"forward\" must be \"up\" or \"down\", not {forward:?}"
                ));
            }
            view.y_up = forward == "up";
            let req = |k: &str| -> Result<String, String> {
                text(o, k)?.ok_or_else(|| format!("a moves view needs {k:?}"))
            };
            let marks = map(o, "marks")?;
            for (value, shape) in &marks {
                if !MARKS.contains(&shape.as_str()) {
                    return Err(format!(
                        "\"marks\": {value:?} → {shape:?} is not a mark (one of {})",
                        crate::diag::list::series(MARKS)
                    ));
                }
            }
            view.moves = Some(Moves {
                moves: req("moves")?,
                dx: req("dx")?,
                dy: req("dy")?,
                steps: text(o, "steps")?,
                unlimited: o.get("unlimited").map_or(Ok(0), |v| {
                    v.as_i64().ok_or("\"unlimited\" must be an integer")
                })?,
                reach: match o.get("reach") {
                    None => 4,
                    Some(v) => v
                        .as_i64()
                        .filter(|r| (1..=32).contains(r))
                        .ok_or("\"reach\" must be an integer from 1 to 32")?,
                },
                mark: paths(o, "mark")?,
                marks,
                tag: paths(o, "tag")?,
                tags: map(o, "tags")?,
                label: paths(o, "label")?,
            });
        }
        _ => {
            let layers: Vec<&Map<String, J>> = match o.get("layers") {
                None => vec![o],
                Some(J::Array(a)) => a
                    .iter()
                    .map(|l| {
                        l.as_object()
                            .ok_or("\"layers\" must be an array of objects")
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("\"layers\" must be an array of objects".into()),
            };
            if layers.is_empty() {
                return Err("\"layers\" is empty".into());
            }
            for (i, l) in layers.into_iter().enumerate() {
                let layer = self::layer(l, kind, !o.contains_key("layers")).map_err(|e| {
                    if o.contains_key("layers") {
                        format!("layers[{i}]: {e}")
                    } else {
                        e
                    }
                })?;
                view.layers.push(layer);
            }
        }
    }
    Ok(view)
}

/// One layer: `inline` when it is the view object itself (no `layers`), whose other keys it may hold.
fn layer(o: &Map<String, J>, kind: ViewKind, inline: bool) -> Result<Layer, String> {
    let (a, b) = if kind == ViewKind::Grid {
        ("x", "y")
    } else {
        ("q", "r")
    };
    for k in o.keys() {
        let k = k.as_str();
        let top = inline && (COMMON.contains(&k) || GRID.contains(&k) || HEX.contains(&k));
        if !LAYER.contains(&k) && !top {
            return Err(format!(
                "unknown key {k:?} in a layer (known: {})",
                crate::diag::list::series(LAYER)
            ));
        }
        if (k == "x" || k == "y") && kind == ViewKind::Hex
            || (k == "q" || k == "r") && kind == ViewKind::Grid
        {
            return Err(format!(
                "a {} view places items with {a:?} and {b:?}, not {k:?}",
                if kind == ViewKind::Grid {
                    "grid"
                } else {
                    "hex"
                }
            ));
        }
    }
    let pos =
        |k: &str| text(o, k)?.ok_or_else(|| format!("needs {k:?}: the path of the items' {k}"));
    let colors = map(o, "colors")?;
    let outlines = map(o, "outlines")?;
    let fill = text(o, "fill")?;
    for c in colors.values().chain(outlines.values()).chain(fill.iter()) {
        if !is_color(c) {
            return Err(format!(
                "{c:?} is not a colour (#rgb, #rrggbb or a CSS colour name)"
            ));
        }
    }
    Ok(Layer {
        items: text(o, "items")?,
        at: (pos(a)?, pos(b)?),
        label: paths(o, "label")?,
        labels: map(o, "labels")?,
        color: paths(o, "color")?,
        colors,
        fill,
        outline: paths(o, "outline")?,
        outlines,
        shape: match o.get("shape").and_then(J::as_str) {
            None | Some("piece") => Shape::Piece,
            Some("cell") => Shape::Cell,
            Some("outline") => Shape::Outline,
            Some("ring") => Shape::Ring,
            Some(x) => {
                return Err(format!(
                    "\"shape\" must be \"piece\", \"cell\", \"outline\" or \"ring\", not {x:?}"
                ))
            }
        },
        // An inline layer's "title" is the view's.
        title: if inline { None } else { text(o, "title")? },
    })
}

/// `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` or a CSS colour name (letters only): safe in an SVG attribute.
pub fn is_color(c: &str) -> bool {
    match c.strip_prefix('#') {
        Some(h) => [3, 4, 6, 8].contains(&h.len()) && h.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !c.is_empty() && c.len() <= 32 && c.bytes().all(|b| b.is_ascii_alphabetic()),
    }
}

fn text(o: &Map<String, J>, k: &str) -> Result<Option<String>, String> {
    match o.get(k) {
        None => Ok(None),
        Some(J::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(format!("{k:?} must be a non-empty string")),
    }
}

/// A path or a list of paths (the first that has a value is used).
fn paths(o: &Map<String, J>, k: &str) -> Result<Vec<String>, String> {
    match o.get(k) {
        None => Ok(vec![]),
        Some(J::String(s)) if !s.is_empty() => Ok(vec![s.clone()]),
        Some(J::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|x| x.as_str().filter(|s| !s.is_empty()).map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("{k:?} must be a path or a list of paths")),
        Some(_) => Err(format!("{k:?} must be a path or a list of paths")),
    }
}

/// An object of strings (value → text or colour).
fn map(o: &Map<String, J>, k: &str) -> Result<BTreeMap<String, String>, String> {
    match o.get(k) {
        None => Ok(BTreeMap::new()),
        Some(J::Object(m)) => m
            .iter()
            .map(|(a, b)| Some((a.clone(), b.as_str()?.to_string())))
            .collect::<Option<BTreeMap<_, _>>>()
            .ok_or_else(|| format!("{k:?} must map values to strings")),
        Some(_) => Err(format!("{k:?} must be an object of strings")),
    }
}

/// A number or a path to one.
fn num(o: &Map<String, J>, k: &str) -> Result<Option<Num>, String> {
    match o.get(k) {
        None => Ok(None),
        Some(J::Number(n)) => n
            .as_i64()
            .filter(|n| (1..=256).contains(n))
            .map(|n| Some(Num::Fixed(n)))
            .ok_or_else(|| format!("{k:?} must be a whole number from 1 to 256")),
        Some(J::String(s)) if !s.is_empty() => Ok(Some(Num::Path(s.clone()))),
        Some(_) => Err(format!(
            "{k:?} must be a number or a path such as tables.Const.BoardWidth"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_grid_with_one_layer_and_a_moves_view() {
        let v = views(Some(&json!({
            "kind": "grid", "title": "Layout", "width": "tables.Const.BoardWidth", "height": 9,
            "origin": "bottom-left", "x": "X", "y": "Y", "label": ["Piece.Symbol", "Cell"],
            "labels": {"Fortress": "F"}, "color": "Side"
        })))
        .unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].width,
            Some(Num::Path("tables.Const.BoardWidth".into()))
        );
        assert_eq!(v[0].height, Some(Num::Fixed(9)));
        assert!(v[0].y_up && !v[0].per_row);
        assert_eq!(v[0].layers[0].at, ("X".to_string(), "Y".to_string()));
        assert_eq!(v[0].layers[0].label, vec!["Piece.Symbol", "Cell"]);
        let m = views(Some(
            &json!([{"kind": "moves", "moves": "Rules", "dx": "Direction.Vector.x",
            "dy": "Direction.Vector.y", "steps": "MaxSteps", "marks": {"MoveOnly": "square"}}]),
        ))
        .unwrap();
        assert!(m[0].per_row);
        assert_eq!(m[0].moves.as_ref().unwrap().reach, 4);
    }

    #[test]
    fn mistakes_are_named() {
        let e = |v: serde_json::Value| views(Some(&v)).unwrap_err();
        assert!(e(json!({"kind": "board"})).contains("\"kind\" must be"));
        assert!(
            e(json!({"kind": "grid", "x": "X", "y": "Y", "colour": "Side"}))
                .contains("unknown key \"colour\"")
        );
        assert!(e(json!({"kind": "hex", "x": "X", "y": "Y"}))
            .contains("places items with \"q\" and \"r\""));
        assert!(e(json!({"kind": "grid", "x": "X"})).contains("needs \"y\""));
        assert!(e(
            json!({"kind": "moves", "moves": "R", "dx": "a", "dy": "b", "marks": {"M": "star"}})
        )
        .contains("is not a mark"));
        assert!(
            e(json!({"kind": "hex", "q": "Q", "r": "R", "coordinates": "cube"}))
                .contains("\"coordinates\"")
        );
        assert!(e(json!(3)).contains("must be an object"));
        assert!(e(
            json!({"kind": "grid", "x": "X", "y": "Y", "colors": {"Red": "red\" onload=\"x"}})
        )
        .contains("is not a colour"));
        assert!(is_color("#c62828") && is_color("teal") && !is_color("#12") && !is_color("url(x)"));
    }
}
