//! The long-lived handle an in-process host (a Rust terminal) holds:
//! capture events in, restore plans and takes out, persistence on a
//! writer thread the handle owns.
//!
//! - **Gate.** With the feature flag off ([`Config::enabled`]) the handle
//!   does no I/O and starts no thread: every capture call returns at once,
//!   a restore decides every pane `feature_disabled` without loading anything,
//!   and nothing is taken.
//! - **Never blocking capture.** [`AgentResume::observe`],
//!   [`agent_started`](AgentResume::agent_started),
//!   [`agent_exited`](AgentResume::agent_exited) and
//!   [`pane_detached`](AgentResume::pane_detached) decide in memory (core's
//!   [`Capture`]) and enqueue what changed on a bounded queue
//!   (`sync_channel`) to the `agent-resume-writer` thread. A full queue never
//!   blocks: the message waits in the handle, coalesced per pane, and goes
//!   out with the next call. The writer coalesces per pane, never lets an
//!   older write overtake a newer one, retries a failed write with the next
//!   one, and is drained and joined on drop.
//! - **The CLI's rules.** The run and attached state live here, as the CLI
//!   applies them: a new run's report of the same id with other flags is
//!   recorded again; exit 0 clears, any other status keeps and the next run
//!   is accepted; a headless run's exit clears nothing; a pane closed for
//!   good is deleted and disarmed.
//! - **The repeated event** settles on one map lookup whatever the pane's
//!   state, an unknown directory and a headless or unparseable invocation
//!   included: a refusal is remembered until the pane's context changes.
//! - **Restore and take** return data ([`Restored`], [`Took`]) that is
//!   `Send`, with the telemetry events for the host's own sink; the line a
//!   take returns is rebuilt by [`take::decide`], never
//!   the stored words.
//!
//! # Example
//!
//! ```
//! use agent_resume_core::{AgentKind, IdSource, Observation, PaneId};
//! use agent_resume_engine::handle::{AgentResume, Config};
//! use agent_resume_engine::persistence::{Memory, Persistence};
//!
//! let memory = Memory::new();
//! let config = Config { enabled: true, ..Config::default() };
//! let mut handle = AgentResume::start(config, Box::new(memory.clone()));
//! let pane = PaneId::from_bytes([1; 16]);
//! handle.agent_started(pane, Some("claude --model opus"), Some("/".into()));
//! handle.observe(&Observation {
//!     pane,
//!     agent: AgentKind::Claude,
//!     session_id: Some("f6066ebb-140e-4519-ab63-b9cde0b60b57"),
//!     source: IdSource::Hook,
//!     headless: false,
//! });
//! handle.flush().expect("written");
//! assert_eq!(memory.clone().load().recordings.len(), 1);
//! ```

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use agent_resume_core::batch::{Batch, Set};
use agent_resume_core::{
    Capture, Change, DetachKind, DirIdentity, Event, Layout, Observation, PaneContext, PaneId,
    PanePlan, Shell, TelemetrySink, UnixMillis,
};

use crate::fs::RealFs;
use crate::persistence::{PersistError, Persistence, Warning};
use crate::restore::{arm_and_report_over, plan_over};
use crate::take::{self, Ready, Taken};

/// The writer thread's name.
pub const WRITER_THREAD: &str = "agent-resume-writer";

/// How a handle runs.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The feature flag (`settings`): off, the handle does nothing at all.
    pub enabled: bool,
    /// How long an armed line may wait for its pane's shell, in
    /// milliseconds.
    pub armed_expiry_millis: i64,
    /// Messages the writer's queue holds before the handle keeps them.
    pub queue: usize,
    /// Whether a restore asks the agents' own session stores and this
    /// machine's processes about each recorded session (as the CLI does).
    pub discover_sessions: bool,
    /// The clock, read only when something changes.
    pub clock: fn() -> UnixMillis,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            enabled: false,
            armed_expiry_millis: crate::settings::ARMED_EXPIRY_DEFAULT_MINUTES * 60_000,
            queue: 1024,
            discover_sessions: true,
            clock: system_clock,
        }
    }
}

/// Milliseconds since the Unix epoch, from the system clock.
pub fn system_clock() -> UnixMillis {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    UnixMillis(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// What a restore decided and did.
#[derive(Debug, Default)]
pub struct Restored {
    /// One decision per pane, in layout order.
    pub plans: Vec<PanePlan>,
    /// Panes armed: each takes its line when its shell is ready.
    pub armed: usize,
    /// Panes that could not be armed (they come back as a shell), and why.
    pub failed: Vec<(PaneId, PersistError)>,
    /// What the user may want to know.
    pub warnings: Vec<Warning>,
    /// One telemetry event per skipped pane that had a recording.
    pub events: Vec<Event>,
}

impl Restored {
    /// Hands the events to the host's sink.
    pub fn emit(&self, sink: &mut dyn TelemetrySink) {
        for e in &self.events {
            sink.emit(e);
        }
    }
}

/// A pane's armed line, taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Took {
    /// The line to run, or why nothing runs.
    pub taken: Taken,
    /// The one telemetry event of the take.
    pub event: Event,
}

/// What the host told the handle about a pane, answered to capture only
/// when an observation may change something.
#[derive(Debug, Default)]
struct PaneInfo {
    invocation: Option<String>,
    cwd: Option<PathBuf>,
}

struct Ctx<'a> {
    panes: &'a HashMap<PaneId, PaneInfo>,
    pane: PaneId,
}

