//! Zero-config capture: a pane's agent found in its process tree, and the
//! session id that process is on, from what the agent itself shows.
//!
//! A host gives a pane's first process (its shell). [`agent_in`] walks its
//! descendants breadth first, nearest first, to the processes that run a
//! verified agent (recognised by the catalog's command words,
//! [`crate::process::agent_argv`]); an agent's own children are not looked
//! into, and two agents at the same depth are no answer.
//!
//! [`session_of`] then finds that process's session id, in order of trust:
//!
//! 1. **its argv** — `--resume ID` (and the flag's aliases, `=` spellings),
//!    `resume ID` for a subcommand resume, and the flag that pins a new
//!    session's id (`--session-id`: claude, gemini, qwen, grok; copilot's
//!    `--session-id` resumes or pins). A fork (`--fork-session`, `--fork`)
//!    starts another id, so a resume operand then names nothing;
//! 2. **its own per-process records** — pid registries (Claude's
//!    `sessions/<pid>.json`, Grok's `active_sessions.json`) for the agent's
//!    pid or one below it, and the files it and its children hold open
//!    (`/proc/<pid>/fd`) under the agent's own store whose names carry an
//!    id: Codex's `thread-writer-locks/<id>.lock` and rollout, Claude's and
//!    Qwen's `<id>.jsonl`, Copilot's `session-state/<id>/`, Grok's
//!    `sessions/<cwd>/<id>/`, Pi's `<ts>_<id>.jsonl`, Droid's `<id>.jsonl`.
//!    When these name two ids the records give no answer (the registry wins
//!    over open files: it is rewritten when the session changes). A shared
//!    server below the agent (Codex's `codex app-server`, serving every TUI
//!    of the user; Cline's hub daemon) is not one of its children here;
//! 3. **store correlation** — exactly one session of the agent in the
//!    process's directory that started between [`BEFORE_START`] before the
//!    process and [`crate::correlate::WINDOW_MILLIS`] after it, ids already
//!    held by other panes left out; none or more than one is no answer. An
//!    agent that writes its session only at the first prompt (OpenCode's
//!    row: the prompt may come an hour after launch) has no end to the
//!    window when no other run of it works in the same directory: then a
//!    session started there since the process is this run's.
//!
//! Every id passes the agent's id shape. Nothing here writes: the caller
//! feeds the answer to the capture state machine like a hook's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use agent_resume_core::catalog::ResumeShape;
use agent_resume_core::{AgentDecl, AgentKind, Catalog, UnixMillis};

use crate::correlate::{correlate_within, Spawn, WINDOW_MILLIS};
use crate::process::{agent_argv, is_shared_server, ProcessInfo, ProcessTable};
use crate::provider::provider;
use crate::{Homes, SessionInfo};

/// How long before its process a session may have started and still count
/// as that process's (start times are known to within a second).
pub const BEFORE_START: i64 = 2_000;

/// How deep below a pane's first process an agent is looked for.
const MAX_DEPTH: usize = 16;

/// Which of the agent's own signs gave the id. Closed, with stable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Found {
    /// The agent process's argv (`--resume ID`, `--session-id ID`).
    Argv = 1,
    /// The agent's pid registry.
    Registry = 2,
    /// A file the agent process holds open (lock, transcript, rollout).
    OpenFile = 3,
    /// Store correlation.
    Correlation = 4,
}

impl Found {
    /// Every variant.
    pub const VARIANTS: &'static [Found] = &[
        Found::Argv,
        Found::Registry,
        Found::OpenFile,
        Found::Correlation,
    ];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Found::Argv => "argv",
            Found::Registry => "registry",
            Found::OpenFile => "open_file",
            Found::Correlation => "correlation",
        }
    }
}

/// Every process of a table, read once.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    by_pid: BTreeMap<u32, ProcessInfo>,
    children: BTreeMap<u32, Vec<u32>>,
}

impl Snapshot {
    /// Reads every process of `table`.
    pub fn read(table: &dyn ProcessTable) -> Snapshot {
        let mut s = Snapshot::default();
        for p in table
            .pids()
            .into_iter()
            .filter_map(|pid| table.process(pid))
        {
            s.children.entry(p.ppid).or_default().push(p.id.pid);
            s.by_pid.insert(p.id.pid, p);
        }
        s
    }

    /// The process `pid`.
    pub fn process(&self, pid: u32) -> Option<&ProcessInfo> {
        self.by_pid.get(&pid)
    }

    fn children_of(&self, pid: u32) -> impl Iterator<Item = &ProcessInfo> {
        self.children
            .get(&pid)
            .into_iter()
            .flatten()
            .filter(move |c| **c != pid)
            .filter_map(|c| self.by_pid.get(c))
    }

