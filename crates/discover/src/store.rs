//! The file stores: where each agent's session files are, and reading one.
//!
//! | agent | files under its root |
//! |---|---|
//! | claude | `projects/<slug>/<id>.jsonl` |
//! | codex | `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (or `.jsonl.zst`) |
//! | gemini | `.gemini/tmp/<project>/chats/session-<time>-<id[..8]>.jsonl`; the project's directory in `.gemini/tmp/<project>/.project_root` |
//! | qwen | `projects/<slug>/chats/<id>.jsonl` |
//! | grok | `sessions/<url-encoded cwd>/<id>/` (`chat_history.jsonl`, `summary.json`) |
//! | droid | `.factory/sessions/<slug>/<id>.jsonl` |
//! | pi | `sessions/--<cwd>--/<time>_<id>.jsonl` |
//! | copilot | `session-state/<id>/` (`events.jsonl`, `workspace.yaml`) |
//! | auggie | `sessions/<id>.json` (one JSON document) |
//! | cline | `sessions/<id>/<id>.json` (one JSON document) |
//!
//! This module defines what a store's layout can be ([`Store`]); each
//! agent's provider ([`crate::provider`](mod@crate::provider)) fills one
//! in, and the caller hands it here to walk it and read what it finds. A
//! name that is not UTF-8 is skipped with a note; a UTF-8 name of another
//! pattern (sub-agent files, settings) is not a session and is passed
//! over.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_resume_core::{AgentKind, Catalog, UnixMillis};

use crate::file::{Dir, Kind};
use crate::parse::{Acc, Document, Records};
use crate::read::{is_zstd, records_of_file, records_of_open, Depth, ReadStats, Rec, ZSTD_READER};
use crate::{Note, Problem, SessionInfo};

/// Where an agent keeps its sessions.
pub(crate) enum Store {
    /// Nowhere agent-resume reads.
    None,
    /// Session files (or session directories) under the root.
    Files(FileStore),
    /// A database at the root (OpenCode's SQLite file).
    Database(Database),
}

/// A store of session files.
pub(crate) struct FileStore {
    /// The store directory, below the root.
    pub dir: &'static [&'static str],
    /// How the sessions lie in it.
    pub layout: Layout,
    /// A session directory's records file and side file; `None`: the
    /// candidate is itself the records file.
    pub session_dir: fn(&Path) -> Option<SessionDir>,
}

/// How a file store is laid out.
pub(crate) enum Layout {
    /// `<dir>/<project>/<sessions>`, or `<dir>/<project>/chats/<sessions>`.
    Projects(Projects),
    /// A walk of the agent's own, given the store directory, whether the
    /// candidates hold their directory open, and its listing.
    Custom(Walk),
}

/// [`Layout::Custom`]'s walk.
pub(crate) type Walk = fn(
    &Path,
    bool,
    Vec<Entry>,
    &mut Vec<Candidate>,
    &mut Vec<Note>,
    &mut dyn FnMut(Vec<Candidate>),
);

/// A store whose sessions lie directly in it, each named by its id: for
/// each entry of `top`, `pick` gives the id its name carries and the path
/// to read, or skips it; an id the agent's shape refuses is skipped, and a
/// name that is not UTF-8 is a `BadName` note.
pub(crate) fn flat(
    agent: AgentKind,
    top: Vec<Entry>,
    out: &mut Vec<Candidate>,
    notes: &mut Vec<Note>,
    pick: impl Fn(&str, &Entry) -> Option<(String, PathBuf)>,
) {
    for e in top {
        let Some(name) = e.name() else {
            notes.push(Note {
                agent,
                path: e.path,
                problem: Problem::BadName,
            });
            continue;
        };
        if let Some((id, path)) = pick(name, &e).filter(|(id, _)| id_ok(agent, id)) {
            out.push(Candidate {
                path,
                name_id: Some(id),
                id_hint: None,
                cwd_hint: None,
                dir: None,
            });
        }
    }
}

