//! What every command owes an operator: examples in `--help`, `--json` where it
//! reports, one-line errors with a hint, colour and prompts only on a terminal.

use crate::harness::{Test, TestEnv, keys, wait_until};
use idgen::exit_code;
use redis::Commands;
use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The subcommands `idgen --help` lists (without clap's `help`).
fn subcommands() -> Vec<String> {
    Test::new()
        .arg("--help")
        .status(exit_code::OK)
        .run()
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // Wrapped descriptions continue with deeper indentation.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.trim().is_empty()).collect()
}

#[test]
fn every_help_page_has_examples() {
    let commands = subcommands();
    assert!(commands.len() >= 8, "{commands:?}");
    let mut pages = vec![vec!["-h".to_string()], vec!["--help".to_string()]];
    for name in &commands {
        pages.push(vec![name.clone(), "-h".into()]);
        pages.push(vec![name.clone(), "--help".into()]);
    }
    for args in pages {
        let run = Test::new().args(args.clone()).status(exit_code::OK).run();
        let examples = run
            .stdout
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("`idgen {}` has no Examples: section", args.join(" ")));
        assert!(
            examples.trim_start().starts_with("idgen ") || examples.contains("\n  idgen "),
            "`idgen {}`: the examples show no idgen command",
            args.join(" ")
        );
    }
}

#[test]
fn every_reporting_command_speaks_json() {
    let env = TestEnv::distributed();
    env.ok(&["lease", "--count", "1"]);
    let cases: &[&[&str]] = &[
        &["init-app", "--app", "1", "--name", "orders", "--json"],
        &["reload-segments", "--json"],
        &["inspect-freelist", "--json"],
        &["status", "--json"],
        &["decode", "--json", "175928847299117063", "1"],
    ];
    for args in cases {
        let run = Test::within(&env)
            .args(args.iter().copied())
            .status(exit_code::OK)
            .run();
        // One document, or JSON Lines for decode.
        let documents: Result<Vec<serde_json::Value>, _> =
            serde_json::Deserializer::from_str(&run.stdout)
                .into_iter()
                .collect();
        let documents =
            documents.unwrap_or_else(|e| panic!("idgen {args:?}: not JSON ({e}): {run}"));
        assert!(!documents.is_empty(), "idgen {args:?}: {run}");
        assert!(documents.iter().all(|d| d.is_object()), "{run}");
    }
}

#[test]
fn every_command_reports_an_error_on_one_line_with_a_hint() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "3", "--name", "users"]);
    let bad_config = env.home.path().join("bad.toml");
    std::fs::write(&bad_config, "[segments]\nidle = 2\n").unwrap();
    let bad_config = bad_config.to_str().unwrap();
    // One representative failure per subcommand (the key), plus the global ones.
    let cases: &[(&str, &[&str], u8)] = &[
        (
            "init-app",
            &["init-app", "--app", "3", "--name", "accounts"],
            exit_code::CONFLICT,
        ),
        ("next", &["next", "--app", "9"], exit_code::NOT_FOUND),
        (
            "reload-segments",
            &["reload-segments", "--app", "9"],
            exit_code::NOT_FOUND,
        ),
        (
            "lease",
            &["lease", "--namespace", "no spaces"],
            exit_code::USAGE,
        ),
        (
            "inspect-freelist",
            &["inspect-freelist", "--namespace", "never"],
            exit_code::NOT_FOUND,
        ),
        ("decode", &["decode", "12x"], exit_code::USAGE),
        (
            "migrate",
            &["migrate", "--app", "3", "--to", "nowhere", "--yes"],
            exit_code::NOT_FOUND,
        ),
        ("status", &["status", "--idle", "2"], exit_code::USAGE),
        (
            "serve",
            &["serve", "--listen", "0.0.0.0:0"],
            exit_code::USAGE,
        ),
        ("completions", &["completions", "tcsh"], exit_code::USAGE),
        ("app", &["app", "show", "9"], exit_code::NOT_FOUND),
        (
            "namespace",
            &["namespace", "show", "never"],
            exit_code::NOT_FOUND,
        ),
        ("config", &["config", "--no-such-flag"], exit_code::USAGE),
        (
            "",
            &["--timeout", "soon", "next", "--app", "3"],
            exit_code::USAGE,
        ),
        (
            "",
            &["--config", bad_config, "next", "--app", "3"],
            exit_code::USAGE,
        ),
        (
            "",
            &["next", "--app", "3", "--no-such-flag"],
            exit_code::USAGE,
        ),
        ("", &["no-such-command"], exit_code::USAGE),
    ];
    let covered: Vec<&str> = cases.iter().map(|(name, _, _)| *name).collect();
    for name in subcommands() {
        assert!(
            covered.contains(&name.as_str()),
            "add a representative error of `idgen {name}` to this test"
        );
    }
    for (_, args, code) in cases {
        Test::within(&env)
            .args(args.iter().copied())
            .status(*code)
            .run()
            .one_line_error();
    }
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let env = TestEnv::distributed();
    let args = ["next", "--app", "99"];
    // Into a pipe: no colour.
    Test::within(&env)
        .args(args)
        .status(exit_code::NOT_FOUND)
        .stderr_lacks("\x1b")
        .run();

    Test::within(&env)
        .args(args)
        .terminal()
        .status(exit_code::NOT_FOUND)
        .stdout("\x1b[31;1merror:")
        .run();

    Test::within(&env)
        .args(args)
        .env("NO_COLOR", "1")
        .terminal()
        .status(exit_code::NOT_FOUND)
        .stdout("error: ")
        .stdout_lacks("\x1b")
        .run();
}

