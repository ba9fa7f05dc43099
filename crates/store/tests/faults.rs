//! Faults on real files. After each: opening and loading for restore never
//! errors, committed rows are intact (where the file still holds them), and
//! the loss is at most the in-flight batch.
//!
//! Read-only files and directories mean nothing to root, so when the tests
//! run as root those checks run in a child process (the package's
//! `agent-resume-store-test-child` binary) with the uid and gid of `nobody`.

mod common;
#[path = "child/faults.rs"]
mod roles;

use std::collections::HashSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_resume_core::UnixMillis;
use agent_resume_store::{
    load_or_empty, migrate::LATEST, startup, Fault, OpenOptions, ReadOnly, RowState, Set,
    SqliteError, Store, Warning, Writer,
};
use common::*;
use roles::{check_read_only, churn_rec};
use rusqlite::Connection;

const NOBODY: u32 = 65534;

/// The helper binary that runs a role of this file in a process of its own.
const CHILD: &str = env!("CARGO_BIN_EXE_agent-resume-store-test-child");

fn child_command(role: &str, path: &Path) -> Command {
    child_command_at(Path::new(CHILD), role, path)
}

fn child_command_at(exe: &Path, role: &str, path: &Path) -> Command {
    let mut c = Command::new(exe);
    c.arg(role).arg(path).stdin(Stdio::null());
    c
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Runs `role`'s check as an unprivileged user: here, or in a child with
/// `nobody`'s ids (after handing it the files) when the tests run as root.
fn check_unprivileged(role: &str, dir: &Path, path: &Path, here: fn(&Path)) {
    if !is_root() {
        here(path);
        return;
    }
    for entry in fs::read_dir(dir).expect("dir") {
        let p = entry.expect("entry").path();
        std::os::unix::fs::chown(&p, Some(NOBODY), Some(NOBODY)).expect("chown");
    }
    std::os::unix::fs::chown(dir, Some(NOBODY), Some(NOBODY)).expect("chown");
    // The build folder may not be reachable for `nobody` (a clone under
    // /root): run a link or copy of the child binary from the test's own
    // folder (after the chown above, which must not reach the build's file).
    let exe = dir.join("agent-resume-store-test-child");
    if fs::hard_link(CHILD, &exe).is_err() {
        fs::copy(CHILD, &exe).expect("copies the child binary");
        chmod(&exe, 0o755);
    }
    let out = child_command_at(&exe, role, path)
        .uid(NOBODY)
        .gid(NOBODY)
        .current_dir(dir)
        .output()
        .expect("spawns the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(&format!("done {role}")),
        "child {role} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn chmod(p: &Path, mode: u32) {
    fs::set_permissions(p, fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn read_only_file_still_loads_and_refuses_writes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    chmod(&path, 0o400);
    check_unprivileged("read-only", tmp.path(), &path, check_read_only);
}

#[test]
fn read_only_directory_still_loads_and_refuses_writes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    chmod(tmp.path(), 0o500);
    check_unprivileged("read-only", tmp.path(), &path, check_read_only);
    chmod(tmp.path(), 0o700);
}

#[test]
fn read_only_directory_refuses_writes_even_with_a_kept_log_beside_the_database() {
    // A hook leaves `-wal` and `-shm` (OpenOptions::keep_wal); with both
    // there SQLite could write without creating a file, yet a read-only
    // directory still means a read-only store.
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    let kept = OpenOptions {
        keep_wal: true,
        ..OpenOptions::default()
    };
    let mut w = Writer::new(kept.open(&path).expect("opens"));
    for p in 0..5 {
        w.send(Set::save(pane(p), rec(2, 2)));
    }
    w.flush().expect("flushes");
    drop(w);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    assert!(Path::new(&wal).is_file(), "the log was kept");
    chmod(tmp.path(), 0o500);
    check_unprivileged("read-only", tmp.path(), &path, check_read_only);
    chmod(tmp.path(), 0o700);
}

#[test]
fn corrupt_header_degrades_to_no_recordings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("opens");
    f.write_all(b"this is not sqlite, it is junk!!")
        .expect("overwrites");
    drop(f);

    let loaded = load_or_empty(&path, &OpenOptions::default());
    assert!(loaded.rows.is_empty());
    assert_eq!(loaded.warnings, [Warning::OpenFailed(Fault::NotADatabase)]);
    let s = startup(&path, &OpenOptions::default(), &HashSet::new());
    assert!(s.store.is_none() && s.loaded.rows.is_empty());
    let err = Store::open(&path).expect_err("capture reports it");
    assert_eq!(err.fault(), Fault::NotADatabase);
    assert!(path.is_file(), "the file is left for inspection");
}

#[test]
fn an_sqlite_failure_is_the_opaque_source_of_its_error_with_sqlites_own_message() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    fs::create_dir_all(path.parent().expect("a parent")).expect("creates");
    fs::write(&path, [b'j'; 4096]).expect("writes junk");
    let err = Store::open(&path).expect_err("not a database");
    assert_eq!(
        err.to_string(),
        "cannot open the database: file is not a database"
    );
    let source = std::error::Error::source(&err).expect("SQLite's error is the source");
    let sqlite = source
        .downcast_ref::<SqliteError>()
        .expect("behind the crate's own opaque type");
    assert_eq!(sqlite.fault(), Fault::NotADatabase);
    assert_eq!(sqlite.to_string(), "file is not a database");
}

