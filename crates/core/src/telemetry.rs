//! Telemetry: one closed-enum outcome event per restored pane that carried a
//! recording.
//!
//! The event holds closed enums and one bool — no `String`, no number taken
//! from input — so nothing the user typed, no path, id or flag value can
//! reach it. A pane without a recording emits nothing (there is no outcome
//! for it), and with the feature off nothing is emitted at all.
//!
//! Field reference: `docs/telemetry.md`.

use serde::{Serialize, Serializer};

use crate::eligibility::{PanePlan, Reason, Verdict};
use crate::AgentKind;

const HOUR: i64 = 3600 * 1000;

/// What happened to a pane that had a recording. Explicit discriminants
/// (equal to the [`Reason`] codes; the take-time outcomes that are no
/// [`Reason`], `Resumed` and `ArmedExpired`, have their own from 100 up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Outcome {
    /// The pane resumed its conversation.
    Resumed = 100,
    /// Skipped: not the start-up pass.
    NotStartupPass = 2,
    /// Skipped: the recording could not be read.
    RecordingUnreadable = 4,
    /// Skipped: the agent is not verified.
    AgentNotVerified = 5,
    /// Skipped: the session id fails its shape.
    InvalidSessionId = 6,
    /// Skipped: a shared-session viewer.
    SharedViewer = 7,
    /// Skipped: no local directory.
    NotLocal = 8,
    /// Skipped: the recorded directory is gone.
    DirectoryGone = 9,
    /// Skipped: the directory does not match.
    DirectoryMismatch = 10,
    /// Skipped: another pane won the claim.
    DuplicateClaimLost = 11,
    /// Refused at take: the pane had user input.
    PaneHasInput = 12,
    /// Refused at take: a command was queued.
    QueuedCommand = 13,
    /// Skipped: the agent's session store no longer holds the session.
    SessionMissing = 14,
    /// Skipped: a live process already holds the session.
    AlreadyRunning = 15,
    /// Skipped: the directory at the recorded path is another directory.
    DirectoryChanged = 16,
    /// Skipped: the pane's shell is one agent-resume cannot drive.
    ShellUnsupported = 17,
    /// Skipped: the agent cannot resume a conversation by its id.
    NotResumableById = 18,
    /// Dropped at take: the armed line was older than the armed expiry (or
    /// dated in the future), so it was consumed and not typed.
    ArmedExpired = 101,
    /// After a resume, the agent reported the conversation it was resumed
    /// on.
    ResumeConfirmed = 102,
    /// After a resume, nothing reported the pane's conversation in time,
    /// or the agent reported another one.
    ResumeNotConfirmed = 103,
    /// The resumed agent ended at once without reporting: the resume
    /// failed, and the pane's recording is kept for the next restart.
    ResumeExited = 104,
    /// Asked before resuming (`restore = "ask"`), the user said no.
    Declined = 105,
}

impl Outcome {
    /// Every variant.
    pub const VARIANTS: &'static [Outcome] = &[
        Outcome::Resumed,
        Outcome::NotStartupPass,
        Outcome::RecordingUnreadable,
        Outcome::NotResumableById,
        Outcome::AgentNotVerified,
        Outcome::InvalidSessionId,
        Outcome::SharedViewer,
        Outcome::ShellUnsupported,
        Outcome::NotLocal,
        Outcome::DirectoryGone,
        Outcome::DirectoryMismatch,
        Outcome::DirectoryChanged,
        Outcome::SessionMissing,
        Outcome::AlreadyRunning,
        Outcome::DuplicateClaimLost,
        Outcome::PaneHasInput,
        Outcome::QueuedCommand,
        Outcome::ArmedExpired,
        Outcome::ResumeConfirmed,
        Outcome::ResumeNotConfirmed,
        Outcome::ResumeExited,
        Outcome::Declined,
    ];

    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Resumed => "resumed",
            Outcome::NotStartupPass => Reason::NotStartupPass.as_str(),
            Outcome::RecordingUnreadable => Reason::RecordingUnreadable.as_str(),
            Outcome::NotResumableById => Reason::NotResumableById.as_str(),
            Outcome::AgentNotVerified => Reason::AgentNotVerified.as_str(),
            Outcome::InvalidSessionId => Reason::InvalidSessionId.as_str(),
            Outcome::SharedViewer => Reason::SharedViewer.as_str(),
            Outcome::ShellUnsupported => Reason::ShellUnsupported.as_str(),
            Outcome::NotLocal => Reason::NotLocal.as_str(),
            Outcome::DirectoryGone => Reason::DirectoryGone.as_str(),
            Outcome::DirectoryMismatch => Reason::DirectoryMismatch.as_str(),
            Outcome::DirectoryChanged => Reason::DirectoryChanged.as_str(),
            Outcome::SessionMissing => Reason::SessionMissing.as_str(),
            Outcome::AlreadyRunning => Reason::AlreadyRunning.as_str(),
            Outcome::DuplicateClaimLost => Reason::DuplicateClaimLost.as_str(),
            Outcome::PaneHasInput => Reason::PaneHasInput.as_str(),
            Outcome::QueuedCommand => Reason::QueuedCommand.as_str(),
            Outcome::ArmedExpired => "armed_expired",
            Outcome::ResumeConfirmed => "resume_confirmed",
            Outcome::ResumeNotConfirmed => "resume_not_confirmed",
            Outcome::ResumeExited => "resume_exited",
            Outcome::Declined => "declined",
        }
    }

    /// Decodes a name.
    pub fn from_name(name: &str) -> Option<Outcome> {
        Outcome::VARIANTS
            .iter()
            .copied()
            .find(|o| o.as_str() == name)
    }

    /// The outcome of a skip; `None` for reasons that never reach telemetry
    /// (feature off: nothing is emitted; no recording: nothing to report).
    pub const fn from_reason(reason: Reason) -> Option<Outcome> {
        match reason {
            Reason::FeatureDisabled | Reason::NoRecording => None,
            Reason::NotStartupPass => Some(Outcome::NotStartupPass),
            Reason::RecordingUnreadable => Some(Outcome::RecordingUnreadable),
            Reason::NotResumableById => Some(Outcome::NotResumableById),
            Reason::AgentNotVerified => Some(Outcome::AgentNotVerified),
            Reason::InvalidSessionId => Some(Outcome::InvalidSessionId),
            Reason::SharedViewer => Some(Outcome::SharedViewer),
            Reason::ShellUnsupported => Some(Outcome::ShellUnsupported),
            Reason::NotLocal => Some(Outcome::NotLocal),
            Reason::DirectoryGone => Some(Outcome::DirectoryGone),
            Reason::DirectoryMismatch => Some(Outcome::DirectoryMismatch),
            Reason::DirectoryChanged => Some(Outcome::DirectoryChanged),
            Reason::SessionMissing => Some(Outcome::SessionMissing),
            Reason::AlreadyRunning => Some(Outcome::AlreadyRunning),
            Reason::DuplicateClaimLost => Some(Outcome::DuplicateClaimLost),
            Reason::PaneHasInput => Some(Outcome::PaneHasInput),
            Reason::QueuedCommand => Some(Outcome::QueuedCommand),
        }
    }
}

