//! Correlation of a pane's spawn with the session its agent started, and
//! the live-process check, on fixture stores and real processes.
#![allow(clippy::unwrap_used)]

mod fixtures;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use agent_resume_core::{AgentKind, SessionProbe, UnixMillis};
use agent_resume_discover::correlate::WINDOW_MILLIS;
use agent_resume_discover::running::Running;
use agent_resume_discover::{correlate, list, Depth, Homes, Spawn, StoreProbe};
use fixtures::*;

/// A UUID v7 whose timestamp is `ms`.
fn v7(ms: i64, tail: &str) -> String {
    let h = format!("{ms:012x}");
    format!("{}-{}-7{}", &h[..8], &h[8..], tail)
}

fn spawn(cwd: &Path, agent: AgentKind, at: i64) -> Spawn<'_> {
    Spawn {
        agent,
        cwd,
        at: UnixMillis(at),
        window_millis: WINDOW_MILLIS,
    }
}

#[test]
fn one_session_started_in_the_window_and_directory_is_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("proj");
    let other = dir.path().join("other");
    claude(&home, &cwd, CLAUDE, "mine", NOW_MS + 4_000, 0);
    // Another directory and another agent at the same moment do not count.
    claude(
        &home,
        &other,
        "0f6066eb-140e-4519-ab63-b9cde0b60b57",
        "theirs",
        NOW_MS,
        0,
    );
    qwen(&home, &cwd, QWEN, "qwen", NOW_MS);
    let l = list(&Homes::under(&home), &[], Depth::FAST);
    let got = correlate(&l.sessions, &spawn(&cwd, AgentKind::Claude, NOW_MS));
    assert_eq!(got.map(|s| s.id.as_str()), Some(CLAUDE));
}

#[test]
fn two_sessions_in_the_window_are_no_answer_never_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("proj");
    claude(&home, &cwd, CLAUDE, "a", NOW_MS + 1_000, 0);
    claude(
        &home,
        &cwd,
        "0f6066eb-140e-4519-ab63-b9cde0b60b57",
        "b",
        NOW_MS + 2_000,
        0,
    );
    let l = list(&Homes::under(&home), &[], Depth::FAST);
    assert_eq!(l.sessions.len(), 2);
    assert!(correlate(&l.sessions, &spawn(&cwd, AgentKind::Claude, NOW_MS)).is_none());
}

#[test]
fn a_session_outside_the_window_is_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("proj");
    claude(&home, &cwd, CLAUDE, "late", NOW_MS + WINDOW_MILLIS + 1, 0);
    claude(
        &home,
        &cwd,
        "0f6066eb-140e-4519-ab63-b9cde0b60b57",
        "early",
        NOW_MS - WINDOW_MILLIS - 1,
        0,
    );
    let l = list(&Homes::under(&home), &[], Depth::FAST);
    assert!(correlate(&l.sessions, &spawn(&cwd, AgentKind::Claude, NOW_MS)).is_none());
    // The window's edges are inside it.
    assert!(correlate(&l.sessions, &spawn(&cwd, AgentKind::Claude, NOW_MS + 1)).is_some());
}

#[test]
fn codex_v7_id_carries_its_own_start_time() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("proj");
    // The records say an hour ago; the id says now: the id wins.
    let id = v7(NOW_MS + 2_000, "ae0-a931-48a4aec65cd7");
    codex(&home, &cwd, &id, "v7", NOW_MS - 3_600_000, false);
    let stale = v7(NOW_MS - 3_600_000, "ae0-a931-48a4aec65cd8");
    codex(&home, &cwd, &stale, "old", NOW_MS, false);
    let l = list(&Homes::under(&home), &[], Depth::FAST);
    let got = correlate(&l.sessions, &spawn(&cwd, AgentKind::Codex, NOW_MS));
    assert_eq!(got.map(|s| s.id.as_str()), Some(id.as_str()));
}

/// A process whose argv is `claude … --resume <id>`, killed on drop.
struct FakeAgent(Child);

impl FakeAgent {
    fn start(dir: &Path, id: &str) -> FakeAgent {
        FakeAgent::named(dir, "claude", id)
    }
    fn named(dir: &Path, name: &str, id: &str) -> FakeAgent {
        let program = dir.join(name);
        if !program.exists() {
            symlink("/bin/sh", &program).unwrap();
        }
        // The shell waits in its own `read` builtin: it forks no child (a
        // forked `sleep` carries the shell's argv until it execs, and
        // outlives a kill of the shell), and it ends when its stdin closes.
        let child = Command::new(&program)
            .args(["-c", "read -r _", name, "--resume", id])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        FakeAgent(child)
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for FakeAgent {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_live_process_resuming_the_session_holds_it_and_a_dead_one_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let id = "5e55aa00-1d00-4000-8000-0000000aa000";
    let homes = Homes::under(&home);
    assert!(!Running::scan(&homes).holds(AgentKind::Claude, id));
    let agent = FakeAgent::start(dir.path(), id);
    let probe = StoreProbe::new(&homes);
    let mut held = false;
    // The child's argv is in /proc as soon as it has exec'd.
    for _ in 0..200 {
        if Running::scan(&homes).holds(AgentKind::Claude, id) {
            held = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(held);
    assert!(probe.running(AgentKind::Claude, id));
    assert!(
        !probe.running(AgentKind::Codex, id),
        "another agent's id space"
    );
    drop(agent);
    assert!(!Running::scan(&homes).holds(AgentKind::Claude, id));
}

#[test]
fn claude_pid_registry_counts_while_its_pid_is_alive() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let homes = Homes::under(&home);
    let registered = "5e55bb00-1d00-4000-8000-0000000bb000";
    let agent = FakeAgent::start(dir.path(), "5e55cc00-1d00-4000-8000-0000000cc000");
    let sessions = home.join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join(format!("{}.json", agent.pid())),
        format!(
            r#"{{"pid":{},"sessionId":"{registered}","cwd":"/p","startedAt":1,"kind":"interactive"}}"#,
            agent.pid()
        ),
    )
    .unwrap();
    let mut held = false;
    for _ in 0..200 {
        if Running::scan(&homes).holds(AgentKind::Claude, registered) {
            held = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(held);
    let pid = agent.pid();
    drop(agent);
    assert!(
        !Running::scan(&homes).holds(AgentKind::Claude, registered),
        "pid {pid} is gone"
    );
}

#[test]
fn grok_active_sessions_registry_counts_while_its_pid_is_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let homes = Homes::under(&home);
    let id = "019ad4e7-3c80-7601-b726-1133cc72ef77";
    std::fs::create_dir_all(home.join(".grok")).unwrap();
    // This test's own pid is alive but is not grok (and is an ancestor).
    let write = |pid: u32| {
        std::fs::write(
            home.join(".grok/active_sessions.json"),
            format!(r#"[{{"session_id":"{id}","pid":{pid},"cwd":"/p","opened_at":"t"}}]"#),
        )
        .unwrap();
    };
    write(std::process::id());
    assert!(!Running::scan(&homes).holds(AgentKind::Grok, id));
    let grok = FakeAgent::named(dir.path(), "grok", "019ad4e7-3c80-7601-b726-000000000000");
    write(grok.pid());
    let mut held = false;
    for _ in 0..200 {
        if Running::scan(&homes).holds(AgentKind::Grok, id) {
            held = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(held);
}
