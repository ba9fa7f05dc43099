//! kitty's remote-control socket: checked before anything that answers on
//! it is believed, and the private directory `init kitty` puts it in.
//!
//! Whoever listens on the socket chooses what `kitty @ ls` says: the
//! windows, the pane id each lists, which windows run. A socket in a
//! directory another user may write can be replaced by their listener. So
//! before `kitty @` runs, [`examine`] requires a `unix:` path whose
//! directory is this user's, not a symbolic link and not writable by group
//! or others; a socket there that is this user's and not a link (and not
//! writable by group or others when they may enter the directory); and, on
//! Linux, a listening process of this user's (`SO_PEERCRED`). An abstract
//! socket (`unix:@name`) has no file: on Linux its listener's user is
//! checked, elsewhere it is refused.
//!
//! The listener's pid also names the kitty process, whose own environment
//! says which pane id it inherited ([`Listener::inherited`]): kitty 0.26
//! lists a window's whole inherited environment, so that id shows in every
//! window kitty opens without `launch --env`.

use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
use std::path::Path;

use thiserror::Error;

use crate::model::Inherited;
use crate::value::{literal, Refusal, Value};

/// Why a kitty socket, or the directory for one, is not trusted.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Untrusted {
    /// Not a `unix:` address (`tcp:` lets any local user connect).
    NotUnix = 1,
    /// A relative socket path.
    NotAbsolute = 2,
    /// The directory is a symbolic link.
    DirSymlink = 3,
    /// The directory belongs to another user.
    DirOwner = 4,
    /// Group or others may write the directory (they could replace the
    /// socket with their own listener).
    DirWritableByOthers = 5,
    /// The socket's name is a symbolic link.
    Symlink = 6,
    /// Not a socket (or not a directory, for the directory).
    NotSocket = 7,
    /// The socket belongs to another user.
    Owner = 8,
    /// Group or others may write (connect to) the socket and reach it.
    WritableByOthers = 9,
    /// The process listening on it belongs to another user.
    ListenerOwner = 10,
    /// The socket or its directory could not be examined, or nothing
    /// listens on it.
    Unexamined = 11,
}

impl Untrusted {
    /// Every variant, in discriminant order.
    pub const VARIANTS: &'static [Untrusted] = &[
        Untrusted::NotUnix,
        Untrusted::NotAbsolute,
        Untrusted::DirSymlink,
        Untrusted::DirOwner,
        Untrusted::DirWritableByOthers,
        Untrusted::Symlink,
        Untrusted::NotSocket,
        Untrusted::Owner,
        Untrusted::WritableByOthers,
        Untrusted::ListenerOwner,
        Untrusted::Unexamined,
    ];

    /// The stable lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Untrusted::NotUnix => "not-unix",
            Untrusted::NotAbsolute => "not-absolute",
            Untrusted::DirSymlink => "dir-symlink",
            Untrusted::DirOwner => "dir-owner",
            Untrusted::DirWritableByOthers => "dir-writable-by-others",
            Untrusted::Symlink => "symlink",
            Untrusted::NotSocket => "not-socket",
            Untrusted::Owner => "owner",
            Untrusted::WritableByOthers => "writable-by-others",
            Untrusted::ListenerOwner => "listener-owner",
            Untrusted::Unexamined => "unexamined",
        }
    }
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Untrusted::NotUnix => "it is not a unix: socket path",
            Untrusted::NotAbsolute => "its path is not absolute",
            Untrusted::DirSymlink => "its directory is a symbolic link",
            Untrusted::DirOwner => "its directory belongs to another user",
            Untrusted::DirWritableByOthers => "its directory is writable by group or others",
            Untrusted::Symlink => "it is a symbolic link",
            Untrusted::NotSocket => "it is not a socket (or its directory not a directory)",
            Untrusted::Owner => "it belongs to another user",
            Untrusted::WritableByOthers => "group or others may reach and write it",
            Untrusted::ListenerOwner => "the process listening on it belongs to another user",
            Untrusted::Unexamined => "it could not be examined or nothing listens on it",
        })
    }
}

