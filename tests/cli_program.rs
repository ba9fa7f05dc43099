//! Recorded program paths end to end: `plan` and `take` replay a recorded
//! absolute program path only when it is the agent's own command word, a
//! regular executable owned by the user or root, in directories nobody else
//! can write, and not under `/proc`; otherwise the bare command word, and
//! the pane still resumes. The tests run as root, so "owned by another
//! user" is a file owned by `nobody` (65534).

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::{chown, symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agent_resume_test_support::{text, PrivateEnv};
use serde_json::{json, Value};

const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const SESSION: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const NOW: &str = "2026-11-30T12:00:00Z";

/// A home for one run, and a program directory tree in a place whose
/// ancestors are owned by root or this user and not writable by others (the
/// build's own temp dir, else `$HOME`, else `/run`): a checkout under `/tmp`
/// sits below a directory anyone can write.
struct Env {
    home: PrivateEnv,
    programs: tempfile::TempDir,
}

/// Whether every directory from `dir` up to `/` is owned by root or this
/// user and not writable by group or others.
fn safe_chain(dir: &Path) -> bool {
    dir.ancestors().all(|d| {
        fs::metadata(d)
            .is_ok_and(|m| m.mode() & 0o022 == 0 && (m.uid() == 0 || m.uid() == my_uid()))
    })
}

impl Env {
    fn new() -> Env {
        let candidates = [
            Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))),
            std::env::var_os("HOME").map(PathBuf::from),
            Some(PathBuf::from("/run")),
        ];
        let base = candidates
            .into_iter()
            .flatten()
            .find(|d| d.is_dir() && safe_chain(d))
            .expect(
                "no directory owned by root or this user and not writable by others above it \
                 (the build's temp dir, $HOME, /run): the kept-path case needs one",
            );
        let programs = tempfile::tempdir_in(base).unwrap();
        fs::set_permissions(programs.path(), fs::Permissions::from_mode(0o755)).unwrap();
        assert!(safe_chain(programs.path()), "{}", programs.path().display());
        let mut home = PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume"))
            .without("XDG_DATA_HOME")
            .without("XDG_CONFIG_HOME");
        let root = home.root().to_owned();
        home.set("AGENT_RESUME_DB", root.join("recordings.sqlite3"));
        home.set("AGENT_RESUME_CONFIG", root.join("config.toml"));
        home.set("AGENT_RESUME_TELEMETRY", root.join("telemetry.jsonl"));
        Env { home, programs }
    }

    fn root(&self) -> &Path {
        self.home.root()
    }

    fn work(&self) -> PathBuf {
        let p = self.root().join("work");
        fs::create_dir_all(&p).unwrap();
        p
    }

    /// `<programs>/<dir>/claude`, a script, with the directory's and the
    /// file's modes.
    fn program(&self, dir: &str, dir_mode: u32, mode: u32) -> PathBuf {
        let d = self.programs.path().join(dir);
        fs::create_dir_all(&d).unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(dir_mode)).unwrap();
        let p = d.join("claude");
        fs::write(&p, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = self.home.command(args);
        c.current_dir(self.root());
        c.into_inner()
    }

    fn ok(&self, args: &[&str]) -> Output {
        let out = self.command(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        out
    }

    /// Records `program --model opus` for the pane and writes the layout.
    fn record(&self, program: &str) -> PathBuf {
        self.ok(&["enable"]);
        let work = self.work();
        self.ok(&[
            "record",
            "--pane",
            PANE,
            "--agent",
            "claude",
            "--session-id",
            SESSION,
            "--cwd",
            work.to_str().unwrap(),
            "--observed-at",
            "2026-11-30T11:59:00Z",
            "--invocation",
            &format!("{program} --model opus"),
        ]);
        let p = self.root().join("layout.json");
        let l = json!({"startup": true, "windows": [{"landing": true, "visible": true, "active_tab": 0,
            "tabs": [{"focused_pane": PANE, "panes": [{"id": PANE, "cwd": work, "shell": "zsh"}]}]}]});
        fs::write(&p, serde_json::to_vec(&l).unwrap()).unwrap();
        p
    }

    /// The program word `plan` would replay for a recording of `program`,
    /// with the plan run in `cwd`; the pane must still resume.
    fn planned_word(&self, program: &str, cwd: &Path) -> String {
        let layout = self.record(program);
        let out = self
            .command(&[
                "plan",
                "--json",
                "--now",
                NOW,
                "--layout",
                layout.to_str().unwrap(),
            ])
            .current_dir(cwd)
            .output()
            .unwrap();
        assert!(out.status.success(), "plan: {}", text(&out.stderr));
        let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = &rows.as_array().unwrap()[0];
        assert_eq!(row["verdict"], "resume", "{row}");
        row["argv"][0].as_str().unwrap().to_owned()
    }
}

