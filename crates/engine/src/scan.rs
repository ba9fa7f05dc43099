//! Zero-config capture: what a host can record with no hook installed.
//!
//! A host gives each pane's first process (its shell). The pane's agent is
//! found in that process's tree and its session id read from the agent's
//! own signs ([`agent_resume_discover::scan`]: argv, per-process records,
//! store correlation); flags and the headless classification come from the
//! agent process's argv exactly as for a hook ([`crate::evidence`]). What
//! is found goes through the capture state machine as
//! [`IdSource::Process`] or [`IdSource::Correlation`]:
//!
//! - a pane whose recording was observed since its agent process started
//!   (a hook reported during this run, or an earlier scan) is left alone:
//!   within one run a scan never overrides a hook, and the unchanged case
//!   reads one row;
//! - a recording from an earlier run is replaced by this run's;
//! - a headless run is never recorded;
//! - correlation never gives a pane an id another pane's recording holds,
//!   and a session correlated to two panes of one scan is neither's.
//!
//! The tmux host also keeps, between saves, which panes had an agent
//! ([`Seen`], beside the layout snapshot): when a pane's agent has ended it
//! reads the pane's retained text (`capture-pane -p -J -S -200`, through
//! `agent_resume_tmux`) and feeds the exit-hint scraper, an
//! [`IdSource::ExitHint`] observation — unless shell integration has
//! already cleared the pane's recording (a clean exit).

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use agent_resume_core::exit_hint::scrape_agent;
use agent_resume_core::stagger::CONFIRM_WAIT;
use agent_resume_core::{
    AgentKind, Capture, Catalog, IdSource, Observation, PaneId, Recording, UnixMillis,
};
use agent_resume_discover::lineage::{provenance, Top};
use agent_resume_discover::process::{is_agent_program, ProcessId, ProcessTable};
use agent_resume_discover::scan::{
    agent_in, own_id, record_id, registry_id, session_of, Found, PaneAgent, Snapshot,
};
use agent_resume_discover::{list, Depth, Homes, SessionInfo};
use agent_resume_store::{RowState, Store};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a scan or a remembered-pane write stopped. What was already recorded
/// stays recorded.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ScanError {
    /// The database could not be opened.
    #[error(transparent)]
    Open(#[from] agent_resume_store::OpenError),
    /// A write failed.
    #[error(transparent)]
    Write(#[from] agent_resume_store::WriteError),
    /// The remembered panes could not be encoded.
    #[error(transparent)]
    Encode(#[from] serde_json::Error),
}

use crate::capture::{apply, observe, Applied, Known};

/// How long after its process started store correlation is tried for it:
/// past this only its argv and records are read (the store listing is the
/// costly part of a scan, and a session that starts later is not this
/// process's first) — except for an agent whose session is written at the
/// first prompt, which has no recording yet only while no prompt came.
const CORRELATE_FOR: i64 = 5 * 60 * 1000;

/// How much earlier than its process a recording may be stamped and still
/// be taken as this run's (`/proc` start times are known to about a second).
const SAME_RUN_SLACK: i64 = 1_000;

/// One pane a host asks about: its id and its first process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneRef {
    /// The pane.
    pub pane: PaneId,
    /// Its first process (the shell, or the agent itself).
    pub pid: u32,
}

/// What a scan did for one pane. Closed, with stable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Outcome {
    /// No verified agent runs in the pane.
    NoAgent = 1,
    /// The agent runs headless: never recorded.
    Headless = 2,
    /// The agent runs, its id is not known yet (or not for sure).
    NoId = 3,
    /// This run's recording was saved.
    Recorded = 4,
    /// This run was already recorded (by a hook or an earlier scan).
    AlreadyRecorded = 5,
    /// This run is recorded, but it is a resume still waiting for the
    /// agent's own word (its registry entry, a file it holds) that it runs
    /// the conversation: scans keep looking.
    Unproven = 6,
    /// The agent cannot resume a conversation by its id (Continue's `cn`):
    /// never recorded, so its pane comes back as a plain shell.
    NotResumableById = 7,
}

impl Outcome {
    /// Every variant.
    #[cfg_attr(not(test), allow(dead_code))]
    pub const VARIANTS: &'static [Outcome] = &[
        Outcome::NoAgent,
        Outcome::Headless,
        Outcome::NoId,
        Outcome::Recorded,
        Outcome::AlreadyRecorded,
        Outcome::Unproven,
        Outcome::NotResumableById,
    ];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::NoAgent => "no_agent",
            Outcome::Headless => "headless",
            Outcome::NoId => "no_id",
            Outcome::Recorded => "recorded",
            Outcome::AlreadyRecorded => "already_recorded",
            Outcome::Unproven => "unproven",
            Outcome::NotResumableById => "not_resumable_by_id",
        }
    }
}

