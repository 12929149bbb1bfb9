//! The segment endpoints, Leaf's `get` and `list`: the app a key names (kept
//! in memory, unknown ones remembered briefly) and IDs taken from the buffered
//! allocator.

use super::api_error::{ApiError, status_for};
use super::lists::{self, ListForm};
use super::metrics::Endpoint;
use super::{Server, leaf_text, query_value};
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use idgen::ErrorKind;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a key the ledger did not know is answered 404 from memory: a
/// client looping on a wrong name costs the ledger a read every few seconds,
/// not several per request, and an app created meanwhile is found soon after.
const UNKNOWN_FOR: Duration = Duration::from_secs(3);

/// Most unknown keys remembered: a client sending ever new ones cannot grow
/// the memory; past it, they are forgotten together.
const MAX_UNKNOWN: usize = 4096;

/// Keys the ledger did not know lately, with their 404 message.
#[derive(Debug, Default)]
pub(super) struct Unknown {
    keys: Mutex<HashMap<String, (Instant, String)>>,
    /// Whether `keys` may hold any: requests for known keys, nearly all of
    /// them, then skip the lock every request would otherwise take.
    any: AtomicBool,
}

impl Unknown {
    fn get(&self, key: &str, now: Instant) -> Option<String> {
        // Set under the lock once a key is remembered; a key remembered just
        // after this look was refused by a request of its own already.
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        let keys = self.keys.lock().expect("not poisoned");
        let (until, message) = keys.get(key)?;
        (*until > now).then(|| message.clone())
    }

    fn remember(&self, key: &str, message: &str, now: Instant) {
        let mut keys = self.keys.lock().expect("not poisoned");
        if keys.len() >= MAX_UNKNOWN {
            keys.retain(|_, (until, _)| *until > now);
            if keys.len() >= MAX_UNKNOWN {
                keys.clear();
            }
        }
        keys.insert(key.to_string(), (now + UNKNOWN_FOR, message.to_string()));
        self.any.store(true, Ordering::Release);
    }
}

impl Server {
    /// The error answer for a failure, remembered for `/healthz` when it is an outage.
    pub(super) fn api_error(&self, e: &idgen::Error) -> ApiError {
        self.note_failure(e);
        ApiError::public(e, &self.out)
    }

    /// The app a key names: its number, or a name in the ledger. Names are
    /// read from memory (the probe keeps them fresh), so they survive a ledger
    /// outage; a name not there while the ledger cannot be read is 503, not 404.
    async fn app(&self, key: &str) -> Result<u8, ApiError> {
        if let Ok(app) = key.parse::<u8>() {
            return Ok(app);
        }
        let known = |server: &Server| server.apps.read().expect("not poisoned").get(key).copied();
        if let Some(app) = known(self) {
            return Ok(app);
        }
        // Perhaps created since the last probe.
        self.read_apps().await.map_err(|e| self.api_error(&e))?;
        known(self).ok_or_else(|| {
            ApiError::new(
                ErrorKind::NotFound,
                format!("no app is named {key:?}; create it with `idgen init-app`"),
            )
        })
    }

    /// [`Server::app`] and the IDs, with keys the ledger did not know
    /// answered 404 from memory for a while.
    async fn app_and_ids(
        &self,
        key: &str,
        gate_pass: Option<&str>,
        count: u64,
    ) -> Result<(u8, Vec<u64>), ApiError> {
        if let Some(message) = self.unknown.get(key, Instant::now()) {
            return Err(ApiError::new(ErrorKind::NotFound, message));
        }
        let taken = async {
            let app = self.app(key).await?;
            Ok((app, self.take(app, gate_pass, count).await?))
        };
        let result: Result<_, ApiError> = taken.await;
        if let Err(e) = &result
            && e.status == status_for(ErrorKind::NotFound)
        {
            self.unknown.remember(key, &e.message, Instant::now());
        }
        result
    }

    /// Reads the app names from the ledger into the cache.
    pub(super) async fn read_apps(&self) -> idgen::Result<()> {
        let apps = self.ledger.apps().await?;
        *self.apps.write().expect("not poisoned") =
            apps.into_iter().map(|a| (a.name, a.app)).collect();
        Ok(())
    }

    /// Takes `count` IDs of the app, reporting what the allocator noted on the way.
    pub(super) async fn take(
        &self,
        app: u8,
        gate_pass: Option<&str>,
        count: u64,
    ) -> Result<Vec<u64>, ApiError> {
        let issued = self
            .segments
            .next(app, gate_pass, count)
            .await
            .map_err(|e| self.api_error(&e))?;
        if !issued.notes.rollbacks.is_empty() {
            self.metrics.rollbacks(issued.notes.rollbacks.len() as u64);
            for line in idgen::store::Rollback::summarize(&issued.notes.rollbacks) {
                self.out.warn(&line);
            }
        }
        if !issued.notes.ledger_rollbacks.is_empty() {
            let rollbacks = &issued.notes.ledger_rollbacks;
            self.metrics.ledger_rollbacks(rollbacks.len() as u64);
            let ledger = self.segments.allocator().ledger().describe();
            for line in idgen::store::LedgerRollback::summarize(&ledger, rollbacks) {
                self.out.warn(&line);
            }
        }
        for warning in &issued.notes.warnings {
            self.out.info(warning);
        }
        if let Some(failure) = issued.failure {
            // The IDs already issued become a gap: never handed out, never reissued.
            return Err(self.api_error(&failure));
        }
        self.note_success();
        Ok(issued.ids)
    }

    /// Issues `count` segment IDs for the key, counted as one request of the
    /// endpoint; the app resolved and the IDs.
    pub(super) async fn segment_ids(
        &self,
        endpoint: Endpoint,
        key: &str,
        gate_pass: Option<&str>,
        count: u64,
    ) -> Result<(u8, Vec<u64>), ApiError> {
        let started = Instant::now();
        let (app, ids) = self.app_and_ids(key, gate_pass, count).await?;
        // Tests stop the process here to signal it with a request in flight.
        idgen::failpoint::hit("serve.before_answer").map_err(|e| self.api_error(&e))?;
        self.metrics.app(endpoint, app).issued(ids.len() as u64);
        self.metrics.latency(endpoint, started.elapsed());
        Ok((app, ids))
    }
}

pub(super) async fn segment_get(
    State(server): State<Arc<Server>>,
    Path(key): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let gate_pass = query_value(query.as_deref(), "gate_pass");
    let (_, ids) = server
        .segment_ids(Endpoint::SegmentGet, &key, gate_pass.as_deref(), 1)
        .await?;
    Ok(leaf_text(ids[0].to_string()))
}

pub(super) async fn segment_list(
    State(server): State<Arc<Server>>,
    Path((key, n)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let n = match n.parse::<u64>() {
        Ok(n) if (1..=server.max_n).contains(&n) => n,
        _ => {
            return Err(ApiError::new(
                ErrorKind::Usage,
                format!("n must be a number from 1 to {} (--max-n)", server.max_n),
            ));
        }
    };
    let form = ListForm::of_accept(&headers);
    let gate_pass = query_value(query.as_deref(), "gate_pass");
    lists::answer(&server, Endpoint::SegmentList, &key, gate_pass, n, form).await
}
