//! A directory private to this user, and the small files in it that a
//! shell and a restore pass to each other.
//!
//! The shell integration publishes its prompt in such a directory with a
//! shell builtin (no process per prompt), and a restore leaves the pane a
//! note there; both sides trust what they read only when the directory is
//! this user's, not a link, and closed to group and others, and the file is
//! a regular file of this user's, reached without following a link.
//!
//! ```
//! use agent_resume_engine::private_dir;
//!
//! let tmp = tempfile::tempdir().unwrap();
//! let dir = tmp.path().join("prompt");
//! private_dir::ensure(&dir).unwrap();
//! private_dir::write(&dir, "tmux-7-3", "1:4242").unwrap();
//! assert_eq!(private_dir::read(&dir, "tmux-7-3").as_deref(), Some("1:4242"));
//! assert_eq!(private_dir::take(&dir, "tmux-7-3").as_deref(), Some("1:4242"));
//! assert_eq!(private_dir::read(&dir, "tmux-7-3"), None);
//! ```

use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use thiserror::Error;

/// The most a note in a private directory holds, in bytes.
pub const MAX_NOTE: u64 = 256;

/// Why a directory is not private to this user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NotPrivate {
    /// It is a symbolic link.
    #[error("it is a symbolic link")]
    Symlink,
    /// It is not a directory.
    #[error("it is not a directory")]
    NotDirectory,
    /// Another user owns it.
    #[error("another user owns it")]
    Owner,
    /// Group or others may enter it (its mode).
    #[error("its mode is {0:o}, not 0700")]
    Mode(u32),
}

/// Why [`ensure`] has no private directory to offer.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DirError {
    /// The directory could not be made or examined.
    #[error("cannot make or examine the directory")]
    Io(#[source] io::Error),
    /// It exists and is not private (it is never changed).
    #[error("the directory is not private: {0}")]
    NotPrivate(NotPrivate),
}

/// Whether `dir` is private to this user, without making or changing it.
pub fn check(dir: &Path) -> Result<(), DirError> {
    let d = fs::symlink_metadata(dir).map_err(DirError::Io)?;
    judge(&d, rustix::process::geteuid().as_raw()).map_err(DirError::NotPrivate)
}

fn judge(d: &fs::Metadata, me: u32) -> Result<(), NotPrivate> {
    if d.file_type().is_symlink() {
        return Err(NotPrivate::Symlink);
    }
    if !d.is_dir() {
        return Err(NotPrivate::NotDirectory);
    }
    if d.uid() != me {
        return Err(NotPrivate::Owner);
    }
    if d.mode() & 0o077 != 0 {
        return Err(NotPrivate::Mode(d.mode() & 0o7777));
    }
    Ok(())
}

/// Makes `dir` (mode 0700, with its parents) when missing and checks it is
/// private; an existing directory is never changed.
pub fn ensure(dir: &Path) -> Result<(), DirError> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(DirError::Io)?;
    check(dir)
}

/// Whether `name` is one plain file name (no separator, not `.`/`..`).
fn plain(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains('/')
}

/// The text of the note `name` in the private directory `dir`: a regular
/// file of this user's, opened without following a link, at most
/// [`MAX_NOTE`] bytes of UTF-8. `None` for anything else.
pub fn read(dir: &Path, name: &str) -> Option<String> {
    if !plain(name) || check(dir).is_err() {
        return None;
    }
    let f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags())
        .open(dir.join(name))
        .ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.uid() != rustix::process::geteuid().as_raw() || m.len() > MAX_NOTE {
        return None;
    }
    let mut text = String::new();
    f.take(MAX_NOTE).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The last complete line of the log `name` in the private directory
/// `dir` (a regular file of this user's, opened without following a link),
/// read from at most its last [`MAX_NOTE`] bytes: a shell appends one line
/// per event (a builtin `>>`, no truncation to pay for), and the newest is
/// what holds. `None` for anything else, or a log with no complete line.
pub fn last_line(dir: &Path, name: &str) -> Option<String> {
    use std::io::{Seek, SeekFrom};
    if !plain(name) || check(dir).is_err() {
        return None;
    }
    let mut f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags())
        .open(dir.join(name))
        .ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.uid() != rustix::process::geteuid().as_raw() {
        return None;
    }
    let from = m.len().saturating_sub(MAX_NOTE);
    f.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    f.take(MAX_NOTE).read_to_end(&mut bytes).ok()?;
    last_line_of(&bytes, from > 0).map(str::to_owned)
}

