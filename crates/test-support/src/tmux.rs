//! A private tmux server for tests: its own socket name (`tmux -L`), no
//! config (`-f /dev/null`), its own `TMUX_TMPDIR`, killed in `Drop` and
//! polled until it is gone.
//!
//! Panes are driven as a user would: text typed with `send-keys -l`, then a
//! separate `Enter`, and the screen polled (`capture-pane -p -J`) for what
//! the shell printed — `send-keys` returns before the shell acts, so nothing
//! here sleeps a fixed time to "let it settle".
//!
//! [`Tmux::start`] is a server with no config and the test's environment;
//! [`Tmux::private`] is one whose every command (and so the server and its
//! panes) runs with exactly the environment given and a config file of the
//! test's, started by the test's first command. A
//! [`TmuxWorld`](crate::TmuxWorld) is such a server together with the
//! [`PrivateEnv`](crate::PrivateEnv) it was started with, which the binary
//! under test then runs with too.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::poll::{PATIENCE, POLL};
use crate::tool::require;

/// A running private tmux server with one anchor session; dropped, it is
/// killed and waited for.
pub struct Tmux {
    bin: PathBuf,
    socket: String,
    tmpdir: tempfile::TempDir,
    /// The config file (`-f`) a server started by this handle reads.
    config: PathBuf,
    /// When set, every tmux command runs with exactly this environment
    /// (plus `TMUX_TMPDIR`); otherwise with the test's, minus `TMUX*`.
    env: Option<Vec<(OsString, OsString)>>,
}

/// A socket name no other test (or run) uses.
fn unique_socket() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "ar-test-{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

