//! `agent-resume note`: shell integration's preexec step. Reads the command
//! line the user is about to run on stdin; when it runs a declared agent,
//! stores for the pane the program word and the allowlisted flags extraction
//! keeps, and the session id the line resumes — never the text — or, for a
//! headless run, only that it is one,
//! with the pid of the shell that runs it. A hook reads a note only for the
//! agent process that shell started right after it ([`agent_resume_engine::evidence`]).
//! Silent, and always exits 0: it runs before every agent command the user
//! types.
//!
//! For an interactive run with its shell's pid it then starts the
//! background capture of the pane ([`agent_resume_engine::launch`]) and
//! returns at once: the agent is recorded within seconds even when the
//! host saves nothing meanwhile.

use std::io::IsTerminal;
use std::process::ExitCode;

use agent_resume_core::{detect, Catalog, Shell};
use agent_resume_engine::launch;
use agent_resume_store::OpenOptions;

use crate::paths::Overrides;
use crate::{config, paths, when};
use agent_resume_tmux::locate;

const MAX_LINE: u64 = 64 * 1024;

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: the tmux pane's id, else `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// The shell the line was typed in.
    #[arg(long)]
    shell: Option<Shell>,
    /// The pid of the shell that runs the line (`$$`): the note then
    /// belongs to the process that shell starts next, and to no other run.
    /// Without it the note informs no hook.
    #[arg(long)]
    shell_pid: Option<u32>,
}

pub fn run(args: Args, o: &Overrides) -> ExitCode {
    let _ = note(&args, o);
    ExitCode::SUCCESS
}

fn note(args: &Args, o: &Overrides) -> Option<()> {
    if std::io::stdin().is_terminal() || !config::gate_quiet(o).enabled {
        return None;
    }
    let text = String::from_utf8(crate::stdin::read(MAX_LINE).ok()?).ok()?;
    let agent = detect(Catalog::embedded(), &text)?;
    let (argv, headless) = crate::capture_apply::noted_line(agent, &text)?;
    let pane = locate::resolve(args.pane.as_deref()).ok()?;
    // Runs at every agent start, like the hooks: the log stays for the next
    // process (docs/store.md, "The write-ahead log between processes").
    let store = OpenOptions {
        keep_wal: true,
        ..OpenOptions::default()
    }
    .open(&paths::db(o).ok()?)
    .ok()?;
    store
        .note(
            pane,
            agent.kind,
            &argv,
            headless,
            args.shell_pid,
            when::now(),
        )
        .ok()?;
    drop(store);
    if let (false, Some(shell_pid)) = (headless, args.shell_pid) {
        let _ = launch::spawn(&std::env::current_exe().ok()?, pane, shell_pid, o);
    }
    Some(())
}
