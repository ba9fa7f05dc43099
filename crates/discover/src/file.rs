//! Opening files another program or user could place: agent session files
//! and side files, pid registries, the config file, a layout file, an
//! agent's settings file.
//!
//! Every such file is opened with `O_NONBLOCK` (a FIFO with no writer, a
//! device, never blocks the open), then the open handle is `fstat`ed and
//! anything but a regular file is refused; it is read through a size cap.
//! A refusal is a typed [`FileError`] that names the kind of file, never
//! its bytes. Symbolic links are followed, and what they lead to is checked
//! the same way: a link to `/dev/zero` is a device and is refused.
//!
//! [`facts`] answers the program-path questions of core's
//! [`FsProbe`](agent_resume_core::FsProbe) from the real filesystem.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_resume_core::{DirIdentity, FileFacts, FileKind};
use rustix::fs::{Mode, OFlags};

/// What kind of file is being read: named in errors instead of its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// agent-resume's own config file.
    Config = 1,
    /// A layout file given to `plan`/`restore`.
    Layout = 2,
    /// An agent's session file (a transcript) or session database.
    Session = 3,
    /// A small file beside a session (a summary, a project root).
    SideFile = 4,
    /// An agent's pid registry.
    PidRegistry = 5,
    /// An agent's own settings file, edited by `install-hooks`.
    AgentSettings = 6,
    /// agent-resume's telemetry file.
    Telemetry = 7,
    /// A shell's or tmux's own startup file (`~/.bashrc`, `~/.tmux.conf`),
    /// read by `doctor`.
    StartupFile = 8,
}

impl Kind {
    /// Every variant.
    pub const VARIANTS: &'static [Kind] = &[
        Kind::Config,
        Kind::Layout,
        Kind::Session,
        Kind::SideFile,
        Kind::PidRegistry,
        Kind::AgentSettings,
        Kind::Telemetry,
        Kind::StartupFile,
    ];

    /// The stable name, as errors show it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Config => "config",
            Kind::Layout => "layout",
            Kind::Session => "session",
            Kind::SideFile => "session side",
            Kind::PidRegistry => "pid registry",
            Kind::AgentSettings => "agent settings",
            Kind::Telemetry => "telemetry",
            Kind::StartupFile => "startup",
        }
    }
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// Nothing at the path.
    #[error("the {} file does not exist", .0.as_str())]
    Missing(Kind),
    /// A FIFO, a device, a socket or a directory.
    #[error("the {} file is not a regular file", .0.as_str())]
    NotRegular(Kind),
    /// Larger than the cap.
    #[error("the {} file is larger than {max} bytes", .kind.as_str())]
    TooLarge {
        /// Which file.
        kind: Kind,
        /// The cap.
        max: u64,
    },
    /// The open or a read failed.
    #[error("the {} file cannot be read", .kind.as_str())]
    Io {
        /// Which file.
        kind: Kind,
        /// The system's error.
        #[source]
        source: io::Error,
    },
}

impl FileError {
    /// Whether nothing was at the path.
    pub fn is_missing(&self) -> bool {
        matches!(self, FileError::Missing(_))
    }
}

impl From<FileError> for io::Error {
    fn from(e: FileError) -> io::Error {
        let kind = match &e {
            FileError::Missing(_) => io::ErrorKind::NotFound,
            FileError::NotRegular(_) | FileError::TooLarge { .. } => io::ErrorKind::InvalidInput,
            FileError::Io { source, .. } => source.kind(),
        };
        io::Error::new(kind, e)
    }
}

/// The flags every open adds: never block, never become the controlling
/// terminal.
fn flags() -> i32 {
    // Both flags fit in an `i32` on every platform.
    i32::try_from((OFlags::NONBLOCK | OFlags::NOCTTY).bits()).unwrap_or(0)
}

/// Opens `path` for reading without blocking and returns it only when it is
/// a regular file.
pub fn open(path: &Path, kind: Kind) -> Result<File, FileError> {
    open_with_metadata(path, kind).map(|(file, _)| file)
}

/// [`open`], also returning what the check's `fstat` of the open file saw
/// (its size and modification time), so no caller stats the path again.
pub fn open_with_metadata(path: &Path, kind: Kind) -> Result<(File, fs::Metadata), FileError> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags())
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => FileError::Missing(kind),
            _ => FileError::Io { kind, source: e },
        })?;
    checked(file, kind)
}

/// A directory held open so the files found in it are opened by name
/// relative to it (`openat`): the kernel does not walk the directory's path
/// again for each file. Opening a file through it checks and follows what
/// the name leads to exactly as [`open_with_metadata`] does with the whole
/// path.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

