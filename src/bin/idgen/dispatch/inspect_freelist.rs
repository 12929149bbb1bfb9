//! `idgen inspect-freelist`: worker-ID lease state of a namespace, its
//! inconsistencies, and their repair.

use crate::confirm::{self, Answer};
use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::output::TextRows;
use idgen::backend::Backend;
use idgen::layout::format_timestamp;
use idgen::lease::durable::DurableNamespace;
use idgen::lease::repair::{Inspection, NamespaceRepair};
use idgen::lease::{Problem, read_signature};
use serde_json::json;
use std::time::Duration;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen inspect-freelist                          # namespace \"default\"
  idgen inspect-freelist --namespace orders --json
  idgen inspect-freelist --namespace orders --repair --yes

Exits 8 when problems are found and not repaired, so it can run as a monitoring check.")]
pub struct InspectArgs {
    #[command(flatten)]
    pub namespace: crate::cli::NamespaceArg,

    /// Fix what was found (asks first on a terminal)
    #[arg(long)]
    pub repair: bool,

    /// Repair without asking
    #[arg(long, requires = "repair")]
    pub yes: bool,

    /// Print the state as JSON
    #[arg(long)]
    pub json: bool,
}

fn describe(problem: &Problem) -> String {
    match problem {
        Problem::FreeButHeld { worker } => format!("worker {worker} is in the free list but held"),
        Problem::Leaked { worker } => format!("worker {worker} is neither free nor held (leaked)"),
        Problem::DuplicateFree { worker, times } => {
            format!("worker {worker} is in the free list {times} times")
        }
        Problem::NoExpiry { worker, holder } => {
            format!("worker {worker} is held by {holder} with no expiry")
        }
        Problem::OutOfRange { worker } => {
            format!("worker {worker} in the free list is outside the namespace's capacity")
        }
    }
}

pub async fn run(args: InspectArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let backend = Backend::open_existing_for_leases(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let store = backend.lease_admin().await?;
    let ns = &args.namespace.name;
    let namespace = NamespaceRepair {
        store: &*store,
        namespace: ns,
    };
    let mut inspection = namespace.inspect().await?;
    let mut repaired = false;
    if args.repair && !inspection.problems.is_empty() {
        let action = format!(
            "repair {} problem(s) in namespace {ns}",
            inspection.problems.len()
        );
        if let Answer::No = confirm::ask(
            ctx.out,
            &action,
            args.yes,
            "rerun with --yes to repair without asking",
        )? {
            ctx.out.note("nothing changed");
            render(ctx, ns, &inspection, false, args.json)?;
            return Ok(Outcome::Declined);
        }
        inspection = namespace.run(ctx.settings.lease_ttl).await?;
        repaired = true;
    }
    render(ctx, ns, &inspection, repaired, args.json)?;
    Ok(if inspection.problems.is_empty() {
        Outcome::Success
    } else {
        Outcome::Attention
    })
}

fn render(
    ctx: &Context<'_>,
    ns: &str,
    inspection: &Inspection,
    repaired: bool,
    json: bool,
) -> anyhow::Result<()> {
    let (snapshot, found) = (&inspection.snapshot, &inspection.problems);
    let (signature, capacity) = inspection.signature_and_capacity();
    let signature = signature.unwrap_or_default().to_string();
    let recorded = inspection.recorded();
    let source = inspection.durable.source();
    let (layout, assigner) = match read_signature(&signature) {
        Ok((layout, assigner)) => (Some(layout), Some(assigner)),
        Err(_) => (None, None),
    };
    if json {
        ctx.out.print_json(&json!({
            "namespace": ns,
            "layout": layout.as_ref().map(|l| l.name()),
            "signature": signature,
            "epoch_ms": layout.as_ref().and_then(|l| l.epoch_ms()),
            "assigner": assigner.map(|a| a.as_str()),
            "capacity": capacity,
            "held": snapshot.held,
            "free_count": snapshot.free.len(),
            "problems": found,
            "repaired": repaired,
            "durable_record": source,
            "redis": recorded.and_then(|r| r.redis),
            "durable": recorded.map(|r| &r.workers),
        }))?;
        return Ok(());
    }
    let mut summary = ctx.out.table();
    summary.set_header(vec![
        "namespace",
        "layout",
        "epoch",
        "capacity",
        "held",
        "free",
    ]);
    summary.add_text_row(vec![
        ns.to_string(),
        layout
            .as_ref()
            .map_or(signature.clone(), |l| l.name().to_string()),
        layout
            .as_ref()
            .and_then(|l| l.epoch_ms())
            .map_or_else(|| "-".into(), format_timestamp),
        capacity.to_string(),
        snapshot.held.len().to_string(),
        snapshot.free.len().to_string(),
    ]);
    ctx.out.print_table(&summary)?;
    if !snapshot.held.is_empty() {
        let mut held = ctx.out.table();
        held.set_header(vec!["worker", "holder", "ttl left", "last time issued"]);
        for h in &snapshot.held {
            held.add_text_row(vec![
                h.worker.to_string(),
                h.holder.clone(),
                h.ttl_ms.map_or_else(
                    || "no expiry".into(),
                    |ms| idgen::error::fmt_duration(Duration::from_millis(ms)),
                ),
                h.last_unix_ms.map_or_else(|| "-".into(), format_timestamp),
            ]);
        }
        ctx.out.print_table(&held)?;
    }
    crate::dispatch::namespace::print_durable(ctx, source, recorded.map(|r| &r.workers[..]))?;
    for finding in recorded.map(DurableNamespace::findings).unwrap_or_default() {
        ctx.out.print_line(&format!("warning: {finding}"))?;
    }
    if found.is_empty() {
        ctx.out.print_line(if repaired {
            "repaired: no problems remain"
        } else {
            "no problems"
        })?;
    } else {
        let mut table = ctx.out.table();
        table.set_header(vec!["problem"]);
        for problem in found {
            table.add_text_row(vec![describe(problem)]);
        }
        ctx.out.print_table(&table)?;
        if !repaired {
            ctx.out.note("run with --repair to fix them");
        }
    }
    Ok(())
}
