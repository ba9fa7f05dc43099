//! Whether an agent itself would resume a session its store holds.
//!
//! A session file can exist and still be refused by its own CLI: the
//! restore plan must then treat the session as missing, or it would type a
//! resume the agent answers with an error. Each rule here is the agent's
//! own, as its shipped code applies it (`docs/agents.md`, "Observed with the
//! real CLIs offline"), and lives in the agent's provider module
//! ([`mod@crate::provider`]):
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

use crate::provider::provider;
use crate::read::{records_of_file, Depth, Rec};

/// Whether `agent` would resume session `id` from the file at `path`:
/// `None` when it cannot be told or no rule is known for the agent.
pub fn resumable(agent: AgentKind, path: &Path, id: &str) -> Option<bool> {
    (provider(agent).resumable)(path, id)
}

/// Every record of the file as JSON, or `None` when one of them is not
/// whole JSON (cut by a bound, half-written, or garbage): the file cannot
/// be judged.
pub(crate) fn records(path: &Path, depth: Depth) -> Option<Vec<Value>> {
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
