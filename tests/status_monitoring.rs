//! `status --check` (the Nagios plugin convention) and `status --format
//! prometheus`, parsed and checked here rather than by `promtool`.

use crate::harness::{Test, TestEnv, limit_with_last_index};
use idgen::exit_code::{self, nagios};
use std::collections::{BTreeMap, BTreeSet};

/// One `status --check` line: its state word, the text and the perfdata.
fn check(env: &TestEnv, args: &[&str]) -> (i32, String, String, String) {
    let run = Test::within(env)
        .args(["status", "--check"])
        .args(args.iter().copied())
        .run();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one summary line: {run}");
    let (text, perf) = lines[0].split_once(" | ").unwrap_or((lines[0], ""));
    let rest = text
        .strip_prefix("IDGEN ")
        .unwrap_or_else(|| panic!("{run}"));
    let (state, summary) = rest.split_once(" - ").unwrap();
    (
        run.code(),
        state.to_string(),
        summary.to_string(),
        perf.to_string(),
    )
}

/// Every perfdata item is `'label'=value[unit];warn;crit;min;max` or a prefix of it.
fn assert_perfdata(perf: &str) {
    for item in perf.split(' ') {
        let (label, data) = item.rsplit_once('=').unwrap_or_else(|| panic!("{item:?}"));
        assert!(!label.is_empty() && !label.contains(' '), "{item:?}");
        let fields: Vec<&str> = data.split(';').collect();
        assert!(fields.len() <= 5, "{item:?}");
        let value = fields[0].trim_end_matches(['%', 's']);
        assert!(value.parse::<f64>().is_ok(), "{item:?}");
        for threshold in &fields[1..3.min(fields.len())] {
            // A range: `N` alerts above N, `N:` below it (the plugin guidelines).
            let bound = threshold.strip_suffix(':').unwrap_or(threshold);
            assert!(
                threshold.is_empty() || bound.parse::<f64>().is_ok(),
                "{item:?}"
            );
        }
        for limit in fields.iter().skip(3) {
            assert!(limit.is_empty() || limit.parse::<f64>().is_ok(), "{item:?}");
        }
    }
}

#[test]
fn check_exits_by_the_nagios_convention_for_every_severity() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    env.ok(&["lease", "--count", "1"]);

    let (code, state, summary, perf) = check(&env, &[]);
    assert_eq!((code, state.as_str()), (0, "OK"), "{summary}");
    assert!(perf.contains("'app_1_min_stock'=100;"), "{perf}");
    // Low is bad for these: their thresholds are ranges that alert below.
    assert!(perf.contains("ledger_up=1;;1:;0;1"), "{perf}");
    assert!(perf.contains("nodes_up=1;1:;1:;0;1"), "{perf}");
    assert!(
        perf.contains("'ns_default_workers_free'=1024;103:;1:;0;1024"),
        "{perf}"
    );
    assert_perfdata(&perf);

    // Warning: one app never stocked.
    env.ok(&["init-app", "--app", "2", "--name", "fresh"]);
    let (code, state, summary, perf) = check(&env, &[]);
    assert_eq!((code, state.as_str()), (1, "WARNING"), "{summary}");
    assert!(summary.starts_with("1 warning: app 2 (fresh)"), "{summary}");
    assert_perfdata(&perf);

    // Critical outranks the warning, and is named first.
    env.write_config("[snowflake]\nlayout = \"uid-generator\"\n");
    let (code, state, summary, _) = check(&env, &[]);
    assert_eq!((code, state.as_str()), (2, "CRITICAL"), "{summary}");
    assert!(
        summary.starts_with("1 critical, 1 warning: the default layout"),
        "{summary}"
    );

    // Unknown: the check could not run at all.
    let (code, state, summary, _) = check(&env, &["--idle", "1.5"]);
    assert_eq!((code, state.as_str()), (3, "UNKNOWN"), "{summary}");
    assert!(summary.contains("not between 0 and 1"), "{summary}");
    env.write_config("this is = = not toml\n");
    let (code, state, _, _) = check(&env, &[]);
    assert_eq!((code, state.as_str()), (3, "UNKNOWN"));
}

/// A check that cannot even parse its arguments is UNKNOWN (3), not a usage
/// error (2), which Nagios would read as CRITICAL.
#[test]
fn a_usage_error_under_check_is_unknown() {
    let env = TestEnv::distributed();
    for bad in [&["--warn-stock", "abc"][..], &["--no-such-flag"]] {
        let run = Test::within(&env)
            .args(["status", "--check"])
            .args(bad)
            .status(nagios::UNKNOWN)
            .run();
        assert!(run.stdout.starts_with("IDGEN UNKNOWN - "), "{run}");
    }
}

