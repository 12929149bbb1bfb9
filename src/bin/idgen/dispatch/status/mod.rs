//! `idgen status`: one screen of health for operators, a Nagios/Icinga check,
//! and Prometheus metrics.

use crate::dispatch::Context;
use crate::exit::{Outcome, nagios};
use crate::layout_args::LayoutArgs;
use crate::output::{TextRows, grouped, span};
use idgen::backend::Backend;
use idgen::config::check_idle;
use idgen::layout::format_timestamp;
use idgen::status::{
    LayoutState, Severity, StatusReport, StatusRequest, StoreRole, StoreState, gather,
};

mod prometheus;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Tables for people
    Text,
    /// The whole report, every finding with its severity
    Json,
    /// Prometheus text exposition, for node_exporter's textfile collector
    Prometheus,
}

#[derive(Debug, clap::Args)]
#[command(after_help = format!("Examples:
  idgen status
  idgen status --json | jq '.severity, .attention'
  idgen status --check --warn-stock 0.3 --crit-stock 0.05     # Nagios/Icinga
  idgen status --format prometheus > /var/lib/node_exporter/idgen.prom.$$ && mv /var/lib/node_exporter/idgen.prom.$$ /var/lib/node_exporter/idgen.prom

Checks, each finding with a severity (ok, warning, critical, unknown):
  critical  a backend down or refusing the login; a store file missing, corrupt
            or read-only; a shard exhausted (max_limit_id reached, no stock);
            every worker ID of a namespace held; an epoch in the future; a
            layout that ran out or runs out within 30 days; an app routed to
            an unknown node; stock at or below --crit-stock
  warning   stock at or below --warn-stock; a shard past 90% of max_limit_id;
            under 10% of worker IDs free; a layout running out within a year;
            an app moving; lease problems; id_alloc rows idgen cannot serve;
            worker IDs stranded longer than a lease lasts
  unknown   something could not be read (the apps, when the ledger is down)
  ok        information only: worker IDs left by stopped holders, which the
            next rebuild of the free list takes back
Exits 8 when the worst finding is worse than ok (0 otherwise).

{}", crate::exit::nagios_help()))]
pub struct StatusArgs {
    /// The epoch `lease` and `decode` would use (IDGEN_EPOCH), so the default
    /// layout is judged as they would run it; not a status option of its own.
    #[arg(long, hide_env_values = true, env = crate::layout_args::EPOCH_ENV, hide = true)]
    pub epoch: Option<String>,

    /// Warn when a shard's stock is at or below RATIO x its step
    #[arg(
        long,
        visible_alias = "warn-stock",
        hide_env_values = true,
        env = "IDGEN_IDLE",
        value_name = "RATIO",
        help_heading = "Thresholds"
    )]
    pub idle: Option<f64>,

    /// Critical when a shard's stock is at or below RATIO x its step [default: only a shard that is empty and cannot be refilled]
    #[arg(long, value_name = "RATIO", help_heading = "Thresholds")]
    pub crit_stock: Option<f64>,

    /// Nagios/Icinga plugin mode: one summary line with perfdata; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN
    #[arg(long, conflicts_with_all = ["json", "format"])]
    pub check: bool,

    /// Print the report as JSON (same as --format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// Output format
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: Format,
}

impl StatusArgs {
    fn format(&self) -> Format {
        if self.json { Format::Json } else { self.format }
    }
}

pub async fn run(args: StatusArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    if !args.check {
        let report = collect(&args, ctx).await?;
        match args.format() {
            Format::Json => ctx.out.print_json(&report)?,
            Format::Prometheus => {
                for line in prometheus::prometheus(&report).lines() {
                    ctx.out.print_line(line)?;
                }
            }
            Format::Text => render(ctx, &report)?,
        }
        return Ok(if report.needs_attention() {
            Outcome::Attention
        } else {
            Outcome::Success
        });
    }
    // A check that cannot even start is UNKNOWN to Nagios, not idgen's own code.
    let (severity, line) = match collect(&args, ctx).await {
        Ok(report) => (report.severity, check_line(&report)),
        Err(e) => (
            Severity::Unknown,
            format!("IDGEN UNKNOWN - {}", ctx.out.scrub(&format!("{e:#}"))),
        ),
    };
    ctx.out.print_line(&line)?;
    Ok(Outcome::Check(severity))
}

