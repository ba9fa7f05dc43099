//! Files another program or user can place, end to end: a FIFO, a link to
//! `/dev/zero` and a 100 MB sparse file at every read site (the config
//! file, a layout file, every agent's session store, the pid registries,
//! the hook's payload on stdin). Every command finishes within a bound
//! (a guard kills it and fails, it is not a benchmark), and `hook` keeps
//! its promise: exit 0, nothing on stdout, under 10 MB peak RSS.

#![allow(clippy::unwrap_used)]

#[path = "../crates/discover/tests/fixtures/mod.rs"]
mod fixtures;

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agent_resume_test_support::{text, PrivateEnv};
use serde_json::json;

const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const NOW: &str = "2026-11-30T12:00:00Z";

/// Every command must be done by then; this is a hang guard, not a
/// benchmark.
const LIMIT: Duration = Duration::from_secs(2);

/// The hook's peak resident set, in KiB, for an optimized build (a release
/// hook peaks at about 5 MiB on a 100 MB payload).
const HOOK_RSS_KIB: u64 = 10 * 1024;

/// What a hostile payload may add to the hook's peak resident set over an
/// empty payload, in KiB, whatever the build profile (the read cap is
/// 1 MiB; an unoptimized binary alone resides in about 8 MiB).
const HOOK_RSS_GROWTH_KIB: u64 = 2 * 1024;

/// What is planted where a file is expected.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// A FIFO nobody writes to.
    Fifo,
    /// A symbolic link to `/dev/zero`.
    DevZero,
    /// A 100 MB sparse file.
    Huge,
}

const FAULTS: [Fault; 3] = [Fault::Fifo, Fault::DevZero, Fault::Huge];

/// Replaces whatever is at `path` with `fault`.
fn plant(path: &Path, fault: Fault) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = fs::remove_file(path);
    match fault {
        Fault::Fifo => {
            let made = Command::new("mkfifo")
                .arg(path)
                .status()
                .expect("mkfifo runs");
            assert!(made.success(), "mkfifo {}", path.display());
        }
        Fault::DevZero => symlink("/dev/zero", path).unwrap(),
        Fault::Huge => File::create(path)
            .and_then(|f| f.set_len(100 << 20))
            .unwrap(),
    }
}

/// What a command reads on stdin.
enum Input {
    Null,
    Bytes(Vec<u8>),
    File(File),
}

/// A private world; every run is in its root, as the pane [`PANE`].
struct Env(PrivateEnv);

impl Env {
    fn new() -> Env {
        Env(PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume")).with("AGENT_RESUME_PANE", PANE))
    }
    fn root(&self) -> &Path {
        self.0.root()
    }
    fn home(&self) -> PathBuf {
        self.0.home()
    }
    fn config(&self) -> PathBuf {
        self.0.config()
    }
    fn work(&self) -> PathBuf {
        let p = self.root().join("work");
        fs::create_dir_all(&p).unwrap();
        p
    }
    fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut c = self.0.command(args);
        c.current_dir(self.root());
        c.into_inner()
    }

