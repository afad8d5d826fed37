//! Lists inside messages — `"Red", "Blue" or "Green"`, `Red (红), Blue`, `width, case and spaces` — built
//! from their items, so that the Chinese form joins them with Chinese joiners (`、`, `或`, `和`) without
//! reading the English text back.
//!
//! A message is written in English and translated at the edge by whole-template match ([`super::lang`]);
//! a list is one part of such a template. Its English text is no grammar a template could take apart
//! safely (an item may hold `, ` or ` or ` itself: a cell's text, an enum alias, a JSON string), so a list
//! is made here, once, from its items (items that are catalog words: [`super::lang::word_list`]): [`List::text`] returns the English text and records, for that exact
//! text, the Chinese form made from the same items. When the translation copies a part of a message or a
//! frame line that is exactly a recorded list, it prints the recorded Chinese form
//! ([`chinese`], used by [`super::lang::translate`] and [`super::lang::frame`]). A list of one item is
//! recorded too when its item has its own Chinese form ([`List::item_in`]).
//!
//! The record lives as long as the process (the lists of one run: a build, a `watch` session, a report);
//! it holds at most [`CAP`] lists, after which a new list prints its English joiners in Chinese text too —
//! the items themselves are never changed.
//!
//! English: `a`, `a or b`, `a, b or c`; `a and b`, `a, b and c`; the series `a, b, c`; a list cut short
//! ([`List::more`]): `a, b or 3 other candidates`. Chinese: `a 或 b`, `a、b 或 c`; `a、b 和 c`; `a、b、c`;
//! `a、b 或另外 3 个候选值` (a space between a joiner word and a Latin letter, digit or quote, none next to
//! an ideograph, as Chinese technical writing does).

use std::collections::HashMap;
use std::fmt::Display;
use std::sync::{OnceLock, RwLock};

/// The most lists the process records (see the module docs).
pub const CAP: usize = 1 << 16;

/// How the last item joins the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joiner {
    /// `a, b or c` / `a、b 或 c`: one of the items.
    Or,
    /// `a, b and c` / `a、b 和 c`: all of the items.
    And,
    /// `a, b, c` / `a、b、c`: an enumeration after a colon (`Side is one of: Red, Blue`).
    Series,
}

/// A list being built: each item's English and Chinese text (see the module docs).
#[derive(Clone, Debug)]
pub struct List {
    joiner: Joiner,
    en: Vec<String>,
    zh: Vec<String>,
    more: usize,
}

impl List {
    /// An empty list joined by `joiner`.
    pub fn new(joiner: Joiner) -> List {
        List {
            joiner,
            en: vec![],
            zh: vec![],
            more: 0,
        }
    }

    /// One item written alike in both languages (a name, a number, a quoted cell text, a JSON value).
    pub fn item(mut self, item: impl Display) -> List {
        let s = item.to_string();
        self.zh.push(s.clone());
        self.en.push(s);
        self
    }

    /// Items written alike in both languages ([`List::item`]).
    pub fn items<T: Display>(self, items: impl IntoIterator<Item = T>) -> List {
        items.into_iter().fold(self, List::item)
    }

    /// One item with its own Chinese form (`Red (红, 赤)` / `Red（红、赤）`).
    pub fn item_in(mut self, en: impl Into<String>, zh: impl Into<String>) -> List {
        self.en.push(en.into());
        self.zh.push(zh.into());
        self
    }

    /// `n` more items that are not shown (`a, b or 3 other candidates`); only an [`Joiner::Or`] list says
    /// so in words, the others end with `…`.
    pub fn more(mut self, n: usize) -> List {
        self.more = n;
        self
    }

    /// The English text, with its Chinese form recorded (module docs).
    pub fn text(self) -> String {
        let en = render(self.joiner, &self.en, self.more, false);
        let zh = render(self.joiner, &self.zh, self.more, true);
        if zh != en {
            record(&en, zh);
        }
        en
    }
}

/// `a, b or c` ([`Joiner::Or`]) of items written alike in both languages.
pub fn or<T: Display>(items: impl IntoIterator<Item = T>) -> String {
    List::new(Joiner::Or).items(items).text()
}

/// `a, b and c` ([`Joiner::And`]) of items written alike in both languages.
pub fn and<T: Display>(items: impl IntoIterator<Item = T>) -> String {
    List::new(Joiner::And).items(items).text()
}

/// `a, b, c` ([`Joiner::Series`]) of items written alike in both languages.
pub fn series<T: Display>(items: impl IntoIterator<Item = T>) -> String {
    List::new(Joiner::Series).items(items).text()
}

