//! The capture state machine: per pane, the agent and session id last seen,
//! and the recording last persisted.
//!
//! Capture runs on every agent event — once per tool call, hundreds of times
//! a task — so the unchanged case settles on one map lookup and a short
//! string compare, allocating nothing. Only when the (agent, session id) pair
//! changes does it ask the host for the invocation text and the directory,
//! extract flags and build a recording; the full-recording equality stays as
//! the final guard, so a pair that changes back writes nothing new.
//!
//! Rules (see `docs/capture.md`):
//! - a newly reported id is adopted: a second conversation in the same pane
//!   wins; a known id is never overwritten by an absent one;
//! - within one run of the agent, a lower-precedence source never overrides a
//!   higher one: exit hint > live hook/notify payload > the agent's own
//!   process (argv, pid registry, open files) > id pinned at launch > store
//!   correlation;
//! - headless runs never touch the pane's interactive recording;
//! - agent ended while attached → clear; closed for good → delete;
//!   hidden-for-close, app teardown, suspended → keep.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

use crate::catalog::Catalog;
use crate::flag::{extract, Extraction};
use crate::pane::PaneId;
use crate::posture::UnixMillis;
use crate::recording::{DirIdentity, Recording};
use crate::AgentKind;

/// Where a session id came from, lowest precedence first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum IdSource {
    /// Found by correlating the agent's own session store with the pane.
    Correlation = 1,
    /// Pinned at launch (`--session-id` chosen by the launch wrapper).
    Launch = 2,
    /// Read from the agent's own process with no hook: its argv
    /// (`--resume ID`, `--session-id ID`), its pid registry entry, or a file
    /// it holds open whose name carries the id.
    Process = 3,
    /// A live hook or notify payload from the agent.
    Hook = 4,
    /// The agent's own exit hint, scraped from the pane's text.
    ExitHint = 5,
}

impl IdSource {
    /// Every variant.
    pub const VARIANTS: &'static [IdSource] = &[
        IdSource::Correlation,
        IdSource::Launch,
        IdSource::Process,
        IdSource::Hook,
        IdSource::ExitHint,
    ];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            IdSource::Correlation => "correlation",
            IdSource::Launch => "launch",
            IdSource::Process => "process",
            IdSource::Hook => "hook",
            IdSource::ExitHint => "exit_hint",
        }
    }

    /// Decodes a name.
    pub fn from_name(name: &str) -> Option<IdSource> {
        IdSource::VARIANTS
            .iter()
            .copied()
            .find(|s| s.as_str() == name)
    }
}

/// How a pane left the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DetachKind {
    /// Tab or window closed but undoable: keep.
    HiddenForClose,
    /// The application is shutting down: keep.
    Teardown,
    /// Permanently discarded: delete.
    Closed,
}

/// What the host can tell about a pane, asked only when the pair changed.
pub trait PaneContext {
    /// The agent's invocation text, through the host's obfuscated view.
    fn invocation(&self) -> Option<Cow<'_, str>>;
    /// The pane's directory.
    fn cwd(&self) -> Option<PathBuf>;
    /// The agent's config home, when known.
    fn config_home(&self) -> Option<PathBuf> {
        None
    }
    /// What the directory `cwd` is now ([`DirIdentity`]), asked only when a
    /// recording is made. `None` (the default) records no identity: the
    /// restore then accepts the directory only where its recorded path is
    /// still canonical.
    fn dir_identity(&self, _cwd: &std::path::Path) -> Option<DirIdentity> {
        None
    }
}

/// One capture event: an agent in a pane reported (or did not report) an id.
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    /// The pane.
    pub pane: PaneId,
    /// The agent.
    pub agent: AgentKind,
    /// The id it reported, if any.
    pub session_id: Option<&'a str>,
    /// Where the id came from.
    pub source: IdSource,
    /// The run is headless (`claude -p`, `codex exec`, headless JSON output).
    pub headless: bool,
}

/// What the store must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Save this recording for the pane.
    Save(Recording),
    /// The agent ended while attached: clear the pane's recording.
    Clear,
    /// The pane is gone for good: delete its recording.
    Delete,
}

#[derive(Clone, Debug)]
struct PaneState {
    agent: AgentKind,
    session_id: String,
    source: IdSource,
    recording: Option<Recording>,
}

