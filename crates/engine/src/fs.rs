//! The real filesystem, as the plan and the take ask it
//! ([`agent_resume_core::FsProbe`]): directories, what a directory is
//! (its identity), and whether a recorded program path may be replayed.

use std::path::{Path, PathBuf};

use agent_resume_core::{DirIdentity, FileFacts, FsProbe};
use agent_resume_discover::file;

/// The real filesystem.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

impl FsProbe for RealFs {
    fn is_dir(&self, path: &Path) -> bool {
        std::fs::metadata(path).is_ok_and(|m| m.is_dir())
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }
    fn facts(&self, path: &Path) -> Option<FileFacts> {
        file::facts(path)
    }
    fn user(&self) -> Option<u32> {
        Some(file::user())
    }
    fn identity(&self, path: &Path) -> Option<DirIdentity> {
        file::dir_identity(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_answers_as_itself_and_a_file_is_no_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("f");
        std::fs::write(&f, "x").expect("writes");
        let fs = RealFs;
        assert!(fs.is_dir(dir.path()));
        assert!(!fs.is_dir(&f));
        let id = fs
            .identity(dir.path())
            .expect("a directory has an identity");
        assert_eq!(Some(id.canonical.clone()), fs.canonicalize(dir.path()));
        assert_eq!(fs.identity(&f), None);
        assert_eq!(fs.user(), Some(file::user()));
    }
}
