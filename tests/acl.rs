//! Redis ACL users: a user limited to idgen's keys and commands (the rule
//! README "Deploying" gives) runs segments, leases, migrate and status; a
//! command the user may not run is an access error that names it.

use crate::harness::cluster::Cluster;
use crate::harness::faults::{Persistence, RedisProcess};
use crate::harness::{Test, TestEnv};
use idgen::exit_code;

/// The ACL rules README "Deploying" documents, after `reset`.
const IDGEN_RULES: &[&str] = &[
    "resetkeys",
    "~id.gen.*",
    "~idgen:*",
    "resetchannels",
    "-@all",
    "+info",
    "+client|info",
    "+select",
    "+ping",
    "+scan",
    "+evalsha",
    "+script|load",
    "+get",
    "+set",
    "+del",
    "+exists",
    "+hget",
    "+hset",
    "+hmget",
    "+hgetall",
    "+hdel",
    "+hincrby",
    "+llen",
    "+lpop",
    "+lpush",
    "+lrange",
    "+ltrim",
    "+rpush",
    "+rename",
    "+restore",
    "+multi",
    "+exec",
    "+pexpire",
    "+pttl",
    "+wait",
];

/// What a Redis Cluster needs besides: the client's map of the slots, and,
/// for leases on Redis alone, the replicas the cluster lists for a master.
const CLUSTER_RULES: &[&str] = &["+cluster|slots", "+cluster|myid", "+cluster|replicas"];

const PASSWORD: &str = "Acl9pass";

/// The README's rules but `rule`.
fn rules_without(rule: &str) -> Vec<&'static str> {
    IDGEN_RULES.iter().copied().filter(|r| *r != rule).collect()
}

/// Makes `user` on both test servers with `rules`, and returns the variables
/// that point every node at it.
fn acl_user(env: &TestEnv, tag: &str, rules: &[&str]) -> Vec<(&'static str, String)> {
    let user = format!("idgen-{tag}-{}", std::process::id());
    acl_user_on([env.redis(), env.redis_hot()], &user, rules);
    let as_user = |url: &str| url.replacen("redis://", &format!("redis://{user}:{PASSWORD}@"), 1);
    vec![
        ("IDGEN_REDIS_URL", as_user(&env.redis_url)),
        (
            "IDGEN_REDIS_NODES",
            format!(
                "hot={} cold={}",
                as_user(&env.hot_url),
                as_user(&env.cold_url)
            ),
        ),
    ]
}

/// A run as the user `vars` (from [`acl_user`]) names.
fn as_user<'e>(env: &'e TestEnv, vars: &[(&'static str, String)]) -> Test<'e> {
    vars.iter()
        .fold(Test::within(env), |test, (k, v)| test.env(k, v))
}

#[test]
fn a_user_limited_to_idgens_keys_runs_segments_leases_migrate_and_status() {
    let env = TestEnv::distributed_with_nodes();
    let vars = acl_user(&env, "full", IDGEN_RULES);
    let mut ids = Vec::new();
    for args in [
        &["init-app", "--app", "1", "--name", "one", "--step", "20"][..],
        &["next", "--app", "1", "--count", "100"],
        &["reload-segments"],
        &["lease", "--count", "2"],
        &["inspect-freelist"],
        &["migrate", "--app", "1", "--to", "hot", "--yes"],
        &["next", "--app", "1", "--count", "100"],
        &["reload-segments"],
        &["status"],
    ] {
        let run = as_user(&env, &vars)
            .args(args.iter().copied())
            .status(exit_code::OK)
            .stdout_lacks(PASSWORD)
            .stderr_lacks(PASSWORD)
            .run();
        if args[0] == "next" {
            ids.extend(run.ids());
        }
    }
    assert_eq!(ids.len(), 200);
    crate::harness::assert_unique(&ids);
}

/// Makes `user` with `rules` on each of `servers`.
fn acl_user_on(servers: impl IntoIterator<Item = redis::Connection>, user: &str, rules: &[&str]) {
    for mut conn in servers {
        let mut acl = redis::cmd("ACL");
        acl.arg("SETUSER")
            .arg(user)
            .arg("reset")
            .arg("on")
            .arg(format!(">{PASSWORD}"))
            .arg(rules);
        acl.exec(&mut conn).expect("ACL SETUSER");
    }
}

/// `lease --count 2` on Redis alone at `url` as `user`.
fn lease_alone_as<'e>(env: &'e TestEnv, url: &str, user: &str) -> Test<'e> {
    let url = url.replacen("://", &format!("://{user}:{PASSWORD}@"), 1);
    Test::within(env)
        .unset("IDGEN_MYSQL_URL")
        .env("IDGEN_REDIS_URL", url)
        .args(["lease", "--namespace", "acl", "--ttl", "1s", "--count", "2"])
        .stdout_lacks(PASSWORD)
        .stderr_lacks(PASSWORD)
}

