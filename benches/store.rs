//! Store benchmarks on a real file (WAL, `synchronous=NORMAL`):
//!
//! - 10,000 observations over 100 panes through the writer, flushed every
//!   1,000 observations (10 transactions of 100 coalesced rows each), and
//!   all at once (1 transaction);
//! - one flush of 100 pending panes;
//! - the start-up load of 10,000 rows, and the P5 line: `Store::load` of
//!   those rows handed to restore as core's input (`Loaded::into_stored`)
//!   against a plain rusqlite `SELECT` of the same columns into owned
//!   values, interleaved on the same open file;
//! - the dry run's read (`plan`: 500 recordings in 50 directories), opening
//!   the file read-only each time: `inspect_or_empty` + `into_stored`
//!   against a plain read-only rusqlite open and `SELECT` of the same
//!   columns (informational: P3's goal is the whole plan).
//!
//! Run: `cargo bench --bench store -- --quick`. Transactions issued are
//! printed once per writer benchmark from the writer's own counters.

#![allow(missing_docs)]

#[path = "support/ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use agent_resume_core::{AgentKind, PaneId, RecordedFlag, Recording, UnixMillis};
use agent_resume_store::{inspect_or_empty, load_or_empty, OpenOptions, Set, Store, Writer};
use criterion::{criterion_group, criterion_main, Criterion};

fn pane(n: u32) -> PaneId {
    let mut b = [0x22u8; 16];
    b[..4].copy_from_slice(&n.to_be_bytes());
    PaneId::from_bytes(b)
}

fn rec(n: u64, at: i64) -> Recording {
    Recording {
        agent: AgentKind::Claude,
        session_id: format!("00000000-0000-4000-8000-{:012x}", n % 1_000_000),
        flags: vec![
            RecordedFlag::value("--model", "opus"),
            RecordedFlag::value("--permission-mode", "plan"),
        ],
        program: None,
        cwd: PathBuf::from("/home/me/src/some-project"),
        observed_at: UnixMillis(at),
        config_home: None,
        dir: None,
    }
}

fn writer_benches(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("bench.sqlite3");
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    let mut at: i64 = 0;
    let mut g = c.benchmark_group("writer");

    let mut iterations = 0u64;
    let before = w.stats();
    g.bench_function("10k_observations_100_panes_flush_every_1000", |b| {
        b.iter(|| {
            iterations += 1;
            for i in 0..10_000u32 {
                at += 1;
                w.send(Set::save(pane(i % 100), rec(u64::from(i), at)));
                if (i + 1) % 1000 == 0 {
                    black_box(w.flush().expect("flushes"));
                }
            }
        });
    });
    report(
        "10k_observations_100_panes_flush_every_1000",
        before,
        w.stats(),
        iterations,
    );

    let mut iterations = 0u64;
    let before = w.stats();
    g.bench_function("10k_observations_100_panes_one_flush", |b| {
        b.iter(|| {
            iterations += 1;
            for i in 0..10_000u32 {
                at += 1;
                w.send(Set::save(pane(i % 100), rec(u64::from(i), at)));
            }
            black_box(w.flush().expect("flushes"));
        });
    });
    report(
        "10k_observations_100_panes_one_flush",
        before,
        w.stats(),
        iterations,
    );

    g.bench_function("flush_100_pending_panes", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                for p in 0..100u32 {
                    at += 1;
                    w.send(Set::save(pane(p), rec(u64::from(p), at)));
                }
                let start = Instant::now();
                black_box(w.flush().expect("flushes"));
                total += start.elapsed();
            }
            total
        });
    });
    g.finish();
}

fn report(
    name: &str,
    before: agent_resume_store::WriterStats,
    after: agent_resume_store::WriterStats,
    iterations: u64,
) {
    let n = iterations.max(1);
    eprintln!(
        "writer/{name}: per iteration {} observations, {} transactions, {} rows written",
        (after.sent - before.sent) / n,
        (after.transactions - before.transactions) / n,
        (after.written - before.written) / n,
    );
}

fn load_benches(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("bench.sqlite3");
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    for p in 0..10_000u32 {
        w.send(Set::save(pane(p), rec(u64::from(p), 1)));
    }
    w.flush().expect("flushes");
    drop(w);

    let mut g = c.benchmark_group("load");
    g.bench_function("10k_rows_open_and_load_or_empty", |b| {
        b.iter(|| {
            let loaded = load_or_empty(&path, &OpenOptions::default());
            assert_eq!(loaded.rows.len(), 10_000);
            black_box(loaded)
        });
    });
    let store = Store::open(&path).expect("opens");
    g.bench_function("10k_rows_load_only", |b| {
        b.iter(|| black_box(store.load().expect("loads")));
    });
    g.finish();

    let plain = rusqlite::Connection::open(&path).expect("opens");
    let select = || select_all(&plain);
    assert_eq!(select().len(), 10_000);
    let p = ratio::paired(
        31,
        3,
        || {
            black_box(store.load().expect("loads").into_stored());
        },
        || {
            black_box(select());
        },
    );
    ratio::report(
        "P5",
        "Store::load 10k recordings + into_stored",
        "rusqlite SELECT of the same columns into owned values",
        Some(1.3),
        &p,
    );
}

type PlainRow = (
    String,
    i64,
    String,
    String,
    Option<String>,
    Vec<u8>,
    i64,
    Option<Vec<u8>>,
);

/// Every row of `conn`'s `agent_sessions`, as owned values (the P5 floor's
/// query, on a connection of its own).
fn select_all(conn: &rusqlite::Connection) -> Vec<PlainRow> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT pane, agent, session_id, flags, program, cwd, observed_at, config_home \
             FROM agent_sessions",
        )
        .expect("prepares");
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
            ))
        })
        .expect("selects");
    rows.collect::<Result<_, _>>().expect("reads")
}

fn inspect_bench() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("bench.sqlite3");
    let mut w = Writer::new(Store::open(&path).expect("opens"));
    for p in 0..500u32 {
        let mut r = rec(u64::from(p), 1);
        r.cwd = PathBuf::from(format!("/home/me/src/project-{}", p % 50));
        w.send(Set::save(pane(p), r));
    }
    w.flush().expect("flushes");
    drop(w);
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let plain = || {
        let conn = rusqlite::Connection::open_with_flags(&path, flags).expect("opens");
        select_all(&conn)
    };
    assert_eq!(plain().len(), 500);
    let p = ratio::paired(
        31,
        20,
        || {
            let loaded = inspect_or_empty(&path, &OpenOptions::default());
            black_box(loaded.into_stored());
        },
        || {
            black_box(plain());
        },
    );
    ratio::report(
        "P3 (store read)",
        "inspect_or_empty of 500 recordings + into_stored, opening the file each time",
        "rusqlite read-only open + SELECT of the same columns into owned values",
        None,
        &p,
    );
}

fn inspect_benches(_: &mut Criterion) {
    inspect_bench();
}

criterion_group!(benches, writer_benches, load_benches, inspect_benches);
criterion_main!(benches);
