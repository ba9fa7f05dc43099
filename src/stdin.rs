//! Reading stdin to a byte cap and a deadline: `hook` and `note` run inside
//! another program (an agent's hook runner, a shell's preexec), and a stdin
//! that never closes or never ends must not hold that program up.

use std::io::{IsTerminal, Read};
use std::sync::mpsc;
use std::time::Duration;

/// How long stdin is waited for. The writer (an agent's hook runner, a
/// shell's preexec pipe) writes at once and closes.
pub const DEADLINE: Duration = Duration::from_secs(1);

/// At most `cap` bytes of stdin, read until end of file or [`DEADLINE`];
/// `None` when stdin is a terminal, fails, or is still open at the
/// deadline (what was read by then is not used: it may be cut).
pub fn read(cap: u64) -> Option<Vec<u8>> {
    if std::io::stdin().is_terminal() {
        return None;
    }
    let (tx, rx) = mpsc::channel();
    // The reader may stay blocked after the deadline; the process exits
    // without waiting for it.
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let mut buf = Vec::new();
            let got = std::io::stdin()
                .lock()
                .take(cap)
                .read_to_end(&mut buf)
                .map(|_| buf);
            let _ = tx.send(got);
        })
        .ok()?;
    rx.recv_timeout(DEADLINE).ok()?.ok()
}
