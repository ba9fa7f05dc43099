//! OpenCode's sessions, kept in its SQLite database rather than in files.
//! The reader (`db`) links SQLite, a C build, so it is behind the default
//! cargo feature `sqlite`; a build without it lists no OpenCode session and
//! says so with a [`crate::Problem::NotBuilt`] note when the database is there.

#[cfg(feature = "sqlite")]
mod db;

#[cfg(feature = "sqlite")]
pub use db::{exists, list};

#[cfg(not(feature = "sqlite"))]
use std::path::{Path, PathBuf};

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
