//! `idgen serve`: segment and snowflake IDs over HTTP, with Leaf's paths and
//! response shapes, health and Prometheus metrics.
//!
//! Every ID comes from the same core as `idgen next` and `idgen lease`: the
//! segment allocator (safe to share between requests) and one leased generator
//! per configured namespace.

mod api_error;
mod connections;
mod head_guard;
mod health;
mod lists;
mod metrics;
mod segments;
mod snowflake;
mod tinyid;

use crate::dispatch::Context;
use crate::dispatch::lease::{EventReport, Holding, Keep, default_holder, hold, lease_ttl};
use crate::exit::Outcome;
use crate::layout_args::LayoutArgs;
use crate::output::Output;
use anyhow::Context as _;
use api_error::ApiError;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use connections::{Drained, Timeouts};
use idgen::ErrorKind;
use idgen::backend::Backend;
use idgen::clock::ProcessClock;
use idgen::config::{Settings, parse_duration};
use idgen::layout::Layout;
use idgen::lease::session::{LeasedGenerator, WorkerSource};
use idgen::lease::{Assigner, LeaseEvent, LeaseEvents, LeaseSession, NamespaceSpec};
use idgen::segment::{BufferOptions, BufferedAllocator};
use idgen::snowflake::GeneratorOptions;
use idgen::store::Ledger;
use metrics::Metrics;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

/// Environment variable holding the bearer token, as `--token-file` does.
const TOKEN_ENV: &str = "IDGEN_SERVE_TOKEN";

/// The shortest a snowflake request waits for its namespace's lease to be proven.
const MIN_LEASE_WAIT: Duration = Duration::from_secs(1);

/// How often the ledger is probed for `/healthz` and the app names refreshed.
const PROBE_EVERY: Duration = Duration::from_secs(2);

