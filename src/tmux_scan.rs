//! Zero-config capture in `tmux save` ([`agent_resume_engine::scan`] for the tmux host).
//!
//! Run often (tmux hooks), so the common case is cheap: a pane whose
//! foreground process group is its own shell, and which had no agent at
//! the last save, costs one `/proc/<pid>/stat` and one `cmdline` read; a
//! pane whose agent process is the one seen last time and is already
//! recorded (or headless) costs one `stat`. Only the other panes are
//! scanned, with one read of the process table between them. The memory of
//! which pane had which agent is written only when it changed.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;

use agent_resume_core::{PaneId, UnixMillis};
use agent_resume_discover::process::{ProcFs, ProcessTable};
use agent_resume_store::{RowState, Store};
use agent_resume_tmux::{foreground_group, LivePane, Tmux};
use anyhow::Result;

use agent_resume_engine::scan::{
    exit_hint, homes, read_seen, runs_agent, scan, write_seen, Outcome, PaneRef, Seen, TMUX_SEEN,
};

/// Lines of scrollback read for an exit hint.
const HINT_HISTORY: u32 = 200;

/// Whether the process `pid` itself runs a verified agent.
fn is_agent(table: &dyn ProcessTable, pid: u32) -> bool {
    table.process(pid).is_some_and(|p| runs_agent(&p.argv))
}

/// Captures what the panes of `live` run, into the database at `db`; what
/// each pane ran is remembered per server (`host` is the server's snapshot
/// key), so saves of two servers never forget each other's agents.
pub fn capture(
    tmux: &Tmux,
    live: &[LivePane],
    db: &Path,
    host: &str,
    now: UnixMillis,
) -> Result<()> {
    let store = Store::open(db)?;
    let seen_key = format!("{TMUX_SEEN}:{host}");
    let prev = read_seen(&store, &seen_key);
    let table = ProcFs;
    let mut next: BTreeMap<PaneId, Seen> = BTreeMap::new();
    let mut ask: Vec<PaneRef> = Vec::new();
    let mut ended: Vec<(PaneId, &LivePane, Seen)> = Vec::new();
    for p in live {
        let (Some(pane), Some(pid)) = (p.stable_id, p.pid) else {
            continue;
        };
        let before = prev.get(&pane);
        let shell_in_front = foreground_group(pid) == Some(pid) && !is_agent(&table, pid);
        if shell_in_front {
            if let Some(seen) = before {
                // Suspended (job control) or sent to the background: it has
                // not ended, and prints no hint yet.
                let alive = table
                    .process(seen.pid)
                    .is_some_and(|q| q.id.start == seen.start);
                if alive {
                    next.insert(pane, seen.clone());
                } else {
                    ended.push((pane, p, seen.clone()));
                }
            }
            continue;
        }
        if let Some(seen) = before.filter(|s| s.recorded || s.headless) {
            let same = table
                .process(seen.pid)
                .is_some_and(|q| q.id.start == seen.start);
            if same {
                next.insert(pane, seen.clone());
                continue;
            }
        }
        ask.push(PaneRef { pane, pid });
    }
    if !ask.is_empty() {
        for r in scan(&table, &homes(), db, &ask, now)? {
            match r.agent {
                Some((agent, id)) => {
                    next.insert(
                        r.pane,
                        Seen {
                            agent: agent.as_str().to_owned(),
                            pid: id.pid,
                            start: id.start,
                            headless: r.outcome == Outcome::Headless,
                            recorded: matches!(
                                r.outcome,
                                Outcome::Recorded | Outcome::AlreadyRecorded
                            ),
                            invocation: r.invocation,
                            cwd: r.cwd.map(|c| c.into_os_string().into_vec()),
                            started: table.started_at(id).map(|t| t.0),
                        },
                    );
                }
                None => {
                    if let Some((seen, p)) = prev
                        .get(&r.pane)
                        .zip(live.iter().find(|l| l.stable_id == Some(r.pane)))
                    {
                        ended.push((r.pane, p, seen.clone()));
                    }
                }
            }
        }
    }
    let (ended_homes, mut listed) = (homes(), BTreeMap::new());
    for (pane, p, seen) in ended {
        if seen.headless {
            continue;
        }
        // A recording there at the last save and gone now was cleared by
        // shell integration (a clean exit): the hint does not bring it back.
        let held = matches!(store.row(pane), Ok(Some(RowState::Recording(_))));
        if seen.recorded && !held {
            continue;
        }
        if let Ok(text) = tmux.capture_text(&p.target, HINT_HISTORY) {
            exit_hint(db, &ended_homes, &mut listed, pane, &seen, &text, now)?;
        }
    }
    if next != prev {
        write_seen(&store, &seen_key, &next, now)?;
    }
    Ok(())
}
