//! kitty's lines in `agent-resume status` and its checks in `agent-resume
//! doctor`, run as the CLI in a private `HOME`: a stand-in `kitty` on
//! `PATH` (or none), the socket directory `init kitty` makes, a snapshot
//! stored as `kitty save` stores it, and a listener on a socket of this
//! user's standing in for kitty's remote control (the checks never ask
//! kitty anything). The tmux line stays as it was.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agent_resume_core::UnixMillis;
use agent_resume_store::Store;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    /// A private home; with `kitty`, a stand-in `kitty` in its `bin/`.
    fn new(kitty: bool) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        if kitty {
            fs::write(bin.join("kitty"), "#!/bin/sh\nexit 1\n").unwrap();
            fs::set_permissions(bin.join("kitty"), fs::Permissions::from_mode(0o755)).unwrap();
        }
        Home { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `agent-resume ARGS` with only this home's `bin/` on `PATH`, and `env`.
    fn cli(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_agent-resume"))
            .args(args)
            .env_clear()
            .env("HOME", self.path())
            .env("PATH", self.path().join("bin"))
            .envs(env.iter().copied())
            .current_dir(self.path())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn stdout(&self, args: &[&str], env: &[(&str, &str)]) -> String {
        String::from_utf8(self.cli(args, env).stdout).unwrap()
    }

    fn db(&self) -> PathBuf {
        self.path()
            .join(".local/share/agent-resume/recordings.sqlite3")
    }

    fn socket_dir(&self) -> PathBuf {
        self.path().join(".local/state/agent-resume/kitty")
    }

    fn conf(&self) -> PathBuf {
        self.path().join(".config/kitty/kitty.conf")
    }

    /// A database with no kitty snapshot (status says the hosts' lines
    /// only beside a database).
    fn empty_db(&self) {
        fs::create_dir_all(self.db().parent().unwrap()).unwrap();
        drop(Store::open(&self.db()).unwrap());
    }

    /// A snapshot stored as `kitty save` stores it, saved `ago_ms` ago.
    fn saved_kitty(&self, key: &str, ago_ms: i64) {
        self.empty_db();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        let at = UnixMillis(i64::try_from(now).unwrap() - ago_ms);
        Store::open(&self.db())
            .unwrap()
            .save_host_layout(&format!("kitty:{key}"), r#"{"os_windows":[]}"#, at)
            .unwrap();
    }

    /// `agent-resume init kitty` appended to kitty.conf.
    fn init_kitty(&self) {
        let out = self.cli(&["init", "kitty"], &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        fs::create_dir_all(self.conf().parent().unwrap()).unwrap();
        fs::write(self.conf(), out.stdout).unwrap();
    }
}

/// The line of `label` (`label:` padded to the value's column).
fn status_line<'a>(status: &'a str, label: &str) -> &'a str {
    let prefix = format!("{label}:");
    status
        .lines()
        .find(|l| l.starts_with(&prefix) && l[prefix.len()..].starts_with(' '))
        .unwrap_or_else(|| panic!("no {label:?} line in:\n{status}"))
}

/// The doctor line of `key`, when there is one.
fn doctor_line<'a>(out: &'a str, key: &str) -> Option<&'a str> {
    let infix = format!(" {key}: ");
    out.lines().find(|l| l.contains(&infix))
}

#[test]
fn status_names_kitty_its_socket_directory_and_the_snapshot_saved_last() {
    let home = Home::new(true);
    home.init_kitty();
    home.saved_kitty("unix:/nowhere/kitty-1", 3 * 60 * 60 * 1000);
    home.saved_kitty("unix:/nowhere/kitty-2", 5 * 60 * 1000);
    let status = home.stdout(&["status"], &[]);
    assert_eq!(
        status_line(&status, "kitty"),
        format!("kitty:      {}", home.path().join("bin/kitty").display())
    );
    assert_eq!(
        status_line(&status, "kitty dir"),
        format!("kitty dir:  {}", home.socket_dir().display())
    );
    assert_eq!(
        status_line(&status, "kitty save"),
        "kitty save: 2 instances, the last saved 5m ago (`agent-resume kitty session --dry-run`)"
    );
    assert_eq!(status_line(&status, "tmux"), "tmux:       no server saved");
}

#[test]
fn status_without_kitty_or_its_snapshot_says_what_is_missing() {
    let home = Home::new(false);
    home.empty_db();
    let status = home.stdout(&["status"], &[]);
    assert_eq!(status_line(&status, "kitty"), "kitty:      not on PATH");
    assert_eq!(
        status_line(&status, "kitty dir"),
        format!(
            "kitty dir:  {} (missing: `agent-resume init kitty` makes it)",
            home.socket_dir().display()
        )
    );
    assert_eq!(
        status_line(&status, "kitty save"),
        "kitty save: no kitty saved"
    );
    assert_eq!(status_line(&status, "tmux"), "tmux:       no server saved");
    assert!(!home.socket_dir().exists(), "status makes nothing");
}

