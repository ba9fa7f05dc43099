//! What this crate knows of each agent, in one module per agent, and the
//! one place ([`provider`]) that maps an [`AgentKind`] to it.
//!
//! A [`Provider`] is a table of plain values and functions: where the
//! agent's store lives under its home and how the home is resolved, how a
//! file name or a record gives a session's id, directory, title and time,
//! which rule the agent itself applies before it resumes a session, the
//! npm package its script runs from, its per-process registry, the argv
//! flags that name a session besides the catalog's, and where its hook
//! settings file lives and which events it gets. Every other module asks
//! the provider and never matches on the agent: adding an agent is an
//! entry in `agents.toml` (core's catalog), one module here and one arm in
//! [`provider`]. A test (`tests/provider.rs`) fails when an exhaustive
//! match over the agents appears anywhere else.
//!
//! What is plain data shared with other crates (commands, id shape, flags,
//! where a hook payload carries the id) stays in the catalog.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentDecl, AgentKind};

use crate::json::Line;
use crate::parse::{Acc, Raw};
use crate::read::Depth;
use crate::running::Registered;
use crate::store::{Candidate, Entry};
use crate::{Note, Problem, SessionInfo};
pub(crate) use home_env::HomeEnv;

mod amp;
mod antigravity;
mod claude;
mod codex;
mod copilot;
mod cursor;
mod droid;
mod gemini;
mod grok;
mod home_env;
mod kimi;
pub(crate) mod opencode;
mod pi;
mod qwen;

/// The provider of `kind`: the one exhaustive match over the agents
/// outside the catalog.
pub fn provider(kind: AgentKind) -> &'static Provider {
    match kind {
        AgentKind::Claude => &claude::PROVIDER,
        AgentKind::Codex => &codex::PROVIDER,
        AgentKind::Gemini => &gemini::PROVIDER,
        AgentKind::Opencode => &opencode::PROVIDER,
        AgentKind::Droid => &droid::PROVIDER,
        AgentKind::Grok => &grok::PROVIDER,
        AgentKind::Qwen => &qwen::PROVIDER,
        AgentKind::Copilot => &copilot::PROVIDER,
        AgentKind::Pi => &pi::PROVIDER,
        AgentKind::Cursor => &cursor::PROVIDER,
        AgentKind::Antigravity => &antigravity::PROVIDER,
        AgentKind::Amp => &amp::PROVIDER,
        AgentKind::Kimi => &kimi::PROVIDER,
    }
}

/// The agents with a store reader, in the order a listing walks them.
pub const READABLE: &[AgentKind] = &[
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Gemini,
    AgentKind::Qwen,
    AgentKind::Grok,
    AgentKind::Droid,
    AgentKind::Pi,
    AgentKind::Copilot,
    AgentKind::Opencode,
];

/// Everything this crate knows of one agent.
pub struct Provider {
    /// Whose it is.
    pub(crate) kind: AgentKind,
    /// The store root from the environment (the agent's config home, or
    /// OpenCode's database); `None`: no reader, or nowhere to look.
    pub(crate) home: fn(&HomeEnv<'_>) -> Option<PathBuf>,
    /// Where its sessions are kept.
    pub(crate) store: Store,
    /// What its records say.
    pub(crate) records: Records,
    /// The id a session file's name gives ([`crate::parse_session`]).
    pub(crate) file_id: fn(&str) -> Option<&str>,
    /// Whether the agent itself would resume session `id` from the file:
    /// `None` when it cannot be told ([`crate::resumable`]).
    pub(crate) resumable: fn(&Path, &str) -> Option<bool>,
    /// The npm package its script runs from, as the install path shows it
    /// (`/@anthropic-ai/claude-code/`).
    pub(crate) package: Option<&'static str>,
    /// Its per-process registry, when it keeps one.
    pub(crate) registry: Option<Registry>,
    /// Flags besides the catalog's resume and launch-id flags whose value
    /// names the session in its argv.
    pub(crate) argv_id_flags: &'static [&'static str],
    /// Its hook settings file, when agent-resume edits it.
    pub(crate) hook: Option<HookFile>,
}

