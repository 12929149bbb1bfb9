//! The config file: precedence (flags > environment > file > defaults), named nodes,
//! errors that name file, line and key, and passwords that are never shown.

use crate::harness::{Test, TestEnv};
use idgen::exit_code;
use serde_json::Value;

fn node_location(report: &Value, name: &str) -> String {
    report["stores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["role"] == "node" && s["name"] == name)
        .unwrap_or_else(|| panic!("no node {name} in {report}"))["location"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn redis_url_comes_from_the_flag_then_the_environment_then_the_file() {
    let env = TestEnv::distributed();
    // Distinct database numbers tell the layers apart; only the location is compared.
    // (Redis has no database 40 or 41: those nodes are unreachable, which status reports.)
    let file_url = format!("{}40", env.redis_url.trim_end_matches(char::is_numeric));
    env.write_config(&format!("[redis.nodes]\nmain = \"{file_url}\"\n"));
    let env_url = env.redis_url.clone();
    let flag_url = format!("{}41", env.redis_url.trim_end_matches(char::is_numeric));

    let from_file = Test::within(&env)
        .args(["status", "--json"])
        .unset("IDGEN_REDIS_URL")
        .run();
    assert_eq!(
        node_location(&from_file.json(), "main"),
        file_url,
        "{from_file}"
    );

    let from_env = Test::within(&env).args(["status", "--json"]).run();
    assert_eq!(
        node_location(&from_env.json(), "main"),
        env_url,
        "{from_env}"
    );

    let from_flag = Test::within(&env)
        .args(["status", "--json", "--redis", &flag_url])
        .run();
    assert_eq!(
        node_location(&from_flag.json(), "main"),
        flag_url,
        "{from_flag}"
    );

    // Without any of them there is no Redis: a MySQL URL alone is a configuration mistake.
    std::fs::remove_file(env.config_path()).unwrap();
    Test::within(&env)
        .arg("status")
        .unset("IDGEN_REDIS_URL")
        .status(exit_code::USAGE)
        .one_line_error("no Redis URL")
        .run();
}

#[test]
fn layout_comes_from_the_flag_then_the_environment_then_the_file_then_snowflake() {
    let env = TestEnv::distributed();
    let layout_of = |args: &[&str], vars: &[(&str, &str)]| -> String {
        let run = Test::within(&env)
            .args(args.iter().copied())
            .envs(vars)
            .status(exit_code::OK)
            .run();
        run.stdout.split_whitespace().nth(1).unwrap().to_string()
    };
    let id = "175928847299117063";
    assert_eq!(layout_of(&["decode", id], &[]), "snowflake");
    env.write_config("[snowflake]\nlayout = \"sonyflake\"\n");
    assert_eq!(layout_of(&["decode", id], &[]), "sonyflake");
    let with_env = [("IDGEN_LAYOUT", "uid-generator")];
    assert_eq!(layout_of(&["decode", id], &with_env), "uid-generator");
    assert_eq!(
        layout_of(&["decode", id, "--layout", "discord"], &with_env),
        "discord"
    );
}

#[test]
fn the_configured_epoch_applies_to_the_configured_layout() {
    let env = TestEnv::distributed();
    env.write_config("[snowflake]\nlayout = \"discord\"\nepoch = 2020-01-01T00:00:00Z\n");
    // Time 0, worker 0, sequence 1: the epoch itself.
    let run = Test::within(&env)
        .args(["decode", "--json", "1"])
        .status(exit_code::OK)
        .run();
    assert_eq!(run.json()["timestamp"], "2020-01-01T00:00:00.000Z", "{run}");
}

#[test]
fn idle_comes_from_the_flag_then_the_environment_then_the_file_then_0_2() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    // Every shard now holds exactly one step: low at idle 1.0, fine at 0.2.
    let status = |vars: &[(&str, &str)], extra: &[&str]| -> (f64, usize) {
        let mut args = vec!["status", "--json"];
        args.extend(extra);
        let run = Test::within(&env).args(args).envs(vars).run();
        let report = run.json();
        let low = report["apps"][0]["low_shards"].as_array().unwrap().len();
        assert_eq!(run.code(), if low > 0 { 8 } else { 0 }, "{run}");
        (report["idle"].as_f64().unwrap(), low)
    };
    assert_eq!(status(&[], &[]), (0.2, 0));
    env.write_config("[segments]\nidle = 1\n");
    assert_eq!(status(&[], &[]), (1.0, 64));
    assert_eq!(status(&[("IDGEN_IDLE", "0.3")], &[]), (0.3, 0));
    assert_eq!(
        status(&[("IDGEN_IDLE", "0.3")], &["--idle", "1.0"]),
        (1.0, 64)
    );

    // reload-segments reads the same layers.
    let reload = Test::within(&env)
        .args(["reload-segments", "--json"])
        .env("IDGEN_IDLE", "0.3")
        .run();
    assert_eq!(reload.json()["shards_below_threshold"], 0, "{reload}");
    let reload = Test::within(&env).args(["reload-segments", "--json"]).run();
    assert_eq!(reload.json()["shards_below_threshold"], 64, "{reload}");
}

#[test]
fn a_bad_value_in_the_file_is_reported_even_when_a_flag_overrides_it() {
    let env = TestEnv::distributed();
    env.write_config("timeout = \"bogus-but-overridden\"\n[segments]\ndispenser = \"range\"\n");
    // A bad value in the file is reported even when a flag would override it: the
    // file must be right on its own.
    Test::within(&env)
        .args(["decode", "1"])
        .status(exit_code::USAGE)
        .one_line_error("config.toml:1: key timeout:")
        .run();
}

/// A URL with a newline in it (a TOML escape) is shown escaped: the error
/// stays one line (found by fuzzing).
#[test]
fn a_url_with_a_newline_in_the_file_is_named_on_one_line() {
    let env = TestEnv::distributed();
    env.write_config("mysql = \"mysql://u:pw@dbhost:33x/id\\ngen\"\n");
    Test::within(&env)
        .args(["decode", "1"])
        .status(exit_code::USAGE)
        .one_line_error("mysql://***@dbhost:33x/id\\ngen is not a URL")
        .run();
}

#[test]
fn the_dispenser_setting_is_new_apps_default_and_the_recorded_one_is_served() {
    let env = TestEnv::distributed();
    env.write_config("[segments]\ndispenser = \"range\"\n");
    env.ok(&["init-app", "--app", "1", "--name", "ranged"]);
    env.ok(&[
        "init-app",
        "--app",
        "2",
        "--name",
        "queued",
        "--dispenser",
        "queue",
    ]);
    let report = Test::within(&env).args(["status", "--json"]).run().json();
    assert_eq!(report["apps"][0]["dispenser"], "range");
    assert_eq!(report["apps"][1]["dispenser"], "queue");
    // Another host's setting changes no app: every host serves the record.
    let flagged = Test::within(&env)
        .args(["status", "--json", "--dispenser", "queue"])
        .run()
        .json();
    assert_eq!(flagged["apps"][0]["dispenser"], "range");
}

#[test]
fn named_nodes_in_the_file_are_all_configured() {
    let env = TestEnv::distributed();
    env.write_config(&format!(
        "# two nodes\n[redis.nodes]\nmain = \"{}\"\nhot = \"{}\"\n",
        env.redis_url,
        env.redis2_url()
    ));
    let both = Test::within(&env)
        .args(["status", "--json"])
        .unset("IDGEN_REDIS_URL")
        .status(exit_code::OK)
        .run();
    let report = both.json();
    assert_eq!(node_location(&report, "main"), env.redis_url);
    assert_eq!(node_location(&report, "hot"), env.redis2_url());
    let reachable: Vec<bool> = report["stores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reachable"].as_bool().unwrap())
        .collect();
    assert_eq!(reachable, [true, true, true], "{both}");
    assert_eq!(
        report["config_file"].as_str(),
        Some(env.config_path().to_str().unwrap())
    );

    // --redis replaces main only; hot stays.
    let elsewhere = format!("{}40", env.redis_url.trim_end_matches(char::is_numeric));
    let report = Test::within(&env)
        .args(["status", "--json", "--redis", &elsewhere])
        .run()
        .json();
    assert_eq!(node_location(&report, "main"), elsewhere);
    assert_eq!(node_location(&report, "hot"), env.redis2_url());
}

#[test]
fn a_file_named_by_flag_or_environment_is_used_and_must_exist() {
    let env = TestEnv::distributed();
    let path = env.home.path().join("elsewhere.toml");
    std::fs::write(&path, "[snowflake]\nlayout = \"discord\"\n").unwrap();
    let path = path.to_str().unwrap();
    for (args, vars) in [
        (vec!["--config", path, "decode", "1"], vec![]),
        (vec!["decode", "1"], vec![("IDGEN_CONFIG", path)]),
    ] {
        Test::within(&env)
            .args(args)
            .envs(&vars)
            .stdout(" discord ")
            .run();
    }

    let missing = env.home.path().join("missing.toml");
    Test::within(&env)
        .args(["--config", missing.to_str().unwrap(), "decode", "1"])
        .status(exit_code::USAGE)
        .one_line_error("missing.toml")
        .run();

    // A missing default file is fine.
    assert!(!env.config_path().exists());
    Test::within(&env)
        .args(["decode", "1"])
        .status(exit_code::OK)
        .run();
}

#[test]
fn every_kind_of_mistake_names_the_file_line_and_key() {
    let env = TestEnv::distributed();
    let cases: &[(&str, &str, &str)] = &[
        (
            "syntax",
            "timeout = \"5s\"\n\nmysql = \"mysql://db\n",
            ":3: key mysql:",
        ),
        (
            "unknown key",
            "[segments]\nidel = 0.3\n",
            ":2: key segments.idel: unknown key",
        ),
        (
            "unknown section",
            "\n[redis.node]\nmain = \"redis://r\"\n",
            ":2: key redis.node: unknown key",
        ),
        (
            "URL scheme",
            "[redis.nodes]\nmain = \"redis://r\"\nhot = \"http://r2\"\n",
            ":3: key redis.nodes.hot:",
        ),
        (
            "MySQL scheme",
            "mysql = \"postgres://db/x\"\n",
            ":1: key mysql:",
        ),
        ("duration", "\ntimeout = \"soon\"\n", ":2: key timeout:"),
        (
            "idle range",
            "[segments]\nidle = 1.5\n",
            ":2: key segments.idle: 1.5 is not between 0 and 1",
        ),
        (
            "idle type",
            "[segments]\nidle = \"lots\"\n",
            ":2: key segments.idle:",
        ),
        (
            "dispenser",
            "[segments]\ndispenser = \"stack\"\n",
            ":2: key segments.dispenser:",
        ),
        (
            "per-app dispenser, no longer read",
            "[segments.app_dispensers]\n7 = \"range\"\n",
            ":2: key segments.app_dispensers.7: is no longer read",
        ),
        (
            "layout",
            "[snowflake]\nlayout = \"flickr\"\n",
            ":2: key snowflake.layout:",
        ),
        (
            "epoch",
            "[snowflake]\nepoch = \"yesterday\"\n",
            ":2: key snowflake.epoch:",
        ),
        (
            "lease TTL",
            "[snowflake]\nlease_ttl = \"2h\"\n",
            ":2: key snowflake.lease_ttl:",
        ),
        ("wrong type", "store = 5\n", ":1: key store: invalid type"),
    ];
    let path = env.config_path();
    for (_case, text, expected) in cases {
        env.write_config(text);
        let at = format!("{}{expected}", path.display());
        Test::within(&env)
            .args(["decode", "1"])
            .status(exit_code::USAGE)
            .one_line_error(at)
            .run();
    }
}

#[test]
fn passwords_in_the_file_are_never_printed() {
    let env = TestEnv::distributed();
    const SECRET: &str = "s3cr3t-Pa55";
    let unreachable = format!("redis://:{SECRET}@127.0.0.1:1/0");
    let mysql = format!("mysql://root:{SECRET}@127.0.0.1:1/idgen");
    fn secret_kept(test: Test<'_>) -> Test<'_> {
        test.stdout_lacks(SECRET).stderr_lacks(SECRET)
    }

    // Reported by status, in both forms, and in the errors of commands that fail.
    env.write_config(&format!(
        "mysql = \"{mysql}\"\n[redis.nodes]\nmain = \"{}\"\nhot = \"{unreachable}\"\n",
        env.redis_url
    ));
    let unset = ["IDGEN_REDIS_URL", "IDGEN_MYSQL_URL"];
    for args in [
        &["status", "--json"][..],
        &["status"],
        &["-v", "next", "--app", "1"],
        &["init-app", "--app", "1", "--name", "x"],
    ] {
        let run = unset
            .iter()
            .fold(secret_kept(Test::within(&env).args(args)), |t, name| {
                t.unset(name)
            })
            .run();
        assert!(!run.success(), "{run}");
    }

    // Mistakes in the file: the value is quoted back without its password.
    for text in [
        format!("redis = \"{unreachable}\"\n"),
        format!("[redis.nodes]\nmain = \"http://u:{SECRET}@r\"\n"),
        format!("[redis.nodes]\nmain = \"{unreachable}\n"),
        format!("[segments]\nidle = \"{mysql}\"\n"),
        format!("mysql = \"mysql://root:{SECRET}@[::1\"\n"),
    ] {
        env.write_config(&text);
        secret_kept(Test::within(&env).args(["decode", "1"]))
            .status(exit_code::USAGE)
            .one_line_error("")
            .run();
    }
}

#[test]
fn empty_environment_variables_count_as_unset() {
    let env = TestEnv::embedded();
    let empty = [
        "IDGEN_REDIS_URL",
        "IDGEN_MYSQL_URL",
        "IDGEN_REDIS_NODES",
        "IDGEN_REDIS_PASSWORD",
        "IDGEN_REDIS_PASSWORD_FILE",
        "IDGEN_MYSQL_PASSWORD",
        "IDGEN_MYSQL_PASSWORD_FILE",
        "IDGEN_CONFIG",
        "IDGEN_DISPENSER",
        "IDGEN_TIMEOUT",
        "IDGEN_IDLE",
        "IDGEN_LAYOUT",
        "IDGEN_EPOCH",
        "IDGEN_NAMESPACE",
    ];
    let vars: Vec<(&str, &str)> = empty
        .iter()
        .enumerate()
        // Docker writes `VAR=`; some env files hold a blank.
        .map(|(i, name)| (*name, if i % 2 == 0 { "" } else { "  " }))
        .collect();
    for args in [
        &["init-app", "--app", "1", "--name", "one"][..],
        &["next", "--app", "1"],
        &["reload-segments", "--quiet"],
        &["status", "--json"],
        &["decode", "175928847299117063"],
        &["lease", "--count", "1"],
        &["inspect-freelist"],
    ] {
        Test::within(&env)
            .args(args)
            .envs(&vars)
            .status(exit_code::OK)
            .run();
    }
}

#[test]
fn a_bad_value_from_the_environment_names_the_variable() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    for (var, value, args) in [
        ("IDGEN_TIMEOUT", "soon", &["status"][..]),
        ("IDGEN_IDLE", "lots", &["status"]),
        ("IDGEN_IDLE", "2", &["reload-segments"]),
        ("IDGEN_DISPENSER", "stack", &["next", "--app", "1"]),
        ("IDGEN_REDIS_NODES", "no-equals-sign", &["status"]),
        ("IDGEN_LAYOUT", "flickr", &["decode", "1"]),
        ("IDGEN_EPOCH", "someday", &["decode", "1"]),
        ("IDGEN_EPOCH", "someday", &["lease", "--count", "1"]),
    ] {
        Test::within(&env)
            .args(args)
            .env(var, value)
            .status(exit_code::USAGE)
            .one_line_error(var)
            .run();
    }
    // From a flag, the flag is named.
    Test::within(&env)
        .args(["--timeout", "soon", "status"])
        .status(exit_code::USAGE)
        .one_line_error("--timeout")
        .run();

    // Server URLs too, without showing a value that is no URL at all.
    let servers = TestEnv::distributed();
    for (var, value) in [
        ("IDGEN_MYSQL_URL", "hunter2"),
        ("IDGEN_REDIS_URL", "redis//:hunter2@host"),
    ] {
        Test::within(&servers)
            .args(["next", "--app", "1"])
            .env(var, value)
            .status(exit_code::USAGE)
            .one_line_error(var)
            .stderr_lacks("hunter2")
            .run();
    }
}

#[test]
fn a_store_given_together_with_servers_is_a_usage_error_naming_each_source() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    let store = env.home.path().join("laptop.db");
    let first = Test::within(&env)
        .args(["next", "--app", "1"])
        .env("IDGEN_STORE", store.to_str().unwrap())
        .status(exit_code::USAGE)
        .stdout_is("")
        .run();
    let line = first.one_line_error();
    for source in ["IDGEN_STORE", "IDGEN_REDIS_URL", "IDGEN_MYSQL_URL"] {
        assert!(line.contains(source), "{source} is not named: {line}");
    }
    assert!(!store.exists());

    // The servers from the config file, the store from a flag.
    let path = env.write_config(&format!(
        "mysql = \"{}\"\n[redis.nodes]\nmain = \"{}\"\n",
        env.mysql_url, env.redis_url
    ));
    let second = Test::within(&env)
        .args(["--store", store.to_str().unwrap(), "status"])
        .unset("IDGEN_REDIS_URL")
        .unset("IDGEN_MYSQL_URL")
        .status(exit_code::USAGE)
        .run();
    let line = second.one_line_error();
    assert!(line.contains("--store"), "{line}");
    assert!(line.contains(&format!("{}:", path.display())), "{line}");
    assert!(line.contains(" key mysql"), "{line}");
    assert!(line.contains("key redis.nodes.main"), "{line}");
}

