//! Holding a worker ID over time, and issuing snowflake IDs under it.
//!
//! A [`LeaseSession`] owns the lease: acquire, renew every third of the TTL,
//! re-acquire after a loss, release at the end. A [`LeasedGenerator`] issues IDs
//! only while the session can prove the lease valid, and never past its fence.

use super::{Assigner, Grant, LeaseStore, NamespaceSpec, Renewal, WorkerNodeAssigner};
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::retry::Backoff;
use crate::snowflake::{GeneratorOptions, SnowflakeGenerator};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Something that happened to the lease, for the binary to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaseEvent {
    Acquired {
        worker: u64,
        floor_ms: Option<i64>,
        /// The quarantine the lease waits out first (see [`Grant::quarantine_until_ms`]).
        quarantine_until_ms: Option<i64>,
        /// Leases Redis had lost and that were put back on the way (see [`Grant::restored`]).
        restored: u64,
    },
    /// Redis had lost this lease's key (a restart or a failover); the durable
    /// lease still held, and the key was put back.
    Restored { worker: u64 },
    /// No lease can be proven or acquired right now (a backend is down); no ID
    /// is issued until one is, retried after `retry_in`.
    Waiting { error: String, retry_in: Duration },
    /// A renewal failed to reach the store; the lease may still be valid.
    RenewFailed { worker: u64, error: String },
    /// Another holder has the worker now; this session issues nothing under it.
    Lost { worker: u64 },
    /// Redis alone could not prove its state continuous (a restart, a
    /// failover, lost data): the lease just granted issues nothing up to
    /// `until_ms`, when every lease from before has certainly run out.
    Quarantined { worker: u64, until_ms: i64 },
    Released {
        worker: u64,
        /// The fence recorded for the worker: the time of the last ID issued
        /// under it (at or before it when given back `ahead`); `None` when it
        /// issued none.
        last_ms: Option<i64>,
        /// Given back while its last IDs were being issued, up to `last_ms`
        /// ([`LeasedGenerator::release_ahead`]).
        ahead: bool,
    },
}

/// Receives [`LeaseEvent`]s.
pub trait LeaseEvents: Send + Sync {
    fn event(&self, event: LeaseEvent);
}

/// The lease as the generator needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseStatus {
    pub worker: u64,
    /// Bumped with every new grant, so a generator knows to start afresh.
    pub generation: u64,
    /// Past this instant the lease is not provably valid.
    pub valid_until: Instant,
    /// The recorded time fence: no time unit after it may be issued.
    pub fence_ms: i64,
    /// The previous holders' fence: only later time units may be issued.
    pub floor_ms: Option<i64>,
    /// See [`Grant::quarantine_until_ms`]: waited out before the first ID.
    pub quarantine_until_ms: Option<i64>,
}

struct Held {
    grant: Grant,
    status: LeaseStatus,
    lost: bool,
    /// Given back ahead of its last IDs (`LeaseSession::release_ahead`),
    /// at its status's fence, which was lowered first.
    given_back: bool,
}

/// Where worker IDs come from.
pub enum WorkerSource {
    Lease(Arc<dyn LeaseStore>),
    WorkerNode {
        assigner: Arc<dyn WorkerNodeAssigner>,
        host: String,
        port: String,
    },
}

/// One holder's lease on a worker ID of a namespace.
pub struct LeaseSession<C: Clock> {
    source: WorkerSource,
    namespace: NamespaceSpec,
    holder: String,
    ttl: Duration,
    clock: C,
    events: Arc<dyn LeaseEvents>,
    held: Mutex<Option<Held>>,
    generation: Mutex<u64>,
    /// Held while a lease is acquired: a request's acquisition and
    /// [`LeaseSession::keep_held`]'s never make two grants, the first of
    /// which nobody would release.
    acquiring: tokio::sync::Mutex<()>,
    /// The release of a lease given back ahead of its last IDs
    /// (`LeaseSession::release_ahead`), under way or done.
    ahead: Mutex<Ahead>,
}

