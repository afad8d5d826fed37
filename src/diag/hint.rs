//! Designer-friendly hints (docs/conventions.md §3 "Full-width characters"): how a cell that was rejected
//! differs from what was probably meant.
//!
//! * [`fold`]: the text as a designer reads it — Unicode NFKC (full-width `Ｒｅｄ１２` is `Red12`), lower case,
//!   without white space. Two texts that fold alike are the same word written differently.
//! * [`differences`]: *how* two such texts differ — by character width, case or spaces — so that a hint can
//!   say "differs from the existing key "Soldier" only by case".
//! * [`full_width`] / [`half_width`]: the full-width digits, letters, signs and separators of a cell (and the
//!   ideographic punctuation used as separators: `、` `。` `【` `】`), named with their code points, and the
//!   cell with their half-width forms. gentable never reads them as their half-width forms (Excel does not
//!   either: `１２` is text there, not a number); the hint offers the half-width cell instead.
//! * [`suggest`]: the "did you mean" of a value among candidates: an exact fold first, then a candidate the
//!   text contains or that contains it (`紫色` → `紫`), then the closest by Jaro–Winkler.

use unicode_normalization::UnicodeNormalization;

/// White space as designers type it: ASCII, NBSP, ideographic space and the other Unicode spaces.
fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{a0}' || c == '\u{3000}'
}

/// NFKC, lower case, without white space (see the module docs).
pub fn fold(s: &str) -> String {
    s.nfkc()
        .filter(|c| !is_space(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// How a text can differ from another that folds alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Difference {
    /// Full-width (or other compatibility) forms: `Ｓ` for `S`.
    Width,
    /// Upper or lower case.
    Case,
    /// White space: missing, extra or of another kind (NBSP, ideographic space).
    Spaces,
}

impl Difference {
    /// The difference in words: "width", "case", "spaces".
    pub fn word(self) -> &'static str {
        match self {
            Difference::Width => "width",
            Difference::Case => "case",
            Difference::Spaces => "spaces",
        }
    }
}

/// How `a` differs from `b` when both fold to the same text (`None` when they are equal or differ otherwise).
pub fn differences(a: &str, b: &str) -> Option<Vec<Difference>> {
    if a == b || fold(a) != fold(b) {
        return None;
    }
    let strip = |s: &str| -> String { s.chars().filter(|c| !is_space(*c)).collect() };
    let lower = |s: &str| -> String { s.chars().flat_map(char::to_lowercase).collect() };
    let nfkc = |s: &str| -> String { s.nfkc().collect() };
    let shape = |s: &str| -> String {
        nfkc(s)
            .chars()
            .map(|c| if is_space(c) { ' ' } else { 'x' })
            .collect()
    };
    let mut out = vec![];
    // They fold alike: what case and spaces do not explain is width.
    if lower(&strip(a)) != lower(&strip(b)) {
        out.push(Difference::Width);
    }
    if strip(&nfkc(a)) != strip(&nfkc(b)) {
        out.push(Difference::Case);
    }
    if shape(a) != shape(b) {
        out.push(Difference::Spaces);
    }
    (!out.is_empty()).then_some(out)
}

/// `width and case`, `spaces`.
pub fn words(d: &[Difference]) -> String {
    super::lang::word_list(super::list::Joiner::And, d.iter().map(|x| x.word()))
}

/// The half-width form of a full-width character, or of ideographic punctuation used as a separator.
fn half(c: char) -> Option<char> {
    match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0),
        '\u{3000}' => Some(' '),
        '\u{3001}' => Some(','),
        '\u{3002}' => Some('.'),
        '\u{3010}' => Some('['),
        '\u{3011}' => Some(']'),
        _ => None,
    }
}

/// The full-width characters of `s` (each once, in order) with their half-width forms.
pub fn full_width(s: &str) -> Vec<(char, char)> {
    let mut out: Vec<(char, char)> = vec![];
    for c in s.chars() {
        if let Some(h) = half(c) {
            if !out.iter().any(|(x, _)| *x == c) {
                out.push((c, h));
            }
        }
    }
    out
}

/// `s` with every full-width character replaced by its half-width form.
pub fn half_width(s: &str) -> String {
    s.chars().map(|c| half(c).unwrap_or(c)).collect()
}

/// `１ (U+FF11), ， (U+FF0C)`: the characters named with their code points (at most `max`, then "…").
pub fn name_chars(chars: &[(char, char)], max: usize) -> String {
    let mut parts: Vec<String> = chars
        .iter()
        .take(max)
        .map(|(c, _)| format!("{c} (U+{:04X})", *c as u32))
        .collect();
    if chars.len() > max {
        parts.push("…".into());
    }
    super::list::series(parts)
}

/// The best "did you mean" for `s` among `candidates` (see the module docs).
pub fn suggest<'a>(
    s: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    let f = fold(s);
    if f.is_empty() {
        return None;
    }
    if let Some(c) = candidates.clone().into_iter().find(|c| fold(c) == f) {
        return Some(c);
    }
    // The longest candidate the text contains, or the shortest that contains the text (`紫色` → `紫`).
    let contained = candidates
        .clone()
        .into_iter()
        .filter(|c| {
            let fc = fold(c);
            !fc.is_empty() && (f.contains(&fc) || fc.contains(&f))
        })
        .max_by_key(|c| {
            let fc = fold(c);
            (f.contains(&fc), fc.chars().count())
        });
    if contained.is_some() {
        return contained;
    }
    super::closest(s, candidates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_sees_through_width_case_and_spaces() {
        assert_eq!(fold("Ｓｏｌｄｉｅｒ "), "soldier");
        assert_eq!(fold("１２"), "12");
        assert_eq!(fold("Iron\u{3000}Guard"), "ironguard");
        assert_eq!(
            differences("soldier", "Soldier"),
            Some(vec![Difference::Case])
        );
        assert_eq!(
            differences("Ｓｏｌｄｉｅｒ", "Soldier"),
            Some(vec![Difference::Width])
        );
        assert_eq!(
            differences("Soldier ", "Soldier"),
            Some(vec![Difference::Spaces])
        );
        assert_eq!(
            differences("ｉｒｏｎ Guard", "IronGuard"),
            Some(vec![
                Difference::Width,
                Difference::Case,
                Difference::Spaces
            ])
        );
        assert_eq!(differences("Soldier", "Soldier"), None);
        assert_eq!(differences("Soldier", "Officer"), None);
        assert_eq!(
            words(&[Difference::Width, Difference::Case]),
            "width and case"
        );
    }

    #[test]
    fn full_width_forms_are_named_and_offered_half_width() {
        let fw = full_width("（０，１）");
        assert_eq!(
            fw,
            vec![
                ('（', '('),
                ('０', '0'),
                ('，', ','),
                ('１', '1'),
                ('）', ')')
            ]
        );
        assert_eq!(half_width("（０，１）"), "(0,1)");
        assert_eq!(half_width("１、２、３"), "1,2,3");
        assert_eq!(
            name_chars(&full_width("－５"), 4),
            "－ (U+FF0D), ５ (U+FF15)"
        );
        assert!(full_width("骑士 Knight").is_empty());
    }

    #[test]
    fn suggestions_prefer_folds_then_containment() {
        let c = ["紫", "红", "Purple", "Red"];
        assert_eq!(suggest("紫色", c), Some("紫"));
        assert_eq!(suggest("Ｒｅｄ", c), Some("Red"));
        assert_eq!(suggest("Purpel", c), Some("Purple"));
        assert_eq!(suggest("绿", c), None);
    }
}
