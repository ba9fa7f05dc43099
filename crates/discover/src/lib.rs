//! Every agent session on this machine: readers for each agent CLI's own
//! session store, a fast and a full listing, correlation of a pane with the
//! session its agent started, and the checks restore asks (does the session
//! still exist, and would its agent itself resume it ([`resumable`]); does a
//! live process already hold it).
//!
//! [`process`] is the process-table boundary: a process's identity (pid and
//! start time), argv and parent, and the walk from a hook to the agent
//! process that ran it, behind a trait so the walks are tested in memory.
//! [`scan`] finds a pane's agent below its first process and the session
//! id that process shows (argv, pid registry, open files, correlation): the
//! zero-config capture of `tmux save` and `capture scan`.
//!
//! What differs from agent to agent (where its store is and how it is laid
//! out, what its records say, its own resumability rule, its npm package,
//! pid registry and hook file) lives in one module per agent under
//! [`mod@provider`], and [`provider()`] is the one place that maps an agent to
//! it.
//!
//! This is an I/O boundary crate: it reads the filesystem and `/proc`, and
//! never writes (OpenCode's database is opened read-only). It reads no
//! environment: the caller resolves [`Homes`] once.
//!
//! # Listing
//!
//! [`list`] walks every store and returns [`SessionInfo`]s, newest first.
//! [`Depth::FAST`] reads at most 4 KiB of each file (the header and the
//! first user text), for a recent-sessions view; [`Depth::Full`] streams
//! every record, for search and exact message counts. A store that is
//! missing, unreadable or half-written is skipped with a [`Note`], never an
//! error.
//!
//! # Trust
//!
//! Session files are written by any process of the user. Every id passes
//! its agent's id shape from the catalog or the session is not listed;
//! titles and prompts are cleaned of control and invisible characters
//! ([`text::clean`]) before they are kept; directories are kept as paths
//! and must be escaped for display by the caller. Every file is opened
//! through [`mod@file`]: without blocking (a FIFO or device is refused), as a
//! regular file only, and read through a size cap.
//!
//! # Example
//!
//! ```
//! use agent_resume_discover::{list, Depth, Homes};
//!
//! let home = tempfile::tempdir().expect("tempdir");
//! let listing = list(&Homes::under(home.path()), &[], Depth::FAST);
//! assert!(listing.sessions.is_empty());
//! ```

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentKind, UnixMillis};

pub mod correlate;
pub mod file;
mod homes;
pub mod json;
pub mod lineage;
mod parallel;
mod parse;
pub mod probe;
pub mod process;
pub mod provider;
pub mod read;
mod registry;
pub mod resolve;
pub mod resumable;
pub mod running;
pub mod runtime;
pub mod scan;
mod store;
pub mod text;

pub use correlate::{correlate, Spawn};
pub use homes::Homes;
pub use probe::StoreProbe;
pub use provider::provider;

pub use read::Depth;
pub use resolve::{fuzzy_match, resolve_prefix, Resolved};
use store::Store;

/// One session found in an agent's own store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    /// The agent.
    pub agent: AgentKind,
    /// The session id; it passed the agent's id shape.
    pub id: String,
    /// The directory the session ran in, when the store says (untrusted).
    pub cwd: Option<PathBuf>,
    /// The session's title, cleaned for display.
    pub title: Option<String>,
    /// The first thing the user typed, cleaned and capped.
    pub first_prompt: Option<String>,
    /// When the session was last written.
    pub modified: UnixMillis,
    /// When the session started, where a record says.
    pub started: Option<UnixMillis>,
    /// User and assistant messages; `None` on the fast path.
    pub message_count: Option<u32>,
    /// The file, session directory or database it was read from.
    pub path: PathBuf,
}

impl SessionInfo {
    /// The name to show: title, else first user prompt, else id, else file
    /// name — with no control or invisible character in any case.
    pub fn display_name(&self) -> String {
        self.display_name_ref().into_owned()
    }

