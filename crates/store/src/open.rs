//! Opening a store: file and directory modes, connection pragmas, the
//! read-only fallbacks, migrations and the trust check.

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use crate::error::{Fault, OpenError, ReadOnly, SqliteError};
use crate::migrate::{self, LATEST};

/// How to open a store.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// How long a statement waits for another connection's lock.
    pub busy_timeout: Duration,
    /// A cap on the database size in pages (4 KiB each); writes past it fail
    /// with [`Fault::Full`] and roll back.
    pub max_page_count: Option<u32>,
    /// Leave the write-ahead log (`-wal`, `-shm`) to the next process when
    /// this connection closes, instead of checkpointing it into the database
    /// (two fsyncs) and deleting both files. The log is checkpointed once it
    /// holds [`KEPT_WAL_PAGES`] pages, by whichever commit passes that, or
    /// by the close of a connection that does not keep it. For short-lived
    /// writers that run often (the agents' hooks).
    pub keep_wal: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            busy_timeout: Duration::from_secs(5),
            max_page_count: None,
            keep_wal: false,
        }
    }
}

/// Pages a kept write-ahead log may hold before a commit checkpoints it.
/// Small, because the first connection of every process rebuilds the log's
/// index by reading the whole log.
pub const KEPT_WAL_PAGES: u32 = 64;

/// Bytes a kept write-ahead log is cut back to when it starts over after a
/// checkpoint.
const WAL_SIZE_LIMIT: i64 = 1 << 20;

/// Why a database file is not trusted for restore.
///
/// The check follows the real file: a symbolic link as the database's own
/// name is refused (never followed), `-wal` and `-shm` beside it are checked
/// like the file, and every directory on the way to it (also through
/// symbolic links on the way) must be safe from other users.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Distrust {
    /// The file belongs to another user.
    FileOwner = 1,
    /// Group or others may write the file.
    FileWritableByOthers = 2,
    /// The directory belongs to another user.
    DirOwner = 3,
    /// Group or others may write the directory (they could replace the file).
    DirWritableByOthers = 4,
    /// The file or directory could not be examined.
    Unexamined = 5,
    /// The database's own name is a symbolic link (refused, not followed).
    Symlink = 6,
    /// A `-wal` or `-shm` file beside the database belongs to another user.
    WalOwner = 7,
    /// Group or others may write a `-wal` or `-shm` file beside the database.
    WalWritableByOthers = 8,
    /// A `-wal` or `-shm` beside the database is not a regular file (a
    /// symbolic link, a FIFO, a device, a directory).
    WalNotRegular = 9,
    /// A directory above the database's belongs to a user other than this
    /// one or root (they could replace the whole subtree).
    AncestorOwner = 10,
    /// Group or others may write a directory above the database's, and it
    /// is not a sticky directory owned by root like `/tmp`.
    AncestorWritableByOthers = 11,
}

impl Distrust {
    /// Every variant.
    pub const VARIANTS: &'static [Distrust] = &[
        Distrust::FileOwner,
        Distrust::FileWritableByOthers,
        Distrust::DirOwner,
        Distrust::DirWritableByOthers,
        Distrust::Unexamined,
        Distrust::Symlink,
        Distrust::WalOwner,
        Distrust::WalWritableByOthers,
        Distrust::WalNotRegular,
        Distrust::AncestorOwner,
        Distrust::AncestorWritableByOthers,
    ];

    /// The stable lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Distrust::FileOwner => "file-owner",
            Distrust::FileWritableByOthers => "file-writable-by-others",
            Distrust::DirOwner => "dir-owner",
            Distrust::DirWritableByOthers => "dir-writable-by-others",
            Distrust::Unexamined => "unexamined",
            Distrust::Symlink => "symlink",
            Distrust::WalOwner => "wal-owner",
            Distrust::WalWritableByOthers => "wal-writable-by-others",
            Distrust::WalNotRegular => "wal-not-regular",
            Distrust::AncestorOwner => "ancestor-owner",
            Distrust::AncestorWritableByOthers => "ancestor-writable-by-others",
        }
    }
}

