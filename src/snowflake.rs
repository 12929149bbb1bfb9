//! The in-process snowflake generator: one worker ID, one layout, one clock.
//!
//! Uniqueness rests on never reusing a (time unit, worker, sequence) triple:
//! * within one time unit the sequence counts up; when it runs out, wait for the next unit;
//! * a clock that stepped back by at most [`GeneratorOptions::max_backward`] is waited out,
//!   a larger step is refused ([`Error::ClockMovedBack`]) and nothing is issued;
//! * [`SnowflakeGenerator::set_floor_ms`] keeps a new holder of a worker off the time units
//!   its previous holder may have used;
//! * [`SnowflakeGenerator::set_horizon_ms`] stops issuance at the lease's fence.
//!
//! The generator is single-threaded (`&mut self`); share it behind a `Mutex`.

use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::layout::{FieldKind, Layout, LayoutError, Parts, Role, format_timestamp};
use std::time::Duration;

/// Knobs of a [`SnowflakeGenerator`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorOptions {
    /// The largest backward clock step that is waited out rather than refused.
    pub max_backward: Duration,
}

impl Default for GeneratorOptions {
    fn default() -> Self {
        GeneratorOptions {
            max_backward: Duration::from_millis(5),
        }
    }
}

/// Issues IDs of one layout for one worker ID.
#[derive(Debug)]
pub struct SnowflakeGenerator<C: Clock = SystemClock> {
    layout: Layout,
    worker: u64,
    clock: C,
    max_backward_ms: i64,

    /// The worker-ID fields, already in place; only time and sequence vary.
    placed_bits: u64,
    time_shift: u32,
    sequence_shift: u32,
    max_time: i64,
    max_sequence: u64,
    epoch_ms: i64,
    unit_ms: i64,

    /// The last time unit issued; -1 before the first ID.
    last_unit: i64,
    /// The next free sequence in `last_unit`; `max_sequence + 1` once it is used up.
    next_sequence: u64,
    /// The latest instant known to have passed (a reading we issued at, or the floor):
    /// a clock reading below it is a backward step.
    latest_ms: i64,
    /// Units up to and including this one are never issued.
    floor_unit: i64,
    /// The lease fence: no unit after the one containing it, and nothing once the clock
    /// reads past it.
    horizon_ms: Option<i64>,
    /// The unit containing `horizon_ms`.
    horizon_unit: Option<i64>,
    /// The first time unit issued in (-1 before the first ID), and the IDs
    /// issued since: the pace this generator has kept ([`Self::ends_by_ms`]).
    first_unit: i64,
    issued: u64,
}

