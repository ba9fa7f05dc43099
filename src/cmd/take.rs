//! `agent-resume take`: hand a pane its armed resume line, exactly once.
//!
//! Prints the line and exits 0, or prints nothing and exits 1 when there is
//! none or it is refused. Every check is the engine's one safe take
//! ([`agent_resume_engine::take`]): the armed words are rebuilt from their
//! parts and must rebuild to themselves (docs/security.md); no stored text
//! is ever printed.
//! With `--has-input` or `--queued-command` the armed line is consumed and
//! dropped, so it can never fire later.
//!
//! Without `--pane`, a pane `tmux restore --recreate` made presents its
//! take key (`AGENT_RESUME_TAKE`) under the server `$TMUX` names, and its
//! line is found by both without asking tmux; otherwise the pane is named
//! as [`agent_resume_tmux::locate`] says.
//!
//! Time is checked again at the moment of taking: an armed line older than
//! the armed expiry (`armed_expiry_minutes` in the config file or
//! `AGENT_RESUME_ARMED_EXPIRY_MINUTES`, default 10 minutes), or dated in the
//! future, is consumed and dropped (`armed_expired` telemetry outcome); the
//! posture flags ride along only if the recording is still inside the
//! posture window now, else the pane resumes without them.

use std::process::ExitCode;

use agent_resume_core::{Shell, TelemetrySink};
use agent_resume_engine::fs::RealFs;
use agent_resume_engine::take;
use agent_resume_store::{OpenOptions, TakeError, Ticket};
use agent_resume_tmux::Socket;
use anyhow::Result;

use crate::cmd::tmux;
use crate::paths::Overrides;
use crate::telemetry_file::{self, FileSink};
use crate::{config, paths, when};
use agent_resume_tmux::locate;

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: the tmux pane's id, else `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// The shell that will run the line.
    #[arg(long)]
    shell: Shell,
    /// The pane whose line a restore could not type into this tmux pane
    /// (its pending note, taken once); nothing to take without one.
    #[arg(long, conflicts_with = "pane")]
    pending: bool,
    /// The pane already has user input: refuse and drop the armed line.
    #[arg(long)]
    has_input: bool,
    /// The host already queued a command: refuse and drop the armed line.
    #[arg(long)]
    queued_command: bool,
    /// The clock, for reproducible takes in tests (RFC 3339; default: now).
    /// Hidden: posture is decided from the recording's age at this moment,
    /// so the shell integration never passes it (docs/security.md, "Take
    /// re-checks time").
    #[arg(long, hide = true)]
    now: Option<String>,
    /// The pid of the shell that will run the line (`$$`): the resumed
    /// agent below it is then captured as a typed one is.
    #[arg(long)]
    shell_pid: Option<u32>,
}

const NOTHING: u8 = 1;

pub fn run(mut args: Args, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::from(NOTHING));
    }
    if args.pending {
        match locate::pending() {
            Some(pane) => args.pane = Some(pane.to_string()),
            None => return Ok(ExitCode::from(NOTHING)),
        }
    }
    let now = match &args.now {
        Some(t) => when::parse(t)?,
        None => when::now(),
    };
    let db = paths::db(o)?;
    // Every new shell under a restore takes at its first prompt: the log
    // stays for the next process (no checkpoint, no -wal/-shm created and
    // deleted per take). Exactly once between processes is the DELETE's;
    // across a power loss, see docs/store.md ("durability").
    let options = OpenOptions {
        keep_wal: true,
        ..OpenOptions::default()
    };
    // A pane `tmux restore --recreate` made presents the key it was started
    // with, on the server it runs under: no round trip to a server still
    // busy making the restore's later windows. Anything else (no key, a
    // key of another server, a key already used) asks the pane's id below.
    let keyed = match args.pane {
        Some(_) => None,
        None => locate::take_key().and_then(|(key, socket)| {
            let server = tmux::server_key(&Socket::Path(socket)).ok()?;
            Some((key, server))
        }),
    };
    let Some(mut store) = options.open_existing(&db)? else {
        return Ok(ExitCode::from(NOTHING));
    };
    let by_key = match &keyed {
        Some((key, server)) => store.take_at(None, Some(Ticket { key: *key, server }), now),
        None => Ok(None),
    };
    let taken = match by_key {
        Ok(None) => {
            // Only read: a tmux pane without an id stays without one
            // (restore matches such a pane as one someone else brought back).
            let Some(pane) = locate::existing(args.pane.as_deref())? else {
                return Ok(ExitCode::from(NOTHING));
            };
            store.take_at(Some(pane), None, now)
        }
        found => found,
    };
    let armed = match taken {
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
    let settings = config::restore_settings(o);
    let request = take::Request {
        shell: args.shell,
        ready: take::Ready {
            has_input: args.has_input,
            queued_command: args.queued_command,
        },
        now,
        armed_expiry_millis: settings.armed_expiry_millis,
        fs: &RealFs,
    };
    let (taken, event) = take::decide(&(&armed).into(), &request);
    let line = match taken {
        take::Taken::Line(line) => line,
        take::Taken::Dropped(why) => {
            sink.emit(&event);
            match why {
                take::Dropped::Expired(waited) => eprintln!(
                    "agent-resume: the armed line for this pane is {} (expiry {} min) and is dropped",
                    waited.map_or_else(|| "dated in the future".to_owned(), |m| format!("{m} min old")),
                    request.armed_expiry_millis / 60_000
                ),
                take::Dropped::DoesNotRebuild => eprintln!(
                    "agent-resume: the armed line for this pane does not rebuild to itself and is dropped"
                ),
                take::Dropped::PaneHasInput | take::Dropped::QueuedCommand => {}
            }
            return Ok(ExitCode::from(NOTHING));
        }
    };
    let clock = when::now;
    let program = std::env::current_exe().ok();
    let capture = program
        .as_deref()
        .zip(args.shell_pid)
        .map(|(program, shell_pid)| take::Capture {
            program,
            shell_pid,
            overrides: o,
        });
    match take::hand_out(
        line,
        event,
        &armed,
        now,
        settings.mode,
        &mut store,
        &mut sink,
        &clock,
        capture,
    ) {
        Some(line) => {
            println!("{}", line.line);
            Ok(ExitCode::SUCCESS)
        }
        None => Ok(ExitCode::from(NOTHING)),
    }
}
