//! JSON Schema as schema authors write it (docs/json-schema-support.md), beyond what the Test Suite harness
//! (tests/json_schema_suite.rs) measures: each test builds a small project, loads it with
//! [`gentable::build::load`] and checks the typed values or the exact diagnostics.

use gentable::build::Validated;
use gentable::diag::{Code, Diagnostic, Severity};
use gentable::ir::{Type, Value};

/// A project with table `T` of row schema `schema` (its `properties` in `props`) and the CSV `csv`; extra
/// schema files and `gentable.toml` lines as given.
struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    fn new(props: &str, required: &str, csv: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let c = Case { dir };
        c.write("gentable.toml", "[project]\nname = \"Case\"\n");
        c.write(
            "schema/T.schema.json",
            &format!(
                r#"{{"type": "object", "x-gentable-primaryKey": "Id",
                    "properties": {{"Id": {{"type": "integer"}}, {props}}},
                    "required": ["Id"{required}]}}"#
            ),
        );
        c.write("Table/T.csv", csv);
        c
    }
    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    fn load(&self) -> Result<Validated, Vec<Diagnostic>> {
        let loaded = gentable::config::load(&self.dir.path().join("gentable.toml")).unwrap();
        gentable::build::load(&loaded).map_err(|d| d.items)
    }
    fn ok(&self) -> Validated {
        self.load()
            .unwrap_or_else(|d| panic!("expected success: {d:#?}"))
    }
    fn errors(&self) -> Vec<Diagnostic> {
        match self.load() {
            Ok(_) => panic!("expected errors"),
            Err(d) => d,
        }
    }
}

/// `(code, row, column, message contains)` of every diagnostic.
fn assert_diags(d: &[Diagnostic], want: &[(Code, usize, Option<&str>, &str)]) {
    let got: Vec<String> = d
        .iter()
        .map(|d| format!("{} {} {:?} {}", d.code, d.row, d.column, d.message))
        .collect();
    assert_eq!(d.len(), want.len(), "{got:#?}");
    for (d, (code, row, col, text)) in d.iter().zip(want) {
        assert_eq!(
            (d.code, d.row, d.column.as_deref()),
            (*code, *row, *col),
            "{got:#?}"
        );
        assert!(d.message.contains(text), "{:?} lacks {text:?}", d.message);
    }
}

fn value(v: &Validated, row: usize, field: &str) -> Value {
    let t = &v.project.tables[0];
    t.rows[row].values[t.field_index(field).unwrap()].clone()
}

#[test]
fn formats_are_checked_by_default_and_can_be_annotations_only() {
    let c = Case::new(
        r#""Mail": {"type": "string", "format": "email"}, "Host": {"type": "string", "format": "ipv4"}"#,
        "",
        "Id,Mail,Host\n1,a@b.example,10.0.0.1\n2,not-an-email,10.0.0.300\n",
    );
    assert_diags(
        &c.errors(),
        &[
            (Code::SchemaKeyword, 3, Some("B"), "schema keyword format"),
            (Code::SchemaKeyword, 3, Some("C"), "schema keyword format"),
        ],
    );
    c.write(
        "gentable.toml",
        "[project]\nname = \"Case\"\n\n[validation]\nformats = false\n",
    );
    assert_eq!(value(&c.ok(), 1, "Mail"), Value::Str("not-an-email".into()));
}

