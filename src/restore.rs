//! The restore path shared by `plan`, `restore`, `explain` and the tmux
//! host: load what the store holds (never failing), decide every pane with
//! core's pure plan, and — for `restore` — sweep, arm and report.

use std::collections::{BTreeMap, HashSet};

use std::io::Read;
use std::path::Path;

use agent_resume_core::{
    plan, Event, Layout, PaneId, PanePlan, PlanInput, PostureWindow, Stored, TakeKey,
    TelemetrySink, UnixMillis, Verdict,
};
use agent_resume_discover::file::{self, Kind};
use agent_resume_store::{inspect_or_empty, startup, Armed, OpenOptions, Startup, Ticket};
use anyhow::{Context, Result};

use crate::paths::Overrides;

pub use agent_resume_engine::fs::RealFs;

/// The largest layout file read.
const MAX_LAYOUT: u64 = 16 << 20;

/// Reads a layout file (`-` for stdin).
pub fn read_layout(path: &Path) -> Result<Layout> {
    let text = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_LAYOUT)
            .read_to_end(&mut bytes)
            .context("cannot read the layout from stdin")?;
        String::from_utf8(bytes).context("the layout on stdin is not UTF-8")?
    } else {
        // UTF-8 checked once over the whole text rather than string by
        // string inside the parser.
        file::read_text(path, Kind::Layout, MAX_LAYOUT)?
    };
    serde_json::from_str(&text)
        .context("layout is not a valid layout document (see docs/layout.md)")
}

/// A decided restore.
pub struct Decided {
    /// Whether the feature flag is on.
    pub enabled: bool,
    /// One decision per pane, in layout order.
    pub plans: Vec<PanePlan>,
    /// The recordings the plan saw.
    pub recordings: BTreeMap<PaneId, Stored>,
    /// What the user may want to know (printed on stderr).
    pub warnings: Vec<String>,
    /// The open store, when `restore` will arm.
    pub store: Option<agent_resume_store::Store>,
}

/// Loads and decides. With the flag off nothing is opened, swept or asked
/// of the filesystem. `sweep` runs the once-per-process start-up sweep,
/// keeping the rows of these panes.
pub fn decide(
    o: &Overrides,
    layout: &Layout,
    now: UnixMillis,
    enabled: bool,
    sweep: Option<&HashSet<PaneId>>,
) -> Result<Decided> {
    let mut warnings = Vec::new();
    let (recordings, store) = if enabled {
        let db = crate::paths::db(o)?;
        let options = OpenOptions::default();
        let st = if let Some(keep) = sweep {
            startup(&db, &options, keep)
        } else {
            Startup {
                store: None,
                loaded: inspect_or_empty(&db, &options),
                swept: false,
            }
        };
        warnings.extend(st.loaded.warnings.iter().map(ToString::to_string));
        (st.loaded.into_stored(), st.store)
    } else {
        (BTreeMap::new(), None)
    };
    // The agents' own stores and this machine's processes: asked only with
    // the feature on (the plan asks nothing before its start-up gates pass).
    let homes = agent_resume_discover::Homes::from_env(&|k| std::env::var_os(k));
    let probe = agent_resume_discover::StoreProbe::new(&homes);
    let plans = plan(&PlanInput {
        enabled,
        layout,
        recordings: &recordings,
        now,
        window: PostureWindow::DEFAULT,
        fs: &RealFs,
        sessions: enabled.then_some(&probe as &dyn agent_resume_core::SessionProbe),
    });
    Ok(Decided {
        enabled,
        plans,
        recordings,
        warnings,
        store,
    })
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

/// Arms every resumable pane and emits one event per skipped pane that had
/// a recording; a pane with a ticket in `tickets` is armed with it. Returns
/// how many panes were armed.
pub fn arm_and_report(
    decided: &Decided,
    now: UnixMillis,
    sink: &mut dyn TelemetrySink,
    tickets: Option<&Tickets>,
) -> usize {
    if !decided.enabled {
        return 0;
    }
    let mut armed = 0;
    for p in &decided.plans {
        match &p.verdict {
            Verdict::Resume(inv) => {
                let Some(Stored::Recording(rec)) = decided.recordings.get(&p.pane) else {
                    continue;
                };
                let Some(store) = &decided.store else {
                    continue;
                };
                let arm = Armed {
                    pane: p.pane,
                    agent: rec.agent,
                    session_id: rec.session_id.clone(),
                    argv: inv.argv.clone(),
                    armed_at: now,
                    observed_at: rec.observed_at,
                };
                match store.arm_with(&arm, tickets.and_then(|t| t.ticket(p.pane))) {
                    Ok(()) => armed += 1,
                    Err(e) => eprintln!(
                        "agent-resume: could not arm a pane ({e}); it comes back as a shell"
                    ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_layout_is_read_as_utf8_json_and_anything_else_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = dir.path().join("good.json");
        let id = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
        let text = format!(
            r#"{{"startup":true,"windows":[{{"tabs":[{{"panes":[{{"id":"{id}","cwd":"/tmp/caf\u00e9 é","shell":"zsh"}}]}}]}}]}}"#
        );
        fs::write(&good, &text).expect("writes");
        let layout = read_layout(&good).expect("a valid layout");
        let (spec, _) = layout.panes().next().expect("one pane");
        assert_eq!(spec.cwd.as_deref(), Some(Path::new("/tmp/café é")));
        // Invalid UTF-8 inside a string, and between values.
        let mut inside = text.clone().into_bytes();
        inside[text.find('é').expect("an é")] = 0xff;
        let mut between = text.clone().into_bytes();
        between.insert(between.len() - 1, 0xff);
        for (name, bytes) in [("inside", inside), ("between", between)] {
            let bad = dir.path().join(name);
            fs::write(&bad, &bytes).expect("writes");
            assert!(read_layout(&bad).is_err(), "{name}");
        }
    }
}