    /// [`display_name`](Self::display_name), borrowed when it is the title
    /// or the first prompt (both cleaned when read).
    pub fn display_name_ref(&self) -> Cow<'_, str> {
        self.title
            .as_deref()
            .or(self.first_prompt.as_deref())
            .map(Cow::Borrowed)
            .or_else(|| text::clean(&self.id, text::MAX_TEXT).map(Cow::Owned))
            .or_else(|| {
                self.path
                    .file_name()
                    .and_then(|n| text::clean(&n.to_string_lossy(), text::MAX_TEXT))
                    .map(Cow::Owned)
            })
            .unwrap_or_default()
    }

    /// The display name cut to `max` characters, for compact views.
    pub fn compact_name(&self, max: usize) -> String {
        text::compact(&self.display_name(), max)
    }

    /// When the session started: the id's own timestamp (UUID v7), else
    /// what its records say.
    pub fn start_time(&self) -> Option<UnixMillis> {
        correlate::uuid_v7_millis(&self.id).or(self.started)
    }
}

/// Why a store, file or record was skipped. Closed, with stable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Problem {
    /// The agent's store does not exist (the agent is not used here).
    StoreMissing = 1,
    /// The store exists but could not be read.
    StoreUnreadable = 2,
    /// A session file could not be read.
    Unreadable = 3,
    /// A session file with no complete record: being written, or cut.
    HalfWritten = 4,
    /// A session file that is not JSON lines.
    Garbage = 5,
    /// A name that is not UTF-8.
    BadName = 6,
    /// An id that fails the agent's id shape.
    BadId = 7,
    /// The store or file needs a reader this build was compiled without
    /// (cargo feature `sqlite` for OpenCode's database, `zstd` for a
    /// compressed Codex rollout): it is there, and not listed.
    NotBuilt = 8,
}

impl Problem {
    /// Every variant.
    pub const VARIANTS: &'static [Problem] = &[
        Problem::StoreMissing,
        Problem::StoreUnreadable,
        Problem::Unreadable,
        Problem::HalfWritten,
        Problem::Garbage,
        Problem::BadName,
        Problem::BadId,
        Problem::NotBuilt,
    ];

    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Problem::StoreMissing => "store_missing",
            Problem::StoreUnreadable => "store_unreadable",
            Problem::Unreadable => "unreadable",
            Problem::HalfWritten => "half_written",
            Problem::Garbage => "garbage",
            Problem::BadName => "bad_name",
            Problem::BadId => "bad_id",
            Problem::NotBuilt => "not_built",
        }
    }
}

/// Something skipped while listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Whose store.
    pub agent: AgentKind,
    /// The store, file or directory.
    pub path: PathBuf,
    /// Why it was skipped.
    pub problem: Problem,
}

/// What reading cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Session files (or directories) read.
    pub files: usize,
    /// Bytes read from disk, side files included.
    pub bytes_read: u64,
    /// The most bytes read from one session file.
    pub max_file_bytes: u64,
}

/// Every session found, newest first, and what was skipped.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// The sessions, newest first.
    pub sessions: Vec<SessionInfo>,
    /// What was skipped, and why.
    pub notes: Vec<Note>,
    /// What reading cost.
    pub stats: Stats,
}

pub use provider::READABLE;