/// One directory per project.
pub(crate) struct Projects {
    /// The sessions are in the project's `chats/`.
    pub chats: bool,
    /// The directory the project's own layout says its sessions ran in.
    pub cwd_hint: fn(&Entry) -> Option<PathBuf>,
    /// What an entry of a project's directory names (by name, and whether
    /// it is a directory): `None` when it is no session, else the whole id
    /// its name carries and a prefix of the id.
    pub entry: for<'n> fn(&'n str, bool) -> Named<'n>,
    /// The candidates are session directories, opened by path.
    pub by_path: bool,
}

/// What a project entry names: `None` when it is no session, else the
/// whole id its name carries and a prefix of the id.
pub(crate) type Named<'n> = Option<(Option<&'n str>, Option<String>)>;

/// A database's sessions, and the paths of those with a bad id.
pub(crate) type Listed = Result<(Vec<SessionInfo>, Vec<PathBuf>), Problem>;

/// A session kept as a directory.
pub(crate) struct SessionDir {
    /// The records file in it.
    pub records: &'static str,
    /// The side file holding a title and a directory.
    pub side: &'static str,
    /// The most bytes of the side file read.
    pub side_max: u64,
    /// Reads the side file's (capped) bytes into the pass.
    pub read_side: fn(&[u8], &mut Acc),
}

/// A store that is a database, read as a whole.
pub(crate) struct Database {
    /// Every session in it, and the paths of those with a bad id.
    pub list: fn(AgentKind, &Path, Depth) -> Listed,
    /// Whether it holds `id`: `None` when it cannot tell.
    pub exists: fn(&Path, &str) -> Option<bool>,
}

/// One place a session may be: a file, or a session directory.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The file or directory.
    pub path: PathBuf,
    /// The id its name carries, when the name carries a whole one.
    pub name_id: Option<String>,
    /// Gemini: the first 8 characters of the id, from the name.
    pub id_hint: Option<String>,
    /// The directory the store's layout says the session ran in.
    pub cwd_hint: Option<PathBuf>,
    /// The directory the file was listed in, held open so the file is
    /// opened by its name relative to it; `None` opens it by `path`.
    pub dir: Option<Arc<Dir>>,
}

impl Candidate {
    /// The file's name, the last component of `path`.
    fn name(&self) -> &OsStr {
        self.path.file_name().unwrap_or_default()
    }
}

/// The handle of the directory being listed, opened when its first session
/// file is found (a directory of directories needs none) and shared by all
/// the files in it.
pub(crate) struct LazyDir<'a> {
    path: &'a Path,
    dir: Option<Option<Arc<Dir>>>,
}

impl<'a> LazyDir<'a> {
    pub(crate) fn new(path: &'a Path, hold: bool) -> Self {
        LazyDir {
            path,
            dir: (!hold).then_some(None),
        }
    }

    pub(crate) fn get(&mut self) -> Option<Arc<Dir>> {
        self.dir
            .get_or_insert_with(|| Dir::open(self.path).map(Arc::new))
            .clone()
    }
}

/// Every candidate of `agent`'s `store` under `root`, with notes about
/// what was skipped. `Err` when the store itself is missing or unreadable.
/// Nothing is stat'ed: reading a candidate takes its time from the open
/// file. The candidates hold no directory open: they may be kept.
pub(crate) fn candidates(
    agent: AgentKind,
    store: &Store,
    root: &Path,
) -> Result<(Vec<Candidate>, Vec<Note>), Problem> {
    let mut out = Vec::new();
    let notes = walk(agent, store, root, false, &mut |found| out.extend(found))?;
    Ok((out, notes))
}

