//! Rows on a real file: raw bytes survive, bad rows are unreadable for their
//! pane only, the guards hold across connections, the sweep, and a host's
//! full layout save.

mod common;

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use agent_resume_core::{AgentKind, UnixMillis};
use agent_resume_store::{RowState, Set, Store, Unreadable, Warning, Writer};
use common::*;
use rusqlite::{params, Connection};

#[test]
fn non_utf8_directory_and_config_home_survive_a_round_trip() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let mut r = rec(1, 5);
    r.cwd = PathBuf::from(OsStr::from_bytes(b"/home/me/caf\xe9 \n\x01dir"));
    r.config_home = Some(PathBuf::from(OsStr::from_bytes(b"/home/me/.cl\xffude")));
    r.program = Some("/opt/bin/claude".into());
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    w.send(Set::save(pane(1), r.clone()));
    w.flush().expect("flushes");
    drop(w);
    let loaded = Store::open(&path).expect("reopens").load().expect("loads");
    assert_eq!(loaded.rows[&pane(1)], RowState::Recording(r));
}

fn insert_raw(conn: &Connection, pane: &str, agent: Option<i64>, id: &str, flags: Option<&str>) {
    conn.execute(
        "INSERT INTO agent_sessions (pane, agent, session_id, flags, program, cwd, observed_at, config_home) \
         VALUES (?1, ?2, ?3, ?4, NULL, CAST('/w' AS BLOB), 1, NULL)",
        params![pane, agent, id, flags],
    )
    .expect("inserts");
}

#[test]
fn null_or_garbage_agent_and_flags_read_as_no_recording_for_that_pane_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 1, 1); // pane(0) is good
    let conn = Connection::open(&path).expect("opens");
    let good_flags = Some("[]");
    // pane, agent code, session id, flags JSON, why it is unreadable
    type Case = (u32, Option<i64>, String, Option<&'static str>, Unreadable);
    let cases: &[Case] = &[
        (1, None, session(1), good_flags, Unreadable::AgentMissing),
        (
            2,
            Some(9999),
            session(1),
            good_flags,
            Unreadable::AgentUnknown,
        ),
        (
            3,
            Some(-1),
            session(1),
            good_flags,
            Unreadable::AgentUnknown,
        ),
        (4, Some(1), session(1), None, Unreadable::Flags),
        (5, Some(1), session(1), Some("garbage"), Unreadable::Flags),
        (
            6,
            Some(1),
            session(1),
            Some("{\"name\":1}"),
            Unreadable::Flags,
        ),
        (
            7,
            Some(1),
            "'; rm -rf ~".into(),
            good_flags,
            Unreadable::SessionId,
        ),
        (
            8,
            Some(1),
            "F6066EBB-140E-4519-AB63-B9CDE0B60B57".into(),
            good_flags,
            Unreadable::SessionId,
        ),
    ];
    for (p, agent, id, flags, _) in cases {
        insert_raw(&conn, &pane(*p).to_string(), *agent, id, *flags);
    }
    drop(conn);

    let store = Store::open(&path).expect("opens");
    let loaded = store.load().expect("loads");
    assert_eq!(loaded.rows.len(), 1 + cases.len());
    assert!(matches!(loaded.rows[&pane(0)], RowState::Recording(_)));
    for (p, _, _, _, why) in cases {
        assert_eq!(
            loaded.rows[&pane(*p)],
            RowState::Unreadable(*why),
            "pane {p}"
        );
    }
    // Nothing was dropped from disk.
    assert_eq!(
        store.counts().expect("counts").recordings,
        1 + cases.len() as u64
    );
}