#[derive(Debug, clap::Args)]
#[command(after_help = "Endpoints (Leaf's paths and plain-text answers):
  GET /api/segment/get/{app}[?gate_pass=S]   one segment ID; app = name or number
  GET /api/segment/list/{app}/{n}            n IDs, one per line (JSON array of strings
                                             with Accept: application/json); over 1024,
                                             streamed, taken chunk by chunk as read
  GET /api/snowflake/get/{namespace}         one snowflake ID under the namespace's lease
  GET /api/decode/{id}[?layout=&epoch=&bits=&unit=]   the `decode --json` object
  GET /decodeSnowflakeId?snowflakeId=ID      Leaf's decode answer
  GET /tinyid/id/nextId?bizType=APP[&batchSize=N][&token=T]
                                             Didi Tinyid's answer, byte for byte:
                                             {\"data\":[IDs as numbers],\"code\":200,\"message\":\"\"}
  GET /tinyid/id/nextIdSimple?bizType=APP[&batchSize=N][&token=T]
                                             Tinyid's: the IDs joined by commas
  GET /healthz                               200 when every backend answers, else 503
                                             with reasons (no host names)
  GET /metrics                               Prometheus text
Errors: JSON {\"code\": EXIT-CODE-NAME, \"message\": ...}; see `idgen --help` for the names.
A malformed request head (400), a URI over 8 KiB (414) or headers over 16 KiB (431)
answer the same JSON, then the connection is closed.
HEAD on an endpoint that issues IDs answers its headers without taking one.

Access: loopback only unless --allow-remote. With a token (--token-file, or the
IDGEN_SERVE_TOKEN environment variable), every endpoint but /healthz asks for
`Authorization: Bearer TOKEN` (a token file's first line); Tinyid's two also take
it as ?token=T, and refuse as Tinyid does. The token is never printed.

Slow clients: a connection that sends no complete request headers within
--header-timeout (counted from its opening or its last answer, so idle
keep-alive connections too) is closed; a write the client does not read within
--write-timeout ends the connection.

SIGTERM or SIGINT: stop accepting, give the requests in flight up to
--drain-timeout to finish (then drop them), release the leases.

Examples:
  idgen serve
  idgen serve --namespace orders --namespace audit=sonyflake
  idgen serve --listen 0.0.0.0:8080 --allow-remote --token-file /etc/idgen/token")]
pub struct ServeArgs {
    /// Address to listen on
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080", value_parser = parse_listen)]
    pub listen: SocketAddr,

    /// Allow listening on an address other than loopback
    #[arg(long)]
    pub allow_remote: bool,

    /// File holding the bearer token clients must send (or IDGEN_SERVE_TOKEN holds it)
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,

    /// Serve snowflake IDs for a namespace, optionally with its own named layout (repeatable)
    #[arg(long = "namespace", value_name = "NS[=LAYOUT]")]
    pub namespaces: Vec<String>,

    #[command(flatten)]
    pub layout: LayoutArgs,

    /// Who holds the leases, shown to operators [default: HOSTNAME:PID]
    #[arg(long, value_name = "TEXT")]
    pub holder: Option<String>,

    /// Lease expiry; renewed every third of it [default: 30s, or the config file's]
    #[arg(long, value_name = "DURATION")]
    pub ttl: Option<String>,

    /// Largest backward clock step waited out instead of refused
    #[arg(long, value_name = "DURATION", default_value = "5ms")]
    pub max_clock_back: String,

    /// Most connections held open at once; more wait in the kernel's backlog
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_connections: usize,

    /// Most requests handled at once; more are refused with 503
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub max_requests: usize,

    /// Segment IDs kept ready in memory per app and shard, refilled in the
    /// background at half; a request that outruns the refills doubles them, up to 64 x N;
    /// 0 turns the buffer off. A crash loses them (gaps, never repeats)
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub buffer: u64,

    /// Longest a connection may take to send a request's headers, counted from its
    /// opening or its last answer: idle keep-alive connections are closed after it too
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub header_timeout: String,

    /// Longest an answer may wait for a client that does not read it; then the connection ends
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub write_timeout: String,

    /// On SIGTERM or SIGINT, longest the connections still open may take to finish
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub drain_timeout: String,

    /// Most IDs one list request may ask for
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub max_n: u64,
}

/// One namespace's lease and the generator issuing under it.
struct Namespace {
    session: Arc<LeaseSession<ProcessClock>>,
    generator: tokio::sync::Mutex<LeasedGenerator<ProcessClock>>,
    renewer: tokio::task::JoinHandle<()>,
    /// Its `get` counters, made at the first request.
    series: std::sync::OnceLock<metrics::Series>,
}

/// Everything a request handler needs.
struct Server {
    segments: Arc<BufferedAllocator>,
    ledger: Arc<dyn Ledger>,
    /// App names to numbers, refreshed by the probe and on a miss.
    apps: RwLock<HashMap<String, u8>>,
    namespaces: BTreeMap<String, Namespace>,
    settings: Settings,
    metrics: Arc<Metrics>,
    out: Output,
    /// The bearer token's SHA-256: compared digest to digest, so the time
    /// taken shows neither where a guess differs nor how long the token is.
    token: Option<[u8; 32]>,
    in_flight: Arc<Semaphore>,
    max_requests: usize,
    max_n: u64,
    /// Keys the ledger did not know lately.
    unknown: segments::Unknown,
    /// The backends `/healthz` checks, and what it last found.
    probes: health::Probes,
    health: Mutex<health::Health>,
    /// Whether `health` holds a request's outage (set and cleared under its lock).
    outage_noted: std::sync::atomic::AtomicBool,
}

/// Lease events: reported as `idgen lease` reports them, and kept for metrics.
struct ServeEvents {
    report: EventReport,
    metrics: Arc<Metrics>,
}

impl LeaseEvents for ServeEvents {
    fn event(&self, event: LeaseEvent) {
        let namespace = &self.report.namespace;
        match &event {
            LeaseEvent::Acquired { worker, .. } | LeaseEvent::Restored { worker } => {
                self.metrics.lease(namespace, |g| {
                    g.held = true;
                    g.worker = Some(*worker);
                });
            }
            LeaseEvent::Lost { .. } => self.metrics.lease(namespace, |g| {
                g.held = false;
                g.lost += 1;
            }),
            LeaseEvent::Waiting { .. } | LeaseEvent::Released { .. } => {
                self.metrics.lease(namespace, |g| g.held = false)
            }
            LeaseEvent::RenewFailed { .. } | LeaseEvent::Quarantined { .. } => {}
        }
        self.report.event(event);
    }
}

pub async fn run(args: ServeArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        return Err(idgen::Error::invalid(
            "--listen",
            format!("{} is not a loopback address", args.listen),
            "pass --allow-remote to listen beyond this machine, with --token-file on networks you do not trust",
        )
        .into());
    }
    for (flag, value) in [
        ("--max-connections", args.max_connections as u64),
        ("--max-requests", args.max_requests as u64),
        ("--max-n", args.max_n),
    ] {
        if value == 0 {
            return Err(
                idgen::Error::invalid("flag", format!("{flag} 0"), "allow at least 1").into(),
            );
        }
    }
    let timeouts = Timeouts {
        header: positive_duration("--header-timeout", &args.header_timeout)?,
        write: positive_duration("--write-timeout", &args.write_timeout)?,
        drain: positive_duration("--drain-timeout", &args.drain_timeout)?,
    };
    let token = read_token(args.token_file.as_deref())?;
    if token.is_none() && !args.listen.ip().is_loopback() {
        ctx.out.warn(&format!(
            "listening on {} without a token: anyone who can reach it can take IDs",
            args.listen
        ));
    }
    let ttl = lease_ttl(args.ttl.as_deref(), &ctx.settings)?;
    let options = GeneratorOptions {
        max_backward: parse_duration(&args.max_clock_back)?,
    };
    let holder = args.holder.clone().unwrap_or_else(default_holder);

    // With namespaces to serve, Redis alone will do: segment requests are
    // then answered with the error naming the missing MySQL.
    let backend = if args.namespaces.is_empty() {
        Backend::open(&ctx.settings)?
    } else {
        Backend::open_for_leases(&ctx.settings)?
    };
    ctx.out.info(&format!("backend: {}", backend.describe()));
    let metrics = Arc::new(Metrics::default());
    // Leases are released on the first signal; a second one ends at once.
    ctx.interrupt.graceful();
    let mut namespaces = BTreeMap::new();
    // The first namespace's store is also the one `/healthz` probes.
    let mut lease_store = None;
    for spec in &args.namespaces {
        let (name, layout) = namespace_layout(spec, &args.layout, &ctx.settings)?;
        // Not dialled yet: serve starts while Redis is down, and leases in
        // the background once it answers (see `Keep::Held`).
        let store = backend.lease_store_undialled().await?;
        lease_store.get_or_insert_with(|| store.clone());
        let events = Arc::new(ServeEvents {
            report: EventReport {
                json: false,
                namespace: name.clone(),
                holder: holder.clone(),
                layout: layout.clone(),
                ttl,
                verbose: ctx.out.verbose,
            },
            metrics: metrics.clone(),
        });
        let Holding {
            session,
            generator,
            renewer,
        } = hold(
            WorkerSource::Lease(store),
            NamespaceSpec::new(&name, &layout, Assigner::Lease)?,
            layout,
            holder.clone(),
            ttl,
            options,
            events,
            Keep::Held,
        )
        .await
        .with_context(|| format!("leasing a worker ID in namespace {name}"))?;
        namespaces.insert(
            name,
            Namespace {
                session,
                generator: tokio::sync::Mutex::new(generator),
                renewer,
                series: std::sync::OnceLock::new(),
            },
        );
    }

    let probes = health::Probes {
        ledger: backend.has_ledger(),
        nodes: backend.has_redis_nodes().then(|| backend.nodes.clone()),
        lease_store,
    };
    let server = Arc::new(Server {
        segments: BufferedAllocator::new(
            Arc::new(backend.allocator(&ctx.settings)),
            BufferOptions::with_batch(args.buffer),
        ),
        ledger: backend.ledger.clone(),
        apps: RwLock::new(HashMap::new()),
        namespaces,
        settings: ctx.settings.clone(),
        metrics,
        out: ctx.out.clone(),
        token,
        in_flight: Arc::new(Semaphore::new(args.max_requests)),
        max_requests: args.max_requests,
        max_n: args.max_n,
        unknown: segments::Unknown::default(),
        probes,
        health: Mutex::default(),
        outage_noted: Default::default(),
    });
    server.probe().await;
    let prober = tokio::spawn({
        let server = server.clone();
        async move {
            loop {
                tokio::time::sleep(PROBE_EVERY).await;
                server.probe().await;
            }
        }
    });

    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| {
            idgen::Error::invalid(
                "--listen",
                format!("cannot listen on {}: {e}", args.listen),
                "pick a free port, or stop what holds it",
            )
        })?;
    let bound = listener.local_addr()?;
    ctx.out
        .note(&format!("idgen serve: listening on http://{bound}"));
    let router = routes(server.clone());
    let interrupt = ctx.interrupt.clone();
    let drained = connections::serve(
        listener,
        args.max_connections,
        router,
        timeouts,
        async move { interrupt.wait().await },
    )
    .await;
    if let Drained::Cut(open) = drained {
        ctx.out.warn(&format!(
            "{open} connection(s) still open after --drain-timeout {}; closed them (IDs they had taken are a gap)",
            args.drain_timeout
        ));
    }

    prober.abort();
    let mut released = Ok(());
    for (name, namespace) in &server.namespaces {
        namespace.renewer.abort();
        let last = namespace.generator.lock().await.last_issued_ms();
        if let Err(e) = namespace.session.release(last).await {
            released = Err(anyhow::Error::new(e).context(format!("releasing namespace {name}")));
        }
    }
    released?;
    ctx.out.note("idgen serve: stopped");
    Ok(Outcome::Success)
}

/// `NS` or `NS=LAYOUT`: the namespace and its layout, resolved by the one rule
/// `lease` and `decode` use (a named layout here replaces `--layout`).
fn namespace_layout(
    spec: &str,
    layout: &LayoutArgs,
    settings: &Settings,
) -> idgen::Result<(String, Layout)> {
    match spec.split_once('=') {
        Some((name, named)) => {
            let args = LayoutArgs {
                layout: Some(named.to_string()),
                bits: None,
                unit: None,
                ..layout.clone()
            };
            Ok((name.to_string(), args.resolve(settings)?))
        }
        None => Ok((spec.to_string(), layout.resolve(settings)?)),
    }
}

/// A duration flag that must be above zero.
fn positive_duration(flag: &str, text: &str) -> idgen::Result<Duration> {
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err(idgen::Error::invalid(
            "flag",
            format!("{flag} 0"),
            "give a duration above zero, such as 10s",
        ));
    }
    Ok(duration)
}

