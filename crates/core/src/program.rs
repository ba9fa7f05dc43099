//! Whether a recorded program path may be replayed.
//!
//! Capture keeps the program word the user typed when it is an absolute
//! path ending in the agent's command word (`/home/me/.local/bin/claude`).
//! Replaying it runs whatever that path holds at restore time, so it is
//! replayed only when it is the user's own program, in a place nobody else
//! can change:
//!
//! - its file name is one of the agent's command words;
//! - it is not under `/proc`, `/sys` or `/dev`, as written or resolved, and
//!   not on a pseudo filesystem;
//! - what it resolves to is a regular, executable file owned by the user or
//!   root, not writable by group or other;
//! - every directory from that file up to `/`, and from the path's own
//!   directory up to `/`, is owned by the user or root and not writable by
//!   group or other; a symbolic link on the way is owned by the user or
//!   root.
//!
//! Otherwise the bare command word is used and the pane still resumes.
//! The filesystem is asked through [`FsProbe`]; this module does no I/O.

use std::path::{Component, Path, PathBuf};

use crate::catalog::AgentDecl;
use crate::filesystem::FsProbe;
pub use crate::filesystem::{FileFacts, FileKind};
use crate::shape::is_program_path;

/// Why a recorded program path is not replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untrusted {
    /// Not an absolute program path of the safe shape.
    Shape,
    /// Its file name is not one of the agent's command words.
    NotTheCommand,
    /// Under `/proc`, `/sys` or `/dev`, or on a pseudo filesystem.
    Pseudo,
    /// It does not resolve, or the filesystem could not be asked.
    Unknown,
    /// What it resolves to is not a regular file.
    NotRegular,
    /// What it resolves to has no execute bit.
    NotExecutable,
    /// It, a link on the way, or a directory above it is owned by another
    /// user.
    ForeignOwner,
    /// It or a directory above it is writable by group or other.
    Writable,
}

/// The top directories whose files the kernel makes.
const PSEUDO_ROOTS: &[&str] = &["proc", "sys", "dev"];

fn under_pseudo_root(path: &Path) -> bool {
    path.components()
        .find_map(|c| match c {
            Component::Normal(n) => Some(n),
            Component::RootDir
            | Component::CurDir
            | Component::ParentDir
            | Component::Prefix(_) => None,
        })
        .is_some_and(|first| PSEUDO_ROOTS.iter().any(|r| first == *r))
}

fn owner_ok(f: &FileFacts, user: u32) -> Result<(), Untrusted> {
    if f.uid == user || f.uid == 0 {
        Ok(())
    } else {
        Err(Untrusted::ForeignOwner)
    }
}

/// `dir` and every directory above it.
fn chain(fs: &dyn FsProbe, dir: &Path, user: u32) -> Result<(), Untrusted> {
    for d in dir.ancestors() {
        let f = fs.facts(d).ok_or(Untrusted::Unknown)?;
        if f.kind != FileKind::Directory {
            return Err(Untrusted::Unknown);
        }
        if f.pseudo {
            return Err(Untrusted::Pseudo);
        }
        owner_ok(&f, user)?;
        if f.mode & 0o022 != 0 {
            return Err(Untrusted::Writable);
        }
    }
    Ok(())
}

