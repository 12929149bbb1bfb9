//! `idgen lease`: hold a worker ID and issue snowflake IDs under it.
//!
//! stdout carries IDs only, one per line. What happens to the lease goes to
//! stderr, as text or (with `--json`) as JSON Lines.

use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::layout_args::LayoutArgs;
use crate::signals::Interrupt;
use anyhow::Context as _;
use idgen::backend::Backend;
use idgen::clock::ProcessClock;
use idgen::config::{Settings, parse_duration};
use idgen::layout::{Layout, format_timestamp};
use idgen::lease::session::{LeasedGenerator, WorkerSource};
use idgen::lease::{Assigner, LeaseEvent, LeaseEvents, LeaseSession, NamespaceSpec};
use idgen::snowflake::GeneratorOptions;
use serde_json::json;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

/// The most IDs one `--count` or one `--stdin` line may ask for.
const MAX_REQUEST: u64 = 100_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AssignerArg {
    /// Lease from the namespace's free list; renewed, fenced, released (IDs are reused)
    Lease,
    /// A new never-reused ID per start from the WORKER_NODE table (uid-generator style)
    WorkerNode,
}

#[derive(Debug, clap::Args)]
#[command(after_help = format!("{}\n\n{}", "Examples:
  idgen lease --count 5                          # 5 snowflake IDs, then release
  idgen lease --namespace orders --layout sonyflake --count 1000 > ids.txt
  idgen lease --stdin --ttl 10s                  # coprocess: write N, read N IDs
  idgen lease --layout uid-generator --epoch 2024-01-01 --assigner worker-node --count 10

In --stdin mode each input line N (an empty line means 1) is answered with N
IDs, flushed at once; the lease is renewed in the background until EOF,
SIGINT or SIGTERM, then released.", crate::dispatch::decode::layout_list()))]
pub struct LeaseArgs {
    #[command(flatten)]
    pub namespace: crate::cli::NamespaceArg,

    #[command(flatten)]
    pub layout: LayoutArgs,

    /// Issue N IDs, then release the lease [default: 1]
    #[arg(long, short = 'n', value_name = "N", conflicts_with = "stdin")]
    pub count: Option<u64>,

    /// Coprocess mode: answer each input line N with N IDs
    #[arg(long)]
    pub stdin: bool,

    /// Who holds the lease, shown to operators [default: HOSTNAME:PID]
    #[arg(long, value_name = "TEXT")]
    pub holder: Option<String>,

    /// Lease expiry; renewed every third of it [default: 30s, or the config file's]
    #[arg(long, value_name = "DURATION")]
    pub ttl: Option<String>,

    /// Where the worker ID comes from
    #[arg(long, value_enum, default_value = "lease")]
    pub assigner: AssignerArg,

    /// Largest backward clock step waited out instead of refused
    #[arg(long, value_name = "DURATION", default_value = "5ms")]
    pub max_clock_back: String,

    /// Report the lease as JSON Lines on stderr
    #[arg(long)]
    pub json: bool,
}

/// Renders lease events on stderr.
pub(crate) struct EventReport {
    pub(crate) json: bool,
    pub(crate) namespace: String,
    pub(crate) holder: String,
    pub(crate) layout: Layout,
    pub(crate) ttl: Duration,
    pub(crate) verbose: bool,
}

