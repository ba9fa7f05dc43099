//! Writes a kitty session file from a snapshot: one `new_os_window` block
//! per OS window, `new_tab` and `layout` per tab, and per window `cd` then
//! `launch --env AGENT_RESUME_PANE=<id> <shell>`; `focus` after each tab's
//! active window (up to the active tab, so the active tab is focused last)
//! and `focus_os_window` in the OS window that lands.
//!
//! Every value goes through [`literal`]. A directory it refuses is replaced
//! by the fallback directory (the window comes back as a plain shell there:
//! the restore model plans it without a directory); a layout it refuses or
//! kitty does not name is left out (kitty's default layout).

use std::ffi::OsStr;

use agent_resume_core::PaneId;

use crate::model::{Snapshot, PANE_ENV};
use crate::value::{literal, Refused, Value};

/// The layouts kitty 0.26 and current kitty both name.
pub const LAYOUTS: [&str; 7] = [
    "fat",
    "grid",
    "horizontal",
    "splits",
    "stack",
    "tall",
    "vertical",
];

/// A written session file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The file's text.
    pub text: String,
    /// Windows whose directory was refused, with why.
    pub refused: Vec<(PaneId, Refused)>,
}

/// The session file for `snap`. `fallback` is the directory a window whose
/// own one is refused starts in (`/` when it is refused too).
pub fn session_file(snap: &Snapshot, fallback: &OsStr) -> Written {
    let fallback = literal(Value::Directory, fallback).unwrap_or("/");
    // About a hundred bytes a window (`cd`, `launch` with the pane id): one
    // allocation for most files instead of a doubling series.
    let windows: usize = snap.windows().map(|w| w.cwd.len() + 96).sum();
    let mut text = String::with_capacity(64 + windows);
    text.push_str("# kitty session written by agent-resume\n");
    let mut refused = Vec::new();
    for (oi, o) in snap.os_windows.iter().enumerate() {
        if oi > 0 {
            text.push_str("new_os_window\n");
        }
        for (ti, t) in o.tabs.iter().enumerate() {
            text.push_str("new_tab\n");
            if let Ok(layout) = literal(Value::Layout, OsStr::new(&t.layout)) {
                if LAYOUTS.contains(&layout) {
                    text.push_str("layout ");
                    text.push_str(layout);
                    text.push('\n');
                }
            }
            for (wi, w) in t.windows.iter().enumerate() {
                let cwd = match literal(Value::Directory, OsStr::new(&w.cwd)) {
                    Ok(cwd) => cwd,
                    Err(why) => {
                        refused.push((w.id, why));
                        fallback
                    }
                };
                text.push_str("cd ");
                text.push_str(cwd);
                // The assignment is written in place and checked there,
                // and taken back out if refused: no string of its own.
                text.push('\n');
                let launch = text.len();
                text.push_str("launch ");
                // In the `splits` layout each window is split from the one
                // made before it along its saved axis (kitty splits the
                // window it made last).
                if let (Some(split), true) = (w.split, wi > 0 && t.layout == "splits") {
                    text.push_str("--location=");
                    text.push_str(split.as_str());
                    text.push(' ');
                }
                text.push_str("--env ");
                let env = text.len();
                text.push_str(PANE_ENV);
                text.push('=');
                text.push_str(w.id.encode(&mut [0; PaneId::TEXT_LEN]));
                if literal(Value::Environment, OsStr::new(&text[env..])).is_err() {
                    text.truncate(launch);
                    continue;
                }
                if let Some(shell) = w.shell {
                    if let Ok(program) = literal(Value::Program, OsStr::new(shell.as_str())) {
                        text.push(' ');
                        text.push_str(program);
                    }
                }
                text.push('\n');
                if wi == t.active_window && ti <= o.active_tab {
                    text.push_str("focus\n");
                }
            }
        }
        if o.landing {
            text.push_str("focus_os_window\n");
        }
    }
    Written { text, refused }
}
