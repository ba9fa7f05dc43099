//! Pi: `$PI_CODING_AGENT_DIR` (default `~/.pi/agent`) holds
//! `sessions/--<cwd>--/<time>_<id>.jsonl`.

use std::path::PathBuf;

use agent_resume_core::AgentKind;

use super::{no_cwd_hint, not_a_dir, unknown_resumable, Provider};
use crate::parse::{apply_session_events, Records};
use crate::provider::HomeEnv;
use crate::store::{FileStore, Layout, Named, Projects, Store};

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Pi,
    home,
    store: Store::Files(FileStore {
        dir: &["sessions"],
        layout: Layout::Projects(Projects {
            chats: false,
            cwd_hint: no_cwd_hint,
            entry,
            by_path: false,
        }),
        session_dir: not_a_dir,
    }),
    records: Records {
        apply: apply_session_events,
        cut_id_key: Some("id"),
        needs_header: false,
        document: None,
    },
    file_id,
    resumable: unknown_resumable,
    package: Some("/pi-coding-agent/"),
    registry: None,
    argv_id_flags: &[],
    first_prompt: true,
    hook: None,
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("PI_CODING_AGENT_DIR", env.under(".pi/agent"))
}

/// `<time>_<id>.jsonl`.
fn file_id(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl")
        .and_then(|n| n.rsplit_once('_'))
        .map(|(_, id)| id)
}

fn entry(name: &str, is_dir: bool) -> Named<'_> {
    (!is_dir).then(|| (file_id(name), None))
}