/// The process that listens on a trusted socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listener {
    /// Its pid, where the system tells (Linux).
    pub pid: Option<u32>,
}

/// The most bytes of kitty's environment read.
const MAX_ENVIRON: u64 = 8 << 20;

impl Listener {
    /// The pane id the kitty process itself was started with, read from
    /// its own environment (`/proc/<pid>/environ`); [`Inherited::Unknown`]
    /// when that cannot be read.
    pub fn inherited(&self) -> Inherited {
        let Some(pid) = self.pid else {
            return Inherited::Unknown;
        };
        let Ok(file) = fs::File::open(format!("/proc/{pid}/environ")) else {
            return Inherited::Unknown;
        };
        let mut block = Vec::new();
        match file.take(MAX_ENVIRON + 1).read_to_end(&mut block) {
            Ok(n) if (n as u64) <= MAX_ENVIRON => Inherited::from_environ(&block),
            _ => Inherited::Unknown,
        }
    }
}

/// Checks the socket `listen_on` names (`unix:PATH` or `unix:@NAME`) and
/// the process listening on it; see the module documentation.
pub fn examine(listen_on: &OsStr) -> Result<Listener, Untrusted> {
    let Some(path) = listen_on.as_bytes().strip_prefix(b"unix:") else {
        return Err(Untrusted::NotUnix);
    };
    if let Some(name) = path.strip_prefix(b"@").filter(|n| !n.is_empty()) {
        return peer::abstract_listener(name);
    }
    let path = Path::new(OsStr::from_bytes(path));
    if !path.is_absolute() {
        return Err(Untrusted::NotAbsolute);
    }
    let me = rustix::process::geteuid().as_raw();
    let dir = path.parent().ok_or(Untrusted::NotSocket)?;
    let d = fs::symlink_metadata(dir).map_err(|_| Untrusted::Unexamined)?;
    check_dir(&d, me)?;
    let f = fs::symlink_metadata(path).map_err(|_| Untrusted::Unexamined)?;
    if f.file_type().is_symlink() {
        return Err(Untrusted::Symlink);
    }
    if !f.file_type().is_socket() {
        return Err(Untrusted::NotSocket);
    }
    if f.uid() != me {
        return Err(Untrusted::Owner);
    }
    // Connecting needs write permission on the socket and search on the
    // directory: a group-writable socket (umask 002) in a directory only
    // this user enters is still this user's alone.
    if f.mode() & 0o022 != 0 && d.mode() & 0o011 != 0 {
        return Err(Untrusted::WritableByOthers);
    }
    peer::path_listener(path)
}

/// A directory of this user's, not a link, not writable by group or others.
fn check_dir(d: &fs::Metadata, me: u32) -> Result<(), Untrusted> {
    if d.file_type().is_symlink() {
        return Err(Untrusted::DirSymlink);
    }
    if !d.is_dir() {
        return Err(Untrusted::NotSocket);
    }
    if d.uid() != me {
        return Err(Untrusted::DirOwner);
    }
    if d.mode() & 0o022 != 0 {
        return Err(Untrusted::DirWritableByOthers);
    }
    Ok(())
}

/// The longest socket directory [`listen_on_line`] writes, in bytes: a
/// socket path (the directory, `/kitty`, and the `-<pid>` kitty appends)
/// must fit `sun_path` (108 bytes with its NUL).
pub const MAX_SOCKET_DIR: usize = 88;

/// Why `init kitty` wrote no `listen_on` line.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PrivateDirError {
    /// The directory's path cannot be written into kitty.conf exactly.
    #[error("the kitty socket directory's path cannot be written into kitty.conf exactly: it {0}")]
    Path(Refusal),
    /// The directory could not be made.
    #[error("cannot make the kitty socket directory")]
    Make(#[source] io::Error),
    /// An existing directory is not private to this user.
    #[error("the kitty socket directory is not private: {0} (remove it, or make it a directory of yours with mode 0700)")]
    NotPrivate(Untrusted),
    /// An existing directory lets group or others in (its mode).
    #[error("the kitty socket directory has mode {0:o}, not 0700 (make it 0700)")]
    Mode(u32),
}

