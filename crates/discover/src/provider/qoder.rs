//! Qoder CLI: `~/.qoder` holds Claude-shaped transcripts,
//! `projects/<cwd, every non-alphanumeric byte → ->/<id>.jsonl`, read by
//! Claude's reader ([`super::claude::transcripts`]); 1.1.52's
//! `--list-sessions` lists a Claude-shaped line written there.
//!
//! What 1.1.52 showed offline: `--resume <id>` of a listed session gets
//! past the lookup to the sign-in check, and a made-up id is refused
//! (`Error resuming session: Invalid session identifier "<id>".`, exit
//! 42). A turn needs sign-in, so a live run's transcript, pid registry or
//! hook was not seen: no registry is read, and `settings.json` hooks
//! (Claude-shaped; `SessionEnd` fired offline) are not installed while the
//! agent is unverified.

use std::path::PathBuf;

use agent_resume_core::AgentKind;

use super::claude::transcripts;
use super::Provider;
use crate::provider::HomeEnv;

pub(super) const PROVIDER: Provider = transcripts(
    AgentKind::Qoder,
    home,
    Some("/@qoder-ai/qodercli/"),
    None,
    None,
);

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.under(".qoder")
}
