//! `tmux restore` as a user reads it, on real tmux servers (private socket
//! names, their own `TMUX_TMPDIR`): a dry run after the server died lists
//! the dead panes and changes nothing; snapshots are kept per server; the
//! table names panes by `session:window.pane` with their directory, in that
//! order; a restore with nothing to do says so in one line; `--recreate`
//! ends with the line that attaches; and a listing written into a closed
//! pipe exits 0 with nothing on stderr.
//!
//! Panes run `sleep`; the snapshot is saved by `agent-resume tmux save`,
//! one recording is made with `agent-resume record`, and the servers are
//! killed in `Drop`.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

use agent_resume_test_support::tmux::Tmux;
use agent_resume_test_support::{require, PrivateEnv};

/// A temporary home, database, config and telemetry file, shared by every
/// server of the test: the binary's own world ([`PrivateEnv::new`]) with
/// `SHELL`, a UTF-8 locale and the feature on.
struct World(PrivateEnv);

impl World {
    fn new() -> World {
        for tool in ["tmux", "sleep", "sh"] {
            require(tool);
        }
        let env = PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume"))
            .with("SHELL", require("sh"))
            .with("LANG", "C.UTF-8")
            .with("AGENT_RESUME", "1");
        let data = env.db().parent().expect("the database's folder").to_owned();
        for d in [env.home(), env.root().join("w"), data] {
            fs::create_dir_all(d).expect("mkdir");
        }
        World(env)
    }

    fn root(&self) -> &Path {
        self.0.root()
    }

    /// A directory under `w/`, made.
    fn work(&self, name: &str) -> PathBuf {
        let d = self.root().join("w").join(name);
        fs::create_dir_all(&d).expect("mkdir");
        d
    }

    /// A private server, not started yet.
    fn server(&self) -> Tmux {
        self.0.tmux(Path::new("/dev/null"))
    }

    /// `agent-resume` reaching `tmux`'s socket directory.
    fn cli<S: AsRef<OsStr>>(&self, tmux: &Tmux, args: &[S]) -> Output {
        self.0.command(args).reach(tmux).output()
    }

