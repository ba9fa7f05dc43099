//! Capture at an agent's launch: a real tmux server with no `init tmux`
//! hooks (so no save ever runs), bash panes whose `.bashrc` loads `init
//! bash`, and stand-in agents first on `PATH` that write their session a
//! moment after they start, as the real CLIs do. The shell integration's
//! `note` starts the background scan of the pane; the pane is recorded
//! within its bound with nothing else happening.
//!
//! A missing tmux, bash, sh, sleep or setsid fails the test naming it.
//!
//! OpenCode writes its session row only at the first prompt: its test waits
//! past the capture's first half minute for real (the one way to prove the
//! background capture still holds then), about 35 s.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use agent_resume_test_support::{require, wait_for, PrivateEnv, TmuxWorld};

/// The environment variable marking every process of a world.
const MARKER: &str = "AGENT_RESUME_TEST_LAUNCH";

const STANDIN: &str = r#"#!/bin/sh
# A stand-in agent: writes what the real CLI writes, a moment after it
# starts, then waits.
name=$(basename "$0")
id="$STANDIN_ID"
case "$name" in
claude)
  sleep 2
  mkdir -p "$HOME/.claude/sessions"
  printf '{"pid":%s,"sessionId":"%s","cwd":"%s","kind":"interactive"}\n' $$ "$id" "$PWD" \
    > "$HOME/.claude/sessions/$$.json" ;;
codex)
  case "$1" in
  --version) echo "codex-cli 0.171.0"; exit 0 ;;
  app-server)
    # The shared daemon of the default config: it writes and holds the
    # rollout; the TUI holds nothing.
    echo $$ > "$STANDIN_RAN/codex-daemon.pid"
    sleep 2
    d="$HOME/.codex/sessions/2026/12/01"
    mkdir -p "$d"
    f="$d/rollout-2026-12-01T05-30-00-$id.jsonl"
    printf '{"timestamp":"2026-12-01T05:30:00.000Z","type":"session_meta","payload":{"id":"%s","session_id":"%s","timestamp":"2026-12-01T05:30:00.000Z","cwd":"%s","originator":"codex_cli_rs","cli_version":"0.171.0","source":"cli"}}\n' \
      "$id" "$id" "$PWD" > "$f"
    exec 8>>"$f"
    sleep 86400 8>&-
    exit 0 ;;
  esac
  daemon="$HOME/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex"
  mkdir -p "$(dirname "$daemon")"
  cp "$0" "$daemon"
  setsid "$daemon" app-server --listen unix:// --analytics-default-enabled --managed-daemon \
    </dev/null >/dev/null 2>&1 & ;;
esac
echo "[stand-in $name] ready"
sleep 86400
"#;

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// A UUID v7 stamped now.
fn v7() -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    format!(
        "{:08x}-{:04x}-7abc-8def-0123456789ab",
        ms >> 16,
        ms & 0xffff
    )
}

/// A user's world: the stand-ins in `root/bin` first on `PATH`, a
/// `.bashrc` loading `init bash`, [`MARKER`] on every process, and a tmux
/// server with no config (no hooks: nothing saves).
struct World(TmuxWorld);

impl std::ops::Deref for World {
    type Target = TmuxWorld;
    fn deref(&self) -> &TmuxWorld {
        &self.0
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // The stand-in daemon leads a session (and group) of its own: tmux
        // does not end it, nor its `sleep`.
        if let Ok(pid) = fs::read_to_string(self.root().join("ran/codex-daemon.pid")) {
            let group = format!("-{}", pid.trim());
            let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        }
    }
}

impl World {
    fn new() -> World {
        for tool in ["tmux", "bash", "sh", "sleep", "setsid"] {
            require(tool);
        }
        let env = PrivateEnv::user(agent_resume());
        let root = env.root().to_owned();
        fs::create_dir_all(root.join("ran")).unwrap();
        for name in ["claude", "codex", "opencode"] {
            let p = root.join("bin").join(name);
            fs::write(&p, STANDIN).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::write(
            env.home().join(".bashrc"),
            "PS1='bash$ '\neval \"$(agent-resume init bash)\"\n",
        )
        .unwrap();
        let env = env
            .with("STANDIN_RAN", root.join("ran"))
            .with(MARKER, &root);
        let world = TmuxWorld::new(env, Path::new("/dev/null"));
        world.tmux.ok(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "200",
            "-y",
            "50",
            "--",
            "sleep",
            "100000",
        ]);
        World(world)
    }

    fn db(&self) -> PathBuf {
        self.root()
            .join("home/.local/share/agent-resume/recordings.sqlite3")
    }

    fn cli(&self, args: &[&str]) -> String {
        let out = self.0.cli(args).output();
        assert!(
            out.status.success(),
            "agent-resume {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A lone bash pane (integration loaded) in `w/<dir>` with `line`
    /// typed at its prompt.
    fn run(&self, dir: &str, line: &str) -> String {
        let cwd = self.root().join("w").join(dir);
        fs::create_dir_all(&cwd).unwrap();
        let pane = self.tmux.spawn(&cwd, &["bash", "-i"]);
        self.tmux
            .wait_screen(&pane, "a bash prompt", |s| s.contains("bash$"));
        self.tmux.type_line(&pane, line);
        pane
    }

    /// The recording of tmux pane `pane` (`%N`): (agent, id).
    fn recording(&self, pane: &str) -> Option<(String, String)> {
        let id = self.tmux.pane_format(pane, "#{@agent_resume_pane}");
        let rows: Vec<serde_json::Value> =
            serde_json::from_str(&self.cli(&["recordings", "--json"])).unwrap();
        rows.iter()
            .find(|r| r["pane"].as_str() == Some(id.as_str()))
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
                (s("agent"), s("session_id"))
            })
    }

