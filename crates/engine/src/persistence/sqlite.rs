//! The CLI's SQLite store as a [`Persistence`].

use std::collections::HashSet;

use agent_resume_core::batch::Set;
use agent_resume_core::{PaneId, Stored};
use agent_resume_store::{Store, TakeError};

use super::{Arm, Loaded, PersistError, Persistence, Ticket, Warning};

/// The SQLite store (`agent-resume-store`): the database the CLI, the
/// agent hooks and the shell integration share across processes.
#[derive(Debug)]
pub struct Sqlite {
    store: Store,
}

/// Why the shared database could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SqliteOpenError {
    /// No base directory to find it under.
    #[error(transparent)]
    Paths(#[from] crate::paths::NoBase),
    /// The store refused to open it.
    #[error(transparent)]
    Open(#[from] agent_resume_store::OpenError),
}

impl Sqlite {
    /// The database at `path` (created, with its directory, when missing).
    pub fn open(path: &std::path::Path) -> Result<Sqlite, SqliteOpenError> {
        Ok(Sqlite::new(Store::open(path)?))
    }

    /// The database the CLI, the agent hooks and the shell integration use
    /// ([`crate::paths::db`]: `AGENT_RESUME_DB`, else under the XDG data
    /// directory), so a terminal and its CLI hooks share one store.
    pub fn shared(o: &crate::paths::Overrides) -> Result<Sqlite, SqliteOpenError> {
        Sqlite::open(&crate::paths::db(o)?)
    }

    /// Over an open store.
    pub fn new(store: Store) -> Sqlite {
        Sqlite { store }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The store back.
    pub fn into_store(self) -> Store {
        self.store
    }
}

fn backend(e: impl std::error::Error + Send + Sync + 'static) -> PersistError {
    PersistError::Backend(Box::new(e))
}

impl Persistence for Sqlite {
    fn load(&mut self) -> Loaded {
        let loaded = self.store.load_or_empty();
        Loaded {
            warnings: loaded
                .warnings
                .iter()
                .copied()
                .map(Warning::Store)
                .collect(),
            recordings: loaded.into_stored(),
        }
    }

    fn sweep(&mut self, keep: &HashSet<PaneId>) -> Result<usize, Warning> {
        // Only a trusted, writable store is swept (as the start-up pass).
        if !self.store.trusted() || self.store.read_only().is_some() {
            return Ok(0);
        }
        self.store
            .sweep(keep)
            .map_err(|e| Warning::Store(agent_resume_store::Warning::SweepFailed(e.fault())))
    }

    fn apply(&mut self, sets: &[Set]) -> Result<usize, PersistError> {
        self.store.apply(sets).map_err(backend)
    }

    fn arm(&mut self, arm: &Arm, ticket: Option<Ticket<'_>>) -> Result<(), PersistError> {
        let armed = agent_resume_store::Armed {
            pane: arm.pane,
            agent: arm.agent,
            session_id: arm.session_id.clone(),
            argv: arm.argv.clone(),
            armed_at: arm.armed_at,
            observed_at: arm.observed_at,
        };
        let ticket = ticket.map(|t| agent_resume_store::Ticket {
            key: t.key,
            server: t.server,
        });
        self.store.arm_with(&armed, ticket).map_err(backend)
    }

    fn take(&mut self, pane: PaneId) -> Result<Option<Arm>, PersistError> {
        match self.store.take(pane) {
            Ok(a) => Ok(a.map(|a| Arm {
                pane: a.pane,
                agent: a.agent,
                session_id: a.session_id,
                argv: a.argv,
                armed_at: a.armed_at,
                observed_at: a.observed_at,
            })),
            Err(TakeError::Unreadable) => Err(PersistError::Unreadable),
            Err(e) => Err(backend(e)),
        }
    }

    fn disarm(&mut self, pane: PaneId) -> Result<bool, PersistError> {
        self.store.disarm(pane).map_err(backend)
    }

    fn row(&mut self, pane: PaneId) -> Result<Option<Stored>, PersistError> {
        self.store
            .row(pane)
            .map(|r| r.map(agent_resume_store::RowState::into_stored))
            .map_err(backend)
    }
}

#[cfg(test)]
mod shared_tests {
    use super::*;
    use agent_resume_core::{AgentKind, Recording, UnixMillis};

    #[test]
    fn the_shared_database_is_the_one_the_cli_opens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("data/recordings.sqlite3");
        let o = crate::paths::Overrides {
            db: Some(db.clone()),
            config: None,
        };
        let mut p = Sqlite::shared(&o).expect("opens");
        let pane = PaneId::from_bytes([3; 16]);
        p.apply(&[Set::save(
            pane,
            Recording {
                agent: AgentKind::Claude,
                session_id: "f6066ebb-140e-4519-ab63-b9cde0b60b57".into(),
                flags: Vec::new(),
                program: None,
                cwd: "/".into(),
                observed_at: UnixMillis(1),
                config_home: None,
                dir: None,
            },
        )])
        .expect("saves");
        drop(p);
        let rows = Store::open(&db).expect("opens").load().expect("loads").rows;
        assert!(rows.contains_key(&pane), "the CLI's store holds the row");
    }
}