/// The Chinese form of a list whose items are already in Chinese or copied (another library's list taken
/// apart by [`super::foreign`]): `a、b 或 c`.
pub fn chinese_of(joiner: Joiner, items: &[String]) -> String {
    render(joiner, items, 0, true)
}

fn render(joiner: Joiner, items: &[String], more: usize, zh: bool) -> String {
    let (sep, word) = match (joiner, zh) {
        (Joiner::Or, false) => (", ", " or "),
        (Joiner::And, false) => (", ", " and "),
        (Joiner::Series, false) => (", ", ", "),
        (Joiner::Or, true) => ("、", "或"),
        (Joiner::And, true) => ("、", "和"),
        (Joiner::Series, true) => ("、", "、"),
    };
    let mut parts: Vec<String> = items.to_vec();
    if more > 0 {
        parts.push(match (joiner, zh) {
            (Joiner::Or, false) => format!("{more} other candidates"),
            (Joiner::Or, true) => format!("另外 {more} 个候选值"),
            (_, false) => format!("{more} more"),
            (_, true) => format!("另外 {more} 个"),
        });
    }
    let mut out = String::new();
    let n = parts.len();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            let w = if i == n - 1 { word } else { sep };
            if zh && w != "、" {
                join_word(&mut out, w, p);
            } else {
                out.push_str(w);
            }
        }
        out.push_str(p);
    }
    out
}

/// `out` + the Chinese joiner word `w` before `next`, with a space on each side that meets something not
/// Chinese.
fn join_word(out: &mut String, w: &str, next: &str) {
    let cjk = |c: Option<char>| {
        c.is_some_and(|c| matches!(c as u32, 0x3000..=0x303f | 0x4e00..=0x9fff | 0xff00..=0xffef))
    };
    if !cjk(out.chars().last()) {
        out.push(' ');
    }
    out.push_str(w);
    if !cjk(next.chars().next()) {
        out.push(' ');
    }
}

fn table() -> &'static RwLock<HashMap<String, String>> {
    static T: OnceLock<RwLock<HashMap<String, String>>> = OnceLock::new();
    T.get_or_init(|| RwLock::new(HashMap::new()))
}

fn record(en: &str, zh: String) {
    let mut t = table().write().unwrap_or_else(|p| p.into_inner());
    if t.len() < CAP && !t.contains_key(en) {
        t.insert(en.to_string(), zh);
    }
}

/// The Chinese form of a list this process made whose English text is exactly `en`, if there is one.
pub fn chinese(en: &str) -> Option<String> {
    table()
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(en)
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_join_in_each_language() {
        let en = or(["1", "2", "\"x\""]);
        assert_eq!(en, "1, 2 or \"x\"");
        assert_eq!(chinese(&en).as_deref(), Some("1、2 或 \"x\""));
        let en = and(["Red", "Blue"]);
        assert_eq!(en, "Red and Blue");
        assert_eq!(chinese(&en).as_deref(), Some("Red 和 Blue"));
        let en = series(["Soldier", "Minister", "Officer"]);
        assert_eq!(en, "Soldier, Minister, Officer");
        assert_eq!(chinese(&en).as_deref(), Some("Soldier、Minister、Officer"));
        // An item holding the English joiners is not taken apart: its Chinese is made from the items.
        let en = List::new(Joiner::Or)
            .item("\"a, b\"")
            .item("\"c or d\"")
            .text();
        assert_eq!(en, "\"a, b\" or \"c or d\"");
        assert_eq!(chinese(&en).as_deref(), Some("\"a, b\" 或 \"c or d\""));
        // Items with their own Chinese form, Chinese items next to the joiner word.
        let en = List::new(Joiner::Series)
            .item_in("Red (红, 赤)", "Red（红、赤）")
            .item("Blue")
            .text();
        assert_eq!(en, "Red (红, 赤), Blue");
        assert_eq!(chinese(&en).as_deref(), Some("Red（红、赤）、Blue"));
        assert_eq!(chinese(&or(["红", "蓝"])).as_deref(), Some("红或蓝"));
        // A list cut short.
        let en = List::new(Joiner::Or).items([1, 2]).more(5).text();
        assert_eq!(en, "1, 2 or 5 other candidates");
        assert_eq!(chinese(&en).as_deref(), Some("1、2 或另外 5 个候选值"));
        // One item is the item.
        assert_eq!(or(["only"]), "only");
        assert_eq!(chinese("only"), None);
    }
}
