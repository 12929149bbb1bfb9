//! One module per subcommand: each parses its own arguments, calls the core and renders.

pub mod decode;

use crate::cli::{Cli, Command};
use crate::exit::Outcome;
use crate::output::Output;
use idgen::config::Settings;

/// What every command gets: where to write, and the resolved settings.
pub struct Context<'a> {
    pub out: &'a Output,
    pub settings: Settings,
}

pub async fn run(cli: Cli, out: &Output) -> anyhow::Result<Outcome> {
    let settings = crate::settings::resolve(&cli.globals)?;
    let ctx = Context { out, settings };
    match cli.command {
        Command::Decode(args) => decode::run(args, &ctx).await,
    }
}