#[test]
fn reload_segments_draws_no_progress_bar_when_stderr_is_not_a_terminal() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let run = Test::within(&env)
        .arg("reload-segments")
        .status(exit_code::OK)
        .stdout("64")
        .stdout_lacks("\r")
        .stdout_lacks("\x1b")
        .run();
    assert!(run.stderr.is_empty(), "stderr should be empty: {run:?}");
}

#[test]
fn tables_on_a_terminal_use_box_drawing() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    Test::within(&env)
        .arg("reload-segments")
        .env("NO_COLOR", "1")
        .terminal()
        .status(exit_code::OK)
        .stdout("│")
        .stdout("shards checked")
        .run();
}

/// Runs `inspect-freelist --repair` in a terminal and answers its prompt with `key`.
fn answer_repair_prompt(env: &TestEnv, key: &str) -> (i32, String) {
    let mut cmd = Test::within(env)
        .args(["inspect-freelist", "--repair"])
        .env("NO_COLOR", "1")
        .terminal()
        .command();
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn script");
    let screen = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let screen = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let shown = || String::from_utf8_lossy(&screen.lock().unwrap()).into_owned();
    wait_until(Duration::from_secs(30), "the repair prompt", || {
        shown().contains("repair 1 problem(s) in namespace default?")
    });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(key.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let status = child.wait().unwrap();
    drop(stdin);
    reader.join().unwrap();
    (status.code().expect("exit code"), shown())
}

#[test]
fn the_repair_prompt_repairs_on_yes_and_changes_nothing_on_no() {
    let env = TestEnv::distributed();
    env.ok(&["lease", "--count", "1"]);
    let first = env.tamper_free_repeat_first("default");
    let key = keys::free_list("default");
    let mut conn = env.redis();
    let tampered: Vec<u64> = conn.lrange(&key, 0, -1).unwrap();

    let (code, screen) = answer_repair_prompt(&env, "n");
    assert_eq!(code, 11, "{screen}");
    assert!(screen.contains("nothing changed"), "{screen}");
    let after_no: Vec<u64> = conn.lrange(&key, 0, -1).unwrap();
    assert_eq!(after_no, tampered);

    let (code, screen) = answer_repair_prompt(&env, "y");
    assert_eq!(code, 0, "{screen}");
    let repaired: Vec<u64> = conn.lrange(&key, 0, -1).unwrap();
    assert_eq!(
        repaired.iter().filter(|&&w| w == first).count(),
        1,
        "{repaired:?}"
    );
    Test::within(&env)
        .arg("inspect-freelist")
        .status(exit_code::OK)
        .run();
}

#[test]
fn without_a_terminal_repair_refuses_instead_of_prompting() {
    let env = TestEnv::distributed();
    env.ok(&["lease", "--count", "1"]);
    env.tamper_free_repeat_first("default");
    Test::within(&env)
        .args(["inspect-freelist", "--repair"])
        .status(exit_code::USAGE)
        .one_line_error("hint: rerun with --yes")
        .run();
}

// ---- errors that say what kind of failure ------------------------------------

/// A run with the default Redis node at `redis` (MySQL stays this test's).
fn with_redis<'e>(env: &'e TestEnv, redis: &str) -> Test<'e> {
    Test::within(env).env("IDGEN_REDIS_URL", redis)
}

