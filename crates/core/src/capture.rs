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
use crate::flag::{detect, extract, Extraction};
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
struct Pair {
    agent: AgentKind,
    session_id: String,
    source: IdSource,
}

/// An observation that changed nothing and would change nothing again
/// while the pane's context stays (see [`Capture::remembering_refusals`]).
#[derive(Clone, Debug)]
struct Refusal {
    agent: AgentKind,
    session_id: String,
    source: IdSource,
    headless: bool,
}

#[derive(Clone, Debug, Default)]
struct PaneState {
    /// The pair last adopted, with its source within the run.
    pair: Option<Pair>,
    recording: Option<Recording>,
    /// A run started since `pair` was adopted: the same pair is compared
    /// once more against this run's flags.
    new_run: bool,
    /// The current run is headless: its exit clears nothing.
    run_headless: bool,
    refused: Option<Refusal>,
}

/// What one slow-path observation came to.
enum Step {
    Changed(Change),
    /// Nothing to write; the pair is the pane's.
    Unchanged,
    /// Nothing to write, and the same observation would be refused again
    /// while the pane's context stays.
    Refused,
}

/// The per-pane capture state.
#[derive(Debug, Default)]
pub struct Capture {
    panes: HashMap<PaneId, PaneState>,
    remember_refusals: bool,
}

impl Capture {
    /// An empty state machine.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty state machine that also remembers refused observations
    /// (headless, an unknown directory, a lower-precedence source), keyed
    /// by agent, id, source and headlessness, so the same observation
    /// repeated settles on one map lookup. The owner must call
    /// [`Capture::context_changed`] whenever what its [`PaneContext`]
    /// answers for a pane changes (invocation, directory).
    pub fn remembering_refusals() -> Self {
        Capture {
            panes: HashMap::new(),
            remember_refusals: true,
        }
    }

    /// Seeds a pane from what the store already holds (the CLI's hook runs in
    /// a fresh process per event). The stored source is unknown: it is taken
    /// as a live hook, so only a hook or exit hint replaces it within a run.
    pub fn seed(&mut self, pane: PaneId, recording: Recording) {
        self.panes.insert(
            pane,
            PaneState {
                pair: Some(Pair {
                    agent: recording.agent,
                    session_id: recording.session_id.clone(),
                    source: IdSource::Hook,
                }),
                recording: Some(recording),
                ..PaneState::default()
            },
        );
    }

    /// The recording capture last persisted for `pane`.
    pub fn recording(&self, pane: PaneId) -> Option<&Recording> {
        self.panes.get(&pane).and_then(|s| s.recording.as_ref())
    }

    /// What the host's [`PaneContext`] answers for `pane` changed: a
    /// remembered refusal is asked again.
    pub fn context_changed(&mut self, pane: PaneId) {
        if let Some(state) = self.panes.get_mut(&pane) {
            state.refused = None;
        }
    }

    /// Handles one observation at `now`.
    #[inline]
    pub fn observe(
        &mut self,
        obs: &Observation<'_>,
        ctx: &dyn PaneContext,
        now: UnixMillis,
    ) -> Option<Change> {
        self.observe_lazy(obs, ctx, || now)
    }

    /// [`Capture::observe`], reading the clock only when something may
    /// change: the repeated event reads no clock.
    #[inline]
    pub fn observe_lazy(
        &mut self,
        obs: &Observation<'_>,
        ctx: &dyn PaneContext,
        now: impl FnOnce() -> UnixMillis,
    ) -> Option<Change> {
        // The hot path, inlined into the caller: one lookup, one short
        // compare, no allocation. Everything else is out of line.
        if let Some(id) = obs.session_id {
            if let Some(state) = self.panes.get(&obs.pane) {
                // A remembered refusal first: absent (the common case) it
                // costs one branch; present, the pane's own pair rarely
                // is what repeats.
                if let Some(r) = &state.refused {
                    if r.agent == obs.agent
                        && r.source == obs.source
                        && r.headless == obs.headless
                        && r.session_id == id
                    {
                        return None;
                    }
                }
                if let (false, false, Some(p)) = (obs.headless, state.new_run, &state.pair) {
                    if p.agent == obs.agent && p.session_id == id {
                        return None;
                    }
                }
            }
        }
        self.observe_changed(obs, ctx, now())
    }

    #[inline(never)]
    fn observe_changed(
        &mut self,
        obs: &Observation<'_>,
        ctx: &dyn PaneContext,
        now: UnixMillis,
    ) -> Option<Change> {
        match self.step(obs, ctx, now) {
            Step::Changed(change) => {
                if let Some(state) = self.panes.get_mut(&obs.pane) {
                    state.refused = None;
                }
                Some(change)
            }
            Step::Unchanged => None,
            Step::Refused => {
                if let (true, Some(id)) = (self.remember_refusals, obs.session_id) {
                    let state = self.panes.entry(obs.pane).or_default();
                    let r = state.refused.get_or_insert_with(|| Refusal {
                        agent: obs.agent,
                        session_id: String::new(),
                        source: obs.source,
                        headless: obs.headless,
                    });
                    r.agent = obs.agent;
                    r.session_id.clear();
                    r.session_id.push_str(id);
                    r.source = obs.source;
                    r.headless = obs.headless;
                }
                None
            }
        }
    }

