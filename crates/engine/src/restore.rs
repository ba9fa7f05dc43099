//! The restore sequence every host runs, written once: load what the store
//! holds (never failing), sweep the rows of panes the layout does not
//! restore, decide every pane with core's pure plan, then arm each
//! resumable pane and report one telemetry event per pane that had a
//! recording.
//!
//! [`run`] is that sequence over any [`Host`]: the host's restore model,
//! the plan, arming and telemetry, then the host's recreate and dispatch.
//! It returns what the CLI (or a terminal) shows; it prints nothing itself
//! but through the `say` callback it is handed.
//!
//! With the feature off nothing is opened, swept, asked of the filesystem
//! or reported.

use std::collections::{BTreeMap, HashSet};

use agent_resume_core::{
    plan, Event, Layout, PaneId, PanePlan, PlanInput, PostureWindow, Stored, TakeKey,
    TelemetrySink, UnixMillis, Verdict,
};
use agent_resume_store::{inspect_or_empty, startup, Armed, OpenOptions, Startup, Ticket};

use agent_resume_core::{Gate, Shell};

use crate::fs::RealFs;
use crate::host::{take_command, Dispatched, Fate, Host, HostError, Model, Place};
use crate::paths::{NoBase, Overrides};

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
/// of the filesystem. `sweep` runs the start-up sweep, keeping the rows of
/// these panes.
pub fn decide(
    o: &Overrides,
    layout: &Layout,
    now: UnixMillis,
    enabled: bool,
    sweep: Option<&HashSet<PaneId>>,
) -> Result<Decided, NoBase> {
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

/// How a restore runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Whether missing panes are made ([`Host::recreate`]).
    pub recreate: bool,
    /// Plan only: nothing armed, swept, reported, created or typed.
    pub dry_run: bool,
    /// The clock.
    pub now: UnixMillis,
    /// This program, quoted for a shell, for the typed take command
    /// ([`crate::host::this_program`]).
    pub program: String,
}

/// What a restore decided and did, for the caller to show.
#[derive(Debug)]
pub struct Report {
    /// The feature gate, as decided; with it off nothing else happened.
    pub gate: Gate,
    /// Whether the host had anything saved ([`Model::saved`]).
    pub saved: bool,
    /// Every planned pane (dead ones included), in layout order.
    pub plans: Vec<PanePlan>,
    /// Where each planned pane sits.
    pub places: std::collections::HashMap<PaneId, Place>,
    /// Why nothing is restored, when `plans` is empty.
    pub nothing: String,
    /// How many panes were armed.
    pub armed: usize,
    /// The session to attach to, when the host made one.
    pub attach: Option<String>,
}

impl Report {
    fn stop(gate: Gate, model: Model) -> Report {
        Report {
            gate,
            saved: model.saved,
            plans: Vec::new(),
            places: model.places,
            nothing: model.nothing,
            armed: 0,
            attach: None,
        }
    }
}

