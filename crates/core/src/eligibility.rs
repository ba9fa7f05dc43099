//! The per-pane gate and the restore plan.
//!
//! Each restored pane gets a [`Verdict`]: `Resume(Invocation)` or
//! `Skip(Reason)` — a typed reason, never a bool, and never shown in the pane.
//! The gates run in a fixed order and the first that fails names the reason:
//!
//! feature disabled → not a startup pass → no recording → recording
//! unreadable → agent not resumable by id → agent not verified → session id fails its shape → shared
//! viewer → not local → recorded directory gone → directory mismatch →
//! directory changed → session missing → already running → pane has input
//! → queued command → duplicate claim lost.
//!
//! A pane the host already knows is busy (typed-into, or with a command
//! queued) is decided here too, so `plan`, `explain`, a restore and the
//! library all say the same; `take` checks the same two again when the
//! shell is ready.
//!
//! The claim check runs last, over the panes that passed everything else, so
//! a pane that could not resume anyway never takes an id from one that could.
//! Filesystem answers come through [`FsProbe`], and what the agents' own
//! session stores say through [`SessionProbe`]; with the feature off or on a
//! non-startup pass the plan makes no call to either.
//!
//! Within one plan the directory answers are memoized ([`MemoFs`]): many
//! recordings share few directories, so byte-equal directories share one
//! `is_dir` and one `canonicalize`, whatever the number of panes naming them.

use std::collections::BTreeMap;
use std::path::Path;

use crate::catalog::Catalog;
use crate::filesystem::{FsProbe, MemoFs};

use crate::claim::{winners, Claim};
use crate::invocation::{build, BuildRequest, Invocation};
use crate::layout::Layout;
use crate::pane::PaneId;
use crate::posture::{decide, PostureWindow, UnixMillis};
use crate::recording::{Recording, Stored};
use crate::AgentKind;

/// Why a pane was not resumed. Stored and sent: explicit discriminants,
/// stable snake_case names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Reason {
    /// The feature flag is off.
    FeatureDisabled = 1,
    /// Not the start-up restore pass.
    NotStartupPass = 2,
    /// The pane has no recording.
    NoRecording = 3,
    /// The pane's recording could not be read or decoded.
    RecordingUnreadable = 4,
    /// The agent is declared but not verified.
    AgentNotVerified = 5,
    /// The recorded session id fails the agent's id shape.
    InvalidSessionId = 6,
    /// The pane views a shared session.
    SharedViewer = 7,
    /// The host restored no local directory (remote pane).
    NotLocal = 8,
    /// The recorded directory no longer exists.
    DirectoryGone = 9,
    /// The restored directory is not the recorded one.
    DirectoryMismatch = 10,
    /// Another pane won the claim on this session id.
    DuplicateClaimLost = 11,
    /// At take time: the pane already has user input.
    PaneHasInput = 12,
    /// At take time: the host already queued a command.
    QueuedCommand = 13,
    /// The agent's own session store no longer holds the recorded session.
    SessionMissing = 14,
    /// A live process on this machine already holds the recorded session.
    AlreadyRunning = 15,
    /// The directory at the recorded path is no longer the directory the
    /// agent ran in (replaced, or a link put in its place).
    DirectoryChanged = 16,
    /// The pane's shell is one agent-resume cannot drive (PowerShell,
    /// nushell, …): it comes back as that plain shell.
    ShellUnsupported = 17,
    /// The agent cannot resume a conversation by its id at all (Continue's
    /// `cn`): the pane comes back as a plain shell.
    NotResumableById = 18,
}

