//! Listing 10,000 sessions from the agents' own stores:
//!
//! - the P6 `ratio=` lines, paired and interleaved
//!   (`benches/support/ratio.rs`): `agent-resume sessions --all --json` as
//!   a whole process (the bench profile's binary, output to `/dev/null`)
//!   against a single-threaded walk of the stores reading each file's first
//!   4 KiB; the same path against that walk and read on two scoped threads;
//!   the two-thread floor against the one-thread floor; the CPU time (user +
//!   system) of the whole process against that of the one-thread floor; and the in-process
//!   [`list`] at [`Depth::FAST`] against the one-thread floor;
//! - `fast`: [`Depth::FAST`] (at most 4 KiB of each file), the recent view;
//! - `full`: [`Depth::Full`] (every record), the search path;
//! - `floor_read_prefix`: the same files opened and their first 4 KiB read
//!   with plain `read` calls, nothing parsed — what the fast path cannot beat;
//! - `floor_walk_read_prefix`: the same, finding the files by walking the
//!   stores' directories first (`read_dir`, no parsing);
//! - `running_scan`: one `/proc` snapshot, as restore's `already_running`
//!   gate takes it.
//!
//! The stores (a temporary home, generated once, `benches/support/sessions.rs`):
//! 5,000 Claude sessions of 12 exchanges, 3,000 Codex rollouts (500 of them
//! zstd), 1,000 Qwen chats and 1,000 Pi sessions, over 100 directories.
//!
//! Run: `cargo bench --bench discover -- --warm-up-time 1 --measurement-time 10`
//! (`AGENT_RESUME_BENCH_P6_ONLY=1` prints the P6 lines and stops;
//! `AGENT_RESUME_BENCH_BIN=<path>` times that build of `agent-resume`;
//! `AGENT_RESUME_BENCH_WRITE_HOME=<dir>` only writes the stores under `<dir>`,
//! for profiling the listing outside the bench).

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "support/cpu.rs"]
mod cpu;
#[path = "../crates/discover/tests/fixtures/mod.rs"]
mod fixtures;
#[path = "support/ratio.rs"]
mod ratio;
#[path = "support/sessions.rs"]
mod sessions;

use std::fs::File;
use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use agent_resume_discover::running::Running;
use agent_resume_discover::{list, Depth, Homes};
use criterion::{criterion_group, criterion_main, Criterion};
use sessions::SESSIONS;

fn read_prefixes(paths: &[PathBuf], buf: &mut [u8]) -> usize {
    let mut total = 0;
    for p in paths {
        let mut f = File::open(p).unwrap();
        let mut got = 0;
        while got < buf.len() {
            match f.read(&mut buf[got..]).unwrap() {
                0 => break,
                n => got += n,
            }
        }
        total += got;
    }
    total
}

fn walk(dir: &Path, buf: &mut [u8]) -> usize {
    let mut total = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            total += walk(&e.path(), buf);
        } else {
            total += read_prefixes(&[e.path()], buf);
        }
    }
    total
}

/// The walk and read of [`walk`] on two scoped threads sharing one queue of
/// directories: the floor a listing on this 2-core machine could reach.
fn walk_two_threads(root: &Path) -> usize {
    // (directories not yet listed, threads listing one now)
    let queue = Mutex::new((vec![root.to_path_buf()], 0usize));
    let ready = Condvar::new();
    let worker = || {
        let mut buf = vec![0u8; 4096];
        let mut total = 0;
        loop {
            let dir = {
                let mut q = queue.lock().unwrap();
                loop {
                    if let Some(d) = q.0.pop() {
                        q.1 += 1;
                        break Some(d);
                    }
                    if q.1 == 0 {
                        break None;
                    }
                    q = ready.wait(q).unwrap();
                }
            };
            let Some(dir) = dir else {
                ready.notify_all();
                return total;
            };
            let mut subdirs = Vec::new();
            for e in std::fs::read_dir(&dir).unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    subdirs.push(e.path());
                } else {
                    total += read_prefixes(&[e.path()], &mut buf);
                }
            }
            let mut q = queue.lock().unwrap();
            q.0.extend(subdirs);
            q.1 -= 1;
            ready.notify_all();
        }
    };
    std::thread::scope(|s| {
        let other = s.spawn(worker);
        worker() + other.join().unwrap()
    })
}

