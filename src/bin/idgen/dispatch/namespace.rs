//! `idgen namespace list|show|delete`: worker-ID namespaces as the lease store
//! shows them and as its durable record (MySQL) has them.

use crate::confirm::{Answer, ask};
use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::output::{TextRows, grouped, span};
use idgen::backend::Backend;
use idgen::layout::format_timestamp;
use idgen::lease::durable::{DurableSource, DurableWorker, InRedis};
use idgen::status::{NamespaceStatus, Severity, namespaces};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen namespace list
  idgen namespace show default")]
pub struct NamespaceArgs {
    #[command(subcommand)]
    pub command: NamespaceCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum NamespaceCommand {
    /// List every namespace: layout, worker IDs held and free
    List(NamespaceListArgs),
    /// Show one namespace: its layout and epoch, and who holds which worker ID
    Show(NamespaceShowArgs),
    /// Delete a namespace no one holds a worker ID of (asks first)
    Delete(NamespaceDeleteArgs),
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen namespace delete old-orders          # asks on a terminal
  idgen namespace delete old-orders --yes

Refuses while any worker ID is held, or fenced in the future (a holder that
stopped may still have issued IDs up to its fence).")]
pub struct NamespaceDeleteArgs {
    /// The namespace
    #[arg(value_name = "NS")]
    pub namespace: String,

    /// Do not ask first
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen namespace list
  idgen namespace list --json")]
pub struct NamespaceListArgs {
    /// Print the namespaces as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen namespace show default
  idgen namespace show orders --json")]
pub struct NamespaceShowArgs {
    /// The namespace
    #[arg(value_name = "NS")]
    pub namespace: String,

    /// Print the namespace as JSON
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: NamespaceArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let backend = Backend::open_existing_for_leases(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let now_ms = idgen::clock::process_now_ms();
    let ttl_ms = ctx.settings.lease_ttl.as_millis() as i64;
    match args.command {
        NamespaceCommand::Delete(args) => return delete(ctx, &backend, &args, now_ms).await,
        NamespaceCommand::List(args) => {
            let (found, _, source) = read(&backend, now_ms, ttl_ms).await?;
            if args.json {
                ctx.out.print_json(&found)?;
            } else if found.is_empty() {
                ctx.out
                    .print_line("no namespaces; `idgen lease` creates one on first use")?;
            } else {
                print_list(ctx, &found)?;
            }
            if let Some(line) = source.absence() {
                // On stderr under --json, which stays a list of namespaces.
                if args.json {
                    ctx.out.note(line);
                } else {
                    ctx.out.print_line(line)?;
                }
            }
        }
        NamespaceCommand::Show(args) => {
            let (found, findings, source) = read(&backend, now_ms, ttl_ms).await?;
            let ns = found
                .iter()
                .find(|ns| ns.name == args.namespace)
                .ok_or_else(|| idgen::Error::UnknownNamespace {
                    namespace: args.namespace.clone(),
                })?;
            if args.json {
                ctx.out.print_json(ns)?;
            } else {
                print_list(ctx, std::slice::from_ref(ns))?;
                print_held(ctx, ns, now_ms)?;
                print_durable(ctx, source, ns.durable.as_deref())?;
                let prefix = format!("namespace {:?}", ns.name);
                for finding in findings.iter().filter(|f| f.message.starts_with(&prefix)) {
                    ctx.out.print_line(&format!(
                        "{}: {}",
                        finding.severity.as_str(),
                        finding.message
                    ))?;
                }
            }
        }
    }
    Ok(Outcome::Success)
}

/// The namespaces, their findings, and where their durable record is; an
/// unreachable store (or durable record) is an error here, not a finding.
async fn read(
    backend: &Backend,
    now_ms: i64,
    ttl_ms: i64,
) -> anyhow::Result<(
    Vec<NamespaceStatus>,
    Vec<idgen::status::Attention>,
    DurableSource,
)> {
    let store = backend.lease_admin().await?;
    store.namespaces().await?;
    let source = store.durable(None, now_ms).await?.source();
    let (found, findings) = namespaces(backend, now_ms, ttl_ms).await;
    Ok((found, findings, source))
}

async fn delete(
    ctx: &Context<'_>,
    backend: &Backend,
    args: &NamespaceDeleteArgs,
    now_ms: i64,
) -> anyhow::Result<Outcome> {
    let store = backend.lease_admin().await?;
    let action = format!(
        "delete namespace {:?} (its layout, epoch, free list and fences)",
        args.namespace
    );
    if let Answer::No = ask(
        ctx.out,
        &action,
        args.yes,
        "pass --yes to delete without asking",
    )? {
        ctx.out.print_line("nothing changed")?;
        return Ok(Outcome::Declined);
    }
    // The store checks again, under its locks, that no worker is held or fenced.
    store.delete_namespace(&args.namespace, now_ms).await?;
    ctx.out
        .print_line(&format!("deleted namespace {:?}", args.namespace))?;
    Ok(Outcome::Success)
}

fn print_list(ctx: &Context<'_>, found: &[NamespaceStatus]) -> anyhow::Result<()> {
    let mut table = ctx.out.table();
    table.set_header(vec![
        "namespace",
        "layout",
        "epoch",
        "held",
        "free",
        "capacity",
        "state",
    ]);
    for ns in found {
        table.add_text_row(vec![
            ns.name.clone(),
            ns.layout.clone().unwrap_or_else(|| "-".into()),
            ns.epoch_ms.map_or("-".into(), format_timestamp),
            grouped(ns.held.len() as u64),
            grouped(ns.available),
            grouped(ns.capacity),
            match (&ns.error, ns.severity) {
                (Some(e), _) => e.clone(),
                (None, _) if ns.redis == Some(InRedis::Missing) => "redis: missing".into(),
                (None, Severity::Ok) => "ok".into(),
                (None, severity) => severity.as_str().to_uppercase(),
            },
        ]);
    }
    ctx.out.print_table(&table)?;
    Ok(())
}

fn print_held(ctx: &Context<'_>, ns: &NamespaceStatus, now_ms: i64) -> anyhow::Result<()> {
    if ns.held.is_empty() {
        return Ok(ctx.out.print_line("no worker ID is held")?);
    }
    let mut table = ctx.out.table();
    table.set_header(vec!["worker", "holder", "lease left", "fenced until"]);
    for held in &ns.held {
        table.add_text_row(vec![
            held.worker.to_string(),
            held.holder.clone(),
            held.ttl_ms.map_or("no expiry".into(), |ms| span(ms / 1000)),
            held.last_unix_ms.map_or("-".into(), |ms| {
                let left = (ms - now_ms).max(0) as u64 / 1000;
                format!("{} (in {})", format_timestamp(ms), span(left))
            }),
        ]);
    }
    ctx.out.print_table(&table)?;
    Ok(())
}

/// Each worker as the durable record has it, and whether Redis still holds
/// it; or the one line saying there is no durable record.
pub fn print_durable(
    ctx: &Context<'_>,
    source: DurableSource,
    workers: Option<&[DurableWorker]>,
) -> anyhow::Result<()> {
    if let Some(line) = source.absence() {
        return Ok(ctx.out.print_line(line)?);
    }
    let Some(workers) = workers else {
        return Ok(());
    };
    if workers.is_empty() {
        return Ok(ctx.out.print_line("MySQL records no worker lease")?);
    }
    let mut table = ctx.out.table();
    table.set_header(vec![
        "worker",
        "holder (MySQL)",
        "leased",
        "fenced until",
        "redis",
    ]);
    for w in workers {
        table.add_text_row(vec![
            w.worker.to_string(),
            w.holder.clone(),
            if w.held { "yes" } else { "no" }.into(),
            format_timestamp(w.fence_ms),
            w.redis.map_or("-", InRedis::as_str).into(),
        ]);
    }
    ctx.out.print_table(&table)?;
    Ok(())
}