    /// Runs `c` to completion within [`LIMIT`], or kills it and fails
    /// naming `what`.
    fn within(what: &str, mut c: Command, input: Input) -> Output {
        let bytes = match input {
            Input::Null => {
                c.stdin(Stdio::null());
                None
            }
            Input::Bytes(b) => {
                c.stdin(Stdio::piped());
                Some(b)
            }
            Input::File(f) => {
                c.stdin(Stdio::from(f));
                None
            }
        };
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let start = Instant::now();
        let mut child = c.spawn().expect("spawns");
        if let Some(b) = bytes {
            let mut stdin = child.stdin.take().unwrap();
            let _ = stdin.write_all(&b);
        }
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if start.elapsed() > LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what}: still running after {LIMIT:?}; killed");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        child.wait_with_output().unwrap()
    }

    fn run(&self, what: &str, args: &[&str], input: Input) -> Output {
        Env::within(what, self.command(args), input)
    }

    fn ok(&self, args: &[&str]) {
        let out = self.run(&args.join(" "), args, Input::Null);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }

    fn record(&self, agent: &str, session: &str, cwd: &Path) {
        self.ok(&[
            "record",
            "--pane",
            PANE,
            "--agent",
            agent,
            "--session-id",
            session,
            "--cwd",
            cwd.to_str().unwrap(),
            "--observed-at",
            "2026-11-30T11:59:00Z",
            "--invocation",
            agent,
        ]);
    }

    fn layout(&self, cwd: &Path) -> PathBuf {
        let p = self.root().join("layout.json");
        let l = json!({"startup": true, "windows": [{"landing": true, "visible": true, "active_tab": 0,
            "tabs": [{"focused_pane": PANE, "panes": [{"id": PANE, "cwd": cwd, "shell": "zsh"}]}]}]});
        fs::write(&p, serde_json::to_vec(&l).unwrap()).unwrap();
        p
    }

    fn hook_payload(&self) -> Vec<u8> {
        format!(
            r#"{{"session_id":"{}","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
            fixtures::CLAUDE,
            self.work().display()
        )
        .into_bytes()
    }

    /// Runs `hook claude` under `/usr/bin/time`: exit 0, nothing on stdout;
    /// returns its peak RSS in KiB.
    fn hook_peak_kib(&self, what: &str, input: Input) -> u64 {
        let time = Path::new("/usr/bin/time");
        assert!(
            time.is_file(),
            "/usr/bin/time (GNU time) is required to measure the hook's peak RSS: apt-get install -y time"
        );
        let rss = self.root().join("hook.rss");
        let mut c = self.0.program(
            time,
            &[
                OsStr::new("-f"),
                OsStr::new("%M"),
                OsStr::new("-o"),
                rss.as_os_str(),
                self.0.bin().as_os_str(),
                OsStr::new("hook"),
                OsStr::new("claude"),
            ],
        );
        c.current_dir(self.root());
        let out = Env::within(what, c.into_inner(), input);
        assert!(out.status.success(), "{what}: hook exit {:?}", out.status);
        assert!(out.stdout.is_empty(), "{what}: hook printed on stdout");
        fs::read_to_string(&rss)
            .unwrap()
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{what}: GNU time's %M: {e}"))
    }

    /// Checks the hook's promise on `input`: exit 0, nothing on stdout, and
    /// bounded memory — at most [`HOOK_RSS_GROWTH_KIB`] over the same
    /// binary on an empty payload, and at most [`HOOK_RSS_KIB`] when the
    /// binary is optimized.
    fn hook_keeps_its_promise(&self, what: &str, input: Input) {
        let baseline = self.hook_peak_kib("hook with an empty payload", Input::Null);
        let kib = self.hook_peak_kib(what, input);
        assert!(
            kib <= baseline + HOOK_RSS_GROWTH_KIB,
            "{what}: hook peak RSS {kib} KiB, {} KiB over an empty payload's {baseline} KiB",
            kib.saturating_sub(baseline)
        );
        if !cfg!(debug_assertions) {
            assert!(
                kib <= HOOK_RSS_KIB,
                "{what}: hook peak RSS {kib} KiB over {HOOK_RSS_KIB} KiB"
            );
        }
    }
}

#[test]
fn a_config_path_that_is_a_fifo_a_device_or_huge_holds_up_no_command() {
    for fault in FAULTS {
        let env = Env::new();
        let work = env.work();
        plant(&env.config(), fault);
        let layout = env.layout(&work);
        let layout = layout.to_str().unwrap();
        let what = |cmd: &str| format!("{cmd} with the config a {fault:?}");
        for args in [
            &["plan", "--json", "--now", NOW, "--layout", layout][..],
            &["restore", "--now", NOW, "--layout", layout],
            &["sessions", "--all"],
            &["resume", "f6066ebb", "--print"],
            &["take", "--pane", PANE, "--shell", "zsh"],
            &["status"],
            &["enable"],
        ] {
            let out = env.run(&what(args[0]), args, Input::Null);
            assert!(
                !text(&out.stderr).contains("\0"),
                "{}: stderr holds file bytes",
                what(args[0])
            );
        }
        env.run(
            &what("note"),
            &["note", "--pane", PANE, "--shell", "bash"],
            Input::Bytes(b"claude --model opus\n".to_vec()),
        );
        env.hook_keeps_its_promise(&what("hook"), Input::Bytes(env.hook_payload()));
    }
}

