//! The deterministic 1,000-pane layout of the P3 goal, for the whole-process
//! bench (`benches/ratios.rs`): 10 windows × 5 tabs × 20 panes, 500 of them
//! with a recording over 50 directories; every fifth recording shares the
//! previous one's session (a duplicate claim), every twentieth names a
//! directory that is gone, half are fresh and half 13 h old. The same
//! generator for `benches/plan.rs`'s in-process bench.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent_resume_core::{
    AgentKind, Layout, PaneId, PaneSpec, RecordedFlag, Recording, Shell, Tab, UnixMillis, Window,
};

/// The plan's clock.
pub const NOW: UnixMillis = UnixMillis(1_800_000_000_000);
/// [`NOW`] as `plan --now` takes it.
pub const NOW_RFC3339: &str = "2027-01-15T08:00:00Z";
const HOUR: i64 = 3_600_000;

/// A layout, its recordings, and the directories that exist.
pub struct Scenario {
    pub layout: Layout,
    pub recordings: BTreeMap<PaneId, Recording>,
    pub dirs: Vec<PathBuf>,
}

pub fn pane(n: u32) -> PaneId {
    let mut b = [0x33u8; 16];
    b[..4].copy_from_slice(&n.to_be_bytes());
    PaneId::from_bytes(b)
}

fn session(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

pub fn recording(session_n: u32, cwd: PathBuf, observed_at: i64) -> Recording {
    Recording {
        agent: AgentKind::Claude,
        session_id: session(session_n),
        flags: vec![
            RecordedFlag::value("--model", "opus"),
            RecordedFlag::value("--permission-mode", "plan"),
        ],
        program: None,
        cwd,
        observed_at: UnixMillis(observed_at),
        config_home: None,
        dir: None,
    }
}

pub fn spec(n: u32, cwd: PathBuf) -> PaneSpec {
    PaneSpec {
        id: pane(n),
        cwd: Some(cwd),
        shared_viewer: false,
        shell: Some(Shell::Zsh),
        has_input: false,
        queued_command: false,
    }
}

/// 1,000 panes, 500 recordings, duplicate claims and gone directories, the
/// directories under `root`.
pub fn thousand(root: &Path) -> Scenario {
    let dirs: Vec<PathBuf> = (0..50).map(|i| root.join(format!("project-{i}"))).collect();
    let gone = root.join("gone");
    let mut recordings = BTreeMap::new();
    let mut windows = Vec::new();
    let mut n = 0u32;
    let mut k = 0u32;
    for w in 0..10 {
        let mut tabs = Vec::new();
        for _ in 0..5 {
            let mut panes = Vec::new();
            for _ in 0..20 {
                // Recorded panes (every other one) cycle over all 50.
                let dir = dirs[((n / 2) % 50) as usize].clone();
                if n.is_multiple_of(2) {
                    // Every fifth recording shares the previous one's session.
                    let s = if k % 5 == 1 { k - 1 } else { k };
                    let cwd = if k % 20 == 7 {
                        gone.clone()
                    } else {
                        dir.clone()
                    };
                    let at = if k.is_multiple_of(2) {
                        NOW.0 - 60_000
                    } else {
                        NOW.0 - 13 * HOUR
                    };
                    recordings.insert(pane(n), recording(s, cwd, at));
                    k += 1;
                }
                panes.push(spec(n, dir));
                n += 1;
            }
            tabs.push(Tab {
                focused_pane: panes.get(3).map(|p| p.id),
                panes,
            });
        }
        windows.push(Window {
            landing: w == 9,
            visible: w % 3 == 0,
            active_tab: w % 5,
            tabs,
        });
    }
    Scenario {
        layout: Layout {
            startup: true,
            windows,
        },
        recordings,
        dirs,
    }
}
