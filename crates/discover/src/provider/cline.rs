//! Cline: `$CLINE_DATA_DIR` (default `$CLINE_DIR/data`, `~/.cline/data`)
//! holds `sessions/<id>/<id>.json` (`session_id`, `pid`, `started_at`,
//! `ended_at` once it ended, `status`, `interactive`, `cwd`, the first
//! `prompt`, then `metadata` with its `title`) beside `<id>.messages.json`.
//! The id is the creation time in milliseconds, `_`, 5 base-36 characters.
//!
//! The session file is one JSON document; 3.0.65 writes the fields above in
//! that order, and the first prompt and the system prompt (in `metadata`)
//! are its only long values. It is never read past [`DOCUMENT_MAX`] bytes:
//! the id, time and directory precede the prompt, so a longer file is
//! scanned for them and listed without its title.
//!
//! The file is also a pid registry: `pid` is the process that created the
//! session, the UI's own when it started Cline's hub daemon itself, the
//! daemon's (`cline --cline-hub-daemon`, a shared server) when one was
//! running already. A resumed session keeps the pid of the process that
//! created it, dead since (3.0.65 rewrites the file at each turn with the
//! old pid). So a session counts for a pid only while it has not ended and
//! was created (its id's time) after the process started: a pid reused
//! since (after a reboot, say) never names the session another pane's
//! resumed UI is writing. Of several, the last written is the UI's current
//! one.

use std::path::{Path, PathBuf};

use agent_resume_core::{AgentDecl, AgentKind, UnixMillis};
use serde_json::Value;

use super::{not_a_dir, unknown_resumable, Provider};
use crate::file::Kind;
use crate::json::{parse_time, scan_str, scan_u64, text_of};
use crate::parse::{Acc, Document, Records};
use crate::provider::HomeEnv;
use crate::registry::{self, Registered, Registry};
use crate::store::{entries, id_ok, mtime, read_small, Candidate, Entry, FileStore, Layout, Store};
use crate::text::{clean, MAX_TEXT};
use crate::{Note, Problem};

/// The most bytes of a session file read.
pub(crate) const DOCUMENT_MAX: u64 = 64 << 10;

/// The most bytes of a session file read as a registry entry: its id, pid
/// and end come first.
const ENTRY_MAX: u64 = 1024;

/// The newest session directories read as the registry.
const REGISTRY_SCAN: usize = 1024;

pub(super) const PROVIDER: Provider = Provider {
    kind: AgentKind::Cline,
    home,
    store: Store::Files(FileStore {
        dir: &["sessions"],
        layout: Layout::Custom(walk),
        session_dir: not_a_dir,
    }),
    records: Records {
        apply: |_, _, _, _| {},
        cut_id_key: None,
        needs_header: false,
        document: Some(Document {
            max: DOCUMENT_MAX,
            counts: false,
            read: document,
        }),
    },
    file_id: |name| name.strip_suffix(".json"),
    resumable: unknown_resumable,
    package: None,
    registry: Some(Registry {
        of_pids,
        all: registered,
    }),
    argv_id_flags: &[],
    // Its session is written at the first exchange, however late.
    first_prompt: true,
    hook: None,
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    env.absolute("CLINE_DATA_DIR")
        .or_else(|| env.absolute("CLINE_DIR").map(|d| d.join("data")))
        .or_else(|| env.under(".cline/data"))
}

/// The session file of the session directory `dir` named `id`.
fn session_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

/// Session directories named by their id, each read through its
/// `<id>.json`.
fn walk(
    _base: &Path,
    _hold_dirs: bool,
    top: Vec<Entry>,
    out: &mut Vec<Candidate>,
    notes: &mut Vec<Note>,
    _found: &mut dyn FnMut(Vec<Candidate>),
) {
    crate::store::flat(AgentKind::Cline, top, out, notes, |name, e| {
        e.is_dir
            .then(|| (name.to_owned(), session_file(&e.path, name)))
    });
}

/// What the user typed, out of the `<user_input mode="…">` wrapper the UI
/// stores it in.
fn typed(prompt: &str) -> Option<String> {
    let t = prompt.trim();
    let inner = match t.strip_prefix("<user_input") {
        Some(rest) => {
            let (_, body) = rest.split_once('>')?;
            body.strip_suffix("</user_input>").unwrap_or(body)
        }
        None => t,
    };
    clean(inner, MAX_TEXT)
}

/// A session file's id, start, directory, title and first prompt.
fn document(bytes: &[u8], whole: bool, acc: &mut Acc) -> Result<(), Problem> {
    if whole {
        let v: Value = serde_json::from_slice(bytes).map_err(|e| {
            if e.is_eof() {
                Problem::HalfWritten
            } else {
                Problem::Garbage
            }
        })?;
        acc.header_id = text_of(v.get("session_id")).map(str::to_owned);
        acc.cwd = text_of(v.get("cwd")).map(str::to_owned);
        acc.started = text_of(v.get("started_at")).and_then(parse_time);
        acc.first_prompt = text_of(v.get("prompt")).and_then(typed);
        acc.summary = text_of(v.get("metadata").and_then(|m| m.get("title"))).map(str::to_owned);
    } else {
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(Problem::Garbage);
        }
        acc.header_id = scan_str(bytes, "session_id");
        acc.cwd = scan_str(bytes, "cwd");
        acc.started = scan_str(bytes, "started_at")
            .as_deref()
            .and_then(parse_time);
        acc.first_prompt = scan_str(bytes, "prompt").as_deref().and_then(typed);
    }
    match acc.header_id {
        Some(_) => Ok(()),
        None if whole => Err(Problem::Garbage),
        None => Err(Problem::HalfWritten),
    }
}

