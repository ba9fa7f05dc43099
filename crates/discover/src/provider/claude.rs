//! Claude Code: `$CLAUDE_CONFIG_DIR` (default `~/.claude`) holds
//! `projects/<slug>/<id>.jsonl` transcripts and the pid registry
//! `sessions/<pid>.json` (`pid`, `sessionId`); hooks go in
//! `settings.json`.

use std::fs;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentDecl, AgentKind};

use super::{
    jsonl_entry, jsonl_stem, no_cwd_hint, not_a_dir, unknown_resumable, HookFile, Provider,
};
use crate::file::Kind;
use crate::parse::{apply_transcript, Records};
use crate::provider::HomeEnv;
use crate::registry::{self, Registered, Registry};
use crate::store::{mtime, read_small, FileStore, Layout, Projects, Store};

pub(super) const PROVIDER: Provider = transcripts(
    AgentKind::Claude,
    home,
    Some("/@anthropic-ai/claude-code/"),
    Some(Registry {
        of_pids,
        all: registered,
    }),
    Some(HookFile {
        file: "settings.json",
        events: &["SessionStart", "UserPromptSubmit"],
    }),
);

/// A Claude-shaped store under the agent's home: `projects/<slug>/<id>.jsonl`
/// transcripts, read as Claude's (Claude Code; Qoder CLI writes the same).
pub(super) const fn transcripts(
    kind: AgentKind,
    home: fn(&HomeEnv<'_>) -> Option<PathBuf>,
    package: Option<&'static str>,
    registry: Option<Registry>,
    hook: Option<HookFile>,
) -> Provider {
    Provider {
        kind,
        home,
        store: Store::Files(FileStore {
            dir: &["projects"],
            layout: Layout::Projects(Projects {
                chats: false,
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
            document: None,
        },
        file_id: jsonl_stem,
        // The transcript is written at the first prompt: the name check covers it.
        resumable: unknown_resumable,
        package,
        registry,
        argv_id_flags: &[],
        first_prompt: false,
        hook,
    }
}

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("CLAUDE_CONFIG_DIR", env.under(".claude"))
}

#[derive(serde::Deserialize)]
struct ClaudePid {
    #[serde(default)]
    pid: Option<u32>,
    #[serde(default, rename = "sessionId")]
    session_id: Option<String>,
}

/// `sessions/<pid>.json` of each of `pids` that names its own pid.
fn of_pids(
    agent: &AgentDecl,
    root: &Path,
    pids: &[u32],
    _: Option<agent_resume_core::UnixMillis>,
) -> registry::Named {
    let mut out = registry::Named::new();
    for pid in pids {
        let path = root.join("sessions").join(format!("{pid}.json"));
        let Some(bytes) = read_small(&path, Kind::PidRegistry, 64 * 1024) else {
            continue;
        };
        if let Ok(ClaudePid {
            pid: Some(p),
            session_id: Some(id),
        }) = serde_json::from_slice(&bytes)
        {
            if p == *pid && agent.id_shape.matches(&id) {
                let written = mtime(&path);
                let at = out.entry(id).or_insert(written);
                *at = (*at).max(written);
            }
        }
    }
    out
}

/// Every entry of `sessions/` (at most 4096 files read).
fn registered(root: &Path, out: &mut Vec<Registered>) {
    let Ok(dir) = fs::read_dir(root.join("sessions")) else {
        return;
    };
    for e in dir.filter_map(Result::ok).take(4096) {
        let Some(bytes) = read_small(&e.path(), Kind::PidRegistry, 64 * 1024) else {
            continue;
        };
        if let Ok(ClaudePid {
            pid: Some(pid),
            session_id: Some(session_id),
        }) = serde_json::from_slice(&bytes)
        {
            out.push(Registered {
                agent: AgentKind::Claude,
                pid,
                session_id,
            });
        }
    }
}