impl Reason {
    /// Every variant, in the plan's gate order.
    pub const VARIANTS: &'static [Reason] = &[
        Reason::FeatureDisabled,
        Reason::NotStartupPass,
        Reason::NoRecording,
        Reason::RecordingUnreadable,
        Reason::NotResumableById,
        Reason::AgentNotVerified,
        Reason::InvalidSessionId,
        Reason::SharedViewer,
        Reason::ShellUnsupported,
        Reason::NotLocal,
        Reason::DirectoryGone,
        Reason::DirectoryMismatch,
        Reason::DirectoryChanged,
        Reason::SessionMissing,
        Reason::AlreadyRunning,
        Reason::PaneHasInput,
        Reason::QueuedCommand,
        Reason::DuplicateClaimLost,
    ];

    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::FeatureDisabled => "feature_disabled",
            Reason::NotStartupPass => "not_startup_pass",
            Reason::NoRecording => "no_recording",
            Reason::RecordingUnreadable => "recording_unreadable",
            Reason::NotResumableById => "not_resumable_by_id",
            Reason::AgentNotVerified => "agent_not_verified",
            Reason::InvalidSessionId => "invalid_session_id",
            Reason::SharedViewer => "shared_viewer",
            Reason::ShellUnsupported => "shell_unsupported",
            Reason::NotLocal => "not_local",
            Reason::DirectoryGone => "directory_gone",
            Reason::DirectoryMismatch => "directory_mismatch",
            Reason::DirectoryChanged => "directory_changed",
            Reason::SessionMissing => "session_missing",
            Reason::AlreadyRunning => "already_running",
            Reason::DuplicateClaimLost => "duplicate_claim_lost",
            Reason::PaneHasInput => "pane_has_input",
            Reason::QueuedCommand => "queued_command",
        }
    }

    /// A sentence for people (`explain`).
    pub const fn describe(self) -> &'static str {
        match self {
            Reason::FeatureDisabled => "the feature flag is off",
            Reason::NotStartupPass => "this is not the start-up restore pass",
            Reason::NoRecording => "no agent was recorded in this pane",
            Reason::RecordingUnreadable => "the pane's recording could not be read",
            Reason::NotResumableById => "the agent cannot resume a conversation by its id",
            Reason::AgentNotVerified => "the agent is declared but not verified for resume",
            Reason::InvalidSessionId => "the recorded session id fails the agent's id shape",
            Reason::SharedViewer => "the pane views a shared session",
            Reason::ShellUnsupported => "the pane's shell is not one agent-resume can drive",
            Reason::NotLocal => "the host restored no local directory for the pane",
            Reason::DirectoryGone => "the recorded directory no longer exists",
            Reason::DirectoryMismatch => "the pane's directory is not the recorded one",
            Reason::DirectoryChanged => {
                "the directory at the recorded path is not the one the agent ran in"
            }
            Reason::SessionMissing => "the agent's session store no longer holds the conversation",
            Reason::AlreadyRunning => {
                "a running process on this machine already holds the conversation"
            }
            Reason::DuplicateClaimLost => "a better-placed pane claims the same conversation",
            Reason::PaneHasInput => "the pane already has user input",
            Reason::QueuedCommand => "the host already queued a command for the pane",
        }
    }

    /// A sentence for a gate that passed (`explain`).
    pub const fn passed(self) -> &'static str {
        match self {
            Reason::FeatureDisabled => "the feature flag is on",
            Reason::NotStartupPass => "this is the start-up restore pass",
            Reason::NoRecording => "an agent was recorded in this pane",
            Reason::RecordingUnreadable => "the recording reads back cleanly",
            Reason::NotResumableById => "the agent resumes a conversation by its id",
            Reason::AgentNotVerified => "the agent is verified for resume",
            Reason::InvalidSessionId => "the session id matches the agent's id shape",
            Reason::SharedViewer => "the pane is not a shared-session viewer",
            Reason::ShellUnsupported => "the pane's shell is bash, zsh, fish or sh",
            Reason::NotLocal => "the host restored a local directory",
            Reason::DirectoryGone => "the recorded directory exists",
            Reason::DirectoryMismatch => "the pane's directory is the recorded one",
            Reason::DirectoryChanged => "the directory is still the one the agent ran in",
            Reason::SessionMissing => {
                "the agent's session store holds the conversation (or cannot tell)"
            }
            Reason::AlreadyRunning => "no running process holds the conversation",
            Reason::DuplicateClaimLost => "no better-placed pane claims the same conversation",
            Reason::PaneHasInput => "the pane has no user input",
            Reason::QueuedCommand => "no command is queued for the pane",
        }
    }

    /// The plan's gates, in order: every reason is one (`pane_has_input`
    /// and `queued_command` are checked again at take).
    pub const GATES: &'static [Reason] = Reason::VARIANTS;

    /// Decodes a stored discriminant.
    pub fn from_code(code: u8) -> Option<Reason> {
        Reason::VARIANTS.iter().copied().find(|r| *r as u8 == code)
    }
}

