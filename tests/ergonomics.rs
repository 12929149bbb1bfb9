//! What every command owes an operator: examples in `--help`, `--json` where it
//! reports, one-line errors with a hint, colour and prompts only on a terminal.

use crate::harness::{Run, TestEnv, idgen_bin, wait_until};
use redis::Commands;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The subcommands `idgen --help` lists (without clap's `help`).
fn subcommands() -> Vec<String> {
    let run = Run::of({
        let mut cmd = Command::new(idgen_bin());
        cmd.arg("--help");
        cmd
    });
    assert!(run.success(), "{run}");
    run.stdout
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
        let mut cmd = Command::new(idgen_bin());
        cmd.args(&args);
        let run = Run::of(cmd);
        assert!(run.success(), "idgen {args:?}: {run}");
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
        let run = env.run(args);
        assert!(run.success(), "idgen {args:?}: {run}");
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
    let cases: &[(&str, &[&str], i32)] = &[
        (
            "init-app",
            &["init-app", "--app", "3", "--name", "accounts"],
            7,
        ),
        ("next", &["next", "--app", "9"], 3),
        ("reload-segments", &["reload-segments", "--app", "9"], 3),
        ("lease", &["lease", "--namespace", "no spaces"], 2),
        (
            "inspect-freelist",
            &["inspect-freelist", "--namespace", "never"],
            3,
        ),
        ("decode", &["decode", "12x"], 2),
        (
            "migrate",
            &["migrate", "--app", "3", "--to", "nowhere", "--yes"],
            3,
        ),
        ("status", &["status", "--idle", "2"], 2),
        ("completions", &["completions", "tcsh"], 2),
        ("", &["--timeout", "soon", "next", "--app", "3"], 2),
        ("", &["--config", bad_config, "next", "--app", "3"], 2),
        ("", &["next", "--app", "3", "--no-such-flag"], 2),
        ("", &["no-such-command"], 2),
    ];
    let covered: Vec<&str> = cases.iter().map(|(name, _, _)| *name).collect();
    for name in subcommands() {
        assert!(
            covered.contains(&name.as_str()),
            "add a representative error of `idgen {name}` to this test"
        );
    }
    for (_, args, code) in cases {
        let run = env.run(args);
        assert_eq!(run.code(), *code, "idgen {args:?}: {run}");
        let stderr = lines(&run.stderr);
        assert_eq!(stderr.len(), 1, "idgen {args:?}: expected one line: {run}");
        assert!(stderr[0].starts_with("error: "), "idgen {args:?}: {run}");
        assert!(
            stderr[0].contains("; hint: "),
            "idgen {args:?}: no hint: {run}"
        );
    }
}

/// Runs `idgen args…` in a pseudo-terminal 120 columns wide (`script`), with the
/// test environment's variables; stdout and stderr both arrive on the terminal.
fn in_terminal(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> Command {
    let base = env.idgen();
    let mut cmd = Command::new("script");
    cmd.env_clear();
    for (key, value) in base.get_envs() {
        if let Some(value) = value {
            cmd.env(key, value);
        }
    }
    cmd.envs(vars.iter().copied());
    let line: Vec<String> = std::iter::once(idgen_bin())
        .chain(args.iter().copied())
        .map(|word| format!("'{}'", word.replace('\'', r"'\''")))
        .collect();
    cmd.args([
        "-qec",
        &format!("stty cols 120; exec {}", line.join(" ")),
        "/dev/null",
    ]);
    cmd
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let env = TestEnv::distributed();
    let args = ["next", "--app", "99"];
    let piped = env.run(&args);
    assert_eq!(piped.code(), 3);
    assert!(
        !piped.stderr.contains('\x1b'),
        "colour into a pipe: {piped}"
    );

    let mut on_tty = in_terminal(&env, &args, &[]);
    on_tty.stdin(Stdio::null());
    let on_tty = Run::of(on_tty);
    assert_eq!(on_tty.code(), 3, "{on_tty}");
    assert!(on_tty.stdout.contains("\x1b[31;1merror:"), "{on_tty:?}");

    let mut no_color = in_terminal(&env, &args, &[("NO_COLOR", "1")]);
    no_color.stdin(Stdio::null());
    let no_color = Run::of(no_color);
    assert_eq!(no_color.code(), 3, "{no_color}");
    assert!(no_color.stdout.contains("error: "), "{no_color}");
    assert!(!no_color.stdout.contains('\x1b'), "{no_color:?}");
}

#[test]
fn reload_segments_draws_no_progress_bar_when_stderr_is_not_a_terminal() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let run = env.run(&["reload-segments"]);
    assert!(run.success(), "{run}");
    assert!(run.stderr.is_empty(), "stderr should be empty: {run:?}");
    assert!(run.stdout.contains("64"), "{run}");
    assert!(
        !run.stdout.contains('\r') && !run.stdout.contains('\x1b'),
        "{run:?}"
    );
}

#[test]
fn tables_on_a_terminal_use_box_drawing() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let mut cmd = in_terminal(&env, &["reload-segments"], &[("NO_COLOR", "1")]);
    cmd.stdin(Stdio::null());
    let run = Run::of(cmd);
    assert!(run.success(), "{run}");
    assert!(run.stdout.contains('│'), "{run}");
    assert!(run.stdout.contains("shards checked"), "{run}");
}

/// Runs `inspect-freelist --repair` in a terminal and answers its prompt with `key`.
fn answer_repair_prompt(env: &TestEnv, key: &str) -> (i32, String) {
    let mut cmd = in_terminal(env, &["inspect-freelist", "--repair"], &[("NO_COLOR", "1")]);
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
    let key = "idgen:{default}:free";
    let mut conn = env.redis();
    let first: u64 = conn.lindex(key, 0).unwrap();
    let _: () = conn.rpush(key, first).unwrap();
    let tampered: Vec<u64> = conn.lrange(key, 0, -1).unwrap();

    let (code, screen) = answer_repair_prompt(&env, "n");
    assert_eq!(code, 11, "{screen}");
    assert!(screen.contains("nothing changed"), "{screen}");
    let after_no: Vec<u64> = conn.lrange(key, 0, -1).unwrap();
    assert_eq!(after_no, tampered);

    let (code, screen) = answer_repair_prompt(&env, "y");
    assert_eq!(code, 0, "{screen}");
    let repaired: Vec<u64> = conn.lrange(key, 0, -1).unwrap();
    assert_eq!(
        repaired.iter().filter(|&&w| w == first).count(),
        1,
        "{repaired:?}"
    );
    assert_eq!(env.run(&["inspect-freelist"]).code(), 0);
}

#[test]
fn without_a_terminal_repair_refuses_instead_of_prompting() {
    let env = TestEnv::distributed();
    env.ok(&["lease", "--count", "1"]);
    let key = "idgen:{default}:free";
    let mut conn = env.redis();
    let first: u64 = conn.lindex(key, 0).unwrap();
    let _: () = conn.rpush(key, first).unwrap();
    let run = env.run(&["inspect-freelist", "--repair"]);
    assert_eq!(run.code(), 2, "{run}");
    let stderr = lines(&run.stderr);
    assert_eq!(stderr.len(), 1, "{run}");
    assert!(stderr[0].contains("hint: rerun with --yes"), "{run}");
}