/// Lists the sessions of `agents` (every readable agent when empty).
///
/// The stores are walked on this thread; each directory's session files
/// are read and parsed on scoped threads (as many as the machine has cores)
/// as soon as the directory is listed, and the results are taken in the
/// walk's order: the listing and its notes are the same as one thread
/// reading file after file.
pub fn list(homes: &Homes, agents: &[AgentKind], depth: Depth) -> Listing {
    let mut walked = Vec::new();
    let read = parallel::pipeline(
        |found| {
            for &agent in READABLE {
                if !agents.is_empty() && !agents.contains(&agent) {
                    continue;
                }
                let Some(root) = homes.root(agent, None) else {
                    continue;
                };
                walked.push(walk_agent(agent, &root, depth, &mut |batch| {
                    found(batch.into_iter().map(|c| (agent, c)).collect());
                }));
            }
        },
        |(agent, mut c)| {
            // The candidate (and the directory handle it holds) is dropped
            // once read; its path moves into the session, or into the note.
            let p = provider(agent);
            store::read(agent, &p.store, &p.records, &mut c, depth).map_err(|problem| Note {
                agent,
                path: c.path,
                problem,
            })
        },
    );
    let mut out = Listing::default();
    out.sessions.reserve(
        read.iter().map(Vec::len).sum::<usize>()
            + walked.iter().map(|w| w.sessions.len()).sum::<usize>(),
    );
    let mut read = read.into_iter().flatten();
    for w in walked {
        out.sessions.extend(w.sessions);
        out.notes.extend(w.notes);
        for r in read.by_ref().take(w.files) {
            match r {
                Ok((info, st)) => {
                    out.stats.files += 1;
                    out.stats.bytes_read += st.bytes;
                    out.stats.max_file_bytes = out.stats.max_file_bytes.max(st.bytes);
                    out.sessions.push(info);
                }
                Err(note) => out.notes.push(note),
            }
        }
    }
    finish(&mut out);
    out
}

/// One agent's store, walked: how many session files it handed over to be
/// read, the notes of the walk, and (for OpenCode's database, read as it is
/// walked) its sessions.
struct Walked {
    files: usize,
    sessions: Vec<SessionInfo>,
    notes: Vec<Note>,
}

fn walk_agent(
    agent: AgentKind,
    root: &Path,
    depth: Depth,
    found: &mut dyn FnMut(Vec<store::Candidate>),
) -> Walked {
    let mut w = Walked {
        files: 0,
        sessions: Vec::new(),
        notes: Vec::new(),
    };
    let note = |w: &mut Walked, path: &Path, problem| {
        w.notes.push(Note {
            agent,
            path: path.to_path_buf(),
            problem,
        });
    };
    let kept = &provider(agent).store;
    if let Store::Database(db) = kept {
        match (db.list)(agent, root, depth) {
            Ok((sessions, bad)) => {
                w.sessions = sessions;
                for p in bad {
                    note(&mut w, &p, Problem::BadId);
                }
            }
            Err(p) => note(&mut w, root, p),
        }
        return w;
    }
    let mut files = 0;
    match store::walk(agent, kept, root, true, &mut |batch| {
        files += batch.len();
        found(batch);
    }) {
        Ok(notes) => w.notes = notes,
        Err(p) => note(&mut w, root, p),
    }
    w.files = files;
    w
}

/// Newest first; one entry per (agent, id): a plain Codex rollout wins over
/// its compressed sibling, else the newest.
fn finish(out: &mut Listing) {
    // Sorted as positions, so each session moves once, not at every step
    // of two sorts; ties keep the walk's order.
    let s = &out.sessions;
    let zstd: Vec<bool> = s.iter().map(|s| read::is_zstd(&s.path)).collect();
    let mut order: Vec<usize> = (0..s.len()).collect();
    order.sort_by(|&a, &b| {
        (
            s[a].agent,
            &s[a].id,
            zstd[a],
            std::cmp::Reverse(s[a].modified),
        )
            .cmp(&(
                s[b].agent,
                &s[b].id,
                zstd[b],
                std::cmp::Reverse(s[b].modified),
            ))
    });
    order.dedup_by(|b, a| s[*a].agent == s[*b].agent && s[*a].id == s[*b].id);
    order.sort_unstable_by(|&a, &b| {
        s[b].modified
            .cmp(&s[a].modified)
            .then_with(|| s[a].agent.cmp(&s[b].agent))
            .then_with(|| s[a].id.cmp(&s[b].id))
    });
    // Put each kept session at its place in the vector it is already in
    // (following the permutation's cycles), the dropped ones after them: no
    // second vector of sessions is allocated and faulted in.
    let kept = order.len();
    let mut dest = vec![usize::MAX; s.len()];
    for (to, &from) in order.iter().enumerate() {
        dest[from] = to;
    }
    for (next, d) in (kept..).zip(dest.iter_mut().filter(|d| **d == usize::MAX)) {
        *d = next;
    }
    for i in 0..dest.len() {
        while dest[i] != i {
            let d = dest[i];
            out.sessions.swap(i, d);
            dest.swap(i, d);
        }
    }
    out.sessions.truncate(kept);
}

