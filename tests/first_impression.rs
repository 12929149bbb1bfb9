//! The CLI's first impression: bare `idgen`, `--version`, the committed man page.

use crate::harness::{Run, Test};
use idgen::exit_code;
use std::path::Path;
use std::process::Command;

#[test]
fn bare_idgen_prints_short_help_and_exits_2() {
    Test::new()
        .status(exit_code::USAGE)
        .stdout_is("")
        .stderr("Usage: idgen")
        .stderr("Commands:")
        // Not the description presented as an error.
        .stderr_lacks("error:")
        .run();
}

/// With an `IDGEN_*` variable set (as on a deployed host), still the help.
#[test]
fn bare_idgen_prints_the_help_whatever_the_environment() {
    Test::new()
        .env("IDGEN_TIMEOUT", "5s")
        .status(exit_code::USAGE)
        .stderr("Usage: idgen")
        .stderr_lacks("error:")
        .stderr_lacks("man,")
        .run();
}

#[test]
fn version_names_the_commit_and_the_features() {
    let run = Test::new().arg("--version").status(exit_code::OK).run();
    let line = run.stdout.trim();
    assert!(
        line.starts_with(&format!("idgen {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{line}"
    );
    let commit = line
        .split("commit ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{line}"
    );
    // The suite's binary is built with its test hooks on.
    assert!(line.contains("features: test-hooks"), "{line}");
}

#[test]
fn subcommand_help_puts_global_options_under_their_own_heading() {
    let run = Test::new().args(["status", "--help"]).run();
    let global = run
        .stdout
        .find("Global options:")
        .unwrap_or_else(|| panic!("{run}"));
    let mysql = run.stdout.find("--mysql").unwrap();
    assert!(mysql > global, "{run}");
    assert!(run.stdout.find("--check").unwrap() < global, "{run}");
}

#[test]
fn decode_help_shows_no_backend_options_yet_accepts_them() {
    let mut help = Test::new()
        .args(["decode", "--help"])
        .status(exit_code::OK)
        .stdout("--config");
    for backend in ["--redis", "--mysql", "--store", "--dispenser", "--timeout"] {
        help = help.stdout_lacks(backend);
    }
    help.run();
    // A shared environment or an alias that passes them still works.
    Test::new()
        .args([
            "decode",
            "1",
            "--redis",
            "redis://nowhere:1",
            "--timeout",
            "1s",
        ])
        .stdout("worker=0")
        .status(exit_code::OK)
        .run();
}

#[test]
fn the_committed_man_page_matches_the_cli() {
    let run = Test::new()
        .arg("man")
        .status(exit_code::OK)
        .stdout(".TH idgen 1")
        .run();
    let committed =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/idgen.1"))
            .unwrap_or_default();
    assert!(
        committed == run.stdout,
        "man/idgen.1 is out of date with the CLI; regenerate with `scripts/update-completions.sh` and commit the result"
    );
}

#[test]
fn value_flags_complete_to_values_not_file_names() {
    let bash = Test::new()
        .args(["completions", "bash"])
        .status(exit_code::OK)
        .run()
        .stdout;
    let after = |flag: &str| {
        let at = bash.find(&format!("                {flag})")).unwrap();
        bash[at..].lines().nth(1).unwrap().to_string()
    };
    assert!(
        after("--dispenser").contains("queue range"),
        "{}",
        after("--dispenser")
    );
    assert!(
        after("--layout").contains("snowflake"),
        "{}",
        after("--layout")
    );
    let zsh = Test::new()
        .args(["completions", "zsh"])
        .status(exit_code::OK)
        .run()
        .stdout;
    for flag in ["--to", "--namespace"] {
        let line = zsh
            .lines()
            .find(|l| l.starts_with(&format!("'{flag}=")))
            .unwrap();
        assert!(!line.contains("_files"), "{line}");
    }
}

#[test]
fn a_machine_without_the_servers_is_told_what_to_install_once() {
    // This suite again, one server test, with nothing on PATH.
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "status::status_rejects_a_bad_idle_ratio"])
        .env("PATH", "/nonexistent")
        .env_remove("IDGEN_TEST_REDIS_URL")
        .env_remove("IDGEN_TEST_REDIS2_URL")
        .env_remove("IDGEN_TEST_MYSQL_URL");
    let run = Run::of(cmd);
    assert_eq!(run.code(), i32::from(exit_code::USAGE), "{run}");
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{run}");
    assert!(errors[0].contains("redis-server"), "{run}");
    assert!(
        errors[0].contains("apt-get install -y redis-server mariadb-server"),
        "{run}"
    );
    assert!(!run.stderr.contains("panicked"), "{run}");
}