/// A registry entry: a session file's own id, its pid, and whether it
/// ended, from its first [`ENTRY_MAX`] bytes.
fn entry(path: &Path, id: &str) -> Option<(u32, bool)> {
    let bytes = read_small(path, Kind::PidRegistry, ENTRY_MAX)?;
    if scan_str(&bytes, "session_id").as_deref() != Some(id) {
        return None;
    }
    let pid = u32::try_from(scan_u64(&bytes, "pid")?).ok()?;
    Some((pid, scan_str(&bytes, "ended_at").is_some()))
}

/// How far a session's creation may seem to precede its process's start:
/// the start is read to a clock tick, plus the wall clock's steps since
/// boot.
const START_SLACK_MILLIS: i64 = 1000;

/// When session `id` was created: its first 13 digits, in milliseconds.
fn created(id: &str) -> Option<UnixMillis> {
    id.get(..13)?.parse().ok().map(UnixMillis)
}

/// The newest [`REGISTRY_SCAN`] session directories (ids begin with their
/// creation time), as (id, session file).
fn newest(root: &Path) -> Vec<(String, PathBuf)> {
    let Ok(mut all) = entries(&root.join("sessions")) else {
        return Vec::new();
    };
    all.retain(|e| e.is_dir);
    let skip = all.len().saturating_sub(REGISTRY_SCAN);
    all.into_iter()
        .skip(skip)
        .filter_map(|e| {
            let id = e.name()?.to_owned();
            id_ok(AgentKind::Cline, &id).then(|| {
                let file = session_file(&e.path, &id);
                (id, file)
            })
        })
        .collect()
}

/// The live session of `pids` created since `since`, the last written: the
/// UI's current one. Without a start time no entry can be told from a
/// stale one.
fn of_pids(
    agent: &AgentDecl,
    root: &Path,
    pids: &[u32],
    since: Option<UnixMillis>,
) -> registry::Named {
    let mut out = registry::Named::new();
    let Some(since) = since else {
        return out;
    };
    let mut best: Option<(String, UnixMillis)> = None;
    let after = |t: UnixMillis| t.0 >= since.0.saturating_sub(START_SLACK_MILLIS);
    for (id, file) in newest(root) {
        // Names and times first: most sessions were made long before.
        if !created(&id).is_some_and(after) {
            continue;
        }
        let Some(written) = mtime(&file).filter(|w| after(*w)) else {
            continue;
        };
        let Some((pid, ended)) = entry(&file, &id) else {
            continue;
        };
        if ended || !pids.contains(&pid) || !agent.id_shape.matches(&id) {
            continue;
        }
        if best.as_ref().is_none_or(|(_, at)| written.0 > at.0) {
            best = Some((id, written));
        }
    }
    if let Some((id, written)) = best {
        out.insert(id, Some(written));
    }
    out
}

