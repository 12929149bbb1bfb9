//! The core's one error type.
//!
//! Every failure the core can report is a variant here. Each variant knows its
//! [`ErrorKind`], which the binary maps to an exit code in exactly one place
//! (`src/bin/idgen/exit.rs`), and its [`Error::hint`], the fix an operator should
//! try. Messages never contain a password: URLs reach this type only through
//! [`crate::redact::SecretUrl`], whose `Display` is redacted.

use std::time::Duration;

/// The broad class of a failure; decides the process exit code. In JSON it
/// is the exit code's name (`bad-data`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// A bad flag, argument, config value or input.
    Usage,
    /// Something named does not exist (app, shard, node, namespace).
    NotFound,
    /// A hard limit was reached (`max_limit_id`, every worker ID held, a layout's time bits).
    Exhausted,
    /// A backend could not be reached or did not answer in time; retrying may help.
    Unavailable,
    /// Stored state disagrees with the request (name, layout, route, lease ownership).
    Conflict,
    /// The clock moved backwards further than the generator may wait out.
    Clock,
    /// Stored data is corrupt, of the wrong version, or cannot be written.
    Store,
    /// The operation was interrupted by a signal before it finished.
    Interrupted,
    /// A backend refused the credentials, or the user lacks a permission.
    Access,
    /// A TLS connection failed: the server's certificate could not be
    /// verified, or the handshake failed (a client certificate is missing, one
    /// side does not speak TLS).
    Tls,
    /// A backend holds data idgen did not write: a wrong type, a foreign value,
    /// a malformed entry under one of its keys.
    BadData,
    /// A bug or an unexpected answer from a backend.
    Internal,
}

// Every kind is in ALL: the enum's variants count up from 0, Internal last.
const _: () = assert!(ErrorKind::ALL.len() == ErrorKind::Internal as usize + 1);

impl ErrorKind {
    /// Every kind, for tables and their tests.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::Usage,
        ErrorKind::NotFound,
        ErrorKind::Exhausted,
        ErrorKind::Unavailable,
        ErrorKind::Conflict,
        ErrorKind::Clock,
        ErrorKind::Store,
        ErrorKind::Interrupted,
        ErrorKind::Access,
        ErrorKind::Tls,
        ErrorKind::BadData,
        ErrorKind::Internal,
    ];
}

