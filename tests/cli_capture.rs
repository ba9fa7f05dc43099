//! The capture commands end to end, run as the built binary with every path
//! in a temporary directory: `hook` (Claude hooks, Codex notify and its
//! chained notifier), `note`, `report`, `install-hooks` /
//! `uninstall-hooks`, and the `run` launch wrapper.
//!
//! Payloads are shaped as the agents document them. What a command wrote is
//! read back through `recordings --json` and `status`, and "nothing written"
//! is checked on the files themselves: the database absent, or every table's
//! row count unchanged. Tests that pinned bugs stay as their regression tests.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use agent_resume_core::{AgentKind, PaneId, UnixMillis};
use agent_resume_store::{Armed, Store};
use agent_resume_test_support::{shown, texts, tree, wait_for, PrivateEnv};
use serde_json::{json, Value};

const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
/// Claude-shaped session ids (lowercase UUIDs).
const ID_A: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const ID_B: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";
const ID_C: &str = "5e550000-1d00-4000-8000-000000000c00";
/// A Codex thread id (UUID v7).
const THREAD: &str = "01a22abf-a931-72c2-b857-4949dadb1b99";

// ------------------------------------------------------------- harness ----

/// A temporary home: `HOME`, `XDG_*`, the database and config inside, and a
/// `bin/` directory put first on `PATH` for fake programs; every run is in
/// `work/`, as the pane [`PANE`] unless `pane(false)`.
struct Env(PrivateEnv);

impl Env {
    fn new() -> Env {
        let mut env = PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume")).with_own_bin();
        env.set("AGENT_RESUME_TELEMETRY", env.root().join("telemetry.jsonl"));
        let mut env = Env(env);
        env.pane(true);
        fs::create_dir_all(env.p("work")).expect("mkdir");
        env
    }

    /// A fresh home with the feature turned on.
    fn enabled() -> Env {
        let env = Env::new();
        env.ok(&["enable"]);
        env
    }

    /// Whether runs are in the pane [`PANE`] (`AGENT_RESUME_PANE`).
    fn pane(&mut self, on: bool) {
        if on {
            self.0.set("AGENT_RESUME_PANE", PANE);
        } else {
            self.0.unset("AGENT_RESUME_PANE");
        }
    }

    fn root(&self) -> &Path {
        self.0.root()
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    fn db(&self) -> PathBuf {
        self.0.db()
    }

    fn work(&self) -> PathBuf {
        self.p("work")
    }

    fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut c = self.0.command(args);
        c.current_dir(self.work());
        c.into_inner()
    }

    /// `sh -c SCRIPT` in this home's environment.
    fn shell(&self, script: &str) -> Command {
        let mut c = Command::new("/bin/sh");
        c.arg("-c").arg(script);
        self.environment(&mut c);
        c
    }

    fn environment(&self, c: &mut Command) {
        self.0.apply(c);
        c.current_dir(self.work());
    }

    /// Runs with `stdin` (closed when `None`).
    fn run_with<S: AsRef<OsStr>>(&self, args: &[S], stdin: Option<&[u8]>) -> Output {
        let mut c = self.command(args);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        c.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = c.spawn().expect("runs agent-resume");
        let writer = stdin.map(|bytes| {
            let mut pipe = child.stdin.take().expect("piped");
            let bytes = bytes.to_vec();
            // The reader may stop early (a payload over the cap): a broken
            // pipe is expected then.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            })
        });
        let out = child.wait_with_output().expect("agent-resume finishes");
        if let Some(w) = writer {
            w.join().expect("the stdin writer does not panic");
        }
        out
    }

    fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.run_with(args, None)
    }

    fn ok<S: AsRef<OsStr>>(&self, args: &[S]) -> (String, String) {
        let out = self.run(args);
        let (o, e) = texts(&out);
        assert!(out.status.success(), "{:?} failed: {o}\n{e}", shown(args));
        (o, e)
    }

    /// `hook <agent>` with `payload` on stdin.
    fn hook(&self, agent: &str, payload: &[u8]) -> Output {
        self.run_with(&["hook", agent], Some(payload))
    }

    /// Runs a stand-in `claude` in `node` that writes its title over its
    /// argv (`process.title`, as Node CLIs may): its `/proc` argv is then
    /// `claude` alone. It runs `hook claude` as its child with `payload`.
    fn titled_claude_runs_hook(&self, args: &[&str], payload: &[u8]) {
        let node = Command::new("node").arg("--version").output();
        assert!(
            node.is_ok_and(|o| o.status.success()),
            "node is required by this test and is not installed"
        );
        let path = self.p("titled/claude");
        if !path.exists() {
            fs::create_dir_all(self.p("titled")).expect("mkdir");
            fs::write(
                &path,
                "#!/usr/bin/env node\nprocess.title = 'claude';\n\
                 const r = require('child_process').spawnSync(process.env.AGENT_RESUME_BIN, \
                 ['hook', 'claude'], {input: process.env.PAYLOAD, stdio: ['pipe', 'inherit', 'inherit']});\n\
                 process.exit(r.status === null ? 1 : r.status);\n",
            )
            .expect("writes the stand-in");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let mut c = Command::new(&path);
        c.args(args);
        self.environment(&mut c);
        let out = c
            .env("AGENT_RESUME_BIN", env!("CARGO_BIN_EXE_agent-resume"))
            .env(
                "PAYLOAD",
                String::from_utf8(payload.to_vec()).expect("UTF-8"),
            )
            .output()
            .expect("runs the stand-in agent");
        assert!(out.status.success(), "{:?}", texts(&out));
    }

    /// Notes `line` as shell integration does, for the shell `shell_pid`.
    fn note_for(&self, line: &str, shell_pid: u32) {
        let pid = shell_pid.to_string();
        let out = self.run_with(&["note", "--shell-pid", &pid], Some(line.as_bytes()));
        assert_eq!(out.status.code(), Some(0));
    }

    /// Runs a stand-in `claude` (a `#!/bin/sh` script: its process argv is
    /// `/bin/sh …/claude ARGS…`) with `args`; it runs `hook claude` as its
    /// child with `payload` on stdin, as Claude runs its hooks.
    fn claude_runs_hook(&self, args: &[&str], payload: &[u8]) {
        let path = self.p("agents/claude");
        if !path.exists() {
            fs::create_dir_all(self.p("agents")).expect("mkdir");
            fs::write(
                &path,
                "#!/bin/sh\nprintf '%s' \"$PAYLOAD\" | \"$AGENT_RESUME_BIN\" hook claude\nexit $?\n",
            )
            .expect("writes the stand-in");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let mut c = Command::new(&path);
        c.args(args);
        self.environment(&mut c);
        let out = c
            .env("AGENT_RESUME_BIN", env!("CARGO_BIN_EXE_agent-resume"))
            .env(
                "PAYLOAD",
                String::from_utf8(payload.to_vec()).expect("UTF-8"),
            )
            .output()
            .expect("runs the stand-in agent");
        assert!(out.status.success(), "{:?}", texts(&out));
    }

    fn recordings(&self) -> Value {
        serde_json::from_str(&self.ok(&["recordings", "--json"]).0)
            .expect("recordings --json is JSON")
    }

    /// The one recording's (session id, flags as `name[=value]`).
    fn recorded(&self) -> Option<(String, Vec<String>)> {
        let rows = self.recordings();
        let rows = rows.as_array().expect("a list");
        assert!(rows.len() <= 1, "one pane, at most one row: {rows:?}");
        let row = rows.first()?;
        Some((
            row["session_id"].as_str().unwrap().to_owned(),
            flags_of(row),
        ))
    }

    fn status_count(&self, key: &str) -> usize {
        let (out, _) = self.ok(&["status"]);
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}:")))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("status shows `{key}:`\n{out}"))
    }

    /// Every table's row count, read without writing.
    fn table_counts(&self) -> BTreeMap<String, i64> {
        let conn = rusqlite::Connection::open_with_flags(
            self.db(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("the database opens read-only");
        let names: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        names
            .into_iter()
            .map(|t| {
                let n: i64 = conn
                    .query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))
                    .unwrap();
                (t, n)
            })
            .collect()
    }

    /// The database's bytes with its WAL and shared-memory files.
    fn db_bytes(&self) -> Vec<u8> {
        let mut all = Vec::new();
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = self.db().into_os_string();
            p.push(suffix);
            all.extend(fs::read(PathBuf::from(p)).unwrap_or_default());
        }
        all
    }

    /// Installs an executable script under `bin/`.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        fs::create_dir_all(self.p("bin")).expect("mkdir");
        let path = self.p("bin").join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}")).expect("writes the script");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// A script that writes its arguments (each NUL-terminated) to `out`,
    /// atomically, and exits 0.
    fn argv_writer(&self, name: &str, out: &Path) -> PathBuf {
        let out = out.display();
        self.script(
            name,
            &format!(
                "printf '%s\\0' \"${{0##*/}}\" \"$@\" > '{out}.tmp' && mv '{out}.tmp' '{out}'\n"
            ),
        )
    }
}