/// The digest of the bearer token from `--token-file` or `IDGEN_SERVE_TOKEN`
/// (its first line), if any.
fn read_token(file: Option<&std::path::Path>) -> idgen::Result<Option<[u8; 32]>> {
    let text = match file {
        Some(path) => std::fs::read_to_string(path).map_err(|e| {
            idgen::Error::invalid(
                "--token-file",
                format!("cannot read {}: {e}", path.display()),
                "name a readable file holding the token",
            )
        })?,
        None => match std::env::var(TOKEN_ENV) {
            Ok(text) => text,
            Err(_) => return Ok(None),
        },
    };
    let token = text.lines().next().unwrap_or_default().trim();
    if token.is_empty() {
        return Err(idgen::Error::invalid(
            "bearer token",
            "it is empty",
            "put the token on the file's first line",
        ));
    }
    Ok(Some(Sha256::digest(token.as_bytes()).into()))
}

fn routes(server: Arc<Server>) -> Router {
    Router::new()
        .route(
            "/api/segment/get/{key}",
            get(segments::segment_get).head(head_without_issuing),
        )
        .route(
            "/api/segment/list/{key}/{n}",
            get(segments::segment_list).head(head_without_issuing),
        )
        .route(
            "/api/snowflake/get/{key}",
            get(snowflake::snowflake_get).head(head_without_issuing),
        )
        .route("/api/decode/{id}", get(snowflake::decode))
        .route("/decodeSnowflakeId", get(snowflake::leaf_decode))
        .route(
            tinyid::NEXT_ID,
            get(tinyid::next_id).head(tinyid::head_next_id),
        )
        .route(
            tinyid::NEXT_ID_SIMPLE,
            get(tinyid::next_id_simple).head(head_without_issuing),
        )
        .route("/healthz", get(health::healthz))
        .route("/metrics", get(health::metrics_text))
        .fallback(|| async { ApiError::new(ErrorKind::NotFound, "no such endpoint") })
        .layer(axum::middleware::from_fn_with_state(server.clone(), gate))
        .with_state(server)
}

