//! The tmux host end to end: real tmux on a private socket and
//! `TMUX_TMPDIR`, real bash, zsh and fish with the shell integration loaded
//! from their rc files in a private `HOME`, and stand-in `claude`, `codex`
//! and `gemini` programs first on `PATH`.
//!
//! The stand-ins (small `sh` scripts, not the real agents) report a new
//! conversation's id through `agent-resume hook` exactly as the real agents'
//! hook configurations do — claude and gemini a `SessionStart` JSON payload
//! on stdin, codex a `notify` JSON payload as the last argument — then write
//! what they ran with (agent, `AGENT_RESUME_PANE`, directory, reported id,
//! argv) to a file of their own and `exec sleep`, so each one lives exactly
//! as long as its pane.
//!
//! The world is built as a user would: sessions, windows and split panes;
//! agent commands typed at each shell's prompt; a client attached to the
//! session that should land; `agent-resume tmux save`; the server killed;
//! `agent-resume tmux restore --recreate`. What comes back is read from what
//! the stand-ins received, the panes' screens, the shells' history files, the
//! telemetry file and the database — never from timing.
//!
//! Every server is killed in `Drop` and polled until gone; every process
//! the test started carries a marker in its environment, and each test ends
//! by polling until none is left (a leak fails the test). A missing tmux,
//! bash, zsh or fish fails the test naming it.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agent_resume_test_support::tmux::{Sh, Tmux};
use agent_resume_test_support::{require, wait_for, PrivateEnv, TmuxWorld};
use serde_json::Value;

/// The claude session id two panes claim, as the scenario writes it;
/// each world types its own fresh id in its place ([`World::shared_id`]).
const SHARED_ID: &str = "3c1f5d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f";

/// Twelve hours and a minute, in milliseconds: past the posture window.
const STALE_BY_MS: i64 = (12 * 60 + 1) * 60 * 1000;

const CLAUDE: &str = include_str!("standins/claude");

const CODEX: &str = include_str!("standins/codex");

const GEMINI: &str = include_str!("standins/gemini");

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// The prompt each rc file sets, as `capture-pane` shows it.
fn prompt(sh: Sh) -> &'static str {
    match sh {
        Sh::Bash => "bash$",
        Sh::Zsh => "zsh%",
        Sh::Fish => "fish>",
    }
}

/// What each pane of the scenario is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    /// claude with posture flags, claiming [`SHARED_ID`], in the landing
    /// session's current window's active pane.
    Winner,
    /// codex with allowlisted flags (one of them posture).
    Codex,
    /// gemini with a model.
    Gemini,
    /// A bash shell where nothing ran.
    PlainBash,
    /// claude claiming [`SHARED_ID`] too, started later, in the focused
    /// pane of a session that does not land.
    Loser,
    /// claude in a directory deleted before the restart.
    DirGone,
    /// claude with `--dangerously-skip-permissions`, recorded more than
    /// 12 h before the restart.
    Stale,
    /// A zsh shell where nothing ran.
    PlainZsh,
    /// Another bash shell where nothing ran, filling a window.
    Filler(u32),
}

/// One pane of the scenario: where it sits, its shell, its directory and
/// what is typed into it.
struct Spec {
    role: Role,
    session: &'static str,
    window: u32,
    index: u32,
    shell: Sh,
    dir: &'static str,
    typed: Option<&'static str>,
}

/// The scenario. Session `alpha` lands (a client attached to it last);
/// in each session window 0 is current and each window's pane 0 is active.
fn specs() -> Vec<Spec> {
    let s = |role, session, window, index, shell, dir, typed| Spec {
        role,
        session,
        window,
        index,
        shell,
        dir,
        typed,
    };
    vec![
        s(
            Role::Winner,
            "alpha",
            0,
            0,
            Sh::Bash,
            "alpha-claude",
            Some(concat!(
                "CLAUDE_STANDIN_ID=3c1f5d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f ",
                "claude --model opus --permission-mode acceptEdits 'a prompt'"
            )),
        ),
        s(
            Role::Codex,
            "alpha",
            0,
            1,
            Sh::Zsh,
            "alpha-codex",
            Some("codex -m gpt-5 -s workspace-write"),
        ),
        s(
            Role::Gemini,
            "alpha",
            1,
            0,
            Sh::Fish,
            "alpha-gemini",
            Some("gemini -m gemini-2.5-pro"),
        ),
        s(
            Role::PlainBash,
            "alpha",
            1,
            1,
            Sh::Bash,
            "alpha-plain",
            None,
        ),
        s(
            Role::Loser,
            "beta",
            0,
            0,
            Sh::Bash,
            "beta-claude",
            Some("CLAUDE_STANDIN_ID=3c1f5d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f claude --model sonnet"),
        ),
        s(
            Role::DirGone,
            "beta",
            0,
            1,
            Sh::Zsh,
            "scratch",
            Some("claude --model haiku"),
        ),
        s(
            Role::Stale,
            "beta",
            1,
            0,
            Sh::Fish,
            "beta-stale",
            Some("claude --dangerously-skip-permissions --model opus"),
        ),
        s(Role::PlainZsh, "beta", 1, 1, Sh::Zsh, "beta-plain", None),
    ]
}

/// What one stand-in run wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ran {
    /// The stand-in's process id (its `sleep` keeps it).
    pid: u32,
    agent: String,
    /// `AGENT_RESUME_PANE` (`-` when unset: panes the user opened).
    pane_env: String,
    cwd: PathBuf,
    /// The id it reported (`-` when it was resumed and reported none).
    reported: String,
    argv: Vec<String>,
}

/// A pane of a running server.
#[derive(Clone, Debug)]
struct Live {
    session: String,
    window: u32,
    index: u32,
    target: String,
    stable: String,
    pid: u32,
    active: bool,
    window_active: bool,
}

/// One test's world: a temporary root holding the private `HOME` (rc files,
/// database, telemetry, history), the stand-ins, their run files and the
/// pane directories; and a private tmux server started with exactly the
/// world's environment.
struct World {
    /// The server and the environment it, its panes and the binary run
    /// with: a user's world ([`PrivateEnv::user`]) with `SHELL`, the
    /// stand-ins' run files (`STANDIN_RAN`) and [`MARKER`].
    world: TmuxWorld,
    /// The id both claude panes claim, typed where the scenario says
    /// [`SHARED_ID`]: fresh for each world, because restore skips an id any
    /// live process on the machine holds (`already_running`) and other
    /// tests resume their stand-ins at the same time.
    shared_id: String,
}

impl std::ops::Deref for World {
    type Target = TmuxWorld;
    fn deref(&self) -> &TmuxWorld {
        &self.world
    }
}

impl World {
    fn new() -> World {
        World::with_env(&[])
    }

