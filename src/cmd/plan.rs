//! `agent-resume plan` (the dry run) and `agent-resume restore` (plan, arm,
//! telemetry): every pane of a layout with its verdict.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use std::collections::HashSet;

use agent_resume_core::{PaneId, PanePlan, Verdict};
use anyhow::Result;
use serde::Serialize;

use crate::paths::Overrides;
use crate::restore::{arm_and_report, decide, read_layout};
use crate::telemetry_file::{self, FileSink};
use crate::{config, when};

#[derive(clap::Args)]
pub struct Args {
    /// The layout file (docs/layout.md), or `-` for stdin.
    #[arg(long)]
    layout: PathBuf,
    /// The clock, for reproducible plans (RFC 3339; default: now).
    #[arg(long)]
    now: Option<String>,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

/// One row of `--json`.
#[derive(Serialize)]
pub struct Row<'a> {
    pane: String,
    verdict: &'static str,
    reason: Option<&'static str>,
    agent: Option<&'static str>,
    argv: Option<&'a [String]>,
    line: Option<&'a str>,
    posture_carried: bool,
}

pub fn row(p: &PanePlan) -> Row<'_> {
    let (verdict, reason, argv, line, posture) = match &p.verdict {
        Verdict::Resume(inv) => (
            "resume",
            None,
            Some(inv.argv.as_slice()),
            Some(inv.line.as_str()),
            inv.posture_carried,
        ),
        Verdict::Skip(r) => ("skip", Some(r.as_str()), None, None, false),
    };
    Row {
        pane: p.pane.to_string(),
        verdict,
        reason,
        agent: p.agent.map(|a| a.as_str()),
        argv,
        line,
        posture_carried: posture,
    }
}

pub fn print(plans: &[PanePlan], json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        let rows: Vec<Row<'_>> = plans.iter().map(row).collect();
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<36}  {:<7} {:<12} reason / command",
        "pane", "verdict", "agent"
    )?;
    for p in plans {
        let r = row(p);
        let what = match (&p.verdict, r.reason) {
            (Verdict::Resume(inv), _) => {
                let posture = if inv.posture_carried {
                    "  [posture]"
                } else {
                    ""
                };
                format!("{}{posture}", shell_words::join(&inv.argv))
            }
            (Verdict::Skip(_), reason) => reason.unwrap_or_default().to_owned(),
        };
        writeln!(
            out,
            "{:<36}  {:<7} {:<12} {what}",
            r.pane,
            r.verdict,
            r.agent.unwrap_or("-")
        )?;
    }
    Ok(())
}

pub fn run(args: Args, o: &Overrides, restore: bool) -> Result<ExitCode> {
    let layout = read_layout(&args.layout)?;
    let now = match &args.now {
        Some(t) => when::parse(t)?,
        None => when::now(),
    };
    let gate = config::gate_quiet(o);
    let keep: HashSet<PaneId> = layout.panes().map(|(p, _)| p.id).collect();
    let decided = decide(
        o,
        &layout,
        now,
        gate.enabled,
        (restore && layout.startup).then_some(&keep),
    )?;
    for w in &decided.warnings {
        eprintln!("agent-resume: {w}");
    }
    if restore && decided.enabled {
        let mut sink = FileSink::new(telemetry_file::path()?);
        arm_and_report(&decided, &layout, now, &mut sink);
    }
    print(&decided.plans, args.json)?;
    Ok(ExitCode::SUCCESS)
}
