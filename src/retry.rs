//! Retry policies: bounded exponential backoff with full jitter, each named for
//! what its pauses wait on ([`Backoff::ledger_conflict`]). Every wait loop in
//! the crate pauses through one of them, so how long a loop waits, how it
//! spreads out processes that collided, and how `--verbose` counts the pauses
//! are decided here, once.
//!
//! A policy never decides *whether* a failure may be retried: only the caller
//! knows what a failed attempt may have committed, so it passes that test to
//! [`Backoff::retry`]. The policy decides how long to pause before the next
//! attempt and when the time budget is spent, and counts the attempts, so that
//! the error a user finally sees says how many were made over how long
//! ([`Error::RetriesSpent`]).
//!
//! Jitter: each pause is drawn uniformly from zero to the current ceiling,
//! which doubles per attempt up to a cap. Processes that collided once (two
//! refills of the same row on two Galera nodes) then rarely collide again, and
//! the ceiling keeps a long wait (a node rejoining its cluster) from hammering
//! the server.
//!
//! Retries and polls: a pause after a failed attempt is a retry, counted in
//! `--verbose`'s work line ([`crate::activity`]); a pause between polls of
//! something another process holds is not (nothing failed, and each poll's
//! round trip is already counted as one). Which one a policy's pauses are
//! follows from what it waits on, so its constructor says it.

use crate::error::{Error, Result};
use std::future::Future;
use std::time::{Duration, Instant};

/// When to try again, until a deadline.
#[derive(Debug, Clone)]
pub struct Backoff {
    /// What the pauses wait on, named for the test log.
    waits_on: &'static str,
    started: Instant,
    /// `None`: no budget; the caller waits as long as what it waits on lasts
    /// (a lease holder through an outage, a server's accept loop).
    deadline: Option<Instant>,
    /// The ceiling of the first pause.
    first: Duration,
    /// The largest ceiling any pause is drawn under.
    cap: Duration,
    /// What each pause follows: a failed attempt (a retry) or a poll.
    follows: Follows,
    /// Pauses so far: failed attempts, or polls that found nothing changed.
    attempts: u32,
}

/// What a pause follows, which decides whether `--verbose` counts it as a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Follows {
    /// An attempt that failed: the next attempt is a retry.
    Failure,
    /// A poll that found nothing changed yet: no retry, nothing failed.
    Poll,
}

impl Backoff {
    /// Between attempts of a ledger transaction the server aborted or refused
    /// before committing anything: a Galera certification conflict or an
    /// InnoDB deadlock (1213), a lock wait timeout (1205), a Group Replication
    /// certification conflict (3101), a Galera node not (yet) part of its
    /// cluster's primary component (1047). A conflicting
    /// refill on another node commits within milliseconds, so the first pauses
    /// are that short; a node rejoining takes seconds, which pauses under the
    /// cap wait out without a flood of queries.
    pub fn ledger_conflict(deadline: Instant) -> Self {
        Backoff::new(
            "ledger_conflict",
            Some(deadline),
            Duration::from_millis(4),
            Duration::from_millis(250),
            Follows::Failure,
        )
    }

    /// Between polls of something another process holds for a moment: a
    /// shard's refill lock (held for one ledger round trip and one push), the
    /// stock another refiller is about to push. The first polls come quickly,
    /// so a short hold costs little; the cap keeps a long one from flooding
    /// the node. Polls, not retries: nothing failed.
    pub fn held_elsewhere(deadline: Instant) -> Self {
        Backoff::new(
            "held_elsewhere",
            Some(deadline),
            Duration::from_millis(5),
            Duration::from_millis(100),
            Follows::Poll,
        )
    }

    /// Between attempts to reach a master while a failover is under way: the
    /// sentinels name a master that is down, or not promoted yet.
    pub fn failover(deadline: Instant) -> Self {
        Backoff::new(
            "failover",
            Some(deadline),
            Duration::from_millis(50),
            Duration::from_millis(400),
            Follows::Failure,
        )
    }

    /// Between attempts to open the embedded store's file while other
    /// processes are creating it (SQLite refuses some first locks at once).
    pub fn store_file_busy(deadline: Instant) -> Self {
        Backoff::new(
            "store_file_busy",
            Some(deadline),
            Duration::from_millis(2),
            Duration::from_millis(50),
            Follows::Failure,
        )
    }

    /// Between attempts to take the embedded store's write lock (its witness
    /// file's) while another process writes: short, as a write is.
    pub fn store_write_lock(deadline: Instant) -> Self {
        Backoff::new(
            "store_write_lock",
            Some(deadline),
            Duration::from_micros(500),
            Duration::from_millis(20),
            Follows::Poll,
        )
    }

