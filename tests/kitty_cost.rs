//! What the shell integration costs a prompt inside kitty (P8k): real
//! kitty under a private Xvfb display, started as usual with kitty.conf as
//! `agent-resume init kitty` prints it, bash with the integration.
//!
//! Every `agent-resume` the shell and kitty's watcher run goes through a
//! wrapper that notes who ran it (the shell, `AGENT_RESUME_SHELL=bash`, or
//! kitty itself) and then runs the real one. A window's start runs one
//! process (`kitty pane`, which saves), its first prompt none; a prompt
//! with nothing changed runs none; a `cd` runs one save; a window kitty
//! closes is saved by the watcher, with no prompt anywhere.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_resume_test_support::kitty::{Display, UsualKitty};
use agent_resume_test_support::{require, wait_for};

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// The wrapper's notes, one line per run: who ran it, then its arguments.
fn calls(log: &Path) -> Vec<String> {
    fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn count(log: &Path, who: &str) -> usize {
    calls(log)
        .iter()
        .filter(|l| l.starts_with(&format!("{who} kitty save")))
        .count()
}

/// Waits until the notes hold still for a second (kitty's start, a new
/// window's resize and focus events, their saves).
fn settled(log: &Path) -> Vec<String> {
    let mut last = calls(log);
    let mut since = Instant::now();
    let deadline = Instant::now() + agent_resume_test_support::PATIENCE;
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = calls(log);
        if now != last {
            last = now;
            since = Instant::now();
        } else if since.elapsed() >= Duration::from_secs(1) {
            return last;
        }
        assert!(Instant::now() < deadline, "the notes never held still");
    }
}

#[test]
fn a_kitty_prompt_with_nothing_changed_runs_no_process_and_kitty_saves_its_own_layout_changes() {
    for tool in ["bash", "sh"] {
        require(tool);
    }
    let display = Display::start();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let home = root.join("home");
    fs::create_dir_all(&home).unwrap();
    let log = root.join("calls");
    let wrapper = root.join("agent-resume-noted");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nprintf '%s %s\\n' \"${{AGENT_RESUME_SHELL:-kitty}}\" \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            agent_resume().display()
        ),
    )
    .unwrap();
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    // The integration as printed, then its program swapped for the wrapper.
    fs::write(
        home.join(".bashrc"),
        format!(
            "PS1='bash$ '\neval \"$(agent-resume init bash)\"\n__agent_resume_bin='{}'\n",
            wrapper.display()
        ),
    )
    .unwrap();
    let bin_dir = agent_resume().parent().unwrap();
    let env = vec![
        ("HOME".to_owned(), home.display().to_string()),
        (
            "PATH".to_owned(),
            format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display()),
        ),
        ("SHELL".to_owned(), require("bash").display().to_string()),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ("AGENT_RESUME".to_owned(), "1".to_owned()),
    ];
    let kitty = UsualKitty::new(agent_resume(), &display, env);
    // kitty's watcher runs the wrapper too.
    let watcher = home.join(".local/state/agent-resume/kitty/watcher.py");
    let text = fs::read_to_string(&watcher).unwrap();
    let program = format!("BIN = '{}'", agent_resume().display());
    assert!(text.contains(&program), "{text}");
    fs::write(
        &watcher,
        text.replace(&program, &format!("BIN = '{}'", wrapper.display())),
    )
    .unwrap();

    let pid = kitty.start();
    let to = kitty.address(pid);
    wait_for("the shell's prompt", || {
        kitty.screen(&to).contains("bash$").then_some(())
    });
    // The window's one process at its start (`kitty pane`, the real
    // program: it runs before the wrapper is swapped in) saved it; its
    // first prompt saves nothing more.
    let before = settled(&log);
    assert_eq!(count(&log, "bash"), 0, "{before:#?}");

    // Twenty prompts with nothing changed: no process.
    let mut lines = "true\r".repeat(20);
    lines.push_str("echo done-$((6*7))\r");
    kitty.at(&to, &["send-text", &lines]).unwrap();
    wait_for("the twentieth prompt", || {
        kitty.screen(&to).contains("done-42").then_some(())
    });
    let after = settled(&log);
    assert_eq!(
        after, before,
        "prompts with nothing changed ran agent-resume"
    );

    // A `cd`: the next prompt saves, once.
    kitty.at(&to, &["send-text", "cd /\r"]).unwrap();
    wait_for("the save after cd", || {
        (count(&log, "bash") == 1).then_some(())
    });

    // A second window: its shell's first prompt saves; closed, no prompt
    // runs anywhere, and kitty's watcher saves the layout without it.
    let id = kitty
        .at(&to, &["launch", "--type=window", "--cwd", "/"])
        .unwrap();
    let id = id.trim().to_owned();
    wait_for("the second window's prompt", || {
        kitty
            .at(&to, &["get-text", "--match", &format!("id:{id}")])
            .filter(|t| t.contains("bash$"))
    });
    settled(&log);
    let by_kitty = count(&log, "kitty");
    kitty
        .at(&to, &["close-window", "--match", &format!("id:{id}")])
        .unwrap();
    wait_for("the watcher's save after the window closed", || {
        (count(&log, "kitty") > by_kitty).then_some(())
    });
    assert_eq!(count(&log, "bash"), 1, "no prompt saved the close");
}