#[test]
fn check_is_unknown_when_only_reading_failed() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    // Stock of the wrong type cannot be read: the app's state is unknown.
    let mut conn = env.redis();
    let _: () = redis::cmd("DEL")
        .arg(crate::harness::keys::queue(1, 3))
        .query(&mut conn)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg(crate::harness::keys::queue(1, 3))
        .arg("x")
        .query(&mut conn)
        .unwrap();
    let (code, state, summary, _) = check(&env, &[]);
    assert_eq!((code, state.as_str()), (3, "UNKNOWN"), "{summary}");
}

/// A sample of the text exposition format.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Parses the Prometheus text exposition format strictly enough to stand in
/// for `promtool check metrics`: valid names, HELP and TYPE once per family and
/// before its samples, families not interleaved, escaped label values, no
/// duplicate series, numeric values.
fn parse_exposition(text: &str) -> Vec<Sample> {
    let name_ok = |n: &str| {
        let mut chars = n.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    };
    let mut samples = Vec::new();
    let mut helped = BTreeSet::new();
    let mut typed = BTreeSet::new();
    let mut finished: BTreeSet<String> = BTreeSet::new();
    let mut current: Option<String> = None;
    let mut series = BTreeSet::new();
    assert!(text.ends_with('\n'), "the exposition ends with a newline");
    for line in text.lines() {
        assert!(!line.is_empty(), "no blank lines");
        if let Some(rest) = line.strip_prefix("# ") {
            let (keyword, rest) = rest.split_once(' ').unwrap();
            let (name, value) = rest.split_once(' ').unwrap();
            assert!(name_ok(name), "{line}");
            if current.as_deref() != Some(name)
                && let Some(done) = current.replace(name.to_string())
            {
                finished.insert(done);
            }
            assert!(!finished.contains(name), "family {name} is split: {line}");
            match keyword {
                "HELP" => assert!(helped.insert(name.to_string()), "second HELP: {line}"),
                "TYPE" => {
                    assert!(typed.insert(name.to_string()), "second TYPE: {line}");
                    assert!(
                        ["counter", "gauge", "histogram", "summary", "untyped"].contains(&value),
                        "{line}"
                    );
                }
                other => panic!("unknown comment {other}: {line}"),
            }
            continue;
        }
        let (series_text, value) = line.rsplit_once(' ').unwrap();
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("value: {line}"));
        let (name, labels) = match series_text.split_once('{') {
            Some((name, labels)) => (name, parse_labels(labels.strip_suffix('}').unwrap(), line)),
            None => (series_text, BTreeMap::new()),
        };
        assert!(name_ok(name), "{line}");
        assert_eq!(
            current.as_deref(),
            Some(name),
            "sample outside its family: {line}"
        );
        assert!(typed.contains(name) && helped.contains(name), "{line}");
        assert!(
            series.insert((name.to_string(), labels.clone())),
            "duplicate series: {line}"
        );
        samples.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    samples
}

fn parse_labels(text: &str, line: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let mut chars = text.chars().peekable();
    while chars.peek().is_some() {
        let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
        assert!(
            !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{line}"
        );
        assert_eq!(chars.next(), Some('"'), "{line}");
        let mut value = String::new();
        loop {
            match chars
                .next()
                .unwrap_or_else(|| panic!("unterminated: {line}"))
            {
                '"' => break,
                '\\' => match chars.next() {
                    Some('\\') => value.push('\\'),
                    Some('"') => value.push('"'),
                    Some('n') => value.push('\n'),
                    other => panic!("bad escape {other:?}: {line}"),
                },
                '\n' => panic!("raw newline: {line}"),
                c => value.push(c),
            }
        }
        assert!(
            labels.insert(key, value).is_none(),
            "duplicate label: {line}"
        );
        match chars.next() {
            None => break,
            Some(',') => {}
            other => panic!("expected , got {other:?}: {line}"),
        }
    }
    labels
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .unwrap_or_else(|| panic!("no {name} {labels:?}"))
        .value
}

