//! Grok CLI: `$GROK_HOME` (default `~/.grok`) holds session directories
//! `sessions/<url-encoded cwd>/<id>/` (`chat_history.jsonl`,
//! `summary.json`) and the pid registry `active_sessions.json`
//! (`session_id`, `pid`, in a list or a map).
//!
//! Grok 1.0.41 begins every `chat_history.jsonl` with a ~9 KB system-prompt
//! record, past the listing's prefix: `summary.json` (`{info: {id, cwd},
//! session_summary, session_kind}`) names the session instead. Its time is
//! the id's own (a UUID v7) and the directory's.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentDecl, AgentKind};

use super::{unknown_resumable, HookFile, Provider};
use crate::file::Kind;
use crate::json::Line;
use crate::json::Str;
use crate::parse::{prompt_text, Acc, Raw, Records};
use crate::provider::HomeEnv;
use crate::registry::{self, Registered, Registry};
use crate::store::{read_small, Entry, FileStore, Layout, Named, Projects, SessionDir, Store};

/// The most bytes of `summary.json` read: a title and a few keys, far
/// below this; a larger one is cut and names nothing.
const SUMMARY_MAX: u64 = 64 << 10;

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
                side_max: SUMMARY_MAX,
                read_side: summary,
            })
        },
    }),
    records: Records {
        apply,
        cut_id_key: None,
        needs_header: false,
        document: None,
    },
    file_id: super::whole_name,
    resumable: unknown_resumable,
    package: Some("/@xai-official/grok/"),
    registry: Some(Registry {
        of_pids,
        all: registered,
    }),
    argv_id_flags: &[],
    first_prompt: false,
    // 1.0.41: every `hooks/*.json` is read and merged (Claude's shape), so
    // agent-resume's own file is the only one it writes; SessionStart comes
    // at launch and at a resume, carrying `sessionId` and `session_id`.
    hook: Some(HookFile {
        file: "hooks/agent-resume.json",
        events: &["SessionStart"],
    }),
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

/// `summary.json`'s keys the listing reads; the rest is skipped unread.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct Summary<'a> {
    #[serde(borrow)]
    info: Info<'a>,
    #[serde(borrow)]
    session_summary: Str<'a>,
    #[serde(borrow)]
    title: Str<'a>,
    #[serde(borrow)]
    cwd: Str<'a>,
}

/// `summary.json`'s `info`: the session's id and directory.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct Info<'a> {
    #[serde(borrow)]
    id: Str<'a>,
    #[serde(borrow)]
    cwd: Str<'a>,
}

/// `summary.json`: the id and directory (`info`), and the title
/// (`session_summary`).
fn summary(bytes: &[u8], acc: &mut Acc) {
    let Ok(s) = serde_json::from_slice::<Summary<'_>>(bytes) else {
        return;
    };
    let t = s.session_summary.get().or(s.title.get());
    acc.summary = t.map(str::to_owned).or(acc.summary.take());
    if acc.cwd.is_none() {
        acc.cwd = s.info.cwd.get().or(s.cwd.get()).map(str::to_owned);
    }
    if acc.header_id.is_none() {
        acc.header_id = s.info.id.get().map(str::to_owned);
    }
}

/// Chat messages, by role: `role` (older records) or, as 1.0.41 writes
/// them, the record's `type` (`user`, `assistant`, `system`). 1.0.41 wraps
/// what the user typed in `<user_query>`, after injected `<user_info>` and
/// `<system-reminder>` user records, which are not the prompt.
fn apply(acc: &mut Acc, kind: &str, l: &Line<'_>, raw: Raw<'_>) {
    let role = l
        .role
        .get()
        .or_else(|| l.message.0.as_ref().and_then(|m| m.role.get()))
        .or(matches!(kind, "user" | "assistant" | "system").then_some(kind));
    acc.chat(role, raw, |b| {
        user_query(&b.content)
            .or_else(|| prompt_text(&b.content))
            .or_else(|| prompt_text(&b.message))
    });
}