    /// `pid` and every process below it, nearest first, leaving out shared
    /// servers ([`shared_server`]) and what runs below them.
    fn tree(&self, pid: u32) -> Vec<&ProcessInfo> {
        let mut out: Vec<&ProcessInfo> = self.by_pid.get(&pid).into_iter().collect();
        let mut at = 0;
        while at < out.len() && out.len() < 4096 {
            let next: Vec<&ProcessInfo> = self
                .children_of(out[at].id.pid)
                .filter(|c| !shared_server(c) && !out.iter().any(|q| q.id == c.id))
                .collect();
            out.extend(next);
            at += 1;
        }
        out
    }
}

/// A process that serves every run of its agent, not the one it was
/// started below: Codex 0.171's TUI starts `codex app-server
/// --managed-daemon` below the first TUI, and every later TUI of the user
/// talks to it; it holds their rollouts open. Cline 3.0's first UI starts
/// `cline --cline-hub-daemon`, whose pid every later UI's sessions name.
/// Its files and registry entries are no sign of the run it happens to sit
/// below. Any agent's `shared_server_args` mark one.
fn shared_server(p: &ProcessInfo) -> bool {
    p.argv.get(1).is_some_and(|w| w == "app-server")
        || Catalog::embedded().agents().iter().any(|a| {
            !a.shared_server_args.is_empty()
                && agent_argv(a, &p.argv).is_some_and(|argv| is_shared_server(a, &argv))
        })
}

/// A pane's agent process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneAgent {
    /// The agent.
    pub agent: AgentKind,
    /// Its process.
    pub process: ProcessInfo,
    /// Its argv, program word first, without emptied words.
    pub argv: Vec<String>,
    /// It wrote a title over its argv.
    pub rewritten: bool,
    /// Its pid and every pid below it (a native binary under its `node`
    /// launcher holds the files).
    pub pids: Vec<u32>,
}

fn agent_of<'c>(p: &ProcessInfo, catalog: &'c Catalog) -> Option<(&'c AgentDecl, Vec<String>)> {
    catalog
        .agents()
        .iter()
        .find_map(|a| agent_argv(a, &p.argv).map(|argv| (a, argv)))
}

/// The agent process of the pane whose first process is `root`: the
/// nearest agent process at or below it, when its agent is verified (or
/// cannot resume by id at all: the caller reports that and records nothing). What
/// runs below an agent process is that agent's own work (an unverified
/// agent's tool call running `claude` is not the pane's claude). Two agents
/// at the same depth are no answer.
pub fn agent_in(snap: &Snapshot, root: u32, catalog: &Catalog) -> Option<PaneAgent> {
    let mut level: Vec<&ProcessInfo> = snap.process(root).into_iter().collect();
    for _ in 0..MAX_DEPTH {
        if level.is_empty() {
            return None;
        }
        let found: Vec<(&ProcessInfo, &AgentDecl, Vec<String>)> = level
            .iter()
            .filter_map(|p| agent_of(p, catalog).map(|(d, a)| (*p, d, a)))
            .collect();
        match found.as_slice() {
            [] => {}
            // An agent that cannot resume by id is found too, so the pane
            // is reported as such (and never recorded) rather than as no agent.
            [(p, decl, argv)] if decl.verified || !decl.resumable_by_id => {
                return Some(PaneAgent {
                    agent: decl.kind,
                    process: (*p).clone(),
                    rewritten: p.argv.iter().skip(1).any(String::is_empty),
                    argv: argv.iter().filter(|w| !w.is_empty()).cloned().collect(),
                    pids: snap.tree(p.id.pid).iter().map(|q| q.id.pid).collect(),
                })
            }
            _ => return None,
        }
        level = level
            .iter()
            .flat_map(|p| snap.children_of(p.id.pid))
            .collect();
    }
    None
}

