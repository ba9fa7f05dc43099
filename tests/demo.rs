//! The README's first command: `agent-resume demo` runs the whole path —
//! stand-in agents report through the real capture path in a private tmux
//! server, the server is killed, `tmux restore --recreate` brings the panes
//! back — and shows what happened.
#![allow(clippy::unwrap_used)]

use std::process::Command;

#[test]
fn demo_resumes_the_three_stand_in_agents_and_leaves_the_unsafe_pane_a_shell() {
    for tool in ["tmux", "bash"] {
        let found = std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()));
        assert!(found, "{tool} is needed by this test and is not installed");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_agent-resume"))
        .arg("demo")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "demo failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdicts = stdout
        .split("== verdicts after the restart ==")
        .nth(1)
        .expect("verdicts printed");
    // One row per pane, named `session:window.pane`, in that order, with
    // its directory.
    let rows: Vec<&str> = verdicts
        .lines()
        .skip_while(|l| !l.starts_with("pane "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        rows.iter()
            .map(|l| l.split_whitespace().next().unwrap_or_default())
            .collect::<Vec<_>>(),
        ["notes:0.0", "notes:0.1", "work:0.0", "work:0.1", "work:1.0"],
        "{stdout}"
    );
    for (row, dir) in rows
        .iter()
        .zip(["notes", "scratch", "project", "project", "project"])
    {
        assert!(
            row.split_whitespace()
                .nth(1)
                .is_some_and(|d| d.ends_with(&format!("/{dir}"))),
            "{row}"
        );
    }
    let resumed: Vec<&str> = verdicts
        .lines()
        .filter(|l| l.contains("  resume  "))
        .collect();
    assert_eq!(resumed.len(), 3, "{stdout}");
    assert!(resumed
        .iter()
        .any(|l| l.contains("claude --model opus --permission-mode acceptEdits --resume")));
    assert!(resumed
        .iter()
        .any(|l| l.contains("codex --model gpt-5 --sandbox workspace-write resume")));
    assert!(resumed
        .iter()
        .any(|l| l.contains("gemini --model gemini-2.5-pro --resume")));
    assert!(verdicts.contains("directory_gone"), "{stdout}");
    // Each resumed stand-in received exactly the planned argv.
    let ran = stdout.split("== 4.").nth(1).expect("argv section");
    assert_eq!(
        ran.lines()
            .filter(|l| l.contains("--resume") || l.contains(" resume "))
            .count(),
        3,
        "{stdout}"
    );
    assert!(stdout.contains(r#"{"agent":"claude","outcome":"directory_gone","posture_carried":false,"age_band":"le_1h"}"#));
}

#[test]
fn demo_on_kitty_resumes_the_three_stand_in_agents_after_kitty_is_killed() {
    for tool in ["kitty", "Xvfb", "bash"] {
        let found = std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()));
        assert!(
            found,
            "{tool} is needed by this test and is not installed (apt-get install kitty xvfb libgl1-mesa-dri)"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_agent-resume"))
        .args(["demo", "--host", "kitty"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "demo failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdicts = stdout
        .split("== verdicts after the restart ==")
        .nth(1)
        .expect("verdicts printed");
    let rows: Vec<&str> = verdicts
        .lines()
        .skip_while(|l| !l.starts_with("pane "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        rows.iter()
            .map(|l| l.split_whitespace().next().unwrap_or_default())
            .collect::<Vec<_>>(),
        ["w0.t0.p0", "w0.t0.p1", "w0.t1.p0", "w1.t0.p0", "w1.t0.p1"],
        "{stdout}"
    );
    assert_eq!(
        rows.iter().filter(|l| l.contains("  resume  ")).count(),
        3,
        "{stdout}"
    );
    assert!(rows[4].contains("directory_gone"), "{stdout}");
    let ran = stdout
        .split("== 4. what each resumed window now runs")
        .nth(1)
        .expect("argv printed");
    for argv in [
        "claude --model opus --permission-mode acceptEdits --resume ",
        "codex --model gpt-5 --sandbox workspace-write resume ",
        "gemini --model gemini-2.5-pro --resume ",
    ] {
        assert!(ran.contains(argv), "{stdout}");
    }
}
