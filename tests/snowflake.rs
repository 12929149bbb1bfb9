//! The snowflake generator under a clock the tests move: sequence overflow, backward steps,
//! the lease's floor and horizon, exhaustion, and a long jittery run without repeats.

use idgen::clock::{Clock, ManualClock};
use idgen::layout::{FieldKind, Layout, LayoutError, parse_epoch};
use idgen::snowflake::{GeneratorOptions, SnowflakeGenerator};
use idgen::{Error, ErrorKind};
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// "Today" for these tests.
fn today_ms() -> i64 {
    parse_epoch("2026-11-21T12:00:00Z").unwrap()
}

fn layout(name: &str) -> Layout {
    Layout::named(name).unwrap()
}

fn generator(layout: &Layout, worker: u64, clock: &ManualClock) -> SnowflakeGenerator<ManualClock> {
    SnowflakeGenerator::new(layout, worker, clock.clone(), GeneratorOptions::default()).unwrap()
}

fn next(generator: &mut SnowflakeGenerator<ManualClock>) -> u64 {
    generator.next_id().unwrap().expect("no horizon set")
}

fn field(layout: &Layout, id: u64, kind: FieldKind) -> u64 {
    layout.decompose(id).unwrap().get(kind).unwrap()
}

fn unix_ms(layout: &Layout, id: u64) -> i64 {
    layout.decompose(id).unwrap().unix_ms.unwrap()
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

// ---- within and across time units ------------------------------------------------------

#[test]
fn ids_in_one_millisecond_share_the_time_and_count_the_sequence_up() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 7, &clock);
    let ids: Vec<u64> = (0..3).map(|_| next(&mut generator)).collect();
    for (i, &id) in ids.iter().enumerate() {
        assert_eq!(unix_ms(&layout, id), today_ms());
        assert_eq!(field(&layout, id, FieldKind::Worker), 7);
        assert_eq!(field(&layout, id, FieldKind::Sequence), i as u64);
    }
}

#[test]
fn a_new_millisecond_restarts_the_sequence() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 1, &clock);
    next(&mut generator);
    next(&mut generator);
    clock.advance(ms(1));
    let id = next(&mut generator);
    assert_eq!(unix_ms(&layout, id), today_ms() + 1);
    assert_eq!(field(&layout, id, FieldKind::Sequence), 0);
}

#[test]
fn sequence_overflow_waits_for_the_next_millisecond() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 1, &clock);
    let mut ids = Vec::new();
    assert_eq!(generator.fill(&mut ids, 4096).unwrap(), 4096);
    assert_eq!(clock.slept(), Duration::ZERO);
    let id = next(&mut generator);
    assert_eq!(unix_ms(&layout, id), today_ms() + 1);
    assert_eq!(field(&layout, id, FieldKind::Sequence), 0);
    assert_eq!(clock.slept(), ms(1));
}

#[test]
fn sequence_overflow_in_a_seconds_layout_waits_for_the_next_second_without_refusing() {
    // A full second is not a backward clock step, however long the wait.
    let layout = layout("uid-generator")
        .with_epoch_ms(today_ms() - 1000)
        .unwrap();
    let clock = ManualClock::new(today_ms() + 300);
    let mut generator = generator(&layout, 21, &clock);
    let mut ids = Vec::new();
    assert_eq!(generator.fill(&mut ids, 8192 + 1).unwrap(), 8193);
    assert_eq!(unix_ms(&layout, ids[8191]), today_ms());
    assert_eq!(unix_ms(&layout, ids[8192]), today_ms() + 1000);
    assert_eq!(clock.slept(), ms(700));
}

