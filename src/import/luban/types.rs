//! Luban's type syntax (`##type` cells, `<var type=…>`): `int`, `int?`, `list,int`, `(list#sep=;),Bean#sep=,`,
//! `map,int,string`, `int#ref=test.TbItem`, `(array#size=2),int`, `string#(set=ab,cd)`.
//!
//! Source: Luban's documentation of its type system (`container,element`, `#attr=value` tags, parentheses
//! grouping a type with its tags) and the example project in `../shared/realdata/luban-examples/`.

/// A parsed Luban type: a name (`int`, `list`, `map`, a bean or enum), whether it is nullable (`?`), its
/// `#` attributes in order and, for containers, the element type(s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LubanType {
    pub name: String,
    pub nullable: bool,
    pub attrs: Vec<(String, String)>,
    pub args: Vec<LubanType>,
}

impl LubanType {
    /// The value of attribute `key`, if given.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Index of the first `,` outside parentheses and brackets.
fn top_comma(s: &str) -> Option<usize> {
    top_sep(s, ',')
}

/// Index of the first `sep` outside parentheses and brackets.
fn top_sep(s: &str, sep: char) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            c if c == sep && depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// `s` without one pair of parentheses around all of it.
fn unwrap_parens(s: &str) -> &str {
    let t = s.trim();
    if t.starts_with('(') && t.ends_with(')') {
        let mut depth = 0;
        for (i, c) in t.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 && i != t.len() - 1 {
                        return t;
                    }
                }
                _ => {}
            }
        }
        return t[1..t.len() - 1].trim();
    }
    t
}

/// Split `name#a=1#(b=2,3)` into the name and its attributes.
fn head(s: &str) -> Result<(String, Vec<(String, String)>), String> {
    let s = unwrap_parens(s);
    let mut parts = vec![];
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' | '[' => {
                depth += 1;
                cur.push(c)
            }
            ')' | ']' => {
                depth -= 1;
                cur.push(c)
            }
            // `sep=#`: a `#` right after `sep=` is the separator itself.
            '#' if depth == 0 && !cur.ends_with("sep=") => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    let name = parts[0].trim().to_string();
    if name.is_empty() {
        return Err(format!("{s:?} has no type name"));
    }
    let mut attrs = vec![];
    for p in &parts[1..] {
        // `#(range=[1, 10))`: one pair of parentheses around the whole tag (intervals may be half-open, so
        // the brackets inside need not balance).
        let p = p.trim();
        let p = match p.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
            Some(inner) => inner,
            None => p,
        };
        match p.split_once('=') {
            Some((k, v)) => attrs.push((k.trim().to_string(), v.trim().to_string())),
            None => attrs.push((p.trim().to_string(), String::new())),
        }
    }
    Ok((name, attrs))
}

/// Parse a Luban type. `Err` says what is malformed.
pub fn parse(text: &str) -> Result<LubanType, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("the type is empty".into());
    }
    // Containers may also separate their parts by `;` (`map#aaa=5;int;int`) when no `,` does.
    let container_head = |x: &str| {
        let n = x
            .split(['#', ';', ',', '?'])
            .next()
            .unwrap_or("")
            .trim_start_matches('(');
        matches!(n, "list" | "array" | "set" | "map")
    };
    let split_at = top_comma(s).or_else(|| container_head(s).then(|| top_sep(s, ';')).flatten());
    let (first, rest) = match split_at {
        Some(i) => (&s[..i], Some(s[i + 1..].trim())),
        None => (s, None),
    };
    let (mut name, mut attrs) = head(first)?;
    let container = matches!(name.as_str(), "list" | "array" | "set" | "map");
    let mut args = vec![];
    match (container, rest) {
        (true, None) => return Err(format!("{name} needs an element type: {name},int")),
        (true, Some(rest)) if name == "map" => {
            let Some(i) = top_comma(rest).or_else(|| top_sep(rest, ';')) else {
                return Err(format!(
                    "map needs a key and a value type: map,int,string, not {s:?}"
                ));
            };
            args.push(parse(&rest[..i])?);
            args.push(parse(&rest[i + 1..])?);
        }
        (true, Some(rest)) => args.push(parse(rest)?),
        (false, Some(_)) if !first.contains('#') => {
            return Err(format!(
                "unknown type {:?}: only list, array, set and map take element types after a comma",
                name.trim_end_matches('?')
            ))
        }
        // A comma after a scalar belongs to its last attribute: `int#set=1,2,3`.
        (false, Some(_)) => {
            let (n, a) = head(s)?;
            name = n;
            attrs = a;
        }
        (false, None) => {}
    }
    let mut nullable = false;
    if let Some(n) = name.strip_suffix('?') {
        name = n.to_string();
        nullable = true;
    }
    // `int#ref=tag.TbTestTag?`: the `?` written after the tags.
    if let Some((_, v)) = attrs.last_mut() {
        if let Some(x) = v.strip_suffix('?') {
            *v = x.to_string();
            nullable = true;
        }
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return Err(format!("{name:?} is not a type name"));
    }
    Ok(LubanType {
        name,
        nullable,
        attrs,
        args,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_separators_and_tags() {
        let t = parse("(list#sep=;),DemoE2#sep=,").unwrap();
        assert_eq!(t.name, "list");
        assert_eq!(t.attr("sep"), Some(";"));
        assert_eq!(t.args[0].name, "DemoE2");
        assert_eq!(t.args[0].attr("sep"), Some(","));
        let m = parse("(map#sep=,),int#ref=test.TbFullTypes,int#ref=test.TbFullTypes").unwrap();
        assert_eq!(m.args.len(), 2);
        assert_eq!(m.args[1].attr("ref"), Some("test.TbFullTypes"));
        let s = parse("list,int#set=1,2,3").unwrap();
        assert_eq!(s.args[0].attr("set"), Some("1,2,3"));
        let r = parse("int#(range=[1, 10))").unwrap();
        assert_eq!(r.attr("range"), Some("[1, 10)"));
        let z = parse("(list#(size=[1, 3])),int").unwrap();
        assert_eq!(z.attr("size"), Some("[1, 3]"));
        assert_eq!(parse("(list#sep=#),int").unwrap().attr("sep"), Some("#"));
        let n = parse("int#ref=tag.TbTestTag?").unwrap();
        assert!(n.nullable);
        assert_eq!(n.attr("ref"), Some("tag.TbTestTag"));
        assert!(parse("DemoEnum?").unwrap().nullable);
        let d = parse("map#aaa=5;int#ref=test.TbTestBeRef;int").unwrap();
        assert_eq!(
            (d.name.as_str(), d.args.len(), d.args[0].attr("ref")),
            ("map", 2, Some("test.TbTestBeRef"))
        );
        assert!(parse("list").unwrap_err().contains("element type"));
        assert!(parse("map,int").unwrap_err().contains("key and a value"));
        assert!(parse("").is_err());
    }
}
