//! The restore path end to end, run as the built binary on real files in a
//! temporary directory: `plan`, `restore`, `take`, `explain` and `stats`,
//! with `record` filling the database and `enable` / `disable` the flag.
//!
//! Every test gets its own `HOME`, `XDG_*`, database, config and telemetry
//! file; times are pinned with `--now` wherever a command takes it. A test
//! that pinned a bug stays as its regression test.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agent_resume_core::{AgeBand, Reason, MARKER};
use agent_resume_test_support::{text, tree, PrivateEnv};
use serde_json::{json, Value};

/// The clock every `plan`, `restore` and `explain` runs at.
const NOW: &str = "2026-11-30T12:00:00Z";
/// A minute before [`NOW`].
const MINUTE_AGO: &str = "2026-11-30T11:59:00Z";

/// The exact keys of one `plan --json` row.
const PLAN_KEYS: [&str; 9] = [
    "agent",
    "argv",
    "directory",
    "line",
    "pane",
    "position",
    "posture_carried",
    "reason",
    "verdict",
];

/// The exact keys of one telemetry event.
const EVENT_KEYS: [&str; 4] = ["age_band", "agent", "outcome", "posture_carried"];

/// Pane `n`: a lowercase hyphenated UUID.
fn pane(n: u8) -> String {
    format!("{n:02x}a0e000-0000-4000-8000-0000000000{n:02x}")
}

/// Session id `n`, claude/cursor-shaped (lowercase UUID).
fn sid(n: u8) -> String {
    format!("5e55{n:02x}00-1d00-4000-8000-00000000{n:02x}00")
}

// ------------------------------------------------------------- harness ----

/// A temporary home: `HOME`, `XDG_*`, the database, config and telemetry
/// file all inside one directory, removed on drop.
struct Env(PrivateEnv);

impl Env {
    fn new() -> Env {
        Env(PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume")))
    }

    fn with(self, k: &str, v: &str) -> Env {
        Env(self.0.with(k, v))
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

    fn telemetry(&self) -> PathBuf {
        self.0.telemetry()
    }

    /// A directory under `work/`, created.
    fn work(&self, name: &str) -> PathBuf {
        self.0.work(name)
    }

    fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        self.0.command(args).into_inner()
    }

    fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.0.run(args)
    }

    /// Runs, asserts exit 0, returns stdout.
    fn ok<S: AsRef<OsStr>>(&self, args: &[S]) -> String {
        text(&self.0.ok(args).stdout)
    }

    fn enable(&self) {
        self.ok(&["enable"]);
    }

    /// `record` one observation; asserts it was stored silently.
    fn record(&self, pane: &str, agent: &str, session: &str, cwd: &Path, at: &str, inv: &str) {
        let out = self.run(&[
            OsStr::new("record"),
            OsStr::new("--pane"),
            OsStr::new(pane),
            OsStr::new("--agent"),
            OsStr::new(agent),
            OsStr::new("--session-id"),
            OsStr::new(session),
            OsStr::new("--cwd"),
            cwd.as_os_str(),
            OsStr::new("--observed-at"),
            OsStr::new(at),
            OsStr::new("--invocation"),
            OsStr::new(inv),
        ]);
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "record {pane}: {:?} {}",
            out.status,
            text(&out.stderr)
        );
    }

    fn write_layout(&self, name: &str, layout: &Value) -> PathBuf {
        let p = self.root().join(format!("layout-{name}.json"));
        fs::write(&p, serde_json::to_vec_pretty(layout).expect("json")).expect("writes");
        p
    }

    fn plan_output(&self, layout: &Path) -> Output {
        self.run(&[
            OsStr::new("plan"),
            OsStr::new("--json"),
            OsStr::new("--now"),
            OsStr::new(NOW),
            OsStr::new("--layout"),
            layout.as_os_str(),
        ])
    }

    /// `plan --json` rows keyed by pane id, checked for shape on the way.
    fn plan(&self, layout: &Path) -> BTreeMap<String, Value> {
        let out = self.plan_output(layout);
        assert!(out.status.success(), "plan: {}", text(&out.stderr));
        rows(&out.stdout)
    }

    fn restore(&self, layout: &Path) -> Output {
        let out = self.run(&[
            OsStr::new("restore"),
            OsStr::new("--now"),
            OsStr::new(NOW),
            OsStr::new("--layout"),
            layout.as_os_str(),
        ]);
        assert!(out.status.success(), "restore: {}", text(&out.stderr));
        out
    }

    fn take(&self, pane: &str, extra: &[&str]) -> Output {
        let mut args = vec!["take", "--now", NOW, "--pane", pane, "--shell", "zsh"];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// The telemetry file's lines as JSON (each must be an object).
    fn events(&self) -> Vec<Value> {
        let Ok(body) = fs::read_to_string(self.telemetry()) else {
            return Vec::new();
        };
        body.lines()
            .map(|l| serde_json::from_str(l).expect("each telemetry line is JSON"))
            .collect()
    }

    fn sql(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.db()).expect("opens the database")
    }

    fn count(&self, table: &str) -> i64 {
        self.sql()
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .expect("counts")
    }
}

