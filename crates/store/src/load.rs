//! Reading recordings, the start-up path that never fails, and the sweep.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;

use agent_resume_core::{PaneId, Stored};
use rusqlite::TransactionBehavior;

use crate::error::{Fault, LoadError, ReadOnly, WriteError};
use crate::open::{Distrust, OpenOptions, Store};
use crate::row::{self, RowState};

/// Something the user may want to know; never a reason to fail a restore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warning {
    /// The database could not be opened: no recordings.
    OpenFailed(Fault),
    /// The table could not be read as a whole: no recordings.
    ReadFailed(Fault),
    /// The database may have been written by another user: no recordings
    /// are used from it.
    Untrusted(Distrust),
    /// The database cannot be written; recordings are read only.
    ReadOnly(ReadOnly),
    /// Rows whose pane key is not a pane id were ignored (the sweep removes
    /// them).
    MalformedPanes(usize),
    /// The sweep failed; stale rows stay until the next start.
    SweepFailed(Fault),
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::OpenFailed(fault) => {
                write!(
                    f,
                    "recordings database unavailable ({fault}); restoring without recordings"
                )
            }
            Warning::ReadFailed(fault) => {
                write!(
                    f,
                    "recordings unreadable ({fault}); restoring without recordings"
                )
            }
            Warning::Untrusted(why) => {
                write!(
                    f,
                    "recordings database not trusted ({why}); no agent is resumed from it"
                )
            }
            Warning::ReadOnly(why) => write!(f, "recordings database is read-only ({why})"),
            Warning::MalformedPanes(n) => {
                write!(f, "{n} recording row(s) with a malformed pane id ignored")
            }
            Warning::SweepFailed(fault) => {
                write!(
                    f,
                    "could not drop recordings of panes not restored ({fault})"
                )
            }
        }
    }
}

/// What a load found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Per pane, a recording or why its row is unreadable.
    pub rows: BTreeMap<PaneId, RowState>,
    /// What the user may want to know.
    pub warnings: Vec<Warning>,
}

impl Loaded {
    /// The rows as core's restore input ([`eligibility::plan`](agent_resume_core::plan)).
    pub fn stored(&self) -> BTreeMap<PaneId, Stored> {
        self.rows
            .iter()
            .map(|(p, s)| (*p, s.clone().into_stored()))
            .collect()
    }

    /// The rows as core's restore input, moved rather than cloned (restore
    /// needs nothing else of them).
    pub fn into_stored(self) -> BTreeMap<PaneId, Stored> {
        self.rows
            .into_iter()
            .map(|(p, s)| (p, s.into_stored()))
            .collect()
    }

    /// No recordings, for one reason.
    pub fn empty(warning: Warning) -> Loaded {
        Loaded {
            rows: BTreeMap::new(),
            warnings: vec![warning],
        }
    }
}

/// Row counts, for `status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Rows in `agent_sessions`.
    pub recordings: u64,
    /// Remembered clears.
    pub clears: u64,
    /// Armed invocations.
    pub armed: u64,
}

impl Store {
    /// Every row, decoded and re-validated. Rows that cannot be used are
    /// [`RowState::Unreadable`] for their pane only. Fails only when the
    /// table cannot be read as a whole. Ignores trust: see
    /// [`Store::load_or_empty`] for restore.
    ///
    /// A database still being created (schema version 0: the first writer's
    /// migration has not committed yet) holds no recordings: empty, never
    /// an error.
    pub fn load(&self) -> Result<Loaded, LoadError> {
        let mut out = Loaded::default();
        if self.schema_version() > 0 {
            self.load_rows(&mut out).map_err(LoadError::sqlite)?;
        }
        match self.read_only() {
            Some(r @ (ReadOnly::FutureSchema { .. } | ReadOnly::Denied)) => {
                out.warnings.push(Warning::ReadOnly(r));
            }
            Some(ReadOnly::Inspect | ReadOnly::Untrusted(_)) | None => {}
        }
        Ok(out)
    }