/// The P6 lines: the whole `sessions --all --json` process and the
/// in-process listing against the walk-and-read floors, interleaved.
fn p6(home: &Path) {
    const ROUNDS: usize = 31;
    // Another build of the binary may be timed instead, for a before/after
    // pair in one session.
    let bin = std::env::var_os("AGENT_RESUME_BENCH_BIN")
        .map_or_else(|| env!("CARGO_BIN_EXE_agent-resume").into(), PathBuf::from);
    let empty = home.with_file_name("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let sessions = || {
        let status = Command::new(&bin)
            .args(["sessions", "--all", "--json"])
            .env_clear()
            .env("HOME", home)
            .env("AGENT_RESUME_DB", empty.join("recordings.sqlite3"))
            .env("AGENT_RESUME_CONFIG", empty.join("config.toml"))
            .env("TZ", "UTC")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "sessions --all --json failed: {status}");
    };
    let mut buf = vec![0u8; 4096];
    assert_eq!(
        walk(home, &mut buf),
        walk_two_threads(home),
        "both floors read the same bytes"
    );
    let one_thread = "single-thread walk + first 4 KiB of each file";
    let whole = "agent-resume sessions --all --json, 10k files, whole process";
    let p = ratio::paired(ROUNDS, 1, sessions, || {
        black_box(walk(home, &mut buf));
    });
    ratio::report("P6", whole, one_thread, Some(1.3), &p);
    let p = ratio::paired(ROUNDS, 1, sessions, || {
        black_box(walk_two_threads(home));
    });
    ratio::report(
        "P6",
        whole,
        "the same walk + reads on two scoped threads",
        None,
        &p,
    );
    let p = ratio::paired(
        ROUNDS,
        1,
        || {
            black_box(walk_two_threads(home));
        },
        || {
            black_box(walk(home, &mut buf));
        },
    );
    ratio::report(
        "P6",
        "two-thread walk + first 4 KiB of each file",
        one_thread,
        None,
        &p,
    );
    // CPU time, which a busy second core does not hide: the process's own
    // (every thread) against the in-process floor's.
    let p = cpu::paired_clocks(
        ROUNDS,
        1,
        (cpu::children, cpu::this_process),
        sessions,
        || {
            black_box(walk(home, &mut buf));
        },
    );
    ratio::report(
        "P6",
        "agent-resume sessions --all --json, 10k files, whole process, CPU time (user + system)",
        "single-thread walk + first 4 KiB of each file, CPU time",
        None,
        &p,
    );
    let homes = Homes::under(home);
    let p = ratio::paired(
        ROUNDS,
        1,
        || {
            black_box(list(&homes, &[], Depth::FAST));
        },
        || {
            black_box(walk(home, &mut buf));
        },
    );
    ratio::report(
        "P6",
        "list(Depth::FAST), 10k files, in process",
        one_thread,
        None,
        &p,
    );
}

fn bench(c: &mut Criterion) {
    // The stores alone, kept, for profiling the listing outside the bench.
    if let Some(home) = std::env::var_os("AGENT_RESUME_BENCH_WRITE_HOME") {
        sessions::generate(Path::new(&home), SESSIONS);
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    sessions::generate(&home, SESSIONS);
    p6(&home);
    if std::env::var_os("AGENT_RESUME_BENCH_P6_ONLY").is_some() {
        return;
    }
    let homes = Homes::under(&home);
    let fast = list(&homes, &[], Depth::FAST);
    let full = list(&homes, &[], Depth::Full);
    assert_eq!(fast.sessions.len(), SESSIONS);
    assert_eq!(full.sessions.len(), SESSIONS);
    let on_disk: u64 = fast
        .sessions
        .iter()
        .map(|s| std::fs::metadata(&s.path).unwrap().len())
        .sum();
    eprintln!(
        "discover: {} sessions, {:.1} MiB on disk; fast read {:.1} MiB, full read {:.1} MiB",
        fast.sessions.len(),
        on_disk as f64 / 1048576.0,
        fast.stats.bytes_read as f64 / 1048576.0,
        full.stats.bytes_read as f64 / 1048576.0,
    );
    let paths: Vec<PathBuf> = fast.sessions.iter().map(|s| s.path.clone()).collect();
    let mut g = c.benchmark_group("discover_10k");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("fast", |b| {
        b.iter(|| black_box(list(&homes, &[], Depth::FAST)));
    });
    g.bench_function("full", |b| {
        b.iter(|| black_box(list(&homes, &[], Depth::Full)));
    });
    let mut buf = vec![0u8; 4096];
    g.bench_function("floor_read_prefix", |b| {
        b.iter(|| black_box(read_prefixes(&paths, &mut buf)));
    });
    g.bench_function("floor_walk_read_prefix", |b| {
        b.iter(|| black_box(walk(&home, &mut buf)));
    });
    g.finish();
    let mut g = c.benchmark_group("discover");
    g.bench_function("running_scan", |b| {
        b.iter(|| black_box(Running::scan(&homes)));
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
