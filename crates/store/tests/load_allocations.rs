//! Loading many recordings costs a fixed number of allocations a row: the
//! flags of rows that share one flags text share their texts instead of
//! each row owning a copy of every flag name and value.
#![allow(unsafe_code)] // the counting allocator below; nothing else.
#![allow(missing_docs)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use agent_resume_core::{RecordedFlag, Stored};
use agent_resume_store::{Set, Store, Writer};
use common::{db, pane, rec};

struct Counting;

thread_local! {
    static COUNT: Cell<Option<usize>> = const { Cell::new(None) };
}

// SAFETY: delegates to the system allocator; only counts calls made while a
// count is active on the current thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = COUNT.try_with(|c| c.set(c.get().map(|n| n + 1)));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations<T>(f: impl FnOnce() -> T) -> (usize, T) {
    COUNT.with(|c| c.set(Some(0)));
    let out = f();
    (COUNT.with(|c| c.replace(None)).unwrap_or(0), out)
}

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
        n <= 4 * ROWS as usize,
        "{n} allocations for {ROWS} rows: more than 4 a row"
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
