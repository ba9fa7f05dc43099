//! A tmux server's start restores it: a real tmux server on a private
//! socket whose `~/.tmux.conf` loads `agent-resume init tmux`, bash panes
//! whose `.bashrc` loads `init bash`, and a stand-in `claude` first on
//! `PATH` that reports its conversation through `agent-resume hook` as the
//! real one's hook configuration does.
//!
//! The user's world is built, saved by the hooks, then the server is
//! killed, every process of the world is gone and tmux's socket directory
//! removed (a reboot, as far as tmux can tell); then the user types
//! `tmux`. What comes back is read from the server's panes and from what
//! the stand-ins were started with, never from timing.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use agent_resume_test_support::{require, wait_for, PrivateEnv, TmuxWorld};

const CLAUDE: &str = include_str!("standins/claude-ready");

/// The environment variable marking every process of a world.
const MARKER: &str = "AGENT_RESUME_TEST_START";

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

struct World(TmuxWorld);

impl std::ops::Deref for World {
    type Target = TmuxWorld;
    fn deref(&self) -> &TmuxWorld {
        &self.0
    }
}

/// One stand-in run: its pane id, the conversation it reported, when it
/// started and was ready (nanoseconds), and its argv.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ran {
    pane: String,
    reported: String,
    started: u128,
    ready: u128,
    argv: Vec<String>,
}

impl World {
    /// A user's world; `config` is added to the user's config.toml.
    fn new(config: &str) -> World {
        for tool in ["tmux", "bash", "zsh", "fish", "sleep", "sh"] {
            require(tool);
        }
        let env = PrivateEnv::user(agent_resume());
        let root = env.root().to_owned();
        let home = env.home();
        for d in [
            root.join("ran"),
            root.join("w/a"),
            root.join("w/b"),
            home.join(".config/fish"),
            // fish skips its background man-page scan when this exists.
            home.join(".local/share/fish/generated_completions"),
        ] {
            fs::create_dir_all(d).unwrap();
        }
        fs::write(
            home.join(".zshrc"),
            "PS1='zsh%% '\neval \"$(agent-resume init zsh)\"\n",
        )
        .unwrap();
        fs::write(
            home.join(".config/fish/config.fish"),
            "function fish_prompt\n    printf 'fish> '\nend\nfunction fish_greeting\nend\n\
             agent-resume init fish | source\n",
        )
        .unwrap();
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
        let config_dir = home.join(".config/agent-resume");
        fs::create_dir_all(&config_dir).unwrap();
        fs::write(config_dir.join("config.toml"), config).unwrap();
        let env = env
            .with("SHELL", require("bash"))
            .with("STANDIN_RAN", root.join("ran"))
            .with(MARKER, &root);
        World(TmuxWorld::new(env, &home.join(".tmux.conf")))
    }

    fn dir(&self, name: &str) -> String {
        self.root()
            .join("w")
            .join(name)
            .to_str()
            .unwrap()
            .to_owned()
    }

    fn log(&self) -> PathBuf {
        self.root()
            .join("home/.local/state/agent-resume/restore.log")
    }

    fn db(&self) -> PathBuf {
        self.root()
            .join("home/.local/share/agent-resume/recordings.sqlite3")
    }

