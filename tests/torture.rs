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
    // Halfway between the shortest forms ...145.2 and ...145.3: the data says `890713491284145.2`.
    assert_eq!(f(6), 890713491284145.0 + 0.25);
    assert_eq!(
        Numbers::get(NumbersId(6)).unwrap().maybe_f,
        Some(2f64.powi(-24))
    );
}

#[test]
fn strings_survive() {
    let t = |k: &'static str| Strings::get(StringsId(k)).unwrap().text;
    assert_eq!(t("quote"), "say \"hi\"");
    // Line breaks inside a cell are `\n` whatever the file wrote (`\r\n` here): docs/conventions.md §7.
    assert_eq!(t("newline"), "line1\nline2\nline3");
    assert_eq!(t("u2028"), "a\u{2028}b\u{2029}c");
    assert_eq!(t("comment"), "*/ end of comment /* // --> <!--");
    assert_eq!(t("template"), "${x} `backtick` {{x}} {{{x}}} #{x} %s {0}");
    assert_eq!(t("controls"), "\u{1}\u{1f}\u{7f}");
    assert_eq!(t("spaces"), "  leading and trailing  ");
    assert_eq!(
        Strings::get(StringsId("spaces")).unwrap().note,
        Some("  "),
        "white-space-only text is kept exactly (docs/conventions.md §7)"
    );
    assert_eq!(
        Strings::get(StringsId("quote")).unwrap().note,
        None,
        "an empty optional cell is absent"
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
        let canonical = gentable::emit::data::json::canonical_bytes(&committed).unwrap();
        assert_eq!(json, canonical, "{name}");
    }
}

mod features {
    use torture_tables::enums::{Element, ElementFlags, Hero};
    use torture_tables::records::{Effect, Point, Stat};
    use torture_tables::types::{Date, DateTime, Duration, Time};
    use torture_tables::{Features, FeaturesId, Parts, PartsId, Spread, SpreadId, Vertical};

