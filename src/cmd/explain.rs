//! `agent-resume explain`: one pane, every gate it passed and the one that
//! stopped it, in words.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agent_resume_core::{Reason, Verdict};
use anyhow::{bail, Result};

use crate::paths::Overrides;
use crate::restore::{decide, read_layout};
use crate::{config, when};
use agent_resume_tmux::locate;

#[derive(clap::Args)]
pub struct Args {
    /// The pane (default: the tmux pane's id, else `AGENT_RESUME_PANE`).
    #[arg(long)]
    pane: Option<String>,
    /// The layout file (docs/layout.md), or `-` for stdin.
    #[arg(long)]
    layout: PathBuf,
    /// The clock (RFC 3339; default: now).
    #[arg(long)]
    now: Option<String>,
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    let pane = locate::resolve(args.pane.as_deref())?;
    let layout = read_layout(&args.layout)?;
    let now = match &args.now {
        Some(t) => when::parse(t)?,
        None => when::now(),
    };
    let gate = config::gate_quiet(o);
    let decided = decide(o, &layout, now, gate.enabled, None)?;
    let Some(p) = decided.plans.iter().find(|p| p.pane == pane) else {
        bail!("the pane is not in the layout");
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "pane {pane}")?;
    for w in &decided.warnings {
        writeln!(out, "  ! {w}")?;
    }
    for gate in &Reason::GATES[..p.gates_passed] {
        writeln!(out, "  ✓ {}", gate.passed())?;
    }
    match &p.verdict {
        Verdict::Skip(r) => {
            writeln!(out, "  ✗ {}", r.describe())?;
            writeln!(out, "→ comes back as a plain shell ({})", r.as_str())?;
        }
        Verdict::Resume(inv) => {
            let posture = if inv.posture_carried {
                "with its permission posture (recording is fresh)"
            } else {
                "without posture flags"
            };
            writeln!(out, "→ resumes {posture}:")?;
            writeln!(out, "  {}", shell_words::join(&inv.argv))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
