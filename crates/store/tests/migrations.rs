//! Migrations: the checked-in schema, fixtures of older versions, and
//! refusal to downgrade.

mod common;

use std::path::{Path, PathBuf};

use agent_resume_store::migrate::{self, LATEST, MIGRATIONS};
use agent_resume_store::{OpenOptions, ReadOnly, RowState, Set, Store, WriteError, Writer};
use common::*;
use rusqlite::Connection;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bless() -> bool {
    std::env::var_os("AGENT_RESUME_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn schema_after_every_migration_matches_docs_schema_sql() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let empty = tmp.path().join("empty.sqlite3");
    migrate::migrate_file_to(&empty, LATEST).expect("every migration applies to an empty database");
    let got = migrate::schema_text_at(&empty).expect("schema text");
    let path = root().join("docs/schema.sql");
    if bless() {
        std::fs::write(&path, &got).expect("writes docs/schema.sql");
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == got,
        "docs/schema.sql is out of date (AGENT_RESUME_BLESS=1 rewrites it); it must read:\n\n{got}"
    );
}

#[test]
fn every_file_in_migrations_is_embedded_in_order() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("migrations"))
        .expect("migrations/")
        .map(|e| {
            e.expect("entry")
                .file_name()
                .into_string()
                .expect("utf-8 name")
        })
        .filter(|n| n.ends_with(".sql"))
        .collect();
    files.sort();
    let embedded: Vec<&str> = MIGRATIONS.iter().map(|m| m.name).collect();
    assert_eq!(files, embedded);
    for m in MIGRATIONS {
        let on_disk =
            std::fs::read_to_string(root().join("migrations").join(m.name)).expect("readable");
        assert_eq!(on_disk, m.sql, "{} differs from what is embedded", m.name);
        let stem = m.name.trim_end_matches(".sql");
        let mut parts = stem.splitn(3, '_');
        let (num, verb, object) = (parts.next(), parts.next(), parts.next());
        assert!(
            num.is_some_and(|n| n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()))
                && verb.is_some_and(|v| !v.is_empty())
                && object.is_some_and(|o| !o.is_empty()),
            "{} is not NNNN_verb_object.sql",
            m.name
        );
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Makes the fixture of schema version `v` (an older version of the file
/// holding two recordings), as the build that shipped that version wrote it.
fn make_fixture(path: &Path, v: u32) {
    let _ = std::fs::remove_file(path);
    migrate::migrate_file_to(path, v).expect("migrates to v");
    let conn = Connection::open(path).expect("opens");
    conn.execute_batch(&format!(
        "INSERT INTO agent_sessions (pane, agent, session_id, flags, program, cwd, observed_at, config_home) VALUES ('{}', 1, '{}', '[{{\"name\":\"--model\",\"value\":\"opus\"}}]', NULL, CAST('/home/me/project' AS BLOB), 1700000000000, NULL);
         INSERT INTO agent_sessions (pane, agent, session_id, flags, program, cwd, observed_at, config_home) VALUES ('{}', 1, '{}', '[]', '/usr/local/bin/claude', X'2F746D702FFF', 1700000000001, X'2F686F6D652F6D652F2E636C61756465');
         INSERT INTO agent_session_clears VALUES ('{}', 1700000000002);",
        pane(1),
        session(1),
        pane(2),
        session(2),
        pane(3)
    ))
    .expect("inserts");
    // From version 6 on (the last one with a single tmux snapshot), the
    // fixture holds the tmux layout snapshot too.
    if v >= 6 {
        conn.execute_batch(
            "INSERT INTO host_layouts VALUES ('tmux', '{\"sessions\":[]}', 1700000000003);",
        )
        .expect("inserts the layout");
    }
    conn.pragma_update(None, "journal_mode", "delete")
        .expect("standalone file");
}

#[test]
fn fixture_of_every_older_version_migrates_forward_with_rows_intact() {
    let mut seen = 0;
    for v in 1..LATEST {
        let fixture = fixtures().join(format!("v{v}.sqlite3"));
        if bless() && !fixture.exists() {
            make_fixture(&fixture, v);
        }
        assert!(
            fixture.is_file(),
            "missing fixture {} (AGENT_RESUME_BLESS=1 makes it)",
            fixture.display()
        );
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = db(tmp.path());
        std::fs::copy(&fixture, &path).expect("copies the fixture");
        assert_eq!(migrate::version_at(&path).expect("version"), v);

        let store = Store::open(&path).expect("migrates forward");
        assert_eq!(store.schema_version(), LATEST);
        assert!(store.read_only().is_none());
        let loaded = store.load().expect("loads");
        let recs = recordings(&loaded.rows);
        assert_eq!(recs.len(), 2, "v{v}: {loaded:?}");
        assert_eq!(recs[&pane(1)].session_id, session(1));
        assert_eq!(
            recs[&pane(2)].cwd.as_os_str().as_encoded_bytes(),
            b"/tmp/\xff"
        );
        assert_eq!(
            recs[&pane(2)].program.as_deref(),
            Some("/usr/local/bin/claude")
        );
        // The remembered clear still refuses an older save.
        let mut w = Writer::new(store);
        w.send(Set::save(pane(3), rec(3, 1_700_000_000_001)));
        w.flush().expect("flushes");
        assert!(!w.store().load().expect("loads").rows.contains_key(&pane(3)));
        seen += 1;
    }
    assert_eq!(seen, LATEST as usize - 1);
}

/// The last schema version with one tmux snapshot per machine (host "tmux").
const SINGLE_TMUX_SNAPSHOT: u32 = 6;

#[test]
fn the_single_tmux_snapshot_of_a_version_6_file_moves_to_the_default_servers_key() {
    let fixture = fixtures().join(format!("v{SINGLE_TMUX_SNAPSHOT}.sqlite3"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    std::fs::copy(&fixture, &path).expect("copies the fixture");
    assert_eq!(
        migrate::version_at(&path).expect("version"),
        SINGLE_TMUX_SNAPSHOT
    );

    let store = Store::open(&path).expect("migrates forward");
    assert_eq!(store.host_layout("tmux"), Ok(None), "the old key is gone");
    assert_eq!(
        store.host_layout("tmux:default"),
        Ok(Some((
            "{\"sessions\":[]}".to_owned(),
            agent_resume_core::UnixMillis(1_700_000_000_003)
        )))
    );
    assert_eq!(
        store.host_layouts("tmux:"),
        Ok(vec![(
            "tmux:default".to_owned(),
            agent_resume_core::UnixMillis(1_700_000_000_003)
        )])
    );
}

#[test]
fn database_from_a_newer_build_is_read_only_and_never_downgraded() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 3, 1);
    let future = LATEST + 1;
    {
        let conn = Connection::open(&path).expect("opens");
        conn.execute_batch(&format!(
            "ALTER TABLE agent_sessions ADD COLUMN tty TEXT; \
             CREATE TABLE future_thing (x INTEGER) STRICT; \
             PRAGMA user_version = {future};"
        ))
        .expect("a newer build's migration");
    }
    let store = Store::open(&path).expect("opens anyway");
    assert_eq!(
        store.read_only(),
        Some(ReadOnly::FutureSchema { found: future })
    );
    assert_eq!(store.schema_version(), future);
    let loaded = store.load().expect("recordings are still read");
    assert_eq!(loaded.rows.len(), 3);
    assert!(loaded
        .rows
        .values()
        .all(|r| matches!(r, RowState::Recording(_))));
    let mut w = Writer::new(store);
    w.send(Set::save(pane(9), rec(9, 9)));
    assert!(matches!(
        w.flush(),
        Err(WriteError::ReadOnly(ReadOnly::FutureSchema { .. }))
    ));
    drop(w);
    assert_eq!(migrate::version_at(&path).expect("version"), future);
}

#[test]
fn processes_opening_a_fresh_file_at_once_migrate_it_exactly_once() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || Store::open(&path).map(|s| s.schema_version()))
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("no panic").expect("opens"), LATEST);
    }
}

