//! GitHub Copilot CLI: `$COPILOT_HOME` (default `~/.copilot`) holds
//! `session-state/<id>/` (`events.jsonl`, `workspace.yaml`), or an older
//! `session-state/<id>.jsonl`. Its `--session-id` resumes a known session
//! or pins a new one.

use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;

use super::{unknown_resumable, Provider};
use crate::json::{Bodies, Line};
use crate::parse::{prompt_text, Acc, Raw, Records};
use crate::provider::HomeEnv;
use crate::store::{Candidate, Entry, FileStore, Layout, SessionDir, Store};
use crate::Note;

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Copilot,
    home,
    store: Store::Files(FileStore {
        dir: &["session-state"],
        layout: Layout::Custom(walk),
        session_dir,
    }),
    records: Records {
        apply,
        cut_id_key: None,
        needs_header: false,
        document: None,
    },
    file_id: super::whole_name,
    resumable: unknown_resumable,
    package: Some("/@github/copilot/"),
    registry: None,
    argv_id_flags: &["--session-id"],
    first_prompt: false,
    hook: None,
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("COPILOT_HOME", env.under(".copilot"))
}

/// Sessions lie directly in the store: a directory, or a `.jsonl` file,
/// named by the id.
fn walk(
    _base: &Path,
    _hold_dirs: bool,
    top: Vec<Entry>,
    out: &mut Vec<Candidate>,
    notes: &mut Vec<Note>,
    _found: &mut dyn FnMut(Vec<Candidate>),
) {
    crate::store::flat(AgentKind::Copilot, top, out, notes, |name, e| {
        let id = if e.is_dir {
            name
        } else {
            name.strip_suffix(".jsonl")?
        };
        Some((id.to_owned(), e.path.clone()))
    });
}

fn session_dir(path: &Path) -> Option<SessionDir> {
    path.is_dir().then_some(SessionDir {
        records: "events.jsonl",
        side: "workspace.yaml",
        side_max: 4096,
        read_side: workspace,
    })
}

/// `workspace.yaml`'s `summary` (or `name`) and `cwd`, read as `key: value`
/// lines.
fn workspace(bytes: &[u8], acc: &mut Acc) {
    let text = String::from_utf8_lossy(bytes);
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let v = v.trim().trim_matches(['"', '\'']);
        match k.trim() {
            "summary" | "name" if !v.is_empty() => acc.summary = Some(v.to_owned()),
            "cwd" if acc.cwd.is_none() && v.starts_with('/') => {
                acc.cwd = Some(v.to_owned());
            }
            _ => {}
        }
    }
}

fn data_text(b: Bodies<'_>) -> Option<String> {
    b.data.0.and_then(|d| prompt_text(&d.content))
}

/// `session.start` and the user's and assistant's messages.
fn apply(acc: &mut Acc, kind: &str, l: &Line<'_>, raw: Raw<'_>) {
    let Some(d) = &l.data.0 else { return };
    match kind {
        "session.start" => {
            if acc.header_id.is_none() {
                acc.header_id = d.session_id.get().map(str::to_owned);
            }
            if acc.cwd.is_none() {
                let nested = d.context.0.as_ref().and_then(|c| c.cwd.get());
                acc.cwd = d.cwd.get().or(nested).map(str::to_owned);
            }
            if let Some(t) = d.start_time.0 {
                acc.started = Some(acc.started.map_or(t, |s| s.min(t)));
            }
        }
        "user.message" => acc.chat(Some("user"), raw, data_text),
        "assistant.message" => acc.chat(Some("assistant"), raw, data_text),
        _ => {}
    }
}
