//! `idgen reload-segments`: the cron job that keeps every shard stocked.

use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::output::TextRows;
use idgen::backend::Backend;
use idgen::config::check_idle;
use idgen::segment::ReloadOptions;
use idgen::segment::allocator::{ReloadProgress, ReloadReport, shard_list};
use indicatif::ProgressBar;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen reload-segments                 # every app, idle 0.2
  idgen reload-segments --app 1 --json
  */2 * * * * idgen reload-segments --quiet   # crontab: silent unless something failed")]
pub struct ReloadArgs {
    /// Only this app
    #[arg(long, value_name = "ID")]
    pub app: Option<u8>,

    /// Refill a shard when its stock is at or below idle x its last segment [default: 0.2, or the config file's]
    #[arg(long, hide_env_values = true, env = "IDGEN_IDLE", value_name = "RATIO")]
    pub idle: Option<f64>,

    /// Delete stock of apps no longer in id_alloc (otherwise only reported)
    #[arg(long)]
    pub prune: bool,

    /// Batches refilled at once (a batch: up to 32 shards of one app)
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: u16,

    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,

    /// Print nothing unless a shard failed
    #[arg(long, short)]
    pub quiet: bool,
}

struct Bar(ProgressBar);

impl ReloadProgress for Bar {
    fn start(&self, shards: u64) {
        self.0.set_length(shards);
    }

    fn advance(&self) {
        self.0.inc(1);
    }
}

pub async fn run(args: ReloadArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let idle = check_idle(args.idle.unwrap_or(ctx.settings.idle))
        .map_err(|e| ctx.origins.blame("idle", e))?;
    let backend = Backend::open_existing(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let allocator = backend.allocator(&ctx.settings);
    let options = ReloadOptions {
        app: args.app,
        idle,
        prune: args.prune,
        jobs: usize::from(args.jobs),
        // A refill holds its shard's lock: let those under way finish.
        cancel: Some(ctx.interrupt.graceful()),
    };
    let bar = Bar(ctx.out.progress(0, "refilling"));
    let report = allocator.reload(&options, &bar).await?;
    bar.0.finish_and_clear();

    let ledger = allocator.ledger().describe();
    for warning in idgen::store::Rollback::summarize(&report.rollbacks)
        .iter()
        .chain(&idgen::store::LedgerRollback::summarize(
            &ledger,
            &report.ledger_rollbacks,
        ))
        .chain(&report.warnings)
    {
        ctx.out.warn(warning);
    }
    // Not a failure: every later run would fail alike until an operator acts.
    if !args.quiet {
        for exhausted in &report.exhausted {
            ctx.out.warn(&format!(
                "app {}: {} at max_limit_id {}, nothing left to refill; raise it with `idgen app set {} --max-limit-id N`, or move its callers to a new app",
                exhausted.app,
                shards_text(&exhausted.shards),
                exhausted.max_limit_id,
                exhausted.app
            ));
        }
    }
    // One line per app and cause, however many shards failed.
    for group in &report.failure_groups {
        ctx.out.error(
            &format!(
                "app {}: {} on node {}: {}",
                group.app,
                shards_text(&group.shards),
                group.node,
                group.error
            ),
            group.hint.as_deref(),
        );
    }
    let failed = !report.failures.is_empty();
    if args.json {
        ctx.out.print_json(&report)?;
    } else if !args.quiet || failed {
        render(ctx, &report, args.prune)?;
    }
    Ok(if report.failed_on_bad_data() {
        Outcome::PartialOnBadData
    } else if failed {
        Outcome::Partial
    } else {
        Outcome::Success
    })
}

fn render(ctx: &Context<'_>, report: &ReloadReport, prune: bool) -> anyhow::Result<()> {
    let mut table = ctx.out.table();
    table.set_header(vec![
        "shards checked",
        "below threshold",
        "refilled",
        "IDs added",
        "busy",
        "failed",
    ]);
    table.add_text_row(vec![
        report.shards_checked.to_string(),
        report.shards_below_threshold.to_string(),
        report.shards_refilled.to_string(),
        report.ids_added.to_string(),
        report.shards_busy.to_string(),
        report.failures.len().to_string(),
    ]);
    ctx.out.print_table(&table)?;
    if !report.orphans.is_empty() {
        let mut orphans = ctx.out.table();
        orphans.set_header(vec![
            "node",
            "app",
            "dispenser",
            "shards",
            "reason",
            "pruned IDs",
        ]);
        for orphan in &report.orphans {
            orphans.add_text_row(vec![
                orphan.node.clone(),
                orphan.app.to_string(),
                orphan.dispenser.as_str().to_string(),
                orphan.shards.len().to_string(),
                orphan.reason.clone(),
                orphan
                    .pruned_ids
                    .map_or_else(|| "-".to_string(), |n| n.to_string()),
            ]);
        }
        ctx.out.print_table(&orphans)?;
        if !prune {
            ctx.out
                .note("orphaned stock is only reported; rerun with --prune to delete it");
        }
    }
    Ok(())
}

/// `shard 3`, or `64 shards (0-63)`.
fn shards_text(shards: &[u8]) -> String {
    match shards {
        [only] => format!("shard {only}"),
        _ => format!("{} shards ({})", shards.len(), shard_list(shards)),
    }
}