/// Access and load control in front of every endpoint; counts failures.
///
/// The checks run before the future is made, which then holds the request
/// once: axum boxes this future per request, and at a kilobyte or more glibc
/// consolidates its free lists at every such allocation.
fn gate(
    State(server): State<Arc<Server>>,
    request: Request,
    next: Next,
) -> impl Future<Output = Response> + Send {
    let slot = match admit(&server, &request) {
        Ok(slot) => slot,
        Err(refused) => return futures::future::Either::Left(std::future::ready(*refused)),
    };
    futures::future::Either::Right(async move {
        let method = request.method().clone();
        let response = next.run(request).await;
        // Boxed, and only for a refusal whose body needs rewriting.
        let response = if needs_json_body(&response) {
            Box::pin(json_error_body(method, response)).await
        } else {
            response
        };
        drop(slot);
        if let Some(api_error::ErrorCode(code)) = response.extensions().get() {
            server.metrics.error(code);
        }
        response
    })
}

/// A slot for the request, or the answer refusing it (counted).
fn admit(
    server: &Server,
    request: &Request,
) -> Result<tokio::sync::OwnedSemaphorePermit, Box<Response>> {
    // A head refused before hyper read it: answered as such, token or not.
    if let Some(refused) = head_guard::refusal(request.headers()) {
        server.metrics.error(refused.code);
        return Err(Box::new(refused.into_response()));
    }
    // Tinyid's endpoints check their token themselves, to refuse in Tinyid's shape.
    let open = request.uri().path() == "/healthz" || tinyid::checks_its_token(request.uri().path());
    if !open
        && let Some(token) = &server.token
        && !bearer_matches(request.headers(), token)
    {
        server.metrics.error(ApiError::unauthorized().code);
        return Err(Box::new(ApiError::unauthorized().into_response()));
    }
    server.in_flight.clone().try_acquire_owned().map_err(|_| {
        let busy = ApiError::busy(server.max_requests);
        server.metrics.error(busy.code);
        Box::new(busy.into_response())
    })
}

