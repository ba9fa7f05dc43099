//! `restore.log`, beside the telemetry file: what a restore that runs in
//! the background (a tmux or kitty start) has to say, since no terminal
//! shows it, and the lines that follow a restore's queue to its end
//! ([`follow`]), which `tmux restore --wait` prints instead. Lines are
//! escaped, so nothing in a note can draw on a terminal that shows the
//! file.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use agent_resume_core::{PaneId, UnixMillis};

use crate::host::Place;
use crate::paths::Overrides;

/// The log of this run; a log that cannot be written drops its lines.
pub struct Log {
    file: Option<std::fs::File>,
}

impl Log {
    /// The log, emptied.
    pub fn open() -> Log {
        Log::opened(true)
    }

    /// The log, written after what it holds.
    pub fn append() -> Log {
        Log::opened(false)
    }

    fn opened(fresh: bool) -> Log {
        let file = crate::telemetry::path()
            .ok()
            .map(|p| p.with_file_name("restore.log"))
            .and_then(|path| {
                use std::os::unix::fs::DirBuilderExt;
                let dir = path.parent()?;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .ok()?;
                std::fs::OpenOptions::new()
                    .create(true)
                    .write(true)
                    .append(!fresh)
                    .truncate(fresh)
                    .mode(0o600)
                    .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
                    .open(path)
                    .ok()
            });
        Log { file }
    }

    /// One line.
    pub fn line(&mut self, text: &str) {
        if let Some(f) = &mut self.file {
            let _ = writeln!(f, "{}", crate::paths::escape(text));
        }
    }
}

/// Follows restore queue `queue` ([`super::watch::watch`]): one line per
/// pane as its agent starts and as it settles (named by its place in
/// `places`, else its id), then the summary.
pub fn follow(
    queue: &str,
    places: &HashMap<PaneId, Place>,
    o: &Overrides,
    clock: &dyn Fn() -> UnixMillis,
    say: &mut dyn FnMut(&str),
) {
    let Ok(path) = crate::telemetry::path() else {
        return;
    };
    let mut sink = crate::telemetry::FileSink::new(path);
    let place = |pane: PaneId| {
        places
            .get(&pane)
            .map_or_else(|| pane.to_string(), |p| p.position.to_string())
    };
    let secs = |ms: i64| format!("{:.1}s", ms as f64 / 1000.0);
    let summary = super::watch::watch(o, queue, clock, &mut sink, &mut |pane, agent, seen| {
        let agent = agent.map_or("agent", |a| a.as_str());
        let line = match seen {
            super::watch::Seen::Started { after } => {
                format!("{}: {agent} starting ({})", place(pane), secs(after))
            }
            super::watch::Seen::Settled { proof, after } => format!(
                "{}: {agent} {} ({})",
                place(pane),
                proof.as_str().replace('_', " "),
                secs(after)
            ),
            super::watch::Seen::NotStarted => format!("{}: {agent} not started", place(pane)),
        };
        say(&line);
    });
    say(&super::watch::summary_line(&summary));
}

/// Follows `queue` from a process of its own (`program follow --queue
/// ID`, the CLI's hidden command), for a caller that ends before its
/// resumes do.
pub fn follow_in_background(program: &std::path::Path, queue: &str) -> std::io::Result<()> {
    crate::process::spawn_background(program, &["follow".into(), "--queue".into(), queue.into()])
}
