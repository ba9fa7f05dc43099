//! Zero-config capture in `agent-resume kitty save`: real kitty (0.26.5
//! here) under a private Xvfb display, bash windows with no shell
//! integration and no hook, and a stand-in `claude` first on `PATH` that
//! writes the pid registry the real CLI writes (`~/.claude/sessions/<pid>.json`,
//! as in `tests/zero_config.rs`). One `kitty save` records the agent's
//! window with its id and exactly its argv's flags; the window whose shell
//! sits at its prompt records nothing. A missing kitty or Xvfb fails naming
//! it.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agent_resume_test_support::kitty::{require, windows, Display, Kitty};

const CLAUDE: &str = r#"#!/bin/sh
# Stand-in for Claude Code: its pid registry entry, then it waits.
mkdir -p "$HOME/.claude/sessions"
printf '{"pid":%s,"sessionId":"%s","cwd":"%s","kind":"interactive"}\n' $$ "$STANDIN_ID" "$PWD" \
  > "$HOME/.claude/sessions/$$.json"
echo "[stand-in claude] ready"
sleep 86400
"#;

const ID: &str = "3c1f5d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f";

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

fn wait_screen(kitty: &Kitty, id: u64, text: &str) {
    let end = Instant::now() + Duration::from_secs(30);
    while !kitty.screen(id).contains(text) {
        assert!(
            Instant::now() < end,
            "window {id} never showed {text:?}:\n{}",
            kitty.screen(id)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn kitty_save_records_an_agent_running_with_no_hook_in_its_window() {
    for tool in ["bash", "sh", "sleep"] {
        require(tool);
    }
    let display = Display::start();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let home = root.join("home");
    for d in [
        home.clone(),
        root.join("bin"),
        root.join("w/a"),
        root.join("w/b"),
    ] {
        fs::create_dir_all(d).unwrap();
    }
    let claude = root.join("bin/claude");
    fs::write(&claude, CLAUDE).unwrap();
    fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}:/usr/local/bin:/usr/bin:/bin",
        root.join("bin").display(),
        agent_resume().parent().unwrap().display()
    );
    let env: Vec<(&str, &str)> = vec![
        ("PATH", &path),
        ("PS1", "bash$ "),
        ("LANG", "C.UTF-8"),
        ("AGENT_RESUME", "1"),
    ];
    let session = root.join("first.session");
    let mut text = String::new();
    for d in ["a", "b"] {
        text.push_str(&format!(
            "cd {}\nlaunch bash --norc --noprofile -i\n",
            root.join("w").join(d).display()
        ));
    }
    fs::write(&session, text).unwrap();
    let kitty = Kitty::start(&display, &root.join("k"), &home, Some(&session), &env);
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == 2),
        "opened both windows",
    );
    let kid: Vec<u64> = windows(&ls).iter().map(|w| w.id).collect();
    for id in &kid {
        wait_screen(&kitty, *id, "bash$");
    }
    kitty.type_text(kid[0], &format!("STANDIN_ID={ID} claude --model opus\\r"));
    wait_screen(&kitty, kid[0], "] ready");

    let cli = |args: &[&str]| -> Output {
        let out = Command::new(agent_resume())
            .args(args)
            .env_clear()
            .envs(env.iter().copied())
            .env("HOME", &home)
            .env("KITTY_LISTEN_ON", &kitty.to)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "agent-resume {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    cli(&["kitty", "save"]);

    // The window's pane id, as the save kept it.
    let db = rusqlite::Connection::open(home.join(".local/share/agent-resume/recordings.sqlite3"))
        .unwrap();
    let layout: String = db
        .query_row("SELECT layout FROM host_layouts", [], |r| r.get(0))
        .unwrap();
    let snap: agent_resume_kitty::Snapshot = serde_json::from_str(&layout).unwrap();
    let pane = snap
        .windows()
        .find(|w| w.kitty_id == kid[0])
        .unwrap()
        .id
        .to_string();
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&cli(&["recordings", "--json"]).stdout).unwrap();
    let got: Vec<(String, String, String, String)> = rows
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
            let flags = r["flags"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .flat_map(|f| [&f["name"], &f["value"]])
                        .filter_map(|v| v.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            (s("pane"), s("agent"), s("session_id"), flags)
        })
        .collect();
    assert_eq!(
        got,
        [(pane, "claude".into(), ID.into(), "--model opus".into())]
    );
}