#[test]
fn inspecting_reports_the_files_own_version_and_never_migrates_it() {
    for v in [1, LATEST - 1, LATEST, LATEST + 1] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = db(tmp.path());
        {
            migrate::migrate_file_to(&path, v.min(LATEST)).expect("migrates to v");
            let conn = Connection::open(&path).expect("opens");
            conn.pragma_update(None, "user_version", v)
                .expect("sets the version");
        }
        let store = OpenOptions::default()
            .inspect(&path)
            .expect("opens")
            .expect("the file exists");
        assert_eq!(store.schema_version(), v, "v{v}");
        let why = if v > LATEST {
            ReadOnly::FutureSchema { found: v }
        } else {
            ReadOnly::Inspect
        };
        assert_eq!(store.read_only(), Some(why), "v{v}");
        drop(store);
        assert_eq!(migrate::version_at(&path).expect("version"), v, "v{v}");
    }
}

/// A line armed before take keys existed is still taken by its pane after
/// the migration, and no key takes it.
#[test]
fn a_line_armed_at_version_7_is_taken_by_its_pane_after_the_take_key_migration() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    migrate::migrate_file_to(&path, 7).expect("migrates to 7");
    let conn = Connection::open(&path).expect("opens");
    conn.execute(
        "INSERT INTO armed VALUES (?1, 1, 'sess', ' l', '[\"claude\"]', 5, 4)",
        [pane(1).to_string()],
    )
    .expect("arms the version 7 way");
    drop(conn);
    let store = Store::open(&path).expect("migrates forward");
    assert_eq!(store.schema_version(), LATEST);
    let ticket = agent_resume_store::Ticket {
        key: "0b9e4a1c-7d2f-4e8a-9c3b-5f6a7b8c9d0e"
            .parse()
            .expect("a key"),
        server: "default",
    };
    assert_eq!(store.take_ticket(ticket).expect("takes"), None);
    let taken = store.take(pane(1)).expect("takes").expect("the old line");
    assert_eq!(
        (taken.session_id.as_str(), taken.argv),
        ("sess", vec!["claude".to_owned()])
    );
}