    /// A world whose tmux server (and so every pane) also has `extra` in its
    /// environment, as when tmux is started from an outer terminal.
    fn with_env(extra: &[(&str, &str)]) -> World {
        for tool in ["tmux", "bash", "zsh", "fish", "sleep", "sh"] {
            require(tool);
        }
        let env = PrivateEnv::user(agent_resume());
        let root = env.root().to_owned();
        assert!(
            !root.to_string_lossy().contains(['\'', '"', ' ', '\\']),
            "temp paths are written into rc files and JSON unquoted: {root:?}"
        );
        let home = env.home();
        for d in [
            home.join(".config/fish"),
            // fish skips its background man-page scan (a python process
            // that would outlive the server) when this exists.
            home.join(".local/share/fish/generated_completions"),
            root.join("ran"),
            root.join("w"),
        ] {
            fs::create_dir_all(d).expect("mkdir");
        }
        for (name, text) in [("claude", CLAUDE), ("codex", CODEX), ("gemini", GEMINI)] {
            let p = root.join("bin").join(name);
            fs::write(&p, text).expect("writes a stand-in");
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        // Each shell's integration comes from its own rc file, as a user
        // installs it; history is written as each line is accepted (zsh,
        // fish) or at each prompt (bash), so the files can be read live.
        fs::write(
            home.join(".bashrc"),
            "PS1='bash$ '\nHISTFILE=~/.bash_history\nPROMPT_COMMAND='history -a'\n\
             eval \"$(agent-resume init bash)\"\n",
        )
        .expect("writes .bashrc");
        fs::write(
            home.join(".zshrc"),
            "PS1='zsh%% '\nHISTFILE=~/.zsh_history\nHISTSIZE=1000\nSAVEHIST=1000\n\
             setopt INC_APPEND_HISTORY\neval \"$(agent-resume init zsh)\"\n",
        )
        .expect("writes .zshrc");
        fs::write(
            home.join(".config/fish/config.fish"),
            "function fish_prompt\n    printf 'fish> '\nend\nfunction fish_greeting\nend\n\
             agent-resume init fish | source\n",
        )
        .expect("writes config.fish");
        fs::write(
            home.join(".tmux.conf"),
            "set -g default-command \"bash -i\"\n\
             run-shell 'agent-resume init tmux | tmux source-file -'\n",
        )
        .expect("writes .tmux.conf");

        let mut env = env
            .with("SHELL", require("bash"))
            .with("STANDIN_RAN", root.join("ran"))
            .with(MARKER, &root);
        for (k, v) in extra {
            env.set(k, v);
        }
        World {
            world: TmuxWorld::new(env, &home.join(".tmux.conf")),
            shared_id: uuid::Uuid::new_v4().to_string(),
        }
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn db(&self) -> PathBuf {
        self.home()
            .join(".local/share/agent-resume/recordings.sqlite3")
    }

    fn telemetry(&self) -> PathBuf {
        self.home()
            .join(".local/state/agent-resume/telemetry.jsonl")
    }

    fn pane_dir(&self, spec: &Spec) -> PathBuf {
        self.root().join("w").join(spec.dir)
    }

    /// `agent-resume` with the world's environment, `AGENT_RESUME` set to
    /// `flag`, reaching the world's tmux server by socket name.
    fn cli<S: AsRef<OsStr>>(&self, flag: &str, args: &[S]) -> Output {
        self.world.cli(args).env("AGENT_RESUME", flag).output()
    }

    fn cli_ok<S: AsRef<OsStr>>(&self, flag: &str, args: &[S]) -> (String, String) {
        let out = self.cli(flag, args);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert!(
            out.status.success(),
            "agent-resume {:?} failed:\n{}{}",
            args.iter()
                .map(|a| a.as_ref().to_owned())
                .collect::<Vec<_>>(),
            text(&out.stdout),
            text(&out.stderr)
        );
        (text(&out.stdout), text(&out.stderr))
    }

    /// Every stand-in run so far, by its file name.
    fn runs(&self) -> BTreeMap<String, Ran> {
        let mut out = BTreeMap::new();
        for entry in fs::read_dir(self.root().join("ran")).expect("reads ran/") {
            let entry = entry.expect("a ran/ entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".part") {
                continue;
            }
            let text = fs::read_to_string(entry.path()).expect("reads a run file");
            let mut lines = text.lines().map(str::to_owned);
            let mut next = || lines.next().expect("a complete run file");
            let pid = name
                .rsplit('.')
                .next()
                .and_then(|p| p.parse().ok())
                .unwrap_or_else(|| panic!("a run file named <agent>.<pid>: {name}"));
            let ran = Ran {
                pid,
                agent: next(),
                pane_env: next(),
                cwd: PathBuf::from(next()),
                reported: next(),
                argv: lines.collect(),
            };
            out.insert(name, ran);
        }
        out
    }

    /// Every pane of the running server.
    fn live(&self) -> Vec<Live> {
        let text = self.tmux.ok(&[
            "list-panes",
            "-a",
            "-F",
            "#{session_name}\t#{window_index}\t#{pane_index}\t#{pane_id}\t\
             #{@agent_resume_pane}\t#{pane_pid}\t#{pane_active}\t#{window_active}",
        ]);
        text.lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert_eq!(f.len(), 8, "a list-panes line: {l:?}");
                Live {
                    session: f[0].to_owned(),
                    window: f[1].parse().unwrap(),
                    index: f[2].parse().unwrap(),
                    target: f[3].to_owned(),
                    stable: f[4].to_owned(),
                    pid: f[5].parse().unwrap(),
                    active: f[6] == "1",
                    window_active: f[7] == "1",
                }
            })
            .collect()
    }

