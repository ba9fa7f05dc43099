//! Races between processes (and between threads with their own
//! connections): `take` hands an arm out exactly once, and racing writers
//! never lose the newest observation.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};

use agent_resume_core::{AgentKind, PaneId, UnixMillis};
use agent_resume_store::{Armed, Set, Store, Writer};
use common::*;

/// The helper binary whose `take` role races in a process of its own.
const CHILD: &str = env!("CARGO_BIN_EXE_agent-resume-store-test-child");

fn armed(p: PaneId) -> Armed {
    Armed {
        pane: p,
        agent: AgentKind::Claude,
        session_id: session(1),
        argv: vec!["claude".into(), "--resume".into(), session(1)],
        armed_at: UnixMillis(1),
        observed_at: UnixMillis(1),
    }
}

fn spawn_taker(path: &Path, go: &Path) -> std::process::Child {
    Command::new(CHILD)
        .arg("take")
        .arg(path)
        .arg(go)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns")
}

#[test]
fn eight_processes_racing_take_on_one_pane_get_it_exactly_once() {
    for round in 0..3 {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = db(tmp.path());
        let go = tmp.path().join("go");
        Store::open(&path)
            .expect("opens")
            .arm(&armed(pane(1)))
            .expect("arms");
        let children: Vec<_> = (0..8).map(|_| spawn_taker(&path, &go)).collect();
        std::fs::write(&go, b"").expect("go");
        let mut won = 0;
        for c in children {
            let out = c.wait_with_output().expect("waits");
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            won += usize::from(stdout.contains("TAKE won"));
            assert!(
                stdout.contains("TAKE won") || stdout.contains("TAKE lost"),
                "{stdout}"
            );
        }
        assert_eq!(won, 1, "round {round}");
    }
}

#[test]
fn eight_readers_racing_the_creating_writer_read_an_empty_database_never_an_error() {
    // Readers spin from `go` on; the writer creates the file right after, so
    // readers open it between its creation and the first migration's
    // commit. Rounds repeat until that window was hit a few times.
    let mut empty = 0;
    for round in 0..40 {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = db(tmp.path());
        let go = tmp.path().join("go");
        let readers: Vec<_> = (0..8)
            .map(|_| {
                Command::new(CHILD)
                    .arg("read")
                    .arg(&path)
                    .arg(&go)
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawns")
            })
            .collect();
        std::fs::write(&go, b"").expect("go");
        std::thread::sleep(std::time::Duration::from_millis(round % 5));
        Store::open(&path).expect("the writer creates it");
        for r in readers {
            let out = r.wait_with_output().expect("waits");
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "round {round}: a reader failed:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let seen: u32 = stdout
                .split_whitespace()
                .nth(3)
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("READ ok N EMPTY: {stdout}"));
            empty += seen;
        }
        if empty >= 20 {
            return;
        }
    }
    panic!("the window before the first migration was hit only {empty} times in 40 rounds");
}

#[test]
fn eight_threads_with_their_own_connections_racing_take_get_it_exactly_once() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    for round in 0..20 {
        Store::open(&path)
            .expect("opens")
            .arm(&armed(pane(1)))
            .expect("arms");
        let barrier = Arc::new(Barrier::new(8));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let path = path.clone();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let store = Store::open(&path).expect("opens");
                    barrier.wait();
                    store.take(pane(1)).expect("take does not fail").is_some()
                })
            })
            .collect();
        let won = handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .filter(|w| *w)
            .count();
        assert_eq!(won, 1, "round {round}");
    }
}

#[test]
fn racing_writers_never_lose_the_newest_observation() {
    const WRITERS: i64 = 4;
    const PANES: u32 = 20;
    const STEPS: i64 = 150;
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = db(tmp.path());
    drop(Store::open(&path).expect("creates"));
    // Writer t sends, for each step i and pane p, a message at time
    // i * WRITERS + t (distinct across writers): a clear every seventh, a
    // save otherwise; it flushes every few steps.
    let message = |t: i64, i: i64, p: u32| -> Set {
        let at = i * WRITERS + t;
        if (i + t + i64::from(p)) % 7 == 0 {
            Set::clear(pane(p), UnixMillis(at))
        } else {
            Set::save(pane(p), rec(at as u64, at))
        }
    };
    let barrier = Arc::new(Barrier::new(WRITERS as usize));
    let handles: Vec<_> = (0..WRITERS)
        .map(|t| {
            let path = path.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mut w = Writer::new(Store::open(&path).expect("opens"));
                barrier.wait();
                for i in 0..STEPS {
                    for p in 0..PANES {
                        w.send(message(t, i, p));
                    }
                    if i % (t + 2) == 0 {
                        w.flush().expect("flushes");
                    }
                }
                w.flush().expect("flushes");
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic");
    }
    // Per pane, the newest message of all writers decides.
    let mut want = BTreeMap::new();
    for p in 0..PANES {
        let newest = (0..WRITERS)
            .map(|t| message(t, STEPS - 1, p))
            .max_by_key(Set::time)
            .expect("some");
        if let Some(r) = newest.recording {
            want.insert(pane(p), r);
        }
    }
    let got = recordings(
        &Store::open(&path)
            .expect("opens")
            .load()
            .expect("loads")
            .rows,
    );
    assert_eq!(got, want);
}
