//! `agent-resume hook <agent>`: the command an agent's hook configuration
//! runs. It reads the agent's native payload (stdin, or the last argument
//! where the agent passes it that way: Codex `notify`), records the id the
//! agent reported for the pane, and exits 0 — always, quickly, printing
//! nothing on stdout (an agent may read hook output as context).
//!
//! Expected conditions leave no trace but a line in
//! `$XDG_STATE_HOME/agent-resume/hook.log` (some agents show a hook's stderr
//! in their UI on every start): no pane, a payload without a usable id,
//! stdin that does not end, a run that serves no one pane (`shared-server`:
//! Codex's app-server daemon, [`agent_resume_engine::evidence::Unattached`]). The feature
//! turned off leaves nothing at all.
//! Only what the user must fix — an unknown agent name in the hook command,
//! an unusable database — also says one line on stderr. Lines name the
//! problem's kind, never payload bytes. `hook.log` is a regular file only
//! (opened without following a link, without blocking), and bounded: past
//! [`LOG_CAP`] its older half is dropped. Stdin is read to 1 MiB and for at
//! most one second ([`crate::stdin`]).

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_core::hook::{self, MAX_PAYLOAD};
use agent_resume_core::{AgentKind, Catalog, IdSource, Observation};
use agent_resume_store::OpenOptions;

use crate::capture_apply::{observe, Known};
use crate::paths::Overrides;
use crate::stdin::Unread;
use crate::{config, paths, when};
use agent_resume_tmux::locate;

#[derive(clap::Args)]
pub struct Args {
    /// Agent name (see `agent-resume agents`).
    agent: String,
    /// The pane (default: `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// The payload as the last argument (Codex `notify`), optionally after
    /// `--chain PROGRAM ARGS…`: a notifier the user already had, run after
    /// with the payload appended.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// A problem the hook met. Quiet ones (expected conditions) go to
/// `hook.log` only; loud ones (something the user must fix) say one line on
/// stderr too.
struct Problem {
    text: String,
    loud: bool,
}

impl From<String> for Problem {
    fn from(text: String) -> Problem {
        Problem { text, loud: false }
    }
}

impl From<&str> for Problem {
    fn from(text: &str) -> Problem {
        text.to_owned().into()
    }
}

/// A problem the user must fix.
fn loud(text: impl Into<String>) -> Problem {
    Problem {
        text: text.into(),
        loud: true,
    }
}

/// The most `hook.log` holds; a line that would pass it first drops the
/// older half.
pub const LOG_CAP: u64 = 256 << 10;

/// Logs one line: time, agent and the problem's kind.
fn log(agent: &str, problem: &Problem) {
    let line = format!(
        "{} {} {}\n",
        when::format(when::now()).unwrap_or_default(),
        paths::escape(agent),
        problem.text
    );
    if problem.loud {
        eprintln!("agent-resume: hook: {}", problem.text);
    }
    let Ok(dir) = paths::state() else { return };
    let _ = fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir);
    append_bounded(&dir.join("hook.log"), line.as_bytes(), LOG_CAP);
}

/// Appends `line` to the log at `path`, a regular file opened without
/// following a link and without blocking (a FIFO there is never waited on).
/// When the line would take the file past `cap`, the newest half (from a
/// line start) is kept first. Best effort: a log that cannot be written is
/// skipped.
fn append_bounded(path: &Path, line: &[u8], cap: u64) {
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let Ok(mut f) = fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(flags.bits() as i32)
        .open(path)
    else {
        return;
    };
    let Ok(meta) = f.metadata() else { return };
    if !meta.is_file() {
        return;
    }
    let len = meta.len();
    if len + line.len() as u64 > cap
        && rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok()
    {
        let from = len.saturating_sub(cap / 2);
        let mut tail = vec![0; (len - from) as usize];
        if f.read_exact_at(&mut tail, from).is_err() {
            return;
        }
        let start = if from == 0 {
            0
        } else {
            tail.iter()
                .position(|b| *b == b'\n')
                .map_or(tail.len(), |i| i + 1)
        };
        if f.set_len(0).is_err() || f.write_all(&tail[start..]).is_err() {
            return;
        }
    }
    let _ = f.write_all(line);
}

/// The payload on stdin: bounded in bytes and in time (crate::stdin).
fn read_stdin() -> Result<Vec<u8>, String> {
    // One byte over the cap is enough to know it is over.
    match crate::stdin::read(MAX_PAYLOAD as u64 + 1) {
        Ok(bytes) => Ok(bytes),
        Err(Unread::Terminal) => Ok(Vec::new()),
        Err(Unread::TimedOut) => Err("payload: stdin did not end within 1 s".into()),
        Err(Unread::Failed) => Err("payload: stdin could not be read".into()),
    }
}

pub fn run(args: Args, o: &Overrides) -> ExitCode {
    let (chain, payload) = split_rest(&args.rest);
    let payload = match payload {
        Some(p) => Ok(p.as_bytes().to_vec()),
        None => read_stdin(),
    };
    if let Err(problem) = record(&args, o, payload.as_deref().map_err(String::as_str)) {
        log(&args.agent, &problem);
    }
    if let (Some(chain), Some(last)) = (chain, args.rest.last()) {
        agent_resume_engine::process::spawn_detached(chain, last);
    }
    ExitCode::SUCCESS
}

