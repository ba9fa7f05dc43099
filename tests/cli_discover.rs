//! Discovery end to end, run as the built binary on fixture session stores
//! generated in a temporary home: `sessions`, `resume`, `continue`,
//! `headless`, and the `session_missing` / `already_running` reasons
//! through `plan` and `restore`.

#![allow(clippy::unwrap_used)]

#[path = "../crates/discover/tests/fixtures/mod.rs"]
mod fixtures;

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use agent_resume_test_support::{text, texts, PrivateEnv};
use fixtures::*;
use serde_json::{json, Value};

const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const NOW: &str = "2026-11-30T12:00:00Z";

/// A private world; `PATH` starts with its own `bin` (the stand-in agents).
struct Env(PrivateEnv);

impl Env {
    fn new() -> Env {
        Env(PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume")).with_own_bin())
    }
    fn root(&self) -> &Path {
        self.0.root()
    }
    fn home(&self) -> PathBuf {
        self.0.home()
    }
    fn work(&self, name: &str) -> PathBuf {
        self.0.work(name)
    }
    fn with(self, k: &str, v: &str) -> Env {
        Env(self.0.with(k, v))
    }
    fn telemetry(&self) -> PathBuf {
        self.0.telemetry()
    }
    /// Runs in `cwd` with a private environment.
    fn run_in<S: AsRef<OsStr>>(&self, cwd: &Path, args: &[S]) -> Output {
        self.0.command(args).current_dir(cwd).output()
    }
    fn ok_in<S: AsRef<OsStr>>(&self, cwd: &Path, args: &[S]) -> (String, String) {
        texts(&self.0.command(args).current_dir(cwd).ok())
    }
    /// XDG_DATA_HOME is moved into the temp dir: OpenCode's db follows it.
    fn opencode_into_xdg(&self) {
        let from = self.home().join(".local/share/opencode");
        if from.exists() {
            let to = self.root().join("xdg-data/opencode");
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::rename(from, to).unwrap();
        }
    }
    fn every_agent(&self, cwd: &Path) {
        every_agent(&self.home(), cwd);
        self.opencode_into_xdg();
    }
    fn json_in(&self, cwd: &Path, args: &[&str]) -> Vec<Value> {
        let (o, _) = self.ok_in(cwd, args);
        serde_json::from_str::<Value>(&o)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }
    /// A stand-in agent program on PATH that writes its directory and argv.
    fn fake_agent(&self, name: &str) -> PathBuf {
        let bin = self.root().join("bin");
        fs::create_dir_all(&bin).unwrap();
        let out = self.root().join(format!("{name}.ran"));
        let p = bin.join(name);
        fs::write(
            &p,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$PWD\" \"$@\" > '{}'\n",
                out.display()
            ),
        )
        .unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        out
    }
    fn record(&self, session: &str, cwd: &Path, inv: &str) {
        self.record_at(session, cwd, inv, "2026-11-30T11:59:00Z");
    }
    fn record_at(&self, session: &str, cwd: &Path, inv: &str, at: &str) {
        let out = self.run_in(
            self.root(),
            &[
                OsStr::new("record"),
                OsStr::new("--pane"),
                OsStr::new(PANE),
                OsStr::new("--agent"),
                OsStr::new("claude"),
                OsStr::new("--session-id"),
                OsStr::new(session),
                OsStr::new("--cwd"),
                cwd.as_os_str(),
                OsStr::new("--observed-at"),
                OsStr::new(at),
                OsStr::new("--invocation"),
                OsStr::new(inv),
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    fn layout(&self, cwd: &Path) -> PathBuf {
        let p = self.root().join("layout.json");
        let l = json!({"startup": true, "windows": [{"landing": true, "visible": true, "active_tab": 0,
            "tabs": [{"focused_pane": PANE, "panes": [{"id": PANE, "cwd": cwd, "shell": "zsh"}]}]}]});
        fs::write(&p, serde_json::to_vec(&l).unwrap()).unwrap();
        p
    }
    fn plan_reason(&self, cwd: &Path) -> Value {
        let layout = self.layout(cwd);
        let rows = self.json_in(
            self.root(),
            &[
                "plan",
                "--json",
                "--now",
                NOW,
                "--layout",
                layout.to_str().unwrap(),
            ],
        );
        rows[0]["reason"].clone()
    }
}

fn table_ids(out: &str) -> Vec<String> {
    out.lines()
        .skip(1)
        .map(|l| l.split_whitespace().last().unwrap().to_owned())
        .collect()
}

#[test]
fn sessions_lists_every_agent_here_newest_first_as_a_table() {
    let env = Env::new();
    let shop = env.work("shop");
    env.every_agent(&shop);
    let (o, e) = env.ok_in(&shop, &["sessions"]);
    assert_eq!(e, "");
    let header = o.lines().next().unwrap();
    for col in ["agent", "age", "title", "cwd", "id"] {
        assert!(header.contains(col), "{header}");
    }
    let mut want: Vec<String> = ALL.iter().map(|(_, id)| (*id).to_owned()).collect();
    want.reverse();
    assert_eq!(table_ids(&o), want);
    assert!(o.contains("fix the flaky login test"), "{o}");
    assert!(o.contains("Log triage"), "{o}");
}

#[test]
fn sessions_json_has_exactly_the_documented_keys_and_rfc3339_times() {
    let env = Env::new();
    let shop = env.work("shop");
    env.every_agent(&shop);
    let rows = env.json_in(&shop, &["sessions", "--json", "--all"]);
    assert_eq!(rows.len(), ALL.len());
    for r in &rows {
        let keys: BTreeSet<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            BTreeSet::from(["agent", "cwd", "id", "modified", "title"])
        );
        assert_eq!(r["cwd"], json!(shop));
        let m = r["modified"].as_str().unwrap();
        time::OffsetDateTime::parse(m, &time::format_description::well_known::Rfc3339)
            .unwrap_or_else(|_| panic!("{m} is not RFC 3339"));
    }
    assert_eq!(rows[0]["agent"], "opencode");
    assert_eq!(rows[0]["title"], "OpenCode fixture");
    assert_eq!(rows.last().unwrap()["id"], CLAUDE);
}

#[test]
fn sessions_defaults_to_this_directory_and_all_or_cwd_widen_it() {
    let env = Env::new();
    let a = env.work("a");
    let b = env.work("b");
    claude(&env.home(), &a, CLAUDE, "in a", NOW_MS, 0);
    codex(&env.home(), &b, CODEX, "in b", NOW_MS, false);
    assert_eq!(table_ids(&env.ok_in(&a, &["sessions"]).0), [CLAUDE]);
    assert_eq!(table_ids(&env.ok_in(&b, &["sessions"]).0), [CODEX]);
    assert_eq!(
        table_ids(&env.ok_in(&a, &["sessions", "--cwd", b.to_str().unwrap()]).0),
        [CODEX]
    );
    assert_eq!(table_ids(&env.ok_in(&a, &["sessions", "--all"]).0).len(), 2);
    let elsewhere = env.work("c");
    assert_eq!(table_ids(&env.ok_in(&elsewhere, &["sessions"]).0).len(), 0);
}

#[test]
fn sessions_query_filters_fuzzily_and_agent_narrows() {
    let env = Env::new();
    let shop = env.work("shop");
    env.every_agent(&shop);
    assert_eq!(
        table_ids(&env.ok_in(&shop, &["sessions", "flaky login"]).0),
        [CLAUDE]
    );
    assert_eq!(
        table_ids(&env.ok_in(&shop, &["sessions", "prsr rust"]).0),
        [CODEX]
    );
    assert_eq!(
        table_ids(&env.ok_in(&shop, &["sessions", "--agent", "pi"]).0),
        [PI]
    );
    assert_eq!(
        table_ids(&env.ok_in(&shop, &["sessions", "zzzz"]).0).len(),
        0
    );
    let out = env.run_in(&shop, &["sessions", "--agent", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn sessions_skips_broken_files_with_a_count_and_verbose_names_them() {
    let env = Env::new();
    let shop = env.work("shop");
    claude(&env.home(), &shop, CLAUDE, "good", NOW_MS, 0);
    let dir = env.home().join(".claude/projects").join(slug(&shop));
    fs::write(
        dir.join("0f6066eb-140e-4519-ab63-b9cde0b60b57.jsonl"),
        b"{\"cwd\":\"/x",
    )
    .unwrap();
    let (o, e) = env.ok_in(&shop, &["sessions"]);
    assert_eq!(table_ids(&o), [CLAUDE]);
    assert!(e.contains("skipped 1"), "{e}");
    let (_, e) = env.ok_in(&shop, &["sessions", "--verbose"]);
    assert!(e.contains("half_written") && e.contains("0f6066eb"), "{e}");
}

#[test]
fn resume_print_resolves_a_prefix_across_agents() {
    let env = Env::new();
    let shop = env.work("shop");
    env.every_agent(&shop);
    let (o, e) = env.ok_in(&shop, &["resume", "f6066", "--print"]);
    assert_eq!(
        o,
        format!("AGENT_RESUME_LINE=1 'claude' '--resume' '{CLAUDE}'\n")
    );
    assert_eq!(e, "");
    let (o, _) = env.ok_in(&shop, &["resume", "ses_0b5c", "--print"]);
    assert_eq!(
        o,
        format!("AGENT_RESUME_LINE=1 'opencode' '--session' '{OPENCODE}'\n")
    );
}

#[test]
fn resume_of_an_ambiguous_prefix_is_an_error_listing_every_candidate() {
    let env = Env::new();
    let shop = env.work("shop");
    let a = "5e55aa00-1d00-4000-8000-0000000aa000";
    let b = "5e55bb00-1d00-7000-8000-0000000bb000";
    claude(&env.home(), &shop, a, "one", NOW_MS, 0);
    codex(&env.home(), &shop, b, "two", NOW_MS, false);
    let out = env.run_in(&shop, &["resume", "5e55", "--print"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    let e = text(&out.stderr);
    assert!(
        e.contains(a) && e.contains(b) && e.contains("2 sessions"),
        "{e}"
    );
    let out = env.run_in(&shop, &["resume", "0000", "--print"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no session id starts with"));
}

#[test]
fn resume_of_a_session_from_another_directory_says_so_and_goes_there() {
    let env = Env::new();
    let shop = env.work("shop");
    let elsewhere = env.work("elsewhere");
    claude(&env.home(), &shop, CLAUDE, "x", NOW_MS, 0);
    let (o, e) = env.ok_in(&elsewhere, &["resume", CLAUDE, "--print"]);
    assert!(
        e.contains("this session is from") && e.contains("shop"),
        "{e}"
    );
    assert_eq!(
        o,
        format!(
            "cd '{}' && AGENT_RESUME_LINE=1 'claude' '--resume' '{CLAUDE}'\n",
            shop.display()
        )
    );
    // Without --print the agent runs, in the session's own directory.
    let ran = env.fake_agent("claude");
    let (_, e) = env.ok_in(&elsewhere, &["resume", "f606"]);
    assert!(e.contains("this session is from"), "{e}");
    let got = fs::read_to_string(ran).unwrap();
    assert_eq!(got, format!("{}\n--resume\n{CLAUDE}\n", shop.display()));
}

#[test]
fn resume_by_path_reads_that_session_file() {
    let env = Env::new();
    let shop = env.work("shop");
    let p = codex(&env.home(), &shop, CODEX, "zipped", NOW_MS, true);
    let (o, _) = env.ok_in(
        &shop,
        &[OsStr::new("resume"), p.as_os_str(), OsStr::new("--print")],
    );
    assert_eq!(
        o,
        format!("AGENT_RESUME_LINE=1 'codex' 'resume' '{CODEX}'\n")
    );
    let stray = env.work("x").join("notes.jsonl");
    fs::write(&stray, b"{}\n").unwrap();
    let out = env.run_in(&shop, &[OsStr::new("resume"), stray.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not inside a known agent session store"));
}

#[test]
fn continue_resumes_the_conversation_recorded_for_this_pane() {
    let env = Env::new().with("AGENT_RESUME_PANE", PANE);
    let shop = env.work("shop");
    env.every_agent(&shop);
    env.ok_in(env.root(), &["enable"]);
    env.record(CLAUDE, &shop, "claude --model opus");
    let (o, e) = env.ok_in(&shop, &["continue", "--print"]);
    assert!(
        e.contains("recorded for this pane") && e.contains(CLAUDE),
        "{e}"
    );
    assert_eq!(
        o,
        format!("AGENT_RESUME_LINE=1 'claude' '--model' 'opus' '--resume' '{CLAUDE}'\n")
    );
}

#[test]
fn continue_falls_back_to_the_newest_session_here_only_without_a_recording() {
    let env = Env::new().with("AGENT_RESUME_PANE", PANE);
    let shop = env.work("shop");
    env.every_agent(&shop);
    env.ok_in(env.root(), &["enable"]);
    let (o, e) = env.ok_in(&shop, &["continue", "--print"]);
    assert!(
        e.contains("no conversation is recorded for this pane"),
        "{e}"
    );
    assert!(e.contains(OPENCODE), "the newest here is OpenCode's: {e}");
    assert_eq!(
        o,
        format!("AGENT_RESUME_LINE=1 'opencode' '--session' '{OPENCODE}'\n")
    );
    let empty = env.work("empty");
    let out = env.run_in(&empty, &["continue", "--print"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn continue_refuses_a_pane_recording_from_another_directory_and_does_not_fall_back() {
    let env = Env::new().with("AGENT_RESUME_PANE", PANE);
    let shop = env.work("shop");
    let other = env.work("other");
    env.every_agent(&shop);
    env.ok_in(env.root(), &["enable"]);
    env.record(CLAUDE, &other, "claude");
    let out = env.run_in(&shop, &["continue", "--print"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout), "");
    assert!(
        text(&out.stderr).contains("not here"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn listings_and_messages_escape_bidi_overrides_in_directories() {
    let env = Env::new().with("AGENT_RESUME_PANE", PANE);
    // Displayed raw, this name reads as `shop-exe.txt` reversed after the
    // override: one directory shown as another.
    let odd = env.work("shop-\u{202e}txt.exe");
    let shop = env.work("shop");
    env.every_agent(&odd);
    env.ok_in(env.root(), &["enable"]);
    env.record(CLAUDE, &odd, "claude");
    let (listed, _) = env.ok_in(env.root(), &["sessions", "--all"]);
    assert!(listed.contains("shop-\\u{202e}txt.exe"), "{listed}");
    let out = env.run_in(&shop, &["continue", "--print"]);
    assert_eq!(out.status.code(), Some(3));
    let said = text(&out.stderr);
    assert!(said.contains("shop-\\u{202e}txt.exe"), "{said}");
    for shown in [&listed, &said] {
        assert!(!shown.contains('\u{202e}'), "raw override shown: {shown}");
    }
}

#[test]
fn headless_prints_the_declared_argv_as_json_and_refuses_the_rest() {
    let env = Env::new();
    let (o, _) = env.ok_in(
        env.root(),
        &[
            "headless",
            "--agent",
            "claude",
            "--session-id",
            CLAUDE,
            "--",
            "fix",
            "--the bug",
        ],
    );
    let argv: Vec<String> = serde_json::from_str(&o).unwrap();
    assert_eq!(
        argv,
        ["claude", "-p", "--resume", CLAUDE, "--", "fix --the bug"]
    );
    let (o, _) = env.ok_in(
        env.root(),
        &[
            "headless",
            "--agent",
            "codex",
            "--session-id",
            CODEX,
            "--",
            "go",
        ],
    );
    assert_eq!(
        serde_json::from_str::<Vec<String>>(&o).unwrap(),
        ["codex", "exec", "resume", CODEX, "go"]
    );
    for args in [
        [
            "headless",
            "--agent",
            "cursor",
            "--session-id",
            CLAUDE,
            "--",
            "hi",
        ],
        [
            "headless",
            "--agent",
            "claude",
            "--session-id",
            "$(id)",
            "--",
            "hi",
        ],
        [
            "headless",
            "--agent",
            "codex",
            "--session-id",
            CODEX,
            "--",
            "-",
        ],
    ] {
        let out = env.run_in(env.root(), &args);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        assert_eq!(text(&out.stdout), "");
        assert!(text(&out.stderr).contains("refused"));
    }
}

#[test]
fn plan_skips_a_pane_whose_session_is_gone_as_session_missing_and_keeps_the_recording() {
    let env = Env::new();
    let shop = env.work("shop");
    claude(&env.home(), &shop, CLAUDE, "still here", NOW_MS, 0);
    env.ok_in(env.root(), &["enable"]);
    let gone = "0f6066eb-140e-4519-ab63-b9cde0b60b57";
    env.record(gone, &shop, "claude");
    assert_eq!(env.plan_reason(&shop), "session_missing");
    let layout = env.layout(&shop);
    env.ok_in(
        env.root(),
        &[
            "restore",
            "--now",
            NOW,
            "--layout",
            layout.to_str().unwrap(),
        ],
    );
    let events = fs::read_to_string(env.telemetry()).unwrap();
    assert!(
        events.contains(r#""outcome":"session_missing""#),
        "{events}"
    );
    let (o, _) = env.ok_in(env.root(), &["recordings", "--json"]);
    assert!(o.contains(gone), "the recording is kept: {o}");
    // The session the store does hold resumes.
    env.record_at(CLAUDE, &shop, "claude", "2026-11-30T11:59:30Z");
    assert_eq!(env.plan_reason(&shop), Value::Null);
}

/// A process whose argv is `…/claude … --resume <id>`, killed on drop.
struct Live(Child);

impl Drop for Live {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn plan_skips_a_pane_whose_session_a_live_process_holds_as_already_running() {
    let env = Env::new();
    let shop = env.work("shop");
    let id = "5e55dd00-1d00-4000-8000-0000000dd000";
    claude(&env.home(), &shop, id, "busy", NOW_MS, 0);
    env.ok_in(env.root(), &["enable"]);
    env.record(id, &shop, "claude");
    assert_eq!(env.plan_reason(&shop), Value::Null, "nothing holds it yet");
    let prog = env.root().join("claude");
    symlink("/bin/sh", &prog).unwrap();
    // Waiting in the shell's own `read`: no forked child to outlive it.
    let live = Live(
        Command::new(&prog)
            .args(["-c", "read -r _", "claude", "--resume", id])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut reason = Value::Null;
    for _ in 0..100 {
        reason = env.plan_reason(&shop);
        if reason != Value::Null {
            break;
        }
    }
    assert_eq!(reason, "already_running");
    let layout = env.layout(&shop);
    env.ok_in(
        env.root(),
        &[
            "restore",
            "--now",
            NOW,
            "--layout",
            layout.to_str().unwrap(),
        ],
    );
    let events = fs::read_to_string(env.telemetry()).unwrap();
    assert!(
        events.contains(r#""outcome":"already_running""#),
        "{events}"
    );
    drop(live);
    assert_eq!(env.plan_reason(&shop), Value::Null);
}