impl LeaseEvents for EventReport {
    fn event(&self, event: LeaseEvent) {
        let line = if self.json {
            let value = match &event {
                LeaseEvent::Acquired {
                    worker,
                    floor_ms,
                    quarantine_until_ms,
                    restored,
                } => json!({
                    "event": "acquired",
                    "namespace": self.namespace,
                    "worker": worker,
                    "holder": self.holder,
                    "layout": self.layout.name(),
                    "epoch_ms": self.layout.epoch_ms(),
                    "ttl_ms": self.ttl.as_millis() as u64,
                    "floor_unix_ms": floor_ms,
                    "quarantine_until_unix_ms": quarantine_until_ms,
                    "restored": restored,
                }),
                LeaseEvent::Restored { worker } => {
                    json!({"event": "restored", "namespace": self.namespace, "worker": worker})
                }
                LeaseEvent::Waiting { error, retry_in } => json!({
                    "event": "waiting",
                    "namespace": self.namespace,
                    "error": error,
                    "retry_in_ms": retry_in.as_millis() as u64,
                }),
                LeaseEvent::RenewFailed { worker, error } => {
                    json!({"event": "renew_failed", "namespace": self.namespace, "worker": worker, "error": error})
                }
                LeaseEvent::Lost { worker } => {
                    json!({"event": "lost", "namespace": self.namespace, "worker": worker})
                }
                LeaseEvent::Quarantined { worker, until_ms } => json!({
                    "event": "quarantined",
                    "namespace": self.namespace,
                    "worker": worker,
                    "until_unix_ms": until_ms,
                }),
                LeaseEvent::Released {
                    worker,
                    last_ms,
                    ahead,
                } => json!({
                    "event": "released",
                    "namespace": self.namespace,
                    "worker": worker,
                    "last_unix_ms": last_ms,
                    "ahead": ahead,
                }),
            };
            value.to_string()
        } else {
            match &event {
                LeaseEvent::Acquired {
                    worker,
                    floor_ms,
                    quarantine_until_ms,
                    restored,
                } => format!(
                    "idgen: leased worker {worker} of namespace {} ({}) as {} for {}{}{}",
                    self.namespace,
                    self.layout.name(),
                    self.holder,
                    idgen::error::fmt_duration(self.ttl),
                    // The later of the previous holder's fence and the quarantine.
                    (*floor_ms)
                        .max(*quarantine_until_ms)
                        .map(|f| format!("; issuing after {}", format_timestamp(f)))
                        .unwrap_or_default(),
                    if *restored > 0 {
                        format!(
                            "; Redis had lost {restored} live lease{} (a restart or a failover), put back from MySQL",
                            if *restored == 1 { "" } else { "s" }
                        )
                    } else {
                        String::new()
                    }
                ),
                LeaseEvent::Restored { worker } => format!(
                    "idgen: Redis had lost the lease on worker {worker} (a restart or a failover); MySQL still holds it for this process, so it was put back"
                ),
                LeaseEvent::Waiting { error, retry_in } => format!(
                    "idgen: no lease can be proven right now, so no ID is issued: {error}; retrying in {}",
                    idgen::error::fmt_duration(*retry_in)
                ),
                LeaseEvent::RenewFailed { worker, error } => {
                    if !self.verbose {
                        return;
                    }
                    format!("idgen: renewing worker {worker} failed: {error}")
                }
                LeaseEvent::Lost { worker } => format!(
                    "idgen: lost the lease on worker {worker}; it issues no more IDs under it"
                ),
                LeaseEvent::Quarantined { worker, until_ms } => format!(
                    "idgen: Redis cannot prove it kept namespace {}'s leases (the namespace is new to it, or it restarted, failed over, lost data or evicted keys), so worker {worker} issues nothing until {}, when every earlier lease has run out",
                    self.namespace,
                    format_timestamp(*until_ms)
                ),
                LeaseEvent::Released {
                    worker,
                    last_ms,
                    ahead,
                } => match (last_ms, ahead) {
                    (Some(last_ms), false) => format!(
                        "idgen: released worker {worker} (last time issued {})",
                        format_timestamp(*last_ms)
                    ),
                    (Some(last_ms), true) => format!(
                        "idgen: released worker {worker} ahead of its last IDs, none of them after {}",
                        format_timestamp(*last_ms)
                    ),
                    (None, _) => format!("idgen: released worker {worker} (it issued nothing)"),
                },
            }
        };
        // The holder is anyone's text: no control character reaches the terminal.
        eprintln!("{}", crate::output::escape_controls(&line));
    }
}

