//! Other libraries' English inside messages, in Chinese by structure: the TOML parser's description of a
//! bad `gentable.toml` and serde's lists of expected names (docs/diagnostics.md "Languages").
//!
//! * **TOML** (the `toml` 1.2 crate over `toml_parser` 1.1 and `toml_datetime` 1.1, as Cargo.lock pins
//!   them): a message is `<description>` or `<description>, expected <items>`, the items joined by `, `
//!   (`toml::de::Error::new`: each item a literal in backticks — `` `]` ``, `'`'` for a backtick,
//!   `newline` for `\n` —, a description such as `digits`, or `nothing` for an empty list). Every
//!   description and item those crates can produce has its Chinese in `zh::TOML_ERRORS` and
//!   `zh::TOML_EXPECTED` (enumerated from their source); the items are joined with `、` and `或`
//!   ([`super::list::chinese_of`]). The whole text must be understood — an unknown description or item
//!   gives `None`, and the caller ([`super::lang::translate`]) then says it in Chinese around the original
//!   ([`toml_or_lead_in`]) so a text a later version adds is still located and readable.
//! * **serde**'s `OneOf` lists (`unknown field`/`unknown variant`): `` `a` ``, `` `a` or `b` ``, `` one of
//!   `a`, `b`, `c` `` (the templates of `zh::MESSAGES` take `one of ` apart) — the names copied, the joiners
//!   Chinese (`` `a` 或 `b` ``, `` `a`、`b`、`c` ``).

use super::list::{chinese_of, Joiner};

/// The Chinese of `text` when it is a TOML parser message or a serde list of names, every word of it
/// known (module docs); `None` otherwise.
pub fn chinese(text: &str) -> Option<String> {
    toml(text).or_else(|| serde_names(text))
}

/// A TOML parser message in Chinese, or `None` when a description or an item is not in the catalog.
pub fn toml(text: &str) -> Option<String> {
    let (description, expected) = match text.split_once(", expected ") {
        Some((d, e)) => (d, Some(e)),
        None => (text, None),
    };
    let d = description_zh(description)?;
    let Some(expected) = expected else {
        return Some(d);
    };
    if expected == "nothing" {
        return Some(format!("{d}，此处不应再有内容"));
    }
    let items = expected_items(expected)?;
    let list = chinese_of(Joiner::Or, &items);
    // A space between 应为 and a literal, none before a Chinese word (`应为 `=``, `应为换行`).
    let space = if list.chars().next().is_some_and(cjk) {
        ""
    } else {
        " "
    };
    Some(format!("{d}，应为{space}{list}"))
}

/// A TOML message's description in Chinese: a line of `zh::TOML_ERRORS`, or one of the two descriptions
/// that carry a word (`cannot extend value of type {type} with a dotted key`, toml_datetime's `invalid
/// {what}`).
fn description_zh(d: &str) -> Option<String> {
    if let Some(z) = lookup(super::zh::TOML_ERRORS, d) {
        return Some(z.to_string());
    }
    if let Some(t) = d
        .strip_prefix("cannot extend value of type ")
        .and_then(|r| r.strip_suffix(" with a dotted key"))
    {
        return Some(format!("不能用带点的键扩展{}类型的值", type_zh(t)?));
    }
    None
}

/// A TOML value type's name (`DeValue::type_str`) in Chinese.
fn type_zh(t: &str) -> Option<&'static str> {
    Some(match t {
        "string" => "字符串",
        "integer" => "整数",
        "float" => "浮点数",
        "boolean" => "布尔值",
        "datetime" => "日期时间",
        "array" => "数组",
        "inline table" => "内联表",
        "table" => "表",
        _ => return None,
    })
}

/// The items of a TOML `expected` list in Chinese, or `None` when one is unknown.
fn expected_items(list: &str) -> Option<Vec<String>> {
    // A whole list toml_datetime writes as one text (`` `-` (YYYY-MM) or `:` (HH:MM) ``).
    if let Some(z) = lookup(super::zh::TOML_EXPECTED, list) {
        return Some(vec![z.to_string()]);
    }
    let mut items = vec![];
    let mut rest = list;
    while !rest.is_empty() {
        let (item, after) = if let Some(after) = rest.strip_prefix("'`'") {
            ("'`'", after)
        } else if let Some(body) = rest.strip_prefix('`') {
            // A literal holds no backtick (toml renders the backtick itself as '`'): up to the next one.
            let end = body.get(1..)?.find('`')? + 2;
            (&rest[..end + 1], &body[end..])
        } else {
            match rest.find(", ") {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            }
        };
        items.push(item_zh(item)?);
        rest = after.strip_prefix(", ").unwrap_or(after);
        if after.starts_with(", ") && rest.is_empty() {
            return None;
        }
    }
    (!items.is_empty()).then_some(items)
}

/// One item of an `expected` list in Chinese: a literal copied, a description from `zh::TOML_EXPECTED`.
fn item_zh(item: &str) -> Option<String> {
    if item == "'`'" || (item.len() >= 3 && item.starts_with('`') && item.ends_with('`')) {
        return Some(item.to_string());
    }
    lookup(super::zh::TOML_EXPECTED, item).map(str::to_string)
}