    fn load_rows(&self, out: &mut Loaded) -> rusqlite::Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {} FROM agent_sessions", row::COLUMNS))?;
        let mut rows = stmt.query([])?;
        let mut malformed = 0;
        let mut flags = row::FlagsCache::default();
        // Collected, then built in one pass (a stable sort keeps the last
        // row of a pane, as inserting one by one would).
        let mut read = Vec::new();
        while let Some(r) = rows.next()? {
            match row::pane(r)? {
                Some(pane) => read.push((pane, row::decode_cached(r, &mut flags)?)),
                None => malformed += 1,
            }
        }
        out.rows = read.into_iter().collect();
        if malformed > 0 {
            out.warnings.push(Warning::MalformedPanes(malformed));
        }
        Ok(())
    }

    /// Restore's read: never fails. An untrusted database or a failed read
    /// yields no recordings and a warning.
    pub fn load_or_empty(&self) -> Loaded {
        if let Some(why) = self.distrust() {
            return Loaded::empty(Warning::Untrusted(why));
        }
        match self.load() {
            Ok(l) => l,
            Err(e) => Loaded::empty(Warning::ReadFailed(e.fault)),
        }
    }

    /// Deletes recordings, clears and armed rows of every pane not in
    /// `keep` (and rows whose pane key is malformed), in one transaction;
    /// returns how many recordings went.
    pub fn sweep(&mut self, keep: &HashSet<PaneId>) -> Result<usize, WriteError> {
        self.writable()?;
        self.sweep_rows(keep).map_err(WriteError::sqlite)
    }

    /// [`Store::sweep`] on a store known to be writable.
    fn sweep_rows(&mut self, keep: &HashSet<PaneId>) -> rusqlite::Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut swept = 0;
        for table in [
            "agent_sessions",
            "agent_session_clears",
            "armed",
            "noted",
            "report_seq",
        ] {
            let doomed: Vec<String> = {
                let mut stmt = tx.prepare(&format!("SELECT pane FROM {table}"))?;
                let panes = stmt.query_map([], |r| {
                    r.get_ref(0).map(|v| v.as_str().ok().map(str::to_owned))
                })?;
                let mut doomed = Vec::new();
                for p in panes {
                    let text = p?;
                    let kept = text
                        .as_deref()
                        .and_then(|t| t.parse::<PaneId>().ok())
                        .is_some_and(|id| keep.contains(&id));
                    if !kept {
                        doomed.extend(text);
                    }
                }
                doomed
            };
            let mut del = tx.prepare(&format!("DELETE FROM {table} WHERE pane = ?1"))?;
            for p in &doomed {
                del.execute([p])?;
            }
            if table == "agent_sessions" {
                swept = doomed.len();
                // Keys that are not even text.
                tx.execute(
                    "DELETE FROM agent_sessions WHERE typeof(pane) <> 'text'",
                    [],
                )?;
            }
        }
        tx.commit()?;
        Ok(swept)
    }

    /// Row counts (all zero while the database is still being created).
    pub fn counts(&self) -> Result<Counts, LoadError> {
        if self.schema_version() == 0 {
            return Ok(Counts::default());
        }
        let count = |table: &str| -> Result<u64, LoadError> {
            let n: i64 = self
                .conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .map_err(LoadError::sqlite)?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        Ok(Counts {
            recordings: count("agent_sessions")?,
            clears: count("agent_session_clears")?,
            armed: count("armed")?,
        })
    }
}

/// Restore's read of an existing file: never fails and creates nothing.
/// No file means no recordings and no warning.
pub fn load_or_empty(path: &Path, options: &OpenOptions) -> Loaded {
    match options.open_existing(path) {
        Ok(Some(store)) => store.load_or_empty(),
        Ok(None) => Loaded::default(),
        Err(e) => Loaded::empty(Warning::OpenFailed(e.fault())),
    }
}

/// A dry run's read (`plan`, `explain`): like [`load_or_empty`], but the
/// file is opened read-only and never migrated, so looking never changes it.
pub fn inspect_or_empty(path: &Path, options: &OpenOptions) -> Loaded {
    match options.inspect(path) {
        Ok(Some(store)) => store.load_or_empty(),
        Ok(None) => Loaded::default(),
        Err(e) => Loaded::empty(Warning::OpenFailed(e.fault())),
    }
}

/// What the start-up pass produced.
#[derive(Debug)]
pub struct Startup {
    /// The open store, for arming; `None` when there is none or it failed.
    pub store: Option<Store>,
    /// The recordings (empty on any failure, with warnings).
    pub loaded: Loaded,
    /// Whether the sweep ran and succeeded: only on a trusted, writable
    /// store, and never when it failed (a warning then says why).
    pub swept: bool,
}

/// The start-up pass of a restoring process, before any pane exists: open
/// the existing database, load recordings (as [`Store::load_or_empty`]),
/// then drop rows of panes the layout does not restore (`keep`). The sweep
/// runs on every call, only on a trusted, writable store, and
/// [`Startup::swept`] says whether it did; its failure is a warning. No
/// state outlives the call: a host that restores twice sweeps twice. Never
/// fails.
pub fn startup(path: &Path, options: &OpenOptions, keep: &HashSet<PaneId>) -> Startup {
    let mut store = match options.open_existing(path) {
        Ok(Some(s)) => s,
        Ok(None) => {
            return Startup {
                store: None,
                loaded: Loaded::default(),
                swept: false,
            }
        }
        Err(e) => {
            return Startup {
                store: None,
                loaded: Loaded::empty(Warning::OpenFailed(e.fault())),
                swept: false,
            }
        }
    };
    let mut loaded = store.load_or_empty();
    let mut swept = false;
    if store.trusted() && store.read_only().is_none() {
        match store.sweep(keep) {
            Ok(_) => swept = true,
            Err(e) => loaded.warnings.push(Warning::SweepFailed(e.fault())),
        }
    }
    Startup {
        store: Some(store),
        loaded,
        swept,
    }
}