/// Every live session of the newest ones.
fn registered(root: &Path, out: &mut Vec<Registered>) {
    for (id, file) in newest(root) {
        if let Some((pid, false)) = entry(&file, &id) {
            out.push(Registered {
                agent: AgentKind::Cline,
                pid,
                session_id: id,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::read::Depth;
    use agent_resume_core::Catalog;
    use std::fs;

    const ID: &str = "1796444736065_1iqet";

    /// A session file as 3.0.65 writes it, pretty-printed.
    fn session(id: &str, pid: u32, ended: bool, prompt: &str) -> String {
        let mut v = serde_json::json!({
            "version": 1,
            "session_id": id,
            "source": "cli",
            "pid": pid,
            "started_at": "2026-12-05T04:25:36.071Z",
            "exit_code": null,
            "status": "idle",
            "interactive": true,
            "cwd": "/w/p",
            "workspace_root": "/w/p",
            "prompt": format!("<user_input mode=\"act\">{prompt}</user_input>"),
            "metadata": {"systemPrompt": "You are Cline", "title": "hello there"},
        });
        if ended {
            v["ended_at"] = "2026-12-05T04:26:00.000Z".into();
            v["status"] = "completed".into();
        }
        serde_json::to_string_pretty(&v).unwrap()
    }

    fn read(bytes: &[u8], whole: bool) -> Result<Acc, Problem> {
        let mut acc = Acc::new(Depth::FAST);
        document(bytes, whole, &mut acc).map(|()| acc)
    }

    #[test]
    fn a_session_file_names_its_id_start_directory_title_and_typed_prompt() {
        let acc = read(session(ID, 7, false, "hello there").as_bytes(), true).unwrap();
        assert_eq!(acc.header_id.as_deref(), Some(ID));
        assert_eq!(acc.cwd.as_deref(), Some("/w/p"));
        assert_eq!(acc.first_prompt.as_deref(), Some("hello there"));
        assert_eq!(acc.title().as_deref(), Some("hello there"));
        assert_eq!(acc.started, parse_time("2026-12-05T04:25:36.071Z"));
        // Past the bound, the fields before the prompt still name it.
        let long = "y".repeat(DOCUMENT_MAX as usize);
        let doc = session(ID, 7, false, &long);
        let acc = read(&doc.as_bytes()[..DOCUMENT_MAX as usize], false).unwrap();
        assert_eq!(acc.header_id.as_deref(), Some(ID));
        assert_eq!(acc.cwd.as_deref(), Some("/w/p"));
        assert_eq!(acc.title(), None);
    }

    #[test]
    fn hostile_and_half_written_session_files_name_no_session() {
        let doc = session(ID, 7, false, "hi");
        assert_eq!(
            read(&doc.as_bytes()[..doc.len() - 3], true).err(),
            Some(Problem::HalfWritten)
        );
        assert_eq!(read(b"\x00\x01", true).err(), Some(Problem::Garbage));
        assert_eq!(
            read(b"{\"session_id\": 5}", true).err(),
            Some(Problem::Garbage)
        );
        assert_eq!(read(b"garbage", false).err(), Some(Problem::Garbage));
        assert_eq!(
            typed("<user_input mode=\"plan\">a</user_input>").as_deref(),
            Some("a")
        );
        assert_eq!(typed("<user_input"), None);
    }

    /// A store with session `id` run by `pid`, and its file.
    fn store_with(root: &Path, id: &str, pid: u32, ended: bool) -> PathBuf {
        let dir = root.join("sessions").join(id);
        fs::create_dir_all(&dir).unwrap();
        let file = session_file(&dir, id);
        fs::write(&file, session(id, pid, ended, "hi")).unwrap();
        file
    }

    fn named(root: &Path, pids: &[u32], since: Option<UnixMillis>) -> Vec<String> {
        let agent = Catalog::embedded().agent(AgentKind::Cline);
        of_pids(agent, root, pids, since).into_keys().collect()
    }

    /// A session id created at `ms`.
    fn id_at(ms: i64) -> String {
        format!("{ms}_1iqet")
    }

    #[test]
    fn the_registry_names_the_live_session_a_pid_created_since_it_started() {
        let t = tempfile::tempdir().unwrap();
        // Started a minute before its session was created.
        let now = mtime(t.path()).unwrap().0;
        let id = id_at(now);
        let started = Some(UnixMillis(now - 60_000));
        store_with(t.path(), &id, 41, false);
        store_with(t.path(), "1796444721782_xserw", 41, true);
        store_with(t.path(), &id_at(now + 1), 42, false);
        assert_eq!(named(t.path(), &[41], started), std::slice::from_ref(&id));
        // A process started after the session was created: the pid was
        // reused, however recently the file was written (a resumed UI
        // elsewhere rewrites it with the pid that created it).
        let resumed = store_with(t.path(), &id_at(now - 3), 44, false);
        touch(&resumed, now + 10_000);
        assert!(named(t.path(), &[44], Some(UnixMillis(now + 5_000))).is_empty());
        assert!(named(t.path(), &[41], Some(UnixMillis(now + 5_000))).is_empty());
        // No start time: nothing can be told from a stale entry.
        assert!(named(t.path(), &[41], None).is_empty());
        assert!(named(t.path(), &[40], started).is_empty());
        // A file not written since the start is stale whatever its name says.
        let old = store_with(t.path(), &id_at(now + 2), 43, false);
        touch(&old, 1_000_000);
        assert!(named(t.path(), &[43], started).is_empty());
        let mut all = Vec::new();
        registered(t.path(), &mut all);
        let live: Vec<_> = all.iter().map(|r| (r.session_id.clone(), r.pid)).collect();
        assert_eq!(
            live,
            [
                (id_at(now - 3), 44),
                (id, 41),
                (id_at(now + 1), 42),
                (id_at(now + 2), 43)
            ]
        );
    }

    /// Sets `path`'s modification time to `ms`.
    fn touch(path: &Path, ms: i64) {
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.unsigned_abs());
        fs::File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_modified(at))
            .unwrap();
    }

    #[test]
    fn a_registry_entry_naming_another_session_or_a_hostile_pid_is_skipped() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("sessions").join(ID);
        fs::create_dir_all(&dir).unwrap();
        let file = session_file(&dir, ID);
        for body in [
            session("1796444721782_xserw", 41, false, "hi"),
            session(ID, 41, false, "hi").replace("\"pid\": 41", "\"pid\": 99999999999"),
            session(ID, 41, false, "hi").replace("\"pid\": 41", "\"pid\": \"41\""),
            "{\"session_id\": \"1796444736065_1iqet\", \"pid\": 41".to_owned(),
        ] {
            fs::write(&file, body).unwrap();
            assert!(named(t.path(), &[41], Some(UnixMillis(0))).is_empty());
        }
    }
}