fn flags_of(row: &Value) -> Vec<String> {
    row["flags"]
        .as_array()
        .expect("flags is a list")
        .iter()
        .map(|f| match f["value"].as_str() {
            Some(v) => format!("{}={v}", f["name"].as_str().unwrap()),
            None => f["name"].as_str().unwrap().to_owned(),
        })
        .collect()
}

fn words(v: &[&str]) -> Vec<String> {
    v.iter().map(|w| (*w).to_owned()).collect()
}

/// NUL-terminated words, as the argv writers write them.
fn read_argv(path: &Path) -> Vec<String> {
    String::from_utf8(fs::read(path).expect("the argv file exists"))
        .expect("UTF-8 argv")
        .split_terminator('\0')
        .map(str::to_owned)
        .collect()
}

/// Polls until `path` exists (a detached child writes it).
fn wait_for_file(path: &Path) {
    wait_for(&path.display().to_string(), || path.exists().then_some(()));
}

/// A Claude `SessionStart` hook payload, as Claude Code documents it.
fn session_start(id: &str, cwd: &Path, source: &str) -> Vec<u8> {
    json!({"session_id": id,
           "transcript_path": format!("/home/me/.claude/projects/-p/{id}.jsonl"),
           "cwd": cwd, "hook_event_name": "SessionStart", "source": source})
    .to_string()
    .into_bytes()
}

/// A Codex `notify` payload.
fn codex_notify(cwd: &Path) -> String {
    json!({"type": "agent-turn-complete", "thread-id": THREAD, "turn-id": "12345",
           "cwd": cwd, "client": "codex-tui", "input-messages": ["rename foo"],
           "last-assistant-message": "done"})
    .to_string()
}

fn report(seq: u64, event: &str, id: Option<&str>) -> String {
    let mut msg = json!({"v": 1, "pane": PANE, "agent": "claude", "seq": seq,
        "cwd": "/home/me/proj", "source": "hook", "event": event,
        "invocation": "claude --model opus 'a --dangerously-skip-permissions prompt'"});
    if let Some(id) = id {
        msg["session_id"] = json!(id);
    }
    msg.to_string()
}

fn arm(env: &Env) {
    Store::open(&env.db())
        .expect("opens")
        .arm(&Armed {
            pane: PANE.parse::<PaneId>().expect("pane"),
            agent: AgentKind::Claude,
            session_id: ID_A.into(),
            argv: words(&["claude", "--resume", ID_A]),
            armed_at: UnixMillis(1),
            observed_at: UnixMillis(1),
        })
        .expect("arms");
}

// ---------------------------------------------------------------- hook ----

#[test]
fn hook_with_a_bad_payload_or_no_pane_exits_0_writes_nothing_and_only_logs_one_line() {
    const MARK: &str = "PAYLOADMARKER";
    let mut huge =
        format!(r#"{{"session_id":"{ID_A}","hook_event_name":"SessionStart","pad":""#).into_bytes();
    huge.resize(agent_resume_core::hook::MAX_PAYLOAD + 4096, b'x');
    huge.extend_from_slice(b"\"}");
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        (
            "garbage",
            format!("not json {MARK} at all").into_bytes(),
            true,
        ),
        ("huge", huge, true),
        ("empty", Vec::new(), true),
        (
            "binary",
            [b"\xff\xfe\x00{\x01\x1b[2J".as_slice(), MARK.as_bytes()].concat(),
            true,
        ),
        (
            "id failing its shape",
            format!(r#"{{"session_id":"$(reboot){MARK}","hook_event_name":"SessionStart"}}"#)
                .into_bytes(),
            true,
        ),
        (
            "no pane",
            session_start(ID_A, Path::new("/p"), "startup"),
            false,
        ),
    ];

    // On a fresh home: no database is created.
    for (label, payload, with_pane) in &cases {
        let mut env = Env::enabled();
        env.pane(*with_pane);
        let out = env.hook("claude", payload);
        let (o, e) = texts(&out);
        assert_eq!(out.status.code(), Some(0), "{label}: {e}");
        assert_eq!(o, "", "{label}: nothing on stdout");
        // Gemini shows a hook's stderr in its UI: expected conditions are
        // logged, not said.
        assert_eq!(e, "", "{label}: nothing on stderr");
        assert!(!env.db().exists(), "{label}: a database was created");
        let log = fs::read_to_string(env.p("xdg-state/agent-resume/hook.log"))
            .unwrap_or_else(|_| panic!("{label}: the problem is logged"));
        assert_eq!(log.lines().count(), 1, "{label}: {log}");
        assert!(!log.contains(MARK), "{label}: the log echoes payload bytes");
    }

    // Over an existing recording: not a row changes.
    let mut env = Env::enabled();
    assert!(env
        .hook("claude", &session_start(ID_A, &env.work(), "startup"))
        .status
        .success());
    let rows = env.recordings();
    let counts = env.table_counts();
    for (label, payload, with_pane) in &cases {
        env.pane(*with_pane);
        let out = env.hook("claude", payload);
        assert_eq!(out.status.code(), Some(0), "{label}");
        assert_eq!(texts(&out), (String::new(), String::new()), "{label}");
    }
    env.pane(true);
    assert_eq!(env.recordings(), rows);
    assert_eq!(env.table_counts(), counts);
}

#[test]
fn hook_with_an_unusable_database_exits_0_and_says_one_line() {
    let env = Env::enabled();
    fs::create_dir_all(env.db().parent().unwrap()).unwrap();
    fs::write(env.db(), b"this is not a database").unwrap();
    let out = env.hook("claude", &session_start(ID_A, &env.work(), "startup"));
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{e}");
    assert_eq!(o, "");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with("agent-resume: hook: store"), "{e}");
    assert!(!e.contains(ID_A), "{e}");
    assert_eq!(fs::read(env.db()).unwrap(), b"this is not a database");
}

