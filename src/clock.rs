//! Wall clocks for the generator: the real one, and one tests move by hand.
//!
//! The generator only ever asks a [`Clock`] for the time and to wait, so a test can step
//! time forwards and backwards without sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A source of wall-clock time in Unix milliseconds (UTC).
pub trait Clock: Send + Sync {
    /// The current time in Unix milliseconds. May go backwards (NTP steps, VM pauses).
    fn now_ms(&self) -> i64;

    /// Blocks for about `duration`.
    fn sleep(&self, duration: Duration);

    /// Waits until `now_ms() >= target_ms` and returns that reading.
    ///
    /// The default sleeps in steps, which suits clocks whose `sleep` moves their own time.
    fn wait_until_ms(&self, target_ms: i64) -> i64 {
        loop {
            let now = self.now_ms();
            if now >= target_ms {
                return now;
            }
            self.sleep(Duration::from_millis((target_ms - now).unsigned_abs()));
        }
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now_ms(&self) -> i64 {
        (**self).now_ms()
    }

    fn sleep(&self, duration: Duration) {
        (**self).sleep(duration)
    }

    fn wait_until_ms(&self, target_ms: i64) -> i64 {
        (**self).wait_until_ms(target_ms)
    }
}

/// The host's real-time clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[inline]
    fn now_ms(&self) -> i64 {
        // Whole seconds and milliseconds apart: cheaper than `as_millis`'s u128.
        match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(since) => since.as_secs() as i64 * 1000 + i64::from(since.subsec_millis()),
            Err(before) => -(before.duration().as_millis() as i64) - 1,
        }
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }

    /// Sleeps while more than a millisecond is left, then yields until the boundary:
    /// a thread sleep overshoots by tens of microseconds, which at 4096 IDs per
    /// millisecond would cost a noticeable share of the layout's ceiling.
    fn wait_until_ms(&self, target_ms: i64) -> i64 {
        loop {
            let now = self.now_ms();
            if now >= target_ms {
                return now;
            }
            let left = target_ms - now;
            if left > 1 {
                std::thread::sleep(Duration::from_millis((left - 1) as u64));
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// A clock that only moves when told to; its `sleep` advances its own time.
///
/// Clones share the same time, so a test keeps one handle while the generator owns another.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now_ms: Arc<AtomicI64>,
    slept_ms: Arc<AtomicU64>,
}

impl ManualClock {
    pub fn new(now_ms: i64) -> ManualClock {
        ManualClock {
            now_ms: Arc::new(AtomicI64::new(now_ms)),
            slept_ms: Arc::new(AtomicU64::new(0)),
        }
    }

    pub fn set_ms(&self, now_ms: i64) {
        self.now_ms.store(now_ms, Ordering::SeqCst);
    }

    /// Moves time forwards by `by`, rounded up to whole milliseconds.
    pub fn advance(&self, by: Duration) {
        self.now_ms.fetch_add(whole_ms(by) as i64, Ordering::SeqCst);
    }

    /// Moves time backwards by `by`, rounded up to whole milliseconds.
    pub fn rewind(&self, by: Duration) {
        self.now_ms.fetch_sub(whole_ms(by) as i64, Ordering::SeqCst);
    }

    /// Total time spent in `sleep`, so a test can see that a generator waited.
    pub fn slept(&self) -> Duration {
        Duration::from_millis(self.slept_ms.load(Ordering::SeqCst))
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.now_ms.load(Ordering::SeqCst)
    }

    fn sleep(&self, duration: Duration) {
        let ms = whole_ms(duration);
        self.slept_ms.fetch_add(ms, Ordering::SeqCst);
        self.now_ms.fetch_add(ms as i64, Ordering::SeqCst);
    }
}

fn whole_ms(duration: Duration) -> u64 {
    duration
        .as_nanos()
        .div_ceil(1_000_000)
        .try_into()
        .unwrap_or(u64::MAX / 2)
}

/// The clock an `idgen` process issues by: the system clock, or in a build
/// with the `test-hooks` feature a [`SkewedClock`] that tests set.
#[cfg(feature = "test-hooks")]
pub type ProcessClock = SkewedClock;
/// The clock an `idgen` process issues by: the system clock (a build with the
/// `test-hooks` feature lets tests skew it).
#[cfg(not(feature = "test-hooks"))]
pub type ProcessClock = SystemClock;

/// The process's clock, as [`ProcessClock`] says.
pub fn process_clock() -> ProcessClock {
    #[cfg(feature = "test-hooks")]
    return SkewedClock::from_env();
    #[cfg(not(feature = "test-hooks"))]
    SystemClock
}

/// The time by the process's clock ([`process_clock`]): what lease expiry,
/// lock expiry and refill marks are judged by, so a test that skews a
/// process's clock skews all of them alike.
pub fn process_now_ms() -> i64 {
    process_clock().now_ms()
}

/// The system clock shifted by a fixed offset. Tests give an `idgen` process a
/// skewed clock this way (`IDGEN_TEST_CLOCK_OFFSET_MS`), as a host whose clock
/// is ahead of or behind its peers would have. Only in builds with the
/// `test-hooks` feature: a release build contains none of it.
#[cfg(feature = "test-hooks")]
#[derive(Debug, Clone, Copy, Default)]
pub struct SkewedClock {
    offset_ms: i64,
}

#[cfg(feature = "test-hooks")]
impl SkewedClock {
    pub fn new(offset_ms: i64) -> Self {
        SkewedClock { offset_ms }
    }

    /// The offset from `IDGEN_TEST_CLOCK_OFFSET_MS`, or none.
    pub fn from_env() -> Self {
        let offset_ms = std::env::var("IDGEN_TEST_CLOCK_OFFSET_MS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        SkewedClock { offset_ms }
    }
}

#[cfg(feature = "test-hooks")]
impl Clock for SkewedClock {
    #[inline]
    fn now_ms(&self) -> i64 {
        SystemClock.now_ms() + self.offset_ms
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }

    fn wait_until_ms(&self, target_ms: i64) -> i64 {
        SystemClock.wait_until_ms(target_ms - self.offset_ms) + self.offset_ms
    }
}
