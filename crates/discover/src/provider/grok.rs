//! Grok CLI: `$GROK_HOME` (default `~/.grok`) holds session directories
//! `sessions/<url-encoded cwd>/<id>/` (`chat_history.jsonl`,
//! `summary.json`) and the pid registry `active_sessions.json`
//! (`session_id`, `pid`, in a list or a map).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentDecl, AgentKind};

use super::{unknown_resumable, Provider};
use crate::file::Kind;
use crate::json::Line;
use crate::parse::{prompt_text, Acc, Raw, Records};
use crate::provider::HomeEnv;
use crate::registry::{self, Registered, Registry};
use crate::store::{read_small, Entry, FileStore, Layout, Named, Projects, SessionDir, Store};

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Grok,
    home,
    store: Store::Files(FileStore {
        dir: &["sessions"],
        layout: Layout::Projects(Projects {
            chats: false,
            cwd_hint,
            entry,
            // Grok's candidates are session directories, read by path.
            by_path: true,
        }),
        session_dir: |_| {
            Some(SessionDir {
                records: "chat_history.jsonl",
                side: "summary.json",
                read_side: summary,
            })
        },
    }),
    records: Records {
        apply,
        cut_id_key: None,
        needs_header: false,
    },
    file_id: super::whole_name,
    resumable: unknown_resumable,
    package: Some("/@xai-official/grok/"),
    registry: Some(Registry {
        of_pids,
        all: registered,
    }),
    argv_id_flags: &[],
    hook: None,
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("GROK_HOME", env.under(".grok"))
}

fn cwd_hint(project: &Entry) -> Option<PathBuf> {
    project.name().and_then(decode_cwd)
}

/// A session is a directory named by its id.
fn entry(name: &str, is_dir: bool) -> Named<'_> {
    is_dir.then_some((Some(name), None))
}

/// Grok's directory names: the URL-encoded cwd (`%2Fhome%2Fme`).
fn decode_cwd(name: &str) -> Option<PathBuf> {
    let b = name.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (b[i], b.get(i + 1).copied(), b.get(i + 2).copied()) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                let v = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                out.push(u8::try_from(v).unwrap_or(b'?'));
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    let p = PathBuf::from(OsString::from_vec(out));
    p.is_absolute().then_some(p)
}

/// `summary.json`: a title and a directory.
fn summary(bytes: &[u8], acc: &mut Acc) {
    if let Ok(l) = serde_json::from_slice::<Line<'_>>(bytes) {
        let t = l.title.get().or(l.summary.get()).or(l.name.get());
        acc.summary = t.map(str::to_owned).or(acc.summary.take());
        if acc.cwd.is_none() {
            acc.cwd = l.cwd.get().map(str::to_owned);
        }
    }
}

/// Chat messages, by role.
fn apply(acc: &mut Acc, _kind: &str, l: &Line<'_>, raw: Raw<'_>) {
    let role = l
        .role
        .get()
        .or_else(|| l.message.0.as_ref().and_then(|m| m.role.get()));
    acc.chat(role, raw, |b| {
        prompt_text(&b.content).or_else(|| prompt_text(&b.message))
    });
}

/// `active_sessions.json`, at most 1 MiB.
fn read_registry(root: &Path) -> Vec<Registered> {
    let mut found = Vec::new();
    let path = root.join("active_sessions.json");
    if let Some(bytes) = read_small(&path, Kind::PidRegistry, 1 << 20) {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) {
            entries(&v, 0, &mut found);
        }
    }
    found
}

fn of_pids(agent: &AgentDecl, root: &Path, pids: &[u32]) -> registry::Named {
    let written = crate::store::mtime(&root.join("active_sessions.json"));
    read_registry(root)
        .into_iter()
        .filter(|r| pids.contains(&r.pid))
        .map(|r| r.session_id)
        .filter(|id| agent.id_shape.matches(id))
        .map(|id| (id, written))
        .collect()
}

fn registered(root: &Path, out: &mut Vec<Registered>) {
    out.extend(read_registry(root));
}

/// The `session_id` and `pid` pairs of the registry, in a list or a map,
/// at most 4 levels down.
fn entries(v: &serde_json::Value, depth: u8, out: &mut Vec<Registered>) {
    if depth > 4 {
        return;
    }
    match v {
        serde_json::Value::Object(m) => {
            let id = m.get("session_id").and_then(|x| x.as_str());
            let pid = m
                .get("pid")
                .and_then(serde_json::Value::as_u64)
                .and_then(|p| u32::try_from(p).ok());
            if let (Some(id), Some(pid)) = (id, pid) {
                out.push(Registered {
                    agent: AgentKind::Grok,
                    pid,
                    session_id: id.to_owned(),
                });
            } else {
                m.values().for_each(|x| entries(x, depth + 1, out));
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| entries(x, depth + 1, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

    #[test]
    fn grok_directory_names_decode_to_the_cwd() {
        assert_eq!(
            decode_cwd("%2FUsers%2Fme%2Fmy%20proj"),
            Some(PathBuf::from("/Users/me/my proj"))
        );
        assert_eq!(decode_cwd("relative%2Fx"), None);
        assert_eq!(decode_cwd("%2Fbad%zz"), Some(PathBuf::from("/bad%zz")));
    }

    #[test]
    fn grok_registry_entries_are_found_in_a_list_or_a_map() {
        let mut out = Vec::new();
        let v: serde_json::Value = serde_json::from_str(&format!(
            r#"{{"sessions":[{{"session_id":"{ID}","pid":42,"cwd":"/p","opened_at":"t"}}]}}"#
        ))
        .expect("json");
        entries(&v, 0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].pid, out[0].session_id.as_str()), (42, ID));
    }
}
