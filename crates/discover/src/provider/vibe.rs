//! Mistral Vibe: `$VIBE_HOME` (default `~/.vibe`) holds, as 3.0.2 writes
//! them:
//!
//! - `logs/session/unified/<id>/` per session, made at the first prompt:
//!   `meta.json` (`session_id`, `start_time`, `environment.working_directory`,
//!   `title`), a one-line `CURRENT` (`{generation, session_id, …}`) and a
//!   rotating `journal/`;
//! - `logs/session/active/<id>.lock`, held open from launch by the UI's
//!   child `vibe-app-server`, and beside it `<id>.lock.json`
//!   (`{process_id, session_id}`, the server's pid): the pid registry.
//!
//! The id is 8-4-4-4-12 lowercase hex whose version nibble is not an RFC
//! one, so its time is `meta.json`'s `start_time`.
//!
//! Vibe's hooks live in `hooks.toml` (`post_agent`, after each turn; no
//! session-start hook). agent-resume does not edit that file: capture
//! needs no hook (the open lock names the session from launch).

use std::fs;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentDecl, AgentKind};

use super::{unknown_resumable, Provider};
use crate::file::Kind;
use crate::json::{parse_time, Line, Str};
use crate::parse::{Acc, Raw, Records};
use crate::provider::HomeEnv;
use crate::registry::{self, Registered, Registry};
use crate::store::{mtime, read_small, Candidate, Entry, FileStore, Layout, SessionDir, Store};
use crate::Note;

/// The most bytes of `meta.json` read (about 800 bytes as written).
const META_MAX: u64 = 64 << 10;

/// The most bytes of one `<id>.lock.json` read (about 130 as written).
const LOCK_MAX: u64 = 4 << 10;

/// The most lock files one registry read looks at.
const LOCKS_MAX: usize = 4096;

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Vibe,
    home,
    store: Store::Files(FileStore {
        dir: &["logs", "session", "unified"],
        layout: Layout::Custom(walk),
        session_dir: |_| {
            Some(SessionDir {
                records: "CURRENT",
                side: "meta.json",
                side_max: META_MAX,
                read_side: meta,
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
    package: None,
    registry: Some(Registry {
        of_pids,
        all: registered,
    }),
    argv_id_flags: &[],
    first_prompt: false,
    hook: None,
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.var_or("VIBE_HOME", env.under(".vibe"))
}

/// Sessions are the store's directories, named by the id.
fn walk(
    _base: &Path,
    _hold_dirs: bool,
    top: Vec<Entry>,
    out: &mut Vec<Candidate>,
    notes: &mut Vec<Note>,
    _found: &mut dyn FnMut(Vec<Candidate>),
) {
    let dirs = top.into_iter().filter(|e| e.is_dir).collect();
    crate::store::flat(AgentKind::Vibe, dirs, out, notes, |name, e| {
        Some((name.to_owned(), e.path.clone()))
    });
}

/// `meta.json`'s keys the listing reads; the rest is skipped unread.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct Meta<'a> {
    #[serde(borrow)]
    session_id: Str<'a>,
    #[serde(borrow)]
    start_time: Str<'a>,
    #[serde(borrow)]
    title: Str<'a>,
    #[serde(borrow)]
    environment: Environment<'a>,
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct Environment<'a> {
    #[serde(borrow)]
    working_directory: Str<'a>,
}

/// `meta.json`: the id, directory, start and title.
fn meta(bytes: &[u8], acc: &mut Acc) {
    let Ok(m) = serde_json::from_slice::<Meta<'_>>(bytes) else {
        return;
    };
    if acc.header_id.is_none() {
        acc.header_id = m.session_id.get().map(str::to_owned);
    }
    if acc.cwd.is_none() {
        acc.cwd = m.environment.working_directory.get().map(str::to_owned);
    }
    if let Some(t) = m.start_time.get().and_then(parse_time) {
        acc.started = Some(acc.started.map_or(t, |s| s.min(t)));
    }
    if let Some(t) = m.title.get() {
        acc.summary = Some(t.to_owned());
    }
}

/// `CURRENT` names the snapshot generation: nothing the listing shows.
fn apply(_acc: &mut Acc, _kind: &str, _l: &Line<'_>, _raw: Raw<'_>) {}

/// One `active/<id>.lock.json`.
#[derive(serde::Deserialize)]
struct Lock {
    #[serde(default)]
    process_id: Option<u32>,
    #[serde(default)]
    session_id: Option<String>,
}

/// Every lock file's `(pid, id)` whose id is the one its name carries,
/// with when it was written.
fn locks(root: &Path) -> Vec<(Registered, Option<agent_resume_core::UnixMillis>)> {
    let dir = root.join("logs/session/active");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.filter_map(Result::ok).take(LOCKS_MAX) {
        let path = e.path();
        let Some(named) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".lock.json"))
        else {
            continue;
        };
        let Some(bytes) = read_small(&path, Kind::PidRegistry, LOCK_MAX) else {
            continue;
        };
        if let Ok(Lock {
            process_id: Some(pid),
            session_id: Some(id),
        }) = serde_json::from_slice(&bytes)
        {
            // A lock naming another session than its file is no evidence.
            if id == named {
                out.push((
                    Registered {
                        agent: AgentKind::Vibe,
                        pid,
                        session_id: id,
                    },
                    mtime(&path),
                ));
            }
        }
    }
    out
}

