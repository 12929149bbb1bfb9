//! Named crash points, so tests can kill a process at an exact line.
//!
//! Call sites are always written the same way, feature or not:
//! `crate::failpoint::hit("area.step")?;`. Without the `test-hooks` feature (a
//! release build) `hit` is an empty inline function: the names, the environment
//! variable and the signal code are not in the binary.
//!
//! With `test-hooks`, `IDGEN_FAILPOINTS=name[=action],...` arms points, with
//! action `kill` (the default: SIGKILL, a crash with no cleanup), `stop` (SIGSTOP
//! the first time that point is hit, for a test to signal, resume or kill the process)
//! or `error` (fail the operation every time). Unset, a hit costs one load of a
//! cached empty list.
//!
//! A point in async code that a test must hold while the rest of the process
//! goes on (another request of `serve`, say) is written
//! `crate::failpoint::pause("area.step").await?;` and takes the action `pause`
//! as well: the first task to reach it creates `NAME.paused` in
//! `IDGEN_FAILPOINT_DIR` and waits, without blocking a thread, until the test
//! creates `NAME.go` there. `stop` would stop every task of the process.

/// Every failpoint, and where it stops a process. A name given in
/// `IDGEN_FAILPOINTS` must be one of these: a misspelt one would arm nothing,
/// and the test that set it would prove nothing.
#[cfg(any(test, feature = "test-hooks"))]
pub const POINTS: &[(&str, &str)] = &[
    (
        "adopt.before_commit",
        "MySQL's take-over of a sealed app, before its commit",
    ),
    (
        "dispenser.before_push",
        "a refill, with its segments taken, before the push",
    ),
    (
        "dispenser.push_answer_lost",
        "a push applied whose answer is lost (sent again)",
    ),
    (
        "init_app.before_commit",
        "init-app's transaction, before its commit",
    ),
    (
        "lease.between_batches",
        "lease, between two batches of IDs written out",
    ),
    (
        "lease.released_ahead",
        "lease --count, with the lease being given back ahead of its last IDs",
    ),
    (
        "lease.take_worker.before_commit",
        "MySQL's worker claim, before its commit",
    ),
    (
        "lease.take_worker.before_first_row",
        "MySQL's worker claim, having found no row for the worker, before making it",
    ),
    ("migrate.after_switch", "a move, after the route switched"),
    (
        "migrate.began",
        "a move, with its route begun, before any shard is sealed",
    ),
    (
        "migrate.before_switch",
        "a move, with the new node stocked, before the route switched",
    ),
    (
        "migrate.sealed_shard",
        "a move, with a shard sealed on the node it leaves, before the other admits it",
    ),
    (
        "migrate.retired_shard",
        "a move, after each shard retired on the old node",
    ),
    (
        "mysql.take_segments.before_commit",
        "MySQL's segment take, before its commit",
    ),
    (
        "redis.first_take",
        "a take on a new connection to a server, before its pipeline (probe and take) is sent",
    ),
    (
        "route.before_commit",
        "a route change in MySQL, before its commit",
    ),
    (
        "segment.after_take",
        "next, after its take, before the IDs are written",
    ),
    (
        "serve.before_answer",
        "serve, with IDs taken, before the answer is sent",
    ),
    (
        "sqlite.lease.before_commit",
        "the embedded store's lease transaction, before its commit",
    ),
    (
        "sqlite.reserve.before_raise",
        "a take from the embedded store's reserve, synced, before the witness is raised",
    ),
    (
        "sqlite.reserve.before_write",
        "a take from the embedded store's reserve, before its record is written",
    ),
    (
        "sqlite.schema.before_commit",
        "the embedded store's schema creation, before its commit",
    ),
    (
        "sqlite.seal.before_commit",
        "sealing an app in the embedded store, before its commit",
    ),
    (
        "sqlite.take.before_commit",
        "the embedded store's stock take, before its commit",
    ),
    (
        "sqlite.take_segment.before_commit",
        "the embedded store's segment take, before its commit",
    ),
    (
        "store_exit.after_adopt",
        "migrate --from-store, after MySQL took the app over",
    ),
    (
        "store_exit.after_seal",
        "migrate --from-store, after the app was sealed in the store",
    ),
    (
        "take.followed_seal",
        "a take following a seal, with the witness carried into the node it follows",
    ),
    (
        "take.before_retire",
        "a warm take that popped stock stamped by another server, before it retires it",
    ),
];

/// Passes through unless the failpoint `name` is armed (only with `test-hooks`).
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn hit(_name: &str) -> crate::error::Result<()> {
    Ok(())
}

