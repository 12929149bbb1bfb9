//! Waiting for the signals that end a long-running command.

use tokio::signal::unix::{SignalKind, signal};

/// Resolves with the signal's name on SIGINT or SIGTERM.
pub async fn shutdown() -> &'static str {
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
