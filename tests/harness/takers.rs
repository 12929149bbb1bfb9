//! Concurrent takers: threads that run `idgen next` over and over while a test
//! does something to the store under them (a resharding, a failover), and count
//! the takes that began after it.

use super::{Run, StopOnDrop, poll_until};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The takers' progress, as the test sees it while they run.
pub struct Takers {
    after: AtomicBool,
    taken: AtomicU64,
    taken_after: AtomicU64,
    failed: AtomicU64,
    last_failure: Mutex<Option<String>>,
}

impl Takers {
    /// Successful takes so far.
    pub fn taken(&self) -> u64 {
        self.taken.load(Ordering::SeqCst)
    }

    /// Successful takes begun after [`Takers::mark_after`].
    pub fn taken_after(&self) -> u64 {
        self.taken_after.load(Ordering::SeqCst)
    }

    /// From now on a take that begins counts as after.
    pub fn mark_after(&self) {
        self.after.store(true, Ordering::SeqCst);
    }

    /// Waits until `enough` takes began after the mark succeeded; a timeout
    /// names how many failed meanwhile and the last failure in full, since
    /// a wait that ends in nothing but "timed out" cannot be diagnosed.
    pub fn wait_after(&self, limit: Duration, enough: u64) {
        let reached = poll_until(limit, || self.taken_after() >= enough);
        assert!(
            reached,
            "timed out waiting for {enough} takes after the mark: {} succeeded, {} failed; the last failure: {}",
            self.taken_after(),
            self.failed.load(Ordering::SeqCst),
            self.last_failure
                .lock()
                .unwrap()
                .as_deref()
                .unwrap_or("none")
        );
    }
}

/// What the takers took: the IDs of every successful take, every failed run in
/// full, and what the test's `during` returned.
pub struct Taken<T> {
    pub ids: Vec<u64>,
    pub failures: Vec<String>,
    pub outcome: T,
}

/// Runs `takers` threads that each run `take` (an `idgen next`) over and over
/// until `during` returns; `during` watches their progress.
pub fn take_during<T>(
    takers: usize,
    take: impl Fn() -> Run + Sync,
    during: impl FnOnce(&Takers) -> T,
) -> Taken<T> {
    let ids = Mutex::new(Vec::new());
    let failures = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let progress = Takers {
        after: AtomicBool::new(false),
        taken: AtomicU64::new(0),
        taken_after: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        last_failure: Mutex::new(None),
    };
    let outcome = std::thread::scope(|scope| {
        for _ in 0..takers {
            scope.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    // Counted as after only if begun after the mark.
                    let after = progress.after.load(Ordering::SeqCst);
                    let run = take();
                    if run.success() {
                        ids.lock().unwrap().extend(run.ids());
                        progress.taken.fetch_add(1, Ordering::SeqCst);
                        if after {
                            progress.taken_after.fetch_add(1, Ordering::SeqCst);
                        }
                    } else {
                        let failure = run.to_string();
                        progress.failed.fetch_add(1, Ordering::SeqCst);
                        *progress.last_failure.lock().unwrap() = Some(failure.clone());
                        failures.lock().unwrap().push(failure);
                    }
                }
            });
        }
        let _stop = StopOnDrop(&stop);
        during(&progress)
    });
    Taken {
        ids: ids.into_inner().unwrap(),
        failures: failures.into_inner().unwrap(),
        outcome,
    }
}
