//! A small in-memory buffer of issued segment IDs per (app, shard), refilled in
//! the background before it runs dry, like Leaf's double buffer.
//!
//! Why it can never cause a repeat: every ID in it was issued by
//! [`SegmentAllocator::next`], that is, its index was already removed from the
//! dispenser (and checked against the serving Redis process's stamp) when it was
//! popped. Nothing puts an issued index back: a Redis node that goes back in time
//! brings back only stock stamped by an earlier process, which the allocator
//! retires unserved; `migrate` stocks the destination from new MySQL segments and
//! retires the source's stock. So an ID here has exactly one holder, this buffer,
//! and leaves it exactly once. A crash loses what it holds: gaps, never repeats.

use super::allocator::{Issued, Notes, SegmentAllocator};
use super::id::{SegmentId, shard_for_gate_pass};
use crate::error::Result;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How much to keep ready.
#[derive(Debug, Clone, Copy)]
pub struct BufferOptions {
    /// IDs taken per background refill at first; 0 turns the buffer off.
    pub batch: u64,
    /// A refill starts when fewer than this many are left (at the first batch
    /// size; it grows with the batch).
    pub refill_below: u64,
}

/// How far a key's refill may grow past [`BufferOptions::batch`]: a request
/// the buffer could not serve doubles the next refills, up to this factor.
/// Requests that outrun the refills otherwise all go to the store one by one;
/// on the embedded store each is a write transaction, and `get` ran at a
/// third of `/healthz` with the default 1,000. A crash loses what is held:
/// a larger gap, never a repeat.
pub const MAX_GROWTH: u64 = 64;

impl BufferOptions {
    /// Refill at half a batch, so a refill has half a batch of time to land.
    pub fn with_batch(batch: u64) -> Self {
        BufferOptions {
            batch,
            refill_below: batch / 2,
        }
    }
}

/// Which IDs a buffer holds: one app's, from the shard a gate pass picks, or
/// from any shard when requests carry no gate pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferKey {
    pub app: u8,
    pub shard: Option<u8>,
}

#[derive(Default)]
struct Stock {
    ids: Mutex<VecDeque<u64>>,
    refilling: AtomicBool,
    /// IDs the next refill takes: the options' batch, doubled by each request
    /// the stock could not serve, up to [`MAX_GROWTH`] times it.
    batch: AtomicU64,
    /// A gate pass that picks this shard, for the refills.
    gate_pass: Option<String>,
    /// Wakes the requests that wait for a refill, when it lands or fails.
    landed: tokio::sync::Notify,
}

/// `count` IDs from the stock, if it holds that many, and how many it holds
/// after: one lock of the stock per request.
fn take_held(stock: &Stock, count: u64) -> (Option<Vec<u64>>, u64) {
    let mut ids = stock.ids.lock().expect("not poisoned");
    let taken = (ids.len() as u64 >= count).then(|| ids.drain(..count as usize).collect());
    (taken, ids.len() as u64)
}

/// Segment IDs served from memory when possible, from the allocator otherwise.
pub struct BufferedAllocator {
    allocator: Arc<SegmentAllocator>,
    options: BufferOptions,
    stocks: Mutex<HashMap<BufferKey, Arc<Stock>>>,
    /// What background refills found that a caller should hear about (rollbacks).
    pending: Mutex<Notes>,
    /// Whether `pending` may hold anything: most answers then skip its lock.
    any_pending: AtomicBool,
    refills: AtomicU64,
    refill_failures: AtomicU64,
}

impl BufferedAllocator {
    pub fn new(allocator: Arc<SegmentAllocator>, options: BufferOptions) -> Arc<Self> {
        Arc::new(BufferedAllocator {
            allocator,
            options,
            stocks: Mutex::new(HashMap::new()),
            pending: Mutex::new(Notes::default()),
            any_pending: AtomicBool::new(false),
            refills: AtomicU64::new(0),
            refill_failures: AtomicU64::new(0),
        })
    }

    pub fn allocator(&self) -> &Arc<SegmentAllocator> {
        &self.allocator
    }

