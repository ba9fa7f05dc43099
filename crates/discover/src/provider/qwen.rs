//! Qwen Code: `$QWEN_HOME` (default `~/.qwen`) holds
//! `projects/<slug>/chats/<id>.jsonl`, written as Claude's transcripts;
//! hooks go in `settings.json`.

use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;
use serde_json::Value;

use super::{jsonl_entry, jsonl_stem, no_cwd_hint, not_a_dir, HookFile, Provider};
use crate::parse::{apply_transcript, Records};
use crate::provider::HomeEnv;
use crate::read::{records_of_file, Depth, Rec, MAX_RECORD};
use crate::store::{FileStore, Layout, Projects, Store};

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Qwen,
    home,
    store: Store::Files(FileStore {
        dir: &["projects"],
        layout: Layout::Projects(Projects {
            chats: true,
            cwd_hint: no_cwd_hint,
            entry: jsonl_entry,
            by_path: false,
        }),
        session_dir: not_a_dir,
    }),
    records: Records {
        apply: apply_transcript,
        cut_id_key: None,
        needs_header: false,
    },
    file_id: jsonl_stem,
    resumable,
    package: Some("/@qwen-code/qwen-code/"),
    registry: None,
    argv_id_flags: &[],
    hook: Some(HookFile {
        file: "settings.json",
        events: &["SessionStart"],
    }),
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("QWEN_HOME", env.under(".qwen"))
}

/// Qwen resumes a file whose first record is the session's head
/// (`readProjectSessionHead`): it names the session (`sessionId`, any
/// case) and a `cwd`.
fn resumable(path: &Path, id: &str) -> Option<bool> {
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
