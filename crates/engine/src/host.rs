//! What a host (tmux, kitty, an embedding terminal) implements, and the
//! host-neutral words the restore sequence speaks in.
//!
//! A host gives the engine its panes and carries out what the engine
//! decided; it decides nothing itself. The restore sequence over any host
//! is written once, in `restore::run` (feature `sqlite`):
//! `restore_model` → plan → arm and report → `recreate` → `dispatch`.
//!
//! The trait is object safe (`&mut dyn Host`); every method returns a
//! typed [`HostError`]. `recreate`, `dispatch` and `identity` are optional:
//! their defaults say the host cannot; `status` and `doctor` default to
//! saying nothing.
//!
//! # Example
//!
//! A host that holds one saved pane, gone now, and can bring nothing back
//! by itself:
//!
//! ```
//! use std::path::PathBuf;
//! use agent_resume_core::{Layout, PaneId, PaneSpec, Shell, Tab, Window};
//! use agent_resume_engine::host::{Fate, Host, HostError, Live, Model, Place, Position};
//!
//! struct OnePane(PaneId);
//!
//! impl Host for OnePane {
//!     fn name(&self) -> &'static str {
//!         "one-pane"
//!     }
//!     fn snapshot(&mut self) -> Result<Live, HostError> {
//!         Ok(Live { layout: Layout { startup: false, windows: Vec::new() }, panes: Vec::new() })
//!     }
//!     fn restore_model(&mut self, _: bool, _: &mut dyn FnMut(&str)) -> Result<Model, HostError> {
//!         let spec = PaneSpec {
//!             id: self.0,
//!             cwd: Some(PathBuf::from("/")),
//!             shared_viewer: false,
//!             shell: Some(Shell::Bash),
//!             has_input: false,
//!             queued_command: false,
//!         };
//!         let mut model = Model::new(Layout {
//!             startup: true,
//!             windows: vec![Window {
//!                 landing: true,
//!                 visible: true,
//!                 active_tab: 0,
//!                 tabs: vec![Tab { focused_pane: None, panes: vec![spec] }],
//!             }],
//!         });
//!         model.fates.insert(self.0, Fate::Dead);
//!         model.places.insert(self.0, Place {
//!             position: Position::Host { window: 0, tab: 0, pane: 0 },
//!             cwd: Some(PathBuf::from("/")),
//!             comes_back: Some("needs --recreate"),
//!         });
//!         Ok(model)
//!     }
//! }
//!
//! let mut host = OnePane(PaneId::from_bytes([1; 16]));
//! let dyn_host: &mut dyn Host = &mut host;
//! let model = dyn_host.restore_model(false, &mut |_| {}).expect("a model");
//! assert_eq!(model.keep.len(), 1, "every saved pane's row is kept");
//! assert!(matches!(
//!     dyn_host.recreate(&model, &Default::default(), &mut |_| {}),
//!     Err(HostError::Unsupported { what: "recreate" })
//! ));
//! assert_eq!(Position::Session { session: "w\tk".into(), window: 1, pane: 2 }.to_string(), "w\\tk:1.2");
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use agent_resume_core::{Layout, PaneId, Shell, TakeKey};

/// Where a pane sits in its host: what a plan table names it by and sorts
/// it by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Position {
    /// A multiplexer's pane (tmux): `session:window.pane`.
    Session {
        /// The session name.
        session: String,
        /// The window index.
        window: u32,
        /// The pane index.
        pane: u32,
    },
    /// A pane of a terminal's layout (a layout file, kitty): window, tab
    /// and pane indices, in the layout's order.
    Host {
        /// The window's index in the layout.
        window: usize,
        /// The tab's index in its window.
        tab: usize,
        /// The pane's index in its tab.
        pane: usize,
    },
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::Session {
                session,
                window,
                pane,
            } => write!(f, "{}:{window}.{pane}", crate::paths::escape(session)),
            Position::Host { window, tab, pane } => write!(f, "w{window}.t{tab}.p{pane}"),
        }
    }
}

/// A pane's place in a plan table: its position, its directory and how the
/// host brings it back.
#[derive(Clone, Debug)]
pub struct Place {
    /// Where it sits.
    pub position: Position,
    /// Its directory, when known.
    pub cwd: Option<PathBuf>,
    /// How the host brings it back (`recreate`, `in place`, …); `None` for
    /// panes the terminal itself restored.
    pub comes_back: Option<&'static str>,
}

