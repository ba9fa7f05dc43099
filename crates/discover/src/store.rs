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
//!
//! A name that is not UTF-8 is skipped with a note; a UTF-8 name of another
//! pattern (sub-agent files, settings) is not a session and is passed over.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_resume_core::{AgentKind, Catalog, UnixMillis};

use crate::file::{Dir, Kind};
use crate::parse::Acc;
use crate::read::{is_zstd, records_of_file, records_of_open, Depth, ReadStats, Rec, ZSTD_READER};
use crate::{Note, Problem, SessionInfo};

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
struct LazyDir<'a> {
    path: &'a Path,
    dir: Option<Option<Arc<Dir>>>,
}

impl<'a> LazyDir<'a> {
    fn new(path: &'a Path, hold: bool) -> Self {
        LazyDir {
            path,
            dir: (!hold).then_some(None),
        }
    }

    fn get(&mut self) -> Option<Arc<Dir>> {
        self.dir
            .get_or_insert_with(|| Dir::open(self.path).map(Arc::new))
            .clone()
    }
}

/// Every candidate of `agent` under `root`, with notes about what was
/// skipped. `Err` when the store itself is missing or unreadable. Nothing
/// is stat'ed: reading a candidate takes its time from the open file. The
/// candidates hold no directory open: they may be kept.
pub fn candidates(agent: AgentKind, root: &Path) -> Result<(Vec<Candidate>, Vec<Note>), Problem> {
    let mut out = Vec::new();
    let notes = walk(agent, root, false, &mut |found| out.extend(found))?;
    Ok((out, notes))
}