/// Result alias used throughout the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything the core can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("invalid {what}: {problem}")]
    Invalid {
        what: &'static str,
        problem: String,
        hint: String,
    },

    #[error("{location}: {problem}")]
    Config {
        location: String,
        problem: String,
        hint: String,
    },

    /// A config file that cannot be read, does not parse, or holds a bad value.
    #[error("{path}{}: {}{problem}", line.map(|l| format!(":{l}")).unwrap_or_default(), key.as_ref().map(|k| format!("key {k}: ")).unwrap_or_default())]
    ConfigFile {
        path: String,
        line: Option<usize>,
        key: Option<String>,
        problem: String,
        hint: String,
    },

    #[error("app {app} is not initialised")]
    UnknownApp { app: u8 },

    #[error("app {app} has no shard {shard} in id_alloc")]
    ShardMissing { app: u8, shard: u8 },

    #[error("app {app} already exists with name {existing:?}, not {requested:?}")]
    AppNameConflict {
        app: u8,
        existing: String,
        requested: String,
    },

    #[error(
        "app {app} shard {shard} reached max_limit_id {max_limit_id}: no ID above it can be issued"
    )]
    LimitReached {
        app: u8,
        shard: u8,
        max_limit_id: u64,
    },

    #[error("app {app} shard {shard} has no stock after a refill attempt")]
    StockEmpty { app: u8, shard: u8 },

    #[error(
        "app {app} shard {shard}: the ledger kept handing out indexes at or below {witness}, the end of a segment it handed out before, as recorded on Redis node {node:?}"
    )]
    WitnessAhead {
        app: u8,
        shard: u8,
        node: String,
        witness: u64,
    },

    #[error(
        "app {app}: shard {shard} on node {node:?} stayed locked by a refill past a lock's lifetime; the limit was not changed"
    )]
    ShardBusy { app: u8, shard: u8, node: String },

    #[error("Redis node {node:?} is not configured")]
    UnknownNode { node: String },

    #[error("app {app} is served by node {node:?}, which is not configured here")]
    RouteToUnknownNode { app: u8, node: String },

    #[error("{backend} at {url} is unreachable: {detail}")]
    Unreachable {
        backend: &'static str,
        url: String,
        detail: String,
    },

    #[error("{backend} at {url} did not answer within {}", fmt_duration(*.after))]
    Timeout {
        backend: &'static str,
        url: String,
        after: Duration,
    },

    #[error("{backend} at {url} failed: {detail}")]
    Backend {
        backend: &'static str,
        url: String,
        detail: String,
    },

    /// A Redis server that is not the master: a replica (writable with
    /// `replica-read-only no`, or a master demoted under live connections). It
    /// serves, locks and pushes nothing: its stock may be its master's too.
    #[error("{backend} node {node:?} at {url} is not the master: {}", describe_role(role, master.as_deref()))]
    NotMaster {
        backend: &'static str,
        node: String,
        url: String,
        /// `role` in its `INFO replication` (`slave` on a replica).
        role: String,
        /// Its master's `host:port`, when it said.
        master: Option<String>,
    },

    /// A lease write on Redis alone that did not reach every replica it must
    /// (the master cut off from them, or left without one by a failover):
    /// it does not count. `acknowledged` is `None` when the master refused
    /// before writing, `in_sync` (fewer than `required`) being all it had in sync.
    #[error("{backend} at {url}: {}", describe_replicas(namespace, *required, *in_sync, *acknowledged))]
    Unreplicated {
        backend: &'static str,
        url: String,
        namespace: String,
        required: u64,
        in_sync: u64,
        acknowledged: Option<u64>,
    },

    /// The server rolled a transaction back to break a deadlock, after a
    /// lock wait timed out, or for a certification conflict (Galera, Group
    /// Replication): nothing of it was committed.
    #[error("{backend} at {url} aborted the transaction: {detail}")]
    TransactionAborted {
        backend: &'static str,
        url: String,
        detail: String,
    },

    /// A Galera node outside its cluster's primary component (joining, or cut
    /// off) refused the statement (1047): it executed nothing.
    #[error("{backend} at {url} is not ready for queries: {detail}")]
    NodeNotReady {
        backend: &'static str,
        url: String,
        detail: String,
    },

    /// An operation retried with backoff ([`crate::retry`]) still failed when
    /// its time budget was spent; `last` is its last failure.
    #[error("{last} (gave up after {attempts} attempts over {})", fmt_duration(*.over))]
    RetriesSpent {
        attempts: u32,
        over: Duration,
        last: Box<Error>,
    },

    #[error("{backend} at {url} is version {version}; idgen needs {minimum} or later")]
    ServerTooOld {
        backend: &'static str,
        url: String,
        version: String,
        minimum: String,
    },

    #[error("{backend} at {url}: TLS failed: {detail}")]
    Tls {
        backend: &'static str,
        url: String,
        detail: String,
        hint: String,
    },

    #[error("{backend} at {url} refused access: {detail}")]
    AccessDenied {
        backend: &'static str,
        url: String,
        detail: String,
    },

    /// Data under an idgen key that idgen cannot have written.
    #[error("{backend} key {key} holds unexpected data: {detail}")]
    BadData {
        backend: &'static str,
        key: String,
        detail: String,
    },

    #[error("store {path} is unusable: {detail}")]
    StoreUnusable { path: String, detail: String },

    #[error("stored data is inconsistent: {detail}")]
    Corrupt { detail: String },

    #[error("layout: {0}")]
    Layout(#[from] crate::layout::LayoutError),

    #[error("layout {layout} ran out of time bits at {exhausted_at}; it cannot issue IDs any more")]
    TimeExhausted {
        layout: String,
        exhausted_at: String,
    },

    #[error(
        "the clock moved back by {behind_ms} ms, more than the {tolerance_ms} ms the generator waits out"
    )]
    ClockMovedBack { behind_ms: u64, tolerance_ms: u64 },

    #[error(
        "namespace {namespace:?} is recorded with {recorded}, but this holder uses {requested}"
    )]
    NamespaceMismatch {
        namespace: String,
        /// The recorded layout and epoch, described for people (`layout ... since ...`).
        recorded: String,
        /// This holder's layout and epoch, described the same way.
        requested: String,
    },

    #[error("namespace {namespace:?} has not been used yet")]
    UnknownNamespace { namespace: String },

    #[error("namespace {namespace:?} is locked by another repair")]
    NamespaceBusy { namespace: String },

    #[error("namespace {namespace:?} is in use: {detail}")]
    NamespaceInUse { namespace: String, detail: String },

    #[error("all {capacity} worker IDs of namespace {namespace:?} are held")]
    AllWorkersHeld { namespace: String, capacity: u64 },

    #[error(
        "the worker-node table has handed out {assigned} worker IDs, more than {layout} can hold ({capacity})"
    )]
    WorkerIdsExhausted {
        layout: String,
        assigned: u64,
        capacity: u64,
    },

    #[error("app {app} is being moved to node {target:?}; {detail}")]
    MigrationConflict {
        app: u8,
        target: String,
        detail: String,
    },

    #[error("app {app} cannot move out of the embedded store: {detail}")]
    AdoptionRefused {
        app: u8,
        detail: String,
        fix: String,
    },

    #[error("app {app} is served by node {node:?}")]
    Moved { app: u8, node: String },

    /// A shard sealed on one node by a move (`migrate`): that node stocks
    /// nothing for it until a move back admits it there.
    #[error("app {app} shard {shard} moved from node {node:?} to node {to:?}")]
    ShardMoved {
        app: u8,
        shard: u8,
        node: String,
        to: String,
    },

    /// A take was sent between nodes more often than one move explains: the
    /// ledger's route and the nodes' seals disagree (a move under way, or a
    /// ledger that went back in time across one).
    #[error("app {app} could not be served: {detail}")]
    RouteUnsettled { app: u8, detail: String },

    #[error("app {app} has moved out of this store to {to}")]
    AppMovedOut { app: u8, to: String },

    #[error("interrupted before {what} finished")]
    Interrupted { what: String },

    /// A signal stopped a command that issues IDs (`next --count`, `lease`)
    /// between batches; every ID issued was delivered.
    #[error(
        "interrupted after issuing {issued}{} IDs, each written to stdout",
        asked.map(|n| format!(" of {n}")).unwrap_or_default()
    )]
    IssuingInterrupted { issued: u64, asked: Option<u64> },

    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// Shorthand for a bad value with the fix to suggest.
    pub fn invalid(
        what: &'static str,
        problem: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            what,
            problem: problem.into(),
            hint: hint.into(),
        }
    }

    /// The class of this failure.
    pub fn kind(&self) -> ErrorKind {
        use Error::*;
        match self {
            Invalid { .. }
            | Config { .. }
            | ConfigFile { .. }
            | Layout(_)
            | ServerTooOld { .. } => ErrorKind::Usage,
            UnknownApp { .. }
            | ShardMissing { .. }
            | UnknownNode { .. }
            | RouteToUnknownNode { .. }
            | UnknownNamespace { .. } => ErrorKind::NotFound,
            LimitReached { .. }
            | TimeExhausted { .. }
            | AllWorkersHeld { .. }
            | WorkerIdsExhausted { .. } => ErrorKind::Exhausted,
            Unreachable { .. }
            | Timeout { .. }
            | Backend { .. }
            | TransactionAborted { .. }
            | NodeNotReady { .. }
            | NotMaster { .. }
            | Unreplicated { .. }
            | StockEmpty { .. }
            | WitnessAhead { .. }
            | RouteUnsettled { .. }
            | ShardBusy { .. } => ErrorKind::Unavailable,
            RetriesSpent { last, .. } => last.kind(),
            AppNameConflict { .. }
            | NamespaceBusy { .. }
            | NamespaceInUse { .. }
            | NamespaceMismatch { .. }
            | MigrationConflict { .. }
            | AdoptionRefused { .. }
            | Moved { .. }
            | ShardMoved { .. }
            | AppMovedOut { .. } => ErrorKind::Conflict,
            ClockMovedBack { .. } => ErrorKind::Clock,
            StoreUnusable { .. } | Corrupt { .. } => ErrorKind::Store,
            Interrupted { .. } | IssuingInterrupted { .. } => ErrorKind::Interrupted,
            AccessDenied { .. } => ErrorKind::Access,
            Tls { .. } => ErrorKind::Tls,
            BadData { .. } => ErrorKind::BadData,
            Internal(_) => ErrorKind::Internal,
        }
    }

    /// Why a server could not be used, naming no address (no host, port or
    /// URL), for answers anyone may read such as `serve`'s `/healthz`: `MySQL
    /// unreachable: connection refused`. `None` when the error is no outage.
    pub fn outage(&self) -> Option<String> {
        use Error::*;
        let cause = |detail: &str, otherwise: &'static str| {
            let detail = detail.to_ascii_lowercase();
            [
                ("refused", "connection refused"),
                ("reset", "connection reset"),
                ("timed out", "connection timed out"),
                ("broken pipe", "connection closed"),
                ("closed", "connection closed"),
                ("resolve", "host name not resolved"),
                ("lookup", "host name not resolved"),
            ]
            .iter()
            .find(|(found, _)| detail.contains(found))
            .map_or(otherwise, |(_, cause)| cause)
        };
        Some(match self {
            Unreachable {
                backend, detail, ..
            } => {
                format!("{backend} unreachable: {}", cause(detail, "no connection"))
            }
            Timeout { backend, after, .. } => {
                format!("{backend} did not answer within {}", fmt_duration(*after))
            }
            Backend {
                backend, detail, ..
            } => {
                format!("{backend} failed: {}", cause(detail, "a command failed"))
            }
            NodeNotReady { backend, .. } => format!("{backend} is not ready (loading or syncing)"),
            NotMaster { backend, role, .. } => {
                format!("{backend} is not the master: {}", describe_role(role, None))
            }
            Unreplicated {
                backend,
                required,
                acknowledged,
                ..
            } => format!(
                "{backend}: a lease reached {} of the {required} replicas it must",
                acknowledged.unwrap_or(0)
            ),
            AccessDenied { backend, .. } => format!("{backend} refused access"),
            Tls { backend, .. } => format!("{backend}: the TLS connection failed"),
            RetriesSpent { last, .. } => return last.outage(),
            _ => return None,
        })
    }

    /// What the operator should try next, if there is a clear fix.
    pub fn hint(&self) -> Option<String> {
        use Error::*;
        let hint = match self {
            Invalid { hint, .. }
            | Config { hint, .. }
            | ConfigFile { hint, .. }
            | Tls { hint, .. } => hint.clone(),
            Layout(e) => e.hint(),
            UnknownApp { app } => {
                format!("create it with `idgen init-app --app {app} --name NAME`")
            }
            ShardMissing { app, .. } => format!(
                "run `idgen init-app --app {app} --name NAME` with the app's existing name to add the missing shards"
            ),
            AppNameConflict { app, existing, .. } => format!(
                "app {app} is named {existing:?}: give that name to use it, or pick an unused app ID"
            ),
            LimitReached { app, .. } => format!(
                "raise it with `idgen app set {app} --max-limit-id N`, or move the callers to a new app; idgen never wraps IDs"
            ),
            StockEmpty { .. } => {
                "another process holds the refill lock; retry, and check `idgen status`".into()
            }
            ShardBusy { .. } => {
                "run the command again; `idgen status` shows refills that keep failing".into()
            }
            WitnessAhead { .. } => {
                "retry: each attempt moves the ledger past the witness; if it persists, check that every idgen points at the same MySQL primary".into()
            }
            UnknownNode { .. } | RouteToUnknownNode { .. } => {
                "name the node under [redis.nodes] in the config file".into()
            }
            Timeout {
                backend: "SQLite", ..
            } => "another idgen process kept the store busy; retry, and --timeout raises the wait"
                .into(),
            Unreachable { .. } | Timeout { .. } => {
                "check the URL and that the server is up; --timeout raises the wait".into()
            }
            Backend { .. } => "check the server's log; the operation is safe to retry".into(),
            TransactionAborted { .. } => {
                "nothing was committed: the operation is safe to retry".into()
            }
            NodeNotReady { .. } => {
                "the Galera node is joining its cluster or cut off from the primary component: point idgen at a synced node, or wait until it is Synced".into()
            }
            RetriesSpent { last, .. } => format!(
                "{}; a longer --timeout gives the retries more time",
                last.hint().unwrap_or_default()
            ),
            NotMaster { master, .. } => format!(
                "point idgen at the master{}, or at its sentinels (redis-sentinel://…#MASTER), which it follows through failovers; nothing was served, so retrying is safe",
                master.as_deref().map(|m| format!(" ({m})")).unwrap_or_default()
            ),
            Unreplicated { namespace, .. } => format!(
                "the master is cut off from its replicas, or a failover left it without one: leases wait until they are back, and nothing was issued under this one; {}",
                crate::lease::replicas_fix(namespace)
            ),
            ServerTooOld {
                backend, minimum, ..
            } => format!("upgrade {backend} to {minimum} or later, or point idgen at another server"),
            AccessDenied { .. } => {
                "check the user name and password (or the ACL rules) for this backend".into()
            }
            BadData {
                backend: "Redis",
                key,
                ..
            } => format!(
                "something other than idgen wrote {key}: delete it with redis-cli DEL {key} after checking what wrote it (its indexes become a gap, never a repeat)"
            ),
            BadData { key, .. } => format!(
                "something other than idgen wrote {key}; inspect it, then delete the key (its indexes become a gap, never a repeat)"
            ),
            StoreUnusable { .. } => {
                "fix what the message names (each cause says what it found), or point --store at another file"
                    .into()
            }
            Corrupt { .. } => {
                "run `idgen inspect-freelist` or `idgen status` to see the damage".into()
            }
            TimeExhausted { .. } => {
                "choose a later --epoch or a layout with more time bits for new IDs".into()
            }
            ClockMovedBack { .. } => {
                "fix the host clock (NTP), then retry; no ID was issued from the past".into()
            }
            NamespaceMismatch { .. } => {
                "use the namespace's recorded layout and epoch, or another --namespace".into()
            }
            UnknownNamespace { .. } => "run `idgen lease --namespace NS` once to create it".into(),
            NamespaceBusy { .. } => "wait for the other repair to finish (its lock expires in 30s)".into(),
            NamespaceInUse { .. } => {
                "stop its holders and wait until their fences pass, then delete it".into()
            }
            AllWorkersHeld { .. } => {
                "wait for a lease to expire, use a layout with more worker bits, or split the namespace"
                    .into()
            }
            WorkerIdsExhausted { .. } => {
                "use a layout with a wider worker field, or the Redis lease assigner".into()
            }
            MigrationConflict { app, target, .. } => {
                format!("finish it with `idgen migrate --app {app} --to {target}`")
            }
            AdoptionRefused { fix, .. } => fix.clone(),
            Moved { node, .. } => format!("configure node {node:?} under [redis.nodes]"),
            ShardMoved { app, to, .. } => format!(
                "retry: a take follows it; to finish a move under way, rerun `idgen migrate --app {app} --to {to}`"
            ),
            RouteUnsettled { app, .. } => format!(
                "retry; if it persists, finish the app's move with `idgen migrate --app {app} --to NODE` (the node `idgen status` routes it to)"
            ),
            AppMovedOut { .. } => "point idgen at the deployment the app moved to".into(),
            Interrupted { .. } => "rerun the command; it resumes safely".into(),
            IssuingInterrupted { issued, asked } => match asked {
                Some(asked) => format!(
                    "a rerun issues new IDs, never these again: ask for the rest with --count {}",
                    asked.saturating_sub(*issued)
                ),
                None => "a rerun issues new IDs, never these again".into(),
            },
            Internal(_) => "please report this as a bug".into(),
        };
        Some(hint)
    }
}

