//! Codex CLI: `$CODEX_HOME` (default `~/.codex`) holds
//! `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (or `.jsonl.zst`) and
//! `thread-writer-locks/<id>.lock`; hooks go in `config.toml` (its
//! `notify`) and `hooks.json` beside it.

use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;

use super::{not_a_dir, unknown_resumable, HookFile, Provider};
use crate::json::Line;
use crate::parse::{prompt_text, Acc, Raw, Records};
use crate::provider::HomeEnv;
use crate::store::{entries, id_ok, Candidate, Entry, FileStore, Layout, LazyDir, Store};
use crate::{Note, Problem};

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Codex,
    home,
    store: Store::Files(FileStore {
        dir: &["sessions"],
        layout: Layout::Custom(walk),
        session_dir: not_a_dir,
    }),
    records: Records {
        apply,
        cut_id_key: Some("id"),
        needs_header: false,
        document: None,
    },
    file_id,
    resumable: unknown_resumable,
    package: Some("/@openai/codex/"),
    registry: None,
    argv_id_flags: &[],
    first_prompt: false,
    hook: Some(HookFile {
        file: "config.toml",
        events: &["SessionStart"],
    }),
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("CODEX_HOME", env.under(".codex"))
}

/// The id ends a rollout's stem.
fn file_id(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl")
        .and_then(|s| s.len().checked_sub(36).and_then(|at| s.get(at..)))
}

fn walk(
    path: &Path,
    hold_dirs: bool,
    list: Vec<Entry>,
    out: &mut Vec<Candidate>,
    notes: &mut Vec<Note>,
    found: &mut dyn FnMut(Vec<Candidate>),
) {
    walk_dir(path, hold_dirs, list, 0, out, notes, found);
}

/// One Codex directory, already listed: its rollouts, and (to a depth of
/// `sessions/YYYY/MM/DD`) those of its subdirectories, in name order.
fn walk_dir(
    path: &Path,
    hold_dirs: bool,
    list: Vec<Entry>,
    depth: u8,
    out: &mut Vec<Candidate>,
    notes: &mut Vec<Note>,
    found: &mut dyn FnMut(Vec<Candidate>),
) {
    let mut handle = LazyDir::new(path, hold_dirs);
    for e in list {
        if e.is_dir {
            if depth < 3 {
                match entries(&e.path) {
                    Ok(inner) => {
                        // What this directory held so far comes before the
                        // subdirectory's files.
                        found(std::mem::take(out));
                        walk_dir(&e.path, hold_dirs, inner, depth + 1, out, notes, found);
                    }
                    Err(_) => notes.push(Note {
                        agent: AgentKind::Codex,
                        path: e.path,
                        problem: Problem::StoreUnreadable,
                    }),
                }
            }
            continue;
        }
        let Some(name) = e.name() else {
            notes.push(Note {
                agent: AgentKind::Codex,
                path: e.path,
                problem: Problem::BadName,
            });
            continue;
        };
        let stem = name
            .strip_suffix(".jsonl")
            .or_else(|| name.strip_suffix(".jsonl.zst"));
        let Some(stem) = stem.filter(|s| s.starts_with("rollout-")) else {
            continue;
        };
        let id = stem.len().checked_sub(36).and_then(|at| stem.get(at..));
        if let Some(id) = id.filter(|id| id_ok(AgentKind::Codex, id)) {
            let name_id = Some(id.to_owned());
            out.push(Candidate {
                path: e.path,
                name_id,
                id_hint: None,
                cwd_hint: None,
                dir: handle.get(),
            });
        }
    }
    if depth > 0 {
        found(std::mem::take(out));
    }
}

/// `session_meta`, user and agent events, and response items (read only
/// when no user event names the first prompt).
fn apply(acc: &mut Acc, kind: &str, l: &Line<'_>, raw: Raw<'_>) {
    let Some(p) = &l.payload.0 else { return };
    match (kind, p.kind.get().unwrap_or("")) {
        ("session_meta", _) => {
            if acc.header_id.is_none() {
                acc.header_id = p.id.get().map(str::to_owned);
            }
            if acc.cwd.is_none() {
                acc.cwd = p.cwd.get().map(str::to_owned);
            }
            if let Some(t) = p.timestamp.0 {
                acc.started = Some(acc.started.map_or(t, |s| s.min(t)));
            }
        }
        ("event_msg", "user_message") => {
            acc.messages += 1;
            if acc.first_prompt.is_none() {
                acc.first_prompt = raw.bodies().payload.0.and_then(|b| prompt_text(&b.message));
            }
        }
        ("event_msg", "agent_message") => acc.messages += 1,
        ("response_item", "message") => {
            let role = p.role.get();
            if matches!(role, Some("user" | "assistant")) {
                acc.item_messages += 1;
            }
            if role == Some("user") && acc.fallback_prompt.is_none() && acc.first_prompt.is_none() {
                acc.defer(raw.raw);
            }
        }
        _ => {}
    }
}