#[test]
fn truncated_file_never_yields_a_row_that_was_not_committed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 400, 7);
    let len = fs::metadata(&path).expect("exists").len();
    assert!(len > 8 * 4096, "several pages: {len}");
    for keep in [len / 2, 4096, 100] {
        let f = fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opens");
        f.set_len(keep).expect("truncates");
        drop(f);
        let loaded = load_or_empty(&path, &OpenOptions::default());
        for (p, state) in &loaded.rows {
            let RowState::Recording(r) = state else {
                panic!("a damaged page produced an unreadable row for {p}")
            };
            assert_eq!(r, &rec(7, 7), "only committed values");
        }
        if loaded.rows.len() < 400 {
            assert!(!loaded.warnings.is_empty(), "a loss is reported: {keep}");
        }
        let every_pane: HashSet<_> = (0..400).map(pane).collect();
        let _ = startup(&path, &OpenOptions::default(), &every_pane);
    }
}

#[test]
fn truncated_to_zero_bytes_is_an_empty_database() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    fs::File::create(&path).expect("truncates");
    let loaded = load_or_empty(&path, &OpenOptions::default());
    assert_eq!(loaded, Default::default());
    write_panes(&path, 2, 2);
    assert_eq!(load_or_empty(&path, &OpenOptions::default()).rows.len(), 2);
}

#[test]
fn exclusive_lock_held_by_another_connection_costs_nothing_once_released() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    let quick = OpenOptions {
        busy_timeout: Duration::from_millis(100),
        ..OpenOptions::default()
    };

    // Another process holds the file in exclusive locking mode: nobody can
    // even read it.
    let locker = Connection::open(&path).expect("opens");
    locker
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM armed;")
        .expect("takes the lock");
    let loaded = load_or_empty(&path, &quick);
    assert!(loaded.rows.is_empty());
    assert!(
        matches!(
            loaded.warnings[..],
            [Warning::OpenFailed(Fault::Busy) | Warning::ReadFailed(Fault::Busy)]
        ),
        "{:?}",
        loaded.warnings
    );
    let s = startup(&path, &quick, &HashSet::new());
    assert!(s.loaded.rows.is_empty());
    assert_eq!(
        quick.open(&path).expect_err("capture reports it").fault(),
        Fault::Busy
    );
    drop(locker);

    // Another process holds the write lock: reads go on, the batch waits.
    let mut writer = Writer::new(quick.open(&path).expect("opens"));
    let locker = Connection::open(&path).expect("opens");
    locker
        .execute_batch("BEGIN EXCLUSIVE; DELETE FROM armed;")
        .expect("takes the write lock");
    assert_eq!(recordings(&load_or_empty(&path, &quick).rows).len(), 5);
    writer.send(Set::save(pane(7), rec(2, 2)));
    let err = writer.flush().expect_err("busy");
    assert_eq!(err.fault(), Fault::Busy);
    assert_eq!(writer.pending(), 1);
    drop(locker);

    writer
        .flush()
        .expect("the kept batch lands after the lock is gone");
    let loaded = load_or_empty(&path, &quick);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(recordings(&loaded.rows).len(), 6);
}

