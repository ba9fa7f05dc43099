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
    let usage = || -> ! { panic!("usage: read-only DB | churn DB | take DB GO; got {args:?}") };
    let Some(role) = args.first().and_then(|r| r.to_str()) else {
        usage()
    };
    let paths: Vec<&Path> = args[1..].iter().map(Path::new).collect();
    match (role, paths.as_slice()) {
        ("read-only", [db]) => faults::check_read_only(db),
        ("churn", [db]) => faults::churn(db),
        ("take", [db, go]) => take(db, go),
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
