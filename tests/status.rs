//! `idgen status` against the real servers: exit 0 when healthy, 8 with the reason
//! in the report when something needs attention.

use crate::harness::{Run, Test, TestEnv, init_app_1_capped_at_index_10};
use idgen::exit_code::{self, nagios};
use redis::Commands;
use serde_json::Value;

/// Runs `idgen status --json`, checks every finding has a severity, the report's
/// is the worst of them and the exit code follows it; returns the report.
pub fn status(env: &TestEnv) -> (Run, Value) {
    let run = Test::within(env).args(["status", "--json"]).run();
    let report = run.json();
    let rank = |s: &str| {
        ["ok", "unknown", "warning", "critical"]
            .iter()
            .position(|r| *r == s)
            .unwrap_or_else(|| panic!("unknown severity {s:?}: {run}"))
    };
    let worst = report["attention"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            rank(
                a["severity"]
                    .as_str()
                    .expect("every finding has a severity"),
            )
        })
        .max()
        .unwrap_or(0);
    let severity = report["severity"].as_str().unwrap();
    assert_eq!(rank(severity), worst, "{run}");
    assert_eq!(run.code(), if worst == 0 { 0 } else { 8 }, "{run}");
    (run, report)
}

pub fn attention_kinds(report: &Value) -> Vec<String> {
    report["attention"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap().to_string())
        .collect()
}

/// An app stocked by `reload-segments`, and a lease taken and released.
fn healthy(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    env.ok(&["lease", "--count", "3"]);
}

#[test]
fn a_healthy_deployment_exits_0_and_shows_everything() {
    let env = TestEnv::distributed();
    healthy(&env);
    let (run, report) = status(&env);
    assert_eq!(run.code(), i32::from(exit_code::OK), "{run}");
    assert_eq!(report["backend"], "redis+mysql");
    let stores = report["stores"].as_array().unwrap();
    assert_eq!(stores.len(), 2, "{report}");
    for store in stores {
        assert_eq!(store["reachable"], true, "{store}");
        assert!(!store["version"].as_str().unwrap().is_empty());
    }
    let app = &report["apps"][0];
    assert_eq!(app["app"], 1);
    assert_eq!(app["name"], "orders");
    assert_eq!(app["node"], "main");
    assert_eq!(app["moving"], false);
    assert_eq!(app["dispenser"], "queue");
    assert_eq!(app["shards"], 64);
    assert_eq!(app["min_stock"], 100);
    assert_eq!(app["avg_stock"], 100.0);
    assert_eq!(app["low_shards"], serde_json::json!([]));
    let ns = &report["namespaces"][0];
    assert_eq!(ns["name"], "default");
    assert_eq!(ns["layout"], "snowflake");
    assert_eq!(ns["capacity"], 1024);
    assert_eq!(ns["held"], serde_json::json!([]));
    assert_eq!(ns["problems"], serde_json::json!([]));
    let layouts: Vec<&str> = report["layouts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["used_by"].as_str().unwrap())
        .collect();
    assert_eq!(layouts, ["default", "namespace default"]);
    assert!(report["layouts"][0]["days_left"].as_i64().unwrap() > 365);

    // The human form says the same, on stdout only.
    let human = Test::within(&env)
        .arg("status")
        .status(exit_code::OK)
        .stdout("redis+mysql")
        .stdout("orders")
        .stdout("default")
        .stdout("snowflake")
        .stdout("all good")
        .run();
    assert!(human.stderr.is_empty(), "{human}");
}

#[test]
fn a_held_lease_is_listed_and_is_not_a_problem() {
    let env = TestEnv::distributed();
    healthy(&env);
    let mut holder = env.coprocess(&["lease", "--stdin", "--holder", "web-1"], &[]);
    holder.request(1);
    let (run, report) = status(&env);
    assert_eq!(run.code(), i32::from(exit_code::OK), "{run}");
    let held = report["namespaces"][0]["held"].as_array().unwrap();
    assert_eq!(held.len(), 1, "{report}");
    assert_eq!(held[0]["holder"], "web-1");
    let (exit, _, _) = holder.finish();
    assert!(exit.success());
}

#[test]
fn shards_at_or_below_the_threshold_need_attention() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    // Never stocked: every shard is empty.
    let (_, report) = status(&env);
    assert_eq!(attention_kinds(&report), ["low_stock"]);
    let app = &report["apps"][0];
    assert_eq!(app["low_shards"].as_array().unwrap().len(), 64);
    assert_eq!(app["empty_shards"].as_array().unwrap().len(), 64);
    assert_eq!(app["min_stock"], 0);

    // Stocked, then drained on one shard down to the threshold (20 of 100).
    env.ok(&["reload-segments"]);
    let mut conn = env.redis();
    let _: () = conn
        .ltrim(crate::harness::keys::queue(1, 5), 0, 19)
        .unwrap();
    let (run, report) = status(&env);
    assert_eq!(attention_kinds(&report), ["low_stock"], "{run}");
    let app = &report["apps"][0];
    assert_eq!(app["low_shards"], serde_json::json!([5]));
    assert_eq!(app["empty_shards"], serde_json::json!([]));
    assert_eq!(app["min_stock"], 20);
    let message = report["attention"][0]["message"].as_str().unwrap();
    assert!(message.contains("reload-segments"), "{message}");

    // One above the threshold is fine.
    let _: () = conn
        .rpush(crate::harness::keys::queue(1, 5), "999999")
        .unwrap();
    assert_eq!(status(&env).0.code(), i32::from(exit_code::OK));
}