/// A run against MySQL at `url` with `password` kept outside it.
fn with_mysql<'e>(env: &'e TestEnv, url: &str, password: Option<&str>) -> Test<'e> {
    let test = Test::within(env).env("IDGEN_MYSQL_URL", url);
    match password {
        Some(password) => test.env("IDGEN_MYSQL_PASSWORD", password),
        None => test,
    }
}

/// Puts a string where each of the app's queues belongs, as foreign software might.
fn spoil_queues(env: &TestEnv, app: u8) {
    let mut redis = env.redis();
    for shard in 0..64 {
        let _: () = redis
            .set(crate::harness::keys::queue(app, shard), "not a list")
            .unwrap();
    }
}

#[test]
fn a_wrong_redis_password_is_access_refused_with_a_credentials_hint() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    let (user, _) = crate::secrets::redis_user(&env, "wrongpass", &["~*", "&*", "+@all"]);
    let wrong = crate::secrets::redis_url_for(&env, &format!("{user}:not-the-password"));
    for args in [&["next", "--app", "1"][..], &["reload-segments"]] {
        with_redis(&env, &wrong)
            .args(args.iter().copied())
            .status(exit_code::ACCESS)
            .one_line_error("refused access")
            .stderr("user name and password")
            .stderr_lacks("not-the-password")
            .stderr_lacks("safe to retry")
            .run();
    }
    // status reports it in the table and exits 8; its JSON names the kind.
    with_redis(&env, &wrong)
        .arg("status")
        .status(exit_code::ATTENTION)
        .run();
}

#[test]
fn a_redis_command_the_acl_denies_is_access_refused_naming_the_command() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    // May connect and read, may not run scripts (every refill and pop is one).
    let (user, password) = crate::secrets::redis_user(
        &env,
        "noperm",
        &["~*", "&*", "+@all", "-evalsha", "-eval", "-lpop", "-lmpop"],
    );
    let url =
        crate::secrets::redis_url_for(&env, &format!("{user}:{}", password.replace('/', "%2F")));
    let run = with_redis(&env, &url)
        .args(["next", "--app", "1"])
        .status(exit_code::ACCESS)
        .one_line_error("refused access")
        .run();
    let line = run.one_line_error();
    assert!(
        ["evalsha", "eval", "lpop", "lmpop"]
            .iter()
            .any(|c| line.contains(&format!("'{c}'"))),
        "the refused command is not named: {line}"
    );
}

#[test]
fn mysql_refusing_the_login_or_a_privilege_is_access_refused() {
    let env = TestEnv::distributed();
    let url = crate::secrets::mysql_user("readonly", "ro-pass", "SELECT");
    let wrong = url.replacen('@', ":wrong@", 1);
    with_mysql(&env, &wrong, None)
        .args(["init-app", "--app", "1", "--name", "one"])
        .status(exit_code::ACCESS)
        .one_line_error("MySQL at mysql://***@")
        .stderr("user name and password")
        .run();

    // Logged in, but without the CREATE/INSERT privilege init-app needs.
    let init = ["init-app", "--app", "1", "--name", "one"];
    with_mysql(&env, &url, Some("ro-pass"))
        .args(init)
        .status(exit_code::ACCESS)
        .one_line_error("denied")
        .run();
}

#[test]
fn a_foreign_value_under_an_idgen_key_is_bad_data_naming_the_key() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    spoil_queues(&env, 1);
    Test::within(&env)
        .args(["next", "--app", "1"])
        .status(exit_code::BAD_DATA)
        .one_line_error("id.gen.")
        .stderr("WRONGTYPE")
        .run();
}

#[test]
fn an_unreachable_mysql_is_described_once_without_repeated_prefixes() {
    let env = TestEnv::distributed();
    let run = with_mysql(&env, "mysql://root@127.0.0.1:1/idgen", None)
        .args(["init-app", "--app", "1", "--name", "one"])
        .status(exit_code::UNAVAILABLE)
        .run();
    let line = run.one_line_error();
    for phrase in ["Input/output error", "Connection refused", "unreachable"] {
        assert!(
            line.matches(phrase).count() <= 1,
            "{phrase:?} repeated: {line}"
        );
    }
}

#[test]
fn an_error_and_its_cause_say_the_reason_once() {
    let env = TestEnv::embedded();
    for args in [
        &["decode", "1", "--layout", "flickr"][..],
        &["decode", "1", "--bits", "time:41,worker:10,seq:12"],
    ] {
        let run = Test::within(&env)
            .args(args.iter().copied())
            .status(exit_code::USAGE)
            .run();
        let line = run.one_line_error();
        let problem = line.split("; hint: ").next().unwrap();
        let reason = problem.rsplit(": ").next().unwrap();
        assert_eq!(problem.matches(reason).count(), 1, "said twice: {line}");
    }
}