    /// Snapshots any save wrote (a host save always writes one).
    fn snapshots(&self) -> i64 {
        let db = rusqlite::Connection::open(self.db()).unwrap();
        db.query_row("SELECT count(*) FROM host_layouts", [], |r| r.get(0))
            .unwrap()
    }

    /// The world's background captures still running.
    fn watching(&self) -> Vec<(u32, String)> {
        agent_resume_test_support::tmux::marked(MARKER, self.root())
            .into_iter()
            .filter(|(_, cmdline)| cmdline.contains("capture launch"))
            .collect()
    }
}

#[test]
fn an_agent_started_in_a_lone_pane_is_recorded_within_seconds_with_no_save() {
    let w = World::new();
    let id = "3c1f5d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f";
    let pane = w.run("claude", &format!("STANDIN_ID={id} claude --model opus"));
    let got = wait_for("the pane's recording", || w.recording(&pane));
    assert_eq!(got, ("claude".to_owned(), id.to_owned()));
    assert_eq!(w.snapshots(), 0, "no host save ran");
    // Recorded, the background capture ends.
    wait_for("the background capture to end", || {
        w.watching().is_empty().then_some(())
    });
}

/// With the default `install-hooks codex` (its daemon on) Codex's hooks
/// never name a lone pane's session before a prompt is sent; the launch
/// capture records it from the store (correlation), as a save would.
#[test]
fn a_codex_started_in_a_lone_pane_with_the_default_hooks_is_recorded_with_no_save() {
    let w = World::new();
    w.cli(&["install-hooks", "codex"]);
    let id = v7();
    let pane = w.run("codex", &format!("STANDIN_ID={id} codex -m gpt-5"));
    let got = wait_for("the pane's recording", || w.recording(&pane));
    assert_eq!(got, ("codex".to_owned(), id));
    assert_eq!(w.snapshots(), 0, "no host save ran");
}

/// OpenCode's session row is written at the first prompt, which may come
/// long after launch: the background capture holds past its first half
/// minute and records the pane once the row appears.
#[test]
fn an_opencode_whose_first_prompt_comes_after_half_a_minute_is_recorded_when_its_row_appears() {
    const SES: &str = "ses_dbb8e5307ffeL7B04j7BArXAEA";
    let w = World::new();
    let pane = w.run("oc", "opencode -m stub/gpt-4o");
    let started = std::time::Instant::now();
    std::thread::sleep(std::time::Duration::from_secs(33));
    assert_eq!(w.recording(&pane), None, "no row, no recording");
    assert_eq!(w.watching().len(), 1, "the capture holds past its waits");
    // The first prompt: OpenCode writes its session row.
    let data = w.root().join("home/.local/share/opencode");
    fs::create_dir_all(&data).unwrap();
    let db = rusqlite::Connection::open(data.join("opencode.db")).unwrap();
    db.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL, \
         title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL)",
    )
    .unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let cwd = fs::canonicalize(w.root().join("w/oc")).unwrap();
    db.execute(
        "INSERT INTO session VALUES (?1, NULL, ?2, 'hi', ?3, ?3)",
        rusqlite::params![SES, cwd.to_str().unwrap(), now],
    )
    .unwrap();
    drop(db);
    let got = wait_for("the pane's recording", || w.recording(&pane));
    assert_eq!(got, ("opencode".to_owned(), SES.to_owned()));
    assert!(started.elapsed().as_secs() >= 33);
    assert_eq!(w.snapshots(), 0, "no host save ran");
    wait_for("the background capture to end", || {
        w.watching().is_empty().then_some(())
    });
}

/// `note` returns at once: a shell reading its output through a pipe (as
/// bash's PS0 command substitution does) is not held while the background
/// capture runs.
#[test]
fn note_returns_while_its_background_capture_runs_holding_none_of_its_pipes() {
    let w = World::new();
    let mut shell = Command::new(require("sleep"))
        .arg("600")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut note = w.env.command(&[
        "note",
        "--pane",
        "6f9619ff-8b86-d011-b42d-00c04fc964ff",
        "--shell",
        "bash",
        "--shell-pid",
        &shell.id().to_string(),
    ]);
    note.stdin(Stdio::piped());
    let mut child = note
        .inner()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"claude --model opus\n")
        .unwrap();
    // Reads stdout and stderr to their end: returns only once no process
    // holds them.
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let running = w.watching();
    let _ = shell.kill();
    shell.wait().unwrap();
    assert_eq!(running.len(), 1, "one background capture: {running:?}");
    // No agent shows: it ends on its own.
    wait_for("the background capture to end", || {
        w.watching().is_empty().then_some(())
    });
}