#[test]
fn claude_session_start_records_the_id_a_repeat_changes_nothing_and_clear_replaces_it() {
    let env = Env::enabled();
    let out = env.hook("claude", &session_start(ID_A, &env.work(), "startup"));
    assert_eq!(texts(&out), (String::new(), String::new()));
    assert!(out.status.success());
    let first = env.recordings();
    assert_eq!(first[0]["session_id"], ID_A);
    assert_eq!(first[0]["agent"], "claude");
    assert_eq!(first[0]["pane"], PANE);
    assert_eq!(first[0]["cwd"], env.work().to_str().unwrap());
    // What the directory was is kept beside its name (docs/security.md,
    // "Directory identity").
    let (canonical, inode): (Vec<u8>, i64) = rusqlite::Connection::open(env.db())
        .expect("opens")
        .query_row(
            "SELECT dir_canonical, dir_inode FROM agent_sessions",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("the recording has a directory identity");
    let real = std::fs::canonicalize(env.work()).expect("canonical");
    assert_eq!(canonical, real.as_os_str().as_encoded_bytes());
    let meta = std::fs::metadata(&real).expect("stat");
    assert_eq!(inode as u64, std::os::unix::fs::MetadataExt::ino(&meta));

    // The same id again (every hook event carries it): nothing changes, not
    // even the observation time.
    std::thread::sleep(Duration::from_millis(20));
    let out = env.hook("claude", &session_start(ID_A, &env.work(), "resume"));
    assert_eq!(texts(&out), (String::new(), String::new()));
    let prompt = json!({"session_id": ID_A, "transcript_path": "/t", "cwd": env.work(),
        "hook_event_name": "UserPromptSubmit", "prompt": "hello"});
    assert!(env
        .hook("claude", prompt.to_string().as_bytes())
        .status
        .success());
    assert_eq!(env.recordings(), first, "observed_at unchanged");

    // `/clear` starts a new conversation in the same pane: it wins.
    let out = env.hook("claude", &session_start(ID_B, &env.work(), "clear"));
    assert_eq!(texts(&out), (String::new(), String::new()));
    assert_eq!(env.recorded().map(|r| r.0), Some(ID_B.to_owned()));

    // A headless run's output (`claude -p --output-format json`) names an
    // id too, and never replaces the pane's interactive recording.
    let headless = json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "hi", "session_id": ID_C});
    let out = env.hook("claude", headless.to_string().as_bytes());
    assert!(out.status.success());
    assert_eq!(texts(&out).0, "");
    assert_eq!(env.recorded().map(|r| r.0), Some(ID_B.to_owned()));
}