/// What [`Error::Unreplicated`] found.
fn describe_replicas(
    namespace: &str,
    required: u64,
    in_sync: u64,
    acknowledged: Option<u64>,
) -> String {
    let replicas = |n: u64| if n == 1 { "replica" } else { "replicas" };
    match acknowledged {
        None => format!(
            "every lease in namespace {namespace:?} must reach {required} {}, and the master has {in_sync} in sync: nothing was written",
            replicas(required)
        ),
        Some(acknowledged) => format!(
            "the lease in namespace {namespace:?} must reach {required} {}, and {acknowledged} acknowledged it in time: it does not count",
            replicas(required)
        ),
    }
}

/// What a server that is not the master is, for [`Error::NotMaster`].
fn describe_role(role: &str, master: Option<&str>) -> String {
    match (role, master) {
        ("slave" | "replica", Some(master)) => format!("it is a replica of {master}"),
        ("slave" | "replica", None) => "it is a replica".into(),
        ("", _) => "its role is unknown".into(),
        (role, _) => format!("its role is {role:?}"),
    }
}

/// Formats a duration for messages: `1.5s`, `250ms`, in the syntax the
/// duration flags take (`--timeout 1.5s`), so a message can be pasted back.
/// Tables show spans of hours and days instead (`output::span` in the binary).
pub fn fmt_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{}ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}