#[test]
fn a_bad_default_is_one_error_at_the_schema() {
    let c = Case::new(
        r#""Hp": {"type": "integer", "maximum": 100, "default": 500}, "Tags": {"type": "array", "items": {"type": "integer"}, "default": ["x"]}, "Mp": {"type": "integer", "minimum": 1, "default": 0}"#,
        "",
        "Id,Hp,Tags,Mp\n1,,,5\n2,,,5\n3,,,5\n",
    );
    let d = c.errors();
    assert_diags(
        &d,
        &[
            (Code::BadDefault, 0, None, "the default 0 of T.Mp breaks its own \"minimum\": 0 is less than the minimum of 1 (no row takes it yet)"),
            (Code::BadDefault, 0, None, "breaks its own \"maximum\": 500 is greater than the maximum of 100 (3 rows take it, the first at Table/T.csv:2)"),
            (Code::BadDefault, 0, None, "the default [\"x\"] of T.Tags does not fit its type"),
        ],
    );
    assert!(d.iter().all(|x| x.file == "schema/T.schema.json"));
    // A bad default no row takes is a warning: the build goes on.
    let sev: Vec<_> = d.iter().map(|x| x.severity).collect();
    assert_eq!(sev, [Severity::Warning, Severity::Error, Severity::Error]);
    c.write("Table/T.csv", "Id,Hp,Tags,Mp\n1,5,1,5\n");
    let v = c.ok();
    assert_eq!(v.warnings.len(), 3, "{:#?}", v.warnings);
}

#[test]
fn a_float_default_that_would_ship_as_another_number_is_an_error() {
    // Found by the breaker helper: the parsed schema holds the double, not the literal, so a default
    // `890713491284145.3` shipped as `...145.2` (the even digit of a tie) without a word.
    let c = Case::new(
        r#""F": {"type": "number", "default": 890713491284145.3}, "G": {"type": "array", "items": {"type": "number"}, "default": [1.5, 0.12345678901234567890]}, "H": {"type": "number", "default": 890713491284145.2}"#,
        "",
        "Id,F,G,H\n1,,,\n2,1,2,\n",
    );
    let d = c.errors();
    assert_diags(
        &d,
        &[
            (Code::BadDefault, 0, None, "the default 0.12345678901234567890 of T.G does not fit its type: 0.12345678901234567890 has no exact 64-bit float: it would ship as 0.12345678901234568 (1 row takes it"),
            (Code::BadDefault, 0, None, "the default 890713491284145.3 of T.F does not fit its type: 890713491284145.3 has no exact 64-bit float: it would ship as 890713491284145.2 (1 row takes it, the first at Table/T.csv:2)"),
        ],
    );
    // Written as it ships, the defaults are taken.
    c.write(
        "schema/T.schema.json",
        &std::fs::read_to_string(c.dir.path().join("schema/T.schema.json"))
            .unwrap()
            .replace("890713491284145.3", "890713491284145.2")
            .replace("0.12345678901234567890", "0.12345678901234568"),
    );
    let v = c.ok();
    assert_eq!(value(&v, 0, "F"), Value::Float(890713491284145.0 + 0.25));
}

