//! Correlation: the one session an agent started in a pane.
//!
//! The last-resort id source of capture (`docs/capture.md`): given when the
//! pane's agent was spawned and the directory it runs in, the session whose
//! start lies within a window around the spawn and whose directory is the
//! pane's. Exactly one match is an answer; none, or more than one, is no
//! answer — never "the newest", which could hand a pane another pane's
//! conversation.
//!
//! A session's start is its id's own timestamp where the id is a UUID v7
//! (Codex, Grok, Pi), else the earliest time its records name.
//!
//! Zero-config capture ([`crate::scan`], `tmux save`, `capture scan`) calls
//! [`correlate_within`] with the agent process's start time and directory.

use std::path::{Component, Path, PathBuf};

use agent_resume_core::{AgentKind, UnixMillis};

use crate::SessionInfo;

/// The default window: 30 s either side of the spawn.
pub const WINDOW_MILLIS: i64 = 30_000;

/// A pane's agent, as the host saw it start.
#[derive(Clone, Copy, Debug)]
pub struct Spawn<'a> {
    /// The agent.
    pub agent: AgentKind,
    /// The pane's directory (canonical, as the sessions' directories should
    /// be compared).
    pub cwd: &'a Path,
    /// When the agent was spawned.
    pub at: UnixMillis,
    /// How far from `at` a session's start may be, in milliseconds.
    pub window_millis: i64,
}

/// The timestamp of a UUID v7 (`xxxxxxxx-xxxx-7xxx-…`): its first 48 bits
/// are milliseconds since the epoch. `None` for any other id.
pub fn uuid_v7_millis(id: &str) -> Option<UnixMillis> {
    let b = id.as_bytes();
    if b.len() != 36 || !id.is_ascii() || b[8] != b'-' || b[13] != b'-' || b[14] != b'7' {
        return None;
    }
    let hex: String = id[..8].chars().chain(id[9..13].chars()).collect();
    i64::from_str_radix(&hex, 16).ok().map(UnixMillis)
}

/// `p` without `.` components and trailing separators.
fn normal(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// The one session of `spawn.agent` in `spawn.cwd` that started within the
/// window around `spawn.at`; `None` when there is none or more than one.
pub fn correlate<'s>(sessions: &'s [SessionInfo], spawn: &Spawn<'_>) -> Option<&'s SessionInfo> {
    let w = spawn.window_millis;
    correlate_within(sessions, spawn, -w, w, &|_| false)
}

/// The one session of `spawn.agent` in `spawn.cwd` whose start lies between
/// `from` and `to` milliseconds after `spawn.at`, sessions `skip` names left
/// out; `None` when there is none or more than one. A directory the store
/// names through a link matches its canonical form (`/proc/<pid>/cwd`).
pub fn correlate_within<'s>(
    sessions: &'s [SessionInfo],
    spawn: &Spawn<'_>,
    from: i64,
    to: i64,
    skip: &dyn Fn(&SessionInfo) -> bool,
) -> Option<&'s SessionInfo> {
    let cwd = normal(spawn.cwd);
    let mut found = None;
    for s in sessions {
        if s.agent != spawn.agent || skip(s) {
            continue;
        }
        let Some(start) = s.start_time() else {
            continue;
        };
        if !(from..=to).contains(&spawn.at.until(start)) {
            continue;
        }
        let Some(dir) = s.cwd.as_deref() else {
            continue;
        };
        if normal(dir) != cwd && dir.canonicalize().ok().map(|d| normal(&d)) != Some(cwd.clone()) {
            continue;
        }
        if found.is_some_and(|f: &SessionInfo| f.id != s.id) {
            return None;
        }
        found = Some(s);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_v7_carries_its_creation_time() {
        // 0x01a22abfa931 ms.
        assert_eq!(
            uuid_v7_millis("01a22abf-a931-72c2-b857-4949dadb1b99"),
            Some(UnixMillis(0x01a2_2abf_a931))
        );
        assert_eq!(uuid_v7_millis("f6066ebb-140e-4519-ab63-b9cde0b60b57"), None);
        assert_eq!(uuid_v7_millis("not-an-id"), None);
    }
}
