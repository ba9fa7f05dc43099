//! The default telemetry sink: JSON lines appended to a local file under
//! `$XDG_STATE_HOME/agent-resume/` (override: `AGENT_RESUME_TELEMETRY`).
//! Nothing is sent anywhere. A sink that cannot write drops the event and
//! says so once on stderr: telemetry never fails a restore.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use agent_resume_core::{AgeBand, AgentKind, Event, Outcome, TelemetrySink};
use agent_resume_discover::file::Kind;

/// The environment variable naming the telemetry file.
pub const ENV: &str = "AGENT_RESUME_TELEMETRY";

/// Where events go, in any environment: `AGENT_RESUME_TELEMETRY`, else
/// `telemetry.jsonl` in the state directory.
pub fn path_with(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, crate::paths::NoBase> {
    if let Some(p) = env(ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    Ok(crate::paths::state_with(env)?.join("telemetry.jsonl"))
}

/// Where events go, for this process.
pub fn path() -> Result<PathBuf, crate::paths::NoBase> {
    path_with(&crate::paths::process_env)
}

/// Appends events to a file, opened on the first event.
pub struct FileSink {
    path: PathBuf,
    file: Option<fs::File>,
    failed: bool,
}

impl FileSink {
    /// A sink writing to `path`.
    pub fn new(path: PathBuf) -> Self {
        FileSink {
            path,
            file: None,
            failed: false,
        }
    }

    fn open(&self) -> std::io::Result<fs::File> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&self.path)
    }
}

impl TelemetrySink for FileSink {
    fn emit(&mut self, event: &Event) {
        if self.failed {
            return;
        }
        if self.file.is_none() {
            match self.open() {
                Ok(f) => self.file = Some(f),
                Err(e) => {
                    self.failed = true;
                    eprintln!("agent-resume: telemetry not written ({e})");
                    return;
                }
            }
        }
        let Ok(mut line) = serde_json::to_vec(event) else {
            return;
        };
        line.push(b'\n');
        if let Some(f) = &mut self.file {
            // One write per line, so concurrent appenders never interleave.
            if let Err(e) = f.write_all(&line) {
                self.failed = true;
                eprintln!("agent-resume: telemetry not written ({e})");
            }
        }
    }
}

/// The most bytes of the telemetry file read back.
const MAX_READ: u64 = 256 << 20;

/// The longest line read as an event (an event is under 200 bytes).
const MAX_LINE: u64 = 4096;

/// Reads events back; lines that do not decode to closed values are counted
/// and skipped (the file is as untrusted as any other).
pub fn read(path: &Path) -> std::io::Result<(Vec<Event>, usize)> {
    let file = match agent_resume_discover::file::open(path, Kind::Telemetry) {
        Ok(f) => f,
        Err(e) if e.is_missing() => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e.into()),
    };
    let mut events = Vec::new();
    let mut bad = 0;
    let mut r = BufReader::new(file.take(MAX_READ));
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut r).take(MAX_LINE).read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if line.last() != Some(&b'\n') && n as u64 == MAX_LINE {
            // Longer than any event: counted as bad, never held whole.
            r.skip_until(b'\n')?;
            bad += 1;
            continue;
        }
        let l = line.strip_suffix(b"\n").unwrap_or(&line);
        if l.is_empty() {
            continue;
        }
        match decode(l) {
            Some(e) => events.push(e),
            None => bad += 1,
        }
    }
    Ok((events, bad))
}

fn decode(line: &[u8]) -> Option<Event> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let o = v.as_object()?;
    if o.len() != 4 {
        return None;
    }
    let agent = match o.get("agent")?.as_str()? {
        "unknown" => None,
        name => Some(AgentKind::from_name(name)?),
    };
    Some(Event {
        agent,
        outcome: Outcome::from_name(o.get("outcome")?.as_str()?)?,
        posture_carried: o.get("posture_carried")?.as_bool()?,
        age_band: AgeBand::from_name(o.get("age_band")?.as_str()?)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_garbage_lines_are_skipped() {
        let dir = std::env::temp_dir().join(format!("ar-telemetry-{}", std::process::id()));
        let path = dir.join("t.jsonl");
        let mut sink = FileSink::new(path.clone());
        let e = Event {
            agent: Some(AgentKind::Codex),
            outcome: Outcome::Resumed,
            posture_carried: true,
            age_band: AgeBand::Le6h,
        };
        sink.emit(&e);
        sink.emit(&Event {
            agent: None,
            outcome: Outcome::RecordingUnreadable,
            posture_carried: false,
            age_band: AgeBand::Unknown,
        });
        drop(sink);
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("file");
        f.write_all(b"{\"agent\":\"x\"}\nnot json\n")
            .expect("append");
        let (events, bad) = read(&path).expect("reads");
        assert_eq!(events.len(), 2);
        assert_eq!(events[0], e);
        assert_eq!(bad, 2);
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn a_line_longer_than_any_event_is_skipped_and_the_next_one_read() {
        let dir = std::env::temp_dir().join(format!("ar-telemetry-long-{}", std::process::id()));
        let path = dir.join("t.jsonl");
        fs::create_dir_all(&dir).expect("dir");
        let mut body = vec![b'x'; 3 * MAX_LINE as usize];
        body.push(b'\n');
        fs::write(&path, &body).expect("writes");
        let e = Event {
            agent: Some(AgentKind::Claude),
            outcome: Outcome::Resumed,
            posture_carried: false,
            age_band: AgeBand::Le6h,
        };
        let mut sink = FileSink::new(path.clone());
        sink.emit(&e);
        drop(sink);
        let (events, bad) = read(&path).expect("reads");
        assert_eq!((events, bad), (vec![e], 1));
        let _ = fs::remove_dir_all(dir);
    }
}