/// The session id the agent's argv names: a resume operand (not when the
/// run forks), or the id pinned for a new session.
pub fn argv_id(agent: &AgentDecl, argv: &[String]) -> Option<String> {
    let words = argv.get(1..)?;
    let words: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .take_while(|w| *w != "--")
        .collect();
    let fork = words
        .iter()
        .any(|w| *w == "--fork-session" || *w == "--fork" || w.starts_with("--fork="));
    fn spelled<'a>(agent: &'a AgentDecl, flags: &mut Vec<&'a str>, name: &'a str) {
        flags.push(name);
        if let Some(d) = agent.flag(name) {
            flags.extend(d.aliases.iter().map(String::as_str));
        }
    }
    let mut flags: Vec<&str> = Vec::new();
    if let Some(l) = &agent.launch_id_flag {
        spelled(agent, &mut flags, l);
    }
    for f in provider(agent.kind).argv_id_flags {
        spelled(agent, &mut flags, f);
    }
    let mut subcommand: Option<&[String]> = None;
    if !fork {
        match &agent.resume {
            ResumeShape::Flag { name, .. } => spelled(agent, &mut flags, name),
            ResumeShape::Subcommand(sub) => subcommand = Some(sub),
        }
    }
    let mut ids: BTreeSet<&str> = BTreeSet::new();
    for (i, w) in words.iter().enumerate() {
        for f in &flags {
            let value = if w == f {
                words.get(i + 1).copied()
            } else {
                w.strip_prefix(f).and_then(|v| v.strip_prefix('='))
            };
            if let Some(v) = value.filter(|v| agent.id_shape.matches(v)) {
                ids.insert(v);
            }
        }
    }
    if let Some(sub) = subcommand {
        // The first positional words must be the subcommand; a declared
        // flag's value is not positional.
        let mut positional: Vec<usize> = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let w = words[i];
            if w.starts_with('-') {
                let takes = agent
                    .flag(w)
                    .is_some_and(|d| d.arity == agent_resume_core::catalog::Arity::Value);
                i += if takes { 2 } else { 1 };
                continue;
            }
            positional.push(i);
            i += 1;
        }
        let at = positional.first().copied();
        if let Some(at) = at.filter(|at| {
            words
                .get(*at..*at + sub.len())
                .is_some_and(|win| win.iter().zip(sub).all(|(a, b)| *a == b))
        }) {
            if let Some(v) = words
                .get(at + sub.len())
                .filter(|v| agent.id_shape.matches(v))
            {
                ids.insert(v);
            }
        }
    }
    match ids.len() {
        1 => ids.into_iter().next().map(str::to_owned),
        _ => None,
    }
}

/// The ids the agent's pid registry holds for `pids`, the agent process
/// started at `started`.
fn registry_named(
    agent: &AgentDecl,
    root: &Path,
    pids: &[u32],
    started: Option<UnixMillis>,
) -> crate::registry::Named {
    match &provider(agent.kind).registry {
        Some(r) => (r.of_pids)(agent, root, pids, started),
        None => crate::registry::Named::new(),
    }
}

/// The one session the agent's own per-process registry names for
/// `found`'s processes, and when that entry was written: the agent's
/// current conversation (after Claude's `/clear`, the new one, while its
/// argv still names the one it was started on). `started`: when the agent
/// process started, where known.
pub fn registry_id(
    found: &PaneAgent,
    homes: &Homes,
    started: Option<UnixMillis>,
) -> Option<(String, Option<UnixMillis>)> {
    let agent = Catalog::embedded().agent(found.agent);
    let root = homes.root(found.agent, None)?;
    let named = registry_named(agent, &root, &found.pids, started);
    let mut it = named.into_iter();
    let one = it.next()?;
    it.next().is_none().then_some(one)
}

/// The id an open file's path under `root` names: a directory named by
/// the id, or a file whose stem is the id, ends in `_<id>` or `-<id>`.
pub fn id_in_path(agent: &AgentDecl, root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<&str> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => n.to_str(),
            Component::Prefix(_)
            | Component::RootDir
            | Component::CurDir
            | Component::ParentDir => None,
        })
        .collect();
    let (file, dirs) = parts.split_last()?;
    let mut ids: BTreeSet<&str> = dirs
        .iter()
        .copied()
        .filter(|d| agent.id_shape.matches(d))
        .collect();
    let stem = [".jsonl.zst", ".jsonl", ".json", ".lock", ".db"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))
        .unwrap_or(file);
    let tails = [
        Some(stem),
        stem.rsplit_once('_').map(|(_, t)| t),
        stem.len()
            .checked_sub(36)
            .and_then(|at| stem.get(at..))
            .filter(|_| stem.len() > 36 && stem.as_bytes()[stem.len() - 37] == b'-'),
    ];
    ids.extend(
        tails
            .into_iter()
            .flatten()
            .filter(|t| agent.id_shape.matches(t)),
    );
    match ids.len() {
        1 => ids.into_iter().next().map(str::to_owned),
        _ => None,
    }
}

/// The ids named by the files `pids` hold open under `root`.
fn open_file_ids(
    table: &dyn ProcessTable,
    agent: &AgentDecl,
    root: &Path,
    pids: &[u32],
) -> BTreeSet<String> {
    pids.iter()
        .flat_map(|pid| table.open_files(*pid))
        .filter_map(|path| id_in_path(agent, root, &path))
        .collect()
}

/// The one id of a set, or none.
fn one(ids: BTreeSet<String>) -> Option<String> {
    match ids.len() {
        1 => ids.into_iter().next(),
        _ => None,
    }
}

/// The id the agent's own per-process records name: its registry entry,
/// else the files it holds open.
pub fn record_id(
    table: &dyn ProcessTable,
    found: &PaneAgent,
    homes: &Homes,
) -> Option<(String, Found)> {
    if let Some((id, _)) = registry_id(found, homes, table.started_at(found.process.id)) {
        return Some((id, Found::Registry));
    }
    open_file_id(table, found, homes).map(|id| (id, Found::OpenFile))
}

