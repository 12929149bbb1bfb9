//! `idgen next`: issue segment IDs, one per line.

use crate::dispatch::Context;
use crate::exit::Outcome;
use anyhow::Context as _;
use idgen::backend::Backend;
use idgen::segment::SegmentAllocator;
use std::io::{BufWriter, Write};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen next --app 1
  idgen next --app 1 --gate-pass alice@example.com   # same shard as the Java service
  idgen next --app 1 --count 1000 > ids.txt")]
pub struct NextArgs {
    /// App ID, 0 to 255
    #[arg(long, value_name = "ID")]
    pub app: u8,

    /// Pick the shard as the Java service does: abs(hashCode) % 64
    #[arg(long, value_name = "TEXT")]
    pub gate_pass: Option<String>,

    /// How many IDs to issue, 1 to 10000000; written as they are issued
    #[arg(long, short = 'n', default_value_t = 1)]
    pub count: u64,
}

/// IDs asked of the allocator at a time: a large `--count` is written as it
/// is issued, in bounded memory (1 MiB of IDs), and a signal is answered
/// between pieces. Each piece may refill its shard from the ledger, so a
/// smaller piece costs round trips: at 16,384, `--count 100000` took seven
/// refills and twice the time of one piece (scripts/bench-against.sh).
const PIECE: u64 = 1 << 17;

pub async fn run(args: NextArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    idgen::segment::allocator::check_count(args.count)?;
    let backend = Backend::open_existing(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let allocator = backend.allocator(&ctx.settings);
    let ledger = allocator.ledger().describe();
    // An inline refill holds the shard's lock: let it finish before stopping.
    ctx.interrupt.graceful();
    // One shard for the whole count, as a single call would use.
    let shard = SegmentAllocator::shard_for(args.gate_pass.as_deref());
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = itoa::Buffer::new();
    let mut delivered = 0u64;
    while delivered < args.count {
        if ctx.interrupt.raised() {
            out.flush()
                .context("writing the IDs issued before the signal")?;
            return Err(idgen::Error::IssuingInterrupted {
                issued: delivered,
                asked: Some(args.count),
            }
            .into());
        }
        let piece = (args.count - delivered).min(PIECE);
        let issued = match allocator.next_on(args.app, shard, piece).await {
            Ok(issued) => issued,
            Err(e) if delivered == 0 => return Err(e.into()),
            Err(e) => {
                out.flush()
                    .context("writing the IDs issued before the failure")?;
                return Err(anyhow::Error::new(e)
                    .context(format!("issued {delivered} of {} IDs", args.count)));
            }
        };
        for note in issued.notes.lines(&ledger) {
            ctx.out.warn(&note);
        }
        let written: std::io::Result<()> = issued.ids.iter().try_for_each(|id| {
            out.write_all(line.format(*id).as_bytes())?;
            out.write_all(b"\n")
        });
        delivered += issued.ids.len() as u64;
        written.with_context(|| undelivered(delivered))?;
        if let Some(failure) = issued.failure {
            out.flush().with_context(|| undelivered(delivered))?;
            return Err(anyhow::Error::new(failure)
                .context(format!("issued {delivered} of {} IDs", args.count)));
        }
    }
    out.flush().with_context(|| undelivered(delivered))?;
    Ok(Outcome::Success)
}

fn undelivered(issued: u64) -> String {
    format!("{issued} IDs were issued but not all delivered (the rest are a gap, never reissued)")
}
