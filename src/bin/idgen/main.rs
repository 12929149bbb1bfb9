//! The `idgen` binary: parse, run, report. All rules live in the `idgen` library.

mod cli;
mod confirm;
mod dispatch;
mod exit;
mod exposition;
mod layout_args;
mod output;
mod settings;
mod signals;

use clap::FromArgMatches;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before anything reads the arguments or variables as text (a panic there
    // would print the raw bytes, a password with them): name what is not
    // UTF-8 by its position or name, never by its bytes.
    if let Some(problem) = not_utf8() {
        let out = output::Output::detect(false, Vec::new());
        out.error(
            &problem,
            Some("pass text: arguments, URLs and passwords must be valid UTF-8"),
        );
        return exit::exit(exit::usage());
    }
    settings::forget_empty_environment();
    // Built once: building it is most of what a short-lived process spends
    // before its work, and the origins of the settings are read from it too.
    // Never dropped: freeing its tree node by node cost a tenth of
    // `--version` and 6% of an embedded `next` (callgrind), and the process
    // ends soon after, which frees it at once.
    let mut command = std::mem::ManuallyDrop::new(cli::command());
    let parsed = command
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|matches| cli::Cli::from_arg_matches(&matches).map(|cli| (cli, matches)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        // Bare `idgen`: the short help, on stderr since nothing ran, and exit 2.
        // (Also with an IDGEN_* variable set, where clap calls it a missing subcommand.)
        Err(err)
            if matches!(
                err.kind(),
                clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                    | clap::error::ErrorKind::MissingSubcommand
            ) =>
        {
            eprint!("{}", command.render_help());
            return exit::exit(exit::usage());
        }
        Err(err) if !err.use_stderr() => {
            // --help and --version
            let _ = err.print();
            return exit::exit(0);
        }
        Err(err) => {
            let out = output::Output::detect(false, raw_secrets());
            let (problem, hint) = usage_error_line(&err, &command);
            // A Nagios check that cannot start is UNKNOWN, whatever went wrong.
            if is_nagios_check() {
                let state = exit::nagios(idgen::status::Severity::Unknown);
                let _ = out.print_line(&format!("IDGEN {} - {problem}", state.label));
                return exit::exit(state.code);
            }
            out.error(&problem, Some(&hint));
            return exit::exit(exit::usage());
        }
    };
    let origins = settings::Origins::from_matches(&command, &matches);
    // The config file's passwords are known to `Output` before anything can fail.
    let loaded = if cli.command.needs_settings() {
        settings::load(&cli.globals, &origins)
    } else {
        settings::Loaded {
            settings: Ok(idgen::config::Settings::default()),
            secrets: cli.globals.secrets(),
        }
    };
    let out = output::Output::detect(cli.globals.verbose, loaded.secrets);
    let mut settings = match loaded.settings {
        Ok(settings) => settings,
        // A Nagios check that cannot start is UNKNOWN, whatever went wrong.
        Err(err) if cli.command.is_nagios_check() => {
            let state = exit::nagios(idgen::status::Severity::Unknown);
            let _ = out.print_line(&format!("IDGEN {} - {}", state.label, one_line(&err)));
            return exit::exit(state.code);
        }
        Err(err) => return report(&out, &err),
    };
    // A command on the main thread has nothing else for it to do while the
    // embedded store works (signals are answered by their handler).
    settings.sqlite_in_place = cli.command.worker_threads().is_none();
    let mut runtime = match cli.command.worker_threads() {
        Some(count) => {
            let mut threads = tokio::runtime::Builder::new_multi_thread();
            threads.worker_threads(count);
            threads
        }
        None => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match runtime.enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            out.error(&format!("cannot start the async runtime: {err}"), None);
            return exit::exit(exit::for_kind(idgen::ErrorKind::Internal));
        }
    };
    let issues_ids = cli.command.issues_ids();
    let result = runtime.block_on(dispatch::run(cli.command, settings, origins, &out));
    // Do not wait for background connection tasks on the way out.
    runtime.shutdown_background();
    match result {
        Ok(outcome) => exit::exit(exit::for_outcome(outcome)),
        Err(err)
            if !issues_ids
                && write_failure(&err)
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            // The reader had what it wanted (`idgen status | head -1`).
            exit::exit(0)
        }
        Err(err) => report(&out, &err),
    }
}

/// Prints the one-line error and picks the exit code from the core error inside it.
fn report(out: &output::Output, err: &anyhow::Error) -> ExitCode {
    let core = err.chain().find_map(|e| e.downcast_ref::<idgen::Error>());
    let problem = one_line(err);
    if core.is_none()
        && let Some(io) = write_failure(err)
    {
        // Also a closed pipe (`idgen next -n 1000 | head`): the IDs not read are
        // lost, and a script must not take the run for a success.
        out.error(
            &format!("cannot write to stdout: {problem}"),
            Some(match io.kind() {
                std::io::ErrorKind::BrokenPipe => "the reader closed the pipe early; read all of the output, or ask for fewer items",
                _ => "check the disk space and the file or pipe stdout goes to",
            }),
        );
        return exit::exit(exit::for_write_failure());
    }
    let hint = core.and_then(idgen::Error::hint);
    out.error(&problem, hint.as_deref());
    let kind = core.map_or(idgen::ErrorKind::Internal, idgen::Error::kind);
    exit::exit(exit::for_kind(kind))
}

/// The error and its causes, each told once: an error whose message already
/// includes its cause's (`layout: unknown layout "x"`) does not repeat it.
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// The I/O error of a failed write to stdout: the binary's only raw I/O errors
/// (every other one reaches it inside a core error).
fn write_failure(err: &anyhow::Error) -> Option<&std::io::Error> {
    err.chain().find_map(|e| e.downcast_ref::<std::io::Error>())
}

