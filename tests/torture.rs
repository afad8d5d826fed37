//! The torture set (tests/torture) through its generated Rust crate: extreme integers stay exact, floats keep
//! their bits, strings survive byte for byte, keyword names are usable, and the crate's canonical dump equals
//! the committed `generated/data`.

use torture_tables::enums::Keyword;
use torture_tables::{
    Keywords, KeywordsId, Nested, NestedId, Numbers, NumbersId, Pair, Settings, Strings, StringsId,
};

#[test]
fn integers_at_their_limits() {
    let n1 = Numbers::get(NumbersId(1)).unwrap();
    assert_eq!(
        (n1.i8, n1.i16, n1.i32, n1.i64),
        (i8::MIN, i16::MIN, i32::MIN, i64::MIN)
    );
    let n2 = Numbers::get(NumbersId(2)).unwrap();
    assert_eq!((n2.i64, n2.u32, n2.u64), (i64::MAX, u32::MAX, u64::MAX));
    let n3 = Numbers::get(NumbersId(3)).unwrap();
    assert_eq!(n3.i64, (1i64 << 53) + 1);
}

#[test]
fn floats_keep_their_bits() {
    let f = |id| Numbers::get(NumbersId(id)).unwrap().f;
    assert_eq!(f(1), 0.1);
    assert_eq!(f(2), 1e21);
    assert_eq!(f(3).to_bits(), 5e-324f64.to_bits());
    assert_eq!(f(4).to_bits(), 0f64.to_bits(), "-0 is read as +0");
    assert_eq!(Numbers::get(NumbersId(3)).unwrap().maybe_f, Some(f64::MAX));
    assert_eq!(Numbers::get(NumbersId(1)).unwrap().maybe_f, None);
}

#[test]
fn strings_survive() {
    let t = |k: &'static str| Strings::get(StringsId(k)).unwrap().text;
    assert_eq!(t("quote"), "say \"hi\"");
    assert_eq!(t("newline"), "line1\nline2\r\nline3");
    assert_eq!(t("u2028"), "a\u{2028}b\u{2029}c");
    assert_eq!(t("comment"), "*/ end of comment /* // --> <!--");
    assert_eq!(t("template"), "${x} `backtick` {{x}} {{{x}}} #{x} %s {0}");
    assert_eq!(t("controls"), "\u{1}\u{1f}\u{7f}");
    assert_eq!(t("spaces"), "  leading and trailing  ");
    assert_eq!(
        Strings::get(StringsId("spaces")).unwrap().note,
        None,
        "a blank optional cell is absent"
    );
}

#[test]
fn keyword_fields_and_members() {
    let k = Keywords::get(KeywordsId(0)).unwrap();
    assert_eq!(
        (k.class, k.self_, k.type_, k.move_),
        (Keyword::Class, Keyword::Self_, Keyword::Type, Keyword::Move)
    );
    assert_eq!(Keyword::from_name("self"), Some(Keyword::Self_));
    assert_eq!(Keyword::Self_.name(), "self");
    assert_eq!(Settings::get().default, Keyword::Default);
}

#[test]
fn nested_records_arrays_and_optionals() {
    let full = Nested::get(NestedId("full")).unwrap();
    assert_eq!(full.ints, [i64::MAX, i64::MIN, 0]);
    assert_eq!(full.grid, [&[1u8, 2][..], &[], &[3]]);
    assert_eq!(full.words, ["a", "b|c", "d"]);
    assert_eq!(full.shape.path[0].label, Some("a"));
    assert_eq!(full.shape.tags, ["x", "y,z"]);
    let empty = Nested::get(NestedId("all-empty")).unwrap();
    assert!(empty.ints.is_empty() && empty.maybe_pos.is_none() && empty.opt.is_none());
    // Composite key lookup; rows sorted by (Kind declaration order, N).
    assert_eq!(Pair::get(Keyword::Self_, 2).unwrap().v, 0.5);
    assert_eq!(Pair::all()[0].kind, Keyword::Class);
    assert_eq!(Pair::all()[0].n, 0);
}

#[test]
fn canonical_dump_equals_committed_data() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/torture/generated/data");
    for (name, json) in torture_tables::canonical_tables() {
        let committed = std::fs::read_to_string(root.join(format!("{name}.json"))).unwrap();
        assert_eq!(json, committed, "{name}");
    }
}
