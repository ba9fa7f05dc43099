//! `agent-resume forget`: the agent in a pane ended (clear its recording), or
//! the pane closed for good (`--closed`: delete it and drop its armed line).

use std::process::ExitCode;

use agent_resume_core::capture::Change;
use agent_resume_core::PaneId;
use agent_resume_store::{Set, Store, Writer};
use anyhow::{Context, Result};

use crate::config::enabled_or_say;
use crate::paths::{self, Overrides};
use crate::when;

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: the tmux pane's id, else `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// Say nothing when the feature is off (shell integration).
    #[arg(long)]
    quiet: bool,
    /// The pane was closed permanently (not an undoable close).
    #[arg(long)]
    closed: bool,
    /// Shell integration after an agent exited 0: skip when the pane's last
    /// noted agent command line was a headless run (it never owned the
    /// pane's recording).
    #[arg(long)]
    if_interactive: bool,
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    let enabled = if args.quiet {
        crate::config::gate_quiet(o).enabled
    } else {
        enabled_or_say(o, "nothing forgotten")
    };
    if !enabled {
        return Ok(ExitCode::SUCCESS);
    }
    let pane: PaneId = agent_resume_tmux::locate::resolve(args.pane.as_deref())?;
    let change = if args.closed {
        Change::Delete
    } else {
        Change::Clear
    };
    let path = paths::db(o)?;
    let store = Store::open(&path)
        .with_context(|| format!("recordings database {}", paths::show(&path)))?;
    if args.if_interactive && crate::capture_apply::last_run_headless(&store, pane, when::now()) {
        return Ok(ExitCode::SUCCESS);
    }
    let mut writer = Writer::new(store);
    writer.send(Set::from_change(pane, change, when::now()));
    writer.flush()?;
    if args.closed {
        writer.store().disarm(pane)?;
    }
    Ok(ExitCode::SUCCESS)
}