/// The walk behind [`candidates`]: hands each directory's candidates to
/// `found` as soon as the directory is listed, in the same order, so they
/// can be read while the walk goes on; returns the notes. With `hold_dirs`
/// the candidates hold their directory open ([`Candidate::dir`]).
pub(crate) fn walk(
    agent: AgentKind,
    store: &Store,
    root: &Path,
    hold_dirs: bool,
    found: &mut dyn FnMut(Vec<Candidate>),
) -> Result<Vec<Note>, Problem> {
    let mut notes = Vec::new();
    let mut out = Vec::new();
    let Store::Files(store) = store else {
        return Err(Problem::StoreMissing);
    };
    let base = store.dir.iter().fold(root.to_path_buf(), |p, d| p.join(d));
    let top = entries(&base).map_err(|e| store_problem(&e))?;
    let note = |notes: &mut Vec<Note>, path: PathBuf, problem| {
        notes.push(Note {
            agent,
            path,
            problem,
        });
    };
    match &store.layout {
        Layout::Custom(walk) => walk(&base, hold_dirs, top, &mut out, &mut notes, found),
        Layout::Projects(layout) => {
            for project in top.into_iter().filter(|e| e.is_dir) {
                let dir = if layout.chats {
                    project.path.join("chats")
                } else {
                    project.path.clone()
                };
                let cwd_hint = (layout.cwd_hint)(&project);
                let inner = match entries(&dir) {
                    Ok(inner) => inner,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(_) => {
                        note(&mut notes, dir, Problem::StoreUnreadable);
                        continue;
                    }
                };
                let mut handle = LazyDir::new(&dir, hold_dirs);
                for e in inner {
                    let Some(name) = e.name() else {
                        note(&mut notes, e.path, Problem::BadName);
                        continue;
                    };
                    let Some((name_id, id_hint)) = (layout.entry)(name, e.is_dir) else {
                        continue;
                    };
                    if id_hint.is_none() && !name_id.is_some_and(|id| id_ok(agent, id)) {
                        continue;
                    }
                    let name_id = name_id.map(str::to_owned);
                    let dir = if layout.by_path { None } else { handle.get() };
                    out.push(Candidate {
                        path: e.path,
                        name_id,
                        id_hint,
                        cwd_hint: cwd_hint.clone(),
                        dir,
                    });
                }
                found(std::mem::take(&mut out));
            }
        }
    }
    found(out);
    Ok(notes)
}

/// Whether `id` passes the agent's id shape.
pub fn id_ok(agent: AgentKind, id: &str) -> bool {
    Catalog::embedded().agent(agent).id_shape.matches(id)
}

fn store_problem(e: &io::Error) -> Problem {
    if e.kind() == io::ErrorKind::NotFound {
        Problem::StoreMissing
    } else {
        Problem::StoreUnreadable
    }
}

/// One directory entry.
pub struct Entry {
    /// Its path.
    pub path: PathBuf,
    /// A directory (symbolic links are not followed).
    pub is_dir: bool,
    /// Where its name starts in `path`.
    name_at: usize,
}

impl Entry {
    fn raw_name(&self) -> &[u8] {
        self.path
            .as_os_str()
            .as_bytes()
            .get(self.name_at..)
            .unwrap_or_default()
    }

    /// Its name, when UTF-8.
    pub fn name(&self) -> Option<&str> {
        std::str::from_utf8(self.raw_name()).ok()
    }
}

/// The entries of `dir`, sorted by name; unreadable entries are dropped.
pub fn entries(dir: &Path) -> io::Result<Vec<Entry>> {
    let mut out: Vec<Entry> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| {
            let path = e.path();
            let name_len = path.file_name().map_or(0, |n| n.len());
            Entry {
                is_dir: e.file_type().is_ok_and(|t| t.is_dir()),
                name_at: path.as_os_str().len() - name_len,
                path,
            }
        })
        .collect();
    out.sort_by(|a, b| a.raw_name().cmp(b.raw_name()));
    Ok(out)
}

/// Reads at most `max` bytes of a small file of `kind`: a regular file
/// only, opened without blocking ([`crate::file`]).
pub fn read_small(path: &Path, kind: Kind, max: u64) -> Option<Vec<u8>> {
    crate::file::read_prefix(path, kind, max).ok()
}