    /// Every stand-in run so far.
    fn runs(&self) -> Vec<Ran> {
        let mut out = Vec::new();
        for entry in fs::read_dir(self.root().join("ran")).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name().to_string_lossy().ends_with(".part") {
                continue;
            }
            let text = fs::read_to_string(entry.path()).unwrap();
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            out.push(Ran {
                pane: lines[1].clone(),
                reported: lines[3].clone(),
                started: lines[4].parse().unwrap(),
                ready: lines[5].parse().unwrap(),
                argv: lines[6..].to_vec(),
            });
        }
        out
    }

    /// Waits for the last line of `target`'s screen to be the prompt.
    fn wait_prompt(&self, target: &str) {
        self.wait_shell_prompt(target, "bash$");
    }

    /// Waits for the last line of `target`'s screen to be `prompt`.
    fn wait_shell_prompt(&self, target: &str, prompt: &str) {
        self.tmux
            .wait_screen(target, &format!("the {prompt} prompt"), |s| {
                s.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| l.trim_end() == prompt)
            });
    }

    /// Whether a `tmux save` or `tmux start` of this world runs.
    fn busy(&self) -> bool {
        agent_resume_test_support::tmux::marked(MARKER, self.root())
            .iter()
            .any(|(_, c)| c.contains("tmux save") || c.contains("tmux start"))
    }

    fn wait_settled(&self) {
        let mut quiet = 0;
        wait_for("the world's saves and starts to settle", || {
            quiet = if self.busy() { 0 } else { quiet + 1 };
            (quiet >= 25).then_some(())
        });
    }

    /// The saved snapshot's pane ids, by `session:window.pane`.
    fn saved(&self) -> BTreeMap<String, String> {
        let db = rusqlite::Connection::open(self.db()).unwrap();
        let text: String = db
            .query_row(
                "SELECT layout FROM host_layouts WHERE host LIKE 'tmux:%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let snap: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut out = BTreeMap::new();
        for s in snap["sessions"].as_array().unwrap() {
            for w in s["windows"].as_array().unwrap() {
                for p in w["panes"].as_array().unwrap() {
                    out.insert(
                        format!("{}:{}.{}", s["name"], w["index"], p["index"]).replace('"', ""),
                        p["id"].as_str().unwrap().to_owned(),
                    );
                }
            }
        }
        out
    }

    /// The running server's panes: `session:window.pane` → stable id.
    fn live(&self) -> BTreeMap<String, String> {
        self.tmux
            .ok(&[
                "list-panes",
                "-a",
                "-F",
                "#{session_name}:#{window_index}.#{pane_index} #{@agent_resume_pane}",
            ])
            .lines()
            .map(|l| {
                let (k, v) = l.split_once(' ').unwrap_or((l, ""));
                (k.to_owned(), v.to_owned())
            })
            .collect()
    }

    /// Session `work`: window 0 with claude in its first pane and a shell
    /// beside it, window 1 with claude; saved by the hooks. Returns the
    /// two conversations' ids, by place.
    fn build(&self) -> BTreeMap<String, String> {
        let t = &self.tmux;
        let (a, b) = (self.dir("a"), self.dir("b"));
        t.ok(&[
            "new-session",
            "-d",
            "-s",
            "work",
            "-x",
            "160",
            "-y",
            "50",
            "-c",
            &a,
        ]);
        t.ok(&["split-window", "-d", "-t", "=work:0", "-c", &b]);
        t.ok(&["new-window", "-d", "-t", "=work:1", "-c", &b]);
        let mut ids = BTreeMap::new();
        for (n, (target, place)) in [("=work:0.0", "work:0.0"), ("=work:1.0", "work:1.0")]
            .into_iter()
            .enumerate()
        {
            self.wait_prompt(target);
            t.type_line(target, "claude");
            wait_for("the stand-in to report", || {
                (self.runs().len() == n + 1).then_some(())
            });
            let known: Vec<String> = ids.values().cloned().collect();
            let new = self
                .runs()
                .into_iter()
                .find(|r| !known.contains(&r.reported))
                .unwrap();
            ids.insert(place.to_owned(), new.reported);
        }
        self.wait_prompt("=work:0.1");
        // A window switch: the hooks save.
        t.ok(&["select-window", "-t", "=work:1"]);
        self.wait_settled();
        let out = self.cli(&["tmux", "save", "-L", t.socket()]).output();
        assert!(out.status.success(), "{out:?}");
        ids
    }

    /// Kills the server and every process of the world, and removes tmux's
    /// socket directory: all a reboot leaves is the database.
    fn reboot(&self) {
        self.tmux.kill_server();
        wait_for("every process of the world to end", || {
            agent_resume_test_support::tmux::marked(MARKER, self.root())
                .is_empty()
                .then_some(())
        });
        // What the first server's start said.
        let _ = fs::remove_file(self.log());
        for entry in fs::read_dir(self.tmux.tmpdir()).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tmux-")
            {
                fs::remove_dir_all(&path).unwrap();
            }
        }
    }

    /// The resumed runs: stand-ins started with `--resume`, by pane id.
    fn resumed(&self) -> BTreeMap<String, Vec<String>> {
        self.runs()
            .into_iter()
            .filter(|r| r.argv.iter().any(|a| a == "--resume"))
            .map(|r| (r.pane, r.argv))
            .collect()
    }

    /// A user typing `tmux`: a control-mode client on a new session (its
    /// stdin held open, as a terminal would).
    fn attach_new(&self) -> Child {
        self.attach_new_with(&[])
    }

    /// [`World::attach_new`], the server (and so its panes) also having
    /// `env`.
    fn attach_new_with(&self, env: &[(&str, &str)]) -> Child {
        self.tmux
            .command()
            .envs(env.iter().copied())
            .args(["-C", "new-session", "-x", "160", "-y", "50"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }
}

fn detach(mut client: Child) {
    if let Some(mut stdin) = client.stdin.take() {
        let _ = stdin.write_all(b"detach-client\n");
    }
    let _ = client.wait();
}

/// Every saved pane is back at its place with its id, and each claude pane
/// resumed its own conversation, exactly once.
fn assert_restored(w: &World, saved: &BTreeMap<String, String>, ids: &BTreeMap<String, String>) {
    wait_for("both conversations to resume", || {
        (w.resumed().len() == 2).then_some(())
    });
    let live = w.live();
    for (place, id) in saved {
        assert_eq!(live.get(place), Some(id), "{place} in {live:?}");
    }
    let resumed = w.resumed();
    for (place, id) in ids {
        let pane = &saved[place];
        let argv = resumed
            .get(pane)
            .unwrap_or_else(|| panic!("{place}: {resumed:?}"));
        assert_eq!(argv, &vec!["--resume".to_owned(), id.clone()], "{place}");
    }
}

#[test]
fn typing_tmux_after_a_reboot_brings_the_sessions_back_and_resumes_each_agent_once() {
    let w = World::new("");
    let ids = w.build();
    let saved = w.saved();
    assert_eq!(saved.len(), 3, "{saved:?}");
    w.reboot();

    let client = w.attach_new();
    assert_restored(&w, &saved, &ids);
    wait_for("the start to follow both resumes to their end", || {
        fs::read_to_string(w.log())
            .ok()
            .filter(|l| l.contains("2 agent(s) resumed: 2 confirmed"))
    });
    // The user's client now shows the restored session, and the session
    // its `tmux` made, untouched, is gone.
    wait_for("the scratch session to close", || {
        let sessions = w.tmux.ok(&["list-sessions", "-F", "#{session_name}"]);
        (sessions.trim() == "work").then_some(())
    });
    let clients = w.tmux.ok(&["list-clients", "-F", "#{client_session}"]);
    assert_eq!(clients.trim(), "work");

    // Re-sourcing the config, or a second start, restores nothing again.
    w.wait_settled();
    let runs = w.runs().len();
    w.tmux.ok(&[
        "source-file",
        w.root().join("home/.tmux.conf").to_str().unwrap(),
    ]);
    let again = w.cli(&["tmux", "start", "-L", w.tmux.socket()]).output();
    assert!(again.status.success(), "{again:?}");
    w.wait_settled();
    assert_eq!(w.runs().len(), runs, "nothing ran twice");
    let log = fs::read_to_string(w.log()).unwrap();
    assert!(log.contains("restored before"), "{log}");
    detach(client);
}

#[test]
fn two_starts_at_once_restore_the_server_once() {
    let w = World::new("");
    let ids = w.build();
    let saved = w.saved();
    w.reboot();
    // A server whose config does not load the line, then two starts at
    // once: one restores.
    let tmux_conf = w.root().join("home/.tmux.conf");
    fs::write(&tmux_conf, "set -g default-command \"bash -i\"\n").unwrap();
    w.tmux.ok(&["new-session", "-d", "-s", "scratch"]);
    fs::write(
        &tmux_conf,
        "set -g default-command \"bash -i\"\n\
         run-shell 'agent-resume init tmux | tmux source-file -'\n",
    )
    .unwrap();
    // A restore holds the lock (taken here as a restore takes it): both
    // starts wait for it, then one restores.
    let lock_path = w.db().with_file_name("tmux-restore.lock");
    let lock = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&lock_path)
        .unwrap();
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let starts: Vec<_> = (0..2)
        .map(|_| w.cli(&["tmux", "start", "-L", w.tmux.socket()]).spawn())
        .collect();
    wait_for("both starts to run", || {
        let n = agent_resume_test_support::tmux::marked(MARKER, w.root())
            .iter()
            .filter(|(_, c)| c.contains("tmux start"))
            .count();
        (n >= 2).then_some(())
    });
    std::thread::sleep(std::time::Duration::from_secs(1));
    let live = w.live();
    assert!(
        live.keys().all(|k| k.starts_with("scratch:")),
        "nothing is made while a restore holds the lock: {live:?}"
    );
    drop(lock);
    for mut s in starts {
        assert!(s.wait().unwrap().success());
    }
    assert_restored(&w, &saved, &ids);
    w.wait_settled();
    assert_eq!(w.resumed().len(), 2, "{:?}", w.runs());
    // A detached `tmux new -d` made the scratch session: no client was
    // moved from it, and it stays.
    let sessions = w.tmux.ok(&["list-sessions", "-F", "#{session_name}"]);
    assert!(sessions.lines().any(|s| s == "scratch"), "{sessions}");
}

