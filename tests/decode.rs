//! `idgen decode`, run as a real process: published examples, output formats, bad input.

use crate::harness::{Run, Test};
use idgen::exit_code;

/// `idgen decode ARGS`, to be run.
fn decode(args: &[&str]) -> Test<'static> {
    Test::new().arg("decode").args(args.iter().copied())
}

/// `idgen decode ARGS` reading `stdin`.
fn decode_stdin(args: &[&str], stdin: &str) -> Test<'static> {
    decode(args).stdin(stdin)
}

/// `idgen decode ARGS` on a pseudo-terminal, so stdout is a TTY.
fn decode_on_terminal(args: &str) -> Test<'static> {
    Test::new()
        .arg("decode")
        .args(args.split_whitespace())
        .env("NO_COLOR", "1")
        .env("TERM", "dumb")
        .terminal()
}

fn only_line(run: &Run) -> &str {
    assert_eq!(
        run.code(),
        i32::from(exit_code::OK),
        "stderr: {}",
        run.stderr
    );
    assert_eq!(run.stderr, "");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    lines[0]
}

// ---- examples published by the layouts' owners -----------------------------------------

#[test]
fn discords_documented_example_decodes_to_its_documented_fields() {
    // Discord's API reference, "Snowflakes": 175928847299117063 is
    // 2016-04-30 11:18:25.796 UTC, internal worker 1, process 0, increment 7.
    let run = decode(&["--layout", "discord", "175928847299117063"]).run();
    assert_eq!(
        only_line(&run),
        "175928847299117063 discord 2016-04-30T11:18:25.796Z worker=1 process=0 increment=7"
    );
}

#[test]
fn uid_generators_example_decodes_with_a_plus_eight_epoch() {
    // Seed 003 (Baidu uid-generator): 3200169789968523265 decodes to
    // {"timestamp":"2019-05-02 23:26:39","workerId":"21","sequence":"1"} on a +08:00 server.
    let run = decode(&[
        "--layout",
        "uid-generator",
        "--epoch",
        "2016-05-20T00:00:00+08:00",
        "3200169789968523265",
    ])
    .run();
    assert_eq!(
        only_line(&run),
        "3200169789968523265 uid-generator 2019-05-02T15:26:39.000Z worker=21 sequence=1"
    );
}

#[test]
fn twitters_api_docs_tweet_decodes_to_its_created_at_second() {
    // Twitter API docs, Tweet object: "id": 1050118621198921728 with
    // "created_at": "Wed Oct 10 20:19:24 +0000 2018" (created_at has no milliseconds).
    let line = only_line(&decode(&["1050118621198921728"]).run()).to_string();
    assert_eq!(
        line,
        "1050118621198921728 snowflake 2018-10-10T20:19:24.211Z worker=347 sequence=0"
    );
}

#[test]
fn wikipedias_snowflake_example_decodes_to_its_stated_fields() {
    // Wikipedia, "Snowflake ID": the @Wikipedia tweet 1541815603606036480 is
    // 1656432460.105 (2022-06-28 16:07:40.105 UTC), machine ID 378, sequence 0.
    let run = decode(&["--layout", "snowflake", "1541815603606036480"]).run();
    assert_eq!(
        only_line(&run),
        "1541815603606036480 snowflake 2022-06-28T16:07:40.105Z worker=378 sequence=0"
    );
}

#[test]
fn sonyflake_fields_sit_where_sonys_readme_puts_them() {
    // Sony publishes no decoded ID, only the layout: 39 bits of 10 ms since
    // 2014-09-01T00:00:00Z, then 8 bits of sequence, then 16 bits of machine ID.
    let (time, sequence, machine) = (100u64, 3u64, 0xBEEFu64);
    let id = (time << 24) | (sequence << 16) | machine;
    let run = decode(&["--layout", "sonyflake", &id.to_string()]).run();
    assert_eq!(
        only_line(&run),
        format!("{id} sonyflake 2014-09-01T00:00:01.000Z sequence=3 machine=48879")
    );
}

