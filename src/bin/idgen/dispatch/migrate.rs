//! `idgen migrate`: move an app's stock to another Redis node without repeats.

use crate::confirm::{self, Answer};
use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::output::TextRows;
use idgen::backend::Backend;
use idgen::segment::migrate::{MovePhase, MovePlan, MoveProgress, MoveReport};
use idgen::store::sqlite::SqliteStore;
use indicatif::ProgressBar;
use serde_json::json;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen --redis-node hot=redis://10.0.0.7:6379 migrate --app 1 --to hot --dry-run
  idgen migrate --app 1 --to hot            # asks for confirmation on a terminal
  idgen migrate --app 1 --to hot --yes      # from scripts; rerun it if it was interrupted
  idgen --redis redis://prod:6379 --mysql mysql://idgen@db/idgen \
      migrate --app 1 --from-store ~/.local/share/idgen/idgen.db --yes   # laptop to production

Between Redis nodes: the new node is stocked from fresh segments, the route is
switched in MySQL, then the old node's stock is retired shard by shard (it
becomes a gap). `next` and `reload-segments` may keep running throughout.

Out of an embedded store (--from-store, with Redis and MySQL configured): the
app is sealed in the store file (it takes no more segments there), created in
MySQL above every index the store handed out, its embedded stock is dropped,
and the Redis node (--to, default main) is stocked.")]
pub struct MigrateArgs {
    /// The app to move
    #[arg(long, value_name = "ID")]
    pub app: u8,

    /// The Redis node to move it to (a name from --redis-node or the config file)
    #[arg(
        long,
        value_name = "NODE",
        required_unless_present = "from_store",
        value_hint = clap::ValueHint::Other
    )]
    pub to: Option<String>,

    /// Move the app out of this embedded store file into the configured Redis + MySQL
    #[arg(long, value_name = "PATH")]
    pub from_store: Option<std::path::PathBuf>,

    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Move without asking
    #[arg(long)]
    pub yes: bool,

    /// Print the plan and the result as JSON
    #[arg(long)]
    pub json: bool,
}

struct Bar {
    out: ProgressBar,
}

impl Bar {
    /// A progress bar (TTY only), and the flag by which SIGINT/SIGTERM stop a
    /// move between shards, never inside one.
    fn start(ctx: &Context<'_>) -> (Self, std::sync::Arc<std::sync::atomic::AtomicBool>) {
        let bar = Bar {
            out: ctx.out.progress(0, "moving"),
        };
        (bar, ctx.interrupt.graceful())
    }

    fn finish<T>(&self, result: idgen::Result<T>) -> idgen::Result<T> {
        self.out.finish_and_clear();
        result
    }
}

/// Asks before a move (or takes `--yes`); says so when the answer is no.
fn agreed(ctx: &Context<'_>, action: &str, yes: bool) -> anyhow::Result<bool> {
    let hint = "rerun with --yes to move without asking, or with --dry-run to see the plan";
    match confirm::ask(ctx.out, action, yes, hint)? {
        Answer::Yes => Ok(true),
        Answer::No => {
            ctx.out.note("nothing changed");
            Ok(false)
        }
    }
}

fn warn_all(
    ctx: &Context<'_>,
    ledger: &str,
    warnings: &[String],
    rollbacks: &[idgen::store::Rollback],
    ledger_rollbacks: &[idgen::store::LedgerRollback],
) {
    let notes = idgen::segment::allocator::Notes {
        warnings: warnings.to_vec(),
        rollbacks: rollbacks.to_vec(),
        ledger_rollbacks: ledger_rollbacks.to_vec(),
    };
    for line in notes.lines(ledger) {
        ctx.out.warn(&line);
    }
}

impl MoveProgress for Bar {
    fn phase(&self, what: &str, shards: u64) {
        self.out.set_message(what.to_string());
        self.out.set_length(shards);
        self.out.set_position(0);
    }

    fn advance(&self) {
        self.out.inc(1);
    }
}

fn phase_text(phase: MovePhase) -> &'static str {
    match phase {
        MovePhase::NotStarted => "not started",
        MovePhase::Stocking => "interrupted while stocking: resumes",
        MovePhase::Retiring => "interrupted while retiring: resumes",
        MovePhase::Done => "already there",
    }
}

