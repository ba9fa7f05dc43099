//! Polling: a test waits for what it needs to see, never a fixed time.

use std::time::{Duration, Instant};

/// How long a poll waits before failing the test.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Between two polls.
pub const POLL: Duration = Duration::from_millis(20);

/// Polls `check` until it returns `Some`, or fails naming `what`.
pub fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(POLL);
    }
}