fn of_pids(
    agent: &AgentDecl,
    root: &Path,
    pids: &[u32],
    _: Option<agent_resume_core::UnixMillis>,
) -> registry::Named {
    let mut out = registry::Named::new();
    for (r, written) in locks(root) {
        if pids.contains(&r.pid) && agent.id_shape.matches(&r.session_id) {
            let at = out.entry(r.session_id).or_insert(written);
            *at = (*at).max(written);
        }
    }
    out
}

fn registered(root: &Path, out: &mut Vec<Registered>) {
    out.extend(locks(root).into_iter().map(|(r, _)| r));
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_resume_core::Catalog;

    const ID: &str = "65639cbd-e55f-5c86-9cc2-713ae9a243a3";

    fn vibe() -> &'static AgentDecl {
        Catalog::embedded().agent(AgentKind::Vibe)
    }

    fn acc_of(bytes: &[u8]) -> Acc {
        let mut acc = Acc::new(crate::Depth::FAST);
        meta(bytes, &mut acc);
        acc
    }

    #[test]
    fn vibes_ids_have_no_rfc_version_nibble_and_pass_the_uuid_shape() {
        for id in [ID, "d1d71256-7367-b565-16de-c53ee8a11896"] {
            assert!(vibe().id_shape.matches(id), "{id}");
        }
        for bad in [
            "65639CBD-E55F-5C86-9CC2-713AE9A243A3",
            "65639cbd",
            "65639cbd-e55f-5c86-9cc2-713ae9a243a3/..",
        ] {
            assert!(!vibe().id_shape.matches(bad), "{bad}");
        }
    }

    #[test]
    fn meta_json_gives_the_id_directory_start_and_title() {
        let written = br#"{
  "session_id": "65639cbd-e55f-5c86-9cc2-713ae9a243a3",
  "parent_session_id": null,
  "start_time": "2026-12-05T04:25:20.024000+00:00",
  "environment": { "working_directory": "/home/me/proj" },
  "title": "fix the build",
  "config": { "active_model": "stub" }
}"#;
        let acc = acc_of(written);
        assert_eq!(acc.header_id.as_deref(), Some(ID));
        assert_eq!(acc.cwd.as_deref(), Some("/home/me/proj"));
        assert_eq!(acc.summary.as_deref(), Some("fix the build"));
        assert_eq!(
            acc.started,
            parse_time("2026-12-05T04:25:20.024Z"),
            "start_time with microseconds and an offset"
        );
    }

    #[test]
    fn hostile_or_half_written_meta_json_names_nothing() {
        for bad in [
            &b""[..],
            b"{\"session_id\": \"65639cbd-e55f",
            b"[1, 2]",
            b"{\"session_id\": 7, \"environment\": \"/x\", \"start_time\": [] }",
            b"{\"start_time\": \"yesterday\"}",
            b"\xff\xfe{}",
        ] {
            let acc = acc_of(bad);
            assert_eq!(acc.header_id, None, "{bad:?}");
            assert_eq!(acc.cwd, None, "{bad:?}");
            assert_eq!(acc.started, None, "{bad:?}");
        }
    }

    fn lock_dir() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().expect("tempdir");
        let dir = t.path().join("logs/session/active");
        fs::create_dir_all(&dir).expect("mkdir");
        (t, dir)
    }

    #[test]
    fn the_lock_of_the_app_server_below_the_ui_names_its_session() {
        let (t, dir) = lock_dir();
        fs::write(
            dir.join(format!("{ID}.lock.json")),
            format!(r#"{{"acquired_at":"2026-12-05T04:25:20.000Z","lease_version":1,"process_id":31128,"session_id":"{ID}"}}"#),
        )
        .expect("write");
        fs::write(dir.join(format!("{ID}.lock")), "").expect("write");
        let named = of_pids(vibe(), t.path(), &[31097, 31128], None);
        assert_eq!(named.keys().collect::<Vec<_>>(), [ID]);
        assert!(
            of_pids(vibe(), t.path(), &[31097], None).is_empty(),
            "not the UI's pid"
        );
        let mut all = Vec::new();
        registered(t.path(), &mut all);
        assert_eq!(all.len(), 1);
        assert_eq!((all[0].pid, all[0].session_id.as_str()), (31128, ID));
    }

    #[test]
    fn a_lock_naming_another_session_or_a_bad_id_is_no_evidence() {
        let (t, dir) = lock_dir();
        let other = "d1d71256-7367-b565-16de-c53ee8a11896";
        // The file's name and its content disagree.
        fs::write(
            dir.join(format!("{ID}.lock.json")),
            format!(r#"{{"process_id":5,"session_id":"{other}"}}"#),
        )
        .expect("write");
        // An id that fails the shape, named alike.
        fs::write(
            dir.join("$(reboot).lock.json"),
            r#"{"process_id":5,"session_id":"$(reboot)"}"#,
        )
        .expect("write");
        // Half-written and hostile.
        fs::write(
            dir.join(format!("{other}.lock.json")),
            r#"{"process_id":5,"sess"#,
        )
        .expect("write");
        fs::write(dir.join("x.lock.json"), vec![b'{'; 8192]).expect("write");
        assert!(of_pids(vibe(), t.path(), &[5], None).is_empty());
    }
}
