//! Throughput of one worker's generator against the `snowflake` layout's ceiling of 4096 IDs
//! per millisecond (4.096 M/s), side by side with established crates:
//!
//! * `at-ceiling`: every call wants more IDs than a millisecond holds, so the sequence runs
//!   out and each generator must wait for the next millisecond. The best possible is the
//!   ceiling itself.
//! * `below-ceiling`: single IDs with the clock read on every call, timed only in runs short
//!   enough never to use up a millisecond's sequence: the per-call cost, i.e. the headroom
//!   under the ceiling.
//!
//! Run: `cargo bench --bench snowflake -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use idgen::clock::{Clock, SystemClock};
use idgen::layout::Layout;
use idgen::snowflake::{GeneratorOptions, SnowflakeGenerator};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// IDs one `snowflake` worker may issue per millisecond.
const PER_MS: usize = 4096;

fn ours() -> SnowflakeGenerator<SystemClock> {
    let layout = Layout::named("snowflake").expect("a named layout");
    SnowflakeGenerator::new(&layout, 1, SystemClock, GeneratorOptions::default())
        .expect("the snowflake layout issues until 2080")
}

fn at_ceiling(c: &mut Criterion) {
    // Four milliseconds' worth per iteration: at the ceiling an iteration takes 4 ms.
    const BATCH: usize = 4 * PER_MS;
    let mut group = c.benchmark_group("at-ceiling");
    group
        .throughput(Throughput::Elements(BATCH as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(20);

    group.bench_function("idgen fill", |b| {
        let mut generator = ours();
        let mut out = Vec::with_capacity(BATCH);
        b.iter(|| {
            out.clear();
            let issued = generator.fill(&mut out, BATCH).expect("no clock trouble");
            black_box(&out);
            issued
        })
    });
    group.bench_function("idgen next_id", |b| {
        let mut generator = ours();
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(generator.next_id().expect("no clock trouble"));
            }
        })
    });
    group.bench_function("snowflaked generate", |b| {
        let mut generator = snowflaked::Generator::new(1);
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(generator.generate::<u64>());
            }
        })
    });
    group.bench_function("rs-snowflake generate", |b| {
        // Reads the clock once per 4096 IDs, like our fill.
        let mut generator = snowflake::SnowflakeIdGenerator::new(1, 1);
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(generator.generate());
            }
        })
    });
    group.bench_function("rs-snowflake real_time_generate", |b| {
        let mut generator = snowflake::SnowflakeIdGenerator::new(1, 1);
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(generator.real_time_generate());
            }
        })
    });
    group.finish();
}

/// Times `iters` calls in runs of at most half a millisecond's sequence, each starting on a
/// fresh millisecond, so no generator ever waits inside the timed part.
fn timed_below_ceiling(iters: u64, mut call: impl FnMut()) -> Duration {
    const RUN: u64 = (PER_MS / 2) as u64;
    let mut timed = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let now = SystemClock.now_ms();
        SystemClock.wait_until_ms(now + 1);
        let run = left.min(RUN);
        let start = Instant::now();
        for _ in 0..run {
            call();
        }
        timed += start.elapsed();
        left -= run;
    }
    timed
}

fn below_ceiling(c: &mut Criterion) {
    let mut group = c.benchmark_group("below-ceiling");
    group.throughput(Throughput::Elements(1));

    group.bench_function("idgen next_id", |b| {
        let mut generator = ours();
        b.iter_custom(|iters| {
            timed_below_ceiling(iters, || {
                black_box(generator.next_id().expect("no clock trouble"));
            })
        })
    });
    group.bench_function("snowflaked generate", |b| {
        let mut generator = snowflaked::Generator::new(1);
        b.iter_custom(|iters| {
            timed_below_ceiling(iters, || {
                black_box(generator.generate::<u64>());
            })
        })
    });
    group.bench_function("rs-snowflake real_time_generate", |b| {
        let mut generator = snowflake::SnowflakeIdGenerator::new(1, 1);
        b.iter_custom(|iters| {
            timed_below_ceiling(iters, || {
                black_box(generator.real_time_generate());
            })
        })
    });
    group.finish();
}

criterion_group!(benches, at_ceiling, below_ceiling);
criterion_main!(benches);
