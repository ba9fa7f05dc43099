//! The kitty host end to end: real kitty (0.26.5 here) under a private
//! Xvfb display, real bash, zsh and fish with the shell integration loaded
//! from their rc files in a private `HOME`, and stand-in `claude`, `codex`
//! and `gemini` programs first on `PATH` (as in `tests/tmux_e2e.rs`).
//!
//! Two OS windows, tabs with splits, agents typed at each shell's prompt
//! (`kitty @ send-text`), a duplicate claim and a deleted directory; the
//! snapshot saved by the shells' prompts and `agent-resume kitty save`;
//! kitty quit with SIGTERM; `agent-resume kitty session` writes the session
//! file kitty starts with. Every resumed stand-in's argv is exact, the
//! others come back as plain shells, no history holds a resume line, and
//! telemetry is exact. A second instance started from a second session
//! while the first runs resumes nothing twice; with the flag off nothing
//! starts. A missing kitty, Xvfb, bash, zsh or fish fails naming it.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agent_resume_test_support::kitty::{require, windows, Display, Kitty};
use serde_json::Value;

const CLAUDE: &str = include_str!("standins/claude");

const CODEX: &str = include_str!("standins/codex");

const GEMINI: &str = include_str!("standins/gemini");

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// What each window is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    Winner,
    Codex,
    Loser,
    Gemini,
    DirGone,
    Plain,
}

/// Window, in session order: role, shell, directory, typed line.
const SCENARIO: [(Role, &str, &str, Option<&str>); 6] = [
    (
        Role::Winner,
        "bash",
        "alpha-claude",
        Some("CLAUDE_STANDIN_ID=@ID@ claude --model opus --permission-mode acceptEdits 'a prompt'"),
    ),
    (
        Role::Codex,
        "zsh",
        "alpha-codex",
        Some("codex -m gpt-5 -s workspace-write"),
    ),
    (
        Role::Loser,
        "bash",
        "beta-claude",
        Some("CLAUDE_STANDIN_ID=@ID@ claude --model sonnet"),
    ),
    (
        Role::Gemini,
        "fish",
        "alpha-gemini",
        Some("gemini -m gemini-2.5-pro"),
    ),
    (
        Role::DirGone,
        "zsh",
        "scratch",
        Some("claude --model haiku"),
    ),
    (Role::Plain, "bash", "plain", None),
];

fn prompt(shell: &str) -> &'static str {
    match shell {
        "bash" => "bash$",
        "zsh" => "zsh%",
        _ => "fish>",
    }
}

struct World {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
    shared: String,
}

