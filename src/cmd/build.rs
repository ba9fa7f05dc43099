//! `agent-resume build`: the text-to-line pipeline as a command.

use std::io::Write;
use std::process::ExitCode;

use agent_resume_core::{build_from_text, AgentKind, Catalog, PostureWindow, Shell};
use anyhow::{anyhow, Result};

use super::EXIT_REFUSED;

#[derive(clap::Args)]
pub struct Args {
    /// Agent name (see `agent-resume agents`).
    #[arg(long)]
    agent: String,
    /// The session id the agent reported.
    #[arg(long)]
    session_id: String,
    /// The user's own invocation text, as typed.
    #[arg(long, allow_hyphen_values = true)]
    invocation: String,
    /// Target shell.
    #[arg(long, default_value = "bash")]
    shell: String,
    /// Age of the recording in seconds (negative: future-dated).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    age: i64,
    /// Posture freshness window in seconds.
    #[arg(long, default_value_t = 12 * 3600)]
    window: i64,
    /// Print `{"argv": [...], "line": "...", "posture_carried": bool}`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let kind = AgentKind::from_name(&args.agent)
        .ok_or_else(|| anyhow!("unknown agent (see `agent-resume agents`)"))?;
    let shell: Shell = args.shell.parse()?;
    let agent = Catalog::embedded().agent(kind);
    let age_millis = args.age.saturating_mul(1000);
    match build_from_text(
        agent,
        &args.session_id,
        &args.invocation,
        age_millis,
        PostureWindow::from_secs(args.window),
        shell,
    ) {
        Ok(inv) => {
            let mut out = std::io::stdout().lock();
            if args.json {
                serde_json::to_writer(&mut out, &inv)?;
                writeln!(out)?;
            } else {
                writeln!(out, "{}", inv.line)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(refusal) => {
            eprintln!("agent-resume: refused: {}", refusal.as_str());
            Ok(ExitCode::from(EXIT_REFUSED))
        }
    }
}
