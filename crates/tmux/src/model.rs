//! Pure parts: the snapshot stored in the database, built from a listing,
//! and its mapping onto the host-neutral restore layout.
//!
//! tmux → model: each tmux session is a window of the model (the session
//! attached most recently is the landing window; sessions that had a client
//! attached are visible), each tmux window is a tab (the session's current
//! window is the active tab), and each window's active pane is its focused
//! leaf.

use std::path::PathBuf;

use agent_resume_core::{Layout, PaneId, PaneSpec, Shell, Tab, Window};
use serde::{Deserialize, Serialize};

use crate::listing::LivePane;

/// A saved pane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneSnap {
    /// Index in its window.
    pub index: u32,
    /// Stable id.
    pub id: PaneId,
    /// Directory at the last save: stored as a string when it is UTF-8,
    /// else as its bytes, so any directory is saved exactly.
    #[serde(with = "path_bytes")]
    pub cwd: PathBuf,
    /// The pane's shell (its first process), when it is one agent-resume
    /// knows; recreated panes start it again.
    #[serde(default)]
    pub shell: Option<Shell>,
}

/// A path in JSON: a string when it is UTF-8, else an array of its bytes
/// (serde's own form refuses paths that are not UTF-8).
mod path_bytes {
    use std::ffi::OsString;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Form {
        Text(String),
        Bytes(Vec<u8>),
    }

    pub fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        match path.to_str() {
            Some(text) => Form::Text(text.to_owned()),
            None => Form::Bytes(path.as_os_str().as_bytes().to_vec()),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        Ok(match Form::deserialize(d)? {
            Form::Text(text) => PathBuf::from(text),
            Form::Bytes(bytes) => PathBuf::from(OsString::from_vec(bytes)),
        })
    }
}

/// The window size a tmux layout string starts with (`b25d,80x24,0,0,…`).
pub fn layout_size(layout: &str) -> Option<(u16, u16)> {
    let (w, h) = layout.split(',').nth(1)?.split_once('x')?;
    Some((
        w.parse().ok().filter(|w| *w > 0)?,
        h.parse().ok().filter(|h| *h > 0)?,
    ))
}

/// A saved window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowSnap {
    /// Window index.
    pub index: u32,
    /// tmux's layout string.
    pub layout: String,
    /// Index of the active pane.
    pub active_pane: u32,
    /// Panes in index order.
    pub panes: Vec<PaneSnap>,
}

/// A saved session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSnap {
    /// Session name.
    pub name: String,
    /// When a client last attached (Unix seconds).
    pub last_attached: i64,
    /// Whether a client was attached at the save.
    pub attached: bool,
    /// The current window's index.
    pub active_window: u32,
    /// Windows in index order.
    pub windows: Vec<WindowSnap>,
}

/// A saved server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Sessions in name order.
    pub sessions: Vec<SessionSnap>,
}

/// Builds a snapshot from live panes that all have stable ids (others are
/// left out).
pub fn snapshot(live: &[LivePane]) -> Snapshot {
    let mut snap = Snapshot::default();
    let mut panes: Vec<&LivePane> = live.iter().filter(|p| p.stable_id.is_some()).collect();
    panes.sort_by(|a, b| {
        (&a.session, a.window_index, a.pane_index).cmp(&(&b.session, b.window_index, b.pane_index))
    });
    for p in panes {
        let Some(id) = p.stable_id else { continue };
        if snap.sessions.last().is_none_or(|s| s.name != p.session) {
            snap.sessions.push(SessionSnap {
                name: p.session.clone(),
                last_attached: p.session_last_attached,
                attached: p.session_attached > 0,
                active_window: p.window_index,
                windows: Vec::new(),
            });
        }
        let Some(session) = snap.sessions.last_mut() else {
            continue;
        };
        if p.window_active {
            session.active_window = p.window_index;
        }
        if session
            .windows
            .last()
            .is_none_or(|w| w.index != p.window_index)
        {
            session.windows.push(WindowSnap {
                index: p.window_index,
                layout: p.window_layout.clone(),
                active_pane: p.pane_index,
                panes: Vec::new(),
            });
        }
        let Some(window) = session.windows.last_mut() else {
            continue;
        };
        if p.pane_active {
            window.active_pane = p.pane_index;
        }
        window.panes.push(PaneSnap {
            index: p.pane_index,
            id,
            cwd: p.cwd.clone(),
            shell: p.pid.and_then(first_process_shell),
        });
    }
    snap
}

/// The shell a pane's first process runs, from `/proc/<pid>/comm`.
fn first_process_shell(pid: u32) -> Option<Shell> {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    shell_of(comm.trim())
}

/// The shell a command name is, if it is one ([`Shell::of_program`]).
pub fn shell_of(command: &str) -> Option<Shell> {
    Shell::of_program(command)
}

/// Whether a foreground command is a shell at its prompt.
pub fn is_shell(command: &str) -> bool {
    shell_of(command).is_some()
}

/// Where a snapshot pane sits, with the restored pane the host built for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The session.
    pub session: String,
    /// The window index.
    pub window: u32,
    /// The pane as the plan sees it.
    pub spec: PaneSpec,
}