#[test]
fn sonyflake_counts_its_sequence_above_the_machine_field() {
    let layout = layout("sonyflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 0xBEEF, &clock);
    let first = next(&mut generator);
    let second = next(&mut generator);
    assert_eq!(second - first, 1 << 16);
    assert_eq!(field(&layout, second, FieldKind::Machine), 0xBEEF);
    assert_eq!(field(&layout, second, FieldKind::Sequence), 1);
}

#[test]
fn fill_reads_the_clock_about_once_per_time_unit() {
    struct CountingClock {
        inner: ManualClock,
        reads: AtomicU64,
    }
    impl Clock for CountingClock {
        fn now_ms(&self) -> i64 {
            self.reads.fetch_add(1, Ordering::Relaxed);
            self.inner.now_ms()
        }
        fn sleep(&self, duration: Duration) {
            self.inner.sleep(duration)
        }
    }
    let clock = Arc::new(CountingClock {
        inner: ManualClock::new(today_ms()),
        reads: AtomicU64::new(0),
    });
    let layout = layout("snowflake");
    let mut generator =
        SnowflakeGenerator::new(&layout, 1, clock.clone(), GeneratorOptions::default()).unwrap();
    let before = clock.reads.load(Ordering::Relaxed);
    let mut ids = Vec::new();
    assert_eq!(generator.fill(&mut ids, 4 * 4096).unwrap(), 4 * 4096);
    let reads = clock.reads.load(Ordering::Relaxed) - before;
    // A read per unit, and a few more around each wait for the next unit; not one per ID.
    assert!(reads <= 4 * 4, "{reads} clock reads for 4 units");
}

// ---- the clock moving backwards --------------------------------------------------------

#[test]
fn a_small_backward_step_is_waited_out_without_reissuing() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 1, &clock);
    let before = next(&mut generator);
    clock.rewind(ms(3));
    let after = next(&mut generator);
    assert!(after > before);
    assert_eq!(unix_ms(&layout, after), today_ms());
    assert_eq!(field(&layout, after, FieldKind::Sequence), 1);
    assert_eq!(clock.slept(), ms(3));
}

#[test]
fn a_large_backward_step_is_refused_and_nothing_is_issued() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 1, &clock);
    let before = next(&mut generator);
    clock.rewind(Duration::from_secs(1));
    let err = generator.next_id().unwrap_err();
    assert!(
        matches!(
            err,
            Error::ClockMovedBack {
                behind_ms: 1000,
                tolerance_ms: 5
            }
        ),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Clock);
    assert_eq!(clock.slept(), Duration::ZERO);
    let mut ids = Vec::new();
    assert!(generator.fill(&mut ids, 10).is_err());
    assert!(ids.is_empty());
    // Once the clock is back past the last ID, issuance resumes after it.
    clock.advance(Duration::from_secs(1));
    assert!(next(&mut generator) > before);
}

#[test]
fn the_backward_tolerance_is_configurable() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let options = GeneratorOptions {
        max_backward: ms(100),
    };
    let mut generator = SnowflakeGenerator::new(&layout, 1, clock.clone(), options).unwrap();
    let before = next(&mut generator);
    clock.rewind(ms(50));
    assert!(next(&mut generator) > before);
    assert_eq!(clock.slept(), ms(50));
}

// ---- lease support: floor, horizon, last issued ----------------------------------------

#[test]
fn last_issued_is_the_start_of_the_last_time_unit_used() {
    let layout = layout("sonyflake");
    let clock = ManualClock::new(today_ms() + 7);
    let mut generator = generator(&layout, 1, &clock);
    assert_eq!(generator.last_issued_ms(), None);
    next(&mut generator);
    let unit_start = layout.unit_start_ms(layout.time_units_at(today_ms() + 7).unwrap());
    assert_eq!(generator.last_issued_ms(), unit_start);
}

#[test]
fn a_new_holder_never_reissues_the_previous_holders_triples() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut previous = generator(&layout, 9, &clock);
    let mut issued = Vec::new();
    for _ in 0..5 {
        previous.fill(&mut issued, 1000).unwrap();
        clock.advance(ms(1));
    }
    let floor = previous.last_issued_ms().unwrap();
    // The next holder of worker 9 runs on a clock a little behind the previous one's.
    clock.set_ms(floor - 4);
    let mut next_holder = generator(&layout, 9, &clock);
    next_holder.set_floor_ms(floor);
    next_holder.fill(&mut issued, 3000).unwrap();
    let unique: HashSet<u64> = issued.iter().copied().collect();
    assert_eq!(unique.len(), issued.len());
    assert!(unix_ms(&layout, issued[5000]) > floor);
}

