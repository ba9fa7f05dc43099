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
    /// What the directory was when capture saw it, when the host could
    /// tell: restore resumes only into that same directory.
    pub dir: Option<DirIdentity>,
}

/// What a directory *is*, not only what it is called: its canonical path
/// and the filesystem object behind it. A directory replaced at the same
/// name (removed and made again, a symbolic link put in its place, a mount
/// over it, an ancestor renamed) has another identity, so a recording is
/// never resumed in a directory the agent did not run in
/// (docs/security.md, "Directory identity").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DirIdentity {
    /// The canonical path (every link resolved).
    pub canonical: PathBuf,
    /// The filesystem it is on: its id as `statvfs` gives it (stable across
    /// reboots where the filesystem keeps a UUID), else the device number.
    pub volume: u64,
    /// The inode number.
    pub inode: u64,
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
