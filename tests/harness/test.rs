//! One way to run the binary and state what it must do:
//!
//! ```ignore
//! Test::new().args(["decode", "1"]).stdout("worker=0").status(exit_code::OK).run();
//! Test::within(&env).args(["next", "--app", "9"]).stderr("unknown app").status(exit_code::NOT_FOUND).run();
//! ```
//!
//! `run` checks every expectation and fails with the whole run shown.

use super::{Run, TestEnv, idgen_bin};
use std::io::Write;
use std::process::{Command, Stdio};

/// A run of `idgen` being described, then run and checked.
pub struct Test<'e> {
    env: Option<&'e TestEnv>,
    args: Vec<std::ffi::OsString>,
    vars: Vec<(String, std::ffi::OsString)>,
    unset: Vec<String>,
    stdin: Option<Vec<u8>>,
    terminal: bool,
    status: Option<i32>,
    stdout: Vec<String>,
    stderr: Vec<String>,
    stdout_is: Option<String>,
    lacks: Vec<(Stream, String)>,
    error: Option<String>,
}

#[derive(Debug, Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

impl Test<'static> {
    /// A run in a clean environment: `PATH` only, no `IDGEN_*`, no backend.
    pub fn new() -> Self {
        Test {
            env: None,
            args: Vec::new(),
            vars: Vec::new(),
            unset: Vec::new(),
            stdin: None,
            terminal: false,
            status: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_is: None,
            lacks: Vec::new(),
            error: None,
        }
    }
}

impl<'e> Test<'e> {
    /// A run with a test environment's backend, home and settings.
    pub fn within(env: &'e TestEnv) -> Self {
        Test {
            env: Some(env),
            ..Test::new()
        }
    }

    pub fn arg(mut self, arg: impl Into<std::ffi::OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_os_string()));
        self
    }

    /// Sets an environment variable for this run.
    pub fn env(mut self, name: &str, value: impl Into<std::ffi::OsString>) -> Self {
        self.vars.push((name.to_string(), value.into()));
        self
    }

    /// Sets each of `vars` for this run.
    pub fn envs(self, vars: &[(&str, &str)]) -> Self {
        vars.iter()
            .fold(self, |test, (name, value)| test.env(name, *value))
    }

    /// Removes an environment variable the environment would set (a backend URL).
    pub fn unset(mut self, name: &str) -> Self {
        self.unset.push(name.to_string());
        self
    }

    /// Writes `text` to the process's stdin, then closes it.
    pub fn stdin(mut self, text: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(text.into());
        self
    }

    /// Runs on a pseudo-terminal 120 columns wide (util-linux `script`):
    /// stdout and stderr both arrive on the terminal, as `stdout`.
    pub fn terminal(mut self) -> Self {
        self.terminal = true;
        self
    }

    /// The exit code the run must end with.
    /// The exit code, by name: `.status(exit_code::USAGE)`
    /// (`exit_code::nagios::WARNING` under `status --check`).
    pub fn status(mut self, code: u8) -> Self {
        self.status = Some(i32::from(code));
        self
    }

    /// Text stdout must contain.
    pub fn stdout(mut self, text: impl Into<String>) -> Self {
        self.stdout.push(text.into());
        self
    }

    /// Text stderr must contain.
    pub fn stderr(mut self, text: impl Into<String>) -> Self {
        self.stderr.push(text.into());
        self
    }

    /// The whole of stdout.
    pub fn stdout_is(mut self, text: impl Into<String>) -> Self {
        self.stdout_is = Some(text.into());
        self
    }

    /// Text stdout must not contain.
    pub fn stdout_lacks(mut self, text: impl Into<String>) -> Self {
        self.lacks.push((Stream::Stdout, text.into()));
        self
    }

    /// Text stderr must not contain.
    pub fn stderr_lacks(mut self, text: impl Into<String>) -> Self {
        self.lacks.push((Stream::Stderr, text.into()));
        self
    }

    /// The run fails with one stderr line, `error: …; hint: …`, containing `text`
    /// (see [`Run::one_line_error`]); pair it with `status` for the exit code.
    pub fn one_line_error(mut self, text: impl Into<String>) -> Self {
        self.error = Some(text.into());
        self
    }

    /// The command as described, for a test that drives the process itself.
    pub fn command(&self) -> Command {
        let mut cmd = match self.env {
            Some(env) => env.idgen(),
            None => {
                let mut cmd = Command::new(idgen_bin());
                cmd.env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default());
                cmd
            }
        };
        for name in &self.unset {
            cmd.env_remove(name);
        }
        cmd.args(&self.args);
        cmd.envs(self.vars.iter().map(|(k, v)| (k, v)));
        if self.terminal {
            on_terminal(&cmd)
        } else {
            cmd
        }
    }

    /// Runs to the end and checks every expectation.
    pub fn run(self) -> Run {
        let mut cmd = self.command();
        let run = match &self.stdin {
            None => {
                cmd.stdin(Stdio::null());
                Run::of(cmd)
            }
            Some(text) => {
                cmd.stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let mut child = cmd.spawn().expect("spawn idgen");
                let mut input = child.stdin.take().expect("piped stdin");
                input.write_all(text).expect("write stdin");
                drop(input);
                Run::wait(child)
            }
        };
        let mut run = run;
        if self.terminal {
            run.stdout = run.stdout.replace("\r\n", "\n");
        }
        if let Some(code) = self.status {
            assert_eq!(run.code(), code, "idgen {:?}: {run}", self.args);
        }
        for text in &self.stdout {
            assert!(
                run.stdout.contains(text.as_str()),
                "idgen {:?}: stdout lacks {text:?}: {run}",
                self.args
            );
        }
        for text in &self.stderr {
            assert!(
                run.stderr.contains(text.as_str()),
                "idgen {:?}: stderr lacks {text:?}: {run}",
                self.args
            );
        }
        if let Some(text) = &self.stdout_is {
            assert_eq!(&run.stdout, text, "idgen {:?}: {run}", self.args);
        }
        for (stream, text) in &self.lacks {
            let seen = match stream {
                Stream::Stdout => &run.stdout,
                Stream::Stderr => &run.stderr,
            };
            assert!(
                !seen.contains(text.as_str()),
                "idgen {:?}: {stream:?} holds {text:?}: {run}",
                self.args
            );
        }
        if let Some(text) = &self.error {
            let line = run.one_line_error();
            assert!(
                line.contains(text.as_str()),
                "idgen {:?}: the error lacks {text:?}: {run}",
                self.args
            );
        }
        run
    }
}

/// `cmd` run inside util-linux `script`, so that it has a terminal. Fails,
/// never skips, where `script` is missing (`.ci/run` installs it).
pub fn on_terminal(cmd: &Command) -> Command {
    let present = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        present,
        "these tests need util-linux `script` to give idgen a terminal; install bsdutils (Debian, Ubuntu) or util-linux"
    );
    let line: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|word| format!("'{}'", word.to_string_lossy().replace('\'', r"'\''")))
        .collect();
    let mut script = Command::new("script");
    script.env_clear();
    for (key, value) in cmd.get_envs() {
        if let Some(value) = value {
            script.env(key, value);
        }
    }
    script.args([
        "-qec",
        &format!("stty cols 120 rows 40; exec {}", line.join(" ")),
        "/dev/null",
    ]);
    script
}