#[test]
fn a_clock_far_behind_the_floor_is_refused() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 9, &clock);
    generator.set_floor_ms(today_ms() + 60_000);
    let err = generator.next_id().unwrap_err();
    assert!(
        matches!(
            err,
            Error::ClockMovedBack {
                behind_ms: 60_000,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_floor_in_the_current_second_waits_for_the_next_second() {
    let layout = layout("uid-generator").with_epoch_ms(today_ms()).unwrap();
    let clock = ManualClock::new(today_ms() + 2_300);
    let mut generator = generator(&layout, 21, &clock);
    generator.set_floor_ms(today_ms() + 2_000);
    let id = next(&mut generator);
    assert_eq!(unix_ms(&layout, id), today_ms() + 3_000);
    assert_eq!(clock.slept(), ms(700));
}

#[test]
fn the_floor_never_goes_down() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms() + 10);
    let mut generator = generator(&layout, 9, &clock);
    generator.set_floor_ms(today_ms() + 10);
    generator.set_floor_ms(today_ms());
    let id = next(&mut generator);
    assert_eq!(unix_ms(&layout, id), today_ms() + 11);
}

#[test]
fn the_horizon_stops_issuance_without_waiting_or_failing() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 1, &clock);
    generator.set_horizon_ms(Some(today_ms() + 1));
    let mut ids = Vec::new();
    // Two units fit under the horizon; the third would be past it.
    assert_eq!(generator.fill(&mut ids, 3 * 4096).unwrap(), 2 * 4096);
    assert_eq!(unix_ms(&layout, ids[8191]), today_ms() + 1);
    let slept = clock.slept();
    assert_eq!(generator.next_id().unwrap(), None);
    assert_eq!(clock.slept(), slept);
}

#[test]
fn a_clock_past_the_horizon_reaches_it_at_once() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 1, &clock);
    generator.set_horizon_ms(Some(today_ms() + 100));
    clock.advance(ms(101));
    assert_eq!(generator.next_id().unwrap(), None);
    assert_eq!(clock.slept(), Duration::ZERO);
}

#[test]
fn a_clock_past_the_horizon_issues_nothing_even_within_the_same_unit() {
    // A holder paused past its lease wakes up in the same second: it must not issue.
    let layout = layout("uid-generator").with_epoch_ms(today_ms()).unwrap();
    let clock = ManualClock::new(today_ms() + 200);
    let mut generator = generator(&layout, 1, &clock);
    generator.set_horizon_ms(Some(today_ms() + 500));
    assert!(generator.next_id().unwrap().is_some());
    clock.advance(ms(400));
    assert_eq!(generator.next_id().unwrap(), None);
    let mut ids = Vec::new();
    assert_eq!(generator.fill(&mut ids, 10).unwrap(), 0);
}

#[test]
fn moving_the_horizon_resumes_issuance() {
    let layout = layout("snowflake");
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 1, &clock);
    generator.set_horizon_ms(Some(today_ms() - 1));
    assert_eq!(generator.next_id().unwrap(), None);
    generator.set_horizon_ms(Some(today_ms() + 30_000));
    assert!(generator.next_id().unwrap().is_some());
    generator.set_horizon_ms(None);
    assert!(generator.next_id().unwrap().is_some());
}

// ---- refusing to start -----------------------------------------------------------------

#[test]
fn an_exhausted_layout_refuses_to_start() {
    let clock = ManualClock::new(today_ms());
    let result = SnowflakeGenerator::new(
        &layout("uid-generator"),
        1,
        clock,
        GeneratorOptions::default(),
    );
    let err = result.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::TimeExhausted { layout, exhausted_at }
                if layout == "uid-generator" && exhausted_at == "2024-11-20T21:24:16.000Z"
        ),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Exhausted);
}