/// Why a restore could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The host failed.
    #[error(transparent)]
    Host(#[from] HostError),
    /// A base directory could not be located.
    #[error(transparent)]
    Paths(#[from] NoBase),
}

/// Where a restore's telemetry goes.
pub enum Telemetry<'a> {
    /// The telemetry file the CLI and `agent-resume stats` share.
    File,
    /// The host's own sink.
    Sink(&'a mut dyn TelemetrySink),
}

/// The restore sequence over any host, written once: the gate, the host's
/// restore model, the plan (load and sweep), then — unless a dry run —
/// arming and telemetry before any pane exists, the host's recreate, and
/// the take command typed into each resumable pane already there.
///
/// A pane whose fate is [`Fate::Dead`] is planned and returned but never
/// armed or reported. Notes for the user (untrusted rows, a pane that was
/// not made, nothing typed) go to `say` as they happen.
pub fn run(
    host: &mut dyn Host,
    o: &Overrides,
    opts: &RunOptions,
    telemetry: Telemetry<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Report, RunError> {
    let gate = crate::settings::gate_quiet(o);
    if !gate.enabled {
        let why = format!("disabled ({})", crate::settings::source_text(gate.source));
        return Ok(Report::stop(gate, Model::nothing(why)));
    }
    let model = host.restore_model(opts.recreate, say)?;
    if !model.saved {
        return Ok(Report::stop(gate, model));
    }
    let now = opts.now;
    let mut decided = decide(
        o,
        &model.layout,
        now,
        true,
        (!opts.dry_run).then_some(&model.keep),
    )?;
    for w in &decided.warnings {
        say(w);
    }
    if opts.dry_run {
        return Ok(Report {
            gate,
            saved: true,
            plans: decided.plans,
            places: model.places,
            nothing: model.nothing,
            armed: 0,
            attach: None,
        });
    }
    let plans = decided.plans.clone();
    // A pane that is not coming back has nothing armed and nothing reported.
    decided
        .plans
        .retain(|p| model.fates.get(&p.pane) != Some(&Fate::Dead));
    // Armed before any pane exists: a new pane's first prompt takes its
    // line. With take keys, each pane created with a line gets a fresh one,
    // handed to its first process, so that its `take` needs no round trip
    // to a host still busy making the next panes.
    let tickets = model.take_keys.clone().map(|server| {
        Tickets::fresh(
            server,
            decided
                .plans
                .iter()
                .filter(|p| matches!(p.verdict, Verdict::Resume(_)))
                .filter(|p| model.fates.get(&p.pane) == Some(&Fate::Create))
                .map(|p| p.pane),
        )
    });
    // The telemetry file is located only now, once there is something to
    // report: a restore that stops earlier needs no state directory.
    let mut file;
    let sink: &mut dyn TelemetrySink = match telemetry {
        Telemetry::File => {
            file = crate::telemetry::FileSink::new(crate::telemetry::path()?);
            &mut file
        }
        Telemetry::Sink(sink) => sink,
    };
    let armed = arm_and_report(&decided, now, sink, tickets.as_ref());
    let mut attach = None;
    if opts.recreate {
        let none = BTreeMap::new();
        let keys = tickets.as_ref().map_or(&none, |t| &t.keys);
        attach = host.recreate(&model, keys, say)?.attach;
    }
    for p in &decided.plans {
        if !matches!(p.verdict, Verdict::Resume(_))
            || model.fates.get(&p.pane) != Some(&Fate::InPlace)
        {
            continue;
        }
        // A resumed pane passed the plan's shell gate: its shell is known.
        let Some(shell) = shell_of(&model.layout, p.pane) else {
            continue;
        };
        // Typed only into an empty, idle prompt; otherwise the line stays
        // armed and the pane's integration takes it at its next prompt.
        let line = take_command(&opts.program, p.pane, shell);
        let (why, pending) = match host.dispatch(p.pane, &line) {
            Ok(Dispatched::Sent) => continue,
            Ok(Dispatched::NotTyped { why, pending }) => (why, pending),
            Err(e) => (e.to_string(), false),
        };
        let left = if pending {
            "left armed for its next prompt"
        } else {
            "left armed"
        };
        say(&format!("nothing typed into a pane ({why}); {left}"));
    }
    Ok(Report {
        gate,
        saved: true,
        plans,
        places: model.places,
        nothing: model.nothing,
        armed,
        attach,
    })
}

/// The shell of `pane` in `layout`.
fn shell_of(layout: &Layout, pane: PaneId) -> Option<Shell> {
    layout
        .panes()
        .find(|(p, _)| p.id == pane)
        .and_then(|(p, _)| p.shell)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_resume_core::{PaneSpec, Shell, Tab, Window};

    fn one_pane() -> Layout {
        Layout {
            startup: true,
            windows: vec![Window {
                landing: true,
                visible: true,
                active_tab: 0,
                tabs: vec![Tab {
                    focused_pane: None,
                    panes: vec![PaneSpec {
                        id: PaneId::from_bytes([1; 16]),
                        cwd: Some("/".into()),
                        shared_viewer: false,
                        shell: Some(Shell::Bash),
                        has_input: false,
                        queued_command: false,
                    }],
                }],
            }],
        }
    }

    #[test]
    fn with_the_feature_off_the_sequence_opens_sweeps_and_reports_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("data/recordings.sqlite3");
        std::fs::create_dir_all(db.parent().expect("a parent")).expect("mkdir");
        // A recording of a pane this layout does not restore: a sweep
        // would delete it.
        let other = PaneId::from_bytes([2; 16]);
        let mut w =
            agent_resume_store::Writer::new(agent_resume_store::Store::open(&db).expect("creates"));
        w.send(agent_resume_store::Set::save(
            other,
            agent_resume_core::Recording {
                agent: agent_resume_core::AgentKind::Claude,
                session_id: "f6066ebb-140e-4519-ab63-b9cde0b60b57".into(),
                flags: Vec::new(),
                program: None,
                cwd: "/".into(),
                observed_at: UnixMillis(0),
                config_home: None,
                dir: None,
            },
        ));
        w.flush().expect("saves");
        drop(w);
        let o = Overrides {
            db: Some(db.clone()),
            config: None,
        };
        let layout = one_pane();
        let keep: HashSet<PaneId> = [PaneId::from_bytes([1; 16])].into();
        let decided = decide(&o, &layout, UnixMillis(0), false, Some(&keep)).expect("decides");
        struct Counting(usize);
        impl TelemetrySink for Counting {
            fn emit(&mut self, _: &Event) {
                self.0 += 1;
            }
        }
        let mut sink = Counting(0);
        assert_eq!(arm_and_report(&decided, UnixMillis(0), &mut sink, None), 0);
        assert_eq!(sink.0, 0, "no telemetry");
        assert!(decided.store.is_none() && decided.recordings.is_empty());
        let rows = agent_resume_store::Store::open(&db)
            .expect("opens")
            .load()
            .expect("loads")
            .rows;
        assert!(rows.contains_key(&other), "nothing swept");
    }
}
