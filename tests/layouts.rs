//! Bit layouts: the named ones, custom ones, worker-ID fields, epochs, signatures, and
//! compose/decompose as properties over every layout.

use idgen::layout::{
    FieldKind, IdForm, Layout, LayoutError, Parts, ReadId, Role, TextForm, TimeUnit, Window,
    format_timestamp, guess, layout_names, named_layouts, parse_epoch, parse_fixed, parse_id,
    read_id,
};
use proptest::prelude::*;

fn named(name: &str) -> Layout {
    Layout::named(name).unwrap()
}

fn widths(layout: &Layout) -> Vec<(&'static str, u32)> {
    layout
        .fields()
        .iter()
        .map(|field| (field.name(), field.width()))
        .collect()
}

fn custom(bits: &str) -> Result<Layout, LayoutError> {
    Layout::custom(bits, None, Some(0))
}

// ---- named layouts -------------------------------------------------------------------

/// What a named layout is, as its origin documents it.
struct Documented {
    name: &'static str,
    fields: &'static [(&'static str, u32)],
    unit_ms: Option<u32>,
    epoch: Option<&'static str>,
    signed: bool,
}

#[test]
fn named_layouts_have_the_documented_fields_units_and_epochs() {
    let documented = [
        Documented {
            name: "snowflake",
            fields: &[("time", 41), ("worker", 10), ("sequence", 12)],
            unit_ms: Some(1),
            epoch: Some("1288834974657"),
            signed: true,
        },
        Documented {
            name: "snowflake-dc",
            fields: &[
                ("time", 41),
                ("datacenter", 5),
                ("worker", 5),
                ("sequence", 12),
            ],
            unit_ms: Some(1),
            epoch: Some("2010-11-04T01:42:54.657Z"),
            signed: true,
        },
        Documented {
            name: "discord",
            fields: &[
                ("time", 42),
                ("worker", 5),
                ("process", 5),
                ("increment", 12),
            ],
            unit_ms: Some(1),
            epoch: Some("2015-01-01"),
            signed: false,
        },
        Documented {
            // "Sharding & IDs at Instagram": 41 bits of ms, 13 of logical shard, 10 of
            // sequence; the epoch is the one in the post's PL/pgSQL.
            name: "instagram",
            fields: &[("time", 41), ("shard", 13), ("sequence", 10)],
            unit_ms: Some(1),
            epoch: Some("2011-08-24T21:07:01.721Z"),
            signed: false,
        },
        Documented {
            // lib/mastodon/snowflake.rb: 48 bits of ms since the Unix epoch, 16 of
            // hash-plus-sequence.
            name: "mastodon",
            fields: &[("time", 48), ("sequence", 16)],
            unit_ms: Some(1),
            epoch: Some("1970-01-01"),
            signed: false,
        },
        Documented {
            name: "uid-generator",
            fields: &[("time", 28), ("worker", 22), ("sequence", 13)],
            unit_ms: Some(1000),
            epoch: Some("2016-05-20T00:00:00Z"),
            signed: true,
        },
        Documented {
            name: "uid-generator-dc",
            fields: &[
                ("time", 28),
                ("datacenter", 5),
                ("worker", 17),
                ("sequence", 13),
            ],
            unit_ms: Some(1000),
            epoch: Some("2016-05-20T00:00:00Z"),
            signed: true,
        },
        Documented {
            name: "sonyflake",
            fields: &[("time", 39), ("sequence", 8), ("machine", 16)],
            unit_ms: Some(10),
            epoch: Some("2014-09-01T00:00:00Z"),
            signed: true,
        },
        Documented {
            // sony/sonyflake v2 defaults: BitsSequence 8, BitsMachineID 16, TimeUnit 10 ms,
            // StartTime 2025-01-01 UTC; time takes 63 - 8 - 16 bits.
            name: "sonyflake-v2",
            fields: &[("time", 39), ("sequence", 8), ("machine", 16)],
            unit_ms: Some(10),
            epoch: Some("2025-01-01T00:00:00Z"),
            signed: true,
        },
        Documented {
            // yitter/IdGenerator defaults: BaseTime 1582136402000 (02:20:02 at +08:00),
            // WorkerIdBitLength 6, SeqBitLength 6; time takes the remaining 51 bits.
            name: "yitter",
            fields: &[("time", 51), ("worker", 6), ("sequence", 6)],
            unit_ms: Some(1),
            epoch: Some("2020-02-20T02:20:02+08:00"),
            signed: true,
        },
        Documented {
            // f4b6a3/tsid-creator: 42 bits of ms since 2020-01-01, then 10 worker bits and
            // 12 counter bits by default.
            name: "tsid",
            fields: &[("time", 42), ("node", 10), ("counter", 12)],
            unit_ms: Some(1),
            epoch: Some("2020-01-01"),
            signed: false,
        },
        Documented {
            // Seata's IdWorker: worker above the time, twepoch 1588435200000.
            name: "seata",
            fields: &[("worker", 10), ("time", 41), ("sequence", 12)],
            unit_ms: Some(1),
            epoch: Some("1588435200000"),
            signed: true,
        },
        Documented {
            name: "segment",
            fields: &[("index", 49), ("shard", 6), ("app", 8)],
            unit_ms: None,
            epoch: None,
            signed: true,
        },
    ];
    let all: Vec<Layout> = named_layouts().collect();
    assert_eq!(all.len(), documented.len());
    for (layout, doc) in all.iter().zip(&documented) {
        let name = doc.name;
        assert_eq!(layout.name(), name);
        assert_eq!(widths(layout), doc.fields, "{name}");
        assert_eq!(layout.unit().map(TimeUnit::ms), doc.unit_ms, "{name}");
        assert_eq!(
            layout.epoch_ms(),
            doc.epoch.map(|text| parse_epoch(text).unwrap()),
            "{name}"
        );
        assert_eq!(layout.is_signed(), doc.signed, "{name}");
    }
}

