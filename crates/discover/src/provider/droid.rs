//! Factory Droid: `$FACTORY_HOME_OVERRIDE` (default `~`) holds
//! `.factory/sessions/<slug>/<id>.jsonl`, written as Pi's session events.

use std::path::PathBuf;

use agent_resume_core::AgentKind;

use super::{
    jsonl_entry, jsonl_stem, no_cwd_hint, not_a_dir, unknown_resumable, HookFile, Provider,
};
use crate::parse::{apply_session_events, Records};
use crate::provider::HomeEnv;
use crate::store::{FileStore, Layout, Projects, Store};

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Droid,
    home,
    store: Store::Files(FileStore {
        dir: &[".factory", "sessions"],
        layout: Layout::Projects(Projects {
            chats: false,
            cwd_hint: no_cwd_hint,
            entry: jsonl_entry,
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
    file_id: jsonl_stem,
    resumable: unknown_resumable,
    package: Some("/@factory/cli/"),
    registry: None,
    argv_id_flags: &[],
    first_prompt: false,
    // 0.225.2: `settings.json` `hooks`, Claude's shape; SessionStart
    // carries `session_id` (its UI runs it under its own child, see
    // `ui_child_args`).
    hook: Some(HookFile {
        file: ".factory/settings.json",
        events: &["SessionStart", "UserPromptSubmit"],
    }),
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("FACTORY_HOME_OVERRIDE", env.home())
}
