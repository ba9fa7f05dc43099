//! What `kitty @ ls` prints, read with serde into typed structs. Every value
//! is untrusted: the text is bounded ([`MAX_LISTING`]), so are the counts
//! ([`MAX_WINDOWS`]), and fields agent-resume does not use are ignored.
//! kitty 0.26 names the active flags `is_active_tab`/`is_active_window`,
//! current kitty `is_active`; both are read.

use std::collections::BTreeMap;

use serde::Deserialize;
use thiserror::Error;

/// The largest listing read, in bytes.
pub const MAX_LISTING: usize = 16 << 20;

/// The most windows (kitty's panes) a listing may hold.
pub const MAX_WINDOWS: usize = 4096;

/// One OS window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct LsOsWindow {
    /// kitty's id.
    pub id: u64,
    /// Has keyboard focus now.
    #[serde(default)]
    pub is_focused: bool,
    /// Was the focused OS window last.
    #[serde(default)]
    pub last_focused: bool,
    /// Its tabs, in order.
    #[serde(default)]
    pub tabs: Vec<LsTab>,
}

/// One tab.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct LsTab {
    /// kitty's id.
    pub id: u64,
    /// The OS window's active tab.
    #[serde(default, alias = "is_active_tab")]
    pub is_active: bool,
    /// The layout's name.
    #[serde(default)]
    pub layout: String,
    /// The layout's state, as kitty lists it (for `splits`, its tree of
    /// pairs under `pairs`), read leniently: a shape agent-resume does not
    /// know is no split, never a listing that fails.
    #[serde(default)]
    pub layout_state: serde_json::Value,
    /// Its windows, in order.
    #[serde(default)]
    pub windows: Vec<LsWindow>,
}

/// One window (a pane).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct LsWindow {
    /// kitty's id.
    pub id: u64,
    /// The tab's active window.
    #[serde(default, alias = "is_active_window")]
    pub is_active: bool,
    /// Has keyboard focus now.
    #[serde(default)]
    pub is_focused: bool,
    /// The window's first process.
    #[serde(default)]
    pub pid: Option<u32>,
    /// The first process's directory.
    #[serde(default)]
    pub cwd: String,
    /// What the window was started with.
    #[serde(default)]
    pub cmdline: Vec<String>,
    /// The environment kitty set for the window (not inherited ones).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The processes in the foreground.
    #[serde(default)]
    pub foreground_processes: Vec<LsProcess>,
}

/// A foreground process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct LsProcess {
    /// Its pid.
    #[serde(default)]
    pub pid: Option<u32>,
    /// Its argv.
    #[serde(default)]
    pub cmdline: Vec<String>,
}

/// Why a listing was not read.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListingError {
    /// More bytes than [`MAX_LISTING`].
    #[error("the kitty listing is larger than {MAX_LISTING} bytes")]
    TooLarge,
    /// More windows than [`MAX_WINDOWS`].
    #[error("the kitty listing holds more than {MAX_WINDOWS} windows")]
    TooManyWindows,
    /// Not the JSON `kitty @ ls` prints.
    #[error("the kitty listing is not the JSON `kitty @ ls` prints")]
    Malformed,
}

/// Reads `kitty @ ls` output.
pub fn parse_ls(bytes: &[u8]) -> Result<Vec<LsOsWindow>, ListingError> {
    if bytes.len() > MAX_LISTING {
        return Err(ListingError::TooLarge);
    }
    let windows: Vec<LsOsWindow> =
        serde_json::from_slice(bytes).map_err(|_| ListingError::Malformed)?;
    let count: usize = windows
        .iter()
        .flat_map(|o| &o.tabs)
        .map(|t| t.windows.len())
        .sum();
    if count > MAX_WINDOWS {
        return Err(ListingError::TooManyWindows);
    }
    Ok(windows)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LS_0_26: &str = r#"[{"id": 1, "is_active": false, "is_focused": false, "last_focused": false,
      "platform_window_id": 2097164, "wm_class": "kitty",
      "tabs": [{"id": 1, "is_active_tab": true, "is_focused": false, "layout": "splits",
        "layout_state": {"pairs": {"one": 1}}, "title": "~/a b",
        "windows": [{"id": 1, "cwd": "/tmp/kt/a b", "cmdline": ["/usr/bin/bash", "--posix"],
          "env": {"AGENT_RESUME_PANE": "abc", "KITTY_WINDOW_ID": "1"},
          "foreground_processes": [{"cmdline": ["/usr/bin/bash", "--posix"], "cwd": "/tmp/kt/a b", "pid": 20569}],
          "is_active_window": true, "is_focused": false, "is_self": false, "pid": 20569, "title": "x"}]}]}]"#;

    #[test]
    fn a_kitty_0_26_listing_reads_into_typed_windows() {
        let ls = parse_ls(LS_0_26.as_bytes()).expect("reads");
        let tab = &ls[0].tabs[0];
        assert!(tab.is_active);
        assert_eq!(tab.layout, "splits");
        let w = &tab.windows[0];
        assert!(w.is_active);
        assert_eq!(w.cwd, "/tmp/kt/a b");
        assert_eq!(w.pid, Some(20569));
        assert_eq!(
            w.env.get("AGENT_RESUME_PANE").map(String::as_str),
            Some("abc")
        );
        assert_eq!(
            w.foreground_processes[0].cmdline,
            ["/usr/bin/bash", "--posix"]
        );
    }

    #[test]
    fn current_kitty_active_flags_read_too() {
        let text = LS_0_26
            .replace("is_active_tab", "is_active")
            .replace("is_active_window", "is_active");
        let ls = parse_ls(text.as_bytes()).expect("reads");
        assert!(ls[0].tabs[0].is_active && ls[0].tabs[0].windows[0].is_active);
    }

    #[test]
    fn oversized_crowded_or_malformed_listings_are_refused_whole() {
        assert_eq!(parse_ls(b"{\"not\": 1}"), Err(ListingError::Malformed));
        assert_eq!(parse_ls(b"[{\"id\": -1}]"), Err(ListingError::Malformed));
        assert_eq!(
            parse_ls(&vec![b' '; MAX_LISTING + 1]),
            Err(ListingError::TooLarge)
        );
        let window = r#"{"id": 1}"#;
        let many = vec![window; MAX_WINDOWS + 1].join(",");
        let text = format!(r#"[{{"id": 1, "tabs": [{{"id": 1, "windows": [{many}]}}]}}]"#);
        assert_eq!(parse_ls(text.as_bytes()), Err(ListingError::TooManyWindows));
    }
}