impl Provider {
    /// The agent.
    pub fn kind(&self) -> AgentKind {
        self.kind
    }

    /// Its hook settings file, when agent-resume edits it.
    pub fn hook(&self) -> Option<&HookFile> {
        self.hook.as_ref()
    }
}

/// Where an agent reads its hook configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookFile {
    /// The file, relative to the agent's store root ([`crate::Homes::root`]).
    pub file: &'static str,
    /// The events agent-resume's hook is installed for.
    pub events: &'static [&'static str],
}

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
    /// Reads the side file's (capped) bytes into the pass.
    pub read_side: fn(&[u8], &mut Acc),
}

/// A store that is a database, read as a whole.
pub(crate) struct Database {
    /// Every session in it, and the paths of those with a bad id.
    pub list: fn(&Path, Depth) -> Listed,
    /// Whether it holds `id`: `None` when it cannot tell.
    pub exists: fn(&Path, &str) -> Option<bool>,
}

/// What an agent's records say, record by record.
pub(crate) struct Records {
    /// Applies one parsed record of type `kind` to the pass.
    pub apply: fn(&mut Acc, &str, &Line<'_>, Raw<'_>),
    /// The key naming the id in a first record cut short.
    pub cut_id_key: Option<&'static str>,
    /// The prefix view needs the header's id (the name carries only part
    /// of it).
    pub needs_header: bool,
}

impl Records {
    /// Records nothing is read from.
    pub const NONE: Records = Records {
        apply: |_, _, _, _| {},
        cut_id_key: None,
        needs_header: false,
    };
}

/// A per-process registry: which pid holds which session.
pub(crate) struct Registry {
    /// The ids it holds for `pids`, that pass the agent's id shape.
    pub of_pids: fn(&AgentDecl, &Path, &[u32]) -> BTreeSet<String>,
    /// Every entry in it, shape unchecked.
    pub all: fn(&Path, &mut Vec<Registered>),
}

/// A file name's stem before `.jsonl`: the id of most stores.
pub(crate) fn jsonl_stem(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl")
}

/// The whole name is the id (a session directory's).
pub(crate) fn whole_name(name: &str) -> Option<&str> {
    Some(name)
}

/// No rule is known: it cannot be told.
pub(crate) fn unknown_resumable(_: &Path, _: &str) -> Option<bool> {
    None
}

/// No home: the agent has no reader.
pub(crate) fn no_home(_: &HomeEnv<'_>) -> Option<PathBuf> {
    None
}

/// A session file, not a directory.
pub(crate) fn not_a_dir(_: &Path) -> Option<SessionDir> {
    None
}

/// No project names a directory.
pub(crate) fn no_cwd_hint(_: &Entry) -> Option<PathBuf> {
    None
}

/// A project entry that is a `<id>.jsonl` file.
pub(crate) fn jsonl_entry(name: &str, is_dir: bool) -> Named<'_> {
    (!is_dir).then(|| (jsonl_stem(name), None))
}

/// An agent agent-resume declares but reads nothing of.
pub(crate) const fn unread(kind: AgentKind) -> Provider {
    Provider {
        kind,
        home: no_home,
        store: Store::None,
        records: Records::NONE,
        file_id: jsonl_stem,
        resumable: unknown_resumable,
        package: None,
        registry: None,
        argv_id_flags: &[],
        hook: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_has_its_own_provider() {
        for &k in AgentKind::VARIANTS {
            assert_eq!(provider(k).kind(), k);
        }
    }

    #[test]
    fn the_readable_agents_are_those_with_a_store() {
        for &k in AgentKind::VARIANTS {
            let has_store = !matches!(provider(k).store, Store::None);
            assert_eq!(READABLE.contains(&k), has_store, "{k:?}");
        }
    }
}
