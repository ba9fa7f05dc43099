//! Whole-process `agent-resume tmux restore --recreate`, as a user runs it
//! after the tmux server died: the release binary, a private tmux server
//! (own socket name and `TMUX_TMPDIR`) whose config carries the `init tmux`
//! hooks, bash panes whose `.bashrc` loads `init bash`, and stand-in agents
//! (`claude`, `codex`, `gemini`: one small `sh` script that writes its argv
//! to a file and `exec`s `sleep`) first on `PATH`.
//!
//! For 8 and for 50 agent panes, each cycle restores the same database (a
//! saved snapshot plus one recording per pane, copied back before every
//! cycle), runs the restore under `/usr/bin/time -v`, and measures
//!
//! - **all started**: from spawning the restore until every stand-in agent
//!   has written its argv file (polled every 5 ms) — sessions, windows and
//!   panes recreated, each shell started and its first prompt having taken
//!   and run its armed line;
//! - **restore exit**: until the restore process itself exited;
//! - **peak RSS**: the restore process's "Maximum resident set size".
//!
//! then kills the server and waits until every process of the cycle is
//! gone. One warm-up cycle, then `TMUX_RESTORE_CYCLES` (default 10) timed
//! cycles; prints median, min and max. Criterion is not used: one sample is
//! a whole server lifecycle.
//!
//! Reproduce: `cargo build --release && cargo bench --bench tmux_restore`.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Agent pane counts measured.
const SIZES: [usize; 2] = [8, 50];

/// Panes per window and windows per session of the generated layout.
const PANES_PER_WINDOW: usize = 5;
const WINDOWS_PER_SESSION: usize = 5;

/// How long any one wait may take before the bench gives up.
const PATIENCE: Duration = Duration::from_secs(120);

/// The stand-in agent: a resume writes the argv to `$RAN/<pid>`, then the
/// process lives as long as its pane.
const STANDIN: &str = r#"#!/bin/sh
# Stand-in agent for benches/tmux_restore.rs. Not a real agent.
printf '%s\n' "${0##*/}" "$@" > "$RAN/$$.part" && mv "$RAN/$$.part" "$RAN/$$"
exec sleep 86400
"#;

/// The environment variable marking every process of the bench.
const MARKER: &str = "AGENT_RESUME_BENCH_WORLD";

