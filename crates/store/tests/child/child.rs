//! `agent-resume-store-test-child`: a helper process of the store's
//! integration tests, not part of agent-resume. It runs one role in a
//! process of its own, so a test can run it as another user, SIGKILL it
//! mid-batch, or race several of it:
//!
//! - `read-only DB`: the read-only checks of `tests/faults.rs` on `DB`.
//! - `churn DB`: writes batch after batch into `DB` forever, printing
//!   `committed K` after each.
//! - `take DB GO`: opens `DB`, waits for the file `GO` to appear, then takes
//!   pane 1's arm, printing `TAKE won` or `TAKE lost`.
//! - `read DB GO`: waits for `GO`, then reads `DB` as every reader does —
//!   inspected (`plan`, `recordings`, `status`, `tmux restore`) and opened
//!   for taking (`take`, `restore`) — over and over while another process
//!   creates it, until it has read the finished schema; any read error
//!   panics. Prints `READ ok N EMPTY` (N reads, EMPTY of them before the
//!   first migration committed).
//!
//! A role that returns prints `done ROLE`; a failed check panics (exit 101).

#[path = "../common/mod.rs"]
mod common;
mod faults;

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_resume_store::Store;

use common::pane;

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let usage = || -> ! {
        panic!("usage: read-only DB | churn DB | take DB GO | read DB GO; got {args:?}")
    };
    let Some(role) = args.first().and_then(|r| r.to_str()) else {
        usage()
    };
    let paths: Vec<&Path> = args[1..].iter().map(Path::new).collect();
    match (role, paths.as_slice()) {
        ("read-only", [db]) => faults::check_read_only(db),
        ("churn", [db]) => faults::churn(db),
        ("take", [db, go]) => take(db, go),
        ("read", [db, go]) => read(db, go),
        _ => usage(),
    }
    println!("done {role}");
}

/// Takes pane 1's arm once `go` exists, printing whether this process got it.
fn take(path: &Path, go: &Path) {
    let store = Store::open(path).expect("opens");
    let start = Instant::now();
    while !go.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "never started");
        std::thread::sleep(Duration::from_millis(1));
    }
    let got = store.take(pane(1)).expect("take does not fail");
    println!(
        "{}",
        if got.is_some() {
            "TAKE won"
        } else {
            "TAKE lost"
        }
    );
}

/// Reads `path` while another process creates it; see the module docs.
fn read(path: &Path, go: &Path) {
    use agent_resume_store::{migrate::LATEST, OpenOptions};
    let start = Instant::now();
    while !go.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "never started");
        std::hint::spin_loop();
    }
    let (mut reads, mut empty) = (0u32, 0u32);
    loop {
        assert!(start.elapsed() < Duration::from_secs(60), "never finished");
        let Some(store) = OpenOptions::default()
            .inspect(path)
            .expect("inspecting a database being created never fails")
        else {
            continue;
        };
        let version = store.schema_version();
        let loaded = store.load().expect("a database being created loads");
        store.counts().expect("a database being created counts");
        store.host_layout("tmux").expect("a trusted database");
        reads += 1;
        if version == 0 {
            assert!(loaded.rows.is_empty());
            empty += 1;
        }
        if reads % 4 == 0 {
            let taker = OpenOptions::default()
                .open_existing(path)
                .expect("opening a database being created never fails")
                .expect("the file exists");
            taker.load().expect("loads");
            taker.take(pane(1)).expect("take does not fail");
        }
        if version == LATEST {
            break;
        }
    }
    println!("READ ok {reads} {empty}");
}
