//! Whether an agent itself would resume a session its store holds.
//!
//! A session file can exist and still be refused by its own CLI: the
//! restore plan must then treat the session as missing, or it would type a
//! resume the agent answers with an error. Each rule here is the agent's
//! own, as its shipped code applies it (`docs/agents.md`, "Observed with the
//! real CLIs offline"):
//!
//! | agent | resumable when |
//! |---|---|
//! | gemini | the file's messages, replayed as Gemini replays them (`$set` of `messages` replaces them, a record with an `id` adds or replaces one, `$rewindTo` drops that message and everything after it), hold a user message with real text (not empty, not a `/` or `?` command, not an injected `<session_context>` / `<hook_context>`) or a model message with text, tool calls or thoughts; a sub-agent's file never is |
//! | qwen | the first record names the session (`sessionId`, any case) and a `cwd` |
//! | claude | the transcript exists (it is written at the first prompt; the name check covers it) |
//!
//! Every answer is three-valued: `Some(false)` only when the whole file was
//! read and the rule certainly fails; a file cut short, unreadable or of a
//! shape the rule does not know answers `None`, and the plan's gate passes
//! (a pane is never held back because agent-resume could not tell).

use std::path::Path;

use agent_resume_core::AgentKind;
use serde_json::Value;

use crate::read::{records_of_file, Depth, Rec, MAX_RECORD};

/// Whether `agent` would resume session `id` from the file at `path`:
/// `None` when it cannot be told or no rule is known for the agent.
pub fn resumable(agent: AgentKind, path: &Path, id: &str) -> Option<bool> {
    match agent {
        AgentKind::Gemini => gemini(path),
        AgentKind::Qwen => qwen(path, id),
        AgentKind::Claude
        | AgentKind::Codex
        | AgentKind::Grok
        | AgentKind::Droid
        | AgentKind::Pi
        | AgentKind::Copilot
        | AgentKind::Opencode
        | AgentKind::Cursor
        | AgentKind::Antigravity
        | AgentKind::Amp
        | AgentKind::Kimi => None,
    }
}

/// Every record of the file as JSON, or `None` when one of them is not
/// whole JSON (cut by a bound, half-written, or garbage): the file cannot
/// be judged.
fn records(path: &Path, depth: Depth) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut broken = false;
    let stats = records_of_file(path, depth, &mut |rec| {
        let bytes = match rec {
            Rec::Whole(b) | Rec::Cut(b) => b,
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        // An unterminated last line that is still whole JSON is a record;
        // anything else cut short leaves the file undecided.
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => out.push(v),
            Err(_) => broken = true,
        }
    })
    .ok()?;
    (!broken && !stats.hit_bound).then_some(out)
}

