//! One module per subcommand: each parses its own arguments, calls the core and renders.

pub mod app;
pub mod completions;
pub mod config;
pub mod decode;
pub mod init_app;
pub mod inspect_freelist;
pub mod lease;
pub mod migrate;
pub mod namespace;
pub mod next;
pub mod reload_segments;
pub mod serve;
pub mod status;

use crate::cli::Command;
use crate::exit::Outcome;
use crate::output::Output;
use crate::settings::Origins;
use crate::signals::Interrupt;
use idgen::config::Settings;

/// What every command gets: where to write, the resolved settings, and the signal flag.
pub struct Context<'a> {
    pub out: &'a Output,
    pub settings: Settings,
    /// Where each option's value came from, for messages about a bad one.
    pub origins: Origins,
    pub interrupt: Interrupt,
}

pub async fn run(
    command: Command,
    settings: Settings,
    origins: Origins,
    out: &Output,
) -> anyhow::Result<Outcome> {
    if let Some(path) = &settings.config_file {
        out.info(&format!("config file: {}", path.display()));
    }
    let ctx = Context {
        out,
        settings,
        origins,
        interrupt: Interrupt::watch(),
    };
    let started = std::time::Instant::now();
    let result = dispatch(command, &ctx).await;
    if ctx.out.verbose {
        ctx.out.info(&describe_work(
            &idgen::activity::so_far(),
            started.elapsed(),
        ));
    }
    result
}

async fn dispatch(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let outcome = match command {
        Command::InitApp(args) => init_app::run(args, ctx).await,
        Command::Next(args) => next::run(args, ctx).await,
        Command::ReloadSegments(args) => reload_segments::run(args, ctx).await,
        Command::Migrate(args) => migrate::run(args, ctx).await,
        Command::Lease(args) => lease::run(args, ctx).await,
        Command::InspectFreelist(args) => inspect_freelist::run(args, ctx).await,
        Command::Decode(args) => decode::run(args, ctx).await,
        Command::Status(args) => status::run(args, ctx).await,
        Command::App(args) => app::run(args, ctx).await,
        Command::Namespace(args) => namespace::run(args, ctx).await,
        Command::Config(args) => config::run(args, ctx),
        Command::Man => completions::man(ctx),
        Command::Completions(args) => completions::run(args, ctx),
        // A signal is how a server is meant to stop: not an interruption.
        Command::Serve(args) => return serve::run(args, ctx).await,
    }?;
    if ctx.interrupt.raised() {
        // The command finished what it had started; say it did not run to its end.
        return Err(idgen::Error::Interrupted {
            what: "the command".into(),
        }
        .into());
    }
    Ok(outcome)
}

/// `--verbose`'s last line: the work the command did with its backends, so
/// "why was that slow?" and "did it touch MySQL?" have an answer.
fn describe_work(work: &idgen::activity::Activity, took: std::time::Duration) -> String {
    let counted = |n: u64, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let mut parts = Vec::new();
    if work.redis_connections + work.redis_round_trips > 0 {
        parts.push(format!(
            "Redis: {}, {}",
            counted(work.redis_connections, "connection", "connections"),
            counted(work.redis_round_trips, "round trip", "round trips")
        ));
    }
    if work.mysql_connections + work.mysql_queries > 0 {
        parts.push(format!(
            "MySQL: {}, {}",
            counted(work.mysql_connections, "connection", "connections"),
            counted(work.mysql_queries, "query", "queries")
        ));
    }
    if work.sqlite_transactions + work.reserve_takes > 0 {
        let mut done = Vec::new();
        if work.sqlite_transactions > 0 {
            done.push(counted(
                work.sqlite_transactions,
                "transaction",
                "transactions",
            ));
        }
        if work.reserve_takes > 0 {
            done.push(counted(
                work.reserve_takes,
                "take from its reserve",
                "takes from its reserve",
            ));
        }
        parts.push(format!("embedded store: {}", done.join(", ")));
    }
    if parts.is_empty() {
        parts.push("no backend contacted".to_string());
    }
    parts.push(format!(
        "{} from the ledger{}",
        counted(work.segments_taken, "segment", "segments"),
        if work.segments_taken > 0 {
            format!(" ({} indexes)", work.indexes_taken)
        } else {
            String::new()
        }
    ));
    parts.push(counted(work.retries, "retry", "retries"));
    format!(
        "work: {}; {}",
        parts.join("; "),
        idgen::error::fmt_duration(took)
    )
}
