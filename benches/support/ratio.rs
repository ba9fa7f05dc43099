//! Paired, interleaved timing of a path against its floor, measured in the
//! same run so a load change on the machine weighs on both sides alike.
//!
//! Each round times a batch of the path and a batch of the floor, in
//! alternating order; the ratio printed is the median of the per-round
//! ratios, next to the median time of each side. Every `ratio=` line names
//! its goal id, the path and the floor.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// The outcome of a paired measurement.
pub struct Paired {
    /// Median time of one run of the path.
    pub path: Duration,
    /// Median time of one run of the floor.
    pub floor: Duration,
    /// Median of the per-round ratios path / floor.
    pub ratio: f64,
    /// How many rounds.
    pub rounds: usize,
}

fn median_f64(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `batch` calls of `path` and of `floor`, `rounds` times, interleaved.
pub fn paired(
    rounds: usize,
    batch: u32,
    mut path: impl FnMut(),
    mut floor: impl FnMut(),
) -> Paired {
    // Seconds per call as a float: `Duration / batch` would truncate to
    // whole nanoseconds, too coarse for a path of a few nanoseconds.
    let time = move |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        start.elapsed().as_secs_f64() / f64::from(batch)
    };
    interleaved(rounds, || time(&mut path), || time(&mut floor))
}

/// Prints the `ratio=` line of `goal` (for example `P1`).
/// `limit` `None`: the ratio is shown for information (the goal is not a
/// ratio).
pub fn report(goal: &str, path: &str, floor: &str, limit: Option<f64>, p: &Paired) {
    let verdict = match limit {
        Some(l) if p.ratio <= l => format!("<= {l}x: holds"),
        Some(l) => format!("<= {l}x: MISSED"),
        None => "informational".to_owned(),
    };
    println!(
        "ratio={:.2} goal={goal} ({verdict}) path=\"{path}\" {} floor=\"{floor}\" {} rounds={}",
        p.ratio,
        show(p.path),
        show(p.floor),
        p.rounds
    );
}

fn show(d: Duration) -> String {
    let ns = d.as_secs_f64() * 1e9;
    if ns < 10_000.0 {
        format!("{ns:.2}ns")
    } else if ns < 10_000_000.0 {
        format!("{:.1}us", ns / 1e3)
    } else {
        format!("{:.2}ms", ns / 1e6)
    }
}

/// Like [`paired`], for paths whose runs time themselves (a run with set-up
/// and teardown around the part that counts): `path` and `floor` each
/// return the time of one run, alternating which goes first.
pub fn paired_timed(
    rounds: usize,
    mut path: impl FnMut() -> Duration,
    mut floor: impl FnMut() -> Duration,
) -> Paired {
    interleaved(rounds, || path().as_secs_f64(), || floor().as_secs_f64())
}

/// `rounds` pairs of one `path` and one `floor` measurement (seconds),
/// alternating which goes first; medians and the median per-pair ratio.
pub fn interleaved(
    rounds: usize,
    mut path: impl FnMut() -> f64,
    mut floor: impl FnMut() -> f64,
) -> Paired {
    let (mut ps, mut fs, mut rs) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (p, f) = if round % 2 == 0 {
            let p = path();
            (p, floor())
        } else {
            let f = floor();
            (path(), f)
        };
        ps.push(p);
        fs.push(f);
        rs.push(p / f.max(1e-15));
    }
    Paired {
        path: Duration::from_secs_f64(median_f64(&mut ps)),
        floor: Duration::from_secs_f64(median_f64(&mut fs)),
        ratio: median_f64(&mut rs),
        rounds,
    }
}
