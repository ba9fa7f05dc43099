//! A real kitty under a private Xvfb display, software-rendered, answering
//! remote control on a private socket; both killed (by their own pids) on
//! drop. A missing kitty or Xvfb fails naming it, never skips.
//!
//! [`UsualKitty`] is kitty as a user has it: its own kitty.conf as `init
//! kitty` prints it, started with no arguments, as a launcher starts it.

use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
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

/// kitty as a user has it: `$HOME/.config/kitty/kitty.conf` exactly as
/// `agent-resume init kitty` prints it (remote control on a private
/// socket, `startup_session`), with kitty's own shell integration off (it
/// would hide the prompt's text) and no close confirmation; started the way
/// a desktop launcher starts it — `kitty`, no arguments, in `$HOME` — with
/// exactly the environment given and the display's. Every kitty it started,
/// and every pid handed to [`UsualKitty::adopt`], is killed by pid on drop.
pub struct UsualKitty {
    env: Vec<(OsString, OsString)>,
    home: PathBuf,
    /// The directory of the instances' sockets (`listen_on`'s).
    sockets: PathBuf,
    /// Every kitty started here, killed and waited for at the end.
    started: RefCell<Vec<Child>>,
    /// Kitty pids started by something else (a restore), killed at the end.
    adopted: RefCell<Vec<u32>>,
}

impl Drop for UsualKitty {
    fn drop(&mut self) {
        for pid in self.adopted.borrow().iter() {
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

impl UsualKitty {
    /// Writes kitty.conf from `agent_resume init kitty` run with `env`
    /// (which sets `HOME`); kitty is started later, on `display`.
    pub fn new<K, V>(
        agent_resume: &Path,
        display: &Display,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> UsualKitty
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        require("kitty");
        require_mesa();
        let mut env: Vec<(OsString, OsString)> = env
            .into_iter()
            .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
            .collect();
        env.retain(|(k, _)| k != "DISPLAY" && k != "LIBGL_ALWAYS_SOFTWARE");
        env.push(("DISPLAY".into(), format!(":{}", display.number).into()));
        env.push(("LIBGL_ALWAYS_SOFTWARE".into(), "1".into()));
        let home = env
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v))
            .expect("the environment sets HOME");
        let out = Command::new(agent_resume)
            .args(["init", "kitty"])
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .expect("agent-resume runs");
        assert!(out.status.success(), "init kitty: {out:?}");
        let mut conf = String::from_utf8(out.stdout).unwrap();
        assert!(conf.contains("startup_session "), "{conf}");
        let socket = conf
            .lines()
            .find_map(|l| l.strip_prefix("listen_on unix:"))
            .map(PathBuf::from)
            .unwrap_or_else(|| panic!("init kitty names no socket: {conf}"));
        conf.push_str("shell_integration disabled\nconfirm_os_window_close 0\n");
        fs::create_dir_all(home.join(".config/kitty")).unwrap();
        fs::write(home.join(".config/kitty/kitty.conf"), conf).unwrap();
        UsualKitty {
            env,
            home,
            sockets: socket.parent().expect("the socket's directory").to_owned(),
            started: RefCell::default(),
            adopted: RefCell::default(),
        }
    }

    /// `kitty`, as a launcher runs it: its pid.
    pub fn start(&self) -> u32 {
        let child = Command::new(require("kitty"))
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("kitty starts");
        let pid = child.id();
        self.started.borrow_mut().push(child);
        pid
    }

    /// Whether the kitty started here as `pid` has ended.
    pub fn ended(&self, pid: u32) -> bool {
        self.started
            .borrow_mut()
            .iter_mut()
            .find(|c| c.id() == pid)
            .is_some_and(|c| c.try_wait().ok().flatten().is_some())
    }

    /// Kills the kitty started here as `pid` (a crash) and waits for it.
    pub fn kill(&self, pid: u32) {
        if let Some(c) = self.started.borrow_mut().iter_mut().find(|c| c.id() == pid) {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Kills the kitty `pid`, started by something else, at the end.
    pub fn adopt(&self, pid: u32) {
        self.adopted.borrow_mut().push(pid);
    }

    /// The kitty instances listening now: pid → address.
    pub fn listening(&self) -> Vec<(u32, String)> {
        let Ok(dir) = fs::read_dir(&self.sockets) else {
            return Vec::new();
        };
        dir.filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let pid: u32 = name.strip_prefix("kitty-")?.parse().ok()?;
            Path::new(&format!("/proc/{pid}"))
                .exists()
                .then(|| (pid, format!("unix:{}/{name}", self.sockets.display())))
        })
        .collect()
    }

    /// Waits until the kitty `pid` listens; its address.
    pub fn address(&self, pid: u32) -> String {
        crate::wait_for(&format!("kitty {pid} to listen"), || {
            self.listening()
                .into_iter()
                .find(|(p, _)| *p == pid)
                .map(|(_, to)| to)
        })
    }

    /// Runs `kitty @ --to TO ARGS` with the environment; its stdout when it
    /// succeeds.
    pub fn at(&self, to: &str, args: &[&str]) -> Option<String> {
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

    /// The screen of the active window of the kitty at `to`.
    pub fn screen(&self, to: &str) -> String {
        self.at(to, &["get-text"]).unwrap_or_default()
    }

    /// The typed listing of the kitty at `to`, when it answers.
    pub fn ls(&self, to: &str) -> Option<Vec<agent_resume_kitty::LsOsWindow>> {
        agent_resume_kitty::parse_ls(self.at(to, &["ls"])?.as_bytes()).ok()
    }
}