pub(crate) fn default_holder() -> String {
    format!(
        "{}:{}",
        gethostname::gethostname().to_string_lossy(),
        std::process::id()
    )
}

/// What to issue.
enum Mode {
    Count(u64),
    Stdin,
}

pub async fn run(args: LeaseArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let layout = args.layout.resolve(&ctx.settings)?;
    let assigner = match args.assigner {
        AssignerArg::Lease => Assigner::Lease,
        AssignerArg::WorkerNode => Assigner::WorkerNode,
    };
    let namespace = NamespaceSpec::new(&args.namespace.name, &layout, assigner)?;
    let ttl = lease_ttl(args.ttl.as_deref(), &ctx.settings)?;
    let max_backward = parse_duration(&args.max_clock_back)?;
    let mode = match (args.stdin, args.count) {
        (true, _) => Mode::Stdin,
        (false, Some(n)) if (1..=MAX_REQUEST).contains(&n) => Mode::Count(n),
        (false, Some(n)) => {
            return Err(idgen::Error::invalid(
                "--count",
                format!("{n} is not between 1 and {MAX_REQUEST}"),
                if n == 0 {
                    "ask for at least one ID".to_string()
                } else {
                    format!("ask for at most {MAX_REQUEST} per run, or use --stdin for a stream")
                },
            )
            .into());
        }
        (false, None) => Mode::Count(1),
    };
    let holder = args.holder.clone().unwrap_or_else(default_holder);

    // Leases run on Redis alone too (seed 000); the worker-node assigner says
    // so itself when it needs MySQL.
    let backend = Backend::open_for_leases(&ctx.settings)?;
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let new_store = backend.store_file_to_create();
    let source = match assigner {
        Assigner::Lease => WorkerSource::Lease(backend.lease_store().await?),
        Assigner::WorkerNode => WorkerSource::WorkerNode {
            assigner: backend.worker_nodes().await?,
            host: holder.clone(),
            port: std::process::id().to_string(),
        },
    };
    let events = Arc::new(EventReport {
        json: args.json,
        namespace: namespace.name.clone(),
        holder: holder.clone(),
        layout: layout.clone(),
        ttl,
        verbose: ctx.out.verbose,
    });
    let options = GeneratorOptions { max_backward };
    // The lease is released on the first signal; a second one ends at once.
    ctx.interrupt.graceful();
    let Holding {
        session,
        mut generator,
        renewer,
    } = hold(
        source,
        namespace,
        layout,
        holder,
        ttl,
        options,
        events,
        Keep::Renewed,
    )
    .await
    .context("leasing a worker ID")?;
    if let Some(path) = new_store {
        ctx.out
            .note(&format!("created the embedded store {}", path.display()));
    }

    let mut sink = IdSink::new(ctx.interrupt.clone());
    // Between batches the sink checks for a signal itself; the select stops
    // a wait for stdin or for a lease that cannot be proven.
    let outcome = tokio::select! {
        outcome = issue(&mut generator, &mut sink, &mode) => outcome,
        () = ctx.interrupt.wait() => Err(idgen::Error::Interrupted {
            what: "lease (a signal arrived)".into(),
        }
        .into()),
    };
    renewer.abort();
    // What was issued is delivered before the lease is given back (unless
    // it was given back ahead of the last IDs, fenced after the last of them).
    let delivered = sink.out.flush();
    let last_issued_ms = generator.last_issued_ms();
    let releasing = session.clone();
    let released = on_worker(async move { releasing.release(last_issued_ms).await }).await;
    let outcome = match outcome {
        Err(e) if is_interrupted(&e) => Err(idgen::Error::IssuingInterrupted {
            issued: sink.issued,
            asked: match mode {
                Mode::Count(n) => Some(n),
                Mode::Stdin => None,
            },
        }
        .into()),
        outcome => outcome,
    };
    let outcome = outcome?;
    delivered?;
    released.context("releasing the lease")?;
    Ok(outcome)
}