    /// Between attempts to prove or acquire a lease while a backend is down
    /// (the store unreachable, a master not reachable yet). An outage lasts
    /// as long as it lasts, so there is no budget: a holder never exits for
    /// one. The first attempts come quickly, since a blip is the common case;
    /// the cap keeps a long outage from flooding the store, and the jitter
    /// keeps a fleet of holders from coming back at the same instant.
    pub fn backend_outage() -> Self {
        Backoff::new(
            "backend_outage",
            None,
            Duration::from_millis(100),
            Duration::from_secs(2),
            Follows::Failure,
        )
    }

    /// Between attempts to accept a connection while the process or the
    /// kernel is out of what a connection needs (file descriptors, buffers):
    /// connections closing free them. No budget: a server keeps accepting.
    /// The pauses keep the accept loop from spinning; the cap keeps a client
    /// waiting in the backlog from waiting long once one is free.
    pub fn out_of_descriptors() -> Self {
        Backoff::new(
            "out_of_descriptors",
            None,
            Duration::from_millis(50),
            Duration::from_millis(250),
            Follows::Failure,
        )
    }

    fn new(
        waits_on: &'static str,
        deadline: Option<Instant>,
        first: Duration,
        cap: Duration,
        follows: Follows,
    ) -> Self {
        Backoff {
            waits_on,
            started: Instant::now(),
            deadline,
            first,
            cap,
            follows,
            attempts: 0,
        }
    }

    /// Pauses so far: failed attempts, or polls that found nothing changed.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Counts one more pause and returns how long it lasts, or `None` once
    /// the deadline has passed: no attempt is begun after it, and no pause
    /// runs past it.
    fn next_pause(&mut self) -> Option<Duration> {
        self.attempts = self.attempts.saturating_add(1);
        let left = match self.deadline {
            Some(deadline) => deadline
                .checked_duration_since(Instant::now())
                .filter(|left| !left.is_zero())?,
            None => Duration::MAX,
        };
        let doublings = (self.attempts - 1).min(16);
        let ceiling = self.first.saturating_mul(1 << doublings).min(self.cap);
        Some(full_jitter(ceiling).min(left))
    }

    /// The next pause, counted for `--verbose` when it is a retry.
    fn counted_pause(&mut self) -> Option<Duration> {
        let pause = self.next_pause()?;
        if self.follows == Follows::Failure {
            crate::activity::did(crate::activity::Work::Retry);
        }
        Some(pause)
    }

    /// Pauses before trying (or polling) again; `false`, without pausing,
    /// once the deadline has passed. A policy without a deadline always pauses.
    pub async fn pause(&mut self) -> bool {
        self.pause_announced(|_| {}).await
    }

    /// [`Backoff::pause`], first telling `announce` how long the pause will
    /// be, for a caller that says it is waiting ("retrying in 150ms").
    pub async fn pause_announced(&mut self, announce: impl FnOnce(Duration)) -> bool {
        match self.counted_pause() {
            Some(pause) => {
                announce(pause);
                tokio::time::sleep(pause).await;
                true
            }
            None => false,
        }
    }

    /// [`Backoff::pause`] for a blocking thread (the embedded store's calls
    /// run on one): the pause is slept, not awaited.
    pub fn pause_blocking(&mut self) -> bool {
        match self.counted_pause() {
            Some(pause) => {
                std::thread::sleep(pause);
                true
            }
            None => false,
        }
    }

    /// Runs `attempt` until it succeeds, fails in a way `retryable` refuses, or
    /// the budget is spent; then the last error, as [`Error::RetriesSpent`].
    pub async fn retry<T, Fut>(
        mut self,
        mut attempt: impl FnMut() -> Fut,
        retryable: impl Fn(&Error) -> bool,
    ) -> Result<T>
    where
        Fut: Future<Output = Result<T>>,
    {
        loop {
            let error = match attempt().await {
                Err(error) if retryable(&error) => error,
                done => return done,
            };
            match self.counted_pause() {
                Some(pause) => {
                    note_retry(self.waits_on, self.attempts, &error);
                    tokio::time::sleep(pause).await;
                }
                None => {
                    return Err(Error::RetriesSpent {
                        attempts: self.attempts,
                        over: self.started.elapsed(),
                        last: Box::new(error),
                    });
                }
            }
        }
    }
}

/// A pause drawn uniformly from zero to `ceiling`.
fn full_jitter(ceiling: Duration) -> Duration {
    let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
    if nanos == 0 {
        return Duration::ZERO;
    }
    // Without the OS random source every pause is the ceiling: slower to
    // untangle collisions, never wrong.
    let random = getrandom::u64().unwrap_or(u64::MAX);
    Duration::from_nanos(random % (nanos + 1))
}