#[test]
fn mastodons_documented_status_decodes_to_its_creation_time() {
    // Mastodon API docs, Status entity example: "id": "103270115826048975" with
    // "created_at": "2019-12-08T03:48:33.901Z". The ID's time comes from the database's
    // timestamp_id(), 52 ms before Rails stamped created_at.
    let run = decode(&["--layout", "mastodon", "103270115826048975"]).run();
    assert_eq!(
        only_line(&run),
        "103270115826048975 mastodon 2019-12-08T03:48:33.849Z sequence=40911"
    );
}

#[test]
fn yitters_readme_examples_decode_to_one_three_and_five_years_of_running() {
    // yitter/IdGenerator README, "ID示例": IDs after running 1, 3 and 5 years with the
    // default configuration (WorkerId 1 in its examples; sequences start at 11).
    decode(&[
        "--layout",
        "yitter",
        "129053495681099",
        "387750301904971",
        "646093214093387",
    ])
    .status(exit_code::OK)
    .stdout_is(
        "129053495681099 yitter 2021-02-18T10:20:03.094Z worker=1 sequence=11\n\
         387750301904971 yitter 2023-02-19T10:20:03.051Z worker=1 sequence=11\n\
         646093214093387 yitter 2025-02-18T10:20:03.097Z worker=1 sequence=11\n",
    )
    .run();
}

#[test]
fn tsid_creators_readme_strings_share_a_millisecond_until_it_says_it_changed() {
    // f4b6a3/tsid-creator README, "Sequence of TSID strings": eight strings in one
    // millisecond, then "01226N0693HDA < millisecond changed".
    let same = [
        "01226N0640J7K",
        "01226N0640J7M",
        "01226N0640J7N",
        "01226N0640J7P",
        "01226N0640J7Q",
        "01226N0640J7R",
        "01226N0640J7S",
        "01226N0640J7T",
    ];
    let mut args = vec!["--json", "--layout", "tsid"];
    args.extend(same);
    args.push("01226N0693HDA");
    let run = decode(&args).status(exit_code::OK).run();
    let records: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let texts: Vec<&str> = records
        .iter()
        .map(|r| r["tsid"].as_str().unwrap())
        .collect();
    assert_eq!(texts[..8], same);
    let first_ms = &records[0]["unix_ms"];
    assert!(records[..8].iter().all(|r| &r["unix_ms"] == first_ms));
    let counters: Vec<u64> = records[..8]
        .iter()
        .map(|r| r["counter"].as_u64().unwrap())
        .collect();
    assert!(
        counters.windows(2).all(|pair| pair[0] < pair[1]),
        "{counters:?}"
    );
    assert!(records[8]["unix_ms"].as_i64() > first_ms.as_i64());
}

#[test]
fn a_tsid_decodes_the_same_from_its_text_and_its_number() {
    let from_text = decode(&["--layout", "tsid", "01226N0640J7Q"]).run();
    let from_number = decode(&["--layout", "tsid", "38358284406638839"]).run();
    assert_eq!(
        only_line(&from_text),
        "38358284406638839 tsid 2020-04-15T20:22:07.665Z node=4 counter=2295 tsid=01226N0640J7Q"
    );
    assert_eq!(only_line(&from_number), only_line(&from_text));
}

#[test]
fn a_discord_message_link_decodes_its_message_id() {
    // Discord's documented snowflake as the message in a message link.
    let link =
        "https://discord.com/channels/81384788765712384/381887113391505410/175928847299117063";
    let run = decode(&["--layout", "discord", link]).run();
    assert!(only_line(&run).starts_with("175928847299117063 discord 2016-04-30T11:18:25.796Z "));
}

#[test]
fn a_tweet_url_decodes_under_twitter() {
    // Twitter API docs, Tweet object: 1050118621198921728, created Wed Oct 10 20:19:24 2018.
    let url = "https://twitter.com/TwitterDev/status/1050118621198921728";
    let run = decode(&["--layout", "twitter", url]).run();
    assert!(
        only_line(&run).starts_with("1050118621198921728 snowflake-dc 2018-10-10T20:19:24.211Z "),
        "{}",
        run.stdout
    );
}