#[test]
fn uid_generator_ran_out_of_time_bits_on_2024_11_20() {
    // 2^28 seconds after 2016-05-20T00:00:00Z; the last second it can hold is 21:24:15.
    let layout = named("uid-generator");
    let end = layout.exhausted_at_ms().unwrap();
    assert_eq!(end, 1_463_702_400_000 + (1 << 28) * 1000);
    assert_eq!(format_timestamp(end), "2024-11-20T21:24:16.000Z");
    let last = layout
        .unit_start_ms(layout.max_time().unwrap() as i64)
        .unwrap();
    assert_eq!(format_timestamp(last), "2024-11-20T21:24:15.000Z");
}

#[test]
fn time_bits_run_out_at_epoch_plus_two_to_the_width_units() {
    let cases = [
        ("snowflake", "2080-07-10T17:30:30.209Z"),
        ("snowflake-dc", "2080-07-10T17:30:30.209Z"),
        ("discord", "2154-05-15T07:35:11.104Z"),
        ("uid-generator-dc", "2024-11-20T21:24:16.000Z"),
        ("sonyflake", "2188-11-16T03:28:58.880Z"),
        ("instagram", "2081-04-30T12:54:37.273Z"),
        ("sonyflake-v2", "2199-03-19T03:28:58.880Z"),
        ("tsid", "2159-05-15T07:35:11.104Z"),
        ("seata", "2090-01-07T07:47:35.552Z"),
    ];
    for (name, end) in cases {
        assert_eq!(
            format_timestamp(named(name).exhausted_at_ms().unwrap()),
            end,
            "{name}"
        );
    }
    assert_eq!(named("segment").exhausted_at_ms(), None);
}

#[test]
fn mastodon_and_yitter_run_out_long_after_the_year_9999() {
    // 2^48 ms after 1970 is in the year 10889; 2^51 ms after 2020 in the year 73376.
    let mastodon = named("mastodon").exhausted_at_ms().unwrap();
    assert_eq!(mastodon, 1 << 48);
    let yitter = named("yitter").exhausted_at_ms().unwrap();
    assert_eq!(yitter, 1_582_136_402_000 + (1 << 51));
    assert_eq!(format_timestamp(mastodon), format!("@{mastodon}ms"));
}

#[test]
fn yitter_lasts_the_71000_years_its_readme_promises() {
    // yitter/IdGenerator README: "在默认配置下，ID可用 71000 年不重复".
    let layout = named("yitter");
    let span_ms = layout.exhausted_at_ms().unwrap() - layout.epoch_ms().unwrap();
    let years = span_ms as f64 / (365.2425 * 86_400_000.0);
    assert!((71_000.0..72_000.0).contains(&years), "{years}");
}

#[test]
fn aliases_are_the_very_same_layout_under_its_own_name() {
    for (alias, name) in [
        ("twitter", "snowflake-dc"),
        ("mybatis-plus", "snowflake-dc"),
        ("leaf", "snowflake"),
        ("Twitter", "snowflake-dc"),
    ] {
        assert_eq!(named(alias), named(name), "{alias}");
        assert_eq!(named(alias).name(), name);
    }
}

#[test]
fn sonyflake_v1_and_v2_differ_only_in_their_epoch() {
    let v1 = named("sonyflake");
    let v2 = named("sonyflake-v2");
    assert_eq!(widths(&v1), widths(&v2));
    assert_ne!(v1.signature(), v2.signature());
    let custom_v2 = Layout::custom(
        "time:39,seq:8,machine:16",
        Some(TimeUnit::from_ms(10).unwrap()),
        Some(parse_epoch("2025-01-01").unwrap()),
    )
    .unwrap();
    assert_eq!(custom_v2, v2);
}

#[test]
fn a_named_layout_moved_to_another_named_layouts_epoch_keeps_its_name() {
    let moved = named("sonyflake")
        .with_epoch_ms(parse_epoch("2025-01-01").unwrap())
        .unwrap();
    assert_eq!(moved.name(), "sonyflake");
    assert_eq!(Layout::from_signature(&moved.signature()), Ok(moved));
}

#[test]
fn instagrams_shard_names_the_issuer_so_instagram_can_be_generated() {
    let layout = named("instagram");
    assert_eq!(layout.field(FieldKind::Shard).unwrap().role(), Role::Worker);
    assert_eq!(layout.worker_bits(), 13);
    assert!(layout.check_generatable().is_ok());
    assert_eq!(
        named("segment").field(FieldKind::Shard).unwrap().role(),
        Role::Segment
    );
}

#[test]
fn seata_puts_the_worker_above_the_time() {
    let layout = named("seata");
    let id = layout
        .compose_parts(Parts {
            time: 5,
            worker: 3,
            sequence: 2,
        })
        .unwrap();
    assert_eq!(id, (3 << 53) | (5 << 12) | 2);
}

#[test]
fn every_named_layout_with_a_time_field_can_be_generated() {
    for layout in named_layouts().filter(|layout| layout.name() != "segment") {
        assert!(layout.check_generatable().is_ok(), "{}", layout.name());
    }
}

#[test]
fn instagrams_worked_example_keeps_its_fields() {
    // Instagram Engineering, "Sharding & IDs at Instagram": 1387263000 ms since the epoch,
    // logical shard 1341, sequence 5001 % 1024 = 905. (The post's own epoch and date do
    // not match its millisecond count, so only the fields are checked.)
    let layout = named("instagram");
    let id = (1_387_263_000u64 << 23) | (1341 << 10) | 905;
    let decoded = layout.decompose(id).unwrap();
    assert_eq!(decoded.get(FieldKind::Time), Some(1_387_263_000));
    assert_eq!(decoded.get(FieldKind::Shard), Some(1341));
    assert_eq!(decoded.get(FieldKind::Sequence), Some(905));
}

