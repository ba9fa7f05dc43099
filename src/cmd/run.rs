//! `agent-resume run -- <agent argv…>`: a launch wrapper. Notes the pane's
//! invocation (flags only), pins a fresh session id where the agent lets a
//! new session choose one (`--session-id`) and the command is not already a
//! resume, records it as the launch-pinned id, then replaces itself with the
//! agent. Anything it cannot use (not an agent, headless, feature off, no
//! pane) runs unchanged.

use std::process::ExitCode;

use agent_resume_core::{extract_words, Catalog, Extraction, IdSource, Observation};
use agent_resume_store::OpenOptions;
use anyhow::{bail, Result};

use crate::capture_apply::{observe, Known};
use crate::paths::{self, Overrides};
use crate::{config, when};
use agent_resume_engine::process;
use agent_resume_tmux::locate;

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: the tmux pane's id, else `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// The agent command line.
    #[arg(last = true, required = true)]
    argv: Vec<String>,
}

/// Words that make a launch a resume, continue or fork already.
fn resumes(agent: &agent_resume_core::AgentDecl, argv: &[String]) -> bool {
    argv.iter().skip(1).take_while(|w| *w != "--").any(|w| {
        let name = w.split_once('=').map_or(w.as_str(), |(n, _)| n);
        Some(name) == agent.launch_id_flag.as_deref()
            || agent.flag(name).is_some_and(|f| {
                ["resume", "continue", "session", "fork"]
                    .iter()
                    .any(|k| f.name.contains(k))
            })
    })
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    let mut argv = args.argv;
    if let Some(pinned) = prepare(&mut argv, args.pane.as_deref(), o) {
        eprintln!("agent-resume: pinned session id {pinned}");
    }
    let err = process::exec(&argv);
    bail!("cannot run the agent: {err}")
}

/// Notes and pins; returns the pinned id. Never fails the launch.
fn prepare(argv: &mut Vec<String>, pane: Option<&str>, o: &Overrides) -> Option<String> {
    let word = argv.first()?;
    let agent = Catalog::embedded().by_command(word.rsplit('/').next().unwrap_or(word))?;
    if !config::gate_quiet(o).enabled {
        return None;
    }
    let Ok(Extraction::Interactive { flags, program }) = extract_words(agent, argv) else {
        return None;
    };
    let pane = locate::resolve(pane).ok()?;
    // Runs at every agent start, like the hooks: the log stays for the next
    // process (docs/store.md, "The write-ahead log between processes").
    let store = OpenOptions {
        keep_wal: true,
        ..OpenOptions::default()
    }
    .open(&paths::db(o).ok()?)
    .ok()?;
    let now = when::now();
    let noted = crate::capture_apply::noted_argv(agent, program, flags);
    // This process becomes the agent (exec): the note is bound to its pid.
    let _ = store.note(
        pane,
        agent.kind,
        &noted,
        false,
        Some(std::process::id()),
        now,
    );
    let flag = agent.launch_id_flag.as_deref()?;
    if resumes(agent, argv) {
        return None;
    }
    let id = uuid::Uuid::new_v4().hyphenated().to_string();
    argv.splice(1..1, [flag.to_owned(), id.clone()]);
    let obs = Observation {
        pane,
        agent: agent.kind,
        session_id: Some(&id),
        source: IdSource::Launch,
        headless: false,
    };
    let known = Known {
        invocation: Some(shell_words::join(&noted)),
        cwd: std::env::current_dir().ok(),
        config_home: None,
    };
    observe(store, &obs, &known, now).ok()?;
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_resume_core::AgentKind;

    #[test]
    fn a_launch_that_already_resumes_is_not_pinned() {
        let claude = Catalog::embedded().agent(AgentKind::Claude);
        let s = |v: &[&str]| v.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert!(resumes(claude, &s(&["claude", "--resume", "x"])));
        assert!(resumes(claude, &s(&["claude", "-c"])));
        assert!(resumes(claude, &s(&["claude", "--session-id=x"])));
        assert!(resumes(claude, &s(&["claude", "--fork-session"])));
        assert!(!resumes(claude, &s(&["claude", "--model", "opus", "hi"])));
        assert!(!resumes(claude, &s(&["claude", "--", "--resume"])));
    }
}
