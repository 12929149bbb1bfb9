//! Large batches from `next --count` and `lease --count` (issue 20): a Ctrl-C
//! stops them between batches, every ID issued is delivered, and the exit
//! says how many were issued and that a rerun issues new ones. `lease --stdin`
//! judges its input line by line.

use crate::harness::{Coprocess, Test, TestEnv};
use idgen::exit_code;

/// Runs `args` with stdout piped, waits for the first ID (issuing has begun),
/// sends SIGINT, and reads the rest: (exit code, IDs delivered, stderr).
fn interrupt_after_the_first_id(env: &TestEnv, args: &[&str]) -> (Option<i32>, Vec<u64>, String) {
    let mut cmd = env.idgen();
    cmd.args(args);
    let mut process = Coprocess::spawn(cmd);
    let first = process.read_id();
    process.signal(libc::SIGINT);
    let (status, rest, stderr) = process.wait();
    let mut ids = vec![first];
    ids.extend(rest.lines().map(|line| {
        line.parse::<u64>()
            .unwrap_or_else(|e| panic!("not an ID: {line:?}: {e}"))
    }));
    (status.code(), ids, stderr.join("\n"))
}

fn assert_distinct(ids: &[u64]) {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len(), "an ID was written twice");
}

#[test]
fn ctrl_c_stops_a_large_lease_batch_and_says_how_many_ids_it_issued() {
    let env = TestEnv::embedded();
    let asked = 20_000_000u64;
    let (code, ids, stderr) =
        interrupt_after_the_first_id(&env, &["lease", "--count", &asked.to_string()]);
    assert_eq!(code, Some(130), "{stderr}");
    let issued = ids.len() as u64;
    assert!(issued < asked, "the batch ran to its end: {stderr}");
    assert_distinct(&ids);
    // The count is what stdout received, and the hint asks for the rest.
    assert!(
        stderr.contains(&format!(
            "interrupted after issuing {issued} of {asked} IDs, each written to stdout"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("a rerun issues new IDs, never these again"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("--count {}", asked - issued)),
        "{stderr}"
    );
    // The lease was given back, not leaked.
    assert!(stderr.contains("released worker"), "{stderr}");
}

#[test]
fn ctrl_c_stops_a_large_next_batch_and_says_how_many_ids_it_issued() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let asked = 10_000_000u64;
    let (code, ids, stderr) =
        interrupt_after_the_first_id(&env, &["next", "--app", "1", "--count", &asked.to_string()]);
    assert_eq!(code, Some(130), "{stderr}");
    let issued = ids.len() as u64;
    assert!(issued < asked, "the batch ran to its end: {stderr}");
    assert_distinct(&ids);
    assert!(
        stderr.contains(&format!(
            "interrupted after issuing {issued} of {asked} IDs"
        )),
        "{stderr}"
    );
    // A rerun issues new IDs only.
    let again = env.ok(&["next", "--app", "1", "--count", "1000"]);
    let seen: std::collections::HashSet<u64> = ids.into_iter().collect();
    for id in again.lines().map(|l| l.parse::<u64>().unwrap()) {
        assert!(!seen.contains(&id), "{id} was issued again");
    }
}

#[test]
fn a_large_next_count_is_one_shard_written_in_order() {
    let env = TestEnv::embedded();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "1000",
    ]);
    // Several pieces of the stream, refilled in between: one shard, ascending.
    let out = env.ok(&["next", "--app", "1", "--count", "50000"]);
    let ids: Vec<u64> = out.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ids.len(), 50_000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "not ascending");
    let shards: std::collections::BTreeSet<u64> = ids.iter().map(|id| (id >> 8) & 63).collect();
    assert_eq!(shards.len(), 1, "{shards:?}");
}

#[test]
fn a_lease_stdin_line_that_is_not_utf8_is_an_input_error_naming_the_line() {
    let env = TestEnv::embedded();
    Test::within(&env)
        .args(["lease", "--stdin"])
        .stdin(b"2\n\xff\n".to_vec())
        .status(exit_code::USAGE)
        .stderr("line 2 is not UTF-8 text")
        .stderr("write one number per line")
        .stderr_lacks("stdout")
        .run();
}

#[test]
fn a_lease_stdin_line_that_is_not_a_number_names_its_line() {
    let env = TestEnv::embedded();
    Test::within(&env)
        .args(["lease", "--stdin"])
        .stdin("1\n1\nmany\n")
        .status(exit_code::USAGE)
        .stderr("line 3, \"many\", is not a count of IDs")
        .run();
}

#[test]
fn a_lease_that_issued_nothing_says_so_when_it_releases() {
    let env = TestEnv::embedded();
    Test::within(&env)
        .args(["lease", "--stdin"])
        .stdin("")
        .status(exit_code::OK)
        .stderr("(it issued nothing)")
        .stderr_lacks("1970")
        .run();
}
