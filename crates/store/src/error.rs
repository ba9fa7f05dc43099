//! Typed errors, one per operation, and the closed set of underlying faults.

use std::fmt;

use thiserror::Error;

/// What went wrong underneath, as far as a caller can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Fault {
    /// Another connection holds a lock past the busy timeout.
    Busy = 1,
    /// The disk (or `max_page_count`) is full.
    Full = 2,
    /// The file or directory cannot be written.
    ReadOnly = 3,
    /// The file is a database with damaged pages (truncated, overwritten).
    Corrupt = 4,
    /// The file is not an SQLite database (bad header).
    NotADatabase = 5,
    /// The file or its directory cannot be opened or created.
    CannotOpen = 6,
    /// An operating-system I/O error.
    Io = 7,
    /// The tables are not what this build expects.
    Schema = 8,
    /// Anything else SQLite reported.
    Other = 9,
}

impl Fault {
    /// Every variant.
    pub const VARIANTS: &'static [Fault] = &[
        Fault::Busy,
        Fault::Full,
        Fault::ReadOnly,
        Fault::Corrupt,
        Fault::NotADatabase,
        Fault::CannotOpen,
        Fault::Io,
        Fault::Schema,
        Fault::Other,
    ];

    /// The stable lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Fault::Busy => "busy",
            Fault::Full => "full",
            Fault::ReadOnly => "read-only",
            Fault::Corrupt => "corrupt",
            Fault::NotADatabase => "not-a-database",
            Fault::CannotOpen => "cannot-open",
            Fault::Io => "io",
            Fault::Schema => "schema",
            Fault::Other => "other",
        }
    }

    /// Classifies an SQLite error.
    pub(crate) fn of(err: &rusqlite::Error) -> Fault {
        use rusqlite::ErrorCode as C;
        match err {
            rusqlite::Error::SqliteFailure(e, _) => match e.code {
                C::DatabaseBusy | C::DatabaseLocked => Fault::Busy,
                C::DiskFull => Fault::Full,
                C::ReadOnly | C::PermissionDenied => Fault::ReadOnly,
                C::DatabaseCorrupt => Fault::Corrupt,
                C::NotADatabase => Fault::NotADatabase,
                C::CannotOpen => Fault::CannotOpen,
                C::SystemIoFailure => Fault::Io,
                C::SchemaChanged => Fault::Schema,
                _ => Fault::Other,
            },
            rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::InvalidColumnName(_)
            | rusqlite::Error::InvalidColumnIndex(_) => Fault::Schema,
            _ => Fault::Other,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Fault::Busy => "locked by another process",
            Fault::Full => "disk or size limit full",
            Fault::ReadOnly => "not writable",
            Fault::Corrupt => "database is damaged",
            Fault::NotADatabase => "file is not a database",
            Fault::CannotOpen => "cannot open the file or its directory",
            Fault::Io => "i/o error",
            Fault::Schema => "unexpected tables",
            Fault::Other => "sqlite error",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// An error SQLite reported. Opaque, so the SQLite binding is no part of
/// this crate's API: [`Fault`] says what kind of failure it is, `Display`
/// gives SQLite's own message, and [`std::error::Error::source`] goes on to
/// what SQLite's error wraps.
#[derive(Debug)]
pub struct SqliteError(rusqlite::Error);

impl SqliteError {
    pub(crate) fn new(err: rusqlite::Error) -> Self {
        SqliteError(err)
    }

    /// What kind of failure.
    pub fn fault(&self) -> Fault {
        Fault::of(&self.0)
    }
}

impl fmt::Display for SqliteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for SqliteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Why a store is read-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadOnly {
    /// The database was written by a newer build (`found` > this build's
    /// latest version): recordings are read, never written or downgraded.
    FutureSchema {
        /// The version in the file.
        found: u32,
    },
    /// The operating system refuses writes (read-only file or directory).
    Denied,
    /// Opened for inspection (`status`, `recordings`).
    Inspect,
    /// The trust check failed: the file is never opened for writing, so a
    /// planted `-wal` is never replayed into it.
    Untrusted(crate::Distrust),
}

impl fmt::Display for ReadOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadOnly::FutureSchema { found } => write!(
                f,
                "schema version {found} is newer than this build's {}",
                crate::schema::LATEST
            ),
            ReadOnly::Denied => f.write_str("the file or its directory is not writable"),
            ReadOnly::Inspect => f.write_str("opened for inspection"),
            ReadOnly::Untrusted(why) => write!(f, "the database is not trusted: {why}"),
        }
    }
}