#[test]
fn a_node_name_is_accepted_alike_in_the_file_the_flag_and_the_environment() {
    let env = TestEnv::distributed();
    let url = env.redis2_url();
    let named = |report: &Value| node_location(report, "eu.1");
    env.write_config(&format!("[redis.nodes]\n\"eu.1\" = \"{url}\"\n"));
    let from_file = Test::within(&env).args(["status", "--json"]).run().json();
    assert_eq!(named(&from_file), url);
    std::fs::remove_file(env.config_path()).unwrap();
    let from_flag = Test::within(&env)
        .args(["status", "--json", "--redis-node", &format!("eu.1={url}")])
        .run()
        .json();
    assert_eq!(named(&from_flag), url);
    let from_env = Test::within(&env)
        .args(["status", "--json"])
        .env("IDGEN_REDIS_NODES", format!("eu.1={url}"))
        .run()
        .json();
    assert_eq!(named(&from_env), url);
    // And a name the rule refuses is refused by each, naming the rule.
    for test in [
        Test::within(&env).args(["status", "--redis-node", &format!("eu/1={url}")]),
        Test::within(&env)
            .arg("status")
            .env("IDGEN_REDIS_NODES", format!("eu/1={url}")),
    ] {
        test.status(exit_code::USAGE)
            .one_line_error("letters, digits, '-', '_' or '.'")
            .run();
    }
    env.write_config(&format!("[redis.nodes]\n\"eu/1\" = \"{url}\"\n"));
    Test::within(&env)
        .arg("status")
        .status(exit_code::USAGE)
        .one_line_error("letters, digits, '-', '_' or '.'")
        .run();
}

