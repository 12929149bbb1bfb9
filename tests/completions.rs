//! `idgen completions` and the committed scripts under `completions/`.

use crate::harness::{Run, Test};
use idgen::exit_code;
use std::path::Path;

/// Each shell and the file its committed script lives in.
const SHELLS: &[(&str, &str)] = &[
    ("bash", "idgen.bash"),
    ("zsh", "_idgen"),
    ("fish", "idgen.fish"),
    ("powershell", "_idgen.ps1"),
    ("elvish", "idgen.elv"),
];

fn completions(shell: &str) -> Run {
    Test::new()
        .args(["completions", shell])
        .status(exit_code::OK)
        .run()
}

#[test]
fn committed_completion_scripts_match_the_cli() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let mut stale = Vec::new();
    for (shell, file) in SHELLS {
        let run = completions(shell);
        let committed = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        if committed != run.stdout {
            stale.push(format!("completions/{file}"));
        }
    }
    assert!(
        stale.is_empty(),
        "{} out of date with the CLI; regenerate with `scripts/update-completions.sh` and commit the result",
        stale.join(", ")
    );
}

#[test]
fn every_subcommand_and_global_flag_is_completed() {
    let script = completions("bash").stdout;
    for word in [
        "init-app",
        "next",
        "reload-segments",
        "lease",
        "inspect-freelist",
        "decode",
        "status",
        "completions",
        "--config",
        "--redis",
    ] {
        assert!(script.contains(word), "bash completion lacks {word}");
    }
    let fish = completions("fish").stdout;
    assert!(fish.contains("complete -c idgen"), "{fish}");
}

#[test]
fn completions_work_with_a_broken_config_file_and_no_backend() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "this is = not [valid").unwrap();
    let run = Test::new()
        .env("IDGEN_CONFIG", config.to_str().unwrap())
        .args(["completions", "zsh"])
        .status(exit_code::OK)
        .run();
    assert!(run.stdout.starts_with("#compdef idgen"), "{run}");
}

#[test]
fn an_unknown_shell_is_a_usage_error_naming_the_choices() {
    let run = Test::new()
        .args(["completions", "tcsh"])
        .status(exit_code::USAGE)
        .run();
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{run}");
    assert!(
        lines[0].contains("bash") && lines[0].contains("hint:"),
        "{run}"
    );
}

/// `idgen man` is for packagers (it writes man/idgen.1), hidden from help.
#[test]
fn the_hidden_man_command_is_offered_by_no_shell() {
    for (shell, _) in SHELLS {
        let script = completions(shell).stdout;
        assert!(
            !script.contains("man page") && !script.contains("subcmd__man"),
            "{shell} completion offers man"
        );
    }
    let bash = completions("bash").stdout;
    assert!(!bash.contains(" config man "), "{bash}");
}