impl PaneContext for Ctx<'_> {
    fn invocation(&self) -> Option<Cow<'_, str>> {
        self.panes
            .get(&self.pane)
            .and_then(|p| p.invocation.as_deref())
            .map(Cow::Borrowed)
    }
    fn cwd(&self) -> Option<PathBuf> {
        self.panes.get(&self.pane).and_then(|p| p.cwd.clone())
    }
    // The directory's identity is read on the writer thread, never here.
    fn dir_identity(&self, _cwd: &Path) -> Option<DirIdentity> {
        None
    }
}

enum Msg {
    /// A save or clear; `true`: then drop the pane's armed line.
    Set(Set, bool),
    /// Write everything before this, then answer.
    Flush(SyncSender<Result<(), PersistError>>),
}

type Shared = Arc<Mutex<Box<dyn Persistence>>>;

fn lock(p: &Shared) -> MutexGuard<'_, Box<dyn Persistence>> {
    // A panic inside a persistence call leaves it as that call left it;
    // the next write retries what was pending.
    p.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

struct On {
    capture: Capture,
    panes: HashMap<PaneId, PaneInfo>,
    persistence: Shared,
    tx: Option<SyncSender<Msg>>,
    writer: Option<JoinHandle<()>>,
    /// Messages the full queue could not take yet, coalesced per pane.
    held: Batch,
    held_disarm: HashSet<PaneId>,
}

/// The handle. Dropping it drains the queue and joins the writer.
pub struct AgentResume {
    config: Config,
    on: Option<On>,
}

impl AgentResume {
    /// Starts the handle over `persistence`. With the flag off the
    /// persistence is dropped untouched and no thread starts.
    pub fn start(config: Config, persistence: Box<dyn Persistence>) -> AgentResume {
        if !config.enabled {
            return AgentResume { config, on: None };
        }
        let persistence: Shared = Arc::new(Mutex::new(persistence));
        let (tx, rx) = sync_channel(config.queue.max(1));
        let shared = Arc::clone(&persistence);
        let writer = std::thread::Builder::new()
            .name(WRITER_THREAD.into())
            .spawn(move || write_loop(&rx, &shared))
            .ok();
        AgentResume {
            config,
            on: Some(On {
                capture: Capture::remembering_refusals(),
                panes: HashMap::new(),
                persistence,
                // No thread (the system refused one): writes go inline.
                tx: writer.as_ref().map(|_| tx),
                writer,
                held: Batch::new(),
                held_disarm: HashSet::new(),
            }),
        }
    }

    /// Whether the feature is on.
    pub fn enabled(&self) -> bool {
        self.on.is_some()
    }

    /// An agent started in `pane`: its invocation text (through the host's
    /// obfuscated view) and the pane's directory, when known. Starts a new
    /// run: the pane's id stays, and a report of the same id with other
    /// flags is recorded again.
    pub fn agent_started(&mut self, pane: PaneId, invocation: Option<&str>, cwd: Option<PathBuf>) {
        let Some(on) = &mut self.on else { return };
        let info = on.panes.entry(pane).or_default();
        info.invocation = invocation.map(str::to_owned);
        info.cwd = cwd;
        let ctx = Ctx {
            panes: &on.panes,
            pane,
        };
        on.capture.run_started(pane, &ctx);
    }

    /// The pane's directory changed.
    pub fn pane_cwd(&mut self, pane: PaneId, cwd: Option<PathBuf>) {
        let Some(on) = &mut self.on else { return };
        on.panes.entry(pane).or_default().cwd = cwd;
        on.capture.context_changed(pane);
    }

    /// A capture event: an agent's hook payload or id report. The
    /// repeated event is one map lookup and a short compare.
    #[inline]
    pub fn observe(&mut self, obs: &Observation<'_>) {
        let Some(on) = &mut self.on else { return };
        let ctx = Ctx {
            panes: &on.panes,
            pane: obs.pane,
        };
        let clock = self.config.clock;
        if let Some(change) = on.capture.observe_lazy(obs, &ctx, clock) {
            on.send(Set::from_change(obs.pane, change, clock()), false);
        }
    }

