//! Ordering properties of the writer over random interleavings of saves,
//! clears and flushes for several panes.

mod common;

use std::collections::BTreeMap;

use agent_resume_core::{PaneId, Recording, UnixMillis};
use agent_resume_store::{coalesce, Set, Store, Writer};
use common::*;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Save { pane: u32, id: u64, dt: i64 },
    Clear { pane: u32, dt: i64 },
    Flush,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..4u32, 0..3u64, 0..2i64).prop_map(|(pane, id, dt)| Op::Save { pane, id, dt }),
        2 => (0..4u32, 0..2i64).prop_map(|(pane, dt)| Op::Clear { pane, dt }),
        1 => Just(Op::Flush),
    ]
}

fn stored(store: &Store) -> BTreeMap<PaneId, Recording> {
    let loaded = store.load().expect("loads");
    assert_eq!(
        recordings(&loaded.rows).len(),
        loaded.rows.len(),
        "every row readable"
    );
    recordings(&loaded.rows)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// One clock, as inside one process: times never go back (ties happen).
    /// After every flush the stored state is the last message per pane in
    /// send order.
    #[test]
    fn stored_state_is_the_last_message_per_pane_in_send_order(ops in prop::collection::vec(op(), 0..60)) {
        let mut w = Writer::new(Store::open_in_memory().expect("store"));
        let mut last: BTreeMap<PaneId, Option<Recording>> = BTreeMap::new();
        let mut now = 0i64;
        let expect = |last: &BTreeMap<PaneId, Option<Recording>>| -> BTreeMap<PaneId, Recording> {
            last.iter().filter_map(|(p, r)| r.clone().map(|r| (*p, r))).collect()
        };
        for op in ops.iter().chain([&Op::Flush]) {
            match op {
                Op::Save { pane: p, id, dt } => {
                    now += dt;
                    let r = rec(*id, now);
                    last.insert(pane(*p), Some(r.clone()));
                    w.send(Set::save(pane(*p), r));
                }
                Op::Clear { pane: p, dt } => {
                    now += dt;
                    last.insert(pane(*p), None);
                    w.send(Set::clear(pane(*p), UnixMillis(now)));
                }
                Op::Flush => {
                    w.flush().expect("flushes");
                    prop_assert_eq!(stored(w.store()), expect(&last));
                }
            }
        }
        prop_assert_eq!(w.pending(), 0);
    }

    /// Any clock (late and out-of-order events): a writer that coalesces and
    /// flushes at random points leaves exactly the rows that writing every
    /// message in its own transaction leaves. Coalescing is invisible.
    #[test]
    fn coalescing_leaves_the_same_rows_as_one_transaction_per_message(
        ops in prop::collection::vec((0..4u32, prop::option::of(0..3u64), 0..12i64, any::<bool>()), 0..60)
    ) {
        let mut coalescing = Writer::new(Store::open_in_memory().expect("store"));
        let mut one_by_one = Store::open_in_memory().expect("store");
        for (p, id, at, flush) in &ops {
            let set = match id {
                Some(id) => Set::save(pane(*p), rec(*id, *at)),
                None => Set::clear(pane(*p), UnixMillis(*at)),
            };
            one_by_one.apply(std::slice::from_ref(&set)).expect("applies");
            coalescing.send(set);
            if *flush {
                coalescing.flush().expect("flushes");
            }
        }
        coalescing.flush().expect("flushes");
        prop_assert_eq!(stored(coalescing.store()), stored(&one_by_one));
    }

    /// Two processes (two connections to one file) with their own writers:
    /// whatever the flush interleaving, each pane ends with its newest
    /// message (distinct times): no newer observation is ever overwritten and
    /// no stale save resurrects a cleared row.
    #[test]
    fn two_writers_on_one_file_end_with_the_newest_message_per_pane(
        msgs in prop::collection::vec((0..3u32, prop::option::of(0..3u64), any::<bool>(), any::<bool>()), 1..40),
        order in Just(()).prop_perturb(|_, mut rng| {
            let mut v: Vec<i64> = (0..40).collect();
            for i in (1..v.len()).rev() {
                let j = (rng.next_u32() as usize) % (i + 1);
                v.swap(i, j);
            }
            v
        })
    ) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = db(tmp.path());
        let mut writers = [
            Writer::new(Store::open(&path).expect("opens")),
            Writer::new(Store::open(&path).expect("opens")),
        ];
        let mut newest: BTreeMap<PaneId, (i64, Option<Recording>)> = BTreeMap::new();
        for (i, (p, id, which, flush)) in msgs.iter().enumerate() {
            let at = order[i];
            let set = match id {
                Some(id) => Set::save(pane(*p), rec(*id, at)),
                None => Set::clear(pane(*p), UnixMillis(at)),
            };
            let e = newest.entry(pane(*p)).or_insert((i64::MIN, None));
            if at > e.0 {
                *e = (at, set.recording.clone());
            }
            let w = &mut writers[usize::from(*which)];
            w.send(set);
            if *flush {
                w.flush().expect("flushes");
            }
        }
        for w in &mut writers {
            w.flush().expect("flushes");
        }
        let want: BTreeMap<PaneId, Recording> =
            newest.into_iter().filter_map(|(p, (_, r))| r.map(|r| (p, r))).collect();
        prop_assert_eq!(stored(writers[0].store()), want);
    }

    /// The pure coalescer keeps at most one message per pane, and it is one
    /// that was sent.
    #[test]
    fn coalesce_keeps_one_sent_message_per_pane(
        ops in prop::collection::vec((0..5u32, prop::option::of(0..3u64), 0..8i64), 0..40)
    ) {
        let sets: Vec<Set> = ops.iter().map(|(p, id, at)| match id {
            Some(id) => Set::save(pane(*p), rec(*id, *at)),
            None => Set::clear(pane(*p), UnixMillis(*at)),
        }).collect();
        let out = coalesce(sets.clone());
        let panes: std::collections::BTreeSet<_> = sets.iter().map(|s| s.pane).collect();
        prop_assert_eq!(out.len(), panes.len());
        for kept in &out {
            prop_assert!(sets.contains(kept));
            let newest = sets.iter().filter(|s| s.pane == kept.pane).map(Set::time).max();
            prop_assert_eq!(Some(kept.time()), newest);
        }
    }
}