fn millis(t: std::time::SystemTime) -> Option<UnixMillis> {
    let ms = match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).ok()?,
        Err(e) => -i64::try_from(e.duration().as_millis()).ok()?,
    };
    Some(UnixMillis(ms))
}

/// The modification time of `path`.
pub fn mtime(path: &Path) -> Option<UnixMillis> {
    millis(fs::metadata(path).ok()?.modified().ok()?)
}

/// Reads one candidate of `agent`'s `store` to `depth`, its records read
/// as `records` says. The session takes the candidate's path (left empty);
/// on an error the candidate is as it was.
pub(crate) fn read(
    agent: AgentKind,
    store: &Store,
    records: &Records,
    c: &mut Candidate,
    depth: Depth,
) -> Result<(SessionInfo, ReadStats), Problem> {
    if !ZSTD_READER && is_zstd(&c.path) {
        return Err(Problem::NotBuilt);
    }
    if let Some(doc) = &records.document {
        return read_document(agent, doc, c, depth);
    }
    let side = match store {
        Store::Files(store) => (store.session_dir)(&c.path),
        Store::None | Store::Database(_) => None,
    };
    let records_file = match &side {
        Some(sd) => Cow::Owned(c.path.join(sd.records)),
        None => Cow::Borrowed(c.path.as_path()),
    };
    let mut acc = Acc::new(depth);
    let dir_session = side.is_some();
    let mut stats = ReadStats::default();
    // A session file's time comes from the handle it is read through (one
    // `fstat`, which the open does anyway); a session directory's is its own,
    // or its records file's when that is newer.
    let dir_modified = if dir_session {
        Some(mtime(&c.path).ok_or(Problem::Unreadable)?)
    } else {
        None
    };
    let mut feed = |r: Rec<'_>| acc.feed(records, r);
    let read = match (&records_file, &c.dir) {
        (Cow::Borrowed(_), Some(dir)) => dir
            .open_with_metadata(c.name(), Kind::Session)
            .map_err(io::Error::from)
            .and_then(|(file, meta)| {
                records_of_open(file, &meta, is_zstd(&c.path), depth, &mut feed)
            }),
        _ => records_of_file(&records_file, depth, &mut feed),
    };
    // The side file is read before the verdict: where the records' first
    // one is larger than the prefix (Grok's ~9 KB system prompt), it is
    // what names the session.
    let side_bytes = side
        .as_ref()
        .map_or(0, |sd| side_file(sd, &c.path, &mut acc));
    let modified = match (read, dir_modified) {
        (Ok(s), _) => {
            stats = s;
            let file_modified = s.modified.and_then(millis);
            let modified = match dir_modified {
                Some(d) => d.max(file_modified.unwrap_or(d)),
                None => file_modified.ok_or(Problem::Unreadable)?,
            };
            acc.finish();
            // A session directory is a session even before its first record.
            if !(dir_session && acc.whole == 0 && acc.bad == 0 && !acc.cut) {
                acc.verdict(&stats)?;
            }
            modified
        }
        (Err(e), Some(d)) if e.kind() == io::ErrorKind::NotFound => d,
        (Err(_), _) => return Err(Problem::Unreadable),
    };
    stats.bytes += side_bytes;
    let id = match (&c.name_id, &acc.header_id, &c.id_hint) {
        (Some(n), _, _) => n.clone(),
        (None, Some(h), Some(hint)) if h.starts_with(hint.as_str()) => h.clone(),
        (None, Some(_), Some(_)) => return Err(Problem::BadId),
        (None, Some(h), None) => h.clone(),
        (None, None, _) => return Err(Problem::HalfWritten),
    };
    if !id_ok(agent, &id) {
        return Err(Problem::BadId);
    }
    let cwd = acc
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| c.cwd_hint.clone());
    let info = SessionInfo {
        agent,
        id,
        cwd,
        title: acc.title(),
        first_prompt: acc.first_prompt.take(),
        modified,
        started: acc.started,
        message_count: (depth == Depth::Full).then_some(acc.messages),
        path: std::mem::take(&mut c.path),
    };
    Ok((info, stats))
}