/// The per-pane capture state.
#[derive(Debug, Default)]
pub struct Capture {
    panes: HashMap<PaneId, PaneState>,
}

impl Capture {
    /// An empty state machine.
    pub fn new() -> Self {
        Self::default()
    }

    /// Seeds a pane from what the store already holds (the CLI's hook runs in
    /// a fresh process per event). The stored source is unknown: it is taken
    /// as a live hook, so only a hook or exit hint replaces it within a run.
    pub fn seed(&mut self, pane: PaneId, recording: Recording) {
        self.panes.insert(
            pane,
            PaneState {
                agent: recording.agent,
                session_id: recording.session_id.clone(),
                source: IdSource::Hook,
                recording: Some(recording),
            },
        );
    }

    /// The recording capture last persisted for `pane`.
    pub fn recording(&self, pane: PaneId) -> Option<&Recording> {
        self.panes.get(&pane).and_then(|s| s.recording.as_ref())
    }

    /// Handles one observation at `now`.
    #[inline]
    pub fn observe(
        &mut self,
        obs: &Observation<'_>,
        ctx: &dyn PaneContext,
        now: UnixMillis,
    ) -> Option<Change> {
        // The hot path, inlined into the caller: one lookup, one short
        // compare, no allocation. Everything else is out of line.
        if let (false, Some(id)) = (obs.headless, obs.session_id) {
            if let Some(state) = self.panes.get(&obs.pane) {
                if state.agent == obs.agent && state.session_id == id {
                    return None;
                }
            }
        }
        self.observe_changed(obs, ctx, now)
    }

    #[inline(never)]
    fn observe_changed(
        &mut self,
        obs: &Observation<'_>,
        ctx: &dyn PaneContext,
        now: UnixMillis,
    ) -> Option<Change> {
        if obs.headless {
            return None;
        }
        // A known id is never overwritten by an absent one.
        let id = obs.session_id?;
        if let Some(state) = self.panes.get(&obs.pane) {
            if state.agent == obs.agent && state.session_id == id {
                return None;
            }
            // A new launch starts a new run; otherwise a lower-precedence
            // source never overrides a higher one within the run.
            if obs.source != IdSource::Launch
                && state.agent == obs.agent
                && obs.source < state.source
            {
                return None;
            }
        }
        let agent = Catalog::embedded().agent(obs.agent);
        let (flags, program) = match ctx.invocation().as_deref().map(|text| extract(agent, text)) {
            Some(Ok(Extraction::Headless)) => return None,
            Some(Ok(Extraction::Interactive { flags, program })) => (flags, program),
            // Unknown or unreadable invocation: record the id with no flags
            // and the declared program word.
            Some(Err(_)) | None => (Vec::new(), None),
        };
        let cwd = ctx.cwd()?;
        let recording = Recording {
            agent: obs.agent,
            session_id: id.to_owned(),
            flags,
            program,
            dir: ctx.dir_identity(&cwd),
            cwd,
            observed_at: now,
            config_home: ctx.config_home(),
        };
        let state = self.panes.entry(obs.pane).or_insert_with(|| PaneState {
            agent: obs.agent,
            session_id: String::new(),
            source: obs.source,
            recording: None,
        });
        state.agent = obs.agent;
        state.session_id.clear();
        state.session_id.push_str(id);
        state.source = obs.source;
        // The final guard: identical content is not written again.
        let same = state.recording.as_ref().is_some_and(|r| {
            r.agent == recording.agent
                && r.session_id == recording.session_id
                && r.flags == recording.flags
                && r.program == recording.program
                && r.cwd == recording.cwd
                && r.config_home == recording.config_home
                && r.dir == recording.dir
        });
        if same {
            return None;
        }
        state.recording = Some(recording.clone());
        Some(Change::Save(recording))
    }

    /// The agent in `pane` ended while the pane was attached.
    pub fn agent_ended(&mut self, pane: PaneId) -> Change {
        self.panes.remove(&pane);
        Change::Clear
    }

    /// The agent in `pane` was suspended (job control): keep everything.
    pub fn suspended(&mut self, _pane: PaneId) -> Option<Change> {
        None
    }