/// The one session a file `found`'s processes hold open names.
fn open_file_id(table: &dyn ProcessTable, found: &PaneAgent, homes: &Homes) -> Option<String> {
    let agent = Catalog::embedded().agent(found.agent);
    let root = homes.root(found.agent, None)?;
    one(open_file_ids(table, agent, &root, &found.pids))
}

/// The id `found`'s own signs name, in order of trust, correlation left
/// out: the agent's per-process registry (its current conversation), its
/// argv (the one it started on), a file it holds open.
pub fn own_id(
    table: &dyn ProcessTable,
    found: &PaneAgent,
    homes: &Homes,
) -> Option<(String, Found)> {
    if let Some((id, _)) = registry_id(found, homes, table.started_at(found.process.id)) {
        return Some((id, Found::Registry));
    }
    let agent = Catalog::embedded().agent(found.agent);
    if !found.rewritten {
        if let Some(id) = argv_id(agent, &found.argv) {
            return Some((id, Found::Argv));
        }
    }
    open_file_id(table, found, homes).map(|id| (id, Found::OpenFile))
}

/// The one session of `agent` in `cwd` that started between
/// [`BEFORE_START`] before `started` and `until` milliseconds after it, ids
/// in `taken` left out ([`crate::correlate::correlate_within`]).
pub fn correlate_new<'s>(
    sessions: &'s [SessionInfo],
    agent: AgentKind,
    cwd: &Path,
    started: UnixMillis,
    until: i64,
    taken: &BTreeSet<String>,
) -> Option<&'s SessionInfo> {
    let spawn = Spawn {
        agent,
        cwd,
        at: started,
        window_millis: WINDOW_MILLIS,
    };
    correlate_within(sessions, &spawn, -BEFORE_START, until, &|s| {
        taken.contains(&s.id)
    })
}

/// Whether another run of `found`'s agent works in `cwd`: a process of the
/// agent outside `found`'s own tree whose directory is `cwd`.
pub fn shares_dir(
    snap: &Snapshot,
    table: &dyn ProcessTable,
    found: &PaneAgent,
    cwd: &Path,
) -> bool {
    let decl = Catalog::embedded().agent(found.agent);
    snap.by_pid.values().any(|p| {
        p.id != found.process.id
            && !found.pids.contains(&p.id.pid)
            && agent_argv(decl, &p.argv).is_some()
            && table.cwd(p.id.pid).as_deref() == Some(cwd)
    })
}

/// How long after its process started a session of `found` may have
/// started and still be its: the window, or — for an agent that writes its
/// session at the first prompt ([`crate::provider::Provider::first_prompt`]) and runs
/// alone in its directory — any time, as a late first prompt is its.
fn until(snap: &Snapshot, table: &dyn ProcessTable, found: &PaneAgent, cwd: &Path) -> i64 {
    if provider(found.agent).first_prompt() && !shares_dir(snap, table, found, cwd) {
        i64::MAX
    } else {
        WINDOW_MILLIS
    }
}

/// The session id of `found`, in order of trust: the agent's per-process
/// registry (its current conversation), argv, the open file, store
/// correlation (`sessions` is asked for only then; `snap` tells whether
/// another run of the agent shares the directory).
pub fn session_of(
    table: &dyn ProcessTable,
    snap: &Snapshot,
    found: &PaneAgent,
    homes: &Homes,
    taken: &BTreeSet<String>,
    sessions: impl FnOnce(AgentKind) -> Vec<SessionInfo>,
) -> Option<(String, Found)> {
    if let Some(hit) = own_id(table, found, homes) {
        return Some(hit);
    }
    let started = table.started_at(found.process.id)?;
    let cwd = table.cwd(found.process.id.pid)?;
    let all = sessions(found.agent);
    let until = until(snap, table, found, &cwd);
    correlate_new(&all, found.agent, &cwd, started, until, taken)
        .map(|s| (s.id.clone(), Found::Correlation))
}

