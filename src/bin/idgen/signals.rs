//! SIGINT and SIGTERM.
//!
//! By default the first signal ends the process at once (exit 130): fine for
//! commands whose every step is atomic in the store. Commands that must not stop
//! half-way (holding a refill lock, mid-move, holding a lease) call
//! [`Interrupt::graceful`]: the first signal then only raises a flag they check
//! between steps, and a second one still ends the process at once.
//!
//! The ending and the flag are the signal handler's own work, not the
//! runtime's: a command on the main thread may keep it busy (the embedded
//! store's calls run there, and a `next` of many IDs never yields between
//! them), and must still stop, or see the flag, at once. Only a task that
//! waits for the flag ([`Interrupt::wait`]) asks the runtime to wake it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::signal::unix::{SignalKind, signal};

/// Exit code after a signal, from the one table.
fn interrupted() -> i32 {
    i32::from(crate::exit::for_kind(idgen::ErrorKind::Interrupted))
}

#[derive(Clone, Default)]
pub struct Interrupt {
    graceful: Arc<AtomicBool>,
    raised: Arc<AtomicBool>,
}

impl Interrupt {
    /// Answers SIGINT and SIGTERM from now on: ends the process, or raises
    /// the flag once [`Self::graceful`] was asked for.
    pub fn watch() -> Self {
        let interrupt = Interrupt::default();
        let code = interrupted();
        for signal in [libc::SIGINT, libc::SIGTERM] {
            let (graceful, raised) = (interrupt.graceful.clone(), interrupt.raised.clone());
            let ends_or_raises = move || {
                if !graceful.load(Ordering::Acquire) || raised.swap(true, Ordering::AcqRel) {
                    // SAFETY: `_exit` is async-signal-safe (`exit` is not).
                    unsafe { libc::_exit(code) };
                }
            };
            // SAFETY: the action only touches atomics and calls `_exit`, both
            // async-signal-safe; it allocates nothing and takes no lock.
            // Registering fails only for signals that cannot be caught, which
            // these two can; were it to fail, the default action (ending the
            // process) would still apply.
            let _ = unsafe { signal_hook_registry::register(signal, ends_or_raises) };
        }
        interrupt
    }

    /// From now on the first signal only raises the flag.
    pub fn graceful(&self) -> Arc<AtomicBool> {
        self.graceful.store(true, Ordering::Release);
        self.raised.clone()
    }

    pub fn raised(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    /// Resolves once the flag is raised (at once if it already is).
    pub async fn wait(&self) {
        // Listening before the flag is read: a signal that comes after the
        // read wakes the loop, and one that came before raised the flag.
        let (Ok(mut interrupt), Ok(mut terminate)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return self.poll_raised().await;
        };
        while !self.raised() {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        }
    }

    /// [`Self::wait`] without the runtime's signal streams (they could not be
    /// made): the flag is read every 50 ms.
    async fn poll_raised(&self) {
        while !self.raised() {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}
