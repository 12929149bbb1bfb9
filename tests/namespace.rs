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

crate::on_both_backends!(namespaces_are_listed_and_shown_with_their_holders);
