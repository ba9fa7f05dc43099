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
//! # Layering
//!
//! The interfaces a provider fills in are defined by the modules below it,
//! which take the agent's spec as an argument and never ask for a
//! provider: the record reader (`parse::Records`), the store layout
//! (`store::Store`), the pid registry (`registry::Registry`). The modules
//! above (the listing, `homes`, [`crate::probe`], [`crate::scan`], [`crate::running`],
//! [`crate::resumable`], [`crate::process`]) call [`provider`] and hand the
//! spec down; no provider imports them.
//!
//! What is plain data shared with other crates (commands, id shape, flags,
//! where a hook payload carries the id) stays in the catalog.

use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;

use crate::parse::Records;
use crate::registry::Registry;
use crate::store::{Entry, Named, SessionDir, Store};
pub(crate) use home_env::HomeEnv;

mod amp;
mod antigravity;
mod auggie;
mod claude;
mod cline;
mod codex;
#[path = "continue.rs"]
mod continue_cli;
mod copilot;
mod cursor;
mod droid;
mod gemini;
mod grok;
mod home_env;
mod kilo;
mod kimi;
pub(crate) mod opencode;
mod pi;
mod qoder;
mod qwen;
mod vibe;

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
        AgentKind::Kilo => &kilo::PROVIDER,
        AgentKind::Auggie => &auggie::PROVIDER,
        AgentKind::Cline => &cline::PROVIDER,
        AgentKind::Vibe => &vibe::PROVIDER,
        AgentKind::Qoder => &qoder::PROVIDER,
        AgentKind::Continue => &continue_cli::PROVIDER,
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
    AgentKind::Kilo,
    AgentKind::Auggie,
    AgentKind::Cline,
    AgentKind::Vibe,
    AgentKind::Qoder,
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
    /// Its session is written only at the first prompt, however late that
    /// comes (OpenCode's row, Pi's file): see [`Provider::first_prompt`].
    pub(crate) first_prompt: bool,
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

    /// Whether its session is written only at the first prompt, however
    /// late: a capture that has not found the run's session yet keeps
    /// looking while the agent runs, and correlation takes a session
    /// started any time after the process when no other run of the agent
    /// shares its directory ([`crate::scan::session_of`]).
    pub fn first_prompt(&self) -> bool {
        self.first_prompt
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
        first_prompt: false,
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
