//! Posture freshness: whether permission-posture flags may ride along.
//!
//! A posture flag (`--dangerously-skip-permissions`, `--permission-mode`,
//! codex `--sandbox`, …) is replayed only when the recording is fresh:
//! `0 ≤ now − observed_at ≤ window`. A recording dated in the future is
//! stale. Past the window the pane still resumes, without its posture.
//! Which flags are posture is the catalog's answer,
//! [`FlagDecl::is_posture`](crate::catalog::FlagDecl::is_posture), asked
//! with the flag's value: `--mode autopilot` is dropped as `--autopilot` is.

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch, UTC.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct UnixMillis(pub i64);

impl UnixMillis {
    /// Milliseconds from `self` to `later` (negative when `later` is earlier).
    pub fn until(self, later: UnixMillis) -> i64 {
        later.0.saturating_sub(self.0)
    }
}

/// The freshness window for posture flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PostureWindow {
    millis: i64,
}

impl PostureWindow {
    /// The default: 12 hours.
    pub const DEFAULT: PostureWindow = PostureWindow {
        millis: 12 * 3600 * 1000,
    };

    /// A window of `secs` seconds (negative values clamp to zero).
    pub fn from_secs(secs: i64) -> Self {
        PostureWindow {
            millis: secs.max(0).saturating_mul(1000),
        }
    }

    /// The window in milliseconds.
    pub fn millis(self) -> i64 {
        self.millis
    }
}

impl Default for PostureWindow {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Whether posture flags are replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Posture {
    /// Fresh recording: posture flags ride along.
    Carry,
    /// Stale or future-dated: posture flags are dropped, the rest is kept.
    Drop,
}

/// Decides posture from the recording's age.
pub fn decide(observed_at: UnixMillis, now: UnixMillis, window: PostureWindow) -> Posture {
    decide_age(observed_at.until(now), window)
}

/// Decides posture from an age in milliseconds.
pub fn decide_age(age_millis: i64, window: PostureWindow) -> Posture {
    if (0..=window.millis).contains(&age_millis) {
        Posture::Carry
    } else {
        Posture::Drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posture_is_carried_only_inside_the_window_edges_included() {
        let w = PostureWindow::DEFAULT;
        assert_eq!(decide_age(0, w), Posture::Carry);
        assert_eq!(decide_age(w.millis(), w), Posture::Carry);
        assert_eq!(decide_age(w.millis() + 1, w), Posture::Drop);
        assert_eq!(decide_age(-1, w), Posture::Drop, "future-dated is stale");
        assert_eq!(
            decide(UnixMillis(i64::MIN), UnixMillis(i64::MAX), w),
            Posture::Drop
        );
        assert_eq!(
            decide(UnixMillis(i64::MAX), UnixMillis(i64::MIN), w),
            Posture::Drop
        );
    }
}