/// How many [`Dir`]s may be open at once. A listing walks ahead of its
/// reading and could otherwise hold every directory of a store open; past
/// the cap its files are opened by their whole path instead.
pub const MAX_OPEN_DIRS: usize = 64;

static OPEN_DIRS: AtomicUsize = AtomicUsize::new(0);

impl Dir {
    /// Opens `path` as a directory handle (`O_PATH`: it is never read or
    /// listed through), or `None` when it cannot be opened or
    /// [`MAX_OPEN_DIRS`] are open.
    pub fn open(path: &Path) -> Option<Dir> {
        if OPEN_DIRS.fetch_add(1, Ordering::Relaxed) >= MAX_OPEN_DIRS {
            OPEN_DIRS.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        match rustix::fs::open(
            path,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => Some(Dir { fd }),
            Err(_) => {
                OPEN_DIRS.fetch_sub(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// [`open_with_metadata`] of the file `name` in this directory. `name`
    /// is one path component, as the directory's listing gave it.
    pub fn open_with_metadata(
        &self,
        name: &OsStr,
        kind: Kind,
    ) -> Result<(File, fs::Metadata), FileError> {
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            rustix::io::Errno::NOENT => FileError::Missing(kind),
            _ => FileError::Io {
                kind,
                source: e.into(),
            },
        })?;
        checked(File::from(fd), kind)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        OPEN_DIRS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Returns `file` with what its `fstat` saw, when it is a regular file.
fn checked(file: File, kind: Kind) -> Result<(File, fs::Metadata), FileError> {
    let meta = file
        .metadata()
        .map_err(|source| FileError::Io { kind, source })?;
    if !meta.file_type().is_file() {
        return Err(FileError::NotRegular(kind));
    }
    Ok((file, meta))
}

/// Reads the whole of `path`, refusing it when it holds more than `max`
/// bytes (or grows past `max` while read).
pub fn read(path: &Path, kind: Kind, max: u64) -> Result<Vec<u8>, FileError> {
    let (file, meta) = open_with_metadata(path, kind)?;
    let len = meta.len();
    if len > max {
        return Err(FileError::TooLarge { kind, max });
    }
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|source| FileError::Io { kind, source })?;
    if buf.len() as u64 > max {
        return Err(FileError::TooLarge { kind, max });
    }
    Ok(buf)
}

/// Reads `path` as UTF-8 text, as [`read`] does.
pub fn read_text(path: &Path, kind: Kind, max: u64) -> Result<String, FileError> {
    let bytes = read(path, kind, max)?;
    String::from_utf8(bytes).map_err(|_| FileError::Io {
        kind,
        source: io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"),
    })
}

/// Reads at most the first `max` bytes of `path`: a prefix is enough.
pub fn read_prefix(path: &Path, kind: Kind, max: u64) -> Result<Vec<u8>, FileError> {
    let mut buf = Vec::new();
    open(path, kind)?
        .take(max)
        .read_to_end(&mut buf)
        .map_err(|source| FileError::Io { kind, source })?;
    Ok(buf)
}

/// Filesystems whose files are made by the kernel, not stored: a program
/// path on one of them is never replayed.
fn pseudo(magic: i64) -> bool {
    const PSEUDO: &[i64] = &[
        0x9fa0,      // proc
        0x6265_6572, // sysfs
        0x1cd1,      // devpts
        0x6462_6720, // debugfs
        0x7472_6163, // tracefs
        0x7363_6673, // securityfs
        0x0027_e0eb, // cgroup
        0x6367_7270, // cgroup2
        0xcafe_4a11, // bpf
        0x6e73_6673, // nsfs
        0x5069_6446, // pidfs
        0x4249_4e4d, // binfmt_misc
        0x6165_676c, // pstore
        0x6573_7546, // fusectl
        0xde5e_81e4, // efivarfs
        0x1373,      // devfs
        0x6265_6570, // configfs
    ];
    PSEUDO.contains(&magic)
}

/// The facts core's program-path decision needs about `path`, read with
/// `lstat` (a symbolic link is described, not followed) and, for what is
/// not a link, `statfs`.
pub fn facts(path: &Path) -> Option<FileFacts> {
    let meta = fs::symlink_metadata(path).ok()?;
    let t = meta.file_type();
    let kind = if t.is_symlink() {
        FileKind::Symlink
    } else if t.is_file() {
        FileKind::Regular
    } else if t.is_dir() {
        FileKind::Directory
    } else {
        FileKind::Other
    };
    let pseudo = match kind {
        FileKind::Symlink => false,
        FileKind::Regular | FileKind::Directory | FileKind::Other => {
            let st = rustix::fs::statfs(path).ok()?;
            #[allow(clippy::unnecessary_cast)]
            pseudo(st.f_type as i64)
        }
    };
    Some(FileFacts {
        kind,
        mode: meta.mode() & 0o7777,
        uid: meta.uid(),
        pseudo,
    })
}

/// What the directory at `path` is now (links followed): its canonical
/// path, the filesystem's id (`statvfs`'s `f_fsid`, which ext4, btrfs and
/// xfs keep across reboots; the device number where it is 0, as on tmpfs)
/// and its inode. `None` when it does not resolve to a directory.
pub fn dir_identity(path: &Path) -> Option<DirIdentity> {
    let canonical = fs::canonicalize(path).ok()?;
    let meta = fs::metadata(&canonical).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let fsid = rustix::fs::statvfs(&canonical)
        .ok()
        .map(|s| s.f_fsid)
        .filter(|f| *f != 0);
    Some(DirIdentity {
        volume: fsid.unwrap_or(meta.dev()),
        inode: meta.ino(),
        canonical,
    })
}

/// How many fresh temporary names [`replace`] tries before it gives up.
const TEMP_ATTEMPTS: usize = 4;

/// Why [`replace`] left a file as it was.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    /// No temporary file could be created beside it.
    #[error("cannot create a temporary file beside the file")]
    Create(#[source] io::Error),
    /// Every temporary name tried was taken (planted, or a concurrent write).
    #[error("cannot create a temporary file beside the file: every name tried is taken")]
    NamesTaken,
    /// The new contents could not be written, synced or renamed over it.
    #[error("cannot replace the file")]
    Write(#[source] io::Error),
}

/// Replaces the contents of the file at `path` atomically, for a file a
/// user's programs read (settings, config): a temporary file beside it,
/// named afresh for each attempt (`<file>.agent-resume.<random>.tmp`) and
/// created with `O_EXCL | O_NOFOLLOW`, so nothing planted at any name is
/// followed, written through or renamed over the file; written, synced,
/// renamed over `path`, the directory synced. The file keeps its
/// permissions (a new file is 0600).
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), ReplaceError> {
    replace_named(path, bytes, || uuid::Uuid::new_v4().simple().to_string())
}

/// [`replace`] with the temporary names `fresh` makes.
pub fn replace_named(
    path: &Path,
    bytes: &[u8],
    mut fresh: impl FnMut() -> String,
) -> Result<(), ReplaceError> {
    use std::io::Write as _;
    let mode = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => {
            std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777
        }
        _ => 0o600,
    };
    for _ in 0..TEMP_ATTEMPTS {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".agent-resume.{}.tmp", fresh()));
        let tmp = std::path::PathBuf::from(tmp);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut f = match rustix::fs::open(&tmp, flags, Mode::from_raw_mode(mode)) {
            Ok(fd) => File::from(fd),
            Err(rustix::io::Errno::EXIST) => continue,
            Err(e) => return Err(ReplaceError::Create(e.into())),
        };
        let written = f
            .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))
            .and_then(|()| f.write_all(bytes))
            .and_then(|()| f.sync_all())
            .and_then(|()| fs::rename(&tmp, path));
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(ReplaceError::Write(e));
        }
        // The rename itself survives a crash once the directory is synced.
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if let Ok(d) = File::open(dir.unwrap_or(Path::new("."))) {
            let _ = d.sync_all();
        }
        return Ok(());
    }
    Err(ReplaceError::NamesTaken)
}

