//! The recording: what capture stores for one pane.

use std::path::PathBuf;

use crate::flag::RecordedFlag;
use crate::posture::UnixMillis;
use crate::AgentKind;

/// What capture stored for one pane: the agent, the id it reported, the
/// allowlisted flags, the directory, and when it was observed. Nothing else:
/// never the raw command line, prompts, replies or drafts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recording {
    /// The agent.
    pub agent: AgentKind,
    /// The session id the agent itself reported.
    pub session_id: String,
    /// Allowlisted flags, canonical names.
    pub flags: Vec<RecordedFlag>,
    /// The user's absolute program path, when it passed the path shape.
    pub program: Option<String>,
    /// The directory the agent ran in (raw OS bytes survive).
    pub cwd: PathBuf,
    /// When capture observed it.
    pub observed_at: UnixMillis,
    /// The agent's config home (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …), when known.
    pub config_home: Option<PathBuf>,
}

/// What the store holds for one pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stored {
    /// A row that decoded (known agent, parseable flags). Its values are
    /// still untrusted: the restore gate checks the id shape and the builder
    /// re-validates every flag.
    Recording(Recording),
    /// A row that is there but could not be read: NULL or unknown agent,
    /// unparseable flags or directory. For that pane only
    /// it counts as "no recording"; the row itself is kept.
    Unreadable,
}
