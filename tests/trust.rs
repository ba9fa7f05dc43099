//! The tmux host snapshot passes the same trust check as recordings and
//! armed rows: `tmux restore --recreate` on a database that is not trusted
//! recreates, arms and types nothing, and says why once on stderr. Real tmux
//! on a private socket; the snapshot is saved by `agent-resume tmux save`
//! from a live server that is then killed.

#![allow(clippy::unwrap_used)]

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use agent_resume_test_support::{require, PrivateEnv, TmuxWorld};

/// `nobody`'s uid and gid: a file handed to it belongs to another user.
const NOBODY: u32 = 65534;

/// A saved tmux layout whose server is gone: the binary's own world
/// ([`PrivateEnv::new`]) with `SHELL`, a UTF-8 locale and the feature on,
/// and the private server it was saved from.
struct Saved(TmuxWorld);

impl std::ops::Deref for Saved {
    type Target = TmuxWorld;
    fn deref(&self) -> &TmuxWorld {
        &self.0
    }
}

impl Saved {
    /// Starts a private server with one session `alpha` in a work
    /// directory, saves it with `agent-resume tmux save`, kills the server.
    fn new() -> Saved {
        for tool in ["tmux", "sleep", "sh"] {
            require(tool);
        }
        let env = PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume"))
            .with("SHELL", require("sh"))
            .with("LANG", "C.UTF-8")
            .with("AGENT_RESUME", "1");
        for d in ["home", "w"] {
            fs::create_dir_all(env.root().join(d)).expect("mkdir");
        }
        let work = env.root().join("w");
        let saved = Saved(TmuxWorld::new(env, Path::new("/dev/null")));
        let sleep = require("sleep");
        saved.tmux.ok(&[
            OsStr::new("new-session"),
            OsStr::new("-d"),
            OsStr::new("-s"),
            OsStr::new("alpha"),
            OsStr::new("-c"),
            work.as_os_str(),
            sleep.as_os_str(),
            OsStr::new("100000"),
        ]);
        // tmux reads a pane's directory from its process, which has it
        // only once the child has started: a save before that sees none.
        let expected = work.to_string_lossy().into_owned();
        agent_resume_test_support::wait_for("the pane to report its directory", || {
            (saved.tmux.pane_format("alpha", "#{pane_current_path}") == expected).then_some(())
        });
        let out = saved
            .cli(&["tmux", "save", "-L", saved.tmux.socket()])
            .output();
        assert!(
            out.status.success(),
            "tmux save: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        saved.tmux.kill_server();
        saved
    }

    fn db(&self) -> PathBuf {
        self.env.db()
    }

    fn restore_recreate(&self) -> Output {
        self.cli(&["tmux", "restore", "-L", self.tmux.socket(), "--recreate"])
            .output()
    }
}

/// Each way the database is not trusted: `(what, how)`.
#[allow(clippy::type_complexity)]
fn untrusted_ways() -> Vec<(&'static str, fn(&Path, &Path))> {
    vec![
        ("file owned by another user", |db, _| {
            std::os::unix::fs::chown(db, Some(NOBODY), Some(NOBODY))
                .expect("chown (tests run as root)");
        }),
        ("file group-writable", |db, _| {
            fs::set_permissions(db, fs::Permissions::from_mode(0o660)).expect("chmod");
        }),
        (
            "database name a symlink into a world-writable directory",
            |db, root| {
                let open = root.join("world-writable");
                fs::create_dir(&open).expect("mkdir");
                fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).expect("chmod");
                let real = open.join("recordings.sqlite3");
                fs::rename(db, &real).expect("moves the database");
                std::os::unix::fs::symlink(&real, db).expect("symlink");
            },
        ),
        ("-wal owned by another user", |db, _| {
            let mut wal = db.as_os_str().to_owned();
            wal.push("-wal");
            fs::write(&wal, b"").expect("plants");
            std::os::unix::fs::chown(&wal, Some(NOBODY), Some(NOBODY)).expect("chown");
        }),
        ("-wal group-writable", |db, _| {
            let mut wal = db.as_os_str().to_owned();
            wal.push("-wal");
            fs::write(&wal, b"").expect("plants");
            fs::set_permissions(&wal, fs::Permissions::from_mode(0o660)).expect("chmod");
        }),
    ]
}

#[test]
fn tmux_restore_recreates_nothing_from_an_untrusted_snapshot() {
    let mut trusted_wrongly = Vec::new();
    for (what, make_untrusted) in untrusted_ways() {
        let saved = Saved::new();
        make_untrusted(&saved.db(), saved.root());
        let out = saved.restore_recreate();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{what}: {stderr}");
        let said = stderr.matches("not trusted").count();
        if saved.tmux.running() || said != 1 {
            trusted_wrongly.push(format!(
                "{what}: server running {}, stderr {stderr:?}",
                saved.tmux.running()
            ));
        }
        assert!(!saved.env.telemetry().exists(), "{what}: nothing reported");
    }
    assert!(trusted_wrongly.is_empty(), "{trusted_wrongly:#?}");
}

#[test]
fn tmux_restore_recreates_the_saved_session_from_a_trusted_snapshot() {
    // The other side of the test above: the same snapshot, trusted, is
    // recreated, so "nothing recreated" there is the trust check's doing.
    let saved = Saved::new();
    let out = saved.restore_recreate();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        saved.tmux.running(),
        "the session came back: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let sessions = saved.tmux.ok(&["list-sessions", "-F", "#{session_name}"]);
    assert_eq!(sessions.trim(), "alpha");
}