#[test]
fn a_layout_running_out_while_issuing_refuses_further_ids() {
    // 10 time bits of 1 ms: units 0..=1023 after the epoch.
    let layout = Layout::custom("time:10,worker:41,seq:12", None, Some(today_ms())).unwrap();
    let clock = ManualClock::new(today_ms() + 1023);
    let mut generator = generator(&layout, 1, &clock);
    let mut ids = Vec::new();
    let err = generator.fill(&mut ids, 5000).unwrap_err();
    assert!(matches!(err, Error::TimeExhausted { .. }), "{err}");
    assert_eq!(ids.len(), 4096);
    clock.advance(ms(5));
    assert!(matches!(
        generator.next_id(),
        Err(Error::TimeExhausted { .. })
    ));
}

#[test]
fn a_clock_before_the_epoch_is_refused() {
    let clock = ManualClock::new(parse_epoch("2014-06-01").unwrap());
    let err = SnowflakeGenerator::new(&layout("discord"), 1, clock, GeneratorOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, Error::Layout(LayoutError::BeforeEpoch { .. })),
        "{err}"
    );
}

#[test]
fn a_node_that_does_not_fit_the_layout_is_refused() {
    let clock = ManualClock::new(today_ms());
    let err = SnowflakeGenerator::new(
        &layout("snowflake"),
        1024,
        clock,
        GeneratorOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Layout(LayoutError::WorkerTooLarge { worker: 1024, .. })
        ),
        "{err}"
    );
}

#[test]
fn a_layout_without_time_or_sequence_cannot_generate() {
    let clock = ManualClock::new(today_ms());
    let err = SnowflakeGenerator::new(&layout("segment"), 0, clock, GeneratorOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, Error::Layout(LayoutError::NotGeneratable { .. })),
        "{err}"
    );
}

#[test]
fn a_fixed_datacenter_is_in_every_id() {
    let layout = layout("snowflake-dc")
        .with_fixed(FieldKind::Datacenter, 3)
        .unwrap();
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 31, &clock);
    let id = next(&mut generator);
    assert_eq!(field(&layout, id, FieldKind::Datacenter), 3);
    assert_eq!(field(&layout, id, FieldKind::Worker), 31);
}

#[test]
fn the_new_named_layouts_generate_ids_that_decode_to_the_clock_and_the_node() {
    let cases = [
        ("instagram", FieldKind::Shard),
        ("sonyflake-v2", FieldKind::Machine),
        ("yitter", FieldKind::Worker),
        ("tsid", FieldKind::Node),
        ("seata", FieldKind::Worker),
    ];
    for (name, worker_field) in cases {
        let layout = layout(name);
        let worker = layout.worker_capacity() - 1;
        let clock = ManualClock::new(today_ms());
        let mut generator = generator(&layout, worker, &clock);
        let first = next(&mut generator);
        let second = next(&mut generator);
        assert!(first < second, "{name}");
        assert_eq!(unix_ms(&layout, first), today_ms(), "{name}");
        assert_eq!(field(&layout, first, worker_field), worker, "{name}");
        let sequence = layout
            .fields()
            .iter()
            .find(|f| f.role() == idgen::layout::Role::Sequence)
            .unwrap()
            .kind();
        assert_eq!(field(&layout, second, sequence), 1, "{name}");
    }
}

#[test]
fn mastodon_has_no_node_bits_so_one_generator_fills_the_sequence() {
    let layout = layout("mastodon");
    assert_eq!(layout.worker_capacity(), 1);
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(&layout, 0, &clock);
    let id = next(&mut generator);
    assert_eq!(id >> 16, today_ms() as u64);
    assert_eq!(field(&layout, next(&mut generator), FieldKind::Sequence), 1);
}

// ---- a long run with a jittery clock ---------------------------------------------------

#[derive(Debug, Clone)]
enum Step {
    Advance(u64),
    Rewind(u64),
    Next,
    Fill(usize),
    /// The worker passes to a new holder, which takes the old one's last unit as its floor.
    Handover,
}

