//! Persistence behind a trait: what restore, take and capture need of a
//! store, so a host chooses where recordings and armed lines live.
//!
//! - `Sqlite` (feature `sqlite`): the CLI's database, shared with the
//!   agent hooks and the shell integration across processes.
//! - [`Memory`] (always built): for an in-process host with a database of
//!   its own, or none; arms are held in memory. Clones share one state, so a
//!   host can start a new handle over the same recordings.
//!
//! Every implementation keeps the same rules: a load never fails (warnings
//! and whatever could be read); messages ([`Set`]) are applied in order and
//! an older write never overtakes a newer one for a pane (a stale save
//! cannot resurrect a cleared row); an armed line is taken exactly once;
//! arming a session id for one pane drops its arm for any other pane. One
//! test suite runs the same scenarios against both implementations.
//!
//! # Example
//!
//! ```
//! use agent_resume_core::batch::Set;
//! use agent_resume_core::{AgentKind, PaneId, Recording, UnixMillis};
//! use agent_resume_engine::persistence::{Memory, Persistence};
//!
//! let pane = PaneId::from_bytes([1; 16]);
//! let rec = Recording {
//!     agent: AgentKind::Claude,
//!     session_id: "f6066ebb-140e-4519-ab63-b9cde0b60b57".into(),
//!     flags: vec![],
//!     program: None,
//!     cwd: "/home/me/project".into(),
//!     observed_at: UnixMillis(5),
//!     config_home: None,
//!     dir: None,
//! };
//! let mut p: Box<dyn Persistence> = Box::new(Memory::new());
//! p.apply(&[Set::save(pane, rec.clone()), Set::clear(pane, UnixMillis(4))])
//!     .expect("memory never fails");
//! // The clear is older than the save: the recording stays.
//! assert_eq!(p.load().recordings.len(), 1);
//! ```

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use agent_resume_core::batch::Set;
use agent_resume_core::{AgentKind, PaneId, Stored, TakeKey, UnixMillis};

mod memory;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(test)]
mod suite;

pub use memory::Memory;
#[cfg(feature = "sqlite")]
pub use sqlite::{Sqlite, SqliteOpenError};

/// What restore, take and capture need of a store. Object safe and `Send`,
/// so a handle can own one on its writer thread.
pub trait Persistence: Send {
    /// Every recording, never failing: what could be read, with warnings
    /// saying what could not.
    fn load(&mut self) -> Loaded;

    /// Drops recordings, remembered clears and armed lines of every pane
    /// not in `keep`; returns how many recordings went. A failure is a
    /// warning, never fatal: stale rows stay until the next start.
    fn sweep(&mut self, keep: &HashSet<PaneId>) -> Result<usize, Warning>;

    /// Applies messages in order, all or none; returns how many changed a
    /// row. A save older than the pane's row or its newest clear is not
    /// applied; a clear removes only a row that is not newer than it.
    fn apply(&mut self, sets: &[Set]) -> Result<usize, PersistError>;

    /// Arms `arm` for its pane, replacing the pane's previous arm and any
    /// other pane's arm of the same session id. `ticket` is a cross-process
    /// key a pane may take by; a backend without processes may ignore it.
    fn arm(&mut self, arm: &Arm, ticket: Option<Ticket<'_>>) -> Result<(), PersistError>;

    /// Takes the pane's armed line exactly once.
    fn take(&mut self, pane: PaneId) -> Result<Option<Arm>, PersistError>;

    /// Drops the pane's armed line, if any; returns whether there was one.
    fn disarm(&mut self, pane: PaneId) -> Result<bool, PersistError>;

    /// What is stored for one pane.
    fn row(&mut self, pane: PaneId) -> Result<Option<Stored>, PersistError>;

    /// The pane is gone for good: clear its recording at `at`, then drop
    /// its armed line.
    fn delete(&mut self, pane: PaneId, at: UnixMillis) -> Result<usize, PersistError> {
        let applied = self.apply(&[Set::clear(pane, at)])?;
        self.disarm(pane)?;
        Ok(applied)
    }
}

/// What a load found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Per pane, a recording or an unreadable row.
    pub recordings: BTreeMap<PaneId, Stored>,
    /// What the user may want to know.
    pub warnings: Vec<Warning>,
}

/// Something the user may want to know; never a reason to fail a restore.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// The SQLite store's own warning.
    #[cfg(feature = "sqlite")]
    Store(agent_resume_store::Warning),
    /// A host backend's own words, for the user.
    Backend(String),
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            #[cfg(feature = "sqlite")]
            Warning::Store(w) => fmt::Display::fmt(w, f),
            Warning::Backend(text) => f.write_str(text),
        }
    }
}

/// A persistence operation failed; nothing of it was applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PersistError {
    /// The armed line was taken (it is gone) but does not decode.
    #[error("the armed row is unreadable")]
    Unreadable,
    /// The backend failed; its error says how.
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync + 'static>),
}

/// An armed resume invocation, owned: untrusted words until a take
/// rebuilds them ([`crate::take::decide`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// The pane it is for.
    pub pane: PaneId,
    /// The agent.
    pub agent: AgentKind,
    /// The session it resumes.
    pub session_id: String,
    /// The words of the resume invocation.
    pub argv: Vec<String>,
    /// When it was armed.
    pub armed_at: UnixMillis,
    /// When the recording it was built from was observed.
    pub observed_at: UnixMillis,
}

impl<'a> From<&'a Arm> for crate::take::Armed<'a> {
    fn from(a: &'a Arm) -> Self {
        crate::take::Armed {
            agent: a.agent,
            session_id: &a.session_id,
            argv: &a.argv,
            armed_at: a.armed_at,
            observed_at: a.observed_at,
        }
    }
}

/// A single-use key a pane created by another process may take its line
/// by, on one server (tmux).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket<'a> {
    /// The key.
    pub key: TakeKey,
    /// The server's key.
    pub server: &'a str,
}
