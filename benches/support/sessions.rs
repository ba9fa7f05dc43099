//! The session stores the discovery bench lists, generated into a temporary
//! home: deterministic names, records and modification times, so the
//! listing of them is the same bytes on every run (tests/listing_output.rs
//! compares it with a committed copy). Expects a `fixtures` module at the
//! crate root (`crates/discover/tests/fixtures/mod.rs`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::fixtures;

/// How many sessions the bench lists.
pub const SESSIONS: usize = 10_000;

fn uuid(i: usize, version: char) -> String {
    format!("{:08x}-{:04x}-{version}000-8000-{:012x}", i, i % 0xffff, i)
}

/// Writes `n` sessions under `home`: of every ten, five Claude sessions of
/// 12 exchanges, three Codex rollouts (one in six of those zstd), one Qwen
/// chat and one Pi session, over 100 directories, a minute apart.
pub fn generate(home: &Path, n: usize) {
    let dirs: Vec<PathBuf> = (0..100)
        .map(|d| PathBuf::from(format!("/home/me/src/project-{d}")))
        .collect();
    for i in 0..n {
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
