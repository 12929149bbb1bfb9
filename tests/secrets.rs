//! No password ever reaches any output: every command, with a password in every
//! URL form an operator has been seen to write (well-formed or not), given by
//! flag, environment or config file. Also passwords kept outside the URL, and
//! the node-list syntax that a comma in a password cannot split.

use crate::harness::servers::{mysql_exec, mysql_with_grants};
use crate::harness::{Test, TestEnv};
use idgen::exit_code;

/// In every form below; no output may contain it.
const SECRET: &str = "Pw9Zq";

/// Which setting a form is written into.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// The default Redis node, `main`.
    Redis,
    Mysql,
    /// A named node, `hot`, next to working `main` and MySQL.
    Node,
}

/// Where the setting comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    Flag,
    Environment,
    ConfigFile,
}

fn forms() -> Vec<(Slot, String)> {
    let redis = [
        format!("redis//:{SECRET}@127.0.0.1:1"),
        format!("redis://:S3cret/{SECRET}@127.0.0.1:1/0"),
        format!("redis+unix:///nonexistent/idgen.sock?pass={SECRET}"),
        format!("redis://127.0.0.1:1/0?password={SECRET}"),
        format!("redis://{SECRET}@127.0.0.1:1"),
        format!("redis://:{SECRET},x@127.0.0.1:1/0"),
        format!("redis://:x,{SECRET}@127.0.0.1:1/0"),
        format!("rediss://:{SECRET}@127.0.0.1:1/0"),
        format!("valkeys://idgen:{SECRET}@127.0.0.1:1"),
        format!("redis-sentinel://:{SECRET}@127.0.0.1:1,127.0.0.1:2/0#main"),
        format!("rediss-sentinel://u:{SECRET}@127.0.0.1:1#main"),
        format!("redis-cluster://:{SECRET}@127.0.0.1:1,127.0.0.1:2"),
        SECRET.to_string(),
    ];
    let mysql = [
        format!("mysql:/root:{SECRET}@127.0.0.1:1/db"),
        format!("root:{SECRET}@127.0.0.1:3306/db"),
        SECRET.to_string(),
        format!("mysql://root:S3cret/{SECRET}@127.0.0.1:1/idgen"),
        format!("mysql://{SECRET}@127.0.0.1:1/idgen"),
        format!("redis//:{SECRET}@127.0.0.1:1"),
        format!("mysql://root:{SECRET}@127.0.0.1:1/idgen?require_ssl=true"),
        format!("mysql://root:{SECRET}@127.0.0.1:1/idgen?useSSL=true&autoReconnect=true"),
    ];
    redis
        .iter()
        .map(|f| (Slot::Redis, f.clone()))
        .chain(mysql.iter().map(|f| (Slot::Mysql, f.clone())))
        .chain(redis.iter().map(|f| (Slot::Node, f.clone())))
        .collect()
}

const COMMANDS: &[&[&str]] = &[
    &["next", "--app", "1"],
    &["status"],
    &["status", "--json"],
    &["reload-segments"],
    &["reload-segments", "--quiet", "--json"],
    &["inspect-freelist"],
    &["inspect-freelist", "--json"],
    &["migrate", "--app", "1", "--to", "hot", "--dry-run"],
    &[
        "migrate",
        "--app",
        "1",
        "--to",
        "hot",
        "--dry-run",
        "--json",
    ],
    &["init-app", "--app", "2", "--name", "two"],
    &["lease", "--count", "1"],
    &["--help"],
    &["next", "--help"],
    &["completions", "bash"],
];

