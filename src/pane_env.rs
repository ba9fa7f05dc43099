//! Which pane a command is about: `--pane`, else `AGENT_RESUME_PANE` (set by
//! the host in each pane's environment), else — inside tmux — the stable id
//! kept in the tmux pane's `@agent_resume_pane` option (given one if it has
//! none yet).

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
        _ => from_tmux(),
    }
}

/// The stable id of `$TMUX_PANE` on the server `$TMUX` names.
fn from_tmux() -> Result<PaneId> {
    let target = match (std::env::var_os("TMUX"), std::env::var("TMUX_PANE")) {
        (Some(_), Ok(t))
            if t.len() > 1 && t.starts_with('%') && t[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            t
        }
        _ => bail!("no pane: pass --pane or set {ENV}"),
    };
    let tmux = agent_resume_tmux::Tmux::new(agent_resume_tmux::Socket::Default);
    if let Some(id) = tmux.pane_id(&target)? {
        return Ok(id);
    }
    Ok(tmux.claim_pane_id(
        &target,
        PaneId::from_bytes(*uuid::Uuid::new_v4().as_bytes()),
    )?)
}