/// The walk behind [`candidates`]: hands each directory's candidates to
/// `found` as soon as the directory is listed, in the same order, so they
/// can be read while the walk goes on; returns the notes. With `hold_dirs`
/// the candidates hold their directory open ([`Candidate::dir`]).
pub fn walk(
    agent: AgentKind,
    root: &Path,
    hold_dirs: bool,
    found: &mut dyn FnMut(Vec<Candidate>),
) -> Result<Vec<Note>, Problem> {
    let mut notes = Vec::new();
    let mut out = Vec::new();
    let base = match agent {
        AgentKind::Claude => root.join("projects"),
        AgentKind::Codex => root.join("sessions"),
        AgentKind::Gemini => root.join(".gemini").join("tmp"),
        AgentKind::Qwen => root.join("projects"),
        AgentKind::Grok => root.join("sessions"),
        AgentKind::Droid => root.join(".factory").join("sessions"),
        AgentKind::Pi => root.join("sessions"),
        AgentKind::Copilot => root.join("session-state"),
        AgentKind::Opencode
        | AgentKind::Cursor
        | AgentKind::Antigravity
        | AgentKind::Amp
        | AgentKind::Kimi => return Err(Problem::StoreMissing),
    };
    let top = entries(&base).map_err(|e| store_problem(&e))?;
    let note = |notes: &mut Vec<Note>, path: PathBuf, problem| {
        notes.push(Note {
            agent,
            path,
            problem,
        });
    };
    match agent {
        AgentKind::Codex => walk_codex(&base, hold_dirs, top, 0, &mut out, &mut notes, found),
        AgentKind::Copilot => {
            for e in top {
                let Some(name) = e.name() else {
                    note(&mut notes, e.path, Problem::BadName);
                    continue;
                };
                let id = if e.is_dir {
                    Some(name)
                } else {
                    name.strip_suffix(".jsonl")
                };
                if let Some(id) = id.filter(|id| id_ok(agent, id)) {
                    out.push(Candidate {
                        name_id: Some(id.to_owned()),
                        path: e.path,
                        id_hint: None,
                        cwd_hint: None,
                        dir: None,
                    });
                }
            }
        }
        AgentKind::Claude
        | AgentKind::Gemini
        | AgentKind::Qwen
        | AgentKind::Grok
        | AgentKind::Droid
        | AgentKind::Pi
        | AgentKind::Opencode
        | AgentKind::Cursor
        | AgentKind::Antigravity
        | AgentKind::Amp
        | AgentKind::Kimi => {
            for project in top.into_iter().filter(|e| e.is_dir) {
                let dir = if matches!(agent, AgentKind::Gemini | AgentKind::Qwen) {
                    project.path.join("chats")
                } else {
                    project.path.clone()
                };
                let cwd_hint = match agent {
                    AgentKind::Gemini => project_root(&project.path),
                    AgentKind::Grok => project.name().and_then(decode_cwd),
                    AgentKind::Claude
                    | AgentKind::Codex
                    | AgentKind::Qwen
                    | AgentKind::Droid
                    | AgentKind::Pi
                    | AgentKind::Copilot
                    | AgentKind::Opencode
                    | AgentKind::Cursor
                    | AgentKind::Antigravity
                    | AgentKind::Amp
                    | AgentKind::Kimi => None,
                };
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
                    let (name_id, id_hint) = match agent {
                        AgentKind::Grok if e.is_dir => (Some(name), None),
                        AgentKind::Grok => continue,
                        _ if e.is_dir => continue,
                        AgentKind::Gemini => match name
                            .strip_prefix("session-")
                            .and_then(|n| n.strip_suffix(".jsonl"))
                            .and_then(|n| n.rsplit('-').next())
                        {
                            Some(hint) => (None, Some(hint.to_owned())),
                            None => continue,
                        },
                        AgentKind::Pi => (
                            name.strip_suffix(".jsonl")
                                .and_then(|n| n.rsplit_once('_'))
                                .map(|(_, id)| id),
                            None,
                        ),
                        AgentKind::Claude
                        | AgentKind::Qwen
                        | AgentKind::Droid
                        | AgentKind::Codex
                        | AgentKind::Copilot
                        | AgentKind::Opencode
                        | AgentKind::Cursor
                        | AgentKind::Antigravity
                        | AgentKind::Amp
                        | AgentKind::Kimi => (name.strip_suffix(".jsonl"), None),
                    };
                    if id_hint.is_none() && !name_id.is_some_and(|id| id_ok(agent, id)) {
                        continue;
                    }
                    let name_id = name_id.map(str::to_owned);
                    // Grok's candidates are session directories, read by path.
                    let dir = if agent == AgentKind::Grok {
                        None
                    } else {
                        handle.get()
                    };
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

/// One Codex directory, already listed: its rollouts, and (to a depth of
/// `sessions/YYYY/MM/DD`) those of its subdirectories, in name order.
fn walk_codex(
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
                        walk_codex(&e.path, hold_dirs, inner, depth + 1, out, notes, found);
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

fn project_root(project: &Path) -> Option<PathBuf> {
    let bytes = read_small(&project.join(".project_root"), Kind::SideFile, 4096)?;
    let text = String::from_utf8(bytes).ok()?;
    let p = PathBuf::from(text.trim_end_matches(['\n', '\r']));
    p.is_absolute().then_some(p)
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

/// Reads one candidate to `depth`. The session takes the candidate's path
/// (left empty); on an error the candidate is as it was.
pub fn read(
    agent: AgentKind,
    c: &mut Candidate,
    depth: Depth,
) -> Result<(SessionInfo, ReadStats), Problem> {
    if !ZSTD_READER && is_zstd(&c.path) {
        return Err(Problem::NotBuilt);
    }
    let (records, side) = match agent {
        AgentKind::Grok => (
            Cow::Owned(c.path.join("chat_history.jsonl")),
            Some("summary.json"),
        ),
        AgentKind::Copilot if c.path.is_dir() => (
            Cow::Owned(c.path.join("events.jsonl")),
            Some("workspace.yaml"),
        ),
        AgentKind::Claude
        | AgentKind::Codex
        | AgentKind::Gemini
        | AgentKind::Qwen
        | AgentKind::Droid
        | AgentKind::Pi
        | AgentKind::Copilot
        | AgentKind::Opencode
        | AgentKind::Cursor
        | AgentKind::Antigravity
        | AgentKind::Amp
        | AgentKind::Kimi => (Cow::Borrowed(c.path.as_path()), None),
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
    let mut feed = |r: Rec<'_>| acc.feed(agent, r);
    let read = match (&records, &c.dir) {
        (Cow::Borrowed(_), Some(dir)) => dir
            .open_with_metadata(c.name(), Kind::Session)
            .map_err(io::Error::from)
            .and_then(|(file, meta)| {
                records_of_open(file, &meta, is_zstd(&c.path), depth, &mut feed)
            }),
        _ => records_of_file(&records, depth, &mut feed),
    };
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
    if let Some(side) = side {
        side_file(agent, &c.path.join(side), &mut acc, &mut stats);
    }
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

/// Grok's `summary.json` and Copilot's `workspace.yaml`: a title and a
/// directory, read to at most 4 KiB.
fn side_file(agent: AgentKind, path: &Path, acc: &mut Acc, stats: &mut ReadStats) {
    let Some(bytes) = read_small(path, Kind::SideFile, 4096) else {
        return;
    };
    stats.bytes += bytes.len() as u64;
    match agent {
        AgentKind::Grok => {
            if let Ok(l) = serde_json::from_slice::<crate::json::Line<'_>>(&bytes) {
                let t = l.title.get().or(l.summary.get()).or(l.name.get());
                acc.summary = t.map(str::to_owned).or(acc.summary.take());
                if acc.cwd.is_none() {
                    acc.cwd = l.cwd.get().map(str::to_owned);
                }
            }
        }
        _ => {
            let text = String::from_utf8_lossy(&bytes);
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grok_directory_names_decode_to_the_cwd() {
        assert_eq!(
            decode_cwd("%2FUsers%2Fme%2Fmy%20proj"),
            Some(PathBuf::from("/Users/me/my proj"))
        );
        assert_eq!(decode_cwd("relative%2Fx"), None);
        assert_eq!(decode_cwd("%2Fbad%zz"), Some(PathBuf::from("/bad%zz")));
    }
}