/// The text of a `<user_query>…</user_query>` message, cleaned.
fn user_query(m: &crate::json::Msg<'_>) -> Option<String> {
    let t = m.text.as_deref()?.trim();
    let inner = t
        .strip_prefix("<user_query>")?
        .strip_suffix("</user_query>")?;
    crate::text::clean(inner.trim(), crate::text::MAX_TEXT)
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

fn of_pids(
    agent: &AgentDecl,
    root: &Path,
    pids: &[u32],
    _: Option<agent_resume_core::UnixMillis>,
) -> registry::Named {
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

    /// Grok 1.0.41's id: a UUID v7.
    const ID7: &str = "019ad4e7-3c80-7601-b726-1133cc72ef76";

    /// A session directory as Grok 1.0.41 writes it: `chat_history.jsonl`
    /// opening with a system-prompt record larger than the listing's 4 KiB
    /// prefix, and `summary.json` beside it.
    fn session(root: &Path, project: &str, summary: &str) -> PathBuf {
        let dir = root.join("sessions").join(project).join(ID7);
        std::fs::create_dir_all(&dir).expect("session dir");
        let system = serde_json::json!({"role": "system", "content": "x".repeat(9000)});
        let user = serde_json::json!({"role": "user", "content": "fix the flaky test"});
        std::fs::write(
            dir.join("chat_history.jsonl"),
            format!("{system}\n{user}\n"),
        )
        .expect("history");
        std::fs::write(dir.join("summary.json"), summary).expect("summary");
        dir
    }

    fn read(dir: PathBuf, cwd_hint: Option<PathBuf>) -> Result<crate::SessionInfo, crate::Problem> {
        let mut c = crate::store::Candidate {
            name_id: Some(ID7.to_owned()),
            path: dir,
            id_hint: None,
            cwd_hint,
            dir: None,
        };
        crate::store::read(
            AgentKind::Grok,
            &PROVIDER.store,
            &PROVIDER.records,
            &mut c,
            crate::read::Depth::FAST,
        )
        .map(|(s, _)| s)
    }

    /// Grok 1.0.41's records as it writes them (seen here): keyed by
    /// `type`, injected user records first, the prompt in `<user_query>`.
    #[test]
    fn grok_1_0_41_s_first_prompt_is_its_user_query_past_injected_user_records() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("sessions").join("p").join(ID7);
        std::fs::create_dir_all(&dir).expect("session dir");
        let text = |t: &str| serde_json::json!([{"type": "text", "text": t}]);
        let records = [
            serde_json::json!({"type": "system", "content": "You are Grok. ".repeat(700)}),
            serde_json::json!({"type": "user", "content": text("<user_info>\nOS Version: linux\n</user_info>")}),
            serde_json::json!({"type": "user", "content": text("<system-reminder>\nworkflows\n</system-reminder>")}),
            serde_json::json!({"type": "user", "content": text("<user_query>\nfix the flaky test\n</user_query>"), "prompt_index": 0}),
            serde_json::json!({"type": "assistant", "content": "ok", "model_id": "gpt-4o"}),
        ];
        let body: String = records.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(dir.join("chat_history.jsonl"), body).expect("history");
        let mut c = crate::store::Candidate {
            name_id: Some(ID7.to_owned()),
            path: dir,
            id_hint: None,
            cwd_hint: None,
            dir: None,
        };
        let (s, _) = crate::store::read(
            AgentKind::Grok,
            &PROVIDER.store,
            &PROVIDER.records,
            &mut c,
            crate::read::Depth::Full,
        )
        .expect("listed");
        assert_eq!(s.first_prompt.as_deref(), Some("fix the flaky test"));
    }

    #[test]
    fn grok_session_with_a_first_record_past_the_prefix_is_named_by_its_summary() {
        let root = tempfile::tempdir().expect("tempdir");
        // A cwd too long for a directory name: a slug, so only `info` names it.
        let summary = format!(
            r#"{{"info":{{"id":"{ID7}","cwd":"/home/me/proj"}},"session_summary":"Fix the flaky test","session_kind":"interactive"}}"#
        );
        let dir = session(root.path(), "proj-3f2a9c", &summary);
        assert!(
            std::fs::metadata(dir.join("chat_history.jsonl"))
                .expect("len")
                .len()
                > 8192
        );
        let s = read(dir, None).expect("listed");
        assert_eq!(s.id, ID7);
        assert_eq!(s.cwd, Some(PathBuf::from("/home/me/proj")));
        assert_eq!(s.title.as_deref(), Some("Fix the flaky test"));
        assert_eq!(
            s.start_time(),
            crate::correlate::uuid_v7_millis(ID7),
            "the id's own time"
        );
        assert!(s.start_time().is_some());
    }

    #[test]
    fn grok_session_with_neither_records_nor_summary_in_reach_is_half_written() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = session(root.path(), "%2Fhome%2Fme", "not json");
        assert_eq!(
            read(dir, Some(PathBuf::from("/home/me"))).map(|s| s.id),
            Err(crate::Problem::HalfWritten)
        );
    }

    #[test]
    fn grok_summary_json_names_id_cwd_and_title() {
        let mut acc = Acc::default();
        summary(
            format!(
                r#"{{"info":{{"id":"{ID7}","cwd":"/p"}},"session_summary":"S","session_kind":"interactive","title":"T"}}"#
            )
            .as_bytes(),
            &mut acc,
        );
        assert_eq!(acc.header_id.as_deref(), Some(ID7));
        assert_eq!(acc.cwd.as_deref(), Some("/p"));
        assert_eq!(acc.summary.as_deref(), Some("S"));
    }

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