/// The places of a layout's panes, by index (`w0.t0.p0`).
pub fn places_of(layout: &Layout) -> HashMap<PaneId, Place> {
    let mut out = HashMap::with_capacity(layout.panes().count());
    for (wi, w) in layout.windows.iter().enumerate() {
        for (ti, t) in w.tabs.iter().enumerate() {
            for (pi, p) in t.panes.iter().enumerate() {
                out.insert(
                    p.id,
                    Place {
                        position: Position::Host {
                            window: wi,
                            tab: ti,
                            pane: pi,
                        },
                        cwd: p.cwd.clone(),
                        comes_back: None,
                    },
                );
            }
        }
    }
    out
}

/// How a saved pane comes back in a restore.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Fate {
    /// The host makes it ([`Host::recreate`]); its shell takes the armed
    /// line at its first prompt.
    Create = 0,
    /// It is there already with a shell in front: the take command is
    /// typed into it ([`Host::dispatch`]) only at an empty, idle prompt.
    InPlace = 1,
    /// Gone and not coming back in this restore: planned and shown, never
    /// armed or reported.
    Dead = 2,
}

impl Fate {
    /// Every fate, in discriminant order.
    pub const VARIANTS: &'static [Fate] = &[Fate::Create, Fate::InPlace, Fate::Dead];

    /// The fate's stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Fate::Create => "create",
            Fate::InPlace => "in_place",
            Fate::Dead => "dead",
        }
    }
}

/// A host's live panes: its layout as core's [`Layout`] and the pane ids
/// it has now.
#[derive(Clone, Debug)]
pub struct Live {
    /// The live layout (`startup` false: it is not a restore pass).
    pub layout: Layout,
    /// Every live pane's id.
    pub panes: Vec<PaneId>,
}

/// What a restore works on: what was saved, mapped onto core's layout, and
/// how each saved pane comes back given what is live.
#[derive(Clone, Debug)]
pub struct Model {
    /// Whether the host had anything saved to restore: with `false` the
    /// sequence stops before the store is opened (no sweep, no plan), and
    /// [`Model::nothing`] says why.
    pub saved: bool,
    /// The panes to plan (`startup` true for a start-up restore).
    pub layout: Layout,
    /// The panes whose rows the start-up sweep keeps (saved or live).
    pub keep: HashSet<PaneId>,
    /// How each planned pane comes back; a pane with no fate is neither
    /// created nor typed into (the host restored it itself).
    pub fates: BTreeMap<PaneId, Fate>,
    /// Where each planned pane sits.
    pub places: HashMap<PaneId, Place>,
    /// Why nothing is restored, when the layout holds no pane.
    pub nothing: String,
    /// With `Some(server)`, each pane to be created with a resume line is
    /// armed with a fresh take key for that server, handed to the pane's
    /// first process ([`Host::recreate`]).
    pub take_keys: Option<String>,
}

impl Model {
    /// A model of `layout`, keeping every pane of it, with no fate and no
    /// place yet.
    pub fn new(layout: Layout) -> Model {
        let keep = layout.panes().map(|(p, _)| p.id).collect();
        Model {
            saved: true,
            layout,
            keep,
            fates: BTreeMap::new(),
            places: HashMap::new(),
            nothing: String::new(),
            take_keys: None,
        }
    }

    /// A model with no pane: nothing to restore, and why.
    pub fn nothing(why: impl Into<String>) -> Model {
        let mut m = Model::new(Layout {
            startup: true,
            windows: Vec::new(),
        });
        m.saved = false;
        m.nothing = why.into();
        m
    }
}

/// What [`Host::recreate`] made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recreated {
    /// The session to attach to, when the host has such a thing.
    pub attach: Option<String>,
}

/// What [`Host::dispatch`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dispatched {
    /// The take command was typed.
    Sent,
    /// Nothing was typed, and why; the line stays armed.
    NotTyped {
        /// Why nothing was typed (no untrusted bytes).
        why: String,
        /// Whether the pane's next prompt takes the line.
        pending: bool,
    },
}