/// How old the recording was. Bands close at their upper edge and put 6 h,
/// 12 h (the default posture window) and 24 h on edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum AgeBand {
    /// 0 ≤ age ≤ 1 h.
    Le1h = 1,
    /// 1 h < age ≤ 6 h.
    Le6h = 2,
    /// 6 h < age ≤ 12 h.
    Le12h = 3,
    /// 12 h < age ≤ 24 h.
    Le24h = 4,
    /// 24 h < age ≤ 72 h.
    Le72h = 5,
    /// 72 h < age ≤ 7 days.
    Le7d = 6,
    /// Older than 7 days.
    Gt7d = 7,
    /// Dated in the future.
    Future = 8,
    /// The age could not be read.
    Unknown = 9,
}

impl AgeBand {
    /// Every variant, youngest first.
    pub const VARIANTS: &'static [AgeBand] = &[
        AgeBand::Le1h,
        AgeBand::Le6h,
        AgeBand::Le12h,
        AgeBand::Le24h,
        AgeBand::Le72h,
        AgeBand::Le7d,
        AgeBand::Gt7d,
        AgeBand::Future,
        AgeBand::Unknown,
    ];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            AgeBand::Le1h => "le_1h",
            AgeBand::Le6h => "le_6h",
            AgeBand::Le12h => "le_12h",
            AgeBand::Le24h => "le_24h",
            AgeBand::Le72h => "le_72h",
            AgeBand::Le7d => "le_7d",
            AgeBand::Gt7d => "gt_7d",
            AgeBand::Future => "future",
            AgeBand::Unknown => "unknown",
        }
    }

    /// Decodes a name.
    pub fn from_name(name: &str) -> Option<AgeBand> {
        AgeBand::VARIANTS
            .iter()
            .copied()
            .find(|b| b.as_str() == name)
    }

    /// The band of an age in milliseconds.
    pub const fn of(age_millis: Option<i64>) -> AgeBand {
        match age_millis {
            None => AgeBand::Unknown,
            Some(a) if a < 0 => AgeBand::Future,
            Some(a) if a <= HOUR => AgeBand::Le1h,
            Some(a) if a <= 6 * HOUR => AgeBand::Le6h,
            Some(a) if a <= 12 * HOUR => AgeBand::Le12h,
            Some(a) if a <= 24 * HOUR => AgeBand::Le24h,
            Some(a) if a <= 72 * HOUR => AgeBand::Le72h,
            Some(a) if a <= 7 * 24 * HOUR => AgeBand::Le7d,
            Some(_) => AgeBand::Gt7d,
        }
    }
}

/// One telemetry event. Adding a field is a privacy review: the tests
/// destructure this struct exhaustively so a new field fails to compile
/// until they are updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// The recorded agent; `unknown` when the recording was unreadable.
    #[serde(serialize_with = "agent_name")]
    pub agent: Option<AgentKind>,
    /// What happened.
    #[serde(serialize_with = "outcome_name")]
    pub outcome: Outcome,
    /// True only when the pane actually resumed with posture flags.
    pub posture_carried: bool,
    /// How old the recording was.
    #[serde(serialize_with = "band_name")]
    pub age_band: AgeBand,
}