// ---- batch jobs fail fast ------------------------------------------------------

#[test]
fn reload_segments_stops_with_one_line_when_redis_is_down_or_refuses() {
    let env = TestEnv::distributed();
    for app in ["1", "2", "3"] {
        env.ok(&["init-app", "--app", app, "--name", &format!("app{app}")]);
    }
    let (user, _) = crate::secrets::redis_user(&env, "reload", &["~*", "&*", "+@all"]);
    let refused = crate::secrets::redis_url_for(&env, &format!("{user}:wrong"));
    for (redis, code) in [("redis://127.0.0.1:1/0", 5), (refused.as_str(), 12)] {
        for quiet in [false, true] {
            let mut args = vec!["--timeout", "3s", "reload-segments"];
            if quiet {
                args.push("--quiet");
            }
            let started = std::time::Instant::now();
            let run = with_redis(&env, redis)
                .args(args)
                .status(code)
                .stdout_is("")
                .run();
            run.one_line_error();
            assert!(started.elapsed() < Duration::from_secs(6), "{run}");
        }
    }
}

#[test]
fn reload_segments_stops_with_one_line_when_mysql_refuses_the_update() {
    let env = TestEnv::distributed();
    // A ledger this user may read but not write: every refill would be refused.
    let url = crate::secrets::mysql_user("noupdate", "nu-pass", "ALL");
    let init = ["init-app", "--app", "1", "--name", "one"];
    with_mysql(&env, &url, Some("nu-pass"))
        .args(init)
        .status(exit_code::OK)
        .run();
    let name = url.rsplit_once('/').unwrap().1;
    crate::harness::servers::mysql_exec(
        &format!("{}/mysql", crate::harness::servers::mysql_with_grants()),
        &format!(
            "REVOKE ALL ON `{name}`.* FROM '{name}'@'%'; GRANT SELECT ON `{name}`.* TO '{name}'@'%'"
        ),
    );
    with_mysql(&env, &url, Some("nu-pass"))
        .args(["reload-segments", "--quiet"])
        .status(exit_code::ACCESS)
        .one_line_error("MySQL")
        .run();
}

#[test]
fn per_shard_failures_are_one_line_per_app_and_cause() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one", "--step", "10"]);
    env.ok(&["init-app", "--app", "2", "--name", "two", "--step", "10"]);
    spoil_queues(&env, 1);
    // Bad data outranks the generic partial failure (6).
    let run = Test::within(&env)
        .args(["reload-segments", "--quiet"])
        .status(exit_code::BAD_DATA)
        .run();
    let stderr = lines(&run.stderr);
    assert!(
        (1..=2).contains(&stderr.len()),
        "expected a line per app at most: {run}"
    );
    assert!(
        stderr[0].starts_with(
            "error: app 1: 64 shards (0-63) on node main: Redis key id.gen.idList_1_{0..63} holds"
        ),
        "{run}"
    );
    assert!(
        stderr[0].contains("redis-cli DEL id.gen.idList_1_{0..63}"),
        "{run}"
    );
}

// ---- terminal and JSON hygiene -----------------------------------------------------

#[test]
fn control_characters_in_stored_text_are_escaped() {
    let env = TestEnv::embedded();
    let name = "evil\u{1b}[2J\nname\u{7}";
    // idgen refuses such a name; another writer (SQL, the Java service's
    // admin) can still store one, and every output escapes it.
    Test::within(&env)
        .args(["init-app", "--app", "1", "--name", name])
        .status(exit_code::USAGE)
        .one_line_error("control character")
        .run();
    env.ok(&["init-app", "--app", "1", "--name", "plain"]);
    env.sqlite()
        .execute("UPDATE id_alloc SET app_name = ?1 WHERE app_id = 1", [name])
        .unwrap();
    for run in [
        Test::within(&env).args(["app", "show", "1"]).run(),
        Test::within(&env).arg("status").run(),
        Test::within(&env)
            .args(["init-app", "--app", "1", "--name", "other"])
            .run(),
    ] {
        for text in [&run.stdout, &run.stderr] {
            assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{run}");
            assert!(!text.contains("evil\n"), "{run}");
        }
        let shown = format!("{}{}", run.stdout, run.stderr);
        assert!(shown.contains("evil\\u{1b}[2J\\nname\\u{7}"), "{run}");
    }
}

