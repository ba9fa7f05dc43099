//! A host in memory, for the conformance suite: it holds a saved layout
//! and which of its panes are still there, makes what the engine asks it
//! to, and remembers every call.

use std::collections::{BTreeMap, HashSet};

use agent_resume_core::{Layout, PaneId, TakeKey};
use agent_resume_engine::host::{
    places_of, Dispatched, Fate, Host, HostError, Live, Model, Recreated,
};

/// A host in memory.
#[derive(Debug)]
pub struct FakeHost {
    /// What was saved (a start-up layout).
    pub saved: Layout,
    /// The saved panes still there, a shell at their prompt.
    pub live: HashSet<PaneId>,
    /// Whether those prompts are empty and idle (else nothing is typed).
    pub idle: bool,
    /// How many times the restore model was asked for.
    pub asked: usize,
    /// The panes made, with the take key each was started with.
    pub created: Vec<(PaneId, Option<TakeKey>)>,
    /// The lines typed, by pane.
    pub typed: Vec<(PaneId, String)>,
    /// The pane the calling process runs in ([`Host::identity`]).
    pub caller: Option<PaneId>,
}

impl FakeHost {
    /// A host that saved `saved`, none of whose panes is there now.
    pub fn new(saved: Layout) -> FakeHost {
        FakeHost {
            saved,
            live: HashSet::new(),
            idle: true,
            asked: 0,
            created: Vec::new(),
            typed: Vec::new(),
            caller: None,
        }
    }
}

impl Host for FakeHost {
    fn name(&self) -> &'static str {
        "fake"
    }

    fn snapshot(&mut self) -> Result<Live, HostError> {
        let mut layout = self.saved.clone();
        layout.startup = false;
        for w in &mut layout.windows {
            for t in &mut w.tabs {
                t.panes.retain(|p| self.live.contains(&p.id));
            }
        }
        Ok(Live {
            layout,
            panes: self.live.iter().copied().collect(),
        })
    }

    fn restore_model(
        &mut self,
        recreate: bool,
        _say: &mut dyn FnMut(&str),
    ) -> Result<Model, HostError> {
        self.asked += 1;
        let mut model = Model::new(self.saved.clone());
        model.places = places_of(&self.saved);
        for (spec, _) in self.saved.panes() {
            let (fate, how) = if self.live.contains(&spec.id) {
                (Fate::InPlace, "in place")
            } else if recreate {
                (Fate::Create, "recreate")
            } else {
                (Fate::Dead, "needs --recreate")
            };
            model.fates.insert(spec.id, fate);
            if let Some(place) = model.places.get_mut(&spec.id) {
                place.comes_back = Some(how);
            }
        }
        model.nothing = "every saved pane is there".to_owned();
        model.take_keys = Some("fake".to_owned());
        Ok(model)
    }

    fn recreate(
        &mut self,
        model: &Model,
        keys: &BTreeMap<PaneId, TakeKey>,
        _say: &mut dyn FnMut(&str),
    ) -> Result<Recreated, HostError> {
        for (pane, fate) in &model.fates {
            if *fate == Fate::Create {
                self.created.push((*pane, keys.get(pane).copied()));
            }
        }
        Ok(Recreated::default())
    }

    fn dispatch(&mut self, pane: PaneId, line: &str) -> Result<Dispatched, HostError> {
        if !self.idle {
            return Ok(Dispatched::NotTyped {
                why: "the prompt is not empty".to_owned(),
                pending: true,
            });
        }
        self.typed.push((pane, line.to_owned()));
        Ok(Dispatched::Sent)
    }

    fn identity(&mut self) -> Result<Option<PaneId>, HostError> {
        Ok(self.caller)
    }
}
