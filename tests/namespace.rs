//! `idgen namespace list|show` on both backends.

use crate::harness::{Test, TestEnv, tiny_namespace_lease};

fn namespaces_are_listed_and_shown_with_their_holders(env: &TestEnv) {
    env.ok(&["lease", "--count", "1"]);
    env.ok(&tiny_namespace_lease(&["--count", "1"]));
    let mut holder = env.coprocess(&["lease", "--stdin", "--holder", "web-1"], &[]);
    holder.request(1);

    let listed = Test::within(env)
        .args(["namespace", "list", "--json"])
        .status(0)
        .run()
        .json();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|ns| ns["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["default", "tiny"]);
    assert_eq!(listed[1]["capacity"], 2);
    assert_eq!(listed[0]["available"], 1023);
    Test::within(env)
        .args(["namespace", "list"])
        .status(0)
        .stdout("1,023")
        .stdout("tiny")
        .run();

    Test::within(env)
        .args(["namespace", "show", "default"])
        .status(0)
        .stdout("web-1")
        .stdout("fenced until")
        .run();
    let json = Test::within(env)
        .args(["namespace", "show", "default", "--json"])
        .status(0)
        .run()
        .json();
    assert_eq!(json["held"][0]["holder"], "web-1");
    assert!(holder.finish().0.success());

    Test::within(env)
        .args(["namespace", "show", "nope"])
        .status(3)
        .stderr("idgen lease --namespace")
        .run();
}

fn delete_refuses_a_held_or_future_fenced_namespace_and_asks_first(env: &TestEnv) {
    env.ok(&["lease", "--namespace", "old", "--count", "1"]);
    let mut holder = env.coprocess(&["lease", "--stdin", "--namespace", "busy"], &[]);
    holder.request(1);
    // Its clock an hour ahead: the fence it leaves is in the future.
    Test::within(env)
        .args(["lease", "--namespace", "ahead", "--count", "1"])
        .env("IDGEN_TEST_CLOCK_OFFSET_MS", "3600000")
        .status(0)
        .run();

    Test::within(env)
        .args(["namespace", "delete", "busy", "--yes"])
        .status(7)
        .stderr("held")
        .run();
    Test::within(env)
        .args(["namespace", "delete", "ahead", "--yes"])
        .status(7)
        .stderr("fenced until")
        .run();
    // No terminal, no --yes.
    Test::within(env)
        .args(["namespace", "delete", "old"])
        .status(2)
        .stderr("--yes")
        .run();

    Test::within(env)
        .args(["namespace", "delete", "old", "--yes"])
        .status(0)
        .run();
    Test::within(env)
        .args(["namespace", "show", "old"])
        .status(3)
        .run();
    Test::within(env)
        .args(["namespace", "delete", "old", "--yes"])
        .status(3)
        .run();
    Test::within(env)
        .args(["namespace", "list"])
        .status(0)
        .stdout_lacks("old")
        .stdout("busy")
        .stdout("ahead")
        .run();
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
