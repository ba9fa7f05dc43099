//! `agent-resume plan` (the dry run) and `agent-resume restore` (plan, arm,
//! telemetry): every pane of a layout with its verdict.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::collections::{HashMap, HashSet};

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

pub use agent_resume_engine::host::{places_of, Place, Position};

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

/// The plans in position order (panes without a place last, by id), each
/// with its place.
pub fn sorted<'a, 'p>(
    plans: &'a [PanePlan],
    places: &'p HashMap<PaneId, Place>,
) -> Vec<(&'a PanePlan, Option<&'p Place>)> {
    // Places looked up once per plan, not twice per comparison nor again
    // when printing.
    let mut keyed: Vec<(&PanePlan, Option<&Place>)> =
        plans.iter().map(|p| (p, places.get(&p.pane))).collect();
    keyed.sort_by(|(a, pa), (b, pb)| {
        let (pa, pb) = (pa.map(|x| &x.position), pb.map(|x| &x.position));
        (pa.is_none(), pa, a.pane).cmp(&(pb.is_none(), pb, b.pane))
    });
    keyed
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
        let rows: Vec<Row<'_>> = rows.iter().map(|(p, place)| row(p, *place)).collect();
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
    write_table(&mut out, &rows)?;
    out.flush()?;
    Ok(())
}

/// The table itself: position, directory, how the pane comes back (tmux),
/// verdict, agent, and the reason or the command.
pub fn write_table(
    out: &mut dyn Write,
    rows: &[(&PanePlan, Option<&Place>)],
) -> std::io::Result<()> {
    let cells: Vec<Cell<'_>> = rows
        .iter()
        .map(|(p, place)| match place {
            Some(place) => Cell::new(
                p,
                match &place.position {
                    Position::Host { window, tab, pane } => Label::Host(*window, *tab, *pane),
                    tmux => Label::Text(tmux.to_string()),
                },
                place.cwd.as_deref(),
                place.comes_back.unwrap_or(""),
            ),
            None => Cell::new(p, Label::Text(p.pane.to_string()), None, ""),
        })
        .collect();
    write_cells(out, &cells)
}

/// What the position column shows: a layout file's indices, written as
/// they are printed, or any other text.
enum Label {
    Host(usize, usize, usize),
    Text(String),
}

fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// One row of the table with the widths of its padded columns.
struct Cell<'a> {
    plan: &'a PanePlan,
    label: Label,
    label_width: usize,
    dir: Cow<'a, str>,
    dir_width: usize,
    fate: &'static str,
}

impl<'a> Cell<'a> {
    fn new(plan: &'a PanePlan, label: Label, cwd: Option<&'a Path>, fate: &'static str) -> Self {
        let label_width = match &label {
            Label::Host(w, t, p) => 5 + digits(*w) + digits(*t) + digits(*p),
            Label::Text(s) => s.chars().count(),
        };
        let dir = cwd.map_or(Cow::Borrowed("-"), crate::paths::show_cow);
        let dir_width = dir.chars().count();
        Cell {
            plan,
            label,
            label_width,
            dir,
            dir_width,
            fate,
        }
    }
}

/// Writes `s` left-aligned in `width` characters (`{s:<width$}` of a
/// string whose character count is `len`).
fn pad(out: &mut dyn Write, s: &str, len: usize, width: usize) -> std::io::Result<()> {
    const SPACES: &[u8; 64] = &[b' '; 64];
    out.write_all(s.as_bytes())?;
    let mut n = width.saturating_sub(len);
    while n > 0 {
        let k = n.min(SPACES.len());
        out.write_all(&SPACES[..k])?;
        n -= k;
    }
    Ok(())
}

fn write_cells(out: &mut dyn Write, cells: &[Cell<'_>]) -> std::io::Result<()> {
    let with_fate = cells.iter().any(|c| !c.fate.is_empty());
    let wp = cells
        .iter()
        .map(|c| c.label_width)
        .max()
        .unwrap_or(0)
        .max(4);
    let wd = cells.iter().map(|c| c.dir_width).max().unwrap_or(0).max(9);
    let wf = if with_fate {
        cells.iter().map(|c| c.fate.len()).max().unwrap_or(0).max(7)
    } else {
        0
    };
    let fate_head = if with_fate { "restore" } else { "" };
    let sep = if with_fate { "  " } else { "" };
    writeln!(
        out,
        "{:<wp$}  {:<wd$}  {fate_head:<wf$}{sep}{:<7} {:<12} reason / command",
        "pane", "directory", "verdict", "agent"
    )?;
    for c in cells {
        match &c.label {
            Label::Host(w, t, p) => {
                // `w{w}.t{t}.p{p}` without the formatting machinery, once
                // per pane.
                let mut n = itoa::Buffer::new();
                out.write_all(b"w")?;
                out.write_all(n.format(*w).as_bytes())?;
                out.write_all(b".t")?;
                out.write_all(n.format(*t).as_bytes())?;
                out.write_all(b".p")?;
                out.write_all(n.format(*p).as_bytes())?;
            }
            Label::Text(s) => out.write_all(s.as_bytes())?,
        }
        pad(out, "", c.label_width, wp)?;
        out.write_all(b"  ")?;
        pad(out, &c.dir, c.dir_width, wd)?;
        out.write_all(b"  ")?;
        pad(out, c.fate, c.fate.chars().count(), wf)?;
        out.write_all(sep.as_bytes())?;
        let (verdict, what) = match &c.plan.verdict {
            Verdict::Resume(inv) => ("resume", Ok(inv)),
            Verdict::Skip(r) => ("skip", Err(r.as_str())),
        };
        pad(out, verdict, verdict.len(), 7)?;
        out.write_all(b" ")?;
        let agent = c.plan.agent.map_or("-", |a| a.as_str());
        pad(out, agent, agent.chars().count(), 12)?;
        out.write_all(b" ")?;
        match what {
            // `shell_words::join`, word by word.
            Ok(inv) => {
                for (i, word) in inv.argv.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b" ")?;
                    }
                    out.write_all(shell_words::quote(word).as_bytes())?;
                }
                if inv.posture_carried {
                    out.write_all(b"  [posture]")?;
                }
            }
            Err(reason) => out.write_all(reason.as_bytes())?,
        }
        out.write_all(b"\n")?;
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
    // Only a start-up restore sweeps, keeping the layout's panes.
    let keep: Option<HashSet<PaneId>> =
        (restore && layout.startup).then(|| layout.panes().map(|(p, _)| p.id).collect());
    let decided = decide(o, &layout, now, gate.enabled, keep.as_ref())?;
    for w in &decided.warnings {
        eprintln!("agent-resume: {w}");
    }
    if restore && decided.enabled {
        let mut sink = FileSink::new(telemetry_file::path()?);
        arm_and_report(&decided, now, &mut sink, None);
    }
    let places = places_of(&layout);
    print(
        &decided.plans,
        &places,
        "the layout holds no pane",
        args.json,
    )?;
    // The process ends here. The store closes as usual; the rest (tens of
    // thousands of small allocations for a large layout) goes back to the
    // system with the process instead of being freed one by one.
    let crate::restore::Decided {
        store,
        plans,
        recordings,
        warnings,
        ..
    } = decided;
    drop(store);
    std::mem::forget((layout, places, plans, recordings, warnings));
    Ok(ExitCode::SUCCESS)
}