#[test]
fn with_restore_manual_a_start_restores_nothing_and_the_command_still_does() {
    let w = World::new("restore = \"manual\"\n");
    let ids = w.build();
    let saved = w.saved();
    w.reboot();
    let client = w.attach_new();
    wait_for("the start to have run", || {
        fs::read_to_string(w.log())
            .ok()
            .filter(|l| l.contains("manual"))
    });
    assert!(w.resumed().is_empty());
    let sessions = w.tmux.ok(&["list-sessions", "-F", "#{session_name}"]);
    assert!(!sessions.lines().any(|s| s == "work"), "{sessions}");
    // The snapshot of the dead server is still the saved one.
    assert_eq!(w.saved(), saved);
    let out = w
        .cli(&["tmux", "restore", "--recreate", "-L", w.tmux.socket()])
        .output();
    assert!(out.status.success(), "{out:?}");
    assert_restored(&w, &saved, &ids);
    detach(client);
}

#[test]
fn with_the_feature_off_a_start_reads_nothing_and_the_hooks_save_again() {
    let w = World::new("");
    w.build();
    w.reboot();
    let client = w.attach_new_with(&[("AGENT_RESUME", "0")]);
    wait_for("the start to have run", || {
        fs::read_to_string(w.log())
            .ok()
            .filter(|l| l.contains("disabled"))
    });
    assert!(w.resumed().is_empty());
    let restoring = w
        .tmux
        .ok(&["show-options", "-gqv", "@agent_resume_restoring"]);
    assert_eq!(restoring.trim(), "", "the hooks' quiet is cleared");
    detach(client);
}

