//! `idgen migrate`: move an app's stock to another Redis node without repeats.

use crate::confirm::{self, Answer};
use crate::dispatch::Context;
use crate::exit::Outcome;
use idgen::backend::Backend;
use idgen::segment::migrate::{MovePhase, MovePlan, MoveProgress, MoveReport};
use indicatif::ProgressBar;
use serde_json::json;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen --redis-node hot=redis://10.0.0.7:6379 migrate --app 1 --to hot --dry-run
  idgen migrate --app 1 --to hot            # asks for confirmation on a terminal
  idgen migrate --app 1 --to hot --yes      # from scripts; rerun it if it was interrupted

The new node is stocked from fresh segments, the route is switched in MySQL,
then the old node's stock is retired shard by shard (it becomes a gap).
`next` and `reload-segments` may keep running throughout.")]
pub struct MigrateArgs {
    /// The app to move
    #[arg(long, value_name = "ID")]
    pub app: u8,

    /// The Redis node to move it to (a name from --redis-node or the config file)
    #[arg(long, value_name = "NODE")]
    pub to: String,

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
    let backend = Backend::open(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.kind));
    let allocator = backend.allocator(&ctx.settings);
    let plan = allocator.plan_move(args.app, &args.to).await?;
    if plan.phase == MovePhase::Done {
        if args.json {
            ctx.out
                .print_json(&json!({ "plan": plan, "result": null }))?;
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
    let hint = "rerun with --yes to move without asking, or with --dry-run to see the plan";
    if let Answer::No = confirm::ask(ctx.out, &action, args.yes, hint)? {
        ctx.out.note("nothing changed");
        return Ok(Outcome::Declined);
    }

    // SIGINT/SIGTERM stop the move between shards, never inside one.
    let cancel = ctx.interrupt.graceful();
    let bar = Bar {
        out: ctx.out.progress(0, "moving"),
    };
    let result = allocator.run_move(&plan, &bar, &cancel).await;
    bar.out.finish_and_clear();
    let report = result?;
    for warning in &report.warnings {
        ctx.out.warn(warning);
    }
    render_report(ctx, &plan, &report, args.json)?;
    Ok(Outcome::Success)
}

fn render_plan(ctx: &Context<'_>, plan: &MovePlan, json: bool) -> anyhow::Result<()> {
    if json {
        ctx.out
            .print_json(&json!({ "plan": plan, "result": null }))?;
        return Ok(());
    }
    let mut table = ctx.out.table();
    table.set_header(vec![
        "app",
        "name",
        "from",
        "to",
        "state",
        "dispenser",
        "stock on from (becomes a gap)",
    ]);
    table.add_row(vec![
        plan.app.to_string(),
        plan.name.clone(),
        plan.from.clone(),
        plan.to.clone(),
        phase_text(plan.phase).to_string(),
        plan.dispenser.as_str().to_string(),
        plan.stock_on_from.to_string(),
    ]);
    ctx.out.print_table(&table)?;
    Ok(())
}

fn render_report(
    ctx: &Context<'_>,
    plan: &MovePlan,
    report: &MoveReport,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        ctx.out
            .print_json(&json!({ "plan": plan, "result": report }))?;
        return Ok(());
    }
    let mut table = ctx.out.table();
    table.set_header(vec![
        "moved",
        "shards stocked",
        "IDs stocked",
        "shards retired",
        "IDs retired",
    ]);
    table.add_row(vec![
        format!("app {}: {} -> {}", plan.app, plan.from, plan.to),
        report.shards_stocked.to_string(),
        report.ids_stocked.to_string(),
        report.shards_retired.to_string(),
        report.ids_retired.to_string(),
    ]);
    ctx.out.print_table(&table)?;
    Ok(())
}
