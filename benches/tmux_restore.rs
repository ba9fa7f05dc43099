//! Whole-process `agent-resume tmux restore --recreate`, as a user runs it
//! after the tmux server died, against a plain tmux script that makes the
//! same layout (goal P4 of issue 14).
//!
//! **The restore**: the release binary, a private tmux server (own socket
//! name and `TMUX_TMPDIR`) whose config carries the `init tmux` hooks, bash
//! panes whose `.bashrc` loads `init bash`, and stand-in agents (`claude`,
//! `codex`, `gemini`: one small `sh` script that writes its directory and
//! argv to a file and `exec`s `sleep`) first on `PATH`. Each cycle restores
//! the same database (a saved snapshot plus one recording per pane, copied
//! back before every cycle).
//!
//! **The floor**: a plain `sh` script of tmux commands, one per pane
//! (`new-session`, `new-window`, `split-window` with `-c` and `-e`, a
//! `select-layout tiled` after each split as the layout was first built,
//! and each window's saved layout at the end), run on a second private
//! server whose config only sets the same `default-command`. Its panes start
//! the same `bash` with a `.bashrc` that sets the same prompt and, at the
//! first prompt, runs the pane's stand-in with exactly the argv the restore
//! gave it (read from the stand-ins' files after a warm-up restore), handed
//! over in the pane's environment. No agent-resume anywhere.
//!
//! Both sides are timed from spawning the restore (or the script) until
//! every stand-in has written its argv file (polled every 5 ms): sessions,
//! windows and panes made, every shell started and every agent running.
//! Set-up (copying the database back) and teardown (killing the server and
//! waiting until every process of the cycle is gone) are outside the
//! timing. For 8 and for 50 agent panes: one warm-up cycle each, then
//! `TMUX_RESTORE_CYCLES` (default 10) interleaved pairs
//! (`support/ratio.rs`); prints the `ratio=` line of P4 and the restore's
//! own exit time and peak RSS (`/usr/bin/time -v`).
//!
//! When `strace` is installed, one more cycle of each side runs under
//! `strace -f -e trace=execve` (untimed) and the bench prints how many tmux
//! clients, agent-resume processes and `tmux save` runs it started, counted
//! until a second after every agent ran (the teardown's are not counted);
//! `TMUX_RESTORE_TRACES=<dir>` keeps the traces there.
//!
//! **Staggered** (goals R1–R3 of issue 22): 50 claude panes in 10 windows
//! whose stand-ins take `STANDIN_READY` (0.3 s) to be ready and then
//! report their conversation through `agent-resume hook claude`, as the
//! real agent's hook does, restored with `max_concurrent_resumes = 2`:
//! R1, the time from spawning the restore until the focused pane's agent
//! is ready (the pane the restore queued first), against a single-pane
//! restore of the same kind in the same run (goal ≤ 1.2); R2, the most
//! agents starting (started, not yet ready) at one moment, from the
//! stand-ins' own time stamps (goal ≤ the cap); R3, the time until every
//! agent is ready against the plain tmux script with the same cap (each
//! pane's first prompt takes one of two slots, `mkdir` locks, released by
//! the stand-in once ready; goal ≤ 1.5).
//!
//! Reproduce: `cargo build --release && cargo bench --bench tmux_restore`
//! (`TMUX_RESTORE_PANES=8` for one size only; `TMUX_RESTORE_STAGGER=only`
//! for R1–R3 only, `=no` to leave them out; `TMUX_STAGGER_CYCLES`, default
//! 5).

#[path = "support/ratio.rs"]
mod ratio;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Agent pane counts measured.
const SIZES: [usize; 2] = [8, 50];

/// Panes per window and windows per session of the generated layout.
const PANES_PER_WINDOW: usize = 5;
const WINDOWS_PER_SESSION: usize = 5;

/// How long any one wait may take before the bench gives up.
const PATIENCE: Duration = Duration::from_secs(120);

/// The stand-in agent: a start writes its directory and argv to
/// `$RAN/<pid>`, then the process lives as long as its pane.
const STANDIN: &str = r#"#!/bin/sh
# Stand-in agent for benches/tmux_restore.rs. Not a real agent.
printf '%s\n' "$PWD" "${0##*/}" "$@" > "$RAN/$$.part" && mv "$RAN/$$.part" "$RAN/$$"
exec sleep 86400
"#;

