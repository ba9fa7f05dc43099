//! `agent-resume capture scan`: zero-config capture for any host. The host
//! names each pane and its first process (`--pane UUID=PID`, repeated); the
//! pane's agent is found in that process's tree and its session id read
//! from the agent's own signs ([`agent_resume_engine::scan`]), then recorded through the
//! capture state machine. One line per pane on stdout:
//! `<pane>\t<agent or ->\t<outcome>\t<source or ->`.
//!
//! `capture launch` (hidden) is the background capture `note` starts when
//! an agent command line runs ([`agent_resume_engine::launch`]): the same
//! scan for that one pane, a few times over about half a minute. Inside
//! tmux the pane's first process is tmux's `#{pane_pid}`, as `tmux save`
//! scans it; elsewhere the shell that ran the line. Prints nothing.

use std::process::ExitCode;

use agent_resume_core::PaneId;
use anyhow::{anyhow, Result};

use crate::paths::{self, Overrides};
use crate::{config, when};
use agent_resume_engine::scan::{homes, scan, PaneRef};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Find each pane's agent in its process tree and record its session id.
    Scan(ScanArgs),
    /// Scan one pane a few times after its shell started an agent (`note` starts it).
    #[command(hide = true)]
    Launch(LaunchArgs),
}

#[derive(clap::Args)]
struct LaunchArgs {
    /// The pane.
    #[arg(long)]
    pane: PaneId,
    /// The shell that ran the agent's line.
    #[arg(long)]
    shell_pid: u32,
}

#[derive(clap::Args)]
struct ScanArgs {
    /// A pane and its first process: `UUID=PID` (repeat for each pane).
    #[arg(long = "pane", value_name = "UUID=PID", required = true, value_parser = parse_pane)]
    panes: Vec<PaneRef>,
}

fn parse_pane(text: &str) -> Result<PaneRef> {
    let (pane, pid) = text
        .split_once('=')
        .ok_or_else(|| anyhow!("expected UUID=PID"))?;
    Ok(PaneRef {
        pane: pane.parse::<PaneId>().map_err(|e| anyhow!("{e}"))?,
        pid: pid
            .parse::<u32>()
            .ok()
            .filter(|p| *p > 1)
            .ok_or_else(|| anyhow!("not a process id"))?,
    })
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    match args.command {
        Sub::Scan(a) => scan_cmd(&a, o),
        Sub::Launch(a) => launch_cmd(&a, o),
    }
}

#[cfg(target_os = "linux")]
fn launch_cmd(args: &LaunchArgs, o: &Overrides) -> Result<ExitCode> {
    use agent_resume_engine::launch::{watch, SystemClock};
    if !config::gate_quiet(o).enabled || args.shell_pid <= 1 {
        return Ok(ExitCode::SUCCESS);
    }
    let db = paths::db(o)?;
    let pid = agent_resume_tmux::locate::first_process(args.pane).unwrap_or(args.shell_pid);
    let pane = PaneRef {
        pane: args.pane,
        pid,
    };
    let table = agent_resume_discover::process::ProcFs;
    watch(&table, &homes(), &db, &pane, &mut SystemClock)?;
    Ok(ExitCode::SUCCESS)
}

/// No process table on this platform: nothing to watch.
#[cfg(not(target_os = "linux"))]
fn launch_cmd(_args: &LaunchArgs, _o: &Overrides) -> Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}

fn scan_cmd(args: &ScanArgs, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::SUCCESS);
    }
    let db = paths::db(o)?;
    #[cfg(target_os = "linux")]
    let table = agent_resume_discover::process::ProcFs;
    #[cfg(not(target_os = "linux"))]
    let table = NoTable;
    for s in scan(&table, &homes(), &db, &args.panes, when::now())? {
        println!(
            "{}\t{}\t{}\t{}",
            s.pane,
            s.agent.map_or("-", |(a, _)| a.as_str()),
            s.outcome.as_str(),
            s.found.map_or("-", |f| f.as_str()),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// No process table on this platform: no pane has an agent.
#[cfg(not(target_os = "linux"))]
struct NoTable;

#[cfg(not(target_os = "linux"))]
impl agent_resume_discover::process::ProcessTable for NoTable {
    fn process(&self, _pid: u32) -> Option<agent_resume_discover::process::ProcessInfo> {
        None
    }
    fn pids(&self) -> Vec<u32> {
        Vec::new()
    }
    fn started_at(
        &self,
        _id: agent_resume_discover::process::ProcessId,
    ) -> Option<agent_resume_core::UnixMillis> {
        None
    }
}
