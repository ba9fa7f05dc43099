//! `agent-resume ended --status N`: the shell integration, after a resumed
//! agent ended, says so with its exit status: the restore that resumed it
//! tells a resume that failed at once from one that ran. Silent, and
//! always exits 0.

use std::process::ExitCode;

use agent_resume_store::OpenOptions;

use crate::paths::{self, Overrides};
use crate::{config, when};

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: the tmux pane's id, else `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// The resumed agent's exit status.
    #[arg(long, allow_negative_numbers = true)]
    status: i64,
}

pub fn run(args: Args, o: &Overrides) -> ExitCode {
    let _ = ended(&args, o);
    ExitCode::SUCCESS
}

fn ended(args: &Args, o: &Overrides) -> Option<()> {
    if !config::gate_quiet(o).enabled {
        return None;
    }
    let pane = agent_resume_tmux::locate::existing(args.pane.as_deref()).ok()??;
    let store = OpenOptions {
        keep_wal: true,
        ..OpenOptions::default()
    }
    .open_existing(&paths::db(o).ok()?)
    .ok()??;
    store.resume_ended(pane, args.status, when::now()).ok()?;
    Some(())
}