/// The floor's `.bashrc`: the same prompt, and the pane's agent line run
/// at the first prompt, as the integration runs the armed line there.
const FLOOR_BASHRC: &str = "PS1='bench$ '\n\
    __floor_first() { PROMPT_COMMAND=; [ -n \"${FLOOR_LINE-}\" ] && eval \"$FLOOR_LINE\"; }\n\
    PROMPT_COMMAND=__floor_first\n";

/// The staggered stand-in (claude only): ready after `$STANDIN_READY`
/// seconds, it reports its conversation as the real agent's hook does,
/// frees the floor's slot, and writes its directory, pane, start and ready
/// times (ns) and argv to `$RAN/<pid>`.
const STAGGER_STANDIN: &str = r#"#!/bin/sh
# Stand-in agent for benches/tmux_restore.rs (staggered). Not a real agent.
started=$(date +%s%N)
id= prev=
for a in "$@"; do [ "$prev" = --resume ] && id=$a; prev=$a; done
sleep "$STANDIN_READY"
# Ready: the moment it reports its session start, as the real one's hook.
ready=$(date +%s%N)
[ -n "${FLOOR_SLOT-}" ] && rmdir "$FLOOR_SLOT"
printf '{"session_id":"%s","cwd":"%s","hook_event_name":"SessionStart","source":"resume"}' "$id" "$PWD" \
  | agent-resume hook claude >/dev/null 2>&1
printf '%s\n' "$PWD" "${AGENT_RESUME_PANE:--}" "$started" "$ready" "${0##*/}" "$@" > "$RAN/$$.part" && mv "$RAN/$$.part" "$RAN/$$"
exec sleep 86400
"#;

/// The cap of the staggered restore, and its floor's slots.
const STAGGER_CAP: usize = 2;

/// The staggered floor's `.bashrc`: at the first prompt, the pane's agent
/// line runs once one of the slots is taken (`mkdir` is atomic); the
/// stand-in frees it once ready.
const STAGGER_FLOOR_BASHRC: &str = "PS1='bench$ '\n\
    __floor_first() { PROMPT_COMMAND=; [ -n \"${FLOOR_LINE-}\" ] || return;\n\
      while :; do for i in 0 1; do mkdir \"$SLOTS/$i\" 2>/dev/null && { export FLOOR_SLOT=$SLOTS/$i; eval \"$FLOOR_LINE\"; return; }; done; sleep 0.02; done; }\n\
    PROMPT_COMMAND=__floor_first\n";

/// Which restore a world measures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// P4: every agent at once, stand-ins that report nothing.
    Plain,
    /// R1–R3: claude stand-ins that are ready after 0.3 s, at most
    /// [`STAGGER_CAP`] starting at once.
    Staggered,
}

/// The environment variable marking every process of the bench.
const MARKER: &str = "AGENT_RESUME_BENCH_WORLD";