#[test]
fn hooks_keep_the_write_ahead_log_private_under_any_umask_and_the_next_process_reads_it() {
    // Each hook leaves its commit in `-wal` for the next process (no
    // checkpoint at exit); the files beside the database stay 0600 even
    // under `umask 000`, so the store stays trusted.
    let env = Env::enabled();
    for id in [ID_A, ID_B, ID_C] {
        let mut c = env.shell("umask 000 && exec \"$AGENT_RESUME_BIN\" hook claude");
        c.env("AGENT_RESUME_BIN", env!("CARGO_BIN_EXE_agent-resume"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("runs the hook");
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(&session_start(id, &env.work(), "startup"))
            .expect("writes the payload");
        let out = child.wait_with_output().expect("the hook finishes");
        assert!(out.status.success());
        assert_eq!(texts(&out), (String::new(), String::new()));
        for suffix in ["", "-wal", "-shm"] {
            let mut p = env.db().into_os_string();
            p.push(suffix);
            let meta = fs::metadata(&p).expect("kept beside the database");
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{suffix}");
        }
        let mut wal = env.db().into_os_string();
        wal.push("-wal");
        assert!(
            fs::metadata(&wal).expect("-wal").len() > 0,
            "the commit waits in the log"
        );
        assert!(env.ok(&["status"]).0.contains("trusted:    yes"), "{id}");
        assert_eq!(env.recorded().map(|r| r.0), Some(id.to_owned()));
    }
}

#[test]
fn with_the_feature_off_the_hook_writes_nothing_creates_no_database_and_prints_nothing() {
    let env = Env::new();
    let out = env.hook("claude", &session_start(ID_A, &env.work(), "startup"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(texts(&out).0, "");
    assert!(!env.db().exists());
    assert_eq!(
        tree(env.root()),
        vec![env.work()],
        "no file or folder besides the test's own"
    );
}

#[test]
fn the_agent_process_flags_reach_the_hook_recording_and_the_prompt_never_reaches_the_database() {
    const MARK: &str = "ZEBRAPROMPTMARK";
    let env = Env::enabled();
    let line = format!(
        "claude --model opus --permission-mode plan 'a --dangerously-skip-permissions {MARK} prompt'"
    );
    let out = env.run_with(&["note"], Some(line.as_bytes()));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(texts(&out), (String::new(), String::new()));
    let prompt = format!("a --dangerously-skip-permissions {MARK} prompt");
    env.claude_runs_hook(
        &["--model", "opus", "--permission-mode", "plan", &prompt],
        &session_start(ID_A, &env.work(), "startup"),
    );
    assert_eq!(
        env.recorded(),
        Some((
            ID_A.to_owned(),
            words(&["--model=opus", "--permission-mode=plan"])
        )),
        "exactly the allowlisted flags before the prompt"
    );
    let bytes = env.db_bytes();
    assert!(!bytes.is_empty());
    let contains = |needle: &str| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
    assert!(
        !contains(MARK),
        "the prompt text reached the database files"
    );
    assert!(
        !contains("dangerously"),
        "a flag-shaped word inside the prompt reached the database files"
    );
}

#[test]
fn codex_notify_records_the_thread_and_runs_the_chained_notifier_with_the_payload_appended() {
    let env = Env::enabled();
    let got = env.p("notifier-argv");
    let notifier = env.argv_writer("my-notifier", &got);
    let payload = codex_notify(&env.work());
    let notifier_arg = notifier.to_str().unwrap();
    let out = env.run(&[
        "hook",
        "codex",
        "--chain",
        notifier_arg,
        "-u",
        "low two",
        &payload,
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(texts(&out), (String::new(), String::new()));
    wait_for_file(&got);
    assert_eq!(
        read_argv(&got),
        words(&["my-notifier", "-u", "low two", &payload]),
        "the user's notifier got its own arguments, then the payload"
    );
    let rows = env.recordings();
    assert_eq!(rows[0]["agent"], "codex");
    assert_eq!(rows[0]["session_id"], THREAD);
    assert_eq!(rows[0]["cwd"], env.work().to_str().unwrap());

    // With the feature off the user's notifier still runs.
    let off = Env::new();
    let got = off.p("notifier-argv");
    let notifier = off.argv_writer("my-notifier", &got);
    let out = off.run(&[
        "hook",
        "codex",
        "--chain",
        notifier.to_str().unwrap(),
        &payload,
    ]);
    assert_eq!(out.status.code(), Some(0));
    wait_for_file(&got);
    assert_eq!(read_argv(&got), words(&["my-notifier", &payload]));
    assert!(!off.db().exists());
}

// -------------------------------------------------------------- report ----

#[test]
fn report_applies_messages_in_seq_order_and_drops_replayed_or_older_ones() {
    let env = Env::enabled();
    env.ok(&["report", "--message", &report(5, "observed", Some(ID_A))]);
    assert_eq!(
        env.recorded(),
        Some((ID_A.to_owned(), words(&["--model=opus"])))
    );
    for seq in [5, 4, 0] {
        let out = env.run(&["report", "--message", &report(seq, "observed", Some(ID_B))]);
        let (o, e) = texts(&out);
        assert_eq!(out.status.code(), Some(0), "seq {seq}: {e}");
        assert_eq!(o, "");
        assert!(e.contains("dropped"), "seq {seq}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert_eq!(env.recorded().map(|r| r.0), Some(ID_A.to_owned()));
    }
    env.ok(&["report", "--message", &report(6, "observed", Some(ID_B))]);
    assert_eq!(env.recorded().map(|r| r.0), Some(ID_B.to_owned()));
    // From stdin as well.
    let out = env.run_with(
        &["report"],
        Some(report(7, "observed", Some(ID_C)).as_bytes()),
    );
    assert!(out.status.success(), "{:?}", texts(&out));
    assert_eq!(env.recorded().map(|r| r.0), Some(ID_C.to_owned()));
}

#[test]
fn report_ended_clears_the_recording_and_closed_deletes_it_and_drops_the_armed_line() {
    let env = Env::enabled();
    env.ok(&["report", "--message", &report(1, "observed", Some(ID_A))]);
    arm(&env);
    assert_eq!(env.status_count("armed"), 1);

    // Suspended and undoable closes keep everything.
    for (seq, event) in [(2, "suspended"), (3, "hidden"), (4, "teardown")] {
        env.ok(&["report", "--message", &report(seq, event, None)]);
        assert_eq!(
            env.recorded().map(|r| r.0),
            Some(ID_A.to_owned()),
            "{event}"
        );
    }

    env.ok(&["report", "--message", &report(5, "ended", None)]);
    assert_eq!(env.recordings(), json!([]), "ended clears");
    assert_eq!(
        env.status_count("armed"),
        1,
        "the agent ending keeps the arm"
    );

    env.ok(&["report", "--message", &report(6, "observed", Some(ID_A))]);
    assert_eq!(env.recorded().map(|r| r.0), Some(ID_A.to_owned()));
    env.ok(&["report", "--message", &report(7, "closed", None)]);
    assert_eq!(env.recordings(), json!([]), "closed deletes");
    assert_eq!(env.status_count("armed"), 0, "closed disarms");
}

#[test]
fn malformed_or_unknown_reports_exit_3_and_write_nothing() {
    let base = |extra: &str| {
        format!(
            r#"{{"v":1,"pane":"{PANE}","agent":"claude","seq":9,"session_id":"{ID_A}"{extra}}}"#
        )
    };
    let cases = [
        ("not json", "report me".to_owned()),
        (
            "unknown agent",
            base("").replace(r#""agent":"claude""#, r#""agent":"vim""#),
        ),
        ("id failing its shape", base("").replace(ID_A, "$(reboot)")),
        ("unknown key", base(r#","prompt":"hi""#)),
        ("unknown event", base(r#","event":"exploded""#)),
        ("unknown source", base(r#","source":"guess""#)),
        ("relative cwd", base(r#","cwd":"rel/dir""#)),
        ("another version", base("").replace(r#""v":1"#, r#""v":2"#)),
        ("bad pane", base("").replace(PANE, "not-a-pane")),
    ];
    let fresh = Env::enabled();
    let used = Env::enabled();
    used.ok(&["report", "--message", &report(1, "observed", Some(ID_B))]);
    let rows = used.recordings();
    let counts = used.table_counts();
    for (label, msg) in &cases {
        for env in [&fresh, &used] {
            let out = env.run(&["report", "--message", msg]);
            let (o, e) = texts(&out);
            assert_eq!(out.status.code(), Some(3), "{label}: {e}");
            assert_eq!(o, "", "{label}");
            assert_eq!(e.lines().count(), 1, "{label}: {e}");
            assert!(e.contains("refused"), "{label}: {e}");
            assert!(!e.contains("reboot"), "{label}: echoes input: {e}");
        }
        assert!(!fresh.db().exists(), "{label}: a database was created");
    }
    assert_eq!(used.recordings(), rows);
    assert_eq!(used.table_counts(), counts);
}

// ------------------------------------------------------- install-hooks ----

const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "SessionStart": [
      {"matcher": "", "hooks": [{"type": "command", "command": "my-own-hook"}]}
    ],
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]}
}
"#;

fn backup_of(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".agent-resume.bak");
    PathBuf::from(p)
}

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("reads")).expect("valid JSON")
}

#[test]
fn claude_install_hooks_is_idempotent_backs_up_keeps_unrelated_keys_and_uninstall_restores() {
    let env = Env::enabled();
    let file = env.p("claude/settings.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, SETTINGS).unwrap();
    let file_arg = file.to_str().unwrap();

    env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    let installed = fs::read(&file).unwrap();
    assert_eq!(
        fs::read_to_string(backup_of(&file)).expect("a backup"),
        SETTINGS,
        "the backup is the original"
    );
    let v = json_of(&file);
    let original: Value = serde_json::from_str(SETTINGS).unwrap();
    assert_eq!(v["model"], original["model"]);
    assert_eq!(v["permissions"], original["permissions"]);
    assert_eq!(v["hooks"]["Stop"], original["hooks"]["Stop"]);
    let commands = |event: &str| -> Vec<String> {
        v["hooks"][event]
            .as_array()
            .unwrap_or_else(|| panic!("hooks.{event} is a list"))
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap().iter())
            .map(|h| h["command"].as_str().unwrap().to_owned())
            .collect()
    };
    let start = commands("SessionStart");
    assert_eq!(start.len(), 2, "{start:?}");
    assert_eq!(start[0], "my-own-hook", "the user's hook is kept first");
    assert!(start[1].ends_with(" hook claude"), "{start:?}");
    assert_eq!(commands("UserPromptSubmit"), vec![start[1].clone()]);

    // The installed command, run as Claude Code runs it (through a shell),
    // records the session.
    let mut sh = env.shell(&start[1]);
    let mut child = sh
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&session_start(ID_A, &env.work(), "startup"))
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(texts(&out), (String::new(), String::new()));
    assert_eq!(env.recorded().map(|r| r.0), Some(ID_A.to_owned()));

    // Again: byte-identical, and the backup still holds the original.
    let (_, e) = env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    assert!(e.contains("already"), "{e}");
    assert_eq!(fs::read(&file).unwrap(), installed, "idempotent");
    assert_eq!(fs::read_to_string(backup_of(&file)).unwrap(), SETTINGS);

    env.ok(&["uninstall-hooks", "claude", "--config-file", file_arg]);
    assert_eq!(json_of(&file), original, "uninstall restores the original");
    let again = fs::read(&file).unwrap();
    env.ok(&["uninstall-hooks", "claude", "--config-file", file_arg]);
    assert_eq!(fs::read(&file).unwrap(), again);
}

#[test]
fn install_hooks_dry_run_prints_a_diff_and_leaves_the_file_untouched() {
    let env = Env::new();
    let file = env.p("settings.json");
    fs::write(&file, SETTINGS).unwrap();
    let (out, _) = env.ok(&[
        "install-hooks",
        "claude",
        "--dry-run",
        "--config-file",
        file.to_str().unwrap(),
    ]);
    let shown = file.display().to_string();
    assert!(
        out.starts_with(&format!("--- {shown}\n+++ {shown}\n")),
        "{out}"
    );
    let added: Vec<&str> = out.lines().filter(|l| l.starts_with("+ ")).collect();
    assert!(
        added.iter().any(|l| l.contains(" hook claude")),
        "the diff adds our hook: {out}"
    );
    assert!(
        out.lines()
            .any(|l| !l.starts_with("- ") && l.contains("\"my-own-hook\"")),
        "the user's hook is kept: {out}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), SETTINGS);
    assert!(!backup_of(&file).exists());
    // A missing file stays missing.
    let missing = env.p("nowhere/settings.json");
    env.ok(&[
        "install-hooks",
        "claude",
        "--dry-run",
        "--config-file",
        missing.to_str().unwrap(),
    ]);
    assert!(!missing.exists() && !env.p("nowhere").exists());
}

const CODEX_CONFIG: &str = r#"# my codex config
model = "o3"  # the default model
notify = ["notify-send", "done"]

# a faster profile
[profiles.fast]
model = "o4-mini"
"#;

fn notify_of(text: &str) -> Option<Vec<String>> {
    let doc: toml::Table = text.parse().expect("valid TOML");
    doc.get("notify").map(|n| {
        n.as_array()
            .expect("notify is a list")
            .iter()
            .map(|w| w.as_str().expect("words").to_owned())
            .collect()
    })
}

#[test]
fn codex_install_hooks_chains_the_existing_notifier_keeps_comments_and_uninstall_restores_it() {
    let env = Env::new();
    let file = env.p("codex/config.toml");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, CODEX_CONFIG).unwrap();
    let file_arg = file.to_str().unwrap();

    let (out, _) = env.ok(&[
        "install-hooks",
        "codex",
        "--dry-run",
        "--config-file",
        file_arg,
    ]);
    assert!(
        out.contains("- notify = [\"notify-send\", \"done\"]"),
        "{out}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), CODEX_CONFIG);

    env.ok(&["install-hooks", "codex", "--config-file", file_arg]);
    let installed = fs::read_to_string(&file).unwrap();
    assert_eq!(
        notify_of(&installed),
        Some(words(&[
            env!("CARGO_BIN_EXE_agent-resume"),
            "hook",
            "codex",
            "--chain",
            "notify-send",
            "done"
        ]))
    );
    for kept in [
        "# my codex config",
        "# the default model",
        "# a faster profile",
        "[profiles.fast]",
        "model = \"o4-mini\"",
    ] {
        assert!(installed.contains(kept), "lost {kept:?}:\n{installed}");
    }
    assert_eq!(fs::read_to_string(backup_of(&file)).unwrap(), CODEX_CONFIG);

    env.ok(&["install-hooks", "codex", "--config-file", file_arg]);
    assert_eq!(fs::read_to_string(&file).unwrap(), installed, "idempotent");

    env.ok(&["uninstall-hooks", "codex", "--config-file", file_arg]);
    let restored = fs::read_to_string(&file).unwrap();
    assert_eq!(
        restored.parse::<toml::Table>().unwrap(),
        CODEX_CONFIG.parse::<toml::Table>().unwrap(),
        "uninstall restores the user's notifier:\n{restored}"
    );
    assert!(restored.contains("# my codex config") && restored.contains("# a faster profile"));
}

#[test]
fn install_hooks_for_an_agent_whose_hooks_are_not_edited_automatically_is_refused() {
    let env = Env::new();
    for agent in ["copilot", "opencode", "amp"] {
        for install in ["install-hooks", "uninstall-hooks"] {
            let out = env.run(&[install, agent]);
            let (o, e) = texts(&out);
            assert_eq!(out.status.code(), Some(3), "{install} {agent}: {e}");
            assert_eq!(o, "");
            assert!(e.contains("refused"), "{e}");
        }
    }
    assert_eq!(tree(env.root()), vec![env.work()], "nothing created");
    let out = env.run(&["install-hooks", "vim"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown agent is a usage error"
    );
}

#[test]
fn install_hooks_refuses_an_unsupported_agent_even_with_an_explicit_config_file() {
    let env = Env::new();
    let file = env.p("copilot-settings.json");
    fs::write(&file, "{\"a\": 1}\n").unwrap();
    let out = env.run(&[
        "install-hooks",
        "copilot",
        "--config-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{:?}", texts(&out));
    assert_eq!(fs::read_to_string(&file).unwrap(), "{\"a\": 1}\n");
    assert!(!backup_of(&file).exists());
}

#[test]
fn install_hooks_writes_through_a_symlinked_settings_file() {
    let env = Env::new();
    let target = env.p("dotfiles/settings.json");
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    fs::write(&target, SETTINGS).unwrap();
    let link = env.p("settings.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    env.ok(&[
        "install-hooks",
        "claude",
        "--config-file",
        link.to_str().unwrap(),
    ]);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the settings file is still a link"
    );
    assert!(
        fs::read_to_string(&target)
            .unwrap()
            .contains(" hook claude"),
        "the link's target holds the hooks"
    );
}

/// Settings files as users and agents write them.
const SETTINGS_FIXTURES: &[(&str, &str)] = &[
    ("compact", r#"{"model":"opus","permissions":{"allow":["Bash(ls)"]}}"#),
    ("pretty", SETTINGS),
    (
        "no final newline",
        "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"Stop\": []\n  }\n}",
    ),
    (
        "jsonc",
        "// Gemini loads comments and trailing commas\n{\n  /* look */ \"ui\": {\"theme\": \"GitHub\",},\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"matcher\": \"\", \"hooks\": [{\"type\": \"command\", \"command\": \"my-own-hook\"},]}, // mine\n    ],\n  },\n}\n",
    ),
    ("empty object", "{}\n"),
    ("empty file", ""),
];

/// Every file under `dir`, with its bytes.
fn files_in(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    tree(dir)
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

#[test]
fn uninstall_after_install_gives_back_the_original_bytes_and_leaves_no_backup() {
    for agent in ["claude", "gemini", "qwen"] {
        for (label, original) in SETTINGS_FIXTURES {
            let env = Env::new();
            let dir = env.p("cfg");
            fs::create_dir_all(&dir).unwrap();
            let file = dir.join("settings.json");
            fs::write(&file, original).unwrap();
            let file_arg = file.to_str().unwrap();

            env.ok(&["install-hooks", agent, "--config-file", file_arg]);
            let installed = fs::read_to_string(&file).unwrap();
            assert!(
                installed.contains(&format!(" hook {agent}\"")),
                "{agent} {label}: {installed}"
            );
            if *label != "jsonc" {
                let v: Value = serde_json::from_str(&installed)
                    .unwrap_or_else(|e| panic!("{agent} {label}: not JSON ({e}):\n{installed}"));
                assert!(v["hooks"]["SessionStart"].is_array(), "{agent} {label}");
            }
            assert_eq!(
                fs::read_to_string(backup_of(&file)).unwrap(),
                *original,
                "{agent} {label}: the backup is the original"
            );
            env.ok(&["install-hooks", agent, "--config-file", file_arg]);
            assert_eq!(
                fs::read_to_string(&file).unwrap(),
                installed,
                "{agent} {label}: idempotent"
            );

            env.ok(&["uninstall-hooks", agent, "--config-file", file_arg]);
            assert_eq!(
                fs::read_to_string(&file).unwrap(),
                *original,
                "{agent} {label}: uninstall gives back the original bytes"
            );
            assert_eq!(
                files_in(&dir).into_keys().collect::<Vec<_>>(),
                vec![file.clone()],
                "{agent} {label}: no backup or other file is left"
            );
        }
    }
}

#[test]
fn the_backup_holds_the_original_and_is_never_overwritten() {
    let env = Env::new();
    let file = env.p("settings.json");
    fs::write(&file, SETTINGS).unwrap();
    let file_arg = file.to_str().unwrap();
    env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    // The user edits the hooked file, then uninstalls: the backup stays the
    // original (the hooked file never replaces it) and is kept, since the
    // file is no longer the original.
    let edited = fs::read_to_string(&file)
        .unwrap()
        .replacen("\"opus\"", "\"sonnet\"", 1);
    fs::write(&file, &edited).unwrap();
    let (_, e) = env.ok(&["uninstall-hooks", "claude", "--config-file", file_arg]);
    assert!(e.contains("removed hooks"), "{e}");
    assert_eq!(fs::read_to_string(backup_of(&file)).unwrap(), SETTINGS);
    let after = fs::read_to_string(&file).unwrap();
    assert!(
        after.contains("\"sonnet\"") && !after.contains(" hook claude"),
        "{after}"
    );
    // A second install finds the backup there and leaves it alone.
    env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    assert_eq!(fs::read_to_string(backup_of(&file)).unwrap(), SETTINGS);
}

#[test]
fn a_settings_file_install_created_is_gone_after_uninstall_with_the_folders_it_made() {
    let env = Env::new();
    fs::create_dir_all(env.p("xdg-config")).unwrap();
    let before = tree(env.root());
    // `$HOME/.gemini/settings.json`, with neither folder there.
    let (_, e) = env.ok(&["install-hooks", "gemini"]);
    let file = env.p("home/.gemini/settings.json");
    assert!(file.exists(), "{e}");
    assert!(
        !backup_of(&file).exists(),
        "no backup of a file that was not there"
    );
    let installed = files_in(env.root());
    let (out, _) = env.ok(&["uninstall-hooks", "gemini", "--dry-run"]);
    assert!(out.contains("\n+++ /dev/null\n"), "{out}");
    assert_eq!(files_in(env.root()), installed, "a dry run writes nothing");
    env.ok(&["uninstall-hooks", "gemini"]);
    assert_eq!(tree(env.root()), before, "nothing of the install is left");

    // A folder that was there stays, and so does what else it holds.
    fs::create_dir_all(env.p("claude")).unwrap();
    fs::write(env.p("claude/other.json"), "{}").unwrap();
    let before = files_in(env.root());
    let file = env.p("claude/settings.json");
    let file_arg = file.to_str().unwrap();
    env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    env.ok(&["uninstall-hooks", "claude", "--config-file", file_arg]);
    assert_eq!(files_in(env.root()), before);
    assert!(env.p("claude").is_dir());
}

#[test]
fn a_symlinked_settings_file_comes_back_byte_identical_and_stays_a_link() {
    let env = Env::new();
    let target = env.p("dotfiles/settings.json");
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    let original = "{\"model\":\"opus\"} ";
    fs::write(&target, original).unwrap();
    let link = env.p("settings.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let link_arg = link.to_str().unwrap();
    env.ok(&["install-hooks", "qwen", "--config-file", link_arg]);
    assert!(fs::read_to_string(&target).unwrap().contains(" hook qwen"));
    env.ok(&["uninstall-hooks", "qwen", "--config-file", link_arg]);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&target).unwrap(), original);
    assert!(!backup_of(&link).exists());
}

#[test]
fn the_hook_command_names_the_binary_by_its_path_name_when_path_finds_this_very_file() {
    let env = Env::new();
    let file = env.p("settings.json");
    let file_arg = file.to_str().unwrap();
    // Not on PATH: the absolute path, quoted.
    env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    let exe = env!("CARGO_BIN_EXE_agent-resume");
    let text = fs::read_to_string(&file).unwrap();
    assert!(text.contains(&format!("\"'{exe}' hook claude\"")), "{text}");
    // On PATH (a link to the same file): the bare name, which keeps
    // working when the binary is upgraded in place; the entry is replaced.
    fs::create_dir_all(env.p("bin")).unwrap();
    std::os::unix::fs::symlink(exe, env.p("bin/agent-resume")).unwrap();
    env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    let text = fs::read_to_string(&file).unwrap();
    assert_eq!(
        text.matches("\"command\": \"agent-resume hook claude\"")
            .count(),
        2,
        "{text}"
    );
    assert!(!text.contains(exe), "{text}");
    // Another agent-resume first on PATH: the absolute path again.
    fs::remove_file(env.p("bin/agent-resume")).unwrap();
    env.script("agent-resume", "exit 0\n");
    env.ok(&["install-hooks", "claude", "--config-file", file_arg]);
    assert!(fs::read_to_string(&file).unwrap().contains(exe));
}

/// A Codex `SessionStart` hook payload, shaped as the session-start input
/// schema Codex 0.171.0 embeds (every required field).
fn codex_session_start(id: &str, cwd: &Path) -> Vec<u8> {
    json!({"cwd": cwd, "hook_event_name": "SessionStart", "model": "gpt-5.5",
        "permission_mode": "default", "session_id": id, "source": "startup",
        "transcript_path": format!("/home/me/.codex/sessions/2026/12/01/rollout-2026-12-01T05-00-00-{id}.jsonl")})
    .to_string()
    .into_bytes()
}

#[test]
fn codex_install_hooks_adds_a_session_start_hook_asks_for_trust_once_and_uninstall_leaves_no_trace()
{
    let env = Env::enabled();
    env.script("codex", "echo 'codex-cli 0.171.0'\n");
    let dir = env.p("codex");
    fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    fs::write(&config, CODEX_CONFIG).unwrap();
    let hooks = dir.join("hooks.json");
    let config_arg = config.to_str().unwrap();

    let (_, e) = env.ok(&["install-hooks", "codex", "--config-file", config_arg]);
    assert!(e.contains("Trust all and continue"), "{e}");
    let v = json_of(&hooks);
    let command = v["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("a SessionStart command: {v}"))
        .to_owned();
    assert!(command.ends_with(" hook codex"), "{command}");
    let notify = notify_of(&fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(
        notify[1..3],
        words(&["hook", "codex"]),
        "notify stays the fallback"
    );
    let installed = files_in(&dir);

    // Again: nothing changes, and the trust note is not repeated.
    let (_, e) = env.ok(&["install-hooks", "codex", "--config-file", config_arg]);
    assert!(!e.contains("Trust"), "{e}");
    assert_eq!(files_in(&dir), installed);

    // Codex runs hook commands through `$SHELL -lc`: any shell.
    for shell in ["sh", "bash", "zsh", "fish"] {
        let mut c = Command::new(shell);
        c.arg("-c").arg(&command);
        env.environment(&mut c);
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{shell} is needed for this test: {e}"));
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&codex_session_start(THREAD, &env.work()))
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(texts(&out), (String::new(), String::new()), "{shell}");
    }
    let rows = env.recordings();
    assert_eq!(rows[0]["agent"], "codex");
    assert_eq!(rows[0]["session_id"], THREAD);

    env.ok(&["uninstall-hooks", "codex", "--config-file", config_arg]);
    assert_eq!(
        files_in(&dir),
        BTreeMap::from([(config.clone(), CODEX_CONFIG.as_bytes().to_vec())]),
        "config.toml comes back byte for byte; hooks.json and backups are gone"
    );
}

#[test]
fn codex_install_hooks_into_a_home_that_did_not_exist_leaves_nothing_after_uninstall() {
    let env = Env::new();
    env.script("codex", "echo 'codex-cli 0.171.0'\n");
    let config = env.p("codex/config.toml");
    let config_arg = config.to_str().unwrap();
    env.ok(&["install-hooks", "codex", "--config-file", config_arg]);
    assert!(env.p("codex/hooks.json").is_file() && config.is_file());
    env.ok(&["uninstall-hooks", "codex", "--config-file", config_arg]);
    assert!(!env.p("codex").exists(), "{:?}", tree(&env.p("codex")));
}

/// `install-hooks codex --per-window` turns Codex's shared app-server
/// daemon off (`[features] daemon_auto_start = false`), and only then;
/// uninstall gives back the file's bytes, a setting the user made stays,
/// and a config install created goes.
#[test]
fn codex_per_window_turns_the_shared_daemon_off_only_when_asked_and_uninstall_restores_it() {
    let env = Env::enabled();
    env.script("codex", "echo 'codex-cli 0.171.0'\n");
    let dir = env.p("codex");
    fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    let config_arg = config.to_str().unwrap();
    let daemon_off = |text: &str| {
        text.parse::<toml::Table>().expect("valid TOML")["features"]["daemon_auto_start"].as_bool()
            == Some(false)
    };
    let original = format!("{CODEX_CONFIG}\n[features]\nweb_search = true  # mine\n");
    fs::write(&config, &original).unwrap();

    // Without the flag: the daemon stays on, and install says how to opt in.
    let (_, e) = env.ok(&["install-hooks", "codex", "--config-file", config_arg]);
    assert!(e.contains("--per-window"), "{e}");
    assert!(!fs::read_to_string(&config)
        .unwrap()
        .contains("daemon_auto_start"));
    env.ok(&["uninstall-hooks", "codex", "--config-file", config_arg]);

    // With it: switched off, recorded, and given back.
    env.ok(&[
        "install-hooks",
        "codex",
        "--per-window",
        "--config-file",
        config_arg,
    ]);
    assert!(daemon_off(&fs::read_to_string(&config).unwrap()));
    let (_, e) = env.ok(&[
        "install-hooks",
        "codex",
        "--per-window",
        "--config-file",
        config_arg,
    ]);
    assert!(!e.contains("note:"), "{e}");
    env.ok(&["uninstall-hooks", "codex", "--config-file", config_arg]);
    assert_eq!(
        files_in(&dir),
        BTreeMap::from([(config.clone(), original.into_bytes())]),
        "config.toml comes back byte for byte; no record is left"
    );

    // The user's own `daemon_auto_start = false` stays after uninstall.
    let own = "[features]\ndaemon_auto_start = false\n";
    fs::write(&config, own).unwrap();
    env.ok(&[
        "install-hooks",
        "codex",
        "--per-window",
        "--config-file",
        config_arg,
    ]);
    env.ok(&["uninstall-hooks", "codex", "--config-file", config_arg]);
    assert_eq!(fs::read_to_string(&config).unwrap(), own);

    // A config install created goes, folders and all.
    let made = env.p("fresh/codex/config.toml");
    let made_arg = made.to_str().unwrap();
    env.ok(&[
        "install-hooks",
        "codex",
        "--per-window",
        "--config-file",
        made_arg,
    ]);
    assert!(daemon_off(&fs::read_to_string(&made).unwrap()));
    env.ok(&["uninstall-hooks", "codex", "--config-file", made_arg]);
    assert!(!env.p("fresh").exists(), "{:?}", tree(&env.p("fresh")));

    // Only Codex has one.
    let out = env.run(&["install-hooks", "claude", "--per-window"]);
    assert!(!out.status.success());
}

#[test]
fn codex_older_than_hooks_gets_notify_only() {
    let env = Env::new();
    env.script("codex", "echo 'codex-cli 0.116.1'\n");
    let config = env.p("codex/config.toml");
    let config_arg = config.to_str().unwrap();
    let (_, e) = env.ok(&["install-hooks", "codex", "--config-file", config_arg]);
    assert!(e.contains("notify only"), "{e}");
    assert!(!env.p("codex/hooks.json").exists());
    assert!(notify_of(&fs::read_to_string(&config).unwrap()).is_some());
    env.ok(&["uninstall-hooks", "codex", "--config-file", config_arg]);
    assert!(!env.p("codex").exists(), "the folder install made is gone");
}

#[test]
fn hook_log_stays_bounded_and_an_unknown_agent_says_one_line() {
    let mut env = Env::enabled();
    env.pane(false);
    let log = env.p("xdg-state/agent-resume/hook.log");
    fs::create_dir_all(log.parent().unwrap()).unwrap();
    let old_line = "2026-01-01T00:00:00Z claude no pane (an old line)\n";
    fs::write(&log, old_line.repeat((300 << 10) / old_line.len() + 1)).unwrap();
    let out = env.hook("claude", &session_start(ID_A, &env.work(), "startup"));
    assert_eq!(texts(&out), (String::new(), String::new()));
    let text = fs::read_to_string(&log).unwrap();
    assert!(text.len() <= 256 << 10, "{} bytes", text.len());
    let last = text.lines().last().unwrap();
    assert!(last.contains("no pane") && !last.contains("old"), "{last}");
    assert!(text.starts_with("2026-01-01"), "the log starts on a line");

    let out = env.hook("claud", &session_start(ID_A, &env.work(), "startup"));
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(o, "");
    assert_eq!(e, "agent-resume: hook: unknown agent\n");
}

// ----------------------------------------------------------------- run ----

/// The fake `claude` the launch wrapper execs: writes its argv to `argv`.
fn fake_claude(env: &Env) -> PathBuf {
    let out = env.p("claude-argv");
    env.argv_writer("claude", &out);
    out
}

#[test]
fn run_pins_a_fresh_session_id_right_after_the_program_word_and_records_it() {
    let env = Env::enabled();
    let got = fake_claude(&env);
    let out = env.run(&["run", "--", "claude", "--model", "opus", "hi"]);
    let (o, e) = texts(&out);
    assert!(out.status.success(), "{o}{e}");
    let argv = read_argv(&got);
    assert_eq!(argv.len(), 6, "{argv:?}");
    assert_eq!(argv[..2], words(&["claude", "--session-id"]));
    assert_eq!(argv[3..], words(&["--model", "opus", "hi"]));
    let id = &argv[2];
    let parsed = uuid_shape(id);
    assert!(parsed, "a lowercase hyphenated UUID: {id}");
    assert!(e.contains(id.as_str()), "stderr names the pinned id: {e}");
    assert_eq!(
        env.recorded(),
        Some((id.clone(), words(&["--model=opus"]))),
        "the pinned id is recorded for the pane with the launch's flags"
    );
    assert_eq!(
        env.recordings()[0]["cwd"],
        env.work().to_str().unwrap(),
        "the launch directory"
    );

    // Each launch pins a new conversation.
    env.ok(&["run", "--", "claude", "--model", "opus", "hi"]);
    let second = read_argv(&got);
    assert_ne!(&second[2], id);
    assert_eq!(env.recorded().map(|r| r.0), Some(second[2].clone()));
}

fn uuid_shape(id: &str) -> bool {
    id.len() == 36
        && id.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_digit() || ('a'..='f').contains(&c),
        })
}

#[test]
fn run_of_a_launch_that_already_resumes_is_not_pinned() {
    let env = Env::enabled();
    let got = fake_claude(&env);
    for argv in [
        &["claude", "--resume", "X"][..],
        &["claude", "--model", "opus", "-c"][..],
        &["claude", "--session-id=mine"][..],
    ] {
        let mut args = vec!["run", "--"];
        args.extend_from_slice(argv);
        let (_, e) = env.ok(&args);
        assert_eq!(read_argv(&got), words(argv), "argv unchanged");
        assert!(!e.contains("pinned"), "{e}");
    }
    assert_eq!(env.recordings(), json!([]), "nothing recorded");
}

#[test]
fn run_with_the_feature_off_or_without_a_pane_passes_argv_unchanged() {
    let env = Env::new();
    let got = fake_claude(&env);
    let (_, e) = env.ok(&["run", "--", "claude", "--model", "opus", "hi"]);
    assert_eq!(read_argv(&got), words(&["claude", "--model", "opus", "hi"]));
    assert_eq!(e, "");
    assert!(!env.db().exists());

    let mut env = Env::enabled();
    env.pane(false);
    let got = fake_claude(&env);
    env.ok(&["run", "--", "claude", "--model", "opus", "hi"]);
    assert_eq!(read_argv(&got), words(&["claude", "--model", "opus", "hi"]));
    assert!(!env.db().exists());
}

#[test]
fn each_run_is_recorded_with_its_own_process_flags_and_a_headless_run_never_is() {
    let env = Env::enabled();
    // A note of another run (an older integration's, bound to no process).
    env.run_with(
        &["note"],
        Some(b"claude --permission-mode bypassPermissions --model haiku"),
    );
    // Run 1, started by any launcher (no shell integration): its own flags.
    env.claude_runs_hook(
        &["--permission-mode", "acceptEdits", "--model", "opus"],
        &session_start(ID_A, &env.work(), "startup"),
    );
    assert_eq!(
        env.recorded(),
        Some((
            ID_A.to_owned(),
            words(&["--model=opus", "--permission-mode=acceptEdits"])
        )),
        "exactly the flags of the process that ran the hook"
    );
    // `/exit`, then `clear; claude` in the same pane: no flags, whatever
    // was noted or recorded before.
    env.claude_runs_hook(&[], &session_start(ID_B, &env.work(), "startup"));
    assert_eq!(
        env.recorded(),
        Some((ID_B.to_owned(), Vec::new())),
        "a plain run carries no flag of an earlier run"
    );
    // `claude -p hi` under AGENT_RESUME_PANE, no shell integration: its
    // hook's payload has no headless marker, its argv does.
    env.claude_runs_hook(&["-p", "hi"], &session_start(ID_C, &env.work(), "startup"));
    assert_eq!(
        env.recorded(),
        Some((ID_B.to_owned(), Vec::new())),
        "a headless run is never recorded and leaves the recording alone"
    );
    // The same conversation resumed with other flags: the recording takes
    // that run's flags.
    env.claude_runs_hook(
        &["--model", "sonnet", "--resume", ID_B],
        &session_start(ID_B, &env.work(), "resume"),
    );
    assert_eq!(
        env.recorded(),
        Some((ID_B.to_owned(), words(&["--model=sonnet"]))),
        "the run that reported decides the flags of its id"
    );
}

#[test]
fn a_note_speaks_for_an_agent_that_hid_its_argv_only_when_its_shell_launched_it_and_never_for_posture(
) {
    let env = Env::enabled();
    // This test process is the "shell": it launches the stand-in.
    let shell = std::process::id();
    env.note_for("claude --permission-mode acceptEdits --model opus", shell);
    env.titled_claude_runs_hook(
        &["--permission-mode", "acceptEdits", "--model", "opus"],
        &session_start(ID_A, &env.work(), "startup"),
    );
    assert_eq!(
        env.recorded(),
        Some((ID_A.to_owned(), words(&["--model=opus"]))),
        "the note of this launch gives its non-posture flags, never a posture flag"
    );
    // A note of another shell gives nothing.
    env.note_for("claude --model haiku", 1);
    env.titled_claude_runs_hook(&[], &session_start(ID_B, &env.work(), "startup"));
    assert_eq!(env.recorded(), Some((ID_B.to_owned(), Vec::new())));
    // A headless note of this launch keeps the run out of the recording.
    env.note_for("claude -p hi", shell);
    env.titled_claude_runs_hook(&["-p", "hi"], &session_start(ID_C, &env.work(), "startup"));
    assert_eq!(env.recorded(), Some((ID_B.to_owned(), Vec::new())));
}

#[test]
fn a_headless_note_of_another_run_does_not_keep_a_later_interactive_run_from_being_recorded() {
    let env = Env::enabled();
    let out = env.run_with(&["note"], Some(b"claude -p 'summarise the log'"));
    assert_eq!(out.status.code(), Some(0));
    env.claude_runs_hook(
        &["--model", "opus"],
        &session_start(ID_A, &env.work(), "startup"),
    );
    assert_eq!(
        env.recorded(),
        Some((ID_A.to_owned(), words(&["--model=opus"])))
    );
}

#[test]
fn a_headless_run_typed_in_the_pane_neither_becomes_nor_clears_its_recording() {
    let env = Env::enabled();
    // The pane's interactive conversation.
    env.run_with(&["note"], Some(b"claude --model opus"));
    env.hook("claude", &session_start(ID_A, &env.work(), "startup"));
    assert_eq!(env.recorded().map(|(id, _)| id), Some(ID_A.to_owned()));
    // A headless run in the same pane fires the agent's hooks too.
    let out = env.run_with(&["note"], Some(b"claude -p 'summarise the log'"));
    assert_eq!(out.status.code(), Some(0));
    env.claude_runs_hook(
        &["-p", "summarise the log"],
        &session_start(ID_B, &env.work(), "startup"),
    );
    assert_eq!(
        env.recorded().map(|(id, _)| id),
        Some(ID_A.to_owned()),
        "the headless id is not adopted"
    );
    // Its exit 0 does not clear the pane's recording either.
    let out = env.run(&["forget", "--quiet", "--if-interactive"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(env.recorded().map(|(id, _)| id), Some(ID_A.to_owned()));
    // After an interactive run, the same exit clears it.
    env.run_with(&["note"], Some(b"claude --model opus"));
    env.run(&["forget", "--quiet", "--if-interactive"]);
    assert_eq!(env.recorded(), None);
}

/// The user's `claude --model opus` (a stand-in script, its process argv
/// `/bin/sh …/user/claude --model opus`); a prompt made its shell tool run
/// a script named `claude` in another directory with
/// `--dangerously-skip-permissions`, which runs the real `hook claude`
/// with the pane's own session id.
#[test]
fn a_fake_agent_run_by_the_agent_s_shell_tool_never_records_its_posture_or_its_program() {
    let env = Env::enabled();
    let write = |rel: &str, body: &str| {
        let path = env.p(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
    };
    let user = write("user/claude", "/bin/sh -c \"$TOOL\"\nexit $?\n");
    let fake = write(
        "evil/claude",
        "printf '%s' \"$PAYLOAD\" | \"$AGENT_RESUME_BIN\" hook claude\nexit $?\n",
    );
    // By a relative path as the issue shows it, and by its absolute path
    // (a program path the recording could carry).
    let relative = format!(
        "cd '{}' && ./claude --dangerously-skip-permissions",
        fake.parent().unwrap().display()
    );
    let absolute = format!("'{}' --dangerously-skip-permissions", fake.display());
    let run = |tool: &str, id: &str| {
        let mut c = Command::new(&user);
        c.args(["--model", "opus"]);
        env.environment(&mut c);
        let out = c
            .env("AGENT_RESUME_BIN", env!("CARGO_BIN_EXE_agent-resume"))
            .env("TOOL", tool)
            .env(
                "PAYLOAD",
                String::from_utf8(session_start(id, &env.work(), "startup")).unwrap(),
            )
            .output()
            .expect("runs the stand-in agent");
        assert!(out.status.success(), "{:?}", texts(&out));
    };
    let recording = || {
        let loaded = Store::open(&env.db()).unwrap().load().unwrap();
        let rows: Vec<_> = loaded.rows.into_values().collect();
        match rows.as_slice() {
            [agent_resume_store::RowState::Recording(r)] => r.clone(),
            other => panic!("one recording: {other:?}"),
        }
    };
    // The pane's own run reports its id (its own hook, through `sh -c`).
    run(
        "printf '%s' \"$PAYLOAD\" | \"$AGENT_RESUME_BIN\" hook claude",
        ID_A,
    );
    assert_eq!(
        env.recorded(),
        Some((ID_A.to_owned(), words(&["--model=opus"])))
    );
    // The fake reports the pane's own id, then another, then a third.
    for (tool, id) in [(&relative, ID_A), (&relative, ID_B), (&absolute, ID_C)] {
        run(tool, id);
        let r = recording();
        assert_eq!(r.session_id, id, "the report may name the id");
        assert_eq!(
            env.recorded().map(|(_, flags)| flags),
            Some(words(&["--model=opus"])),
            "the outer run's flags, never the tool call's posture"
        );
        assert_eq!(
            r.program.as_deref(),
            Some(user.to_str().unwrap()),
            "the program path is the user's agent's, never the fake's"
        );
    }
}
