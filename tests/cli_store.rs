//! The store's commands, run as the built binary with every path pointed
//! into a temporary directory: `enable`, `disable`, `status`, `record`,
//! `forget`, `recordings`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use agent_resume_test_support::{texts, tree, PrivateEnv};

use agent_resume_core::{AgentKind, PaneId, UnixMillis};
use agent_resume_store::{Armed, Store};

const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const PANE2: &str = "0f9619ff-8b86-d011-b42d-00c04fc964ff";
const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

/// A temporary home: `HOME`, `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, the
/// database and the config inside; no state home or telemetry override.
struct Env(PrivateEnv);

impl Env {
    fn new() -> Env {
        Env(PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume"))
            .without("XDG_STATE_HOME")
            .without("AGENT_RESUME_TELEMETRY"))
    }

    fn root(&self) -> &Path {
        self.0.root()
    }

    fn db(&self) -> PathBuf {
        self.0.db()
    }

    fn config(&self) -> PathBuf {
        self.0.config()
    }

    fn with(self, k: &str, v: &str) -> Env {
        Env(self.0.with(k, v))
    }

    fn without(self, k: &str) -> Env {
        Env(self.0.without(k))
    }

    fn cmd<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.0.run(args)
    }

    fn ok<S: AsRef<OsStr>>(&self, args: &[S]) -> (String, String) {
        texts(&self.0.ok(args))
    }

    fn enable(&self) {
        self.ok(&["enable"]);
    }

    fn record(&self, extra: &[&str]) -> Output {
        let mut args = vec![
            "record",
            "--pane",
            PANE,
            "--agent",
            "claude",
            "--session-id",
            ID,
            "--cwd",
            "/home/me/project",
            "--invocation",
            "claude --model opus 'fix --the bug'",
        ];
        args.extend_from_slice(extra);
        self.cmd(&args)
    }

    fn json(&self) -> serde_json::Value {
        let (o, _) = self.ok(&["recordings", "--json"]);
        serde_json::from_str(&o).expect("recordings --json is JSON")
    }
}

#[test]
fn with_the_flag_off_record_and_forget_touch_nothing_and_say_so() {
    let env = Env::new();
    let out = env.record(&[]);
    assert!(out.status.success());
    let (o, e) = texts(&out);
    assert_eq!(o, "");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("disabled") && e.contains("nothing recorded"),
        "{e}"
    );
    let out = env.cmd(&["forget", "--pane", PANE, "--closed"]);
    assert!(out.status.success());
    assert!(texts(&out).1.contains("disabled"));
    assert_eq!(tree(env.root()), Vec::<PathBuf>::new(), "no file or folder");

    // Off in the config file is off too, and an env value other than 1/0 is
    // ignored.
    env.ok(&["disable"]);
    let env = env.with("AGENT_RESUME", "yes");
    assert!(env.record(&[]).status.success());
    assert!(!env.db().exists());
    assert!(!env.db().parent().expect("dir").exists());
}

#[test]
fn record_then_recordings_json_shows_exactly_the_stored_fields() {
    let env = Env::new();
    env.enable();
    let out = env.record(&["--observed-at", "2026-11-30T06:00:00.250+01:00"]);
    assert!(out.status.success(), "{:?}", texts(&out));
    let json = env.json();
    let rows = json.as_array().expect("an array");
    assert_eq!(rows.len(), 1);
    let row = rows[0].as_object().expect("an object");
    let keys: Vec<&str> = row.keys().map(String::as_str).collect();
    let mut want = vec!["pane", "agent", "session_id", "cwd", "observed_at", "flags"];
    want.sort_unstable();
    let mut got = keys.clone();
    got.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(row["pane"], PANE);
    assert_eq!(row["agent"], "claude");
    assert_eq!(row["session_id"], ID);
    assert_eq!(row["cwd"], "/home/me/project");
    assert_eq!(row["observed_at"], "2026-11-30T05:00:00.25Z");
    assert_eq!(
        row["flags"],
        serde_json::json!([{"name": "--model", "value": "opus"}]),
        "flags come from extraction; the prompt's `--the` is never a flag"
    );
    let mode = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).expect("exists").mode() & 0o777
    };
    assert_eq!(mode(&env.db()), 0o600);
    assert_eq!(mode(env.db().parent().expect("dir")), 0o700);
}

#[test]
fn human_recordings_list_unreadable_rows_as_unreadable() {
    let env = Env::new();
    env.enable();
    assert!(env.record(&[]).status.success());
    let conn = rusqlite::Connection::open(env.db()).expect("opens");
    conn.execute(
        "INSERT INTO agent_sessions (pane, agent, session_id, flags, program, cwd, observed_at, config_home) VALUES (?1, NULL, 'x', NULL, NULL, X'2F', 1, NULL)",
        [PANE2],
    )
    .expect("a row capture could not serialize");
    drop(conn);
    let (o, _) = env.ok(&["recordings"]);
    assert!(
        o.contains(&format!("{PANE2}  (unreadable: agent-missing)")),
        "{o}"
    );
    assert!(o.contains(PANE) && o.contains("--model opus"), "{o}");
    let out = env.cmd(&["recordings", "--json"]);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .expect("json")
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    assert!(texts(&out).1.contains("1 unreadable row(s) not listed"));
}