#[test]
fn tsid_creators_readme_instant_and_random_part_decode_to_its_instant() {
    // f4b6a3/tsid-creator README: getTime() 9153062458, getRandom() 305516,
    // getInstant() 2020-04-15T22:31:02.458Z.
    let layout = named("tsid");
    let id = (9_153_062_458u64 << 22) | 305_516;
    let decoded = layout.decompose(id).unwrap();
    assert_eq!(
        format_timestamp(decoded.unix_ms.unwrap()),
        "2020-04-15T22:31:02.458Z"
    );
    assert_eq!(decoded.get(FieldKind::Node), Some(305_516 >> 12));
    assert_eq!(decoded.get(FieldKind::Counter), Some(305_516 & 4095));
}

#[test]
fn tsid_text_is_13_crockford_characters_and_reads_back() {
    // f4b6a3/tsid-creator README: a TSID string such as 01226N0640J7Q.
    let read = read_id("01226N0640J7Q", Some(TextForm::Tsid)).unwrap();
    assert_eq!(read.form, IdForm::Text(TextForm::Tsid));
    assert_eq!(TextForm::Tsid.format(read.id), "01226N0640J7Q");
    let decoded = named("tsid").decompose(read.id).unwrap();
    assert_eq!(decoded.text.as_deref(), Some("01226N0640J7Q"));
    // Lower case, and Crockford's O, I and L for 0, 1 and 1.
    assert_eq!(
        read_id("o1226n064oj7q", Some(TextForm::Tsid)).unwrap().id,
        read.id
    );
    assert_eq!(
        read_id("0I226N0640J7Q", Some(TextForm::Tsid)).unwrap().id,
        read.id
    );
}

/// decode prints TSID strings that begin `0X` (Crockford's X): they read
/// back as themselves, not as hexadecimal; hex of a TSID's length is written
/// with a leading zero (found by fuzzing).
#[test]
fn a_tsid_string_that_begins_0x_reads_back_as_itself() {
    let id = (29_u64 << 55) | 12345; // 29 is Crockford's X
    let text = TextForm::Tsid.format(id);
    assert!(text.starts_with("0X"), "{text}");
    let read = read_id(&text, Some(TextForm::Tsid)).unwrap();
    assert_eq!((read.id, read.form), (id, IdForm::Text(TextForm::Tsid)));
    let hex = read_id("0x02701640065D", Some(TextForm::Tsid)).unwrap();
    assert_eq!((hex.id, hex.form), (0x2701640065D, IdForm::Hex));
    assert_eq!(read_id("0X2701640065D", None).unwrap().form, IdForm::Hex);
}

#[test]
fn tsid_text_beyond_64_bits_is_too_large() {
    assert!(matches!(
        read_id("G000000000000", Some(TextForm::Tsid)),
        Err(LayoutError::IdTooLarge { .. })
    ));
    assert_eq!(
        read_id("FZZZZZZZZZZZZ", Some(TextForm::Tsid)).unwrap().id,
        u64::MAX
    );
}

#[test]
fn tsid_text_is_only_read_for_a_layout_that_has_it() {
    assert!(matches!(
        read_id("01226N0640J7Q", None),
        Err(LayoutError::NotANumber { .. })
    ));
    assert_eq!(named("snowflake").text_form(), None);
    assert_eq!(named("tsid").text_form(), Some(TextForm::Tsid));
}

#[test]
fn exhaustion_moves_with_the_epoch() {
    let layout = named("uid-generator")
        .with_epoch_ms(parse_epoch("2016-05-20T00:00:00+08:00").unwrap())
        .unwrap();
    assert_eq!(
        format_timestamp(layout.exhausted_at_ms().unwrap()),
        "2024-11-20T13:24:16.000Z"
    );
}

#[test]
fn unknown_layout_names_are_refused_with_the_known_ones_in_the_hint() {
    let err = Layout::named("flickr").unwrap_err();
    assert_eq!(
        err,
        LayoutError::UnknownLayout {
            name: "flickr".into()
        }
    );
    for name in layout_names().chain(["twitter", "leaf"]) {
        assert!(err.hint().contains(name), "{}", err.hint());
    }
}

#[test]
fn segment_has_no_time_field_so_an_epoch_does_not_apply() {
    let err = named("segment").with_epoch_ms(0).unwrap_err();
    assert!(matches!(err, LayoutError::NoTimeField { .. }), "{err}");
}

// ---- worker-ID fields ---------------------------------------------------------------------

#[test]
fn node_value_is_spread_over_node_fields_from_high_to_low() {
    let layout = named("snowflake-dc");
    assert_eq!(layout.worker_bits(), 10);
    assert_eq!(layout.worker_capacity(), 1024);
    let id = layout
        .compose_parts(Parts {
            time: 1,
            worker: 37,
            sequence: 2,
        })
        .unwrap();
    let decoded = layout.decompose(id).unwrap();
    assert_eq!(decoded.get(FieldKind::Datacenter), Some(1));
    assert_eq!(decoded.get(FieldKind::Worker), Some(5));
    assert_eq!(decoded.get(FieldKind::Sequence), Some(2));
}

#[test]
fn fixing_a_node_field_leaves_only_the_other_node_bits_to_lease() {
    let layout = named("snowflake-dc")
        .with_fixed(FieldKind::Datacenter, 3)
        .unwrap();
    assert_eq!(layout.worker_bits(), 5);
    assert_eq!(layout.worker_capacity(), 32);
    let id = layout
        .compose_parts(Parts {
            time: 0,
            worker: 5,
            sequence: 0,
        })
        .unwrap();
    let decoded = layout.decompose(id).unwrap();
    assert_eq!(decoded.get(FieldKind::Datacenter), Some(3));
    assert_eq!(decoded.get(FieldKind::Worker), Some(5));
    let too_large = layout.compose_parts(Parts {
        time: 0,
        worker: 32,
        sequence: 0,
    });
    assert!(matches!(
        too_large,
        Err(LayoutError::WorkerTooLarge {
            worker: 32,
            bits: 5,
            ..
        })
    ));
}

