//! `idgen app list|show|set`: read and change apps without SQL.

use crate::confirm::{Answer, ask};
use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::output::{TextRows, grouped};
use idgen::backend::Backend;
use idgen::segment::allocator::shard_list;
use idgen::store::{AppChange, AppRecord};
use serde_json::{Value, json};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen app list
  idgen app show 1 --json
  idgen app set 1 --max-limit-id 9000000000")]
pub struct AppArgs {
    #[command(subcommand)]
    pub command: AppCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum AppCommand {
    /// List every app: name, step, max_limit_id, shards
    List(ListArgs),
    /// Show one app: its step bounds, limit and every shard's issued index
    Show(ShowArgs),
    /// Change an app: raise max_limit_id, change the step and its bounds, rename
    #[command(after_help = "Examples:
  idgen app set 1 --max-limit-id 9000000000      # raise; lowering asks first (or --yes)
  idgen app set 1 --step 5000 --max-step 50000
  idgen app set 1 --name orders-v2 --yes         # a rename asks first, or takes --yes
  idgen app set 1 --dispenser range              # every host follows; old stock is retired

Every change is made under the app's row locks, the locks a refill takes, so no
index is issued between the check and the change. A new dispenser is then
recorded on each shard of the app's node under the shard's refill lock, and the
stock left in the old one is retired unserved (a gap, never a repeat). A shard
whose lock a refill holds past the lock's lifetime is named; its next refill
switches it, or run the command again. Only --dispenser on the command line
changes the dispenser; IDGEN_DISPENSER and the config file never do.")]
    Set(SetArgs),
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen app list
  idgen app list --json")]
pub struct ListArgs {
    /// Print the apps as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen app show 1
  idgen app show 1 --json | jq '.shard_rows[0]'")]
pub struct ShowArgs {
    /// App ID, 0 to 255
    #[arg(value_name = "APP")]
    pub app: u8,

    /// Print the app as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct SetArgs {
    /// App ID, 0 to 255
    #[arg(value_name = "APP")]
    pub app: u8,

    /// New name (asks first; at most 128 characters)
    #[arg(long)]
    pub name: Option<String>,

    /// New step: indexes per refill when there is no consumption history
    #[arg(long, value_name = "N")]
    pub step: Option<u64>,

    /// New smallest step the consumption-based sizing may choose
    #[arg(long, value_name = "N")]
    pub min_step: Option<u64>,

    /// New largest step the consumption-based sizing may choose
    #[arg(long, value_name = "N")]
    pub max_step: Option<u64>,

    /// New max_limit_id (0: no limit); lowering it asks first (or takes --yes)
    /// and retires stock above it
    #[arg(long, value_name = "N")]
    pub max_limit_id: Option<u64>,

    /// Do not ask before a rename or a lowered max_limit_id
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Print the changed app as JSON
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: AppArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let backend = Backend::open_existing(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    match args.command {
        AppCommand::List(args) => {
            let apps = backend.ledger.apps().await?;
            if args.json {
                let apps: Vec<Value> = apps.iter().map(summary).collect();
                ctx.out.print_json(&apps)?;
            } else if apps.is_empty() {
                ctx.out
                    .print_line("no apps; create one with `idgen init-app`")?;
            } else {
                print_summaries(ctx, &apps)?;
            }
        }
        AppCommand::Show(args) => {
            let app = find(&backend, args.app).await?;
            show(ctx, &app, args.json)?;
        }
        AppCommand::Set(args) => return set(ctx, &backend, args).await,
    }
    Ok(Outcome::Success)
}

async fn find(backend: &Backend, app: u8) -> anyhow::Result<AppRecord> {
    Ok(backend
        .ledger
        .app(app)
        .await?
        .ok_or(idgen::Error::UnknownApp { app })?)
}

async fn set(ctx: &Context<'_>, backend: &Backend, args: SetArgs) -> anyhow::Result<Outcome> {
    let mut change = AppChange {
        name: args.name,
        step: args.step,
        min_step: args.min_step,
        max_step: args.max_step,
        max_limit_id: args.max_limit_id,
        // Only from the command line: an IDGEN_DISPENSER or config file on
        // this host must not change what every host serves.
        dispenser: (ctx
            .settings
            .sources
            .get("segments.dispenser")
            .map(String::as_str)
            == Some("--dispenser"))
        .then_some(ctx.settings.dispenser),
        lower_limit: false,
    };
    if change.is_empty() {
        return Err(idgen::Error::invalid(
            "app set",
            "nothing to change",
            "give --max-limit-id, --step, --min-step, --max-step, --dispenser or --name",
        )
        .into());
    }
    let before = find(backend, args.app).await?;
    // Checked now for a clear answer before any prompt; checked again under the locks.
    // A lowered limit is asked about below, so it passes here.
    AppChange {
        lower_limit: true,
        ..change.clone()
    }
    .apply_to(&before)?;
    if let Some(name) = change.name.as_ref().filter(|n| **n != before.name) {
        let action = format!(
            "rename app {} from {:?} to {name:?} (the Java service's config names it too)",
            before.app, before.name
        );
        if let Answer::No = ask(
            ctx.out,
            &action,
            args.yes,
            "pass --yes to rename without asking",
        )? {
            ctx.out.print_line("nothing changed")?;
            return Ok(Outcome::Declined);
        }
    }
    if change.lowers_limit(&before) {
        let action = format!(
            "lower app {}'s max_limit_id from {} to {}: stock above it is retired unserved (a gap) on every shard",
            before.app,
            limit_text(before.max_limit_id()),
            change.max_limit_id.unwrap_or_default()
        );
        if let Answer::No = ask(
            ctx.out,
            &action,
            args.yes,
            "pass --yes to lower max_limit_id without asking",
        )? {
            ctx.out.print_line("nothing changed")?;
            return Ok(Outcome::Declined);
        }
        change.lower_limit = true;
    }
    let allocator = backend.allocator(&ctx.settings);
    let (after, switch) = allocator.update_app(args.app, &change).await?;
    if switch.ids_over_limit > 0 {
        ctx.out.warn(&format!(
            "retired {} indexes above the new max_limit_id unserved (a gap)",
            grouped(switch.ids_over_limit)
        ));
    }
    for (node, shards) in &switch.pending {
        ctx.out.warn(&format!(
            "node {node}: shard(s) {} stayed locked by a refill and still record the old dispenser; their next refill switches them, or run this command again",
            shard_list(shards)
        ));
    }
    if args.json {
        let mut value = detail(&after);
        if change.lower_limit {
            value["ids_retired_over_limit"] = json!(switch.ids_over_limit.to_string());
        }
        if switch.to.is_some() {
            value["dispenser_switch"] = json!({
                "from": switch.from,
                "to": switch.to,
                "nodes": switch.nodes,
                "ids_retired": switch.ids_retired.to_string(),
                "pending": switch.pending.iter().map(|(node, shards)| json!({"node": node, "shards": shards})).collect::<Vec<_>>(),
            });
        }
        ctx.out.print_json(&value)?;
    } else {
        if let (Some(from), Some(to)) = (switch.from, switch.to) {
            ctx.out.print_line(&format!(
                "app {} is served by the {} dispenser (was {}) on node(s) {}; {} indexes of old stock retired unserved",
                after.app,
                to.as_str(),
                from.as_str(),
                if switch.nodes.is_empty() { "-".to_string() } else { switch.nodes.join(", ") },
                grouped(switch.ids_retired)
            ))?;
        }
        show(ctx, &after, false)?;
    }
    Ok(if switch.pending.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}

/// An app in JSON: values that may exceed 2^53 as strings.
fn summary(app: &AppRecord) -> Value {
    json!({
        "app": app.app,
        "name": app.name,
        "description": app.description,
        "shards": app.shards.len(),
        "step": app.step(),
        "dispenser": app.dispenser,
        "policy": app.policy,
        "max_limit_id": app.max_limit_id().to_string(),
        "issued": app.shards.iter().map(|s| s.max_id).sum::<u64>().to_string(),
    })
}

fn limit_text(limit: u64) -> String {
    match limit {
        0 => "none".to_string(),
        limit => grouped(limit),
    }
}

fn print_summaries(ctx: &Context<'_>, apps: &[AppRecord]) -> anyhow::Result<()> {
    let mut table = ctx.out.table();
    table.set_header(vec![
        "app",
        "name",
        "shards",
        "step",
        "step bounds",
        "dispenser",
        "max_limit_id",
        "issued",
    ]);
    for app in apps {
        table.add_text_row(vec![
            app.app.to_string(),
            app.name.clone(),
            app.shards.len().to_string(),
            grouped(app.step()),
            format!(
                "{} to {}",
                grouped(app.policy.min_step),
                grouped(app.policy.max_step)
            ),
            app.dispenser.as_str().to_string(),
            limit_text(app.max_limit_id()),
            grouped(app.shards.iter().map(|s| s.max_id).sum()),
        ]);
    }
    ctx.out.print_table(&table)?;
    Ok(())
}

/// An app with its shard rows, in JSON.
fn detail(app: &AppRecord) -> Value {
    let mut value = summary(app);
    value["shard_rows"] = app
        .shards
        .iter()
        .map(|s| {
            json!({
                "shard": s.shard,
                "max_id": s.max_id.to_string(),
                "step": s.step,
                "max_limit_id": s.max_limit_id.to_string(),
                "last_loaded": s.last_loaded,
            })
        })
        .collect();
    value
}

fn show(ctx: &Context<'_>, app: &AppRecord, json: bool) -> anyhow::Result<()> {
    if json {
        ctx.out.print_json(&detail(app))?;
        return Ok(());
    }
    print_summaries(ctx, std::slice::from_ref(app))?;
    let mut shards = ctx.out.table();
    shards.set_header(vec!["shard", "issued up to index", "step", "last refill"]);
    for s in &app.shards {
        shards.add_text_row(vec![
            s.shard.to_string(),
            grouped(s.max_id),
            grouped(s.step),
            s.last_loaded.map_or("-".into(), grouped),
        ]);
    }
    ctx.out.print_table(&shards)?;
    Ok(())
}