/// `idgen -v ARGS` with the form in its slot, from its source; the other
/// settings point at this test's servers (Node) or at nothing (Redis, Mysql).
fn command<'e>(
    env: &'e TestEnv,
    slot: Slot,
    source: Source,
    form: &str,
    args: &[&str],
) -> Test<'e> {
    let (redis, mysql) = match slot {
        Slot::Node => (env.redis_url.clone(), env.mysql_url.clone()),
        _ => (
            "redis://127.0.0.1:1/0".to_string(),
            "mysql://root@127.0.0.1:1/idgen".to_string(),
        ),
    };
    let (redis, mysql, node) = match slot {
        Slot::Redis => (form.to_string(), mysql, None),
        Slot::Mysql => (redis, form.to_string(), None),
        Slot::Node => (redis, mysql, Some(form.to_string())),
    };
    let config = env.home.path().join(format!("secrets-{:?}.toml", slot));
    let test = Test::within(env)
        .env("IDGEN_TIMEOUT", "2s")
        .env("IDGEN_CONFIG", config.to_str().unwrap());
    let mut file = String::new();
    let test = match source {
        Source::Flag => {
            let test = test.args(["--redis", &redis, "--mysql", &mysql]);
            match &node {
                Some(node) => test.args(["--redis-node", &format!("hot={node}")]),
                None => test,
            }
        }
        Source::Environment => {
            let test = test
                .env("IDGEN_REDIS_URL", &redis)
                .env("IDGEN_MYSQL_URL", &mysql);
            match &node {
                Some(node) => test.env("IDGEN_REDIS_NODES", format!("hot={node}")),
                None => test,
            }
        }
        Source::ConfigFile => {
            file = format!("mysql = {mysql:?}\n[redis.nodes]\nmain = {redis:?}\n");
            if let Some(node) = &node {
                file.push_str(&format!("hot = {node:?}\n"));
            }
            test
        }
    };
    std::fs::write(&config, file).unwrap();
    let test = test.arg("-v").args(args.iter().copied());
    if matches!(source, Source::Environment) {
        test
    } else {
        // Only the form's own source names the servers.
        test.unset("IDGEN_REDIS_URL").unset("IDGEN_MYSQL_URL")
    }
}