/// A release made ahead of the last IDs: its task, then its outcome.
enum Ahead {
    None,
    Running(tokio::task::JoinHandle<Result<()>>),
    Done(Result<()>),
}

impl<C: Clock + Clone + 'static> LeaseSession<C> {
    pub fn new(
        source: WorkerSource,
        namespace: NamespaceSpec,
        holder: String,
        ttl: Duration,
        clock: C,
        events: Arc<dyn LeaseEvents>,
    ) -> Self {
        LeaseSession {
            source,
            namespace,
            holder,
            ttl,
            clock,
            events,
            held: Mutex::new(None),
            generation: Mutex::new(0),
            acquiring: tokio::sync::Mutex::new(()),
            ahead: Mutex::new(Ahead::None),
        }
    }

    pub fn assigner(&self) -> Assigner {
        match self.source {
            WorkerSource::Lease(_) => Assigner::Lease,
            WorkerSource::WorkerNode { .. } => Assigner::WorkerNode,
        }
    }

    pub fn namespace(&self) -> &NamespaceSpec {
        &self.namespace
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// A lease is provable until this long before its expiry: covers clock-rate
    /// differences between this host and the store.
    fn margin(&self) -> Duration {
        (self.ttl / 20).max(Duration::from_millis(20))
    }

    /// Acquires a worker ID (a new one after a loss).
    pub async fn acquire(&self) -> Result<LeaseStatus> {
        // A lease given back ahead is freed first: the worker it frees may
        // be the only one left to take.
        self.settle_ahead().await;
        let sent = Instant::now();
        let fence_ms = self.clock.now_ms() + self.ttl.as_millis() as i64;
        let (grant, valid_until) = match &self.source {
            WorkerSource::Lease(store) => {
                let grant = store
                    .acquire(&self.namespace, &self.holder, self.ttl, fence_ms)
                    .await?;
                (grant, sent + self.ttl.saturating_sub(self.margin()))
            }
            WorkerSource::WorkerNode {
                assigner,
                host,
                port,
            } => {
                let worker = assigner.assign(&self.namespace, host, port).await?;
                let grant = Grant {
                    worker,
                    token: String::new(),
                    floor_ms: None,
                    restored: 0,
                    quarantine_until_ms: None,
                };
                // Never reused: valid for as long as the process lives.
                (grant, sent + Duration::from_secs(100 * 365 * 86_400))
            }
        };
        let generation = {
            let mut generation = self.generation.lock().expect("not poisoned");
            *generation += 1;
            *generation
        };
        let status = LeaseStatus {
            worker: grant.worker,
            generation,
            valid_until,
            fence_ms: match self.source {
                WorkerSource::Lease(_) => fence_ms,
                WorkerSource::WorkerNode { .. } => i64::MAX,
            },
            floor_ms: grant.floor_ms,
            quarantine_until_ms: grant.quarantine_until_ms,
        };
        self.events.event(LeaseEvent::Acquired {
            worker: grant.worker,
            floor_ms: grant.floor_ms,
            quarantine_until_ms: grant.quarantine_until_ms,
            restored: grant.restored,
        });
        *self.held.lock().expect("not poisoned") = Some(Held {
            grant,
            status: status.clone(),
            lost: false,
            given_back: false,
        });
        Ok(status)
    }

    /// Extends the lease and its fence. `Ok(false)`: the lease is lost.
    pub async fn renew(&self) -> Result<bool> {
        let WorkerSource::Lease(store) = &self.source else {
            return Ok(true);
        };
        let Some((worker, token)) = self.current_grant() else {
            return Ok(false);
        };
        let sent = Instant::now();
        let fence_ms = self.clock.now_ms() + self.ttl.as_millis() as i64;
        let renewal = match store
            .renew(&self.namespace.name, worker, &token, self.ttl, fence_ms)
            .await
        {
            Ok(renewal) => renewal,
            Err(e) => {
                self.events.event(LeaseEvent::RenewFailed {
                    worker,
                    error: e.to_string(),
                });
                return Err(e);
            }
        };
        if renewal == Renewal::Restored {
            self.events.event(LeaseEvent::Restored { worker });
        }
        let renewed = renewal != Renewal::Lost;
        let mut held = self.held.lock().expect("not poisoned");
        // A lease given back while this renewal was under way keeps the
        // fence it was given back at: a renewal refused because of that
        // release is no loss.
        let Some(current) = held
            .as_mut()
            .filter(|h| h.grant.token == token && !h.given_back)
        else {
            return Ok(false);
        };
        if renewed {
            current.status.valid_until = sent + self.ttl.saturating_sub(self.margin());
            current.status.fence_ms = current.status.fence_ms.max(fence_ms);
        } else if !current.lost {
            current.lost = true;
            drop(held);
            self.events.event(LeaseEvent::Lost { worker });
        }
        Ok(renewed)
    }

    /// The lease to renew: none once it is lost or given back.
    fn current_grant(&self) -> Option<(u64, String)> {
        let held = self.held.lock().expect("not poisoned");
        held.as_ref()
            .filter(|h| !h.lost && !h.given_back)
            .map(|h| (h.grant.worker, h.grant.token.clone()))
    }

    /// The lease, if it is provably valid right now.
    pub fn status(&self) -> Option<LeaseStatus> {
        let held = self.held.lock().expect("not poisoned");
        held.as_ref()
            .filter(|h| !h.lost && Instant::now() < h.status.valid_until)
            .map(|h| h.status.clone())
    }

    /// A valid lease: the current one, a renewed one, or a newly acquired one.
    pub async fn ensure_valid(&self) -> Result<LeaseStatus> {
        if let Some(status) = self.status() {
            return Ok(status);
        }
        if self.current_grant().is_some() {
            // Expired locally but maybe not in the store: a renewal proves it again.
            if let Ok(true) = self.renew().await
                && let Some(status) = self.status()
            {
                return Ok(status);
            }
            let mut held = self.held.lock().expect("not poisoned");
            if let Some(h) = held.as_mut()
                && !h.lost
            {
                h.lost = true;
                let worker = h.grant.worker;
                drop(held);
                self.events.event(LeaseEvent::Lost { worker });
            }
        }
        self.acquire_unless_held().await
    }

    /// [`LeaseSession::acquire`], one acquisition at a time: one that waited
    /// for another returns the lease that one acquired.
    async fn acquire_unless_held(&self) -> Result<LeaseStatus> {
        let _one = self.acquiring.lock().await;
        if let Some(status) = self.status() {
            return Ok(status);
        }
        self.acquire().await
    }

    /// Renews every third of the TTL until the task is dropped.
    pub async fn keep_renewed(self: Arc<Self>) {
        let period = self.ttl / 3;
        loop {
            tokio::time::sleep(period).await;
            // A failure is reported by `renew`; the generator stops at the deadline.
            let _ = self.renew().await;
        }
    }

    /// [`LeaseSession::keep_renewed`], and a lease acquired whenever none is
    /// held (none yet, or the last one lost), without waiting for a request
    /// to ask for an ID: a server whose health depends on its lease (`serve`)
    /// becomes healthy again by itself, though no client sends it a request
    /// while it is not. A backend outage is waited out with a backoff and
    /// reported (`Waiting`); any other failure (every worker ID held) is
    /// reported too and tried again a third of the TTL later.
    pub async fn keep_held(self: Arc<Self>) {
        let period = self.ttl / 3;
        let mut outage: Option<Backoff> = None;
        loop {
            if self.current_grant().is_some() {
                tokio::time::sleep(period).await;
                // A failure is reported by `renew`; a lost lease is replaced
                // on the next turn.
                let _ = self.renew().await;
                continue;
            }
            let error = match self.acquire_unless_held().await {
                Ok(_) => {
                    outage = None;
                    continue;
                }
                Err(e) => e,
            };
            if error.kind() == crate::ErrorKind::Unavailable {
                wait_out_outage(self.events.as_ref(), &mut outage, &error).await;
            } else {
                self.events.event(LeaseEvent::Waiting {
                    error: error.to_string(),
                    retry_in: period,
                });
                tokio::time::sleep(period).await;
            }
        }
    }

    /// Ends the lease: the fence becomes the last time unit really issued.
    pub async fn release(&self, last_issued_ms: Option<i64>) -> Result<()> {
        self.settle_ahead().await;
        let ahead =
            match std::mem::replace(&mut *self.ahead.lock().expect("not poisoned"), Ahead::None) {
                Ahead::Done(outcome) => outcome,
                Ahead::None | Ahead::Running(_) => Ok(()),
            };
        // The lease a stall past that release's fence made the rest take, if any.
        let rest = self.release_held(last_issued_ms).await;
        ahead.and(rest)
    }

    async fn release_held(&self, last_issued_ms: Option<i64>) -> Result<()> {
        let Some(held) = self.held.lock().expect("not poisoned").take() else {
            return Ok(());
        };
        let WorkerSource::Lease(store) = &self.source else {
            return Ok(());
        };
        // Given back ahead: that release reports itself.
        if held.lost || held.given_back {
            return Ok(());
        }
        // Nothing issued: restore the floor; never record less than the floor.
        let floor = held.status.floor_ms.unwrap_or(0);
        let last_ms = last_issued_ms.unwrap_or(floor).max(floor);
        if store
            .release(
                &self.namespace.name,
                held.grant.worker,
                &held.grant.token,
                last_ms,
            )
            .await?
        {
            self.events.event(LeaseEvent::Released {
                worker: held.grant.worker,
                last_ms: last_issued_ms.map(|_| last_ms),
                ahead: false,
            });
        }
        Ok(())
    }

    /// Gives the lease of grant `generation` back while its holder still
    /// issues, so that the release's round trips overlap the last IDs
    /// instead of following them: from now on nothing after `until_ms` is
    /// issued under it (its fence is lowered to that first, here), and the
    /// store records `until_ms` as the worker's fence, after which the next
    /// holder starts. The store's release runs as a task of its own, which
    /// [`Self::release`] (and a new lease) waits for. `false` when there is
    /// no such lease to give back (lost, replaced, given back already, or
    /// not from a lease store).
    ///
    /// Why this cannot repeat an ID: every ID of this lease lies at or
    /// before `until_ms` (the generator's horizon is the lowered fence),
    /// and every later holder's lies after it (its floor). A holder that
    /// reaches `until_ms` with IDs still to issue takes a new lease for them
    /// ([`LeasedGenerator::issue`]). Only the generator calls it, between
    /// its steps: a fence lowered while a step generates could lie below
    /// IDs that step keeps.
    pub(crate) fn release_ahead(self: &Arc<Self>, generation: u64, until_ms: i64) -> bool {
        let WorkerSource::Lease(store) = &self.source else {
            return false;
        };
        let mut ahead = self.ahead.lock().expect("not poisoned");
        if !matches!(*ahead, Ahead::None) {
            return false;
        }
        let (worker, token, fence_ms) = {
            let mut held = self.held.lock().expect("not poisoned");
            let Some(held) = held
                .as_mut()
                .filter(|h| !h.lost && !h.given_back && h.status.generation == generation)
            else {
                return false;
            };
            // Never above the fence the store holds, never below the floor.
            let fence_ms = until_ms
                .min(held.status.fence_ms)
                .max(held.status.floor_ms.unwrap_or(i64::MIN));
            held.status.fence_ms = fence_ms;
            held.given_back = true;
            (held.grant.worker, held.grant.token.clone(), fence_ms)
        };
        let (store, session) = (store.clone(), self.clone());
        *ahead = Ahead::Running(tokio::spawn(async move {
            let released = store
                .release(&session.namespace.name, worker, &token, fence_ms)
                .await?;
            if released {
                session.events.event(LeaseEvent::Released {
                    worker,
                    last_ms: Some(fence_ms),
                    ahead: true,
                });
            }
            Ok(())
        }));
        true
    }

    /// Waits for a release made ahead to end, keeping its outcome.
    async fn settle_ahead(&self) {
        let running = {
            let mut ahead = self.ahead.lock().expect("not poisoned");
            match std::mem::replace(&mut *ahead, Ahead::None) {
                Ahead::Running(task) => task,
                other => {
                    *ahead = other;
                    return;
                }
            }
        };
        let outcome = match running.await {
            Ok(outcome) => outcome,
            // A panic stays a panic.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // Only a runtime shutting down cancels it.
            Err(e) => Err(Error::Internal(format!(
                "the lease's release was cancelled: {e}"
            ))),
        };
        *self.ahead.lock().expect("not poisoned") = Ahead::Done(outcome);
    }

    /// Retires the lease of grant `generation` if it was given back ahead
    /// and its holder reached the fence it was given back at (a stall
    /// carried the last IDs past it): the rest is issued under a new lease.
    fn retire_released(&self, generation: u64) -> bool {
        let mut held = self.held.lock().expect("not poisoned");
        match held.as_mut() {
            Some(h) if h.status.generation == generation && h.given_back => {
                h.lost = true;
                true
            }
            _ => false,
        }
    }
}