fn which(name: &str) -> Option<PathBuf> {
    ["/usr/local/bin", "/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// One bench world: a temporary root (home, stand-ins, pane directories,
/// the database template) and a private tmux server.
struct World {
    dir: tempfile::TempDir,
    bin: PathBuf,
    socket: String,
    env: Vec<(OsString, OsString)>,
    panes: usize,
}

impl World {
    fn new(bin: &Path, panes: usize) -> World {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().to_owned();
        let home = root.join("home");
        for d in [
            home.clone(),
            root.join("bin"),
            root.join("ran"),
            root.join("tmux"),
        ] {
            fs::create_dir_all(d).expect("mkdir");
        }
        for name in ["claude", "codex", "gemini"] {
            let p = root.join("bin").join(name);
            fs::write(&p, STANDIN).expect("writes the stand-in");
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        fs::write(
            home.join(".bashrc"),
            "PS1='bench$ '\neval \"$(agent-resume init bash)\"\n",
        )
        .expect("writes .bashrc");
        fs::write(
            home.join(".tmux.conf"),
            "set -g default-command \"bash -i\"\n\
             run-shell 'agent-resume init tmux | tmux source-file -'\n",
        )
        .expect("writes .tmux.conf");
        let bin_dir = bin.parent().expect("the binary's folder").to_owned();
        let path = std::env::join_paths([
            root.join("bin"),
            bin_dir,
            PathBuf::from("/usr/local/bin"),
            PathBuf::from("/usr/bin"),
            PathBuf::from("/bin"),
        ])
        .expect("a PATH");
        let os = |s: &str| OsString::from(s);
        let env = vec![
            (os("HOME"), home.into_os_string()),
            (os("PATH"), path),
            (os("SHELL"), os("/bin/bash")),
            (os("LANG"), os("C.UTF-8")),
            (os("TERM"), os("xterm-256color")),
            (os("TMUX_TMPDIR"), root.join("tmux").into_os_string()),
            (os("RAN"), root.join("ran").into_os_string()),
            (os("AGENT_RESUME"), os("1")),
            (os(MARKER), root.clone().into_os_string()),
        ];
        World {
            dir,
            bin: bin.to_owned(),
            socket: format!("ar-bench-{}-{panes}", std::process::id()),
            env,
            panes,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn db(&self) -> PathBuf {
        self.root()
            .join("home/.local/share/agent-resume/recordings.sqlite3")
    }

    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        c
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = self
            .command(Path::new("tmux"))
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("runs tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn agent_resume(&self, args: &[&str]) {
        let out = self
            .command(&self.bin)
            .args(args)
            .output()
            .expect("runs agent-resume");
        assert!(
            out.status.success(),
            "agent-resume {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn running(&self) -> bool {
        self.command(Path::new("tmux"))
            .args(["-L", &self.socket, "ls"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Every process of this world (the marker in its environment).
    fn ours(&self) -> usize {
        let mut needle = format!("{MARKER}=").into_bytes();
        needle.extend_from_slice(self.root().as_os_str().as_encoded_bytes());
        fs::read_dir("/proc")
            .expect("reads /proc")
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .filter(|e| {
                fs::read(e.path().join("environ"))
                    .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_slice()))
            })
            .count()
    }

    /// Kills the server; waits until it and every process of the world are gone.
    fn kill(&self) {
        let _ = self
            .command(Path::new("tmux"))
            .args(["-L", &self.socket, "kill-server"])
            .stderr(Stdio::null())
            .status();
        wait("the tmux server and its processes to go", || {
            !self.running() && self.ours() == 0
        });
    }

    /// Builds the layout with plain bash panes (no hooks: `-f /dev/null`),
    /// saves the snapshot, records one agent per pane, and keeps the
    /// database as the template every cycle starts from.
    fn prepare(&self) {
        let tmux_no_config = |args: &[&str]| {
            let out = self
                .command(Path::new("tmux"))
                .args(["-L", &self.socket, "-f", "/dev/null"])
                .args(args)
                .output()
                .expect("runs tmux");
            assert!(
                out.status.success(),
                "tmux {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        for i in 0..self.panes {
            let dir = self.root().join("w").join(format!("p{i}"));
            fs::create_dir_all(&dir).expect("mkdir");
            let dir = dir.to_str().expect("a UTF-8 temp path").to_owned();
            let session = format!("s{}", i / (PANES_PER_WINDOW * WINDOWS_PER_SESSION));
            let window = (i / PANES_PER_WINDOW) % WINDOWS_PER_SESSION;
            let place = format!("={session}:{window}");
            let shell = ["bash", "--norc", "--noprofile", "-i"];
            match (window, i % PANES_PER_WINDOW) {
                (0, 0) => tmux_no_config(
                    &[
                        &["new-session", "-d", "-s", &session, "-x", "200", "-y", "60"][..],
                        &["-c", &dir],
                        &shell,
                    ]
                    .concat(),
                ),
                (_, 0) => tmux_no_config(
                    &[&["new-window", "-d", "-t", &place, "-c", &dir][..], &shell].concat(),
                ),
                _ => {
                    tmux_no_config(
                        &[
                            &["split-window", "-d", "-t", &place, "-c", &dir][..],
                            &shell,
                        ]
                        .concat(),
                    );
                    tmux_no_config(&["select-layout", "-t", &place, "tiled"]);
                }
            }
        }
        self.agent_resume(&["tmux", "save", "-L", &self.socket]);
        let listed = self.tmux(&[
            "list-panes",
            "-a",
            "-F",
            "#{@agent_resume_pane}\t#{pane_current_path}",
        ]);
        let mut recorded = 0;
        for (i, line) in listed.lines().enumerate() {
            let (pane, cwd) = line.split_once('\t').expect("a list-panes line");
            let invocation = match i % 3 {
                0 => "claude --model opus --permission-mode acceptEdits",
                1 => "codex -m gpt-5 -s workspace-write",
                _ => "gemini -m gemini-2.5-pro",
            };
            let agent = invocation.split(' ').next().expect("a program word");
            let id = fs::read_to_string("/proc/sys/kernel/random/uuid").expect("a uuid");
            self.agent_resume(&[
                "record",
                "--pane",
                pane,
                "--agent",
                agent,
                "--session-id",
                id.trim(),
                "--cwd",
                cwd,
                "--invocation",
                invocation,
            ]);
            recorded += 1;
        }
        assert_eq!(recorded, self.panes, "one recording per pane");
        self.kill();
        for suffix in ["", "-wal", "-shm"] {
            let from = PathBuf::from(format!("{}{suffix}", self.db().display()));
            if from.exists() {
                fs::copy(&from, self.root().join(format!("template{suffix}")))
                    .expect("keeps the database template");
            }
        }
    }

    /// One restore; `(all started, restore exit, peak RSS in KiB)`.
    fn cycle(&self) -> (Duration, Duration, u64) {
        for suffix in ["", "-wal", "-shm"] {
            let to = PathBuf::from(format!("{}{suffix}", self.db().display()));
            let from = self.root().join(format!("template{suffix}"));
            if from.exists() {
                fs::copy(&from, &to).expect("restores the database");
            } else {
                let _ = fs::remove_file(&to);
            }
        }
        let ran = self.root().join("ran");
        fs::remove_dir_all(&ran).expect("clears ran/");
        fs::create_dir_all(&ran).expect("mkdir ran/");
        let mut child = self
            .command(Path::new("/usr/bin/time"))
            .arg("-v")
            .arg(&self.bin)
            .args(["tmux", "restore", "-L", &self.socket, "--recreate"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs /usr/bin/time agent-resume tmux restore");
        let start = Instant::now();
        let mut exited = None;
        loop {
            if exited.is_none() && child.try_wait().expect("polls the restore").is_some() {
                exited = Some(start.elapsed());
            }
            let started = fs::read_dir(&ran)
                .expect("reads ran/")
                .flatten()
                .filter(|e| !e.file_name().to_string_lossy().ends_with(".part"))
                .count();
            if started >= self.panes {
                break;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "only {started} of {} agents started",
                self.panes
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let all_started = start.elapsed();
        let out = child.wait_with_output().expect("the restore exits");
        let exited = exited.unwrap_or_else(|| start.elapsed());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "restore failed:\n{stderr}");
        let rss = stderr
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("Maximum resident set size (kbytes): ")
            })
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak RSS in /usr/bin/time's report:\n{stderr}"));
        self.kill();
        (all_started, exited, rss)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self
            .command(Path::new("tmux"))
            .args(["-L", &self.socket, "kill-server"])
            .stderr(Stdio::null())
            .status();
    }
}

fn wait(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn median<T: Copy + Ord>(mut v: Vec<T>) -> T {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let bin = target.join("release/agent-resume");
    if !bin.is_file() {
        println!(
            "tmux_restore: {} is missing; build it first: cargo build --release",
            bin.display()
        );
        return;
    }
    for tool in ["tmux", "bash", "time", "sleep"] {
        if which(tool).is_none() {
            println!("tmux_restore: `{tool}` is not installed; nothing measured");
            return;
        }
    }
    let cycles: usize = std::env::var("TMUX_RESTORE_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(10);
    println!(
        "tmux_restore: {} tmux restore --recreate, {cycles} cycles (+1 warm-up)",
        bin.display()
    );
    for panes in SIZES {
        let world = World::new(&bin, panes);
        world.prepare();
        let _ = world.cycle();
        let samples: Vec<_> = (0..cycles).map(|_| world.cycle()).collect();
        let started: Vec<Duration> = samples.iter().map(|s| s.0).collect();
        let exited: Vec<Duration> = samples.iter().map(|s| s.1).collect();
        let rss: Vec<u64> = samples.iter().map(|s| s.2).collect();
        println!(
            "{panes:>3} agent panes: all started median {} (min {}, max {}); \
             restore exit median {} (min {}); peak RSS median {} KiB (max {} KiB)",
            ms(median(started.clone())),
            ms(started.iter().copied().min().unwrap_or_default()),
            ms(started.iter().copied().max().unwrap_or_default()),
            ms(median(exited.clone())),
            ms(exited.iter().copied().min().unwrap_or_default()),
            median(rss.clone()),
            rss.iter().copied().max().unwrap_or_default(),
        );
    }
}