/// One rule for a timeout, wherever it comes from: zero fails every request.
#[test]
fn a_zero_timeout_is_refused_from_the_flag_the_variable_and_the_file() {
    let env = TestEnv::embedded();
    for (flag, var) in [(Some("0"), None), (None, Some("0s"))] {
        let mut test = Test::within(&env);
        if let Some(value) = flag {
            test = test.args(["--timeout", value]);
        }
        if let Some(value) = var {
            test = test.env("IDGEN_TIMEOUT", value);
        }
        test.args(["next", "--app", "1"])
            .status(exit_code::USAGE)
            .one_line_error("a zero timeout fails every request")
            .run();
    }
    env.write_config("timeout = \"0ms\"\n");
    Test::within(&env)
        .args(["next", "--app", "1"])
        .status(exit_code::USAGE)
        .one_line_error("a zero timeout fails every request")
        .run();
}

/// A node named twice on the command line is ambiguous: refused, not the last kept.
#[test]
fn a_redis_node_named_twice_is_refused() {
    let env = TestEnv::distributed();
    Test::within(&env)
        .args(["--redis-node", "x=redis://127.0.0.1:1"])
        .args(["--redis-node", "x=redis://:hunter2@127.0.0.1:2"])
        .arg("status")
        .status(exit_code::USAGE)
        .one_line_error("node \"x\" is given twice")
        .stderr_lacks("hunter2")
        .run();
}

/// As the default XDG path's directory is: the config file is written down on
/// purpose, unlike a mistyped `--store` (which stays refused).
#[test]
fn a_store_in_the_config_file_gets_its_directory_created_by_init_app() {
    let env = TestEnv::embedded();
    let config = env.write_config("store = \"stores/x.db\"\n");
    Test::within(&env)
        .unset("IDGEN_STORE")
        .args(["init-app", "--app", "1", "--name", "demo"])
        .status(exit_code::OK)
        .run();
    let store = config.parent().unwrap().join("stores").join("x.db");
    assert!(store.is_file(), "no store at {}", store.display());
    Test::within(&env)
        .unset("IDGEN_STORE")
        .args(["next", "--app", "1"])
        .status(exit_code::OK)
        .run();
}