pub async fn run(args: MigrateArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let backend = Backend::open_existing(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    if let Some(path) = &args.from_store {
        return leave_store(&args, path, &backend, ctx).await;
    }
    let to = args.to.clone().unwrap_or_default();
    let allocator = backend.allocator(&ctx.settings);
    let plan = allocator.plan_move(args.app, &to).await?;
    if plan.phase == MovePhase::Done {
        if args.json {
            render_plan(ctx, &plan, true)?;
        } else {
            ctx.out.print_line(&format!(
                "app {} is already served by node {}; nothing to do",
                plan.app, plan.to
            ))?;
        }
        return Ok(Outcome::Success);
    }
    if args.dry_run {
        render_plan(ctx, &plan, args.json)?;
        return Ok(Outcome::Success);
    }
    if !args.json {
        render_plan(ctx, &plan, false)?;
    }
    let action = format!(
        "move app {} ({}) from node {} to node {}",
        plan.app, plan.name, plan.from, plan.to
    );
    if !agreed(ctx, &action, args.yes)? {
        return Ok(Outcome::Declined);
    }
    let (bar, cancel) = Bar::start(ctx);
    let report = bar.finish(allocator.run_move(&plan, &bar, &cancel).await)?;
    warn_all(
        ctx,
        &allocator.ledger().describe(),
        &report.warnings,
        &report.rollbacks,
        &report.ledger_rollbacks,
    );
    render_report(ctx, &plan, &report, args.json)?;
    Ok(Outcome::Success)
}

/// `--json`: the plan and the result (`null` before the move ran);
/// otherwise the one table that says it.
fn show<R: serde::Serialize>(
    ctx: &Context<'_>,
    json: bool,
    plan: &impl serde::Serialize,
    result: Option<&R>,
    header: &[&str],
    row: Vec<String>,
) -> anyhow::Result<()> {
    if json {
        ctx.out
            .print_json(&json!({ "plan": plan, "result": result }))?;
        return Ok(());
    }
    let mut table = ctx.out.table();
    table.set_header(header.to_vec());
    table.add_text_row(row);
    ctx.out.print_table(&table)?;
    Ok(())
}

fn render_plan(ctx: &Context<'_>, plan: &MovePlan, json: bool) -> anyhow::Result<()> {
    show::<()>(
        ctx,
        json,
        plan,
        None,
        &[
            "app",
            "name",
            "from",
            "to",
            "state",
            "dispenser",
            "stock on from (becomes a gap)",
        ],
        vec![
            plan.app.to_string(),
            plan.name.clone(),
            plan.from.clone(),
            plan.to.clone(),
            phase_text(plan.phase).to_string(),
            plan.dispenser.as_str().to_string(),
            plan.stock_on_from.to_string(),
        ],
    )
}

fn render_report(
    ctx: &Context<'_>,
    plan: &MovePlan,
    report: &MoveReport,
    json: bool,
) -> anyhow::Result<()> {
    show(
        ctx,
        json,
        plan,
        Some(report),
        &[
            "moved",
            "shards stocked",
            "IDs stocked",
            "shards retired",
            "IDs retired",
        ],
        vec![
            format!("app {}: {} -> {}", plan.app, plan.from, plan.to),
            report.shards_stocked.to_string(),
            report.ids_stocked.to_string(),
            report.shards_retired.to_string(),
            report.ids_retired.to_string(),
        ],
    )
}

/// `--from-store`: the way from a laptop's embedded store to production.
async fn leave_store(
    args: &MigrateArgs,
    path: &std::path::Path,
    backend: &Backend,
    ctx: &Context<'_>,
) -> anyhow::Result<Outcome> {
    let source = SqliteStore::open_existing(path, ctx.settings.timeout)?;
    let allocator = backend.allocator(&ctx.settings);
    let exit = backend.store_exit(&source, &allocator)?;
    let to = args
        .to
        .clone()
        .unwrap_or_else(|| idgen::config::DEFAULT_NODE.to_string());
    let plan = exit.plan(args.app, &to).await?;
    let render_plan = |json: bool| {
        show::<()>(
            ctx,
            json,
            &plan,
            None,
            &[
                "app",
                "name",
                "from store",
                "to node",
                "state",
                "stock in store (becomes a gap)",
            ],
            vec![
                plan.app.to_string(),
                plan.name.clone(),
                plan.source.clone(),
                plan.to.clone(),
                if plan.sealed {
                    "sealed: resumes"
                } else {
                    "not started"
                }
                .to_string(),
                plan.stock_in_source.to_string(),
            ],
        )
    };
    if args.dry_run {
        render_plan(args.json)?;
        return Ok(Outcome::Success);
    }
    if !args.json {
        render_plan(false)?;
    }
    let action = format!(
        "move app {} ({}) out of {} into {} (node {})",
        plan.app,
        plan.name,
        plan.source,
        backend.describe(),
        plan.to
    );
    if !agreed(ctx, &action, args.yes)? {
        return Ok(Outcome::Declined);
    }
    let (bar, cancel) = Bar::start(ctx);
    let report = bar.finish(exit.run(&plan, &bar, &cancel).await)?;
    warn_all(
        ctx,
        &backend.describe(),
        &report.warnings,
        &report.rollbacks,
        &report.ledger_rollbacks,
    );
    show(
        ctx,
        args.json,
        &plan,
        Some(&report),
        &[
            "moved",
            "highest index in store",
            "IDs dropped from store",
            "shards stocked",
            "IDs stocked",
        ],
        vec![
            format!("app {}: {} -> {}", plan.app, plan.source, plan.to),
            report
                .sealed_max_ids
                .iter()
                .max()
                .copied()
                .unwrap_or(0)
                .to_string(),
            report.ids_dropped_from_source.to_string(),
            report.shards_stocked.to_string(),
            report.ids_stocked.to_string(),
        ],
    )?;
    Ok(Outcome::Success)
}
