//! Zero-config capture under tmux: no hook installed, no shell integration
//! loaded; `agent-resume tmux save` alone records each pane's agent.
//!
//! Stand-in agents (one `sh` script under each verified agent's name, first
//! on `PATH`) write the records the real CLIs write, per the agents' own
//! documentation (docs/capture.md, "Zero-config capture"): Claude its
//! `~/.claude/sessions/<pid>.json`, Codex a rollout it holds open and its
//! `thread-writer-locks/<id>.lock`, Grok `active_sessions.json`, Qwen and
//! Copilot a transcript they hold open, Pi a session file in its store; the
//! others are given their id on the command line. Each is typed at a bash
//! prompt in its own tmux pane and stays in the foreground (its `sh` is the
//! agent process) until the test ends or, for the exit-hint case, until a
//! line is typed.
//!
//! A missing tmux, bash or sh fails the test naming it.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use agent_resume_test_support::{require, PrivateEnv, TmuxWorld};

const STANDIN: &str = r#"#!/bin/sh
# A stand-in agent: writes what the real CLI writes, then waits.
name=$(basename "$0")
id="$STANDIN_ID"
case "$name" in
claude)
  if [ -n "$STANDIN_HINT" ]; then
    echo "[stand-in claude] ready"
    read -r line
    # As the real CLI: the transcript is written before the hint.
    d="$HOME/.claude/projects/$(printf %s "$PWD" | sed 's/[^A-Za-z0-9]/-/g')"
    mkdir -p "$d"
    printf '{"type":"user","cwd":"%s","sessionId":"%s","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-12-01T00:00:00Z"}\n' \
      "$PWD" "$id" > "$d/$id.jsonl"
    printf 'Resume this session with:\nclaude --resume %s\n' "$id"
    exit 0
  fi
  mkdir -p "$HOME/.claude/sessions"
  printf '{"pid":%s,"sessionId":"%s","cwd":"%s","kind":"interactive"}\n' $$ "$id" "$PWD" \
    > "$HOME/.claude/sessions/$$.json" ;;
codex)
  d="$HOME/.codex/sessions/2026/12/01"
  mkdir -p "$d" "$HOME/.codex/thread-writer-locks"
  exec 8>>"$d/rollout-2026-12-01T05-30-00-$id.jsonl" 9>"$HOME/.codex/thread-writer-locks/$id.lock" ;;
grok)
  mkdir -p "$HOME/.grok"
  printf '[{"session_id":"%s","pid":%s,"cwd":"%s","opened_at":"now"}]\n' "$id" $$ "$PWD" \
    > "$HOME/.grok/active_sessions.json" ;;
qwen)
  slug=$(printf %s "$PWD" | sed 's/[^A-Za-z0-9]/-/g')
  d="$HOME/.qwen/projects/$slug/chats"
  mkdir -p "$d"
  exec 8>>"$d/$id.jsonl" ;;
copilot)
  d="$HOME/.copilot/session-state/$id"
  mkdir -p "$d"
  exec 8>>"$d/events.jsonl" ;;
pi)
  slug=$(printf %s "$PWD" | sed 's/^\///; s/[\/:]/-/g')
  d="$HOME/.pi/agent/sessions/--$slug--"
  mkdir -p "$d"
  for i in $STANDIN_PI_IDS; do
    printf '{"type":"session","version":3,"id":"%s","timestamp":"2026-12-01T05:30:00.000Z","cwd":"%s"}\n' \
      "$i" "$PWD" > "$d/2026-12-01T05-30-00-000Z_$i.jsonl"
  done ;;
esac
echo "[stand-in $name] ready"
sleep 86400
"#;

const NAMES: &[&str] = &[
    "claude", "codex", "gemini", "qwen", "copilot", "opencode", "droid", "grok", "pi",
];

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// A UUID v7 stamped now, made distinct by `n`.
fn v7(n: u64) -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    format!("{:08x}-{:04x}-7abc-8def-{:012x}", ms >> 16, ms & 0xffff, n)
}

/// A user's world ([`PrivateEnv::user`]: the stand-ins in `root/bin` first
/// on `PATH`) and its tmux server, with no config, holding an idle session.
struct World(TmuxWorld);

impl std::ops::Deref for World {
    type Target = TmuxWorld;
    fn deref(&self) -> &TmuxWorld {
        &self.0
    }
}