/// Issues snowflake IDs under a [`LeaseSession`].
pub struct LeasedGenerator<C: Clock + Clone + 'static> {
    session: Arc<LeaseSession<C>>,
    layout: Layout,
    options: GeneratorOptions,
    current: Option<(u64, SnowflakeGenerator<C>)>,
    /// Longest wait for the clock to pass a previous holder's fence.
    max_floor_wait: Duration,
}

/// IDs per generation step; the lease is re-checked between steps.
const CHUNK: usize = 1 << 16;

/// How long before its last ID a holder that knows its count gives the
/// lease back ([`LeasedGenerator::release_ahead`]): longer than a release
/// takes (1–2.5 ms on loopback: a durable write in MySQL, then Redis), so it
/// ends before the IDs do. A `lease --count 1000000` ended that much later
/// when it released after its last ID (`scripts/bench.sh lease`).
pub const RELEASE_LEAD: Duration = Duration::from_millis(8);

/// Time allowed past the projected last ID for a stall on the way (a busy
/// machine deschedules a process for milliseconds); a longer one carries the
/// rest to a new lease. A next holder given the same worker at once waits
/// for the fence: at most the lead, this and a time unit.
pub const RELEASE_SLACK: Duration = Duration::from_millis(20);

/// Steps up to this many IDs run on the runtime thread (`idgen serve`'s one ID
/// per request); larger ones in `block_in_place`.
const SMALL_STEP: usize = 64;

