//! Qwen Code: `$QWEN_HOME` (default `~/.qwen`) holds
//! `projects/<slug>/chats/<id>.jsonl`, written as Claude's transcripts,
//! and beside each running session its runtime sidecar
//! `<id>.runtime.json` naming the qwen process's pid ([`crate::runtime`]),
//! read as the pid registry; hooks go in `settings.json`.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;
use std::fs;

use agent_resume_core::{AgentDecl, AgentKind, UnixMillis};
use serde_json::Value;

use super::{jsonl_entry, jsonl_stem, no_cwd_hint, not_a_dir, HookFile, Provider};
use crate::file::Kind;
use crate::parse::{apply_transcript, Records};
use crate::provider::HomeEnv;
use crate::read::{records_of_file, Depth, Rec, MAX_RECORD};
use crate::registry::{self, Registered, Registry};
use crate::runtime::{host_name, parse_runtime, RuntimeStatus, MAX_RUNTIME, SUFFIX};
use crate::store::{mtime, read_small, FileStore, Layout, Projects, Store};

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
        document: None,
    },
    file_id: jsonl_stem,
    resumable,
    package: Some("/@qwen-code/qwen-code/"),
    registry: Some(Registry {
        of_pids,
        all: registered,
    }),
    argv_id_flags: &[],
    first_prompt: false,
    hook: Some(HookFile {
        file: "settings.json",
        events: &["SessionStart"],
    }),
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("QWEN_HOME", env.under(".qwen"))
}

/// Project directories looked into for sidecars.
const MAX_PROJECTS: usize = 1024;

/// Names looked at in one `chats/` directory.
const MAX_CHATS: usize = 16 * 1024;

/// Sidecars read in all.
const MAX_SIDECARS: usize = 256;

/// Every sidecar under `root/projects/*/chats/` that reads, with when it
/// was written (bounded: [`MAX_PROJECTS`], [`MAX_CHATS`], [`MAX_SIDECARS`]).
fn sidecars(root: &Path) -> Vec<(RuntimeStatus, Option<UnixMillis>)> {
    let Ok(projects) = fs::read_dir(root.join("projects")) else {
        return Vec::new();
    };
    let host = host_name();
    let mut out = Vec::new();
    let mut read = 0;
    for project in projects.filter_map(Result::ok).take(MAX_PROJECTS) {
        let Ok(chats) = fs::read_dir(project.path().join("chats")) else {
            continue;
        };
        for e in chats.filter_map(Result::ok).take(MAX_CHATS) {
            let name = e.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(SUFFIX)) else {
                continue;
            };
            if read == MAX_SIDECARS {
                return out;
            }
            read += 1;
            let path = e.path();
            let Some(bytes) = read_small(&path, Kind::PidRegistry, MAX_RUNTIME) else {
                continue;
            };
            if let Ok(status) = parse_runtime(&bytes, id, host.as_deref()) {
                out.push((status, mtime(&path)));
            }
        }
    }
    out
}

/// The sessions the sidecars name for `pids`: for each pid, the sidecar
/// of its latest start (a crashed run's file naming a pid reused since is
/// older).
fn of_pids(agent: &AgentDecl, root: &Path, pids: &[u32], _: Option<UnixMillis>) -> registry::Named {
    let mut latest: BTreeMap<u32, (RuntimeStatus, Option<UnixMillis>)> = BTreeMap::new();
    for (status, written) in sidecars(root) {
        if !pids.contains(&status.pid) || !agent.id_shape.matches(&status.session_id) {
            continue;
        }
        let newer = latest.get(&status.pid).is_none_or(|(kept, _)| {
            status.started_at.unwrap_or(f64::MIN) > kept.started_at.unwrap_or(f64::MIN)
        });
        if newer {
            latest.insert(status.pid, (status, written));
        }
    }
    let mut out = registry::Named::new();
    for (status, written) in latest.into_values() {
        let at = out.entry(status.session_id).or_insert(written);
        *at = (*at).max(written);
    }
    out
}

/// Every sidecar's entry.
fn registered(root: &Path, out: &mut Vec<Registered>) {
    out.extend(sidecars(root).into_iter().map(|(s, _)| Registered {
        agent: AgentKind::Qwen,
        pid: s.pid,
        session_id: s.session_id,
    }));
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use agent_resume_core::Catalog;

    use super::*;

    const ID: &str = "8a4b3c1f-5d2e-4c6d-9e0f-1a2b3c4d5e6f";
    const NEW: &str = "9e0f3c1f-5d2e-4c6d-8a4b-1a2b3c4d5e6f";

    fn sidecar(root: &Path, slug: &str, name: &str, pid: u32, id: &str, started: f64) {
        let chats = root.join("projects").join(slug).join("chats");
        fs::create_dir_all(&chats).unwrap();
        fs::write(
            chats.join(format!("{name}{SUFFIX}")),
            format!(
                "{{\"schema_version\":1,\"pid\":{pid},\"session_id\":\"{id}\",\
                 \"work_dir\":\"/w/p\",\"started_at\":{started},\"qwen_version\":\"0.24.4\"}}"
            ),
        )
        .unwrap();
    }

    fn named(root: &Path, pids: &[u32]) -> Vec<String> {
        let agent = Catalog::embedded().agent(AgentKind::Qwen);
        of_pids(agent, root, pids, None).into_keys().collect()
    }

    #[test]
    fn a_runtime_sidecar_names_the_session_of_its_pid_in_any_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        sidecar(root, "-w-p", ID, 11, ID, 100.0);
        sidecar(root, "-w-q", NEW, 22, NEW, 100.0);
        // The chat file beside it is not a sidecar.
        fs::write(
            root.join("projects/-w-p/chats").join(format!("{ID}.jsonl")),
            "{}\n",
        )
        .unwrap();
        assert_eq!(named(root, &[10, 11]), [ID]);
        assert_eq!(named(root, &[22]), [NEW]);
        assert!(named(root, &[33]).is_empty(), "no sidecar names pid 33");
    }

    #[test]
    fn a_sidecar_naming_another_session_or_id_shape_is_skipped_and_the_latest_start_of_a_pid_wins()
    {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Its file says ID, its content NEW: neither is taken.
        sidecar(root, "-w-p", ID, 11, NEW, 100.0);
        assert!(named(root, &[11]).is_empty());
        // An id that fails Qwen's shape.
        sidecar(root, "-w-p", "not-an-id", 12, "not-an-id", 100.0);
        assert!(named(root, &[12]).is_empty());
        // A crashed run left a sidecar naming pid 13; a later run has it.
        sidecar(root, "-w-p", ID, 13, ID, 100.0);
        sidecar(root, "-w-q", NEW, 13, NEW, 200.0);
        assert_eq!(named(root, &[13]), [NEW]);
        let mut all = Vec::new();
        registered(root, &mut all);
        // Every sidecar that reads, its id's shape unchecked (as Claude's).
        assert_eq!(all.len(), 3, "{all:?}");
    }
}
