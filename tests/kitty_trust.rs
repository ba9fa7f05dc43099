//! Who decides a kitty window's pane id, against real kitty (0.26.5 here)
//! under a private Xvfb display: never the id kitty itself inherited (a
//! kitty started from a kitty window or a tmux pane lists it in every
//! window it opens), always the one our session file launched a window
//! with; and never a listener on a socket that is not this user's own.
//! `init kitty` names a concrete socket path in a directory it made private,
//! so kitty starts without `$XDG_RUNTIME_DIR`. The kitty lock is never
//! opened beside an untrusted database. A missing kitty or Xvfb fails
//! naming it.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agent_resume_kitty::PANE_ENV;
use agent_resume_store::Store;
use agent_resume_test_support::kitty::{require, windows, Display, Kitty};

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("home")).unwrap();
        fs::create_dir_all(dir.path().join("run")).unwrap();
        fs::set_permissions(dir.path().join("run"), fs::Permissions::from_mode(0o700)).unwrap();
        World { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// `agent-resume ARGS` in this world's home, the flag on, killed after
    /// 20 s (a process that waits is a failure, not a hang).
    fn cli(&self, args: &[&str]) -> Output {
        let mut child = Command::new(agent_resume())
            .args(args)
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("AGENT_RESUME", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let end = Instant::now() + Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > end {
                let _ = child.kill();
                let _ = child.wait();
                panic!("agent-resume {args:?} still ran after 20 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    }

    /// `kitty pane` for window `id`: its answer, when it succeeds.
    fn pane(&self, to: &str, id: u64) -> Option<String> {
        let out = self.cli(&["kitty", "pane", "--to", to, "--window", &id.to_string()]);
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).unwrap().trim().to_owned())
    }

    fn db(&self) -> PathBuf {
        self.home()
            .join(".local/share/agent-resume/recordings.sqlite3")
    }

    /// The stored snapshot of the kitty at `to`, with when it was saved.
    fn stored(&self, to: &str) -> Option<String> {
        let store = Store::open(&self.db()).unwrap();
        store
            .host_layout(&format!("kitty:{to}"))
            .unwrap()
            .map(|(text, at)| format!("{at:?} {text}"))
    }

    fn kitty(&self, display: &Display, session: Option<&Path>, env: &[(&str, &str)]) -> Kitty {
        Kitty::start(
            display,
            &self.root().join("run/kitty"),
            &self.home(),
            session,
            env,
        )
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exactly one line, from agent-resume, saying `why`.
fn says_once(out: &Output, why: &str) {
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("agent-resume: ") && err.contains(why),
        "{err}"
    );
}

#[test]
fn a_kitty_started_under_an_inherited_pane_id_never_hands_it_to_a_window() {
    let display = Display::start();
    let w = World::new();
    let inherited = uuid::Uuid::new_v4().to_string();
    let kitty = w.kitty(&display, None, &[(PANE_ENV, &inherited)]);
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == 1),
        "opened its first window",
    );
    // The premise: kitty lists what it inherited as the window's own.
    let first_window = windows(&ls)[0];
    assert_eq!(first_window.env.get(PANE_ENV), Some(&inherited));
    let first = w.pane(&kitty.to, first_window.id).unwrap();
    assert_ne!(first, inherited, "the first window took kitty's own id");
    assert!(first.parse::<uuid::Uuid>().is_ok(), "{first}");
    kitty
        .at(&["launch", "--type=window", "sh"])
        .expect("a second window");
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == 2),
        "opened a second window",
    );
    let second = w.pane(&kitty.to, windows(&ls)[1].id).unwrap();
    assert_ne!(second, inherited);
    assert_ne!(second, first, "two windows share one id");
    assert_eq!(w.pane(&kitty.to, first_window.id).unwrap(), first, "kept");
}

#[test]
fn a_window_our_session_file_launched_keeps_its_id_under_an_inherited_one() {
    let display = Display::start();
    let w = World::new();
    let inherited = uuid::Uuid::new_v4().to_string();
    let launched = uuid::Uuid::new_v4().to_string();
    let session = w.root().join("restore.session");
    fs::write(
        &session,
        format!("new_tab\nlaunch --env {PANE_ENV}={launched} sh\nlaunch sh\n"),
    )
    .unwrap();
    let kitty = w.kitty(&display, Some(&session), &[(PANE_ENV, &inherited)]);
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == 2),
        "opened the session",
    );
    let ids: Vec<u64> = windows(&ls).iter().map(|w| w.id).collect();
    assert_eq!(windows(&ls)[1].env.get(PANE_ENV), Some(&inherited));
    assert_eq!(w.pane(&kitty.to, ids[0]).unwrap(), launched);
    let plain = w.pane(&kitty.to, ids[1]).unwrap();
    assert!(plain != inherited && plain != launched, "{plain}");
}

