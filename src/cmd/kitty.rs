//! `agent-resume kitty save` and `kitty session`: the kitty host.
//!
//! `save` lists the kitty it runs in (`$KITTY_LISTEN_ON`, or `--to`) over
//! remote control and stores its snapshot in the database, one per kitty
//! instance (key `kitty:` and its socket), keeping each window's pane id
//! across saves (`agent_resume_kitty::snapshot`); then records what each
//! window's agent shows with no hook (`agent_resume_kitty::host::save_capturing`). The shell integration runs
//! it in the background at every prompt inside kitty, so the snapshot is
//! current while kitty runs, whatever way kitty ends. A socket that is not
//! this user's own is never asked (`agent_resume_kitty::examine`), and no
//! window takes the pane id kitty itself inherited.
//!
//! `session` takes the snapshot saved last (trust-checked like recordings),
//! maps it onto the restore model, plans, arms and reports — before any
//! window exists — and writes a kitty session file (`-o`, default
//! `$XDG_STATE_HOME/agent-resume/kitty.session`) that brings back every OS
//! window, tab, layout, directory and focus, each window's shell started
//! with its pane id in `AGENT_RESUME_PANE`; each shell takes its armed line
//! at its first prompt. `--dry-run` plans the same and changes nothing: no
//! file written, nothing armed or swept, no telemetry.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_engine::host::this_program;
use agent_resume_engine::restore::{self, Report, RunOptions};
use agent_resume_kitty::host::{self, KittyHost};
use agent_resume_kitty::Snapshot;
use anyhow::Result;

use crate::paths::{self, Overrides};
use crate::{config, when};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Save the snapshot of the kitty this runs in.
    Save(SaveArgs),
    /// Plan, arm and write a kitty session file from the last snapshot.
    Session(SessionArgs),
    /// Save, then print the pane id of this kitty window (the shell
    /// integration asks once per window).
    #[command(hide = true)]
    Pane(PaneArgs),
    /// The first window of a kitty started as usual (kitty.conf's
    /// `startup_session`): restores the kitty saved last in a new kitty,
    /// or becomes your shell.
    Start,
}

#[derive(clap::Args)]
struct PaneArgs {
    /// kitty's remote-control address (`unix:PATH`).
    #[arg(long, value_name = "ADDRESS", env = "KITTY_LISTEN_ON")]
    to: Option<OsString>,
    /// kitty's id of the window.
    #[arg(long, value_name = "ID", env = "KITTY_WINDOW_ID")]
    window: u64,
}

#[derive(clap::Args)]
struct SaveArgs {
    /// kitty's remote-control address (`unix:PATH`).
    #[arg(long, value_name = "ADDRESS", env = "KITTY_LISTEN_ON")]
    to: Option<OsString>,
}

#[derive(clap::Args)]
struct SessionArgs {
    /// Where to write the session file.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Plan and print only: write no file, arm nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the plan as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    match args.command {
        Sub::Save(s) => save(&s, o),
        Sub::Session(s) => session(&s, o),
        Sub::Pane(p) => pane(&p, o),
        Sub::Start => start(o),
    }
}

/// `kitty start`: the first window of a kitty started as usual.
fn start(o: &Overrides) -> Result<ExitCode> {
    let mut log = restore::log::Log::open();
    let session = paths::state()?.join("kitty.session");
    match agent_resume_kitty::start::first_window(o, &session, when::now(), &mut log) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => anyhow::bail!("no shell could start: {e}"),
    }
}

fn save(args: &SaveArgs, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::SUCCESS);
    }
    let saved = host::save_capturing(args.to.as_deref(), o)?;
    if let Err(e) = saved.capture {
        eprintln!("agent-resume: kitty save: capture: {}", config::chain(&e));
    }
    Ok(ExitCode::SUCCESS)
}

fn pane(args: &PaneArgs, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::FAILURE);
    }
    let snap = save_instance(args.to.as_ref(), o)?;
    let id = snap
        .windows()
        .find(|w| w.kitty_id == args.window)
        .map(|w| w.id);
    match id {
        Some(id) => {
            println!("{id}");
            Ok(ExitCode::SUCCESS)
        }
        None => Ok(ExitCode::FAILURE),
    }
}

/// Lists the kitty at `to` and stores its snapshot
/// ([`agent_resume_kitty::host::save_instance`]).
pub fn save_instance(to: Option<&OsString>, o: &Overrides) -> Result<Snapshot> {
    Ok(host::save_instance(to.map(OsString::as_os_str), o)?)
}

fn session(args: &SessionArgs, o: &Overrides) -> Result<ExitCode> {
    let output = match &args.output {
        Some(p) => p.clone(),
        None => paths::state()?.join("kitty.session"),
    };
    let made = write_session(&output, args.dry_run, o)?;
    super::plan::print(&made.plans, &made.places, &made.nothing, args.json)?;
    if !args.dry_run {
        eprintln!("session: kitty --session {}", paths::show(&output));
    }
    Ok(ExitCode::SUCCESS)
}

/// Plans the last snapshot and, unless `dry_run`, arms, reports and writes
/// the session file to `output` (a file with no window when there is
/// nothing to restore: kitty then starts one plain shell).
pub fn write_session(output: &Path, dry_run: bool, o: &Overrides) -> Result<Report> {
    let mut host = KittyHost::new(o.clone(), output.to_path_buf());
    let opts = RunOptions {
        recreate: !dry_run,
        dry_run,
        now: when::now(),
        program: this_program(),
    };
    let report = restore::run(&mut host, o, &opts, restore::Telemetry::File, &mut |m| {
        eprintln!("agent-resume: {m}")
    })?;
    if !report.saved && !dry_run {
        host::write(output, host::NOTHING)?;
    }
    Ok(report)
}
