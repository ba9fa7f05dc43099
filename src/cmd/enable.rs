//! `agent-resume enable` / `disable`: set `enabled` in the config file.

use std::process::ExitCode;

use agent_resume_core::{gate, GateSource};
use anyhow::Result;

use crate::config;
use crate::paths::{self, Overrides};

#[derive(clap::Args)]
pub struct Args {}

/// Writes `enabled = on`, keeping the file's other keys.
pub fn run(_args: Args, o: &Overrides, on: bool) -> Result<ExitCode> {
    let path = paths::config(o)?;
    config::set_enabled(&path, on)?;
    let word = if on { "enabled" } else { "disabled" };
    println!("agent-resume: {word} (in {})", paths::show(&path));
    // The files `init <shell> --rc-line` sources: there while enabled, so
    // a shell start with the feature off loads (and runs) nothing.
    match agent_resume_engine::shell_init::follow_gate(on, &crate::cmd::init::bin()) {
        Ok(Some(dir)) => println!(
            "agent-resume: shell integration files in {}",
            paths::show(&dir)
        ),
        Ok(None) => {}
        Err(e) => eprintln!("agent-resume: the shell integration files were not written ({e})"),
    }
    let env = config::env_value();
    let g = gate(env.as_deref(), Some(on));
    if g.source == GateSource::Env && g.enabled != on {
        eprintln!(
            "agent-resume: note: {}={} in the environment overrides the config file",
            agent_resume_core::gate::ENV_VAR,
            env.as_deref().unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}