/// One pane's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanned {
    /// The pane.
    pub pane: PaneId,
    /// What was done.
    pub outcome: Outcome,
    /// The agent found, with its process.
    pub agent: Option<(AgentKind, ProcessId)>,
    /// Which sign gave the id.
    pub found: Option<Found>,
    /// What the run's argv shows (program word and allowlisted flags).
    pub invocation: Option<String>,
    /// The agent's directory.
    pub cwd: Option<PathBuf>,
}

/// The agent's stores under the environment's homes.
pub fn homes() -> Homes {
    Homes::from_env(&|k| std::env::var_os(k))
}

/// Whether `argv` (a process's) runs a verified agent itself (or one that
/// cannot resume by id, reported as such): a host that
/// sees only its shell in a pane's foreground asks this of it before
/// leaving the pane out of a scan.
pub fn runs_agent(argv: &[String]) -> bool {
    Catalog::embedded()
        .agents()
        .iter()
        .filter(|a| a.verified || !a.resumable_by_id)
        .any(|a| is_agent_program(a, argv))
}

/// Whether `rec` was observed during the run that started at `started`.
fn this_run(rec: &Recording, agent: AgentKind, started: Option<UnixMillis>) -> bool {
    rec.agent == agent
        && started.is_some_and(|s| rec.observed_at.0.saturating_add(SAME_RUN_SLACK) >= s.0)
}

struct Pending {
    at: usize,
    found: PaneAgent,
    invocation: Option<String>,
    cwd: Option<PathBuf>,
    /// The session the shell note says the run resumed, when its argv is
    /// hidden.
    noted_id: Option<String>,
}