impl World {
    fn new() -> World {
        for tool in ["bash", "zsh", "fish", "sh", "sleep"] {
            require(tool);
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_owned();
        let home = root.join("home");
        for d in [
            home.join(".config/fish"),
            home.join(".local/share/fish/generated_completions"),
            root.join("bin"),
            root.join("ran"),
        ] {
            fs::create_dir_all(d).unwrap();
        }
        for (_, _, d, _) in SCENARIO {
            fs::create_dir_all(root.join("w").join(d)).unwrap();
        }
        for (name, text) in [("claude", CLAUDE), ("codex", CODEX), ("gemini", GEMINI)] {
            let p = root.join("bin").join(name);
            fs::write(&p, text).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::write(home.join(".bashrc"), "PS1='bash$ '\nHISTFILE=~/.bash_history\nPROMPT_COMMAND='history -a'\neval \"$(agent-resume init bash)\"\n").unwrap();
        fs::write(home.join(".zshrc"), "PS1='zsh%% '\nHISTFILE=~/.zsh_history\nHISTSIZE=1000\nSAVEHIST=1000\nsetopt INC_APPEND_HISTORY\neval \"$(agent-resume init zsh)\"\n").unwrap();
        fs::write(home.join(".config/fish/config.fish"), "function fish_prompt\n    printf 'fish> '\nend\nfunction fish_greeting\nend\nagent-resume init fish | source\n").unwrap();
        let bin_dir = agent_resume().parent().unwrap();
        let path = format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            root.join("bin").display(),
            bin_dir.display()
        );
        let env = vec![
            ("HOME".to_owned(), home.display().to_string()),
            ("PATH".to_owned(), path),
            ("SHELL".to_owned(), require("bash").display().to_string()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            (
                "STANDIN_RAN".to_owned(),
                root.join("ran").display().to_string(),
            ),
            ("AGENT_RESUME".to_owned(), "1".to_owned()),
        ];
        World {
            dir,
            env,
            shared: uuid::Uuid::new_v4().to_string(),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn kitty(&self, display: &Display, socket: &str, session: &Path, flag: &str) -> Kitty {
        let mut env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.push(("AGENT_RESUME", flag));
        Kitty::start(
            display,
            &self.root().join(socket),
            &self.home(),
            Some(session),
            &env,
        )
    }

    fn cli(&self, flag: &str, args: &[&str], to: Option<&str>) -> Output {
        let mut cmd = Command::new(agent_resume());
        cmd.args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("AGENT_RESUME", flag);
        if let Some(to) = to {
            cmd.env("KITTY_LISTEN_ON", to);
        }
        let out = cmd.stdin(Stdio::null()).output().unwrap();
        assert!(
            out.status.success(),
            "agent-resume {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Stand-in runs: file name → lines (agent, pane, cwd, id, argv…).
    fn runs(&self) -> BTreeMap<String, Vec<String>> {
        fs::read_dir(self.root().join("ran"))
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                (!name.ends_with(".part")).then(|| {
                    let text = fs::read_to_string(self.root().join("ran").join(&name)).unwrap();
                    (name, text.lines().map(str::to_owned).collect())
                })
            })
            .collect()
    }

    fn wait_runs(&self, n: usize, what: &str) -> BTreeMap<String, Vec<String>> {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let runs = self.runs();
            if runs.len() >= n {
                return runs;
            }
            assert!(
                Instant::now() < end,
                "{what}: {} of {n} stand-ins ran: {runs:?}",
                runs.len()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn events(&self) -> Vec<(String, String, bool)> {
        let text = fs::read_to_string(
            self.home()
                .join(".local/state/agent-resume/telemetry.jsonl"),
        )
        .unwrap_or_default();
        let mut events: Vec<_> = text
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["agent"].as_str().unwrap().to_owned(),
                    v["outcome"].as_str().unwrap().to_owned(),
                    v["posture_carried"].as_bool().unwrap(),
                )
            })
            .collect();
        events.sort();
        events
    }
}

/// Waits until window `id` shows `text`.
fn wait_screen(kitty: &Kitty, id: u64, text: &str, what: &str) {
    let end = Instant::now() + Duration::from_secs(30);
    while !kitty.screen(id).contains(text) {
        assert!(
            Instant::now() < end,
            "{what}: window {id} never showed {text:?}:\n{}",
            kitty.screen(id)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn ev(agent: &str, outcome: &str, posture: bool) -> (String, String, bool) {
    (agent.to_owned(), outcome.to_owned(), posture)
}

#[test]
fn quitting_kitty_and_starting_it_from_the_session_resumes_every_agent_window_exactly_once() {
    let display = Display::start();
    let w = World::new();
    let dir = |d: &str| w.root().join("w").join(d).display().to_string();
    // The world as the user opened it: two OS windows, tabs with splits,
    // no window with a pane id from kitty (each shell asks for its own).
    let mut first = String::new();
    for (i, (role, shell, d, _)) in SCENARIO.iter().enumerate() {
        match i {
            0 | 2 => first.push_str("new_tab\nlayout splits\n"),
            4 => first.push_str("new_os_window\nnew_tab\nlayout tall\n"),
            _ => {}
        }
        first.push_str(&format!("cd {}\nlaunch {shell}\n", dir(d)));
        if *role == Role::Winner {
            first.push_str("focus\nfocus_os_window\n");
        }
    }
    let first_file = w.root().join("first.session");
    fs::write(&first_file, first).unwrap();
    let mut kitty = w.kitty(&display, "k1", &first_file, "1");
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == SCENARIO.len()),
        "opened the world",
    );
    let kid: Vec<u64> = windows(&ls).iter().map(|w| w.id).collect();
    for (i, (_, shell, _, typed)) in SCENARIO.iter().enumerate() {
        wait_screen(&kitty, kid[i], prompt(shell), "first prompt");
        if let Some(line) = typed {
            let line = line.replace("@ID@", &w.shared);
            kitty.type_text(kid[i], &format!("{line}\\r"));
            let n = SCENARIO[..=i].iter().filter(|s| s.3.is_some()).count();
            w.wait_runs(n, "agents started");
        }
    }
    w.cli("1", &["kitty", "save"], Some(&kitty.to));
    fs::remove_dir_all(w.root().join("w/scratch")).unwrap();
    let before = w.runs();
    kitty.quit();

    // ---- start kitty from the written session ----------------------------
    let session = w.root().join("restore.session");
    w.cli(
        "1",
        &["kitty", "session", "-o", session.to_str().unwrap()],
        None,
    );
    let text = fs::read_to_string(&session).unwrap();
    assert_eq!(text.matches("new_os_window").count(), 1, "{text}");
    assert_eq!(text.matches("layout splits").count(), 2, "{text}");
    let kitty2 = w.kitty(&display, "k2", &session, "1");
    let ls = kitty2.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == SCENARIO.len()),
        "restored every window",
    );
    let runs = w.wait_runs(before.len() + 3, "resumed agents");
    let resumed: Vec<&Vec<String>> = runs
        .iter()
        .filter(|(k, _)| !before.contains_key(*k))
        .map(|(_, v)| v)
        .collect();
    let first_run = |role: Role| -> &Vec<String> {
        let d = dir(SCENARIO.iter().find(|s| s.0 == role).unwrap().2);
        before.values().find(|r| r[2] == d).unwrap()
    };
    let reported = |role: Role| first_run(role)[3].clone();
    let pane = |role: Role| first_run(role)[1].clone();
    // Every window had its own pane id, none inherited.
    let mut panes: Vec<&String> = before.values().map(|r| &r[1]).collect();
    panes.sort();
    panes.dedup();
    assert_eq!(panes.len(), before.len(), "{before:?}");
    assert!(
        panes.iter().all(|p| p.parse::<uuid::Uuid>().is_ok()),
        "{before:?}"
    );
    let mut want = vec![
        [
            vec![
                "claude".into(),
                pane(Role::Winner),
                dir("alpha-claude"),
                "-".into(),
            ],
            [
                "--model",
                "opus",
                "--permission-mode",
                "acceptEdits",
                "--resume",
            ]
            .map(String::from)
            .to_vec(),
            vec![reported(Role::Winner)],
        ]
        .concat(),
        [
            vec![
                "codex".into(),
                pane(Role::Codex),
                dir("alpha-codex"),
                "-".into(),
            ],
            ["--model", "gpt-5", "--sandbox", "workspace-write", "resume"]
                .map(String::from)
                .to_vec(),
            vec![reported(Role::Codex)],
        ]
        .concat(),
        [
            vec![
                "gemini".into(),
                pane(Role::Gemini),
                dir("alpha-gemini"),
                "-".into(),
            ],
            ["--model", "gemini-2.5-pro", "--resume"]
                .map(String::from)
                .to_vec(),
            vec![reported(Role::Gemini)],
        ]
        .concat(),
    ];
    want.sort();
    let mut got: Vec<Vec<String>> = resumed.into_iter().cloned().collect();
    got.sort();
    assert_eq!(got, want);
    // Every other window is a plain shell at its prompt, nothing typed.
    let kid2: Vec<u64> = windows(&ls).iter().map(|w| w.id).collect();
    for (i, (role, shell, _, _)) in SCENARIO.iter().enumerate() {
        if matches!(role, Role::Loser | Role::DirGone | Role::Plain) {
            wait_screen(&kitty2, kid2[i], prompt(shell), "plain shell");
        }
        let screen = kitty2.screen(kid2[i]);
        for needle in ["agent-resume", "AGENT_RESUME", "take --pane"] {
            assert!(
                !screen.contains(needle),
                "{role:?} shows {needle:?}:\n{screen}"
            );
        }
    }
    assert_eq!(
        w.runs().len(),
        before.len() + 3,
        "only the resumable windows started an agent"
    );
    let mut expected = vec![
        ev("claude", "resumed", true),
        ev("codex", "resumed", true),
        ev("gemini", "resumed", false),
        ev("claude", "duplicate_claim_lost", false),
        ev("claude", "directory_gone", false),
    ];
    expected.sort();
    assert_eq!(w.events(), expected, "telemetry");
    for h in [
        ".bash_history",
        ".zsh_history",
        ".local/share/fish/fish_history",
    ] {
        let text = fs::read_to_string(w.home().join(h)).unwrap_or_default();
        for needle in ["AGENT_RESUME_LINE", "--resume", " resume ", "agent-resume"] {
            assert!(!text.contains(needle), "{h} holds {needle:?}:\n{text}");
        }
    }

    // ---- a second start, while the first runs, resumes nothing twice ----
    let again = w.root().join("again.session");
    let out = w.cli(
        "1",
        &["kitty", "session", "-o", again.to_str().unwrap()],
        None,
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "nothing to restore: every saved kitty window is running\n"
    );
    let kitty3 = w.kitty(&display, "k3", &again, "1");
    let ls3 = kitty3.wait_until(
        |ls| ls.is_some_and(|ls| !windows(ls).is_empty()),
        "started again",
    );
    assert_eq!(windows(&ls3).len(), 1, "one plain window");
    wait_screen(&kitty3, windows(&ls3)[0].id, "bash$", "second start");
    assert_eq!(w.runs().len(), before.len() + 3, "nothing resumed twice");
    assert!(
        w.events().iter().filter(|e| e.1 == "resumed").count() == 3,
        "{:?}",
        w.events()
    );
    drop(kitty3);
    drop(kitty2);

    // ---- flag off: nothing starts ---------------------------------------
    let off = w.root().join("off.session");
    w.cli(
        "0",
        &["kitty", "session", "-o", off.to_str().unwrap()],
        None,
    );
    let count = w.runs().len();
    let kitty4 = w.kitty(&display, "k4", &off, "0");
    let ls4 = kitty4.wait_until(
        |ls| ls.is_some_and(|ls| !windows(ls).is_empty()),
        "started with the flag off",
    );
    assert_eq!(windows(&ls4).len(), 1, "one plain window");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(w.runs().len(), count, "nothing started with the flag off");
}

/// The `splits` layout comes back with each split's axis: a window split
/// below another (`--location=hsplit`) and one beside that
/// (`--location=vsplit`) come back as the same tree (before, the session
/// file named no axis and the stacked pair came back side by side).
#[test]
fn a_splits_tab_comes_back_with_each_split_s_axis() {
    let display = Display::start();
    let w = World::new();
    let d = w.root().join("w").display().to_string();
    let first = format!(
        "new_tab\nlayout splits\ncd {d}\nlaunch sh\ncd {d}\nlaunch --location=hsplit sh\n\
         cd {d}\nlaunch --location=vsplit sh\n"
    );
    let first_file = w.root().join("first.session");
    fs::write(&first_file, first).unwrap();
    let tree = |ls: &[agent_resume_kitty::LsOsWindow]| -> serde_json::Value {
        let mut state = ls[0].tabs[0].layout_state.clone();
        fn strip(v: &mut serde_json::Value) {
            if let Some(m) = v.as_object_mut() {
                m.remove("bias");
                m.values_mut().for_each(strip);
            }
        }
        strip(&mut state);
        state
    };
    let mut kitty = w.kitty(&display, "k1", &first_file, "1");
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == 3),
        "opened the splits",
    );
    let made = tree(&ls);
    assert_eq!(
        made["pairs"]["horizontal"],
        serde_json::Value::Bool(false),
        "{made}"
    );
    w.cli("1", &["kitty", "save"], Some(&kitty.to));
    kitty.quit();
    let session = w.root().join("restore.session");
    w.cli(
        "1",
        &["kitty", "session", "-o", session.to_str().unwrap()],
        None,
    );
    let text = fs::read_to_string(&session).unwrap();
    assert!(text.contains("launch --location=hsplit "), "{text}");
    assert!(text.contains("launch --location=vsplit "), "{text}");
    let kitty2 = w.kitty(&display, "k2", &session, "1");
    let ls = kitty2.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == 3),
        "restored the splits",
    );
    assert_eq!(tree(&ls), made, "the same tree, each split on its axis");
}
