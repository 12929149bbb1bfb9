//! Named crash points, so tests can kill a process at an exact line.
//!
//! Call sites are always written the same way, feature or not:
//! `crate::failpoint::hit("area.step")?;`. Without the `test-hooks` feature (a
//! release build) `hit` is an empty inline function: the names, the environment
//! variable and the signal code are not in the binary.
//!
//! With `test-hooks`, `IDGEN_FAILPOINTS=name[=action],...` arms points, with
//! action `kill` (the default: SIGKILL, a crash with no cleanup), `stop` (SIGSTOP
//! the first time it is hit, for a test to signal, resume or kill the process)
//! or `error` (fail the operation every time). Unset, a hit costs one load of a
//! cached empty list.

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

#[cfg(feature = "test-hooks")]
pub use armed::{hit, hit_and_armed};

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
    }

    fn armed() -> &'static [(String, Action)] {
        static POINTS: OnceLock<Vec<(String, Action)>> = OnceLock::new();
        POINTS.get_or_init(|| {
            let Ok(spec) = std::env::var("IDGEN_FAILPOINTS") else {
                return Vec::new();
            };
            spec.split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|entry| {
                    let (name, action) = entry.split_once('=').unwrap_or((entry, "kill"));
                    let action = match action.trim() {
                        "stop" => Action::Stop,
                        "error" => Action::Fail,
                        _ => Action::Kill,
                    };
                    (name.trim().to_string(), action)
                })
                .collect()
        })
    }

    /// [`hit`], then whether `name` is armed.
    pub fn hit_and_armed(name: &str) -> Result<bool> {
        hit(name)?;
        Ok(armed().iter().any(|(armed, _)| armed == name))
    }

    /// Passes through unless the failpoint `name` is armed.
    pub fn hit(name: &str) -> Result<()> {
        let Some((_, action)) = armed().iter().find(|(armed, _)| armed == name) else {
            return Ok(());
        };
        match action {
            // SAFETY: raising a signal on the current process has no memory-safety preconditions.
            Action::Kill => unsafe {
                libc::raise(libc::SIGKILL);
            },
            Action::Stop => {
                static STOPPED: AtomicBool = AtomicBool::new(false);
                if !STOPPED.swap(true, Ordering::SeqCst) {
                    // SAFETY: as above.
                    unsafe {
                        libc::raise(libc::SIGSTOP);
                    }
                }
            }
            Action::Fail => return Err(Error::Internal(format!("failpoint {name} fired"))),
        }
        Ok(())
    }
}