#[test]
fn fixed_fields_are_part_of_the_signature() {
    let plain = named("snowflake-dc");
    let fixed3 = plain.clone().with_fixed(FieldKind::Datacenter, 3).unwrap();
    let fixed4 = plain.clone().with_fixed(FieldKind::Datacenter, 4).unwrap();
    assert_eq!(
        fixed3.signature(),
        "snowflake-dc time:41,datacenter:5=3,worker:5,sequence:12 unit=ms epoch=1288834974657"
    );
    assert_ne!(plain.signature(), fixed3.signature());
    assert_ne!(fixed3.signature(), fixed4.signature());
}

#[test]
fn only_node_fields_can_be_fixed_and_only_with_values_that_fit() {
    let layout = named("snowflake-dc");
    assert!(matches!(
        layout.clone().with_fixed(FieldKind::Sequence, 1),
        Err(LayoutError::NotAWorkerField { .. })
    ));
    assert!(matches!(
        layout.clone().with_fixed(FieldKind::Process, 1),
        Err(LayoutError::NoSuchField { .. })
    ));
    assert!(matches!(
        layout.clone().with_fixed(FieldKind::Datacenter, 32),
        Err(LayoutError::ValueTooLarge { max: 31, .. })
    ));
    let fixed = layout.with_fixed(FieldKind::Datacenter, 1).unwrap();
    assert!(matches!(
        fixed.with_fixed(FieldKind::Datacenter, 2),
        Err(LayoutError::AlreadyFixed { value: 1, .. })
    ));
}

#[test]
fn parts_refuses_an_id_made_under_another_fixed_value() {
    let three = named("snowflake-dc")
        .with_fixed(FieldKind::Datacenter, 3)
        .unwrap();
    let four = named("snowflake-dc")
        .with_fixed(FieldKind::Datacenter, 4)
        .unwrap();
    let id = four
        .compose_parts(Parts {
            time: 9,
            worker: 1,
            sequence: 0,
        })
        .unwrap();
    assert!(matches!(
        three.parts(id),
        Err(LayoutError::FixedMismatch {
            found: 4,
            fixed: 3,
            ..
        })
    ));
}

#[test]
fn fixed_fields_parse_from_field_equals_value() {
    assert_eq!(parse_fixed("datacenter=3"), Ok((FieldKind::Datacenter, 3)));
    assert!(matches!(
        parse_fixed("datacenter"),
        Err(LayoutError::BadFixed { .. })
    ));
    assert_eq!(
        parse_fixed("rack=1"),
        Ok((FieldKind::parse("rack").unwrap(), 1))
    );
    assert!(matches!(
        parse_fixed("9rack=1"),
        Err(LayoutError::BadFieldName { .. })
    ));
}

// ---- custom layouts ------------------------------------------------------------------

#[test]
fn custom_fields_matching_a_named_layout_are_that_layout() {
    let layout = Layout::custom(
        "time:41,worker:10,seq:12",
        Some(TimeUnit::MILLISECOND),
        Some(1_288_834_974_657),
    )
    .unwrap();
    assert_eq!(layout.name(), "snowflake");
    assert_eq!(layout.signature(), named("snowflake").signature());
    assert_eq!(layout, named("snowflake"));
}

#[test]
fn custom_fields_with_another_unit_are_a_custom_layout() {
    let layout =
        Layout::custom("time:41,worker:10,seq:12", Some(TimeUnit::SECOND), Some(0)).unwrap();
    assert_eq!(layout.name(), "custom");
    assert_eq!(
        layout.signature(),
        "custom time:41,worker:10,sequence:12 unit=s epoch=0"
    );
}

#[test]
fn custom_layouts_of_64_bits_are_unsigned() {
    let layout = custom("time:44,worker:8,sequence:12").unwrap();
    assert!(!layout.is_signed());
    assert_eq!(layout.max_id(), u64::MAX);
}

#[test]
fn custom_layouts_take_any_field_names() {
    let layout = custom("time:48,rest:16").unwrap();
    assert_eq!(widths(&layout), [("time", 48), ("rest", 16)]);
    let rest = layout.fields()[1].kind();
    assert_eq!(rest.role(), Role::Other);
    let decoded = layout.decompose((7 << 16) | 9).unwrap();
    assert_eq!(decoded.get(rest), Some(9));
    assert_eq!(decoded.unix_ms, Some(7));
    assert_eq!(
        Layout::from_signature(&layout.signature()),
        Ok(layout.clone())
    );
}

#[test]
fn fields_with_names_idgen_does_not_know_are_decoded_but_never_generated() {
    let err = custom("time:41,rack:10,seq:12")
        .unwrap()
        .check_generatable()
        .unwrap_err();
    assert!(err.to_string().contains("rack"), "{err}");
}

#[test]
fn field_names_must_be_words_and_not_taken_by_the_output() {
    for bad in ["time:48,9lives:16", "time:48,re st:16", "time:48,:16"] {
        assert!(
            matches!(
                custom(bad),
                Err(LayoutError::BadFieldName { .. } | LayoutError::BadField { .. })
            ),
            "{bad}"
        );
    }
    let too_long = format!("time:48,{}:16", "a".repeat(33));
    assert!(matches!(
        custom(&too_long),
        Err(LayoutError::BadFieldName { .. })
    ));
    for taken in ["id", "layout", "timestamp", "unix_ms"] {
        assert_eq!(
            custom(&format!("time:48,{taken}:16")),
            Err(LayoutError::ReservedFieldName { name: taken.into() })
        );
    }
}

#[test]
fn custom_layouts_refuse_duplicate_fields() {
    assert_eq!(
        custom("time:21,time:20,worker:10,seq:12").unwrap_err(),
        LayoutError::DuplicateField { field: "time" }
    );
}

#[test]
fn custom_layouts_refuse_two_sequence_fields() {
    assert!(matches!(
        custom("time:41,increment:10,seq:12"),
        Err(LayoutError::TwoSequenceFields { .. })
    ));
}

#[test]
fn custom_layouts_refuse_zero_width_fields() {
    assert_eq!(
        custom("time:51,worker:0,seq:12").unwrap_err(),
        LayoutError::ZeroWidth { field: "worker" }
    );
}