/// Whether the failpoint `name` is armed, after [`hit`] it: for a point that
/// stands for something the network did (an answer lost, so the request is
/// sent again). Always false without `test-hooks`.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn hit_and_armed(_name: &str) -> crate::error::Result<bool> {
    Ok(false)
}

/// Passes through unless the failpoint `name` is armed (only with `test-hooks`).
/// Not an `async fn`: its future would hold the name, and so the binary too.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn pause(_name: &str) -> std::future::Ready<crate::error::Result<()>> {
    std::future::ready(Ok(()))
}

#[cfg(feature = "test-hooks")]
pub use armed::{hit, hit_and_armed, pause};

#[cfg(feature = "test-hooks")]
mod armed {
    use crate::error::{Error, Result};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Action {
        Kill,
        Stop,
        Fail,
        Pause,
    }

    /// One armed point; `fired` once its `stop` or `pause` has held a
    /// process or a task: each holds only the first to reach it.
    struct Armed {
        name: String,
        action: Action,
        fired: AtomicBool,
    }

    fn armed() -> &'static [Armed] {
        static POINTS: OnceLock<Vec<Armed>> = OnceLock::new();
        POINTS.get_or_init(|| {
            let Ok(spec) = std::env::var("IDGEN_FAILPOINTS") else {
                return Vec::new();
            };
            spec.split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|entry| {
                    let (name, action) = entry.split_once('=').unwrap_or((entry, "kill"));
                    let name = name.trim();
                    // Only tests set the variable: a name that arms nothing is their bug.
                    assert!(
                        super::POINTS.iter().any(|(known, _)| *known == name),
                        "IDGEN_FAILPOINTS names {name:?}, which is no failpoint (see failpoint::POINTS)"
                    );
                    let action = match action.trim() {
                        "stop" => Action::Stop,
                        "error" => Action::Fail,
                        "pause" => Action::Pause,
                        _ => Action::Kill,
                    };
                    Armed {
                        name: name.to_string(),
                        action,
                        fired: AtomicBool::new(false),
                    }
                })
                .collect()
        })
    }

    /// [`hit`], then whether `name` is armed.
    pub fn hit_and_armed(name: &str) -> Result<bool> {
        hit(name)?;
        Ok(armed().iter().any(|armed| armed.name == name))
    }

    /// Passes through unless the failpoint `name` is armed.
    pub fn hit(name: &str) -> Result<()> {
        let Some(point) = armed().iter().find(|armed| armed.name == name) else {
            return Ok(());
        };
        match point.action {
            // SAFETY: raising a signal on the current process has no memory-safety preconditions.
            Action::Kill => unsafe {
                libc::raise(libc::SIGKILL);
            },
            Action::Stop => {
                if !point.fired.swap(true, Ordering::SeqCst) {
                    // SAFETY: as above.
                    unsafe {
                        libc::raise(libc::SIGSTOP);
                    }
                }
            }
            Action::Fail => return Err(Error::Internal(format!("failpoint {name} fired"))),
            // Only `pause` itself waits: a task cannot wait inside a plain call.
            Action::Pause => {}
        }
        Ok(())
    }

    /// [`hit`] for a point in async code; the action `pause` holds the first
    /// task that reaches it until the test says go (see the module's docs).
    pub async fn pause(name: &str) -> Result<()> {
        hit(name)?;
        let Some(point) = armed()
            .iter()
            .find(|armed| armed.name == name && armed.action == Action::Pause)
        else {
            return Ok(());
        };
        if point.fired.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let dir = std::path::PathBuf::from(
            std::env::var_os("IDGEN_FAILPOINT_DIR")
                .expect("IDGEN_FAILPOINT_DIR names where a paused failpoint waits"),
        );
        std::fs::write(dir.join(format!("{name}.paused")), b"")
            .expect("IDGEN_FAILPOINT_DIR is writable");
        let go = dir.join(format!("{name}.go"));
        while !go.exists() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// Every `hit("…")` in the sources names a registered point, and every
    /// registered point is hit somewhere.
    #[test]
    fn every_failpoint_is_registered_and_used() {
        let mut used = std::collections::BTreeSet::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for call in [
                        "failpoint::hit(\"",
                        "failpoint::hit_and_armed(\"",
                        "failpoint::pause(\"",
                    ] {
                        for (at, _) in text.match_indices(call) {
                            let rest = &text[at + call.len()..];
                            let name = &rest[..rest.find('"').unwrap()];
                            if name != "area.step" {
                                used.insert(name.to_string());
                            }
                        }
                    }
                }
            }
        }
        let registered: std::collections::BTreeSet<String> = super::POINTS
            .iter()
            .map(|(name, _)| name.to_string())
            .collect();
        assert_eq!(used, registered);
    }
}