/// One pause of a backend outage that keeps a lease from being proven or
/// acquired, announced (`Waiting`, with the error and the pause); `outage`
/// is made at the first one, so its pauses grow while the outage lasts.
async fn wait_out_outage(events: &dyn LeaseEvents, outage: &mut Option<Backoff>, error: &Error) {
    outage
        .get_or_insert_with(Backoff::backend_outage)
        .pause_announced(|retry_in| {
            events.event(LeaseEvent::Waiting {
                error: error.to_string(),
                retry_in,
            })
        })
        .await;
}

/// The longest quarantine a new lease waits out: the longest TTL a lease may
/// have, plus the margin, plus a minute for a clock a little behind. A longer
/// one means a clock far behind Redis's or another holder's.
fn max_quarantine() -> Duration {
    *crate::config::LEASE_TTL_RANGE.end() + super::QUARANTINE_MARGIN + Duration::from_secs(60)
}

impl<C: Clock + Clone + 'static> LeasedGenerator<C> {
    pub fn new(session: Arc<LeaseSession<C>>, layout: Layout, options: GeneratorOptions) -> Self {
        let max_floor_wait = session.ttl();
        LeasedGenerator {
            session,
            layout,
            options,
            current: None,
            max_floor_wait,
        }
    }

    /// Refuses a layout that cannot issue right now (a clock before its epoch,
    /// its time bits used up), by the generator's own checks, before anything
    /// is recorded or leased.
    pub fn check_issuable(&self) -> Result<()> {
        SnowflakeGenerator::new(&self.layout, 0, self.session.clock.clone(), self.options).map(drop)
    }

    /// Start of the last time unit issued under the current worker.
    pub fn last_issued_ms(&self) -> Option<i64> {
        self.current.as_ref().and_then(|(_, g)| g.last_issued_ms())
    }

    /// Gives the lease back ahead of the last IDs once the `remaining` ones
    /// are due within [`RELEASE_LEAD`] (`LeaseSession::release_ahead` says
    /// why that repeats nothing),
    /// the release running beside them; `true` once it is under way.
    /// `false` while they are further off, or when there is no lease to give
    /// back. Call it once `remaining` is all that will be asked for.
    pub fn release_ahead(&mut self, remaining: u64) -> bool {
        let Some(status) = self.session.status() else {
            return false;
        };
        let Some((_, generator)) = self.current.as_ref().filter(|_| self.runs_under(&status))
        else {
            return false;
        };
        generator
            .ends_by_ms(remaining, RELEASE_LEAD, RELEASE_SLACK)
            .is_some_and(|until_ms| self.session.release_ahead(status.generation, until_ms))
    }

    /// The worker IDs are being issued under now.
    pub fn worker(&self) -> Option<u64> {
        self.current.as_ref().map(|(_, g)| g.worker())
    }

    /// Appends `n` IDs to `out`. Every ID was issued while the lease was provably
    /// valid and within its fence; a step that outlived the lease is thrown away.
    pub async fn issue(&mut self, n: usize, out: &mut Vec<u64>) -> Result<()> {
        let target = out.len() + n;
        // Made at the first failure only: `issue` is the generator's hot path.
        let mut renewal_outage: Option<Backoff> = None;
        while out.len() < target {
            let status = self.valid_lease().await?;
            self.prepare(&status).await?;
            let want = (target - out.len()).min(CHUNK);
            let Some(filled) = self.step(&status, want, out)? else {
                continue;
            };
            if filled < want && self.session.retire_released(status.generation) {
                // Given back ahead, and a stall carried the rest past the
                // fence it was given back at: the rest under a new lease.
                continue;
            }
            if filled < want {
                // At the fence (as every new lease is after a quarantine):
                // extend it before going on. A renewal that could not reach
                // the store is tried again after a pause; once the lease
                // lapses meanwhile, `valid_lease` waits out the outage.
                if let Err(e) = self.session.renew().await {
                    if e.kind() != crate::ErrorKind::Unavailable {
                        return Err(e);
                    }
                    renewal_outage
                        .get_or_insert_with(Backoff::backend_outage)
                        .pause()
                        .await;
                }
            }
        }
        Ok(())
    }

    /// Appends `n` IDs to `out` without waiting for anything but the clock,
    /// when the lease is proven, the generator runs under it and its fence
    /// leaves room for all `n`: `idgen serve`'s hot path, which then needs
    /// no future of [`Self::issue`]'s size. `None` when [`Self::issue`] must be
    /// awaited; any IDs a partial step took are dropped (a gap).
    pub fn issue_ready(&mut self, n: usize, out: &mut Vec<u64>) -> Option<Result<()>> {
        if n > SMALL_STEP {
            return None;
        }
        let status = self.session.status()?;
        if !self.runs_under(&status) {
            return None;
        }
        let before = out.len();
        match self.step(&status, n, out) {
            Ok(Some(filled)) if filled == n => Some(Ok(())),
            // At the fence: the awaited path renews first.
            Ok(Some(_)) => {
                out.truncate(before);
                None
            }
            // The lease ran out meanwhile; `step` dropped what it made.
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// Whether the generator was made for this grant of the lease.
    fn runs_under(&self, status: &LeaseStatus) -> bool {
        self.current
            .as_ref()
            .is_some_and(|(generation, _)| *generation == status.generation)
    }

    /// One generation step of up to `want` IDs under `status`, whose
    /// generator [`Self::prepare`] made: `Some(filled)`, fewer than `want` at
    /// the fence; `None` when the lease ran out while generating, the step
    /// dropped (a gap), since an ID is only kept if the lease that covered
    /// it was still valid once it was made.
    fn step(
        &mut self,
        status: &LeaseStatus,
        want: usize,
        out: &mut Vec<u64>,
    ) -> Result<Option<usize>> {
        let (_, generator) = self.current.as_mut().expect("prepared");
        generator.set_horizon_ms(Some(status.fence_ms));
        let before = out.len();
        // Handing the runtime thread off costs more than a small step, which
        // waits at most one time unit; a large step may wait out several.
        let filled = if want <= SMALL_STEP {
            generator.fill(out, want)
        } else {
            tokio::task::block_in_place(|| generator.fill(out, want))
        }?;
        let still_valid = self
            .session
            .status()
            .is_some_and(|s| s.generation == status.generation);
        if !still_valid {
            out.truncate(before);
            return Ok(None);
        }
        Ok(Some(filled))
    }

    /// A provably valid lease, waiting out backend outages: a holder stops
    /// issuing while it cannot prove its lease, and carries on once it can.
    async fn valid_lease(&self) -> Result<LeaseStatus> {
        // Made at the first outage only: a valid lease is the hot path.
        let mut outage: Option<Backoff> = None;
        loop {
            match self.session.ensure_valid().await {
                Ok(status) => return Ok(status),
                Err(e) if e.kind() == crate::ErrorKind::Unavailable => {
                    wait_out_outage(self.session.events.as_ref(), &mut outage, &e).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Makes sure the generator runs for the status's worker, past its floor.
    async fn prepare(&mut self, status: &LeaseStatus) -> Result<()> {
        if self.runs_under(status) {
            return Ok(());
        }
        let clock = self.session.clock.clone();
        if let Some(until) = status.quarantine_until_ms {
            let left = until - clock.now_ms();
            if left > 0 {
                let left = Duration::from_millis(left as u64);
                if left > max_quarantine() {
                    // Only a clock far behind Redis's (or the other holders')
                    // makes a quarantine this long: refuse, as for a floor.
                    return Err(Error::ClockMovedBack {
                        behind_ms: left.as_millis() as u64,
                        tolerance_ms: max_quarantine().as_millis() as u64,
                    });
                }
                self.session.events.event(LeaseEvent::Quarantined {
                    worker: status.worker,
                    until_ms: until,
                });
                // The renewer keeps the lease meanwhile; whatever it lacks
                // afterwards, `issue` proves again before generating.
                tokio::time::sleep(left + Duration::from_millis(1)).await;
            }
        }
        if let Some(floor) = status.floor_ms {
            let behind = floor - clock.now_ms();
            if behind > 0 {
                if Duration::from_millis(behind as u64) > self.max_floor_wait {
                    return Err(Error::ClockMovedBack {
                        behind_ms: behind as u64,
                        tolerance_ms: self.max_floor_wait.as_millis() as u64,
                    });
                }
                // The previous holder's clock ran ahead of ours: wait it out.
                tokio::time::sleep(Duration::from_millis(behind as u64 + 1)).await;
            }
        }
        let mut generator =
            SnowflakeGenerator::new(&self.layout, status.worker, clock, self.options)?;
        for floor in [status.floor_ms, status.quarantine_until_ms]
            .into_iter()
            .flatten()
        {
            generator.set_floor_ms(floor);
        }
        self.current = Some((status.generation, generator));
        Ok(())
    }
}
