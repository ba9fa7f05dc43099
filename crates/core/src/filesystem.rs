//! What a host's filesystem answers, asked through [`FsProbe`]: `core`
//! does no I/O, so the plan and the program-path decision get their
//! answers from the host (the real probe lives in the engine).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::recording::DirIdentity;

/// What a path is, as `lstat` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// A FIFO, device or socket.
    Other,
}

/// What the program-path decision needs to know of one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileFacts {
    /// Its type (links not followed).
    pub kind: FileKind,
    /// Its permission bits (`0o7777`).
    pub mode: u32,
    /// Its owner.
    pub uid: u32,
    /// On a pseudo filesystem (proc, sysfs, …).
    pub pseudo: bool,
}

/// Filesystem answers the plan needs. The real one lives outside `core`.
pub trait FsProbe {
    /// Whether `path` exists and is a directory.
    fn is_dir(&self, path: &Path) -> bool;
    /// The canonical form of `path`, if it resolves.
    fn canonicalize(&self, path: &Path) -> Option<PathBuf>;
    /// What `lstat` says of `path`, for the program-path decision
    /// ([`crate::program`]). Knowing nothing (the default) replays no
    /// recorded program path: the bare command word is used.
    fn facts(&self, _path: &Path) -> Option<FileFacts> {
        None
    }
    /// The user agent-resume runs as; `None` (the default) trusts no
    /// recorded program path.
    fn user(&self) -> Option<u32> {
        None
    }
    /// What the directory at `path` is now ([`DirIdentity`], links
    /// followed); `None` when it cannot be told, which a recording with an
    /// identity never passes.
    fn identity(&self, _path: &Path) -> Option<DirIdentity> {
        None
    }
}

/// An [`FsProbe`] that asks its inner probe at most once per byte-equal
/// path for `is_dir` and for `canonicalize`, for the life of one plan (the
/// answers of one instant: nothing is kept between plans). Program-path
/// questions (`facts`, `user`) go straight through.
pub struct MemoFs<'a> {
    inner: &'a dyn FsProbe,
    dirs: RefCell<HashMap<OsString, bool>>,
    canonical: RefCell<HashMap<OsString, Option<PathBuf>>>,
    identity: RefCell<HashMap<OsString, Option<DirIdentity>>>,
}

impl<'a> MemoFs<'a> {
    /// A memo in front of `inner`, empty.
    pub fn new(inner: &'a dyn FsProbe) -> Self {
        MemoFs {
            inner,
            dirs: RefCell::new(HashMap::new()),
            canonical: RefCell::new(HashMap::new()),
            identity: RefCell::new(HashMap::new()),
        }
    }
}

fn memo<T: Clone>(map: &RefCell<HashMap<OsString, T>>, key: &OsStr, ask: impl FnOnce() -> T) -> T {
    if let Some(v) = map.borrow().get(key) {
        return v.clone();
    }
    let v = ask();
    map.borrow_mut().insert(key.to_owned(), v.clone());
    v
}

impl FsProbe for MemoFs<'_> {
    fn is_dir(&self, path: &Path) -> bool {
        memo(&self.dirs, path.as_os_str(), || self.inner.is_dir(path))
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        memo(&self.canonical, path.as_os_str(), || {
            self.inner.canonicalize(path)
        })
    }
    fn facts(&self, path: &Path) -> Option<FileFacts> {
        self.inner.facts(path)
    }
    fn user(&self) -> Option<u32> {
        self.inner.user()
    }
    fn identity(&self, path: &Path) -> Option<DirIdentity> {
        memo(&self.identity, path.as_os_str(), || {
            self.inner.identity(path)
        })
    }
}
