//! `agent-resume init <shell>`: shell integration for
//! `eval "$(agent-resume init zsh)"`. The scripts are real files
//! (`src/init/`) embedded in the binary; the binary's own path is embedded
//! with the quoting every supported shell parses identically.

use std::process::ExitCode;

use agent_resume_core::{quote, Catalog};
use anyhow::Result;
use clap::ValueEnum;

#[derive(Clone, Copy, ValueEnum)]
pub enum Target {
    Bash,
    Zsh,
    Fish,
}

#[derive(clap::Args)]
pub struct Args {
    /// The shell to integrate with.
    shell: Target,
}

const BASH: &str = include_str!("../init/agent-resume.bash");
const ZSH: &str = include_str!("../init/agent-resume.zsh");
const FISH: &str = include_str!("../init/agent-resume.fish");

/// The script for `target`, with the binary path and command words filled in.
pub fn script(target: Target) -> String {
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| p.into_os_string().into_string().ok())
        .and_then(|p| quote(&p).ok())
        .unwrap_or_else(|| "agent-resume".to_owned());
    // Command words are plain words (the catalog loader checks it).
    let words: Vec<&str> = Catalog::embedded()
        .agents()
        .iter()
        .flat_map(|a| a.commands.iter().map(String::as_str))
        .collect();
    let template = match target {
        Target::Bash => BASH,
        Target::Zsh => ZSH,
        Target::Fish => FISH,
    };
    template
        .replace("@AGENT_RESUME_BIN@", &bin)
        .replace("@AGENT_RESUME_COMMANDS@", &words.join(" "))
}

pub fn run(args: Args) -> Result<ExitCode> {
    print!("{}", script(args.shell));
    Ok(ExitCode::SUCCESS)
}