impl fmt::Display for Distrust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Distrust::FileOwner => "the file belongs to another user",
            Distrust::FileWritableByOthers => "the file is writable by group or others",
            Distrust::DirOwner => "its directory belongs to another user",
            Distrust::DirWritableByOthers => "its directory is writable by group or others",
            Distrust::Unexamined => "the file or its directory could not be examined",
            Distrust::Symlink => "the database path is a symbolic link",
            Distrust::WalOwner => "its -wal or -shm file belongs to another user",
            Distrust::WalWritableByOthers => "its -wal or -shm file is writable by group or others",
            Distrust::WalNotRegular => "its -wal or -shm file is not a regular file",
            Distrust::AncestorOwner => "a directory above it belongs to another user (not root)",
            Distrust::AncestorWritableByOthers => {
                "a directory above it is writable by group or others and not sticky and root-owned"
            }
        })
    }
}

/// The recordings database.
pub struct Store {
    pub(crate) conn: Connection,
    path: Option<PathBuf>,
    read_only: Option<ReadOnly>,
    version: u32,
    distrust: Option<Distrust>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .field("version", &self.version)
            .field("distrust", &self.distrust)
            .finish()
    }
}

impl Store {
    /// Opens `path` for reading and writing with default options, creating
    /// its directory (mode 0700) and the file (mode 0600) when missing, and
    /// migrating it. See [`OpenOptions::open`].
    pub fn open(path: &Path) -> Result<Store, OpenError> {
        OpenOptions::default().open(path)
    }

    /// A private in-memory store (tests, hosts' own tests).
    pub fn open_in_memory() -> Result<Store, OpenError> {
        let mut conn = Connection::open_in_memory().map_err(OpenError::sqlite)?;
        let version = migrate::migrate(&mut conn)?;
        Ok(Store {
            conn,
            path: None,
            read_only: None,
            version,
            distrust: None,
        })
    }

    /// The file, unless in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// `Some` when writes are refused, with why.
    pub fn read_only(&self) -> Option<ReadOnly> {
        self.read_only
    }

    /// The schema version in the file (after migrating, when writable).
    pub fn schema_version(&self) -> u32 {
        self.version
    }

    /// Whether restore may act on what this database holds: false when the
    /// file or its directory belongs to another user or is writable by
    /// group or others. See [`Store::distrust`] for why.
    pub fn trusted(&self) -> bool {
        self.distrust.is_none()
    }

    /// Why the database is not trusted, if it is not.
    pub fn distrust(&self) -> Option<Distrust> {
        self.distrust
    }

    pub(crate) fn writable(&self) -> Result<(), crate::WriteError> {
        match self.read_only {
            Some(r) => Err(crate::WriteError::ReadOnly(r)),
            None => Ok(()),
        }
    }
}

