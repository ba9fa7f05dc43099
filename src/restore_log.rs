//! `restore.log`, beside the telemetry file: what a restore run in the
//! background (`tmux start`) has to say, since no terminal shows it. Each
//! run starts the file afresh; lines are escaped, so nothing in a note
//! can draw on a terminal that shows the file.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use agent_resume_engine::restore::Report;
use agent_resume_tmux::start::Started;

/// The log of this run; a log that cannot be written drops its lines.
pub struct Log {
    file: Option<std::fs::File>,
}

impl Log {
    /// The log, emptied.
    pub fn open() -> Log {
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
                    .truncate(true)
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