/// Parses one session file's bytes as `agent` writes them, with the file
/// (or session directory) name `name`: what a listing would make of it.
/// For fuzzing and tests; OpenCode's database is not a file of records.
pub fn parse_session(
    agent: AgentKind,
    name: &str,
    bytes: &[u8],
    depth: Depth,
) -> Result<SessionInfo, Problem> {
    let p = provider(agent);
    let mut acc = parse::Acc::new(depth);
    let mut counted = depth == Depth::Full;
    let id = if let Some(doc) = &p.records.document {
        // As a listing reads it: the first `max` bytes, whatever the depth.
        let cut = bytes.get(..usize::try_from(doc.max).unwrap_or(usize::MAX));
        let cut = cut.unwrap_or(bytes);
        let whole = (cut.len() as u64) < doc.max;
        (doc.read)(cut, whole, &mut acc)?;
        counted &= whole && doc.counts;
        let from_name = (p.file_id)(name).map(str::to_owned);
        store::document_id(agent, from_name, acc.header_id.take())?
    } else {
        let stats = read::records_of_bytes(bytes, depth, &mut |r| acc.feed(&p.records, r));
        acc.finish();
        acc.verdict(&stats)?;
        let from_name = (p.file_id)(name);
        from_name
            .map(str::to_owned)
            .or(acc.header_id.clone())
            .ok_or(Problem::HalfWritten)?
    };
    if matches!(p.store, Store::Database(_)) || !store::id_ok(agent, &id) {
        return Err(Problem::BadId);
    }
    Ok(SessionInfo {
        agent,
        id,
        cwd: acc
            .cwd
            .as_deref()
            .map(PathBuf::from)
            .filter(|p| p.is_absolute()),
        title: acc.title(),
        first_prompt: acc.first_prompt.take(),
        modified: UnixMillis(0),
        started: acc.started,
        message_count: counted.then_some(acc.messages),
        path: PathBuf::from(name),
    })
}

/// Why a path given as a session could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path is not inside any agent's session store.
    #[error("the path is not inside a known agent session store")]
    NotInAStore,
    /// Inside a store, but not a session file or directory of it.
    #[error("the path is not a session file of its store")]
    NotASession,
    /// A session that could not be read.
    #[error("the session could not be read ({})", .0.as_str())]
    Skipped(Problem),
}

/// Reads the session at `path`: a session file (or a Grok or Copilot
/// session directory) inside one of the stores of `homes`.
pub fn read_path(homes: &Homes, path: &Path, depth: Depth) -> Result<SessionInfo, PathError> {
    let real = std::fs::canonicalize(path).map_err(|_| PathError::NotInAStore)?;
    let mut inside = false;
    for &agent in READABLE {
        let p = provider(agent);
        if matches!(p.store, Store::Database(_)) {
            continue;
        }
        let Some(root) = homes.root(agent, None) else {
            continue;
        };
        let Ok(root) = std::fs::canonicalize(&root) else {
            continue;
        };
        if !real.starts_with(&root) {
            continue;
        }
        inside = true;
        let Ok((candidates, _)) = store::candidates(agent, &p.store, &root) else {
            continue;
        };
        let Some(mut c) = candidates
            .into_iter()
            .find(|c| c.path == real || real.parent() == Some(c.path.as_path()))
        else {
            // Stores may nest (Gemini's and Droid's default to `~`): keep looking.
            continue;
        };
        return store::read(agent, &p.store, &p.records, &mut c, depth)
            .map(|(info, _)| info)
            .map_err(PathError::Skipped);
    }
    Err(if inside {
        PathError::NotASession
    } else {
        PathError::NotInAStore
    })
}
