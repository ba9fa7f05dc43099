//! Pure parts: the snapshot stored in the database, built from a listing,
//! and its mapping onto the host-neutral restore layout.
//!
//! kitty → model: each OS window is a window of the model (the OS window
//! focused last is the landing window), each kitty tab is a tab (the OS
//! window's active tab is the active tab), and each tab's active kitty
//! window is its focused leaf.
//!
//! Pane ids: a window keeps the id it had at the previous save when kitty's
//! window id and first process are the same; else a restored window's
//! `AGENT_RESUME_PANE` (set by `launch --env`) when no other window lists
//! the same value and it is not the value kitty itself inherited
//! ([`Inherited`]: kitty 0.26 lists a window's whole environment, so a
//! kitty started from a kitty window or a tmux pane lists that pane's id in
//! every window it opens without `launch --env`); else a fresh one. A
//! copied or inherited environment never hands one id to two windows.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::PathBuf;

use agent_resume_core::{Layout, PaneId, PaneSpec, Shell, Tab, Window};
use serde::{Deserialize, Serialize};

use crate::listing::LsOsWindow;
use crate::value::{literal, Value, MAX_DIRECTORY, MAX_NAME};

/// The environment variable that names a window's pane id.
pub const PANE_ENV: &str = "AGENT_RESUME_PANE";

/// A saved kitty window (a pane).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowSnap {
    /// kitty's window id at the save.
    pub kitty_id: u64,
    /// The window's first process at the save.
    #[serde(default)]
    pub pid: Option<u32>,
    /// Stable id.
    pub id: PaneId,
    /// Directory at the save, as kitty listed it.
    pub cwd: String,
    /// The window's shell, when it is one agent-resume knows.
    #[serde(default)]
    pub shell: Option<Shell>,
    /// In the `splits` layout: how it was split from the window before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
}

/// How a window of the `splits` layout is split from the window made
/// before it: kitty's `launch --location=` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Stacked (top and bottom).
    Hsplit,
    /// Side by side.
    Vsplit,
}

impl Split {
    /// kitty's name for it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Split::Hsplit => "hsplit",
            Split::Vsplit => "vsplit",
        }
    }
}

/// The deepest `splits` tree read: deeper nodes are no split.
const MAX_SPLIT_DEPTH: usize = 64;

/// The windows of a `splits` tree in the order they are made again, each
/// with the axis of the split that makes it: a pair's second node is split
/// from the window made just before it (the last of the first node), along
/// the pair's axis. For a tree made by splitting the newest window each
/// time that is the tree itself; for others each window keeps its axis but
/// sits next to the window made before it (kitty 0.26's session file can
/// split only the window it made last).
pub fn split_order(state: &serde_json::Value) -> Vec<(u64, Option<Split>)> {
    fn walk(
        node: &serde_json::Value,
        axis: Option<Split>,
        depth: usize,
        out: &mut Vec<(u64, Option<Split>)>,
    ) {
        if depth > MAX_SPLIT_DEPTH || out.len() >= crate::listing::MAX_WINDOWS {
            return;
        }
        if let Some(id) = node.as_u64() {
            out.push((id, axis));
            return;
        }
        let Some(pair) = node.as_object() else {
            return;
        };
        let side_by_side = pair.get("horizontal").and_then(serde_json::Value::as_bool);
        let made = out.len();
        if let Some(one) = pair.get("one") {
            walk(one, axis, depth + 1, out);
        }
        // Nothing of the first node: the second takes the inherited axis.
        let second = if out.len() == made {
            axis
        } else {
            Some(if side_by_side == Some(true) {
                Split::Vsplit
            } else {
                Split::Hsplit
            })
        };
        if let Some(two) = pair.get("two") {
            walk(two, second, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    if let Some(pairs) = state.get("pairs") {
        walk(pairs, None, 0, &mut out);
    }
    out
}

/// A saved tab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabSnap {
    /// kitty's layout name (empty when unknown).
    #[serde(default)]
    pub layout: String,
    /// Index of the active window.
    pub active_window: usize,
    /// Windows in order.
    pub windows: Vec<WindowSnap>,
}

/// A saved OS window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OsWindowSnap {
    /// The OS window focused last.
    pub landing: bool,
    /// Index of the active tab.
    pub active_tab: usize,
    /// Tabs in order.
    pub tabs: Vec<TabSnap>,
}

/// A saved kitty instance.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// OS windows in kitty's order.
    pub os_windows: Vec<OsWindowSnap>,
}

