//! Reading stdin to a byte cap and a deadline: `hook` and `note` run inside
//! another program (an agent's hook runner, a shell's preexec), and a stdin
//! that never closes or never ends must not hold that program up.

use std::io::{IsTerminal, Read};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};

/// How long stdin is waited for. The writer (an agent's hook runner, a
/// shell's preexec pipe) writes at once and closes.
pub const DEADLINE: Duration = Duration::from_secs(1);

/// At most `cap` bytes of stdin, read until end of file or [`DEADLINE`];
/// `None` when stdin is a terminal, fails, or is still open at the
/// deadline (what was read by then is not used: it may be cut). One
/// thread: each read waits in `poll` for what is left of the deadline.
pub fn read(cap: u64) -> Option<Vec<u8>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return None;
    }
    let end = Instant::now() + DEADLINE;
    // One allocation up front: growing by doubling would copy, and touch,
    // up to twice the cap.
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    let mut buf = vec![0u8; cap];
    let mut len = 0;
    let fd = stdin.as_fd();
    let mut lock = stdin.lock();
    while len < cap {
        let left = end.checked_duration_since(Instant::now())?;
        let timeout = Timespec::try_from(left).ok()?;
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        }
        match lock.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    buf.truncate(len);
    Some(buf)
}