#[test]
fn custom_layouts_refuse_totals_other_than_63_or_64_and_say_how_far_off() {
    let short = custom("time:40,worker:10,seq:12").unwrap_err();
    assert_eq!(short, LayoutError::TotalWidth { total: 62 });
    assert!(short.hint().contains("add 1 bits"), "{}", short.hint());
    let long = custom("time:45,worker:10,seq:12").unwrap_err();
    assert_eq!(long, LayoutError::TotalWidth { total: 67 });
    assert!(long.hint().contains("remove 4 bits"), "{}", long.hint());
}

#[test]
fn custom_layouts_refuse_malformed_parts() {
    for bits in [
        "time41,worker:10,seq:12",
        "time:x,worker:10",
        "time:41,,seq:12",
        "",
    ] {
        assert!(
            matches!(custom(bits), Err(LayoutError::BadField { .. })),
            "{bits:?}"
        );
    }
}

#[test]
fn custom_layouts_with_a_time_field_need_an_epoch() {
    assert_eq!(
        Layout::custom("time:41,worker:10,seq:12", None, None).unwrap_err(),
        LayoutError::EpochNeeded
    );
}

#[test]
fn custom_layouts_without_a_time_field_take_no_epoch_or_unit() {
    let bits = "index:49,shard:6,app:8";
    assert_eq!(Layout::custom(bits, None, None).unwrap().name(), "segment");
    assert!(matches!(
        Layout::custom(bits, None, Some(0)),
        Err(LayoutError::NoTimeField { .. })
    ));
    assert!(matches!(
        Layout::custom(bits, Some(TimeUnit::SECOND), None),
        Err(LayoutError::NoTimeField { .. })
    ));
}

#[test]
fn custom_layouts_refuse_a_time_range_past_what_i64_milliseconds_hold() {
    assert!(matches!(
        Layout::custom("time:60,seq:3", Some(TimeUnit::SECOND), Some(0)),
        Err(LayoutError::TimeRangeTooLarge { .. })
    ));
}

#[test]
fn only_layouts_with_time_sequence_and_node_fields_can_generate() {
    assert!(named("discord").check_generatable().is_ok());
    assert!(named("segment").check_generatable().is_err());
    assert!(
        custom("time:51,worker:12")
            .unwrap()
            .check_generatable()
            .is_err()
    );
    assert!(
        custom("time:41,app:10,seq:12")
            .unwrap()
            .check_generatable()
            .is_err()
    );
}

// ---- units, epochs, IDs --------------------------------------------------------------

#[test]
fn units_parse_and_print_canonically() {
    for (text, ms, canonical) in [
        ("ms", 1, "ms"),
        ("1ms", 1, "ms"),
        ("10ms", 10, "10ms"),
        ("s", 1000, "s"),
        ("1000ms", 1000, "s"),
        ("2s", 2000, "2s"),
        ("1500ms", 1500, "1500ms"),
        (" 10MS ", 10, "10ms"),
    ] {
        let unit = TimeUnit::parse(text).unwrap();
        assert_eq!(unit.ms(), ms, "{text:?}");
        assert_eq!(unit.to_string(), canonical, "{text:?}");
    }
}

#[test]
fn units_refuse_zero_bare_numbers_and_other_suffixes() {
    for text in [
        "0ms",
        "0s",
        "10",
        "ms10",
        "1m",
        "2d",
        "-1s",
        "",
        "1.5s",
        "999999999s",
    ] {
        assert!(
            matches!(TimeUnit::parse(text), Err(LayoutError::BadUnit { .. })),
            "{text:?}"
        );
    }
}

#[test]
fn epochs_parse_from_unix_ms_rfc3339_and_plain_dates() {
    let cases = [
        ("1288834974657", 1_288_834_974_657),
        ("2016-05-20", 1_463_702_400_000),
        ("2016-05-20T00:00:00", 1_463_702_400_000),
        ("2016-05-20T00:00:00Z", 1_463_702_400_000),
        ("2016-05-20T00:00:00+08:00", 1_463_673_600_000),
        ("2016-05-20 00:00:00", 1_463_702_400_000),
        ("2010-11-04T01:42:54.657Z", 1_288_834_974_657),
        ("2010-11-04T01:42:54.657", 1_288_834_974_657),
        ("1969-12-31T23:59:59Z", -1000),
        // A bare number is Unix milliseconds, whatever it looks like.
        ("20160520", 20_160_520),
    ];
    for (text, ms) in cases {
        assert_eq!(parse_epoch(text), Ok(ms), "{text:?}");
    }
}

#[test]
fn epochs_refuse_text_that_is_not_an_instant() {
    for text in [
        "yesterday",
        "2016-13-01",
        "2016-05-20T25:00:00Z",
        "2016-05-20T00:00:00.0005Z",
        "2016-05-20T00:00",
        "",
    ] {
        assert!(
            matches!(parse_epoch(text), Err(LayoutError::BadEpoch { .. })),
            "{text:?}"
        );
    }
}

#[test]
fn time_units_are_counted_from_the_epoch_rounding_down() {
    let layout = named("sonyflake");
    let epoch = layout.epoch_ms().unwrap();
    assert_eq!(layout.time_units_at(epoch), Some(0));
    assert_eq!(layout.time_units_at(epoch + 9), Some(0));
    assert_eq!(layout.time_units_at(epoch + 10), Some(1));
    assert_eq!(layout.time_units_at(epoch - 1), Some(-1));
    assert_eq!(layout.unit_start_ms(3), Some(epoch + 30));
}