#[test]
fn a_config_file_that_cannot_be_read_is_named_by_kind_and_counts_as_saying_nothing() {
    let env = Env::new();
    plant(&env.config(), Fault::DevZero);
    let out = env.run("status", &["status"], Input::Null);
    let said = text(&out.stdout);
    assert!(
        said.contains("ignored: the config file is not a regular file"),
        "status says why: {said}"
    );
    assert!(said.contains("feature:    off"), "{said}");
    plant(&env.config(), Fault::Huge);
    let out = env.run("status", &["status"], Input::Null);
    assert!(
        text(&out.stdout).contains("ignored: the config file is larger than 65536 bytes"),
        "{}",
        text(&out.stdout)
    );
    let out = env.run("enable", &["enable"], Input::Null);
    assert!(
        !out.status.success(),
        "a config that cannot be read is not rewritten"
    );
    assert!(
        text(&out.stderr).contains("the config file is larger than"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_layout_file_that_is_a_fifo_a_device_or_huge_is_refused_at_once() {
    for fault in FAULTS {
        let env = Env::new();
        env.ok(&["enable"]);
        let layout = env.root().join("layout.json");
        plant(&layout, fault);
        for cmd in ["plan", "restore"] {
            let out = env.run(
                &format!("{cmd} with the layout a {fault:?}"),
                &[cmd, "--now", NOW, "--layout", layout.to_str().unwrap()],
                Input::Null,
            );
            assert!(!out.status.success(), "{cmd} {fault:?} refused");
            assert!(out.stdout.is_empty(), "{cmd} {fault:?}: nothing planned");
            assert!(
                text(&out.stderr).contains("layout file"),
                "{cmd} {fault:?}: {}",
                text(&out.stderr)
            );
        }
    }
}

/// Every session file, side file and database of every agent's store under
/// `home`, as the fixtures write them.
fn store_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            store_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn session_stores_and_pid_registries_holding_fifos_devices_or_huge_files_hold_up_nothing() {
    for fault in FAULTS {
        let env = Env::new();
        let work = env.work();
        env.ok(&["enable"]);
        fixtures::every_agent(&env.home(), &work);
        let from = env.home().join(".local/share/opencode");
        fs::create_dir_all(env.root().join("xdg-data")).unwrap();
        fs::rename(from, env.root().join("xdg-data/opencode")).unwrap();
        let mut files = Vec::new();
        store_files(&env.home(), &mut files);
        store_files(&env.root().join("xdg-data"), &mut files);
        // The pid registries.
        files.push(env.home().join(".claude/sessions/4242.json"));
        files.push(env.home().join(".grok/active_sessions.json"));
        assert!(files.len() > 15, "every store was written: {files:?}");
        for f in &files {
            plant(f, fault);
        }
        env.record("claude", fixtures::CLAUDE, &work);
        let layout = env.layout(&work);
        let layout = layout.to_str().unwrap();
        // Every record of every file (`--full`) of ~20 huge files is more
        // than 2 s of reading: each is capped alone (read::MAX_SESSION_FILE).
        let full: &[&[&str]] = match fault {
            Fault::Fifo | Fault::DevZero => &[
                &["sessions", "--all", "--full"],
                &["sessions", "--all", "--full", "--json", "anything"],
            ],
            Fault::Huge => &[],
        };
        for args in full.iter().copied().chain([
            &["sessions", "--all"][..],
            &["resume", &fixtures::CLAUDE[..8], "--print"],
            &["resume", &fixtures::GEMINI[..8], "--print"],
            &["plan", "--json", "--now", NOW, "--layout", layout],
            &["restore", "--now", NOW, "--layout", layout],
        ]) {
            env.run(
                &format!("{} with every store file a {fault:?}", args.join(" ")),
                args,
                Input::Null,
            );
        }
        // A Gemini recording makes the plan read the hinted session files.
        env.record("gemini", fixtures::GEMINI, &work);
        env.run(
            &format!("plan of a gemini pane with every store file a {fault:?}"),
            &["plan", "--json", "--now", NOW, "--layout", layout],
            Input::Null,
        );
    }
}

#[test]
fn pid_registries_that_are_fifos_devices_or_huge_hold_up_no_plan_or_restore() {
    for fault in FAULTS {
        let env = Env::new();
        let work = env.work();
        env.ok(&["enable"]);
        fixtures::claude(
            &env.home(),
            &work,
            fixtures::CLAUDE,
            "hi",
            fixtures::NOW_MS,
            0,
        );
        plant(&env.home().join(".claude/sessions/4242.json"), fault);
        plant(&env.home().join(".grok/active_sessions.json"), fault);
        env.record("claude", fixtures::CLAUDE, &work);
        let layout = env.layout(&work);
        let layout = layout.to_str().unwrap();
        for cmd in ["plan", "restore"] {
            let out = env.run(
                &format!("{cmd} with the pid registries a {fault:?}"),
                &[cmd, "--now", NOW, "--layout", layout],
                Input::Null,
            );
            assert!(out.status.success(), "{cmd}: {}", text(&out.stderr));
        }
    }
}

#[test]
fn agent_settings_and_the_telemetry_file_that_are_fifos_devices_or_huge_are_refused_at_once() {
    for fault in FAULTS {
        let env = Env::new();
        let settings = env.home().join(".claude/settings.json");
        plant(&settings, fault);
        for args in [
            &["install-hooks", "claude", "--dry-run"][..],
            &["install-hooks", "claude"],
            &["uninstall-hooks", "claude"],
        ] {
            let out = env.run(
                &format!("{} with the settings a {fault:?}", args.join(" ")),
                args,
                Input::Null,
            );
            let said = text(&out.stderr);
            match fault {
                Fault::Fifo | Fault::DevZero => assert!(
                    !out.status.success()
                        && said.contains("agent settings file is not a regular file"),
                    "{args:?} {fault:?}: {said}"
                ),
                Fault::Huge => assert!(
                    !out.status.success() && said.contains("agent settings file is larger than"),
                    "{args:?} {fault:?}: {said}"
                ),
            }
        }
        let telemetry = env.root().join("state/telemetry.jsonl");
        plant(&telemetry, fault);
        let out = env.run(
            &format!("stats with telemetry a {fault:?}"),
            &["stats"],
            Input::Null,
        );
        match fault {
            Fault::Fifo | Fault::DevZero => assert!(
                !out.status.success()
                    && text(&out.stderr).contains("telemetry file is not a regular file"),
                "stats {fault:?}: {}",
                text(&out.stderr)
            ),
            Fault::Huge => assert!(out.status.success(), "{}", text(&out.stderr)),
        }
    }
}

#[test]
fn a_hook_payload_that_never_ends_or_never_closes_keeps_the_hooks_promise() {
    let env = Env::new();
    env.ok(&["enable"]);
    env.hook_keeps_its_promise(
        "hook reading /dev/zero",
        Input::File(File::open("/dev/zero").unwrap()),
    );
    let big = env.root().join("big");
    plant(&big, Fault::Huge);
    env.hook_keeps_its_promise(
        "hook reading 100 MB",
        Input::File(File::open(&big).unwrap()),
    );
    // A FIFO this test holds open for writing and never writes to.
    let fifo = env.root().join("fifo");
    plant(&fifo, Fault::Fifo);
    let held = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    env.hook_keeps_its_promise(
        "hook reading a pipe that never closes",
        Input::File(held.try_clone().unwrap()),
    );
    let out = env.run(
        "note reading a pipe that never closes",
        &["note", "--pane", PANE, "--shell", "bash"],
        Input::File(held),
    );
    assert!(out.status.success());
}
