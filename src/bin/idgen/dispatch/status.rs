//! `idgen status`: one screen of health for operators and monitoring.

use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::layout_args::LayoutArgs;
use crate::output::TextRows;
use idgen::backend::Backend;
use idgen::config::check_idle;
use idgen::layout::format_timestamp;
use idgen::status::{LayoutState, StatusReport, StatusRequest, StoreRole, gather};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen status
  idgen status --json | jq '.attention'
  idgen status --idle 0.5          # call shards low at half their step
  */5 * * * * idgen status > /dev/null || alert-on-call   # crontab check

Checks: every backend answers; each app's stock (min and average over its
shards, and shards at or below idle x step); apps within 10% of max_limit_id;
apps in the middle of a move; worker-ID lease problems per namespace; layouts
whose time bits run out within a year. Exits 8 when anything needs attention.")]
pub struct StatusArgs {
    /// Call a shard low when its stock is at or below idle x its step [default: 0.2, or the config file's]
    #[arg(long, env = "IDGEN_IDLE", value_name = "RATIO")]
    pub idle: Option<f64>,

    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: StatusArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let idle = check_idle(args.idle.unwrap_or(ctx.settings.idle))
        .map_err(|e| ctx.origins.blame("idle", e))?;
    // The layout `lease` and `decode` would use without flags.
    let defaults = LayoutArgs {
        epoch: std::env::var("IDGEN_EPOCH").ok(),
        ..LayoutArgs::default()
    };
    let default_layout = defaults.resolve(&ctx.settings)?;
    let backend = Backend::open_existing(&ctx.settings)?;
    // The report shows what it cannot read; a store file that is not there at
    // all is a mistyped path, not a deployment to report on.
    if let Some(store) = backend.embedded_store() {
        store.check_exists()?;
    }
    ctx.out.info(&format!("backend: {}", backend.kind));
    let request = StatusRequest {
        idle,
        default_layout,
        now_ms: now_ms(),
    };
    let report = gather(&backend, &ctx.settings, &request).await;
    if args.json {
        ctx.out.print_json(&report)?;
    } else {
        render(ctx, &report)?;
    }
    Ok(if report.needs_attention() {
        Outcome::Attention
    } else {
        Outcome::Success
    })
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn render(ctx: &Context<'_>, report: &StatusReport) -> anyhow::Result<()> {
    let out = ctx.out;
    out.print_line(&format!(
        "backend {}; config {}; refill threshold {} x step",
        report.backend,
        report.config_file.as_deref().unwrap_or("none"),
        report.idle
    ))?;

    let mut stores = out.table();
    stores.set_header(vec!["store", "name", "location", "status", "version"]);
    for store in &report.stores {
        stores.add_text_row(vec![
            match store.role {
                StoreRole::Ledger => "ledger",
                StoreRole::Node if report.backend == "embedded" => "dispenser",
                StoreRole::Node => "redis node",
            }
            .to_string(),
            store.name.clone(),
            store.location.clone(),
            // The error itself is in the attention list below.
            if store.reachable { "ok" } else { "UNREACHABLE" }.to_string(),
            store.version.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    out.print_table(&stores)?;

    if report.apps.is_empty() {
        out.print_line("apps: none")?;
    } else {
        let mut apps = out.table();
        apps.set_header(vec![
            "app",
            "name",
            "node",
            "dispenser",
            "min stock",
            "avg stock",
            "low shards",
            "limit used",
            "state",
        ]);
        for app in &report.apps {
            let mut state = Vec::new();
            if app.moving {
                state.push("MOVING".to_string());
            }
            if !app.near_limit_shards.is_empty() {
                state.push("NEAR LIMIT".to_string());
            }
            if !app.low_shards.is_empty() {
                state.push("LOW".to_string());
            }
            if let Some(e) = &app.error {
                state.push(e.clone());
            }
            apps.add_text_row(vec![
                app.app.to_string(),
                app.name.clone(),
                app.node.clone(),
                app.dispenser.as_str().to_string(),
                app.min_stock.map_or("-".into(), |s| s.to_string()),
                app.avg_stock.map_or("-".into(), |s| format!("{s:.1}")),
                match (app.min_stock, app.low_shards.len()) {
                    (None, _) => "-".to_string(),
                    (Some(_), low) => format!("{low}/{}", app.shards),
                },
                match (app.max_limit_id, app.limit_used_percent) {
                    (0, _) | (_, None) => "no limit".to_string(),
                    (_, Some(used)) => format!("{used:.1}%"),
                },
                if state.is_empty() {
                    "ok".to_string()
                } else {
                    state.join(", ")
                },
            ]);
        }
        out.print_table(&apps)?;
    }

    if !report.namespaces.is_empty() {
        let mut leases = out.table();
        leases.set_header(vec![
            "namespace",
            "layout",
            "held",
            "free",
            "capacity",
            "problems",
        ]);
        for ns in &report.namespaces {
            leases.add_text_row(vec![
                ns.name.clone(),
                ns.layout.clone().unwrap_or_else(|| "-".into()),
                ns.held.len().to_string(),
                ns.free.to_string(),
                ns.capacity.to_string(),
                match (&ns.error, ns.problems.len()) {
                    (Some(e), _) => e.clone(),
                    (None, 0) => "none".to_string(),
                    (None, n) => n.to_string(),
                },
            ]);
        }
        out.print_table(&leases)?;
    }

    let mut layouts = out.table();
    layouts.set_header(vec!["layout of", "layout", "time bits run out", "state"]);
    for layout in &report.layouts {
        layouts.add_text_row(vec![
            layout.used_by.clone(),
            layout.layout.clone(),
            layout.exhausted_at.clone().unwrap_or_else(|| "-".into()),
            match layout.state {
                LayoutState::Ok => format!("ok, {} days left", layout.days_left.unwrap_or(0)),
                LayoutState::Expiring => {
                    format!("EXPIRING in {} days", layout.days_left.unwrap_or(0))
                }
                LayoutState::Exhausted => "EXHAUSTED".to_string(),
                LayoutState::Untimed => "no time field".to_string(),
            },
        ]);
    }
    out.print_table(&layouts)?;

    for rollback in &report.redis_rollbacks {
        out.print_line(&format!(
            "Redis node {} went back in time (last found {}): stock stamped by {} was served by server {}; {} indexes retired unserved from {} shards, gaps only",
            rollback.node,
            format_timestamp(rollback.last_ms),
            rollback
                .stamped
                .as_deref()
                .map_or("nobody".to_string(), |s| format!("server {}", idgen::store::short_id(s))),
            idgen::store::short_id(&rollback.serving),
            rollback.retired,
            rollback.shards
        ))?;
    }
    if report.attention.is_empty() {
        out.print_line("all good: nothing needs attention")?;
    } else {
        out.print_line(&format!("needs attention ({}):", report.attention.len()))?;
        for item in &report.attention {
            out.print_line(&format!("  - {}", item.message))?;
        }
    }
    Ok(())
}