async fn collect(args: &StatusArgs, ctx: &Context<'_>) -> anyhow::Result<StatusReport> {
    let idle = check_idle(args.idle.unwrap_or(ctx.settings.idle))
        .map_err(|e| ctx.origins.blame("idle", e))?;
    let crit_stock = args
        .crit_stock
        .map(|ratio| check_idle(ratio).map_err(|e| ctx.origins.blame("crit_stock", e)))
        .transpose()?;
    // The layout `lease` and `decode` would use without flags.
    let defaults = LayoutArgs {
        epoch: args.epoch.clone(),
        ..LayoutArgs::default()
    };
    let default_layout = defaults.resolve(&ctx.settings)?;
    // Redis alone will do: its report is the server and the leases.
    let backend = Backend::open_existing_for_leases(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.kind));
    let request = StatusRequest {
        idle,
        idle_asked: args.idle.is_some(),
        crit_stock,
        default_layout,
        lease_ttl_ms: ctx.settings.lease_ttl.as_millis() as i64,
        now_ms: now_ms(),
    };
    Ok(gather(&backend, &ctx.settings, &request).await)
}

use idgen::clock::process_now_ms as now_ms;

/// `IDGEN WARNING - 2 warning: first problem | perfdata`: the Nagios plugin
/// summary line. The worst finding comes first.
fn check_line(report: &StatusReport) -> String {
    let state = nagios(report.severity);
    let findings = report.findings();
    let summary = match findings.first() {
        None => "nothing needs attention".to_string(),
        Some(worst) => {
            let mut counts = Vec::new();
            for severity in [Severity::Critical, Severity::Warning, Severity::Unknown] {
                let n = findings.iter().filter(|a| a.severity == severity).count();
                if n > 0 {
                    counts.push(format!("{n} {}", severity.as_str()));
                }
            }
            format!("{}: {}", counts.join(", "), worst.message.replace('|', "/"))
        }
    };
    format!("IDGEN {} - {summary} | {}", state.label, perfdata(report))
}

/// Perfdata in the plugin format `'label'=value[unit];warn;crit;min;max`.
fn perfdata(report: &StatusReport) -> String {
    let mut data = Vec::new();
    let label = |text: String| format!("'{}'", text.replace(['\'', '='], "_"));
    // Ranges as the plugin guidelines write them: `N:` alerts below N, so a
    // value where low is bad carries `N:`, and one where high is bad plain `N`.
    let up = |role: StoreRole| {
        let stores = report.stores.iter().filter(|s| s.role == role);
        let total = stores.clone().count();
        (stores.filter(|s| s.reachable).count(), total)
    };
    let (ledgers, total) = up(StoreRole::Ledger);
    // Redis alone has no ledger to count.
    if total > 0 {
        data.push(format!("ledger_up={ledgers};;{total}:;0;{total}"));
    }
    let (nodes, total) = up(StoreRole::Node);
    data.push(format!("nodes_up={nodes};{total}:;1:;0;{total}"));
    for app in &report.apps {
        if let Some(min) = app.min_stock {
            data.push(format!(
                "{}={min};;;0;",
                label(format!("app_{}_min_stock", app.app))
            ));
        }
        if let Some(used) = app.limit_used_percent {
            data.push(format!(
                "{}={used:.1}%;90;100;0;100",
                label(format!("app_{}_limit_used", app.app))
            ));
        }
    }
    for ns in &report.namespaces {
        data.push(format!(
            "{}={};{}:;1:;0;{}",
            label(format!("ns_{}_workers_free", ns.name)),
            ns.available,
            (ns.capacity as f64 * idgen::status::WORKERS_FREE_WARNING).ceil() as u64,
            ns.capacity
        ));
    }
    for layout in &report.layouts {
        if let Some(days) = layout.days_left {
            data.push(format!(
                "{}={days};{}:;{}:;0;",
                label(format!(
                    "layout_{}_days_left",
                    layout.used_by.replace(' ', "_")
                )),
                idgen::status::LAYOUT_WARNING_MS / 86_400_000,
                idgen::status::LAYOUT_CRITICAL_MS / 86_400_000
            ));
        }
    }
    data.join(" ")
}