#[test]
fn init_kitty_without_xdg_runtime_dir_names_a_private_socket_kitty_starts_on() {
    let display = Display::start();
    let w = World::new();
    let out = w.cli(&["init", "kitty"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let conf = String::from_utf8(out.stdout).unwrap();
    assert!(!conf.contains('$'), "left for kitty to expand:\n{conf}");
    let dir = w.home().join(".local/state/agent-resume/kitty");
    assert!(
        conf.contains(&format!("\nlisten_on unix:{}/kitty\n", dir.display())),
        "{conf}"
    );
    let m = fs::symlink_metadata(&dir).unwrap();
    assert!(m.is_dir());
    assert_eq!(m.mode() & 0o7777, 0o700);
    assert_eq!(m.uid(), rustix::process::geteuid().as_raw());
    let conf_file = w.root().join("kitty.conf");
    fs::write(&conf_file, &conf).unwrap();
    agent_resume_test_support::kitty::require_mesa();
    let child = Command::new(require("kitty"))
        .arg("--config")
        .arg(&conf_file)
        .args([
            "-o",
            "shell_integration=disabled",
            "-o",
            "confirm_os_window_close=0",
        ])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("DISPLAY", format!(":{}", display.number))
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .env("HOME", w.home())
        .current_dir(w.home())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(30);
    let socket = loop {
        let found = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("kitty-")
            });
        if let Some(s) = found {
            break s;
        }
        assert!(
            Instant::now() < end,
            "kitty never made its socket in {dir:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let kitty = Kitty::adopt(child, format!("unix:{}", socket.display()));
    let out = w.cli(&["kitty", "save", "--to", &kitty.to]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(w.stored(&kitty.to).is_some());
    // An existing directory open to others is refused, and left alone.
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
    let out = w.cli(&["init", "kitty"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    says_once(&out, "not private");
    assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o7777, 0o777);
}

/// Saves once on a trusted socket, then `spoil`s it: `kitty save` and
/// `kitty pane` refuse, saying `why` once; the stored snapshot is
/// untouched; `kitty session --dry-run` does not take the listener's word
/// that the saved windows run.
fn refused_after(spoil: impl FnOnce(&Path), why: &str) {
    let display = Display::start();
    let w = World::new();
    let kitty = w.kitty(&display, None, &[]);
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == 1),
        "opened its first window",
    );
    let id = windows(&ls)[0].id;
    assert!(w.pane(&kitty.to, id).is_some());
    let before = w.stored(&kitty.to).unwrap();
    let running = w.cli(&["kitty", "session", "--dry-run"]);
    assert_eq!(
        String::from_utf8_lossy(&running.stdout),
        "nothing to restore: every saved kitty window is running\n"
    );
    spoil(&w.root().join("run"));
    for args in [
        vec!["kitty", "save", "--to", &kitty.to],
        vec![
            "kitty",
            "pane",
            "--to",
            &kitty.to,
            "--window",
            &id.to_string(),
        ],
    ] {
        let out = w.cli(&args);
        assert!(!out.status.success(), "{args:?} took the socket");
        assert!(out.stdout.is_empty(), "{args:?}");
        says_once(&out, &format!("kitty socket not trusted: {why}"));
    }
    assert_eq!(w.stored(&kitty.to).unwrap(), before, "the snapshot changed");
    let out = w.cli(&["kitty", "session", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("every saved kitty window is running"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    says_once(&out, why);
}

#[test]
fn kitty_save_and_pane_refuse_a_socket_in_a_directory_others_may_write() {
    refused_after(
        |run| fs::set_permissions(run, fs::Permissions::from_mode(0o777)).unwrap(),
        "its directory is writable by group or others",
    );
}

#[test]
fn kitty_save_and_pane_refuse_a_socket_another_user_owns() {
    refused_after(
        |run| std::os::unix::fs::lchown(run.join("kitty"), Some(65534), Some(65534)).unwrap(),
        "it belongs to another user",
    );
}

#[test]
fn a_planted_lock_fifo_beside_an_untrusted_database_is_never_opened() {
    let w = World::new();
    // A listener of this user's in a private directory: the socket passes.
    let sock = w.root().join("run/kitty-1");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let shared = w.home().join(".local/share/agent-resume");
    fs::create_dir_all(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o777)).unwrap();
    let fifo = shared.join("kitty.lock");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o666),
        0,
    )
    .unwrap();
    let to = format!("unix:{}", sock.display());
    let out = w.cli(&["kitty", "save", "--to", &to]);
    assert!(!out.status.success());
    says_once(&out, "not trusted");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}
