//! Which pane a command is about: `--pane`, else `AGENT_RESUME_PANE` (set by
//! the host in each pane's environment).

use agent_resume_core::PaneId;
use anyhow::{bail, Context, Result};

/// The environment variable a host sets in each pane.
pub const ENV: &str = "AGENT_RESUME_PANE";

/// The pane from `--pane` or the environment.
pub fn resolve(flag: Option<&str>) -> Result<PaneId> {
    if let Some(p) = flag {
        return p.parse().context("--pane is not a hyphenated UUID");
    }
    match std::env::var(ENV) {
        Ok(p) if !p.is_empty() => p
            .parse()
            .with_context(|| format!("{ENV} is not a hyphenated UUID")),
        _ => bail!("no pane: pass --pane or set {ENV}"),
    }
}