impl Tmux {
    /// Starts a server whose first session holds an idle anchor window, so
    /// the server outlives every shell the test starts; dead panes stay
    /// (`remain-on-exit`) so their exit can be observed.
    pub fn start() -> Tmux {
        let tmux = Tmux {
            bin: require("tmux"),
            socket: unique_socket(),
            tmpdir: tempfile::tempdir().expect("a temp dir for TMUX_TMPDIR"),
            config: PathBuf::from("/dev/null"),
            env: None,
        };
        let sleep = require("sleep");
        let sleep = sleep.to_string_lossy();
        tmux.ok(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "200",
            "-y",
            "50",
            "--",
            &sleep,
            "100000",
        ]);
        tmux.ok(&["set-option", "-g", "remain-on-exit", "on"]);
        tmux.ok(&["set-option", "-g", "history-limit", "10000"]);
        tmux
    }

    /// A handle on a private server that is not started yet: the first
    /// command that creates a session starts it, reading `config`, with
    /// exactly `env` (plus `TMUX_TMPDIR`) as the server's — and so every
    /// pane's — environment. Dropped, the server is killed and waited for,
    /// as with [`Tmux::start`].
    pub fn private(config: &Path, env: Vec<(OsString, OsString)>) -> Tmux {
        Tmux {
            bin: require("tmux"),
            socket: unique_socket(),
            tmpdir: tempfile::tempdir().expect("a temp dir for TMUX_TMPDIR"),
            config: config.to_owned(),
            env: Some(env),
        }
    }

    /// The socket name (`tmux -L`).
    pub fn socket(&self) -> &str {
        &self.socket
    }

    /// The server's `TMUX_TMPDIR`: another program reaching this server by
    /// its socket name needs it in its environment.
    pub fn tmpdir(&self) -> &Path {
        self.tmpdir.path()
    }

    /// A `tmux` command aimed at this server.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.arg("-L").arg(&self.socket).arg("-f").arg(&self.config);
        match &self.env {
            Some(env) => {
                c.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
            }
            None => {
                c.env_remove("TMUX").env_remove("TMUX_PANE");
            }
        }
        c.env("TMUX_TMPDIR", self.tmpdir.path())
            .stdin(Stdio::null());
        c
    }

    /// Whether the server answers.
    pub fn running(&self) -> bool {
        self.run(&["ls"]).status.success()
    }

    /// Whether the server is gone: `ls` can no longer connect at all (it
    /// briefly answers "server exited unexpectedly" while the server goes).
    fn gone(&self) -> bool {
        let out = self.run(&["ls"]);
        let err = String::from_utf8_lossy(&out.stderr);
        !out.status.success()
            && (err.contains("no server running") || err.contains("error connecting"))
    }

    /// Kills the server (if it runs) and polls until it is gone; fails the
    /// test if it is not gone in time.
    pub fn kill_server(&self) {
        let _ = self.run(&["kill-server"]);
        let deadline = Instant::now() + PATIENCE;
        while !self.gone() {
            assert!(
                Instant::now() < deadline,
                "tmux server {} is still running after kill-server",
                self.socket
            );
            std::thread::sleep(POLL);
        }
    }

    /// Runs a tmux command; its output.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.command()
            .args(args)
            .output()
            .expect("tmux can be started")
    }

    /// Runs a tmux command that must succeed; its stdout.
    ///
    /// A command tmux refuses with `no current client` did nothing (tmux
    /// fails it while looking up its target, before acting). Seen once in
    /// three loaded runs with tmux 3.3a, right after a control-mode client
    /// detached although `list-clients` was already empty; the likely
    /// cause is the leaving client still on tmux's list. Such a command is
    /// sent again, for up to [`PATIENCE`]; any other failure fails at once.
    pub fn ok<S: AsRef<OsStr>>(&self, args: &[S]) -> String {
        let started = Instant::now();
        let mut out = self.run(args);
        while !out.status.success()
            && out.stderr.starts_with(b"no current client")
            && started.elapsed() < PATIENCE
        {
            std::thread::sleep(POLL);
            out = self.run(args);
        }
        let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_owned()).collect();
        assert!(
            out.status.success(),
            "tmux {shown:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Opens a window running `argv` (no shell in between) in `cwd`; its
    /// pane id (`%N`).
    pub fn spawn<S: AsRef<OsStr>>(&self, cwd: &Path, argv: &[S]) -> String {
        let mut args: Vec<&OsStr> = [
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-t",
            "t:",
            "-c",
        ]
        .iter()
        .map(OsStr::new)
        .collect();
        args.push(cwd.as_os_str());
        args.push(OsStr::new("--"));
        args.extend(argv.iter().map(AsRef::as_ref));
        self.ok(&args).trim().to_owned()
    }

    /// Types `text` into `pane` and presses Enter. Text typed into a line
    /// editor must hold no control character (TAB completes, CR/NL submit).
    pub fn type_line(&self, pane: &str, text: &str) {
        assert!(
            !text.chars().any(char::is_control),
            "typed text must hold no control character: {text:?}"
        );
        if !text.is_empty() {
            self.ok(&["send-keys", "-t", pane, "-l", "--", text]);
        }
        self.ok(&["send-keys", "-t", pane, "Enter"]);
    }

    /// The pane's whole text (scrollback included), wrapped lines joined.
    pub fn screen(&self, pane: &str) -> String {
        self.ok(&["capture-pane", "-p", "-J", "-S", "-", "-t", pane])
    }

    /// One format value of `pane` (`#{pane_dead}`, …).
    pub fn pane_format(&self, pane: &str, format: &str) -> String {
        self.ok(&["display-message", "-p", "-t", pane, format])
            .trim()
            .to_owned()
    }

    /// Polls the screen of `pane` until `done` holds; the screen then. On
    /// timeout the test fails naming `what` and showing the screen.
    pub fn wait_screen(&self, pane: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen(pane);
            if done(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what} in pane {pane}; the screen:\n{screen}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Waits until the process in `pane` has exited; its exit status.
    pub fn wait_dead(&self, pane: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        while self.pane_format(pane, "#{pane_dead}") != "1" {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for pane {pane} to exit; the screen:\n{}",
                self.screen(pane)
            );
            std::thread::sleep(POLL);
        }
        self.pane_format(pane, "#{pane_dead_status}")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        // `ls` briefly answers "server exited unexpectedly" while the server
        // goes; gone is when it can no longer connect at all.
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.gone() {
                return;
            }
            std::thread::sleep(POLL);
        }
        if !std::thread::panicking() {
            panic!(
                "tmux server {} is still running after kill-server",
                self.socket
            );
        }
    }
}

/// `PATH` for a test world: its own `bin` under `root` (the stand-in
/// agents) first, then the folder of the agent-resume under test, then the
/// system's.
pub fn world_path(root: &Path, agent_resume: &Path) -> OsString {
    std::env::join_paths([
        root.join("bin"),
        agent_resume
            .parent()
            .expect("the binary's folder")
            .to_owned(),
        PathBuf::from("/usr/local/bin"),
        PathBuf::from("/usr/bin"),
        PathBuf::from("/bin"),
    ])
    .expect("a PATH")
}

/// Every process whose environment holds `marker=value` (a test world's
/// own variable, so another test's processes are never counted), with its
/// command line, words joined by spaces.
pub fn marked(marker: &str, value: &Path) -> Vec<(u32, String)> {
    let mut needle = format!("{marker}=").into_bytes();
    needle.extend_from_slice(value.as_os_str().as_encoded_bytes());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("reads /proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|kv| kv == needle.as_slice()) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
        }
    }
    found
}

/// The interactive shells these tests drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sh {
    /// GNU bash.
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
}

impl Sh {
    /// The program name.
    pub fn name(self) -> &'static str {
        match self {
            Sh::Bash => "bash",
            Sh::Zsh => "zsh",
            Sh::Fish => "fish",
        }
    }

    /// The history file each shell writes under its `HOME`.
    pub fn history(self) -> &'static str {
        match self {
            Sh::Bash => ".bash_history",
            Sh::Zsh => ".zsh_history",
            Sh::Fish => ".local/share/fish/fish_history",
        }
    }
}
