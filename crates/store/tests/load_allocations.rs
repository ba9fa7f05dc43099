//! Loading many recordings costs a fixed number of allocations a row: the
//! flags of rows that share one flags text share their texts instead of
//! each row owning a copy of every flag name and value.
#![allow(unsafe_code)] // the counting allocator (core/tests/support/counting_alloc.rs); nothing else.
#![allow(missing_docs)]

mod common;
#[path = "../../core/tests/support/counting_alloc.rs"]
mod counting_alloc;

use std::sync::Arc;

use agent_resume_core::{RecordedFlag, Stored};
use agent_resume_store::{Set, Store, Writer};
use common::{db, pane, rec};
use counting_alloc::allocations;

#[test]
fn a_load_allocates_for_each_rows_id_directory_and_flag_list_not_for_each_flag_text() {
    const ROWS: u32 = 1000;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = Writer::new(Store::open(&db(dir.path())).expect("opens"));
    for p in 0..ROWS {
        let mut r = rec(u64::from(p), 1);
        r.flags = vec![
            RecordedFlag::value("--model", "opus"),
            RecordedFlag::value("--permission-mode", "plan"),
        ];
        w.send(Set::save(pane(p), r));
    }
    w.flush().expect("flushes");
    drop(w);
    let store = Store::open(&db(dir.path())).expect("opens");
    store.load().expect("loads"); // statement cache and schema warm
    let (n, stored) = allocations(|| store.load().expect("loads").into_stored());
    assert_eq!(stored.len(), ROWS as usize);
    // Per row: the session id, the directory and the list of flags (4 texts
    // shared with every other row); the maps' nodes and buffers come on top.
    assert!(
        (3 * ROWS as usize..=4 * ROWS as usize).contains(&n),
        "{n} allocations for {ROWS} rows: not the 3 a row plus the maps' share"
    );
    let names: Vec<&Arc<str>> = stored
        .values()
        .filter_map(|s| match s {
            Stored::Recording(r) => r.flags.first().map(|f| &f.name),
            Stored::Unreadable => None,
        })
        .collect();
    assert_eq!(names.len(), ROWS as usize);
    assert!(names.iter().all(|n| Arc::ptr_eq(n, names[0])));
}
