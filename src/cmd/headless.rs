//! `agent-resume headless --agent A --session-id S -- PROMPT…`: the argv a
//! supervisor runs to continue a session non-interactively, as JSON.
//!
//! The argv follows the catalog's verified headless shape (`claude -p
//! --resume <id> -- <prompt>`, `codex exec resume <id> <prompt>`, …). An
//! agent without a verified headless shape, an id off its shape, or an
//! unsafe prompt is refused (exit 3): never run cold. The prompt words are
//! joined by spaces into one argv element; no shell is involved.

use std::process::ExitCode;

use agent_resume_core::{AgentKind, Catalog, Invocation};
use anyhow::{anyhow, Result};

use super::EXIT_REFUSED;

#[derive(clap::Args)]
pub struct Args {
    /// Agent name (see `agent-resume agents`).
    #[arg(long)]
    agent: String,
    /// The session to continue.
    #[arg(long)]
    session_id: String,
    /// The prompt, after `--`.
    #[arg(last = true, required = true, value_name = "PROMPT")]
    prompt: Vec<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let kind = AgentKind::from_name(&args.agent)
        .ok_or_else(|| anyhow!("unknown agent (see `agent-resume agents`)"))?;
    let agent = Catalog::embedded().agent(kind);
    match Invocation::headless(agent, &args.session_id, &args.prompt) {
        Ok(argv) => {
            println!("{}", serde_json::to_string(&argv)?);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("agent-resume: refused: {e}");
            Ok(ExitCode::from(EXIT_REFUSED))
        }
    }
}
