//! `agent-resume completions bash|zsh|fish` and `agent-resume man`: shell
//! completions and the man page, generated from the command-line definition
//! itself, so they never drift from it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, ValueEnum};

/// A shell completions are generated for.
#[derive(Clone, Copy, ValueEnum)]
pub enum Target {
    Bash,
    Zsh,
    Fish,
}

#[derive(clap::Args)]
pub struct Args {
    /// The shell.
    shell: Target,
}

/// Writes `bytes` to stdout; a closed pipe (`| head`) is not an error.
fn emit(bytes: &[u8]) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let shell = match args.shell {
        Target::Bash => clap_complete::Shell::Bash,
        Target::Zsh => clap_complete::Shell::Zsh,
        Target::Fish => clap_complete::Shell::Fish,
    };
    let mut cmd = crate::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "agent-resume", &mut buf);
    emit(&buf)
}

#[derive(clap::Args)]
pub struct ManArgs {}

/// Prints the man page (roff): `agent-resume man > agent-resume.1`.
pub fn man(_args: ManArgs) -> Result<ExitCode> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(crate::Cli::command()).render(&mut buf)?;
    emit(&buf)
}