impl OpenOptions {
    /// Opens `path` for reading and writing, creating the directory (0700)
    /// and file (0600) when missing, setting WAL, the busy timeout and
    /// `synchronous=NORMAL`, and applying pending migrations.
    ///
    /// Never fails just because writing is impossible: a read-only file or
    /// directory, or a schema from a newer build, yields a store whose
    /// [`Store::read_only`] says why, so recordings can still be read.
    pub fn open(&self, path: &Path) -> Result<Store, OpenError> {
        if let Some(dir) = parent(path) {
            if !dir.is_dir() {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .map_err(OpenError::CreateDir)?;
            }
        }
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            // A read-only directory holding an existing file: read it.
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied && path.is_file() => {}
            Err(e) if e.kind() == io::ErrorKind::ReadOnlyFilesystem && path.is_file() => {}
            Err(e) => return Err(OpenError::CreateFile(e)),
        }
        self.open_file(path, false)
    }

    /// Opens `path` only if the file exists (`Ok(None)` otherwise, having
    /// touched nothing); migrates it when writable.
    pub fn open_existing(&self, path: &Path) -> Result<Option<Store>, OpenError> {
        if !path.is_file() {
            return Ok(None);
        }
        self.open_file(path, false).map(Some)
    }

    /// Opens an existing `path` for inspection: read-only, never migrated,
    /// nothing created (`Ok(None)` when there is no file).
    pub fn inspect(&self, path: &Path) -> Result<Option<Store>, OpenError> {
        if !path.is_file() {
            return Ok(None);
        }
        self.open_file(path, true).map(Some)
    }

    /// Examines the file before SQLite ever sees it. A trusted file is
    /// opened as asked. An untrusted one is never opened for writing, never
    /// migrated and never checkpointed: only its main file is read
    /// (`immutable`, so a planted `-wal` is neither replayed nor merged into
    /// it, and a planted `-shm` is never mapped), and the store refuses every
    /// write and every take.
    fn open_file(&self, path: &Path, inspect: bool) -> Result<Store, OpenError> {
        let distrust = examine(path);
        if let Some(why) = distrust {
            let conn = self.open_immutable(path)?;
            let found = migrate::user_version(&conn).map_err(OpenError::sqlite)?;
            conn.pragma_update(None, "query_only", true)
                .map_err(OpenError::sqlite)?;
            return Ok(Store {
                conn,
                path: Some(path.to_path_buf()),
                read_only: Some(ReadOnly::Untrusted(why)),
                version: found,
                distrust,
            });
        }
        // A read-only connection has read the version already (its proof
        // that the file is readable that way).
        let (mut conn, read, denied) = if inspect {
            let (conn, found) = self.open_read_only(path)?;
            (conn, Some(found), None)
        } else {
            match self.open_read_write(path) {
                Ok(conn) => (conn, None, None),
                Err(e) if denied_fault(e.fault()) => {
                    let (conn, found) = self.open_read_only(path)?;
                    (conn, Some(found), Some(ReadOnly::Denied))
                }
                Err(e) => return Err(e),
            }
        };
        let found = match read {
            Some(found) => found,
            None => migrate::user_version(&conn).map_err(OpenError::sqlite)?,
        };
        let read_only = if found > LATEST {
            Some(ReadOnly::FutureSchema { found })
        } else if inspect {
            Some(ReadOnly::Inspect)
        } else {
            denied
        };
        let version = match read_only {
            None => migrate::migrate(&mut conn)?,
            Some(_) => {
                // Belt and braces: the connection itself refuses writes.
                conn.pragma_update(None, "query_only", true)
                    .map_err(OpenError::sqlite)?;
                found
            }
        };
        Ok(Store {
            conn,
            path: Some(path.to_path_buf()),
            read_only,
            version,
            distrust,
        })
    }

    /// The main file only, read-only, without locks, `-wal` or `-shm`.
    fn open_immutable(&self, path: &Path) -> Result<Connection, OpenError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        Connection::open_with_flags(immutable_uri(path), flags).map_err(OpenError::sqlite)
    }

    fn open_read_write(&self, path: &Path) -> Result<Connection, OpenError> {
        // A directory that refuses new entries refuses writes, even where a
        // kept `-wal` and `-shm` would let SQLite write without creating a
        // file: the store behaves the same whatever an earlier process left
        // beside it.
        let dir = parent(path).unwrap_or(Path::new("."));
        if rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).is_err() {
            return Err(read_only_error("the directory is not writable"));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(OpenError::sqlite)?;
        conn.busy_timeout(self.busy_timeout)
            .map_err(OpenError::sqlite)?;
        // SQLite silently opens a write-protected file read-only.
        if conn
            .is_readonly(rusqlite::MAIN_DB)
            .map_err(OpenError::sqlite)?
        {
            return Err(OpenError::Sqlite {
                fault: Fault::ReadOnly,
                source: SqliteError::new(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
                    None,
                )),
            });
        }
        let mode = enter_wal(&conn, self.busy_timeout).map_err(OpenError::sqlite)?;
        if !mode.eq_ignore_ascii_case("wal") {
            // WAL could not be entered (e.g. the directory refuses the -wal
            // file): treat as not writable rather than run in another mode.
            return Err(read_only_error("journal mode is not wal"));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(OpenError::sqlite)?;
        if self.keep_wal {
            // The commit stays in `-wal` for the next process, and `-wal`
            // and `-shm` stay with it: no checkpoint (two fsyncs), no
            // deletion of both files and no creating them again (a directory
            // fsync) per process. SQLite gives them the database file's
            // owner and mode (0600), so `examine` still trusts them.
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
                .map_err(OpenError::sqlite)?;
            conn.pragma_update(None, "wal_autocheckpoint", KEPT_WAL_PAGES)
                .map_err(OpenError::sqlite)?;
            conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT)
                .map_err(OpenError::sqlite)?;
        }
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(OpenError::sqlite)?;
        if let Some(pages) = self.max_page_count {
            conn.pragma_update(None, "max_page_count", pages)
                .map_err(OpenError::sqlite)?;
        }
        Ok(conn)
    }

    /// A read-only connection and the schema version it read; when a WAL
    /// database cannot be read that way (no `-shm` and a directory that
    /// refuses one), the `immutable` form, which reads the main file only.
    fn open_read_only(&self, path: &Path) -> Result<(Connection, u32), OpenError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let first = Connection::open_with_flags(path, flags).and_then(|c| {
            c.busy_timeout(self.busy_timeout)?;
            let found = migrate::user_version(&c)?;
            Ok((c, found))
        });
        match first {
            Ok(read) => Ok(read),
            Err(e) if matches!(Fault::of(&e), Fault::CannotOpen | Fault::ReadOnly) => {
                let uri = immutable_uri(path);
                let c = Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
                    .map_err(OpenError::sqlite)?;
                let found = migrate::user_version(&c).map_err(OpenError::sqlite)?;
                Ok((c, found))
            }
            Err(e) => Err(OpenError::sqlite(e)),
        }
    }
}