/// Reads a session kept as one JSON document: its first `doc.max` bytes,
/// never more, at any depth. The id its name carries must be the one it
/// names, when it names one.
fn read_document(
    agent: AgentKind,
    doc: &Document,
    c: &mut Candidate,
    depth: Depth,
) -> Result<(SessionInfo, ReadStats), Problem> {
    let opened = match &c.dir {
        Some(dir) => dir.open_with_metadata(c.name(), Kind::Session),
        None => crate::file::open_with_metadata(&c.path, Kind::Session),
    };
    let (file, meta) = opened.map_err(|_| Problem::Unreadable)?;
    let mut bytes = Vec::new();
    file.take(doc.max)
        .read_to_end(&mut bytes)
        .map_err(|_| Problem::Unreadable)?;
    let whole = bytes.len() as u64 >= meta.len() && (bytes.len() as u64) < doc.max;
    let mut acc = Acc::new(depth);
    (doc.read)(&bytes, whole, &mut acc)?;
    let stats = ReadStats {
        bytes: bytes.len() as u64,
        hit_bound: !whole,
        modified: meta.modified().ok(),
    };
    let modified = stats.modified.and_then(millis).ok_or(Problem::Unreadable)?;
    let id = document_id(agent, c.name_id.take(), acc.header_id.take())?;
    let cwd = acc
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| c.cwd_hint.clone());
    let info = SessionInfo {
        agent,
        id,
        cwd,
        title: acc.title(),
        first_prompt: acc.first_prompt.take(),
        modified,
        started: acc.started,
        message_count: (depth == Depth::Full && whole && doc.counts).then_some(acc.messages),
        path: std::mem::take(&mut c.path),
    };
    Ok((info, stats))
}

/// A document session's id: the one its name carries and the one it names,
/// which must agree where both are there, and pass the agent's shape.
pub(crate) fn document_id(
    agent: AgentKind,
    name_id: Option<String>,
    header_id: Option<String>,
) -> Result<String, Problem> {
    let id = match (name_id, header_id) {
        (Some(n), Some(h)) if n != h => return Err(Problem::BadId),
        (Some(id), _) | (None, Some(id)) => id,
        (None, None) => return Err(Problem::HalfWritten),
    };
    if !id_ok(agent, &id) {
        return Err(Problem::BadId);
    }
    Ok(id)
}

/// A session directory's side file (Grok's `summary.json`, Copilot's
/// `workspace.yaml`): a title and a directory (and Grok's id), read to at
/// most its `side_max` bytes. The bytes read.
fn side_file(sd: &SessionDir, dir: &Path, acc: &mut Acc) -> u64 {
    let Some(bytes) = read_small(&dir.join(sd.side), Kind::SideFile, sd.side_max) else {
        return 0;
    };
    (sd.read_side)(&bytes, acc);
    bytes.len() as u64
}

#[cfg(test)]
mod flat_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::os::unix::ffi::OsStrExt;

    use super::*;

    #[test]
    fn a_flat_store_lists_only_names_of_the_agent_s_shape_and_notes_names_that_are_not_utf8() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
        for name in [good, "not-an-id", "F6066EBB-140E-4519-AB63-B9CDE0B60B57"] {
            fs::create_dir(dir.path().join(name)).unwrap();
        }
        fs::create_dir(dir.path().join(OsStr::from_bytes(b"bad\xff"))).unwrap();
        let (mut out, mut notes) = (Vec::new(), Vec::new());
        flat(
            AgentKind::Copilot,
            entries(dir.path()).unwrap(),
            &mut out,
            &mut notes,
            |name, e| Some((name.to_owned(), e.path.clone())),
        );
        let ids: Vec<_> = out.iter().filter_map(|c| c.name_id.as_deref()).collect();
        assert_eq!(ids, [good]);
        assert_eq!(out[0].path, dir.path().join(good));
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].problem, Problem::BadName);
    }
}