fn my_uid() -> u32 {
    fs::metadata("/proc/self").unwrap().uid()
}

#[test]
fn a_program_path_in_a_private_root_or_user_owned_place_is_replayed() {
    let env = Env::new();
    let p = env.program("good", 0o755, 0o755);
    let p = p.to_str().unwrap();
    assert_eq!(env.planned_word(p, env.root()), p);
}

#[test]
fn a_program_path_anyone_could_have_changed_is_replaced_by_the_bare_word() {
    type Make = fn(&Env) -> String;
    let cases: &[(&str, Make)] = &[
        ("in a world-writable directory", |env| {
            env.program("ww", 0o777, 0o755).to_str().unwrap().to_owned()
        }),
        ("in a world-writable directory under /tmp", |env| {
            let d = env.root().join("ww");
            fs::create_dir_all(&d).unwrap();
            fs::set_permissions(&d, fs::Permissions::from_mode(0o777)).unwrap();
            let p = d.join("claude");
            fs::write(&p, "#!/bin/sh\n").unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
            p.to_str().unwrap().to_owned()
        }),
        ("owned by nobody", |env| {
            let p = env.program("nobody", 0o755, 0o755);
            chown(&p, Some(65534), Some(65534)).unwrap();
            p.to_str().unwrap().to_owned()
        }),
        ("group-writable", |env| {
            env.program("gw", 0o755, 0o775).to_str().unwrap().to_owned()
        }),
        ("not executable", |env| {
            env.program("noexec", 0o755, 0o644)
                .to_str()
                .unwrap()
                .to_owned()
        }),
        ("a link into a world-writable directory", |env| {
            let target = env.program("ww2", 0o777, 0o755);
            let d = env.programs.path().join("link");
            fs::create_dir_all(&d).unwrap();
            fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
            symlink(&target, d.join("claude")).unwrap();
            d.join("claude").to_str().unwrap().to_owned()
        }),
        ("missing", |env| {
            env.programs
                .path()
                .join("none/claude")
                .to_str()
                .unwrap()
                .to_owned()
        }),
    ];
    for (label, make) in cases {
        let env = Env::new();
        let p = make(&env);
        assert_eq!(env.planned_word(&p, env.root()), "claude", "{label}: {p}");
    }
}

#[test]
fn a_proc_path_is_never_replayed_even_when_it_resolves_to_a_good_program() {
    let env = Env::new();
    let good = env.program("good", 0o755, 0o755);
    // Run in the good program's directory: /proc/self/cwd/claude is it.
    let dir = good.parent().unwrap();
    assert_eq!(
        env.planned_word("/proc/self/cwd/claude", dir),
        "claude",
        "/proc/self/cwd/claude"
    );
}

#[test]
fn take_checks_the_program_path_again_and_falls_back_to_the_bare_word() {
    let env = Env::new();
    let good = env.program("good", 0o755, 0o755);
    let layout = env.record(good.to_str().unwrap());
    env.ok(&[
        "restore",
        "--now",
        NOW,
        "--layout",
        layout.to_str().unwrap(),
    ]);
    // Between restore and take, its directory becomes writable by anyone.
    fs::set_permissions(good.parent().unwrap(), fs::Permissions::from_mode(0o777)).unwrap();
    let out = env.ok(&["take", "--pane", PANE, "--shell", "zsh", "--now", NOW]);
    let line = text(&out.stdout);
    assert!(
        line.contains(&format!(
            " 'claude' '--model' 'opus' '--resume' '{SESSION}'"
        )),
        "{line}"
    );
    assert!(!line.contains(good.to_str().unwrap()), "{line}");

    // Untrusted already at restore: the bare word is armed, and it
    // rebuilds to itself at take.
    let env = Env::new();
    let bad = env.program("ww", 0o777, 0o755);
    let layout = env.record(bad.to_str().unwrap());
    env.ok(&[
        "restore",
        "--now",
        NOW,
        "--layout",
        layout.to_str().unwrap(),
    ]);
    let out = env.ok(&["take", "--pane", PANE, "--shell", "zsh", "--now", NOW]);
    let line = text(&out.stdout);
    assert!(
        line.contains(&format!(
            " 'claude' '--model' 'opus' '--resume' '{SESSION}'"
        )),
        "{line}"
    );

    // Left alone, the same path is taken as recorded.
    let env = Env::new();
    let good = env.program("good", 0o755, 0o755);
    let layout = env.record(good.to_str().unwrap());
    env.ok(&[
        "restore",
        "--now",
        NOW,
        "--layout",
        layout.to_str().unwrap(),
    ]);
    let out = env.ok(&["take", "--pane", PANE, "--shell", "zsh", "--now", NOW]);
    let line = text(&out.stdout);
    assert!(
        line.contains(&format!(" '{}' '--model' 'opus'", good.display())),
        "{line}"
    );
}