#[test]
fn enable_and_disable_keep_the_other_config_keys() {
    let env = Env::new();
    std::fs::create_dir_all(env.config().parent().expect("dir")).expect("mkdir");
    std::fs::write(env.config(), "window = 3600\n[agents]\nclaude = true\n").expect("writes");
    env.enable();
    let t: toml::Table = std::fs::read_to_string(env.config())
        .expect("reads")
        .parse()
        .expect("toml");
    assert_eq!(t["enabled"], toml::Value::Boolean(true));
    assert_eq!(t["window"], toml::Value::Integer(3600));
    assert_eq!(t["agents"]["claude"], toml::Value::Boolean(true));
    let (o, _) = env.ok(&["status"]);
    assert!(o.contains("feature:    on (by the config file)"), "{o}");
    env.ok(&["disable"]);
    let t: toml::Table = std::fs::read_to_string(env.config())
        .expect("reads")
        .parse()
        .expect("toml");
    assert_eq!(t["enabled"], toml::Value::Boolean(false));
    assert_eq!(t["window"], toml::Value::Integer(3600));
}

#[test]
fn the_environment_overrides_the_config_file() {
    let env = Env::new();
    env.enable();
    let off = env.with("AGENT_RESUME", "0");
    let out = off.record(&[]);
    assert!(out.status.success());
    assert!(texts(&out).1.contains("AGENT_RESUME"), "{:?}", texts(&out));
    assert!(!off.db().exists());
    let (o, _) = off.ok(&["status"]);
    assert!(
        o.contains("feature:    off (by AGENT_RESUME in the environment)"),
        "{o}"
    );

    let on = Env::new().with("AGENT_RESUME", "1");
    assert!(on.record(&[]).status.success());
    assert_eq!(on.json().as_array().map(Vec::len), Some(1));
}

#[test]
fn headless_invocations_are_not_recorded() {
    let env = Env::new();
    env.enable();
    let out = env.cmd(&[
        "record",
        "--pane",
        PANE,
        "--agent",
        "claude",
        "--session-id",
        ID,
        "--cwd",
        "/p",
        "--invocation",
        "claude -p 'summarize'",
    ]);
    assert!(out.status.success());
    assert!(texts(&out).1.contains("headless"), "{:?}", texts(&out));
    assert_eq!(env.json(), serde_json::json!([]));
}

#[test]
fn unparseable_invocation_is_recorded_without_flags() {
    let env = Env::new();
    env.enable();
    let out = env.cmd(&[
        "record",
        "--pane",
        PANE,
        "--agent",
        "claude",
        "--session-id",
        ID,
        "--cwd",
        "/p",
        "--invocation",
        "claude --model 'unbalanced",
    ]);
    assert!(out.status.success(), "{:?}", texts(&out));
    assert_eq!(env.json()[0]["flags"], serde_json::json!([]));
}

