//! SIGINT and SIGTERM.
//!
//! By default the first signal ends the process at once (exit 130): fine for
//! commands whose every step is atomic in the store. Commands that must not stop
//! half-way (holding a refill lock, mid-move, holding a lease) call
//! [`Interrupt::graceful`]: the first signal then only raises a flag they check
//! between steps, and a second one still ends the process at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Notify;

/// Exit code after a signal, from the one table.
fn interrupted() -> i32 {
    i32::from(crate::exit::for_kind(idgen::ErrorKind::Interrupted))
}

#[derive(Clone, Default)]
pub struct Interrupt {
    graceful: Arc<AtomicBool>,
    raised: Arc<AtomicBool>,
    raised_now: Arc<Notify>,
}

impl Interrupt {
    /// Starts watching for signals (needs the runtime).
    pub fn watch() -> Self {
        let interrupt = Interrupt::default();
        let watcher = interrupt.clone();
        tokio::spawn(async move {
            shutdown().await;
            if !watcher.graceful.load(Ordering::Acquire) {
                std::process::exit(interrupted());
            }
            watcher.raised.store(true, Ordering::Release);
            watcher.raised_now.notify_waiters();
            shutdown().await;
            std::process::exit(interrupted());
        });
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
        loop {
            let notified = self.raised_now.notified();
            if self.raised() {
                return;
            }
            notified.await;
        }
    }
}

/// Resolves with the signal's name on SIGINT or SIGTERM.
async fn shutdown() -> &'static str {
    let (Ok(mut interrupt), Ok(mut terminate)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        // Without handlers the default action (exit) applies; never resolve.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = interrupt.recv() => "SIGINT",
        _ = terminate.recv() => "SIGTERM",
    }
}