/// A CJK ideograph or CJK/full-width punctuation.
fn cjk(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x303f | 0x4e00..=0x9fff | 0xff00..=0xffef)
}

fn lookup(table: &[(&str, &'static str)], en: &str) -> Option<&'static str> {
    table.iter().find(|(e, _)| *e == en).map(|(_, z)| *z)
}

/// A TOML parser message the catalog does not know whole (a later version's): a Chinese lead-in and the
/// original words, so the reader is told what kind of text follows.
pub fn toml_or_lead_in(text: &str) -> String {
    toml(text).unwrap_or_else(|| format!("TOML 语法错误（解析器原文：{text}）"))
}

/// serde's list of names (`` `a` ``, `` `a` or `b` ``, `` one of `a`, `b` ``) with Chinese joiners.
fn serde_names(text: &str) -> Option<String> {
    let (one_of, list) = match text.strip_prefix("one of ") {
        Some(l) => (true, l),
        None => (false, text),
    };
    let name = |n: &str| {
        n.len() >= 2 && n.starts_with('`') && n.ends_with('`') && !n[1..n.len() - 1].contains('`')
    };
    let names = |s: &str, sep: &str| -> Option<Vec<String>> {
        let v: Vec<String> = s.split(sep).map(str::to_string).collect();
        v.iter().all(|n| name(n)).then_some(v)
    };
    if one_of {
        return Some(format!(
            "以下之一：{}",
            chinese_of(Joiner::Series, &names(list, ", ")?)
        ));
    }
    if let Some(v) = names(list, ", ").filter(|v| v.len() >= 2) {
        return Some(chinese_of(Joiner::Series, &v));
    }
    if let Some(v) = names(list, " or ").filter(|v| v.len() == 2) {
        return Some(chinese_of(Joiner::Or, &v));
    }
    name(list).then(|| list.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_messages_are_understood_whole() {
        assert_eq!(toml("duplicate key").as_deref(), Some("键重复"));
        assert_eq!(
            toml("invalid basic string, expected `\"`").as_deref(),
            Some("基本字符串无效，应为 `\"`")
        );
        assert_eq!(
            toml("unclosed array, expected `]`").as_deref(),
            Some("数组没有闭合，应为 `]`")
        );
        assert_eq!(
            toml("missing comma between array elements, expected `,`").as_deref(),
            Some("数组元素之间缺少逗号，应为 `,`")
        );
        assert_eq!(
            toml("missing escaped value, expected `b`, `e`, `f`, `n`, `r`, `\\`, `\"`, `x`, `u`, `U`").as_deref(),
            Some("缺少转义字符，应为 `b`、`e`、`f`、`n`、`r`、`\\`、`\"`、`x`、`u` 或 `U`")
        );
        assert_eq!(
            toml("invalid key, expected newline, `#`").as_deref(),
            Some("键无效，应为换行或 `#`")
        );
        assert_eq!(
            toml("invalid time, expected hour between 00 and 23").as_deref(),
            Some("时间无效，应为 00 到 23 之间的小时")
        );
        assert_eq!(
            toml("cannot extend value of type inline table with a dotted key").as_deref(),
            Some("不能用带点的键扩展内联表类型的值")
        );
        assert_eq!(
            toml("`_` may only go between digits, expected nothing").as_deref(),
            Some("`_` 只能写在数字之间，此处不应再有内容")
        );
        // A literal that is a comma or a backtick.
        assert_eq!(
            toml("invalid inline table element, expected `,`, `}`").as_deref(),
            Some("内联表的元素无效，应为 `,` 或 `}`")
        );
        assert_eq!(
            toml("invalid comment character, expected '`'").as_deref(),
            Some("注释中的字符无效，应为 '`'")
        );
        // Anything unknown is not half translated.
        assert_eq!(toml("a new complaint"), None);
        assert_eq!(toml("duplicate key, expected a new thing"), None);
        assert_eq!(
            toml_or_lead_in("a new complaint"),
            "TOML 语法错误（解析器原文：a new complaint）"
        );
    }

    #[test]
    fn serde_lists_take_chinese_joiners() {
        assert_eq!(serde_names("`json`").as_deref(), Some("`json`"));
        assert_eq!(
            serde_names("`json` or `binary`").as_deref(),
            Some("`json` 或 `binary`")
        );
        assert_eq!(
            serde_names("one of `a`, `b`, `c`").as_deref(),
            Some("以下之一：`a`、`b`、`c`")
        );
        assert_eq!(
            serde_names("`a`, `b`, `c`").as_deref(),
            Some("`a`、`b`、`c`")
        );
        assert_eq!(serde_names("an integer"), None);
        assert_eq!(serde_names("`a` and `b`"), None);
    }

    /// Every description and item of the catalog reads as Chinese, and no line is given twice.
    #[test]
    fn the_toml_catalog_is_chinese() {
        for table in [
            super::super::zh::TOML_ERRORS,
            super::super::zh::TOML_EXPECTED,
        ] {
            let mut seen = std::collections::HashSet::new();
            for (en, zh) in table {
                assert!(seen.insert(*en), "{en:?} twice");
                assert!(zh.chars().any(cjk), "{en:?} → {zh:?}");
            }
        }
    }
}
