//! The start-up pass: load, then sweep rows of panes the layout does not
//! restore, saying whether it swept; no state outlives a call.

mod common;

use std::collections::HashSet;

use agent_resume_core::{AgentKind, UnixMillis};
use agent_resume_store::{startup, Armed, OpenOptions, Set, Store, Writer};
use common::*;

#[test]
fn startup_sweeps_panes_the_layout_does_not_restore_and_says_so_on_every_call() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    for p in 0..4 {
        w.send(Set::save(pane(p), rec(u64::from(p), 1)));
    }
    w.send(Set::clear(pane(8), UnixMillis(1)));
    w.flush().expect("flushes");
    for p in [2, 9] {
        w.store()
            .arm(&Armed {
                pane: pane(p),
                agent: AgentKind::Claude,
                session_id: session(u64::from(p)),
                argv: vec![],
                armed_at: UnixMillis(1),
                observed_at: UnixMillis(1),
            })
            .expect("arms");
    }
    drop(w);

    let keep: HashSet<_> = [pane(0), pane(2)].into();
    let s = startup(&path, &OpenOptions::default(), &keep);
    assert!(s.swept);
    // The load happens before the sweep and sees every row …
    assert_eq!(s.loaded.rows.len(), 4);
    assert!(s.loaded.warnings.is_empty(), "{:?}", s.loaded.warnings);
    // … the sweep then leaves only what the layout restores.
    let store = s.store.expect("open");
    let counts = store.counts().expect("counts");
    assert_eq!((counts.recordings, counts.clears, counts.armed), (2, 0, 1));
    assert_eq!(
        store
            .load()
            .expect("loads")
            .rows
            .keys()
            .copied()
            .collect::<Vec<_>>(),
        [pane(0), pane(2)]
    );
    drop(store);

    // A second pass in the same process sweeps again, by its own `keep`:
    // no hidden process-wide flag silently skips it.
    let keep: HashSet<_> = [pane(0)].into();
    let s = startup(&path, &OpenOptions::default(), &keep);
    assert!(s.swept);
    assert_eq!(s.loaded.rows.len(), 2);
    assert_eq!(
        s.store.expect("open").counts().expect("counts").recordings,
        1
    );
}

#[test]
fn startup_on_a_read_only_store_says_it_did_not_sweep() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    w.send(Set::save(pane(0), rec(0, 1)));
    w.flush().expect("flushes");
    drop(w);
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .expect("chmod");
    let s = startup(&path, &OpenOptions::default(), &HashSet::new());
    assert!(!s.swept, "an untrusted store is never swept");
}
