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

use std::collections::HashMap;

use agent_resume_core::capture::Change;
use agent_resume_core::{PaneId, Recording, UnixMillis};
use rusqlite::{params, TransactionBehavior};

use crate::error::WriteError;
use crate::open::Store;
use crate::row;

/// One message: save (`recording: Some`) or clear (`None`) a pane's
/// recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Set {
    /// The pane.
    pub pane: PaneId,
    /// What to store, or `None` to clear.
    pub recording: Option<Recording>,
    /// The observation time for a save (equal to `recording.observed_at`,
    /// which wins if they differ), the event time for a clear.
    pub at: UnixMillis,
}

impl Set {
    /// A save, timed by the recording's `observed_at`.
    pub fn save(pane: PaneId, recording: Recording) -> Set {
        Set {
            pane,
            at: recording.observed_at,
            recording: Some(recording),
        }
    }

    /// A clear at `at`.
    pub fn clear(pane: PaneId, at: UnixMillis) -> Set {
        Set {
            pane,
            recording: None,
            at,
        }
    }

    /// The message for a change decided by core's capture state machine, at
    /// `at` (the event time; a save is timed by its recording). `Delete`
    /// (pane closed for good) and `Clear` (agent ended) both clear the row;
    /// after a `Delete` the caller also [`disarm`](Store::disarm)s the pane.
    pub fn from_change(pane: PaneId, change: Change, at: UnixMillis) -> Set {
        match change {
            Change::Save(r) => Set::save(pane, r),
            Change::Clear | Change::Delete => Set::clear(pane, at),
        }
    }

    /// The time that orders this message.
    pub fn time(&self) -> UnixMillis {
        match &self.recording {
            Some(r) => r.observed_at,
            None => self.at,
        }
    }
}

/// Pending messages, one per pane. Pure: no I/O.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pending: HashMap<PaneId, Set>,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a message; returns whether it is now the pane's pending message
    /// (false: it is older than the one already pending and is dropped).
    pub fn push(&mut self, set: Set) -> bool {
        match self.pending.get_mut(&set.pane) {
            Some(kept) if set.time() < kept.time() => false,
            Some(kept) => {
                *kept = set;
                true
            }
            None => {
                self.pending.insert(set.pane, set);
                true
            }
        }
    }

    /// Number of panes with a pending message.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Takes every pending message, ordered by pane.
    pub fn drain(&mut self) -> Vec<Set> {
        let mut out: Vec<Set> = self.pending.drain().map(|(_, s)| s).collect();
        out.sort_by_key(|s| s.pane);
        out
    }
}

/// Coalesces a sequence of messages (in send order) into at most one per
/// pane, as the writer does between flushes.
pub fn coalesce(messages: impl IntoIterator<Item = Set>) -> Vec<Set> {
    let mut b = Batch::new();
    for m in messages {
        b.push(m);
    }
    b.drain()
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use agent_resume_core::AgentKind;
    use std::path::PathBuf;

    fn pane(n: u8) -> PaneId {
        PaneId::from_bytes([n; 16])
    }

    fn rec(id: &str, at: i64) -> Recording {
        Recording {
            agent: AgentKind::Claude,
            session_id: id.into(),
            flags: vec![],
            program: None,
            cwd: PathBuf::from("/w"),
            observed_at: UnixMillis(at),
            config_home: None,
            dir: None,
        }
    }

    #[test]
    fn coalescing_keeps_the_last_message_per_pane() {
        let out = coalesce([
            Set::save(pane(1), rec("a", 1)),
            Set::save(pane(2), rec("b", 1)),
            Set::clear(pane(1), UnixMillis(2)),
            Set::save(pane(2), rec("c", 2)),
        ]);
        assert_eq!(
            out,
            [
                Set::clear(pane(1), UnixMillis(2)),
                Set::save(pane(2), rec("c", 2))
            ]
        );
    }

    #[test]
    fn coalescing_never_puts_a_clear_behind_an_older_save() {
        // The clear is newer; an older save sent after it (a late event) is
        // dropped instead of replacing it.
        let out = coalesce([
            Set::clear(pane(1), UnixMillis(10)),
            Set::save(pane(1), rec("a", 5)),
        ]);
        assert_eq!(out, [Set::clear(pane(1), UnixMillis(10))]);
    }

    #[test]
    fn equal_times_go_to_the_later_message() {
        let out = coalesce([
            Set::save(pane(1), rec("a", 5)),
            Set::clear(pane(1), UnixMillis(5)),
        ]);
        assert_eq!(out, [Set::clear(pane(1), UnixMillis(5))]);
        let out = coalesce([
            Set::clear(pane(1), UnixMillis(5)),
            Set::save(pane(1), rec("a", 5)),
        ]);
        assert_eq!(out, [Set::save(pane(1), rec("a", 5))]);
    }
}