/// A write refused before SQLite would refuse it, as SQLite refuses one.
fn read_only_error(why: &str) -> OpenError {
    OpenError::Sqlite {
        fault: Fault::ReadOnly,
        source: SqliteError::new(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
            Some(why.to_owned()),
        )),
    }
}

fn denied_fault(f: Fault) -> bool {
    matches!(f, Fault::ReadOnly | Fault::CannotOpen)
}

fn parent(path: &Path) -> Option<&Path> {
    path.parent().filter(|p| !p.as_os_str().is_empty())
}

/// `file:<percent-encoded path>?immutable=1`.
fn immutable_uri(path: &Path) -> String {
    let mut s = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s.push_str("?immutable=1");
    s
}

/// The trust check, made before the file is opened. The database's own
/// name must not be a symbolic link; the file must be a regular file of this
/// process's effective user, not writable by group or others; its directory
/// likewise; `-wal` and `-shm` beside it, when present, likewise; and every
/// directory above it (also every directory a symbolic link on the way
/// passes through) must belong to this user or root and not be writable by
/// group or others unless it is sticky and root's (like `/tmp`): anyone who
/// may rename entries in such a directory could replace the whole subtree.
pub(crate) fn examine(path: &Path) -> Option<Distrust> {
    let me = rustix::process::geteuid().as_raw();
    let Ok(link) = fs::symlink_metadata(path) else {
        return Some(Distrust::Unexamined);
    };
    if link.file_type().is_symlink() {
        return Some(Distrust::Symlink);
    }
    if !link.file_type().is_file() {
        return Some(Distrust::Unexamined);
    }
    if link.uid() != me {
        return Some(Distrust::FileOwner);
    }
    if link.mode() & 0o022 != 0 {
        return Some(Distrust::FileWritableByOthers);
    }
    let written = parent(path).unwrap_or(Path::new("."));
    let Ok(dir) = fs::canonicalize(written) else {
        return Some(Distrust::Unexamined);
    };
    let Ok(dirm) = fs::metadata(&dir) else {
        return Some(Distrust::Unexamined);
    };
    if dirm.uid() != me {
        return Some(Distrust::DirOwner);
    }
    if dirm.mode() & 0o022 != 0 {
        return Some(Distrust::DirWritableByOthers);
    }
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        match fs::symlink_metadata(&side) {
            Ok(m) if !m.file_type().is_file() => return Some(Distrust::WalNotRegular),
            Ok(m) if m.uid() != me => return Some(Distrust::WalOwner),
            Ok(m) if m.mode() & 0o022 != 0 => return Some(Distrust::WalWritableByOthers),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(_) => return Some(Distrust::Unexamined),
        }
    }
    let Some(chain) = directory_chain(written) else {
        return Some(Distrust::Unexamined);
    };
    for d in &chain {
        let Ok(m) = fs::metadata(d) else {
            return Some(Distrust::Unexamined);
        };
        if m.uid() != me && m.uid() != 0 {
            return Some(Distrust::AncestorOwner);
        }
        let sticky_root = m.mode() & 0o1000 != 0 && m.uid() == 0;
        if m.mode() & 0o022 != 0 && !sticky_root {
            return Some(Distrust::AncestorWritableByOthers);
        }
    }
    None
}

