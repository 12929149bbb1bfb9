//! Placeholder: being written (`idgen decode`).

use crate::dispatch::Context;
use crate::exit::Outcome;

#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    /// IDs to decode
    pub ids: Vec<String>,
}

pub async fn run(_args: DecodeArgs, _ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    anyhow::bail!("decode is not built yet")
}
