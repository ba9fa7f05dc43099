//! What the shell integration costs an interactive shell inside tmux
//! (issue 24's P8 and P9), measured against units taken in the same run.
//!
//! **P8, per command line**: an interactive shell in a pane of a private
//! tmux server is fed 300 `true` lines at once (one `send-keys`), then a
//! line that prints a marker; the time until the marker shows, divided by
//! the lines, is one line's cost. The same shell with no rc but the prompt
//! is the floor; the difference is the integration's cost per line,
//! reported against one tmux client round trip (`tmux display -p`), the
//! unit the integration's per-prompt calls are made of. Goal ≤ 0.25.
//!
//! **P9, per shell start**: a new window running the shell until its first
//! prompt hook runs (the last hook appends to a file the bench waits on:
//! no tmux client polls the screen meanwhile), with and without the
//! integration loaded by the README's startup-file line; the difference
//! against one `agent-resume --version` process. Goal ≤ 1.5. The same
//! with `eval "$(agent-resume init …)"` is printed for comparison.
//!
//! **P8k, per prompt inside kitty**: the same shell as a kitty window
//! outside tmux sees itself (`KITTY_WINDOW_ID`, `KITTY_LISTEN_ON`), its
//! integration's program swapped for a wrapper that counts each run: the
//! agent-resume processes started over 300 prompts with nothing changed,
//! per prompt (goal 0), and, as the control, over one `cd` (a save).
//!
//! bash, zsh and fish each; the feature on (`agent-resume enable`), a
//! private `HOME` and database. Rounds interleave the shell with and without the
//! integration (`support/ratio.rs`), so load on the shared machine weighs
//! on both.
//!
//! Reproduce: `cargo build --release && cargo bench --bench shell_cost`
//! (`SHELL_COST_ROUNDS`, default 5; `SHELL_COST_SHELLS=bash,zsh`).

#[path = "support/ratio.rs"]
mod ratio;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Lines per P8 round.
const LINES: usize = 300;

/// How long any one wait may take.
const PATIENCE: Duration = Duration::from_secs(60);

struct World {
    /// Where the kitty variant's wrapper notes each agent-resume it runs.
    counted: PathBuf,
    dir: tempfile::TempDir,
    socket: String,
    env: Vec<(OsString, OsString)>,
    bin: PathBuf,
}