/// Opening (and migrating) a database failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The database's directory could not be created.
    #[error("cannot create the database directory")]
    CreateDir(#[source] std::io::Error),
    /// The database file could not be created.
    #[error("cannot create the database file")]
    CreateFile(#[source] std::io::Error),
    /// SQLite refused the file.
    #[error("cannot open the database: {fault}")]
    Sqlite {
        /// What kind of failure.
        fault: Fault,
        /// The SQLite error.
        #[source]
        source: SqliteError,
    },
    /// A migration failed; the database is left at its previous version.
    #[error("migration to schema version {version} failed: {fault}")]
    Migration {
        /// The version that failed to apply.
        version: u32,
        /// What kind of failure.
        fault: Fault,
        /// The SQLite error.
        #[source]
        source: SqliteError,
    },
}

impl OpenError {
    /// The underlying fault.
    pub fn fault(&self) -> Fault {
        match self {
            OpenError::CreateDir(_) | OpenError::CreateFile(_) => Fault::CannotOpen,
            OpenError::Sqlite { fault, .. } | OpenError::Migration { fault, .. } => *fault,
        }
    }

    pub(crate) fn sqlite(source: rusqlite::Error) -> Self {
        OpenError::Sqlite {
            fault: Fault::of(&source),
            source: SqliteError(source),
        }
    }
}

/// Reading recordings failed as a whole.
#[derive(Debug, Error)]
#[non_exhaustive]
#[error("cannot read recordings: {fault}")]
pub struct LoadError {
    /// What kind of failure.
    pub fault: Fault,
    /// The SQLite error.
    #[source]
    pub source: SqliteError,
}

impl LoadError {
    pub(crate) fn sqlite(source: rusqlite::Error) -> Self {
        LoadError {
            fault: Fault::of(&source),
            source: SqliteError(source),
        }
    }
}

/// A write (flush, sweep, arm, disarm) failed; nothing of it was applied.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The store refuses writes.
    #[error("database is read-only: {0}")]
    ReadOnly(ReadOnly),
    /// SQLite failed; the transaction was rolled back.
    #[error("write failed: {fault}")]
    Sqlite {
        /// What kind of failure.
        fault: Fault,
        /// The SQLite error.
        #[source]
        source: SqliteError,
    },
}

impl WriteError {
    /// The underlying fault.
    pub fn fault(&self) -> Fault {
        match self {
            WriteError::ReadOnly(_) => Fault::ReadOnly,
            WriteError::Sqlite { fault, .. } => *fault,
        }
    }
}

impl WriteError {
    pub(crate) fn sqlite(source: rusqlite::Error) -> Self {
        WriteError::Sqlite {
            fault: Fault::of(&source),
            source: SqliteError(source),
        }
    }
}

/// Taking an armed invocation failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TakeError {
    /// The database may have been written by another user: nothing is run
    /// from it.
    #[error("database is not trusted: {0}")]
    Untrusted(crate::Distrust),
    /// The store refuses writes, so nothing can be taken exactly once.
    #[error("database is read-only: {0}")]
    ReadOnly(ReadOnly),
    /// The row was taken (it is gone) but does not decode.
    #[error("the armed row is unreadable")]
    Unreadable,
    /// SQLite failed; nothing was taken.
    #[error("take failed: {fault}")]
    Sqlite {
        /// What kind of failure.
        fault: Fault,
        /// The SQLite error.
        #[source]
        source: SqliteError,
    },
}

impl TakeError {
    pub(crate) fn sqlite(source: rusqlite::Error) -> Self {
        TakeError::Sqlite {
            fault: Fault::of(&source),
            source: SqliteError(source),
        }
    }
}
