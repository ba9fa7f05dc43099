//! Augment's Auggie: `~/.augment/sessions/<id>.json`, one JSON document
//! per session, rewritten whole (to a temporary file, then renamed) at each
//! exchange. 0.36.0 writes `sessionId`, `created` and `modified` first,
//! then `chatHistory`; the directory is only inside the first exchange,
//! `chatHistory[].exchange.request_nodes[].ide_state_node.workspace_folders[].folder_root`,
//! after the first prompt's text (twice: `request_message` and a text
//! node).
//!
//! A document is never read past [`DOCUMENT_MAX`] bytes, at any depth: the
//! id and the time are in its first hundred bytes, and the directory
//! follows the first prompt, so only a first prompt of tens of kilobytes
//! leaves a session listed without its directory. A document read whole is
//! parsed; a longer one is scanned for its first `sessionId`, `created`,
//! `request_message` and `folder_root` keys, in the order Auggie writes them.
//!
//! Its hooks (`settings.json`) run only where Augment's server turns on
//! `enableHooks`, which a user cannot: none is installed, and capture reads
//! the argv, the store and the exit hint.

use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;
use serde_json::{Map, Value};

use super::{not_a_dir, unknown_resumable, Provider};
use crate::json::{parse_time, scan_str, text_of};
use crate::parse::{Acc, Document, Records};
use crate::provider::HomeEnv;
use crate::store::{Candidate, Entry, FileStore, Layout, Store};
use crate::text::{clean, MAX_TEXT};
use crate::{Note, Problem};

/// The most bytes of a session document read.
pub(crate) const DOCUMENT_MAX: u64 = 64 << 10;

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Auggie,
    home,
    store: Store::Files(FileStore {
        dir: &["sessions"],
        layout: Layout::Custom(walk),
        session_dir: not_a_dir,
    }),
    records: Records {
        apply: |_, _, _, _| {},
        cut_id_key: None,
        needs_header: false,
        document: Some(Document {
            max: DOCUMENT_MAX,
            counts: true,
            read: document,
        }),
    },
    file_id: json_stem,
    resumable: unknown_resumable,
    package: Some("/@augmentcode/auggie/"),
    registry: None,
    argv_id_flags: &[],
    // Its session is written at the first exchange, however late.
    first_prompt: true,
    hook: None,
};

/// `--augment-cache-dir` moves it; no environment variable does.
fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.under(".augment")
}

fn json_stem(name: &str) -> Option<&str> {
    name.strip_suffix(".json")
}

/// `<id>.json` files directly in the store.
fn walk(
    _base: &Path,
    _hold_dirs: bool,
    top: Vec<Entry>,
    out: &mut Vec<Candidate>,
    notes: &mut Vec<Note>,
    _found: &mut dyn FnMut(Vec<Candidate>),
) {
    crate::store::flat(AgentKind::Auggie, top, out, notes, |name, e| {
        let id = json_stem(name).filter(|_| !e.is_dir)?;
        Some((id.to_owned(), e.path.clone()))
    });
}

/// A session document's id, start, first prompt, directory and messages.
fn document(bytes: &[u8], whole: bool, acc: &mut Acc) -> Result<(), Problem> {
    if whole {
        let v: Value = serde_json::from_slice(bytes).map_err(|e| {
            if e.is_eof() {
                Problem::HalfWritten
            } else {
                Problem::Garbage
            }
        })?;
        let Value::Object(o) = v else {
            return Err(Problem::Garbage);
        };
        parsed(&o, acc);
    } else {
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(Problem::Garbage);
        }
        acc.header_id = scan_str(bytes, "sessionId");
        acc.started = scan_str(bytes, "created").as_deref().and_then(parse_time);
        acc.first_prompt = scan_str(bytes, "request_message").and_then(|m| clean(&m, MAX_TEXT));
        acc.cwd = scan_str(bytes, "folder_root");
    }
    match acc.header_id {
        Some(_) => Ok(()),
        None if whole => Err(Problem::Garbage),
        None => Err(Problem::HalfWritten),
    }
}

fn parsed(o: &Map<String, Value>, acc: &mut Acc) {
    acc.header_id = text_of(o.get("sessionId")).map(str::to_owned);
    acc.started = text_of(o.get("created")).and_then(parse_time);
    let history = o.get("chatHistory").and_then(Value::as_array);
    for item in history.into_iter().flatten() {
        let Some(ex) = item.get("exchange") else {
            continue;
        };
        if let Some(m) = text_of(ex.get("request_message")) {
            acc.messages += 1;
            if acc.first_prompt.is_none() {
                acc.first_prompt = clean(m, MAX_TEXT);
            }
        }
        if text_of(ex.get("response_text")).is_some() {
            acc.messages += 1;
        }
        if acc.cwd.is_none() {
            acc.cwd = folder_root(ex);
        }
    }
}

