//! The restore sequence every host runs, written once over any
//! [`Persistence`]: load what it holds (never failing), sweep the rows of
//! panes the layout does not restore, decide every pane with core's pure
//! plan, then arm each resumable pane and report one telemetry event per
//! pane that had a recording ([`plan_over`], [`arm_and_report_over`]).
//!
//! `decide` and `arm_and_report` (feature `sqlite`) are that sequence
//! over the CLI's database.
//!
//! With the feature off nothing is opened, swept, asked of the filesystem
//! or reported.
//!
//! # Example
//!
//! ```
//! use agent_resume_core::{Event, Layout, TelemetrySink, UnixMillis};
//! use agent_resume_engine::fs::RealFs;
//! use agent_resume_engine::persistence::Memory;
//! use agent_resume_engine::restore::{arm_and_report_over, plan_over};
//!
//! struct Count(usize);
//! impl TelemetrySink for Count {
//!     fn emit(&mut self, _: &Event) {
//!         self.0 += 1;
//!     }
//! }
//! let layout = Layout { startup: true, windows: vec![] };
//! let mut memory = Memory::new();
//! let planned = plan_over(Some(&mut memory), &layout, UnixMillis(0), true, None, &RealFs, None);
//! let mut sink = Count(0);
//! let armed = arm_and_report_over(&planned, &mut memory, UnixMillis(0), &mut sink, None);
//! assert_eq!((armed.armed, sink.0), (0, 0));
//! ```

use std::collections::{BTreeMap, HashSet};

use agent_resume_core::{
    plan, Event, FsProbe, Layout, PaneId, PanePlan, PlanInput, PostureWindow, SessionProbe, Stored,
    TakeKey, TelemetrySink, UnixMillis, Verdict,
};

use crate::persistence::{Arm, PersistError, Persistence, Ticket, Warning};

/// A restore decided over a persistence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// Whether the feature flag is on.
    pub enabled: bool,
    /// One decision per pane, in layout order.
    pub plans: Vec<PanePlan>,
    /// The recordings the plan saw.
    pub recordings: BTreeMap<PaneId, Stored>,
    /// What the user may want to know.
    pub warnings: Vec<Warning>,
}

/// Loads from `persistence` (none: no recordings), sweeps the rows of
/// panes not in `sweep` when asked, and decides every pane of `layout`.
/// With the flag off nothing is loaded, swept or asked of `fs` or
/// `sessions`.
pub fn plan_over(
    persistence: Option<&mut dyn Persistence>,
    layout: &Layout,
    now: UnixMillis,
    enabled: bool,
    sweep: Option<&HashSet<PaneId>>,
    fs: &dyn FsProbe,
    sessions: Option<&dyn SessionProbe>,
) -> Planned {
    let mut warnings = Vec::new();
    let mut recordings = BTreeMap::new();
    if let (true, Some(p)) = (enabled, persistence) {
        let loaded = p.load();
        warnings.extend(loaded.warnings);
        recordings = loaded.recordings;
        if let Some(keep) = sweep {
            if let Err(w) = p.sweep(keep) {
                warnings.push(w);
            }
        }
    }
    let plans = plan(&PlanInput {
        enabled,
        layout,
        recordings: &recordings,
        now,
        window: PostureWindow::DEFAULT,
        fs,
        sessions: if enabled { sessions } else { None },
    });
    Planned {
        enabled,
        plans,
        recordings,
        warnings,
    }
}

/// What arming did.
#[derive(Debug, Default)]
pub struct ArmReport {
    /// Panes armed.
    pub armed: usize,
    /// Panes that could not be armed (they come back as a shell), and why.
    pub failed: Vec<(PaneId, PersistError)>,
}

/// Arms every resumable pane of `planned` in `persistence` and emits one
/// event per skipped pane that had a recording; a pane with a ticket in
/// `tickets` is armed with it.
pub fn arm_and_report_over(
    planned: &Planned,
    persistence: &mut dyn Persistence,
    now: UnixMillis,
    sink: &mut dyn TelemetrySink,
    tickets: Option<&Tickets>,
) -> ArmReport {
    let mut report = ArmReport::default();
    report.armed = arm_each(
        planned.enabled,
        &planned.plans,
        &planned.recordings,
        now,
        sink,
        &mut |arm: Arm| {
            let ticket = tickets.and_then(|t| t.ticket(arm.pane));
            let pane = arm.pane;
            persistence
                .arm(&arm, ticket)
                .map(|()| true)
                .map_err(|e| (pane, e))
        },
        &mut |failure| report.failed.push(failure),
    );
    report
}

/// The arming loop, once for every store: `arm` arms one pane (`false`:
/// there is nowhere to arm); `failed` hears of each pane it could not.
fn arm_each<E>(
    enabled: bool,
    plans: &[PanePlan],
    recordings: &BTreeMap<PaneId, Stored>,
    now: UnixMillis,
    sink: &mut dyn TelemetrySink,
    arm: &mut dyn FnMut(Arm) -> Result<bool, E>,
    failed: &mut dyn FnMut(E),
) -> usize {
    if !enabled {
        return 0;
    }
    let mut armed = 0;
    for p in plans {
        match &p.verdict {
            Verdict::Resume(inv) => {
                let Some(Stored::Recording(rec)) = recordings.get(&p.pane) else {
                    continue;
                };
                let line = Arm {
                    pane: p.pane,
                    agent: rec.agent,
                    session_id: rec.session_id.clone(),
                    argv: inv.argv.clone(),
                    armed_at: now,
                    observed_at: rec.observed_at,
                };
                match arm(line) {
                    Ok(true) => armed += 1,
                    Ok(false) => {}
                    Err(e) => failed(e),
                }
            }
            Verdict::Skip(_) => {
                if let Some(event) = Event::for_skip(p) {
                    sink.emit(&event);
                }
            }
        }
    }
    armed
}

/// The take keys of the panes a restore is about to create on one tmux
/// server: each is armed with its pane's line and handed to that pane's
/// first process (`AGENT_RESUME_TAKE`), whose `take` finds the line by it
/// without asking the server which pane it is.
pub struct Tickets {
    /// The server's key, as `tmux servers` shows it.
    pub server: String,
    /// One fresh random key per pane.
    pub keys: BTreeMap<PaneId, TakeKey>,
}

impl Tickets {
    /// A fresh random key for each of `panes`.
    pub fn fresh(server: String, panes: impl IntoIterator<Item = PaneId>) -> Tickets {
        Tickets {
            server,
            keys: panes
                .into_iter()
                .map(|p| (p, TakeKey::from_bytes(*uuid::Uuid::new_v4().as_bytes())))
                .collect(),
        }
    }

    fn ticket(&self, pane: PaneId) -> Option<Ticket<'_>> {
        self.keys.get(&pane).map(|key| Ticket {
            key: *key,
            server: &self.server,
        })
    }
}

#[cfg(feature = "sqlite")]
mod host;
#[cfg(feature = "sqlite")]
pub mod log;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(feature = "sqlite")]
pub mod watch;
#[cfg(feature = "sqlite")]
pub use host::{run, Report, RunError, RunOptions, Telemetry};
#[cfg(feature = "sqlite")]
pub use sqlite::{arm_and_report, decide, queue, Decided};