#[test]
fn doctor_fails_kittys_set_up_only_inside_kitty_and_passes_it_once_set_up() {
    let home = Home::new(true);
    home.empty_db();
    // Outside kitty, a kitty.conf without the lines only warns.
    let out = home.stdout(&["doctor"], &[]);
    let conf = doctor_line(&out, "kitty.conf").unwrap();
    assert!(
        conf.starts_with("! ") && conf.contains("fix: agent-resume init kitty >> "),
        "{out}"
    );
    assert!(doctor_line(&out, "kitty.socket").is_none(), "{out}");
    assert!(
        doctor_line(&out, "kitty.saved").unwrap().starts_with("- "),
        "{out}"
    );

    // Inside a kitty started without the lines: each missing piece fails.
    let inside = [("KITTY_WINDOW_ID", "1")];
    let out = home.stdout(&["doctor"], &inside);
    assert!(
        doctor_line(&out, "kitty.conf").unwrap().starts_with("✗ "),
        "{out}"
    );
    let socket = doctor_line(&out, "kitty.socket").unwrap();
    assert!(
        socket.starts_with("✗ ") && socket.contains("KITTY_LISTEN_ON"),
        "{out}"
    );
    assert!(
        doctor_line(&out, "kitty.saved").unwrap().starts_with("! "),
        "{out}"
    );

    // Set up as docs/kitty.md says, kitty listening on a socket of ours.
    home.init_kitty();
    home.saved_kitty("unix:/nowhere/kitty-1", 1000);
    let sock = home.socket_dir().join("kitty-1");
    let _listener = UnixListener::bind(&sock).unwrap();
    let to = format!("unix:{}", sock.display());
    let out = home.stdout(&["doctor"], &[inside[0], ("KITTY_LISTEN_ON", &to)]);
    for key in [
        "kitty.conf",
        "kitty.start",
        "kitty.watcher",
        "kitty.dir",
        "kitty.socket",
        "kitty.saved",
    ] {
        let l = doctor_line(&out, key).unwrap_or_else(|| panic!("no {key}:\n{out}"));
        assert!(l.starts_with("✓ "), "{key}:\n{out}");
    }
    // A kitty.conf of an earlier set-up, without `startup_session`: kitty
    // started as usual restores nothing, which doctor says (a warning).
    let conf = fs::read_to_string(home.conf()).unwrap();
    let earlier: String = conf
        .lines()
        .filter(|l| !l.starts_with("startup_session "))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(home.conf(), earlier).unwrap();
    let out = home.stdout(&["doctor"], &[inside[0], ("KITTY_LISTEN_ON", &to)]);
    let start = doctor_line(&out, "kitty.start").unwrap();
    assert!(
        start.starts_with("! ") && start.contains("startup_session"),
        "{out}"
    );
    // One without the watcher: a window closed is saved only at the next
    // change a shell sees (a warning).
    let earlier: String = conf
        .lines()
        .filter(|l| !l.starts_with("watcher "))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(home.conf(), earlier).unwrap();
    let out = home.stdout(&["doctor"], &[inside[0], ("KITTY_LISTEN_ON", &to)]);
    let watcher = doctor_line(&out, "kitty.watcher").unwrap();
    assert!(
        watcher.starts_with("! ") && watcher.contains("grep watcher"),
        "{out}"
    );
    fs::write(home.conf(), conf).unwrap();

    // A socket directory others may write: neither it nor the socket is
    // trusted.
    fs::set_permissions(home.socket_dir(), fs::Permissions::from_mode(0o777)).unwrap();
    let out = home.stdout(&["doctor"], &[inside[0], ("KITTY_LISTEN_ON", &to)]);
    let dir = doctor_line(&out, "kitty.dir").unwrap();
    assert!(
        dir.starts_with("✗ ") && dir.contains("fix: agent-resume init kitty"),
        "{out}"
    );
    let socket = doctor_line(&out, "kitty.socket").unwrap();
    assert!(
        socket.starts_with("✗ ") && socket.contains("not trusted"),
        "{out}"
    );
    fs::set_permissions(home.socket_dir(), fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn doctor_skips_kitty_where_it_is_not_installed() {
    let home = Home::new(false);
    let out = home.stdout(&["doctor"], &[("KITTY_WINDOW_ID", "1")]);
    assert_eq!(
        doctor_line(&out, "kitty"),
        Some("- kitty: kitty is not installed"),
        "{out}"
    );
    assert!(!out.contains(" kitty.conf: "), "{out}");
}
