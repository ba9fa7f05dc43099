//! `restore.log`, beside the telemetry file: what a restore run in the
//! background (`tmux start`) has to say, since no terminal shows it. Each
//! run starts the file afresh; lines are escaped, so nothing in a note
//! can draw on a terminal that shows the file.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use std::collections::HashMap;

use agent_resume_core::PaneId;
use agent_resume_engine::host::Place;
use agent_resume_engine::paths::Overrides;
use agent_resume_engine::restore::{self, Report};
use agent_resume_tmux::start::Started;

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
        let file = agent_resume_engine::telemetry::path()
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
            let _ = writeln!(f, "{}", agent_resume_engine::paths::escape(text));
        }
    }

    /// The last line: what the start did.
    pub fn started(&mut self, done: &Started) {
        let text = match done {
            Started::Disabled => "tmux start: disabled; nothing restored".to_owned(),
            Started::Manual => "tmux start: restore = \"manual\"; nothing restored".to_owned(),
            Started::Already => "tmux start: this server was restored before".to_owned(),
            Started::Restored(report) => summary(report),
            _ => "tmux start: done".to_owned(),
        };
        self.line(&text);
    }
}

fn summary(report: &Report) -> String {
    if report.plans.is_empty() {
        return format!("tmux start: nothing restored ({})", report.nothing);
    }
    format!(
        "tmux start: {} pane(s) planned, {} agent(s) armed",
        report.plans.len(),
        report.armed
    )
}

/// Follows restore queue `queue` ([`restore::watch::watch`]): one line per
/// pane as its agent starts and as it settles (named by its place in
/// `places`, else its id), then the summary.
pub fn follow(
    queue: &str,
    places: &HashMap<PaneId, Place>,
    o: &Overrides,
    say: &mut dyn FnMut(&str),
) {
    let Ok(path) = agent_resume_engine::telemetry::path() else {
        return;
    };
    let mut sink = agent_resume_engine::telemetry::FileSink::new(path);
    let place = |pane: PaneId| {
        places
            .get(&pane)
            .map_or_else(|| pane.to_string(), |p| p.position.to_string())
    };
    let secs = |ms: i64| format!("{:.1}s", ms as f64 / 1000.0);
    let summary = restore::watch::watch(
        o,
        queue,
        &crate::when::now,
        &mut sink,
        &mut |pane, agent, seen| {
            let agent = agent.map_or("agent", |a| a.as_str());
            let line = match seen {
                restore::watch::Seen::Started { after } => {
                    format!("{}: {agent} starting ({})", place(pane), secs(after))
                }
                restore::watch::Seen::Settled { proof, after } => format!(
                    "{}: {agent} {} ({})",
                    place(pane),
                    proof.as_str().replace('_', " "),
                    secs(after)
                ),
                restore::watch::Seen::NotStarted => format!("{}: {agent} not started", place(pane)),
            };
            say(&line);
        },
    );
    say(&restore::watch::summary_line(&summary));
}

/// Follows `queue` from a process of its own (`agent-resume follow`), for
/// a caller that ends before its resumes do.
pub fn follow_in_background(queue: &str) {
    let Ok(me) = std::env::current_exe() else {
        return;
    };
    let _ = agent_resume_engine::process::spawn_background(
        &me,
        &["follow".into(), "--queue".into(), queue.into()],
    );
}
