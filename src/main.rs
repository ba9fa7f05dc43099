//! `agent-resume`: bring AI coding-agent CLI sessions back after a terminal
//! restarts. See the README for the two set-up commands and `docs/` for the
//! security model, the agent matrix and the formats other tools speak.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// Bring AI coding-agent sessions back after a terminal restarts.
#[derive(Parser)]
#[command(name = "agent-resume", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the resume line for one agent session (refused: exit 3).
    Build(cmd::build::Args),
    /// List the agent catalog.
    Agents(cmd::agents::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(args) => cmd::build::run(args),
        Command::Agents(args) => cmd::agents::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("agent-resume: {err:#}");
            ExitCode::from(2)
        }
    }
}