impl World {
    fn new(bin: &Path) -> World {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().to_owned();
        for d in [
            "home",
            "tmux",
            "plain",
            "int",
            "eval",
            "kitty",
            "home/.config/fish",
        ] {
            fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        let os = |s: &str| OsString::from(s);
        let env = vec![
            (os("HOME"), root.join("home").into_os_string()),
            (os("PATH"), os("/usr/local/bin:/usr/bin:/bin")),
            (os("LANG"), os("C.UTF-8")),
            (os("TERM"), os("xterm-256color")),
            (os("TMUX_TMPDIR"), root.join("tmux").into_os_string()),
            (
                os("AGENT_RESUME_DB"),
                root.join("home/recordings.sqlite3").into_os_string(),
            ),
        ];
        // The feature on as a user turns it on: `enable` writes the files
        // the documented startup-file line sources.
        let run = |args: &[&str]| -> String {
            let out = Command::new(bin)
                .env_clear()
                .envs(env.iter().map(|(k, v)| (k, v)))
                .args(args)
                .output()
                .expect("runs agent-resume");
            assert!(out.status.success(), "agent-resume {args:?} fails");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        run(&["enable"]);
        let init = |shell: &str, variant: &str| match (shell, variant) {
            (_, "int") => run(&["init", shell, "--rc-line"]),
            ("fish", _) => format!("{} init fish | source\n", bin.display()),
            _ => format!("eval \"$({} init {shell})\"\n", bin.display()),
        };
        // Each variant's rc: the same prompt, then the integration as the
        // README's line loads it (int), as `eval "$(agent-resume init …)"`
        // loads it (eval), or none (plain); last, the same append to the
        // file the bench waits on, at every prompt.
        // kitty: the README's line, then every agent-resume the integration
        // runs goes through a wrapper that counts it (P8k).
        let counted = root.join("counted");
        let wrapper = root.join("agent-resume-counted");
        fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
                counted.display(),
                bin.display()
            ),
        )
        .expect("writes the wrapper");
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        for variant in ["plain", "int", "eval", "kitty"] {
            let d = root.join(variant);
            let mut bash = String::from("PS1='bench$ '\n");
            let mut zsh = String::from("PS1='bench$ '\n");
            let mut fish = String::from(
                "function fish_prompt\n    printf x >>$AR_BENCH_READY\n    printf 'bench$ '\nend\n\
                 function fish_greeting\nend\n",
            );
            if variant != "plain" {
                let line = if variant == "kitty" { "int" } else { variant };
                bash.push_str(&init("bash", line));
                zsh.push_str(&init("zsh", line));
                fish.push_str(&init("fish", line));
            }
            if variant == "kitty" {
                let w = wrapper.display();
                bash.push_str(&format!("__agent_resume_bin='{w}'\n"));
                zsh.push_str(&format!("_agent_resume_bin='{w}'\n"));
                fish.push_str(&format!("set -g __agent_resume_bin '{w}'\n"));
            }
            bash.push_str(
                "PROMPT_COMMAND=\"${PROMPT_COMMAND:+$PROMPT_COMMAND;}\"'printf x >>\"$AR_BENCH_READY\"'\n",
            );
            zsh.push_str("ar_bench_ready() { print -n x >>$AR_BENCH_READY }\nprecmd_functions+=(ar_bench_ready)\n");
            fs::write(d.join("bashrc"), bash).expect("writes bashrc");
            fs::create_dir_all(d.join("zdot")).expect("mkdir");
            fs::write(d.join("zdot/.zshrc"), zsh).expect("writes zshrc");
            fs::write(d.join("config.fish"), fish).expect("writes config.fish");
        }
        let w = World {
            counted,
            dir,
            socket: format!("ar-shell-cost-{}", std::process::id()),
            env,
            bin: bin.to_owned(),
        };
        w.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "anchor",
            "-x",
            "160",
            "-y",
            "50",
            "sleep 100000",
        ]);
        w
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

    /// The command line starting `shell` with `variant`'s rc; the kitty
    /// variant's shell sees a kitty window outside tmux.
    fn shell_line(&self, shell: &str, variant: &str) -> String {
        let d = self.dir.path().join(variant);
        let line = self.shell_only(shell, &d);
        if variant == "kitty" {
            format!(
                "env -u TMUX -u TMUX_PANE KITTY_WINDOW_ID=1 KITTY_LISTEN_ON=unix:{}/no-kitty {line}",
                self.dir.path().display()
            )
        } else {
            line
        }
    }

    fn shell_only(&self, shell: &str, d: &Path) -> String {
        match shell {
            "bash" => format!(
                "bash --noprofile --rcfile {} -i",
                d.join("bashrc").display()
            ),
            "zsh" => format!("env ZDOTDIR={} zsh -i", d.join("zdot").display()),
            _ => format!(
                "fish --no-config -C 'source {}'",
                d.join("config.fish").display()
            ),
        }
    }

    /// A new window running the shell; its target and the time until its
    /// first prompt showed.
    /// The time is until the shell's first prompt hook appended to a
    /// file of its own (the last hook, after the integration's): no tmux
    /// client polls the screen while it starts.
    fn start(&self, shell: &str, variant: &str) -> (String, Duration) {
        let line = self.shell_line(shell, variant);
        let ready = self
            .dir
            .path()
            .join(format!("ready-{}", uuid_like(self.dir.path())));
        let env = format!("AR_BENCH_READY={}", ready.display());
        let t = Instant::now();
        let target = self
            .tmux(&[
                "new-window",
                "-d",
                "-e",
                &env,
                "-P",
                "-F",
                "#{pane_id}",
                &line,
            ])
            .trim()
            .to_owned();
        while !ready.exists() {
            assert!(t.elapsed() < PATIENCE, "{target} never showed its prompt");
            std::thread::sleep(Duration::from_micros(100));
        }
        let took = t.elapsed();
        self.wait_screen(&target, |s| s.contains("bench$"));
        (target, took)
    }

    fn wait_screen(&self, target: &str, done: impl Fn(&str) -> bool) {
        let t = Instant::now();
        loop {
            let s = self.tmux(&["capture-pane", "-p", "-t", target]);
            if done(&s) {
                return;
            }
            assert!(t.elapsed() < PATIENCE, "{target} never showed it:\n{s}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// One P9 sample: seconds until a new window's first prompt hook ran.
    fn first_prompt(&self, shell: &str, variant: &str) -> f64 {
        let (t, d) = self.start(shell, variant);
        self.tmux(&["kill-pane", "-t", &t]);
        d.as_secs_f64()
    }

    /// One P8 round: seconds per line.
    fn lines(&self, shell: &str, variant: &str, round: usize) -> f64 {
        let (target, _) = self.start(shell, variant);
        let marker = format!("done{round}x");
        let mut text = "true\n".repeat(LINES);
        text.push_str(&format!("echo {marker}\n"));
        let t = Instant::now();
        self.tmux(&["send-keys", "-t", &target, "-l", &text]);
        self.wait_screen(&target, |s| s.lines().any(|l| l.trim() == marker));
        let per = t.elapsed().as_secs_f64() / LINES as f64;
        self.tmux(&["kill-pane", "-t", &target]);
        per
    }

    /// P8k: agent-resume processes the kitty variant's integration starts
    /// per prompt, over `LINES` prompts with nothing changed, and over one
    /// `cd` (the control: a change saves).
    fn kitty_processes(&self, shell: &str) -> (f64, usize) {
        let (target, _) = self.start(shell, "kitty");
        let runs = || {
            fs::read_to_string(&self.counted)
                .unwrap_or_default()
                .lines()
                .count()
        };
        let settle = || {
            let mut last = runs();
            loop {
                std::thread::sleep(Duration::from_millis(300));
                let now = runs();
                if now == last {
                    return now;
                }
                last = now;
            }
        };
        let before = settle();
        let mut text = "true\n".repeat(LINES);
        text.push_str("echo kitty-donex\n");
        self.tmux(&["send-keys", "-t", &target, "-l", &text]);
        self.wait_screen(&target, |s| s.lines().any(|l| l.trim() == "kitty-donex"));
        let after = settle();
        self.tmux(&["send-keys", "-t", &target, "-l", "cd /\necho kitty-cdx\n"]);
        self.wait_screen(&target, |s| s.lines().any(|l| l.trim() == "kitty-cdx"));
        let cd = settle() - after;
        self.tmux(&["kill-pane", "-t", &target]);
        ((after - before) as f64 / LINES as f64, cd)
    }

    /// One tmux client round trip, in seconds (median of 50).
    fn round_trip(&self) -> f64 {
        let mut v: Vec<f64> = (0..50)
            .map(|_| {
                let t = Instant::now();
                self.tmux(&["display-message", "-p", "x"]);
                t.elapsed().as_secs_f64()
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    /// One `agent-resume --version` process, in seconds (median of 20).
    fn version(&self) -> f64 {
        let mut v: Vec<f64> = (0..20)
            .map(|_| {
                let t = Instant::now();
                let out = self
                    .command(&self.bin)
                    .arg("--version")
                    .output()
                    .expect("runs agent-resume");
                assert!(out.status.success());
                t.elapsed().as_secs_f64()
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
}

/// A name not used before in `dir`.
fn uuid_like(dir: &Path) -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        if !dir.join(format!("ready-{n}")).exists() {
            return n;
        }
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

fn main() {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let bin = target.join("release/agent-resume");
    if !bin.is_file() {
        println!(
            "shell_cost: {} is missing; build it first: cargo build --release",
            bin.display()
        );
        return;
    }
    let rounds: usize = std::env::var("SHELL_COST_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(5);
    let shells: Vec<String> = std::env::var("SHELL_COST_SHELLS")
        .unwrap_or_else(|_| "bash,zsh,fish".to_owned())
        .split(',')
        .map(str::to_owned)
        .collect();
    let w = World::new(&bin);
    let trip = w.round_trip();
    let version = w.version();
    println!(
        "shell_cost: one tmux round trip {:.2} ms, one agent-resume --version {:.2} ms, {rounds} rounds",
        trip * 1e3,
        version * 1e3
    );
    for shell in &shells {
        if Command::new(shell).arg("--version").output().is_err() {
            println!("shell_cost: {shell} is not installed; not measured");
            continue;
        }
        let mut round = 0;
        let p8 = ratio::interleaved(
            rounds,
            || {
                round += 1;
                w.lines(shell, "int", round)
            },
            || w.lines(shell, "plain", 0),
        );
        let added = p8.path.as_secs_f64() - p8.floor.as_secs_f64();
        println!(
            "P8 {shell}: {:.2} ms per line with the integration, {:.2} ms without: +{:.2} ms = {:.2} tmux round trips (goal <= 0.25: {})",
            p8.path.as_secs_f64() * 1e3,
            p8.floor.as_secs_f64() * 1e3,
            added * 1e3,
            added / trip,
            if added / trip <= 0.25 { "holds" } else { "MISSED" }
        );
        // P9: the start with `variant`'s line against the plain start,
        // interleaved: (with, without, added) in seconds.
        let starts = |variant: &str| {
            let r = ratio::interleaved(
                rounds,
                || w.first_prompt(shell, variant),
                || w.first_prompt(shell, "plain"),
            );
            let (path, floor) = (r.path.as_secs_f64(), r.floor.as_secs_f64());
            (path, floor, path - floor)
        };
        let (path, floor, added) = starts("int");
        println!(
            "P9 {shell}: start {:.1} ms with the integration, {:.1} ms without: +{:.1} ms = {:.2} agent-resume processes (goal <= 1.5: {})",
            path * 1e3,
            floor * 1e3,
            added * 1e3,
            added / version,
            if added / version <= 1.5 { "holds" } else { "MISSED" }
        );
        let (per, cd) = w.kitty_processes(shell);
        println!(
            "P8k {shell}: {per:.3} agent-resume processes per prompt in kitty with nothing changed over {LINES} prompts (goal 0: {}); after a cd: {cd}",
            if per == 0.0 { "holds" } else { "MISSED" }
        );
        // For comparison: the `eval "$(agent-resume init …)"` line, one
        // process at every start.
        let (path, floor, added) = starts("eval");
        println!(
            "P9 {shell} (eval line, for comparison): start {:.1} ms, {:.1} ms without: +{:.1} ms = {:.2} agent-resume processes",
            path * 1e3,
            floor * 1e3,
            added * 1e3,
            added / version,
        );
    }
}