/// Mostly small forward and backward steps, some beyond the 5 ms tolerance, and a drift
/// forwards so the run keeps issuing.
fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        5 => (0u64..4).prop_map(Step::Advance),
        1 => (0u64..100).prop_map(Step::Advance),
        2 => (0u64..7).prop_map(Step::Rewind),
        1 => (0u64..40).prop_map(Step::Rewind),
        6 => Just(Step::Next),
        3 => (1usize..600).prop_map(Step::Fill),
        1 => Just(Step::Handover),
    ];
    proptest::collection::vec(step, 1..400)
}

/// What a jittery run did.
struct RunSummary {
    issued: usize,
    refusals: usize,
    waited: Duration,
}

/// Runs the steps and checks every ID is new, larger than the one before, and carries the worker.
fn run_jittery(layout: &Layout, steps: &[Step]) -> Result<RunSummary, TestCaseError> {
    let worker = 5;
    let clock = ManualClock::new(today_ms());
    let mut generator = generator(layout, worker, &clock);
    let mut seen = HashSet::new();
    let mut last = 0u64;
    let mut batch = Vec::new();
    let mut floor = None;
    let mut refusals = 0;
    for step in steps {
        batch.clear();
        let result = match step {
            Step::Advance(n) => {
                clock.advance(ms(*n));
                Ok(())
            }
            Step::Rewind(n) => {
                clock.rewind(ms(*n));
                Ok(())
            }
            Step::Next => generator.next_id().map(|id| batch.extend(id)),
            Step::Fill(n) => generator.fill(&mut batch, *n).map(drop),
            Step::Handover => {
                // As the lease does: keep the latest unit ever issued under this worker,
                // even across holders that issued nothing.
                floor = floor.max(generator.last_issued_ms());
                generator = SnowflakeGenerator::new(
                    layout,
                    worker,
                    clock.clone(),
                    GeneratorOptions::default(),
                )
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
                if let Some(floor) = floor {
                    generator.set_floor_ms(floor);
                }
                Ok(())
            }
        };
        if let Err(err) = result {
            refusals += 1;
            prop_assert!(
                matches!(err, Error::ClockMovedBack { .. }),
                "unexpected error {err}"
            );
        }
        for &id in &batch {
            prop_assert!(seen.insert(id), "ID {id} issued twice");
            prop_assert!(id > last, "ID {id} after {last}");
            last = id;
            let parts = layout.parts(id).unwrap();
            prop_assert_eq!(parts.worker, worker);
        }
    }
    Ok(RunSummary {
        issued: seen.len(),
        refusals,
        waited: clock.slept(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_jittery_clock_never_makes_a_snowflake_id_repeat(steps in steps()) {
        run_jittery(&layout("snowflake"), &steps)?;
    }

    #[test]
    fn a_jittery_clock_never_makes_a_sonyflake_id_repeat(steps in steps()) {
        run_jittery(&layout("sonyflake"), &steps)?;
    }

    #[test]
    fn a_jittery_clock_never_makes_a_seconds_based_id_repeat(steps in steps()) {
        let layout = layout("uid-generator").with_epoch_ms(today_ms() - 86_400_000).unwrap();
        run_jittery(&layout, &steps)?;
    }
}

#[test]
fn a_long_deterministic_jittery_run_never_repeats_an_id() {
    // xorshift64: reproducible without a dependency.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut random = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    let steps: Vec<Step> = (0..5_000)
        .map(|_| match random(20) {
            0..=4 => Step::Advance(random(4)),
            5 => Step::Advance(random(100)),
            6..=7 => Step::Rewind(random(7)),
            8 => Step::Rewind(random(40)),
            9..=14 => Step::Next,
            15..=18 => Step::Fill(1 + random(3000) as usize),
            _ => Step::Handover,
        })
        .collect();
    let run = run_jittery(&layout("discord"), &steps).unwrap();
    assert!(run.issued > 500_000, "only {} IDs issued", run.issued);
    assert!(run.refusals > 0, "no large backward step was refused");
    assert!(run.waited > Duration::ZERO, "nothing was waited out");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `ends_by_ms`, the fence a lease given back ahead is recorded at: the
    /// IDs left, issued without a stall from wherever the generator stands,
    /// all lie at or before it (`idgen lease --count`).
    #[test]
    fn the_ids_left_are_issued_by_the_fence_they_are_given_back_at(
        issued in 0usize..20_000,
        remaining in 1u64..=(8 * 4096),
        offset in 0i64..1_000,
    ) {
        let layout = layout("snowflake");
        let clock = ManualClock::new(today_ms() + offset);
        let mut generator = generator(&layout, 5, &clock);
        let mut ids = Vec::new();
        generator.fill(&mut ids, issued).unwrap();
        let fence = generator.ends_by_ms(remaining, ms(8), Duration::ZERO);
        // Whole units issued so far (or none) keep the ceiling's pace, at
        // which 8 ms of IDs are due within 8 ms.
        if issued % 4096 == 0 {
            prop_assert!(fence.is_some());
        }
        if let Some(fence) = fence {
            ids.clear();
            generator.fill(&mut ids, remaining as usize).unwrap();
            for id in ids {
                prop_assert!(unix_ms(&layout, id) <= fence);
            }
        }
    }

    #[test]
    fn whole_units_keep_the_ceilings_pace(units in 0usize..5, remaining in 1u64..=(8 * 4096)) {
        let layout = layout("snowflake");
        let clock = ManualClock::new(today_ms());
        let mut generator = generator(&layout, 5, &clock);
        generator.fill(&mut Vec::new(), units * 4096).unwrap();
        prop_assert!(generator.ends_by_ms(remaining, ms(8), Duration::ZERO).is_some());
    }
}

#[test]
fn ids_due_beyond_the_lead_give_no_fence() {
    let clock = ManualClock::new(today_ms());
    let snowflake = generator(&layout("snowflake"), 5, &clock);
    assert!(snowflake.ends_by_ms(8 * 4096 + 1, ms(8), ms(20)).is_none());
    // One 10 ms unit is already longer than the lead.
    let sonyflake = generator(&layout("sonyflake"), 5, &clock);
    assert!(sonyflake.ends_by_ms(1, ms(8), ms(20)).is_none());
}

#[test]
fn the_fence_given_back_at_leaves_the_slack_after_the_last_unit() {
    let clock = ManualClock::new(today_ms());
    let snowflake = generator(&layout("snowflake"), 5, &clock);
    // 4,097 IDs need two units, and the current one counts as used up: the
    // last falls in the second unit after this one, and 20 ms follow it.
    let fence = snowflake.ends_by_ms(4_097, ms(8), ms(20)).unwrap();
    assert_eq!(fence, today_ms() + 2 + 20);
}

#[test]
fn a_generator_short_of_cpu_is_given_a_fence_at_the_pace_it_kept() {
    let layout = layout("snowflake");
    let mut ids = Vec::new();
    // Two full units back to back: the ceiling's pace.
    let steady = ManualClock::new(today_ms());
    let mut kept_up = generator(&layout, 5, &steady);
    kept_up.fill(&mut ids, 8_192).unwrap();
    assert_eq!(steady.now_ms(), today_ms() + 1);
    // The same IDs with two units lost to a stall: 8,192 over three units,
    // 2,730 a unit.
    let stalled = ManualClock::new(today_ms());
    let mut short = generator(&layout, 6, &stalled);
    short.fill(&mut ids, 4_096).unwrap();
    stalled.advance(ms(2));
    short.fill(&mut ids, 4_096).unwrap();
    // 4,096 more: one unit at the ceiling, two at the pace kept, after the
    // current unit (counted as used up).
    assert_eq!(
        kept_up.ends_by_ms(4_096, ms(8), ms(0)),
        Some(today_ms() + 1 + 1)
    );
    assert_eq!(
        short.ends_by_ms(4_096, ms(8), ms(0)),
        Some(today_ms() + 2 + 2)
    );
}
