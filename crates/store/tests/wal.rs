//! The write-ahead log between processes: a writer that keeps it
//! (`OpenOptions::keep_wal`, the hooks) leaves its commits in `-wal` for the
//! next connection instead of checkpointing at close, and `-wal` and `-shm`
//! stay private and trusted; a connection that does not keep it checkpoints
//! at close and the database is one file again.

mod common;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use agent_resume_store::{OpenOptions, Set, Store, Writer, KEPT_WAL_PAGES};
use common::*;
use rusqlite::{Connection, OpenFlags};

fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Rows of `agent_sessions` in the main file alone (the log not read).
fn rows_in_main_file(path: &Path) -> i64 {
    let uri = format!("file:{}?immutable=1", path.display());
    let c = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .expect("opens the main file");
    c.query_row("SELECT count(*) FROM agent_sessions", [], |r| r.get(0))
        .expect("counts")
}

fn keeping() -> OpenOptions {
    OpenOptions {
        keep_wal: true,
        ..OpenOptions::default()
    }
}

#[test]
fn a_kept_log_outlives_its_writer_private_and_read_by_the_next_connection() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    drop(Store::open(&path).expect("creates and migrates"));

    for p in 0..3 {
        let mut w = Writer::new(keeping().open(&path).expect("opens"));
        w.send(Set::save(pane(p), rec(u64::from(p), 1)));
        w.flush().expect("flushes");
        drop(w);
        let wal = side(&path, "-wal");
        let shm = side(&path, "-shm");
        assert!(
            fs::metadata(&wal).expect("-wal is kept").len() > 0,
            "the commit stays in the log: no checkpoint at close"
        );
        for f in [&wal, &shm] {
            let m = fs::metadata(f).expect("kept");
            assert_eq!(m.mode() & 0o777, 0o600, "{}", f.display());
            assert_eq!(m.uid(), rustix::process::geteuid().as_raw());
        }
        assert_eq!(rows_in_main_file(&path), 0, "nothing checkpointed yet");
        // The next connection, as the next process would, reads every commit
        // through the log and trusts the files beside the database.
        let next = keeping().open(&path).expect("opens");
        assert!(next.trusted(), "{:?}", next.distrust());
        assert_eq!(
            recordings(&next.load().expect("loads").rows).len(),
            usize::try_from(p + 1).expect("small")
        );
    }

    let reader = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("opens read-only");
    let check: String = reader
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("checks");
    assert_eq!(check, "ok");
    drop(reader);

    // A connection that does not keep the log checkpoints it at close: the
    // database is one file again.
    drop(Store::open(&path).expect("opens"));
    assert_eq!(rows_in_main_file(&path), 3, "checkpointed into the file");
    assert!(!side(&path, "-wal").exists() && !side(&path, "-shm").exists());
}

#[test]
fn a_kept_log_is_checkpointed_by_the_commit_that_fills_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    drop(Store::open(&path).expect("creates and migrates"));
    // Each commit adds at least one page to the log, so this many commits
    // pass the limit at least once.
    for p in 0..KEPT_WAL_PAGES + 8 {
        let mut w = Writer::new(keeping().open(&path).expect("opens"));
        w.send(Set::save(pane(p), rec(u64::from(p), 1)));
        w.flush().expect("flushes");
    }
    assert!(
        rows_in_main_file(&path) > 0,
        "some commits were checkpointed"
    );
    let pages = fs::metadata(side(&path, "-wal")).expect("kept").len() / 4096;
    assert!(
        pages <= u64::from(KEPT_WAL_PAGES) * 2,
        "the log stays bounded: {pages} pages"
    );
    let store = Store::open(&path).expect("opens");
    assert_eq!(
        recordings(&store.load().expect("loads").rows).len(),
        usize::try_from(KEPT_WAL_PAGES + 8).expect("small")
    );
}
