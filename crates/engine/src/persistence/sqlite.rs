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

impl Sqlite {
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