/// With `test-hooks`, `IDGEN_TEST_RETRY_LOG=PATH` appends one line per retry
/// (`policy<TAB>failed attempt<TAB>error`), so that a test can prove its
/// conflicts happened and were retried. Without the feature this is empty.
#[cfg(feature = "test-hooks")]
fn note_retry(waits_on: &str, attempt: u32, error: &Error) {
    use std::io::Write;
    let Some(path) = std::env::var_os("IDGEN_TEST_RETRY_LOG") else {
        return;
    };
    // One write of one line to a file opened for appending: lines of
    // concurrent processes never interleave.
    let line = format!("{waits_on}\t{attempt}\t{error}\n");
    if let Ok(mut log) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = log.write_all(line.as_bytes());
    }
}

#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
fn note_retry(_waits_on: &str, _attempt: u32, _error: &Error) {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn aborted() -> Error {
        Error::TransactionAborted {
            backend: "MySQL",
            url: "mysql://db/idgen".into(),
            detail: "Deadlock found when trying to get lock".into(),
        }
    }

    #[test]
    fn pauses_stay_under_a_ceiling_that_doubles_up_to_the_cap() {
        let mut backoff = Backoff::ledger_conflict(Instant::now() + Duration::from_secs(60));
        for attempt in 0..12u32 {
            let ceiling = (Duration::from_millis(4) * 2u32.pow(attempt.min(16)))
                .min(Duration::from_millis(250));
            let pause = backoff.next_pause().expect("the budget is not spent");
            assert!(
                pause <= ceiling,
                "attempt {attempt}: {pause:?} > {ceiling:?}"
            );
        }
        assert_eq!(backoff.attempts(), 12);
    }

    #[test]
    fn no_pause_runs_past_the_deadline() {
        let deadline = Instant::now() + Duration::from_millis(1);
        let mut backoff = Backoff::ledger_conflict(deadline);
        backoff.attempts = 10;
        if let Some(pause) = backoff.next_pause() {
            assert!(pause <= Duration::from_millis(1), "{pause:?}");
        }
    }

    #[test]
    fn a_spent_budget_allows_no_further_attempt() {
        let mut backoff = Backoff::ledger_conflict(Instant::now());
        assert_eq!(backoff.next_pause(), None);
        assert_eq!(backoff.attempts(), 1);
    }

    #[test]
    fn a_policy_without_a_deadline_always_pauses_under_its_cap() {
        let mut backoff = Backoff::backend_outage();
        for _ in 0..40 {
            let pause = backoff.next_pause().expect("no budget to spend");
            assert!(pause <= Duration::from_secs(2), "{pause:?}");
        }
    }

    #[tokio::test]
    async fn a_retryable_failure_is_tried_again_until_it_succeeds() {
        let mut failures_left = 3;
        let mut calls = 0;
        let answer = Backoff::ledger_conflict(Instant::now() + Duration::from_secs(30))
            .retry(
                || {
                    calls += 1;
                    let failed = failures_left > 0;
                    failures_left -= 1;
                    async move { if failed { Err(aborted()) } else { Ok(7) } }
                },
                |e| matches!(e, Error::TransactionAborted { .. }),
            )
            .await;
        assert_eq!(answer.unwrap(), 7);
        assert_eq!(calls, 4);
    }

    #[tokio::test]
    async fn a_failure_the_caller_refuses_to_retry_is_returned_at_once() {
        let mut calls = 0;
        let answer: Result<()> = Backoff::ledger_conflict(Instant::now() + Duration::from_secs(30))
            .retry(
                || {
                    calls += 1;
                    async { Err(Error::UnknownApp { app: 3 }) }
                },
                |e| matches!(e, Error::TransactionAborted { .. }),
            )
            .await;
        assert!(matches!(answer, Err(Error::UnknownApp { app: 3 })));
        assert_eq!(calls, 1);
    }

    #[tokio::test]
    async fn a_spent_budget_says_how_many_attempts_were_made_over_how_long() {
        let spent = Backoff::ledger_conflict(Instant::now() + Duration::from_millis(30))
            .retry(
                || async { Err::<(), _>(aborted()) },
                |e| matches!(e, Error::TransactionAborted { .. }),
            )
            .await
            .unwrap_err();
        let Error::RetriesSpent { attempts, over, .. } = &spent else {
            panic!("{spent:?}");
        };
        assert!(*attempts >= 2, "{spent}");
        assert!(*over >= Duration::from_millis(30), "{spent}");
        assert!(
            spent
                .to_string()
                .contains(&format!("{attempts} attempts over")),
            "{spent}"
        );
        assert_eq!(spent.kind(), ErrorKind::Unavailable);
    }
}