fn which(name: &str) -> Option<PathBuf> {
    ["/usr/local/bin", "/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// `s` single-quoted for `sh`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// One side of the comparison: its home and its private tmux server.
struct Side {
    socket: String,
    env: Vec<(OsString, OsString)>,
}

/// One bench world: a temporary root (two homes, stand-ins, pane
/// directories, the database template, the floor script) and the two
/// private tmux servers.
struct World {
    dir: tempfile::TempDir,
    bin: PathBuf,
    panes: usize,
    mode: Mode,
    restore: Side,
    floor: Side,
}

/// What a traced cycle started.
#[derive(Default)]
struct Counts {
    tmux: usize,
    agent_resume: usize,
    saves: usize,
}

impl World {
    fn new(bin: &Path, panes: usize, mode: Mode) -> World {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().to_owned();
        let home = root.join("home");
        let floor_home = root.join("floor-home");
        for d in [
            home.clone(),
            floor_home.clone(),
            root.join("bin"),
            root.join("ran"),
            root.join("tmux"),
            root.join("slots"),
        ] {
            fs::create_dir_all(d).expect("mkdir");
        }
        let standin = match mode {
            Mode::Plain => STANDIN,
            Mode::Staggered => STAGGER_STANDIN,
        };
        for name in ["claude", "codex", "gemini"] {
            let p = root.join("bin").join(name);
            fs::write(&p, standin).expect("writes the stand-in");
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
        let floor_bashrc = match mode {
            Mode::Plain => FLOOR_BASHRC,
            Mode::Staggered => STAGGER_FLOOR_BASHRC,
        };
        fs::write(floor_home.join(".bashrc"), floor_bashrc).expect("writes the floor's .bashrc");
        fs::write(
            floor_home.join(".tmux.conf"),
            "set -g default-command \"bash -i\"\n",
        )
        .expect("writes the floor's .tmux.conf");
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
        let env = |home: &Path| {
            vec![
                (os("HOME"), home.as_os_str().to_owned()),
                (os("PATH"), path.clone()),
                (os("SHELL"), os("/bin/bash")),
                (os("LANG"), os("C.UTF-8")),
                (os("TERM"), os("xterm-256color")),
                (os("TMUX_TMPDIR"), root.join("tmux").into_os_string()),
                (os("RAN"), root.join("ran").into_os_string()),
                (os("AGENT_RESUME"), os("1")),
                // The restore is the manual command, timed from its spawn:
                // no start-up restore of the server it makes. P4 measures
                // the making of panes, so nothing is staggered there.
                (os("AGENT_RESUME_RESTORE"), os("manual")),
                (
                    os("AGENT_RESUME_MAX_CONCURRENT_RESUMES"),
                    os(if mode == Mode::Staggered { "2" } else { "64" }),
                ),
                (os("STANDIN_READY"), os("0.3")),
                (os("SLOTS"), root.join("slots").into_os_string()),
                (os(MARKER), root.clone().into_os_string()),
            ]
        };
        let pid = std::process::id();
        World {
            bin: bin.to_owned(),
            panes,
            mode,
            restore: Side {
                socket: format!("ar-bench-{pid}-{panes}"),
                env: env(&home),
            },
            floor: Side {
                socket: format!("ar-floor-{pid}-{panes}"),
                env: env(&floor_home),
            },
            dir,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn db(&self) -> PathBuf {
        self.root()
            .join("home/.local/share/agent-resume/recordings.sqlite3")
    }

    fn command(side: &Side, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .envs(side.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        c
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Self::command(&self.restore, Path::new("tmux"))
            .args(["-L", &self.restore.socket])
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
        let out = Self::command(&self.restore, &self.bin)
            .args(args)
            .output()
            .expect("runs agent-resume");
        assert!(
            out.status.success(),
            "agent-resume {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn running(side: &Side) -> bool {
        Self::command(side, Path::new("tmux"))
            .args(["-L", &side.socket, "ls"])
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

    /// Kills both servers; waits until they and every process of the world
    /// are gone.
    fn kill(&self) {
        for side in [&self.restore, &self.floor] {
            let _ = Self::command(side, Path::new("tmux"))
                .args(["-L", &side.socket, "kill-server"])
                .stderr(Stdio::null())
                .status();
        }
        wait("the tmux servers and their processes to go", || {
            !Self::running(&self.restore) && !Self::running(&self.floor) && self.ours() == 0
        });
    }

    /// The layout of pane `i`: its directory, session, window and whether
    /// it starts its window.
    fn place(&self, i: usize) -> (String, String, usize, usize) {
        let dir = self.root().join("w").join(format!("p{i}"));
        let dir = dir.to_str().expect("a UTF-8 temp path").to_owned();
        let session = format!("s{}", i / (PANES_PER_WINDOW * WINDOWS_PER_SESSION));
        let window = (i / PANES_PER_WINDOW) % WINDOWS_PER_SESSION;
        (dir, session, window, i % PANES_PER_WINDOW)
    }

    /// Builds the layout with plain bash panes (no hooks: `-f /dev/null`),
    /// saves the snapshot, records one agent per pane, and keeps the
    /// database as the template every cycle starts from; returns each
    /// window's layout (`=session:window` → layout).
    fn prepare(&self) -> BTreeMap<String, String> {
        let tmux_no_config = |args: &[&str]| {
            let out = Self::command(&self.restore, Path::new("tmux"))
                .args(["-L", &self.restore.socket, "-f", "/dev/null"])
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
            let (dir, session, window, index) = self.place(i);
            fs::create_dir_all(&dir).expect("mkdir");
            let place = format!("={session}:{window}");
            let shell = ["bash", "--norc", "--noprofile", "-i"];
            match (window, index) {
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
        self.agent_resume(&["tmux", "save", "-L", &self.restore.socket]);
        let layouts = self
            .tmux(&[
                "list-windows",
                "-a",
                "-F",
                "=#{session_name}:#{window_index}\t#{window_layout}",
            ])
            .lines()
            .map(|l| {
                let (w, layout) = l.split_once('\t').expect("a list-windows line");
                (w.to_owned(), layout.to_owned())
            })
            .collect();
        let listed = self.tmux(&[
            "list-panes",
            "-a",
            "-F",
            "#{@agent_resume_pane}\t#{pane_current_path}",
        ]);
        let mut recorded = 0;
        for (i, line) in listed.lines().enumerate() {
            let (pane, cwd) = line.split_once('\t').expect("a list-panes line");
            let invocation = match (self.mode, i % 3) {
                (Mode::Staggered, _) | (_, 0) => {
                    "claude --model opus --permission-mode acceptEdits"
                }
                (_, 1) => "codex -m gpt-5 -s workspace-write",
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
        layouts
    }

    /// The floor script: the same layout made with one tmux command per
    /// pane, each pane's agent line (`argv` by directory, as the restore
    /// started it) in its environment.
    fn write_floor(
        &self,
        layouts: &BTreeMap<String, String>,
        argv: &BTreeMap<String, Vec<String>>,
    ) {
        let mut script = String::from("#!/bin/sh\nset -e\n");
        let tmux = format!("tmux -L {}", self.floor.socket);
        for i in 0..self.panes {
            let (dir, session, window, index) = self.place(i);
            let place = format!("={session}:{window}");
            let words = argv
                .get(&dir)
                .unwrap_or_else(|| panic!("the restore started no agent in {dir}"));
            let line: Vec<String> = words.iter().map(|w| sh_quote(w)).collect();
            let start = format!(
                "-c {} -e {} bash",
                sh_quote(&dir),
                sh_quote(&format!("FLOOR_LINE={}", line.join(" ")))
            );
            match (window, index) {
                (0, 0) => writeln!(
                    script,
                    "{tmux} new-session -d -s {session} -x 200 -y 60 {start}"
                ),
                (_, 0) => writeln!(script, "{tmux} new-window -d -t {place} {start}"),
                _ => writeln!(
                    script,
                    "{tmux} split-window -d -t {place} {start}\n\
                     {tmux} select-layout -t {place} tiled"
                ),
            }
            .expect("writes to a String");
            let last_of_window = i + 1 == self.panes || (i + 1) % PANES_PER_WINDOW == 0;
            if last_of_window && index > 0 {
                writeln!(
                    script,
                    "{tmux} select-layout -t {place} {}",
                    sh_quote(&layouts[&place])
                )
                .expect("writes to a String");
            }
        }
        fs::write(self.root().join("floor.sh"), script).expect("writes the floor script");
    }

    /// Clears `ran/` (and copies the database template back).
    fn reset(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let to = PathBuf::from(format!("{}{suffix}", self.db().display()));
            let from = self.root().join(format!("template{suffix}"));
            if from.exists() {
                fs::copy(&from, &to).expect("restores the database");
            } else {
                let _ = fs::remove_file(&to);
            }
        }
        for d in ["ran", "slots"] {
            let dir = self.root().join(d);
            fs::remove_dir_all(&dir).expect("clears a scratch dir");
            fs::create_dir_all(&dir).expect("mkdirs a scratch dir");
        }
    }

    /// The stand-ins started so far: directory → argv.
    fn started(&self) -> BTreeMap<String, Vec<String>> {
        fs::read_dir(self.root().join("ran"))
            .expect("reads ran/")
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().ends_with(".part"))
            .filter_map(|e| {
                let text = fs::read_to_string(e.path()).ok()?;
                let mut lines = text.lines().map(str::to_owned);
                let dir = lines.next()?;
                if self.mode == Mode::Staggered {
                    // The pane and the two time stamps.
                    lines.nth(2)?;
                }
                Some((dir, lines.collect()))
            })
            .collect()
    }

    /// The staggered stand-ins' own stamps: pane, started, ready (ns).
    fn stamps(&self) -> Vec<(String, u128, u128)> {
        fs::read_dir(self.root().join("ran"))
            .expect("reads ran/")
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().ends_with(".part"))
            .filter_map(|e| {
                let text = fs::read_to_string(e.path()).ok()?;
                let l: Vec<&str> = text.lines().collect();
                Some((
                    l.get(1)?.to_string(),
                    l.get(2)?.parse().ok()?,
                    l.get(3)?.parse().ok()?,
                ))
            })
            .collect()
    }

    /// The pane the restore queued first (the one in front).
    fn first_queued(&self) -> String {
        let db = rusqlite::Connection::open(self.db()).expect("opens the database");
        db.query_row("SELECT pane FROM resumes WHERE rank = 0", [], |r| r.get(0))
            .expect("a queued pane")
    }

    /// One staggered restore: until every agent is ready, until the pane
    /// in front is ready, and the most agents starting at once.
    fn staggered_cycle(&self) -> (Duration, Duration, usize) {
        self.reset();
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("a clock after 1970")
            .as_nanos();
        let start = Instant::now();
        let child = self.spawn_restore(&["/usr/bin/env"]);
        let all = self.wait_started(start, || {});
        let out = child.wait_with_output().expect("the restore exits");
        assert!(
            out.status.success(),
            "restore failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stamps = self.stamps();
        let front = self.first_queued();
        let ready = stamps
            .iter()
            .find(|(p, _, _)| *p == front)
            .map(|s| s.2)
            .expect("the pane in front ran");
        let focused = Duration::from_nanos(u64::try_from(ready.saturating_sub(epoch)).unwrap_or(0));
        let peak = peak(&stamps);
        self.kill();
        (all, focused, peak)
    }

    /// One run of the floor script, with the most agents starting at once.
    fn staggered_floor_cycle(&self) -> (Duration, usize) {
        let d = self.floor_cycle_keeping();
        let p = peak(&self.stamps());
        self.kill();
        (d, p)
    }

    /// Waits until every stand-in started, calling `poll` between looks;
    /// the time since `start`.
    fn wait_started(&self, start: Instant, mut poll: impl FnMut()) -> Duration {
        let ran = self.root().join("ran");
        loop {
            poll();
            let started = fs::read_dir(&ran)
                .expect("reads ran/")
                .flatten()
                .filter(|e| !e.file_name().to_string_lossy().ends_with(".part"))
                .count();
            if started >= self.panes {
                return start.elapsed();
            }
            assert!(
                start.elapsed() < PATIENCE,
                "only {started} of {} agents started",
                self.panes
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn spawn_restore(&self, wrap: &[&str]) -> Child {
        let (program, pre) = wrap.split_first().expect("a program");
        Self::command(&self.restore, Path::new(program))
            .args(pre)
            .arg(&self.bin)
            .args(["tmux", "restore", "-L", &self.restore.socket, "--recreate"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs agent-resume tmux restore")
    }

    fn spawn_floor(&self, wrap: &[&str]) -> Child {
        let (program, pre) = wrap.split_first().expect("a program");
        Self::command(&self.floor, Path::new(program))
            .args(pre)
            .arg(self.root().join("floor.sh"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs the floor script")
    }

    /// One restore; `(all started, restore exit, peak RSS in KiB)`.
    fn cycle(&self) -> (Duration, Duration, u64) {
        self.reset();
        let mut child = self.spawn_restore(&["/usr/bin/time", "-v"]);
        let start = Instant::now();
        let mut exited = None;
        let all_started = self.wait_started(start, || {
            if exited.is_none() && child.try_wait().expect("polls the restore").is_some() {
                exited = Some(start.elapsed());
            }
        });
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

    /// One run of the floor script: until every stand-in started.
    fn floor_cycle(&self) -> Duration {
        let d = self.floor_cycle_keeping();
        self.kill();
        d
    }

    /// [`World::floor_cycle`], leaving its server and stand-ins running.
    fn floor_cycle_keeping(&self) -> Duration {
        self.reset();
        let child = self.spawn_floor(&["/bin/sh"]);
        let start = Instant::now();
        let all_started = self.wait_started(start, || {});
        let out = child.wait_with_output().expect("the floor script exits");
        assert!(
            out.status.success(),
            "the floor script failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        all_started
    }

    /// One untimed cycle of a side under `strace -f`: what it started, until
    /// a second after every agent ran.
    fn counted(&self, strace: &Path, restore: bool) -> Counts {
        self.reset();
        let log = self.root().join("strace.log");
        let strace = strace.to_str().expect("a UTF-8 path");
        let log_arg = log.to_str().expect("a UTF-8 temp path");
        let wrap = [
            strace,
            "-f",
            "-qq",
            "-e",
            "trace=execve",
            "-e",
            "signal=none",
            "-s",
            "64",
            "-o",
            log_arg,
        ];
        let mut child = if restore {
            self.spawn_restore(&wrap)
        } else {
            self.spawn_floor(&[&wrap[..], &["/bin/sh"]].concat())
        };
        self.wait_started(Instant::now(), || {});
        std::thread::sleep(Duration::from_secs(1));
        // A mark in the trace: the traced server runs it before the
        // teardown, whose processes (hooks of the dying server) are not
        // counted.
        let side = if restore { &self.restore } else { &self.floor };
        let marked = Self::command(side, Path::new("tmux"))
            .args(["-L", &side.socket, "run-shell", COUNT_MARK])
            .status()
            .is_ok_and(|s| s.success());
        assert!(marked, "the server runs the mark");
        self.kill();
        let _ = child.wait();
        if let Some(keep) = std::env::var_os("TMUX_RESTORE_TRACES") {
            let side = if restore { "restore" } else { "floor" };
            let to = Path::new(&keep).join(format!("{side}-{}.strace", self.panes));
            fs::copy(&log, to).expect("keeps the trace");
        }
        count_execs(&String::from_utf8_lossy(
            &fs::read(&log).expect("reads the trace"),
        ))
    }
}

/// What the traced server runs to mark the end of what is counted.
const COUNT_MARK: &str = ": tmux_restore-count-ends-here";

/// Counts the successful `execve` calls of an `strace -f` log by program,
/// up to [`COUNT_MARK`].
fn count_execs(log: &str) -> Counts {
    let mut pending: BTreeMap<&str, &str> = BTreeMap::new();
    let mut counts = Counts::default();
    for line in log.lines() {
        if line.contains(COUNT_MARK) {
            break;
        }
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let call = if let Some(rest) = rest.strip_prefix("<... execve resumed>") {
            match pending.remove(pid) {
                Some(call) if rest.contains(" = 0") => call,
                _ => continue,
            }
        } else if rest.starts_with("execve(") {
            if rest.ends_with("<unfinished ...>") {
                pending.insert(pid, rest);
                continue;
            }
            if !rest.contains(") = 0") {
                continue;
            }
            rest
        } else {
            continue;
        };
        let path = call
            .strip_prefix("execve(\"")
            .and_then(|r| r.split('"').next())
            .unwrap_or_default();
        match path.rsplit('/').next() {
            Some("tmux") => counts.tmux += 1,
            Some("agent-resume") => {
                counts.agent_resume += 1;
                if call.contains("\"tmux\", \"save\"") {
                    counts.saves += 1;
                }
            }
            _ => {}
        }
    }
    counts
}

fn wait(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The most intervals (started, ready) open at one moment; a slot freed
/// and taken at the same instant counts once.
fn peak(stamps: &[(String, u128, u128)]) -> usize {
    let mut edges: Vec<(u128, i32)> = stamps
        .iter()
        .flat_map(|(_, s, r)| [(*s, 1), (*r, -1)])
        .collect();
    edges.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    usize::try_from(most).unwrap_or(0)
}

/// R1–R3 (see the module docs).
fn staggered(bin: &Path) {
    let cycles: usize = std::env::var("TMUX_STAGGER_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(5);
    println!(
        "tmux_restore: staggered, 50 agent panes in 10 windows, ready after 0.3 s, \
         max_concurrent_resumes = {STAGGER_CAP}, {cycles} interleaved pairs (+1 warm-up each)"
    );
    let many = World::new(bin, 50, Mode::Staggered);
    let layouts = many.prepare();
    let one = World::new(bin, 1, Mode::Staggered);
    one.prepare();
    let _ = many.staggered_cycle();
    let _ = one.staggered_cycle();
    many.write_floor(&layouts, &many.started());
    many.kill();
    let _ = many.staggered_floor_cycle();
    let mut peaks = Vec::new();
    let r1 = ratio::paired_timed(
        cycles,
        || {
            let (_, focused, p) = many.staggered_cycle();
            peaks.push(p);
            focused
        },
        || one.staggered_cycle().1,
    );
    ratio::report(
        "R1",
        "tmux restore --recreate, 50 staggered agent panes, until the pane in front is ready",
        "the same restore of a single pane, until it is ready",
        Some(1.2),
        &r1,
    );
    let mut floor_peaks = Vec::new();
    let r3 = ratio::paired_timed(
        cycles,
        || {
            let (all, _, p) = many.staggered_cycle();
            peaks.push(p);
            all
        },
        || {
            let (d, p) = many.staggered_floor_cycle();
            floor_peaks.push(p);
            d
        },
    );
    ratio::report(
        "R3",
        "tmux restore --recreate, 50 staggered agent panes, until every agent is ready",
        "plain tmux script, same layout and stand-ins, the same cap (mkdir slots)",
        Some(1.5),
        &r3,
    );
    let most = peaks.iter().copied().max().unwrap_or(0);
    println!(
        "R2 peak agents starting at once: {most} in {} restores (goal <= {STAGGER_CAP}: {}); \
         the floor script's own peak {}",
        peaks.len(),
        if most <= STAGGER_CAP {
            "holds"
        } else {
            "MISSED"
        },
        floor_peaks.iter().copied().max().unwrap_or(0)
    );
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
        "tmux_restore: {} tmux restore --recreate against a plain tmux script, \
         {cycles} interleaved pairs (+1 warm-up each)",
        bin.display()
    );
    let stagger = std::env::var("TMUX_RESTORE_STAGGER").unwrap_or_default();
    if stagger == "only" {
        staggered(&bin);
        return;
    }
    // `TMUX_RESTORE_PANES=8` (or `8,50`) measures only those sizes.
    let sizes: Vec<usize> = match std::env::var("TMUX_RESTORE_PANES") {
        Ok(list) => list
            .split(',')
            .filter_map(|n| n.trim().parse().ok())
            .collect(),
        Err(_) => SIZES.to_vec(),
    };
    for panes in sizes {
        let world = World::new(&bin, panes, Mode::Plain);
        let layouts = world.prepare();
        let _ = world.cycle();
        world.write_floor(&layouts, &world.started());
        let _ = world.floor_cycle();
        let mut restores = Vec::new();
        let p = ratio::paired_timed(
            cycles,
            || {
                let c = world.cycle();
                restores.push(c);
                c.0
            },
            || world.floor_cycle(),
        );
        ratio::report(
            "P4",
            &format!("tmux restore --recreate, {panes} agent panes, until every agent runs"),
            "plain tmux script, same layout, shells and stand-ins",
            Some(1.5),
            &p,
        );
        let exited: Vec<Duration> = restores.iter().map(|s| s.1).collect();
        let rss: Vec<u64> = restores.iter().map(|s| s.2).collect();
        println!(
            "{panes:>3} agent panes: restore exit median {} (min {}); peak RSS median {} KiB (max {} KiB)",
            ms(median(exited.clone())),
            ms(exited.iter().copied().min().unwrap_or_default()),
            median(rss.clone()),
            rss.iter().copied().max().unwrap_or_default(),
        );
        match which("strace") {
            Some(strace) => {
                let r = world.counted(&strace, true);
                let f = world.counted(&strace, false);
                println!(
                    "{panes:>3} agent panes: started per restore: {} tmux clients, {} agent-resume \
                     processes ({} tmux save); per floor script: {} tmux clients, {} agent-resume",
                    r.tmux, r.agent_resume, r.saves, f.tmux, f.agent_resume
                );
            }
            None => {
                println!("{panes:>3} agent panes: strace is not installed; processes not counted")
            }
        }
    }
    if stagger != "no" {
        staggered(&bin);
    }
}