    fn step(&mut self, obs: &Observation<'_>, ctx: &dyn PaneContext, now: UnixMillis) -> Step {
        if obs.headless {
            return Step::Refused;
        }
        // A known id is never overwritten by an absent one.
        let Some(id) = obs.session_id else {
            return Step::Unchanged;
        };
        let agent = Catalog::embedded().agent(obs.agent);
        if let Some(state) = self.panes.get_mut(&obs.pane) {
            if let Some(pair) = &state.pair {
                if pair.agent == obs.agent && pair.session_id == id {
                    if !state.new_run {
                        return Step::Unchanged;
                    }
                    // A new run reporting the id the pane holds: recorded
                    // again when this run shows other flags or another
                    // program word (a recording carries the flags of the
                    // run that reported), else the pane's as it is.
                    let other = state.recording.as_ref().is_some_and(|rec| {
                        match ctx.invocation().as_deref().map(|text| extract(agent, text)) {
                            Some(Ok(Extraction::Interactive { flags, program })) => {
                                flags != rec.flags || program != rec.program
                            }
                            Some(Ok(Extraction::Headless) | Err(_)) | None => false,
                        }
                    });
                    if !other {
                        state.new_run = false;
                        return Step::Unchanged;
                    }
                    // As a pane holding nothing: no precedence to respect.
                    state.pair = None;
                }
            }
            // A new launch starts a new run; otherwise a lower-precedence
            // source never overrides a higher one within the run.
            if let Some(pair) = &state.pair {
                if obs.source != IdSource::Launch
                    && pair.agent == obs.agent
                    && obs.source < pair.source
                {
                    return Step::Refused;
                }
            }
        }
        let (flags, program) = match ctx.invocation().as_deref().map(|text| extract(agent, text)) {
            Some(Ok(Extraction::Headless)) => return Step::Refused,
            Some(Ok(Extraction::Interactive { flags, program })) => (flags, program),
            // Unknown or unreadable invocation: record the id with no flags
            // and the declared program word.
            Some(Err(_)) | None => (Vec::new(), None),
        };
        let Some(cwd) = ctx.cwd() else {
            return Step::Refused;
        };
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
        let state = self.panes.entry(obs.pane).or_default();
        let pair = state.pair.get_or_insert_with(|| Pair {
            agent: obs.agent,
            session_id: String::new(),
            source: obs.source,
        });
        pair.agent = obs.agent;
        pair.session_id.clear();
        pair.session_id.push_str(id);
        pair.source = obs.source;
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
            return Step::Unchanged;
        }
        state.new_run = false;
        state.recording = Some(recording.clone());
        Step::Changed(Change::Save(recording))
    }

    /// A new run of an agent started in `pane` (`ctx` answers for it): as
    /// the CLI, which reads the pane's stored recording afresh for every
    /// event, the pane's id is kept, but its source counts as a live hook
    /// again, the next report of the same id is compared with this run's
    /// flags, and a headless run is remembered so its exit clears nothing.
    pub fn run_started(&mut self, pane: PaneId, ctx: &dyn PaneContext) {
        let headless = ctx.invocation().is_some_and(|text| {
            detect(Catalog::embedded(), &text)
                .is_some_and(|agent| matches!(extract(agent, &text), Ok(Extraction::Headless)))
        });
        let state = self.panes.entry(pane).or_default();
        state.run_headless = headless;
        state.refused = None;
        Self::end_run(state);
    }

    fn end_run(state: &mut PaneState) {
        if let Some(pair) = &mut state.pair {
            pair.source = IdSource::Hook;
            state.new_run = true;
        }
    }

    /// The agent in `pane` ended while the pane was attached: cleared.
    /// See [`Capture::agent_exited`] for the exit status rule.
    pub fn agent_ended(&mut self, pane: PaneId) -> Change {
        self.panes.remove(&pane);
        Change::Clear
    }

    /// The agent in `pane` exited with `status` while the pane was
    /// attached. Exit 0 clears the recording; any other status (an error,
    /// a signal, a failed resume, 148 for a suspended job) keeps it, and
    /// the next run is accepted as a new run. The exit of a headless run
    /// ([`Capture::run_started`]) clears nothing.
    pub fn agent_exited(&mut self, pane: PaneId, status: i32) -> Option<Change> {
        let headless = self.panes.get(&pane).is_some_and(|s| s.run_headless);
        if status == 0 && !headless {
            return Some(self.agent_ended(pane));
        }
        if let Some(state) = self.panes.get_mut(&pane) {
            state.run_headless = false;
            state.refused = None;
            Self::end_run(state);
        }
        None
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

    /// Counts what the host is asked, and answers what it is set to.
    struct Asked {
        invocation: Option<&'static str>,
        cwd: Option<&'static str>,
        asked: std::cell::Cell<u32>,
    }
    impl PaneContext for Asked {
        fn invocation(&self) -> Option<Cow<'_, str>> {
            self.asked.set(self.asked.get() + 1);
            self.invocation.map(Cow::Borrowed)
        }
        fn cwd(&self) -> Option<PathBuf> {
            self.asked.set(self.asked.get() + 1);
            self.cwd.map(PathBuf::from)
        }
    }

    fn asked(invocation: Option<&'static str>, cwd: Option<&'static str>) -> Asked {
        Asked {
            invocation,
            cwd,
            asked: std::cell::Cell::new(0),
        }
    }

    #[test]
    fn a_refused_observation_repeated_asks_the_host_nothing_until_its_context_changes() {
        let p = PaneId::from_bytes([1; 16]);
        for (label, ctx) in [
            ("unknown directory", asked(Some("claude"), None)),
            (
                "headless invocation",
                asked(Some("claude -p hi"), Some("/p")),
            ),
        ] {
            let mut c = Capture::remembering_refusals();
            assert_eq!(
                c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(1)),
                None
            );
            let first = ctx.asked.get();
            assert!(first > 0, "{label}");
            for t in 2..10 {
                assert_eq!(
                    c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(t)),
                    None
                );
            }
            assert_eq!(ctx.asked.get(), first, "{label}: the refusal is remembered");
            // Another id, source or headlessness is another observation.
            c.observe(&obs(Some(B), IdSource::Hook), &ctx, UnixMillis(11));
            assert!(ctx.asked.get() > first, "{label}: a new id is asked again");
            c.context_changed(p);
            let before = ctx.asked.get();
            c.observe(&obs(Some(B), IdSource::Hook), &ctx, UnixMillis(12));
            assert!(
                ctx.asked.get() > before,
                "{label}: a new context is asked again"
            );
        }
        // Once the directory is known, the id is recorded.
        let mut c = Capture::remembering_refusals();
        assert_eq!(
            c.observe(
                &obs(Some(A), IdSource::Hook),
                &asked(Some("claude"), None),
                UnixMillis(1)
            ),
            None
        );
        c.context_changed(p);
        assert!(c
            .observe(
                &obs(Some(A), IdSource::Hook),
                &asked(Some("claude"), Some("/p")),
                UnixMillis(2)
            )
            .is_some());
    }

    #[test]
    fn a_plain_capture_remembers_no_refusal() {
        let mut c = Capture::new();
        let ctx = asked(Some("claude"), None);
        c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(1));
        let first = ctx.asked.get();
        c.observe(&obs(Some(A), IdSource::Hook), &ctx, UnixMillis(2));
        assert_eq!(ctx.asked.get(), 2 * first);
    }

    #[test]
    fn a_new_run_reporting_the_same_id_with_other_flags_records_it_again() {
        let p = PaneId::from_bytes([1; 16]);
        let mut c = Capture::remembering_refusals();
        c.observe(
            &obs(Some(A), IdSource::Hook),
            &Ctx("claude --model opus"),
            UnixMillis(1),
        );
        let same = Ctx("claude --model opus");
        c.run_started(p, &same);
        assert_eq!(
            c.observe(&obs(Some(A), IdSource::Hook), &same, UnixMillis(2)),
            None
        );
        let other = Ctx("claude --model sonnet");
        c.run_started(p, &other);
        let Some(Change::Save(r)) = c.observe(&obs(Some(A), IdSource::Hook), &other, UnixMillis(3))
        else {
            panic!("recorded again")
        };
        assert_eq!(r.flags[0].value.as_deref(), Some("sonnet"));
        assert_eq!(
            c.observe(&obs(Some(A), IdSource::Hook), &other, UnixMillis(4)),
            None
        );
    }

    #[test]
    fn exit_zero_clears_any_other_status_keeps_and_the_next_run_is_accepted() {
        let p = PaneId::from_bytes([1; 16]);
        let ctx = Ctx("claude");
        let mut c = Capture::remembering_refusals();
        c.observe(&obs(Some(A), IdSource::ExitHint), &ctx, UnixMillis(1));
        assert_eq!(c.agent_exited(p, 1), None);
        assert!(c.recording(p).is_some(), "kept");
        // The next run's hook is a new run's id: adopted.
        assert!(c
            .observe(&obs(Some(B), IdSource::Hook), &ctx, UnixMillis(2))
            .is_some());
        assert_eq!(c.agent_exited(p, 148), None, "suspended: kept");
        assert_eq!(c.agent_exited(p, 0), Some(Change::Clear));
        assert!(c.recording(p).is_none());
    }

    #[test]
    fn the_exit_of_a_headless_run_clears_nothing() {
        let p = PaneId::from_bytes([1; 16]);
        let mut c = Capture::remembering_refusals();
        c.observe(&obs(Some(A), IdSource::Hook), &Ctx("claude"), UnixMillis(1));
        c.run_started(p, &Ctx("claude -p hi"));
        assert_eq!(c.agent_exited(p, 0), None);
        assert!(c.recording(p).is_some());
        c.run_started(p, &Ctx("claude"));
        assert_eq!(c.agent_exited(p, 0), Some(Change::Clear));
    }
}
