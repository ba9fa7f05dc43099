//! An agent's per-process registry (Claude's `sessions/<pid>.json`, Grok's
//! `active_sessions.json`): which pid holds which session.
//!
//! A provider that knows its agent's registry fills in a [`Registry`];
//! [`crate::running`] and [`crate::scan`] read it through that, and its
//! entries are untrusted: an id is checked against the agent's id shape,
//! and a pid counts only while it is still the agent.

use std::collections::BTreeMap;
use std::path::Path;

use agent_resume_core::{AgentDecl, AgentKind, UnixMillis};

/// The ids a registry names for some processes, each with when the entry
/// naming it was last written (`None`: not known).
pub type Named = BTreeMap<String, Option<UnixMillis>>;

/// A registry entry: this pid holds this session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    /// The agent whose registry it is.
    pub agent: AgentKind,
    /// The pid.
    pub pid: u32,
    /// The session.
    pub session_id: String,
}

/// How one agent's registry is read, under the agent's store root.
pub(crate) struct Registry {
    /// The ids it holds for `pids`, that pass the agent's id shape; the
    /// last argument is when the agent process started, where known (an
    /// entry last written before it names a pid reused since).
    pub of_pids: fn(&AgentDecl, &Path, &[u32], Option<UnixMillis>) -> Named,
    /// Every entry in it, shape unchecked.
    pub all: fn(&Path, &mut Vec<Registered>),
}
