//! The host-neutral report message: how any host or agent plugin tells
//! agent-resume what happened in a pane, in one versioned JSON object.
//!
//! ```json
//! {"v":1,"pane":"6f9619ff-8b86-d011-b42d-00c04fc964ff","agent":"claude",
//!  "session_id":"f6066ebb-140e-4519-ab63-b9cde0b60b57","seq":7,"cwd":"/home/me/proj",
//!  "source":"hook","event":"observed","invocation":"claude --model opus"}
//! ```
//!
//! `seq` increases strictly per pane; the receiver drops a report whose
//! `seq` is not above the last one it applied, so late or replayed reports
//! never undo newer ones. Unknown keys, another version, an unknown agent or
//! source, and a session id failing its shape are refused with a typed error.
//! See `docs/capture.md`.

use std::path::PathBuf;

use serde::Deserialize;
use thiserror::Error;

use crate::capture::{DetachKind, IdSource};
use crate::catalog::Catalog;
use crate::pane::PaneId;
use crate::AgentKind;

/// The only version this build reads.
pub const VERSION: u32 = 1;

/// The largest message read.
pub const MAX_REPORT: usize = 64 * 1024;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportEvent {
    /// The agent reported (or re-reported) its session.
    Observed,
    /// The agent ended while the pane was attached.
    Ended,
    /// The agent was suspended (job control).
    Suspended,
    /// The pane detached.
    Detached(DetachKind),
}

/// A validated report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The pane.
    pub pane: PaneId,
    /// The agent.
    pub agent: AgentKind,
    /// The reported id, which passed the agent's shape.
    pub session_id: Option<String>,
    /// Per-pane sequence number.
    pub seq: u64,
    /// The pane's directory, absolute.
    pub cwd: Option<PathBuf>,
    /// Where the id came from.
    pub source: IdSource,
    /// What happened.
    pub event: ReportEvent,
    /// The agent's invocation text through the host's obfuscated view (flags
    /// are extracted from it; the text itself is never stored).
    pub invocation: Option<String>,
    /// The run is headless.
    pub headless: bool,
}

/// Why a report was refused.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReportError {
    /// Larger than [`MAX_REPORT`].
    #[error("report is larger than the cap")]
    TooLarge,
    /// Not the expected JSON object.
    #[error("report is not a well-formed message")]
    Malformed,
    /// A version this build does not read.
    #[error("report version is not supported")]
    Version,
    /// An agent name the catalog does not declare.
    #[error("report names an unknown agent")]
    UnknownAgent,
    /// An unknown id source or event.
    #[error("report names an unknown source or event")]
    UnknownKind,
    /// The session id fails the agent's shape.
    #[error("report session id fails its shape")]
    InvalidSessionId,
    /// A relative directory.
    #[error("report directory is not absolute")]
    RelativeCwd,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    v: u32,
    pane: PaneId,
    agent: String,
    #[serde(default)]
    session_id: Option<String>,
    seq: u64,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default = "default_source")]
    source: String,
    #[serde(default = "default_event")]
    event: String,
    #[serde(default)]
    invocation: Option<String>,
    #[serde(default)]
    headless: bool,
}

fn default_source() -> String {
    "hook".into()
}

fn default_event() -> String {
    "observed".into()
}

/// Parses and validates one report message.
pub fn parse(bytes: &[u8]) -> Result<Report, ReportError> {
    if bytes.len() > MAX_REPORT {
        return Err(ReportError::TooLarge);
    }
    let raw: Raw = serde_json::from_slice(bytes).map_err(|_| ReportError::Malformed)?;
    if raw.v != VERSION {
        return Err(ReportError::Version);
    }
    let agent = AgentKind::from_name(&raw.agent).ok_or(ReportError::UnknownAgent)?;
    let source = IdSource::from_name(&raw.source).ok_or(ReportError::UnknownKind)?;
    let event = match raw.event.as_str() {
        "observed" => ReportEvent::Observed,
        "ended" => ReportEvent::Ended,
        "suspended" => ReportEvent::Suspended,
        "hidden" => ReportEvent::Detached(DetachKind::HiddenForClose),
        "teardown" => ReportEvent::Detached(DetachKind::Teardown),
        "closed" => ReportEvent::Detached(DetachKind::Closed),
        _ => return Err(ReportError::UnknownKind),
    };
    if let Some(id) = &raw.session_id {
        if !Catalog::embedded().agent(agent).id_shape.matches(id) {
            return Err(ReportError::InvalidSessionId);
        }
    }
    if raw.cwd.as_ref().is_some_and(|c| !c.is_absolute()) {
        return Err(ReportError::RelativeCwd);
    }
    Ok(Report {
        pane: raw.pane,
        agent,
        session_id: raw.session_id,
        seq: raw.seq,
        cwd: raw.cwd,
        source,
        event,
        invocation: raw.invocation,
        headless: raw.headless,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
    const U4: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

    #[test]
    fn well_formed_report_parses() {
        let msg = format!(
            r#"{{"v":1,"pane":"{PANE}","agent":"claude","session_id":"{U4}","seq":7,"cwd":"/p","source":"hook","invocation":"claude --model opus"}}"#
        );
        let r = parse(msg.as_bytes()).expect("parses");
        assert_eq!(
            (r.agent, r.seq, r.event, r.source),
            (AgentKind::Claude, 7, ReportEvent::Observed, IdSource::Hook)
        );
    }

    #[test]
    fn bad_reports_are_refused_with_a_typed_error() {
        let base = format!(r#""pane":"{PANE}","agent":"claude","seq":1"#);
        for (body, want) in [
            (format!(r#"{{"v":2,{base}}}"#), ReportError::Version),
            (
                format!(r#"{{"v":1,{base},"extra":1}}"#),
                ReportError::Malformed,
            ),
            (
                r#"{"v":1,"pane":"x","agent":"claude","seq":1}"#.to_owned(),
                ReportError::Malformed,
            ),
            (
                format!(r#"{{"v":1,"pane":"{PANE}","agent":"vim","seq":1}}"#),
                ReportError::UnknownAgent,
            ),
            (
                format!(r#"{{"v":1,{base},"source":"guess"}}"#),
                ReportError::UnknownKind,
            ),
            (
                format!(r#"{{"v":1,{base},"event":"exploded"}}"#),
                ReportError::UnknownKind,
            ),
            (
                format!(r#"{{"v":1,{base},"session_id":"$(id)"}}"#),
                ReportError::InvalidSessionId,
            ),
            (
                format!(r#"{{"v":1,{base},"cwd":"rel/dir"}}"#),
                ReportError::RelativeCwd,
            ),
            (
                format!(r#"{{"v":1,{base},"seq":-1}}"#),
                ReportError::Malformed,
            ),
            ("null".to_owned(), ReportError::Malformed),
        ] {
            assert_eq!(parse(body.as_bytes()), Err(want), "{body}");
        }
        assert_eq!(
            parse(&vec![b' '; MAX_REPORT + 1]),
            Err(ReportError::TooLarge)
        );
    }
}
