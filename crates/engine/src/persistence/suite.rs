//! One suite of ordering and fault scenarios, run against every
//! implementation (the store's own scenarios, `crates/store/tests`).

use std::collections::{BTreeMap, HashSet};

use agent_resume_core::batch::Set;
use agent_resume_core::{AgentKind, PaneId, Recording, Stored, UnixMillis};

use super::{Arm, PersistError, Persistence};

pub(crate) const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const ID2: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";

pub(crate) fn pane(n: u8) -> PaneId {
    PaneId::from_bytes([n; 16])
}

pub(crate) fn rec(id: &str, at: i64) -> Recording {
    Recording {
        agent: AgentKind::Claude,
        session_id: id.into(),
        flags: vec![],
        program: None,
        cwd: "/w".into(),
        observed_at: UnixMillis(at),
        config_home: None,
        dir: None,
    }
}

fn arm(p: u8, id: &str) -> Arm {
    Arm {
        pane: pane(p),
        agent: AgentKind::Claude,
        session_id: id.into(),
        argv: vec!["claude".into(), "--resume".into(), id.into()],
        armed_at: UnixMillis(7),
        observed_at: UnixMillis(5),
    }
}

fn ids(p: &mut dyn Persistence) -> BTreeMap<PaneId, String> {
    let loaded = p.load();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    loaded
        .recordings
        .into_iter()
        .map(|(pane, s)| match s {
            Stored::Recording(r) => (pane, r.session_id),
            Stored::Unreadable => panic!("every row readable"),
        })
        .collect()
}

fn apply(p: &mut dyn Persistence, sets: &[Set]) -> usize {
    p.apply(sets).expect("applies")
}

pub(crate) fn empty_loads_empty(p: &mut dyn Persistence) {
    assert!(ids(p).is_empty());
    assert_eq!(p.row(pane(1)).expect("reads"), None);
    assert_eq!(p.take(pane(1)).expect("takes"), None);
}

pub(crate) fn a_save_round_trips_through_load_and_row(p: &mut dyn Persistence) {
    assert_eq!(apply(p, &[Set::save(pane(1), rec(ID, 5))]), 1);
    assert_eq!(p.load().recordings[&pane(1)], Stored::Recording(rec(ID, 5)));
    assert_eq!(
        p.row(pane(1)).expect("reads"),
        Some(Stored::Recording(rec(ID, 5)))
    );
    assert_eq!(p.row(pane(2)).expect("reads"), None);
}

pub(crate) fn a_stale_save_never_resurrects_a_cleared_row(p: &mut dyn Persistence) {
    apply(p, &[Set::save(pane(1), rec(ID, 5))]);
    assert_eq!(apply(p, &[Set::clear(pane(1), UnixMillis(10))]), 1);
    // A late event from before the clear, in its own write.
    assert_eq!(apply(p, &[Set::save(pane(1), rec(ID2, 8))]), 0);
    assert!(ids(p).is_empty());
    // A newer one is adopted, and supersedes the clear.
    assert_eq!(apply(p, &[Set::save(pane(1), rec(ID2, 11))]), 1);
    assert_eq!(ids(p)[&pane(1)], ID2);
}

pub(crate) fn a_clear_never_removes_a_newer_row_nor_an_older_save_replace_it(
    p: &mut dyn Persistence,
) {
    apply(p, &[Set::save(pane(1), rec(ID, 10))]);
    assert_eq!(apply(p, &[Set::clear(pane(1), UnixMillis(5))]), 0);
    assert_eq!(apply(p, &[Set::save(pane(1), rec(ID2, 7))]), 0);
    assert_eq!(ids(p)[&pane(1)], ID);
}

pub(crate) fn equal_times_go_to_the_later_writer(p: &mut dyn Persistence) {
    apply(p, &[Set::save(pane(1), rec(ID, 5))]);
    apply(p, &[Set::clear(pane(1), UnixMillis(5))]);
    assert!(ids(p).is_empty());
    apply(p, &[Set::save(pane(1), rec(ID2, 5))]);
    assert_eq!(ids(p)[&pane(1)], ID2);
}

pub(crate) fn messages_of_one_write_apply_in_order(p: &mut dyn Persistence) {
    let n = apply(
        p,
        &[
            Set::save(pane(1), rec(ID, 1)),
            Set::save(pane(2), rec(ID2, 1)),
            Set::clear(pane(1), UnixMillis(2)),
            Set::save(pane(1), rec(ID, 1)),
        ],
    );
    assert_eq!(n, 3, "the last save is older than the clear");
    assert_eq!(ids(p), BTreeMap::from([(pane(2), ID2.to_owned())]));
}

pub(crate) fn an_armed_line_is_taken_exactly_once(p: &mut dyn Persistence) {
    let a = arm(1, ID);
    p.arm(&a, None).expect("arms");
    assert_eq!(p.take(a.pane).expect("takes"), Some(a.clone()));
    assert_eq!(p.take(a.pane).expect("takes"), None);
}