fn is_unavailable(e: &anyhow::Error) -> bool {
    e.downcast_ref::<idgen::Error>()
        .is_some_and(|e| e.kind() == idgen::ErrorKind::Unavailable)
}

fn is_interrupted(e: &anyhow::Error) -> bool {
    e.downcast_ref::<idgen::Error>()
        .is_some_and(|e| e.kind() == idgen::ErrorKind::Interrupted)
}

/// A lease's TTL: `--ttl` when given, checked by the rule the config file's
/// is checked by (and naming `--ttl` when it fails), else the configured one.
pub(crate) fn lease_ttl(flag: Option<&str>, settings: &Settings) -> idgen::Result<Duration> {
    match flag {
        Some(text) => idgen::config::check_lease_ttl(parse_duration(text)?)
            .map_err(|e| idgen::config::blame(e, "--ttl")),
        None => Ok(settings.lease_ttl),
    }
}

/// A worker ID held, renewed in the background, and the generator issuing under it.
pub(crate) struct Holding {
    pub(crate) session: Arc<LeaseSession<ProcessClock>>,
    pub(crate) generator: LeasedGenerator<ProcessClock>,
    pub(crate) renewer: tokio::task::JoinHandle<()>,
}

/// How a holder keeps its worker ID between requests for IDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Renewed; a lost lease is replaced when IDs are next asked for
    /// (`lease`: the first lease must be had before anything is issued).
    Renewed,
    /// Renewed, and replaced at once when lost or not had yet, asked for or
    /// not (`serve`: it starts while the lease store is down, and its
    /// `/healthz` recovers without a client's request).
    Held,
}

/// The one way `lease` and `serve --namespace` start holding a worker ID: a
/// layout that cannot issue now (an epoch in the future, time bits used up)
/// is refused before the namespace is recorded or a worker ID taken; then
/// the lease is acquired and renewed every third of its TTL. With
/// [`Keep::Held`] a lease store that cannot be reached yet is no failure:
/// the lease is acquired in the background once it answers.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn hold(
    source: WorkerSource,
    namespace: NamespaceSpec,
    layout: Layout,
    holder: String,
    ttl: Duration,
    options: GeneratorOptions,
    events: Arc<dyn LeaseEvents>,
    keep: Keep,
) -> anyhow::Result<Holding> {
    let session = Arc::new(LeaseSession::new(
        source,
        namespace,
        holder,
        ttl,
        idgen::clock::process_clock(),
        events,
    ));
    let generator = LeasedGenerator::new(session.clone(), layout, options);
    generator.check_issuable()?;
    let acquiring = session.clone();
    let first = on_worker(async move { acquiring.acquire().await }).await;
    let renewer = match (first, keep) {
        (Ok(_), Keep::Renewed) => tokio::spawn(session.clone().keep_renewed()),
        (Ok(_), Keep::Held) => tokio::spawn(session.clone().keep_held()),
        (Err(e), Keep::Held) if is_unavailable(&e) => tokio::spawn(session.clone().keep_held()),
        (Err(e), _) => return Err(e),
    };
    Ok(Holding {
        session,
        generator,
        renewer,
    })
}

/// Runs `work`, a run of round trips to the lease store, as a task of the
/// runtime's own and waits for its end: each answer is then read and acted
/// on by one thread. Awaited in the command's future, on the main thread,
/// every answer went from the worker thread that read it to the main thread
/// and every request back, two hand-offs a round trip: 0.8–1.9 ms of a
/// `lease --count 1000000` (scripts/bench.sh lease).
async fn on_worker<T: Send + 'static>(
    work: impl std::future::Future<Output = idgen::Result<T>> + Send + 'static,
) -> anyhow::Result<T> {
    match tokio::spawn(work).await {
        Ok(done) => Ok(done?),
        // A panic stays a panic, as it was on the main thread.
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Only a runtime shutting down cancels it.
        Err(e) => {
            Err(idgen::Error::Internal(format!("the lease's task was cancelled: {e}")).into())
        }
    }
}

