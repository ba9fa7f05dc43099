//! A real kitty under a private Xvfb display, software-rendered, answering
//! remote control on a private socket; both killed (by their own pids) on
//! drop. A missing kitty or Xvfb fails naming it, never skips.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use crate::tool::{require, require_mesa};

/// A private X display.
pub struct Display {
    child: Child,
    /// Its number (`:N`).
    pub number: String,
}

impl Display {
    /// Starts Xvfb on a free display it picks itself.
    pub fn start() -> Display {
        let xvfb = require("Xvfb");
        let mut child = Command::new(xvfb)
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let mut line = String::new();
        let out = child.stdout.take().expect("piped");
        BufReader::new(out)
            .read_line(&mut line)
            .expect("Xvfb names its display");
        Display {
            child,
            number: line.trim().to_owned(),
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running kitty.
pub struct Kitty {
    child: Option<Child>,
    /// `unix:PATH`.
    pub to: String,
}

impl Kitty {
    /// Starts kitty on `display`, with its own config off, remote control
    /// on `socket`, `home` as `$HOME` and (when given) a session file.
    pub fn start(
        display: &Display,
        socket: &Path,
        home: &Path,
        session: Option<&Path>,
        env: &[(&str, &str)],
    ) -> Kitty {
        let kitty = require("kitty");
        require_mesa();
        let to = format!("unix:{}", socket.display());
        let mut cmd = Command::new(kitty);
        cmd.args(["--config", "NONE", "-o", "allow_remote_control=yes"])
            .args([
                "-o",
                "shell_integration=disabled",
                "-o",
                "confirm_os_window_close=0",
            ])
            .arg("--listen-on")
            .arg(&to);
        if let Some(s) = session {
            cmd.arg("--session").arg(s);
        }
        cmd.env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("DISPLAY", format!(":{}", display.number))
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env("HOME", home)
            .envs(env.iter().copied())
            .current_dir(home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = cmd.spawn().expect("kitty starts");
        let k = Kitty {
            child: Some(child),
            to,
        };
        k.wait_until(|ls| ls.is_some(), "answers remote control");
        k
    }

    /// Takes over a kitty started elsewhere (its own config, say) that
    /// listens at `to`, and waits until it answers.
    pub fn adopt(child: Child, to: String) -> Kitty {
        let k = Kitty {
            child: Some(child),
            to,
        };
        k.wait_until(|ls| ls.is_some(), "answers remote control");
        k
    }

    /// `kitty @ ls` as JSON text, when kitty answers.
    pub fn ls_text(&self) -> Option<Vec<u8>> {
        let out = Command::new(require("kitty"))
            .args(["@", "--to", &self.to, "ls"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status.success().then_some(out.stdout)
    }

    /// The typed listing.
    pub fn ls(&self) -> Option<Vec<agent_resume_kitty::LsOsWindow>> {
        agent_resume_kitty::parse_ls(&self.ls_text()?).ok()
    }

    /// Runs `kitty @ --to … ARGS`; its stdout when it succeeds.
    pub fn at(&self, args: &[&str]) -> Option<String> {
        let out = Command::new(require("kitty"))
            .args(["@", "--to", &self.to])
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The screen of window `id`.
    pub fn screen(&self, id: u64) -> String {
        self.at(&["get-text", "--match", &format!("id:{id}")])
            .unwrap_or_default()
    }

    /// Types `text` into window `id`.
    pub fn type_text(&self, id: u64, text: &str) {
        self.at(&["send-text", "--match", &format!("id:{id}"), text])
            .expect("kitty takes the text");
    }

    /// Waits (at most 30 s) until `ok` holds for the listing.
    pub fn wait_until(
        &self,
        ok: impl Fn(Option<&Vec<agent_resume_kitty::LsOsWindow>>) -> bool,
        what: &str,
    ) -> Vec<agent_resume_kitty::LsOsWindow> {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let ls = self.ls();
            if ok(ls.as_ref()) {
                return ls.unwrap_or_default();
            }
            assert!(Instant::now() < end, "kitty never {what}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Ends kitty with SIGTERM (a clean quit) and waits for it.
    pub fn quit(&mut self) {
        if let Some(mut child) = self.child.take() {
            let pid = rustix::process::Pid::from_child(&child);
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            let end = Instant::now() + Duration::from_secs(10);
            while Instant::now() < end {
                if child.try_wait().ok().flatten().is_some() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Kitty {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Every window of a listing, in order.
pub fn windows(ls: &[agent_resume_kitty::LsOsWindow]) -> Vec<&agent_resume_kitty::LsWindow> {
    ls.iter()
        .flat_map(|o| &o.tabs)
        .flat_map(|t| &t.windows)
        .collect()
}
