//! The restore sequence over the CLI's database.

use std::collections::{BTreeMap, HashSet};

use agent_resume_core::{Layout, PaneId, PanePlan, Stored, TelemetrySink, UnixMillis};
use agent_resume_store::{OpenOptions, Warning};

use super::{arm_each, plan_over, Tickets};
use crate::fs::RealFs;
use crate::paths::{NoBase, Overrides};
use crate::persistence::{Persistence, Sqlite};

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
/// these panes; without it the database is only inspected (opened
/// read-only, never migrated).
pub fn decide(
    o: &Overrides,
    layout: &Layout,
    now: UnixMillis,
    enabled: bool,
    sweep: Option<&HashSet<PaneId>>,
) -> Result<Decided, NoBase> {
    let mut warnings = Vec::new();
    let mut opened = None;
    if enabled {
        let db = crate::paths::db(o)?;
        let options = OpenOptions::default();
        let store = if sweep.is_some() {
            options.open_existing(&db)
        } else {
            options.inspect(&db)
        };
        match store {
            Ok(store) => opened = store.map(Sqlite::new),
            Err(e) => warnings.push(Warning::OpenFailed(e.fault()).to_string()),
        }
    }
    // The agents' own stores and this machine's processes: asked only with
    // the feature on (the plan asks nothing before its start-up gates pass).
    let homes = agent_resume_discover::Homes::from_env(&|k| std::env::var_os(k));
    let probe = agent_resume_discover::StoreProbe::new(&homes);
    let planned = plan_over(
        opened.as_mut().map(|s| s as &mut dyn Persistence),
        layout,
        now,
        enabled,
        sweep,
        &RealFs,
        Some(&probe),
    );
    warnings.extend(planned.warnings.iter().map(ToString::to_string));
    Ok(Decided {
        enabled,
        plans: planned.plans,
        recordings: planned.recordings,
        warnings,
        store: opened.filter(|_| sweep.is_some()).map(Sqlite::into_store),
    })
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
    arm_each(
        decided.enabled,
        &decided.plans,
        &decided.recordings,
        now,
        sink,
        &mut |arm| {
            let Some(store) = &decided.store else {
                return Ok(false);
            };
            let ticket = tickets.and_then(|t| t.ticket(arm.pane));
            let armed = agent_resume_store::Armed {
                pane: arm.pane,
                agent: arm.agent,
                session_id: arm.session_id,
                argv: arm.argv,
                armed_at: arm.armed_at,
                observed_at: arm.observed_at,
            };
            let ticket = ticket.map(|t| agent_resume_store::Ticket {
                key: t.key,
                server: t.server,
            });
            store.arm_with(&armed, ticket).map(|()| true)
        },
        &mut |e| eprintln!("agent-resume: could not arm a pane ({e}); it comes back as a shell"),
    )
}

/// Queues every pane `decided` armed, in the order they resume
/// ([`agent_resume_core::stagger::order`] over `layout`), starting at most
/// `cap` agents at once; returns the queue's id, or `None` when nothing
/// was queued (nothing armed, no store, the store refused).
pub fn queue(decided: &mut Decided, layout: &Layout, cap: u32, now: UnixMillis) -> Option<String> {
    if !decided.enabled {
        return None;
    }
    let order = agent_resume_core::stagger::order(layout);
    let mut rows = Vec::new();
    for pane in order {
        let Some(plan) = decided.plans.iter().find(|p| p.pane == pane) else {
            continue;
        };
        if !matches!(plan.verdict, agent_resume_core::Verdict::Resume(_)) {
            continue;
        }
        let Some(Stored::Recording(rec)) = decided.recordings.get(&pane) else {
            continue;
        };
        rows.push(agent_resume_store::QueueRow {
            pane,
            rank: u32::try_from(rows.len()).unwrap_or(u32::MAX),
            agent: rec.agent,
            session_id: rec.session_id.clone(),
            observed_at: rec.observed_at,
        });
    }
    if rows.is_empty() {
        return None;
    }
    let store = decided.store.as_mut()?;
    let id = uuid::Uuid::new_v4().to_string();
    store.queue(&id, cap, now, &rows).ok()?;
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_resume_core::{Event, PaneSpec, Shell, Tab, Window};

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