/// Decides whether `path`, recorded as `agent`'s program, may be replayed.
pub fn check(agent: &AgentDecl, path: &str, fs: &dyn FsProbe) -> Result<(), Untrusted> {
    if !is_program_path(path) {
        return Err(Untrusted::Shape);
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    if !agent.commands.iter().any(|c| c == name) {
        return Err(Untrusted::NotTheCommand);
    }
    let given = Path::new(path);
    if under_pseudo_root(given) {
        return Err(Untrusted::Pseudo);
    }
    let user = fs.user().ok_or(Untrusted::Unknown)?;
    let link = fs.facts(given).ok_or(Untrusted::Unknown)?;
    owner_ok(&link, user)?;
    let real: PathBuf = fs.canonicalize(given).ok_or(Untrusted::Unknown)?;
    if under_pseudo_root(&real) {
        return Err(Untrusted::Pseudo);
    }
    let f = fs.facts(&real).ok_or(Untrusted::Unknown)?;
    if f.pseudo {
        return Err(Untrusted::Pseudo);
    }
    if f.kind != FileKind::Regular {
        return Err(Untrusted::NotRegular);
    }
    if f.mode & 0o111 == 0 {
        return Err(Untrusted::NotExecutable);
    }
    owner_ok(&f, user)?;
    if f.mode & 0o022 != 0 {
        return Err(Untrusted::Writable);
    }
    chain(fs, real.parent().ok_or(Untrusted::Unknown)?, user)?;
    if real != given {
        // The path as written goes through a link: the directories it was
        // found in must be as safe as the file's own.
        let parent = given.parent().ok_or(Untrusted::Unknown)?;
        let parent = fs.canonicalize(parent).ok_or(Untrusted::Unknown)?;
        chain(fs, &parent, user)?;
    }
    Ok(())
}

/// The recorded program word to build with: a bare command word as it is,
/// a path only when [`check`] passes, else `None` (the declared word).
pub fn trusted<'a>(
    agent: &AgentDecl,
    recorded: Option<&'a str>,
    fs: &dyn FsProbe,
) -> Option<&'a str> {
    let p = recorded?;
    if agent.commands.iter().any(|c| c == p) || check(agent, p, fs).is_ok() {
        Some(p)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentKind, Catalog};
    use std::collections::HashMap;

    /// A filesystem of facts; links resolve through `links`.
    #[derive(Default)]
    struct Fake {
        facts: HashMap<PathBuf, FileFacts>,
        links: HashMap<PathBuf, PathBuf>,
    }

    const ME: u32 = 1000;

    fn dir(mode: u32, uid: u32) -> FileFacts {
        FileFacts {
            kind: FileKind::Directory,
            mode,
            uid,
            pseudo: false,
        }
    }

    fn file(mode: u32, uid: u32) -> FileFacts {
        FileFacts {
            kind: FileKind::Regular,
            mode,
            uid,
            pseudo: false,
        }
    }

    impl Fake {
        /// `/`, `/home`, `/home/me`, `/home/me/bin` and a good program.
        fn good() -> Fake {
            let mut f = Fake::default();
            f.set("/", dir(0o755, 0));
            f.set("/home", dir(0o755, 0));
            f.set("/home/me", dir(0o700, ME));
            f.set("/home/me/bin", dir(0o755, ME));
            f.set("/home/me/bin/claude", file(0o755, ME));
            f
        }
        fn set(&mut self, p: &str, facts: FileFacts) {
            self.facts.insert(PathBuf::from(p), facts);
        }
    }

    impl FsProbe for Fake {
        fn is_dir(&self, path: &Path) -> bool {
            self.facts
                .get(path)
                .is_some_and(|f| f.kind == FileKind::Directory)
        }
        fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
            let p = self.links.get(path).cloned().unwrap_or(path.to_path_buf());
            self.facts.contains_key(&p).then_some(p)
        }
        fn facts(&self, path: &Path) -> Option<FileFacts> {
            self.facts.get(path).copied()
        }
        fn user(&self) -> Option<u32> {
            Some(ME)
        }
    }

    fn claude() -> &'static AgentDecl {
        Catalog::embedded().agent(AgentKind::Claude)
    }

    #[test]
    fn the_users_own_program_in_a_private_directory_is_replayed() {
        let fs = Fake::good();
        assert_eq!(check(claude(), "/home/me/bin/claude", &fs), Ok(()));
        assert_eq!(
            trusted(claude(), Some("/home/me/bin/claude"), &fs),
            Some("/home/me/bin/claude")
        );
        assert_eq!(trusted(claude(), Some("claude"), &fs), Some("claude"));
    }

    #[test]
    fn every_unsafe_program_path_falls_back_to_the_bare_word() {
        type Edit = fn(&mut Fake);
        let cases: &[(&str, &str, Edit, Untrusted)] = &[
            (
                "other name",
                "/home/me/bin/vim",
                |_| {},
                Untrusted::NotTheCommand,
            ),
            ("relative", "bin/claude", |_| {}, Untrusted::Shape),
            ("proc", "/proc/self/cwd/claude", |_| {}, Untrusted::Pseudo),
            ("dev", "/dev/shm/claude", |_| {}, Untrusted::Pseudo),
            ("sys dotted", "/./sys/claude", |_| {}, Untrusted::Pseudo),
            (
                "missing",
                "/home/me/bin/claude",
                |f| {
                    f.facts.remove(Path::new("/home/me/bin/claude"));
                },
                Untrusted::Unknown,
            ),
            (
                "not executable",
                "/home/me/bin/claude",
                |f| {
                    f.set("/home/me/bin/claude", file(0o644, ME));
                },
                Untrusted::NotExecutable,
            ),
            (
                "a fifo",
                "/home/me/bin/claude",
                |f| {
                    f.set(
                        "/home/me/bin/claude",
                        FileFacts {
                            kind: FileKind::Other,
                            ..file(0o755, ME)
                        },
                    );
                },
                Untrusted::NotRegular,
            ),
            (
                "foreign file",
                "/home/me/bin/claude",
                |f| {
                    f.set("/home/me/bin/claude", file(0o755, 65534));
                },
                Untrusted::ForeignOwner,
            ),
            (
                "group-writable file",
                "/home/me/bin/claude",
                |f| {
                    f.set("/home/me/bin/claude", file(0o775, ME));
                },
                Untrusted::Writable,
            ),
            (
                "world-writable dir",
                "/home/me/bin/claude",
                |f| {
                    f.set("/home/me/bin", dir(0o777, ME));
                },
                Untrusted::Writable,
            ),
            (
                "writable ancestor",
                "/home/me/bin/claude",
                |f| {
                    f.set("/home", dir(0o1777, 0));
                },
                Untrusted::Writable,
            ),
            (
                "foreign ancestor",
                "/home/me/bin/claude",
                |f| {
                    f.set("/home/me", dir(0o755, 65534));
                },
                Untrusted::ForeignOwner,
            ),
            (
                "pseudo filesystem",
                "/home/me/bin/claude",
                |f| {
                    f.set(
                        "/home/me/bin/claude",
                        FileFacts {
                            pseudo: true,
                            ..file(0o755, ME)
                        },
                    );
                },
                Untrusted::Pseudo,
            ),
            (
                "link into a writable place",
                "/home/me/bin/claude",
                |f| {
                    f.set(
                        "/home/me/bin/claude",
                        FileFacts {
                            kind: FileKind::Symlink,
                            ..file(0o777, ME)
                        },
                    );
                    f.set("/tmp", dir(0o1777, 0));
                    f.set("/tmp/x", dir(0o777, ME));
                    f.set("/tmp/x/claude", file(0o755, ME));
                    f.links
                        .insert("/home/me/bin/claude".into(), "/tmp/x/claude".into());
                },
                Untrusted::Writable,
            ),
            (
                "foreign link",
                "/home/me/bin/claude",
                |f| {
                    f.set(
                        "/home/me/bin/claude",
                        FileFacts {
                            kind: FileKind::Symlink,
                            ..file(0o777, 65534)
                        },
                    );
                    f.set("/opt", dir(0o755, 0));
                    f.set("/opt/claude", file(0o755, 0));
                    f.links
                        .insert("/home/me/bin/claude".into(), "/opt/claude".into());
                },
                Untrusted::ForeignOwner,
            ),
            (
                "link resolving into proc",
                "/home/me/bin/claude",
                |f| {
                    f.set(
                        "/home/me/bin/claude",
                        FileFacts {
                            kind: FileKind::Symlink,
                            ..file(0o777, ME)
                        },
                    );
                    f.set("/proc/1/exe", file(0o755, 0));
                    f.links
                        .insert("/home/me/bin/claude".into(), "/proc/1/exe".into());
                },
                Untrusted::Pseudo,
            ),
        ];
        for (label, path, edit, want) in cases {
            let mut fs = Fake::good();
            edit(&mut fs);
            assert_eq!(check(claude(), path, &fs), Err(*want), "{label}");
            assert_eq!(trusted(claude(), Some(path), &fs), None, "{label}");
        }
    }

    #[test]
    fn a_link_in_a_safe_place_to_a_safe_program_is_replayed() {
        let mut fs = Fake::good();
        fs.set(
            "/home/me/bin/claude",
            FileFacts {
                kind: FileKind::Symlink,
                ..file(0o777, ME)
            },
        );
        fs.set("/opt", dir(0o755, 0));
        fs.set("/opt/cli.js", file(0o755, 0));
        fs.links
            .insert("/home/me/bin/claude".into(), "/opt/cli.js".into());
        assert_eq!(check(claude(), "/home/me/bin/claude", &fs), Ok(()));
    }
}