/// Maps a snapshot onto the restore layout. `restored` says, for each saved
/// pane, how it comes back (`None`: it is not part of this restore — for
/// example a pane that never died).
pub fn to_layout(
    snap: &Snapshot,
    mut restored: impl FnMut(&SessionSnap, &WindowSnap, &PaneSnap) -> Option<PaneSpec>,
) -> (Layout, Vec<Placed>) {
    let landing = snap
        .sessions
        .iter()
        .max_by_key(|s| s.last_attached)
        .map(|s| s.name.clone());
    let mut placed = Vec::new();
    let mut windows = Vec::new();
    for s in &snap.sessions {
        let mut tabs = Vec::new();
        let mut active_tab = 0;
        for w in &s.windows {
            let mut panes = Vec::new();
            let mut focused_pane = None;
            for p in &w.panes {
                let Some(spec) = restored(s, w, p) else {
                    continue;
                };
                if p.index == w.active_pane {
                    focused_pane = Some(spec.id);
                }
                placed.push(Placed {
                    session: s.name.clone(),
                    window: w.index,
                    spec: spec.clone(),
                });
                panes.push(spec);
            }
            if panes.is_empty() {
                continue;
            }
            if w.index == s.active_window {
                active_tab = tabs.len();
            }
            tabs.push(Tab {
                focused_pane,
                panes,
            });
        }
        if tabs.is_empty() {
            continue;
        }
        windows.push(Window {
            landing: landing.as_deref() == Some(s.name.as_str()),
            visible: s.attached,
            active_tab,
            tabs,
        });
    }
    (
        Layout {
            startup: true,
            windows,
        },
        placed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::too_many_arguments)] // one argument per listed field under test
    fn pane(
        session: &str,
        last: i64,
        attached: u32,
        w: u32,
        wact: bool,
        p: u32,
        pact: bool,
        n: u8,
    ) -> LivePane {
        LivePane {
            session: session.to_owned(),
            session_last_attached: last,
            session_attached: attached,
            window_index: w,
            window_active: wact,
            window_name: "zsh".to_owned(),
            window_layout: "b25d,80x24,0,0,1".to_owned(),
            pane_index: p,
            pane_active: pact,
            target: format!("%{n}"),
            cwd: PathBuf::from(format!("/d{n}")),
            command: "zsh".to_owned(),
            stable_id: Some(PaneId::from_bytes([n; 16])),
            pid: Some(u32::from(n)),
        }
    }

    fn live() -> Vec<LivePane> {
        vec![
            pane("work", 200, 1, 0, false, 0, true, 1),
            pane("work", 200, 1, 1, true, 0, false, 2),
            pane("work", 200, 1, 1, true, 1, true, 3),
            pane("play", 100, 0, 0, true, 0, true, 4),
        ]
    }

    #[test]
    fn snapshot_groups_sessions_windows_and_panes_and_round_trips_as_json() {
        let snap = snapshot(&live());
        assert_eq!(
            snap.sessions
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>(),
            ["play", "work"]
        );
        let work = &snap.sessions[1];
        assert_eq!(
            (
                work.active_window,
                work.windows.len(),
                work.windows[1].active_pane
            ),
            (1, 2, 1)
        );
        let json = serde_json::to_string(&snap).expect("serializes");
        assert_eq!(
            serde_json::from_str::<Snapshot>(&json).expect("parses"),
            snap
        );
    }

    #[test]
    fn a_directory_that_is_not_utf8_is_saved_and_read_back_exactly() {
        use std::os::unix::ffi::OsStrExt;
        let mut odd = live();
        odd[0].cwd = PathBuf::from(std::ffi::OsStr::from_bytes(b"/a\xff\xfe#(x)"));
        let snap = snapshot(&odd);
        let json = serde_json::to_string(&snap).expect("serializes");
        assert!(
            json.contains(r#""cwd":"/d2""#),
            "UTF-8 stays a string: {json}"
        );
        assert_eq!(
            serde_json::from_str::<Snapshot>(&json).expect("parses"),
            snap
        );
    }

    #[test]
    fn tmux_sessions_map_to_windows_the_last_attached_lands_and_active_panes_are_focused() {
        let snap = snapshot(&live());
        let (layout, placed) = to_layout(&snap, |_, _, p| {
            Some(PaneSpec {
                id: p.id,
                cwd: Some(p.cwd.clone()),
                shared_viewer: false,
                shell: Some(Shell::Zsh),
                has_input: false,
                queued_command: false,
            })
        });
        assert_eq!(placed.len(), 4);
        let work = &layout.windows[1];
        assert!(work.landing && work.visible);
        assert!(!layout.windows[0].landing && !layout.windows[0].visible);
        assert_eq!(work.active_tab, 1);
        assert_eq!(work.tabs[1].focused_pane, Some(PaneId::from_bytes([3; 16])));
    }

    #[test]
    fn panes_left_out_of_the_restore_leave_no_empty_tabs() {
        let snap = snapshot(&live());
        let (layout, placed) = to_layout(&snap, |_, w, p| {
            (w.index == 1).then_some(PaneSpec {
                id: p.id,
                cwd: None,
                shared_viewer: false,
                shell: Some(Shell::Bash),
                has_input: false,
                queued_command: false,
            })
        });
        assert_eq!(placed.len(), 2);
        assert_eq!(layout.windows.len(), 1);
        assert_eq!(layout.windows[0].active_tab, 0);
    }

    #[test]
    fn layout_size_is_read_from_the_layout_string() {
        assert_eq!(
            layout_size("b25d,191x50,0,0{95x50,0,0,1,95x50,96,0,2}"),
            Some((191, 50))
        );
        assert_eq!(layout_size("b25d,0x50,0,0,1"), None);
        assert_eq!(layout_size("garbage"), None);
    }

    #[test]
    fn login_shells_and_paths_are_shells() {
        assert_eq!(shell_of("-zsh"), Some(Shell::Zsh));
        assert_eq!(shell_of("/usr/bin/fish"), Some(Shell::Fish));
        assert_eq!(shell_of("dash"), Some(Shell::Sh));
        assert_eq!(shell_of("claude"), None);
        assert!(!is_shell("node"));
    }
}
