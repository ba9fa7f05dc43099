//! CPU time (user + system) of child processes, as the kernel accounts it
//! for children that were waited for (`getrusage(RUSAGE_CHILDREN)`, summed
//! by `wait4`): its growth across one run-and-wait is that child's CPU
//! time, every thread included. Paired and interleaved like
//! [`crate::ratio::paired`], so the printed ratio is the median of the
//! per-round ratios of CPU time, not of wall time.

#![allow(unsafe_code)] // one getrusage call below; nothing else.
#![allow(dead_code)]

use std::time::Duration;

use crate::ratio::Paired;

/// User + system time of every child waited for so far.
pub fn children() -> Duration {
    usage(libc::RUSAGE_CHILDREN)
}

/// User + system time of this process so far, every thread included: the
/// CPU time of a floor run in process while nothing else runs in it.
pub fn this_process() -> Duration {
    usage(libc::RUSAGE_SELF)
}

fn usage(who: libc::c_int) -> Duration {
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct,
    // and getrusage only writes one `rusage` through the pointer it gets,
    // which points at this one.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: see above; `who` is RUSAGE_CHILDREN or RUSAGE_SELF.
    let rc = unsafe { libc::getrusage(who, &mut usage) };
    assert_eq!(rc, 0, "getrusage works on Linux");
    let tv = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The CPU time of `batch` runs of `path` and of `floor` (each runs a child
/// to completion and waits for it), `rounds` times, alternating which goes
/// first. Nothing else may start children meanwhile.
pub fn paired(rounds: usize, batch: u32, path: impl FnMut(), floor: impl FnMut()) -> Paired {
    paired_clocks(rounds, batch, (children, children), path, floor)
}

/// A reading of CPU time: [`children`] or [`this_process`].
pub type Clock = fn() -> Duration;

/// [`paired`], with the clock of each side given: (`path`'s, `floor`'s),
/// [`children`] for a side that runs a child, [`this_process`] for one that
/// runs in process.
pub fn paired_clocks(
    rounds: usize,
    batch: u32,
    clocks: (Clock, Clock),
    mut path: impl FnMut(),
    mut floor: impl FnMut(),
) -> Paired {
    let cpu = |f: &mut dyn FnMut(), clock: Clock| {
        let before = clock();
        for _ in 0..batch {
            f();
        }
        (clock() - before).as_secs_f64() / f64::from(batch)
    };
    crate::ratio::interleaved(
        rounds,
        || cpu(&mut path, clocks.0),
        || cpu(&mut floor, clocks.1),
    )
}
