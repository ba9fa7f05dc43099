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
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use agent_resume_test_support::kitty::{require_mesa, Display};
use agent_resume_test_support::{require, wait_for};

const CLAUDE: &str = include_str!("standins/claude-ready");

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

struct World {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
    /// Every kitty this test started, killed and waited for at the end.
    started: std::cell::RefCell<Vec<Child>>,
    /// Kitty pids started by something else (the restore), killed at the end.
    kitties: std::cell::RefCell<Vec<u32>>,
}

impl Drop for World {
    fn drop(&mut self) {
        for pid in self.kitties.borrow().iter() {
            if let Some(pid) = rustix::process::Pid::from_raw(*pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
        for child in self.started.borrow_mut().iter_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl World {
    fn new(display: &Display) -> World {
        for tool in ["bash", "sh", "sleep"] {
            require(tool);
        }
        require_mesa();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_owned();
        let home = root.join("home");
        for d in [
            home.join(".config/kitty"),
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
            ("DISPLAY".to_owned(), format!(":{}", display.number)),
            ("LIBGL_ALWAYS_SOFTWARE".to_owned(), "1".to_owned()),
            (
                "STANDIN_RAN".to_owned(),
                root.join("ran").display().to_string(),
            ),
            ("AGENT_RESUME".to_owned(), "1".to_owned()),
        ];
        let w = World {
            dir,
            env,
            started: Default::default(),
            kitties: Default::default(),
        };
        // kitty.conf as the user makes it: `init kitty`'s lines, and kitty's
        // own shell integration off (it would hide the prompt's text).
        let out = w.cli(&["init", "kitty"]);
        let mut conf = String::from_utf8(out.stdout).unwrap();
        assert!(conf.contains("startup_session "), "{conf}");
        conf.push_str("shell_integration disabled\nconfirm_os_window_close 0\n");
        fs::write(home.join(".config/kitty/kitty.conf"), conf).unwrap();
        w
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn sockets(&self) -> PathBuf {
        self.root().join("home/.local/state/agent-resume/kitty")
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

    /// `kitty`, as a launcher runs it: its pid.
    fn kitty(&self) -> u32 {
        let child = Command::new(require("kitty"))
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.root().join("home"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        self.started.borrow_mut().push(child);
        pid
    }

    /// Whether the kitty this test started as `pid` has ended.
    fn ended(&self, pid: u32) -> bool {
        self.started
            .borrow_mut()
            .iter_mut()
            .find(|c| c.id() == pid)
            .is_some_and(|c| c.try_wait().ok().flatten().is_some())
    }

    /// Kills the kitty this test started as `pid` and waits for it.
    fn kill(&self, pid: u32) {
        if let Some(c) = self.started.borrow_mut().iter_mut().find(|c| c.id() == pid) {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The kitty instances listening now: pid → address.
    fn listening(&self) -> Vec<(u32, String)> {
        let Ok(dir) = fs::read_dir(self.sockets()) else {
            return Vec::new();
        };
        dir.filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let pid: u32 = name.strip_prefix("kitty-")?.parse().ok()?;
            Path::new(&format!("/proc/{pid}"))
                .exists()
                .then(|| (pid, format!("unix:{}/{name}", self.sockets().display())))
        })
        .collect()
    }

    fn at(&self, to: &str, args: &[&str]) -> Option<String> {
        let out = Command::new(require("kitty"))
            .args(["@", "--to", to])
            .args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn screen(&self, to: &str) -> String {
        self.at(to, &["get-text"]).unwrap_or_default()
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
    let first = w.kitty();
    let to = wait_for("the first kitty to listen", || {
        w.listening()
            .into_iter()
            .find(|(p, _)| *p == first)
            .map(|(_, to)| to)
    });
    wait_for("the shell's prompt", || {
        w.screen(&to).contains("bash$").then_some(())
    });
    w.at(&to, &["send-text", "claude --model opus\r"]).unwrap();
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
    w.kill(first);
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
    let second = w.kitty();
    let extra = w.kitty();
    let (ended, shell) = wait_for("one starting kitty to end", || {
        if w.ended(second) {
            Some((second, extra))
        } else if w.ended(extra) {
            Some((extra, second))
        } else {
            None
        }
    });
    let to_shell = wait_for("the other to listen", || {
        w.listening()
            .into_iter()
            .find(|(p, _)| *p == shell)
            .map(|(_, to)| to)
    });
    wait_for("its shell", || {
        w.screen(&to_shell).contains("bash$").then_some(())
    });
    let resumed = wait_for("the conversation to resume", || {
        w.runs()
            .into_iter()
            .find(|(_, _, argv)| argv.iter().any(|a| a == "--resume"))
    });
    assert_eq!(resumed.0, pane, "the same window id");
    assert_eq!(resumed.2, ["--model", "opus", "--resume", id.as_str()]);
    let restored = w
        .listening()
        .into_iter()
        .find(|(p, _)| ![first, ended, shell].contains(p))
        .expect("the restored kitty listens");
    w.kitties.borrow_mut().push(restored.0);
    wait_for("the start to follow the resume", || {
        w.log()
            .contains("1 agent(s) resumed: 1 confirmed")
            .then_some(())
    });

    // Another kitty while the restored one runs: a plain shell, nothing
    // resumed twice.
    let third = w.kitty();
    let to3 = wait_for("the third kitty to listen", || {
        w.listening()
            .into_iter()
            .find(|(p, _)| *p == third)
            .map(|(_, to)| to)
    });
    wait_for("the third kitty's shell", || {
        w.screen(&to3).contains("bash$").then_some(())
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
