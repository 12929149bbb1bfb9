//! `idgen next`: issue segment IDs, one per line.

use crate::dispatch::Context;
use crate::exit::Outcome;
use anyhow::Context as _;
use idgen::backend::Backend;
use std::io::{BufWriter, Write};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen next --app 1
  idgen next --app 1 --gate-pass alice@example.com   # same shard as the Java service
  idgen next --app 1 --count 1000 > ids.txt")]
pub struct NextArgs {
    /// App ID, 0..=255
    #[arg(long, value_name = "ID")]
    pub app: u8,

    /// Pick the shard as the Java service does: abs(hashCode) % 64
    #[arg(long, value_name = "TEXT")]
    pub gate_pass: Option<String>,

    /// How many IDs to issue (1..=10000000)
    #[arg(long, short = 'n', default_value_t = 1)]
    pub count: u64,
}

pub async fn run(args: NextArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let backend = Backend::open_existing(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let allocator = backend.allocator(&ctx.settings);
    // An inline refill holds the shard's lock: let it finish before stopping.
    ctx.interrupt.graceful();
    let issued = allocator
        .next(args.app, args.gate_pass.as_deref(), args.count)
        .await?;
    for line in issued.notes.lines(&allocator.ledger().describe()) {
        ctx.out.warn(&line);
    }
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = itoa::Buffer::new();
    let written: std::io::Result<()> = issued
        .ids
        .iter()
        .try_for_each(|id| {
            out.write_all(line.format(*id).as_bytes())?;
            out.write_all(b"\n")
        })
        .and_then(|()| out.flush());
    written.with_context(|| {
        format!(
            "{} IDs were issued but not all delivered (the rest are a gap, never reissued)",
            issued.ids.len()
        )
    })?;
    match issued.failure {
        Some(failure) => Err(anyhow::Error::new(failure).context(format!(
            "issued {} of {} IDs",
            issued.ids.len(),
            args.count
        ))),
        None => Ok(Outcome::Success),
    }
}