#[test]
fn ids_parse_as_unsigned_decimal_or_hexadecimal_integers() {
    assert_eq!(parse_id("175928847299117063"), Ok(175_928_847_299_117_063));
    assert_eq!(parse_id(" 7 "), Ok(7));
    assert_eq!(parse_id("18446744073709551615"), Ok(u64::MAX));
    assert!(matches!(
        parse_id("abc"),
        Err(LayoutError::NotANumber { .. })
    ));
    assert_eq!(parse_id("0x10"), Ok(16));
    assert_eq!(parse_id("0XfF"), Ok(255));
    assert_eq!(parse_id("0x00000000000000000001"), Ok(1));
    assert!(matches!(
        parse_id("0x1_0000_0000_0000_0000"),
        Err(LayoutError::NotANumber { .. })
    ));
    assert!(matches!(
        parse_id("0x10000000000000000"),
        Err(LayoutError::IdTooLarge { .. })
    ));
    assert!(matches!(
        parse_id("0x"),
        Err(LayoutError::NotANumber { .. })
    ));
    assert!(matches!(
        parse_id("-0x5"),
        Err(LayoutError::NegativeId { .. })
    ));
    assert!(matches!(
        parse_id("1e5"),
        Err(LayoutError::NotANumber { .. })
    ));
    assert!(matches!(parse_id(""), Err(LayoutError::NotANumber { .. })));
    assert!(matches!(
        parse_id("-5"),
        Err(LayoutError::NegativeId { .. })
    ));
    assert!(matches!(
        parse_id("18446744073709551616"),
        Err(LayoutError::IdTooLarge { .. })
    ));
}

#[test]
fn a_url_or_path_gives_its_longest_run_of_digits() {
    let link =
        "https://discord.com/channels/81384788765712384/381887113391505410/175928847299117063";
    assert_eq!(
        read_id(link, None),
        Ok(ReadId {
            id: 175_928_847_299_117_063,
            form: IdForm::InUrlOrPath
        })
    );
    let tweet = "https://twitter.com/TwitterDev/status/1050118621198921728?s=20";
    assert_eq!(read_id(tweet, None).unwrap().id, 1_050_118_621_198_921_728);
    // Of equally long runs, the last: message links end with the message.
    assert_eq!(read_id("/channels/111/222", None).unwrap().id, 222);
    assert!(matches!(
        read_id("/users/99999999999999999999999", None),
        Err(LayoutError::IdTooLarge { .. })
    ));
    assert!(matches!(
        read_id("https://example.com/no/digits", None),
        Err(LayoutError::NotANumber { .. })
    ));
    // Without a slash, text around digits is not an ID.
    assert!(matches!(
        read_id("12ab", None),
        Err(LayoutError::NotANumber { .. })
    ));
}

#[test]
fn decompose_refuses_the_sign_bit_in_signed_layouts_only() {
    let id = 1u64 << 63;
    let err = named("snowflake").decompose(id).unwrap_err();
    assert_eq!(
        err,
        LayoutError::SignBitSet {
            id,
            layout: "snowflake".into()
        }
    );
    assert!(err.to_string().contains("9223372036854775808"));
    assert!(named("discord").decompose(id).is_ok());
}

#[test]
fn signatures_parse_back_into_the_same_layout() {
    let layouts = named_layouts().chain([
        named("snowflake-dc")
            .with_fixed(FieldKind::Datacenter, 3)
            .unwrap(),
        custom("time:44,worker:8,sequence:12").unwrap(),
    ]);
    for layout in layouts {
        assert_eq!(Layout::from_signature(&layout.signature()), Ok(layout));
    }
}

#[test]
fn signatures_whose_name_does_not_match_their_fields_are_refused() {
    let text = "discord time:41,worker:10,sequence:12 unit=ms epoch=0";
    assert!(matches!(
        Layout::from_signature(text),
        Err(LayoutError::BadSignature { .. })
    ));
}

// ---- guessing ------------------------------------------------------------------------

fn read_all(texts: &[&str]) -> Vec<ReadId> {
    texts
        .iter()
        .map(|text| read_id(text, Some(TextForm::Tsid)).unwrap())
        .collect()
}

fn window(from: &str, to: &str) -> Window {
    Window {
        from_ms: parse_epoch(from).unwrap(),
        to_ms: parse_epoch(to).unwrap(),
    }
}

fn guessed(texts: &[&str], window: Window) -> Vec<&'static str> {
    guess(&read_all(texts), window)
        .iter()
        .map(|candidate| candidate.layout.name())
        .collect()
}

#[test]
fn a_discord_id_is_guessed_as_discord_inside_a_window_around_its_moment() {
    let names = guessed(&["175928847299117063"], window("2016-04-30", "2016-05-01"));
    assert_eq!(names, ["discord"]);
}

#[test]
fn every_guess_takes_the_ids_apart_under_its_layout() {
    let ids = read_all(&["175928847299117063"]);
    let candidates = guess(&ids, window("2016-04-30", "2016-05-01"));
    let decoded = candidates[0].decode(&ids).next().unwrap();
    assert_eq!(decoded.get(FieldKind::Increment), Some(7));
    assert_eq!(
        format_timestamp(decoded.unix_ms.unwrap()),
        "2016-04-30T11:18:25.796Z"
    );
}

#[test]
fn a_layout_is_guessed_only_if_it_explains_every_id() {
    let now = Window::until_tomorrow(parse_epoch("2026-11-22").unwrap());
    // Mastodon's documented status ID dates under mastodon, a tweet ID does not.
    assert!(guessed(&["103270115826048975"], now).contains(&"mastodon"));
    let both = guessed(&["103270115826048975", "1050118621198921728"], now);
    assert!(!both.contains(&"mastodon"), "{both:?}");
}

#[test]
fn a_moment_at_the_epoch_or_more_than_a_day_ahead_is_not_plausible() {
    let now = parse_epoch("2016-04-28T11:18:25.796Z").unwrap();
    // Every layout puts a small number at its epoch.
    assert!(guessed(&["5"], Window::until_tomorrow(now)).is_empty());
    // The Discord example lies two days after `now`, then less than a day after.
    let discord = "175928847299117063";
    assert!(!guessed(&[discord], Window::until_tomorrow(now)).contains(&"discord"));
    let day_later = now + 86_400_000;
    assert!(guessed(&[discord], Window::until_tomorrow(day_later)).contains(&"discord"));
}