/// Every real directory whose entries are looked up on the way to `dir`:
/// the ancestors of the real location of each prefix of the written path
/// (so a symbolic link on the way brings in its own directory and its
/// target's chain), up to `/`.
fn directory_chain(dir: &Path) -> Option<BTreeSet<PathBuf>> {
    let written = std::path::absolute(dir).ok()?;
    let mut chain = BTreeSet::new();
    for prefix in written.ancestors() {
        let real = fs::canonicalize(prefix).ok()?;
        for a in real.ancestors() {
            if !chain.insert(a.to_path_buf()) {
                break;
            }
        }
    }
    Some(chain)
}

/// Puts the database in WAL mode; its journal mode after. Connections that
/// open a new file at once all ask for the switch, and some get
/// `SQLITE_BUSY` at once, without the busy timeout being waited (seen: 4 of
/// 60 runs of eight concurrent opens with a busy core, each failing within
/// 0.3 s of a 5 s timeout; the switch escalates a lock the connection
/// holds, which SQLite does not wait on). The switch is asked again until
/// `timeout`, as a busy wait would.
fn enter_wal(conn: &Connection, timeout: Duration) -> rusqlite::Result<String> {
    let started = std::time::Instant::now();
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "wal", |r| r.get(0)) {
            Err(e) if Fault::of(&e) == Fault::Busy && started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(5));
            }
            done => return done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immutable_uri_percent_encodes_everything_but_plain_path_bytes() {
        let p = Path::new(std::ffi::OsStr::from_bytes(b"/t/a b?#%\xff.db"));
        assert_eq!(immutable_uri(p), "file:/t/a%20b%3F%23%25%FF.db?immutable=1");
    }

    #[test]
    fn new_database_is_0600_inside_a_0700_directory() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("nested/dir/recordings.sqlite3");
        let store = Store::open(&path).expect("opens");
        assert_eq!(store.schema_version(), LATEST);
        let mode = |p: &Path| fs::metadata(p).expect("exists").mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&tmp.path().join("nested/dir")), 0o700);
        assert_eq!(mode(&tmp.path().join("nested")), 0o700);
        assert!(store.trusted(), "{:?}", store.distrust());
    }

    #[test]
    fn database_in_a_group_writable_directory_is_not_trusted() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("recordings.sqlite3");
        drop(Store::open(&path).expect("opens"));
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o770)).expect("chmod");
        let store = Store::open(&path).expect("opens");
        assert_eq!(store.distrust(), Some(Distrust::DirWritableByOthers));
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o700)).expect("chmod");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).expect("chmod");
        let store = Store::open(&path).expect("opens");
        assert_eq!(store.distrust(), Some(Distrust::FileWritableByOthers));
    }

    #[test]
    fn a_symlinked_database_name_is_refused_not_followed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let real = tmp.path().join("real.sqlite3");
        drop(Store::open(&real).expect("opens"));
        let link = tmp.path().join("recordings.sqlite3");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let store = Store::open(&link).expect("opens");
        assert_eq!(store.distrust(), Some(Distrust::Symlink));
        assert_eq!(
            store.read_only(),
            Some(ReadOnly::Untrusted(Distrust::Symlink))
        );
    }

    #[test]
    fn a_writable_or_odd_wal_or_shm_beside_the_database_is_not_trusted() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("recordings.sqlite3");
        drop(Store::open(&path).expect("opens"));
        for suffix in ["-wal", "-shm"] {
            let side = tmp.path().join(format!("recordings.sqlite3{suffix}"));
            fs::write(&side, b"").expect("plants");
            fs::set_permissions(&side, fs::Permissions::from_mode(0o620)).expect("chmod");
            assert_eq!(
                examine(&path),
                Some(Distrust::WalWritableByOthers),
                "{suffix}"
            );
            fs::remove_file(&side).expect("rm");
            std::os::unix::fs::symlink("/dev/null", &side).expect("symlink");
            assert_eq!(examine(&path), Some(Distrust::WalNotRegular), "{suffix}");
            fs::remove_file(&side).expect("rm");
            fs::write(&side, b"").expect("plants");
            fs::set_permissions(&side, fs::Permissions::from_mode(0o600)).expect("chmod");
            assert_eq!(examine(&path), None, "{suffix}: ours and private");
            fs::remove_file(&side).expect("rm");
        }
    }

    #[test]
    fn a_directory_above_writable_by_others_is_not_trusted_unless_sticky_and_roots() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let above = tmp.path().join("above");
        let path = above.join("mine/recordings.sqlite3");
        drop(Store::open(&path).expect("opens"));
        assert_eq!(examine(&path), None);
        fs::set_permissions(&above, fs::Permissions::from_mode(0o777)).expect("chmod");
        assert_eq!(examine(&path), Some(Distrust::AncestorWritableByOthers));
        // Sticky, like /tmp: others may not rename what is not theirs. Only
        // root's sticky directories count (a user's could be made
        // non-sticky again by that user).
        fs::set_permissions(&above, fs::Permissions::from_mode(0o1777)).expect("chmod");
        let root = rustix::process::geteuid().is_root();
        let want = (!root).then_some(Distrust::AncestorWritableByOthers);
        assert_eq!(examine(&path), want);
        // Reached through a symbolic link on the way: the link's own
        // directory and its target's chain are both checked.
        fs::set_permissions(&above, fs::Permissions::from_mode(0o700)).expect("chmod");
        let open = tmp.path().join("open");
        fs::create_dir(&open).expect("mkdir");
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).expect("chmod");
        std::os::unix::fs::symlink(above.join("mine"), open.join("via")).expect("symlink");
        let via = open.join("via/recordings.sqlite3");
        assert_eq!(examine(&via), Some(Distrust::AncestorWritableByOthers));
    }

    #[test]
    fn inspecting_a_missing_file_creates_nothing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("missing/recordings.sqlite3");
        assert!(OpenOptions::default()
            .inspect(&path)
            .expect("no error")
            .is_none());
        assert!(OpenOptions::default()
            .open_existing(&path)
            .expect("no error")
            .is_none());
        assert!(!tmp.path().join("missing").exists());
    }
}