    fn row(id: u8) -> &'static Features {
        Features::get(FeaturesId(id)).unwrap()
    }

    #[test]
    fn defaults_fill_empty_cells_and_trailing_record_fields() {
        let r = row(1);
        assert_eq!((r.slot, r.level, r.title), (0, 1, "none"));
        assert_eq!(
            r.stat,
            Stat {
                base: 10,
                growth: 1.5,
                cap: 100
            }
        );
        assert_eq!(row(2).stat.growth, 2.25);
        assert!(r.weights.is_empty() && r.elements.is_empty() && r.effects.is_empty());
    }

    #[test]
    fn enum_aliases_read_as_members() {
        assert_eq!(row(2).hero, Hero::Junkrat, "狂鼠 is Junkrat");
        assert_eq!(row(2).heroes, &[Hero::Mercy, Hero::Junkrat, Hero::Tracer]);
        assert_eq!(
            Hero::from_name("狂鼠"),
            None,
            "aliases are for cells, not names"
        );
    }

    #[test]
    fn maps_are_sorted_and_looked_up() {
        let w = row(2).weights;
        assert_eq!(w.get("a"), Some(&1));
        assert_eq!(w.get("é"), Some(&3));
        assert_eq!(w.get("missing"), None);
        let keys: Vec<&str> = w.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            ["Z", "a", "b", "é", "｡", "😀"],
            "Rust order: UTF-8 bytes"
        );
        let by_id = row(2).by_id;
        assert_eq!(by_id.get(&10), Some(&"ten"));
        assert_eq!(
            by_id.entries()[0],
            (0, "zero"),
            "integer keys sort numerically"
        );
        assert_eq!(
            row(2).big.get(&i64::MIN),
            Some(&Point {
                x: 3,
                y: 4,
                label: Some("far")
            })
        );
    }

    #[test]
    fn polymorphic_records() {
        assert_eq!(
            *row(1).effect,
            Effect::Stun {},
            "a recursive type is held by reference"
        );
        assert_eq!(
            *row(2).effect,
            Effect::Damage {
                amount: 5,
                element: None
            }
        );
        assert_eq!(row(2).effect.kind(), "Damage");
        assert_eq!(
            row(2).effects[3],
            Effect::Heal {
                amount: 3,
                over: true
            }
        );
        assert_eq!(row(2).maybe_effect, Some(&Effect::Stun {}));
        assert_eq!(row(1).maybe_effect, None);
        let Effect::Summon { at, then, tags } = *row(4).effect else {
            panic!("a summon")
        };
        assert_eq!(at.len(), 2);
        assert_eq!(
            then,
            Some(&Effect::Damage {
                amount: 9,
                element: Some(ElementFlags::ICE)
            })
        );
        assert_eq!(tags.map(|t| t.len()), Some(2));
    }

    #[test]
    fn flags() {
        let e = row(2).elements;
        assert_eq!(e, ElementFlags::FIRE.union(ElementFlags::ICE));
        assert!(e.contains(Element::Ice) && !e.contains(Element::Wind));
        assert_eq!(row(3).elements.bits(), 0b1111);
        assert_eq!(row(4).elements.iter().collect::<Vec<_>>(), [Element::Wind]);
    }

    #[test]
    fn datetimes_and_durations() {
        assert_eq!(row(1).starts, DateTime(0));
        assert_eq!(row(2).starts.to_string(), "2024-05-01T04:00:00Z");
        assert_eq!(
            row(2).local_start,
            Some(row(2).starts),
            "+08:00 from x-gentable-timeZone"
        );
        assert_eq!(row(3).starts.to_string(), "9999-12-31T23:59:59Z");
        assert_eq!(row(4).starts.to_string(), "0001-01-01T00:00:00Z");
        assert_eq!(row(2).cooldown, Duration(5_400_000));
        assert_eq!(row(2).timeout, Some(Duration(-500)));
        assert_eq!(row(3).cooldown.as_millis(), 93_784_005);
        assert_eq!(
            row(4).cooldown.to_std(),
            Some(std::time::Duration::from_secs(2 * 86_400))
        );
    }

    #[test]
    fn dates_and_times_of_day() {
        assert_eq!(row(1).day, Date(0));
        assert_eq!(row(2).day.to_string(), "2024-05-01", "written 2024/5/1");
        assert_eq!(row(2).day.ymd(), (2024, 5, 1));
        assert_eq!(
            row(2).leap_day.map(|d| d.to_string()).as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(row(3).day.to_string(), "9999-12-31");
        assert_eq!(row(4).day.to_string(), "0001-01-01");
        // Times of day are UTC: 08:00 at +08:00 is midnight UTC; 05:00:30 at +08:00 is 21:00:30Z.
        assert_eq!(row(1).reset, Time(0));
        assert_eq!(row(2).reset.hms(), (21, 0, 30));
        assert_eq!(row(2).reset.to_string(), "21:00:30Z");
        assert_eq!(
            row(3).reset_utc.map(|t| t.to_string()).as_deref(),
            Some("18:30:00Z")
        );
        assert_eq!(row(4).reset.seconds_since_midnight(), 16 * 3600);
    }

    #[test]
    fn unique_key_lookups() {
        assert_eq!(
            Features::get_by_name("json").map(|r| r.id),
            Some(FeaturesId(3))
        );
        assert!(Features::get_by_name("nope").is_none());
        assert_eq!(
            Features::get_by_hero_and_slot(Hero::Junkrat, 1).map(|r| r.name),
            Some("aliases")
        );
        assert!(Features::get_by_hero_and_slot(Hero::Tracer, 0).is_none());
    }

    #[test]
    fn vertical_singleton() {
        let v = Vertical::get();
        assert_eq!(v.max_players, 8);
        assert_eq!(v.motd, "  Welcome, \"friend\"  ");
        assert_eq!(v.ratio, 0.25, "the default");
        assert_eq!(v.opens.to_string(), "2025-01-01T14:30:00Z");
        assert_eq!(v.round, Duration(150_000));
        assert_eq!(v.odds.get("b"), Some(&0.25));
        assert_eq!(v.banned, &[Hero::Junkrat, Hero::Mercy]);
        assert_eq!(v.note, None);
    }

    #[test]
    fn table_from_two_files() {
        let ids: Vec<u16> = Parts::all().iter().map(|p| p.id.0).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!(Parts::get(PartsId(0)).unwrap().tags, Some(&["z"][..]));
    }

    #[test]
    fn records_across_dotted_columns() {
        let s = |id| Spread::get(SpreadId(id)).unwrap();
        assert_eq!(
            s(2).pos,
            Point {
                x: -3,
                y: 4,
                label: Some("a, (b)")
            }
        );
        assert_eq!(
            s(1).stat,
            Stat {
                base: 5,
                growth: 1.5,
                cap: 100
            }
        );
        assert_eq!(
            *s(2).effect,
            Effect::Heal {
                amount: 12,
                over: true
            }
        );
        assert_eq!(
            s(2).maybe_effect,
            Some(&Effect::Damage {
                amount: 3,
                element: None
            })
        );
        assert_eq!(s(1).maybe_effect, None, "all sub-cells empty: absent");
        assert_eq!(
            s(2).shape.origin,
            Point {
                x: 1,
                y: 1,
                label: None
            }
        );
        assert_eq!(s(2).shape.tags, &["x", "y|z"]);
        assert_eq!(
            *s(4).effect,
            Effect::Damage {
                amount: 8,
                element: Some(ElementFlags::FIRE.union(ElementFlags::ICE))
            }
        );
    }
}