#[test]
fn tsid_text_is_guessed_only_as_tsid() {
    let now = Window::until_tomorrow(parse_epoch("2026-11-22").unwrap());
    assert_eq!(guessed(&["01226N0640J7Q"], now), ["tsid"]);
}

#[test]
fn guesses_are_ranked_by_how_few_ids_fit_the_window() {
    let now = Window::until_tomorrow(parse_epoch("2026-11-22").unwrap());
    let candidates = guess(&read_all(&["1541815603606036480"]), now);
    assert!(candidates.len() > 1);
    assert!(
        candidates
            .windows(2)
            .all(|pair| pair[0].window_bits <= pair[1].window_bits)
    );
}

#[test]
fn no_ids_give_no_guesses() {
    assert!(guess(&[], Window::until_tomorrow(0)).is_empty());
}

// ---- properties ----------------------------------------------------------------------

/// Random field kinds in random order: any subset, at most one sequence field.
fn any_kinds() -> impl Strategy<Value = Vec<FieldKind>> {
    prop_oneof![Just(FieldKind::Sequence), Just(FieldKind::Increment)].prop_flat_map(|sequence| {
        let candidates: Vec<FieldKind> = FieldKind::ALL
            .into_iter()
            .filter(|kind| kind.role() != Role::Sequence || *kind == sequence)
            .collect();
        proptest::sample::subsequence(candidates, 1..=6).prop_shuffle()
    })
}

/// Random kinds a generator can fill: time, one sequence field, some worker-ID fields.
fn generatable_kinds() -> impl Strategy<Value = Vec<FieldKind>> {
    let nodes = [
        FieldKind::Worker,
        FieldKind::Datacenter,
        FieldKind::Process,
        FieldKind::Machine,
    ];
    let sequence = prop_oneof![Just(FieldKind::Sequence), Just(FieldKind::Increment)];
    (
        sequence,
        proptest::sample::subsequence(nodes.to_vec(), 0..=4),
    )
        .prop_flat_map(|(sequence, nodes)| {
            let mut kinds = vec![FieldKind::Time, sequence];
            kinds.extend(nodes);
            Just(kinds).prop_shuffle()
        })
}

/// Random custom layouts of the given kinds: random widths adding up to 63 or 64, a random
/// unit and epoch.
fn custom_layouts(kinds: impl Strategy<Value = Vec<FieldKind>>) -> impl Strategy<Value = Layout> {
    (kinds, prop_oneof![Just(63u32), Just(64u32)])
        .prop_flat_map(|(kinds, total)| {
            let cuts =
                proptest::sample::subsequence((1..total).collect::<Vec<_>>(), kinds.len() - 1);
            let unit = prop_oneof![Just(1u32), Just(10), Just(1000)];
            (
                Just(kinds),
                Just(total),
                cuts,
                unit,
                0i64..2_000_000_000_000,
            )
        })
        .prop_filter_map(
            "time range fits i64 ms",
            |(kinds, total, cuts, unit, epoch)| {
                let mut bounds = vec![0];
                bounds.extend(cuts);
                bounds.push(total);
                let bits: Vec<String> = kinds
                    .iter()
                    .zip(bounds.windows(2))
                    .map(|(kind, pair)| format!("{}:{}", kind.name(), pair[1] - pair[0]))
                    .collect();
                let has_time = kinds.contains(&FieldKind::Time);
                let unit = has_time.then(|| TimeUnit::from_ms(unit).unwrap());
                Layout::custom(&bits.join(","), unit, has_time.then_some(epoch)).ok()
            },
        )
}

fn any_layout() -> impl Strategy<Value = Layout> {
    let named: Vec<Layout> = named_layouts().collect();
    prop_oneof![proptest::sample::select(named), custom_layouts(any_kinds())]
}

fn any_generatable_layout() -> impl Strategy<Value = Layout> {
    let named: Vec<Layout> = named_layouts()
        .filter(|layout| layout.check_generatable().is_ok())
        .collect();
    prop_oneof![
        proptest::sample::select(named),
        custom_layouts(generatable_kinds())
    ]
}

/// A value for a field, often at its edges.
fn field_value(max: u64) -> impl Strategy<Value = u64> {
    prop_oneof![Just(0), Just(max), 0..=max]
}

fn layout_and_values() -> impl Strategy<Value = (Layout, Vec<(FieldKind, u64)>)> {
    any_layout().prop_flat_map(|layout| {
        let values: Vec<_> = layout
            .fields()
            .iter()
            .map(|field| (Just(field.kind()), field_value(field.max())))
            .collect();
        (Just(layout), values)
    })
}

/// A named layout with a time field, a "now" while it has time bits left, and an ID it
/// could have made between its epoch and then.
fn layout_now_and_plausible_id() -> impl Strategy<Value = (Layout, i64, u64)> {
    let timed: Vec<Layout> = named_layouts()
        .filter(|layout| layout.epoch_ms().is_some())
        .collect();
    proptest::sample::select(timed)
        .prop_flat_map(|layout| {
            let first = layout.unit_start_ms(1).unwrap();
            let last = layout.exhausted_at_ms().unwrap() - 1;
            (Just(layout), first..=last.min(4_000_000_000_000))
        })
        .prop_flat_map(|(layout, now)| {
            let newest = layout.time_units_at(now).unwrap() as u64;
            let values: Vec<_> = layout
                .fields()
                .iter()
                .map(|field| match field.kind() {
                    FieldKind::Time => (Just(field.kind()), (1..=newest).boxed()),
                    kind => (Just(kind), field_value(field.max()).boxed()),
                })
                .collect();
            (Just(layout), Just(now), values)
        })
        .prop_map(|(layout, now, values)| {
            let id = layout.compose(&values).unwrap();
            (layout, now, id)
        })
}

fn layout_and_id() -> impl Strategy<Value = (Layout, u64)> {
    any_layout().prop_flat_map(|layout| {
        let max = layout.max_id();
        (Just(layout), field_value(max))
    })
}

