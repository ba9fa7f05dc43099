//! The roles of `tests/faults.rs` that run in a process of their own. Both
//! that test (which runs the read-only check in-process when it is not root,
//! and compares the churn's rows) and the `agent-resume-store-test-child`
//! binary (which runs them for it) include this file.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use agent_resume_core::Recording;
use agent_resume_store::{
    load_or_empty, startup, OpenOptions, ReadOnly, Set, Store, Warning, WriteError, Writer,
};

use crate::common::{pane, rec, recordings};

/// Five committed panes, readable; every write refused with `Denied`.
pub fn check_read_only(path: &Path) {
    let store = Store::open(path).expect("opens read-only instead of failing");
    assert_eq!(store.read_only(), Some(ReadOnly::Denied));
    assert!(store.trusted(), "{:?}", store.distrust());
    let loaded = store.load().expect("loads");
    assert_eq!(recordings(&loaded.rows).len(), 5, "{loaded:?}");
    assert_eq!(loaded.warnings, [Warning::ReadOnly(ReadOnly::Denied)]);

    let mut w = Writer::new(store);
    w.send(Set::save(pane(9), rec(9, 9)));
    assert!(matches!(
        w.flush(),
        Err(WriteError::ReadOnly(ReadOnly::Denied))
    ));
    assert_eq!(w.pending(), 1, "the batch stays pending");
    drop(w);

    let loaded = load_or_empty(path, &OpenOptions::default());
    assert_eq!(recordings(&loaded.rows).len(), 5);
    let s = startup(path, &OpenOptions::default(), &HashSet::new());
    assert_eq!(
        recordings(&s.loaded.rows).len(),
        5,
        "a read-only store is not swept"
    );
}

/// A recording of batch `k` of the churn: big enough that a batch outgrows
/// SQLite's page cache and spills into the WAL before it commits.
pub fn churn_rec(k: u64) -> Recording {
    let mut r = rec(k, k as i64);
    r.cwd = PathBuf::from(format!("/{}", "c".repeat(1500)));
    r
}

/// Writes batch after batch of 2,000 panes forever, each one transaction,
/// printing `committed K` after each.
#[cfg_attr(test, allow(dead_code, reason = "only the child binary runs it"))]
pub fn churn(path: &Path) {
    let mut w = Writer::new(Store::open(path).expect("opens"));
    let mut out = std::io::stdout().lock();
    for k in 1u64.. {
        for p in 0..2000 {
            w.send(Set::save(pane(p), churn_rec(k)));
        }
        w.flush().expect("flushes");
        writeln!(out, "committed {k}").expect("stdout");
        out.flush().expect("stdout");
    }
}