/// Checks, without making or changing anything, that `dir` is the private
/// directory [`listen_on_line`] would accept: this user's, not a link,
/// mode 0700 or narrower. `Make` (`NotFound`) when it is missing.
pub fn check_private_dir(dir: &Path) -> Result<(), PrivateDirError> {
    let me = rustix::process::geteuid().as_raw();
    let d = fs::symlink_metadata(dir).map_err(PrivateDirError::Make)?;
    check_dir(&d, me).map_err(PrivateDirError::NotPrivate)?;
    if d.mode() & 0o077 != 0 {
        return Err(PrivateDirError::Mode(d.mode() & 0o7777));
    }
    Ok(())
}

/// The `listen_on` line [`listen_on_line`] writes for `dir`, without
/// making or checking the directory; `None` where the path cannot be
/// written into kitty.conf exactly.
pub fn listen_on_text(dir: &Path) -> Option<String> {
    let text = literal(Value::Directory, dir.as_os_str()).ok()?;
    (!text.contains(['{', '}']) && text.len() <= MAX_SOCKET_DIR)
        .then(|| format!("listen_on unix:{text}/kitty"))
}

/// The session file kitty.conf's `startup_session` names, in the private
/// socket directory (`agent_resume_kitty::start`).
pub const START_SESSION: &str = "start.session";

/// The watcher's file name, beside the start session in the private
/// socket directory (`agent_resume_kitty::watcher`).
pub const WATCHER: &str = "watcher.py";

/// Makes `dir` (mode 0700) when missing, checks it is this user's, not a
/// link and not open to group or others (an existing one is never
/// changed), and returns the kitty.conf `listen_on` line for a socket in
/// it: a concrete path, nothing for kitty to expand.
pub fn listen_on_line(dir: &Path) -> Result<String, PrivateDirError> {
    let text =
        literal(Value::Directory, dir.as_os_str()).map_err(|r| PrivateDirError::Path(r.why))?;
    // kitty replaces `{kitty_pid}` in `listen_on`.
    if text.contains(['{', '}']) {
        return Err(PrivateDirError::Path(Refusal::Foreign));
    }
    if text.len() > MAX_SOCKET_DIR {
        return Err(PrivateDirError::Path(Refusal::TooLong));
    }
    match fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        Err(e) => return Err(PrivateDirError::Make(e)),
    }
    let me = rustix::process::geteuid().as_raw();
    let d = fs::symlink_metadata(dir).map_err(PrivateDirError::Make)?;
    check_dir(&d, me).map_err(PrivateDirError::NotPrivate)?;
    if d.mode() & 0o077 != 0 {
        return Err(PrivateDirError::Mode(d.mode() & 0o7777));
    }
    Ok(format!("listen_on unix:{text}/kitty\n"))
}

#[cfg(target_os = "linux")]
mod peer {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixStream};
    use std::path::Path;

    use super::{Listener, Untrusted};

    fn check(stream: &UnixStream) -> Result<Listener, Untrusted> {
        let cred =
            rustix::net::sockopt::socket_peercred(stream).map_err(|_| Untrusted::Unexamined)?;
        if cred.uid != rustix::process::geteuid() {
            return Err(Untrusted::ListenerOwner);
        }
        Ok(Listener {
            pid: u32::try_from(cred.pid.as_raw_nonzero().get()).ok(),
        })
    }

    pub(super) fn path_listener(path: &Path) -> Result<Listener, Untrusted> {
        check(&UnixStream::connect(path).map_err(|_| Untrusted::Unexamined)?)
    }

    pub(super) fn abstract_listener(name: &[u8]) -> Result<Listener, Untrusted> {
        let addr = SocketAddr::from_abstract_name(name).map_err(|_| Untrusted::Unexamined)?;
        check(&UnixStream::connect_addr(&addr).map_err(|_| Untrusted::Unexamined)?)
    }
}

