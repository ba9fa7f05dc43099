//! The ordered, coalescing writer.
//!
//! Saves and clears travel as one message type, [`Set`], in one total order
//! per pane. Between flushes the writer keeps one message per pane
//! ([`Batch`], a pure structure); a flush writes them in one transaction.
//!
//! # Ordering guarantees
//!
//! - Within a flush, a pane's message is the last one sent, unless that one
//!   is older (`at`) than an earlier one: an older message never replaces a
//!   newer one, so coalescing can never move a clear behind an older save.
//! - In SQL, across processes: a save is applied only when it is not older
//!   than the stored row and not older than the newest clear remembered for
//!   the pane (`agent_session_clears`); a clear deletes only a row that is
//!   not newer than it. Ties go to the later writer.
//! - Hence a stale save cannot resurrect a cleared row, and applying a
//!   coalesced batch leaves the same rows as applying every message in its
//!   own transaction (property-tested).

pub use agent_resume_core::batch::{coalesce, Batch, Set};
use rusqlite::{params, TransactionBehavior};

use crate::error::WriteError;
use crate::open::Store;
use crate::row;

/// Counters of a writer's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriterStats {
    /// Messages sent.
    pub sent: u64,
    /// Messages that replaced or were dropped in favour of another pending
    /// message of the same pane (never written).
    pub coalesced: u64,
    /// Flushes that had something to write.
    pub flushes: u64,
    /// Transactions issued (committed or not).
    pub transactions: u64,
    /// Messages written to SQL.
    pub written: u64,
}

/// What one flush did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flushed {
    /// Messages written (one per pane).
    pub messages: usize,
    /// Messages that changed a row (the rest lost to a newer stored value).
    pub applied: usize,
}

/// The ordered, coalescing writer over one store.
#[derive(Debug)]
pub struct Writer {
    store: Store,
    batch: Batch,
    stats: WriterStats,
}

impl Writer {
    /// A writer over `store`.
    pub fn new(store: Store) -> Writer {
        Writer {
            store,
            batch: Batch::new(),
            stats: WriterStats::default(),
        }
    }

    /// Queues a message. Nothing touches the database until [`flush`](Self::flush).
    pub fn send(&mut self, set: Set) {
        self.stats.sent += 1;
        let was = self.batch.len();
        let kept = self.batch.push(set);
        if !kept || self.batch.len() == was {
            self.stats.coalesced += 1;
        }
    }

    /// Panes with a pending message.
    pub fn pending(&self) -> usize {
        self.batch.len()
    }

    /// Writes every pending message in one transaction. On error nothing of
    /// the batch is applied and it stays pending (merged with anything sent
    /// later), so a retry loses nothing.
    pub fn flush(&mut self) -> Result<Flushed, WriteError> {
        if self.batch.is_empty() {
            return Ok(Flushed::default());
        }
        self.store.writable()?;
        let sets = self.batch.drain();
        self.stats.flushes += 1;
        self.stats.transactions += 1;
        match self.store.apply(&sets) {
            Ok(applied) => {
                self.stats.written += sets.len() as u64;
                Ok(Flushed {
                    messages: sets.len(),
                    applied,
                })
            }
            Err(e) => {
                for s in sets {
                    self.batch.push(s);
                }
                Err(e)
            }
        }
    }

    /// The counters.
    pub fn stats(&self) -> WriterStats {
        self.stats
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The store back; pending messages are dropped.
    pub fn into_store(self) -> Store {
        self.store
    }
}

const SAVE: &str = "INSERT INTO agent_sessions \
     (pane, agent, session_id, flags, program, cwd, observed_at, config_home, \
     dir_canonical, dir_volume, dir_inode) \
     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11 \
     WHERE NOT EXISTS (SELECT 1 FROM agent_session_clears WHERE pane = ?1 AND cleared_at > ?7) \
     ON CONFLICT (pane) DO UPDATE SET agent = excluded.agent, session_id = excluded.session_id, \
     flags = excluded.flags, program = excluded.program, cwd = excluded.cwd, \
     observed_at = excluded.observed_at, config_home = excluded.config_home, \
     dir_canonical = excluded.dir_canonical, dir_volume = excluded.dir_volume, \
     dir_inode = excluded.dir_inode \
     WHERE agent_sessions.observed_at <= excluded.observed_at";

/// A save that was applied supersedes the pane's tombstone.
const SAVE_SUPERSEDES: &str =
    "DELETE FROM agent_session_clears WHERE pane = ?1 AND cleared_at <= ?2";

const CLEAR: &str = "DELETE FROM agent_sessions WHERE pane = ?1 AND observed_at <= ?2";

/// Remember the clear unless a newer row survived it.
const TOMBSTONE: &str = "INSERT INTO agent_session_clears (pane, cleared_at) \
     SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM agent_sessions WHERE pane = ?1) \
     ON CONFLICT (pane) DO UPDATE SET cleared_at = max(cleared_at, excluded.cleared_at)";

impl Store {
    /// Applies messages in one `IMMEDIATE` transaction, in order, with the
    /// SQL guards of the module docs; returns how many changed a row.
    pub fn apply(&mut self, sets: &[Set]) -> Result<usize, WriteError> {
        self.writable()?;
        self.apply_sets(sets).map_err(WriteError::sqlite)
    }

    /// [`Store::apply`] on a store known to be writable.
    fn apply_sets(&mut self, sets: &[Set]) -> rusqlite::Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut applied = 0;
        {
            let mut save = tx.prepare_cached(SAVE)?;
            let mut supersede = tx.prepare_cached(SAVE_SUPERSEDES)?;
            let mut clear = tx.prepare_cached(CLEAR)?;
            let mut tombstone = tx.prepare_cached(TOMBSTONE)?;
            for s in sets {
                let pane = s.pane.to_string();
                let at = s.time().0;
                match &s.recording {
                    Some(r) => {
                        let e = row::encode(r);
                        let (canonical, volume, inode) = e
                            .dir
                            .map_or((None, None, None), |d| (Some(d.0), Some(d.1), Some(d.2)));
                        let n = save.execute(params![
                            pane,
                            e.agent,
                            r.session_id,
                            e.flags,
                            r.program,
                            e.cwd,
                            at,
                            e.config_home,
                            canonical,
                            volume,
                            inode
                        ])?;
                        if n > 0 {
                            supersede.execute(params![pane, at])?;
                            applied += 1;
                        }
                    }
                    None => {
                        let n = clear.execute(params![pane, at])?;
                        tombstone.execute(params![pane, at])?;
                        applied += usize::from(n > 0);
                    }
                }
            }
        }
        tx.commit()?;
        Ok(applied)
    }
}
