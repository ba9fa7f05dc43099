//! Recordings and armed lines in memory, under the rules of the SQLite
//! store's SQL guards (`docs/store.md`), so a host with a database of its
//! own — or none — gets the same ordering.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use agent_resume_core::batch::Set;
use agent_resume_core::{PaneId, Recording, Stored, UnixMillis};

use super::{Arm, Loaded, PersistError, Persistence, Ticket, Warning};

#[derive(Debug, Default)]
struct State {
    rows: BTreeMap<PaneId, Recording>,
    /// The newest clear per pane with no newer row (the store's tombstone).
    clears: HashMap<PaneId, UnixMillis>,
    armed: HashMap<PaneId, Arm>,
}

/// Persistence in memory. Clones share one state: a host keeps a clone
/// and starts a new handle over the same recordings after a restart of
/// its own.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    state: Arc<Mutex<State>>,
}

impl Memory {
    /// Empty.
    pub fn new() -> Memory {
        Memory::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data, still whole:
        // every operation below completes its change before returning.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl State {
    /// One message under the store's guards; whether it changed a row.
    fn apply(&mut self, set: &Set) -> bool {
        let at = set.time();
        match &set.recording {
            Some(r) => {
                let tombstoned = self.clears.get(&set.pane).is_some_and(|c| *c > at);
                let newer_row = self.rows.get(&set.pane).is_some_and(|o| o.observed_at > at);
                if tombstoned || newer_row {
                    return false;
                }
                self.rows.insert(set.pane, r.clone());
                self.clears.remove(&set.pane);
                true
            }
            None => {
                let cleared = match self.rows.get(&set.pane) {
                    Some(row) if row.observed_at <= at => {
                        self.rows.remove(&set.pane);
                        true
                    }
                    _ => false,
                };
                if !self.rows.contains_key(&set.pane) {
                    let c = self.clears.entry(set.pane).or_insert(at);
                    *c = (*c).max(at);
                }
                cleared
            }
        }
    }
}

impl Persistence for Memory {
    fn load(&mut self) -> Loaded {
        Loaded {
            recordings: self
                .state()
                .rows
                .iter()
                .map(|(p, r)| (*p, Stored::Recording(r.clone())))
                .collect(),
            warnings: Vec::new(),
        }
    }

    fn sweep(&mut self, keep: &HashSet<PaneId>) -> Result<usize, Warning> {
        let mut s = self.state();
        let before = s.rows.len();
        s.rows.retain(|p, _| keep.contains(p));
        s.clears.retain(|p, _| keep.contains(p));
        s.armed.retain(|p, _| keep.contains(p));
        Ok(before - s.rows.len())
    }

    fn apply(&mut self, sets: &[Set]) -> Result<usize, PersistError> {
        let mut s = self.state();
        Ok(sets.iter().filter(|set| s.apply(set)).count())
    }

    fn arm(&mut self, arm: &Arm, _ticket: Option<Ticket<'_>>) -> Result<(), PersistError> {
        // In one process the pane itself takes; a ticket has no use here.
        let mut s = self.state();
        s.armed
            .retain(|_, a| !(a.agent == arm.agent && a.session_id == arm.session_id));
        s.armed.insert(arm.pane, arm.clone());
        Ok(())
    }

    fn take(&mut self, pane: PaneId) -> Result<Option<Arm>, PersistError> {
        Ok(self.state().armed.remove(&pane))
    }

    fn disarm(&mut self, pane: PaneId) -> Result<bool, PersistError> {
        Ok(self.state().armed.remove(&pane).is_some())
    }

    fn row(&mut self, pane: PaneId) -> Result<Option<Stored>, PersistError> {
        Ok(self
            .state()
            .rows
            .get(&pane)
            .map(|r| Stored::Recording(r.clone())))
    }
}