#[test]
fn values_of_the_wrong_type_read_as_unreadable_for_that_pane_only() {
    // Another process recreated the table without STRICT and wrote
    // whatever it liked.
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    drop(Store::open(&path).expect("creates"));
    let conn = Connection::open(&path).expect("opens");
    conn.execute_batch(
        "DROP TABLE agent_sessions; \
         CREATE TABLE agent_sessions (pane PRIMARY KEY, agent, session_id, flags, program, cwd, observed_at, config_home, \
         dir_canonical, dir_volume, dir_inode);",
    )
    .expect("loose table");
    let id = session(1);
    let rows: &[(u32, &str, Unreadable)] = &[
        (
            1,
            "'claude', ?1, '[]', NULL, X'2F77', 1, NULL",
            Unreadable::AgentUnknown,
        ),
        (
            2,
            "1.5, ?1, '[]', NULL, X'2F77', 1, NULL",
            Unreadable::AgentUnknown,
        ),
        (
            3,
            "1, X'00', '[]', NULL, X'2F77', 1, NULL",
            Unreadable::SessionId,
        ),
        (
            4,
            "1, ?1, X'5B5D', NULL, X'2F77', 1, NULL",
            Unreadable::Flags,
        ),
        (5, "1, ?1, '[]', 7, X'2F77', 1, NULL", Unreadable::Program),
        (6, "1, ?1, '[]', NULL, 7, 1, NULL", Unreadable::Directory),
        (7, "1, ?1, '[]', NULL, '', 1, NULL", Unreadable::Directory),
        (
            8,
            "1, ?1, '[]', NULL, X'2F77', 'yesterday', NULL",
            Unreadable::ObservedAt,
        ),
        (
            9,
            "1, ?1, '[]', NULL, X'2F77', 1, 3.5",
            Unreadable::ConfigHome,
        ),
    ];
    for (p, values, _) in rows {
        let values = values.replace("?1", &format!("'{id}'"));
        conn.execute(
            &format!(
                "INSERT INTO agent_sessions (pane, agent, session_id, flags, program, cwd, observed_at, config_home) VALUES ('{}', {values})",
                pane(*p)
            ),
            [],
        )
        .expect("inserts");
    }
    conn.execute(
        "INSERT INTO agent_sessions (pane, agent, session_id, flags, program, cwd, observed_at, config_home) VALUES (?1, 1, ?2, '[]', NULL, X'2F77', 1, NULL)",
        params![pane(0).to_string(), id],
    )
    .expect("inserts");
    conn.execute(
        "INSERT INTO agent_sessions (pane, agent, session_id, flags, program, cwd, observed_at, config_home) VALUES (42, 1, ?1, '[]', NULL, X'2F77', 1, NULL)",
        [&id],
    )
    .expect("inserts");
    conn.execute(
        "INSERT INTO agent_sessions VALUES (?1, 1, ?2, '[]', NULL, X'2F77', 1, NULL, X'2F77', 'one', 2)",
        params![pane(10).to_string(), id],
    )
    .expect("inserts");
    drop(conn);
    let mut store = Store::open(&path).expect("opens");
    let loaded = store.load().expect("loads");
    assert!(matches!(loaded.rows[&pane(0)], RowState::Recording(_)));
    assert_eq!(
        loaded.rows[&pane(10)],
        RowState::Unreadable(Unreadable::DirIdentity)
    );
    for (p, _, why) in rows {
        assert_eq!(
            loaded.rows[&pane(*p)],
            RowState::Unreadable(*why),
            "pane {p}"
        );
    }
    assert_eq!(loaded.warnings, [Warning::MalformedPanes(1)]);
    let keep: HashSet<_> = [pane(0)].into();
    store
        .sweep(&keep)
        .expect("sweeps a key that is not even text");
    assert_eq!(store.counts().expect("counts").recordings, 1);
}

#[test]
fn malformed_pane_keys_are_ignored_with_a_warning_and_swept() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 2, 1);
    let conn = Connection::open(&path).expect("opens");
    insert_raw(&conn, "not-a-pane", Some(1), &session(1), Some("[]"));
    drop(conn);
    let mut store = Store::open(&path).expect("opens");
    let loaded = store.load().expect("loads");
    assert_eq!(loaded.rows.len(), 2);
    assert_eq!(loaded.warnings, [Warning::MalformedPanes(1)]);
    let keep: HashSet<_> = [pane(0)].into();
    assert_eq!(store.sweep(&keep).expect("sweeps"), 2);
    let loaded = store.load().expect("loads");
    assert_eq!(loaded.rows.keys().copied().collect::<Vec<_>>(), [pane(0)]);
    assert!(loaded.warnings.is_empty());
}

#[test]
fn stale_save_never_resurrects_a_cleared_row() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let mut a = Writer::new(Store::open(&path).expect("opens"));
    let mut b = Writer::new(Store::open(&path).expect("opens"));
    a.send(Set::save(pane(1), rec(1, 10)));
    a.flush().expect("flushes");
    a.send(Set::clear(pane(1), UnixMillis(20)));
    a.flush().expect("flushes");
    // Another process's save, observed before the clear, lands late.
    b.send(Set::save(pane(1), rec(2, 15)));
    b.flush().expect("flushes");
    assert!(a.store().load().expect("loads").rows.is_empty());
    // A newer save supersedes the clear.
    b.send(Set::save(pane(1), rec(3, 20)));
    b.flush().expect("flushes");
    let rows = recordings(&a.store().load().expect("loads").rows);
    assert_eq!(rows[&pane(1)].session_id, session(3));
    assert_eq!(a.store().counts().expect("counts").clears, 0);
}

