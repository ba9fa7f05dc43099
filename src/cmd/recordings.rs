//! `agent-resume recordings`: what the store holds, for the user's own eyes.
//! Opens the database read-only; never creates or migrates it.

use std::io::Write;
use std::process::ExitCode;

use agent_resume_core::RecordedFlag;
use agent_resume_store::{OpenOptions, RowState};
use anyhow::{Context, Result};
use serde::Serialize;

use crate::paths::{self, Overrides};
use crate::when;

#[derive(clap::Args)]
pub struct Args {
    /// Print a JSON array of
    /// `{"pane","agent","session_id","cwd","observed_at","flags"}`.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row<'a> {
    pane: String,
    agent: &'static str,
    session_id: &'a str,
    cwd: String,
    observed_at: Option<String>,
    flags: &'a [Flag<'a>],
}

/// A flag with `value` always present (null for switches).
#[derive(Serialize)]
struct Flag<'a> {
    name: &'a str,
    value: Option<&'a str>,
}

fn flags(f: &[RecordedFlag]) -> Vec<Flag<'_>> {
    f.iter()
        .map(|f| Flag {
            name: &f.name,
            value: f.value.as_deref(),
        })
        .collect()
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    let path = paths::db(o)?;
    let store = OpenOptions::default()
        .inspect(&path)
        .with_context(|| format!("recordings database {}", paths::show(&path)))?;
    let loaded = match &store {
        Some(s) => s.load()?,
        None => Default::default(),
    };
    if let Some(why) = store.as_ref().and_then(|s| s.distrust()) {
        eprintln!("agent-resume: warning: the database is not trusted ({why}); restore ignores it");
    }
    for w in &loaded.warnings {
        eprintln!("agent-resume: warning: {w}");
    }
    let mut out = super::listing_stdout();
    let unreadable = loaded
        .rows
        .values()
        .filter(|r| matches!(r, RowState::Unreadable(_)))
        .count();
    if args.json {
        let readable: Vec<_> = loaded
            .rows
            .iter()
            .filter_map(|(p, s)| s.recording().map(|r| (p, r, flags(&r.flags))))
            .collect();
        let rows: Vec<Row<'_>> = readable
            .iter()
            .map(|(p, r, f)| Row {
                pane: p.to_string(),
                agent: r.agent.as_str(),
                session_id: &r.session_id,
                cwd: r.cwd.to_string_lossy().into_owned(),
                observed_at: when::format(r.observed_at),
                flags: f,
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        out.flush()?;
        if unreadable > 0 {
            eprintln!("agent-resume: {unreadable} unreadable row(s) not listed");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if loaded.rows.is_empty() {
        writeln!(out, "no recordings")?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    for (pane, state) in &loaded.rows {
        match state {
            RowState::Recording(r) => {
                let f: Vec<String> = r
                    .flags
                    .iter()
                    .map(|f| match &f.value {
                        Some(v) => format!("{} {}", f.name, v),
                        None => f.name.to_string(),
                    })
                    .collect();
                writeln!(
                    out,
                    "{pane}  {:<8} {}  {}  {}  {}",
                    r.agent.as_str(),
                    when::format(r.observed_at).unwrap_or_else(|| r.observed_at.0.to_string()),
                    r.session_id,
                    paths::show(&r.cwd),
                    paths::escape(&f.join(" ")),
                )?;
            }
            RowState::Unreadable(why) => {
                writeln!(out, "{pane}  (unreadable: {})", why.as_str())?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
