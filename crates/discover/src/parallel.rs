//! Reading session files on scoped threads while the stores are still
//! being walked, with the results in the order the walk found the files.

use std::collections::VecDeque;
use std::num::NonZeroUsize;
use std::sync::{Condvar, Mutex, PoisonError};

/// Items a thread takes at a time: small enough that a thread the machine
/// holds back leaves little behind, large enough that handing out and
/// merging cost nothing next to reading the files.
const CHUNK: usize = 32;

struct Queue<T> {
    /// Items found and not yet taken, each with its place in the order.
    pending: VecDeque<(usize, T)>,
    /// How many items were found so far.
    found: usize,
    /// The producer is done: no more items will come.
    done: bool,
}

/// Runs `produce` on the calling thread, which hands over items in batches
/// as it finds them, and applies `f` to every item on as many threads as the
/// machine has cores: the helpers start on the first batches while
/// `produce` still runs, and the calling thread joins them when it is done.
/// Returns the results in runs, the runs and the results in each in the
/// order the items were handed over; each item is consumed (dropped, or
/// moved into its result) as soon as it is done.
pub fn pipeline<T: Send, R: Send>(
    produce: impl FnOnce(&mut dyn FnMut(Vec<T>)),
    f: impl Fn(T) -> R + Sync,
) -> Vec<Vec<R>> {
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    if threads <= 1 {
        let mut all = Vec::new();
        produce(&mut |batch| all.extend(batch));
        return vec![all.into_iter().map(f).collect()];
    }
    let queue = Mutex::new(Queue {
        pending: VecDeque::new(),
        found: 0,
        done: false,
    });
    let ready = Condvar::new();
    // A panic in `f` is passed on by the scope; the lock is never held
    // while `f` runs, so a poisoned lock still holds consistent data.
    let lock = || queue.lock().unwrap_or_else(PoisonError::into_inner);
    // Each chunk's results stay together, tagged with the place of its first
    // item (a chunk is items found one after the other): no large vector
    // grows and is copied while results come in, and putting them in order
    // sorts a few hundred chunks, not every result.
    let work = || {
        let mut out = Vec::new();
        let mut chunk = Vec::with_capacity(CHUNK);
        loop {
            {
                let mut q = lock();
                while q.pending.is_empty() && !q.done {
                    q = ready.wait(q).unwrap_or_else(PoisonError::into_inner);
                }
                if q.pending.is_empty() {
                    return out;
                }
                let n = q.pending.len().min(CHUNK);
                chunk.extend(q.pending.drain(..n));
            }
            let first = chunk.first().map_or(0, |(i, _)| *i);
            out.push((
                first,
                chunk.drain(..).map(|(_, t)| f(t)).collect::<Vec<R>>(),
            ));
        }
    };
    let parts = std::thread::scope(|s| {
        let mut helpers = Vec::new();
        produce(&mut |batch| {
            let mut q = lock();
            for t in batch {
                let i = q.found;
                q.pending.push_back((i, t));
                q.found += 1;
            }
            // Helpers start once there is a chunk of work for them: a
            // listing of a few files is not worth a thread.
            if helpers.is_empty() && q.found >= CHUNK {
                helpers.extend((1..threads).map(|_| s.spawn(work)));
            }
            drop(q);
            ready.notify_all();
        });
        lock().done = true;
        ready.notify_all();
        let mut parts = vec![work()];
        for h in helpers {
            match h.join() {
                Ok(part) => parts.push(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        parts
    });
    let mut runs: Vec<(usize, Vec<R>)> = parts.into_iter().flatten().collect();
    runs.sort_unstable_by_key(|(first, _)| *first);
    runs.into_iter().map(|(_, run)| run).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_order_items_were_found_whatever_thread_made_them() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 10 * CHUNK + 7] {
            let got: Vec<(usize, usize)> = pipeline(
                |emit| {
                    // Batches of uneven size, some while helpers already run.
                    let mut next = 0;
                    for size in (1..).step_by(5) {
                        let end = (next + size).min(n);
                        emit((next..end).collect());
                        next = end;
                        if next == n {
                            break;
                        }
                        std::thread::sleep(std::time::Duration::from_micros(100));
                    }
                },
                |i: usize| {
                    // Uneven work, so threads finish chunks out of order.
                    if i.is_multiple_of(7) {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                    (i, i * 2)
                },
            )
            .into_iter()
            .flatten()
            .collect();
            let want: Vec<(usize, usize)> = (0..n).map(|i| (i, i * 2)).collect();
            assert_eq!(got, want, "{n}");
        }
    }
}