impl Snapshot {
    /// Every saved window, in order.
    pub fn windows(&self) -> impl Iterator<Item = &WindowSnap> {
        self.os_windows
            .iter()
            .flat_map(|o| &o.tabs)
            .flat_map(|t| &t.windows)
    }
}

/// The pane id the kitty process itself was started with: every window it
/// opens without `launch --env` lists it, so no window takes it as its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inherited {
    /// kitty's own environment names no pane id.
    Nothing,
    /// kitty's own environment names this pane id.
    Id(PaneId),
    /// kitty's own environment could not be read: no window takes a listed
    /// id (restored windows then get fresh ids; none shares one).
    Unknown,
}

impl Inherited {
    /// Reads kitty's environment block (`NAME=VALUE` entries separated by
    /// NUL bytes, as `/proc/<pid>/environ`). Entries that disagree about
    /// the pane id read as [`Inherited::Unknown`].
    pub fn from_environ(block: &[u8]) -> Inherited {
        let mut prefix = PANE_ENV.as_bytes().to_vec();
        prefix.push(b'=');
        let mut found: Option<&[u8]> = None;
        for value in block
            .split(|b| *b == 0)
            .filter_map(|e| e.strip_prefix(prefix.as_slice()))
        {
            match found {
                Some(first) if first != value => return Inherited::Unknown,
                _ => found = Some(value),
            }
        }
        match found
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.parse::<PaneId>().ok())
        {
            Some(id) => Inherited::Id(id),
            None => Inherited::Nothing,
        }
    }

    /// Whether a window listing `id` in its environment may take it: never
    /// kitty's own, never when kitty's own is unknown.
    pub fn lets_take(self, id: PaneId) -> bool {
        match self {
            Inherited::Nothing => true,
            Inherited::Id(own) => own != id,
            Inherited::Unknown => false,
        }
    }

    /// Whether `id` is the one kitty itself inherited (so its windows
    /// listing it say nothing about which panes run).
    pub fn is(self, id: PaneId) -> bool {
        match self {
            Inherited::Id(own) => own == id,
            Inherited::Nothing | Inherited::Unknown => false,
        }
    }
}

/// The shell a program path names (`/usr/bin/zsh`, `-zsh`).
pub fn shell_of(program: &str) -> Option<Shell> {
    Shell::of_program(program)
}

/// Builds a snapshot from a listing. `previous` is this instance's last
/// snapshot; `inherited` what kitty itself was started with; `fresh` mints
/// an id for a window that has none.
pub fn snapshot(
    ls: &[LsOsWindow],
    previous: Option<&Snapshot>,
    inherited: Inherited,
    mut fresh: impl FnMut() -> PaneId,
) -> Snapshot {
    let known: BTreeMap<(u64, Option<u32>), PaneId> = previous
        .into_iter()
        .flat_map(Snapshot::windows)
        .map(|w| ((w.kitty_id, w.pid), w.id))
        .collect();
    let mut env_count: BTreeMap<&str, usize> = BTreeMap::new();
    for w in ls.iter().flat_map(|o| &o.tabs).flat_map(|t| &t.windows) {
        if let Some(v) = w.env.get(PANE_ENV) {
            *env_count.entry(v.as_str()).or_default() += 1;
        }
    }
    // Ids the previous save gave windows that still run are theirs first,
    // whatever order kitty lists windows in: a window that copied another's
    // environment (`launch --copy-env`) never takes its id.
    let mut used = BTreeSet::new();
    let reserved: BTreeSet<PaneId> = ls
        .iter()
        .flat_map(|o| &o.tabs)
        .flat_map(|t| &t.windows)
        .filter_map(|w| known.get(&(w.id, w.pid)).copied())
        .collect();
    let landing = ls
        .iter()
        .position(|o| o.is_focused)
        .or_else(|| ls.iter().position(|o| o.last_focused))
        .or(ls.len().checked_sub(1));
    let mut snap = Snapshot::default();
    for (oi, o) in ls.iter().enumerate() {
        let mut tabs = Vec::new();
        let mut active_tab = 0;
        for t in &o.tabs {
            let mut windows = Vec::new();
            let mut active_window = 0;
            for w in &t.windows {
                let from_env = w
                    .env
                    .get(PANE_ENV)
                    .filter(|v| env_count.get(v.as_str()) == Some(&1))
                    .and_then(|v| v.parse::<PaneId>().ok())
                    .filter(|id| inherited.lets_take(*id) && !reserved.contains(id));
                let id = [known.get(&(w.id, w.pid)).copied(), from_env]
                    .into_iter()
                    .flatten()
                    .find(|id| !used.contains(id))
                    .unwrap_or_else(&mut fresh);
                used.insert(id);
                if w.is_active {
                    active_window = windows.len();
                }
                let cwd = if w.cwd.len() <= MAX_DIRECTORY {
                    w.cwd.clone()
                } else {
                    String::new()
                };
                windows.push(WindowSnap {
                    kitty_id: w.id,
                    pid: w.pid,
                    id,
                    cwd,
                    shell: w.cmdline.first().and_then(|p| shell_of(p)),
                    split: None,
                });
            }
            if windows.is_empty() {
                continue;
            }
            if t.layout == "splits" {
                // Made again in the tree's order, each split from the one
                // before it along its pair's axis; a window the tree does
                // not name comes after, split the default way.
                let order = split_order(&t.layout_state);
                let active = windows[active_window].kitty_id;
                let at = |id: u64| order.iter().position(|(k, _)| *k == id);
                windows.sort_by_key(|w| at(w.kitty_id).unwrap_or(usize::MAX));
                for w in &mut windows {
                    w.split = at(w.kitty_id).and_then(|i| order[i].1);
                }
                active_window = windows
                    .iter()
                    .position(|w| w.kitty_id == active)
                    .unwrap_or(0);
            }
            if t.is_active {
                active_tab = tabs.len();
            }
            let layout = if t.layout.len() <= MAX_NAME {
                t.layout.clone()
            } else {
                String::new()
            };
            tabs.push(TabSnap {
                layout,
                active_window,
                windows,
            });
        }
        if tabs.is_empty() {
            continue;
        }
        snap.os_windows.push(OsWindowSnap {
            landing: landing == Some(oi),
            active_tab,
            tabs,
        });
    }
    snap
}