/// An object's keys, sorted (whatever order serde_json keeps them in).
fn sorted_keys(v: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = v
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// Parses `plan --json` output, asserting each row's exact key set and that
/// each line splits into the marker and exactly the argv.
fn rows(stdout: &[u8]) -> BTreeMap<String, Value> {
    let v: Value = serde_json::from_slice(stdout).expect("plan --json prints JSON");
    let mut out = BTreeMap::new();
    for row in v.as_array().expect("an array") {
        let obj = row.as_object().expect("an object");
        assert_eq!(sorted_keys(row), PLAN_KEYS, "exact keys: {row}");
        match obj["verdict"].as_str().expect("verdict is a string") {
            "resume" => {
                assert_eq!(obj["reason"], Value::Null, "{row}");
                let argv: Vec<String> =
                    serde_json::from_value(obj["argv"].clone()).expect("argv: strings");
                let line = obj["line"].as_str().expect("line: a string");
                assert!(line.starts_with(' '), "kept out of history: {line:?}");
                let words = shell_words::split(line).expect("line splits");
                assert_eq!(words[0], MARKER, "{line}");
                assert_eq!(words[1..], argv[..], "{line}");
            }
            "skip" => {
                let reason = obj["reason"].as_str().expect("a skip has a reason");
                assert!(
                    reason.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                    "snake_case: {reason}"
                );
                assert_eq!(obj["argv"], Value::Null, "{row}");
                assert_eq!(obj["line"], Value::Null, "{row}");
                assert_eq!(obj["posture_carried"], false, "{row}");
            }
            other => panic!("unknown verdict {other}"),
        }
        let id = obj["pane"].as_str().expect("pane id").to_owned();
        out.insert(id, row.clone());
    }
    out
}

/// `(verdict, reason)` of a row.
fn verdict(row: &Value) -> (&str, Option<&str>) {
    (
        row["verdict"].as_str().expect("verdict"),
        row["reason"].as_str(),
    )
}

fn strings(v: &Value) -> Vec<String> {
    serde_json::from_value(v.clone()).expect("strings")
}

// -------------------------------------------------------------- layouts ----

fn pane_spec(n: u8, cwd: Option<&Path>) -> Value {
    json!({"id": pane(n), "cwd": cwd.map(|p| p.to_str().expect("utf-8 temp path")), "shell": "zsh"})
}

fn window(landing: bool, focused: Option<u8>, panes: Vec<Value>) -> Value {
    json!({"landing": landing, "visible": true, "active_tab": 0,
           "tabs": [{"focused_pane": focused.map(pane), "panes": panes}]})
}

fn layout(startup: bool, windows: Vec<Value>) -> Value {
    json!({"startup": startup, "windows": windows})
}

// -------------------------------------------------------------- fixture ----

const RESUMES: u8 = 1;
const LOSES_CLAIM: u8 = 2;
const DIR_GONE: u8 = 3;
const DIR_MISMATCH: u8 = 4;
const NOT_LOCAL: u8 = 5;
const SHARED: u8 = 6;
const NO_RECORDING: u8 = 7;
const CURSOR: u8 = 8;
const UNREADABLE: u8 = 9;
const SECOND: u8 = 10;
const OUTSIDE: u8 = 11;

/// What each pane of [`reasons`] plans to: `(pane, verdict, reason, agent)`.
const EXPECTED: [(u8, &str, Option<&str>, Option<&str>); 10] = [
    (RESUMES, "resume", None, Some("claude")),
    (
        LOSES_CLAIM,
        "skip",
        Some("duplicate_claim_lost"),
        Some("claude"),
    ),
    (DIR_GONE, "skip", Some("directory_gone"), Some("claude")),
    (
        DIR_MISMATCH,
        "skip",
        Some("directory_mismatch"),
        Some("claude"),
    ),
    (NOT_LOCAL, "skip", Some("not_local"), Some("claude")),
    (SHARED, "skip", Some("shared_viewer"), Some("claude")),
    (NO_RECORDING, "skip", Some("no_recording"), None),
    (CURSOR, "skip", Some("agent_not_verified"), Some("cursor")),
    (UNREADABLE, "skip", Some("recording_unreadable"), None),
    (SECOND, "resume", None, Some("claude")),
];

/// Enables the flag, records one pane per reason (plus one outside the
/// layout), and writes the layout. `startup` false makes every pane a
/// non-startup pass.
fn reasons(env: &Env, startup: bool) -> PathBuf {
    env.enable();
    let d = |n: &str| env.work(n);
    let at = MINUTE_AGO;
    env.record(
        &pane(RESUMES),
        "claude",
        &sid(RESUMES),
        &d("a"),
        at,
        "claude --model opus 'fix the --flaky test'",
    );
    // Same conversation, a newer observation, but not the focused pane.
    env.record(
        &pane(LOSES_CLAIM),
        "claude",
        &sid(RESUMES),
        &d("b"),
        "2026-11-30T11:59:30Z",
        "claude --model opus",
    );
    env.record(
        &pane(DIR_GONE),
        "claude",
        &sid(DIR_GONE),
        &env.root().join("work/gone"),
        at,
        "claude",
    );
    env.record(
        &pane(DIR_MISMATCH),
        "claude",
        &sid(DIR_MISMATCH),
        &d("d"),
        at,
        "claude",
    );
    env.record(
        &pane(NOT_LOCAL),
        "claude",
        &sid(NOT_LOCAL),
        &d("e"),
        at,
        "claude",
    );
    env.record(&pane(SHARED), "claude", &sid(SHARED), &d("f"), at, "claude");
    env.record(
        &pane(CURSOR),
        "cursor",
        &sid(CURSOR),
        &d("h"),
        at,
        "cursor-agent --model gpt-5",
    );
    env.record(
        &pane(UNREADABLE),
        "claude",
        &sid(UNREADABLE),
        &d("i"),
        at,
        "claude",
    );
    env.record(
        &pane(SECOND),
        "claude",
        &sid(SECOND),
        &d("j"),
        at,
        "claude --effort high",
    );
    env.record(
        &pane(OUTSIDE),
        "claude",
        &sid(OUTSIDE),
        &d("k"),
        at,
        "claude",
    );
    let n = env
        .sql()
        .execute(
            "UPDATE agent_sessions SET flags = 'not json' WHERE pane = ?1",
            [pane(UNREADABLE)],
        )
        .expect("corrupts");
    assert_eq!(n, 1);

    let mut shared = pane_spec(SHARED, Some(&d("f")));
    shared["shared_viewer"] = json!(true);
    let l = layout(
        startup,
        vec![
            window(
                true,
                Some(RESUMES),
                vec![
                    pane_spec(RESUMES, Some(&d("a"))),
                    pane_spec(LOSES_CLAIM, Some(&d("b"))),
                    pane_spec(DIR_GONE, Some(&d("c"))),
                    pane_spec(DIR_MISMATCH, Some(&d("a"))),
                    pane_spec(NOT_LOCAL, None),
                ],
            ),
            window(
                false,
                None,
                vec![
                    shared,
                    pane_spec(NO_RECORDING, Some(&d("g"))),
                    pane_spec(CURSOR, Some(&d("h"))),
                    pane_spec(UNREADABLE, Some(&d("i"))),
                    pane_spec(SECOND, Some(&d("j"))),
                ],
            ),
        ],
    );
    env.write_layout(if startup { "reasons" } else { "later" }, &l)
}

// ---------------------------------------------------------------- plan ----

#[test]
fn plan_json_names_every_reason_with_exact_keys_and_lines_that_split_into_marker_and_argv() {
    let env = Env::new();
    let l = reasons(&env, true);
    let plan = env.plan(&l);
    assert_eq!(plan.len(), EXPECTED.len());
    for (n, v, r, agent) in EXPECTED {
        let row = &plan[&pane(n)];
        assert_eq!(verdict(row), (v, r), "pane {n}: {row}");
        assert_eq!(row["agent"].as_str(), agent, "pane {n}: {row}");
    }
    assert_eq!(
        strings(&plan[&pane(RESUMES)]["argv"]),
        ["claude", "--model", "opus", "--resume", &sid(RESUMES)],
        "flags before the id; the prompt's `--flaky` is never a flag"
    );
    assert_eq!(
        strings(&plan[&pane(SECOND)]["argv"]),
        ["claude", "--effort", "high", "--resume", &sid(SECOND)]
    );
    assert_eq!(
        plan[&pane(RESUMES)]["line"],
        format!(
            " {MARKER} 'claude' '--model' 'opus' '--resume' '{}'",
            sid(RESUMES)
        )
    );
}

#[test]
fn plan_on_a_non_startup_pass_resumes_nothing() {
    let env = Env::new();
    let l = reasons(&env, false);
    let plan = env.plan(&l);
    assert_eq!(plan.len(), EXPECTED.len());
    for row in plan.values() {
        assert_eq!(verdict(row), ("skip", Some("not_startup_pass")), "{row}");
    }
}

#[test]
fn plan_with_the_flag_off_shows_every_pane_feature_disabled() {
    let env = Env::new();
    let l = reasons(&env, true);
    env.ok(&["disable"]);
    let plan = env.plan(&l);
    assert_eq!(plan.len(), EXPECTED.len());
    for row in plan.values() {
        assert_eq!(verdict(row), ("skip", Some("feature_disabled")), "{row}");
        assert_eq!(row["agent"], Value::Null, "nothing was read: {row}");
    }
}

#[test]
fn plan_has_no_side_effects_on_the_database_or_telemetry() {
    let env = Env::new();
    let l = reasons(&env, true);
    let bytes = fs::read(env.db()).expect("db");
    let files = tree(env.db().parent().expect("dir"));
    let counts = ["agent_sessions", "agent_session_clears", "armed"].map(|t| env.count(t));
    assert_eq!(counts, [10, 0, 0]);
    // `enable` made the shells' private prompt directory there; a plan
    // adds nothing to it.
    let state = env.root().join("xdg-state");
    let state_before = tree(&state);

    for _ in 0..2 {
        env.plan(&l);
        assert_eq!(fs::read(env.db()).expect("db"), bytes, "file bytes");
        // A read-only reader of a WAL database may leave SQLite's shared-memory
        // index and an empty log beside it; nothing else appears.
        let mut after = tree(env.db().parent().expect("dir"));
        after.retain(|p| !p.to_string_lossy().ends_with("-shm"));
        let wal = env.db().with_extension("sqlite3-wal");
        if after.contains(&wal) {
            assert_eq!(
                fs::metadata(&wal).expect("wal").len(),
                0,
                "a reader wrote to the log"
            );
            after.retain(|p| *p != wal);
        }
        assert_eq!(after, files);
        assert_eq!(
            ["agent_sessions", "agent_session_clears", "armed"].map(|t| env.count(t)),
            counts,
            "the pane outside the layout is not swept and nothing is armed"
        );
        assert!(!env.telemetry().exists(), "no telemetry file");
        assert_eq!(tree(&state), state_before, "nothing in the state directory");
    }

    // A plan after a restore leaves the telemetry file as restore wrote it.
    env.restore(&l);
    let before = fs::read(env.telemetry()).expect("restore wrote telemetry");
    let armed = env.count("armed");
    env.plan(&l);
    assert_eq!(fs::read(env.telemetry()).expect("telemetry"), before);
    assert_eq!(env.count("armed"), armed);
}

// --------------------------------------------------------------- claims ----

#[test]
fn the_landing_windows_focused_pane_wins_a_claim_over_newer_observations() {
    let env = Env::new();
    env.enable();
    let (x, y, z) = (env.work("x"), env.work("y"), env.work("z"));
    let id = sid(1);
    // Oldest: the landing window's focused pane.
    env.record(
        &pane(1),
        "claude",
        &id,
        &x,
        "2026-11-30T09:00:00Z",
        "claude",
    );
    // Newer: same tab, not focused.
    env.record(
        &pane(2),
        "claude",
        &id,
        &y,
        "2026-11-30T11:00:00Z",
        "claude",
    );
    // Newest: focused in a visible window that is not the landing one.
    env.record(&pane(3), "claude", &id, &z, MINUTE_AGO, "claude");
    let l = env.write_layout(
        "claim",
        &layout(
            true,
            vec![
                window(false, Some(3), vec![pane_spec(3, Some(&z))]),
                window(
                    true,
                    Some(1),
                    vec![pane_spec(2, Some(&y)), pane_spec(1, Some(&x))],
                ),
            ],
        ),
    );
    let plan = env.plan(&l);
    assert_eq!(verdict(&plan[&pane(1)]), ("resume", None));
    assert_eq!(
        verdict(&plan[&pane(2)]),
        ("skip", Some("duplicate_claim_lost"))
    );
    assert_eq!(
        verdict(&plan[&pane(3)]),
        ("skip", Some("duplicate_claim_lost"))
    );

    // Restore arms the winner only.
    env.restore(&l);
    assert_eq!(env.count("armed"), 1);
    assert_eq!(env.take(&pane(2), &[]).status.code(), Some(1));
    assert_eq!(env.take(&pane(3), &[]).status.code(), Some(1));
    let out = env.take(&pane(1), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        format!("{}\n", plan[&pane(1)]["line"].as_str().expect("line"))
    );
}

#[test]
fn a_claim_winner_whose_directory_is_gone_hands_the_id_to_the_next_pane() {
    let env = Env::new();
    env.enable();
    let (x, y) = (env.work("x"), env.work("y"));
    let id = sid(1);
    env.record(&pane(1), "claude", &id, &x, MINUTE_AGO, "claude");
    env.record(
        &pane(2),
        "claude",
        &id,
        &y,
        "2026-11-30T10:00:00Z",
        "claude --model opus",
    );
    fs::remove_dir(&x).expect("rmdir");
    let l = env.write_layout(
        "handoff",
        &layout(
            true,
            vec![window(
                true,
                Some(1),
                vec![pane_spec(1, Some(&x)), pane_spec(2, Some(&y))],
            )],
        ),
    );
    let plan = env.plan(&l);
    assert_eq!(verdict(&plan[&pane(1)]), ("skip", Some("directory_gone")));
    assert_eq!(verdict(&plan[&pane(2)]), ("resume", None));
    assert_eq!(
        strings(&plan[&pane(2)]["argv"]),
        ["claude", "--model", "opus", "--resume", &id]
    );
}

#[test]
fn a_restored_directory_reached_through_a_symlink_is_the_recorded_one() {
    let env = Env::new();
    env.enable();
    let real = env.work("real");
    let link = env.root().join("work/link");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    env.record(&pane(1), "claude", &sid(1), &real, MINUTE_AGO, "claude");
    env.record(&pane(2), "claude", &sid(2), &link, MINUTE_AGO, "claude");
    let l = env.write_layout(
        "symlink",
        &layout(
            true,
            vec![window(
                true,
                None,
                vec![pane_spec(1, Some(&link)), pane_spec(2, Some(&real))],
            )],
        ),
    );
    let plan = env.plan(&l);
    assert_eq!(verdict(&plan[&pane(1)]), ("resume", None));
    assert_eq!(verdict(&plan[&pane(2)]), ("resume", None));
}

#[test]
fn a_recorded_directory_replaced_by_a_link_or_another_directory_is_directory_changed() {
    let env = Env::new();
    env.enable();
    let repo = env.work("repo");
    let (sub, again) = (repo.join("sub"), repo.join("again"));
    let elsewhere = env.work("elsewhere");
    fs::create_dir(&sub).expect("mkdir sub");
    fs::create_dir(&again).expect("mkdir again");
    env.record(
        &pane(1),
        "claude",
        &sid(1),
        &sub,
        MINUTE_AGO,
        "claude --permission-mode plan",
    );
    env.record(&pane(2), "claude", &sid(2), &again, MINUTE_AGO, "claude");
    env.record(
        &pane(3),
        "claude",
        &sid(3),
        &elsewhere,
        MINUTE_AGO,
        "claude",
    );
    let l = env.write_layout(
        "swapped",
        &layout(
            true,
            vec![window(
                true,
                Some(1),
                vec![
                    pane_spec(1, Some(&sub)),
                    pane_spec(2, Some(&again)),
                    pane_spec(3, Some(&elsewhere)),
                ],
            )],
        ),
    );
    let before = env.plan(&l);
    for n in 1..=3 {
        assert_eq!(verdict(&before[&pane(n)]), ("resume", None), "pane {n}");
    }
    // A pulled commit turns `sub` into a link to a sibling; another
    // directory is moved into the place of `again`.
    fs::remove_dir(&sub).expect("rmdir sub");
    std::os::unix::fs::symlink("../elsewhere", &sub).expect("symlink");
    let other = repo.join("other");
    fs::create_dir(&other).expect("mkdir other");
    fs::remove_dir(&again).expect("rmdir again");
    fs::rename(&other, &again).expect("moves other into its place");
    let plan = env.plan(&l);
    assert_eq!(
        verdict(&plan[&pane(1)]),
        ("skip", Some("directory_changed"))
    );
    assert_eq!(
        verdict(&plan[&pane(2)]),
        ("skip", Some("directory_changed"))
    );
    assert_eq!(verdict(&plan[&pane(3)]), ("resume", None), "untouched");
    let out = explain(&env, &l, 1);
    assert_eq!(
        marks(&out).1,
        ["the directory at the recorded path is not the one the agent ran in"],
        "{out}"
    );
    env.restore(&l);
    let outcomes: Vec<String> = env
        .events()
        .iter()
        .map(|e| e["outcome"].as_str().expect("outcome").to_owned())
        .collect();
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| *o == "directory_changed")
            .count(),
        2,
        "{outcomes:?}"
    );
    assert_eq!(env.count("armed"), 1, "only the untouched pane is armed");
}