#[test]
fn a_restore_resumes_the_pane_in_front_first_and_never_more_agents_at_once_than_the_cap() {
    let w = World::new("max_concurrent_resumes = 2\n");
    let t = &w.tmux;
    let a = w.dir("a");
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
    for target in ["=work:0", "=work:0"] {
        t.ok(&["split-window", "-d", "-t", target, "-c", &a]);
    }
    t.ok(&["new-window", "-d", "-t", "=work:1", "-c", &a]);
    for _ in 0..2 {
        t.ok(&["split-window", "-d", "-t", "=work:1", "-c", &a]);
    }
    let mut n = 0;
    for window in 0..2 {
        for pane in 0..3 {
            let target = format!("=work:{window}.{pane}");
            w.wait_prompt(&target);
            t.type_line(&target, "claude");
            n += 1;
            wait_for("the stand-in to report", || {
                (w.runs().len() == n).then_some(())
            });
        }
    }
    // The pane in front: window 1, its last pane.
    t.ok(&["select-window", "-t", "=work:1"]);
    t.ok(&["select-pane", "-t", "=work:1.2"]);
    w.wait_settled();
    let out = w.cli(&["tmux", "save", "-L", t.socket()]).output();
    assert!(out.status.success(), "{out:?}");
    let front = w.saved()["work:1.2"].clone();
    w.reboot();

    // Each agent takes 0.3 s to be ready.
    let client = w.attach_new_with(&[("STANDIN_READY", "0.3")]);
    wait_for("all six to resume", || {
        (w.resumed().len() == 6).then_some(())
    });
    wait_for("the start to follow them to their end", || {
        fs::read_to_string(w.log())
            .ok()
            .filter(|l| l.contains("6 agent(s) resumed: 6 confirmed"))
    });
    let runs: Vec<Ran> = w
        .runs()
        .into_iter()
        .filter(|r| r.argv.iter().any(|a| a == "--resume"))
        .collect();
    // The pane in front is handed its line first, and each later pane no
    // earlier than the one ranked before it. (With two at once, the
    // second agent's process may still start a moment before the first's:
    // that race is the operating system's, not the order's.)
    let db = rusqlite::Connection::open(w.db()).unwrap();
    let mut rows = db
        .prepare("SELECT pane, started_at FROM resumes ORDER BY rank")
        .unwrap();
    let handed: Vec<(String, i64)> = rows
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(handed.len(), 6, "{handed:?}");
    assert_eq!(handed[0].0, front, "the pane in front resumed first");
    assert!(
        handed.windows(2).all(|p| p[0].1 <= p[1].1),
        "the lines went out in rank order: {handed:?}"
    );
    // Never more than two starting (started, not yet ready) at once.
    let mut edges: Vec<(u128, i32)> = runs
        .iter()
        .flat_map(|r| [(r.started, 1), (r.ready, -1)])
        .collect();
    edges.sort_by_key(|(t, d)| (*t, *d));
    let (mut now, mut peak) = (0, 0);
    for (_, d) in edges {
        now += d;
        peak = peak.max(now);
    }
    let t0 = runs.iter().map(|r| r.started).min().unwrap();
    let shown: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{}..{} ms",
                (r.started - t0) / 1_000_000,
                (r.ready - t0) / 1_000_000
            )
        })
        .collect();
    assert!(peak <= 2, "{peak} agents were starting at once: {shown:?}");
    let log = fs::read_to_string(w.log()).unwrap();
    assert!(
        log.contains("at most 2 starting at once") || log.contains("at most 1 starting"),
        "{log}"
    );
    detach(client);
}