/// What changes when `agent` writes a new session: the size and modified
/// time of its database and the database's `-wal`, or of its store
/// directory and each directory just below it (a project's). A few `stat`s
/// and one directory read, so a capture waiting for a late first prompt
/// can look often and read the store only when this changes.
pub fn store_stamp(homes: &Homes, agent: AgentKind) -> Vec<(PathBuf, Option<(u64, i64)>)> {
    fn stat(p: &Path) -> Option<(u64, i64)> {
        let m = std::fs::symlink_metadata(p).ok()?;
        Some((m.len(), crate::store::mtime(p).map_or(0, |t| t.0)))
    }
    let Some(root) = homes.root(agent, None) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = match &provider(agent).store {
        crate::store::Store::None => Vec::new(),
        crate::store::Store::Database(_) => {
            let mut wal = root.clone().into_os_string();
            wal.push("-wal");
            vec![root, PathBuf::from(wal)]
        }
        crate::store::Store::Files(f) => {
            let dir = f.dir.iter().fold(root, |d, part| d.join(part));
            let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map(|rd| {
                    rd.filter_map(Result::ok)
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .map(|e| e.path())
                        .take(4096)
                        .collect()
                })
                .unwrap_or_default();
            subdirs.sort();
            let mut out = vec![dir];
            out.extend(subdirs);
            out
        }
    };
    paths.dedup();
    paths
        .into_iter()
        .map(|p| {
            let s = stat(&p);
            (p, s)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use crate::process::ProcessId;

    use super::*;

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
    const OTHER: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    /// pid → (ppid, argv, open files); every process started at pid × 1000 ms.
    #[derive(Default)]
    struct Table(BTreeMap<u32, (u32, Vec<String>, Vec<PathBuf>)>);

    impl Table {
        fn with(mut self, pid: u32, ppid: u32, argv: &[&str], open: &[PathBuf]) -> Table {
            self.0.insert(pid, (ppid, words(argv), open.to_vec()));
            self
        }
    }

    impl ProcessTable for Table {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            let (ppid, argv, _) = self.0.get(&pid)?.clone();
            Some(ProcessInfo {
                id: ProcessId {
                    pid,
                    start: u64::from(pid),
                },
                ppid,
                argv,
            })
        }
        fn pids(&self) -> Vec<u32> {
            self.0.keys().copied().collect()
        }
        fn started_at(&self, id: ProcessId) -> Option<UnixMillis> {
            Some(UnixMillis(i64::try_from(id.start).ok()? * 1000))
        }
        fn cwd(&self, _pid: u32) -> Option<std::path::PathBuf> {
            Some(PathBuf::from("/w/p"))
        }
        fn open_files(&self, pid: u32) -> Vec<PathBuf> {
            self.0.get(&pid).map(|r| r.2.clone()).unwrap_or_default()
        }
    }

    fn decl(kind: AgentKind) -> &'static AgentDecl {
        Catalog::embedded().agent(kind)
    }

    #[test]
    fn the_argv_names_the_id_by_resume_pinned_id_or_subcommand_and_never_for_a_fork() {
        let cases: &[(AgentKind, &[&str], Option<&str>)] = &[
            (AgentKind::Claude, &["claude", "--resume", ID], Some(ID)),
            (
                AgentKind::Claude,
                &["claude", "-r", ID, "--model", "opus"],
                Some(ID),
            ),
            (
                AgentKind::Claude,
                &["claude", &format!("--resume={ID}")],
                Some(ID),
            ),
            (AgentKind::Claude, &["claude", "--session-id", ID], Some(ID)),
            (AgentKind::Gemini, &["gemini", "--session-id", ID], Some(ID)),
            (AgentKind::Qwen, &["qwen", "--session-id", ID], Some(ID)),
            (AgentKind::Grok, &["grok", "-s", ID], Some(ID)),
            (AgentKind::Grok, &["grok", "--session-id", ID], Some(ID)),
            (
                AgentKind::Copilot,
                &["copilot", "--session-id", ID],
                Some(ID),
            ),
            (
                AgentKind::Copilot,
                &["copilot", &format!("--resume={ID}")],
                Some(ID),
            ),
            (AgentKind::Codex, &["codex", "resume", ID], Some(ID)),
            (
                AgentKind::Codex,
                &["codex", "-m", "gpt-5", "resume", ID],
                Some(ID),
            ),
            (AgentKind::Codex, &["codex", "fork", ID], None),
            (AgentKind::Codex, &["codex", "resume", "--last"], None),
            // A fork starts another id; a pinned id with it is the fork's.
            (
                AgentKind::Claude,
                &["claude", "--resume", ID, "--fork-session"],
                None,
            ),
            (
                AgentKind::Claude,
                &["claude", "-r", OTHER, "--fork-session", "--session-id", ID],
                Some(ID),
            ),
            // Two ids, an id after `--`, an id failing the shape: none.
            (
                AgentKind::Claude,
                &["claude", "-r", ID, "--session-id", OTHER],
                None,
            ),
            (AgentKind::Claude, &["claude", "--", "--resume", ID], None),
            (
                AgentKind::Claude,
                &["claude", "--resume", "my session"],
                None,
            ),
            (AgentKind::Claude, &["claude", ID], None),
        ];
        for (kind, argv, want) in cases {
            assert_eq!(
                argv_id(decl(*kind), &words(argv)).as_deref(),
                *want,
                "{kind:?} {argv:?}"
            );
        }
    }

    #[test]
    fn an_open_file_names_its_id_only_under_the_agents_store() {
        let root = Path::new("/h/.codex");
        let codex = decl(AgentKind::Codex);
        for (path, want) in [
            (format!("/h/.codex/thread-writer-locks/{ID}.lock"), Some(ID)),
            (
                format!("/h/.codex/sessions/2026/12/01/rollout-2026-12-01T05-30-00-{ID}.jsonl"),
                Some(ID),
            ),
            (format!("/elsewhere/{ID}.lock"), None),
            (format!("/h/.codex/x{ID}.lock"), None),
            (format!("/h/.codex/{ID}/{OTHER}.jsonl"), None),
            ("/h/.codex/config.toml".to_owned(), None),
        ] {
            assert_eq!(
                id_in_path(codex, root, Path::new(&path)).as_deref(),
                want,
                "{path}"
            );
        }
        let pi = decl(AgentKind::Pi);
        let at = format!("/p/sessions/--w--/2026-12-01T05-30-00-000Z_{ID}.jsonl");
        assert_eq!(
            id_in_path(pi, Path::new("/p"), Path::new(&at)).as_deref(),
            Some(ID)
        );
        let copilot = decl(AgentKind::Copilot);
        let at = format!("/c/session-state/{ID}/events.jsonl");
        assert_eq!(
            id_in_path(copilot, Path::new("/c"), Path::new(&at)).as_deref(),
            Some(ID)
        );
    }

    #[test]
    fn the_panes_agent_is_the_nearest_below_its_shell_and_two_at_one_depth_are_none() {
        let t = Table::default()
            .with(20, 1, &["-bash"], &[])
            .with(30, 20, &["/bin/sh", "/x/bin/wrapper"], &[])
            .with(
                40,
                30,
                &["node", "/n/@openai/codex/bin/codex.js", "-m", "o3"],
                &[],
            )
            .with(50, 40, &["/n/@openai/codex/vendor/codex", "-m", "o3"], &[])
            .with(60, 1, &["claude"], &[]);
        let snap = Snapshot::read(&t);
        let found = agent_in(&snap, 20, Catalog::embedded()).expect("codex");
        assert_eq!(found.agent, AgentKind::Codex);
        assert_eq!(found.process.id.pid, 40);
        assert_eq!(found.argv, words(&["codex", "-m", "o3"]));
        assert_eq!(found.pids, [40, 50], "its native child holds its files");
        // The agent itself as the pane's first process.
        assert_eq!(
            agent_in(&snap, 60, Catalog::embedded()).map(|a| a.agent),
            Some(AgentKind::Claude)
        );
        let two = Table::default()
            .with(20, 1, &["bash"], &[])
            .with(30, 20, &["claude"], &[])
            .with(31, 20, &["gemini"], &[]);
        assert_eq!(
            agent_in(&Snapshot::read(&two), 20, Catalog::embedded()),
            None
        );
        let none =
            Table::default()
                .with(20, 1, &["bash"], &[])
                .with(30, 20, &["vim", "claude"], &[]);
        assert_eq!(
            agent_in(&Snapshot::read(&none), 20, Catalog::embedded()),
            None
        );
    }

    #[test]
    fn an_agent_below_an_unverified_agent_is_its_tool_call_and_not_the_pane_s_agent() {
        // amp (unverified) in the pane; its tool shell runs claude.
        let t = Table::default()
            .with(20, 1, &["bash"], &[])
            .with(30, 20, &["amp"], &[])
            .with(
                40,
                30,
                &["sh", "-c", "claude --dangerously-skip-permissions"],
                &[],
            )
            .with(50, 40, &["claude", "--dangerously-skip-permissions"], &[]);
        assert_eq!(agent_in(&Snapshot::read(&t), 20, Catalog::embedded()), None);
    }

    #[test]
    fn files_a_shared_codex_app_server_below_the_agent_holds_are_no_sign_of_its_run() {
        let home = tempfile::tempdir().expect("tempdir");
        let homes = Homes::under(home.path());
        let codex_root = homes.root(AgentKind::Codex, None).expect("codex home");
        let lock = codex_root.join(format!("thread-writer-locks/{ID}.lock"));
        // The first TUI started the server every later TUI talks to; it
        // holds another pane's thread open.
        let t = Table::default()
            .with(20, 1, &["bash"], &[])
            .with(30, 20, &["codex"], &[])
            .with(
                31,
                30,
                &[
                    "/h/.codex/packages/bin/codex",
                    "app-server",
                    "--managed-daemon",
                ],
                &[lock],
            )
            .with(32, 31, &["/h/.codex/packages/bin/codex", "helper"], &[]);
        let found = agent_in(&Snapshot::read(&t), 20, Catalog::embedded()).expect("codex");
        assert_eq!(
            found.pids,
            [30],
            "the server and what runs below it are left out"
        );
        assert_eq!(record_id(&t, &found, &homes), None);
    }

    #[test]
    fn a_cline_hub_daemon_below_the_first_ui_never_gives_it_another_ui_s_session() {
        let home = tempfile::tempdir().expect("tempdir");
        let homes = Homes::under(home.path());
        let root = homes.root(AgentKind::Cline, None).expect("cline home");
        // The first UI (pid 30, started at 30 s) started the daemon (31);
        // the second UI's session names the daemon's pid, its own the UI's.
        let session = |id: &str, pid: u32| {
            let dir = root.join("sessions").join(id);
            std::fs::create_dir_all(&dir).expect("mkdir");
            let body = format!(
                "{{\"version\": 1, \"session_id\": \"{id}\", \"pid\": {pid}, \"cwd\": \"/w/p\"}}"
            );
            std::fs::write(dir.join(format!("{id}.json")), body).expect("writes");
        };
        let (mine, theirs) = ("0000000040000_aaaaa", "0000000050000_bbbbb");
        session(mine, 30);
        session(theirs, 31);
        let bin = "/n/node_modules/@cline/cli-linux-x64/bin/cline";
        let t = Table::default()
            .with(20, 1, &["bash"], &[])
            .with(30, 20, &["/n/node_modules/.bin/cline", "-m", "gpt-4o"], &[])
            .with(
                31,
                30,
                &[
                    bin,
                    "--cline-hub-daemon",
                    "--cwd",
                    "/w/p",
                    "--port",
                    "25463",
                ],
                &[],
            );
        let found = agent_in(&Snapshot::read(&t), 20, Catalog::embedded()).expect("cline");
        assert_eq!(found.pids, [30], "the daemon is left out");
        assert_eq!(
            record_id(&t, &found, &homes),
            Some((mine.to_owned(), Found::Registry))
        );
    }

    #[test]
    fn a_process_calling_itself_app_server_hides_only_its_own_subtree_s_files() {
        let home = tempfile::tempdir().expect("tempdir");
        let homes = Homes::under(home.path());
        let codex_root = homes.root(AgentKind::Codex, None).expect("codex home");
        let lock = |id: &str| codex_root.join(format!("thread-writer-locks/{id}.lock"));
        // Above the agent it hides nothing: the agent search follows every
        // child. Below it, a tool call so named takes away only its own
        // files: the agent's own still name its id.
        let t = Table::default()
            .with(20, 1, &["bash"], &[])
            .with(25, 20, &["/bin/sh", "app-server"], &[])
            .with(30, 25, &["codex"], &[lock(ID)])
            .with(40, 30, &["python3", "app-server"], &[lock(OTHER)])
            .with(50, 40, &["cat"], &[lock(OTHER)]);
        let found = agent_in(&Snapshot::read(&t), 20, Catalog::embedded()).expect("codex");
        assert_eq!(found.process.id.pid, 30);
        assert_eq!(found.pids, [30]);
        assert_eq!(
            record_id(&t, &found, &homes),
            Some((ID.to_owned(), Found::OpenFile))
        );
    }

    #[test]
    fn records_name_the_id_a_registry_before_open_files_and_two_ids_are_none() {
        let home = tempfile::tempdir().expect("tempdir");
        let homes = Homes::under(home.path());
        let codex_root = homes.root(AgentKind::Codex, None).expect("codex home");
        let lock = |id: &str| codex_root.join(format!("thread-writer-locks/{id}.lock"));
        let t = Table::default().with(20, 1, &["bash"], &[]).with(
            30,
            20,
            &["codex"],
            &[lock(ID), PathBuf::from("/dev/null")],
        );
        let found = agent_in(&Snapshot::read(&t), 20, Catalog::embedded()).expect("codex");
        assert_eq!(
            record_id(&t, &found, &homes),
            Some((ID.to_owned(), Found::OpenFile))
        );
        let t = Table::default()
            .with(20, 1, &["bash"], &[])
            .with(30, 20, &["codex"], &[lock(ID)])
            .with(31, 30, &["codex-helper"], &[lock(OTHER)]);
        let found = agent_in(&Snapshot::read(&t), 20, Catalog::embedded()).expect("codex");
        assert_eq!(record_id(&t, &found, &homes), None, "two locks: no answer");

        let claude_root = homes.root(AgentKind::Claude, None).expect("claude home");
        std::fs::create_dir_all(claude_root.join("sessions")).expect("mkdir");
        std::fs::write(
            claude_root.join("sessions/30.json"),
            format!(r#"{{"pid":30,"sessionId":"{ID}","cwd":"/w/p"}}"#),
        )
        .expect("writes");
        // A registry entry naming another pid is not this process's.
        std::fs::write(
            claude_root.join("sessions/31.json"),
            format!(r#"{{"pid":99,"sessionId":"{OTHER}"}}"#),
        )
        .expect("writes");
        let transcript = claude_root.join(format!("projects/-w-p/{OTHER}.jsonl"));
        let t = Table::default()
            .with(20, 1, &["bash"], &[])
            .with(30, 20, &["claude"], &[transcript])
            .with(31, 30, &["node"], &[]);
        let found = agent_in(&Snapshot::read(&t), 20, Catalog::embedded()).expect("claude");
        assert_eq!(
            record_id(&t, &found, &homes),
            Some((ID.to_owned(), Found::Registry))
        );
    }

    fn session(id: &str, cwd: &str, started: i64) -> SessionInfo {
        SessionInfo {
            agent: AgentKind::Claude,
            id: id.to_owned(),
            cwd: Some(PathBuf::from(cwd)),
            title: None,
            first_prompt: None,
            modified: UnixMillis(started),
            started: Some(UnixMillis(started)),
            message_count: None,
            path: PathBuf::from("/s"),
        }
    }

    #[test]
    fn correlation_takes_the_one_new_session_in_the_directory_within_the_window() {
        let cwd = Path::new("/w/p");
        let at = UnixMillis(100_000);
        let none = BTreeSet::new();
        let one = [
            session(ID, "/w/p", 105_000),
            session(OTHER, "/w/other", 105_000),
            // Started long before the process: an older session.
            session("11111111-140e-4519-ab63-b9cde0b60b57", "/w/p", 10_000),
            // Started after the window.
            session("22222222-140e-4519-ab63-b9cde0b60b57", "/w/p", 200_000),
        ];
        assert_eq!(
            correlate_new(&one, AgentKind::Claude, cwd, at, WINDOW_MILLIS, &none)
                .map(|s| s.id.as_str()),
            Some(ID)
        );
        assert_eq!(
            correlate_new(&one, AgentKind::Gemini, cwd, at, WINDOW_MILLIS, &none),
            None,
            "another agent's sessions are not this one's"
        );
        let two = [
            session(ID, "/w/p", 105_000),
            session(OTHER, "/w/p", 110_000),
        ];
        assert_eq!(
            correlate_new(&two, AgentKind::Claude, cwd, at, WINDOW_MILLIS, &none),
            None
        );
        let taken: BTreeSet<String> = [OTHER.to_owned()].into();
        assert_eq!(
            correlate_new(&two, AgentKind::Claude, cwd, at, WINDOW_MILLIS, &taken)
                .map(|s| s.id.as_str()),
            Some(ID),
            "a session another pane's agent names is not new here"
        );
    }

    #[test]
    fn a_first_prompt_agent_alone_in_its_directory_takes_a_session_started_however_late() {
        const SES: &str = "ses_dbb8e5307ffeL7B04j7BArXAEA";
        let homes = Homes::under(Path::new("/nowhere"));
        let none = BTreeSet::new();
        // Processes start at pid × 1000 ms: the agent at 100 s.
        let late = |agent: AgentKind, id: &str| SessionInfo {
            agent,
            ..session(id, "/w/p", 100_000 + 3_600_000)
        };
        let ask = |table: &Table, agent: AgentKind, id: &str| {
            let snap = Snapshot::read(table);
            let found = agent_in(&snap, 10, Catalog::embedded()).expect("the pane's agent");
            assert_eq!(found.agent, agent);
            session_of(table, &snap, &found, &homes, &none, |a| vec![late(a, id)])
        };
        for (agent, program, id) in [
            (AgentKind::Opencode, "opencode", SES),
            (AgentKind::Kilo, "kilo", SES),
        ] {
            let alone = Table::default().with(10, 1, &["bash"], &[]).with(
                100,
                10,
                &[program, "-m", "stub/gpt-4o"],
                &[],
            );
            assert_eq!(
                ask(&alone, agent, id),
                Some((id.to_owned(), Found::Correlation)),
                "{program}: its first prompt an hour after launch"
            );
            // Another run in the same directory (another pane's) may have
            // written it.
            let beside = alone
                .with(20, 1, &["bash"], &[])
                .with(90, 20, &[program], &[]);
            assert_eq!(ask(&beside, agent, id), None, "{program} beside another");
        }
        // An agent that writes its session at launch: a late one is another
        // run's.
        let claude = Table::default()
            .with(10, 1, &["bash"], &[])
            .with(100, 10, &["claude"], &[]);
        assert_eq!(ask(&claude, AgentKind::Claude, ID), None);
    }

    #[test]
    fn found_names_are_stable_and_distinct() {
        let names: BTreeSet<&str> = Found::VARIANTS.iter().map(|f| f.as_str()).collect();
        assert_eq!(names.len(), Found::VARIANTS.len());
        for f in Found::VARIANTS {
            match f {
                Found::Argv | Found::Registry | Found::OpenFile | Found::Correlation => {}
            }
        }
    }
}