    /// Issues `count` IDs: from the buffer when it holds enough, else from the
    /// allocator directly (the buffer keeps what it has for later requests).
    /// Notes from background refills ride along with the next answer.
    pub async fn next(
        self: &Arc<Self>,
        app: u8,
        gate_pass: Option<&str>,
        count: u64,
    ) -> Result<Issued> {
        if self.options.batch == 0 {
            return self.direct(app, gate_pass, count).await;
        }
        let key = BufferKey {
            app,
            shard: gate_pass.map(shard_for_gate_pass),
        };
        let held = self.stocks.lock().expect("not poisoned").get(&key).cloned();
        let Some(stock) = held else {
            // A key first met is served directly, and gets a stock only once
            // its app has issued: an app that does not exist leaves none behind.
            let issued = self.direct(app, gate_pass, count).await?;
            if issued.failure.is_none() {
                let stock = self.stock(key, gate_pass);
                self.refill(key, stock);
            }
            return Ok(self.with_pending(issued));
        };
        let (mut taken, mut left) = take_held(&stock, count);
        if taken.is_none() {
            self.grow(&stock);
            if count <= self.largest_refill() {
                // Wait for the refill under way, or one started now, instead
                // of going to the store alone: requests that miss together then
                // cost the store one transaction, not one each.
                let landed = stock.landed.notified();
                tokio::pin!(landed);
                landed.as_mut().enable();
                self.refill(key, stock.clone());
                landed.await;
                (taken, left) = take_held(&stock, count);
            }
        }
        if left < self.refill_below(&stock).max(count) {
            self.refill(key, stock);
        }
        let issued = match taken {
            Some(ids) => Issued {
                app,
                shard: SegmentId::decompose(ids[0]).shard,
                ids,
                notes: Notes::default(),
                failure: None,
            },
            None => self.direct(app, gate_pass, count).await?,
        };
        Ok(self.with_pending(issued))
    }

    /// IDs from the allocator itself, bypassing the buffer. Its future is
    /// kilobytes (a take from the store, its retries and fences), and a
    /// request's future is boxed whole: held inline, it would make every
    /// answer from memory allocate that much. So it is boxed here, only when
    /// taken, which the buffer makes rare.
    async fn direct(&self, app: u8, gate_pass: Option<&str>, count: u64) -> Result<Issued> {
        Box::pin(self.allocator.next(app, gate_pass, count)).await
    }

    /// The answer with what background refills noted since the last one.
    fn with_pending(&self, mut issued: Issued) -> Issued {
        // A refill sets the flag under the lock, after adding its notes: one
        // that lands after this look rides along with a later answer.
        if !self.any_pending.load(Ordering::Acquire) {
            return issued;
        }
        let pending = {
            let mut pending = self.pending.lock().expect("not poisoned");
            self.any_pending.store(false, Ordering::Release);
            std::mem::take(&mut *pending)
        };
        issued.notes.warnings.extend(pending.warnings);
        issued.notes.rollbacks.extend(pending.rollbacks);
        issued
            .notes
            .ledger_rollbacks
            .extend(pending.ledger_rollbacks);
        issued
    }

