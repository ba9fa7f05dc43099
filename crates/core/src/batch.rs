//! One message type for saves and clears, and its pure per-pane coalescing.
//!
//! Saves and clears travel as one message type, [`Set`], in one total order
//! per pane. Between writes a writer keeps one message per pane
//! ([`Batch`]): an older message never replaces a newer one, so coalescing
//! can never move a clear behind an older save. Every persistence (the
//! SQLite store, an in-memory one, a host's own database) applies the same
//! messages with the same rule.
//!
//! ```
//! use agent_resume_core::batch::coalesce;
//! use agent_resume_core::{PaneId, UnixMillis};
//! use agent_resume_core::batch::Set;
//!
//! let pane = PaneId::from_bytes([1; 16]);
//! // A late clear (older) sent after a newer one is dropped.
//! let out = coalesce([Set::clear(pane, UnixMillis(10)), Set::clear(pane, UnixMillis(5))]);
//! assert_eq!(out, [Set::clear(pane, UnixMillis(10))]);
//! ```

use std::collections::HashMap;

use crate::capture::Change;
use crate::pane::PaneId;
use crate::posture::UnixMillis;
use crate::recording::Recording;

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
    /// after a `Delete` the caller also disarms the pane.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AgentKind;
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