#[test]
fn no_password_appears_in_any_output_of_any_command() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one", "--step", "10"]);
    let mut cases = Vec::new();
    for (slot, form) in forms() {
        for source in [Source::Flag, Source::Environment, Source::ConfigFile] {
            for args in COMMANDS {
                cases.push((slot, source, form.clone(), *args));
            }
        }
    }
    // Four at a time: each run is short, and most wait on a refused connection.
    let leaks: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = cases
            .chunks(cases.len().div_ceil(4))
            .map(|chunk| {
                let env = &env;
                scope.spawn(move || {
                    let mut leaks = Vec::new();
                    for (slot, source, form, args) in chunk {
                        let run = command(env, *slot, *source, form, args).run();
                        if run.stdout.contains(SECRET) || run.stderr.contains(SECRET) {
                            leaks.push(format!("{slot:?} {source:?} {form:?} {args:?}: {run}"));
                        }
                    }
                    leaks
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(
        leaks.is_empty(),
        "{} of {} runs printed the password; first: {}",
        leaks.len(),
        cases.len(),
        leaks[0]
    );
}

#[test]
fn a_usage_error_from_clap_shows_no_password_either() {
    let env = TestEnv::embedded();
    let url = format!("redis://:{SECRET}@127.0.0.1:1/0");
    for args in [
        vec!["--redis", &url, "next", "--app", "x"],
        vec!["next", "--app", "1", "--redis", &url, "--bogus"],
        vec!["--redis-node", &url, "next"],
    ] {
        Test::within(&env)
            .args(args)
            .status(exit_code::USAGE)
            .stderr_lacks(SECRET)
            .stdout_lacks(SECRET)
            .run();
    }
}

/// A Redis user of the test server with a password that holds `/` and `,`.
pub fn redis_user(env: &TestEnv, tag: &str, rules: &[&str]) -> (String, String) {
    let password = format!("a/b,{SECRET}");
    let name = redis_user_with(env, tag, &password, rules);
    (name, password)
}

/// A Redis user of the test server with `password`; returns its name.
pub fn redis_user_with(env: &TestEnv, tag: &str, password: &str, rules: &[&str]) -> String {
    let name = format!("idgen-{tag}-{}", std::process::id());
    let mut conn = env.redis();
    let mut acl = redis::cmd("ACL");
    acl.arg("SETUSER")
        .arg(&name)
        .arg("reset")
        .arg("on")
        .arg(format!(">{password}"));
    for rule in rules {
        acl.arg(*rule);
    }
    acl.exec(&mut conn).expect("ACL SETUSER");
    name
}

/// A password kept outside the URL whose `%` signs look like escapes reaches
/// the server as written. It was put into the URL unescaped, and the driver
/// logged in with `A` for `%41` (found by fuzzing the settings).
#[test]
fn a_password_variable_with_percent_signs_logs_in_as_written() {
    let env = TestEnv::distributed();
    let password = format!("p%41%25%,{SECRET}");
    let user = redis_user_with(&env, "percent", &password, &["~*", "&*", "+@all"]);
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    let run = Test::within(&env)
        .env("IDGEN_REDIS_URL", redis_url_for(&env, &user))
        .env("IDGEN_REDIS_PASSWORD", &password)
        .args(["next", "--app", "1"])
        .status(exit_code::OK)
        .stderr_lacks(SECRET)
        .run();
    assert_eq!(run.ids().len(), 1);
}

/// `redis://USER@host:port/db` of this test's database.
pub fn redis_url_for(env: &TestEnv, user: &str) -> String {
    env.redis_url
        .replacen("redis://", &format!("redis://{user}@"), 1)
}

#[test]
fn a_password_file_or_variable_keeps_the_password_out_of_the_url() {
    let env = TestEnv::distributed();
    let (user, password) = redis_user(&env, "file", &["~*", "&*", "+@all"]);
    let file = env.home.path().join("redis-password");
    std::fs::write(&file, format!("{password}\n")).unwrap();
    let url = redis_url_for(&env, &user);

    let file = file.to_str().unwrap();

    Test::within(&env)
        .env("IDGEN_REDIS_URL", &url)
        .env("IDGEN_REDIS_PASSWORD_FILE", file)
        .args(["init-app", "--app", "1", "--name", "one"])
        .status(exit_code::OK)
        .run();

    let run = Test::within(&env)
        .env("IDGEN_REDIS_URL", &url)
        .env("IDGEN_REDIS_PASSWORD", &password)
        .args(["-v", "next", "--app", "1"])
        .status(exit_code::OK)
        .stderr_lacks(SECRET)
        .run();
    assert_eq!(run.ids().len(), 1);

    // Both at once is ambiguous.
    Test::within(&env)
        .env("IDGEN_REDIS_URL", &url)
        .env("IDGEN_REDIS_PASSWORD", &password)
        .args(["--redis-password-file", file, "status"])
        .status(exit_code::USAGE)
        .stderr("IDGEN_REDIS_PASSWORD")
        .stderr_lacks(SECRET)
        .run();
}

#[test]
fn a_comma_in_a_password_does_not_split_the_node_list() {
    let env = TestEnv::distributed();
    let (user, password) = redis_user(&env, "comma", &["~*", "&*", "+@all"]);
    let encoded = password.replace('/', "%2F");
    // The user exists on the first server only: `hot` is this slot's database there.
    let hot_on_first = env
        .redis_url
        .replacen("redis://", &format!("redis://{user}:{encoded}@"), 1);
    for (run, hot) in crate::harness::status_of_hot_node(&env, &hot_on_first, &[]) {
        assert!(
            !run.stdout.contains(SECRET) && !run.stderr.contains(SECRET),
            "{run}"
        );
        assert_eq!(hot["reachable"], true, "{run}");
        assert!(
            hot["location"]
                .as_str()
                .unwrap()
                .starts_with("redis://***@"),
            "{run}"
        );
    }

    // The comma-separated list of old is refused, naming the variable, not split.
    Test::within(&env)
        .env(
            "IDGEN_REDIS_NODES",
            format!("hot={hot_on_first},cold={}", env.cold_url),
        )
        .arg("status")
        .status(exit_code::USAGE)
        .stderr("IDGEN_REDIS_NODES")
        .stderr("spaces")
        .stderr_lacks(SECRET)
        .run();
}

/// A database and a user with `password` and `privileges` on it, on the MariaDB
/// that checks privileges; returns the user's URL without the password.
pub fn mysql_user(tag: &str, password: &str, privileges: &str) -> String {
    let base = mysql_with_grants();
    let name = format!("idgen_{tag}_{}", std::process::id());
    mysql_exec(
        &format!("{base}/mysql"),
        &format!(
            "CREATE DATABASE IF NOT EXISTS `{name}`; DROP USER IF EXISTS '{name}'@'%'; \
             CREATE USER '{name}'@'%' IDENTIFIED BY '{password}'; \
             GRANT {privileges} ON `{name}`.* TO '{name}'@'%'"
        ),
    );
    format!(
        "{}/{name}",
        base.replacen("mysql://root@", &format!("mysql://{name}@"), 1)
    )
}

#[test]
fn a_mysql_password_variable_is_used_and_never_shown() {
    let env = TestEnv::distributed();
    let password = format!("c/d,{SECRET}");
    let url = mysql_user("pwvar", &password, "ALL");
    Test::within(&env)
        .env("IDGEN_MYSQL_URL", &url)
        .env("IDGEN_MYSQL_PASSWORD", &password)
        .args(["-v", "init-app", "--app", "3", "--name", "three"])
        .status(exit_code::OK)
        .stderr_lacks(SECRET)
        .run();
    // The same URL without the password is refused: the variable was what logged in.
    Test::within(&env)
        .env("IDGEN_MYSQL_URL", &url)
        .args(["init-app", "--app", "3", "--name", "three"])
        .status(exit_code::ACCESS)
        .run();
}

/// Bytes that are not UTF-8 anywhere in an argument or an `IDGEN_*` variable:
/// a usage error naming where, never the bytes (and so never a password among
/// them), and no panic.
#[test]
fn an_argument_that_is_not_utf8_is_named_by_position_never_shown() {
    use std::os::unix::ffi::OsStringExt;
    let url = std::ffi::OsString::from_vec(b"mysql://idgen:Secret\xff@db/idgen".to_vec());
    Test::new()
        .arg("--mysql")
        .arg(url.clone())
        .args(["next", "--app", "1"])
        .status(exit_code::USAGE)
        .one_line_error("argument 2 is not valid UTF-8")
        .stderr_lacks("Secret")
        .stderr_lacks("panicked")
        .run();
    Test::new()
        .args(["decode"])
        .arg(std::ffi::OsString::from_vec(vec![0xff]))
        .status(exit_code::USAGE)
        .one_line_error("argument 2 is not valid UTF-8")
        .run();
    Test::new()
        .env("IDGEN_MYSQL_URL", url)
        .args(["next", "--app", "1"])
        .status(exit_code::USAGE)
        .one_line_error("IDGEN_MYSQL_URL is not valid UTF-8")
        .stderr_lacks("Secret")
        .run();
}

/// Only passwords are secrets: a user name is an ordinary word (`idgen`,
/// `status`), and searching output for it would rewrite metric names and
/// hints. With the passwords outside the URLs, as the README advises, output
/// keeps every such word and still shows no password.
#[test]
fn user_names_that_are_ordinary_words_are_never_redacted() {
    let env = TestEnv::distributed();
    let password = format!("a/b,{SECRET}");
    redis::cmd("ACL")
        .arg("SETUSER")
        .arg("status")
        .arg("reset")
        .arg("on")
        .arg(format!(">{password}"))
        .arg("~*")
        .arg("&*")
        .arg("+@all")
        .exec(&mut env.redis())
        .expect("ACL SETUSER");
    let redis = redis_url_for(&env, "status");
    let mysql = env.mysql_url.replacen("mysql://root@", "mysql://idgen@", 1);
    let test = || {
        Test::within(&env)
            .env("IDGEN_REDIS_URL", &redis)
            .env("IDGEN_REDIS_PASSWORD", &password)
            .env("IDGEN_MYSQL_URL", &mysql)
            .env("IDGEN_MYSQL_PASSWORD", SECRET)
    };
    test()
        .args(["init-app", "--app", "1", "--name", "one"])
        .status(exit_code::OK)
        .stderr_lacks(SECRET)
        .run();
    let metrics = test()
        .args(["status", "--format", "prometheus"])
        .stdout("# TYPE idgen_")
        .stdout_lacks("***")
        .stdout_lacks(SECRET)
        .run();
    let samples = metrics.stdout.lines().filter(|l| l.starts_with("idgen_"));
    assert!(samples.count() > 3, "{metrics}");
    test()
        .args(["next", "--app", "9"])
        .status(exit_code::NOT_FOUND)
        .stderr("`idgen init-app")
        .stderr_lacks("***")
        .run();
}

/// Redis's own user `default` in the URL: `idgen config` still says
/// "default" wherever it means it (only a URL's userinfo is hidden, by its
/// place in the URL), and the password given beside it never shows.
#[test]
fn the_redis_user_default_leaves_the_word_default_alone() {
    let env = TestEnv::distributed();
    let redis = redis_url_for(&env, "default");
    let config = Test::within(&env)
        .env("IDGEN_REDIS_URL", &redis)
        .env("IDGEN_REDIS_PASSWORD", SECRET)
        .args(["config"])
        .status(exit_code::OK)
        .stdout("default")
        .stdout_lacks(SECRET)
        .run();
    let hidden = config.stdout.matches("***").count();
    let userinfos = config.stdout.matches("://***@").count();
    assert_eq!(hidden, userinfos, "*** outside a URL's userinfo: {config}");
}

#[test]
fn a_gate_pass_that_is_not_utf8_is_named_by_position() {
    use std::os::unix::ffi::OsStringExt;
    Test::new()
        .args(["next", "--app", "1", "--gate-pass"])
        .arg(std::ffi::OsString::from_vec(b"Secret\xff".to_vec()))
        .status(exit_code::USAGE)
        .one_line_error("argument 5 is not valid UTF-8")
        .stderr_lacks("Secret")
        .run();
}