fn store_state(state: StoreState) -> &'static str {
    match state {
        StoreState::Ok => "ok",
        StoreState::Unreachable => "UNREACHABLE",
        StoreState::AccessDenied => "ACCESS DENIED",
        StoreState::Unusable => "UNUSABLE",
    }
}

fn render(ctx: &Context<'_>, report: &StatusReport) -> anyhow::Result<()> {
    let out = ctx.out;
    out.print_line(&format!(
        "backend {}; config {}; refill threshold {} x step{}",
        report.backend,
        report.config_file.as_deref().unwrap_or("none"),
        report.idle,
        report
            .crit_stock
            .map_or(String::new(), |c| format!("; critical at {c} x step"))
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
            store_state(store.state).to_string(),
            store.version.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    out.print_table(&stores)?;

    if !report.apps_known {
        out.print_line("apps: UNKNOWN (the ledger cannot be read)")?;
    } else if report.backend == "redis" {
        out.print_line("apps: none (Redis alone keeps worker-ID leases only)")?;
    } else if report.apps.is_empty() {
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
            "runway",
            "low shards",
            "limit used",
            "state",
        ]);
        for app in &report.apps {
            let mut state = Vec::new();
            if app.moving {
                state.push("MOVING".to_string());
            }
            if !app.exhausted_shards.is_empty() {
                state.push(format!("EXHAUSTED ({} shards)", app.exhausted_shards.len()));
            }
            if !app.near_limit_shards.is_empty() {
                state.push("NEAR LIMIT".to_string());
            }
            if !app.critical_shards.is_empty() {
                state.push("CRITICAL STOCK".to_string());
            } else if !app.low_shards.is_empty() {
                state.push(if report.low_stock_is_a_note {
                    "low: next refills".to_string()
                } else {
                    "LOW".to_string()
                });
            }
            if !app.missing_shards.is_empty() {
                state.push(format!("{} SHARDS MISSING", app.missing_shards.len()));
            }
            if let Some(e) = &app.error {
                state.push(e.clone());
            }
            apps.add_text_row(vec![
                app.app.to_string(),
                app.name.clone(),
                app.node.clone(),
                app.dispenser.as_str().to_string(),
                app.min_stock.map_or("-".into(), grouped),
                app.avg_stock
                    .map_or("-".into(), |s| grouped(s.round() as u64)),
                app.runway_secs.map_or("-".into(), span),
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
                grouped(ns.held.len() as u64),
                grouped(ns.available),
                grouped(ns.capacity),
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
        let days = layout.days_left.unwrap_or(0);
        layouts.add_text_row(vec![
            layout.used_by.clone(),
            layout.layout.clone(),
            layout.exhausted_at.clone().unwrap_or_else(|| "-".into()),
            match layout.state {
                LayoutState::Ok => format!("ok, {} days left", grouped(days.max(0) as u64)),
                LayoutState::Expiring => format!("EXPIRING in {days} days"),
                LayoutState::ExpiringSoon => format!("EXPIRING SOON, in {days} days"),
                LayoutState::Exhausted => "EXHAUSTED".to_string(),
                LayoutState::NotStarted => "EPOCH IN THE FUTURE".to_string(),
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
    for rollback in &report.ledger_rollbacks {
        out.print_line(&format!(
            "the ledger went back in time (found by node {}'s witness, last {}): {} shards were moved past indexes it had handed out, skipping {} indexes, gaps only",
            rollback.node,
            format_timestamp(rollback.last_ms),
            rollback.shards,
            rollback.skipped
        ))?;
    }
    let notes: Vec<_> = report
        .attention
        .iter()
        .filter(|a| a.severity == Severity::Ok)
        .collect();
    for note in notes {
        out.print_line(&format!("note: {}", note.message))?;
    }
    let findings = report.findings();
    if findings.is_empty() {
        out.print_line("all good: nothing needs attention")?;
    } else {
        out.print_line(&format!(
            "{}: {} finding(s) need attention:",
            report.severity.as_str().to_uppercase(),
            findings.len()
        ))?;
        for item in findings {
            out.print_line(&format!("  - {}: {}", item.severity.as_str(), item.message))?;
        }
    }
    Ok(())
}
