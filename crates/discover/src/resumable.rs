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

use crate::provider::provider;

/// Whether `agent` would resume session `id` from the file at `path`:
/// `None` when it cannot be told or no rule is known for the agent.
pub fn resumable(agent: AgentKind, path: &Path, id: &str) -> Option<bool> {
    (provider(agent).resumable)(path, id)
}