#[test]
fn verbose_says_when_the_id_was_taken_from_a_url() {
    decode(&[
        "--verbose",
        "--layout",
        "discord",
        "https://discord.com/channels/1/2/175928847299117063",
    ])
    .status(exit_code::OK)
    .stderr("took ID 175928847299117063, the longest run of digits")
    .run();
}

// ---- formats ---------------------------------------------------------------------------

#[test]
fn plain_lines_for_every_named_layout() {
    let mut text = String::new();
    for (layout, id) in [
        ("snowflake", "1541815603606036480"),
        ("snowflake-dc", "1541815603606036480"),
        ("discord", "175928847299117063"),
        ("uid-generator", "3200169789968523265"),
        ("uid-generator-dc", "3200169789968523265"),
        ("sonyflake", "1677967087"),
        ("instagram", "11637205501278089"),
        ("mastodon", "103270115826048975"),
        ("sonyflake-v2", "1677967087"),
        ("yitter", "482769297408197"),
        ("tsid", "38358284406638839"),
        ("seata", "27478567185022977"),
        ("segment", "16400"),
    ] {
        text.push_str(only_line(&decode(&["--layout", layout, id]).run()));
        text.push('\n');
    }
    insta::assert_snapshot!("plain_lines", text);
}

#[test]
fn a_terminal_gets_a_table() {
    let run = decode_on_terminal("--layout discord 175928847299117063 175928847299117064")
        .status(exit_code::OK)
        .run();
    insta::assert_snapshot!("terminal_table", run.stdout);
}

#[test]
fn a_terminal_table_for_a_layout_without_time_has_no_timestamp_column() {
    let run = decode_on_terminal("--layout segment 16400")
        .status(exit_code::OK)
        .run();
    insta::assert_snapshot!("terminal_table_segment", run.stdout);
}

