//! Excel number formats (ECMA-376 Part 1 §18.8.30 `numFmt`, §18.8.31 the built-in formats): which formats
//! make Excel show a number differently from its plain value, and the text Excel shows
//! ([`render`]), so that a string field gets what the designer saw (`000` shows 7 as `007`).
//!
//! Covered: sections (`pos;neg;zero;text`), digit placeholders `0 # ?`, the decimal point, thousands
//! separators and scaling commas, `%`, scientific `E+00`, literals (`"…"`, `\x`, `_x`, `*x`, non-ASCII text,
//! `$ - + ( ) : / space`), colours and locale tags (`[Red]`, `[$-409]`, `[$€-407]`). Not covered, so
//! [`render`] gives `None` and the caller says the format cannot be reproduced: conditions (`[>100]`),
//! fractions (`# ?/?`), `@` in a number section, engineering notation; date and time formats are read as dates
//! by calamine.

/// The built-in format codes by `numFmtId` (ECMA-376 §18.8.30) that are not dates or times, and not General.
pub fn builtin(id: u32) -> Option<&'static str> {
    Some(match id {
        1 => "0",
        2 => "0.00",
        3 => "#,##0",
        4 => "#,##0.00",
        9 => "0%",
        10 => "0.00%",
        11 => "0.00E+00",
        12 => "# ?/?",
        13 => "# ??/??",
        37 => "#,##0 ;(#,##0)",
        38 => "#,##0 ;[Red](#,##0)",
        39 => "#,##0.00;(#,##0.00)",
        40 => "#,##0.00;[Red](#,##0.00)",
        48 => "##0.0E+0",
        _ => return None,
    })
}

/// Whether a format code shows dates or times (then calamine reads its cells as dates): a `y m d h s` or
/// `AM/PM` outside quotes and brackets, or an elapsed-time bracket (`[h]`).
pub fn is_date_format(code: &str) -> bool {
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                }
            }
            '\\' | '_' | '*' => {
                chars.next();
            }
            '[' => {
                let inner: String = chars.by_ref().take_while(|&d| d != ']').collect();
                let l = inner.to_ascii_lowercase();
                if !l.is_empty() && l.chars().all(|d| matches!(d, 'h' | 'm' | 's')) {
                    return true;
                }
            }
            'y' | 'Y' | 'm' | 'M' | 'd' | 'D' | 'h' | 'H' | 's' | 'S' => return true,
            'A' | 'a'
                if chars
                    .peek()
                    .is_some_and(|&d| d == 'M' || d == 'm' || d == '/') =>
            {
                return true
            }
            'e' | 'E'
                if chars
                    .peek()
                    .is_some_and(|&d| !(d == '+' || d == '-' || d == '0' || d == '#')) =>
            {
                return true
            }
            _ => {}
        }
    }
    false
}

/// The text of `v` (a value as Excel keeps it, 15 significant digits) under the number format `code`, as
/// Excel shows it; `None` when the format uses something [`render`] does not cover (module docs).
pub fn render(code: &str, v: f64) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    let sections = split_sections(code);
    let (section, signed) = match (sections.len(), v) {
        (0, _) => return None,
        (1, _) => (sections[0].as_str(), true),
        (_, v) if v < 0.0 => (sections[1].as_str(), false),
        (n, v) if v == 0.0 && n >= 3 => (sections[2].as_str(), false),
        _ => (sections[0].as_str(), true),
    };
    let tokens = tokenize(section)?;
    let negative = v < 0.0 && signed;
    let body = render_section(&tokens, v.abs())?;
    // Excel shows "-0" for a negative number that rounds to zero: keep the sign whenever the value is negative.
    Some(if negative { format!("-{body}") } else { body })
}

