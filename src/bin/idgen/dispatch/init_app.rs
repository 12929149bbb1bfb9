//! `idgen init-app`: create the schema if missing and seed an app's 64 shards.

use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::output::TextRows;
use anyhow::Context as _;
use idgen::backend::Backend;
use idgen::config::parse_duration;
use idgen::store::{AppPolicy, AppSpec, InitOutcome, InitReport};
use serde_json::json;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen init-app --app 1 --name orders
  idgen init-app --app 2 --name coupons --step 5000 --max-limit-id 4294967295
  idgen init-app --app 1 --name orders --json    # rerun: changes nothing, says so")]
pub struct InitAppArgs {
    /// App ID, 0 to 255 (the low 8 bits of every ID)
    #[arg(long, value_name = "ID")]
    pub app: u8,

    /// App name, at most 128 characters; must match on reruns
    #[arg(long)]
    pub name: String,

    /// Indexes taken from MySQL per refill when there is no consumption history
    #[arg(long, default_value_t = 1000)]
    pub step: u64,

    /// No ID of the app may exceed this (0: no limit); idgen refuses rather than wraps
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_limit_id: u64,

    /// Free text stored in id_alloc.description (at most 255 characters)
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,

    /// Smallest step the consumption-based sizing may choose [default: --step]
    #[arg(long, value_name = "N")]
    pub min_step: Option<u64>,

    /// Largest step the consumption-based sizing may choose [default: 10 x --step]
    #[arg(long, value_name = "N")]
    pub max_step: Option<u64>,

    /// How long a segment should last at the observed rate
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub target_interval: String,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: InitAppArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let defaults = AppPolicy::for_step(args.step.max(1));
    let policy = AppPolicy {
        min_step: args.min_step.unwrap_or(defaults.min_step),
        max_step: args.max_step.unwrap_or(defaults.max_step),
        target: parse_duration(&args.target_interval)?,
    };
    let spec = AppSpec::validated(
        args.app,
        &args.name,
        args.description.as_deref(),
        args.step,
        args.max_limit_id,
        policy,
    )?
    .with_dispenser(ctx.settings.dispenser);
    let backend = Backend::open(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let new_store = backend.store_file_to_create();
    let report = backend
        .ledger
        .init_app(&spec)
        .await
        .with_context(|| format!("init-app {}", args.app))?;
    if let Some(path) = new_store {
        ctx.out
            .note(&format!("created the embedded store {}", path.display()));
    }
    if report.outcome != InitOutcome::Created {
        warn_about_ignored_flags(ctx, &spec, &report);
    }
    render(ctx, &report, args.json)?;
    Ok(Outcome::Success)
}

/// A rerun never changes an existing app; say so when the flags differ.
fn warn_about_ignored_flags(ctx: &Context<'_>, spec: &AppSpec, report: &InitReport) {
    let stored = &report.app;
    if stored.step() != spec.step {
        ctx.out.warn(&format!(
            "app {} keeps its step {}; --step {} is ignored for an existing app",
            spec.app,
            stored.step(),
            spec.step
        ));
    }
    if stored.max_limit_id() != spec.max_limit_id {
        ctx.out.warn(&format!(
            "app {} keeps its max_limit_id {}; --max-limit-id {} is ignored for an existing app",
            spec.app,
            stored.max_limit_id(),
            spec.max_limit_id
        ));
    }
    let asked = ctx.settings.sources.get("segments.dispenser");
    if let Some(origin) = asked.filter(|_| stored.dispenser != spec.dispenser) {
        ctx.out.warn(&format!(
            "app {} keeps its {} dispenser; {origin} {} is ignored for an existing app (change it with `idgen app set {} --dispenser {}`)",
            spec.app,
            stored.dispenser.as_str(),
            spec.dispenser.as_str(),
            spec.app,
            spec.dispenser.as_str()
        ));
    }
}

fn outcome_text(report: &InitReport) -> String {
    match report.outcome {
        InitOutcome::Created => "created 64 shards".into(),
        InitOutcome::Completed => format!("added {} missing shards", report.shards_added),
        InitOutcome::Unchanged => "already initialised; nothing changed".into(),
    }
}

fn render(ctx: &Context<'_>, report: &InitReport, json: bool) -> anyhow::Result<()> {
    let app = &report.app;
    if json {
        ctx.out.print_json(&json!({
            "app": app.app,
            "name": app.name,
            "outcome": report.outcome,
            "shards_added": report.shards_added,
            "shards": app.shards.len(),
            "step": app.step(),
            "dispenser": app.dispenser,
            // A string, like every value that may exceed 2^53.
            "max_limit_id": app.max_limit_id().to_string(),
            "description": app.description,
            "policy": app.policy,
        }))?;
        return Ok(());
    }
    let mut table = ctx.out.table();
    table.set_header(vec![
        "app",
        "name",
        "result",
        "shards",
        "step",
        "step bounds",
        "dispenser",
        "max_limit_id",
    ]);
    table.add_text_row(vec![
        app.app.to_string(),
        app.name.clone(),
        outcome_text(report),
        app.shards.len().to_string(),
        app.step().to_string(),
        format!(
            "{} to {} over {}s",
            app.policy.min_step,
            app.policy.max_step,
            app.policy.target.as_secs()
        ),
        app.dispenser.as_str().to_string(),
        match app.max_limit_id() {
            0 => "none".to_string(),
            limit => limit.to_string(),
        },
    ]);
    ctx.out.print_table(&table)?;
    Ok(())
}