#[test]
fn json_lines_carry_id_layout_time_and_every_field_by_name() {
    let run = decode(&["--json", "--layout", "discord", "175928847299117063"]).run();
    let record: serde_json::Value = serde_json::from_str(only_line(&run)).unwrap();
    assert_eq!(
        record,
        serde_json::json!({
            "id": "175928847299117063",
            "layout": "discord",
            "timestamp": "2016-04-30T11:18:25.796Z",
            "unix_ms": 1462015105796i64,
            "worker": 1,
            "process": 0,
            "increment": 7,
        })
    );
    assert!(only_line(&run).starts_with(r#"{"id":"175928847299117063","layout":"discord","#));
}

#[test]
fn json_lines_for_datacenter_and_machine_layouts_name_those_fields() {
    let run = decode(&["--json", "--layout", "snowflake-dc", "1541815603606036480"]).run();
    let record: serde_json::Value = serde_json::from_str(only_line(&run)).unwrap();
    assert_eq!(record["datacenter"], 11);
    assert_eq!(record["worker"], 26);
    assert_eq!(record["sequence"], 0);
    let run = decode(&["--json", "--layout", "sonyflake", "1677967087"]).run();
    let record: serde_json::Value = serde_json::from_str(only_line(&run)).unwrap();
    assert_eq!(record["machine"], 48879);
    assert_eq!(record["sequence"], 3);
}

#[test]
fn json_lines_for_segment_ids_have_app_shard_and_index_but_no_time() {
    let run = decode(&["--json", "--layout", "segment", "16400"]).run();
    let record: serde_json::Value = serde_json::from_str(only_line(&run)).unwrap();
    assert_eq!(
        record,
        serde_json::json!({"id": "16400", "layout": "segment", "index": 1, "shard": 0, "app": 16})
    );
}

#[test]
fn json_mode_writes_one_object_per_line() {
    let run = decode(&["--json", "1541815603606036480", "1050118621198921728"])
        .status(exit_code::OK)
        .run();
    let ids: Vec<u64> = run
        .stdout
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["id"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(ids, [1541815603606036480, 1050118621198921728]);
}

#[test]
fn json_gives_ids_and_fields_wider_than_53_bits_as_strings() {
    // JavaScript and jq 1.6 read JSON numbers as doubles, exact only up to 2^53.
    let run = decode(&[
        "--json",
        "--bits",
        "time:8,rest:55",
        "--epoch",
        "2024-01-01",
        "9223372036854775807",
    ])
    .status(exit_code::OK)
    .run();
    let value: serde_json::Value = serde_json::from_str(only_line(&run)).unwrap();
    assert_eq!(value["id"], "9223372036854775807");
    assert_eq!(value["rest"], ((1u64 << 55) - 1).to_string());
}

// ---- input -----------------------------------------------------------------------------

#[test]
fn ids_are_read_from_stdin_one_per_line_skipping_blank_lines() {
    let run = decode_stdin(
        &["--layout", "discord"],
        "175928847299117063\n\n   \n  175928847299117064  \r\n",
    )
    .status(exit_code::OK)
    .run();
    let fields: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(fields.len(), 2);
    assert!(fields[1].starts_with("175928847299117064 discord "));
    assert!(fields[1].ends_with("increment=8"));
}

#[test]
fn no_ids_and_a_terminal_on_stdin_is_a_usage_error() {
    decode_on_terminal("")
        .status(exit_code::USAGE)
        .stdout("no IDs given")
        .run();
}

#[test]
fn the_layout_comes_from_idgen_layout_when_no_flag_names_one() {
    let run = Test::new()
        .env("IDGEN_LAYOUT", "discord")
        .args(["decode", "175928847299117063"])
        .run();
    assert!(only_line(&run).contains(" discord "));
}

#[test]
fn bits_override_idgen_layout() {
    let run = Test::new()
        .env("IDGEN_LAYOUT", "discord")
        .args([
            "decode",
            "--bits",
            "time:41,worker:10,seq:12",
            "--epoch",
            "1288834974657",
            "1541815603606036480",
        ])
        .run();
    assert_eq!(
        only_line(&run),
        "1541815603606036480 snowflake 2022-06-28T16:07:40.105Z worker=378 sequence=0"
    );
}

#[test]
fn the_epoch_comes_from_idgen_epoch() {
    let run = Test::new()
        .env("IDGEN_EPOCH", "2016-05-20T00:00:00+08:00")
        .args(["decode", "--layout", "uid-generator", "3200169789968523265"])
        .run();
    assert!(only_line(&run).contains(" 2019-05-02T15:26:39.000Z "));
}

#[test]
fn a_custom_layout_decodes_with_its_own_names_unit_and_epoch() {
    let run = decode(&[
        "--bits",
        "time:31,datacenter:4,machine:8,seq:20",
        "--unit",
        "s",
        "--epoch",
        "2024-01-01",
        &((86_400u64 << 32) | (2 << 28) | (9 << 20) | 5).to_string(),
    ])
    .run();
    assert_eq!(
        only_line(&run),
        format!(
            "{} custom 2024-01-02T00:00:00.000Z datacenter=2 machine=9 sequence=5",
            (86_400u64 << 32) | (2 << 28) | (9 << 20) | 5
        )
    );
}

#[test]
fn hexadecimal_ids_decode_like_their_decimal_value() {
    let hex = decode(&["--layout", "discord", "0x271065ac1020007"]).run();
    let decimal = decode(&["--layout", "discord", "175928847299117063"]).run();
    assert_eq!(only_line(&hex), only_line(&decimal));
}

#[test]
fn a_custom_layout_may_name_its_fields_anything() {
    let run = decode(&[
        "--bits",
        "time:48,rest:16",
        "--epoch",
        "0",
        "103270115826048975",
    ])
    .run();
    assert_eq!(
        only_line(&run),
        "103270115826048975 custom 2019-12-08T03:48:33.849Z rest=40911"
    );
    let run = decode(&[
        "--json",
        "--bits",
        "time:48,rest:16",
        "--epoch",
        "0",
        "65539",
    ])
    .run();
    let record: serde_json::Value = serde_json::from_str(only_line(&run)).unwrap();
    assert_eq!(record["rest"], 3);
}

#[test]
fn twitter_mybatis_plus_and_leaf_are_names_for_existing_layouts() {
    for (alias, name) in [
        ("twitter", "snowflake-dc"),
        ("mybatis-plus", "snowflake-dc"),
        ("leaf", "snowflake"),
    ] {
        let run = decode(&["--layout", alias, "1541815603606036480"]).run();
        assert!(
            only_line(&run).starts_with(&format!("1541815603606036480 {name} ")),
            "{alias}"
        );
    }
}

// ---- bad input -------------------------------------------------------------------------

#[test]
fn fix_is_refused_because_decode_reads_every_field() {
    decode(&["--layout", "snowflake-dc", "--fix", "datacenter=3", "1"])
        .status(exit_code::USAGE)
        .stdout_is("")
        .stderr("--fix datacenter=3")
        .stderr("idgen lease")
        .run();
}

#[test]
fn a_hexadecimal_id_beyond_64_bits_is_reported_by_name_and_the_rest_decoded() {
    let bad = "0x10000000000000000";
    assert_rejected(
        with_one_bad("discord", bad),
        bad,
        "larger than any 64-bit ID",
    );
}

#[test]
fn a_negative_id_is_refused_by_an_unsigned_layout_too() {
    let run = decode(&[
        "--layout",
        "tsid",
        "38358284406638839",
        "-38358284406638839",
    ])
    .status(exit_code::USAGE)
    .stderr("-38358284406638839 is negative")
    .run();
    assert_eq!(run.stdout.lines().count(), 1, "{run}");
}

#[test]
fn tsid_text_is_refused_by_layouts_without_it() {
    decode(&["--layout", "snowflake", "01226N0640J7Q"])
        .status(exit_code::USAGE)
        .stderr("\"01226N0640J7Q\" is not a number")
        .run();
}

/// Decodes one good ID around a bad one.
fn with_one_bad(layout: &str, bad: &str) -> Test<'static> {
    decode(&[
        "--layout",
        layout,
        "175928847299117063",
        bad,
        "175928847299117064",
    ])
}

/// `decode` exits 2 with one error line naming `bad` and saying `problem`, and
/// still decodes the two good IDs.
fn assert_rejected(decode: Test, bad: &str, problem: &str) {
    let run = decode
        .status(exit_code::USAGE)
        .stderr(bad)
        .stderr(problem)
        .run();
    assert_eq!(
        run.stdout.lines().count(),
        2,
        "the good IDs are still decoded: {run}"
    );
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 1, "{run}");
    assert!(errors[0].starts_with("error: "), "{run}");
}

#[test]
fn an_id_that_is_not_a_number_is_reported_and_the_rest_decoded() {
    assert_rejected(with_one_bad("discord", "12ab"), "12ab", "is not a number");
}

#[test]
fn a_negative_id_is_reported_and_the_rest_decoded() {
    assert_rejected(with_one_bad("discord", "-5"), "-5", "negative");
}

#[test]
fn an_id_beyond_64_bits_is_reported_and_the_rest_decoded() {
    let bad = "18446744073709551616";
    assert_rejected(
        with_one_bad("discord", bad),
        bad,
        "larger than any 64-bit ID",
    );
}

#[test]
fn an_id_with_the_sign_bit_in_a_signed_layout_is_reported_and_the_rest_decoded() {
    let bad = "9223372036854775808";
    assert_rejected(with_one_bad("snowflake", bad), bad, "sign bit");
}

#[test]
fn an_id_with_the_top_bit_set_is_fine_in_unsigned_discord() {
    let run = decode(&["--layout", "discord", "9223372036854775808"]).run();
    assert!(only_line(&run).starts_with("9223372036854775808 discord 2084-09-06T15:47:35.552Z "));
}

#[test]
fn bad_ids_on_stdin_are_reported_and_the_rest_decoded() {
    let decode = decode_stdin(
        &["--layout", "discord"],
        "175928847299117063\nnope\n175928847299117064\n",
    );
    assert_rejected(decode, "nope", "is not a number");
}

#[test]
fn every_id_good_exits_zero_and_any_bad_exits_two() {
    decode(&["1541815603606036480"]).status(exit_code::OK).run();
    decode(&["1541815603606036480", "x"])
        .status(exit_code::USAGE)
        .run();
    decode(&["x"]).stdout_is("").run();
}

#[test]
fn an_unknown_layout_is_a_usage_error_listing_the_known_ones() {
    let mut flickr = decode(&["--layout", "flickr", "1"])
        .status(exit_code::USAGE)
        .stdout_is("")
        .stderr("unknown layout \"flickr\"");
    for name in [
        "uid-generator-dc",
        "tsid",
        "seata",
        "twitter",
        "mybatis-plus",
        "leaf",
    ] {
        flickr = flickr.stderr(name);
    }
    flickr.run();
}

#[test]
fn a_custom_layout_without_an_epoch_is_a_usage_error() {
    decode(&["--bits", "time:41,worker:10,seq:12", "1"])
        .status(exit_code::USAGE)
        .stderr("needs an epoch")
        .run();
}

#[test]
fn custom_bits_of_the_wrong_total_are_a_usage_error_saying_how_far_off() {
    decode(&["--bits", "time:40,worker:10,seq:12", "--epoch", "0", "1"])
        .status(exit_code::USAGE)
        .stderr("62 bits")
        .stderr("add 1 bits")
        .run();
}

#[test]
fn an_epoch_for_a_layout_without_time_is_a_usage_error() {
    decode(&["--layout", "segment", "--epoch", "0", "1"])
        .status(exit_code::USAGE)
        .stderr("no time field")
        .run();
}

#[test]
fn a_unit_without_bits_is_a_usage_error() {
    decode(&["--unit", "s", "1"])
        .status(exit_code::USAGE)
        .stderr("--bits")
        .run();
}

#[test]
fn help_lists_layouts_with_epochs_and_exhaustion_and_gives_examples() {
    let mut help = decode(&["--help"]).status(exit_code::OK);
    for expected in [
        "Examples:",
        "idgen decode --layout discord 175928847299117063",
        "epoch 2010-11-04T01:42:54.657Z, runs out 2080-07-10T17:30:30.209Z",
        "epoch 2016-05-20T00:00:00.000Z, runs out 2024-11-20T21:24:16.000Z",
        "epoch 2011-08-24T21:07:01.721Z, runs out 2081-04-30T12:54:37.273Z",
        "epoch 1970-01-01T00:00:00.000Z, runs out around the year 10889",
        "epoch 2025-01-01T00:00:00.000Z, runs out 2199-03-19T03:28:58.880Z",
        "epoch 2020-02-19T18:20:02.000Z, runs out around the year 73376",
        "epoch 2020-01-01T00:00:00.000Z, runs out 2159-05-15T07:35:11.104Z",
        "epoch 2020-05-02T16:00:00.000Z, runs out 2090-01-07T07:47:35.552Z",
        "also called twitter, mybatis-plus",
        "also called leaf",
        "idgen decode --guess",
        "--epoch 2016-05-20T00:00:00+08:00",
        "ID LAYOUT [TIMESTAMP] FIELD=VALUE...",
    ] {
        help = help.stdout(expected);
    }
    help.run();
}

// ---- --guess -----------------------------------------------------------------------------

/// The day Discord's documented snowflake was made.
const DISCORD_DAY: &str = "2016-04-30..2016-05-01";

#[test]
fn guess_lists_each_plausible_layout_with_its_rank_and_fields() {
    let run = decode(&["--guess", "--between", DISCORD_DAY, "175928847299117063"]).run();
    assert_eq!(
        only_line(&run),
        "1 175928847299117063 discord 2016-04-30T11:18:25.796Z worker=1 process=0 increment=7"
    );
}

#[test]
fn guess_without_a_window_takes_epoch_to_a_day_from_now() {
    let run = decode(&["--guess", "175928847299117063"])
        .status(exit_code::OK)
        .run();
    let layouts: Vec<&str> = run
        .stdout
        .lines()
        .map(|line| line.split(' ').nth(2).unwrap())
        .collect();
    assert!(layouts.contains(&"discord"), "{}", run.stdout);
    assert!(layouts.contains(&"snowflake"), "{}", run.stdout);
    let ranks: Vec<&str> = run
        .stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    let expected: Vec<String> = (1..=ranks.len()).map(|i| i.to_string()).collect();
    assert_eq!(ranks, expected);
}

#[test]
fn guess_json_is_one_document_with_ids_as_strings() {
    let run = decode(&[
        "--guess",
        "--json",
        "--between",
        DISCORD_DAY,
        "175928847299117063",
    ])
    .status(exit_code::OK)
    .run();
    let document = run.json();
    assert_eq!(
        document,
        serde_json::json!({"candidates": [{
            "rank": 1,
            "layout": "discord",
            "signature": "discord time:42,worker:5,process:5,increment:12 unit=ms epoch=1420070400000",
            "ids": [{
                "id": "175928847299117063",
                "timestamp": "2016-04-30T11:18:25.796Z",
                "unix_ms": 1462015105796i64,
                "worker": 1,
                "process": 0,
                "increment": 7,
            }],
        }]})
    );
}

#[test]
fn guess_on_a_column_keeps_only_layouts_that_explain_every_id() {
    let mastodon = "103270115826048975";
    decode_stdin(&["--guess"], &format!("{mastodon}\n"))
        .stdout(" mastodon ")
        .run();
    let with_tweet = decode_stdin(&["--guess"], &format!("{mastodon}\n1050118621198921728\n"))
        .status(exit_code::OK)
        .stdout_lacks(" mastodon ")
        .run();
    // Every layout listed shows both IDs.
    for line in with_tweet.stdout.lines() {
        let (rank, layout) = {
            let mut words = line.split(' ');
            (words.next().unwrap(), words.nth(1).unwrap())
        };
        let rows = with_tweet
            .stdout
            .lines()
            .filter(|l| l.starts_with(&format!("{rank} ")) && l.split(' ').nth(2) == Some(layout))
            .count();
        assert_eq!(rows, 2, "{layout}: {}", with_tweet.stdout);
    }
}

/// Eleven tweet IDs of one day: one more than `--guess` decodes under every layout.
fn eleven_tweets() -> String {
    (0..11u64)
        .map(|i| format!("{}\n", 1050118621198921728 + (i << 22)))
        .collect()
}

/// How many lines each rank printed, in rank order.
fn lines_per_rank(stdout: &str) -> Vec<usize> {
    let mut counts: Vec<usize> = Vec::new();
    for line in stdout.lines() {
        let rank: usize = line.split(' ').next().unwrap().parse().unwrap();
        if counts.len() < rank {
            counts.resize(rank, 0);
        }
        counts[rank - 1] += 1;
    }
    counts
}

#[test]
fn guess_of_many_ids_decodes_all_under_the_leading_layout_and_the_first_under_the_rest() {
    let run = decode_stdin(&["--guess"], &eleven_tweets())
        .status(exit_code::OK)
        .stderr("--candidates all decodes all 11 IDs")
        .run();
    let counts = lines_per_rank(&run.stdout);
    assert!(counts.len() > 1, "{}", run.stdout);
    assert_eq!(counts[0], 11, "{}", run.stdout);
    assert!(counts[1..].iter().all(|&n| n == 1), "{}", run.stdout);
}

#[test]
fn candidates_all_decodes_every_id_under_every_layout() {
    let run = decode_stdin(&["--guess", "--candidates", "all"], &eleven_tweets())
        .status(exit_code::OK)
        .stderr_lacks("--candidates all")
        .run();
    let counts = lines_per_rank(&run.stdout);
    assert!(counts.len() > 1, "{}", run.stdout);
    assert!(counts.iter().all(|&n| n == 11), "{}", run.stdout);
}

#[test]
fn guess_json_counts_the_ids_a_lower_candidate_left_out() {
    let run = decode_stdin(
        &["--guess", "--json", "--candidates", "1"],
        &eleven_tweets(),
    )
    .status(exit_code::OK)
    .run();
    let candidates = run.json()["candidates"].as_array().unwrap().clone();
    assert!(candidates.len() > 1);
    assert_eq!(candidates[0]["ids"].as_array().unwrap().len(), 11);
    assert!(candidates[0].get("ids_left_out").is_none());
    for lower in &candidates[1..] {
        assert_eq!(lower["ids"].as_array().unwrap().len(), 1, "{lower}");
        assert_eq!(lower["ids_left_out"], 10, "{lower}");
    }
}

#[test]
fn candidates_is_a_count_from_one_or_all() {
    decode(&["--guess", "--candidates", "0", "175928847299117063"])
        .status(exit_code::USAGE)
        .stderr("give a whole number from 1, or all")
        .run();
}

#[test]
fn guess_reads_tsid_text_as_a_tsid() {
    let run = decode(&["--guess", "01226N0640J7Q"]).run();
    assert_eq!(
        only_line(&run),
        "1 38358284406638839 tsid 2020-04-15T20:22:07.665Z node=4 counter=2295 tsid=01226N0640J7Q"
    );
}

#[test]
fn guess_says_so_and_exits_two_when_no_layout_fits() {
    decode(&["--guess", "5"])
        .status(exit_code::USAGE)
        .stdout_is("")
        .stderr("no named layout dates this ID")
        .stderr("--between")
        .run();
}

#[test]
fn guess_reports_unreadable_ids_and_guesses_from_the_rest() {
    let run = decode(&[
        "--guess",
        "--between",
        DISCORD_DAY,
        "175928847299117063",
        "nope",
    ])
    .status(exit_code::USAGE)
    .stderr("\"nope\" is not a number")
    .run();
    assert!(
        run.stdout.starts_with("1 175928847299117063 discord "),
        "{run}"
    );
}

#[test]
fn between_may_leave_out_an_end() {
    decode(&["--guess", "--between", "2016-04-30..", "175928847299117063"])
        .stdout(" discord ")
        .run();
    decode(&["--guess", "--between", "..2016-04-30", "175928847299117063"])
        .stdout_lacks(" discord ")
        .run();
}

#[test]
fn a_bad_window_is_a_usage_error() {
    for window in ["2016-05-01..2016-04-30", "2016-04-30", "soon..later"] {
        decode(&["--guess", "--between", window, "1"])
            .status(exit_code::USAGE)
            .stderr("--between")
            .run();
    }
}

#[test]
fn between_needs_guess() {
    decode(&["--between", DISCORD_DAY, "175928847299117063"])
        .status(exit_code::USAGE)
        .stderr("--guess")
        .run();
}

#[test]
fn guess_refuses_a_layout_or_an_epoch_but_not_idgen_epoch() {
    decode(&["--guess", "--layout", "discord", "175928847299117063"])
        .status(exit_code::USAGE)
        .stderr("--layout")
        .run();
    decode(&["--guess", "--epoch", "0", "175928847299117063"])
        .status(exit_code::USAGE)
        .stderr("--epoch")
        .run();
    let run = decode(&["--guess", "--between", DISCORD_DAY, "175928847299117063"])
        .env("IDGEN_EPOCH", "0")
        .run();
    assert!(only_line(&run).contains(" discord "));
}

#[test]
fn a_terminal_gets_a_ranked_table_of_guesses() {
    let run = decode_on_terminal(&format!(
        "--guess --between {DISCORD_DAY} 175928847299117063 175928847299117064"
    ))
    .status(exit_code::OK)
    .run();
    insta::assert_snapshot!("terminal_guess_table", run.stdout);
}

#[test]
fn a_terminal_table_for_tsid_shows_the_text_form() {
    let run = decode_on_terminal("--layout tsid 01226N0640J7Q")
        .status(exit_code::OK)
        .run();
    insta::assert_snapshot!("terminal_table_tsid", run.stdout);
}
