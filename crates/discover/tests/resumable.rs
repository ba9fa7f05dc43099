//! Each agent's own resumability rule, as the restore plan's probe applies
//! it: a session file the agent itself would refuse to resume counts as
//! missing; a file that cannot be judged never holds a pane back.
#![allow(clippy::unwrap_used)]

mod fixtures;

use std::fs;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentKind, SessionProbe};
use agent_resume_discover::resumable::resumable;
use agent_resume_discover::{Homes, StoreProbe};
use fixtures::*;
use serde_json::json;

fn home() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("work").join("proj");
    fs::create_dir_all(&cwd).unwrap();
    (dir, home, cwd)
}

fn exists(home: &Path, agent: AgentKind, id: &str) -> Option<bool> {
    let homes = Homes::under(home);
    StoreProbe::new(&homes).exists(agent, id, None)
}

fn write_lines(path: &Path, recs: &[serde_json::Value]) {
    let mut out = String::new();
    for r in recs {
        out.push_str(&r.to_string());
        out.push('\n');
    }
    fs::write(path, out).unwrap();
}

/// The records Gemini CLI 0.61.0 wrote for `gemini -p hi` when the model
/// call failed (captured from a real run, the context text shortened): the
/// typed prompt is dropped again by the last `$set`.
fn gemini_failed_turn(id: &str) -> Vec<serde_json::Value> {
    let ctx = json!({"id":"d049","timestamp":"2026-12-01T05:19:39.405Z","type":"user",
        "content":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"}]});
    vec![
        json!({"sessionId":id,"projectHash":"a656","startTime":"2026-12-01T05:19:39.405Z",
            "lastUpdated":"2026-12-01T05:19:39.405Z","kind":"main"}),
        json!({"$set":{"messages":[ctx.clone()]}}),
        json!({"id":"33d8","timestamp":"2026-12-01T05:19:39.417Z","type":"user","content":[{"text":"hi"}]}),
        json!({"$set":{"lastUpdated":"2026-12-01T05:19:39.418Z"}}),
        json!({"$set":{"messages":[ctx]}}),
    ]
}

#[test]
fn a_gemini_session_whose_only_turn_failed_counts_as_missing_and_a_replied_one_exists() {
    let (_d, home, cwd) = home();
    let replied = gemini(&home, &cwd, GEMINI, "explain the build", NOW_MS);
    assert_eq!(exists(&home, AgentKind::Gemini, GEMINI), Some(true));
    assert_eq!(resumable(AgentKind::Gemini, &replied, GEMINI), Some(true));

    let failed_id = "ac8eeede-c63f-43d5-8b79-f4df1b2dfafc";
    let failed = replied
        .parent()
        .unwrap()
        .join("session-2026-12-01T05-19-ac8eeede.jsonl");
    write_lines(&failed, &gemini_failed_turn(failed_id));
    assert_eq!(
        resumable(AgentKind::Gemini, &failed, failed_id),
        Some(false)
    );
    assert_eq!(
        exists(&home, AgentKind::Gemini, failed_id),
        Some(false),
        "Gemini answers `--resume` of this session with \"No previous sessions found\""
    );
    // The replied session beside it is unaffected.
    assert_eq!(exists(&home, AgentKind::Gemini, GEMINI), Some(true));
}

#[test]
fn a_gemini_reply_rewound_away_leaves_the_session_unresumable_and_a_later_reply_restores_it() {
    let (_d, home, cwd) = home();
    let path = gemini(&home, &cwd, GEMINI, "explain the build", NOW_MS);
    let mut recs: Vec<serde_json::Value> = fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The fixture's user message is `m1`: rewinding to it drops it and the
    // reply after it.
    recs.push(json!({"$rewindTo":"m1"}));
    write_lines(&path, &recs);
    assert_eq!(resumable(AgentKind::Gemini, &path, GEMINI), Some(false));
    assert_eq!(exists(&home, AgentKind::Gemini, GEMINI), Some(false));

    recs.push(json!({"id":"m3","type":"gemini","content":"","toolCalls":[{"name":"ls"}]}));
    write_lines(&path, &recs);
    assert_eq!(exists(&home, AgentKind::Gemini, GEMINI), Some(true));
}

#[test]
fn a_gemini_file_that_cannot_be_judged_does_not_hold_the_pane_back() {
    let (_d, home, cwd) = home();
    let path = gemini(&home, &cwd, GEMINI, "explain the build", NOW_MS);
    let mut recs = gemini_failed_turn(GEMINI);
    recs.truncate(2);
    write_lines(&path, &recs);
    assert_eq!(exists(&home, AgentKind::Gemini, GEMINI), Some(false));
    // The same file with a half-written last record: undecided, so the
    // gate passes.
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"id":"m9","type":"gemi"#);
    fs::write(&path, bytes).unwrap();
    assert_eq!(resumable(AgentKind::Gemini, &path, GEMINI), None);
    assert_eq!(exists(&home, AgentKind::Gemini, GEMINI), Some(true));
}

#[test]
fn a_gemini_subagent_file_is_never_resumable() {
    let (_d, home, cwd) = home();
    let path = gemini(&home, &cwd, GEMINI, "explain the build", NOW_MS);
    let text =
        fs::read_to_string(&path)
            .unwrap()
            .replacen(r#""kind":"main""#, r#""kind":"subagent""#, 1);
    fs::write(&path, text).unwrap();
    assert_eq!(resumable(AgentKind::Gemini, &path, GEMINI), Some(false));
}

#[test]
fn a_qwen_session_without_a_head_record_counts_as_missing() {
    let (_d, home, cwd) = home();
    let path = qwen(&home, &cwd, QWEN, "fix the tests", NOW_MS);
    assert_eq!(exists(&home, AgentKind::Qwen, QWEN), Some(true));

    // After `/clear` Qwen has only a runtime file for the new id.
    let cleared = "5b1d0c2e-8f3a-4d6b-9c7e-1a2b3c4d5e6f";
    let chats = path.parent().unwrap();
    fs::write(chats.join(format!("{cleared}.runtime.json")), b"{}").unwrap();
    assert_eq!(exists(&home, AgentKind::Qwen, cleared), Some(false));

    // An empty transcript: Qwen reads no head and finds no session.
    fs::write(chats.join(format!("{cleared}.jsonl")), b"").unwrap();
    assert_eq!(exists(&home, AgentKind::Qwen, cleared), Some(false));

    // A head naming another session, or with no directory, is refused too.
    let other = json!({"sessionId": QWEN, "cwd": "/w", "type": "user"});
    write_lines(&chats.join(format!("{cleared}.jsonl")), &[other]);
    assert_eq!(exists(&home, AgentKind::Qwen, cleared), Some(false));
    let no_cwd = json!({"sessionId": cleared.to_uppercase(), "type": "user"});
    write_lines(&chats.join(format!("{cleared}.jsonl")), &[no_cwd]);
    assert_eq!(exists(&home, AgentKind::Qwen, cleared), Some(false));
    let head = json!({"sessionId": cleared.to_uppercase(), "cwd": "/w", "type": "user"});
    write_lines(&chats.join(format!("{cleared}.jsonl")), &[head]);
    assert_eq!(exists(&home, AgentKind::Qwen, cleared), Some(true));
}

#[test]
fn a_claude_session_recorded_at_start_but_never_prompted_counts_as_missing() {
    let (_d, home, cwd) = home();
    claude(&home, &cwd, CLAUDE, "hello", NOW_MS, 0);
    assert_eq!(exists(&home, AgentKind::Claude, CLAUDE), Some(true));
    // SessionStart reported this id; Claude writes the transcript only at
    // the first prompt, and never did.
    let started = "0f0e0d0c-0b0a-4909-8807-060504030201";
    assert_eq!(exists(&home, AgentKind::Claude, started), Some(false));
}