    fn cli_ok<S: AsRef<OsStr>>(&self, tmux: &Tmux, args: &[S]) -> String {
        let out = self.cli(tmux, args);
        assert!(
            out.status.success(),
            "{:?}: {}",
            args.iter()
                .map(|a| a.as_ref().to_owned())
                .collect::<Vec<_>>(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Makes `session` with window 0 holding one pane per directory of
/// `window0` and window 1 one pane in `window1`, each running `sleep`.
fn make_session(tmux: &Tmux, session: &str, window0: &[&Path], window1: Option<&Path>) {
    let sleep = require("sleep");
    let run = |args: Vec<&OsStr>| {
        tmux.ok(&args);
    };
    let o = OsStr::new;
    let target0 = format!("={session}:0");
    for (i, d) in window0.iter().enumerate() {
        let mut args = if i == 0 {
            vec![
                o("new-session"),
                o("-d"),
                o("-s"),
                o(session),
                o("-x"),
                o("200"),
                o("-y"),
                o("50"),
            ]
        } else {
            vec![o("split-window"), o("-d"), o("-t"), o(&target0)]
        };
        args.extend([o("-c"), d.as_os_str(), sleep.as_os_str(), o("100000")]);
        run(args);
    }
    if let Some(d) = window1 {
        let target = format!("={session}:1");
        run(vec![
            o("new-window"),
            o("-d"),
            o("-t"),
            o(&target),
            o("-c"),
            d.as_os_str(),
            sleep.as_os_str(),
            o("100000"),
        ]);
    }
    // tmux reads a pane's directory from its process, which has it only once
    // the child has started: a save before that would see none.
    let wanted = window0.len() + usize::from(window1.is_some());
    agent_resume_test_support::wait_for("every new pane to report its directory", || {
        let dirs = tmux.ok(&[
            "list-panes",
            "-s",
            "-t",
            &format!("={session}"),
            "-F",
            "#{pane_current_path}",
        ]);
        let known = dirs.lines().filter(|l| !l.is_empty()).count();
        (known == wanted).then_some(())
    });
}

/// The stable id of every pane, by `session:window.pane`.
fn stable_ids(tmux: &Tmux) -> BTreeMap<String, String> {
    tmux.ok(&[
        "list-panes",
        "-a",
        "-F",
        "#{session_name}:#{window_index}.#{pane_index} #{@agent_resume_pane}",
    ])
    .lines()
    .filter_map(|l| l.split_once(' '))
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .collect()
}

fn sessions(tmux: &Tmux) -> Vec<String> {
    if !tmux.running() {
        return Vec::new();
    }
    let mut s: Vec<String> = tmux
        .ok(&["list-sessions", "-F", "#{session_name}"])
        .lines()
        .map(str::to_owned)
        .collect();
    s.sort();
    s
}

/// Every file under `dir` with its size, a digest of its bytes and its
/// modification time.
fn files(dir: &Path) -> BTreeMap<PathBuf, (usize, u64, SystemTime)> {
    let mut out = BTreeMap::new();
    for e in fs::read_dir(dir).expect("reads the directory") {
        let p = e.expect("entry").path();
        let meta = fs::metadata(&p).expect("metadata");
        let bytes = fs::read(&p).expect("reads");
        // FNV-1a: any changed byte changes it.
        let digest = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
        });
        out.insert(
            p.clone(),
            (bytes.len(), digest, meta.modified().expect("mtime")),
        );
    }
    out
}

/// A server with sessions `alpha` (window 0: two panes, window 1: one) and
/// `beta` (one pane), saved, one pane recorded as running claude, killed.
fn saved_and_killed(w: &World) -> (Tmux, BTreeMap<String, PathBuf>) {
    let tmux = w.server();
    let dirs: BTreeMap<String, PathBuf> = [
        ("alpha:0.0", "a-left"),
        ("alpha:0.1", "a-right"),
        ("alpha:1.0", "a-two"),
        ("beta:0.0", "b-one"),
    ]
    .into_iter()
    .map(|(at, d)| (at.to_owned(), w.work(d)))
    .collect();
    // beta first, so creation order is not position order.
    make_session(&tmux, "beta", &[&dirs["beta:0.0"]], None);
    make_session(
        &tmux,
        "alpha",
        &[&dirs["alpha:0.0"], &dirs["alpha:0.1"]],
        Some(&dirs["alpha:1.0"]),
    );
    w.cli_ok(&tmux, &["tmux", "save", "-L", tmux.socket()]);
    let ids = stable_ids(&tmux);
    let recorded = &ids["alpha:0.1"];
    w.cli_ok(
        &tmux,
        &[
            OsStr::new("record"),
            OsStr::new("--pane"),
            OsStr::new(recorded),
            OsStr::new("--agent"),
            OsStr::new("claude"),
            OsStr::new("--session-id"),
            OsStr::new("3c1f5d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f"),
            OsStr::new("--cwd"),
            dirs["alpha:0.1"].as_os_str(),
            OsStr::new("--invocation"),
            OsStr::new("claude"),
        ],
    );
    tmux.kill_server();
    (tmux, dirs)
}

/// The table's rows: the first column and the rest of the line.
fn rows(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("attach:"))
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap_or((l, ""));
            (a.to_owned(), b.to_owned())
        })
        .collect()
}

#[test]
fn a_dry_run_after_the_server_died_lists_the_dead_panes_and_changes_nothing() {
    let w = World::new();
    let (tmux, dirs) = saved_and_killed(&w);
    let db = w.0.db();
    let data = db.parent().unwrap().to_owned();
    let before = files(&data);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        [&db],
        "the database is one file, its journal folded in, before the dry run"
    );

    for (flags, comes_back) in [
        (&["--dry-run"][..], "needs --recreate"),
        (&["--dry-run", "--recreate"][..], "recreate"),
    ] {
        let mut args = vec!["tmux", "restore", "-L", tmux.socket()];
        args.extend(flags);
        let out = w.cli(&tmux, &args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{flags:?}: {stdout}");
        let rows = rows(&stdout);
        let at: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(
            at,
            ["alpha:0.0", "alpha:0.1", "alpha:1.0", "beta:0.0"],
            "{flags:?}: every dead pane, in position order:\n{stdout}"
        );
        for (position, rest) in &rows {
            assert!(
                rest.contains(&*dirs[position].to_string_lossy()),
                "{flags:?}: {position} shows its directory:\n{stdout}"
            );
            assert!(
                rest.contains(comes_back),
                "{flags:?}: {position}:\n{stdout}"
            );
        }
        let recorded = &rows[1].1;
        assert!(
            recorded.contains("resume") && recorded.contains("claude --resume"),
            "{flags:?}: the recorded pane would resume:\n{stdout}"
        );
        assert!(
            !tmux.running(),
            "{flags:?}: no server, session or pane made"
        );
        assert!(!w.0.telemetry().exists(), "{flags:?}: no telemetry");
        // A reader of a WAL database may make the empty `-wal` and the
        // `-shm` index beside it (SQLite's reader bookkeeping); the
        // database itself is byte for byte, mtime and all, the same, and no
        // write-ahead frame was written.
        let after = files(&data);
        assert_eq!(
            after.get(&db),
            before.get(&db),
            "{flags:?}: the database is byte for byte and mtime the same"
        );
        let mut wal = db.clone().into_os_string();
        wal.push("-wal");
        let wal = PathBuf::from(wal);
        assert!(
            after.get(&wal).is_none_or(|w| w.0 == 0),
            "{flags:?}: nothing written ahead: {after:?}"
        );
    }

    // The dry run showed exactly what the restore without it shows.
    let dry = w.cli_ok(
        &tmux,
        &["tmux", "restore", "-L", tmux.socket(), "--dry-run"],
    );
    let real = w.cli_ok(&tmux, &["tmux", "restore", "-L", tmux.socket()]);
    assert_eq!(dry, real);
    assert!(!tmux.running());
    let status = w.cli_ok(&tmux, &["status"]);
    assert!(
        status.contains("armed:      0"),
        "a pane that is not recreated has nothing armed:\n{status}"
    );
}

