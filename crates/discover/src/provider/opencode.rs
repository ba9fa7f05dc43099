//! OpenCode and its forks (Kilo): their sessions are kept in an SQLite
//! database (`$OPENCODE_DB`, absolute or relative to the data directory,
//! default `$XDG_DATA_HOME/opencode/opencode.db`; Kilo's `$KILO_DB` and
//! `kilo/kilo.db`) rather than in files, in one `session` table. One
//! reader serves the family, told apart by [`App`] only. The reader
//! (`db`) links SQLite, a C build, so it is behind the default cargo
//! feature `sqlite`; a build without it lists no session of theirs and
//! says so with a [`crate::Problem::NotBuilt`] note when the database is
//! there.
//!
//! A session row is written at the first prompt, not at launch: the
//! provider says so (`first_prompt`), and capture keeps looking for the
//! run's row however late that prompt comes.

use std::path::PathBuf;

use agent_resume_core::AgentKind;

use super::Provider;
use crate::parse::Records;
use crate::provider::HomeEnv;
use crate::store::{Database, Store};

/// One app of the family: where its database lives.
pub(super) struct App {
    /// The directory under the data directory (`opencode`, `kilo`).
    pub data_dir: &'static str,
    /// The variable naming the database (`OPENCODE_DB`, `KILO_DB`).
    pub db_var: &'static str,
    /// The database's file name in that directory.
    pub db_file: &'static str,
}

/// The provider of one app of the family: the same reader, its own home
/// and npm package.
pub(super) const fn family(
    kind: AgentKind,
    home: fn(&HomeEnv<'_>) -> Option<PathBuf>,
    package: &'static str,
) -> Provider {
    Provider {
        kind,
        home,
        store: Store::Database(Database { list, exists }),
        records: Records::NONE,
        // A database is not a file of records.
        file_id: |_| None,
        resumable: super::unknown_resumable,
        package: Some(package),
        registry: None,
        argv_id_flags: &[],
        first_prompt: true,
        hook: None,
    }
}

pub(super) const PROVIDER: Provider = family(AgentKind::Opencode, home, "/opencode-ai/");

const OPENCODE: App = App {
    data_dir: "opencode",
    db_var: "OPENCODE_DB",
    db_file: "opencode.db",
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    db_home(env, &OPENCODE)
}

/// The database of `app`: its variable (`:memory:` is none; a relative
/// path is under the data directory), else the default file.
pub(super) fn db_home(env: &HomeEnv<'_>, app: &App) -> Option<PathBuf> {
    let data = env
        .absolute("XDG_DATA_HOME")
        .or_else(|| env.under(".local/share"));
    let dir = data.map(|d| d.join(app.data_dir));
    match env.var(app.db_var).filter(|v| !v.is_empty()) {
        Some(v) if v == ":memory:" => None,
        Some(v) => {
            let p = PathBuf::from(v);
            if p.is_absolute() {
                Some(p)
            } else {
                dir.map(|d| d.join(p))
            }
        }
        None => dir.map(|d| d.join(app.db_file)),
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
pub fn list(
    _agent: AgentKind,
    db: &Path,
    _depth: Depth,
) -> Result<(Vec<SessionInfo>, Vec<PathBuf>), Problem> {
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
