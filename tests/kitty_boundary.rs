//! Differential test of the kitty session-file boundary against real kitty
//! (0.26.5 here) under Xvfb: hostile directory names — each line break
//! Python's `splitlines` knows followed by a `launch` of a canary command,
//! `$VAR`, `${VAR}`, `$$`, `~`, trailing whitespace, quotes — are saved as
//! windows' directories; the session file agent-resume writes is loaded by
//! kitty; every window comes back, in its directory exactly when the
//! boundary accepts it, else in the fallback directory; no canary ever
//! runs. A self-test writes the same names raw and watches a canary run,
//! so the comparison is known to be able to fail.

#![allow(clippy::unwrap_used)]

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use agent_resume_core::{PaneId, Shell};
use agent_resume_kitty::{
    literal, session_file, OsWindowSnap, Snapshot, TabSnap, Value, WindowSnap, PANE_ENV,
};
use agent_resume_test_support::kitty::{windows, Display, Kitty};

/// The line breaks of Python's `str.splitlines`.
const BREAKS: [&str; 11] = [
    "\n", "\r", "\r\n", "\u{b}", "\u{c}", "\u{1c}", "\u{1d}", "\u{1e}", "\u{85}", "\u{2028}",
    "\u{2029}",
];

/// Hostile directory names (relative to a base), each canary under `canary`.
fn hostile(canary: &Path) -> Vec<String> {
    let c = canary.display();
    let mut names: Vec<String> = BREAKS
        .iter()
        .enumerate()
        .map(|(i, b)| format!("brk{i}{b}launch sh -c 'touch {c}/{i}'"))
        .collect();
    names.extend(
        [
            "$HOME",
            "${HOME}",
            "a$$b",
            "~",
            "~x",
            "trail ",
            "trail\u{3000}",
            "a b",
            "ü ∂",
            "#hash",
            "q'\"",
            "back\\slash",
            "semi;colon",
            "$(touch x)",
            "`touch y`",
            "a\u{a0}b",
        ]
        .map(str::to_owned),
    );
    names
}

fn snapshot_of(dirs: &[String]) -> Snapshot {
    let tabs = dirs
        .iter()
        .enumerate()
        .map(|(i, d)| TabSnap {
            layout: "stack".into(),
            active_window: 0,
            windows: vec![WindowSnap {
                kitty_id: i as u64,
                pid: None,
                id: PaneId::from_bytes([i as u8 + 1; 16]),
                cwd: d.clone(),
                shell: Some(Shell::Sh),
                split: None,
            }],
        })
        .collect();
    Snapshot {
        os_windows: vec![OsWindowSnap {
            landing: true,
            active_tab: 0,
            tabs,
        }],
    }
}

struct World {
    _tmp: tempfile::TempDir,
    base: std::path::PathBuf,
    home: std::path::PathBuf,
    canary: std::path::PathBuf,
    dirs: Vec<String>,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("dirs");
    let home = tmp.path().join("home");
    let canary = tmp.path().join("canary");
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&canary).unwrap();
    let dirs: Vec<String> = hostile(&canary)
        .iter()
        .map(|n| format!("{}/{n}", base.display()))
        .collect();
    for d in &dirs {
        fs::create_dir_all(d).unwrap();
    }
    World {
        _tmp: tmp,
        base,
        home,
        canary,
        dirs,
    }
}

#[test]
fn every_window_kitty_loads_is_in_its_exact_directory_or_refused_and_no_canary_runs() {
    let display = Display::start();
    let w = world();
    let snap = snapshot_of(&w.dirs);
    let written = session_file(&snap, w.home.as_os_str());
    let file = w.home.join("restore.session");
    fs::write(&file, &written.text).unwrap();
    let kitty = Kitty::start(&display, &w.home.join("sock"), &w.home, Some(&file), &[]);
    let ls = kitty.wait_until(
        |ls| ls.is_some_and(|ls| windows(ls).len() == w.dirs.len()),
        "opened every window",
    );
    let got = windows(&ls);
    let mut refused = 0;
    for (dir, win) in w.dirs.iter().zip(&got) {
        match literal(Value::Directory, OsStr::new(dir)) {
            Ok(_) => assert_eq!(&win.cwd, dir),
            Err(_) => {
                refused += 1;
                assert_eq!(Path::new(&win.cwd), w.home, "{dir:?}");
            }
        }
    }
    let ids: Vec<_> = got.iter().map(|w| w.env.get(PANE_ENV).cloned()).collect();
    let want: Vec<_> = snap.windows().map(|w| Some(w.id.to_string())).collect();
    assert_eq!(ids, want);
    assert_eq!(refused, written.refused.len());
    assert!(refused >= BREAKS.len() + 5, "{refused}");
    assert!(w.dirs.len() - refused >= 8, "accepted names were tried too");
    assert_eq!(fs::read_dir(&w.canary).unwrap().count(), 0, "a canary ran");
    assert!(w.base.is_dir());
}

#[test]
fn self_test_the_same_names_written_raw_run_a_canary() {
    let display = Display::start();
    let w = world();
    let mut text = String::new();
    for d in &w.dirs[..2] {
        text.push_str(&format!("new_tab\ncd {d}\nlaunch sh\n"));
    }
    let file = w.home.join("raw.session");
    fs::write(&file, text).unwrap();
    let kitty = Kitty::start(&display, &w.home.join("sock"), &w.home, Some(&file), &[]);
    // The canary's window closes as soon as `touch` exits: watch the file.
    assert!(kitty.ls().is_some());
    let end = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while fs::read_dir(&w.canary).unwrap().count() == 0 {
        assert!(
            std::time::Instant::now() < end,
            "no canary ran: the test could not fail"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