/// The first workspace folder an exchange's IDE-state node names.
fn folder_root(exchange: &Value) -> Option<String> {
    let nodes = exchange.get("request_nodes")?.as_array()?;
    nodes.iter().find_map(|n| {
        n.get("ide_state_node")?
            .get("workspace_folders")?
            .as_array()?
            .iter()
            .find_map(|f| f.get("folder_root")?.as_str().map(str::to_owned))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::read::Depth;

    const ID: &str = "062fd28c-cf4f-476d-9624-3ebc5fced0b6";

    /// A session as 0.36.0 writes it (pretty-printed), with a first prompt
    /// of `prompt`.
    fn session(id: &str, prompt: &str) -> String {
        let v = serde_json::json!({
            "sessionId": id,
            "created": "2026-12-05T04:29:28.450Z",
            "modified": "2026-12-05T04:29:28.506Z",
            "chatHistory": [{
                "exchange": {
                    "request_message": prompt,
                    "response_text": "hello",
                    "request_nodes": [
                        {"id": 1, "type": 0, "text_node": {"content": prompt}},
                        {"id": 2, "type": 4, "ide_state_node": {"workspace_folders": [
                            {"repository_root": "/w/p", "folder_root": "/w/p"}
                        ]}}
                    ]
                },
                "completed": true
            }],
            "agentState": {"modelId": ""},
        });
        serde_json::to_string_pretty(&v).unwrap()
    }

    fn read(bytes: &[u8], whole: bool) -> Result<Acc, Problem> {
        let mut acc = Acc::new(Depth::FAST);
        document(bytes, whole, &mut acc).map(|()| acc)
    }

    #[test]
    fn a_whole_document_names_its_id_start_directory_prompt_and_messages() {
        let acc = read(session(ID, "fix it").as_bytes(), true).unwrap();
        assert_eq!(acc.header_id.as_deref(), Some(ID));
        assert_eq!(acc.cwd.as_deref(), Some("/w/p"));
        assert_eq!(acc.first_prompt.as_deref(), Some("fix it"));
        assert_eq!(acc.started, parse_time("2026-12-05T04:29:28.450Z"));
        assert_eq!(acc.messages, 2);
    }

    #[test]
    fn a_prefix_names_the_id_and_start_and_the_directory_after_a_short_prompt() {
        let doc = session(ID, "fix it");
        let cut = &doc.as_bytes()[..doc.len() - 40];
        let acc = read(cut, false).unwrap();
        assert_eq!(acc.header_id.as_deref(), Some(ID));
        assert_eq!(acc.cwd.as_deref(), Some("/w/p"));
        assert!(acc.started.is_some());
        // A first prompt longer than the bound leaves the directory unread.
        let long = "x".repeat(DOCUMENT_MAX as usize);
        let doc = session(ID, &long);
        let acc = read(&doc.as_bytes()[..DOCUMENT_MAX as usize], false).unwrap();
        assert_eq!(acc.header_id.as_deref(), Some(ID));
        assert_eq!(acc.cwd, None);
    }

    #[test]
    fn hostile_and_half_written_documents_name_no_session() {
        let doc = session(ID, "fix it");
        // A rename is atomic, but a copy or a crash can leave a cut file.
        assert_eq!(
            read(&doc.as_bytes()[..doc.len() / 2], true).err(),
            Some(Problem::HalfWritten)
        );
        assert_eq!(read(b"", true).err(), Some(Problem::HalfWritten));
        assert_eq!(read(b"[1, 2]", true).err(), Some(Problem::Garbage));
        assert_eq!(read(b"{\"other\": 1}", true).err(), Some(Problem::Garbage));
        assert_eq!(read(b"not json", false).err(), Some(Problem::Garbage));
        assert_eq!(
            read(b"{\"sessionI", false).err(),
            Some(Problem::HalfWritten)
        );
        // A prompt that spells a key is a string's content, not the key.
        let acc = read(
            session(
                ID,
                "\"sessionId\": \"0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e\"",
            )
            .as_bytes(),
            false,
        )
        .unwrap();
        assert_eq!(acc.header_id.as_deref(), Some(ID));
        // Wrong types are skipped, not trusted.
        let odd = br#"{"sessionId": "x", "created": 5, "chatHistory": {"exchange": 1}}"#;
        let acc = read(odd, true).unwrap();
        assert_eq!(acc.started, None);
        assert_eq!(acc.cwd, None);
        let nested = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(read(nested.as_bytes(), true).err(), Some(Problem::Garbage));
    }
}