fn generatable_layout_and_parts() -> impl Strategy<Value = (Layout, Parts)> {
    any_generatable_layout()
        .prop_flat_map(|layout| {
            // Fix the first worker-ID field, if any, to a random value.
            let first_node = layout.worker_fields().next().map(|f| (f.kind(), f.max()));
            let fixed = match first_node {
                Some((kind, max)) => (Just(Some(kind)), field_value(max)).boxed(),
                None => (Just(None), Just(0)).boxed(),
            };
            (Just(layout), fixed, any::<bool>())
        })
        .prop_flat_map(|(layout, (kind, value), fix)| {
            let layout = match (kind, fix) {
                (Some(kind), true) => layout.with_fixed(kind, value).unwrap(),
                _ => layout,
            };
            let time = layout.max_time().unwrap();
            let sequence = layout
                .fields()
                .iter()
                .find(|f| f.kind().role() == Role::Sequence)
                .unwrap()
                .max();
            let worker = layout.worker_capacity() - 1;
            let parts = (
                field_value(time),
                field_value(worker),
                field_value(sequence),
            )
                .prop_map(|(time, worker, sequence)| Parts {
                    time,
                    worker,
                    sequence,
                });
            (Just(layout), parts)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn composing_then_decomposing_gives_back_every_field((layout, values) in layout_and_values()) {
        let id = layout.compose(&values).unwrap();
        prop_assert!(id <= layout.max_id());
        let decoded = layout.decompose(id).unwrap();
        prop_assert_eq!(decoded.values, values);
    }

    #[test]
    fn decomposing_any_valid_id_recomposes_to_the_same_id((layout, id) in layout_and_id()) {
        let decoded = layout.decompose(id).unwrap();
        prop_assert_eq!(layout.compose(&decoded.values).unwrap(), id);
        if let (Some(time), Some(unix_ms)) = (decoded.get(FieldKind::Time), decoded.unix_ms) {
            prop_assert_eq!(layout.time_units_at(unix_ms), Some(time as i64));
        }
    }

    #[test]
    fn values_too_large_for_their_field_are_refused(
        (layout, values) in layout_and_values(),
        which in any::<prop::sample::Index>(),
        excess in 1u64..=u64::MAX,
    ) {
        let i = which.index(values.len());
        let field = &layout.fields()[i];
        prop_assume!(field.max() < u64::MAX);
        let mut values = values;
        values[i].1 = field.max().saturating_add(excess);
        let err = layout.compose(&values).unwrap_err();
        let is_value_too_large = matches!(err, LayoutError::ValueTooLarge { field: name, .. } if name == field.name());
        prop_assert!(is_value_too_large, "{err}");
    }

    #[test]
    fn ids_with_the_sign_bit_are_refused_by_signed_layouts(
        layout in any_layout(),
        low in 0u64..(1 << 63),
    ) {
        let id = (1 << 63) | low;
        prop_assert_eq!(layout.decompose(id).is_err(), layout.is_signed());
    }

    #[test]
    fn generator_parts_round_trip_through_an_id((layout, parts) in generatable_layout_and_parts()) {
        let id = layout.compose_parts(parts).unwrap();
        prop_assert_eq!(layout.parts(id).unwrap(), parts);
    }

    #[test]
    fn generator_parts_past_their_field_are_refused((layout, parts) in generatable_layout_and_parts()) {
        let over_time = Parts { time: layout.max_time().unwrap() + 1, ..parts };
        prop_assert!(layout.compose_parts(over_time).is_err());
        if layout.worker_bits() < 64 {
            let over_worker = Parts { worker: layout.worker_capacity(), ..parts };
            prop_assert!(layout.compose_parts(over_worker).is_err());
        }
    }

    #[test]
    fn every_named_layout_composes_and_decomposes(raw in prop::array::uniform4(field_value(u64::MAX))) {
        for layout in named_layouts() {
            // Each field takes the low bits of one random value, so edges come up too.
            let values: Vec<(FieldKind, u64)> = layout
                .fields()
                .iter()
                .zip(raw)
                .map(|(field, raw)| (field.kind(), raw & field.max()))
                .collect();
            let id = layout.compose(&values).unwrap();
            let decoded = layout.decompose(id).unwrap();
            prop_assert_eq!(&decoded.values, &values, "{}", layout.name());
            prop_assert_eq!(layout.compose(&decoded.values).unwrap(), id);
        }
    }

    #[test]
    fn the_layout_that_made_an_id_is_always_among_the_guesses(
        (layout, now, id) in layout_now_and_plausible_id(),
    ) {
        let form = match layout.text_form() {
            Some(form) => IdForm::Text(form),
            None => IdForm::Decimal,
        };
        let names: Vec<&str> = guess(&[ReadId { id, form }], Window::until_tomorrow(now))
            .iter()
            .map(|candidate| candidate.layout.name())
            .collect();
        prop_assert!(names.contains(&layout.name()), "{} not in {:?}", layout.name(), names);
    }

    #[test]
    fn tsid_text_round_trips_every_64_bit_value(id in any::<u64>()) {
        let text = TextForm::Tsid.format(id);
        prop_assert_eq!(text.len(), 13);
        let read = read_id(&text, Some(TextForm::Tsid)).unwrap();
        prop_assert_eq!(read.id, id);
    }

    #[test]
    fn decimal_and_hexadecimal_read_the_same_id(id in any::<u64>()) {
        prop_assert_eq!(parse_id(&id.to_string()), Ok(id));
        prop_assert_eq!(parse_id(&format!("0x{id:x}")), Ok(id));
        prop_assert_eq!(parse_id(&format!("https://example.com/items/{id}")), Ok(id));
    }

    #[test]
    fn signatures_round_trip_and_tell_layouts_apart(a in any_layout(), b in any_layout()) {
        prop_assert_eq!(Layout::from_signature(&a.signature()).unwrap(), a.clone());
        prop_assert_eq!(a.signature() == b.signature(), a == b);
    }
}