/// Whether the answer is a refusal without a JSON body (`/healthz`'s 503 and
/// every ApiError are JSON already).
fn needs_json_body(response: &Response) -> bool {
    let status = response.status();
    let already_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    (status.is_client_error() || status.is_server_error()) && !already_json
}

/// Gives axum's own refusals (405, a path that is not UTF-8, a bad query) the
/// JSON error body every other failure has.
async fn json_error_body(method: axum::http::Method, response: Response) -> Response {
    let status = response.status();
    let kind = match status {
        StatusCode::NOT_FOUND => ErrorKind::NotFound,
        status if status.is_client_error() => ErrorKind::Usage,
        _ => ErrorKind::Internal,
    };
    let allow = response.headers().get(header::ALLOW).cloned();
    let message = if status == StatusCode::METHOD_NOT_ALLOWED {
        format!("{method} is not allowed here; use GET")
    } else {
        // axum's rejection text is one short line; cap it all the same.
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap_or_default();
        String::from_utf8_lossy(&body).trim().to_string()
    };
    let mut answer = ApiError::with_status(status, kind, message).into_response();
    if let Some(allow) = allow {
        answer.headers_mut().insert(header::ALLOW, allow);
    }
    answer
}

/// Whether the request carries the token: the scheme in any case (RFC 9110),
/// compared as fixed-size digests in constant time, so the time taken shows
/// neither where a guess differs nor the token's length.
fn bearer_matches(headers: &HeaderMap, token: &[u8; 32]) -> bool {
    let Some((scheme, given)) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().split_first_chunk::<7>())
        .map(|(scheme, rest)| (scheme, rest.trim_ascii()))
    else {
        return false;
    };
    scheme.eq_ignore_ascii_case(b"Bearer ") && token_matches(given, token)
}

/// Whether `given` is the token, compared as fixed-size digests in constant time.
fn token_matches(given: &[u8], token: &[u8; 32]) -> bool {
    let given: [u8; 32] = Sha256::digest(given).into();
    bool::from(given.ct_eq(token))
}

/// `HEAD` on an endpoint that issues IDs: the headers its `GET` would carry,
/// without taking an ID (axum would otherwise run the `GET` and drop the body).
async fn head_without_issuing() -> Response {
    leaf_text(String::new())
}

/// Leaf's plain-text success answer, byte for byte.
///
/// Built directly: `(headers, String).into_response()` sets axum's own
/// `text/plain; charset=utf-8` first and then replaces it, two header inserts
/// on every issued ID.
fn leaf_text(body: String) -> Response {
    let mut response = Response::new(axum::body::Body::from(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain;charset=UTF-8"),
    );
    response
}

/// The last value of `name` in a query string, decoded as axum's
/// `Query<HashMap<String, String>>` decodes it (the same `form_urlencoded`
/// parse, a later value replacing an earlier one), without building the map.
fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes())
        .filter(|(key, _)| key == name)
        .last()
        .map(|(_, value)| value.into_owned())
}

/// `--listen`: `IP:PORT`, or `HOST:PORT` resolved here (`localhost:8080`), so
/// the loopback check judges the address actually bound: the first one resolved.
fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    match text.to_socket_addrs() {
        Ok(mut addrs) => addrs
            .next()
            .ok_or_else(|| format!("{text} resolves to no address")),
        Err(e) => Err(format!(
            "{text} is not HOST:PORT or IP:PORT ({e}); e.g. localhost:8080, 0.0.0.0:8080"
        )),
    }
}