/// Whether the raw arguments ask for `status --check`, for an error clap
/// reports before anything is parsed.
fn is_nagios_check() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let status = args.iter().position(|a| a == "status");
    status.is_some_and(|at| args[at..].iter().any(|a| a == "--check"))
}

/// The first argument (by position) or `IDGEN_*` variable (by name) that is
/// not valid UTF-8, described without its bytes.
fn not_utf8() -> Option<String> {
    if let Some(position) = std::env::args_os()
        .skip(1)
        .position(|arg| arg.to_str().is_none())
    {
        return Some(format!("argument {} is not valid UTF-8", position + 1));
    }
    std::env::vars_os()
        .find(|(name, value)| {
            name.to_str().is_some_and(|name| name.starts_with("IDGEN_")) && value.to_str().is_none()
        })
        .map(|(name, _)| format!("{} is not valid UTF-8", name.to_string_lossy()))
}

/// Secrets in the raw URL options, for a usage error clap reports before any
/// setting is resolved: from every argument and every URL variable.
fn raw_secrets() -> Vec<String> {
    let vars = [
        "IDGEN_REDIS_URL",
        "IDGEN_MYSQL_URL",
        cli::NODES_VARIABLE,
        "IDGEN_REDIS_PASSWORD",
        "IDGEN_MYSQL_PASSWORD",
    ]
    .into_iter()
    .filter_map(|name| std::env::var(name).ok());
    std::env::args()
        .skip(1)
        .filter(|arg| arg.contains('@') || arg.contains("://"))
        .chain(vars)
        .flat_map(|raw| {
            cli::node_specs(&raw)
                .into_iter()
                .flat_map(|spec| {
                    let url = spec.split_once('=').map_or(spec, |(_, url)| url);
                    idgen::redact::secrets_in(url)
                })
                .chain(idgen::redact::secrets_in(&raw))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Clap's usage errors span several lines; idgen reports every error on one,
/// naming the environment variable when that is where a bad value came from.
fn usage_error_line(err: &clap::Error, command: &clap::Command) -> (String, String) {
    let rendered = err.render().to_string();
    let problem = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut problem = problem
        .strip_prefix("error: ")
        .unwrap_or(&problem)
        .to_string();
    if let Some((flag, value)) = negative_value(err, command) {
        problem =
            format!("invalid value '{value}' for '{flag}': negative numbers are not accepted");
    }
    if let Some(var) = env_behind(err, command) {
        problem.push_str(&format!(" (from {var})"));
    }
    let subcommand = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .filter(|a| cli::is_subcommand(a));
    let hint = match subcommand {
        Some(name) => format!("see `idgen {name} --help`"),
        None => "see `idgen --help`".to_string(),
    };
    (problem, hint)
}

/// The option and the negative number given as its value, when clap took that
/// number for short flags: `--max-limit-id -5` is "unexpected argument '-5'"
/// to it, with a tip to write `-- -5`, which fails too. No option of idgen's
/// takes a negative number. Only options that parse numbers qualify, so a
/// password that starts with a digit after `-` is never repeated.
fn negative_value(err: &clap::Error, command: &clap::Command) -> Option<(String, String)> {
    if err.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let clap::error::ContextValue::String(unexpected) =
        err.get(clap::error::ContextKind::InvalidArg)?
    else {
        return None;
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    args.windows(2).find_map(|pair| {
        let (flag, value) = (&pair[0], &pair[1]);
        let number = value.strip_prefix('-')?;
        let is_number = !number.is_empty() && number.parse::<f64>().is_ok();
        let long = flag.strip_prefix("--").filter(|l| !l.contains('='))?;
        let takes_number = options_named(command, long).any(parses_numbers);
        (is_number && takes_number && value.starts_with(unexpected.as_str()))
            .then(|| (flag.clone(), value.clone()))
    })
}

/// Every option `--long` of the command line: the top level's first, then
/// each command's, then each subcommand's (`app set`).
fn options_named<'c>(
    command: &'c clap::Command,
    long: &'c str,
) -> impl Iterator<Item = &'c clap::Arg> {
    std::iter::once(command)
        .chain(command.get_subcommands())
        .chain(command.get_subcommands().flat_map(|c| c.get_subcommands()))
        .flat_map(|c| c.get_arguments())
        .filter(move |arg| arg.get_long() == Some(long))
}

/// Whether an option's values are numbers, so that the value may be repeated
/// in an error: a password option's never is, whatever it looks like.
fn parses_numbers(arg: &clap::Arg) -> bool {
    use std::any::TypeId;
    let parsed = arg.get_value_parser().type_id();
    [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<i64>(),
        TypeId::of::<f64>(),
    ]
    .iter()
    .any(|number| parsed == *number)
}

/// The variable that gave the value clap rejected, when the flag itself was not
/// on the command line.
fn env_behind(err: &clap::Error, command: &clap::Command) -> Option<String> {
    let clap::error::ContextValue::String(invalid) =
        err.get(clap::error::ContextKind::InvalidArg)?
    else {
        return None;
    };
    let long = invalid.strip_prefix("--")?.split([' ', '=']).next()?;
    let on_command_line = std::env::args()
        .skip(1)
        .any(|arg| arg == format!("--{long}") || arg.starts_with(&format!("--{long}=")));
    if on_command_line {
        return None;
    }
    options_named(command, long)
        .next()
        .and_then(|arg| arg.get_env())
        .filter(|env| std::env::var_os(env).is_some())
        .map(|env| env.to_string_lossy().into_owned())
}