#[test]
fn a_pane_whose_shell_cannot_be_driven_is_skipped_and_the_rest_of_the_layout_restores() {
    let env = Env::new();
    env.enable();
    let w = env.work("w");
    for n in 1..=3 {
        env.record(&pane(n), "claude", &sid(n), &w, MINUTE_AGO, "claude");
    }
    let mut pwsh = pane_spec(1, Some(&w));
    pwsh["shell"] = json!("pwsh");
    let mut nu = pane_spec(2, Some(&w));
    nu["shell"] = json!("/usr/bin/nu");
    let l = env.write_layout(
        "shells",
        &layout(
            true,
            vec![window(
                true,
                Some(1),
                vec![pwsh, nu, pane_spec(3, Some(&w))],
            )],
        ),
    );
    let plan = env.plan(&l);
    assert_eq!(
        verdict(&plan[&pane(1)]),
        ("skip", Some("shell_unsupported"))
    );
    assert_eq!(
        verdict(&plan[&pane(2)]),
        ("skip", Some("shell_unsupported"))
    );
    assert_eq!(verdict(&plan[&pane(3)]), ("resume", None));
    env.restore(&l);
    assert_eq!(env.count("armed"), 1);
    let unsupported = env
        .events()
        .iter()
        .filter(|e| e["outcome"] == "shell_unsupported")
        .count();
    assert_eq!(unsupported, 2);
}

#[test]
fn a_recording_without_an_identity_resumes_only_where_its_path_is_still_canonical() {
    let env = Env::new();
    env.enable();
    let repo = env.work("repo");
    let (sub, kept) = (repo.join("sub"), repo.join("kept"));
    env.work("elsewhere");
    fs::create_dir(&sub).expect("mkdir sub");
    fs::create_dir(&kept).expect("mkdir kept");
    env.record(&pane(1), "claude", &sid(1), &sub, MINUTE_AGO, "claude");
    env.record(&pane(2), "claude", &sid(2), &kept, MINUTE_AGO, "claude");
    // Rows written before identities were kept.
    env.sql()
        .execute(
            "UPDATE agent_sessions SET dir_canonical = NULL, dir_volume = NULL, dir_inode = NULL",
            [],
        )
        .expect("drops the identities");
    fs::remove_dir(&sub).expect("rmdir sub");
    std::os::unix::fs::symlink("../elsewhere", &sub).expect("symlink");
    let l = env.write_layout(
        "legacy",
        &layout(
            true,
            vec![window(
                true,
                Some(1),
                vec![pane_spec(1, Some(&sub)), pane_spec(2, Some(&kept))],
            )],
        ),
    );
    let plan = env.plan(&l);
    assert_eq!(
        verdict(&plan[&pane(1)]),
        ("skip", Some("directory_changed"))
    );
    assert_eq!(verdict(&plan[&pane(2)]), ("resume", None));
}

// ------------------------------------------------------ restore and take ----

#[test]
fn take_after_restore_prints_exactly_the_plans_line_once() {
    let env = Env::new();
    let l = reasons(&env, true);
    let plan = env.plan(&l);
    env.restore(&l);
    assert_eq!(env.count("armed"), 2, "the two resumable panes");
    for n in [RESUMES, SECOND] {
        let out = env.take(&pane(n), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            format!("{}\n", plan[&pane(n)]["line"].as_str().expect("line"))
        );
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
        let again = env.take(&pane(n), &[]);
        assert_eq!(again.status.code(), Some(1));
        assert!(again.stdout.is_empty());
    }
    // Panes that were not armed get nothing.
    for (n, v, _, _) in EXPECTED {
        if v == "skip" {
            let out = env.take(&pane(n), &[]);
            assert_eq!(out.status.code(), Some(1), "pane {n}");
            assert!(out.stdout.is_empty(), "pane {n}");
        }
    }
}

