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

/// Why stdin was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unread {
    /// Stdin is a terminal: nobody is piping anything.
    Terminal,
    /// Still open at the deadline; what was read by then is not used (it
    /// may be cut).
    TimedOut,
    /// A read failed.
    Failed,
}

/// At most `cap` bytes of stdin, read until end of file or [`DEADLINE`].
/// One thread: each read waits in `poll` for what is left of the deadline.
pub fn read(cap: u64) -> Result<Vec<u8>, Unread> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Unread::Terminal);
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
        let left = end
            .checked_duration_since(Instant::now())
            .ok_or(Unread::TimedOut)?;
        let timeout = Timespec::try_from(left).map_err(|_| Unread::Failed)?;
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => return Err(Unread::TimedOut),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return Err(Unread::Failed),
        }
        match lock.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Err(Unread::Failed),
        }
    }
    buf.truncate(len);
    Ok(buf)
}
