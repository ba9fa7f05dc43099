//! The restore plan's session questions, answered from the stores:
//! [`StoreProbe`] implements core's [`SessionProbe`].
//!
//! `exists` answers from names alone where the name carries the whole id
//! (every store but Gemini's, whose names carry 8 characters of it: those
//! few files' headers are read). A store that is missing or unreadable
//! cannot tell (`None`), and the gate passes: a pane is never held back
//! because agent-resume could not look. The process snapshot behind
//! `running` is taken once per probe, on first use.

use std::cell::OnceCell;
use std::path::Path;

use agent_resume_core::{AgentKind, SessionProbe};

use crate::read::Depth;
use crate::running::Running;
use crate::{opencode, store, Homes};

/// Session-store and process answers for the restore plan.
pub struct StoreProbe<'h> {
    homes: &'h Homes,
    running: OnceCell<Running>,
}

impl<'h> StoreProbe<'h> {
    /// A probe over `homes`.
    pub fn new(homes: &'h Homes) -> Self {
        StoreProbe {
            homes,
            running: OnceCell::new(),
        }
    }
}

/// Whether the store of `agent` at `root` holds `id`.
pub fn exists_in(agent: AgentKind, root: &Path, id: &str) -> Option<bool> {
    if agent == AgentKind::Opencode {
        return opencode::exists(root, id);
    }
    let (candidates, notes) = store::candidates(agent, root).ok()?;
    let named = candidates.iter().any(|c| c.name_id.as_deref() == Some(id));
    if named {
        return Some(true);
    }
    let hinted = candidates
        .iter()
        .filter(|c| c.id_hint.as_deref().is_some_and(|h| id.starts_with(h)));
    for c in hinted {
        if store::read(agent, c, Depth::FAST).is_ok_and(|(info, _)| info.id == id) {
            return Some(true);
        }
    }
    // A part of the store that could not be read might hold it.
    if notes
        .iter()
        .any(|n| n.problem == crate::Problem::StoreUnreadable)
    {
        return None;
    }
    Some(false)
}

impl SessionProbe for StoreProbe<'_> {
    fn exists(
        &self,
        agent: AgentKind,
        session_id: &str,
        config_home: Option<&Path>,
    ) -> Option<bool> {
        let root = self.homes.root(agent, config_home)?;
        exists_in(agent, &root, session_id)
    }

    fn running(&self, agent: AgentKind, session_id: &str) -> bool {
        self.running
            .get_or_init(|| Running::scan(self.homes))
            .holds(agent, session_id)
    }
}
