//! How much to take from the ledger, and when a shard needs it.

use crate::error::{Error, Result};
use crate::shard::max_index_within;
use crate::store::{RefillMark, SegmentPlan, ShardState};

/// Why a refill was started; decides the double-check made under the lock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trigger {
    /// A caller found the stock empty: refill only if it still is.
    Empty,
    /// The cron job: refill if stock ≤ idle × the last loaded size.
    Threshold { idle: f64 },
    /// Stocking a node an app moves to: the same threshold, but the history
    /// describes the old node's stock, so the configured step applies.
    Restock { idle: f64 },
}

/// Should a shard with this stock be refilled? `reference` is the size of the
/// last segment loaded, or the configured step.
pub fn needs_refill(trigger: Trigger, stock: u64, reference: u64) -> bool {
    match trigger {
        Trigger::Empty => stock == 0,
        Trigger::Threshold { idle } | Trigger::Restock { idle } => {
            (stock as f64) <= idle * reference as f64
        }
    }
}

/// The next step from the consumption rate since the last load, clamped to the
/// app's bounds; without usable history, the configured step.
///
/// A step at most doubles from one segment to the next: stock that vanished
/// (a flushed or restarted Redis) looks like a burst of consumption, and must
/// not turn into one huge segment per shard.
pub fn next_step(state: &ShardState, stock: u64, now_ms: i64) -> u64 {
    let policy = &state.policy;
    let (min, max) = (
        policy.min_step.max(1),
        policy.max_step.max(policy.min_step.max(1)),
    );
    let Some(last) = state.last_refill else {
        return state.step.max(1);
    };
    let elapsed_ms = now_ms - last.loaded_at_ms;
    if elapsed_ms <= 0 || last.stock_after < stock {
        return state.step.clamp(min, max);
    }
    let consumed = (last.stock_after - stock) as f64;
    let rate_per_ms = consumed / elapsed_ms as f64;
    let wanted = (rate_per_ms * policy.target.as_millis() as f64).ceil();
    let ramp = last.loaded.max(state.step).saturating_mul(2);
    (wanted as u64).min(ramp).clamp(min, max)
}

/// How many indexes the shard can still hand out under `max_limit_id`.
pub fn room(state: &ShardState) -> Result<u64> {
    let room = max_index_within(state.max_limit_id, state.app, state.shard)
        .map_or(0, |max| max.saturating_sub(state.max_id));
    if room == 0 {
        return Err(Error::LimitReached {
            app: state.app,
            shard: state.shard,
            max_limit_id: state.max_limit_id,
        });
    }
    Ok(room)
}

/// The plan for a refill that stocks a dispenser; `count == 0` means the stock
/// turned out not to need one.
pub fn plan_refill(
    state: &ShardState,
    trigger: Trigger,
    stock: u64,
    now_ms: i64,
) -> Result<SegmentPlan> {
    let reference = state.last_refill.map_or(state.step, |m| m.loaded).max(1);
    if !needs_refill(trigger, stock, reference) {
        return Ok(SegmentPlan {
            count: 0,
            mark: None,
            direct: false,
        });
    }
    let step = match trigger {
        Trigger::Restock { .. } => state
            .step
            .clamp(state.policy.min_step.max(1), state.policy.max_step.max(1)),
        _ => next_step(state, stock, now_ms),
    };
    let count = step.min(room(state)?);
    Ok(SegmentPlan {
        count,
        mark: Some(RefillMark {
            loaded_at_ms: now_ms,
            loaded: count,
            stock_after: stock + count,
        }),
        direct: false,
    })
}

/// The plan for a caller that consumes the whole segment itself.
pub fn plan_direct(state: &ShardState, wanted: u64) -> Result<SegmentPlan> {
    Ok(SegmentPlan {
        count: wanted.min(room(state)?),
        mark: None,
        direct: true,
    })
}

/// What a caller wants from one shard: the planner's inputs, as data the
/// ledger sizes under the shard's row lock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Want {
    /// Stock a dispenser whose stock, read under the refill lock, is `stock`.
    /// With `direct_for`, a shortfall of at least a step is taken for the
    /// caller instead of stocked.
    Refill {
        trigger: Trigger,
        stock: u64,
        direct_for: Option<u64>,
    },
    /// The caller consumes the whole segment itself.
    Direct { wanted: u64 },
}