#[test]
fn each_tmux_server_restores_its_own_snapshot() {
    let w = World::new();
    let a = w.server();
    let b = w.server();
    make_session(&a, "a work", &[&w.work("a")], None);
    make_session(&b, "b-only", &[&w.work("b")], Some(&w.work("b2")));
    w.cli_ok(&a, &["tmux", "save", "-L", a.socket()]);
    w.cli_ok(&b, &["tmux", "save", "-L", b.socket()]);

    a.kill_server();
    let out = w.cli_ok(&a, &["tmux", "restore", "-L", a.socket(), "--recreate"]);
    assert_eq!(sessions(&a), ["a work"], "only a's sessions:\n{out}");
    assert_eq!(sessions(&b), ["b-only"], "b untouched");
    // The line that attaches, quoted for a shell.
    assert_eq!(
        out.lines().last(),
        Some(format!("attach: tmux -L {} attach -t 'a work'", a.socket()).as_str()),
        "{out}"
    );

    // The same server named by its socket path is the same snapshot.
    a.kill_server();
    let path = a.tmpdir().join(format!(
        "tmux-{}/{}",
        String::from_utf8_lossy(&Command::new("id").arg("-u").output().expect("id -u").stdout)
            .trim(),
        a.socket()
    ));
    let out = w.cli_ok(
        &a,
        &[
            OsStr::new("tmux"),
            OsStr::new("restore"),
            OsStr::new("-S"),
            path.as_os_str(),
            OsStr::new("--dry-run"),
        ],
    );
    assert_eq!(rows(&out).len(), 1, "a's one pane:\n{out}");
    assert!(out.contains("a work:0.0"), "{out}");

    let listed = w.cli_ok(&a, &["tmux", "servers"]);
    assert!(
        listed.contains(a.socket()) && listed.contains(b.socket()),
        "both servers are listed:\n{listed}"
    );
    let status = w.cli_ok(&a, &["status"]);
    assert!(status.contains(a.socket()), "{status}");
}

#[test]
fn a_restore_with_nothing_to_do_says_so_in_one_line() {
    let w = World::new();
    let tmux = w.server();
    make_session(&tmux, "alpha", &[&w.work("a")], None);
    w.cli_ok(&tmux, &["tmux", "save", "-L", tmux.socket()]);
    let out = w.cli_ok(&tmux, &["tmux", "restore", "-L", tmux.socket()]);
    assert_eq!(
        out,
        format!(
            "nothing to restore: every saved pane of tmux server {} is running\n",
            tmux.socket()
        )
    );
    let other = w.server();
    let out = w.cli_ok(
        &other,
        &["tmux", "restore", "-L", "never-saved", "--dry-run"],
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with("nothing to restore: no saved layout for tmux server never-saved"),
        "{out}"
    );
}

#[test]
fn a_listing_written_into_a_closed_pipe_exits_0_with_nothing_on_stderr() {
    let w = World::new();
    let (tmux, _) = saved_and_killed(&w);
    for args in [
        &["agents"][..],
        &["agents", "--json"],
        &["status"],
        &["tmux", "servers"],
        &["tmux", "restore", "-L", tmux.socket(), "--dry-run"],
        &[
            "tmux",
            "restore",
            "-L",
            tmux.socket(),
            "--dry-run",
            "--json",
        ],
    ] {
        // The reader is gone before the program writes its first byte, as
        // when `head -1` has read its line and exited.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out =
            w.0.command(args)
                .reach(&tmux)
                .inner()
                .stdout(writer)
                .stderr(Stdio::piped())
                .output()
                .expect("runs agent-resume");
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (Some(0), ""),
            "{args:?}"
        );
    }
}
