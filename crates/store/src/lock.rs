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