#[test]
fn a_user_limited_to_idgens_keys_leases_on_redis_alone_with_a_replica() {
    // A grant counts once the replica has it: the client sends WAIT.
    let env = TestEnv::distributed();
    let master = RedisProcess::start(Persistence::None);
    let _replica = RedisProcess::replica_of(&master);
    acl_user_on([master.conn()], "idgen", IDGEN_RULES);
    lease_alone_as(&env, &master.url(), "idgen")
        .status(exit_code::OK)
        .run();
}

#[test]
fn a_user_limited_to_idgens_keys_leases_on_redis_alone_on_a_cluster() {
    let env = TestEnv::distributed();
    let cluster = Cluster::start();
    lease_on_a_cluster_as(&env, &cluster, CLUSTER_RULES)
        .status(exit_code::OK)
        .run();
}

#[test]
fn a_cluster_user_without_the_replicas_rule_is_refused_naming_cluster() {
    let env = TestEnv::distributed();
    let cluster = Cluster::start();
    lease_on_a_cluster_as(&env, &cluster, &["+cluster|slots"])
        .status(exit_code::ACCESS)
        .one_line_error("may not run the command CLUSTER")
        .run();
}

/// [`lease_alone_as`] on `cluster`, as a user with the README's rules and
/// `cluster_rules` on every node.
fn lease_on_a_cluster_as<'e>(
    env: &'e TestEnv,
    cluster: &Cluster,
    cluster_rules: &[&str],
) -> Test<'e> {
    let rules: Vec<&str> = IDGEN_RULES.iter().chain(cluster_rules).copied().collect();
    acl_user_on(cluster.nodes.iter().map(|n| n.conn()), "idgen", &rules);
    lease_alone_as(env, &cluster.url(), "idgen")
}

#[test]
fn the_rule_the_readme_gives_is_the_rule_tested() {
    let readme = include_str!("../README.md");
    let line = readme
        .lines()
        .find(|line| line.starts_with("ACL SETUSER idgen on >PASSWORD "))
        .expect("README gives an ACL SETUSER line");
    let rules: Vec<&str> = line
        .trim_start_matches("ACL SETUSER idgen on >PASSWORD ")
        .split_whitespace()
        .collect();
    assert_eq!(rules, IDGEN_RULES);
    let cluster = readme
        .lines()
        .find(|line| line.starts_with("ACL SETUSER idgen +cluster"))
        .expect("README gives the Cluster's ACL rules");
    let cluster: Vec<&str> = cluster
        .trim_start_matches("ACL SETUSER idgen ")
        .split_whitespace()
        .collect();
    assert_eq!(cluster, CLUSTER_RULES);
}

#[test]
fn a_user_without_restore_stocks_queues_by_rpush() {
    let env = TestEnv::distributed_with_nodes();
    let rules = rules_without("+restore");
    let vars = acl_user(&env, "norestore", &rules);
    as_user(&env, &vars)
        .args(["init-app", "--app", "1", "--name", "one", "--step", "50"])
        .status(exit_code::OK)
        .run();
    as_user(&env, &vars)
        .args(["reload-segments", "--app", "1"])
        .status(exit_code::OK)
        .run();
    let ids = as_user(&env, &vars)
        .args(["next", "--app", "1", "--count", "500"])
        .status(exit_code::OK)
        .run()
        .ids();
    assert_eq!(ids.len(), 500);
    crate::harness::assert_unique(&ids);
    assert!(env.push_buffers_left().is_empty());
}

#[test]
fn a_command_the_user_may_not_run_is_an_access_error_naming_it() {
    let env = TestEnv::distributed_with_nodes();
    env.ok(&["init-app", "--app", "1", "--name", "one", "--step", "20"]);
    for (refused, command) in [("+lpop", "lpop"), ("+info", "info"), ("+hset", "hset")] {
        let rules = rules_without(refused);
        let vars = acl_user(&env, command, &rules);
        let run = as_user(&env, &vars)
            .args(["next", "--app", "1"])
            .status(exit_code::ACCESS)
            .stderr(format!(
                "may not run the command {}",
                command.to_uppercase()
            ))
            .stderr_lacks(PASSWORD)
            .run();
        assert_eq!(run.stderr.lines().count(), 1, "{run}");
    }
    // A key outside idgen's patterns is refused the same way.
    let rules = rules_without("~idgen:*");
    let vars = acl_user(&env, "nolease", &rules);
    as_user(&env, &vars)
        .args(["lease", "--count", "1"])
        .status(exit_code::ACCESS)
        .stderr("may not use one of idgen's keys")
        .run();
}