    fn stock(&self, key: BufferKey, gate_pass: Option<&str>) -> Arc<Stock> {
        self.stocks
            .lock()
            .expect("not poisoned")
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Stock {
                    batch: AtomicU64::new(self.options.batch),
                    gate_pass: gate_pass.map(str::to_string),
                    ..Stock::default()
                })
            })
            .clone()
    }

    /// The most IDs one refill takes: [`MAX_GROWTH`] times the batch, no more
    /// than one call may ask for, nor less than the batch itself.
    fn largest_refill(&self) -> u64 {
        self.options
            .batch
            .saturating_mul(MAX_GROWTH)
            .min(super::allocator::MAX_COUNT)
            .max(self.options.batch)
    }

    /// Doubles the stock's next refills, up to [`Self::largest_refill`].
    fn grow(&self, stock: &Stock) {
        let most = self.largest_refill();
        let _ = stock
            .batch
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |batch| {
                (batch < most).then(|| batch.saturating_mul(2).min(most))
            });
    }

    /// Below how many held IDs a refill starts: the options' threshold, grown
    /// with the stock's batch.
    fn refill_below(&self, stock: &Stock) -> u64 {
        let growth = stock.batch.load(Ordering::Acquire) / self.options.batch.max(1);
        self.options.refill_below.saturating_mul(growth.max(1))
    }

    /// IDs the stock's next refill takes.
    #[cfg(test)]
    fn batch_of(&self, key: BufferKey) -> Option<u64> {
        let stocks = self.stocks.lock().expect("not poisoned");
        stocks
            .get(&key)
            .map(|stock| stock.batch.load(Ordering::Acquire))
    }

    /// Starts one background refill of the key's stock, unless one is running.
    fn refill(self: &Arc<Self>, key: BufferKey, stock: Arc<Stock>) {
        if stock.refilling.swap(true, Ordering::AcqRel) {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let result = this
                .allocator
                .next(
                    key.app,
                    stock.gate_pass.as_deref(),
                    stock.batch.load(Ordering::Acquire),
                )
                .await;
            match result {
                Ok(issued) => {
                    // Partly issued still counts: those IDs are ours alone.
                    if issued.failure.is_some() {
                        this.refill_failures.fetch_add(1, Ordering::Relaxed);
                    }
                    stock.ids.lock().expect("not poisoned").extend(issued.ids);
                    let notes = issued.notes;
                    if !notes.is_empty() {
                        let mut pending = this.pending.lock().expect("not poisoned");
                        pending.warnings.extend(notes.warnings);
                        pending.rollbacks.extend(notes.rollbacks);
                        pending.ledger_rollbacks.extend(notes.ledger_rollbacks);
                        this.any_pending.store(true, Ordering::Release);
                    }
                    this.refills.fetch_add(1, Ordering::Relaxed);
                }
                // A foreground request meets the same failure and reports it.
                Err(e) => {
                    this.refill_failures.fetch_add(1, Ordering::Relaxed);
                    // The app is gone: its empty stock is no series to report.
                    if e.kind() == crate::ErrorKind::NotFound {
                        let mut stocks = this.stocks.lock().expect("not poisoned");
                        if stock.ids.lock().expect("not poisoned").is_empty() {
                            stocks.remove(&key);
                        }
                    }
                }
            }
            stock.refilling.store(false, Ordering::Release);
            stock.landed.notify_waiters();
        });
    }

    /// IDs held per key, for metrics.
    pub fn depths(&self) -> Vec<(BufferKey, usize)> {
        let mut depths: Vec<(BufferKey, usize)> = self
            .stocks
            .lock()
            .expect("not poisoned")
            .iter()
            .map(|(key, stock)| (*key, stock.ids.lock().expect("not poisoned").len()))
            .collect();
        depths.sort();
        depths
    }

    /// Background refills that landed.
    pub fn refills(&self) -> u64 {
        self.refills.load(Ordering::Relaxed)
    }

    /// Background refills that failed or landed short.
    pub fn refill_failures(&self) -> u64 {
        self.refill_failures.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::Backoff;
    use crate::segment::AllocatorOptions;
    use crate::store::sqlite::SqliteStore;
    use crate::store::{AppCatalog, AppPolicy, AppSpec, Dispenser, NodeSet};
    use std::collections::HashSet;
    use std::time::{Duration, Instant};

    struct Fixture {
        _dir: tempfile::TempDir,
        allocator: Arc<SegmentAllocator>,
    }

    async fn fixture(max_limit_id: u64) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        // Lending, as a store that one-shot `next`s share: the buffer's
        // refills and the allocator's takes meet the reserve too.
        let store = Arc::new(
            SqliteStore::open(&dir.path().join("idgen.db"), Duration::from_secs(5)).lending(true),
        );
        let spec = AppSpec::validated(1, "t", None, 1000, max_limit_id, AppPolicy::for_step(1000))
            .unwrap();
        store.init_app(&spec).await.unwrap();
        let dispenser: Arc<dyn Dispenser> = store.clone();
        let allocator = SegmentAllocator::new(
            store,
            Arc::new(NodeSet::single(dispenser)),
            AllocatorOptions::default(),
        );
        Fixture {
            _dir: dir,
            allocator: Arc::new(allocator),
        }
    }

    /// Waits for a background refill to land, as a caller waits for stock
    /// another refiller is about to push.
    async fn filled(buffer: &Arc<BufferedAllocator>, key: BufferKey, at_least: usize) {
        let mut poll = Backoff::held_elsewhere(Instant::now() + Duration::from_secs(5));
        loop {
            if buffer
                .depths()
                .iter()
                .any(|(k, n)| *k == key && *n >= at_least)
            {
                return;
            }
            if !poll.pause().await {
                panic!("the buffer was never refilled");
            }
        }
    }

    /// A buffer of `batch` over the fixture's app 1, its first refill landed.
    async fn warm_buffer(f: &Fixture, batch: u64) -> (Arc<BufferedAllocator>, BufferKey) {
        let buffer = BufferedAllocator::new(f.allocator.clone(), BufferOptions::with_batch(batch));
        let key = BufferKey {
            app: 1,
            shard: None,
        };
        buffer.next(1, None, 1).await.unwrap();
        filled(&buffer, key, batch as usize).await;
        (buffer, key)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ids_from_the_buffer_and_the_allocator_never_repeat() {
        let f = fixture(0).await;
        let buffer = BufferedAllocator::new(f.allocator.clone(), BufferOptions::with_batch(100));
        let mut seen = HashSet::new();
        for round in 0..2000 {
            let gate = (round % 3 == 0).then_some("alice");
            let via = if round % 7 == 0 {
                f.allocator.next(1, gate, 3).await.unwrap()
            } else {
                buffer.next(1, gate, 1 + round % 5).await.unwrap()
            };
            for id in via.ids {
                assert!(seen.insert(id), "{id} repeated in round {round}");
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn requests_that_miss_together_wait_for_one_refill_and_never_repeat() {
        let f = fixture(0).await;
        let (buffer, key) = warm_buffer(&f, 100).await;
        let mut seen = HashSet::new();
        for round in 0..20 {
            // Far more than the stock holds, all at once: most miss, and wait.
            let requests: Vec<_> = (0..64)
                .map(|_| {
                    let buffer = buffer.clone();
                    tokio::spawn(async move { buffer.next(1, None, 7).await })
                })
                .collect();
            for request in requests {
                let issued = request.await.unwrap().unwrap();
                assert_eq!(issued.ids.len(), 7);
                for id in issued.ids {
                    assert!(seen.insert(id), "{id} repeated in round {round}");
                }
            }
        }
        // The misses grew the refills and were served by them: far fewer
        // refills than requests.
        assert!(
            buffer.refills() < 20 * 64 / 4,
            "{} refills",
            buffer.refills()
        );
        assert!(buffer.batch_of(key).unwrap() > 100);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_warm_buffer_answers_without_the_allocator_and_refills_below_the_mark() {
        let f = fixture(0).await;
        let (buffer, key) = warm_buffer(&f, 100).await;
        assert_eq!(buffer.refills(), 1);
        buffer.next(1, None, 40).await.unwrap();
        assert_eq!(buffer.depths(), vec![(key, 60)]);
        assert_eq!(buffer.refills(), 1, "no refill above half a batch");
        buffer.next(1, None, 20).await.unwrap();
        filled(&buffer, key, 140).await;
        assert_eq!(buffer.refills(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn requests_the_buffer_cannot_serve_double_its_refills_up_to_the_bound() {
        let f = fixture(0).await;
        let buffer = BufferedAllocator::new(f.allocator.clone(), BufferOptions::with_batch(10));
        let key = BufferKey {
            app: 1,
            shard: None,
        };
        buffer.next(1, None, 1).await.unwrap();
        filled(&buffer, key, 10).await;
        buffer.next(1, None, 5).await.unwrap();
        assert_eq!(
            buffer.batch_of(key),
            Some(10),
            "served from memory: no growth"
        );
        // Each of these asks for more than all refills so far could hold
        // (10 + 20 + ... + 640 < 5,000), so each is a miss.
        let mut batches = Vec::new();
        for _ in 0..7 {
            buffer.next(1, None, 5000).await.unwrap();
            batches.push(buffer.batch_of(key).unwrap());
        }
        assert_eq!(batches, [20, 40, 80, 160, 320, 640, 640]);
        assert_eq!(640, 10 * MAX_GROWTH);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_gate_pass_is_served_from_its_own_shard() {
        let f = fixture(0).await;
        let buffer = BufferedAllocator::new(f.allocator.clone(), BufferOptions::with_batch(50));
        let shard = shard_for_gate_pass("bob");
        let key = BufferKey {
            app: 1,
            shard: Some(shard),
        };
        buffer.next(1, Some("bob"), 1).await.unwrap();
        filled(&buffer, key, 50).await;
        for _ in 0..40 {
            let issued = buffer.next(1, Some("bob"), 1).await.unwrap();
            assert_eq!(SegmentId::decompose(issued.ids[0]).shard, shard);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_app_that_does_not_exist_gets_no_stock() {
        let f = fixture(0).await;
        let buffer = BufferedAllocator::new(f.allocator.clone(), BufferOptions::with_batch(50));
        assert!(buffer.next(9, None, 1).await.is_err());
        assert!(buffer.next(9, Some("bob"), 1).await.is_err());
        assert!(buffer.depths().is_empty());
        assert_eq!(buffer.refills() + buffer.refill_failures(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn with_a_batch_of_zero_every_call_goes_to_the_allocator() {
        let f = fixture(0).await;
        let buffer = BufferedAllocator::new(f.allocator.clone(), BufferOptions::with_batch(0));
        buffer.next(1, None, 5).await.unwrap();
        assert!(buffer.depths().is_empty());
        assert_eq!(buffer.refills(), 0);
    }
}