impl World {
    fn new() -> World {
        for tool in ["tmux", "bash", "sh", "sleep", "sed"] {
            require(tool);
        }
        let env = PrivateEnv::user(agent_resume());
        for name in NAMES {
            let p = env.root().join("bin").join(name);
            fs::write(&p, STANDIN).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
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

    /// A bash (no rc file, no integration) in its own window in `dir`,
    /// with `line` typed and the stand-in's "ready" waited for.
    fn pane(&self, dir: &str, line: &str) -> String {
        let cwd = self.root().join("w").join(dir);
        fs::create_dir_all(&cwd).unwrap();
        let pane = self.tmux.spawn(
            &cwd,
            &["env", "PS1=bash$ ", "bash", "--norc", "--noprofile", "-i"],
        );
        self.tmux
            .wait_screen(&pane, "a bash prompt", |s| s.contains("bash$"));
        self.tmux.type_line(&pane, line);
        self.tmux
            .wait_screen(&pane, "the stand-in to start", |s| s.contains("] ready"));
        pane
    }

    fn cli<S: AsRef<OsStr>>(&self, args: &[S]) -> String {
        let out = self.0.cli(args).output();
        assert!(
            out.status.success(),
            "agent-resume {:?}: {}",
            args.iter()
                .map(|a| a.as_ref().to_owned())
                .collect::<Vec<_>>(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn save(&self) {
        self.cli(&["tmux", "save", "-L", self.tmux.socket()]);
    }

    /// Recordings by the tmux pane (`%N`) they belong to: (agent, id, flags).
    fn recordings(&self) -> BTreeMap<String, (String, String, String)> {
        let text = self.cli(&["recordings", "--json"]);
        let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        let by_id: BTreeMap<String, String> = self
            .tmux
            .ok(&["list-panes", "-a", "-F", "#{@agent_resume_pane} #{pane_id}"])
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .collect();
        rows.iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
                let flags = match &r["flags"] {
                    serde_json::Value::Array(a) => a
                        .iter()
                        .flat_map(|f| [&f["name"], &f["value"]])
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect::<Vec<_>>()
                        .join(" "),
                    v => v.as_str().unwrap_or_default().to_owned(),
                };
                let pane = by_id.get(&s("pane")).cloned().unwrap_or_else(|| s("pane"));
                (pane, (s("agent"), s("session_id"), flags))
            })
            .collect()
    }
}

const CLAUDE_ID: &str = "3c1f5d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f";
const GEMINI_ID: &str = "5d2e3c1f-8a4b-4c6d-9e0f-1a2b3c4d5e6f";
const QWEN_ID: &str = "8a4b3c1f-5d2e-4c6d-9e0f-1a2b3c4d5e6f";
const COPILOT_ID: &str = "9e0f3c1f-5d2e-4c6d-8a4b-1a2b3c4d5e6f";
const OPENCODE_ID: &str = "ses_0123456789abCDEFGHIJKLMNOP";
const DROID_ID: &str = "1a2b3c1f-5d2e-4c6d-8a4b-9e0f3c4d5e6f";
const HEADLESS_ID: &str = "4c6d3c1f-5d2e-4a4b-8a4b-9e0f3c4d5e6f";
const HINT_ID: &str = "6e5d3c1f-5d2e-4a4b-8a4b-9e0f3c4d5e6f";

#[test]
fn one_save_records_every_verified_agent_with_its_id_and_exactly_its_argv_flags_with_no_hook() {
    let w = World::new();
    let codex_id = v7(1);
    let grok_id = v7(2);
    let pi_id = v7(3);
    let cases: Vec<(&str, String, (&str, String, &str))> = vec![
        (
            "claude",
            format!("STANDIN_ID={CLAUDE_ID} claude --model opus"),
            ("claude", CLAUDE_ID.into(), "--model opus"),
        ),
        (
            "codex",
            format!("STANDIN_ID={codex_id} codex -m gpt-5 -s workspace-write"),
            (
                "codex",
                codex_id.clone(),
                "--model gpt-5 --sandbox workspace-write",
            ),
        ),
        (
            "gemini",
            format!("gemini --session-id {GEMINI_ID} -m gemini-2.5-pro"),
            ("gemini", GEMINI_ID.into(), "--model gemini-2.5-pro"),
        ),
        (
            "qwen",
            format!("STANDIN_ID={QWEN_ID} qwen --yolo"),
            ("qwen", QWEN_ID.into(), "--yolo"),
        ),
        (
            "copilot",
            format!("STANDIN_ID={COPILOT_ID} copilot --model gpt-5"),
            ("copilot", COPILOT_ID.into(), "--model gpt-5"),
        ),
        (
            "opencode",
            format!("opencode --session {OPENCODE_ID} --agent build"),
            ("opencode", OPENCODE_ID.into(), "--agent build"),
        ),
        (
            "droid",
            format!("droid --resume={DROID_ID}"),
            ("droid", DROID_ID.into(), ""),
        ),
        (
            "grok",
            format!("STANDIN_ID={grok_id} grok -m grok-4"),
            ("grok", grok_id.clone(), "--model grok-4"),
        ),
        (
            "pi",
            format!("STANDIN_PI_IDS={pi_id} pi --provider anthropic"),
            ("pi", pi_id.clone(), "--provider anthropic"),
        ),
    ];
    let mut panes = Vec::new();
    for (dir, line, want) in &cases {
        panes.push((w.pane(dir, line), want.clone()));
    }
    w.save();
    let got = w.recordings();
    for (pane, (agent, id, flags)) in &panes {
        assert_eq!(
            got.get(pane),
            Some(&(agent.to_string(), id.clone(), flags.to_string())),
            "{agent} in {pane}; all: {got:#?}"
        );
    }
    assert_eq!(got.len(), panes.len(), "{got:#?}");
}

#[test]
fn two_new_sessions_in_one_directory_and_a_headless_run_record_nothing_while_one_new_session_is_recorded(
) {
    let w = World::new();
    let two = w.pane("two", &format!("STANDIN_PI_IDS='{} {}' pi", v7(4), v7(5)));
    let headless = w.pane(
        "headless",
        &format!("STANDIN_ID={HEADLESS_ID} claude -p hi"),
    );
    // The control: one new session in its directory is recorded.
    let one_id = v7(6);
    let one = w.pane("one", &format!("STANDIN_PI_IDS={one_id} pi"));
    w.save();
    let got = w.recordings();
    assert_eq!(got.get(&two), None, "ambiguity records nothing");
    assert_eq!(got.get(&headless), None, "a headless run is never recorded");
    assert_eq!(
        got.get(&one),
        Some(&("pi".to_owned(), one_id, String::new())),
        "{got:#?}"
    );
    assert_eq!(got.len(), 1, "{got:#?}");
}

#[test]
fn an_agent_that_exits_printing_its_exit_hint_is_captured_from_the_hint() {
    let w = World::new();
    let pane = w.pane(
        "hint",
        &format!("STANDIN_HINT=1 STANDIN_ID={HINT_ID} claude --model sonnet"),
    );
    // Running, with no sign of its id yet: nothing recorded.
    w.save();
    assert!(w.recordings().is_empty());
    w.tmux.type_line(&pane, "");
    w.tmux
        .wait_screen(&pane, "the exit hint and a prompt", |s| {
            s.contains(&format!("claude --resume {HINT_ID}")) && s.trim_end().ends_with("bash$")
        });
    w.save();
    assert_eq!(
        w.recordings().get(&pane),
        Some(&(
            "claude".to_owned(),
            HINT_ID.to_owned(),
            "--model sonnet".to_owned()
        ))
    );
}

#[test]
fn a_hint_printed_after_the_agent_exited_names_no_session_for_the_pane() {
    let w = World::new();
    let cwd = w.root().join("w/printed");
    // An older conversation of this directory, written long before the run.
    let old = "0a1b3c1f-5d2e-4a4b-8a4b-9e0f3c4d5e6f";
    let slug: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let projects = w.root().join("home/.claude/projects").join(slug);
    fs::create_dir_all(&projects).unwrap();
    let transcript = projects.join(format!("{old}.jsonl"));
    fs::write(
        &transcript,
        format!(
            "{{\"type\":\"user\",\"cwd\":\"{}\",\"sessionId\":\"{old}\",\"message\":{{\"role\":\"user\",\"content\":\"old\"}},\"uuid\":\"u1\",\"timestamp\":\"2026-01-01T00:00:00Z\"}}\n",
            cwd.display()
        ),
    )
    .unwrap();
    let day_ago = SystemTime::now() - std::time::Duration::from_secs(86_400);
    fs::File::options()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_modified(day_ago)
        .unwrap();
    let never = "7b7b3c1f-5d2e-4a4b-8a4b-9e0f3c4d5e6f";
    for (i, fake) in [old, never].into_iter().enumerate() {
        let pane = w.pane(
            "printed",
            &format!("STANDIN_HINT=1 STANDIN_ID={HINT_ID} claude --model sonnet"),
        );
        w.save();
        // The agent exits with its own hint; then a program the user runs
        // prints a hint-shaped line of its own, before the next save.
        w.tmux.type_line(&pane, "");
        w.tmux.wait_screen(&pane, "the agent's exit", |s| {
            s.contains(&format!("claude --resume {HINT_ID}")) && s.trim_end().ends_with("bash$")
        });
        w.tmux.type_line(
            &pane,
            &format!("printf 'Resume this session with:\\nclaude --resume %s\\n' {fake}"),
        );
        w.tmux.wait_screen(&pane, "the printed hint", |s| {
            s.contains(&format!("claude --resume {fake}")) && s.trim_end().ends_with("bash$")
        });
        w.save();
        let got = w.recordings();
        assert_eq!(got.get(&pane), None, "case {i}: {got:#?}");
    }
}

#[test]
fn capture_scan_records_the_agent_under_a_given_pid_for_any_host() {
    let w = World::new();
    let cwd = w.root().join("w/scan");
    fs::create_dir_all(&cwd).unwrap();
    let mut child = w
        .env
        .program(w.root().join("bin/claude"), &["--model", "opus"])
        .into_inner()
        .current_dir(&cwd)
        .env("STANDIN_ID", CLAUDE_ID)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let registry = w
        .root()
        .join(format!("home/.claude/sessions/{}.json", child.id()));
    agent_resume_test_support::wait_for("the stand-in's pid registry entry", || {
        fs::read_to_string(&registry)
            .ok()
            .filter(|t| t.ends_with('\n'))
    });
    let pane = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
    let out = w.cli(&[
        "capture",
        "scan",
        "--pane",
        &format!("{pane}={}", child.id()),
    ]);
    // The stand-in and its `sleep`, as one group.
    let group = format!("-{}", child.id());
    let killed = Command::new("kill").args(["-TERM", "--", &group]).status();
    child.wait().unwrap();
    assert!(killed.unwrap().success());
    assert_eq!(out, format!("{pane}\tclaude\trecorded\tregistry\n"));
    assert_eq!(
        w.recordings().get(pane),
        Some(&(
            "claude".to_owned(),
            CLAUDE_ID.to_owned(),
            "--model opus".to_owned()
        ))
    );
}

#[test]
fn a_suspended_agent_has_not_ended_and_an_older_hint_on_screen_does_not_replace_its_id() {
    let w = World::new();
    let old = "7f7f3c1f-5d2e-4a4b-8a4b-9e0f3c4d5e6f";
    let cwd = w.root().join("w/suspend");
    fs::create_dir_all(&cwd).unwrap();
    let pane = w.tmux.spawn(
        &cwd,
        &["env", "PS1=bash$ ", "bash", "--norc", "--noprofile", "-i"],
    );
    w.tmux
        .wait_screen(&pane, "a bash prompt", |s| s.contains("bash$"));
    // An earlier run's hint, still in the scrollback.
    w.tmux.type_line(
        &pane,
        &format!("printf 'Resume this session with:\\nclaude --resume %s\\n' {old}"),
    );
    w.tmux
        .type_line(&pane, &format!("STANDIN_ID={CLAUDE_ID} claude"));
    w.tmux
        .wait_screen(&pane, "the stand-in to start", |s| s.contains("] ready"));
    w.save();
    let want = Some(("claude".to_owned(), CLAUDE_ID.to_owned(), String::new()));
    assert_eq!(w.recordings().get(&pane), want.as_ref());
    w.tmux.ok(&["send-keys", "-t", &pane, "C-z"]);
    w.tmux
        .wait_screen(&pane, "the job stopped", |s| s.contains("Stopped"));
    w.save();
    assert_eq!(w.recordings().get(&pane), want.as_ref());
}
