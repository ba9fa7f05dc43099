//! Gemini CLI: `$GEMINI_CLI_HOME` (default `~`) holds
//! `.gemini/tmp/<project>/chats/session-<time>-<id[..8]>.jsonl`, the
//! project's directory in `.gemini/tmp/<project>/.project_root`; hooks go
//! in `.gemini/settings.json`. A session's name carries 8 characters of
//! its id: the header names the rest.

use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;
use serde_json::Value;

use super::{not_a_dir, HookFile, Provider};
use crate::file::Kind;
use crate::json::Line;
use crate::parse::{prompt_text, Acc, Raw, Records};
use crate::provider::HomeEnv;
use crate::read::{json_records, Depth};
use crate::store::{read_small, Entry, FileStore, Layout, Named, Projects, Store};

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Gemini,
    home,
    store: Store::Files(FileStore {
        dir: &[".gemini", "tmp"],
        layout: Layout::Projects(Projects {
            chats: true,
            cwd_hint: project_root,
            entry,
            by_path: false,
        }),
        session_dir: not_a_dir,
    }),
    records: Records {
        apply,
        cut_id_key: Some("sessionId"),
        needs_header: true,
        document: None,
    },
    file_id: |_| None,
    resumable: |path, _| resumable(path),
    package: Some("/@google/gemini-cli/"),
    registry: None,
    argv_id_flags: &[],
    first_prompt: false,
    hook: Some(HookFile {
        file: ".gemini/settings.json",
        events: &["SessionStart"],
    }),
};

/// GEMINI_CLI_HOME replaces the home directory itself.
fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("GEMINI_CLI_HOME", env.home())
}

/// The project's directory, from its `.project_root`.
fn project_root(project: &Entry) -> Option<PathBuf> {
    let bytes = read_small(&project.path.join(".project_root"), Kind::SideFile, 4096)?;
    let text = String::from_utf8(bytes).ok()?;
    let p = PathBuf::from(text.trim_end_matches(['\n', '\r']));
    p.is_absolute().then_some(p)
}

/// `session-<time>-<id[..8]>.jsonl`: the id's first 8 characters.
fn entry(name: &str, is_dir: bool) -> Named<'_> {
    if is_dir {
        return None;
    }
    let hint = name
        .strip_prefix("session-")
        .and_then(|n| n.strip_suffix(".jsonl"))
        .and_then(|n| n.rsplit('-').next())?;
    Some((None, Some(hint.to_owned())))
}

/// User and model messages; any other record may be the header.
fn apply(acc: &mut Acc, kind: &str, l: &Line<'_>, raw: Raw<'_>) {
    match kind {
        "user" => {
            acc.messages += 1;
            if acc.first_prompt.is_none() {
                let b = raw.bodies();
                acc.first_prompt = prompt_text(&b.content).or_else(|| prompt_text(&b.parts));
            }
        }
        "gemini" | "model" | "assistant" => acc.messages += 1,
        _ => {
            if acc.header_id.is_none() {
                acc.header_id = l.session_id.get().map(str::to_owned);
            }
            if let Some(s) = l.summary.get() {
                acc.summary = Some(s.to_owned());
            }
        }
    }
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

/// Whether Gemini resumes the file: its messages, replayed as Gemini's
/// loader replays them, hold one that counts, and it is no sub-agent's.
fn resumable(path: &Path) -> Option<bool> {
    let recs = json_records(path, Depth::Full)?;
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