/// The one planner every ledger calls inside its transaction: how many
/// indexes `want` takes from a shard in `state`, at `now_ms`.
pub fn plan(state: &ShardState, want: Want, now_ms: i64) -> Result<SegmentPlan> {
    match want {
        Want::Direct { wanted } => plan_direct(state, wanted),
        Want::Refill {
            direct_for: Some(wanted),
            ..
        } if wanted >= state.step => plan_direct(state, wanted),
        Want::Refill { trigger, stock, .. } => plan_refill(state, trigger, stock, now_ms),
    }
}

/// Has the shard used at least 90% of what `max_limit_id` allows?
pub fn near_limit(max_limit_id: u64, app: u8, shard: u8, max_id: u64) -> bool {
    match max_index_within(max_limit_id, app, shard) {
        Some(_) if max_limit_id == 0 => false,
        Some(max) => max_id.saturating_mul(10) >= max.saturating_mul(9),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{AppPolicy, Route};
    use std::time::Duration;

    fn shard(step: u64, last: Option<RefillMark>) -> ShardState {
        ShardState {
            app: 1,
            shard: 2,
            max_id: 0,
            step,
            max_limit_id: 0,
            policy: AppPolicy {
                min_step: 100,
                max_step: 10_000,
                target: Duration::from_secs(60),
            },
            last_refill: last,
            route: Route::default_node(),
            dispenser: crate::shard::DispenserKind::Queue,
        }
    }

    #[test]
    fn without_history_the_configured_step_applies() {
        assert_eq!(next_step(&shard(1000, None), 0, 5_000), 1000);
    }

    #[test]
    fn step_follows_the_consumption_rate_times_the_target() {
        // 600 indexes used in 6 s = 100/s; 60 s target → 6000.
        let last = RefillMark {
            loaded_at_ms: 0,
            loaded: 4000,
            stock_after: 4000,
        };
        assert_eq!(next_step(&shard(1000, Some(last)), 3400, 6_000), 6000);
    }

    #[test]
    fn step_is_clamped_to_the_app_bounds() {
        let last = RefillMark {
            loaded_at_ms: 0,
            loaded: 1000,
            stock_after: 1000,
        };
        assert_eq!(next_step(&shard(1000, Some(last)), 1000, 60_000), 100);
        let big = RefillMark {
            loaded_at_ms: 0,
            loaded: 8000,
            stock_after: 8000,
        };
        assert_eq!(next_step(&shard(1000, Some(big)), 0, 1), 10_000);
    }

    #[test]
    fn step_at_most_doubles_when_stock_vanishes() {
        // All 1000 gone within a second looks like 60,000 a minute: grow to 2000 only.
        let last = RefillMark {
            loaded_at_ms: 0,
            loaded: 1000,
            stock_after: 1000,
        };
        assert_eq!(next_step(&shard(1000, Some(last)), 0, 1_000), 2000);
    }

    #[test]
    fn threshold_is_idle_times_the_last_load() {
        assert!(needs_refill(Trigger::Threshold { idle: 0.2 }, 200, 1000));
        assert!(!needs_refill(Trigger::Threshold { idle: 0.2 }, 201, 1000));
        assert!(needs_refill(Trigger::Empty, 0, 1000));
        assert!(!needs_refill(Trigger::Empty, 1, 1000));
    }

    #[test]
    fn refill_never_passes_max_limit_id() {
        let mut state = shard(1000, None);
        // Index 10 is the last whose ID (shard 2, app 1) stays under the limit.
        state.max_limit_id = (10 << 14) | (2 << 8) | 1;
        state.max_id = 7;
        let plan = plan_refill(&state, Trigger::Empty, 0, 0).unwrap();
        assert_eq!(plan.count, 3);
        state.max_id = 10;
        assert!(matches!(
            plan_refill(&state, Trigger::Empty, 0, 0),
            Err(Error::LimitReached { .. })
        ));
    }

    #[test]
    fn near_limit_at_ninety_percent() {
        let limit = (100 << 14) | 0x3fff;
        assert!(!near_limit(limit, 255, 63, 89));
        assert!(near_limit(limit, 255, 63, 90));
        assert!(!near_limit(0, 1, 1, u64::MAX / 2));
    }
}
