//! `agent-resume plan` (the dry run) and `agent-resume restore` (plan, arm,
//! telemetry): every pane of a layout with its verdict.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use std::collections::{HashMap, HashSet};

use agent_resume_core::{Layout, PaneId, PanePlan, Verdict};
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

/// Where a pane sits in its host: what the table names it by and sorts it
/// by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Position {
    /// A tmux pane: `session:window.pane`.
    Tmux {
        /// The session name.
        session: String,
        /// The window index.
        window: u32,
        /// The pane index.
        pane: u32,
    },
    /// A pane of a layout file (docs/layout.md): window, tab and pane
    /// indices, in the file's order.
    Host {
        /// The window's index in the layout.
        window: usize,
        /// The tab's index in its window.
        tab: usize,
        /// The pane's index in its tab.
        pane: usize,
    },
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::Tmux {
                session,
                window,
                pane,
            } => write!(f, "{}:{window}.{pane}", crate::paths::escape(session)),
            Position::Host { window, tab, pane } => write!(f, "w{window}.t{tab}.p{pane}"),
        }
    }
}

/// A pane's place in the table: its position, its directory and (tmux) how
/// it comes back.
#[derive(Clone, Debug)]
pub struct Place {
    /// Where it sits.
    pub position: Position,
    /// Its directory, when known.
    pub cwd: Option<PathBuf>,
    /// How the host brings it back (`recreate`, `in place`, …); `None` for
    /// a layout file's panes, which the terminal itself restored.
    pub comes_back: Option<&'static str>,
}

/// The places of a layout file's panes.
pub fn places_of(layout: &Layout) -> HashMap<PaneId, Place> {
    let mut out = HashMap::new();
    for (wi, w) in layout.windows.iter().enumerate() {
        for (ti, t) in w.tabs.iter().enumerate() {
            for (pi, p) in t.panes.iter().enumerate() {
                out.insert(
                    p.id,
                    Place {
                        position: Position::Host {
                            window: wi,
                            tab: ti,
                            pane: pi,
                        },
                        cwd: p.cwd.clone(),
                        comes_back: None,
                    },
                );
            }
        }
    }
    out
}

/// One row of `--json`.
#[derive(Serialize)]
pub struct Row<'a> {
    pane: String,
    position: Option<String>,
    directory: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comes_back: Option<&'static str>,
    verdict: &'static str,
    reason: Option<&'static str>,
    agent: Option<&'static str>,
    argv: Option<&'a [String]>,
    line: Option<&'a str>,
    posture_carried: bool,
}

pub fn row<'a>(p: &'a PanePlan, place: Option<&Place>) -> Row<'a> {
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
        position: place.map(|x| x.position.to_string()),
        directory: place.and_then(|x| x.cwd.as_deref()).map(crate::paths::show),
        comes_back: place.and_then(|x| x.comes_back),
        verdict,
        reason,
        agent: p.agent.map(|a| a.as_str()),
        argv,
        line,
        posture_carried: posture,
    }
}

/// The plans in position order (panes without a place last, by id).
pub fn sorted<'a>(plans: &'a [PanePlan], places: &HashMap<PaneId, Place>) -> Vec<&'a PanePlan> {
    // Keys looked up once per plan, not twice per comparison.
    let mut keyed: Vec<(Option<&Position>, &PanePlan)> = plans
        .iter()
        .map(|p| (places.get(&p.pane).map(|x| &x.position), p))
        .collect();
    keyed.sort_by(|(pa, a), (pb, b)| (pa.is_none(), pa, a.pane).cmp(&(pb.is_none(), pb, b.pane)));
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// Prints the plans, one line per pane in position order, or (`json`) a
/// JSON array in the same order; with no pane at all, the one line
/// `nothing to restore: {nothing}` instead of a table (`[]` as JSON).
pub fn print(
    plans: &[PanePlan],
    places: &HashMap<PaneId, Place>,
    nothing: &str,
    json: bool,
) -> Result<()> {
    let mut out = super::listing_stdout();
    let rows = sorted(plans, places);
    if json {
        let rows: Vec<Row<'_>> = rows.iter().map(|p| row(p, places.get(&p.pane))).collect();
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        out.flush()?;
        if plans.is_empty() {
            eprintln!("nothing to restore: {nothing}");
        }
        return Ok(());
    }
    if plans.is_empty() {
        writeln!(out, "nothing to restore: {nothing}")?;
        out.flush()?;
        return Ok(());
    }
    write_table(&mut out, &rows, places)?;
    out.flush()?;
    Ok(())
}

/// The table itself: position, directory, how the pane comes back (tmux),
/// verdict, agent, and the reason or the command.
pub fn write_table(
    out: &mut dyn Write,
    rows: &[&PanePlan],
    places: &HashMap<PaneId, Place>,
) -> std::io::Result<()> {
    let cells: Vec<(String, String, &str, Row<'_>)> = rows
        .iter()
        .map(|p| {
            let place = places.get(&p.pane);
            let r = row(p, place);
            (
                r.position.clone().unwrap_or_else(|| r.pane.clone()),
                r.directory.clone().unwrap_or_else(|| "-".to_owned()),
                r.comes_back.unwrap_or(""),
                r,
            )
        })
        .collect();
    let with_fate = cells.iter().any(|c| !c.2.is_empty());
    let wp = cells
        .iter()
        .map(|c| c.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let wd = cells
        .iter()
        .map(|c| c.1.chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    let wf = if with_fate {
        cells.iter().map(|c| c.2.len()).max().unwrap_or(0).max(7)
    } else {
        0
    };
    let fate_head = if with_fate { "restore" } else { "" };
    writeln!(
        out,
        "{:<wp$}  {:<wd$}  {fate_head:<wf$}{}{:<7} {:<12} reason / command",
        "pane",
        "directory",
        if with_fate { "  " } else { "" },
        "verdict",
        "agent"
    )?;
    for (position, dir, fate, r) in &cells {
        let what = match r.reason {
            None => {
                let posture = if r.posture_carried { "  [posture]" } else { "" };
                format!("{}{posture}", shell_words::join(r.argv.unwrap_or_default()))
            }
            Some(reason) => reason.to_owned(),
        };
        writeln!(
            out,
            "{position:<wp$}  {dir:<wd$}  {fate:<wf$}{}{:<7} {:<12} {what}",
            if with_fate { "  " } else { "" },
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
    print(
        &decided.plans,
        &places_of(&layout),
        "the layout holds no pane",
        args.json,
    )?;
    Ok(ExitCode::SUCCESS)
}
