//! `--message-format sarif`: the diagnostics of a run as one SARIF 2.1.0 log (OASIS Static Analysis Results
//! Interchange Format, <https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html>), the file GitHub
//! code scanning (`github/codeql-action/upload-sarif`) and other code-scanning UIs read.
//!
//! One run, tool `gentable`; `rules` are the codes that occur, in number order, with their title
//! (`shortDescription`), explanation (`fullDescription`, `help`) and default level; each result names its
//! rule, level (`error`/`warning`), message (with the field, the cell text and the help), and a location:
//! `physicalLocation` with the file relative to the project (`uriBaseId` `%SRCROOT%`) and, for text files
//! (CSV), `region.startLine`/`startColumn` (the row and column as the designer sees them); a workbook's
//! sheet, row and column are a `logicalLocation` (`Sheet!C5`), since a workbook has no lines. The gentable
//! fields (sheet, row, column, field, cellText) are also in the result's `properties`. Deterministic: the
//! order of the (sorted) diagnostics, no timestamps.

use super::lang::{self, Lang};
use crate::diag::{column_from_letters, Code, Diagnostic, Severity};
use serde_json::{json, Map, Value};

/// The SARIF log of `diags` (sorted), messages in `lang`, as pretty JSON ending with `\n`.
pub fn sarif(diags: &[Diagnostic], lang: Lang) -> String {
    let mut codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
    codes.sort();
    codes.dedup();
    let rules: Vec<Value> = codes
        .iter()
        .map(|c| {
            let level = if diags
                .iter()
                .any(|d| d.code == *c && d.severity == Severity::Error)
            {
                "error"
            } else {
                "warning"
            };
            json!({
                "id": c.as_str(),
                "name": lang::title(*c, Lang::En).replace(' ', "-"),
                "shortDescription": {"text": lang::title(*c, lang)},
                "fullDescription": {"text": lang::explanation(*c, lang)},
                "help": {"text": lang::explanation(*c, lang)},
                "defaultConfiguration": {"level": level},
            })
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| result(d, codes.binary_search(&d.code).unwrap_or(0), lang))
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "gentable",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the folder of gentable.toml"}}},
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&log).expect("SARIF serializes");
    s.push('\n');
    s
}

fn result(d: &Diagnostic, rule_index: usize, lang: Lang) -> Value {
    let w = lang.words();
    let mut text = lang::message(&d.message, lang);
    if let Some(f) = &d.field {
        text.push_str(&format!(" [{}]", w.field.replace("{}", &format!("{f:?}"))));
    }
    if let Some(t) = &d.cell_text {
        text.push_str(&format!(" ({}{t:?})", w.cell_text));
    }
    if let Some(h) = &d.help {
        text.push_str(&format!("\n{}{}", w.help, lang::message(h, lang)));
    }
    let mut physical = json!({"artifactLocation": {"uri": uri(&d.file), "uriBaseId": "%SRCROOT%"}});
    if d.row > 0 && d.sheet.is_none() {
        let mut region = Map::new();
        region.insert("startLine".into(), d.row.into());
        if let Some(c) = d.column.as_deref().and_then(column_from_letters) {
            region.insert("startColumn".into(), (c + 1).into());
        }
        physical["region"] = Value::Object(region);
    }
    let mut location = json!({"physicalLocation": physical});
    if let Some(sh) = &d.sheet {
        let name = match (&d.column, d.row) {
            (_, 0) => sh.clone(),
            (Some(c), r) => format!("{sh}!{c}{r}"),
            (None, r) => format!("{sh}!{r}:{r}"),
        };
        location["logicalLocations"] = json!([{"name": name, "kind": "element"}]);
    }
    let mut props = Map::new();
    for (k, v) in [
        ("sheet", d.sheet.clone()),
        ("column", d.column.clone()),
        ("field", d.field.clone()),
        ("cellText", d.cell_text.clone()),
    ] {
        if let Some(v) = v {
            props.insert(k.into(), v.into());
        }
    }
    if d.row > 0 {
        props.insert("row".into(), d.row.into());
    }
    json!({
        "ruleId": d.code.as_str(),
        "ruleIndex": rule_index,
        "level": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "message": {"text": text},
        "locations": [location],
        "properties": props,
    })
}

/// A relative path as a URI reference: `/` separators, and the characters a URI cannot hold
/// percent-encoded (RFC 3986; non-ASCII as UTF-8 bytes), so `Table/单位 表.csv` is
/// `Table/%E5%8D%95%E4%BD%8D%20%E8%A1%A8.csv`.
fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::RowOrigin;

    #[test]
    fn results_name_the_rule_and_the_cell() {
        let o = RowOrigin {
            file: "Table/单位.csv".into(),
            sheet: None,
            row: 7,
        };
        let csv = Diagnostic::cell_error(
            Code::WrongType,
            &o,
            Some(2),
            Some("Hp"),
            Some("abc"),
            "expected an integer, found \"abc\"",
        );
        let o = RowOrigin {
            file: "Table/Units.xlsx".into(),
            sheet: Some("Unit".into()),
            row: 4,
        };
        let xlsx = Diagnostic::cell_error(
            Code::MissingReference,
            &o,
            Some(5),
            Some("Weapon"),
            Some("Axe"),
            "\"Axe\" is not a key of Weapon",
        )
        .with_help("add a row with this key to Weapon, or fix the reference")
        .warning();
        let v: Value =
            serde_json::from_str(&sarif(&[csv.clone(), xlsx.clone()], Lang::En)).unwrap();
        let run = &v["runs"][0];
        assert_eq!(v["version"], "2.1.0");
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0]["id"], Code::WrongType.as_str());
        assert_eq!(rules[0]["shortDescription"]["text"], "wrong type");
        assert_eq!(rules[1]["defaultConfiguration"]["level"], "warning");
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], Code::WrongType.as_str());
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(
            loc["artifactLocation"]["uri"],
            "Table/%E5%8D%95%E4%BD%8D.csv"
        );
        assert_eq!(loc["region"]["startLine"], 7);
        assert_eq!(loc["region"]["startColumn"], 3);
        assert_eq!(
            r["message"]["text"],
            "expected an integer, found \"abc\" [field \"Hp\"] (cell text: \"abc\")"
        );
        let r = &run["results"][1];
        assert_eq!(r["ruleIndex"], 1);
        assert_eq!(r["level"], "warning");
        assert!(r["locations"][0]["physicalLocation"]
            .get("region")
            .is_none());
        assert_eq!(r["locations"][0]["logicalLocations"][0]["name"], "Unit!F4");
        assert_eq!(r["properties"]["sheet"], "Unit");
        assert!(r["message"]["text"]
            .as_str()
            .unwrap()
            .ends_with("\nhelp: add a row with this key to Weapon, or fix the reference"));
        // In Chinese: the rule's text and the message.
        let v: Value = serde_json::from_str(&sarif(&[csv], Lang::Zh)).unwrap();
        assert_eq!(
            v["runs"][0]["tool"]["driver"]["rules"][0]["shortDescription"]["text"],
            "类型不符"
        );
        assert!(v["runs"][0]["results"][0]["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("应为整数，实际为 \"abc\""));
    }
}