#[test]
fn values_that_may_exceed_2_pow_53_are_strings_in_json() {
    let env = TestEnv::embedded();
    let limit = "9007199254740993";
    let report = Test::within(&env)
        .args([
            "init-app",
            "--app",
            "1",
            "--name",
            "big",
            "--max-limit-id",
            limit,
            "--json",
        ])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["max_limit_id"], limit, "{report}");
    let report = Test::within(&env).args(["status", "--json"]).run().json();
    assert_eq!(report["apps"][0]["max_limit_id"], limit, "{report}");
    // Counts stay numbers.
    assert!(report["apps"][0]["shards"].is_u64(), "{report}");
}

#[test]
fn a_failed_write_to_stdout_exits_non_zero_and_says_so() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    let mut cmd = Test::within(&env)
        .args(["next", "--app", "1", "--count", "1000"])
        .command();
    cmd.stdout(std::fs::File::create("/dev/full").unwrap())
        .stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(i32::from(exit_code::OUTPUT)),
        "{out:?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot write to stdout"), "{stderr}");
    assert!(stderr.contains("1000 IDs were issued"), "{stderr}");

    // A reader that closes the pipe early: far more output than a pipe buffers.
    let mut cmd = Test::within(&env)
        .args(["next", "--app", "1", "--count", "200000"])
        .command();
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(i32::from(exit_code::OUTPUT)),
        "{stderr}"
    );
    assert!(stderr.contains("closed the pipe"), "{stderr}");
}

/// Runs `test` with its stdout closed before it writes a byte: every write
/// meets a closed pipe. Returns the exit code and stderr.
fn with_stdout_closed(test: Test<'_>) -> (Option<i32>, String) {
    let mut child = test
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), stderr)
}

/// `idgen status | head -1` and the like: a command that hands out no IDs
/// ends quietly when its reader has had enough, as rg and fd do.
#[test]
fn a_read_only_command_ends_quietly_on_a_closed_pipe() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    for args in [
        &["status"][..],
        &["app", "show", "1"],
        &["completions", "bash"],
        &["config"],
    ] {
        let (code, stderr) = with_stdout_closed(Test::within(&env).args(args));
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "{args:?}");
    }
}

/// IDs written to a reader that left are lost: `next` says so, and fails.
#[test]
fn next_reports_a_closed_pipe_since_the_ids_it_wrote_are_lost() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let (code, stderr) =
        with_stdout_closed(Test::within(&env).args(["next", "--app", "1", "-n", "1000"]));
    assert_eq!(code, Some(14), "{stderr}");
    assert!(stderr.contains("Broken pipe"), "{stderr}");
}

/// A refused connection is a server down or a wrong port: the hint must not
/// send the operator after TLS (a TLS-only port accepts, then drops).
#[test]
fn a_refused_redis_connection_does_not_blame_tls() {
    Test::new()
        .args(["--redis", "redis://127.0.0.1:1", "--timeout", "2s"])
        .args(["--mysql", "mysql://root@127.0.0.1:1/x"])
        .args(["next", "--app", "1"])
        .status(exit_code::UNAVAILABLE)
        .stderr("refused")
        .stderr_lacks("TLS")
        .run();
}

#[test]
fn verbose_says_what_a_warm_next_did_one_round_trip_and_no_mysql() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    env.ok(&["reload-segments", "--quiet"]);
    // The probe of the server rides with the take.
    Test::within(&env)
        .args(["-v", "next", "--app", "1"])
        .status(exit_code::OK)
        .stderr("work: Redis: 1 connection, 1 round trip; 0 segments from the ledger; 0 retries")
        .stderr_lacks("MySQL")
        .run();
    // reload-segments reads the ledger: the line counts MySQL's part.
    let run = Test::within(&env)
        .args(["-v", "reload-segments", "--app", "1", "--quiet"])
        .status(exit_code::OK)
        .stderr("MySQL: ")
        .run();
    assert!(run.stderr.contains(" queries;"), "{run}");
}

#[test]
fn verbose_counts_the_segments_a_cold_next_takes_from_the_embedded_store() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "one", "--step", "1000"]);
    Test::within(&env)
        .args(["-v", "next", "--app", "1"])
        .status(exit_code::OK)
        .stderr("embedded store: ")
        .stderr("1 segment from the ledger (1000 indexes)")
        .run();
}