#[test]
fn a_take_leaves_the_write_ahead_log_to_the_next_process_and_still_hands_out_once() {
    let env = Env::new();
    let l = reasons(&env, true);
    env.restore(&l);
    let side = |suffix: &str| {
        let mut p = env.db().into_os_string();
        p.push(suffix);
        PathBuf::from(p)
    };
    let out = env.take(&pane(RESUMES), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Not checkpointed and deleted at exit: the consuming commit stays in
    // the log, which the next take reads.
    assert!(
        fs::metadata(side("-wal")).is_ok_and(|m| m.len() > 0),
        "the log is kept"
    );
    assert!(side("-shm").exists(), "its index is kept");
    let again = env.take(&pane(RESUMES), &[]);
    assert_eq!(again.status.code(), Some(1));
    assert!(again.stdout.is_empty());
    assert_eq!(env.count("armed"), 1, "only the other pane's line is left");
}

#[test]
fn take_reads_the_pane_from_agent_resume_pane() {
    let env = Env::new();
    let l = reasons(&env, true);
    let plan = env.plan(&l);
    env.restore(&l);
    let env = env.with("AGENT_RESUME_PANE", &pane(RESUMES));
    let out = env.run(&["take", "--now", NOW, "--shell", "bash"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!("{}\n", plan[&pane(RESUMES)]["line"].as_str().expect("line"))
    );
}

/// A pane `tmux restore --recreate` made presents the take key it was
/// started with (`AGENT_RESUME_TAKE`): its line is handed out without
/// asking any tmux server — none listens on the socket `$TMUX` names, so
/// asking for the pane's id could only fail — once, and only under the
/// server it was armed for; a malformed key is no key.
#[test]
fn a_take_key_hands_out_its_line_once_without_a_server_and_only_on_its_own_server() {
    let env = Env::new();
    let l = reasons(&env, true);
    let plan = env.plan(&l);
    env.restore(&l);
    let sockets = env.work("sockets");
    let canonical = fs::canonicalize(&sockets).expect("resolves");
    let key = "0b9e4a1c-7d2f-4e8a-9c3b-5f6a7b8c9d0e";
    let server = canonical.join("s1").to_str().expect("UTF-8").to_owned();
    // Armed again with a ticket, as `tmux restore --recreate` arms it.
    let rearm = || {
        let store = agent_resume_store::Store::open(&env.db()).expect("opens");
        let id = pane(RESUMES).parse().expect("pane id");
        let armed = store
            .take(id)
            .expect("takes")
            .expect("armed by the restore");
        let ticket = agent_resume_store::Ticket {
            key: key.parse().expect("a key"),
            server: &server,
        };
        store.arm_with(&armed, Some(ticket)).expect("arms");
    };
    rearm();
    let keyed = |socket: &str, key: &str| {
        let tmux = format!("{},4242,0", sockets.join(socket).display());
        let out = env
            .command(&["take", "--now", NOW, "--shell", "bash"])
            .env("TMUX", tmux)
            .env("TMUX_PANE", "%3")
            .env("AGENT_RESUME_TAKE", key)
            .output()
            .expect("runs take");
        // Exit 0 with the line; or not 0 and nothing (1: nothing armed; 2:
        // the fallback could not ask the absent server for the pane's id).
        (out.status.success(), text(&out.stdout))
    };
    let line = format!("{}\n", plan[&pane(RESUMES)]["line"].as_str().expect("line"));
    // Another server's socket, a malformed key: nothing, the line stays.
    assert_eq!(keyed("s2", key), (false, String::new()), "another server");
    let upper = key.to_uppercase();
    for bad in [
        "",
        "0b9e4a1c7d2f4e8a9c3b5f6a7b8c9d0e",
        &format!("{key} "),
        "%3",
    ] {
        assert_eq!(keyed("s1", bad), (false, String::new()), "{bad:?}");
    }
    assert_eq!(env.count("armed"), 2, "nothing was taken");
    // Its own server: the line, once.
    assert_eq!(keyed("s1", &upper), (true, line.clone()), "its own server");
    assert_eq!(
        keyed("s1", key),
        (false, String::new()),
        "a key serves once"
    );
    assert_eq!(env.count("armed"), 1);
    // Through the socket's other spelling (`.` and a link in its folder),
    // still its own server.
    env.restore(&l);
    rearm();
    std::os::unix::fs::symlink(&sockets, env.root().join("link")).expect("links");
    let out = env
        .command(&["take", "--now", NOW, "--shell", "bash"])
        .env("TMUX", format!("{}/link/./s1,1,0", env.root().display()))
        .env("TMUX_PANE", "%0")
        .env("AGENT_RESUME_TAKE", key)
        .output()
        .expect("runs take");
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), line));
}

