//! A window of several panes comes back as it was saved: every pane in its
//! place (a|b|c|d, not a|d|c|b), whether the window is made in one tmux
//! command list or pane by pane, and the restore table names each pane at
//! its old place. Real tmux, private socket; panes run `sleep`.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use agent_resume_test_support::env::PrivateEnv;
use agent_resume_test_support::tmux::Tmux;
use agent_resume_test_support::{poll, require};

const PANES: usize = 4;

/// A session `work` of one window of four panes, `d0` … `d3`, made in that
/// order left to right (each split splits the pane made before it), saved.
fn saved_window() -> (Tmux, PrivateEnv, Vec<PathBuf>) {
    let tmux = Tmux::start();
    let env = PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume"))
        .with("AGENT_RESUME", "1")
        .with("TMUX_TMPDIR", tmux.tmpdir());
    let dirs: Vec<PathBuf> = (0..PANES).map(|i| env.work(&format!("d{i}"))).collect();
    let sleep = require("sleep");
    let sleep = sleep.to_string_lossy();
    let d = |i: usize| dirs[i].to_string_lossy().into_owned();
    tmux.ok(&[
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "200",
        "-y",
        "50",
        "-c",
        &d(0),
        "--",
        &sleep,
        "100000",
    ]);
    for i in 1..PANES {
        tmux.ok(&[
            "split-window",
            "-t",
            "work:",
            "-c",
            &d(i),
            "--",
            &sleep,
            "100000",
        ]);
        tmux.ok(&["select-layout", "-t", "work:", "even-horizontal"]);
    }
    // Saved once every pane shows its directory (a pane just made may not
    // yet: tmux reads it from the pane's process).
    poll::wait_for("the window as made", || {
        (order(&tmux) == dirs).then_some(())
    });
    let out = env.run(&["tmux", "save", "-L", tmux.socket()]);
    assert!(out.status.success(), "{out:?}");
    (tmux, env, dirs)
}

/// The directories of `work`'s panes, in pane order.
fn order(tmux: &Tmux) -> Vec<PathBuf> {
    tmux.ok(&["list-panes", "-t", "work:", "-F", "#{pane_current_path}"])
        .lines()
        .map(PathBuf::from)
        .collect()
}

fn restored_in_order(tmux: &Tmux, env: &PrivateEnv, dirs: &[PathBuf]) {
    tmux.ok(&["kill-session", "-t", "work"]);
    let out = env.run(&["tmux", "restore", "-L", tmux.socket(), "--recreate"]);
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8_lossy(&out.stdout);
    for (i, dir) in dirs.iter().enumerate() {
        let place = format!("work:0.{i}");
        let row = table
            .lines()
            .find(|l| l.contains(&place))
            .unwrap_or_else(|| panic!("no row for {place}: {table}"));
        assert!(row.contains(&*dir.to_string_lossy()), "{place}: {row}");
    }
    poll::wait_for("the panes' directories", || {
        let now = order(tmux);
        (now.len() == PANES && now.iter().all(|d| !d.as_os_str().is_empty())).then_some(())
    });
    assert_eq!(order(tmux), dirs, "every pane in its saved place");
}

#[test]
fn a_window_of_four_panes_comes_back_in_its_saved_order() {
    let (tmux, env, dirs) = saved_window();
    restored_in_order(&tmux, &env, &dirs);
}