impl<C: Clock> SnowflakeGenerator<C> {
    /// A generator for `worker` (spread over the layout's free worker-ID fields).
    ///
    /// Refuses a layout it cannot fill, a worker that does not fit, a clock before the epoch
    /// and a layout whose time bits are used up.
    pub fn new(layout: &Layout, worker: u64, clock: C, options: GeneratorOptions) -> Result<Self> {
        layout.check_generatable()?;
        let placed_bits = worker_and_fixed_bits(layout, worker)?;
        let field = |role: Role| {
            layout
                .fields()
                .iter()
                .find(|field| field.role() == role)
                .expect("check_generatable found time and sequence fields")
        };
        let (time, sequence) = (field(Role::Time), field(Role::Sequence));
        let generator = SnowflakeGenerator {
            worker,
            clock,
            max_backward_ms: i64::try_from(options.max_backward.as_millis()).unwrap_or(i64::MAX),
            placed_bits,
            time_shift: time.shift(),
            sequence_shift: sequence.shift(),
            max_time: time.max() as i64,
            max_sequence: sequence.max(),
            epoch_ms: layout.epoch_ms().expect("a time field has an epoch"),
            unit_ms: i64::from(layout.unit().expect("a time field has a unit").ms()),
            last_unit: -1,
            next_sequence: 0,
            latest_ms: i64::MIN,
            floor_unit: -1,
            horizon_ms: None,
            horizon_unit: None,
            first_unit: -1,
            issued: 0,
            layout: layout.clone(),
        };
        let now = generator.clock.now_ms();
        let unit = generator.unit_of(now);
        if unit < 0 {
            return Err(generator.before_epoch(now));
        }
        if unit > generator.max_time {
            return Err(generator.exhausted());
        }
        Ok(generator)
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn worker(&self) -> u64 {
        self.worker
    }

    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// Never issue the time unit containing `ms`, nor any earlier one: the previous holder
    /// of this worker may have used them. Only ever raises the floor.
    ///
    /// If the clock is behind `ms`, the next call waits when that is within the backward
    /// tolerance and refuses with [`Error::ClockMovedBack`] otherwise.
    pub fn set_floor_ms(&mut self, ms: i64) {
        self.floor_unit = self.floor_unit.max(self.unit_of(ms));
        self.latest_ms = self.latest_ms.max(ms);
    }

    /// The lease fence: never issue a time unit after the one containing `ms`, nor
    /// anything once the clock reads later than `ms` (so a process that was paused past
    /// its lease issues nothing when it wakes). `None` lifts the fence. At the fence,
    /// calls return "horizon reached" at once instead of waiting or failing.
    pub fn set_horizon_ms(&mut self, ms: Option<i64>) {
        self.horizon_ms = ms;
        self.horizon_unit = ms.map(|ms| self.unit_of(ms));
    }

    /// The last instant (Unix ms) of the time unit by which `remaining` more IDs are
    /// issued at the latest, if that is within `lead` of now, with `slack` more time
    /// for a stall on the way; `None` when they need longer than `lead`.
    ///
    /// It counts at the pace this generator has kept since its first ID where
    /// that is below the layout's ceiling (a process short of CPU), and counts
    /// the current unit as used up, so the IDs fit by then whatever room it
    /// has left. A stall longer than `slack` (a descheduled process) can
    /// still carry the last IDs past it.
    pub fn ends_by_ms(&self, remaining: u64, lead: Duration, slack: Duration) -> Option<i64> {
        let ceiling = self.max_sequence + 1;
        let kept = match u64::try_from(self.last_unit - self.first_unit) {
            Ok(units) if self.first_unit >= 0 && units > 0 => self.issued / (units + 1),
            _ => ceiling,
        };
        let per_unit = kept.clamp(1, ceiling);
        let units = i64::try_from(remaining.div_ceil(per_unit)).ok()?;
        let lead_ms = i64::try_from(lead.as_millis()).ok()?;
        if units.checked_mul(self.unit_ms)? > lead_ms {
            return None;
        }
        let slack_ms = i64::try_from(slack.as_millis()).ok()?;
        let slack_units = (slack_ms + self.unit_ms - 1) / self.unit_ms;
        let now_unit = self.unit_of(self.clock.now_ms()).max(self.last_unit);
        let last_unit = now_unit + units + slack_units;
        Some(self.unit_start(last_unit + 1) - 1)
    }

    /// Start (Unix ms) of the last time unit an ID was issued in; `None` until this
    /// generator issues one (a floor set earlier still stands: persist the larger).
    pub fn last_issued_ms(&self) -> Option<i64> {
        (self.last_unit >= 0).then(|| self.unit_start(self.last_unit))
    }

    /// The next ID, or `None` when it would need a time unit past the horizon.
    pub fn next_id(&mut self) -> Result<Option<u64>> {
        let Some((unit, sequence)) = self.acquire()? else {
            return Ok(None);
        };
        self.next_sequence = sequence + 1;
        self.issued += 1;
        Ok(Some(self.compose(unit, sequence)))
    }

    /// Appends up to `n` IDs to `out`, reading the clock once per time unit; returns how
    /// many it appended. Fewer than `n` means the horizon was reached.
    ///
    /// On an error, the IDs appended before it stay in `out` and are validly issued.
    pub fn fill(&mut self, out: &mut Vec<u64>, n: usize) -> Result<usize> {
        out.reserve(n);
        let mut appended = 0;
        while appended < n {
            let Some((unit, first)) = self.acquire()? else {
                break;
            };
            let available = self.max_sequence - first + 1;
            let take = available.min((n - appended) as u64);
            let base = ((unit as u64) << self.time_shift) | self.placed_bits;
            let shift = self.sequence_shift;
            out.extend((first..first + take).map(|sequence| base | (sequence << shift)));
            self.next_sequence = first + take;
            self.issued += take;
            appended += take as usize;
        }
        Ok(appended)
    }

    /// Picks the time unit to issue in and its first free sequence, waiting out a full
    /// unit or a small backward step. `None`: the horizon is reached.
    fn acquire(&mut self) -> Result<Option<(i64, u64)>> {
        loop {
            let min_unit = self.min_unit();
            if min_unit > self.max_time {
                return Err(self.exhausted());
            }
            if self.horizon_unit.is_some_and(|horizon| min_unit > horizon) {
                return Ok(None);
            }
            let now = self.clock.now_ms();
            let unit = self.unit_of(now);
            if unit >= min_unit {
                if unit > self.max_time {
                    return Err(self.exhausted());
                }
                if self.horizon_ms.is_some_and(|horizon| now > horizon) {
                    return Ok(None);
                }
                if unit != self.last_unit {
                    if self.last_unit < 0 {
                        self.first_unit = unit;
                    }
                    self.last_unit = unit;
                    self.next_sequence = 0;
                }
                self.latest_ms = self.latest_ms.max(now);
                return Ok(Some((unit, self.next_sequence)));
            }
            let behind_ms = self.latest_ms.saturating_sub(now);
            if behind_ms > self.max_backward_ms {
                return Err(self.moved_back(behind_ms));
            }
            if self.epoch_ms.saturating_sub(now) > self.max_backward_ms {
                return Err(self.before_epoch(now));
            }
            self.clock.wait_until_ms(self.unit_start(min_unit));
        }
    }

    /// The earliest unit the next ID may use.
    fn min_unit(&self) -> i64 {
        let after_last = if self.next_sequence <= self.max_sequence {
            self.last_unit
        } else {
            self.last_unit + 1
        };
        after_last.max(self.floor_unit.saturating_add(1)).max(0)
    }

    fn compose(&self, unit: i64, sequence: u64) -> u64 {
        ((unit as u64) << self.time_shift) | (sequence << self.sequence_shift) | self.placed_bits
    }

    /// The unit containing `ms`; on the hot path, so plain `i64` arithmetic when it fits.
    fn unit_of(&self, ms: i64) -> i64 {
        match ms.checked_sub(self.epoch_ms) {
            Some(offset) if self.unit_ms == 1 => offset,
            Some(offset) => offset.div_euclid(self.unit_ms),
            None => self.layout.time_units_at(ms).expect("a time field"),
        }
    }

    fn unit_start(&self, unit: i64) -> i64 {
        self.epoch_ms
            .saturating_add(unit.saturating_mul(self.unit_ms))
    }

    #[cold]
    fn moved_back(&self, behind_ms: i64) -> Error {
        Error::ClockMovedBack {
            behind_ms: behind_ms as u64,
            tolerance_ms: self.max_backward_ms as u64,
        }
    }

    #[cold]
    fn exhausted(&self) -> Error {
        let at = self.layout.exhausted_at_ms().expect("a time field");
        Error::TimeExhausted {
            layout: self.layout.name().to_string(),
            exhausted_at: format_timestamp(at),
        }
    }

    #[cold]
    fn before_epoch(&self, now_ms: i64) -> Error {
        Error::Layout(LayoutError::BeforeEpoch {
            now_ms,
            epoch_ms: self.epoch_ms,
            layout: self.layout.name().to_string(),
        })
    }
}

/// The ID bits of every worker-ID field: `worker` spread over the free ones, fixed values in the rest.
fn worker_and_fixed_bits(layout: &Layout, worker: u64) -> Result<u64, LayoutError> {
    let parts = Parts {
        time: 0,
        worker,
        sequence: 0,
    };
    let id = layout.compose_parts(parts)?;
    debug_assert_eq!(
        layout.decompose(id).map(|d| d.get(FieldKind::Time)),
        Ok(Some(0))
    );
    Ok(id)
}