/// Per-pane decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Resume with this invocation.
    Resume(Invocation),
    /// Come back as a plain shell, silently, for this reason.
    Skip(Reason),
}

/// What the agents' own session stores and this machine's processes say
/// about a recorded session. The real one lives outside `core` (the
/// discovery crate); with no probe both gates pass.
pub trait SessionProbe {
    /// Whether the agent's session store holds `session_id`: `None` when it
    /// cannot tell (store missing or unreadable), which passes the gate.
    /// `config_home` is the recording's config home, when capture knew it.
    fn exists(
        &self,
        agent: AgentKind,
        session_id: &str,
        config_home: Option<&Path>,
    ) -> Option<bool>;
    /// Whether a live process on this machine already holds `session_id`.
    fn running(&self, agent: AgentKind, session_id: &str) -> bool;
}

/// Everything the plan decides from.
pub struct PlanInput<'a> {
    /// The feature flag.
    pub enabled: bool,
    /// The restored layout.
    pub layout: &'a Layout,
    /// What the store holds, per pane.
    pub recordings: &'a BTreeMap<PaneId, Stored>,
    /// The clock, passed in.
    pub now: UnixMillis,
    /// Posture freshness window.
    pub window: PostureWindow,
    /// Filesystem answers.
    pub fs: &'a dyn FsProbe,
    /// Session-store answers; `None` (no discovery) passes both session gates.
    pub sessions: Option<&'a dyn SessionProbe>,
}

/// The decision for one pane, with what telemetry and `explain` need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanePlan {
    /// The pane.
    pub pane: PaneId,
    /// Resume or skip.
    pub verdict: Verdict,
    /// Whether the store held anything for the pane (even unreadable).
    pub had_recording: bool,
    /// The recorded agent, when readable.
    pub agent: Option<AgentKind>,
    /// Age of the recording in milliseconds, when readable.
    pub age_millis: Option<i64>,
    /// The number of gates passed before the verdict (for `explain`).
    pub gates_passed: usize,
}

/// `reason` with the number of gates passed before it (its place in
/// [`Reason::GATES`]), for `explain`.
fn stop(reason: Reason) -> (Reason, usize) {
    let at = Reason::GATES.iter().position(|g| *g == reason);
    (
        reason,
        at.expect("every reason is a gate, because GATES is VARIANTS"),
    )
}