/// Tables named like Rust prelude types or keywords get escaped type names (`Option_`, `String_`, `Self_`)
/// and ids built from the source name (`OptionId`, `SelfId`), so the crate still compiles and reads.
#[test]
fn prelude_and_keyword_table_names() {
    use torture_tables::{OptionId, Option_, SelfId, Self_, StringId, String_};
    let one = Option_::get(OptionId(1)).unwrap();
    assert_eq!((one.maybe, one.next), (Some("x"), Some(2)));
    assert_eq!(Option_::get(OptionId(2)).unwrap().maybe, None);
    assert_eq!(String_::get(StringId("a")).unwrap().words, ["b", "c"]);
    assert_eq!(Self_::get(SelfId(0)).unwrap().other, StringId("a"));
}

#[test]
fn tuples_open_records_json_values_and_scalar_unions() {
    use torture_tables::types::Json;
    use torture_tables::{Amount, Shapes, ShapesFlag, ShapesId, ShapesMixed};
    let one = Shapes::get(ShapesId(1)).unwrap();
    let two = Shapes::get(ShapesId(2)).unwrap();
    let three = Shapes::get(ShapesId(3)).unwrap();
    // Tuples: an optional tail left out, a rest of booleans, a nullable item within minItems.
    assert_eq!(
        (one.pair._0, one.pair._1, one.pair.items),
        (7, None, &[][..])
    );
    assert_eq!(
        (two.pair._0, two.pair._1, two.pair.items),
        (8, Some("eight"), &[true, false][..])
    );
    assert_eq!((one.vec3._0, one.vec3._1, one.vec3._2), (0.1, 0.0, 1e21));
    let mf = three.maybe_first.unwrap();
    assert_eq!((mf._0, mf._1), (None, "none"));
    assert_eq!(two.maybe_first.unwrap()._0, Some(5));
    // Open records keep their extra members, typed.
    assert_eq!(two.stats.hp, 1);
    assert_eq!(two.stats.additional_properties.get("agi"), Some(&-4));
    assert_eq!(two.stats.additional_properties.get("str"), Some(&3));
    assert_eq!(three.stats.additional_properties.len(), 2);
    let meta = two.meta.unwrap();
    assert_eq!(meta.kind, Some("k"));
    assert_eq!(
        meta.additional_properties
            .get("__proto__")
            .and_then(|j| j.get("x")),
        Some(&Json::Number(1.0))
    );
    assert_eq!(meta.additional_properties.get("n"), Some(&Json::Null));
    // Any JSON value: members in RFC 8785 order, numbers as doubles.
    let any = one.any.unwrap();
    let keys: Vec<&str> = any.as_object().unwrap().iter().map(|(k, _)| *k).collect();
    // U+FF21 (a BMP letter that NFC keeps) sorts after the surrogate pair of U+1F600 in UTF-16 order.
    assert_eq!(keys, ["a", "z", "€", "😀", "\u{ff21}"]);
    assert_eq!(two.any, Some(Json::String("text")));
    assert_eq!(two.maybe_any, Some(Json::Null));
    assert_eq!(three.any, Some(Json::Number(9007199254740992.0)));
    assert_eq!(two.anys.unwrap().len(), 4);
    // Scalar unions: the member by the cell's kind; a quoted cell is text.
    assert_eq!(one.amount, Some(Amount::Integer(12)));
    assert_eq!(two.amount, Some(Amount::String("12")));
    assert_eq!(three.amount, Some(Amount::String("all")));
    assert_eq!(two.flag, Some(ShapesFlag::Boolean(true)));
    assert_eq!(three.flag, Some(ShapesFlag::Number(2.5)));
    assert_eq!(one.mixed, Some(ShapesMixed::Integer(1)));
    assert_eq!(three.mixed, Some(ShapesMixed::Boolean(true)));
    // $ref with siblings and allOf: one record with every part's members, the base's first.
    let named = two.named.unwrap();
    assert_eq!(
        (named.name, named.level, named.title),
        ("N", Some(5), Some("T"))
    );
    let merged = one.merged.unwrap();
    assert_eq!((merged.name, merged.level, merged.rank), ("Bo", Some(3), 2));
    let shapes = two.one_of_shapes.unwrap();
    assert_eq!(
        (shapes.radius, shapes.w, shapes.h),
        (None, Some(2.0), Some(3.0))
    );
}
