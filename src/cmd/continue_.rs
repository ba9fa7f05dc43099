//! `agent-resume continue`: the conversation last recorded for this pane,
//! or — only when the pane has no recording — the newest session that ran
//! in this directory. It says which it chose (`docs/discover.md`).
//!
//! The pane comes from `--pane`, the tmux pane's id or `AGENT_RESUME_PANE`
//! (`agent_resume_tmux::locate`); its recording must
//! name this directory (both sides canonicalized) or nothing is resumed. A
//! recording is read only with the feature on, read-only, and its flags are
//! replayed as restore would (posture only while fresh).

use std::path::PathBuf;
use std::process::ExitCode;

use agent_resume_core::{decide, PostureWindow, SessionProbe, Stored};
use agent_resume_discover::{list, Depth, StoreProbe};
use agent_resume_store::{inspect_or_empty, OpenOptions};
use anyhow::{Context, Result};

use super::resume::{launch, Target};
use super::sessions::{describe, homes, report_notes, same_dir, Here};
use super::EXIT_REFUSED;
use crate::paths::Overrides;
use crate::{config, paths, when};
use agent_resume_tmux::locate;

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: the tmux pane's id, else `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// Print the resume line instead of running it.
    #[arg(long)]
    print: bool,
}

const NOTHING: u8 = 1;

/// This pane's recording, when there is a pane, the feature is on and the
/// store holds one.
fn recorded(args: &Args, o: &Overrides) -> Result<Option<Stored>> {
    let has_pane = args.pane.is_some() || locate::Seen::here().any();
    if !has_pane || !config::gate_quiet(o).enabled {
        return Ok(None);
    }
    // A pane without an id has no recording; reading never gives it one.
    let Some(pane) = locate::existing(args.pane.as_deref())? else {
        return Ok(None);
    };
    let mut loaded = inspect_or_empty(&paths::db(o)?, &OpenOptions::default());
    for w in &loaded.warnings {
        eprintln!("agent-resume: {w}");
    }
    Ok(loaded
        .rows
        .remove(&pane)
        .map(agent_resume_store::RowState::into_stored))
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    let here: PathBuf = std::env::current_dir().context("cannot read the current directory")?;
    match recorded(&args, o)? {
        Some(Stored::Unreadable) => {
            eprintln!("agent-resume: refused: this pane's recording could not be read");
            Ok(ExitCode::from(EXIT_REFUSED))
        }
        Some(Stored::Recording(rec)) => {
            if !same_dir(&rec.cwd, &here) {
                eprintln!(
                    "agent-resume: refused: this pane's conversation ran in {}, not here",
                    paths::show(&rec.cwd)
                );
                return Ok(ExitCode::from(EXIT_REFUSED));
            }
            let homes = homes();
            let probe = StoreProbe::new(&homes);
            if probe.exists(rec.agent, &rec.session_id, rec.config_home.as_deref()) == Some(false) {
                eprintln!(
                    "agent-resume: refused: {}'s store no longer holds this pane's conversation {}",
                    rec.agent, rec.session_id
                );
                return Ok(ExitCode::from(EXIT_REFUSED));
            }
            eprintln!(
                "agent-resume: continuing the conversation recorded for this pane: {} {}",
                rec.agent, rec.session_id
            );
            launch(
                &Target {
                    agent: rec.agent,
                    session_id: &rec.session_id,
                    cwd: Some(&rec.cwd),
                    flags: &rec.flags,
                    program: rec.program.as_deref(),
                    posture: decide(rec.observed_at, when::now(), PostureWindow::DEFAULT),
                },
                args.print,
            )
        }
        None => {
            let listing = list(&homes(), &[], Depth::FAST);
            report_notes(&listing, false);
            let here = Here::new(&here);
            let newest = listing
                .sessions
                .iter()
                .find(|s| s.cwd.as_deref().is_some_and(|d| here.is(d)));
            let Some(s) = newest else {
                eprintln!("agent-resume: no conversation is recorded for this pane and no agent session ran in this directory");
                return Ok(ExitCode::from(NOTHING));
            };
            eprintln!(
                "agent-resume: no conversation is recorded for this pane; continuing the newest session in this directory: {}",
                describe(s)
            );
            launch(
                &Target {
                    agent: s.agent,
                    session_id: &s.id,
                    cwd: s.cwd.as_deref(),
                    flags: &[],
                    program: None,
                    posture: agent_resume_core::Posture::Drop,
                },
                args.print,
            )
        }
    }
}
