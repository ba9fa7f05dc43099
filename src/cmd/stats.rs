//! `agent-resume stats`: outcome counts and an age-band histogram from the
//! local telemetry file.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use agent_resume_core::{AgeBand, Outcome};
use anyhow::{Context, Result};

use crate::telemetry_file;

#[derive(clap::Args)]
pub struct Args {}

fn bar(n: usize, max: usize) -> String {
    const WIDTH: usize = 40;
    let len = if max == 0 {
        0
    } else {
        (n * WIDTH).div_ceil(max)
    };
    "█".repeat(len)
}

pub fn run(_args: Args) -> Result<ExitCode> {
    let path = telemetry_file::path()?;
    let (events, bad) = telemetry_file::read(&path).context("cannot read the telemetry file")?;
    let mut out = super::listing_stdout();
    writeln!(
        out,
        "{} event(s) in {}",
        events.len(),
        crate::paths::show(&path)
    )?;
    if bad > 0 {
        writeln!(out, "({bad} unreadable line(s) skipped)")?;
    }
    if events.is_empty() {
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut outcomes: BTreeMap<u8, usize> = BTreeMap::new();
    let mut bands: BTreeMap<u8, usize> = BTreeMap::new();
    let mut posture = 0;
    for e in &events {
        *outcomes.entry(e.outcome as u8).or_default() += 1;
        *bands.entry(e.age_band as u8).or_default() += 1;
        posture += usize::from(e.posture_carried);
    }
    writeln!(out, "\noutcomes")?;
    let max = outcomes.values().copied().max().unwrap_or(0);
    for o in Outcome::VARIANTS {
        if let Some(n) = outcomes.get(&(*o as u8)) {
            writeln!(out, "  {:<22} {:>6}  {}", o.as_str(), n, bar(*n, max))?;
        }
    }
    writeln!(out, "  resumed with posture   {posture:>6}")?;
    writeln!(out, "\nage of the recording")?;
    let max = bands.values().copied().max().unwrap_or(0);
    for b in AgeBand::VARIANTS {
        let n = bands.get(&(*b as u8)).copied().unwrap_or(0);
        writeln!(out, "  {:<8} {:>6}  {}", b.as_str(), n, bar(n, max))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