    /// The agent in `pane` exited with `status` while the pane was
    /// attached: 0 clears the recording, any other status keeps it.
    pub fn agent_exited(&mut self, pane: PaneId, status: i32) {
        let Some(on) = &mut self.on else { return };
        if let Some(change) = on.capture.agent_exited(pane, status) {
            on.send(Set::from_change(pane, change, (self.config.clock)()), false);
        }
    }

    /// `pane` left the screen: closed for good deletes its recording and
    /// drops its armed line; hidden for close and teardown keep them.
    pub fn pane_detached(&mut self, pane: PaneId, kind: DetachKind) {
        let Some(on) = &mut self.on else { return };
        if let Some(change) = on.capture.detach(pane, kind) {
            let delete = change == Change::Delete;
            if delete {
                on.panes.remove(&pane);
            }
            on.send(
                Set::from_change(pane, change, (self.config.clock)()),
                delete,
            );
        }
    }

    /// Waits until everything sent so far is written; the error of the
    /// last failed write, if it failed (the messages stay pending and are
    /// retried with the next write).
    pub fn flush(&mut self) -> Result<(), PersistError> {
        match &mut self.on {
            Some(on) => on.flush(),
            None => Ok(()),
        }
    }

    /// The restore at start-up: load, sweep the rows of panes `layout`
    /// does not restore, decide every pane, arm the resumable ones. Seeds
    /// capture with the restored panes' recordings, as of a new run.
    pub fn restore(&mut self, layout: &Layout) -> Restored {
        let now = (self.config.clock)();
        let Some(on) = &mut self.on else {
            let planned = plan_over(None, layout, now, false, None, &RealFs, None);
            return Restored {
                plans: planned.plans,
                ..Restored::default()
            };
        };
        // Pending writes land before the load sees the store.
        let flushed = on.flush();
        let keep: HashSet<PaneId> = layout.panes().map(|(p, _)| p.id).collect();
        let homes = agent_resume_discover::Homes::from_env(&|k| std::env::var_os(k));
        let probe = agent_resume_discover::StoreProbe::new(&homes);
        let sessions = self
            .config
            .discover_sessions
            .then_some(&probe as &dyn agent_resume_core::SessionProbe);
        let mut guard = lock(&on.persistence);
        let p: &mut dyn Persistence = &mut **guard;
        let planned = plan_over(
            Some(&mut *p),
            layout,
            now,
            true,
            Some(&keep),
            &RealFs,
            sessions,
        );
        let mut events = Collect(Vec::new());
        let report = arm_and_report_over(&planned, p, now, &mut events, None);
        drop(guard);
        for (pane, stored) in &planned.recordings {
            if let (true, agent_resume_core::Stored::Recording(rec)) = (keep.contains(pane), stored)
            {
                on.capture.seed(*pane, rec.clone());
                let ctx = Ctx {
                    panes: &on.panes,
                    pane: *pane,
                };
                on.capture.run_started(*pane, &ctx);
            }
        }
        let mut warnings = planned.warnings;
        if let Err(e) = flushed {
            warnings.push(Warning::Backend(format!(
                "capture writes pending ({e}); retried with the next write"
            )));
        }
        Restored {
            plans: planned.plans,
            armed: report.armed,
            failed: report.failed,
            warnings,
            events: events.0,
        }
    }

    /// `pane`'s shell is ready: takes its armed line exactly once and
    /// decides it ([`take::decide`]) for `shell` and the pane's state.
    /// `Ok(None)`: nothing armed (or the feature is off).
    pub fn take(
        &mut self,
        pane: PaneId,
        shell: Shell,
        ready: Ready,
    ) -> Result<Option<Took>, PersistError> {
        let Some(on) = &mut self.on else {
            return Ok(None);
        };
        // A pane closed for good just before is disarmed first. A failed
        // write stays pending; the take does not depend on it.
        let _ = on.flush();
        let Some(arm) = lock(&on.persistence).take(pane)? else {
            return Ok(None);
        };
        let request = take::Request {
            shell,
            ready,
            now: (self.config.clock)(),
            armed_expiry_millis: self.config.armed_expiry_millis,
            fs: &RealFs,
        };
        let (taken, event) = take::decide(&(&arm).into(), &request);
        Ok(Some(Took { taken, event }))
    }

    /// Whether a writer thread runs (tests; a host's diagnostics).
    pub fn writer_running(&self) -> bool {
        self.on.as_ref().is_some_and(|on| on.writer.is_some())
    }
}

struct Collect(Vec<Event>);

impl TelemetrySink for Collect {
    fn emit(&mut self, event: &Event) {
        self.0.push(*event);
    }
}

