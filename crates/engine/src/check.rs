//! What `agent-resume doctor` reports: one [`Check`] per thing a set-up
//! needs, each with a closed [`Status`], a detail and the command that
//! fixes it. Hosts say their own checks ([`crate::host::Host::doctor`]);
//! the CLI prints them.
//!
//! # Example
//!
//! ```
//! use agent_resume_engine::check::{Check, Status};
//!
//! let c = Check::new("kitty.conf", Status::Warn, "kitty.conf does not listen")
//!     .fix("agent-resume init kitty >> ~/.config/kitty/kitty.conf");
//! assert_eq!(c.status.as_str(), "warn");
//! assert!(c.fix.is_some());
//! assert!(!agent_resume_engine::check::has_line("# listen_on x\n", "listen_on"));
//! ```

use std::path::{Path, PathBuf};

use agent_resume_discover::file::{self, Kind};

/// A check's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// As it should be.
    Pass = 1,
    /// Worth knowing; does not fail the run.
    Warn = 2,
    /// Missing or wrong: restore would not work as the README promises.
    Fail = 3,
    /// Not applicable here (no tmux, say).
    Skip = 4,
}

impl Status {
    /// Every variant, in discriminant order.
    pub const VARIANTS: &'static [Status] =
        &[Status::Pass, Status::Warn, Status::Fail, Status::Skip];

    /// The stable name (`doctor --json`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// One check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// Stable key: `feature`, `tmux.conf`, `kitty.socket`, …
    pub key: String,
    /// Its outcome.
    pub status: Status,
    /// What was found (paths shown escaped; no untrusted bytes raw).
    pub detail: String,
    /// The command that fixes it.
    pub fix: Option<String>,
}

impl Check {
    /// A check with no fix.
    pub fn new(key: impl Into<String>, status: Status, detail: impl Into<String>) -> Check {
        Check {
            key: key.into(),
            status,
            detail: detail.into(),
            fix: None,
        }
    }

    /// The same check, naming the command that fixes it.
    pub fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

/// The largest startup file read.
pub const MAX_STARTUP: u64 = 1 << 20;

/// Whether `text` has a line, not commented out, holding `needle`.
pub fn has_line(text: &str, needle: &str) -> bool {
    text.lines()
        .any(|l| !l.trim_start().starts_with('#') && l.contains(needle))
}

/// The first of `files` holding a line with `needle`; each read without
/// blocking, only when a regular file, through [`MAX_STARTUP`].
pub fn file_with(files: &[PathBuf], needle: &str) -> Option<PathBuf> {
    file_with_lines(files, &[needle])
}

/// The first of `files` holding, for each of `needles`, a line with it;
/// read as [`file_with`] reads.
pub fn file_with_lines(files: &[PathBuf], needles: &[&str]) -> Option<PathBuf> {
    files
        .iter()
        .find(|f| {
            file::read_text(f, Kind::StartupFile, MAX_STARTUP)
                .is_ok_and(|t| needles.iter().all(|n| has_line(&t, n)))
        })
        .cloned()
}

/// `$HOME`, when it is an absolute path.
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
}

/// `$XDG_CONFIG_HOME` when absolute, else `home/.config`.
pub fn config_home(home: &Path) -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .unwrap_or_else(|| home.join(".config"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commented_out_line_does_not_count_as_loading_the_integration() {
        assert!(has_line(
            "x\neval \"$(agent-resume init bash)\"\n",
            "agent-resume init bash"
        ));
        assert!(!has_line(
            "  # eval \"$(agent-resume init bash)\"\n",
            "agent-resume init bash"
        ));
    }

    #[test]
    fn statuses_have_stable_distinct_names_in_discriminant_order() {
        let names: std::collections::BTreeSet<_> =
            Status::VARIANTS.iter().map(|s| s.as_str()).collect();
        assert_eq!(names.len(), Status::VARIANTS.len());
        for (i, s) in Status::VARIANTS.iter().enumerate() {
            assert_eq!(*s as usize, i + 1);
        }
    }
}