/// The shells of the ask test, each in its own window: program, prompt.
const SHELLS: [(&str, &str); 3] = [("bash", "bash$"), ("zsh", "zsh%"), ("fish", "fish>")];

/// `restore = "ask"`: after a restart each pane's shell asks one line
/// before it resumes; `answers` is the key typed in bash, zsh and fish.
fn ask(answers: [&str; 3]) {
    let w = World::new("restore = \"ask\"\n");
    let t = &w.tmux;
    let a = w.dir("a");
    t.ok(&[
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "200",
        "-y",
        "50",
        "-c",
        &a,
    ]);
    for (i, (program, _)) in SHELLS.iter().enumerate().skip(1) {
        t.ok(&[
            "new-window",
            "-d",
            "-t",
            &format!("=work:{i}"),
            "-c",
            &a,
            program,
        ]);
    }
    for (i, (_, prompt)) in SHELLS.iter().enumerate() {
        let target = format!("=work:{i}.0");
        w.wait_shell_prompt(&target, prompt);
        // bash's run carries a posture flag, which the question names.
        let line = if i == 0 {
            "claude --dangerously-skip-permissions"
        } else {
            "claude"
        };
        t.type_line(&target, line);
        wait_for("the stand-in to report", || {
            (w.runs().len() == i + 1).then_some(())
        });
    }
    w.wait_settled();
    let out = w.cli(&["tmux", "save", "-L", t.socket()]).output();
    assert!(out.status.success(), "{out:?}");
    let saved = w.saved();
    w.reboot();

    let client = w.attach_new();
    wait_for("the saved panes to be made", || {
        let out = w.tmux.run(&[
            "list-panes",
            "-a",
            "-F",
            "#{session_name}:#{window_index}.#{pane_index}",
        ]);
        let made = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| saved.contains_key(*l))
            .count();
        (made == saved.len()).then_some(())
    });
    for (i, (shell, _)) in SHELLS.iter().enumerate() {
        let target = format!("=work:{i}.0");
        let screen = w
            .tmux
            .wait_screen(&target, &format!("{shell}'s question"), |s| {
                s.contains("[y/N]")
            });
        assert!(
            screen.contains("agent-resume: resume claude in"),
            "{screen}"
        );
        assert_eq!(
            screen.contains("(carries --dangerously-skip-permissions)"),
            i == 0,
            "{screen}"
        );
        assert!(
            !w.resumed().contains_key(&saved[&format!("work:{i}.0")]),
            "asked first"
        );
    }
    for (i, key) in answers.iter().enumerate() {
        w.tmux
            .ok(&["send-keys", "-t", &format!("=work:{i}.0"), "-l", key]);
    }
    for (i, ((shell, prompt), key)) in SHELLS.iter().zip(answers).enumerate() {
        let target = format!("=work:{i}.0");
        let pane = &saved[&format!("work:{i}.0")];
        if key == "y" {
            wait_for(&format!("{shell}'s claude to resume"), || {
                w.resumed().contains_key(pane).then_some(())
            });
        } else {
            // A plain shell: its prompt, and nothing typed into it.
            w.wait_shell_prompt(&target, prompt);
            let line = w.tmux.ok(&[
                "display-message",
                "-p",
                "-t",
                &target,
                "#{pane_current_command}",
            ]);
            assert_eq!(line.trim(), *shell, "{shell}: a plain shell");
            assert!(
                !w.resumed().contains_key(pane),
                "{shell} resumed after {key:?}"
            );
        }
    }
    let declined = answers.iter().filter(|k| **k != "y").count();
    wait_for("the declines in telemetry", || {
        let text = fs::read_to_string(
            w.root()
                .join("home/.local/state/agent-resume/telemetry.jsonl"),
        )
        .unwrap_or_default();
        (text.matches("\"declined\"").count() == declined).then_some(())
    });
    detach(client);
}