#[cfg(not(target_os = "linux"))]
mod peer {
    use std::path::Path;

    use super::{Listener, Untrusted};

    /// No portable way to ask for the listener's user: the file checks
    /// stand alone, and kitty's own environment is unknown.
    pub(super) fn path_listener(_path: &Path) -> Result<Listener, Untrusted> {
        Ok(Listener { pid: None })
    }

    /// An abstract name has no owner to check.
    pub(super) fn abstract_listener(_name: &[u8]) -> Result<Listener, Untrusted> {
        Err(Untrusted::NotUnix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::os::unix::net::UnixListener;

    fn chmod(p: &Path, mode: u32) {
        fs::set_permissions(p, fs::Permissions::from_mode(mode)).expect("chmod");
    }

    fn chown_nobody(p: &Path) {
        std::os::unix::fs::lchown(p, Some(65534), Some(65534)).expect("chown (tests run as root)");
    }

    fn to(p: &Path) -> std::ffi::OsString {
        let mut s = std::ffi::OsString::from("unix:");
        s.push(p);
        s
    }

    #[test]
    fn a_socket_of_this_users_in_a_private_directory_is_trusted_and_names_its_listener() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let sock = tmp.path().join("kitty-1");
        let _l = UnixListener::bind(&sock).expect("bind");
        let listener = examine(&to(&sock)).expect("trusted");
        if cfg!(target_os = "linux") {
            assert_eq!(listener.pid, Some(std::process::id()));
        }
    }

    #[test]
    fn sockets_others_could_replace_or_that_are_not_this_users_are_refused_with_why() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("d");
        fs::create_dir(&dir).expect("mkdir");
        let sock = dir.join("kitty-1");
        let _l = UnixListener::bind(&sock).expect("bind");
        assert_eq!(
            examine(OsStr::new("tcp:127.0.0.1:9")),
            Err(Untrusted::NotUnix)
        );
        assert_eq!(
            examine(OsStr::new("unix:rel/kitty")),
            Err(Untrusted::NotAbsolute)
        );
        chmod(&dir, 0o777);
        assert_eq!(examine(&to(&sock)), Err(Untrusted::DirWritableByOthers));
        chmod(&dir, 0o775);
        assert_eq!(examine(&to(&sock)), Err(Untrusted::DirWritableByOthers));
        // Group-writable socket: refused when others may enter the
        // directory, not in a directory only this user enters.
        chmod(&dir, 0o755);
        chmod(&sock, 0o775);
        assert_eq!(examine(&to(&sock)), Err(Untrusted::WritableByOthers));
        chmod(&dir, 0o700);
        assert!(examine(&to(&sock)).is_ok());
        chmod(&sock, 0o755);
        let link = dir.join("link");
        symlink(&sock, &link).expect("symlink");
        assert_eq!(examine(&to(&link)), Err(Untrusted::Symlink));
        let dir_link = tmp.path().join("dlink");
        symlink(&dir, &dir_link).expect("symlink");
        assert_eq!(
            examine(&to(&dir_link.join("kitty-1"))),
            Err(Untrusted::DirSymlink)
        );
        let plain = dir.join("plain");
        fs::write(&plain, "").expect("write");
        assert_eq!(examine(&to(&plain)), Err(Untrusted::NotSocket));
        assert_eq!(
            examine(&to(&dir.join("missing"))),
            Err(Untrusted::Unexamined)
        );
        chown_nobody(&sock);
        assert_eq!(examine(&to(&sock)), Err(Untrusted::Owner));
        chown_nobody(&dir);
        assert_eq!(examine(&to(&sock)), Err(Untrusted::DirOwner));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_socket_whose_listener_is_another_users_process_is_refused() {
        use std::io::BufRead;
        let tmp = tempfile::tempdir().expect("tempdir");
        chmod(tmp.path(), 0o755);
        let dir = tmp.path().join("d");
        fs::create_dir(&dir).expect("mkdir");
        chmod(&dir, 0o777);
        let sock = dir.join("kitty-1");
        let mut child = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .args(["/usr/bin/python3", "-c"])
            .arg("import socket,sys,time\ns=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen()\nprint('ok',flush=True)\ntime.sleep(60)")
            .arg(&sock)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("setpriv and /usr/bin/python3 (util-linux, python3) are installed");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("listens");
        assert_eq!(line.trim(), "ok");
        // The file and directory made to look like this user's own.
        chmod(&dir, 0o700);
        std::os::unix::fs::lchown(&sock, Some(rustix::process::geteuid().as_raw()), None)
            .expect("chown back");
        let got = examine(&to(&sock));
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(got, Err(Untrusted::ListenerOwner));
    }

    #[test]
    fn every_socket_refusal_has_a_distinct_name() {
        let mut names: Vec<_> = Untrusted::VARIANTS.iter().map(|u| u.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Untrusted::VARIANTS.len());
    }

    #[test]
    fn the_listen_on_line_names_a_concrete_path_in_a_directory_made_private() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("state/agent-resume/kitty");
        let line = listen_on_line(&dir).expect("made");
        assert_eq!(line, format!("listen_on unix:{}/kitty\n", dir.display()));
        let m = fs::symlink_metadata(&dir).expect("made");
        assert!(m.is_dir());
        assert_eq!(m.mode() & 0o7777, 0o700);
        // Again: the same line, the directory unchanged.
        assert_eq!(listen_on_line(&dir).expect("again"), line);
    }

