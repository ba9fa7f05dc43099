//! `agent-resume status`: the feature flag and where it came from, the
//! database, its schema version and row counts, then each host's own
//! lines (its saved layouts). Reads only.

use std::process::ExitCode;

use agent_resume_store::{migrate::LATEST, OpenOptions, RowState};
use anyhow::Result;

use crate::config;
use crate::paths::{self, Overrides};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args, o: &Overrides) -> Result<ExitCode> {
    let config_path = paths::config(o)?;
    let decided = config::decide(&config_path);
    let g = decided.gate;
    println!(
        "feature:    {} ({})",
        if g.enabled { "on" } else { "off" },
        config::source_text(g.source)
    );
    let config_state = match (&decided.problem, config_path.exists()) {
        (Some(p), _) => format!(" (ignored: {})", paths::escape(&format!("{p:#}"))),
        (None, true) => String::new(),
        (None, false) => " (missing)".into(),
    };
    println!("config:     {}{config_state}", paths::show(&config_path));

    let db = paths::db(o)?;
    println!("database:   {}", paths::show(&db));
    let store = match OpenOptions::default().inspect(&db) {
        Ok(Some(s)) => s,
        Ok(None) => {
            println!("schema:     none yet (this build writes version {LATEST})");
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            println!("schema:     unreadable ({})", e.fault());
            return Ok(ExitCode::SUCCESS);
        }
    };
    let v = store.schema_version();
    let note = if v > LATEST {
        " — newer than this build: recordings are read, never written"
    } else if v < LATEST {
        " — migrated on the next write"
    } else {
        ""
    };
    println!("schema:     version {v} (this build writes {LATEST}){note}");
    match store.distrust() {
        None => println!("trusted:    yes"),
        Some(why) => println!("trusted:    no — {why}; restore resumes nothing from it"),
    }
    match (store.load(), store.counts()) {
        (Ok(loaded), Ok(counts)) => {
            let unreadable = loaded
                .rows
                .values()
                .filter(|r| matches!(r, RowState::Unreadable(_)))
                .count();
            println!(
                "recordings: {} ({} unreadable)",
                counts.recordings, unreadable
            );
            println!("clears:     {} remembered", counts.clears);
            println!("armed:      {}", counts.armed);
        }
        (Err(e), _) | (_, Err(e)) => println!("recordings: unreadable ({})", e.fault),
    }
    // Each host says its own lines.
    for host in super::hosts(o, agent_resume_tmux::Socket::Default) {
        for (label, text) in host.status() {
            println!("{:<12}{text}", format!("{label}:"));
        }
    }
    Ok(ExitCode::SUCCESS)
}
