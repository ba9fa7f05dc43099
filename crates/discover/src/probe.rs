//! The restore plan's session questions, answered from the stores:
//! [`StoreProbe`] implements core's [`SessionProbe`].
//!
//! `exists` answers from names where the name carries the whole id (every
//! store but Gemini's, whose names carry 8 characters of it: those few
//! files' headers are read), and then asks the agent's own resumability
//! rule of the one file found ([`crate::resumable`]): a file the agent
//! itself would refuse to resume (Gemini's chat that never got a reply, a
//! Qwen file with no head) counts as missing. Each store is listed once per probe, however
//! many panes ask. A store that is missing or unreadable cannot tell
//! (`None`), and the gate passes: a pane is never held back because
//! agent-resume could not look. The process snapshot behind `running` is
//! taken once per probe, on first use.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_resume_core::{AgentKind, SessionProbe};

use crate::provider::{provider, Provider};
use crate::read::Depth;
use crate::resumable::resumable;
use crate::running::Running;
use crate::store::{Candidate, Store};
use crate::{store, Homes, Problem};

/// What one store holds, by name.
struct Index {
    ids: HashMap<String, PathBuf>,
    hinted: Vec<Candidate>,
    partial: bool,
}

impl Index {
    fn of(p: &Provider, root: &Path) -> Option<Index> {
        let (candidates, notes) = store::candidates(p.kind, &p.store, root).ok()?;
        let mut ids = HashMap::new();
        let mut hinted = Vec::new();
        for c in candidates {
            match &c.name_id {
                Some(id) => {
                    ids.insert(id.clone(), c.path.clone());
                }
                None => hinted.push(c),
            }
        }
        Some(Index {
            ids,
            hinted,
            partial: notes.iter().any(|n| n.problem == Problem::StoreUnreadable),
        })
    }

    fn holds(&self, p: &Provider, id: &str) -> Option<bool> {
        if let Some(path) = self.ids.get(id) {
            return Some(resumable(p.kind, path, id) != Some(false));
        }
        let hinted = self
            .hinted
            .iter()
            .filter(|c| c.id_hint.as_deref().is_some_and(|h| id.starts_with(h)));
        let mut refused = false;
        for c in hinted {
            let mut c = c.clone();
            if let Ok((info, _)) = store::read(p.kind, &p.store, &p.records, &mut c, Depth::FAST) {
                if info.id != id {
                    continue;
                }
                if resumable(p.kind, &info.path, id) != Some(false) {
                    return Some(true);
                }
                refused = true;
            }
        }
        // A part of the store that could not be read might hold it.
        (refused || !self.partial).then_some(false)
    }
}

/// Each store's index, by agent and root; `None`: the store cannot tell.
type Indexes = HashMap<(AgentKind, PathBuf), Option<Arc<Index>>>;

/// Session-store and process answers for the restore plan.
pub struct StoreProbe<'h> {
    homes: &'h Homes,
    indexes: RefCell<Indexes>,
    running: OnceCell<Running>,
    /// Per agent, which of `running`'s processes run it (matched once).
    agent_procs: RefCell<HashMap<AgentKind, Arc<[usize]>>>,
}

impl<'h> StoreProbe<'h> {
    /// A probe over `homes`.
    pub fn new(homes: &'h Homes) -> Self {
        StoreProbe {
            homes,
            indexes: RefCell::new(HashMap::new()),
            running: OnceCell::new(),
            agent_procs: RefCell::new(HashMap::new()),
        }
    }
}

/// Whether the store of `agent` at `root` holds `id`: `None` when it
/// cannot tell.
pub fn exists_in(agent: AgentKind, root: &Path, id: &str) -> Option<bool> {
    let p = provider(agent);
    if let Store::Database(db) = &p.store {
        return (db.exists)(root, id);
    }
    Index::of(p, root)?.holds(p, id)
}

impl SessionProbe for StoreProbe<'_> {
    fn exists(
        &self,
        agent: AgentKind,
        session_id: &str,
        config_home: Option<&Path>,
    ) -> Option<bool> {
        let root = self.homes.root(agent, config_home)?;
        let p = provider(agent);
        if let Store::Database(db) = &p.store {
            return (db.exists)(&root, session_id);
        }
        let index = self
            .indexes
            .borrow_mut()
            .entry((agent, root))
            .or_insert_with_key(|(_, root)| Index::of(p, root).map(Arc::new))
            .clone()?;
        index.holds(p, session_id)
    }

    fn running(&self, agent: AgentKind, session_id: &str) -> bool {
        let running = self.running.get_or_init(|| Running::scan(self.homes));
        let among = self
            .agent_procs
            .borrow_mut()
            .entry(agent)
            .or_insert_with(|| running.of_agent(agent).into())
            .clone();
        running.holds_among(agent, &among, session_id)
    }
}

/// A probe crosses threads: a host plans on a worker thread of its own.
#[cfg(test)]
#[test]
fn a_store_probe_is_send() {
    fn send<T: Send>() {}
    send::<StoreProbe<'static>>();
}