/// The directory a window comes back in: its saved one when a session file
/// holds it exactly, else `None` (the window comes back as a plain shell).
pub fn restorable_cwd(w: &WindowSnap) -> Option<PathBuf> {
    literal(Value::Directory, OsStr::new(&w.cwd))
        .ok()
        .map(PathBuf::from)
}

/// Maps a snapshot onto the restore layout; a window of unknown shell is
/// planned as `default_shell` (the one kitty starts), and a shell
/// agent-resume cannot drive is `None` (`shell_unsupported`).
pub fn to_layout(snap: &Snapshot, default_shell: Option<Shell>) -> Layout {
    let windows = snap
        .os_windows
        .iter()
        .map(|o| Window {
            landing: o.landing,
            visible: true,
            active_tab: o.active_tab,
            tabs: o
                .tabs
                .iter()
                .map(|t| Tab {
                    focused_pane: t.windows.get(t.active_window).map(|w| w.id),
                    panes: t
                        .windows
                        .iter()
                        .map(|w| PaneSpec {
                            id: w.id,
                            cwd: restorable_cwd(w),
                            shared_viewer: false,
                            shell: w.shell.or(default_shell),
                            has_input: false,
                            queued_command: false,
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    Layout {
        startup: true,
        windows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listing::{LsTab, LsWindow};

    fn id(n: u8) -> PaneId {
        PaneId::from_bytes([n; 16])
    }

    fn win(kid: u64, pid: u32, env: Option<PaneId>, active: bool) -> LsWindow {
        LsWindow {
            id: kid,
            is_active: active,
            pid: Some(pid),
            cwd: format!("/tmp/w{kid}"),
            cmdline: vec!["/usr/bin/zsh".into()],
            env: env
                .map(|e| [(PANE_ENV.to_owned(), e.to_string())].into())
                .unwrap_or_default(),
            ..LsWindow::default()
        }
    }

    fn ls(windows: Vec<Vec<LsWindow>>, focused: usize) -> Vec<LsOsWindow> {
        windows
            .into_iter()
            .enumerate()
            .map(|(i, ws)| LsOsWindow {
                id: i as u64 + 1,
                is_focused: i == focused,
                last_focused: false,
                tabs: vec![LsTab {
                    id: i as u64 + 1,
                    is_active: true,
                    layout: "splits".into(),
                    layout_state: serde_json::Value::Null,
                    windows: ws,
                }],
            })
            .collect()
    }

    #[test]
    fn restored_windows_keep_their_launch_id_and_others_get_fresh_ones() {
        let mut n = 100;
        let snap = snapshot(
            &ls(
                vec![vec![win(1, 10, Some(id(1)), false), win(2, 20, None, true)]],
                0,
            ),
            None,
            Inherited::Nothing,
            || {
                n += 1;
                id(n)
            },
        );
        let ids: Vec<_> = snap.windows().map(|w| w.id).collect();
        assert_eq!(ids, [id(1), id(101)]);
        assert_eq!(snap.os_windows[0].tabs[0].active_window, 1);
        assert_eq!(
            snap.windows().next().map(|w| w.shell),
            Some(Some(Shell::Zsh))
        );
    }

    #[test]
    fn a_copied_pane_environment_never_gives_two_windows_one_id() {
        let mut n = 100;
        let listing = ls(
            vec![vec![
                win(1, 10, Some(id(1)), true),
                win(2, 20, Some(id(1)), false),
            ]],
            0,
        );
        let snap = snapshot(&listing, None, Inherited::Nothing, || {
            n += 1;
            id(n)
        });
        let ids: Vec<_> = snap.windows().map(|w| w.id).collect();
        assert_eq!(ids, [id(101), id(102)]);
        // With the first window known from the previous save, it keeps its id.
        let mut prev = snap.clone();
        prev.os_windows[0].tabs[0].windows[0].id = id(1);
        let again = snapshot(&listing, Some(&prev), Inherited::Nothing, || id(200));
        let ids: Vec<_> = again.windows().map(|w| w.id).collect();
        assert_eq!(ids, [id(1), id(102)]);
    }

    #[test]
    fn a_window_that_copied_another_windows_environment_never_takes_its_id() {
        // Window 2 was opened by the user and given id 5 at a save; window 1,
        // listed first, was launched with a copy of its environment.
        let prev = snapshot(
            &ls(vec![vec![win(2, 20, None, true)]], 0),
            None,
            Inherited::Nothing,
            || id(5),
        );
        let listing = ls(
            vec![vec![win(1, 10, Some(id(5)), false), win(2, 20, None, true)]],
            0,
        );
        let snap = snapshot(&listing, Some(&prev), Inherited::Nothing, || id(6));
        let ids: Vec<_> = snap.windows().map(|w| w.id).collect();
        assert_eq!(ids, [id(6), id(5)]);
    }

    #[test]
    fn a_lone_window_never_takes_the_pane_id_kitty_itself_inherited() {
        // kitty started from a pane with id 1 lists it in its first window;
        // a window launched with its own id 2 keeps that one.
        let listing = ls(
            vec![vec![
                win(1, 10, Some(id(1)), true),
                win(2, 20, Some(id(2)), false),
            ]],
            0,
        );
        let mut n = 100;
        let snap = snapshot(&listing, None, Inherited::Id(id(1)), || {
            n += 1;
            id(n)
        });
        let ids: Vec<_> = snap.windows().map(|w| w.id).collect();
        assert_eq!(ids, [id(101), id(2)]);
        // Unread: no listed id is taken at all.
        let unread = snapshot(&listing, None, Inherited::Unknown, || id(9));
        assert!(unread.windows().all(|w| w.id == id(9)));
    }

    #[test]
    fn kittys_own_environment_names_its_inherited_pane_id_or_is_unknown() {
        let one = id(1).to_string();
        let two = id(2).to_string();
        let block = |entries: &[String]| entries.join("\0").into_bytes();
        let env = |v: &str| format!("{PANE_ENV}={v}");
        assert_eq!(
            Inherited::from_environ(&block(&["HOME=/h".into(), env(&one)])),
            Inherited::Id(id(1))
        );
        assert_eq!(
            Inherited::from_environ(&block(&["HOME=/h".into(), env("junk")])),
            Inherited::Nothing
        );
        assert_eq!(
            Inherited::from_environ(&block(&[format!("X{}", env(&one))])),
            Inherited::Nothing
        );
        assert_eq!(
            Inherited::from_environ(&block(&[env(&one), env(&two)])),
            Inherited::Unknown
        );
        assert_eq!(
            Inherited::from_environ(&block(&[env(&one), env(&one)])),
            Inherited::Id(id(1))
        );
    }

    #[test]
    fn a_window_keeps_its_id_across_saves_only_with_the_same_first_process() {
        let first = snapshot(
            &ls(vec![vec![win(1, 10, None, true)]], 0),
            None,
            Inherited::Nothing,
            || id(7),
        );
        let same = snapshot(
            &ls(vec![vec![win(1, 10, None, true)]], 0),
            Some(&first),
            Inherited::Nothing,
            || id(8),
        );
        assert_eq!(same.windows().next().map(|w| w.id), Some(id(7)));
        let reused = snapshot(
            &ls(vec![vec![win(1, 11, None, true)]], 0),
            Some(&first),
            Inherited::Nothing,
            || id(8),
        );
        assert_eq!(reused.windows().next().map(|w| w.id), Some(id(8)));
    }

    #[test]
    fn the_focused_os_window_lands_and_tabs_map_to_tabs() {
        let listing = ls(
            vec![
                vec![win(1, 10, Some(id(1)), true)],
                vec![win(2, 20, Some(id(2)), true)],
            ],
            1,
        );
        let snap = snapshot(&listing, None, Inherited::Nothing, || id(9));
        let layout = to_layout(&snap, Some(Shell::Bash));
        assert_eq!(layout.windows.len(), 2);
        assert!(!layout.windows[0].landing && layout.windows[1].landing);
        assert_eq!(layout.windows[1].tabs[0].focused_pane, Some(id(2)));
        assert_eq!(
            layout.windows[0].tabs[0].panes[0].cwd,
            Some(PathBuf::from("/tmp/w1"))
        );
    }

    #[test]
    fn a_directory_a_session_file_cannot_hold_comes_back_without_one() {
        let mut w = win(1, 10, Some(id(1)), true);
        w.cwd = "/tmp/$HOME".into();
        let layout = to_layout(
            &snapshot(&ls(vec![vec![w]], 0), None, Inherited::Nothing, || id(9)),
            Some(Shell::Bash),
        );
        assert_eq!(layout.windows[0].tabs[0].panes[0].cwd, None);
    }

    /// kitty's tree after `launch --location=hsplit` then `vsplit`: window
    /// 1 on top, 2 and 3 side by side below it.
    const STACKED_THEN_SIDE: &str = r#"{"pairs": {"bias": 0.5, "horizontal": false, "one": 1,
        "two": {"bias": 0.5, "horizontal": true, "one": 2, "two": 3}}}"#;

    #[test]
    fn a_splits_tree_is_made_again_window_by_window_with_each_split_s_axis() {
        let state: serde_json::Value = serde_json::from_str(STACKED_THEN_SIDE).expect("json");
        assert_eq!(
            split_order(&state),
            [
                (1, None),
                (2, Some(Split::Hsplit)),
                (3, Some(Split::Vsplit))
            ]
        );
        // kitty lists the windows in another order: the snapshot keeps the
        // tree's, and the active window stays the same window.
        let mut listing = ls(
            vec![vec![
                win(3, 30, None, false),
                win(1, 10, None, false),
                win(2, 20, None, true),
            ]],
            0,
        );
        listing[0].tabs[0].layout_state = state;
        let mut n = 100;
        let snap = snapshot(&listing, None, Inherited::Nothing, || {
            n += 1;
            id(n)
        });
        let tab = &snap.os_windows[0].tabs[0];
        let made: Vec<(u64, Option<Split>)> =
            tab.windows.iter().map(|w| (w.kitty_id, w.split)).collect();
        assert_eq!(
            made,
            [
                (1, None),
                (2, Some(Split::Hsplit)),
                (3, Some(Split::Vsplit))
            ]
        );
        assert_eq!(tab.windows[tab.active_window].kitty_id, 2);
        let text = crate::session_file(&snap, std::ffi::OsStr::new("/")).text;
        let launches: Vec<&str> = text.lines().filter(|l| l.starts_with("launch")).collect();
        assert!(!launches[0].contains("--location"), "{text}");
        assert!(
            launches[1].starts_with("launch --location=hsplit --env "),
            "{text}"
        );
        assert!(
            launches[2].starts_with("launch --location=vsplit --env "),
            "{text}"
        );
    }

    #[test]
    fn a_splits_state_of_any_other_shape_is_no_split() {
        for text in [
            "null",
            r#"{"pairs": "x"}"#,
            r#"{"pairs": {"one": "1", "two": -2}}"#,
            r#"{"pairs": {"horizontal": 7, "one": 1, "two": 2}}"#,
        ] {
            let state: serde_json::Value = serde_json::from_str(text).expect("json");
            let order = split_order(&state);
            assert!(
                order.iter().all(|(_, s)| *s != Some(Split::Vsplit)),
                "{text}: {order:?}"
            );
        }
        // A tree nested deeper than kitty makes is cut, never overflowed.
        let mut deep = String::from("1");
        for _ in 0..100 {
            deep = format!(r#"{{"one": {deep}, "two": 2}}"#);
        }
        let state: serde_json::Value =
            serde_json::from_str(&format!(r#"{{"pairs": {deep}}}"#)).expect("json");
        assert!(split_order(&state).len() <= 64);
    }
}