#[test]
fn eight_concurrent_takes_of_one_pane_hand_out_exactly_one_line() {
    let env = Env::new();
    let l = reasons(&env, true);
    let line = env.plan(&l)[&pane(RESUMES)]["line"]
        .as_str()
        .expect("line")
        .to_owned();
    env.restore(&l);
    let children: Vec<_> = (0..8)
        .map(|_| {
            env.command(&[
                "take",
                "--now",
                NOW,
                "--pane",
                &pane(RESUMES),
                "--shell",
                "zsh",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns")
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("waits"))
        .collect();
    let winners: Vec<&Output> = outs.iter().filter(|o| !o.stdout.is_empty()).collect();
    assert_eq!(
        winners.len(),
        1,
        "{:?}",
        outs.iter()
            .map(|o| (o.status.code(), text(&o.stdout), text(&o.stderr)))
            .collect::<Vec<_>>()
    );
    assert_eq!(text(&winners[0].stdout), format!("{line}\n"));
    assert_eq!(winners[0].status.code(), Some(0));
    for o in &outs {
        if o.stdout.is_empty() {
            assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        }
    }
    let resumed = env
        .events()
        .iter()
        .filter(|e| e["outcome"] == "resumed")
        .count();
    assert_eq!(resumed, 1);
}

#[test]
fn take_with_input_in_the_pane_prints_nothing_and_drops_the_armed_line() {
    let env = Env::new();
    let l = reasons(&env, true);
    env.restore(&l);
    for flag in ["--has-input", "--queued-command"] {
        let n = if flag == "--has-input" {
            RESUMES
        } else {
            SECOND
        };
        let out = env.take(&pane(n), &[flag]);
        assert_eq!(out.status.code(), Some(1), "{flag}");
        assert!(out.stdout.is_empty(), "{flag}");
        let later = env.take(&pane(n), &[]);
        assert_eq!(later.status.code(), Some(1), "{flag}: the arm was dropped");
        assert!(later.stdout.is_empty(), "{flag}");
    }
    assert_eq!(env.count("armed"), 0);
    let outcomes: Vec<String> = env
        .events()
        .iter()
        .map(|e| e["outcome"].as_str().expect("outcome").to_owned())
        .filter(|o| o == "pane_has_input" || o == "queued_command" || o == "resumed")
        .collect();
    assert_eq!(outcomes, ["pane_has_input", "queued_command"]);
}

#[test]
fn telemetry_after_restore_and_take_holds_one_event_per_recorded_pane_and_no_input_bytes() {
    let env = Env::new();
    let l = reasons(&env, true);
    env.restore(&l);
    // Skips are written at restore; the two armed panes write nothing yet.
    let at_restore = env.events();
    assert_eq!(at_restore.len(), 7, "{at_restore:?}");
    assert!(env.take(&pane(RESUMES), &[]).status.success());
    assert_eq!(
        env.take(&pane(SECOND), &["--has-input"]).status.code(),
        Some(1)
    );
    // A second take of either writes nothing more.
    assert_eq!(env.take(&pane(RESUMES), &[]).status.code(), Some(1));
    assert_eq!(env.take(&pane(SECOND), &[]).status.code(), Some(1));

    let events = env.events();
    let mut got: Vec<(String, String)> = events
        .iter()
        .map(|e| {
            (
                e["outcome"].as_str().expect("outcome").to_owned(),
                e["agent"].as_str().expect("agent").to_owned(),
            )
        })
        .collect();
    got.sort();
    let mut want: Vec<(String, String)> = [
        ("agent_not_verified", "cursor"),
        ("directory_gone", "claude"),
        ("directory_mismatch", "claude"),
        ("duplicate_claim_lost", "claude"),
        ("not_local", "claude"),
        ("pane_has_input", "claude"),
        ("recording_unreadable", "unknown"),
        ("resumed", "claude"),
        ("shared_viewer", "claude"),
    ]
    .iter()
    .map(|(o, a)| ((*o).to_owned(), (*a).to_owned()))
    .collect();
    want.sort();
    assert_eq!(
        got, want,
        "one per pane with a recording; none for no_recording"
    );

    for e in &events {
        assert_eq!(sorted_keys(e), EVENT_KEYS, "{e}");
        assert_eq!(e["posture_carried"], false, "no posture flag recorded: {e}");
    }
    for e in &at_restore {
        let band = if e["outcome"] == "recording_unreadable" {
            "unknown"
        } else {
            "le_1h"
        };
        assert_eq!(e["age_band"], band, "aged against --now: {e}");
    }

    let raw = fs::read_to_string(env.telemetry()).expect("telemetry");
    assert!(!raw.contains('/'), "{raw}");
    assert!(!raw.contains("--"), "{raw}");
    for n in 1..=OUTSIDE {
        assert!(!raw.contains(&sid(n)), "session id {n}: {raw}");
        assert!(!raw.contains(&pane(n)), "pane id {n}: {raw}");
    }
    let root = env.root().to_str().expect("utf-8");
    assert!(!raw.contains(root), "{raw}");
    for word in ["work", "opus", "gpt-5", "high", "flaky", "5e55"] {
        assert!(!raw.contains(word), "{word}: {raw}");
    }
}

#[test]
fn restore_writes_telemetry_under_xdg_state_home_by_default() {
    let env = Env(Env::new().0.without("AGENT_RESUME_TELEMETRY"));
    let l = reasons(&env, true);
    env.restore(&l);
    let file = env.root().join("xdg-state/agent-resume/telemetry.jsonl");
    let body = fs::read_to_string(&file).expect("telemetry under XDG_STATE_HOME");
    assert_eq!(body.lines().count(), 7);
    assert!(!env.telemetry().exists());
    let mode = |p: &Path| fs::metadata(p).expect("exists").permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(file.parent().expect("dir")), 0o700);
}

#[test]
fn restore_sweeps_recordings_of_panes_the_layout_does_not_restore() {
    let env = Env::new();
    let l = reasons(&env, true);
    assert_eq!(env.count("agent_sessions"), 10);
    env.restore(&l);
    let left: Vec<String> = env
        .sql()
        .prepare("SELECT pane FROM agent_sessions ORDER BY pane")
        .expect("prepares")
        .query_map([], |r| r.get(0))
        .expect("queries")
        .collect::<Result<_, _>>()
        .expect("reads");
    assert_eq!(left.len(), 9, "{left:?}");
    assert!(!left.contains(&pane(OUTSIDE)));
}

#[test]
fn restore_of_a_non_startup_pass_sweeps_no_recording() {
    // A later pass (a reopened window) lists only the panes it restores;
    // sweeping against it deletes the recordings of every live pane not in
    // it, so their agents no longer come back at the next start-up.
    let env = Env::new();
    let l = reasons(&env, false);
    env.restore(&l);
    assert_eq!(
        env.count("agent_sessions"),
        10,
        "the recording of the pane outside this pass's layout survives"
    );
}

// -------------------------------------------------------------- posture ----

#[test]
fn posture_flags_ride_along_only_with_a_fresh_recording() {
    let env = Env::new();
    env.enable();
    let inv = "claude --model opus --permission-mode plan --dangerously-skip-permissions";
    let cases = [
        (1, "2026-11-29T23:00:00Z", false, "13 h old"),
        (2, "2026-11-30T11:00:00Z", true, "1 h old"),
        (
            3,
            "2026-11-30T00:00:00Z",
            true,
            "exactly 12 h old: on the edge",
        ),
        (4, "2026-11-30T13:00:00Z", false, "dated in the future"),
    ];
    let mut panes = Vec::new();
    for (n, at, _, _) in cases {
        let d = env.work(&format!("p{n}"));
        env.record(&pane(n), "claude", &sid(n), &d, at, inv);
        panes.push(pane_spec(n, Some(&d)));
    }
    let l = env.write_layout("posture", &layout(true, vec![window(true, None, panes)]));
    let plan = env.plan(&l);
    for (n, _, carried, what) in cases {
        let row = &plan[&pane(n)];
        assert_eq!(verdict(row), ("resume", None), "{what}: {row}");
        assert_eq!(row["posture_carried"], carried, "{what}: {row}");
        let want: Vec<String> = if carried {
            [
                "claude",
                "--model",
                "opus",
                "--permission-mode",
                "plan",
                "--dangerously-skip-permissions",
                "--resume",
                &sid(n),
            ]
            .map(str::to_owned)
            .to_vec()
        } else {
            ["claude", "--model", "opus", "--resume", &sid(n)]
                .map(str::to_owned)
                .to_vec()
        };
        assert_eq!(strings(&row["argv"]), want, "{what}");
    }

    // The armed line keeps the decision made at restore, and telemetry says
    // whether posture was carried.
    env.restore(&l);
    for (n, _, carried, what) in cases {
        let out = env.take(&pane(n), &[]);
        assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            format!("{}\n", plan[&pane(n)]["line"].as_str().expect("line")),
            "{what}"
        );
        let last = env.events().pop().expect("an event per take");
        assert_eq!(last["outcome"], "resumed", "{what}");
        assert_eq!(last["posture_carried"], carried, "{what}");
    }
}

#[test]
fn copilot_mode_autopilot_is_posture_by_value_in_plan_take_and_telemetry() {
    let env = Env::new();
    env.enable();
    // (pane, recorded at, invocation, flag words replayed, posture carried).
    let cases: [(u8, &str, &str, &[&str], bool); 6] = [
        (
            1,
            "2026-11-29T11:00:00Z",
            "copilot --mode autopilot",
            &[],
            false,
        ),
        (
            2,
            "2026-11-29T11:00:00Z",
            "copilot --mode=autopilot",
            &[],
            false,
        ),
        (
            3,
            "2026-11-29T11:00:00Z",
            "copilot --mode interactive",
            &["--mode", "interactive"],
            false,
        ),
        (4, "2026-11-29T11:00:00Z", "copilot --autopilot", &[], false),
        (
            5,
            "2026-11-30T11:00:00Z",
            "copilot --mode autopilot",
            &["--mode", "autopilot"],
            true,
        ),
        (
            6,
            "2026-11-30T11:00:00Z",
            "copilot --mode=interactive",
            &["--mode", "interactive"],
            false,
        ),
    ];
    let mut panes = Vec::new();
    for (n, at, inv, _, _) in cases {
        let d = env.work(&format!("p{n}"));
        env.record(&pane(n), "copilot", &sid(n), &d, at, inv);
        panes.push(pane_spec(n, Some(&d)));
    }
    let l = env.write_layout("by-value", &layout(true, vec![window(true, None, panes)]));
    let plan = env.plan(&l);
    for (n, at, inv, flags, carried) in cases {
        let row = &plan[&pane(n)];
        let what = format!("{inv} recorded at {at}");
        assert_eq!(verdict(row), ("resume", None), "{what}: {row}");
        assert_eq!(row["posture_carried"], carried, "{what}: {row}");
        let mut want = vec!["copilot".to_owned()];
        want.extend(flags.iter().map(|w| (*w).to_owned()));
        want.push(format!("--resume={}", sid(n)));
        assert_eq!(strings(&row["argv"]), want, "{what}");
    }
    // The text plan marks only the fresh `--mode autopilot` as posture.
    let out = env.ok(&[
        OsStr::new("plan"),
        OsStr::new("--now"),
        OsStr::new(NOW),
        OsStr::new("--layout"),
        l.as_os_str(),
    ]);
    let marked: Vec<&str> = out.lines().filter(|l| l.ends_with("[posture]")).collect();
    assert_eq!(marked.len(), 1, "{out}");
    assert!(marked[0].contains("--mode autopilot"), "{out}");
    // Taken, each line is the plan's, and telemetry says the same.
    env.restore(&l);
    for (n, _, inv, _, carried) in cases {
        let out = env.take(&pane(n), &[]);
        assert_eq!(out.status.code(), Some(0), "{inv}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            format!("{}\n", plan[&pane(n)]["line"].as_str().expect("line")),
            "{inv}"
        );
        let last = env.events().pop().expect("an event per take");
        assert_eq!(last["outcome"], "resumed", "{inv}");
        assert_eq!(last["posture_carried"], carried, "{inv}");
    }
}

// ---------------------------------------------------------- feature off ----

#[test]
fn with_the_flag_off_by_default_restore_and_take_create_nothing() {
    let env = Env::new();
    let d = env.work("a");
    let l = env.write_layout(
        "off",
        &layout(
            true,
            vec![window(true, Some(1), vec![pane_spec(1, Some(&d))])],
        ),
    );
    let before = tree(env.root());
    let out = env.restore(&l);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let plan = rows(&env.plan_output(&l).stdout);
    assert_eq!(verdict(&plan[&pane(1)]), ("skip", Some("feature_disabled")));
    let out = env.take(&pane(1), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let out = env.take(&pane(1), &["--has-input"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        tree(env.root()),
        before,
        "no database, no telemetry, no folder"
    );
    assert!(!env.db().exists());
    assert!(!env.telemetry().exists());
}

#[test]
fn with_the_flag_turned_off_restore_arms_nothing_and_writes_no_telemetry() {
    for how in ["disable", "AGENT_RESUME=0"] {
        let env = Env::new();
        let l = reasons(&env, true);
        let env = if how == "disable" {
            env.ok(&["disable"]);
            env
        } else {
            env.with("AGENT_RESUME", "0")
        };
        let bytes = fs::read(env.db()).expect("db");
        let files = tree(env.root());
        env.restore(&l);
        assert_eq!(env.count("armed"), 0, "{how}");
        assert_eq!(env.count("agent_sessions"), 10, "{how}: no sweep");
        assert_eq!(fs::read(env.db()).expect("db"), bytes, "{how}");
        assert_eq!(tree(env.root()), files, "{how}: nothing created");
        assert!(!env.telemetry().exists(), "{how}");
        for row in env.plan(&l).values() {
            assert_eq!(
                verdict(row),
                ("skip", Some("feature_disabled")),
                "{how}: {row}"
            );
        }
        let out = env.take(&pane(RESUMES), &[]);
        assert_eq!(out.status.code(), Some(1), "{how}");
        assert!(out.stdout.is_empty(), "{how}");
    }
}

#[test]
fn turning_the_flag_off_after_restore_makes_take_hand_out_nothing() {
    let env = Env::new();
    let l = reasons(&env, true);
    env.restore(&l);
    let telemetry = fs::read(env.telemetry()).expect("telemetry");
    let off = env.with("AGENT_RESUME", "0");
    let out = off.take(&pane(RESUMES), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        off.count("armed"),
        2,
        "take with the flag off touches nothing"
    );
    assert_eq!(fs::read(off.telemetry()).expect("telemetry"), telemetry);
}

#[test]
fn with_the_flag_on_and_no_database_restore_creates_nothing() {
    let env = Env::new();
    env.enable();
    let d = env.work("a");
    let l = env.write_layout(
        "empty",
        &layout(
            true,
            vec![window(true, Some(1), vec![pane_spec(1, Some(&d))])],
        ),
    );
    let before = tree(env.root());
    env.restore(&l);
    let plan = env.plan(&l);
    assert_eq!(verdict(&plan[&pane(1)]), ("skip", Some("no_recording")));
    assert_eq!(env.take(&pane(1), &[]).status.code(), Some(1));
    assert_eq!(tree(env.root()), before);
}

// -------------------------------------------------------------- explain ----

fn explain(env: &Env, l: &Path, n: u8) -> String {
    env.ok(&[
        OsStr::new("explain"),
        OsStr::new("--pane"),
        OsStr::new(&pane(n)),
        OsStr::new("--now"),
        OsStr::new(NOW),
        OsStr::new("--layout"),
        l.as_os_str(),
    ])
}

/// The `✓` and `✗` sentences of an `explain` output.
fn marks(out: &str) -> (Vec<&str>, Vec<&str>) {
    let passed = out.lines().filter_map(|l| l.strip_prefix("  ✓ ")).collect();
    let failed = out.lines().filter_map(|l| l.strip_prefix("  ✗ ")).collect();
    (passed, failed)
}

/// The `passed()` sentences of every gate before `stop` (all of them for
/// `None`), in gate order.
fn passed_before(stop: Option<Reason>) -> Vec<&'static str> {
    Reason::GATES
        .iter()
        .take_while(|g| Some(**g) != stop)
        .map(|g| g.passed())
        .collect()
}

#[test]
fn explain_lists_the_gates_passed_and_names_the_one_that_stopped_the_pane() {
    let env = Env::new();
    let l = reasons(&env, true);
    let out = explain(&env, &l, DIR_MISMATCH);
    assert!(
        out.starts_with(&format!("pane {}\n", pane(DIR_MISMATCH))),
        "{out}"
    );
    let (passed, failed) = marks(&out);
    assert_eq!(
        passed,
        passed_before(Some(Reason::DirectoryMismatch)),
        "{out}"
    );
    assert_eq!(
        passed[..11],
        [
            "the feature flag is on",
            "this is the start-up restore pass",
            "an agent was recorded in this pane",
            "the recording reads back cleanly",
            "the agent resumes a conversation by its id",
            "the agent is verified for resume",
            "the session id matches the agent's id shape",
            "the pane is not a shared-session viewer",
            "the pane's shell is bash, zsh, fish or sh",
            "the host restored a local directory",
            "the recorded directory exists",
        ]
    );
    assert_eq!(failed, ["the pane's directory is not the recorded one"]);
    assert!(
        out.ends_with("→ comes back as a plain shell (directory_mismatch)\n"),
        "{out}"
    );

    // Each skipping pane stops at its own gate, after every gate before it.
    for (n, reason) in [
        (NO_RECORDING, Reason::NoRecording),
        (UNREADABLE, Reason::RecordingUnreadable),
        (CURSOR, Reason::AgentNotVerified),
        (SHARED, Reason::SharedViewer),
        (NOT_LOCAL, Reason::NotLocal),
        (DIR_GONE, Reason::DirectoryGone),
        (LOSES_CLAIM, Reason::DuplicateClaimLost),
    ] {
        let out = explain(&env, &l, n);
        let (passed, failed) = marks(&out);
        assert_eq!(passed, passed_before(Some(reason)), "{reason:?}:\n{out}");
        assert_eq!(failed, [reason.describe()], "{reason:?}:\n{out}");
        assert!(
            out.ends_with(&format!(
                "→ comes back as a plain shell ({})\n",
                reason.as_str()
            )),
            "{out}"
        );
    }
}

#[test]
fn explain_for_a_resumable_pane_passes_every_gate_and_shows_the_command() {
    let env = Env::new();
    let l = reasons(&env, true);
    let out = explain(&env, &l, RESUMES);
    let (passed, failed) = marks(&out);
    assert_eq!(passed, passed_before(None), "{out}");
    assert!(failed.is_empty() && !out.contains('✗'), "{out}");
    assert_eq!(
        passed.last().copied(),
        Some("no better-placed pane claims the same conversation")
    );
    assert!(
        out.ends_with(&format!(
            "→ resumes without posture flags:\n  claude --model opus --resume {}\n",
            sid(RESUMES)
        )),
        "{out}"
    );

    // With the flag off, the first gate stops every pane.
    env.ok(&["disable"]);
    let out = explain(&env, &l, RESUMES);
    assert_eq!(
        marks(&out),
        (vec![], vec!["the feature flag is off"]),
        "{out}"
    );
}

#[test]
fn explain_of_a_pane_not_in_the_layout_is_an_error() {
    let env = Env::new();
    let l = reasons(&env, true);
    let out = env.run(&[
        OsStr::new("explain"),
        OsStr::new("--pane"),
        OsStr::new(&pane(OUTSIDE)),
        OsStr::new("--layout"),
        l.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("not in the layout"));
}

// ---------------------------------------------------------------- stats ----

#[test]
fn stats_counts_outcomes_shows_every_age_band_and_skips_garbage_lines() {
    let env = Env::new();
    let l = reasons(&env, true);
    env.restore(&l);
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(env.telemetry())
        .expect("telemetry");
    std::io::Write::write_all(&mut f, b"not json\n{\"agent\":\"claude\"}\n\xff\xfe\n")
        .expect("appends");
    drop(f);

    let out = env.ok(&["stats"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("7 event(s) in ") && lines[0].ends_with("telemetry.jsonl"),
        "{out}"
    );
    assert!(out.contains("(3 unreadable line(s) skipped)"), "{out}");
    let count = |name: &str| -> Option<usize> {
        lines.iter().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(name))
                .then(|| w.next().and_then(|n| n.parse().ok()))
                .flatten()
        })
    };
    for outcome in [
        "duplicate_claim_lost",
        "directory_gone",
        "directory_mismatch",
        "not_local",
        "shared_viewer",
        "agent_not_verified",
        "recording_unreadable",
    ] {
        assert_eq!(count(outcome), Some(1), "{outcome}:\n{out}");
    }
    assert_eq!(count("resumed"), None, "no resume taken yet:\n{out}");
    assert!(out.contains("\n  resumed with posture        0\n"), "{out}");
    for band in AgeBand::VARIANTS {
        let want = match band {
            AgeBand::Le1h => 6,
            AgeBand::Unknown => 1,
            _ => 0,
        };
        assert_eq!(count(band.as_str()), Some(want), "{band:?}:\n{out}");
    }
}

#[test]
fn stats_without_a_telemetry_file_reports_none_and_creates_nothing() {
    let env = Env::new();
    let out = env.ok(&["stats"]);
    assert!(out.starts_with("0 event(s) in "), "{out}");
    assert_eq!(tree(env.root()), Vec::<PathBuf>::new());
}

// ------------------------------------------------------------- tampering ----

#[test]
fn a_tampered_armed_argv_is_refused_and_never_printed() {
    for argv in [
        r#"["sh","-c","id"]"#,
        r#"["claude","--resume","5e55ff00-1d00-4000-8000-00000000ff00"]"#,
        r#"["claude","--model","opus;id","--resume","SID"]"#,
        "not json",
    ] {
        let env = Env::new();
        let l = reasons(&env, true);
        env.restore(&l);
        let argv = argv.replace("SID", &sid(RESUMES));
        env.sql()
            .execute(
                "UPDATE armed SET argv = ?1 WHERE pane = ?2",
                [&argv, &pane(RESUMES)],
            )
            .expect("tampers");
        let out = env.take(&pane(RESUMES), &[]);
        assert_eq!(out.status.code(), Some(1), "{argv}");
        assert!(out.stdout.is_empty(), "{argv}: {}", text(&out.stdout));
        let err = text(&out.stderr);
        assert!(
            !err.contains("-c") && !err.contains("opus;id") && !err.contains("ff00"),
            "{err}"
        );
        assert_eq!(env.count("armed"), 1, "{argv}: consumed");
    }
}

#[test]
fn the_store_keeps_no_armed_line_and_take_renders_it_from_the_argv() {
    // docs/security.md §11: no quoted line is stored, so none can be
    // tampered with or handed back; take renders the line from the stored
    // argv (which must rebuild to itself).
    let env = Env::new();
    let l = reasons(&env, true);
    let plan = env.plan(&l);
    env.restore(&l);
    let columns: Vec<String> = env
        .sql()
        .prepare("SELECT name FROM pragma_table_info('armed')")
        .expect("prepares")
        .query_map([], |r| r.get(0))
        .expect("lists")
        .collect::<Result<_, _>>()
        .expect("names");
    assert!(!columns.iter().any(|c| c == "line"), "{columns:?}");
    assert!(columns.iter().any(|c| c == "argv"), "{columns:?}");
    let out = env.take(&pane(RESUMES), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!("{}\n", plan[&pane(RESUMES)]["line"].as_str().expect("line"))
    );
    assert_eq!(env.take(&pane(RESUMES), &[]).status.code(), Some(1));
}

// ------------------------------------------------------------- trust ----

#[test]
fn an_untrusted_database_resumes_nothing_and_warns() {
    for (what, make_untrusted) in [("file 0666", 0o666u32), ("directory 0777", 0o777u32)] {
        let env = Env::new();
        let l = reasons(&env, true);
        let target = if make_untrusted == 0o666 {
            env.db()
        } else {
            env.db().parent().expect("dir").to_path_buf()
        };
        fs::set_permissions(&target, fs::Permissions::from_mode(make_untrusted)).expect("chmod");

        let out = env.plan_output(&l);
        assert!(out.status.success(), "{what}");
        let err = text(&out.stderr);
        assert!(err.contains("not trusted"), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        for row in rows(&out.stdout).values() {
            assert_eq!(row["verdict"], "skip", "{what}: {row}");
            assert_eq!(row["reason"], "no_recording", "{what}: {row}");
        }

        let out = env.restore(&l);
        assert!(text(&out.stderr).contains("not trusted"), "{what}");
        assert_eq!(env.count("armed"), 0, "{what}");
        assert_eq!(env.count("agent_sessions"), 10, "{what}: no sweep");
        assert!(
            !env.telemetry().exists(),
            "{what}: no recordings, no events"
        );
        assert_eq!(env.take(&pane(RESUMES), &[]).status.code(), Some(1));
    }
}

#[test]
fn an_armed_line_in_a_database_that_became_untrusted_is_not_taken() {
    let env = Env::new();
    let l = reasons(&env, true);
    env.restore(&l);
    fs::set_permissions(env.db(), fs::Permissions::from_mode(0o666)).expect("chmod");
    let out = env.take(&pane(RESUMES), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("nothing taken"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(env.count("armed"), 2, "nothing consumed");
}

#[test]
fn restore_of_a_non_startup_pass_arms_nothing_and_reports_not_startup_pass() {
    let env = Env::new();
    let l = reasons(&env, false);
    env.restore(&l);
    assert_eq!(env.count("armed"), 0);
    let events = env.events();
    assert_eq!(events.len(), 9, "every pane with a recording: {events:?}");
    for e in &events {
        assert_eq!(e["outcome"], "not_startup_pass", "{e}");
    }
}

#[test]
fn plan_does_not_migrate_or_rewrite_a_database_from_an_older_version() {
    let env = Env::new();
    env.enable();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/store/tests/fixtures/v1.sqlite3");
    let dir = env.db().parent().expect("dir").to_path_buf();
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .expect("mkdir");
    fs::copy(&fixture, env.db()).expect("copies the v1 fixture");
    fs::set_permissions(env.db(), fs::Permissions::from_mode(0o600)).expect("chmod");
    let bytes = fs::read(env.db()).expect("db");
    let d = env.work("a");
    let l = env.write_layout(
        "old",
        &layout(
            true,
            vec![window(true, Some(1), vec![pane_spec(1, Some(&d))])],
        ),
    );
    env.plan(&l);
    let version: i64 = env
        .sql()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("reads");
    assert_eq!(version, 1, "a dry run leaves the schema version alone");
    assert_eq!(fs::read(env.db()).expect("db"), bytes, "file bytes");
}

#[test]
fn plan_reads_the_layout_from_stdin() {
    let env = Env::new();
    let l = reasons(&env, true);
    let from_file = env.plan(&l);
    let mut child = env
        .command(&["plan", "--json", "--now", NOW, "--layout", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let body = fs::read(&l).expect("layout");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &body).expect("writes");
    let out = child.wait_with_output().expect("waits");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(rows(&out.stdout), from_file);
}

#[test]
fn a_layout_with_an_unknown_key_is_refused_before_anything_is_touched() {
    let env = Env::new();
    let l = reasons(&env, true);
    let mut bad: Value = serde_json::from_slice(&fs::read(&l).expect("layout")).expect("json");
    bad["windows"][0]["tabs"][0]["panes"][0]["resume"] = json!(true);
    let bad = env.write_layout("bad", &bad);
    let bytes = fs::read(env.db()).expect("db");
    for cmd in ["plan", "restore"] {
        let out = env.run(&[OsStr::new(cmd), OsStr::new("--layout"), bad.as_os_str()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(out.stdout.is_empty(), "{cmd}");
        assert!(
            text(&out.stderr).contains("layout"),
            "{cmd}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(fs::read(env.db()).expect("db"), bytes);
    assert_eq!(env.count("agent_sessions"), 10, "no sweep");
    assert!(!env.telemetry().exists());
}

#[test]
fn a_pane_the_layout_says_is_busy_is_skipped_by_the_plan_and_hands_its_claim_on() {
    let env = Env::new();
    let l = reasons(&env, true);
    // The host already knows the user typed into the resumable pane, and that
    // it queued a command in the second one.
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&l).unwrap()).unwrap();
    for w in doc["windows"].as_array_mut().unwrap() {
        for t in w["tabs"].as_array_mut().unwrap() {
            for p in t["panes"].as_array_mut().unwrap() {
                if p["id"] == json!(pane(RESUMES)) {
                    p["has_input"] = json!(true);
                }
                if p["id"] == json!(pane(SECOND)) {
                    p["queued_command"] = json!(true);
                }
            }
        }
    }
    fs::write(&l, serde_json::to_vec(&doc).unwrap()).unwrap();
    // The plan decides it, as the restore does: the busy pane cannot resume,
    // so it takes no id from the pane that claims the same conversation.
    let plan = env.plan(&l);
    assert_eq!(
        verdict(&plan[&pane(RESUMES)]),
        ("skip", Some("pane_has_input"))
    );
    assert_eq!(
        verdict(&plan[&pane(SECOND)]),
        ("skip", Some("queued_command"))
    );
    assert_eq!(verdict(&plan[&pane(LOSES_CLAIM)]), ("resume", None));
    assert!(env.restore(&l).status.success());
    assert_eq!(env.count("armed"), 1, "only the other claimant is armed");
    assert_eq!(env.take(&pane(RESUMES), &[]).status.code(), Some(1));
    assert_eq!(env.take(&pane(SECOND), &[]).status.code(), Some(1));
    assert_eq!(env.take(&pane(LOSES_CLAIM), &[]).status.code(), Some(0));
    let outcomes: Vec<String> = env
        .events()
        .iter()
        .map(|e| e["outcome"].as_str().unwrap().to_owned())
        .filter(|o| o.contains('_') && o != "duplicate_claim_lost")
        .collect();
    assert!(
        outcomes.contains(&"pane_has_input".to_owned()),
        "{outcomes:?}"
    );
    assert!(
        outcomes.contains(&"queued_command".to_owned()),
        "{outcomes:?}"
    );
}

// ------------------------------------------------- trust, all the ways ----

/// `nobody`'s uid and gid: a file handed to it belongs to another user.
const NOBODY: u32 = 65534;

/// Rows of `table`, read from the main file only (SQLite's `immutable`): a
/// planted `-wal` beside it is neither replayed nor removed by counting.
fn count_main_file(db: &Path, table: &str) -> i64 {
    let uri = format!("file:{}?immutable=1", db.display());
    rusqlite::Connection::open_with_flags(
        uri,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .expect("opens the main file")
    .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
    .expect("counts")
}

/// A sidecar file (`-wal`, `-shm`) beside `db`, empty, with this owner and
/// mode: SQLite reads an empty `-wal` as no WAL, so only the trust check
/// can tell it apart.
fn plant_sidecar(db: &Path, suffix: &str, owner: Option<u32>, mode: u32) {
    let mut p = db.as_os_str().to_owned();
    p.push(suffix);
    fs::write(&p, b"").expect("plants");
    fs::set_permissions(&p, fs::Permissions::from_mode(mode)).expect("chmod");
    if let Some(uid) = owner {
        std::os::unix::fs::chown(&p, Some(uid), Some(uid)).expect("chown (tests run as root)");
    }
}

/// Each way a database is not trusted, applied to `env`'s database after
/// it was written: `(what, how)`.
#[allow(clippy::type_complexity)]
fn untrusted_ways() -> Vec<(&'static str, fn(&Env))> {
    vec![
        ("file owned by another user", |env| {
            std::os::unix::fs::chown(env.db(), Some(NOBODY), Some(NOBODY))
                .expect("chown (tests run as root)");
        }),
        ("file group-writable", |env| {
            fs::set_permissions(env.db(), fs::Permissions::from_mode(0o660)).expect("chmod");
        }),
        ("directory group-writable", |env| {
            let dir = env.db().parent().expect("dir").to_path_buf();
            fs::set_permissions(dir, fs::Permissions::from_mode(0o770)).expect("chmod");
        }),
        (
            "database name a symlink into a world-writable directory",
            |env| {
                let open = env.root().join("world-writable");
                fs::create_dir(&open).expect("mkdir");
                fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).expect("chmod");
                let real = open.join("recordings.sqlite3");
                fs::rename(env.db(), &real).expect("moves the database");
                std::os::unix::fs::symlink(&real, env.db()).expect("symlink");
            },
        ),
        ("-wal owned by another user", |env| {
            plant_sidecar(&env.db(), "-wal", Some(NOBODY), 0o600);
        }),
        ("-wal group-writable", |env| {
            plant_sidecar(&env.db(), "-wal", None, 0o660);
        }),
        ("-shm owned by another user", |env| {
            plant_sidecar(&env.db(), "-shm", Some(NOBODY), 0o600);
        }),
        ("a directory above writable by others", |env| {
            fs::set_permissions(env.root(), fs::Permissions::from_mode(0o777)).expect("chmod");
        }),
    ]
}

#[test]
fn an_untrusted_database_plans_arms_and_hands_out_nothing_whichever_way_it_is_untrusted() {
    // Every way is checked, and every way that fails is named.
    let failed: Vec<&str> = untrusted_ways()
        .into_iter()
        .filter(|(what, how)| {
            std::panic::catch_unwind(|| untrusted_way_hands_out_nothing(what, *how)).is_err()
        })
        .map(|(what, _)| what)
        .collect();
    assert!(failed.is_empty(), "trusted wrongly: {failed:?}");
}

fn untrusted_way_hands_out_nothing(what: &str, make_untrusted: fn(&Env)) {
    {
        let env = Env::new();
        let l = reasons(&env, true);
        // Armed while trusted: two lines wait for their panes.
        env.restore(&l);
        let events = env.events().len();
        let recordings = env.count("agent_sessions");
        make_untrusted(&env);

        let out = env.plan_output(&l);
        assert!(out.status.success(), "{what}");
        let err = text(&out.stderr);
        assert!(err.contains("not trusted"), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: said once: {err}");
        for row in rows(&out.stdout).values() {
            assert_eq!(row["verdict"], "skip", "{what}: {row}");
        }

        let out = env.restore(&l);
        assert!(text(&out.stderr).contains("not trusted"), "{what}");
        assert_eq!(env.events().len(), events, "{what}: nothing reported");

        for n in [RESUMES, SECOND] {
            let out = env.take(&pane(n), &[]);
            assert_eq!(out.status.code(), Some(1), "{what}");
            assert!(out.stdout.is_empty(), "{what}: {}", text(&out.stdout));
            assert!(text(&out.stderr).contains("not trusted"), "{what}");
        }
        assert_eq!(env.events().len(), events, "{what}: nothing taken");
        let db = fs::canonicalize(env.db()).expect("the real file");
        assert_eq!(count_main_file(&db, "armed"), 2, "{what}: nothing consumed");
        assert_eq!(
            count_main_file(&db, "agent_sessions"),
            recordings,
            "{what}: no sweep"
        );
    }
}

#[test]
fn a_planted_wal_image_is_never_replayed_into_the_database() {
    // Another user who could write beside the database plants a WAL image
    // holding an armed row for a pane. SQLite would replay it on open and,
    // on close, merge it into the file; the trust check comes first, so the
    // file is only ever read without it and nothing is handed out.
    let env = Env::new();
    let l = reasons(&env, true);
    let clean = env.root().join("clean.sqlite3");
    fs::copy(env.db(), &clean).expect("copies the unarmed file");
    let wal_image = {
        // Arm through a connection that keeps the WAL (no checkpoint), copy
        // the WAL aside, and put the unarmed main file back.
        let c = env.sql();
        c.pragma_update(None, "wal_autocheckpoint", 0)
            .expect("pragma");
        // A read first: an open WAL connection keeps the restoring process
        // from checkpointing and removing the WAL when it closes.
        c.query_row("SELECT count(*) FROM armed", [], |r| r.get::<_, i64>(0))
            .expect("reads");
        env.restore(&l);
        c.query_row("SELECT count(*) FROM armed", [], |r| r.get::<_, i64>(0))
            .expect("reads through the WAL");
        let mut wal = env.db().into_os_string();
        wal.push("-wal");
        let image = fs::read(&wal).expect("the WAL holds the armed rows");
        std::mem::forget(c); // never closed: no checkpoint into the file
        image
    };
    assert!(!wal_image.is_empty());
    let planted = Env::new();
    let l2 = reasons(&planted, true);
    fs::copy(&clean, planted.db()).expect("the unarmed file");
    let mut wal = planted.db().into_os_string();
    wal.push("-wal");
    fs::write(&wal, &wal_image).expect("plants the WAL");
    std::os::unix::fs::chown(&wal, Some(NOBODY), Some(NOBODY)).expect("chown");
    let before = fs::read(planted.db()).expect("db");

    let out = planted.take(&pane(RESUMES), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let plan = planted.plan_output(&l2);
    for row in rows(&plan.stdout).values() {
        assert_eq!(row["verdict"], "skip", "{row}");
    }
    planted.restore(&l2);
    assert_eq!(
        fs::read(planted.db()).expect("db"),
        before,
        "file untouched"
    );
    assert_eq!(fs::read(&wal).expect("wal"), wal_image, "WAL untouched");
    assert_eq!(count_main_file(&planted.db(), "armed"), 0);
}

// -------------------------------------------------- take re-checks time ----

/// Records panes 1–3 (claude with posture flags) observed at the given
/// times, writes a layout of them, restores at [`NOW`]; the plan's rows.
fn armed_at_now(env: &Env, observed: [&str; 3]) -> BTreeMap<String, Value> {
    env.enable();
    let inv = "claude --model opus --dangerously-skip-permissions";
    let mut panes = Vec::new();
    for (i, at) in observed.iter().enumerate() {
        let n = u8::try_from(i + 1).expect("small");
        let d = env.work(&format!("t{n}"));
        env.record(&pane(n), "claude", &sid(n), &d, at, inv);
        panes.push(pane_spec(n, Some(&d)));
    }
    let l = env.write_layout("take-time", &layout(true, vec![window(true, None, panes)]));
    let plan = env.plan(&l);
    env.restore(&l);
    assert_eq!(env.count("armed"), 3);
    plan
}

fn take_at(env: &Env, n: u8, at: &str) -> Output {
    env.run(&["take", "--now", at, "--pane", &pane(n), "--shell", "bash"])
}

#[test]
fn take_decides_posture_from_the_recordings_age_at_the_moment_of_taking() {
    let env = Env::new();
    // Pane 1: 11 h 58 min old at restore, so armed with its posture flag,
    // and past the 12 h window five minutes later when its shell takes it.
    // Pane 2: an hour old, fresh at both times. Pane 3: dated in the future.
    let plan = armed_at_now(
        &env,
        [
            "2026-11-30T00:02:00Z",
            "2026-11-30T11:00:00Z",
            "2026-11-30T12:30:00Z",
        ],
    );
    assert_eq!(plan[&pane(1)]["posture_carried"], true);
    assert_eq!(plan[&pane(2)]["posture_carried"], true);
    assert_eq!(plan[&pane(3)]["posture_carried"], false);
    let later = "2026-11-30T12:05:00Z";
    let mut taken = BTreeMap::new();
    for n in 1..=3 {
        let out = take_at(&env, n, later);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let carried = env.events().pop().expect("an event per take")["posture_carried"].clone();
        taken.insert(n, (text(&out.stdout), carried));
    }
    let (line, carried) = &taken[&1];
    assert!(!line.contains("--dangerously-skip-permissions"), "{line}");
    assert!(
        line.contains("'--model' 'opus'") && line.contains(&sid(1)),
        "{line}"
    );
    assert_eq!(*carried, false, "telemetry: posture dropped at take");
    let (line, carried) = &taken[&2];
    assert!(line.contains("--dangerously-skip-permissions"), "{line}");
    assert_eq!(*carried, true);
    let (line, carried) = &taken[&3];
    assert!(!line.contains("--dangerously-skip-permissions"), "{line}");
    assert_eq!(*carried, false);
}

#[test]
fn an_armed_line_past_its_expiry_is_dropped_not_taken_and_reported_as_armed_expired() {
    let env = Env::new();
    armed_at_now(
        &env,
        [
            "2026-11-30T11:00:00Z",
            "2026-11-30T11:00:00Z",
            "2026-11-30T11:00:00Z",
        ],
    );
    // Ten minutes is the default: on the edge it is taken, past it dropped.
    let out = take_at(&env, 1, "2026-11-30T12:10:00Z");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = take_at(&env, 2, "2026-11-30T12:10:01Z");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("dropped"),
        "{}",
        text(&out.stderr)
    );
    let last = env.events().pop().expect("an event");
    assert_eq!(last["outcome"], "armed_expired", "{last}");
    assert_eq!(last["posture_carried"], false, "{last}");
    assert_eq!(env.count("armed"), 1, "the expired line was consumed");
    assert_eq!(
        take_at(&env, 2, "2026-11-30T12:10:01Z").status.code(),
        Some(1),
        "and never fires later"
    );
    // Armed "in the future" (the clock went back, or a planted row): dropped.
    let out = take_at(&env, 3, "2026-11-30T11:59:00Z");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        env.events().pop().expect("an event")["outcome"],
        "armed_expired"
    );
}

#[test]
fn the_armed_expiry_is_set_by_the_environment_then_the_config_file() {
    let at = "2026-11-30T12:20:00Z";
    // The config file says 30 minutes: a 20-minute-old line is taken.
    let env = Env::new();
    armed_at_now(&env, ["2026-11-30T11:00:00Z"; 3]);
    let mut config = fs::read_to_string(env.config()).expect("config");
    config.push_str("armed_expiry_minutes = 30\n");
    fs::write(env.config(), config).expect("writes");
    assert_eq!(take_at(&env, 1, at).status.code(), Some(0));
    // The environment beats it.
    let short = Env::new().with("AGENT_RESUME_ARMED_EXPIRY_MINUTES", "15");
    armed_at_now(&short, ["2026-11-30T11:00:00Z"; 3]);
    let mut config = fs::read_to_string(short.config()).expect("config");
    config.push_str("armed_expiry_minutes = 30\n");
    fs::write(short.config(), config).expect("writes");
    assert_eq!(take_at(&short, 1, at).status.code(), Some(1));
    assert_eq!(
        take_at(&short, 2, "2026-11-30T12:15:00Z").status.code(),
        Some(0)
    );
}