/// Scans `panes` and records what is found into the database at `db`.
pub fn scan(
    table: &dyn ProcessTable,
    homes: &Homes,
    db: &Path,
    panes: &[PaneRef],
    now: UnixMillis,
) -> Result<Vec<Scanned>, ScanError> {
    let snap = Snapshot::read(table);
    let catalog = Catalog::embedded();
    let store = Store::open(db)?;
    let mut out: Vec<Scanned> = Vec::with_capacity(panes.len());
    let mut pending: Vec<Pending> = Vec::new();
    let awaiting = store
        .awaiting_report(UnixMillis(now.0.saturating_sub(CONFIRM_WAIT)))
        .unwrap_or_default();
    for p in panes {
        let mut s = Scanned {
            pane: p.pane,
            outcome: Outcome::NoAgent,
            agent: None,
            found: None,
            invocation: None,
            cwd: None,
        };
        let Some(found) = agent_in(&snap, p.pid, catalog) else {
            out.push(s);
            continue;
        };
        s.agent = Some((found.agent, found.process.id));
        s.cwd = table.cwd(found.process.id.pid);
        let decl = catalog.agent(found.agent);
        if !decl.resumable_by_id {
            s.outcome = Outcome::NotResumableById;
            out.push(s);
            continue;
        }
        // The same evidence a hook takes: flags and headlessness from the
        // outermost agent process below the pane's first process, a shell
        // note only for that very process.
        let walked = provenance(table, found.process.id.pid, decl, catalog, Top::Pane(p.pid));
        let note = || {
            store.noted(
                p.pane,
                found.agent,
                UnixMillis(now.0.saturating_sub(24 * 3600 * 1000)),
            )
        };
        let evidence = crate::evidence::decide(table, decl, &walked, note);
        s.invocation = evidence.invocation.clone();
        if evidence.headless {
            s.outcome = Outcome::Headless;
            out.push(s);
            continue;
        }
        let started = table.started_at(found.process.id);
        if let Ok(Some(RowState::Recording(rec))) = store.row(p.pane) {
            // The agent's own registry naming another conversation, written
            // after this run's recording (Claude's `/clear` starts a new one
            // in the same process): that one is recorded.
            // Not while a resume of this pane waits for its proof: an agent
            // starting may name a throwaway session first (Vibe 3.0.2's
            // app server opens one before it loads the resumed one).
            let waits = awaiting.contains(&p.pane);
            let moved = !waits
                && registry_id(&found, homes, started).is_some_and(|(id, written)| {
                    id != rec.session_id && written.is_some_and(|w| w.0 > rec.observed_at.0)
                });
            if this_run(&rec, found.agent, started) && !moved {
                s.outcome = Outcome::AlreadyRecorded;
                if awaiting.contains(&p.pane) {
                    // Recorded from the resume's argv as it started, before
                    // the agent wrote anything of its own.
                    // Only the resumed conversation named by the agent's own
                    // word proves it; another is not reported while the
                    // resume waits (the watch keeps looking).
                    s.outcome = match record_id(table, &found, homes) {
                        Some((id, _)) if id == rec.session_id => {
                            let _ = store.resume_reported(p.pane, &id, now);
                            Outcome::AlreadyRecorded
                        }
                        _ => Outcome::Unproven,
                    };
                }
                out.push(s);
                continue;
            }
        }
        s.outcome = Outcome::NoId;
        pending.push(Pending {
            at: out.len(),
            noted_id: evidence.noted_id,
            invocation: evidence.invocation,
            cwd: s.cwd.clone(),
            found,
        });
        out.push(s);
    }
    // Ids the agents' own signs name are not another pane's new session.
    let own: Vec<Option<(String, Found)>> = pending
        .iter()
        .map(|p| own_id(table, &p.found, homes))
        .collect();
    let taken: BTreeSet<String> = pending
        .iter()
        .zip(&own)
        .filter_map(|(p, own)| {
            own.as_ref()
                .map(|(id, _)| id.clone())
                .or(p.noted_id.clone())
        })
        .collect();
    // Nor is an id another pane's recording holds: that pane's agent may
    // have been skipped by this scan (already recorded, unchanged), and a
    // run started beside it in the same directory must not take its id.
    let held: Vec<(PaneId, String)> = store
        .load()
        .map(|l| {
            l.rows
                .into_iter()
                .filter_map(|(pane, row)| match row {
                    RowState::Recording(r) => Some((pane, r.session_id)),
                    RowState::Unreadable(_) => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let mut listed: BTreeMap<AgentKind, Vec<SessionInfo>> = BTreeMap::new();
    let mut hits: Vec<Option<(String, Found)>> = Vec::with_capacity(pending.len());
    for (p, own) in pending.iter().zip(own) {
        // The agent's own records first; then, for a run that hides its
        // argv, what its shell note says it resumed; then correlation.
        if let Some(hit) = own.or_else(|| p.noted_id.clone().map(|id| (id, Found::Argv))) {
            hits.push(Some(hit));
            continue;
        }
        let pane = out[p.at].pane;
        let mut taken = taken.clone();
        taken.extend(
            held.iter()
                .filter(|(other, _)| *other != pane)
                .map(|(_, id)| id.clone()),
        );
        // An agent that writes its session at the first prompt is looked
        // for however long it has run: its first session may come late.
        let fresh = agent_resume_discover::provider(p.found.agent).first_prompt()
            || table
                .started_at(p.found.process.id)
                .is_some_and(|s| s.until(now) <= CORRELATE_FOR);
        let hit = session_of(table, &snap, &p.found, homes, &taken, |agent| {
            if !fresh {
                return Vec::new();
            }
            listed
                .entry(agent)
                .or_insert_with(|| list(homes, &[agent], Depth::FAST).sessions)
                .clone()
        });
        hits.push(hit);
    }
    // One session correlated to two panes is neither's: which pane's run
    // wrote it is not known.
    let mut correlated: BTreeMap<String, usize> = BTreeMap::new();
    for (id, found) in hits.iter().flatten() {
        if *found == Found::Correlation {
            *correlated.entry(id.clone()).or_default() += 1;
        }
    }
    for (p, hit) in pending.iter().zip(hits) {
        let Some((id, found)) = hit else { continue };
        if correlated.get(&id).is_some_and(|n| *n > 1) {
            continue;
        }
        let Some(cwd) = p.cwd.clone() else { continue };
        let source = match found {
            Found::Argv | Found::Registry | Found::OpenFile => IdSource::Process,
            Found::Correlation => IdSource::Correlation,
        };
        let obs = Observation {
            pane: out[p.at].pane,
            agent: p.found.agent,
            session_id: Some(&id),
            source,
            headless: false,
        };
        let known = Known {
            invocation: p.invocation.clone(),
            cwd: Some(cwd),
            config_home: None,
        };
        // A new run: the earlier run's recording is not seeded, so any
        // source replaces it.
        let mut capture = Capture::new();
        let change = capture.observe(&obs, &known, now);
        // What the agent wrote itself (its registry entry, the file it
        // holds, its store) proves a resume of the pane; its argv, which
        // the restore wrote, does not: the next scan looks for the agent's
        // own word (`Outcome::Unproven` above).
        let proves = matches!(
            found,
            Found::Registry | Found::OpenFile | Found::Correlation
        );
        if change.is_some() || proves {
            let store = Store::open(db)?;
            if proves {
                let _ = store.resume_reported(obs.pane, &id, now);
            }
            if let Some(change) = change {
                apply(store, obs.pane, change, now)?;
            }
        }
        // A resume found by its argv alone (the agent has not yet written
        // its registry entry or opened its file: Vibe's app server does so
        // a second or two after the UI starts) is recorded, and scans keep
        // looking for the agent's own word.
        out[p.at].outcome = if !proves && awaiting.contains(&out[p.at].pane) {
            Outcome::Unproven
        } else {
            Outcome::Recorded
        };
        out[p.at].found = Some(found);
    }
    Ok(out)
}

/// [`scan`] over this machine's process table (`/proc`) and the agents'
/// stores under the environment's homes. Without `/proc` (not Linux) no
/// pane is scanned.
pub fn scan_here(db: &Path, panes: &[PaneRef], now: UnixMillis) -> Result<Vec<Scanned>, ScanError> {
    #[cfg(target_os = "linux")]
    return scan(
        &agent_resume_discover::process::ProcFs,
        &homes(),
        db,
        panes,
        now,
    );
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (db, panes, now);
        Ok(Vec::new())
    }
}

/// What the tmux host remembers about a pane's agent between saves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// The agent's name.
    pub agent: String,
    /// Its pid.
    pub pid: u32,
    /// Its start time (ticks).
    pub start: u64,
    /// It ran headless.
    pub headless: bool,
    /// The pane held a recording of it after the save.
    pub recorded: bool,
    /// Program word and allowlisted flags of the run.
    pub invocation: Option<String>,
    /// Its directory, as raw bytes (any path survives JSON).
    pub cwd: Option<Vec<u8>>,
    /// When it started (Unix milliseconds), as the process table said while
    /// it ran: an exit hint counts only for a session written since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<i64>,
}

/// The prefix of the host key under which a tmux server's save remembers
/// which agent each pane ran (`tmux-agents:<snapshot key>`).
pub const TMUX_SEEN: &str = "tmux-agents";

/// Parses the remembered panes (empty when absent or unreadable).
pub fn read_seen(store: &Store, key: &str) -> BTreeMap<PaneId, Seen> {
    let Ok(Some((text, _))) = store.host_layout(key) else {
        return BTreeMap::new();
    };
    serde_json::from_str::<BTreeMap<String, Seen>>(&text)
        .map(|m| {
            m.into_iter()
                .filter_map(|(k, v)| Some((k.parse::<PaneId>().ok()?, v)))
                .collect()
        })
        .unwrap_or_default()
}

/// Stores the remembered panes.
pub fn write_seen(
    store: &Store,
    key: &str,
    seen: &BTreeMap<PaneId, Seen>,
    now: UnixMillis,
) -> Result<(), ScanError> {
    let map: BTreeMap<String, &Seen> = seen.iter().map(|(k, v)| (k.to_string(), v)).collect();
    store.save_host_layout(key, &serde_json::to_string(&map)?, now)?;
    Ok(())
}

/// Records the exit hint in `text` for a pane whose agent (`seen`) ended.
///
/// The pane's text is not the agent's alone: whatever ran after it (`cat`
/// of a file, a script's output) can print a hint-shaped line naming any
/// id. So a hint counts only when the agent's own store holds that session
/// in the run's directory and wrote it since the run started
/// (`hint_is_of_this_run`); otherwise nothing is recorded. `listed`
/// keeps each agent's store listing for the other panes of the same save.
pub fn exit_hint(
    db: &Path,
    homes: &Homes,
    listed: &mut BTreeMap<AgentKind, Vec<SessionInfo>>,
    pane: PaneId,
    seen: &Seen,
    text: &str,
    now: UnixMillis,
) -> Result<bool, ScanError> {
    let Some(agent) = AgentKind::from_name(&seen.agent) else {
        return Ok(false);
    };
    let Some(id) = scrape_agent(agent, text) else {
        return Ok(false);
    };
    let Some(cwd) = seen
        .cwd
        .clone()
        .map(|b| PathBuf::from(std::ffi::OsString::from_vec(b)))
    else {
        return Ok(false);
    };
    // Listed once per agent for every pane one save finds ended.
    let sessions = listed
        .entry(agent)
        .or_insert_with(|| list(homes, &[agent], Depth::FAST).sessions);
    if !hint_is_of_this_run(sessions, agent, &id, &cwd, seen.started) {
        return Ok(false);
    }
    let obs = Observation {
        pane,
        agent,
        session_id: Some(&id),
        source: IdSource::ExitHint,
        headless: false,
    };
    let known = Known {
        invocation: seen.invocation.clone(),
        cwd: Some(cwd),
        config_home: None,
    };
    Ok(observe(Store::open(db)?, &obs, &known, now)? == Applied::Saved)
}

/// Whether the hinted session `id` is one the ended run wrote: `sessions`
/// (the agent's own store) holds it, in `cwd` (when the store says where),
/// modified no earlier than the run's start. With no start known (a pane
/// remembered by an older version), no hint counts.
fn hint_is_of_this_run(
    sessions: &[SessionInfo],
    agent: AgentKind,
    id: &str,
    cwd: &Path,
    started: Option<i64>,
) -> bool {
    let Some(started) = started else {
        return false;
    };
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    sessions.iter().any(|s| {
        s.agent == agent
            && s.id == id
            && s.modified.0.saturating_add(SAME_RUN_SLACK) >= started
            && s.cwd
                .as_deref()
                .is_none_or(|c| c == cwd || canonical(c).is_some_and(|c| Some(c) == canonical(cwd)))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use agent_resume_core::{Change, RecordedFlag};
    use agent_resume_discover::process::ProcessInfo;

    use super::*;

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
    const OLD: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";

    /// pid → (ppid, argv); every process started at `START` ms.
    struct Table(BTreeMap<u32, (u32, Vec<String>)>);

    const START: i64 = 1_000_000;

    impl Table {
        fn new(rows: &[(u32, u32, &[&str])]) -> Table {
            Table(
                rows.iter()
                    .map(|(p, pp, a)| (*p, (*pp, a.iter().map(|w| (*w).to_owned()).collect())))
                    .collect(),
            )
        }
    }

    impl ProcessTable for Table {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            let (ppid, argv) = self.0.get(&pid)?.clone();
            Some(ProcessInfo {
                id: ProcessId { pid, start: 7 },
                ppid,
                argv,
            })
        }
        fn pids(&self) -> Vec<u32> {
            self.0.keys().copied().collect()
        }
        fn started_at(&self, _id: ProcessId) -> Option<UnixMillis> {
            Some(UnixMillis(START))
        }
        fn cwd(&self, _pid: u32) -> Option<PathBuf> {
            Some(PathBuf::from("/w/p"))
        }
    }

    fn pane(n: u8) -> PaneId {
        PaneId::from_bytes([n; 16])
    }

    fn stored(db: &Path, p: PaneId, id: &str, at: i64) {
        let rec = Recording {
            agent: AgentKind::Claude,
            session_id: id.to_owned(),
            flags: Vec::new(),
            program: None,
            cwd: PathBuf::from("/w/p"),
            observed_at: UnixMillis(at),
            config_home: None,
            dir: None,
        };
        apply(
            Store::open(db).expect("opens"),
            p,
            Change::Save(rec),
            UnixMillis(at),
        )
        .expect("saves");
    }

    fn row(db: &Path, p: PaneId) -> Option<Recording> {
        match Store::open(db).expect("opens").row(p).expect("reads") {
            Some(RowState::Recording(r)) => Some(r),
            Some(RowState::Unreadable(_)) | None => None,
        }
    }

    #[test]
    fn a_resume_found_by_its_argv_alone_stays_unproven_until_the_agent_names_it_itself() {
        // Vibe 3.0.2: the restored `vibe-rs --resume <id>` shows its id in
        // argv at once; its app server writes the lock naming it a second
        // or two later. The first scan must not end the watch as recorded.
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("r.sqlite3");
        let home = dir.path().join("home");
        let homes = Homes::under(&home);
        let mut store = Store::open(&db).expect("opens");
        store
            .queue(
                "r1",
                1,
                UnixMillis(START),
                &[agent_resume_store::QueueRow {
                    pane: pane(1),
                    rank: 0,
                    agent: AgentKind::Vibe,
                    session_id: ID.to_owned(),
                    observed_at: UnixMillis(START - 60_000),
                }],
            )
            .expect("queues");
        let go = |_: &agent_resume_core::stagger::Queued,
                  _: &[agent_resume_core::stagger::Queued],
                  _: u32,
                  _: UnixMillis| agent_resume_core::stagger::Turn::Go;
        store
            .turn_step(pane(1), &|| UnixMillis(START), &go)
            .expect("starts");
        drop(store);
        let t = Table::new(&[
            (10, 1, &["bash"]),
            (11, 10, &["/v/vibe/_bin/vibe-rs", "--resume", ID]),
            (12, 11, &["vibe-app-server"]),
        ]);
        let panes = [PaneRef {
            pane: pane(1),
            pid: 10,
        }];
        let reported = || {
            Store::open(&db)
                .expect("opens")
                .resumes("r1")
                .expect("reads")[0]
                .reported_id
                .clone()
        };
        let first = scan(&t, &homes, &db, &panes, UnixMillis(START + 500)).expect("scans");
        assert_eq!(first[0].outcome, Outcome::Unproven);
        assert_eq!(first[0].found, Some(Found::Argv));
        assert_eq!(row(&db, pane(1)).map(|r| r.session_id).as_deref(), Some(ID));
        assert_eq!(
            reported(),
            None,
            "its argv, which the restore wrote, proves nothing"
        );

        // The app server's throwaway session first: it neither moves the
        // recording nor proves (or disproves) the resume.
        let active = home.join(".vibe/logs/session/active");
        std::fs::create_dir_all(&active).expect("mkdir");
        let throwaway = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d";
        std::fs::write(
            active.join(format!("{throwaway}.lock.json")),
            format!(r#"{{"process_id":12,"session_id":"{throwaway}"}}"#),
        )
        .expect("writes");
        let early = scan(&t, &homes, &db, &panes, UnixMillis(START + 1_000)).expect("scans");
        assert_eq!(early[0].outcome, Outcome::Unproven);
        assert_eq!(row(&db, pane(1)).map(|r| r.session_id).as_deref(), Some(ID));
        assert_eq!(reported(), None, "a throwaway session proves nothing");
        std::fs::remove_file(active.join(format!("{throwaway}.lock.json"))).expect("rm");

        std::fs::write(
            active.join(format!("{ID}.lock.json")),
            format!(r#"{{"process_id":12,"session_id":"{ID}"}}"#),
        )
        .expect("writes");
        let second = scan(&t, &homes, &db, &panes, UnixMillis(START + 2_000)).expect("scans");
        assert_eq!(second[0].outcome, Outcome::AlreadyRecorded);
        assert_eq!(reported().as_deref(), Some(ID), "its own lock proves it");
    }

    #[test]
    fn a_pane_running_continue_is_reported_not_resumable_by_id_and_never_recorded() {
        // `cn` 1.5.47 has no resume by id: even a `--fork <id>` in its argv
        // (which silently starts a new session) must not become a recording.
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("r.sqlite3");
        let homes = Homes::under(&dir.path().join("home"));
        let t = Table::new(&[
            (10, 1, &["bash"]),
            (
                11,
                10,
                &["node", "/n/node_modules/.bin/cn", "--fork", ID, "--auto"],
            ),
            (20, 1, &["bash"]),
            (21, 20, &["cn", "--config", "/c.yaml"]),
        ]);
        let panes = [
            PaneRef {
                pane: pane(1),
                pid: 10,
            },
            PaneRef {
                pane: pane(2),
                pid: 20,
            },
        ];
        let out = scan(&t, &homes, &db, &panes, UnixMillis(START + 10_000)).expect("scans");
        for s in &out {
            assert_eq!(s.outcome, Outcome::NotResumableById, "{s:?}");
            assert_eq!(s.agent.map(|(a, _)| a), Some(AgentKind::Continue));
            assert_eq!(row(&db, s.pane), None, "nothing recorded");
        }
        assert_eq!(Outcome::NotResumableById.as_str(), "not_resumable_by_id");
        assert!(runs_agent(&["cn".to_owned()]), "a host scans the pane");
    }

    #[test]
    fn a_scan_records_each_panes_agent_from_its_argv_and_leaves_headless_and_this_runs_hook_alone()
    {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("r.sqlite3");
        let homes = Homes::under(&dir.path().join("home"));
        let resume = format!("--resume={ID}");
        let t = Table::new(&[
            // Pane 1: an earlier run's recording, replaced by this run's.
            (10, 1, &["bash"]),
            (11, 10, &["claude", "--model", "opus", &resume]),
            // Pane 2: headless.
            (20, 1, &["bash"]),
            (21, 20, &["claude", "-p", "--resume", ID, "hi"]),
            // Pane 3: a hook recorded another id during this run.
            (30, 1, &["bash"]),
            (31, 30, &["claude", "--resume", ID]),
            // Pane 4: no agent.
            (40, 1, &["bash"]),
            (41, 40, &["vim"]),
        ]);
        stored(&db, pane(1), OLD, START - 60_000);
        stored(&db, pane(3), OLD, START + 5_000);
        let panes: Vec<PaneRef> = [(1, 10), (2, 20), (3, 30), (4, 40)]
            .iter()
            .map(|(p, pid)| PaneRef {
                pane: pane(*p),
                pid: *pid,
            })
            .collect();
        let out = scan(&t, &homes, &db, &panes, UnixMillis(START + 10_000)).expect("scans");
        let outcomes: Vec<Outcome> = out.iter().map(|s| s.outcome).collect();
        assert_eq!(
            outcomes,
            [
                Outcome::Recorded,
                Outcome::Headless,
                Outcome::AlreadyRecorded,
                Outcome::NoAgent
            ]
        );
        assert_eq!(out[0].found, Some(Found::Argv));
        let r1 = row(&db, pane(1)).expect("pane 1 recorded");
        assert_eq!(r1.session_id, ID);
        assert_eq!(
            r1.flags,
            [RecordedFlag {
                name: "--model".into(),
                value: Some("opus".into())
            }],
            "exactly the argv's allowlisted flags"
        );
        assert_eq!(row(&db, pane(2)), None, "headless never recorded");
        assert_eq!(
            row(&db, pane(3)).map(|r| r.session_id),
            Some(OLD.to_owned()),
            "within a run, a hook's id stands"
        );
        assert_eq!(row(&db, pane(4)), None);
    }

    /// Claude's `/clear` starts a new conversation in the same process: its
    /// registry (`sessions/<pid>.json`) names the new id while its argv
    /// still names the one it was started on. Written after this run's
    /// recording, the registry's id is recorded; written before, the
    /// recording stands.
    #[test]
    fn a_registry_naming_a_new_conversation_after_the_recording_replaces_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("r.sqlite3");
        let home = dir.path().join("home");
        let homes = Homes::under(&home);
        let sessions = home.join(".claude/sessions");
        std::fs::create_dir_all(&sessions).expect("mkdir");
        let register = |pid: u32, id: &str, at: i64| {
            let path = sessions.join(format!("{pid}.json"));
            std::fs::write(&path, format!("{{\"pid\":{pid},\"sessionId\":\"{id}\"}}"))
                .expect("writes");
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_millis(at as u64);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(when))
                .expect("sets the time");
        };
        let t = Table::new(&[
            (10, 1, &["bash"]),
            (11, 10, &["claude", "--resume", OLD]),
            (20, 1, &["bash"]),
            (21, 20, &["claude", "--resume", OLD]),
        ]);
        // Both panes recorded OLD during this run (a hook, or a scan).
        stored(&db, pane(1), OLD, START + 5_000);
        stored(&db, pane(2), OLD, START + 5_000);
        // Pane 1's agent cleared after that; pane 2's registry is older.
        register(11, ID, START + 8_000);
        register(21, ID, START + 2_000);
        let panes: Vec<PaneRef> = [(1, 10), (2, 20)]
            .iter()
            .map(|(p, pid)| PaneRef {
                pane: pane(*p),
                pid: *pid,
            })
            .collect();
        let out = scan(&t, &homes, &db, &panes, UnixMillis(START + 10_000)).expect("scans");
        assert_eq!(out[0].outcome, Outcome::Recorded);
        assert_eq!(out[0].found, Some(Found::Registry));
        assert_eq!(row(&db, pane(1)).map(|r| r.session_id), Some(ID.to_owned()));
        assert_eq!(out[1].outcome, Outcome::AlreadyRecorded);
        assert_eq!(
            row(&db, pane(2)).map(|r| r.session_id),
            Some(OLD.to_owned())
        );
    }

    #[test]
    fn correlation_never_gives_a_new_run_the_session_another_panes_recording_holds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("r.sqlite3");
        let home = dir.path().join("home");
        let homes = Homes::under(&home);
        // One Claude session in /w/p, started a second after the processes.
        let projects = home.join(".claude/projects/-w-p");
        std::fs::create_dir_all(&projects).expect("mkdir");
        std::fs::write(
            projects.join(format!("{ID}.jsonl")),
            format!(
                "{{\"type\":\"user\",\"sessionId\":\"{ID}\",\"cwd\":\"/w/p\",\
                 \"timestamp\":\"1970-01-01T00:16:41.000Z\",\
                 \"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
            ),
        )
        .expect("writes");
        let t = Table::new(&[
            (10, 1, &["bash"]),
            (11, 10, &["claude"]),
            (20, 1, &["bash"]),
            (21, 20, &["claude"]),
        ]);
        // Only pane 2 is scanned: pane 1's agent is recorded and unchanged,
        // so the tmux host leaves it out.
        let scan2 = |db: &Path| {
            let panes = [PaneRef {
                pane: pane(2),
                pid: 20,
            }];
            scan(&t, &homes, db, &panes, UnixMillis(START + 10_000)).expect("scans")
        };
        let alone = dir.path().join("alone.sqlite3");
        scan2(&alone);
        assert_eq!(
            row(&alone, pane(2)).map(|r| r.session_id),
            Some(ID.to_owned()),
            "the one new session in the directory is found by correlation"
        );
        stored(&db, pane(1), ID, START + 1_000);
        let out = scan2(&db);
        assert_eq!(out[0].outcome, Outcome::NoId);
        assert_eq!(
            row(&db, pane(2)),
            None,
            "pane 1's session is not pane 2's new one"
        );
        assert_eq!(row(&db, pane(1)).map(|r| r.session_id), Some(ID.to_owned()));
    }

    /// Qwen holds its chat file open only while it writes: an hour after
    /// it started (past correlation) its runtime sidecar alone names its
    /// session, by its pid.
    #[test]
    fn a_qwen_is_recorded_from_its_runtime_sidecar_with_its_chat_file_closed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("r.sqlite3");
        let home = dir.path().join("home");
        let homes = Homes::under(&home);
        let chats = home.join(".qwen/projects/-w-p/chats");
        std::fs::create_dir_all(&chats).expect("mkdir");
        std::fs::write(chats.join(format!("{ID}.jsonl")), "").expect("writes");
        std::fs::write(
            chats.join(format!("{ID}.runtime.json")),
            format!(
                "{{\"schema_version\":1,\"pid\":12,\"session_id\":\"{ID}\",\
                 \"work_dir\":\"/w/p\",\"started_at\":1000.5,\"qwen_version\":\"0.24.4\"}}"
            ),
        )
        .expect("writes");
        // `qwen` re-launches itself: the child (12) writes the sidecar.
        let t = Table::new(&[
            (10, 1, &["bash"]),
            (11, 10, &["qwen", "--model", "m"]),
            (12, 11, &["qwen", "--model", "m"]),
        ]);
        let panes = [PaneRef {
            pane: pane(1),
            pid: 10,
        }];
        let out = scan(&t, &homes, &db, &panes, UnixMillis(START + 3_600_000)).expect("scans");
        assert_eq!(out[0].outcome, Outcome::Recorded);
        assert_eq!(out[0].found, Some(Found::Registry));
        let rec = row(&db, pane(1)).expect("recorded");
        assert_eq!((rec.agent, rec.session_id.as_str()), (AgentKind::Qwen, ID));
    }

    #[test]
    fn a_pi_that_hides_its_argv_is_recorded_on_the_session_its_shell_note_says_it_resumed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let homes = Homes::under(&dir.path().join("home"));
        // Pi writes "pi" over its argv (`process.title`); its resumed
        // session's file is old and not held open: only the line says it.
        let table = Table::new(&[(10, 1, &["bash"]), (11, 10, &["pi", "", "", ""])]);
        let pi = Catalog::embedded().agent(AgentKind::Pi);
        for (n, (line, want)) in [
            (format!("pi --offline --session {ID}"), Some(ID)),
            (format!("pi --fork {ID}"), None),
            ("pi --model gpt-4o".to_owned(), None),
        ]
        .into_iter()
        .enumerate()
        {
            let db = dir.path().join(format!("r{n}.sqlite3"));
            let (argv, headless) = crate::capture::noted_line(pi, &line).expect("a pi line");
            let store = Store::open(&db).expect("opens");
            store
                .note(
                    pane(1),
                    AgentKind::Pi,
                    &argv,
                    headless,
                    Some(10),
                    UnixMillis(START),
                )
                .expect("notes");
            drop(store);
            let got = scan(
                &table,
                &homes,
                &db,
                &[PaneRef {
                    pane: pane(1),
                    pid: 10,
                }],
                UnixMillis(START + 1_000),
            )
            .expect("scans");
            assert_eq!(
                row(&db, pane(1)).map(|r| r.session_id).as_deref(),
                want,
                "{line}"
            );
            if want.is_some() {
                assert_eq!(got[0].found, Some(Found::Argv), "{line}");
            }
        }
    }

    #[test]
    fn outcome_names_are_distinct() {
        let names: std::collections::BTreeSet<&str> =
            Outcome::VARIANTS.iter().map(|o| o.as_str()).collect();
        assert_eq!(names.len(), Outcome::VARIANTS.len());
    }
}
