//! The host's restored layout: windows → tabs → panes, and where each pane
//! ranks when two panes claim one conversation.
//!
//! The same type backs the CLI's layout file (`docs/layout.md`), so a host
//! in any language speaks the same model.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::pane::PaneId;
use crate::shell::Shell;

/// What the host restores at start-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    /// Whether this is the start-up restore pass (resumes happen only then).
    pub startup: bool,
    /// Restored windows.
    pub windows: Vec<Window>,
}

/// One restored window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// The window created last: the one the user lands in.
    #[serde(default)]
    pub landing: bool,
    /// Whether the window is visible (not minimised, on a shown space).
    #[serde(default)]
    pub visible: bool,
    /// Index of the active tab.
    #[serde(default)]
    pub active_tab: usize,
    /// The window's tabs.
    pub tabs: Vec<Tab>,
}

/// One tab: a tree of panes, of which one is focused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tab {
    /// The focused leaf, when known.
    #[serde(default)]
    pub focused_pane: Option<PaneId>,
    /// The tab's panes.
    pub panes: Vec<PaneSpec>,
}

/// One restored pane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaneSpec {
    /// Stable id the host keeps across restarts.
    pub id: PaneId,
    /// The restored local directory; `None` for a remote pane or one whose
    /// directory was gone before the last save.
    pub cwd: Option<PathBuf>,
    /// A viewer of a shared session: never resumed into.
    #[serde(default)]
    pub shared_viewer: bool,
    /// The pane's shell: `None` for a shell agent-resume cannot drive
    /// (PowerShell, nushell, …, any name it does not build lines for),
    /// which the plan skips as `shell_unsupported` — the rest of the layout
    /// is restored as usual.
    #[serde(with = "pane_shell")]
    pub shell: Option<Shell>,
    /// The user already typed into the pane.
    #[serde(default)]
    pub has_input: bool,
    /// The host already queued a command for the pane.
    #[serde(default)]
    pub queued_command: bool,
}

/// Where a pane sits, for ranking duplicate claims. Field order is rank
/// order: a landing window beats a visible one, beats the active tab, beats
/// the focused leaf.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Placement {
    /// In the landing window.
    pub landing: bool,
    /// In a visible window.
    pub visible: bool,
    /// In its window's active tab.
    pub active_tab: bool,
    /// The focused leaf of its tab.
    pub focused: bool,
}

impl Layout {
    /// Every pane with its placement, in listing order.
    pub fn panes(&self) -> impl Iterator<Item = (&PaneSpec, Placement)> {
        self.windows.iter().flat_map(|w| {
            w.tabs.iter().enumerate().flat_map(move |(ti, t)| {
                t.panes.iter().map(move |p| {
                    let placement = Placement {
                        landing: w.landing,
                        visible: w.visible,
                        active_tab: ti == w.active_tab,
                        focused: t.focused_pane == Some(p.id),
                    };
                    (p, placement)
                })
            })
        })
    }
}

impl Serialize for Shell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Shell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// A pane's shell in a layout document: a name; one this module does not
/// build lines for reads as `None`, never as an error.
mod pane_shell {
    use super::Shell;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(shell: &Option<Shell>, s: S) -> Result<S::Ok, S::Error> {
        shell.map(Shell::as_str).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Shell>, D::Error> {
        let name = <Option<std::borrow::Cow<'de, str>>>::deserialize(d)?;
        Ok(name.and_then(|n| n.parse().ok()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_json_round_trips_and_refuses_unknown_keys() {
        let text = r#"{"startup": true,
          "windows": [{"landing": true, "visible": true, "active_tab": 0,
            "tabs": [{"focused_pane": "6f9619ff-8b86-d011-b42d-00c04fc964ff",
              "panes": [{"id": "6f9619ff-8b86-d011-b42d-00c04fc964ff", "cwd": "/tmp", "shared_viewer": false,
                         "shell": "zsh", "has_input": false, "queued_command": false}]}]}]}"#;
        let layout: Layout = serde_json::from_str(text).expect("parses");
        let (pane, placement) = layout.panes().next().expect("one pane");
        assert_eq!(pane.shell, Some(Shell::Zsh));
        for other in ["pwsh", "nu", "/usr/bin/xonsh", ""] {
            let doc = text.replace(r#""shell": "zsh""#, &format!(r#""shell": "{other}""#));
            let l: Layout =
                serde_json::from_str(&doc).expect("a shell it cannot drive still parses");
            let (pane, _) = l.panes().next().expect("one pane");
            assert_eq!(pane.shell, None, "{other}");
        }
        assert_eq!(
            placement,
            Placement {
                landing: true,
                visible: true,
                active_tab: true,
                focused: true
            }
        );
        let back: Layout =
            serde_json::from_str(&serde_json::to_string(&layout).expect("serializes"))
                .expect("parses");
        assert_eq!(back, layout);
        assert!(serde_json::from_str::<Layout>(
            &text.replace("\"startup\"", "\"surprise\": 1, \"startup\"")
        )
        .is_err());
    }
}