    #[test]
    fn an_existing_socket_directory_that_is_not_private_is_refused_and_left_as_it_is() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let open = tmp.path().join("open");
        fs::create_dir(&open).expect("mkdir");
        chmod(&open, 0o777);
        assert!(matches!(
            listen_on_line(&open),
            Err(PrivateDirError::NotPrivate(Untrusted::DirWritableByOthers))
        ));
        assert_eq!(
            fs::metadata(&open).expect("there").mode() & 0o7777,
            0o777,
            "left as it is"
        );
        let readable = tmp.path().join("readable");
        fs::create_dir(&readable).expect("mkdir");
        chmod(&readable, 0o755);
        assert!(matches!(
            listen_on_line(&readable),
            Err(PrivateDirError::Mode(0o755))
        ));
        let theirs = tmp.path().join("theirs");
        fs::create_dir(&theirs).expect("mkdir");
        chmod(&theirs, 0o700);
        chown_nobody(&theirs);
        assert!(matches!(
            listen_on_line(&theirs),
            Err(PrivateDirError::NotPrivate(Untrusted::DirOwner))
        ));
        let link = tmp.path().join("link");
        let real = tmp.path().join("real");
        fs::create_dir(&real).expect("mkdir");
        chmod(&real, 0o700);
        symlink(&real, &link).expect("symlink");
        assert!(matches!(
            listen_on_line(&link),
            Err(PrivateDirError::NotPrivate(Untrusted::DirSymlink))
        ));
        for bad in ["a$HOME", "a{kitty_pid}", "rel"] {
            let p = if bad == "rel" {
                std::path::PathBuf::from(bad)
            } else {
                tmp.path().join(bad)
            };
            assert!(
                matches!(listen_on_line(&p), Err(PrivateDirError::Path(_))),
                "{bad}"
            );
            assert!(!p.exists(), "{bad}: nothing made");
        }
        let long = tmp.path().join("x".repeat(MAX_SOCKET_DIR));
        assert!(matches!(
            listen_on_line(&long),
            Err(PrivateDirError::Path(Refusal::TooLong))
        ));
    }
}
