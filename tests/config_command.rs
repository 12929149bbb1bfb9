//! `idgen config`: the effective settings with their sources, redacted.

use crate::harness::{Test, TestEnv};
use idgen::exit_code;
use serde_json::Value;

fn settings(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> (Value, String) {
    let config = |extra: &[&str]| {
        Test::within(env)
            .envs(vars)
            .args(args.iter().copied())
            .arg("config")
            .args(extra.iter().copied())
            .status(exit_code::OK)
            .run()
    };
    (config(&["--json"]).json(), config(&[]).stdout)
}

fn row<'a>(report: &'a Value, key: &str) -> &'a Value {
    report["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == key)
        .unwrap_or_else(|| panic!("no {key}: {report}"))
}

#[test]
fn every_setting_names_its_source_and_no_password_is_shown() {
    let env = TestEnv::embedded();
    let path = env.write_config(
        "timeout = \"3s\"\n\n[segments]\nidle = 0.3\n\n[snowflake]\nlease_ttl = \"40s\"\n",
    );
    let (report, human) = settings(&env, &["--dispenser", "range"], &[("IDGEN_IDLE", "0.4")]);
    let file = path.display().to_string();
    assert_eq!(report["config_file"], file);
    assert!(
        report["backend"].as_str().unwrap().starts_with("embedded"),
        "{report}"
    );
    // The variable (the harness sets one) overrides the file's line 1.
    assert_eq!(row(&report, "timeout")["source"], "IDGEN_TIMEOUT");
    assert_eq!(
        row(&report, "snowflake.lease_ttl")["source"],
        format!("{file}:7")
    );
    assert_eq!(row(&report, "segments.dispenser")["source"], "--dispenser");
    assert_eq!(row(&report, "segments.idle")["source"], "IDGEN_IDLE");
    assert_eq!(row(&report, "segments.idle")["value"], "0.4");
    assert_eq!(row(&report, "snowflake.layout")["source"], "default");
    assert!(human.contains(&format!("{file}:7")), "{human}");

    // The distributed backend's URLs, with passwords, are redacted.
    let env = TestEnv::distributed();
    let (report, human) = settings(
        &env,
        &[
            "--redis",
            "redis://:hunter2-redis@127.0.0.1:1/0",
            "--mysql",
            "mysql://root:hunter2-mysql@127.0.0.1:1/idgen",
        ],
        &[],
    );
    assert_eq!(row(&report, "mysql")["source"], "--mysql");
    assert_eq!(row(&report, "redis.nodes.main")["source"], "--redis");
    assert!(
        report["backend"]
            .as_str()
            .unwrap()
            .starts_with("redis+mysql")
    );
    for text in [report.to_string(), human] {
        assert!(!text.contains("hunter2"), "{text}");
    }
}

#[test]
fn with_no_store_setting_config_shows_the_xdg_path_the_store_is_opened_at() {
    let env = TestEnv::embedded();
    let run = Test::within(&env)
        .unset("IDGEN_STORE")
        .args(["config", "--json"])
        .status(exit_code::OK)
        .run();
    let report = run.json();
    let store = env.home.path().join("data").join("idgen").join("idgen.db");
    assert_eq!(row(&report, "store")["value"], store.display().to_string());
    assert_eq!(row(&report, "store")["source"], "default");
}

#[test]
fn config_shows_the_timeout_as_it_is_written() {
    let env = TestEnv::embedded();
    let run = Test::within(&env)
        .unset("IDGEN_TIMEOUT")
        .args(["config", "--json"])
        .status(exit_code::OK)
        .run();
    assert_eq!(row(&run.json(), "timeout")["value"], "5s");
}
