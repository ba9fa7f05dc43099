//! How often the `init tmux` hooks save: a real tmux server on a private
//! socket whose config loads `agent-resume init tmux`, bash panes whose
//! `.bashrc` loads `init bash`, and a stand-in `claude` first on `PATH`.
//!
//! Saves are counted where they land: a trigger the test adds to its own
//! database counts every snapshot written to `host_layouts`. Waits poll
//! until no `tmux save` of the world runs, never a fixed sleep alone.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use agent_resume_test_support::{require, wait_for, PrivateEnv, TmuxWorld};

const CLAUDE: &str = include_str!("standins/claude");

/// The environment variable marking every process of a world.
const MARKER: &str = "AGENT_RESUME_TEST_SAVES";

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// Seconds since the epoch, as tmux's `%s` reads them.
fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        .try_into()
        .unwrap()
}

/// A user's world ([`PrivateEnv::user`]) with the stand-in's run files
/// (`STANDIN_RAN`), `SHELL`, and [`MARKER`] on every process of it, and its
/// tmux server started from `~/.tmux.conf`.
struct World(TmuxWorld);

impl std::ops::Deref for World {
    type Target = TmuxWorld;
    fn deref(&self) -> &TmuxWorld {
        &self.0
    }
}

impl World {
    fn new() -> World {
        for tool in ["tmux", "bash", "sleep", "sh"] {
            require(tool);
        }
        let env = PrivateEnv::user(agent_resume());
        let root = env.root().to_owned();
        let home = env.home();
        for d in [root.join("ran"), root.join("w")] {
            fs::create_dir_all(d).unwrap();
        }
        let claude = root.join("bin/claude");
        fs::write(&claude, CLAUDE).unwrap();
        fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(
            home.join(".bashrc"),
            "PS1='bash$ '\neval \"$(agent-resume init bash)\"\n",
        )
        .unwrap();
        fs::write(
            home.join(".tmux.conf"),
            "set -g default-command \"bash -i\"\n\
             run-shell 'agent-resume init tmux | tmux source-file -'\n",
        )
        .unwrap();
        let env = env
            .with("SHELL", require("bash"))
            .with("STANDIN_RAN", root.join("ran"))
            .with(MARKER, &root);
        World(TmuxWorld::new(env, &home.join(".tmux.conf")))
    }

    fn db(&self) -> PathBuf {
        self.root()
            .join("home/.local/share/agent-resume/recordings.sqlite3")
    }

