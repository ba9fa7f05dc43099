//! What the demo tours print: the recordings, each pane's verdict, the
//! line each resumed pane runs, the telemetry; shared by the tmux and the
//! kitty tour.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_resume_core::{PaneId, PanePlan, Stored, Verdict};
use agent_resume_store::{load_or_empty, OpenOptions};
use anyhow::{bail, Result};

use super::plan::{self, Place};
use crate::paths::{self, Overrides};
use crate::telemetry_file;

pub(super) fn wait_for(
    what: &str,
    timeout: Duration,
    mut done: impl FnMut() -> bool,
) -> Result<()> {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > timeout {
            bail!("timed out waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

pub(super) fn print_recordings(o: &Overrides) -> Result<()> {
    let loaded = load_or_empty(&paths::db(o)?, &OpenOptions::default());
    println!("\n== recorded (what capture stored, per pane) ==");
    for (pane, row) in loaded.stored() {
        if let Stored::Recording(r) = row {
            let flags: Vec<String> = r
                .flags
                .iter()
                .map(|f| format!("{} {}", f.name, f.value.as_deref().unwrap_or("")))
                .collect();
            println!(
                "  {pane}  {:<7} {}  {}  {}",
                r.agent.as_str(),
                r.session_id,
                paths::show(&r.cwd),
                flags.join(" ").trim()
            );
        }
    }
    Ok(())
}

pub(super) fn print_plan(plans: &[PanePlan], places: &HashMap<PaneId, Place>) -> Result<()> {
    println!("\n== verdicts after the restart ==");
    let mut out = std::io::stdout().lock();
    plan::write_table(&mut out, &plan::sorted(plans, places))?;
    out.flush()?;
    Ok(())
}

/// Waits until every resumed stand-in has started (each writes a file
/// under `ran/`), then prints the argv each received, labelled by its pane
/// (`what`, with `label` before the file's name).
pub(super) fn show_resumed(
    dir: &Path,
    plans: &[PanePlan],
    patience: Duration,
    what: &str,
    label: &str,
) -> Result<()> {
    let resumed = plans
        .iter()
        .filter(|p| matches!(p.verdict, Verdict::Resume(_)))
        .count();
    wait_for("the resumed stand-in agents to start", patience, || {
        fs::read_dir(dir.join("ran"))
            .map(|d| d.count())
            .unwrap_or(0)
            >= resumed
    })?;
    println!("\n== 4. what each resumed {what} now runs (argv the stand-in received) ==");
    let mut ran: Vec<_> = fs::read_dir(dir.join("ran"))?
        .filter_map(|e| e.ok())
        .collect();
    ran.sort_by_key(|e| e.file_name());
    for e in ran {
        let argv = fs::read_to_string(e.path())?;
        println!(
            "  {label}{}  {}",
            e.file_name().to_string_lossy(),
            argv.lines().collect::<Vec<_>>().join(" ")
        );
    }
    Ok(())
}

pub(super) fn print_telemetry() -> Result<()> {
    let (events, _) = telemetry_file::read(&telemetry_file::path()?)?;
    println!("\n== telemetry events (closed enums only) ==");
    for e in events {
        println!("  {}", serde_json::to_string(&e)?);
    }
    Ok(())
}