#[test]
fn the_layout_list_is_wherever_layout_points_to_it() {
    for command in ["decode", "lease"] {
        for flag in ["-h", "--help"] {
            Test::new()
                .args([command, flag])
                .stdout("see the list below")
                .stdout("\nLayouts (")
                .stdout("sonyflake")
                .run();
        }
    }
    // lease keeps its own options apart from the layout ones, and shows defaults.
    let help = Test::new().args(["lease", "--help"]).run().stdout;
    let layout = help.find("\nLayout:").unwrap();
    assert!(help.find("--namespace").unwrap() < layout, "{help}");
    assert!(help.find("--bits").unwrap() > layout, "{help}");
    assert!(help.contains("[default: 5s]"), "{help}");
}

/// clap would print `[env: IDGEN_TIMEOUT=]` for an unset variable, which reads
/// as "set to empty".
#[test]
fn help_names_each_variable_without_a_dangling_equals_sign() {
    Test::new()
        .args(["serve", "--help"])
        .status(exit_code::OK)
        .stdout("[env: IDGEN_TIMEOUT]")
        .stdout("IDGEN_EPOCH]")
        .stdout_lacks("IDGEN_TIMEOUT=")
        .stdout_lacks("IDGEN_EPOCH=")
        .stdout_lacks("IDGEN_STORE=")
        .run();
}

#[test]
fn help_gives_the_store_default_as_the_path_rule() {
    Test::new()
        .arg("--help")
        .status(exit_code::OK)
        .stdout("$XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db")
        .stdout_lacks("XDG data dir")
        .run();
}

#[test]
fn serve_listens_on_a_host_name_such_as_localhost() {
    let env = crate::harness::TestEnv::embedded();
    let port = crate::harness::servers::free_port();
    let mut child = Test::within(&env)
        .args(["serve", "--listen", &format!("localhost:{port}")])
        .command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    crate::harness::servers::wait_for("idgen serve on localhost", env.home.path(), || {
        assert!(child.try_wait().unwrap().is_none(), "idgen serve exited");
        std::net::TcpStream::connect(("localhost", port)).is_ok()
    });
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn status_right_after_the_quickstart_is_ok() {
    let env = crate::harness::TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "demo"]);
    env.ok(&["next", "--app", "1"]);
    Test::within(&env)
        .arg("status")
        .status(exit_code::OK)
        .stdout_lacks("WARNING")
        .run();
}

#[test]
fn help_shows_ranges_in_words_not_rust_syntax() {
    for command in ["next", "init-app", "app"] {
        Test::new()
            .args([command, "--help"])
            .status(exit_code::OK)
            .stdout_lacks("..=")
            .run();
    }
    Test::new()
        .args(["next", "--help"])
        .stdout("App ID, 0 to 255")
        .run();
}

/// clap takes `-5` after an option for short flags, and its tip (`-- -5`)
/// fails too: the error names the option and the value instead.
#[test]
fn a_negative_number_is_refused_as_the_option_s_value() {
    Test::new()
        .args(["app", "set", "4", "--max-limit-id", "-819200", "--yes"])
        .status(exit_code::USAGE)
        .stderr("invalid value '-819200' for '--max-limit-id': negative numbers are not accepted")
        .stderr_lacks("'-8'")
        .stderr_lacks("-- -")
        .run();
    Test::new()
        .args(["next", "--app", "1", "--count", "-5"])
        .status(exit_code::USAGE)
        .stderr("invalid value '-5' for '--count': negative numbers are not accepted")
        .run();
    // Not an option of numbers: clap's own words, and never the whole value.
    Test::new()
        .args(["next", "--app", "1", "--redis-password-file", "-12345"])
        .status(exit_code::USAGE)
        .stderr_lacks("-12345")
        .run();
}
