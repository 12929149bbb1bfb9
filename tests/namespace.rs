//! `idgen namespace list|show` on both backends.

use crate::harness::TestEnv;
use serde_json::Value;

fn namespaces_are_listed_and_shown_with_their_holders(env: &TestEnv) {
    env.ok(&["lease", "--count", "1"]);
    env.ok(&[
        "lease",
        "--namespace",
        "tiny",
        "--bits",
        "time:41,worker:1,seq:21",
        "--epoch",
        "2024-01-01",
        "--count",
        "1",
    ]);
    let mut holder = env.coprocess(&["lease", "--stdin", "--holder", "web-1"], &[]);
    holder.request(1);

    let listed: Value = serde_json::from_str(&env.ok(&["namespace", "list", "--json"])).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|ns| ns["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["default", "tiny"]);
    assert_eq!(listed[1]["capacity"], 2);
    assert_eq!(listed[0]["available"], 1023);
    let human = env.ok(&["namespace", "list"]);
    assert!(human.contains("1,023") && human.contains("tiny"), "{human}");

    let shown = env.ok(&["namespace", "show", "default"]);
    assert!(shown.contains("web-1"), "{shown}");
    assert!(shown.contains("fenced until"), "{shown}");
    let json: Value =
        serde_json::from_str(&env.ok(&["namespace", "show", "default", "--json"])).unwrap();
    assert_eq!(json["held"][0]["holder"], "web-1");
    assert!(holder.finish().0.success());

    let missing = env.run(&["namespace", "show", "nope"]);
    assert_eq!(missing.code(), 3, "{missing}");
    assert!(
        missing.stderr.contains("idgen lease --namespace"),
        "{missing}"
    );
}

fn delete_refuses_a_held_or_future_fenced_namespace_and_asks_first(env: &TestEnv) {
    env.ok(&["lease", "--namespace", "old", "--count", "1"]);
    let mut holder = env.coprocess(&["lease", "--stdin", "--namespace", "busy"], &[]);
    holder.request(1);
    // Its clock an hour ahead: the fence it leaves is in the future.
    let run = env.run_with(
        &["lease", "--namespace", "ahead", "--count", "1"],
        &[("IDGEN_TEST_CLOCK_OFFSET_MS", "3600000")],
    );
    assert!(run.success(), "{run}");

    let run = env.run(&["namespace", "delete", "busy", "--yes"]);
    assert_eq!(run.code(), 7, "{run}");
    assert!(run.stderr.contains("held"), "{run}");
    let run = env.run(&["namespace", "delete", "ahead", "--yes"]);
    assert_eq!(run.code(), 7, "{run}");
    assert!(run.stderr.contains("fenced until"), "{run}");
    let run = env.run(&["namespace", "delete", "old"]);
    assert_eq!(run.code(), 2, "no terminal, no --yes: {run}");
    assert!(run.stderr.contains("--yes"), "{run}");

    let run = env.run(&["namespace", "delete", "old", "--yes"]);
    assert!(run.success(), "{run}");
    assert_eq!(env.run(&["namespace", "show", "old"]).code(), 3);
    assert_eq!(env.run(&["namespace", "delete", "old", "--yes"]).code(), 3);
    let listed = env.ok(&["namespace", "list"]);
    assert!(!listed.contains("old"), "{listed}");
    assert!(
        listed.contains("busy") && listed.contains("ahead"),
        "{listed}"
    );
    // The name is free for another layout now.
    env.ok(&[
        "lease",
        "--namespace",
        "old",
        "--layout",
        "sonyflake",
        "--count",
        "1",
    ]);

    assert!(holder.finish().0.success());
    env.ok(&["namespace", "delete", "busy", "--yes"]);
}

crate::on_both_backends!(
    namespaces_are_listed_and_shown_with_their_holders,
    delete_refuses_a_held_or_future_fenced_namespace_and_asks_first,
);