#[test]
fn a_session_id_that_fails_its_shape_is_refused() {
    let env = Env::new();
    env.enable();
    let out = env.cmd(&[
        "record",
        "--pane",
        PANE,
        "--agent",
        "claude",
        "--session-id",
        "$(reboot)",
        "--cwd",
        "/p",
        "--invocation",
        "claude",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let (_, e) = texts(&out);
    assert!(e.contains("refused") && !e.contains("reboot"), "{e}");
    assert!(!env.db().exists());
}

#[test]
fn bad_arguments_are_usage_errors() {
    let env = Env::new();
    env.enable();
    for (flag, value) in [
        ("--pane", "not-a-uuid"),
        ("--agent", "vim"),
        ("--cwd", "relative/dir"),
        ("--observed-at", "yesterday"),
    ] {
        let mut args = vec![
            "record",
            "--pane",
            PANE,
            "--agent",
            "claude",
            "--session-id",
            ID,
            "--cwd",
            "/p",
            "--invocation",
            "claude",
        ];
        let i = args
            .iter()
            .position(|a| *a == flag)
            .map_or(args.len(), |i| i + 1);
        if i == args.len() {
            args.extend([flag, value]);
        } else {
            args[i] = value;
        }
        let out = env.cmd(&args);
        assert_eq!(out.status.code(), Some(2), "{flag}: {:?}", texts(&out));
    }
}

#[test]
fn an_older_observation_never_replaces_a_newer_one() {
    let env = Env::new();
    env.enable();
    assert!(env
        .record(&["--observed-at", "2026-11-30T05:00:00Z"])
        .status
        .success());
    let out = env.cmd(&[
        "record",
        "--pane",
        PANE,
        "--agent",
        "claude",
        "--session-id",
        ID,
        "--cwd",
        "/older",
        "--invocation",
        "claude",
        "--observed-at",
        "2026-11-30T04:00:00Z",
    ]);
    assert!(out.status.success());
    assert!(texts(&out).1.contains("newer"), "{:?}", texts(&out));
    assert_eq!(env.json()[0]["cwd"], "/home/me/project");
}

#[test]
fn forget_clears_and_forget_closed_also_drops_the_armed_line() {
    let env = Env::new();
    env.enable();
    assert!(env
        .record(&["--observed-at", "2020-01-01T00:00:00Z"])
        .status
        .success());
    let pane: PaneId = PANE.parse().expect("pane");
    let arm = || {
        Store::open(&env.db())
            .expect("opens")
            .arm(&Armed {
                pane,
                agent: AgentKind::Claude,
                session_id: ID.into(),
                argv: vec![],
                armed_at: UnixMillis(1),
                observed_at: UnixMillis(1),
            })
            .expect("arms");
    };
    arm();
    env.ok(&["forget", "--pane", PANE]);
    assert_eq!(env.json(), serde_json::json!([]));
    let (o, _) = env.ok(&["status"]);
    assert!(
        o.contains("armed:      1"),
        "agent ended keeps the arm: {o}"
    );
    env.ok(&["forget", "--pane", PANE, "--closed"]);
    let (o, _) = env.ok(&["status"]);
    assert!(o.contains("armed:      0"), "{o}");
    // A late record of an observation from before the forget stays forgotten.
    assert!(env
        .record(&["--observed-at", "2020-01-01T00:00:01Z"])
        .status
        .success());
    assert_eq!(env.json(), serde_json::json!([]));
}

#[test]
fn status_reports_source_paths_schema_and_counts_and_creates_nothing() {
    let env = Env::new();
    let (o, _) = env.ok(&["status"]);
    assert!(o.contains("feature:    off (the default"), "{o}");
    assert!(
        o.contains(&format!("database:   {}", env.db().display())),
        "{o}"
    );
    assert!(o.contains("schema:     none yet"), "{o}");
    assert_eq!(tree(env.root()), Vec::<PathBuf>::new());
    env.enable();
    assert!(env.record(&[]).status.success());
    let (o, _) = env.ok(&["status"]);
    let want = agent_resume_store::migrate::LATEST;
    assert!(
        o.contains(&format!(
            "schema:     version {want} (this build writes {want})"
        )),
        "{o}"
    );
    assert!(o.contains("trusted:    yes"), "{o}");
    assert!(o.contains("recordings: 1 (0 unreadable)"), "{o}");
}

#[test]
fn default_paths_follow_xdg_data_home_and_xdg_config_home() {
    let env = Env::new()
        .without("AGENT_RESUME_DB")
        .without("AGENT_RESUME_CONFIG");
    env.ok(&["enable"]);
    assert!(env
        .root()
        .join("xdg-config/agent-resume/config.toml")
        .is_file());
    assert!(env.record(&[]).status.success());
    assert!(env
        .root()
        .join("xdg-data/agent-resume/recordings.sqlite3")
        .is_file());
    // `--db` beats both the environment and the default.
    let other = env.root().join("elsewhere.sqlite3");
    let mut args: Vec<&OsStr> = vec![OsStr::new("--db"), other.as_os_str()];
    args.extend(["recordings", "--json"].map(OsStr::new));
    let out = env.cmd(&args);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}

#[test]
fn non_utf8_directory_is_recorded_and_shown_escaped() {
    let env = Env::new();
    env.enable();
    let cwd = OsStr::from_bytes(b"/home/me/caf\xe9\x1b[2J");
    let args: Vec<&OsStr> = [
        "record",
        "--pane",
        PANE,
        "--agent",
        "claude",
        "--session-id",
        ID,
        "--invocation",
        "claude",
        "--cwd",
    ]
    .into_iter()
    .map(OsStr::new)
    .chain([cwd])
    .collect();
    let out = env.cmd(&args);
    assert!(out.status.success(), "{:?}", texts(&out));
    let stored = Store::open(&env.db())
        .expect("opens")
        .load()
        .expect("loads");
    let r = stored
        .rows
        .values()
        .next()
        .and_then(|s| s.recording())
        .expect("a recording");
    assert_eq!(r.cwd.as_os_str(), cwd, "raw bytes survive");
    let (o, _) = env.ok(&["recordings"]);
    assert!(
        !o.contains('\x1b'),
        "no raw control bytes reach the terminal: {o:?}"
    );
    assert!(o.contains("/home/me/caf\u{fffd}\\u{1b}[2J"), "{o:?}");
    assert_eq!(env.json()[0]["cwd"], "/home/me/caf\u{fffd}\u{1b}[2J");
}