/// The text of a message's `content`: a string, or the text parts of a
/// part list joined. `None` when a part is not text (an image, a function
/// response): such content counts as real.
fn content_text(content: Option<&Value>) -> Option<String> {
    match content {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for part in parts {
                match part {
                    Value::String(s) => text.push_str(s),
                    Value::Object(o) => match o.get("text") {
                        Some(Value::String(s)) => text.push_str(s),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            Some(text)
        }
        Some(Value::Object(o)) => match o.get("text") {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        },
        Some(_) => None,
    }
}

/// Gemini's own test of one message record (`isResumableMessageRecord`).
fn gemini_message_counts(m: &Value) -> bool {
    let text = content_text(m.get("content"));
    let non_empty = |key: &str| {
        m.get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    match m.get("type").and_then(Value::as_str) {
        Some("user") => match text {
            None => true,
            Some(t) => {
                let t = t.trim();
                !(t.is_empty()
                    || t.starts_with('/')
                    || t.starts_with('?')
                    || t.starts_with("<session_context>")
                    || t.starts_with("<hook_context>"))
            }
        },
        Some("gemini") => {
            text.is_none_or(|t| !t.trim().is_empty())
                || non_empty("toolCalls")
                || non_empty("thoughts")
        }
        _ => false,
    }
}

/// Gemini: replays the records as Gemini's loader does.
fn gemini(path: &Path) -> Option<bool> {
    let recs = records(path, Depth::Full)?;
    // Messages in order: (id, counts).
    let mut messages: Vec<(String, bool)> = Vec::new();
    let mut subagent = false;
    let mut header = false;
    for rec in &recs {
        let Value::Object(o) = rec else { return None };
        if let Some(Value::String(to)) = o.get("$rewindTo") {
            match messages.iter().position(|(id, _)| id == to) {
                Some(at) => messages.truncate(at),
                None => messages.clear(),
            }
        } else if let Some(Value::String(id)) = o.get("id") {
            let counts = gemini_message_counts(rec);
            match messages.iter_mut().find(|(m, _)| m == id) {
                Some(slot) => slot.1 = counts,
                None => messages.push((id.clone(), counts)),
            }
        } else if let Some(Value::Object(set)) = o.get("$set") {
            if let Some(Value::Array(list)) = set.get("messages") {
                messages = list
                    .iter()
                    .filter_map(|m| {
                        let id = m.get("id")?.as_str()?;
                        Some((id.to_owned(), gemini_message_counts(m)))
                    })
                    .collect();
            }
            if let Some(Value::String(kind)) = set.get("kind") {
                subagent = kind == "subagent";
            }
        } else if o.get("sessionId").is_some_and(Value::is_string) {
            header = true;
            if let Some(Value::String(kind)) = o.get("kind") {
                subagent = kind == "subagent";
            }
            if let Some(Value::Array(list)) = o.get("messages") {
                for m in list {
                    if let Some(id) = m.get("id").and_then(Value::as_str) {
                        messages.push((id.to_owned(), gemini_message_counts(m)));
                    }
                }
            }
        }
    }
    if !header {
        // Not a shape this rule knows.
        return None;
    }
    Some(!subagent && messages.iter().any(|(_, counts)| *counts))
}

/// Qwen: the first record is the session's head (`readProjectSessionHead`).
fn qwen(path: &Path, id: &str) -> Option<bool> {
    let mut first: Option<Result<Value, ()>> = None;
    let mut empty = true;
    records_of_file(path, Depth::Prefix(MAX_RECORD + 1), &mut |rec| {
        let bytes = match rec {
            Rec::Whole(b) | Rec::Cut(b) => b,
        };
        if first.is_some() || bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        empty = false;
        first = Some(serde_json::from_slice::<Value>(bytes).map_err(|_| ()));
    })
    .ok()?;
    if empty {
        // Qwen reads no record and answers "No saved session found".
        return Some(false);
    }
    let head = first?.ok()?;
    let named = head
        .get("sessionId")
        .and_then(Value::as_str)
        .is_some_and(|s| s.eq_ignore_ascii_case(id));
    let placed = head.get("cwd").is_some_and(Value::is_string);
    Some(named && placed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_list_of_text_parts_reads_as_its_joined_text() {
        let v = serde_json::json!([{"text": "a"}, {"text": "b"}]);
        assert_eq!(content_text(Some(&v)).as_deref(), Some("ab"));
        let img = serde_json::json!([{"inlineData": {}}]);
        assert_eq!(content_text(Some(&img)), None);
    }

    #[test]
    fn injected_user_text_does_not_count_and_typed_text_does() {
        for (text, counts) in [
            ("<session_context>\nx", false),
            ("  ", false),
            ("/help", false),
            ("?", false),
            ("<hook_context>", false),
            ("hi", true),
        ] {
            let m = serde_json::json!({"id": "1", "type": "user", "content": [{"text": text}]});
            assert_eq!(gemini_message_counts(&m), counts, "{text:?}");
        }
        let info = serde_json::json!({"id": "2", "type": "info", "content": "hi"});
        assert!(!gemini_message_counts(&info));
        let tools =
            serde_json::json!({"id": "3", "type": "gemini", "content": "", "toolCalls": [{}]});
        assert!(gemini_message_counts(&tools));
    }
}
