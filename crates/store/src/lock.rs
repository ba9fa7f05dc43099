//! A lock file beside the database, for hosts that serialise their own
//! read-modify-write of a host layout (kitty's saves mint pane ids).
//!
//! The lock follows the database's trust decision: an untrusted database
//! (its directory open to others, who could plant a link, a FIFO or a file
//! of theirs under the lock's name) gives no lock. The file is opened
//! without following a link and without blocking (a FIFO is never waited
//! on), and must be a regular file of this user's that group and others
//! cannot write.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

use thiserror::Error;

use crate::open::{Distrust, Store};

/// Why no lock was taken.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LockError {
    /// The database is not trusted.
    #[error("the recordings database is not trusted ({0})")]
    Untrusted(Distrust),
    /// The store has no file (in memory) or the name is not a plain one.
    #[error("no lock file beside an in-memory store or under a name with a `/`")]
    NoPlace,
    /// The lock file could not be opened (a symbolic link is refused here).
    #[error("cannot open the lock file")]
    Open(#[source] io::Error),
    /// The lock file is not a regular file.
    #[error("the lock file is not a regular file")]
    NotRegular,
    /// The lock file belongs to another user.
    #[error("the lock file belongs to another user")]
    Owner,
    /// Group or others may write the lock file.
    #[error("the lock file is writable by group or others")]
    WritableByOthers,
    /// The lock could not be taken.
    #[error("cannot lock the lock file")]
    Lock(#[source] io::Error),
}

impl Store {
    /// Opens `name` beside the database (mode 0600 when new) and waits for
    /// an exclusive lock on it, held until the file is dropped; see the
    /// module documentation for what is refused.
    pub fn lock_beside(&self, name: &str) -> Result<File, LockError> {
        if let Some(why) = self.distrust() {
            return Err(LockError::Untrusted(why));
        }
        if name.is_empty() || name.contains('/') {
            return Err(LockError::NoPlace);
        }
        let path = self.path().ok_or(LockError::NoPlace)?.with_file_name(name);
        let flags = rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::NONBLOCK
            | rustix::fs::OFlags::NOCTTY
            | rustix::fs::OFlags::CLOEXEC;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(flags.bits() as i32)
            .open(path)
            .map_err(LockError::Open)?;
        let meta = file.metadata().map_err(LockError::Open)?;
        if !meta.is_file() {
            return Err(LockError::NotRegular);
        }
        if meta.uid() != rustix::process::geteuid().as_raw() {
            return Err(LockError::Owner);
        }
        if meta.mode() & 0o022 != 0 {
            return Err(LockError::WritableByOthers);
        }
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| LockError::Lock(e.into()))?;
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{symlink, OpenOptionsExt, PermissionsExt};
    use std::path::Path;

    fn chmod(p: &Path, mode: u32) {
        fs::set_permissions(p, fs::Permissions::from_mode(mode)).expect("chmod");
    }

    fn fifo(p: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            p,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
    }

    #[test]
    fn a_lock_beside_a_trusted_database_is_a_private_regular_file() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&tmp.path().join("db/r.sqlite3")).expect("open");
        let lock = store.lock_beside("kitty.lock").expect("locked");
        let m = lock.metadata().expect("stat");
        assert!(m.is_file());
        assert_eq!(m.mode() & 0o7777, 0o600);
        assert!(matches!(store.lock_beside("a/b"), Err(LockError::NoPlace)));
    }

    #[test]
    fn an_untrusted_database_gives_no_lock_and_a_planted_fifo_is_never_waited_on() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("db");
        let path = dir.join("r.sqlite3");
        drop(Store::open(&path).expect("open"));
        chmod(&dir, 0o777);
        fifo(&dir.join("kitty.lock"));
        let store = Store::open(&path).expect("open");
        assert!(matches!(
            store.lock_beside("kitty.lock"),
            Err(LockError::Untrusted(Distrust::DirWritableByOthers))
        ));
    }

    #[test]
    fn a_lock_name_that_is_a_fifo_a_link_or_a_file_others_may_write_is_refused() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("db");
        let store = Store::open(&dir.join("r.sqlite3")).expect("open");
        fifo(&dir.join("fifo.lock"));
        // No reader: the open fails at once (ENXIO); with one, the FIFO is
        // no regular file. Never waited on either way.
        assert!(matches!(
            store.lock_beside("fifo.lock"),
            Err(LockError::Open(_))
        ));
        let _reader = fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(dir.join("fifo.lock"))
            .expect("reader");
        assert!(matches!(
            store.lock_beside("fifo.lock"),
            Err(LockError::NotRegular)
        ));
        let target = tmp.path().join("target");
        fs::write(&target, "").expect("write");
        symlink(&target, dir.join("link.lock")).expect("symlink");
        assert!(matches!(
            store.lock_beside("link.lock"),
            Err(LockError::Open(_))
        ));
        let open = dir.join("open.lock");
        fs::write(&open, "").expect("write");
        chmod(&open, 0o666);
        assert!(matches!(
            store.lock_beside("open.lock"),
            Err(LockError::WritableByOthers)
        ));
        let theirs = dir.join("theirs.lock");
        fs::write(&theirs, "").expect("write");
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534))
            .expect("chown (tests run as root)");
        assert!(matches!(
            store.lock_beside("theirs.lock"),
            Err(LockError::Owner)
        ));
    }
}