#[test]
fn disk_full_rolls_back_the_batch_and_keeps_committed_rows() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    let capped = OpenOptions {
        max_page_count: Some(12),
        ..OpenOptions::default()
    };
    let mut w = Writer::new(capped.open(&path).expect("opens"));
    for p in 100..400 {
        let mut r = rec(2, 2);
        r.cwd = PathBuf::from(format!("/{}", "d".repeat(1000)));
        w.send(Set::save(pane(p), r));
    }
    let err = w.flush().expect_err("the batch does not fit");
    assert_eq!(err.fault(), Fault::Full);
    assert_eq!(w.pending(), 300, "the whole batch stays pending");
    let loaded = load_or_empty(&path, &OpenOptions::default());
    assert_eq!(
        recordings(&loaded.rows).len(),
        5,
        "committed rows intact, nothing partial"
    );
    // Small writes still fit.
    let mut small = Writer::new(capped.open(&path).expect("opens"));
    small.send(Set::clear(pane(0), UnixMillis(5)));
    small.flush().expect("fits");
    assert_eq!(load_or_empty(&path, &OpenOptions::default()).rows.len(), 4);
}

#[test]
fn future_schema_version_loads_for_restore_and_is_never_written() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    write_panes(&path, 5, 1);
    Connection::open(&path)
        .expect("opens")
        .pragma_update(None, "user_version", LATEST + 5)
        .expect("a newer build");
    let loaded = load_or_empty(&path, &OpenOptions::default());
    assert_eq!(recordings(&loaded.rows).len(), 5);
    assert_eq!(
        loaded.warnings,
        [Warning::ReadOnly(ReadOnly::FutureSchema {
            found: LATEST + 5
        })]
    );
    let s = startup(&path, &OpenOptions::default(), &HashSet::new());
    assert_eq!(recordings(&s.loaded.rows).len(), 5, "not swept either");
}

#[test]
fn missing_parent_directory_is_created_for_capture_and_ignored_by_restore() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("a/b/recordings.sqlite3");
    assert_eq!(
        load_or_empty(&path, &OpenOptions::default()),
        Default::default()
    );
    let s = startup(&path, &OpenOptions::default(), &HashSet::new());
    assert!(s.store.is_none() && s.loaded == Default::default());
    assert!(!tmp.path().join("a").exists(), "restore creates nothing");
    write_panes(&path, 1, 1);
    assert_eq!(load_or_empty(&path, &OpenOptions::default()).rows.len(), 1);

    // A parent that cannot be created at all.
    fs::write(tmp.path().join("file"), b"").expect("a file");
    let path = tmp.path().join("file/recordings.sqlite3");
    assert_eq!(
        Store::open(&path).expect_err("cannot create").fault(),
        Fault::CannotOpen
    );
    assert_eq!(
        load_or_empty(&path, &OpenOptions::default()),
        Default::default()
    );
}

#[test]
fn writer_killed_mid_batch_loses_at_most_that_batch() {
    for round in 0..3u64 {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = db(tmp.path());
        let mut child = child_command("churn", &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawns the writer");
        let stdout = child.stdout.take().expect("piped");
        let mut last = 0u64;
        let start = Instant::now();
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("utf-8");
            if let Some(k) = line.strip_prefix("committed ") {
                last = k.parse().expect("a number");
                if last >= 2 + round {
                    break;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the writer is stuck"
            );
        }
        // Land inside the next batch's transaction (each takes well over 30 ms).
        std::thread::sleep(Duration::from_millis(10 + 10 * round));
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");

        let loaded = load_or_empty(&path, &OpenOptions::default());
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let recs = recordings(&loaded.rows);
        assert_eq!(recs.len(), 2000);
        let batches: HashSet<u64> = recs
            .values()
            .map(|r| session_number(&r.session_id))
            .collect();
        assert_eq!(
            batches.len(),
            1,
            "a batch is never half-applied: {batches:?}"
        );
        let k = batches.into_iter().next().expect("one");
        assert!(recs.values().all(|r| *r == churn_rec(k)), "rows are whole");
        assert!(k >= last, "a committed batch ({last}) was lost: found {k}");

        // And the file takes writes again.
        let mut w = Writer::new(Store::open(&path).expect("reopens"));
        w.send(Set::clear(pane(0), UnixMillis(i64::MAX)));
        w.flush().expect("writes after recovery");
    }
}