#[test]
fn a_float_default_is_checked_through_refs_and_percent_encoded_pointers() {
    // A default a field takes through `$ref`, and a record field under a `$defs` name its `$ref`
    // percent-encodes, were not looked up in the schema text and shipped rounded.
    let schema = |record_default: &str| {
        format!(
            r##"{{"type": "object", "x-gentable-primaryKey": "Id",
            "$defs": {{
                "Price": {{"type": "number", "default": 890713491284145.25}},
                "Half": {{"type": "number", "default": 0.5}},
                "格 子": {{"type": "object", "properties": {{"x": {{"type": "number", "default": {record_default}}}}}}}
            }},
            "properties": {{"Id": {{"type": "integer"}}, "P": {{"$ref": "#/$defs/Price"}},
                "Q": {{"$ref": "#/$defs/Half"}}, "R": {{"$ref": "#/$defs/%E6%A0%BC%20%E5%AD%90"}}}},
            "required": ["Id"]}}"##
        )
    };
    let c = Case::new(r#""P": {"type": "integer"}"#, "", "Id,P,Q,R\n1,,,\n");
    // A record field's bad default is an error at the schema, and the table is not typed.
    c.write("schema/T.schema.json", &schema("0.12345678901234567890"));
    assert_diags(
        &c.errors(),
        &[(Code::BadDefault, 0, None, "the default 0.12345678901234567890 of 格 子.x does not fit its type: 0.12345678901234567890 has no exact 64-bit float: it would ship as 0.12345678901234568")],
    );
    // Then the row field's, taken through `$ref`; 0.5 elsewhere is not blamed on Q.
    c.write("schema/T.schema.json", &schema("0.12345678901234568"));
    assert_diags(
        &c.errors(),
        &[(Code::BadDefault, 0, None, "the default 890713491284145.25 of T.P does not fit its type: 890713491284145.25 is exactly a 64-bit float, whose shortest form is 890713491284145.2: it would ship as 890713491284145.2 (1 row takes it, the first at Table/T.csv:2)")],
    );
    // Both wordings in Chinese, whole.
    let zh = |t: &str| gentable::diag::lang::message(t, gentable::diag::lang::Lang::Zh);
    assert_eq!(
        zh("the default 890713491284145.25 of T.P does not fit its type: 890713491284145.25 is exactly a 64-bit float, whose shortest form is 890713491284145.2: it would ship as 890713491284145.2"),
        "T.P 的默认值 890713491284145.25 不符合其类型：890713491284145.25 恰好是一个 64 位浮点数，其最短写法是 890713491284145.2：导出的会是 890713491284145.2"
    );
    assert_eq!(
        zh("the number 890713491284145.25 in \"[890713491284145.25]\" is exactly a 64-bit float, whose shortest form is 890713491284145.2: it would ship as 890713491284145.2"),
        "\"[890713491284145.25]\" 中的数字 890713491284145.25 恰好是一个 64 位浮点数，其最短写法是 890713491284145.2：导出的会是 890713491284145.2"
    );
    // Written as it ships, it passes.
    c.write(
        "schema/T.schema.json",
        &schema("0.12345678901234568").replace("890713491284145.25", "890713491284145.2"),
    );
    let v = c.ok();
    assert_eq!(value(&v, 0, "P"), Value::Float(890713491284145.0 + 0.25));
    assert_eq!(value(&v, 0, "Q"), Value::Float(0.5));
}

#[test]
fn an_exact_default_through_ref_is_not_blamed_on_another_files_literal() {
    // Found by the breaker helper: a default taken through `$ref` was matched by value against inexact
    // literals in any schema file, so an unrelated `0.30000000000000001` (or a `maximum` under a property
    // named `default`) made the exact `0.3` an error. And a default two `$ref`s away (W) was not taken at all.
    let c = Case::new(
        r#""V": {"$ref": "common.schema.json#/$defs/Ratio"}, "W": {"$ref": "common.schema.json#/$defs/Far"}"#,
        "",
        "Id,V,W\n1,,\n",
    );
    c.write(
        "schema/common.schema.json",
        r##"{"$defs": {"Ratio": {"type": "number", "default": 0.3}, "Far": {"$ref": "#/$defs/Ratio"}}}"##,
    );
    c.write(
        "schema/Old.schema.json",
        r#"{"type": "object", "properties": {"Legacy": {"type": "number", "default": 0.30000000000000001}, "default": {"type": "number", "maximum": 0.30000000000000001}}}"#,
    );
    let v = c.ok();
    assert_eq!(value(&v, 0, "V"), Value::Float(0.3));
    assert_eq!(value(&v, 0, "W"), Value::Float(0.3));
    // The literal a field does take, two `$ref`s away in another file, is still found.
    c.write(
        "schema/common.schema.json",
        r##"{"$defs": {"Ratio": {"type": "number", "default": 0.30000000000000001}, "Far": {"$ref": "#/$defs/Ratio"}}}"##,
    );
    assert_diags(
        &c.errors(),
        &[
            (Code::BadDefault, 0, None, "the default 0.30000000000000001 of T.V does not fit its type: 0.30000000000000001 has no exact 64-bit float: it would ship as 0.3 (1 row takes it"),
            (Code::BadDefault, 0, None, "the default 0.30000000000000001 of T.W does not fit its type"),
        ],
    );
}

