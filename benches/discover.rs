//! Listing 10,000 sessions from the agents' own stores:
//!
//! - `fast`: [`Depth::FAST`] (at most 4 KiB of each file), the recent view;
//! - `full`: [`Depth::Full`] (every record), the search path;
//! - `floor_read_prefix`: the same files opened and their first 4 KiB read
//!   with plain `read` calls, nothing parsed — what the fast path cannot beat;
//! - `floor_walk_read_prefix`: the same, finding the files by walking the
//!   stores' directories first (`read_dir`, no parsing);
//! - `running_scan`: one `/proc` snapshot, as restore's `already_running`
//!   gate takes it.
//!
//! The stores (a temporary home, generated once): 5,000 Claude sessions of
//! 12 exchanges, 3,000 Codex rollouts (500 of them zstd), 1,000 Qwen chats and
//! 1,000 Pi sessions, over 100 directories.
//!
//! Run: `cargo bench --bench discover -- --warm-up-time 1 --measurement-time 10`.

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../crates/discover/tests/fixtures/mod.rs"]
mod fixtures;

use std::fs::File;
use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_resume_discover::running::Running;
use agent_resume_discover::{list, Depth, Homes};
use criterion::{criterion_group, criterion_main, Criterion};

const SESSIONS: usize = 10_000;

fn uuid(i: usize, version: char) -> String {
    format!("{:08x}-{:04x}-{version}000-8000-{:012x}", i, i % 0xffff, i)
}

fn generate(home: &Path) {
    let dirs: Vec<PathBuf> = (0..100)
        .map(|d| PathBuf::from(format!("/home/me/src/project-{d}")))
        .collect();
    for i in 0..SESSIONS {
        let cwd = &dirs[i % dirs.len()];
        let at = fixtures::NOW_MS - (i as i64) * 60_000;
        let prompt = format!("task {i}: make the build faster");
        match i % 10 {
            0..=4 => {
                fixtures::claude(home, cwd, &uuid(i, '4'), &prompt, at, 12);
            }
            5..=7 => {
                fixtures::codex(home, cwd, &uuid(i, '7'), &prompt, at, i % 6 == 5);
            }
            8 => {
                fixtures::qwen(home, cwd, &uuid(i, '4'), &prompt, at);
            }
            _ => {
                fixtures::pi(home, cwd, &uuid(i, '7'), &prompt, at);
            }
        }
    }
}

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

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    generate(&home);
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