fn split_sections(code: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = code.chars();
    let mut quoted = false;
    let mut bracket = false;
    while let Some(c) = chars.next() {
        let cur = out.last_mut().expect("one section");
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            '\\' if !quoted => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '[' if !quoted => {
                bracket = true;
                cur.push(c);
            }
            ']' if !quoted => {
                bracket = false;
                cur.push(c);
            }
            ';' if !quoted && !bracket => out.push(String::new()),
            c => cur.push(c),
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Lit(String),
    /// `0`, `#` or `?`.
    Digit(char),
    Point,
    Comma,
    Percent,
    /// `E+` (`true`: show `+`) followed by its exponent digit placeholders.
    Exp(bool),
}

fn tokenize(section: &str) -> Option<Vec<Tok>> {
    let mut out = vec![];
    let mut chars = section.chars().peekable();
    let lit = |out: &mut Vec<Tok>, s: &str| match out.last_mut() {
        Some(Tok::Lit(l)) => l.push_str(s),
        _ => out.push(Tok::Lit(s.to_string())),
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let s: String = chars.by_ref().take_while(|&d| d != '"').collect();
                lit(&mut out, &s);
            }
            '\\' => lit(&mut out, &chars.next()?.to_string()),
            '_' => {
                chars.next()?;
                lit(&mut out, " ");
            }
            '*' => {
                chars.next()?;
            }
            '[' => {
                let inner: String = chars.by_ref().take_while(|&d| d != ']').collect();
                if let Some(cur) = inner.strip_prefix('$') {
                    // [$-409] locale, [$€-407] currency symbol.
                    let sym = cur.split('-').next().unwrap_or("");
                    lit(&mut out, sym);
                } else if inner.starts_with(['<', '>', '='])
                    || !inner.chars().all(|d| d.is_ascii_alphanumeric())
                {
                    // A condition ([>100]) or something else than a colour: not reproduced.
                    return None;
                }
            }
            '0' | '#' | '?' => out.push(Tok::Digit(c)),
            '.' => {
                if out.contains(&Tok::Point) {
                    lit(&mut out, ".");
                } else {
                    out.push(Tok::Point);
                }
            }
            ',' => out.push(Tok::Comma),
            '%' => out.push(Tok::Percent),
            'E' | 'e' => match chars.next()? {
                '+' => out.push(Tok::Exp(true)),
                '-' => out.push(Tok::Exp(false)),
                _ => return None,
            },
            '@' | '/' => return None,
            c if c.is_ascii_alphabetic() => return None,
            c => lit(&mut out, &c.to_string()),
        }
    }
    Some(out)
}