#[test]
fn json_literal_cells_never_coerce_and_huge_numbers_are_out_of_range() {
    let c = Case::new(
        r#""Ns": {"type": "array", "items": {"type": "integer"}}, "N": {"type": "integer"}, "Rec": {"type": "object", "properties": {"a": {"type": "integer"}}}"#,
        "",
        "Id,Ns,N,Rec\n1,\"[\"\"1\"\",2]\",1e+308,\"{\"\"a\"\":1,\"\"a\"\":2}\"\n",
    );
    assert_diags(
        &c.errors(),
        &[
            (
                Code::WrongType,
                2,
                Some("B"),
                "expected an integer, found \"1\"",
            ),
            (
                Code::OutOfRange,
                2,
                Some("C"),
                "1e+308 is a whole number far too large for i32",
            ),
            (
                Code::BadGrammar,
                2,
                Some("D"),
                "the member \"a\" is given twice",
            ),
        ],
    );
}

#[test]
fn a_json_literal_out_of_its_types_range_is_gt0202_like_a_plain_cell() {
    // The same value as a plain cell and inside JSON literals (an array, a record member, a map value): each
    // is out of range (GT0202), not of the wrong type (GT0201), wherever it sits.
    let c = Case::new(
        r#""B": {"type": "integer", "minimum": 0, "maximum": 255}, "Bs": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}}, "Rec": {"type": "object", "properties": {"a": {"type": "integer"}}}, "M": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 255}}, "F": {"type": "array", "items": {"type": "number"}}"#,
        "",
        "Id,B,Bs,Rec,M,F\n1,300,\"[1,300]\",\"{\"\"a\"\":3000000000}\",\"{\"\"x\"\":256}\",\"[9007199254740993]\"\n",
    );
    let errors = c.errors();
    let got: Vec<(Code, Option<&str>)> = errors
        .iter()
        .map(|d| (d.code, d.column.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (Code::OutOfRange, Some("B")),
            (Code::OutOfRange, Some("C")),
            (Code::OutOfRange, Some("D")),
            (Code::OutOfRange, Some("E")),
            (Code::OutOfRange, Some("F")),
        ],
        "{errors:#?}"
    );
    let messages: Vec<&str> = errors.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages[1].contains("300 does not fit in u8"),
        "{messages:?}"
    );
    assert!(
        messages[2].contains("3000000000 does not fit in i32"),
        "{messages:?}"
    );
    assert!(
        messages[3].contains("256 does not fit in u8"),
        "{messages:?}"
    );
    assert!(
        messages[4].contains("9007199254740993 has no exact 64-bit float"),
        "{messages:?}"
    );
}

#[test]
fn a_polymorphic_record_holds_64_bit_integers_beyond_2_pow_53() {
    // Validation saw a union's fields in their canonical form, where such integers are strings, so `oneOf`
    // refused a u64 of 2^53 + 1 that a plain field takes.
    let c = Case::new(
        r#""A": {"oneOf": [{"type": "object", "properties": {"kind": {"const": "K"}, "v": {"type": "integer", "format": "uint64", "minimum": 1}, "w": {"type": "integer", "format": "int64"}}, "required": ["kind", "v"]}], "x-gentable-discriminator": "kind"}"#,
        r#", "A""#,
        "Id,A\n1,\"{\"\"kind\"\":\"\"K\"\",\"\"v\"\":9007199254740993,\"\"w\"\":-9223372036854775808}\"\n",
    );
    let v = c.ok();
    let Value::Union(u) = value(&v, 0, "A") else {
        panic!("A is a union value")
    };
    assert_eq!(u.tag, "K");
    assert_eq!(
        u.values,
        [
            Value::Int(9_007_199_254_740_993),
            Value::Int(i64::MIN as i128)
        ]
    );
    // A value breaking a keyword inside the kind is still refused.
    let c = Case::new(
        r#""A": {"oneOf": [{"type": "object", "properties": {"kind": {"const": "K"}, "v": {"type": "integer", "format": "uint64", "minimum": 1}}, "required": ["kind", "v"]}], "x-gentable-discriminator": "kind"}"#,
        r#", "A""#,
        "Id,A\n1,\"{\"\"kind\"\":\"\"K\"\",\"\"v\"\":0}\"\n",
    );
    let errors = c.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::SchemaKeyword, "{errors:#?}");
}