    /// `pane` left the screen.
    pub fn detach(&mut self, pane: PaneId, kind: DetachKind) -> Option<Change> {
        match kind {
            DetachKind::HiddenForClose | DetachKind::Teardown => None,
            DetachKind::Closed => {
                self.panes.remove(&pane);
                Some(Change::Delete)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
    const B: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";

    struct Ctx(&'static str);
    impl PaneContext for Ctx {
        fn invocation(&self) -> Option<Cow<'_, str>> {
            Some(Cow::Borrowed(self.0))
        }
        fn cwd(&self) -> Option<PathBuf> {
            Some("/p".into())
        }
    }

    fn obs(id: Option<&str>, source: IdSource) -> Observation<'_> {
        Observation {
            pane: PaneId::from_bytes([1; 16]),
            agent: AgentKind::Claude,
            session_id: id,
            source,
            headless: false,
        }
    }

    #[test]
    fn unchanged_pair_writes_nothing() {
        let mut c = Capture::new();
        let ctx = Ctx("claude --model opus");
        assert!(matches!(
            c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(1)),
            Some(Change::Save(_))
        ));
        assert_eq!(
            c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(2)),
            None
        );
    }

    #[test]
    fn second_conversation_in_the_same_pane_wins() {
        let mut c = Capture::new();
        let ctx = Ctx("claude");
        c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(1));
        let Some(Change::Save(r)) = c.observe(&obs(Some(B), IdSource::Hook), &ctx, UnixMillis(2))
        else {
            panic!()
        };
        assert_eq!(r.session_id, B);
    }

    #[test]
    fn known_id_is_never_overwritten_by_an_absent_one() {
        let mut c = Capture::new();
        let ctx = Ctx("claude");
        c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(1));
        assert_eq!(
            c.observe(&obs(None, IdSource::Hook), &ctx, UnixMillis(2)),
            None
        );
        assert_eq!(
            c.recording(PaneId::from_bytes([1; 16]))
                .map(|r| r.session_id.as_str()),
            Some(A)
        );
    }

    #[test]
    fn headless_run_never_overwrites_the_interactive_recording() {
        let mut c = Capture::new();
        c.observe(&obs(Some(A), IdSource::Hook), &Ctx("claude"), UnixMillis(1));
        let mut o = obs(Some(B), IdSource::Hook);
        o.headless = true;
        assert_eq!(c.observe(&o, &Ctx("claude"), UnixMillis(2)), None);
        assert_eq!(
            c.observe(
                &obs(Some(B), IdSource::Hook),
                &Ctx("claude -p hi"),
                UnixMillis(3)
            ),
            None
        );
        assert_eq!(
            c.recording(PaneId::from_bytes([1; 16]))
                .map(|r| r.session_id.as_str()),
            Some(A)
        );
    }

    #[test]
    fn exit_hint_outranks_hook_and_hook_outranks_correlation_within_a_run() {
        let mut c = Capture::new();
        let ctx = Ctx("claude");
        c.observe(&obs(Some(A), IdSource::ExitHint), &ctx, UnixMillis(1));
        assert_eq!(
            c.observe(&obs(Some(B), IdSource::Hook), &ctx, UnixMillis(2)),
            None
        );
        let mut c = Capture::new();
        c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(1));
        assert_eq!(
            c.observe(&obs(Some(B), IdSource::Correlation), &ctx, UnixMillis(2)),
            None
        );
        assert!(c
            .observe(&obs(Some(B), IdSource::ExitHint), &ctx, UnixMillis(3))
            .is_some());
        // A new launch starts a new run.
        assert!(c
            .observe(&obs(Some(A), IdSource::Launch), &ctx, UnixMillis(4))
            .is_some());
    }

    #[test]
    fn detach_kinds() {
        let mut c = Capture::new();
        let p = PaneId::from_bytes([1; 16]);
        assert_eq!(c.detach(p, DetachKind::HiddenForClose), None);
        assert_eq!(c.detach(p, DetachKind::Teardown), None);
        assert_eq!(c.suspended(p), None);
        assert_eq!(c.detach(p, DetachKind::Closed), Some(Change::Delete));
        assert_eq!(c.agent_ended(p), Change::Clear);
    }
}