/// A host that failed, or cannot do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The host does not implement this (recreate, dispatch, identity).
    #[error("this host cannot {what}")]
    Unsupported {
        /// What was asked.
        what: &'static str,
    },
    /// A base directory could not be located.
    #[error(transparent)]
    Paths(#[from] crate::paths::NoBase),
    /// The host's saved layout does not read.
    #[error("the saved {host} layout does not parse")]
    Saved {
        /// The host's name.
        host: &'static str,
        /// Why it does not parse.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The host itself failed (its program, its socket, its database);
    /// shown as the cause itself, chain and all.
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl HostError {
    /// The host's own error.
    pub fn other(e: impl std::error::Error + Send + Sync + 'static) -> HostError {
        HostError::Other(Box::new(e))
    }
}

/// A host agent-resume restores into.
pub trait Host {
    /// The host's name in messages (`tmux`, `kitty`).
    fn name(&self) -> &'static str;

    /// The host's live layout and pane ids (giving any pane without a
    /// stable id one).
    fn snapshot(&mut self) -> Result<Live, HostError>;

    /// The live pane ids.
    fn live_panes(&mut self) -> Result<Vec<PaneId>, HostError> {
        Ok(self.snapshot()?.panes)
    }

    /// What was saved, what is live, and how each saved pane comes back;
    /// with `recreate` false a missing pane is [`Fate::Dead`]. Reads only:
    /// a dry run asks this and nothing else. Notes for the user (an
    /// untrusted database, panes left out) go to `say`.
    fn restore_model(
        &mut self,
        recreate: bool,
        say: &mut dyn FnMut(&str),
    ) -> Result<Model, HostError>;

    /// Makes every [`Fate::Create`] pane of `model`, each started with its
    /// take key from `keys` when it has one. Problems that cost one pane
    /// and not the others are said through `say`.
    fn recreate(
        &mut self,
        model: &Model,
        keys: &BTreeMap<PaneId, TakeKey>,
        say: &mut dyn FnMut(&str),
    ) -> Result<Recreated, HostError> {
        let _ = (model, keys, say);
        Err(HostError::Unsupported { what: "recreate" })
    }

    /// Types `line` (the take command, [`take_command`]) into the existing
    /// pane `pane`, only where its shell sits at an empty, idle prompt.
    fn dispatch(&mut self, pane: PaneId, line: &str) -> Result<Dispatched, HostError> {
        let _ = (pane, line);
        Err(HostError::Unsupported { what: "dispatch" })
    }

    /// The stable id of the pane the calling process runs in, as the host
    /// knows it (never an inherited environment variable).
    fn identity(&mut self) -> Result<Option<PaneId>, HostError> {
        Err(HostError::Unsupported {
            what: "identify a pane",
        })
    }

    /// What `status` says of this host: lines of `(label, text)`.
    fn status(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// What `doctor` checks of this host's set-up (reads only; a host that
    /// is not installed says so with one [`Status::Skip`] check).
    ///
    /// [`Status::Skip`]: crate::check::Status::Skip
    fn doctor(&self) -> Vec<crate::check::Check> {
        Vec::new()
    }
}

/// How long ago `at` was, for people: `42s`, `5m`, `3h`, `2d`.
pub fn age(at: agent_resume_core::UnixMillis, now: agent_resume_core::UnixMillis) -> String {
    let s = at.until(now).max(0) / 1000;
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// The command typed into an existing pane at its prompt: fixed text but
/// for the validated pane id and the program (`bin`, already quoted); it
/// carries the history marker.
pub fn take_command(bin: &str, pane: PaneId, shell: Shell) -> String {
    match shell {
        Shell::Fish => format!(" AGENT_RESUME_LINE=1 eval ({bin} take --pane {pane} --shell fish)"),
        Shell::Bash | Shell::Zsh | Shell::Sh => {
            format!(" AGENT_RESUME_LINE=1 eval \"$({bin} take --pane {pane} --shell {shell})\"")
        }
    }
}

/// This program, quoted for a shell, for [`take_command`]: the running
/// executable, else `agent-resume` from `PATH`.
pub fn this_program() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.into_os_string().into_string().ok())
        .and_then(|p| agent_resume_core::quote(&p).ok())
        .unwrap_or_else(|| "agent-resume".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typed_take_command_holds_only_the_pane_id_and_the_marker() {
        let pane = PaneId::from_bytes([7; 16]);
        for shell in Shell::VARIANTS {
            let line = take_command("'/usr/bin/agent-resume'", pane, *shell);
            assert!(line.starts_with(" AGENT_RESUME_LINE=1 "));
            assert!(!line.chars().any(char::is_control));
            let rest = line
                .replace(&pane.to_string(), "")
                .replace("'/usr/bin/agent-resume'", "");
            assert!(
                rest.chars()
                    .all(|c| c.is_ascii_alphanumeric() || " =-_()$\"".contains(c)),
                "{line}"
            );
        }
    }

    #[test]
    fn fates_have_stable_distinct_names_in_discriminant_order() {
        for (i, f) in Fate::VARIANTS.iter().enumerate() {
            assert_eq!(*f as usize, i);
        }
        let names: HashSet<_> = Fate::VARIANTS.iter().map(|f| f.as_str()).collect();
        assert_eq!(names.len(), Fate::VARIANTS.len());
    }
}