/// `--chain PROG ARGS… PAYLOAD` or `PAYLOAD`.
fn split_rest(rest: &[String]) -> (Option<&[String]>, Option<&String>) {
    match rest {
        [] => (None, None),
        [first, middle @ .., last] if first == "--chain" && !middle.is_empty() => {
            (Some(middle), Some(last))
        }
        [.., last] => (None, Some(last)),
    }
}

fn record(args: &Args, o: &Overrides, payload: Result<&[u8], &str>) -> Result<(), Problem> {
    if !config::gate_quiet(o).enabled {
        return Ok(());
    }
    let payload = payload?;
    let agent = AgentKind::from_name(&args.agent).ok_or_else(|| loud("unknown agent"))?;
    let reported = hook::parse(agent, payload).map_err(|e| format!("payload: {e}"))?;
    if agent == AgentKind::Codex && !args.rest.is_empty() && background_thread(&reported.session_id)
    {
        return Err("notify: a thread with no rollout (Codex's own background turn)".into());
    }
    let pane = locate::resolve(args.pane.as_deref())
        .map_err(|_| "no pane (run inside a tmux pane, or set AGENT_RESUME_PANE outside one)")?;
    let now = when::now();
    let db = paths::db(o).map_err(|e| loud(format!("{e:#}")))?;
    // Hooks fire on every agent start and often after: the write-ahead log
    // stays for the next process rather than being checkpointed (two
    // fsyncs) at every exit.
    let store = OpenOptions {
        keep_wal: true,
        ..OpenOptions::default()
    }
    .open(&db)
    .map_err(|e| loud(format!("store: {e}")))?;
    // Flags and headlessness come from the agent process that ran this
    // hook (agent_resume_engine::evidence): a headless run (`claude -p …`) fires the
    // agent's hooks too and must never become the pane's recording.
    // A run that serves no one pane (Codex's shared app-server daemon) is
    // never attributed to the pane its inherited environment names.
    let evidence = agent_resume_engine::evidence::of_this_run(
        &store,
        pane,
        Catalog::embedded().agent(agent),
        now,
    )
    .map_err(|u| format!("{}: {}", u.as_str(), u.explain()))?;
    let cwd = reported
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok());
    let config_home = Catalog::embedded()
        .agent(agent)
        .config_env
        .iter()
        .find_map(|v| {
            std::env::var_os(v)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        });
    let obs = Observation {
        pane,
        agent,
        session_id: Some(&reported.session_id),
        source: IdSource::Hook,
        headless: reported.headless || evidence.headless,
    };
    observe(
        store,
        &obs,
        &Known {
            invocation: evidence.invocation,
            cwd,
            config_home,
        },
        now,
    )
    .map_err(|e| loud(format!("store: {e:#}")))?;
    Ok(())
}

/// Codex's TUI reports the turns of its own background threads (the
/// request that titles a task) through `notify` too, with their own thread
/// ids and no rollout; recorded, such an id would replace the pane's real
/// session with one `codex resume` cannot find. A thread is background when
/// the rollout store exists and holds no rollout of it; when the store
/// cannot tell, the report is kept.
fn background_thread(thread: &str) -> bool {
    let homes = agent_resume_discover::Homes::from_env(&|k| std::env::var_os(k));
    homes
        .root(AgentKind::Codex, None)
        .and_then(|root| agent_resume_discover::probe::exists_in(AgentKind::Codex, &root, thread))
        == Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_stays_under_its_cap_keeping_the_newest_lines_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("hook.log");
        let cap = 4096;
        for i in 0..2000 {
            append_bounded(&path, format!("line {i} of the log\n").as_bytes(), cap);
            let len = fs::metadata(&path).expect("the log exists").len();
            assert!(len <= cap, "{len} bytes after line {i}");
        }
        let text = fs::read_to_string(&path).expect("reads");
        assert!(text.ends_with("line 1999 of the log\n"), "{text}");
        assert!(
            text.starts_with("line "),
            "starts on a line boundary: {text}"
        );
        assert!(text.len() as u64 > cap / 4, "the newest half is kept");
    }

    #[test]
    fn the_log_is_never_written_through_a_link_or_into_a_fifo() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("elsewhere");
        fs::write(&target, b"precious\n").expect("writes");
        let link = dir.path().join("hook.log");
        std::os::unix::fs::symlink(&target, &link).expect("links");
        append_bounded(&link, b"line\n", LOG_CAP);
        assert_eq!(fs::read(&target).expect("reads"), b"precious\n");
        let fifo = dir.path().join("fifo.log");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
        let mut reader = fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&fifo)
            .expect("opens the fifo's reading end");
        append_bounded(&fifo, b"line\n", LOG_CAP);
        let mut got = Vec::new();
        let _ = std::io::Read::read_to_end(&mut reader, &mut got);
        assert_eq!(got, b"", "nothing is written into a FIFO");
    }

    #[test]
    fn chain_and_payload_are_split_from_the_trailing_words() {
        let s = |v: &[&str]| v.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let rest = s(&["--chain", "notify-send", "-u", "{}"]);
        let (chain, payload) = split_rest(&rest);
        assert_eq!(chain, Some(&rest[1..3]));
        assert_eq!(payload.map(String::as_str), Some("{}"));
        let rest = s(&["{}"]);
        assert_eq!(split_rest(&rest), (None, Some(&rest[0])));
        assert_eq!(split_rest(&[]), (None, None));
    }
}
