//! `agent-resume install-hooks <agent>` / `uninstall-hooks <agent>`: the
//! edit itself is [`agent_resume_engine::hooks`]; this prints its steps.

use std::path::PathBuf;
use std::process::ExitCode;

use agent_resume_core::AgentKind;
use agent_resume_discover::Homes;
use agent_resume_engine::hooks::{self, HookError, Request, Step};
use anyhow::{Context, Result};

use super::EXIT_REFUSED;

#[derive(clap::Args)]
pub struct Args {
    /// The agent (claude, codex, gemini, qwen).
    agent: String,
    /// Show the change as a diff and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The agent's configuration file [default: where the agent reads it].
    /// For codex, `config.toml`; its `hooks.json` is the one beside it.
    #[arg(long, value_name = "PATH")]
    config_file: Option<PathBuf>,
    /// Codex only: also set `[features] daemon_auto_start = false`, so each
    /// Codex window runs its own sessions and its hooks know their pane.
    /// Codex's background server then no longer keeps a task running after
    /// its window closes. Uninstall restores the setting.
    #[arg(long)]
    per_window: bool,
}

pub fn run(args: Args, install: bool) -> Result<ExitCode> {
    let agent =
        AgentKind::from_name(&args.agent).context("unknown agent (see `agent-resume agents`)")?;
    let homes = Homes::from_env(&|k| std::env::var_os(k));
    let program = hooks::program(std::env::current_exe().ok());
    let req = Request {
        agent,
        install,
        dry_run: args.dry_run,
        config_file: args.config_file,
        per_window: args.per_window,
        homes: &homes,
        program: &program,
    };
    match hooks::edit(&req, &mut |step| print(step, install)) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e @ HookError::NotEdited(_)) => {
            eprintln!("agent-resume: refused: {e}");
            Ok(ExitCode::from(EXIT_REFUSED))
        }
        Err(e) => Err(e.into()),
    }
}

fn print(step: Step, install: bool) {
    match step {
        Step::CodexTooOld(v) => eprintln!(
            "agent-resume: codex {v} has no SessionStart hooks; using notify only (Codex reports after each reply)"
        ),
        Step::Diff { shown, old, new } => match new {
            Some(new) => print!("--- {shown}\n+++ {shown}\n{}", hooks::diff(&old, &new)),
            None => print!("--- {shown}\n+++ /dev/null\n{}", hooks::diff(&old, "")),
        },
        Step::Kept { shown } => eprintln!(
            "agent-resume: {shown} already {}",
            if install {
                "has the hooks"
            } else {
                "has no hooks of ours"
            }
        ),
        Step::Installed {
            shown,
            codex_hooks_json,
        } => {
            eprintln!("agent-resume: installed hooks in {shown}");
            if codex_hooks_json {
                eprintln!(
                    "agent-resume: Codex asks you to review this new hook at its next start: \
                     choose \"Trust all and continue\" (or review it in /hooks) to let \
                     `agent-resume hook codex` run at session start; until then notify \
                     records Codex after its first reply"
                );
            }
        }
        Step::Removed { shown } => eprintln!("agent-resume: removed hooks from {shown}"),
        Step::Deleted { shown } => {
            eprintln!("agent-resume: removed {shown} (install had created it)")
        }
        Step::PerWindowSet { shown } => eprintln!(
            "agent-resume: set [features] daemon_auto_start = false in {shown}: each \
             Codex window runs its own sessions (they end with their window), so its \
             hooks know their pane; uninstall-hooks codex restores the setting"
        ),
        Step::SharedServerRunning { shown, pids } => {
            let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
            eprintln!(
                "agent-resume: [features] daemon_auto_start = false is in {shown}, but Codex's \
                 shared background server is running (pid {}) and keeps running the sessions \
                 of every Codex window until it exits, so their hooks still record nothing: \
                 end it (`kill {}`, after closing the Codex windows you need) and the next \
                 Codex window runs its own sessions",
                pids.join(", "),
                pids.join(" ")
            );
        }
        Step::SharedServer => eprintln!(
            "agent-resume: note: Codex runs the sessions of all its windows in one \
             shared background server, whose hooks cannot tell which pane a session \
             is in; they record nothing then, and capture relies on the scan of \
             `agent-resume tmux save`. For capture at each session's start in its own pane, run \
             `agent-resume install-hooks codex --per-window` (sets [features] \
             daemon_auto_start = false: a task then ends with its window)"
        ),
    }
}