/// The last complete line of `tail`, the end of a log: a line still being
/// written (no newline yet) is not one, and when `tail` starts in the
/// middle of the log, neither is its first, cut line. UTF-8 only.
pub fn last_line_of(tail: &[u8], from_middle: bool) -> Option<&str> {
    let end = tail.iter().rposition(|b| *b == b'\n')?;
    let start = tail[..end]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    if start == 0 && from_middle {
        return None;
    }
    std::str::from_utf8(&tail[start..end]).ok()
}

/// Reads the note `name` (as [`read`]) and removes it: what a restore left
/// is taken once.
pub fn take(dir: &Path, name: &str) -> Option<String> {
    let text = read(dir, name)?;
    fs::remove_file(dir.join(name)).ok()?;
    Some(text)
}

/// Writes the note `name` in the private directory `dir` (mode 0600, never
/// through a link), replacing what it held.
pub fn write(dir: &Path, name: &str, text: &str) -> io::Result<()> {
    if !plain(name) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a plain file name",
        ));
    }
    check(dir).map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, e))?;
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc_flags())
        .open(dir.join(name))?;
    f.write_all(text.as_bytes())
}

/// `O_NOFOLLOW | O_NONBLOCK`: never through a link, never stuck on a FIFO.
fn libc_flags() -> i32 {
    (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn private(root: &Path) -> std::path::PathBuf {
        let dir = root.join("p");
        ensure(&dir).unwrap();
        dir
    }

    #[test]
    fn ensure_makes_a_0700_directory_and_never_changes_an_open_one() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = private(tmp.path());
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o7777, 0o700);
        let open = tmp.path().join("open");
        fs::create_dir(&open).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(matches!(
            ensure(&open),
            Err(DirError::NotPrivate(NotPrivate::Mode(0o755)))
        ));
        assert_eq!(fs::metadata(&open).unwrap().mode() & 0o7777, 0o755);
        let link = tmp.path().join("link");
        symlink(&dir, &link).unwrap();
        assert!(matches!(
            check(&link),
            Err(DirError::NotPrivate(NotPrivate::Symlink))
        ));
    }

    #[test]
    fn a_note_is_read_only_from_a_private_directory_and_never_through_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = private(tmp.path());
        write(&dir, "n", "1:4242").unwrap();
        assert_eq!(read(&dir, "n").as_deref(), Some("1:4242"));
        // A link in the directory, to a file elsewhere, is not followed.
        fs::write(tmp.path().join("elsewhere"), "9:99").unwrap();
        symlink(tmp.path().join("elsewhere"), dir.join("l")).unwrap();
        assert_eq!(read(&dir, "l"), None);
        assert!(write(&dir, "l", "x").is_err());
        assert_eq!(
            fs::read_to_string(tmp.path().join("elsewhere")).unwrap(),
            "9:99"
        );
        // Names that are not one plain file name.
        for bad in ["", ".", "..", "a/b", "../p/n"] {
            assert_eq!(read(&dir, bad), None, "{bad:?}");
        }
        // Too long a note.
        fs::write(dir.join("big"), "x".repeat(MAX_NOTE as usize + 1)).unwrap();
        assert_eq!(read(&dir, "big"), None);
        // The same directory opened to others is not trusted.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o733)).unwrap();
        assert_eq!(read(&dir, "n"), None);
        assert!(write(&dir, "m", "x").is_err());
    }

    #[test]
    fn the_last_complete_line_of_a_log_is_what_holds() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = private(tmp.path());
        let log = dir.join("log");
        assert_eq!(last_line(&dir, "log"), None);
        fs::write(&log, "1:10\n-\n2:10\n").unwrap();
        assert_eq!(last_line(&dir, "log").as_deref(), Some("2:10"));
        fs::write(&log, "1:10\n-\n2:1").unwrap();
        assert_eq!(
            last_line(&dir, "log").as_deref(),
            Some("-"),
            "a partial line is not one"
        );
        fs::write(&log, "3:10").unwrap();
        assert_eq!(last_line(&dir, "log"), None);
        // A long log: only its tail is read.
        let mut long = "1:10\n".repeat(1000);
        long.push_str("-\n");
        fs::write(&log, &long).unwrap();
        assert_eq!(last_line(&dir, "log").as_deref(), Some("-"));
        // One line longer than the tail: no line.
        fs::write(&log, format!("{}\n", "9".repeat(2 * MAX_NOTE as usize))).unwrap();
        assert_eq!(last_line(&dir, "log"), None);
        // Never through a link.
        symlink(&log, dir.join("l")).unwrap();
        assert_eq!(last_line(&dir, "l"), None);
    }

    #[test]
    fn a_taken_note_is_gone() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = private(tmp.path());
        write(&dir, "n", "abc").unwrap();
        assert_eq!(take(&dir, "n").as_deref(), Some("abc"));
        assert_eq!(take(&dir, "n"), None);
        assert!(!dir.join("n").exists());
    }
}