/// Decimal digits of `v` rounded half away from zero to `decimals` places: `(integer digits, fraction
/// digits)`; the integer digits are `"0"` for a value below 1.
fn digits(v: f64, decimals: usize) -> (String, String) {
    // `v` has at most 15 significant digits: its `{:e}` form is exact enough to round in decimal.
    let e = format!("{v:.14e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let mant: String = mant.chars().filter(char::is_ascii_digit).collect();
    // value = 0.mant × 10^(exp+1)
    let point = exp + 1;
    let mut all: Vec<u8> = mant.bytes().map(|b| b - b'0').collect();
    // Shift so that `all` holds digits from 10^(point-1) down; pad to the needed fraction length.
    let (mut int_digits, frac_digits): (Vec<u8>, Vec<u8>) = if point <= 0 {
        let mut f = vec![0u8; (-point) as usize];
        f.append(&mut all);
        (vec![], f)
    } else {
        let p = point as usize;
        if all.len() < p {
            all.resize(p, 0);
        }
        let f = all.split_off(p);
        (all, f)
    };
    let mut frac = frac_digits;
    let round_up = frac.get(decimals).is_some_and(|&d| d >= 5);
    frac.resize(decimals.max(frac.len()), 0);
    frac.truncate(decimals);
    if round_up {
        let mut i = frac.len();
        let mut carry = true;
        while carry && i > 0 {
            i -= 1;
            if frac[i] == 9 {
                frac[i] = 0;
            } else {
                frac[i] += 1;
                carry = false;
            }
        }
        let mut j = int_digits.len();
        while carry && j > 0 {
            j -= 1;
            if int_digits[j] == 9 {
                int_digits[j] = 0;
            } else {
                int_digits[j] += 1;
                carry = false;
            }
        }
        if carry {
            int_digits.insert(0, 1);
        }
    }
    while int_digits.len() > 1 && int_digits[0] == 0 {
        int_digits.remove(0);
    }
    let s = |d: &[u8]| d.iter().map(|x| (b'0' + x) as char).collect::<String>();
    let int = if int_digits.is_empty() {
        "0".to_string()
    } else {
        s(&int_digits)
    };
    (int, s(&frac))
}

fn render_section(tokens: &[Tok], mut v: f64) -> Option<String> {
    let is_digit = |t: &Tok| matches!(t, Tok::Digit(_));
    let first = tokens.iter().position(is_digit);
    let Some(first) = first else {
        // No placeholder: the section is literal text (e.g. a zero section "-").
        return Some(
            tokens
                .iter()
                .map(|t| match t {
                    Tok::Lit(s) => s.as_str(),
                    Tok::Percent => "%",
                    _ => "",
                })
                .collect(),
        );
    };
    let last = tokens.iter().rposition(is_digit).expect("one digit");
    let exp_at = tokens.iter().position(|t| matches!(t, Tok::Exp(_)));
    let point = tokens.iter().position(|t| *t == Tok::Point);
    let region_end = point.or(exp_at).unwrap_or(tokens.len());
    // Commas: between integer placeholders = thousands; after the last integer placeholder = scaling.
    let int_last = tokens[..region_end].iter().rposition(is_digit);
    let int_toks: &[Tok] = match int_last {
        Some(l) if l >= first => &tokens[first..=l],
        _ => &[],
    };
    let thousands = int_toks.contains(&Tok::Comma);
    let scale = int_last.map_or(0, |l| {
        tokens[l + 1..region_end]
            .iter()
            .filter(|t| **t == Tok::Comma)
            .count()
    });
    let percents = tokens.iter().filter(|t| **t == Tok::Percent).count();
    for _ in 0..percents {
        v = crate::read::raw::excel_number(v * 100.0);
    }
    for _ in 0..scale {
        v = crate::read::raw::excel_number(v / 1000.0);
    }
    let decimals = match point {
        Some(p) => tokens[p + 1..exp_at.unwrap_or(tokens.len())]
            .iter()
            .filter(|t| is_digit(t))
            .count(),
        None => 0,
    };
    let int_places: Vec<char> = int_toks
        .iter()
        .filter_map(|t| match t {
            Tok::Digit(c) => Some(*c),
            _ => None,
        })
        .collect();
    let mut exponent = None;
    if let Some(e) = exp_at {
        if int_places.len() != 1 {
            return None;
        }
        let mut x = 0i32;
        if v != 0.0 {
            x = v.abs().log10().floor() as i32;
            let (i, _) = digits(crate::read::raw::excel_number(v / 10f64.powi(x)), decimals);
            if i == "10" {
                x += 1;
            }
            v = crate::read::raw::excel_number(v / 10f64.powi(x));
        }
        let width = tokens[e + 1..].iter().filter(|t| is_digit(t)).count();
        let sign = match (&tokens[e], x < 0) {
            (_, true) => "-",
            (Tok::Exp(true), false) => "+",
            _ => "",
        };
        exponent = Some(format!("E{sign}{:0width$}", x.unsigned_abs()));
    }
    let (int, frac) = digits(v, decimals);
    // Integer digits, right to left into the placeholders; the leftmost placeholder takes what remains.
    let inner_lits = int_toks
        .iter()
        .skip_while(|t| !is_digit(t))
        .any(|t| matches!(t, Tok::Lit(_)));
    if thousands && inner_lits {
        return None;
    }
    let mut int_text = String::new();
    let int_digits: Vec<char> = if int == "0" && !int_places.contains(&'0') {
        vec![]
    } else {
        int.chars().collect()
    };
    {
        let mut ds = int_digits.clone();
        let mut pieces: Vec<String> = vec![];
        let placeholders = int_toks.iter().filter(|t| is_digit(t)).count();
        let mut seen = 0;
        for t in int_toks.iter().rev() {
            match t {
                Tok::Digit(c) => {
                    seen += 1;
                    if seen == placeholders {
                        let rest: String = ds.drain(..).collect();
                        pieces.push(if rest.is_empty() { pad(*c) } else { rest });
                    } else {
                        pieces.push(match ds.pop() {
                            Some(d) => d.to_string(),
                            None => pad(*c),
                        });
                    }
                }
                Tok::Lit(s) => pieces.push(s.clone()),
                _ => {}
            }
        }
        pieces.reverse();
        int_text.extend(pieces);
    }
    if thousands {
        let ds: String = int_text.chars().filter(|c| c.is_ascii_digit()).collect();
        let pre: String = int_text
            .chars()
            .take_while(|c| !c.is_ascii_digit())
            .collect();
        let mut g = String::new();
        for (i, c) in ds.chars().enumerate() {
            if i > 0 && (ds.len() - i).is_multiple_of(3) {
                g.push(',');
            }
            g.push(c);
        }
        int_text = pre + &g;
    }
    let mut out = String::new();
    for t in &tokens[..first] {
        push_tok(&mut out, t);
    }
    out.push_str(&int_text);
    if let Some(p) = point {
        out.push('.');
        let places: Vec<char> = tokens[p + 1..exp_at.unwrap_or(tokens.len())]
            .iter()
            .filter_map(|t| match t {
                Tok::Digit(c) => Some(*c),
                _ => None,
            })
            .collect();
        let mut f: Vec<char> = frac.chars().collect();
        // Trailing zeros under `#` vanish, under `?` become spaces.
        for i in (0..f.len()).rev() {
            if f[i] != '0' {
                break;
            }
            match places[i] {
                '#' => {
                    f.pop();
                }
                '?' => f[i] = ' ',
                _ => break,
            }
        }
        out.extend(f);
        // Literals between the fraction placeholders and the end (or the exponent).
        for t in &tokens[p + 1..exp_at.unwrap_or(tokens.len())] {
            if let Tok::Lit(s) = t {
                out.push_str(s);
            } else if *t == Tok::Percent {
                out.push('%');
            }
        }
    }
    if let Some(e) = exponent {
        out.push_str(&e);
    }
    let tail_from = if point.is_some() || exp_at.is_some() {
        tokens.len()
    } else {
        last + 1
    };
    for t in &tokens[tail_from..] {
        push_tok(&mut out, t);
    }
    Some(out)
}

fn pad(c: char) -> String {
    match c {
        '0' => "0".into(),
        '?' => " ".into(),
        _ => String::new(),
    }
}

fn push_tok(out: &mut String, t: &Tok) {
    match t {
        Tok::Lit(s) => out.push_str(s),
        Tok::Percent => out.push('%'),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_what_excel_shows() {
        let r = |c: &str, v: f64| render(c, v).unwrap_or_else(|| panic!("{c}"));
        assert_eq!(r("000", 7.0), "007");
        assert_eq!(r("00000", 42.0), "00042");
        assert_eq!(r("0", 7.5), "8");
        assert_eq!(r("0", 2.5), "3");
        assert_eq!(r("0.00", 7.0), "7.00");
        assert_eq!(r("0.00", 1.005), "1.01");
        assert_eq!(r("#,##0", 1234567.0), "1,234,567");
        assert_eq!(r("#,##0.00", -1234.5), "-1,234.50");
        assert_eq!(r("0%", 0.5), "50%");
        assert_eq!(r("0.0%", 0.123), "12.3%");
        assert_eq!(r("#.##", 0.5), ".5");
        assert_eq!(r("0.0#", 2.0), "2.0");
        assert_eq!(r("\"No.\"000", 7.0), "No.007");
        assert_eq!(r("0\"个\"", 3.0), "3个");
        assert_eq!(r("[Red]0.00", 3.0), "3.00");
        assert_eq!(r("0.00;(0.00)", -3.0), "(3.00)");
        assert_eq!(r("0;-0;\"zero\"", 0.0), "zero");
        assert_eq!(r("0.00E+00", 12345.0), "1.23E+04");
        assert_eq!(r("0.00E+00", 0.000123), "1.23E-04");
        assert_eq!(r("000-0000", 1234567.0), "123-4567");
        assert_eq!(r("[$€-407]#,##0.00", 5.0), "€5.00");
        assert_eq!(r("0,", 12000.0), "12");
        assert!(render("# ?/?", 0.5).is_none());
        assert!(render("[>100]0;0.0", 5.0).is_none());
    }

    #[test]
    fn date_formats_are_told_apart() {
        for d in [
            "yyyy-mm-dd",
            "m/d/yy",
            "h:mm AM/PM",
            "[h]:mm:ss",
            "d\"日\"",
            "mmm",
        ] {
            assert!(is_date_format(d), "{d}");
        }
        for n in ["0", "000", "0.00E+00", "#,##0", "\"day\"0", "0.0%"] {
            assert!(!is_date_format(n), "{n}");
        }
    }
}