impl On {
    /// Enqueues without blocking; a full queue leaves the message held
    /// here, and every later one behind it, so a pane's order stays.
    fn send(&mut self, set: Set, disarm: bool) {
        let Some(tx) = &self.tx else {
            let mut batch = Batch::new();
            batch.push(set.clone());
            let mut disarms = HashSet::new();
            if disarm {
                disarms.insert(set.pane);
            }
            let _ = write(&self.persistence, &mut batch, &mut disarms);
            return;
        };
        if self.held.is_empty() {
            match tx.try_send(Msg::Set(set, disarm)) {
                Ok(()) => return,
                Err(TrySendError::Full(Msg::Set(set, disarm)))
                | Err(TrySendError::Disconnected(Msg::Set(set, disarm))) => {
                    self.hold(set, disarm);
                }
                Err(TrySendError::Full(Msg::Flush(_)))
                | Err(TrySendError::Disconnected(Msg::Flush(_))) => {}
            }
            return;
        }
        self.hold(set, disarm);
        self.release(false);
    }

    fn hold(&mut self, set: Set, disarm: bool) {
        if disarm {
            self.held_disarm.insert(set.pane);
        }
        self.held.push(set);
    }

    /// Sends what is held: as far as the queue takes it, or (`wait`) all.
    fn release(&mut self, wait: bool) {
        let Some(tx) = &self.tx else { return };
        let mut rest = Vec::new();
        for set in self.held.drain() {
            let disarm = self.held_disarm.remove(&set.pane);
            if !rest.is_empty() {
                rest.push((set, disarm));
                continue;
            }
            let sent = if wait {
                tx.send(Msg::Set(set, disarm)).map_err(|e| match e.0 {
                    Msg::Set(s, d) => Some((s, d)),
                    Msg::Flush(_) => None,
                })
            } else {
                tx.try_send(Msg::Set(set, disarm)).map_err(|e| match e {
                    TrySendError::Full(Msg::Set(s, d))
                    | TrySendError::Disconnected(Msg::Set(s, d)) => Some((s, d)),
                    TrySendError::Full(Msg::Flush(_))
                    | TrySendError::Disconnected(Msg::Flush(_)) => None,
                })
            };
            if let Err(Some(back)) = sent {
                rest.push(back);
            }
        }
        for (set, disarm) in rest {
            self.hold(set, disarm);
        }
    }

    fn flush(&mut self) -> Result<(), PersistError> {
        self.release(true);
        let Some(tx) = &self.tx else { return Ok(()) };
        let (reply, answer) = sync_channel(1);
        if tx.send(Msg::Flush(reply)).is_err() {
            return Ok(());
        }
        answer.recv().unwrap_or(Ok(()))
    }
}

impl Drop for AgentResume {
    fn drop(&mut self) {
        let Some(on) = &mut self.on else { return };
        on.release(true);
        // Closing the queue ends the writer once it has written the rest.
        on.tx = None;
        if let Some(writer) = on.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writer thread: takes every queued message, coalesced per pane,
/// and writes them in one call; answers flushes after writing.
fn write_loop(rx: &Receiver<Msg>, persistence: &Shared) {
    let mut batch = Batch::new();
    let mut disarms = HashSet::new();
    while let Ok(first) = rx.recv() {
        let mut replies = Vec::new();
        let mut next = Some(first);
        while let Some(msg) = next {
            match msg {
                Msg::Set(set, disarm) => {
                    if disarm {
                        disarms.insert(set.pane);
                    }
                    batch.push(set);
                }
                Msg::Flush(reply) => replies.push(reply),
            }
            next = rx.try_recv().ok();
        }
        let result = write(persistence, &mut batch, &mut disarms);
        for reply in replies {
            let _ = reply.send(match &result {
                Ok(()) => Ok(()),
                Err(e) => Err(PersistError::Backend(e.to_string().into())),
            });
        }
    }
    // The queue closed (the handle dropped): one last attempt.
    let _ = write(persistence, &mut batch, &mut disarms);
}

/// Writes `batch` in one call, then drops the armed lines of panes closed
/// for good. On failure everything stays pending for the next write.
fn write(
    persistence: &Shared,
    batch: &mut Batch,
    disarms: &mut HashSet<PaneId>,
) -> Result<(), PersistError> {
    if batch.is_empty() && disarms.is_empty() {
        return Ok(());
    }
    let mut sets = batch.drain();
    for s in &mut sets {
        if let Some(r) = &mut s.recording {
            if r.dir.is_none() {
                r.dir = agent_resume_discover::file::dir_identity(&r.cwd);
            }
        }
    }
    let mut p = lock(persistence);
    if let Err(e) = p.apply(&sets) {
        for s in sets {
            batch.push(s);
        }
        return Err(e);
    }
    let mut failed = None;
    disarms.retain(|pane| match p.disarm(*pane) {
        Ok(_) => false,
        Err(e) => {
            failed = Some(e);
            true
        }
    });
    failed.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests;
