//! `agent-resume take`: hand a pane its armed resume line, exactly once.
//!
//! Prints the line and exits 0, or prints nothing and exits 1 when there is
//! none or it is refused. The stored line is never printed: the stored argv
//! is rebuilt from its parts and must rebuild to itself (docs/security.md).
//! With `--has-input` or `--queued-command` the armed line is consumed and
//! dropped, so it can never fire later.

use std::process::ExitCode;

use agent_resume_core::{rebuild, Catalog, Event, Outcome, Shell, TelemetrySink};
use agent_resume_store::{OpenOptions, TakeError};
use anyhow::Result;

use crate::paths::Overrides;
use crate::telemetry_file::{self, FileSink};
use crate::{config, pane_env, paths, when};

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// The shell that will run the line.
    #[arg(long)]
    shell: Shell,
    /// The pane already has user input: refuse and drop the armed line.
    #[arg(long)]
    has_input: bool,
    /// The host already queued a command: refuse and drop the armed line.
    #[arg(long)]
    queued_command: bool,
}

const NOTHING: u8 = 1;

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::from(NOTHING));
    }
    let pane = pane_env::resolve(args.pane.as_deref())?;
    let db = paths::db(o)?;
    let Some(store) = OpenOptions::default().open_existing(&db)? else {
        return Ok(ExitCode::from(NOTHING));
    };
    let armed = match store.take(pane) {
        Ok(Some(a)) => a,
        Ok(None) => return Ok(ExitCode::from(NOTHING)),
        Err(TakeError::Unreadable) => {
            eprintln!("agent-resume: the armed line for this pane was unreadable and is dropped");
            return Ok(ExitCode::from(NOTHING));
        }
        Err(e) => {
            eprintln!("agent-resume: nothing taken ({e})");
            return Ok(ExitCode::from(NOTHING));
        }
    };
    let mut sink = FileSink::new(telemetry_file::path()?);
    let age = Some(armed.observed_at.until(when::now()));
    let refused = if args.has_input {
        Some(Outcome::PaneHasInput)
    } else if args.queued_command {
        Some(Outcome::QueuedCommand)
    } else {
        None
    };
    if let Some(outcome) = refused {
        sink.emit(&Event::at_take(armed.agent, outcome, false, age));
        return Ok(ExitCode::from(NOTHING));
    }
    let agent = Catalog::embedded().agent(armed.agent);
    // A recorded program path is checked again now: what it holds may have
    // changed since restore. An untrusted one becomes the bare word.
    let rebuilt = rebuild(agent, &armed.session_id, &armed.argv, args.shell)
        .and_then(|inv| inv.with_trusted_program(agent, &crate::restore::RealFs, args.shell));
    match rebuilt {
        Ok(inv) => {
            println!("{}", inv.line);
            sink.emit(&Event::at_take(
                armed.agent,
                Outcome::Resumed,
                inv.posture_carried,
                age,
            ));
            Ok(ExitCode::SUCCESS)
        }
        Err(_) => {
            eprintln!("agent-resume: the armed line for this pane does not rebuild to itself and is dropped");
            sink.emit(&Event::at_take(
                armed.agent,
                Outcome::RecordingUnreadable,
                false,
                age,
            ));
            Ok(ExitCode::from(NOTHING))
        }
    }
}
