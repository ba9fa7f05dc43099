//! The SQLite store of agent-resume: per pane, what capture recorded, kept
//! outside the host's layout snapshot; written by an ordered, coalescing
//! writer; read by restore in a way that never costs the user a window.
//!
//! # Pieces
//!
//! - [`Store`]: opening (0600 file in a 0700 directory, WAL, busy timeout,
//!   migrations from the top-level `migrations/`), the trust check and the
//!   read-only fallbacks (newer schema, write-protected file or directory).
//! - [`Writer`] and [`Set`]: one message type for saves and clears, coalesced
//!   per pane ([`Batch`]), one transaction per flush, guarded in SQL on
//!   `observed_at` so that an older write never overtakes a newer one, also
//!   across processes.
//! - [`Store::load`], [`load_or_empty`] and [`startup`]: rows decoded and
//!   re-validated into [`RowState`]; a failure degrades to "no recordings".
//!   [`decode_values`] is that decoder on raw column values, with no
//!   connection (the `store_row` fuzz target drives it).
//! - [`Store::arm`] / [`Store::take`]: a resume invocation taken exactly once.
//! - Trust: one check ([`Distrust`]) made before SQLite opens the file —
//!   owner and mode of the file, its directory, `-wal`/`-shm` and every
//!   directory above, a symlinked name refused — gating recordings, armed
//!   rows and [`Store::host_layout`]. An untrusted file is only read
//!   `immutable`, never written, migrated or checkpointed, and gives no
//!   lock file beside it ([`Store::lock_beside`]).
//! - A database still being created (schema version 0) reads as empty.
//! - [`Set::from_change`]: core capture's `Change` (save, clear, delete) as a
//!   writer message.
//!
//! `docs/store.md` describes the schema, the ordering guarantees and what
//! each fault costs.
//!
//! # Example
//!
//! ```
//! use agent_resume_core::{AgentKind, PaneId, Recording, UnixMillis};
//! use agent_resume_store::{RowState, Set, Store, Writer};
//!
//! let pane: PaneId = "6f9619ff-8b86-d011-b42d-00c04fc964ff".parse().expect("pane id");
//! let recording = Recording {
//!     agent: AgentKind::Claude,
//!     session_id: "f6066ebb-140e-4519-ab63-b9cde0b60b57".into(),
//!     flags: vec![],
//!     program: None,
//!     cwd: "/home/me/project".into(),
//!     observed_at: UnixMillis(1_700_000_000_000),
//!     config_home: None,
//!     dir: None,
//! };
//! let mut writer = Writer::new(Store::open_in_memory().expect("store"));
//! writer.send(Set::save(pane, recording.clone()));
//! writer.flush().expect("one transaction");
//!
//! let loaded = writer.store().load().expect("readable");
//! assert_eq!(loaded.rows[&pane], RowState::Recording(recording));
//!
//! writer.send(Set::clear(pane, UnixMillis(1_700_000_000_001)));
//! writer.flush().expect("one transaction");
//! assert!(writer.store().load().expect("readable").rows.is_empty());
//! ```

mod arm;
mod error;
mod load;
mod lock;
pub mod migrate;
mod noted;
mod open;
mod resume;
mod row;
mod schema;
mod writer;

pub use arm::{Armed, Ticket};
pub use error::{Fault, LoadError, OpenError, ReadOnly, SqliteError, TakeError, WriteError};
pub use load::{inspect_or_empty, load_or_empty, startup, Counts, Loaded, Startup, Warning};
pub use lock::LockError;
pub use noted::Noted;
pub use open::{Distrust, OpenOptions, Store, KEPT_WAL_PAGES};
pub use resume::{QueueRow, Resume, Step};
pub use row::{decode_values, Column, RowState, Unreadable, VALUES};
pub use writer::{coalesce, Batch, Flushed, Set, Writer, WriterStats};