#[test]
fn prometheus_output_parses_and_covers_stock_limits_leases_layouts_and_backends() {
    let env = TestEnv::distributed();
    let limit = limit_with_last_index(1000, 1).to_string();
    env.ok(&[
        "init-app",
        "--app",
        "1",
        "--name",
        "or\"ders\\x",
        "--step",
        "100",
        "--max-limit-id",
        &limit,
    ]);
    env.ok(&["reload-segments"]);
    let mut holder = env.coprocess(&["lease", "--stdin", "--holder", "web-1"], &[]);
    holder.request(1);
    let run = Test::within(&env)
        .args(["status", "--format", "prometheus"])
        .status(exit_code::OK)
        .stdout("# TYPE idgen_app_shard_stock gauge")
        .run();
    let samples = parse_exposition(&run.stdout);
    let app = [("app", "1"), ("name", "or\"ders\\x")];
    assert_eq!(value(&samples, "idgen_app_min_stock", &app), 100.0);
    assert_eq!(
        value(
            &samples,
            "idgen_app_shard_stock",
            &[("app", "1"), ("shard", "63")]
        ),
        100.0
    );
    let shards = samples
        .iter()
        .filter(|s| s.name == "idgen_app_shard_stock")
        .count();
    assert_eq!(shards, 64);
    let used = value(&samples, "idgen_app_limit_used_ratio", &app);
    assert!((0.09..=0.11).contains(&used), "{used}");
    assert_eq!(
        value(
            &samples,
            "idgen_namespace_workers_held",
            &[("namespace", "default")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &samples,
            "idgen_namespace_workers_free",
            &[("namespace", "default")]
        ),
        1023.0
    );
    assert!(
        value(
            &samples,
            "idgen_layout_seconds_left",
            &[("used_by", "default")]
        ) > 365.0 * 86_400.0
    );
    assert_eq!(
        value(&samples, "idgen_backend_up", &[("role", "ledger")]),
        1.0
    );
    assert_eq!(
        value(
            &samples,
            "idgen_backend_up",
            &[("role", "node"), ("name", "main")]
        ),
        1.0
    );
    assert_eq!(value(&samples, "idgen_status_severity", &[]), 0.0);
    assert!(holder.finish().0.success());

    // A backend down is 0, and the severity is the Nagios code.
    env.write_config("[redis.nodes]\ncold = \"redis://127.0.0.1:1/0\"\n");
    let run = Test::within(&env)
        .args(["status", "--format", "prometheus"])
        .status(exit_code::ATTENTION)
        .run();
    let samples = parse_exposition(&run.stdout);
    assert_eq!(
        value(&samples, "idgen_backend_up", &[("name", "cold")]),
        0.0
    );
    assert_eq!(value(&samples, "idgen_status_severity", &[]), 2.0);
}

#[test]
fn prometheus_output_shows_the_last_redis_rollback() {
    use crate::harness::faults::{Persistence, RedisProcess};
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Snapshot);
    let url = redis.url();
    let on_redis = || Test::within(&env).env("IDGEN_REDIS_URL", &url);
    on_redis()
        .args(["init-app", "--app", "7", "--name", "seven"])
        .status(exit_code::OK)
        .run();
    on_redis()
        .arg("reload-segments")
        .status(exit_code::OK)
        .run();
    let snapshot = redis.snapshot("stocked");
    redis.restart_from_snapshot(&snapshot);
    on_redis()
        .args(["reload-segments", "--app", "7"])
        .status(exit_code::OK)
        .run();
    let run = on_redis().args(["status", "--format", "prometheus"]).run();
    let samples = parse_exposition(&run.stdout);
    let when = value(
        &samples,
        "idgen_redis_last_rollback_timestamp_seconds",
        &[("node", "main")],
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!((now - 600.0..=now + 1.0).contains(&when), "{when} vs {now}");
}

#[test]
fn the_exposition_parser_rejects_what_promtool_rejects() {
    let bad = [
        "idgen_x 1\n",                                              // no HELP/TYPE
        "# HELP a x\n# TYPE a gauge\na{l=\"v\"} 1\na{l=\"v\"} 2\n", // duplicate series
        "# HELP a x\n# TYPE a gauge\na 1\n# HELP b x\n# TYPE b gauge\nb 1\na 2\n", // split family
        "# HELP a x\n# TYPE a gauge\na{l=\"v\\q\"} 1\n",            // bad escape
        "# HELP a x\n# TYPE a gauge\na one\n",                      // not a number
    ];
    for text in bad {
        let caught = std::panic::catch_unwind(|| parse_exposition(text));
        assert!(caught.is_err(), "accepted: {text:?}");
    }
}
