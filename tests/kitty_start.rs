//! Starting kitty as usual restores it: real kitty 0.26+ under a private
//! Xvfb display, `~/.config/kitty/kitty.conf` exactly as `agent-resume init
//! kitty` prints it (remote control on a private socket, `startup_session`),
//! bash with the integration in `.bashrc`, and a stand-in `claude` first on
//! `PATH` that reports its conversation through `agent-resume hook`, also
//! when resumed, as the real one's hook does.
//!
//! kitty is started the way a desktop launcher starts it — `kitty`, no
//! arguments — killed (a crash, a logout), and started the same way again.
//! What comes back is read from the stand-ins' run files and kitty's own
//! listing, never from timing. Every kitty started is killed by pid at the
//! end; a missing kitty or Xvfb fails naming it.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use agent_resume_test_support::kitty::{Display, UsualKitty};
use agent_resume_test_support::{require, wait_for};

const CLAUDE: &str = include_str!("standins/claude-ready");

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

struct World {
    /// Declared first: every kitty is killed before the temp dir goes.
    kitty: UsualKitty,
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl World {
    fn new(display: &Display) -> World {
        for tool in ["bash", "sh", "sleep"] {
            require(tool);
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_owned();
        let home = root.join("home");
        for d in [
            home.clone(),
            root.join("bin"),
            root.join("ran"),
            root.join("w"),
        ] {
            fs::create_dir_all(d).unwrap();
        }
        let claude = root.join("bin/claude");
        fs::write(&claude, CLAUDE).unwrap();
        fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(
            home.join(".bashrc"),
            "PS1='bash$ '\neval \"$(agent-resume init bash)\"\n",
        )
        .unwrap();
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
            kitty: UsualKitty::new(agent_resume(), display, env.clone()),
            dir,
            env,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn log(&self) -> String {
        fs::read_to_string(
            self.root()
                .join("home/.local/state/agent-resume/restore.log"),
        )
        .unwrap_or_default()
    }

    fn cli(&self, args: &[&str]) -> std::process::Output {
        let out = Command::new(agent_resume())
            .args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        out
    }

    /// Stand-in runs: pane, reported id, argv.
    fn runs(&self) -> Vec<(String, String, Vec<String>)> {
        fs::read_dir(self.root().join("ran"))
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                (!p.to_string_lossy().ends_with(".part")).then(|| {
                    let lines: Vec<String> = fs::read_to_string(&p)
                        .unwrap()
                        .lines()
                        .map(str::to_owned)
                        .collect();
                    (lines[1].clone(), lines[3].clone(), lines[6..].to_vec())
                })
            })
            .collect()
    }
}

#[test]
fn starting_kitty_as_usual_after_a_crash_brings_the_agent_window_back_once() {
    let display = Display::start();
    let w = World::new(&display);

    // Nothing saved: kitty's first window is the user's shell.
    let first = w.kitty.start();
    let to = w.kitty.address(first);
    wait_for("the shell's prompt", || {
        w.kitty.screen(&to).contains("bash$").then_some(())
    });
    w.kitty
        .at(&to, &["send-text", "claude --model opus\r"])
        .unwrap();
    let (pane, id, argv) = wait_for("the stand-in to report", || w.runs().pop());
    assert_eq!(argv, ["--model", "opus"]);
    assert_ne!(pane, "-", "the window has its pane id");
    // The snapshot is current: the shell saved at its prompt.
    wait_for("a kitty snapshot", || {
        let out = w.cli(&["status"]);
        String::from_utf8_lossy(&out.stdout)
            .contains("1 instance")
            .then_some(())
    });

    // A crash: kitty and everything in it gone.
    w.kitty.kill(first);
    let pids: Vec<String> = fs::read_dir(w.root().join("ran"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_prefix("claude.").map(str::to_owned)
        })
        .collect();
    wait_for("the stand-in to end with its window", || {
        pids.iter()
            .all(|p| !Path::new(&format!("/proc/{p}")).exists())
            .then_some(())
    });

    // Started again as usual, twice at once (a double click): one first
    // window restores in a new kitty and ends, and with it the kitty it was
    // alone in; the other becomes a plain shell.
    let second = w.kitty.start();
    let extra = w.kitty.start();
    let (ended, shell) = wait_for("one starting kitty to end", || {
        if w.kitty.ended(second) {
            Some((second, extra))
        } else if w.kitty.ended(extra) {
            Some((extra, second))
        } else {
            None
        }
    });
    let to_shell = w.kitty.address(shell);
    wait_for("its shell", || {
        w.kitty.screen(&to_shell).contains("bash$").then_some(())
    });
    let resumed = wait_for("the conversation to resume", || {
        w.runs()
            .into_iter()
            .find(|(_, _, argv)| argv.iter().any(|a| a == "--resume"))
    });
    assert_eq!(resumed.0, pane, "the same window id");
    assert_eq!(resumed.2, ["--model", "opus", "--resume", id.as_str()]);
    let restored = w
        .kitty
        .listening()
        .into_iter()
        .find(|(p, _)| ![first, ended, shell].contains(p))
        .expect("the restored kitty listens");
    w.kitty.adopt(restored.0);
    wait_for("the start to follow the resume", || {
        w.log()
            .contains("1 agent(s) resumed: 1 confirmed")
            .then_some(())
    });

    // Another kitty while the restored one runs: a plain shell, nothing
    // resumed twice.
    let third = w.kitty.start();
    let to3 = w.kitty.address(third);
    wait_for("the third kitty's shell", || {
        w.kitty.screen(&to3).contains("bash$").then_some(())
    });
    assert!(
        w.log().contains("kitty start: nothing restored"),
        "{}",
        w.log()
    );
    let resumes = w
        .runs()
        .iter()
        .filter(|(_, _, argv)| argv.iter().any(|a| a == "--resume"))
        .count();
    assert_eq!(resumes, 1, "nothing ran twice");
}