    fn cli_ok(&self, args: &[&str]) -> String {
        let out = self.cli(args).output();
        assert!(
            out.status.success(),
            "agent-resume {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A directory under `w/`.
    fn pane_dir(&self, name: &str) -> String {
        let dir = self.root().join("w").join(name);
        fs::create_dir_all(&dir).unwrap();
        dir.to_str().unwrap().to_owned()
    }

    /// Whether a `tmux save` of this world (a hook's) is running.
    fn saving(&self) -> bool {
        agent_resume_test_support::tmux::marked(MARKER, self.root())
            .iter()
            .any(|(_, cmdline)| cmdline.contains("tmux save"))
    }

    /// Waits until no hook's save has run for a while: every save the
    /// events so far started has started and ended.
    fn wait_saves_settled(&self) {
        let mut quiet = 0;
        wait_for("the hooks' `tmux save` runs to settle", || {
            quiet = if self.saving() { 0 } else { quiet + 1 };
            // 25 polls of 20 ms: half a second with no save running.
            (quiet >= 25).then_some(())
        });
    }

    /// From now on, every snapshot written is counted (see [`World::saves`]).
    fn count_saves(&self) {
        let db = rusqlite::Connection::open(self.db()).unwrap();
        db.execute_batch(
            "CREATE TABLE test_saves (saved_at INTEGER);
             CREATE TRIGGER test_count_saves AFTER INSERT ON host_layouts
             BEGIN INSERT INTO test_saves VALUES (NEW.saved_at); END;",
        )
        .unwrap();
    }

    /// Snapshots written since [`World::count_saves`].
    fn saves(&self) -> i64 {
        let db = rusqlite::Connection::open(self.db()).unwrap();
        db.query_row("SELECT count(*) FROM test_saves", [], |r| r.get(0))
            .unwrap()
    }

    /// The stable pane ids of the saved snapshot.
    fn saved_panes(&self) -> Vec<String> {
        let db = rusqlite::Connection::open(self.db()).unwrap();
        let text: String = db
            .query_row("SELECT layout FROM host_layouts", [], |r| r.get(0))
            .unwrap();
        let snap: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut ids: Vec<String> = snap["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["windows"].as_array().unwrap().iter())
            .flat_map(|w| w["panes"].as_array().unwrap().iter())
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    }

    /// The stable pane ids the server's panes hold.
    fn live_panes(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .tmux
            .ok(&["list-panes", "-a", "-F", "#{@agent_resume_pane}"])
            .lines()
            .map(str::to_owned)
            .collect();
        ids.sort();
        ids
    }

    /// A session of two windows (three panes and two) started as a user
    /// starts one, its hooks' saves settled and one explicit save made.
    fn build(&self) {
        let d = |n| self.pane_dir(n);
        let (a, b, c, e, f) = (d("a"), d("b"), d("c"), d("e"), d("f"));
        let t = &self.tmux;
        t.ok(&[
            "new-session",
            "-d",
            "-s",
            "work",
            "-x",
            "200",
            "-y",
            "60",
            "-c",
            &a,
        ]);
        t.ok(&["split-window", "-d", "-t", "=work:0", "-c", &b]);
        t.ok(&["split-window", "-d", "-t", "=work:0", "-c", &c]);
        t.ok(&["new-window", "-d", "-t", "=work:1", "-c", &e]);
        t.ok(&["split-window", "-d", "-t", "=work:1", "-c", &f]);
        self.wait_saves_settled();
        self.cli_ok(&["tmux", "save", "-L", t.socket()]);
    }

    fn set_global(&self, option: &str, value: &str) {
        self.tmux.ok(&["set-option", "-g", option, value]);
    }
}

/// A restore makes its sessions, windows and panes with the `init tmux`
/// hooks quiet and saves once at its end: exactly one snapshot is written,
/// and it holds every pane the restore made.
#[test]
fn one_restore_with_the_init_tmux_hooks_active_saves_exactly_once() {
    let w = World::new();
    w.build();
    let live = w.live_panes();
    assert_eq!(live.len(), 5, "{live:?}");
    // One agent to resume, so the restore runs as a user's does.
    let first = w.tmux.ok(&[
        "display-message",
        "-p",
        "-t",
        "=work:0.0",
        "#{@agent_resume_pane}",
    ]);
    w.cli_ok(&[
        "record",
        "--pane",
        first.trim(),
        "--agent",
        "claude",
        "--session-id",
        &uuid::Uuid::new_v4().to_string(),
        "--cwd",
        &w.pane_dir("a"),
        "--invocation",
        "claude --model opus",
    ]);
    w.cli_ok(&["tmux", "save", "-L", w.tmux.socket()]);
    w.tmux.kill_server();
    w.wait_saves_settled();
    assert_eq!(w.saved_panes(), live, "the saved snapshot holds every pane");

    w.count_saves();
    w.cli_ok(&["tmux", "restore", "-L", w.tmux.socket(), "--recreate"]);
    wait_for("the resumed claude to start", || {
        fs::read_dir(w.root().join("ran"))
            .unwrap()
            .flatten()
            .any(|e| !e.file_name().to_string_lossy().ends_with(".part"))
            .then_some(())
    });
    w.wait_saves_settled();
    assert_eq!(w.live_panes(), live, "every saved pane is back with its id");
    assert_eq!(
        w.saves(),
        1,
        "one restore of 5 panes wrote the snapshot once, not once per event"
    );
    assert_eq!(w.saved_panes(), live, "the one save holds the final layout");
}

/// A restore that died leaves `@agent_resume_restoring` set: the hooks stay
/// quiet until its deadline, then save again.
#[test]
fn a_stale_restoring_option_does_not_silence_the_hooks() {
    let w = World::new();
    w.build();
    w.count_saves();

    // A restore under way: no hook saves.
    w.set_global("@agent_resume_restoring", &(now_secs() + 600).to_string());
    w.tmux
        .ok(&["new-window", "-d", "-t", "=work:2", "-c", &w.pane_dir("g")]);
    w.wait_saves_settled();
    assert_eq!(w.saves(), 0, "a live restore keeps the hooks quiet");

    // Its deadline passed (the restore died): the next event saves.
    w.set_global("@agent_resume_restoring", &(now_secs() - 1).to_string());
    w.tmux
        .ok(&["new-window", "-d", "-t", "=work:3", "-c", &w.pane_dir("h")]);
    wait_for("a hook to save past a stale restore", || {
        (w.saves() > 0).then_some(())
    });
    w.wait_saves_settled();
    assert_eq!(
        w.saved_panes(),
        w.live_panes(),
        "that save holds every pane"
    );

    // The same for a pending save that never ran.
    let before = w.saves();
    w.set_global("@agent_resume_saving", &(now_secs() - 1).to_string());
    w.tmux
        .ok(&["new-window", "-d", "-t", "=work:4", "-c", &w.pane_dir("i")]);
    wait_for("a hook to save past a stale pending save", || {
        (w.saves() > before).then_some(())
    });
}

/// A burst of layout changes (here one tmux command list of four new
/// windows, each firing its hooks) starts one save, and that save holds
/// all of them.
#[test]
fn a_burst_of_layout_changes_starts_one_save() {
    let w = World::new();
    w.build();
    w.count_saves();
    let dirs: Vec<String> = ["p", "q", "r", "s"].map(|n| w.pane_dir(n)).into();
    let mut args: Vec<&str> = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        if i > 0 {
            args.push(";");
        }
        args.extend(["new-window", "-d", "-t", "=work:", "-c", dir]);
    }
    w.tmux.ok(&args);
    wait_for("a hook's save", || (w.saves() > 0).then_some(()));
    w.wait_saves_settled();
    assert_eq!(w.saves(), 1, "four new windows at once start one save");
    assert_eq!(
        w.saved_panes(),
        w.live_panes(),
        "that save holds every pane"
    );
}