/// Writes IDs to stdout, one per line, in batches the generator fills, and
/// stops between batches once a signal arrived.
struct IdSink {
    out: std::io::BufWriter<std::io::Stdout>,
    batch: Vec<u64>,
    text: itoa::Buffer,
    interrupt: Interrupt,
    /// IDs issued so far (each written to `out` as soon as it is issued).
    issued: u64,
}

/// IDs generated per batch before they are written: small enough that a
/// signal is answered within milliseconds even on a slow terminal.
const BATCH: u64 = 1 << 13;

impl IdSink {
    fn new(interrupt: Interrupt) -> Self {
        IdSink {
            out: std::io::BufWriter::with_capacity(1 << 16, std::io::stdout()),
            batch: Vec::with_capacity(BATCH as usize),
            text: itoa::Buffer::new(),
            interrupt,
            issued: 0,
        }
    }

    /// Issues and writes `n` IDs, then flushes them. `last`: they are the
    /// last this run issues, so the lease is given back while the last of
    /// them are issued ([`LeasedGenerator::release_ahead`]).
    async fn answer(
        &mut self,
        generator: &mut LeasedGenerator<ProcessClock>,
        n: u64,
        last: bool,
    ) -> anyhow::Result<()> {
        let mut left = n;
        while left > 0 {
            if self.interrupt.raised() {
                return Err(idgen::Error::Interrupted {
                    what: "lease (a signal arrived)".into(),
                }
                .into());
            }
            // Given back once: the generator refuses a second time.
            if last && generator.release_ahead(left) {
                idgen::failpoint::hit("lease.released_ahead")?;
            }
            let step = left.min(BATCH);
            generator.issue(step as usize, &mut self.batch).await?;
            self.issued += step;
            for id in self.batch.drain(..) {
                self.out.write_all(self.text.format(id).as_bytes())?;
                self.out.write_all(b"\n")?;
            }
            idgen::failpoint::hit("lease.between_batches")?;
            left -= step;
        }
        self.out.flush()?;
        Ok(())
    }
}

async fn issue(
    generator: &mut LeasedGenerator<ProcessClock>,
    sink: &mut IdSink,
    mode: &Mode,
) -> anyhow::Result<Outcome> {
    match mode {
        Mode::Count(n) => sink.answer(generator, *n, true).await?,
        Mode::Stdin => {
            let mut input = tokio::io::BufReader::new(tokio::io::stdin());
            let mut line = Vec::new();
            let mut number = 0u64;
            loop {
                line.clear();
                let read = input.read_until(b'\n', &mut line).await.map_err(|e| {
                    idgen::Error::invalid(
                        "stdin",
                        format!("cannot read it: {e}"),
                        "give lease --stdin a readable input",
                    )
                })?;
                if read == 0 {
                    break;
                }
                number += 1;
                sink.answer(generator, requested(number, &line)?, false)
                    .await?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// The count a `--stdin` request line (the `number`th) asks for; an empty
/// line means 1.
fn requested(number: u64, line: &[u8]) -> idgen::Result<u64> {
    let Ok(line) = std::str::from_utf8(line) else {
        return Err(idgen::Error::invalid(
            "stdin",
            format!("line {number} is not UTF-8 text"),
            format!("write one number per line, from 0 to {MAX_REQUEST}; an empty line means 1"),
        ));
    };
    match line.trim() {
        "" => Ok(1),
        text => match text.parse::<u64>() {
            Ok(n) if n <= MAX_REQUEST => Ok(n),
            _ => Err(idgen::Error::invalid(
                "stdin",
                format!("line {number}, {text:?}, is not a count of IDs"),
                format!(
                    "write one number per line, from 0 to {MAX_REQUEST}; an empty line means 1"
                ),
            )),
        },
    }
}