/// The user this process runs as.
pub fn user() -> u32 {
    rustix::process::getuid().as_raw()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo");
        assert!(matches!(
            read(&fifo, Kind::Config, 1024),
            Err(FileError::NotRegular(Kind::Config))
        ));
    }

    #[test]
    fn a_link_to_a_device_is_refused_and_a_large_file_is_refused_by_its_cap() {
        let dir = tempfile::tempdir().expect("tempdir");
        let zero = dir.path().join("zero");
        symlink("/dev/zero", &zero).expect("symlink");
        assert!(matches!(
            read_prefix(&zero, Kind::Session, 1024),
            Err(FileError::NotRegular(Kind::Session))
        ));
        let big = dir.path().join("big");
        File::create(&big)
            .and_then(|f| f.set_len(100 << 20))
            .expect("sparse file");
        let e = read(&big, Kind::Layout, 1 << 20).expect_err("too large");
        assert!(matches!(
            e,
            FileError::TooLarge {
                kind: Kind::Layout,
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "the layout file is larger than 1048576 bytes"
        );
        assert_eq!(
            read_prefix(&big, Kind::Session, 10).expect("prefix").len(),
            10
        );
        assert!(read(&dir.path().join("none"), Kind::Config, 1).is_err_and(|e| e.is_missing()));
    }

    #[test]
    fn a_file_opened_in_its_directory_is_checked_as_one_opened_by_its_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join("fifo"))
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo");
        symlink("/dev/zero", dir.path().join("zero")).expect("symlink");
        let target = dir.path().join("target.jsonl");
        fs::write(&target, b"{}\n").expect("writes");
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        File::options()
            .write(true)
            .open(&target)
            .and_then(|f| f.set_modified(old))
            .expect("set mtime");
        symlink(&target, dir.path().join("link.jsonl")).expect("symlink");
        let d = Dir::open(dir.path()).expect("directory opens");
        for name in ["fifo", "zero"] {
            assert!(
                matches!(
                    d.open_with_metadata(OsStr::new(name), Kind::Session),
                    Err(FileError::NotRegular(Kind::Session))
                ),
                "{name}"
            );
        }
        assert!(d
            .open_with_metadata(OsStr::new("none"), Kind::Session)
            .is_err_and(|e| e.is_missing()));
        let (mut f, meta) = d
            .open_with_metadata(OsStr::new("link.jsonl"), Kind::Session)
            .expect("a link to a regular file is followed");
        assert_eq!(meta.modified().ok(), Some(old), "the target's time");
        let mut text = String::new();
        f.read_to_string(&mut text).expect("reads");
        assert_eq!(text, "{}\n");
    }

    #[test]
    fn directories_held_open_are_capped_and_released_when_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut held = Vec::new();
        let mut refused = false;
        for _ in 0..=MAX_OPEN_DIRS {
            match Dir::open(dir.path()) {
                Some(d) => held.push(d),
                None => {
                    refused = true;
                    break;
                }
            }
        }
        assert!(refused, "no more than {MAX_OPEN_DIRS} are held");
        drop(held);
        assert!(
            Dir::open(dir.path()).is_some(),
            "dropping one frees its place"
        );
        assert!(Dir::open(&dir.path().join("none")).is_none());
    }

    #[test]
    fn proc_is_a_pseudo_filesystem_and_a_temp_dir_is_not() {
        assert!(facts(Path::new("/proc/self/status")).is_some_and(|f| f.pseudo));
        let dir = tempfile::tempdir().expect("tempdir");
        let f = facts(dir.path()).expect("facts");
        assert!(!f.pseudo);
        assert_eq!(f.kind, FileKind::Directory);
    }

    #[test]
    fn a_file_or_link_at_a_temporary_name_is_never_followed_and_a_fresh_name_is_tried() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("settings.json");
        fs::write(&file, "old").expect("writes");
        fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o640))
            .expect("chmod");
        let victim = dir.path().join("victim");
        fs::write(&victim, "victim").expect("writes");
        let beside = |name: &str| {
            dir.path()
                .join(format!("settings.json.agent-resume.{name}.tmp"))
        };
        let planted = beside("planted");
        symlink(&victim, &planted).expect("plants a link");
        let taken = beside("taken");
        fs::write(&taken, "someone's").expect("plants a file");
        let mut names = ["planted", "taken", "fresh"].into_iter();
        replace_named(&file, b"new", || names.next().unwrap_or("x").to_owned())
            .expect("writes under the fresh name");
        assert_eq!(fs::read_to_string(&file).expect("reads"), "new");
        let m = fs::symlink_metadata(&file).expect("stat");
        assert!(m.file_type().is_file());
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777,
            0o640
        );
        assert_eq!(fs::read_to_string(&victim).expect("reads"), "victim");
        assert_eq!(fs::read_to_string(&taken).expect("reads"), "someone's");
        assert_eq!(fs::read_link(&planted).expect("still a link"), victim);
        assert!(!beside("fresh").exists());

        // Every name taken: the write fails and touches nothing.
        let err =
            replace_named(&file, b"newer", || "planted".to_owned()).expect_err("no name is free");
        assert!(matches!(err, ReplaceError::NamesTaken), "{err}");
        assert_eq!(fs::read_to_string(&file).expect("reads"), "new");
        assert_eq!(fs::read_to_string(&victim).expect("reads"), "victim");
    }
}
