//! `idgen app list|show|set`: apps read and changed without SQL, through the
//! same locks and rules as the other commands, on both backends.

use crate::harness::{StoreKind, Test, TestEnv, limit_with_last_index};
use idgen::exit_code;

fn app_list_and_show_give_exact_values(env: &TestEnv) {
    let run = Test::within(env).args(["app", "list"]).run();
    match env.backend {
        StoreKind::Distributed => assert!(run.stdout.contains("no apps"), "{run}"),
        // A list never creates the store file it was pointed at.
        StoreKind::Embedded => assert_eq!(run.code(), i32::from(exit_code::STORE), "{run}"),
    }
    let limit = ((1u64 << 50) | 3).to_string();
    env.ok(&[
        "init-app",
        "--app",
        "3",
        "--name",
        "big",
        "--step",
        "1234567",
        "--max-limit-id",
        &limit,
    ]);
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["next", "--app", "1", "-n", "5"]);
    let apps = env.json(&["app", "list", "--json"]);
    let apps = apps.as_array().unwrap();
    assert_eq!(apps.len(), 2);
    assert_eq!(apps[0]["app"], 1);
    assert_eq!(apps[1]["max_limit_id"], limit, "a string: above 2^53");
    let human = env.ok(&["app", "list"]);
    assert!(human.contains("1,234,567"), "{human}");
    let shown = env.json(&["app", "show", "1", "--json"]);
    assert_eq!(shown["shard_rows"].as_array().unwrap().len(), 64);
    assert!(shown["shard_rows"][0]["max_id"].is_string());
    Test::within(env)
        .args(["app", "show", "9"])
        .status(exit_code::NOT_FOUND)
        .run();
}

fn max_limit_id_is_lowered_only_when_agreed_and_raised_freely(env: &TestEnv) {
    let next = crate::status_states::exhaust_shard_0_of_app_9(env);

    // Lowering without --yes and without a terminal to ask on changes nothing.
    let lower = limit_with_last_index(2, 9).to_string();
    Test::within(env)
        .args(["app", "set", "9", "--max-limit-id", &lower])
        .status(exit_code::USAGE)
        .one_line_error("pass --yes to lower max_limit_id")
        .run();
    let shown = env.json(&["app", "show", "9", "--json"]);
    assert_ne!(shown["max_limit_id"], lower.as_str(), "unchanged");
    // No limit is the highest: raising needs no answer.
    Test::within(env)
        .args(["app", "set", "9", "--max-limit-id", "0"])
        .status(exit_code::OK)
        .run();
    let shown = env.json(&["app", "show", "9", "--json"]);
    assert_eq!(shown["max_limit_id"], "0");

    // Raised, the exhausted shard issues again, above every index it issued.
    let ids = Test::within(env).args(next).run().ids();
    assert_eq!(crate::harness::segment_parts(ids[0]).0, 4, "{ids:?}");
}

fn a_limit_lowered_with_yes_retires_the_stock_above_it_on_every_shard(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    env.ok(&["next", "--app", "1", "-n", "20"]);
    // Every shard holds indexes up to 100; 30 and below may still be issued.
    let limit = limit_with_last_index(30, 1);
    let changed = Test::within(env)
        .args(["app", "set", "1", "--yes", "--json", "--max-limit-id"])
        .arg(limit.to_string())
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(changed["max_limit_id"], limit.to_string());
    if env.backend == StoreKind::Distributed {
        // Redis stock is retired; the embedded store reads the limit on every take.
        let retired: u64 = changed["ids_retired_over_limit"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retired > 0, "{changed}");
    }
    // Every shard had handed out index 100: what is left under the new
    // limit runs out, and nothing above it is issued.
    let taken = Test::within(env)
        .args(["next", "--app", "1", "-n", "200"])
        .status(exit_code::EXHAUSTED)
        .run();
    assert!(taken.ids().iter().all(|&id| id <= limit), "{taken}");
}

fn the_step_and_its_bounds_change_together(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    // Outside 100..=1000.
    Test::within(env)
        .args(["app", "set", "1", "--step", "5000"])
        .status(exit_code::USAGE)
        .stderr("--max-step")
        .run();
    let changed = env.json(&[
        "app",
        "set",
        "1",
        "--step",
        "5000",
        "--max-step",
        "50000",
        "--json",
    ]);
    assert_eq!(changed["step"], 5000);
    assert_eq!(changed["policy"]["max_step"], 50000);
    assert_eq!(changed["policy"]["min_step"], 100);
    // Every shard row carries the new step, and a refill uses it.
    let rows = env.json(&["app", "show", "1", "--json"]);
    assert!(
        rows["shard_rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["step"] == 5000)
    );
    Test::within(env)
        .args(["app", "set", "1"])
        .status(exit_code::USAGE)
        .stderr("nothing to change")
        .run();
}

fn a_rename_asks_first(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    // No terminal, no --yes.
    Test::within(env)
        .args(["app", "set", "1", "--name", "orders-v2"])
        .status(exit_code::USAGE)
        .stderr("--yes")
        .run();
    assert_eq!(env.json(&["app", "show", "1", "--json"])["name"], "orders");
    env.ok(&["app", "set", "1", "--name", "orders-v2", "--yes"]);
    assert_eq!(
        env.json(&["app", "show", "1", "--json"])["name"],
        "orders-v2"
    );
    // init-app now knows it by the new name.
    env.ok(&["init-app", "--app", "1", "--name", "orders-v2"]);
    Test::within(env)
        .args(["app", "set", "7", "--step", "5"])
        .status(exit_code::NOT_FOUND)
        .run();
}

crate::on_both_backends!(
    app_list_and_show_give_exact_values,
    max_limit_id_is_lowered_only_when_agreed_and_raised_freely,
    a_limit_lowered_with_yes_retires_the_stock_above_it_on_every_shard,
    the_step_and_its_bounds_change_together,
    a_rename_asks_first,
);
