//! OpenCode: its sessions are kept in its SQLite database
//! (`$OPENCODE_DB`, absolute or relative to the data directory, default
//! `$XDG_DATA_HOME/opencode/opencode.db`) rather than in files. The reader
//! (`db`) links SQLite, a C build, so it is behind the default cargo
//! feature `sqlite`; a build without it lists no OpenCode session and says
//! so with a [`crate::Problem::NotBuilt`] note when the database is there.

use std::path::PathBuf;

use agent_resume_core::AgentKind;

use super::Provider;
use crate::parse::Records;
use crate::provider::HomeEnv;
use crate::store::{Database, Store};

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Opencode,
    home,
    store: Store::Database(Database { list, exists }),
    records: Records::NONE,
    // A database is not a file of records.
    file_id: |_| None,
    resumable: super::unknown_resumable,
    package: Some("/opencode-ai/"),
    registry: None,
    argv_id_flags: &[],
    hook: None,
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    let data = env
        .absolute("XDG_DATA_HOME")
        .or_else(|| env.under(".local/share"));
    let dir = data.map(|d| d.join("opencode"));
    match env.var("OPENCODE_DB").filter(|v| !v.is_empty()) {
        Some(v) if v == ":memory:" => None,
        Some(v) => {
            let p = PathBuf::from(v);
            if p.is_absolute() {
                Some(p)
            } else {
                dir.map(|d| d.join(p))
            }
        }
        None => dir.map(|d| d.join("opencode.db")),
    }
}

#[cfg(feature = "sqlite")]
mod db;

#[cfg(feature = "sqlite")]
pub use db::{exists, list};

#[cfg(not(feature = "sqlite"))]
use std::path::Path;

#[cfg(not(feature = "sqlite"))]
use crate::{read::Depth, Problem, SessionInfo};

/// Without the reader: no session, and a note saying why when the database
/// is there (nothing is opened, so nothing can block or be written).
#[cfg(not(feature = "sqlite"))]
pub fn list(db: &Path, _depth: Depth) -> Result<(Vec<SessionInfo>, Vec<PathBuf>), Problem> {
    Err(match db.try_exists() {
        Ok(true) => Problem::NotBuilt,
        Ok(false) => Problem::StoreMissing,
        Err(_) => Problem::StoreUnreadable,
    })
}

/// Without the reader it cannot tell.
#[cfg(not(feature = "sqlite"))]
pub fn exists(_db: &Path, _id: &str) -> Option<bool> {
    None
}