pub(crate) fn arming_a_session_id_for_one_pane_disarms_it_elsewhere(p: &mut dyn Persistence) {
    p.arm(&arm(1, ID), None).expect("arms");
    p.arm(&arm(2, ID), None).expect("arms");
    p.arm(&arm(3, ID2), None).expect("arms");
    assert_eq!(p.take(pane(1)).expect("takes"), None);
    assert_eq!(p.take(pane(2)).expect("takes"), Some(arm(2, ID)));
    assert!(p.disarm(pane(3)).expect("disarms"));
    assert!(!p.disarm(pane(3)).expect("no-op"));
}

pub(crate) fn a_sweep_drops_everything_of_panes_not_kept(p: &mut dyn Persistence) {
    apply(
        p,
        &[
            Set::save(pane(1), rec(ID, 5)),
            Set::save(pane(2), rec(ID2, 5)),
            Set::clear(pane(3), UnixMillis(50)),
        ],
    );
    p.arm(&arm(2, ID2), None).expect("arms");
    let keep: HashSet<PaneId> = [pane(1)].into();
    assert_eq!(p.sweep(&keep).expect("sweeps"), 1);
    assert_eq!(ids(p), BTreeMap::from([(pane(1), ID.to_owned())]));
    assert_eq!(p.take(pane(2)).expect("takes"), None, "its arm went too");
    // The clear remembered for pane 3 went: an older save now applies.
    assert_eq!(apply(p, &[Set::save(pane(3), rec(ID, 6))]), 1);
}

pub(crate) fn a_delete_clears_the_row_and_drops_the_arm(p: &mut dyn Persistence) {
    apply(p, &[Set::save(pane(1), rec(ID, 5))]);
    p.arm(&arm(1, ID), None).expect("arms");
    assert_eq!(p.delete(pane(1), UnixMillis(6)).expect("deletes"), 1);
    assert!(ids(p).is_empty());
    assert_eq!(p.take(pane(1)).expect("takes"), None);
}

/// A write that fails applies nothing; retried, it loses nothing.
pub(crate) fn a_failed_write_applies_nothing_and_a_retry_loses_nothing(p: &mut dyn Persistence) {
    let mut flaky = Flaky { inner: p, fail: 1 };
    let sets = [
        Set::save(pane(1), rec(ID, 5)),
        Set::clear(pane(2), UnixMillis(5)),
    ];
    assert!(flaky.apply(&sets).is_err());
    assert!(ids(flaky.inner).is_empty());
    assert_eq!(flaky.apply(&sets).expect("retried"), 1);
    assert_eq!(ids(flaky.inner)[&pane(1)], ID);
}

/// Fails its first `fail` writes, as a full disk or a busy lock would.
pub(crate) struct Flaky<'a> {
    pub(crate) inner: &'a mut dyn Persistence,
    pub(crate) fail: usize,
}

impl Flaky<'_> {
    fn apply(&mut self, sets: &[Set]) -> Result<usize, PersistError> {
        if self.fail > 0 {
            self.fail -= 1;
            return Err(PersistError::Backend("disk full".into()));
        }
        self.inner.apply(sets)
    }
}

macro_rules! suite {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;
            suite!(@tests $make;
                empty_loads_empty,
                a_save_round_trips_through_load_and_row,
                a_stale_save_never_resurrects_a_cleared_row,
                a_clear_never_removes_a_newer_row_nor_an_older_save_replace_it,
                equal_times_go_to_the_later_writer,
                messages_of_one_write_apply_in_order,
                an_armed_line_is_taken_exactly_once,
                arming_a_session_id_for_one_pane_disarms_it_elsewhere,
                a_sweep_drops_everything_of_panes_not_kept,
                a_delete_clears_the_row_and_drops_the_arm,
                a_failed_write_applies_nothing_and_a_retry_loses_nothing,
            );
        }
    };
    (@tests $make:expr; $($test:ident,)*) => {
        $(
            #[test]
            fn $test() {
                let mut p: Box<dyn Persistence> = Box::new($make);
                super::$test(p.as_mut());
            }
        )*
    };
}

suite!(memory, super::super::Memory::new());
#[cfg(feature = "sqlite")]
suite!(
    sqlite,
    super::super::Sqlite::new(agent_resume_store::Store::open_in_memory().expect("store"))
);

#[cfg(feature = "sqlite")]
mod differential {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any clock, any grouping into writes: memory and SQLite end with
        /// the same rows after every write.
        #[test]
        fn memory_and_sqlite_keep_the_same_rows(
            writes in prop::collection::vec(
                prop::collection::vec((0..3u8, prop::option::of(0..2usize), 0..8i64), 1..5),
                0..12,
            )
        ) {
            let mut m: Box<dyn Persistence> = Box::new(super::super::Memory::new());
            let mut s: Box<dyn Persistence> = Box::new(super::super::Sqlite::new(
                agent_resume_store::Store::open_in_memory().expect("store"),
            ));
            for w in writes {
                let sets: Vec<Set> = w
                    .into_iter()
                    .map(|(p, id, at)| match id {
                        Some(i) => Set::save(pane(p), rec([ID, ID2][i], at)),
                        None => Set::clear(pane(p), UnixMillis(at)),
                    })
                    .collect();
                prop_assert_eq!(m.apply(&sets).expect("memory"), s.apply(&sets).expect("sqlite"));
                prop_assert_eq!(m.load(), s.load());
            }
        }
    }
}