#[test]
fn a_newer_observation_from_another_process_is_never_overwritten() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let mut a = Writer::new(Store::open(&path).expect("opens"));
    let mut b = Writer::new(Store::open(&path).expect("opens"));
    a.send(Set::save(pane(1), rec(2, 200)));
    a.flush().expect("flushes");
    b.send(Set::save(pane(1), rec(1, 100)));
    let flushed = b.flush().expect("flushes");
    assert_eq!(flushed.applied, 0);
    // An older clear does not delete a newer row either.
    b.send(Set::clear(pane(1), UnixMillis(150)));
    b.flush().expect("flushes");
    let rows = recordings(&a.store().load().expect("loads").rows);
    assert_eq!(rows[&pane(1)].session_id, session(2));
}

#[test]
fn full_layout_save_by_the_host_leaves_recordings_intact() {
    // A host that keeps its layout in the same database file rebuilds it
    // wholesale on every save: drops and recreates its tables, deletes and
    // reinserts every row (with cascades), then vacuums. Recordings live in
    // their own table with no reference to the host's tables, so they
    // survive.
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 3, 1);
    let host = Connection::open(&path).expect("host opens the same file");
    host.execute_batch("PRAGMA foreign_keys = ON;").expect("fk");
    let save = |panes: &[u32]| {
        host.execute_batch(
            "BEGIN; \
             DROP TABLE IF EXISTS panes; DROP TABLE IF EXISTS tabs; DROP TABLE IF EXISTS windows; \
             CREATE TABLE windows (id INTEGER PRIMARY KEY); \
             CREATE TABLE tabs (id INTEGER PRIMARY KEY, window INTEGER REFERENCES windows(id) ON DELETE CASCADE); \
             CREATE TABLE panes (uuid TEXT PRIMARY KEY, tab INTEGER REFERENCES tabs(id) ON DELETE CASCADE); \
             INSERT INTO windows VALUES (1); INSERT INTO tabs VALUES (1, 1);",
        )
        .expect("host schema");
        for p in panes {
            host.execute("INSERT INTO panes VALUES (?1, 1)", [pane(*p).to_string()])
                .expect("host pane");
        }
        host.execute_batch("DELETE FROM windows; INSERT INTO windows VALUES (1); INSERT INTO tabs VALUES (1, 1); COMMIT; VACUUM;")
            .expect("host rebuild");
    };
    save(&[0, 1, 2]);
    save(&[0, 1, 2]);
    let loaded = Store::open(&path).expect("opens").load().expect("loads");
    assert_eq!(recordings(&loaded.rows).len(), 3);
    assert!(loaded.rows.values().all(|r| r.recording().is_some()));
}

#[test]
fn agent_kind_is_stored_as_its_code() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let mut r = rec(1, 1);
    r.agent = AgentKind::Codex;
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    w.send(Set::save(pane(1), r));
    w.flush().expect("flushes");
    let conn = Connection::open(&path).expect("opens");
    let code: i64 = conn
        .query_row("SELECT agent FROM agent_sessions", [], |r| r.get(0))
        .expect("row");
    assert_eq!(code, i64::from(AgentKind::Codex.code()));
}

#[test]
fn detach_kinds_keep_or_clear_the_recording_as_designed() {
    use agent_resume_core::{Capture, DetachKind};
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    let mut capture = Capture::new();
    for p in 0..3 {
        capture.seed(pane(p), rec(u64::from(p), 1));
        w.send(Set::save(pane(p), rec(u64::from(p), 1)));
    }
    w.flush().expect("flushes");
    let now = UnixMillis(2);
    // Hidden for an undoable close, and app teardown: kept.
    assert_eq!(capture.detach(pane(0), DetachKind::HiddenForClose), None);
    assert_eq!(capture.detach(pane(0), DetachKind::Teardown), None);
    // Closed for good: deleted. The agent ended while attached: cleared.
    let closed = capture
        .detach(pane(1), DetachKind::Closed)
        .expect("a change");
    w.send(Set::from_change(pane(1), closed, now));
    let ended = capture.agent_ended(pane(2));
    w.send(Set::from_change(pane(2), ended, now));
    w.flush().expect("flushes");
    let loaded = w.store().load().expect("loads");
    assert_eq!(loaded.rows.keys().copied().collect::<Vec<_>>(), [pane(0)]);
}