#[test]
fn an_app_near_its_max_limit_id_needs_attention() {
    let env = TestEnv::distributed();
    let limit = init_app_1_capped_at_index_10(&env);
    env.ok(&["init-app", "--app", "2", "--name", "free"]);
    env.ok(&["reload-segments"]);
    let (run, report) = status(&env);
    assert_eq!(run.code(), i32::from(exit_code::ATTENTION));
    assert_eq!(attention_kinds(&report), ["near_limit"], "{run}");
    let capped = &report["apps"][0];
    // A string in JSON: IDs and limits may exceed 2^53.
    assert_eq!(capped["max_limit_id"], limit.to_string());
    assert_eq!(capped["near_limit_shards"].as_array().unwrap().len(), 64);
    assert_eq!(capped["limit_used_percent"], 100.0);
    let free = &report["apps"][1];
    assert_eq!(free["near_limit_shards"], serde_json::json!([]));
    assert_eq!(free["limit_used_percent"], Value::Null);
    Test::within(&env).arg("status").stdout("NEAR LIMIT").run();
}

#[test]
fn an_unreachable_node_is_reported_and_the_rest_still_shown() {
    let env = TestEnv::distributed();
    healthy(&env);
    env.write_config("[redis.nodes]\ncold = \"redis://127.0.0.1:1/0\"\n");
    let (run, report) = status(&env);
    assert_eq!(run.code(), i32::from(exit_code::ATTENTION));
    assert_eq!(attention_kinds(&report), ["unreachable"], "{run}");
    let cold = report["stores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "cold")
        .unwrap();
    assert_eq!(cold["reachable"], false);
    assert!(cold["error"].as_str().unwrap().contains("unreachable"));
    // The app on main is still checked.
    assert_eq!(report["apps"][0]["min_stock"], 100);
    assert_eq!(report["namespaces"][0]["name"], "default");
}

#[test]
fn an_unreachable_ledger_is_reported_and_the_nodes_still_checked() {
    let env = TestEnv::distributed();
    let unreachable = "mysql://root@127.0.0.1:1/idgen";
    let report = Test::within(&env)
        .args(["status", "--json"])
        .env("IDGEN_MYSQL_URL", unreachable)
        .status(exit_code::ATTENTION)
        .run()
        .json();
    assert_eq!(report["stores"][0]["role"], "ledger");
    assert_eq!(report["stores"][0]["reachable"], false);
    assert_eq!(report["stores"][1]["reachable"], true);
    assert_eq!(report["stores"][0]["state"], "unreachable");
    assert_eq!(attention_kinds(&report), ["unreachable", "apps_unknown"]);
    assert_eq!(report["severity"], "critical");
    // The apps are unknown, not none.
    assert_eq!(report["apps_known"], false);
    Test::within(&env)
        .arg("status")
        .env("IDGEN_MYSQL_URL", unreachable)
        .stdout("apps: UNKNOWN")
        .stdout_lacks("apps: none")
        .run();
    let check = Test::within(&env)
        .args(["status", "--check"])
        .env("IDGEN_MYSQL_URL", unreachable)
        .status(nagios::CRITICAL)
        .run();
    assert!(check.stdout.starts_with("IDGEN CRITICAL - "), "{check}");
}

#[test]
fn a_lease_problem_needs_attention() {
    let env = TestEnv::distributed();
    healthy(&env);
    let repeated = env.tamper_free_repeat_first("default");
    let (run, report) = status(&env);
    assert_eq!(run.code(), i32::from(exit_code::ATTENTION));
    assert_eq!(attention_kinds(&report), ["lease_problem"], "{run}");
    let problems = report["namespaces"][0]["problems"].as_array().unwrap();
    assert_eq!(problems[0]["kind"], "duplicate_free", "{report}");
    assert_eq!(problems[0]["worker"], repeated);
}

#[test]
fn an_app_in_the_middle_of_a_move_needs_attention() {
    let env = TestEnv::distributed();
    healthy(&env);
    env.write_config(&format!("[redis.nodes]\nhot = \"{}\"\n", env.redis2_url()));
    env.sql(
        "INSERT INTO idgen_route (app_id, node, target_node, phase) VALUES (1, 'main', 'hot', 'stocking')",
    );
    let (run, report) = status(&env);
    assert_eq!(attention_kinds(&report), ["moving"], "{run}");
    let app = &report["apps"][0];
    assert_eq!(app["moving"], true);
    assert_eq!(app["route"]["incoming"], "hot");
    let message = report["attention"][0]["message"].as_str().unwrap();
    assert!(message.contains("\"main\" to \"hot\""), "{message}");
}

#[test]
fn an_app_routed_to_an_unconfigured_node_needs_attention() {
    let env = TestEnv::distributed();
    healthy(&env);
    env.sql("INSERT INTO idgen_route (app_id, node) VALUES (1, 'elsewhere')");
    let (run, report) = status(&env);
    assert_eq!(attention_kinds(&report), ["unknown_node"], "{run}");
    assert_eq!(report["apps"][0]["node"], "elsewhere");
    assert_eq!(report["apps"][0]["min_stock"], Value::Null);
}

#[test]
fn layouts_that_ran_out_or_run_out_soon_need_attention() {
    let env = TestEnv::distributed();
    healthy(&env);
    // uid-generator's default epoch ran out in 2024.
    env.write_config("[snowflake]\nlayout = \"uid-generator\"\n");
    let (run, report) = status(&env);
    assert_eq!(attention_kinds(&report), ["layout_exhausted"], "{run}");
    assert_eq!(report["layouts"][0]["state"], "exhausted");

    // An epoch 2^28 s minus half a year ago: runs out in about six months.
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let epoch_ms = (now_s - (1u64 << 28) + 180 * 86_400) * 1000;
    env.write_config(&format!(
        "[snowflake]\nlayout = \"uid-generator\"\nepoch = {epoch_ms}\n"
    ));
    let (run, report) = status(&env);
    assert_eq!(attention_kinds(&report), ["layout_expiring"], "{run}");
    let days = report["layouts"][0]["days_left"].as_i64().unwrap();
    assert!((178..=180).contains(&days), "{days}");

    // A namespace's recorded layout is checked too, whatever the default.
    std::fs::remove_file(env.config_path()).unwrap();
    let epoch = epoch_ms.to_string();
    env.ok(&[
        "lease",
        "--namespace",
        "old",
        "--bits",
        "time:28,worker:10,seq:25",
        "--unit",
        "s",
        "--epoch",
        &epoch,
        "--count",
        "1",
    ]);
    let (run, report) = status(&env);
    assert_eq!(attention_kinds(&report), ["layout_expiring"], "{run}");
    let message = report["attention"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("namespace old "), "{message}");
    assert_eq!(report["layouts"][0]["state"], "ok");
}

#[test]
fn status_rejects_a_bad_idle_ratio() {
    let env = TestEnv::distributed();
    Test::within(&env)
        .args(["status", "--idle", "1.5"])
        .status(exit_code::USAGE)
        .stderr("hint:")
        .run();
}

#[test]
fn the_human_report_lists_apps_layouts_and_what_needs_attention() {
    let env = TestEnv::distributed();
    // Everything below the stores table is the same on every machine and every day:
    // uid-generator's default epoch ran out at a fixed date, and no lease is taken.
    env.write_config("[snowflake]\nlayout = \"uid-generator\"\n");
    init_app_1_capped_at_index_10(&env);
    env.ok(&["reload-segments"]);
    env.ok(&["init-app", "--app", "2", "--name", "fresh", "--step", "500"]);
    let run = Test::within(&env)
        .arg("status")
        .status(exit_code::ATTENTION)
        .run();
    let lines: Vec<&str> = run.stdout.lines().collect();
    let apps_header = lines
        .iter()
        .position(|l| l.starts_with("| app "))
        .unwrap_or_else(|| panic!("no apps table: {run}"));
    insta::assert_snapshot!("human_report", lines[apps_header - 1..].join("\n"));
}