#[test]
fn with_restore_ask_each_shell_asks_and_resumes_only_on_yes() {
    ask(["y", "n", "y"]);
}

#[test]
fn with_restore_ask_any_key_but_yes_leaves_a_plain_shell() {
    ask(["\r", "y", "x"]);
}

#[test]
fn a_resume_the_agent_refuses_is_reported_as_exited_and_its_recording_is_kept() {
    let w = World::new("");
    let ids = w.build();
    let saved = w.saved();
    w.reboot();
    let client = w.attach_new_with(&[("STANDIN_REFUSE_RESUME", "1")]);
    let log = wait_for("the start to follow both resumes to their end", || {
        fs::read_to_string(w.log())
            .ok()
            .filter(|l| l.contains("agent(s) resumed"))
    });
    assert!(
        log.contains("2 agent(s) resumed: 0 confirmed, 0 not confirmed, 2 exited at once"),
        "{log}"
    );
    let telemetry = fs::read_to_string(
        w.root()
            .join("home/.local/state/agent-resume/telemetry.jsonl"),
    )
    .unwrap();
    assert_eq!(
        telemetry.matches("\"resume_exited\"").count(),
        2,
        "{telemetry}"
    );
    // The recordings stay for the next restart.
    let db = rusqlite::Connection::open(w.db()).unwrap();
    for (place, id) in &ids {
        let kept: String = db
            .query_row(
                "SELECT session_id FROM agent_sessions WHERE pane = ?1",
                [&saved[place]],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(&kept, id, "{place}");
    }
    detach(client);
}