    /// Waits until the last non-empty line of `target`'s screen is `sh`'s
    /// prompt alone: the shell sourced its rc file, ran its first-prompt
    /// hooks and waits for input.
    fn wait_prompt(&self, target: &str, sh: Sh, what: &str) -> String {
        self.tmux
            .wait_screen(target, &format!("{what}: the {} prompt", sh.name()), |s| {
                s.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| l.trim_end() == prompt(sh))
            })
    }

    /// The process ids of every process that carries this world's marker.
    fn ours(&self) -> Vec<(u32, String)> {
        agent_resume_test_support::tmux::marked(MARKER, self.root())
    }

    /// Waits until no `agent-resume tmux save` started by the world's tmux
    /// hooks is running: the snapshot stops moving.
    fn wait_saves_settled(&self) {
        wait_for("the hooks' background `tmux save` runs to finish", || {
            self.ours()
                .iter()
                .all(|(_, cmd)| !cmd.contains("tmux save"))
                .then_some(())
        });
    }

    /// The saved tmux snapshot, as stored.
    fn snapshot_text(&self) -> String {
        let db = rusqlite::Connection::open_with_flags(
            self.db(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("opens the database");
        db.query_row(
            "SELECT layout FROM host_layouts WHERE host = ?1",
            [format!("tmux:{}", self.tmux.socket())],
            |r| r.get(0),
        )
        .expect("a saved tmux snapshot")
    }

    /// `(pane, session id)` of every recording.
    fn recordings(&self) -> BTreeMap<String, String> {
        let db = rusqlite::Connection::open_with_flags(
            self.db(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("opens the database");
        let mut st = db
            .prepare("SELECT pane, session_id FROM agent_sessions")
            .unwrap();
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<BTreeMap<String, String>, _>>()
            .unwrap();
        rows
    }

    /// The panes with an armed line.
    fn armed(&self) -> Vec<String> {
        let db = rusqlite::Connection::open_with_flags(
            self.db(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("opens the database");
        let mut st = db.prepare("SELECT pane FROM armed").unwrap();
        let rows = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<Vec<String>, _>>()
            .unwrap();
        rows
    }

    /// Every telemetry event as `(agent, outcome, posture_carried)`, sorted.
    fn events(&self) -> Vec<(String, String, bool)> {
        let text = match fs::read_to_string(self.telemetry()) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => panic!("cannot read the telemetry file: {e}"),
        };
        let mut events: Vec<_> = text
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("a telemetry line is JSON");
                (
                    v["agent"].as_str().expect("agent").to_owned(),
                    v["outcome"].as_str().expect("outcome").to_owned(),
                    v["posture_carried"].as_bool().expect("posture_carried"),
                )
            })
            .collect();
        events.sort();
        events
    }

    /// Polls until no process this world started is left — shells,
    /// stand-ins (their `sleep`), hook runs — once its server is gone.
    fn wait_all_gone(&self) {
        let mut last = Vec::new();
        let gone = (0..600).any(|_| {
            last = self.ours();
            if last.is_empty() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            false
        });
        assert!(
            gone,
            "processes started by the test outlived its tmux server: {last:?}"
        );
    }

    /// Kills the server and checks that nothing the world started is left.
    fn finish(self) {
        // The marker lookup the checks of no process left rely on does find
        // this world's processes (its server at least) while they run.
        if self.tmux.running() {
            assert!(
                !self.ours().is_empty(),
                "no process of this world found by its marker while its server runs"
            );
        }
        self.tmux.kill_server();
        self.wait_all_gone();
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // On a failed test: no server (the harness kills it) and no process
        // of this world — each one ours by the marker in its environment,
        // ended by its id — outlives it.
        if std::thread::panicking() {
            self.tmux.kill_server();
            for (pid, _) in self.ours() {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
    }
}

/// The environment variable marking every process a world starts.
const MARKER: &str = "AGENT_RESUME_E2E_WORLD";

/// The scenario, built and saved: what the test needs to know about it.
struct Built {
    /// Stable pane id of each role.
    stable: BTreeMap<Role, String>,
    /// The session id each agent pane's stand-in reported.
    reported: BTreeMap<Role, String>,
    /// The stand-in runs before the restart.
    runs_before: BTreeMap<String, Ran>,
}

/// Builds the scenario on the world's server, as a user would, saves it,
/// deletes the scratch directory, kills the server, and backdates the
/// stale pane's recording.
fn build_and_kill(w: &World, specs: &[Spec]) -> Built {
    for spec in specs {
        fs::create_dir_all(w.pane_dir(spec)).expect("mkdir a pane directory");
    }
    // Sessions (sized as a roomy terminal), windows and split panes, tiled
    // as they are split; `-d` keeps window 0 current and pane 0 active
    // everywhere.
    let mut target: BTreeMap<Role, String> = BTreeMap::new();
    for spec in specs {
        let dir = w.pane_dir(spec);
        let dir = dir.to_str().expect("a UTF-8 temp path");
        let shell = require(spec.shell.name());
        let shell = shell.to_str().expect("a UTF-8 shell path");
        let place = format!("={}:{}", spec.session, spec.window);
        let mut args: Vec<&str> = match (spec.window, spec.index) {
            (0, 0) => vec![
                "new-session",
                "-d",
                "-s",
                spec.session,
                "-x",
                "200",
                "-y",
                "60",
            ],
            (_, 0) => vec!["new-window", "-d", "-t", &place],
            _ => vec!["split-window", "-d", "-t", &place],
        };
        args.extend(["-P", "-F", "#{pane_id}", "-c", dir]);
        // bash panes run the server's default command (`bash -i`, from
        // .tmux.conf); zsh and fish are named.
        if spec.shell != Sh::Bash {
            args.push(shell);
        }
        let t = w.tmux.ok(&args).trim().to_owned();
        if spec.index > 0 {
            w.tmux.ok(&["select-layout", "-t", &place, "tiled"]);
        }
        target.insert(spec.role, t);
    }
    // A client attaches to `alpha` and leaves: `alpha` is the session
    // attached last, so it lands; `beta` was never attached.
    let mut client = w
        .tmux
        .command()
        .args(["-C", "attach-session", "-t", "=alpha"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("a control-mode client");
    wait_for("the client to attach to alpha", || {
        (w.tmux
            .ok(&[
                "display-message",
                "-p",
                "-t",
                "=alpha:",
                "#{session_attached}",
            ])
            .trim()
            == "1")
            .then_some(())
    });
    let mut stdin = client.stdin.take().expect("the client's stdin");
    stdin
        .write_all(b"detach-client\n")
        .expect("detaches the client");
    drop(stdin);
    client.wait().expect("the client exits");
    wait_for("the client to detach from alpha", || {
        (w.tmux
            .ok(&[
                "display-message",
                "-p",
                "-t",
                "=alpha:",
                "#{session_attached}",
            ])
            .trim()
            == "0")
            .then_some(())
    });
    // The session lets go of the client before the client is gone; a
    // command sent in between can find the leaving client and fail with
    // "no current client".
    wait_for("the detached client to be gone", || {
        w.tmux.ok(&["list-clients"]).trim().is_empty().then_some(())
    });

    for spec in specs {
        w.wait_prompt(&target[&spec.role], spec.shell, &format!("{:?}", spec.role));
    }
    // The winner reports its id first and the loser later: the landing
    // session, not the newer observation, decides the claim.
    for spec in specs {
        let Some(typed) = spec.typed else { continue };
        let before = w.runs().len();
        w.tmux
            .type_line(&target[&spec.role], &typed.replace(SHARED_ID, &w.shared_id));
        wait_for(&format!("the {:?} stand-in to report", spec.role), || {
            (w.runs().len() > before).then_some(())
        });
    }
    let runs_before = w.runs();
    let mut reported = BTreeMap::new();
    for spec in specs.iter().filter(|s| s.typed.is_some()) {
        let dir = w.pane_dir(spec);
        let run = runs_before
            .values()
            .find(|r| r.cwd == dir)
            .unwrap_or_else(|| panic!("no stand-in ran for {:?}: {runs_before:#?}", spec.role));
        assert_eq!(
            run.pane_env, "-",
            "a pane the user opened has no AGENT_RESUME_PANE"
        );
        assert_ne!(
            run.reported, "-",
            "{:?} reported a new conversation",
            spec.role
        );
        reported.insert(spec.role, run.reported.clone());
    }
    for role in [Role::Winner, Role::Loser] {
        if let Some(id) = reported.get(&role) {
            assert_eq!(id, &w.shared_id, "{role:?} claims the shared id");
        }
    }

    w.wait_saves_settled();
    w.cli_ok("1", &["tmux", "save", "-L", w.tmux.socket()]);
    let mut stable = BTreeMap::new();
    for spec in specs {
        let id = w
            .tmux
            .ok(&[
                "display-message",
                "-p",
                "-t",
                &target[&spec.role],
                "#{@agent_resume_pane}",
            ])
            .trim()
            .to_owned();
        assert_eq!(
            id.len(),
            36,
            "{:?} has a stable id after a save: {id:?}",
            spec.role
        );
        stable.insert(spec.role, id);
    }
    assert_eq!(
        stable.values().collect::<BTreeSet<_>>().len(),
        specs.len(),
        "stable ids are distinct: {stable:?}"
    );
    // What capture stored: one recording per agent pane, under its stable
    // id, with the id its agent reported.
    let recorded = w.recordings();
    let expected: BTreeMap<String, String> = reported
        .iter()
        .map(|(role, id)| (stable[role].clone(), id.clone()))
        .collect();
    assert_eq!(
        recorded, expected,
        "recordings by pane (stable ids {stable:?})"
    );

    // What the snapshot holds: every pane with its shell, and `alpha`
    // attached more recently than `beta`.
    let snap_text = w.snapshot_text();
    let snap: Value = serde_json::from_str(&snap_text).expect("the snapshot is JSON");
    let sessions = snap["sessions"].as_array().expect("sessions");
    let last_attached = |name: &str| {
        sessions
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["last_attached"].as_i64())
            .unwrap_or_else(|| panic!("session {name} in the snapshot: {snap_text}"))
    };
    if specs.iter().any(|s| s.session == "beta") {
        assert!(
            last_attached("alpha") > last_attached("beta"),
            "alpha was attached last: {snap_text}"
        );
    }
    for spec in specs {
        let pane = sessions
            .iter()
            .flat_map(|s| s["windows"].as_array().into_iter().flatten())
            .flat_map(|w| w["panes"].as_array().into_iter().flatten())
            .find(|p| p["id"] == stable[&spec.role].as_str())
            .unwrap_or_else(|| panic!("{:?} in the snapshot: {snap_text}", spec.role));
        assert_eq!(
            pane["shell"],
            spec.shell.name(),
            "the snapshot keeps {:?}'s shell: {snap_text}",
            spec.role
        );
    }

    // The restart: the scratch directory goes, then the server dies.
    if let Some(gone) = specs.iter().find(|s| s.role == Role::DirGone) {
        fs::remove_dir_all(w.pane_dir(gone)).expect("deletes the scratch directory");
    }
    w.tmux.kill_server();
    // Every shell and stand-in ends with its pane (bash and fish write
    // their history as they go); nothing of the world runs any more.
    w.wait_all_gone();
    assert_eq!(
        w.snapshot_text(),
        snap_text,
        "the server's teardown did not change the saved snapshot"
    );
    // The stale pane's recording was observed more than 12 h ago.
    if let Some(pane) = stable.get(&Role::Stale) {
        let db = rusqlite::Connection::open(w.db()).expect("opens the database");
        let changed = db
            .execute(
                "UPDATE agent_sessions SET observed_at = observed_at - ?1 WHERE pane = ?2",
                rusqlite::params![STALE_BY_MS, pane],
            )
            .expect("backdates the stale recording");
        assert_eq!(changed, 1, "the stale pane has one recording");
    }
    Built {
        stable,
        reported,
        runs_before,
    }
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// The resume argv each resumable role must receive (program word first),
/// and whether it carries posture flags.
fn expected_resumes(b: &Built) -> BTreeMap<Role, (Vec<String>, bool)> {
    let id = |r: Role| b.reported.get(&r).map_or("", String::as_str);
    let mut all = BTreeMap::from([
        (
            Role::Winner,
            (
                argv(&[
                    "claude",
                    "--model",
                    "opus",
                    "--permission-mode",
                    "acceptEdits",
                    "--resume",
                    id(Role::Winner),
                ]),
                true,
            ),
        ),
        (
            Role::Codex,
            (
                argv(&[
                    "codex",
                    "--model",
                    "gpt-5",
                    "--sandbox",
                    "workspace-write",
                    "resume",
                    id(Role::Codex),
                ]),
                true,
            ),
        ),
        (
            Role::Gemini,
            (
                argv(&[
                    "gemini",
                    "--model",
                    "gemini-2.5-pro",
                    "--resume",
                    id(Role::Gemini),
                ]),
                false,
            ),
        ),
        (
            Role::Stale,
            (
                argv(&["claude", "--model", "opus", "--resume", id(Role::Stale)]),
                false,
            ),
        ),
    ]);
    all.retain(|role, _| b.stable.contains_key(role));
    all
}

/// Runs of `runs` that are not in `before`.
fn new_runs(runs: &BTreeMap<String, Ran>, before: &BTreeMap<String, Ran>) -> Vec<Ran> {
    runs.iter()
        .filter(|(k, _)| !before.contains_key(*k))
        .map(|(_, r)| r.clone())
        .collect()
}

fn ev(agent: &str, outcome: &str, posture: bool) -> (String, String, bool) {
    (agent.to_owned(), outcome.to_owned(), posture)
}

/// The whole scenario: two sessions, four windows, eight panes in bash,
/// zsh and fish; `save`, kill, `restore --recreate`; then a second restore;
/// then the shells' history.
#[test]
fn restore_recreate_resumes_each_agent_pane_once_and_only_where_safe() {
    let w = World::new();
    let specs = specs();
    let b = build_and_kill(&w, &specs);
    let role_of = |stable: &str| {
        b.stable
            .iter()
            .find(|(_, s)| s.as_str() == stable)
            .map(|(r, _)| *r)
    };

    // ---- the restore ------------------------------------------------------
    let (stdout, stderr) = w.cli_ok(
        "1",
        &[
            "tmux",
            "restore",
            "-L",
            w.tmux.socket(),
            "--recreate",
            "--json",
        ],
    );
    let plans: Vec<Value> = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("restore --json prints the plan ({e}):\n{stdout}\n{stderr}"));
    let expected = expected_resumes(&b);
    let verdicts: BTreeMap<Role, &Value> = plans
        .iter()
        .map(|p| {
            let pane = p["pane"].as_str().expect("pane");
            let role = role_of(pane).unwrap_or_else(|| panic!("a pane of the scenario: {p}"));
            (role, p)
        })
        .collect();
    assert_eq!(
        verdicts.len(),
        specs.len(),
        "one verdict per saved pane:\n{stdout}\n{stderr}"
    );
    for spec in &specs {
        let p = verdicts[&spec.role];
        match expected.get(&spec.role) {
            Some((argv, posture)) => {
                assert_eq!(p["verdict"], "resume", "{:?}: {p}", spec.role);
                assert_eq!(p["argv"], serde_json::json!(argv), "{:?}: {p}", spec.role);
                assert_eq!(p["posture_carried"], *posture, "{:?}: {p}", spec.role);
            }
            None => {
                let reason = match spec.role {
                    Role::Loser => "duplicate_claim_lost",
                    Role::DirGone => "directory_gone",
                    _ => "no_recording",
                };
                assert_eq!(p["verdict"], "skip", "{:?}: {p}", spec.role);
                assert_eq!(p["reason"], reason, "{:?}: {p}", spec.role);
            }
        }
    }

    // Each resumable pane's stand-in starts with exactly its resume argv, in
    // its own pane (its stable id) and directory.
    let resumed: BTreeMap<Role, Ran> = wait_for("every resumed stand-in to start", || {
        let fresh = new_runs(&w.runs(), &b.runs_before);
        (fresh.len() >= expected.len()).then_some(fresh)
    })
    .into_iter()
    .map(|r| {
        let role =
            role_of(&r.pane_env).unwrap_or_else(|| panic!("a resumed run names its pane: {r:?}"));
        (role, r)
    })
    .collect();
    assert_eq!(
        resumed.keys().copied().collect::<Vec<_>>(),
        expected.keys().copied().collect::<Vec<_>>(),
        "exactly the resumable panes started an agent: {resumed:#?}"
    );
    for (role, (argv, _)) in &expected {
        let r = &resumed[role];
        let spec = specs.iter().find(|s| s.role == *role).unwrap();
        assert_eq!(r.agent, argv[0], "{role:?}");
        assert_eq!(r.argv, argv[1..], "{role:?} resumed with exactly its argv");
        assert_eq!(r.cwd, w.pane_dir(spec), "{role:?} resumed in its directory");
        assert_eq!(r.reported, "-", "{role:?} was resumed, not started anew");
        // The take key the restore started its pane with served the first
        // take only: the shell dropped it before the agent started.
        let environ =
            fs::read(format!("/proc/{}/environ", r.pid)).expect("the agent's environment");
        let vars: Vec<&[u8]> = environ.split(|b| *b == 0).collect();
        assert!(
            vars.iter().any(|v| v.starts_with(b"AGENT_RESUME_PANE=")),
            "{role:?}: the environment was read"
        );
        assert!(
            !vars.iter().any(|v| v.starts_with(b"AGENT_RESUME_TAKE=")),
            "{role:?}: the agent carries the pane's take key"
        );
    }

    // Every saved pane is back, once, in its place and with its shell; the
    // landing session's current window and active pane are restored.
    let live = w.live();
    assert_eq!(
        live.len(),
        specs.len(),
        "exactly the saved panes are back: {live:#?}"
    );
    let at: BTreeMap<Role, &Live> = live
        .iter()
        .map(|l| {
            let role = role_of(&l.stable)
                .unwrap_or_else(|| panic!("a recreated pane keeps its stable id: {l:?}"));
            (role, l)
        })
        .collect();
    assert_eq!(at.len(), specs.len(), "no pane came back twice: {live:#?}");
    for spec in &specs {
        let l = at[&spec.role];
        assert_eq!(
            (l.session.as_str(), l.window, l.index),
            (spec.session, spec.window, spec.index),
            "{:?} is back in its place",
            spec.role
        );
        let comm = fs::read_to_string(format!("/proc/{}/comm", l.pid)).unwrap_or_default();
        assert_eq!(
            comm.trim(),
            spec.shell.name(),
            "{:?} is back in its shell",
            spec.role
        );
        if spec.window == 0 {
            assert!(l.window_active, "{:?}: window 0 is current", spec.role);
        }
        if spec.index == 0 {
            assert!(l.active, "{:?}: pane 0 is active", spec.role);
        }
    }

    // The loser of the claim, the pane whose directory is gone and the
    // plain shells are shells at their first prompt with nothing typed or
    // printed by agent-resume, and no stand-in ran in them.
    for role in [Role::Loser, Role::DirGone, Role::PlainBash, Role::PlainZsh] {
        let spec = specs.iter().find(|s| s.role == role).unwrap();
        let screen = w.wait_prompt(&at[&role].target, spec.shell, &format!("{role:?}"));
        let text: Vec<&str> = screen
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        // Only prompts: zsh draws its prompt again when the pane is
        // resized under it (the layout is applied as panes appear), but a
        // typed or printed word would show on a line of its own or after a
        // prompt.
        assert!(
            !text.is_empty() && text.iter().all(|l| *l == prompt(spec.shell)),
            "{role:?} is a fresh shell with nothing typed into it: {text:?}"
        );
        assert!(!resumed.contains_key(&role), "no stand-in ran in {role:?}");
    }
    // Every pane has passed its first prompt: no other stand-in started.
    assert_eq!(
        new_runs(&w.runs(), &b.runs_before).len(),
        expected.len(),
        "only the resumable panes started an agent"
    );
    for (role, l) in &at {
        let screen = w.tmux.screen(&l.target);
        for needle in ["agent-resume", "AGENT_RESUME", "take --pane"] {
            assert!(
                !screen.contains(needle),
                "{role:?} shows {needle:?}:\n{screen}"
            );
        }
    }

    // Telemetry: one event per pane that had a recording — the four
    // resumes at take (posture carried only where fresh), the lost claim
    // and the gone directory at restore.
    let expected_events = {
        let mut e = vec![
            ev("claude", "resumed", true),
            ev("codex", "resumed", true),
            ev("gemini", "resumed", false),
            ev("claude", "resumed", false),
            ev("claude", "duplicate_claim_lost", false),
            ev("claude", "directory_gone", false),
        ];
        e.sort();
        e
    };
    assert_eq!(w.events(), expected_events, "telemetry after the restore");
    assert!(
        w.armed().is_empty(),
        "every armed line was taken: {:?}",
        w.armed()
    );

    // ---- a second restore resumes nothing twice --------------------------
    let telemetry = fs::read(w.telemetry()).expect("reads telemetry");
    let runs = w.runs();
    let (stdout2, stderr2) = w.cli_ok(
        "1",
        &[
            "tmux",
            "restore",
            "-L",
            w.tmux.socket(),
            "--recreate",
            "--json",
        ],
    );
    let plans2: Vec<Value> = serde_json::from_str(&stdout2)
        .unwrap_or_else(|e| panic!("restore --json prints the plan ({e}):\n{stdout2}\n{stderr2}"));
    assert!(
        plans2.is_empty(),
        "a second restore plans no pane: {plans2:?}"
    );
    assert!(w.armed().is_empty(), "a second restore arms nothing");
    let live2 = w.live();
    assert_eq!(
        live2
            .iter()
            .map(|l| (&l.target, &l.stable))
            .collect::<Vec<_>>(),
        live.iter()
            .map(|l| (&l.target, &l.stable))
            .collect::<Vec<_>>(),
        "a second restore creates no pane"
    );

    // ---- history ----------------------------------------------------------
    // Each resumed agent ends (its `sleep`, started by this test, is sent
    // SIGTERM by its id); then a marker line is typed in every pane, and
    // once each shell's history file holds its markers, no history file
    // holds a resume line.
    for role in expected.keys() {
        let status = Command::new("kill")
            .args(["-TERM", &resumed[role].pid.to_string()])
            .status()
            .expect("runs kill");
        assert!(status.success(), "{role:?}'s stand-in was still running");
    }
    let mut markers: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for spec in &specs {
        let target = &at[&spec.role].target;
        w.wait_prompt(
            target,
            spec.shell,
            &format!("{:?} after the agent", spec.role),
        );
        let marker = format!("history-marker-{:?}", spec.role).to_lowercase();
        w.tmux.type_line(target, &format!("echo {marker}"));
        w.tmux
            .wait_screen(target, &format!("{marker} echoed"), |s| {
                s.lines().any(|l| l.trim_end() == marker)
            });
        markers.entry(spec.shell.name()).or_default().push(marker);
    }
    for sh in [Sh::Bash, Sh::Zsh, Sh::Fish] {
        let path = w.home().join(sh.history());
        let history = wait_for(
            &format!("{} history to hold its markers", sh.name()),
            || {
                let text = fs::read_to_string(&path).unwrap_or_default();
                markers[sh.name()]
                    .iter()
                    .all(|m| text.contains(&format!("echo {m}")))
                    .then_some(text)
            },
        );
        for needle in ["AGENT_RESUME_LINE", "--resume", " resume ", "agent-resume"] {
            assert!(
                !history.contains(needle),
                "{} history holds {needle:?}:\n{history}",
                sh.name()
            );
        }
    }

    // Still nothing ran twice and nothing more was reported.
    assert_eq!(w.runs(), runs, "no stand-in ran again");
    assert_eq!(
        fs::read(w.telemetry()).expect("reads telemetry"),
        telemetry,
        "no telemetry after the second restore"
    );
    w.finish();
}

/// Every file under `root` with its bytes, and every directory.
fn tree(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("reads a directory").flatten() {
            let path = entry.path();
            let kind = entry.file_type().expect("a file type");
            if kind.is_dir() {
                stack.push(path.clone());
                out.insert(path, None);
            } else {
                let bytes = fs::read(&path).unwrap_or_default();
                out.insert(path, Some(bytes));
            }
        }
    }
    out
}

/// The same scenario restored with `AGENT_RESUME=0`: `restore` says it is
/// disabled and returns before anything else (src/cmd/tmux.rs), so no tmux
/// server, pane or agent is started and no file under the world changes.
#[test]
fn with_the_feature_flag_off_restore_recreates_writes_and_starts_nothing() {
    let w = World::new();
    let b = build_and_kill(&w, &specs());
    let before = tree(w.root());

    // `AGENT_RESUME=0`: restore says it is disabled and returns before it
    // opens the database, plans, arms, reports or talks to tmux.
    let out = w.cli(
        "0",
        &["tmux", "restore", "-L", w.tmux.socket(), "--recreate"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "restore with the flag off: {stderr}");
    assert!(out.stdout.is_empty(), "no plan printed");
    assert_eq!(
        stderr.trim_end(),
        "agent-resume: disabled (by AGENT_RESUME in the environment); nothing restored"
    );
    assert!(
        !w.tmux.running(),
        "no session, window or pane was recreated"
    );
    // The hooks' save is off too.
    w.cli_ok("0", &["tmux", "save", "-L", w.tmux.socket()]);
    assert!(w.ours().is_empty(), "no agent or shell was started");
    let after = tree(w.root());
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "no file created or removed"
    );
    for (path, bytes) in &before {
        assert!(after[path] == *bytes, "{} changed", path.display());
    }
    assert!(w.events().is_empty(), "no telemetry");
    assert_eq!(w.runs(), b.runs_before, "no stand-in ran");

    // The same database with the flag on would resume the four agents: the
    // flag, not an empty scenario, is why nothing happened.
    let (stdout, _) = w.cli_ok(
        "1",
        &[
            "tmux",
            "restore",
            "-L",
            w.tmux.socket(),
            "--recreate",
            "--dry-run",
            "--json",
        ],
    );
    let plans: Vec<Value> = serde_json::from_str(&stdout).expect("a JSON plan");
    let resumes = plans.iter().filter(|p| p["verdict"] == "resume").count();
    assert_eq!(resumes, expected_resumes(&b).len(), "{stdout}");
    assert!(!w.tmux.running(), "a dry run creates nothing");
    w.finish();
}

/// `(process group, the terminal's foreground process group, the parent's
/// process group)` of `pid`, from `/proc/<pid>/stat`.
fn groups(pid: u32) -> Option<(i64, i64, i64)> {
    // Fields after the command name (which may hold spaces): state, ppid,
    // pgrp, session, tty_nr, tpgid, …
    let fields = |pid: &str| -> Option<Vec<String>> {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        Some(
            stat.rsplit_once(')')?
                .1
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        )
    };
    let own = fields(&pid.to_string())?;
    let parent = fields(own.get(1)?)?;
    Some((
        own.get(2)?.parse().ok()?,
        own.get(5)?.parse().ok()?,
        parent.get(2)?.parse().ok()?,
    ))
}

/// A resumed agent must be its pane's foreground job, as a typed command
/// is: its own process group (not its shell's), holding the terminal.
/// fish never hands the terminal to a job started from an event handler
/// (`wants_terminal = job_control && !is_event` in fish's job setup), so
/// `agent-resume init fish` runs the armed line from its line editor.
#[test]
fn a_resumed_agent_owns_its_panes_terminal_in_bash_zsh_and_fish() {
    let w = World::new();
    let specs: Vec<Spec> = specs()
        .into_iter()
        .filter(|s| matches!(s.role, Role::Winner | Role::Codex | Role::Gemini))
        .collect();
    let b = build_and_kill(&w, &specs);
    w.cli_ok(
        "1",
        &["tmux", "restore", "-L", w.tmux.socket(), "--recreate"],
    );
    let expected = expected_resumes(&b);
    let resumed = wait_for("every resumed stand-in to start", || {
        let fresh = new_runs(&w.runs(), &b.runs_before);
        (fresh.len() >= expected.len()).then_some(fresh)
    });
    // A resumed agent is the pane's foreground job, as if typed: Ctrl-C
    // reaches it, and a real agent reading its terminal is not stopped by
    // SIGTTIN. Polled: the shell hands the terminal over as it starts it.
    let shell_of = |r: &Ran| {
        let role = b
            .stable
            .iter()
            .find(|(_, s)| **s == r.pane_env)
            .map(|(role, _)| *role)
            .unwrap_or_else(|| panic!("a resumed run names its pane: {r:?}"));
        specs
            .iter()
            .find(|s| s.role == role)
            .map(|s| s.shell.name())
            .unwrap()
    };
    let deadline = std::time::Instant::now() + agent_resume_test_support::PATIENCE;
    let mut behind: Vec<String>;
    loop {
        behind = resumed
            .iter()
            .filter_map(|r| {
                let (pgrp, fg, shell) = groups(r.pid)?;
                (pgrp != fg || pgrp == shell).then(|| {
                    format!(
                        "in {}, the resumed {} (pid {}, process group {pgrp}, its shell's \
                         {shell}) runs while the terminal's foreground process group is {fg}",
                        shell_of(r),
                        r.agent,
                        r.pid
                    )
                })
            })
            .collect();
        if behind.is_empty() || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        behind.is_empty(),
        "a resumed agent is not a foreground job of its own in its pane — it shares \
         its shell's signals and terminal modes, or Ctrl-C never reaches it and an \
         agent that reads its terminal is stopped (SIGTTIN):\n{}",
        behind.join("\n")
    );
    w.finish();
}

/// `restore --recreate` creates each session detached at tmux's default
/// size (80x24) and splits every window's first pane again and again; a
/// sixth pane no longer fits (`no space for new pane`), and the error ends
/// the whole restore.
#[test]
fn a_window_of_six_panes_is_recreated_whole_and_its_agent_resumed() {
    // Six tiled panes in one window of a 200x60 session — five plain bash
    // shells and codex in the last one.
    let w = World::new();
    let fill = |index: u32, dir: &'static str| Spec {
        role: Role::Filler(index),
        session: "alpha",
        window: 0,
        index,
        shell: Sh::Bash,
        dir,
        typed: None,
    };
    let mut specs = vec![
        fill(0, "fill-0"),
        fill(1, "fill-1"),
        fill(2, "fill-2"),
        fill(3, "fill-3"),
        fill(4, "fill-4"),
    ];
    specs.push(Spec {
        role: Role::Codex,
        session: "alpha",
        window: 0,
        index: 5,
        shell: Sh::Zsh,
        dir: "alpha-codex",
        typed: Some("codex -m gpt-5 -s workspace-write"),
    });
    let b = build_and_kill(&w, &specs);
    // From here every `tmux` the world's processes run is noted with the
    // pane it runs in, then the real one runs.
    let calls = w.root().join("tmux-calls");
    let wrapper = w.root().join("bin/tmux");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nprintf '%s %s\\n' \"${{TMUX_PANE:--}}\" \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            calls.display(),
            require("tmux").display()
        ),
    )
    .expect("writes the tmux wrapper");
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = w.cli(
        "1",
        &["tmux", "restore", "-L", w.tmux.socket(), "--recreate"],
    );
    let live = if w.tmux.running() {
        w.live()
    } else {
        Vec::new()
    };
    assert!(
        out.status.success() && live.len() == specs.len(),
        "restore --recreate brings back all {} panes of the window; it exited {} with:\n{}\n\
         and the server has {} panes",
        specs.len(),
        out.status,
        String::from_utf8_lossy(&out.stderr),
        live.len()
    );
    let expected = expected_resumes(&b);
    let resumed = wait_for("the resumed codex to start", || {
        let fresh = new_runs(&w.runs(), &b.runs_before);
        (!fresh.is_empty()).then_some(fresh)
    });
    assert_eq!(resumed.len(), 1, "{resumed:#?}");
    assert_eq!(resumed[0].argv, expected[&Role::Codex].0[1..]);
    // The codex pane took its line by the key it was started with: its
    // shell never asked the server which pane it is. The plain shells have
    // no line and so no key: they take nothing and run no tmux at all,
    // neither at their start nor at their prompt. (The background capture
    // the take starts once the line is out asks for the codex pane's first
    // process, `#{pane_pid} #{@agent_resume_pane}`: not the take's own
    // question, and the proof that the wrapper notes this pane's calls.)
    let codex = live
        .iter()
        .find(|l| l.stable == b.stable[&Role::Codex])
        .expect("the codex pane")
        .target
        .clone();
    let asked = |log: &str, pane: &str| {
        log.lines()
            .filter(|l| l.starts_with(&format!("{pane} ")) && l.contains("display-message"))
            .filter(|l| l.ends_with(" #{@agent_resume_pane}") && !l.contains("#{pane_pid}"))
            .count()
    };
    let log = wait_for(
        "the codex pane's capture to ask for its first process, and each plain shell's prompt",
        || {
            let log = fs::read_to_string(&calls).unwrap_or_default();
            let captured = log.lines().any(|l| {
                l.starts_with(&format!("{codex} "))
                    && l.contains("#{pane_pid} #{@agent_resume_pane}")
            });
            let prompts = live
                .iter()
                .filter(|l| l.target != codex)
                .all(|l| w.tmux.screen(&l.target).contains("bash$ "));
            (captured && prompts).then_some(log)
        },
    );
    for plain in live.iter().filter(|l| l.target != codex) {
        let ran: Vec<&str> = log
            .lines()
            .filter(|l| l.starts_with(&format!("{} ", plain.target)))
            .collect();
        assert!(
            ran.is_empty(),
            "the plain shell in {} ran tmux: {ran:#?}",
            plain.target
        );
    }
    assert_eq!(
        asked(&log, &codex),
        0,
        "the codex pane ({codex}) asked:\n{log}"
    );
    w.finish();
}

/// A pane a user opens in a running server with tmux's own commands (no
/// `-e`), in directory `w/<dir>`, running the server's default shell
/// (`bash -i` with the integration); its id (`%N`) once its prompt shows.
fn open_pane(w: &World, how: &[&str], dir: &str) -> String {
    let dir = w.root().join("w").join(dir);
    fs::create_dir_all(&dir).expect("mkdir a pane directory");
    let dir = dir.to_str().expect("a UTF-8 temp path");
    let mut args = how.to_vec();
    args.extend(["-P", "-F", "#{pane_id}", "-c", dir]);
    let target = w.tmux.ok(&args).trim().to_owned();
    w.wait_prompt(&target, Sh::Bash, &format!("the pane opened by {how:?}"));
    target
}

/// Types `claude` into each pane (the stand-in reports a new conversation
/// through `agent-resume hook claude`); the id each reported, by pane.
fn start_claude_in(w: &World, panes: &[(String, &str)]) -> BTreeMap<String, String> {
    let mut reported = BTreeMap::new();
    for (target, dir) in panes {
        let dir = w.root().join("w").join(dir);
        w.tmux.type_line(target, "claude");
        let run = wait_for(&format!("claude in {target} to report"), || {
            w.runs().into_values().find(|r| r.cwd == dir)
        });
        assert_ne!(run.reported, "-", "claude in {target} started anew");
        reported.insert(target.clone(), run.reported);
    }
    reported
}

/// The `@agent_resume_pane` of each pane, once it has one.
fn pane_ids(w: &World, panes: &[String]) -> BTreeMap<String, String> {
    panes
        .iter()
        .map(|t| {
            let id = wait_for(&format!("{t} to have a stable id"), || {
                let id = w.tmux.pane_format(t, "#{@agent_resume_pane}");
                (id.len() == 36).then_some(id)
            });
            (t.clone(), id)
        })
        .collect()
}

/// Windows and splits made in a session `restore --recreate` brought back
/// are new panes: each has its own id — its agent's recording is its own,
/// none lands on the recreated pane's — and the session environment holds
/// no `AGENT_RESUME_PANE` for them to inherit.
#[test]
fn windows_and_splits_made_after_a_recreate_each_have_their_own_pane_id() {
    let w = World::new();
    let spec = |role, window, index, dir, typed| Spec {
        role,
        session: "alpha",
        window,
        index,
        shell: Sh::Bash,
        dir,
        typed,
    };
    let specs = vec![
        spec(
            Role::Filler(1),
            0,
            0,
            "alpha-claude",
            Some("claude --model opus"),
        ),
        spec(Role::PlainBash, 0, 1, "alpha-plain", None),
        spec(Role::Filler(0), 1, 0, "alpha-second", None),
    ];
    let b = build_and_kill(&w, &specs);
    w.cli_ok(
        "1",
        &["tmux", "restore", "-L", w.tmux.socket(), "--recreate"],
    );
    let resumed = wait_for("the resumed claude to start", || {
        let fresh = new_runs(&w.runs(), &b.runs_before);
        (!fresh.is_empty()).then_some(fresh)
    });
    assert_eq!(resumed.len(), 1, "{resumed:#?}");
    assert_eq!(
        resumed[0].pane_env,
        b.stable[&Role::Filler(1)],
        "the recreated pane was started with its own id"
    );

    let session_env = w.tmux.ok(&["show-environment", "-t", "=alpha"]);
    assert!(
        !session_env
            .lines()
            .any(|l| l.starts_with("AGENT_RESUME_PANE") || l.starts_with("AGENT_RESUME_TAKE")),
        "the restored session's environment names a pane or its take key:\n{session_env}"
    );

    // As a user would: a new window, a split of a recreated window, a split
    // of the new window, another window.
    let made = vec![
        (
            open_pane(&w, &["new-window", "-d", "-t", "=alpha:"], "new-1"),
            "new-1",
        ),
        (
            open_pane(&w, &["split-window", "-d", "-t", "=alpha:0"], "new-2"),
            "new-2",
        ),
        (
            open_pane(&w, &["split-window", "-d", "-t", "=alpha:1"], "new-3"),
            "new-3",
        ),
        (
            open_pane(&w, &["new-window", "-d", "-t", "=alpha:"], "new-4"),
            "new-4",
        ),
    ];
    let reported = start_claude_in(&w, &made);
    w.wait_saves_settled();
    w.cli_ok("1", &["tmux", "save", "-L", w.tmux.socket()]);

    let live = w.live();
    let all: Vec<String> = live.iter().map(|l| l.target.clone()).collect();
    let ids = pane_ids(&w, &all);
    assert_eq!(
        ids.values().collect::<BTreeSet<_>>().len(),
        all.len(),
        "every pane has its own id: {ids:#?}"
    );
    let restored: BTreeSet<&String> = b.stable.values().collect();
    let recorded = w.recordings();
    for (target, session) in &reported {
        let id = &ids[target];
        assert!(
            !restored.contains(id),
            "{target} took a recreated pane's id {id}"
        );
        assert_eq!(
            recorded.get(id),
            Some(session),
            "{target}'s claude is recorded under its own pane {id}: {recorded:#?}"
        );
    }
    assert_eq!(
        recorded.get(&b.stable[&Role::Filler(1)]),
        b.reported.get(&Role::Filler(1)),
        "the recreated pane's recording was not overwritten: {recorded:#?}"
    );
    w.finish();
}

/// A tmux server started from a terminal that set `AGENT_RESUME_PANE` (a
/// host's pane) has it in its global environment, and every pane inherits
/// it: each pane still gets its own id, never the outer one, and each
/// agent's recording is its pane's own.
#[test]
fn under_an_outer_agent_resume_pane_every_tmux_pane_has_its_own_id() {
    const OUTER: &str = "0b9e4a1c-7d2f-4e8a-9c3b-5f6a7b8c9d0e";
    let w = World::with_env(&[("AGENT_RESUME_PANE", OUTER)]);
    let dir = w.root().join("w").join("first");
    fs::create_dir_all(&dir).expect("mkdir");
    let first = w
        .tmux
        .ok(&[
            "new-session",
            "-d",
            "-s",
            "outer",
            "-x",
            "200",
            "-y",
            "60",
            "-P",
            "-F",
            "#{pane_id}",
            "-c",
            dir.to_str().expect("a UTF-8 temp path"),
        ])
        .trim()
        .to_owned();
    w.wait_prompt(&first, Sh::Bash, "the first pane");
    assert_eq!(
        w.tmux
            .ok(&["show-environment", "-g", "AGENT_RESUME_PANE"])
            .trim(),
        format!("AGENT_RESUME_PANE={OUTER}"),
        "the server inherited the outer pane id"
    );
    let mut agents = vec![(first, "first")];
    agents.push((
        open_pane(&w, &["new-window", "-d", "-t", "=outer:"], "window"),
        "window",
    ));
    agents.push((
        open_pane(&w, &["split-window", "-d", "-t", "=outer:0"], "split"),
        "split",
    ));
    let plain = open_pane(&w, &["split-window", "-d", "-t", "=outer:1"], "plain");
    let reported = start_claude_in(&w, &agents);
    w.wait_saves_settled();
    w.cli_ok("1", &["tmux", "save", "-L", w.tmux.socket()]);

    let mut all: Vec<String> = agents.iter().map(|(t, _)| t.clone()).collect();
    all.push(plain);
    let ids = pane_ids(&w, &all);
    assert_eq!(
        ids.values().collect::<BTreeSet<_>>().len(),
        all.len(),
        "every pane has its own id: {ids:#?}"
    );
    assert!(
        ids.values().all(|id| id != OUTER),
        "a pane took the outer id: {ids:#?}"
    );
    let recorded = w.recordings();
    assert!(
        !recorded.contains_key(OUTER),
        "an agent was recorded under the outer pane: {recorded:#?}"
    );
    for (target, session) in &reported {
        assert_eq!(
            recorded.get(&ids[target]),
            Some(session),
            "{target}'s claude is recorded under its own pane: {recorded:#?}"
        );
    }
    w.finish();
}

/// A tmux server started from a shell whose integration already ran (it
/// exported `AGENT_RESUME_TAKEN`) passes that on to every pane: a pane
/// `restore --recreate` creates still takes its armed line at its first
/// prompt, in bash, zsh and fish, because "taken" names the pane it was
/// taken in.
#[test]
fn recreated_panes_take_their_line_under_an_inherited_taken_marker() {
    let w = World::with_env(&[("AGENT_RESUME_TAKEN", "1")]);
    let spec = |role, window, shell, dir, typed| Spec {
        role,
        session: "alpha",
        window,
        index: 0,
        shell,
        dir,
        typed,
    };
    let specs = vec![
        spec(Role::Filler(0), 0, Sh::Bash, "in-bash", Some("claude")),
        spec(Role::Filler(1), 1, Sh::Zsh, "in-zsh", Some("claude")),
        spec(Role::Filler(2), 2, Sh::Fish, "in-fish", Some("claude")),
    ];
    let b = build_and_kill(&w, &specs);
    w.cli_ok(
        "1",
        &["tmux", "restore", "-L", w.tmux.socket(), "--recreate"],
    );
    let resumed = wait_for("every recreated pane's claude to be resumed", || {
        let fresh = new_runs(&w.runs(), &b.runs_before);
        (fresh.len() >= specs.len()).then_some(fresh)
    });
    let panes: BTreeSet<&str> = resumed.iter().map(|r| r.pane_env.as_str()).collect();
    let stable: BTreeSet<&str> = b.stable.values().map(String::as_str).collect();
    assert_eq!(
        panes, stable,
        "each pane resumed its own line: {resumed:#?}"
    );
    w.finish();
}

/// A pane someone else brought back (tmux-resurrect) has no id yet; when
/// its shell draws its first prompt before `restore` runs, the
/// integration's `take` (no `--pane`) finds nothing and leaves the pane
/// without an id — claiming one would make the restore take it for a pane
/// that never died and skip it.
#[test]
fn a_first_prompt_take_leaves_a_tmux_pane_without_an_id_as_it_is() {
    let w = World::new();
    let tmux = Tmux::start();
    let sleep = require("sleep");
    let pane = tmux.spawn(w.root(), &[sleep.as_os_str(), OsStr::new("100000")]);
    let socket = tmux.pane_format(&pane, "#{socket_path}");
    let pid = tmux.pane_format(&pane, "#{pid}");
    for pane_env in [None, Some("0b9e4a1c-7d2f-4e8a-9c3b-5f6a7b8c9d0e")] {
        let mut take = w.env.command(&["take", "--shell", "bash"]);
        take.env("AGENT_RESUME", "1")
            .env("TMUX", format!("{socket},{pid},0"))
            .env("TMUX_PANE", &pane)
            .stdin(Stdio::null());
        if let Some(p) = pane_env {
            take.env("AGENT_RESUME_PANE", p);
        }
        let out = take.output();
        assert_eq!(
            out.status.code(),
            Some(1),
            "nothing to take: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            tmux.pane_format(&pane, "#{@agent_resume_pane}"),
            "",
            "take gave the pane an id (AGENT_RESUME_PANE {pane_env:?})"
        );
    }
}