/// Gates before the claim check, for one pane with a readable recording.
fn pre_claim(
    input: &PlanInput<'_>,
    fs: &MemoFs<'_>,
    spec: &crate::layout::PaneSpec,
    rec: &Recording,
) -> Result<Invocation, (Reason, usize)> {
    // Gates 1–4 (feature, pass, recording present, readable) already passed.
    let agent = Catalog::embedded().agent(rec.agent);
    if !agent.resumable_by_id {
        return Err(stop(Reason::NotResumableById));
    }
    if !agent.verified {
        return Err(stop(Reason::AgentNotVerified));
    }
    if !agent.id_shape.matches(&rec.session_id) {
        return Err(stop(Reason::InvalidSessionId));
    }
    if spec.shared_viewer {
        return Err(stop(Reason::SharedViewer));
    }
    let Some(shell) = spec.shell else {
        return Err(stop(Reason::ShellUnsupported));
    };
    let Some(restored) = &spec.cwd else {
        return Err(stop(Reason::NotLocal));
    };
    if !fs.is_dir(&rec.cwd) {
        return Err(stop(Reason::DirectoryGone));
    }
    let same = match (fs.canonicalize(restored), fs.canonicalize(&rec.cwd)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    if !same {
        return Err(stop(Reason::DirectoryMismatch));
    }
    if !still_the_directory(fs, restored, rec) {
        return Err(stop(Reason::DirectoryChanged));
    }
    if let Some(sessions) = input.sessions {
        let home = rec.config_home.as_deref();
        if sessions.exists(rec.agent, &rec.session_id, home) == Some(false) {
            return Err(stop(Reason::SessionMissing));
        }
        if sessions.running(rec.agent, &rec.session_id) {
            return Err(stop(Reason::AlreadyRunning));
        }
    }
    if spec.has_input {
        return Err(stop(Reason::PaneHasInput));
    }
    if spec.queued_command {
        return Err(stop(Reason::QueuedCommand));
    }
    let posture = decide(rec.observed_at, input.now, input.window);
    build(&BuildRequest {
        agent,
        session_id: &rec.session_id,
        flags: &rec.flags,
        program: crate::program::trusted(agent, rec.program.as_deref(), fs),
        posture,
        shell,
    })
    // Shapes make every word quotable; if that ever failed, the recording is
    // what is wrong.
    .map_err(|_| stop(Reason::RecordingUnreadable))
}

/// Whether the pane's restored directory is still the directory the agent
/// ran in. With an identity recorded, the restored directory must have it
/// now (canonical path, filesystem and inode); without one (a recording
/// from before identities were kept, or a host that cannot tell), the
/// recorded path must still be canonical itself, so a link put in place of
/// a directory on the way is never followed into another directory.
fn still_the_directory(fs: &dyn FsProbe, restored: &Path, rec: &Recording) -> bool {
    match &rec.dir {
        Some(was) => fs.identity(restored).as_ref() == Some(was),
        None => fs.canonicalize(&rec.cwd).as_deref() == Some(rec.cwd.as_path()),
    }
}

/// Decides every pane of the layout.
pub fn plan(input: &PlanInput<'_>) -> Vec<PanePlan> {
    let fs = MemoFs::new(input.fs);
    let mut out = Vec::new();
    let mut eligible: Vec<(usize, Claim<'_>)> = Vec::new();
    for (spec, placement) in input.layout.panes() {
        let stored = input.recordings.get(&spec.id);
        let had_recording = stored.is_some();
        let rec = match stored {
            Some(Stored::Recording(r)) => Some(r),
            _ => None,
        };
        let mut p = PanePlan {
            pane: spec.id,
            verdict: Verdict::Skip(Reason::FeatureDisabled),
            had_recording,
            agent: rec.map(|r| r.agent),
            age_millis: rec.map(|r| r.observed_at.until(input.now)),
            gates_passed: 0,
        };
        let early = if !input.enabled {
            Some(stop(Reason::FeatureDisabled))
        } else if !input.layout.startup {
            Some(stop(Reason::NotStartupPass))
        } else {
            match stored {
                None => Some(stop(Reason::NoRecording)),
                Some(Stored::Unreadable) => Some(stop(Reason::RecordingUnreadable)),
                Some(Stored::Recording(_)) => None,
            }
        };
        if let Some((reason, passed)) = early {
            p.verdict = Verdict::Skip(reason);
            p.gates_passed = passed;
            out.push(p);
            continue;
        }
        let Some(rec) = rec else { continue };
        match pre_claim(input, &fs, spec, rec) {
            Ok(inv) => {
                p.verdict = Verdict::Resume(inv);
                p.gates_passed = stop(Reason::DuplicateClaimLost).1;
                eligible.push((
                    out.len(),
                    Claim {
                        pane: spec.id,
                        agent: rec.agent,
                        session_id: &rec.session_id,
                        placement,
                        observed_at: rec.observed_at,
                    },
                ));
            }
            Err((reason, passed)) => {
                p.verdict = Verdict::Skip(reason);
                p.gates_passed = passed;
            }
        }
        out.push(p);
    }
    let claims: Vec<Claim<'_>> = eligible.iter().map(|(_, c)| *c).collect();
    let won = winners(&claims);
    for (i, c) in &eligible {
        if won.get(&(c.agent, c.session_id)) != Some(&c.pane) {
            out[*i].verdict = Verdict::Skip(Reason::DuplicateClaimLost);
        } else {
            out[*i].gates_passed = Reason::GATES.len();
        }
    }
    out
}
