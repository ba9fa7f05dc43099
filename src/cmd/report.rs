//! `agent-resume report`: the host-neutral report message (docs/capture.md),
//! from `--message` or stdin. Applied in per-pane `seq` order: a late or
//! replayed message is dropped. Refused messages exit 3 with one line on
//! stderr naming why.

use std::io::{Read, Write};
use std::process::ExitCode;

use agent_resume_core::report::{self, ReportEvent, MAX_REPORT};
use agent_resume_core::{Capture, Change, Observation};
use agent_resume_store::Store;
use anyhow::{Context, Result};

use super::EXIT_REFUSED;
use crate::capture_apply::{apply, observe, Applied, Known};
use crate::paths::{self, Overrides};
use crate::{config, when};

#[derive(clap::Args)]
pub struct Args {
    /// The message (default: read from stdin).
    #[arg(long)]
    message: Option<String>,
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    let bytes = match args.message {
        Some(m) => m.into_bytes(),
        None => {
            let mut buf = Vec::new();
            std::io::stdin()
                .lock()
                .take(MAX_REPORT as u64 + 1)
                .read_to_end(&mut buf)
                .context("cannot read stdin")?;
            buf
        }
    };
    let msg = match report::parse(&bytes) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("agent-resume: refused: {e}");
            return Ok(ExitCode::from(EXIT_REFUSED));
        }
    };
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::SUCCESS);
    }
    let db = paths::db(o)?;
    let store =
        Store::open(&db).with_context(|| format!("recordings database {}", paths::show(&db)))?;
    if !store.accept_seq(msg.pane, msg.seq)? {
        eprintln!("agent-resume: dropped: seq is not above the last report for this pane");
        return Ok(ExitCode::SUCCESS);
    }
    let now = when::now();
    let applied = match msg.event {
        ReportEvent::Observed => {
            let obs = Observation {
                pane: msg.pane,
                agent: msg.agent,
                session_id: msg.session_id.as_deref(),
                source: msg.source,
                headless: msg.headless,
            };
            let known = Known {
                invocation: msg.invocation.clone(),
                cwd: msg.cwd.clone(),
                config_home: None,
            };
            observe(store, &obs, &known, now)?
        }
        ReportEvent::Ended => apply(store, msg.pane, Change::Clear, now)?,
        ReportEvent::Suspended => Applied::Unchanged,
        ReportEvent::Detached(kind) => match Capture::new().detach(msg.pane, kind) {
            Some(change) => apply(store, msg.pane, change, now)?,
            None => Applied::Unchanged,
        },
    };
    if applied == Applied::Superseded {
        writeln!(
            std::io::stderr(),
            "agent-resume: a newer observation or clear is stored for this pane; kept it"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
