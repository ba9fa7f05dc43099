//! Shared helpers of the store's integration tests.
#![allow(dead_code, missing_docs)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentKind, PaneId, RecordedFlag, Recording, UnixMillis};
use agent_resume_store::{RowState, Set, Store, Writer};

pub fn pane(n: u32) -> PaneId {
    let mut b = [0x11u8; 16];
    b[..4].copy_from_slice(&n.to_be_bytes());
    PaneId::from_bytes(b)
}

/// A claude-shaped session id carrying `n`.
pub fn session(n: u64) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

pub fn rec(id: u64, at: i64) -> Recording {
    Recording {
        agent: AgentKind::Claude,
        session_id: session(id),
        flags: vec![RecordedFlag::value("--model", "opus")],
        program: None,
        cwd: PathBuf::from("/home/me/project"),
        observed_at: UnixMillis(at),
        config_home: None,
        dir: None,
    }
}

pub fn db(dir: &Path) -> PathBuf {
    dir.join("recordings.sqlite3")
}

/// Writes `n` panes (one recording each, id `k`, observed at `k`) in one flush.
pub fn write_panes(path: &Path, n: u32, k: u64) {
    let mut w = Writer::new(Store::open(path).expect("opens"));
    for p in 0..n {
        w.send(Set::save(pane(p), rec(k, k as i64)));
    }
    w.flush().expect("flushes");
}

/// The readable recordings of a load.
pub fn recordings(rows: &BTreeMap<PaneId, RowState>) -> BTreeMap<PaneId, Recording> {
    rows.iter()
        .filter_map(|(p, s)| s.recording().map(|r| (*p, r.clone())))
        .collect()
}

/// The id number a test session id carries.
pub fn session_number(id: &str) -> u64 {
    u64::from_str_radix(&id[24..], 16).expect("a test session id")
}