#[test]
fn percent_escaped_pointers_anchors_and_recursive_documents_resolve() {
    let c = Case::new(
        r##""P": {"$ref": "#/$defs/percent%25field"}, "A": {"$ref": "#named"}, "Tree": {"$ref": "tree.schema.json"}"##,
        "",
        "Id,P,A,Tree\n1,5,x,\"{\"\"name\"\":\"\"root\"\",\"\"kids\"\":[{\"\"name\"\":\"\"leaf\"\"}]}\"\n",
    );
    // `$defs` beside the properties: rewrite the row schema with them.
    c.write(
        "schema/T.schema.json",
        r##"{"type": "object", "x-gentable-primaryKey": "Id",
            "$defs": {"percent%field": {"type": "integer"}, "N": {"$anchor": "named", "type": "string"}},
            "properties": {"Id": {"type": "integer"}, "P": {"$ref": "#/$defs/percent%25field"},
                           "A": {"$ref": "#named"}, "Tree": {"$ref": "tree.schema.json"}},
            "required": ["Id"]}"##,
    );
    c.write(
        "schema/tree.schema.json",
        r##"{"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#"}}}, "required": ["name"]}"##,
    );
    let v = c.ok();
    let t = &v.project.tables[0];
    assert_eq!(value(&v, 0, "P"), Value::Int(5));
    assert_eq!(value(&v, 0, "A"), Value::Str("x".into()));
    let tree = t.fields[t.field_index("Tree").unwrap()]
        .ty
        .strip_optional()
        .clone();
    let Type::Record(name) = &tree else {
        panic!("a record: {tree:?}")
    };
    // The document refers to itself: the kids are the same record type.
    let kids = &v.project.records[name].fields[1];
    assert_eq!(
        kids.ty,
        Type::Optional(Box::new(Type::Array(Box::new(tree.clone()))))
    );
}

#[test]
fn a_leap_second_or_a_bad_offset_is_an_error_never_another_instant() {
    let c = Case::new(
        r#""At": {"type": "string", "format": "date-time"}"#,
        "",
        "Id,At\n1,1998-12-31T23:59:60Z\n2,1990-12-31T15:59:59-24:00\n3,2024-05-01T12:00:00+08\n4,2024-05-01T12:00:00+08:00\n",
    );
    assert_diags(
        &c.errors(),
        &[
            (Code::WrongType, 2, Some("B"), "leap second"),
            (Code::WrongType, 3, Some("B"), "outside -23:59 to +23:59"),
            (
                Code::WrongType,
                4,
                Some("B"),
                "with its minutes, like +01:00",
            ),
        ],
    );
}

#[test]
fn missing_types_are_inferred_where_the_keywords_decide() {
    let c = Case::new(
        r#""Len": {"minLength": 1}, "Num": {"minimum": 0.5}, "Cnt": {"multipleOf": 1, "minimum": 0}, "Obj": {"properties": {"x": {"type": "integer"}}}, "Arr": {"items": {"type": "string"}}, "Pick": {"enum": [1, 2, 3]}, "Mix": {"enum": ["a", 1]}"#,
        "",
        "Id,Len,Num,Obj,Arr,Pick,Mix\n1,ab,2.5,(3),a|b,2,a\n",
    );
    let v = c.ok();
    let t = &v.project.tables[0];
    let ty = |f: &str| {
        t.fields[t.field_index(f).unwrap()]
            .ty
            .strip_optional()
            .clone()
    };
    assert_eq!(ty("Len"), Type::String);
    assert_eq!(ty("Num"), Type::Float);
    // A multiple of a whole number is an integer (its width from the bounds: 0.. is unsigned).
    assert!(matches!(ty("Cnt"), Type::Int(_)), "{:?}", ty("Cnt"));
    assert!(matches!(ty("Obj"), Type::Record(_)));
    assert_eq!(ty("Arr"), Type::Array(Box::new(Type::String)));
    assert!(matches!(ty("Pick"), Type::Int(_)));
    assert!(matches!(ty("Mix"), Type::Choice(_)));
    assert_eq!(value(&v, 0, "Mix"), Value::Str("a".into()));
    assert_eq!(value(&v, 0, "Num"), Value::Float(2.5));
}