fn agent_name<S: Serializer>(a: &Option<AgentKind>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(a.map_or("unknown", AgentKind::as_str))
}

fn outcome_name<S: Serializer>(o: &Outcome, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(o.as_str())
}

fn band_name<S: Serializer>(b: &AgeBand, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(b.as_str())
}

impl Event {
    /// The event for a skipped pane; `None` for a resumable pane (its event
    /// is emitted when it is taken) and for panes that emit nothing.
    pub fn for_skip(plan: &PanePlan) -> Option<Event> {
        let Verdict::Skip(reason) = plan.verdict else {
            return None;
        };
        if !plan.had_recording {
            return None;
        }
        Some(Event {
            agent: plan.agent,
            outcome: Outcome::from_reason(reason)?,
            posture_carried: false,
            age_band: AgeBand::of(plan.age_millis),
        })
    }

    /// The event for an armed pane when it is taken (`Resumed`) or refused.
    pub fn at_take(
        agent: AgentKind,
        outcome: Outcome,
        posture_carried: bool,
        age_millis: Option<i64>,
    ) -> Event {
        Event {
            agent: Some(agent),
            outcome,
            posture_carried: posture_carried && outcome == Outcome::Resumed,
            age_band: AgeBand::of(age_millis),
        }
    }
}

/// Where events go. Gated by the feature flag like everything else: with the
/// flag off no sink is ever called.
pub trait TelemetrySink {
    /// Records one event. Never fails the caller: a sink that cannot write
    /// drops the event.
    fn emit(&mut self, event: &Event);
}

impl TelemetrySink for Vec<Event> {
    fn emit(&mut self, event: &Event) {
        self.push(*event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_bands_close_at_their_upper_edge() {
        assert_eq!(AgeBand::of(Some(0)), AgeBand::Le1h);
        assert_eq!(AgeBand::of(Some(HOUR)), AgeBand::Le1h);
        assert_eq!(AgeBand::of(Some(HOUR + 1)), AgeBand::Le6h);
        assert_eq!(AgeBand::of(Some(6 * HOUR)), AgeBand::Le6h);
        assert_eq!(AgeBand::of(Some(12 * HOUR)), AgeBand::Le12h);
        assert_eq!(AgeBand::of(Some(12 * HOUR + 1)), AgeBand::Le24h);
        assert_eq!(AgeBand::of(Some(24 * HOUR)), AgeBand::Le24h);
        assert_eq!(AgeBand::of(Some(7 * 24 * HOUR + 1)), AgeBand::Gt7d);
        assert_eq!(AgeBand::of(Some(-1)), AgeBand::Future);
        assert_eq!(AgeBand::of(None), AgeBand::Unknown);
    }

    #[test]
    fn every_reason_but_feature_off_and_no_recording_has_an_outcome() {
        for r in Reason::VARIANTS {
            let o = Outcome::from_reason(*r);
            assert_eq!(
                o.is_none(),
                matches!(r, Reason::FeatureDisabled | Reason::NoRecording),
                "{r:?}"
            );
            if let Some(o) = o {
                assert_eq!(o.as_str(), r.as_str());
                assert_eq!(o as u8, *r as u8);
            }
        }
    }

    #[test]
    fn outcome_names_and_codes_are_pinned() {
        let pinned: Vec<(&str, u8)> = Outcome::VARIANTS
            .iter()
            .map(|o| (o.as_str(), *o as u8))
            .collect();
        assert_eq!(
            pinned,
            [
                ("resumed", 100),
                ("not_startup_pass", 2),
                ("recording_unreadable", 4),
                ("not_resumable_by_id", 18),
                ("agent_not_verified", 5),
                ("invalid_session_id", 6),
                ("shared_viewer", 7),
                ("shell_unsupported", 17),
                ("not_local", 8),
                ("directory_gone", 9),
                ("directory_mismatch", 10),
                ("directory_changed", 16),
                ("session_missing", 14),
                ("already_running", 15),
                ("duplicate_claim_lost", 11),
                ("pane_has_input", 12),
                ("queued_command", 13),
                ("armed_expired", 101),
                ("resume_confirmed", 102),
                ("resume_not_confirmed", 103),
                ("resume_exited", 104),
                ("declined", 105),
            ]
        );
        for o in Outcome::VARIANTS {
            assert_eq!(Outcome::from_name(o.as_str()), Some(*o));
        }
        let e = Event::at_take(AgentKind::Claude, Outcome::ArmedExpired, true, Some(0));
        assert_eq!(
            serde_json::to_string(&e).expect("json"),
            r#"{"agent":"claude","outcome":"armed_expired","posture_carried":false,"age_band":"le_1h"}"#
        );
    }

    #[test]
    fn posture_is_reported_only_for_a_resume() {
        let e = Event::at_take(AgentKind::Claude, Outcome::PaneHasInput, true, Some(0));
        assert!(!e.posture_carried);
    }
}
