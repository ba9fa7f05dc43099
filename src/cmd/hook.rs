//! `agent-resume hook <agent>`: the command an agent's hook configuration
//! runs. It reads the agent's native payload (stdin, or the last argument
//! where the agent passes it that way: Codex `notify`), records the id the
//! agent reported for the pane, and exits 0 — always, quickly, printing
//! nothing on stdout (an agent may read hook output as context). Problems go
//! to stderr and to `$XDG_STATE_HOME/agent-resume/hook.log`, naming the
//! problem's kind, never payload bytes. Stdin is read to 1 MiB and for at
//! most one second ([`crate::stdin`]).

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;
use std::process::ExitCode;

use agent_resume_core::hook::{self, MAX_PAYLOAD};
use agent_resume_core::{AgentKind, Catalog, IdSource, Observation};
use agent_resume_store::Store;

use crate::capture_apply::{noted_invocation, observe, Known};
use crate::paths::Overrides;
use crate::stdin::Unread;
use crate::{config, pane_env, paths, when};

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

/// Logs one line: time, agent and the problem's kind.
fn log(agent: &str, problem: &str) {
    let line = format!(
        "{} {} {problem}\n",
        when::format(when::now()).unwrap_or_default(),
        paths::escape(agent)
    );
    eprintln!("agent-resume: hook: {problem}");
    let Ok(dir) = paths::state() else { return };
    let _ = fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir);
    if let Ok(mut f) = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(dir.join("hook.log"))
    {
        let _ = f.write_all(line.as_bytes());
    }
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
        crate::process::spawn_detached(chain, last);
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

fn record(args: &Args, o: &Overrides, payload: Result<&[u8], &str>) -> Result<(), String> {
    if !config::gate_quiet(o).enabled {
        return Ok(());
    }
    let payload = payload?;
    let agent = AgentKind::from_name(&args.agent).ok_or("unknown agent")?;
    let reported = hook::parse(agent, payload).map_err(|e| format!("payload: {e}"))?;
    if agent == AgentKind::Codex && !args.rest.is_empty() && background_thread(&reported.session_id)
    {
        return Err("notify: a thread with no rollout (Codex's own background turn)".into());
    }
    let pane = pane_env::resolve(args.pane.as_deref())
        .map_err(|_| "no pane (set AGENT_RESUME_PANE or run inside tmux)")?;
    let now = when::now();
    let db = paths::db(o).map_err(|e| format!("{e:#}"))?;
    let store = Store::open(&db).map_err(|e| format!("store: {e}"))?;
    // A headless run typed in the pane (`claude -p …`) fires the agent's
    // hooks too: it must never become the pane's recording.
    let (invocation, noted_headless) = match noted_invocation(&store, pane, agent, now) {
        Some((text, headless)) => (Some(text), headless),
        None => (None, false),
    };
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
        headless: reported.headless || noted_headless,
    };
    observe(
        store,
        &obs,
        &Known {
            invocation,
            cwd,
            config_home,
        },
        now,
    )
    .map_err(|e| format!("store: {e:#}"))?;
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
