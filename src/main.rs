//! `agent-resume`: bring AI coding-agent CLI sessions back after a terminal
//! restarts. See the README for the two set-up commands and `docs/` for the
//! security model, the agent matrix and the formats other tools speak.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod capture_apply;
mod cmd;
mod config;
mod paths;
mod restore;
mod stdin;
mod telemetry_file;
#[cfg(target_os = "linux")]
mod tmux_scan;
mod when;

/// Bring AI coding-agent sessions back after a terminal restarts.
#[derive(Parser)]
#[command(name = "agent-resume", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The recordings database [default: $XDG_DATA_HOME/agent-resume/recordings.sqlite3].
    #[arg(long, global = true, env = "AGENT_RESUME_DB", value_name = "PATH")]
    db: Option<PathBuf>,
    /// The config file [default: $XDG_CONFIG_HOME/agent-resume/config.toml].
    #[arg(long, global = true, env = "AGENT_RESUME_CONFIG", value_name = "PATH")]
    config: Option<PathBuf>,
}

/// `follow`'s arguments.
#[derive(clap::Args)]
struct FollowArgs {
    /// The restore queue's id.
    #[arg(long)]
    queue: String,
}

#[derive(Subcommand)]
enum Command {
    /// Build the resume line for one agent session (refused: exit 3).
    Build(cmd::build::Args),
    /// List the agent catalog.
    Agents(cmd::agents::Args),
    /// Turn agent-resume on (writes `enabled = true` to the config file).
    Enable(cmd::enable::Args),
    /// Turn agent-resume off (writes `enabled = false` to the config file).
    Disable(cmd::enable::Args),
    /// Show the feature flag and where it came from, the database, its schema and row counts.
    Status(cmd::status::Args),
    /// Record an agent observed in a pane (runs the capture path).
    Record(cmd::record::Args),
    /// Forget a pane's recording: its agent ended, or (`--closed`) the pane closed for good.
    Forget(cmd::forget::Args),
    /// Shell integration: a resumed agent ended, with this exit status.
    #[command(hide = true)]
    Ended(cmd::ended::Args),
    /// Follow a restore's resumes to their end, into the restore log.
    #[command(hide = true)]
    Follow(FollowArgs),
    /// List what the store holds.
    Recordings(cmd::recordings::Args),
    /// Dry run: every pane of a layout with its verdict, reason and command.
    Plan(cmd::plan::Args),
    /// Plan, arm each resumable pane, and record telemetry.
    Restore(cmd::plan::Args),
    /// Print a pane's armed resume line and consume it (exit 1: nothing).
    Take(cmd::take::Args),
    /// Explain, gate by gate, why a pane would or would not resume.
    Explain(cmd::explain::Args),
    /// Outcome counts and age histogram from the local telemetry file.
    Stats(cmd::stats::Args),
    /// The command an agent's hook runs: record the session id it reported (always exits 0).
    Hook(cmd::hook::Args),
    /// Apply a host-neutral report message (docs/capture.md).
    Report(cmd::report::Args),
    /// Zero-config capture: find each pane's agent in its process tree and record its id.
    Capture(cmd::capture::Args),
    /// Shell integration: `eval "$(agent-resume init zsh)"`.
    Init(cmd::init::Args),
    /// Shell integration's preexec step: note an agent command line's allowlisted flags.
    #[command(hide = true)]
    Note(cmd::note::Args),
    /// Merge agent-resume into an agent's hook configuration.
    InstallHooks(cmd::hooks::Args),
    /// Remove agent-resume from an agent's hook configuration.
    UninstallHooks(cmd::hooks::Args),
    /// Launch an agent: note its flags, pin a session id where supported, run it.
    Run(cmd::run::Args),
    /// The tmux host: save the layout snapshot, restore agent panes.
    Tmux(cmd::tmux::Args),
    /// The kitty host: save the snapshot, write a restoring session file.
    Kitty(cmd::kitty::Args),
    /// A self-contained tour: stand-in agents in a private tmux server, a restart, a restore.
    Demo(cmd::demo::Args),
    /// Every agent session on this machine, from the agents' own stores, newest first.
    Sessions(cmd::sessions::Args),
    /// Resume a session by id prefix or file path, in the directory it ran in.
    Resume(cmd::resume::Args),
    /// Continue this pane's recorded conversation, else the newest one in this directory.
    Continue(cmd::continue_::Args),
    /// Print the headless (non-interactive) resume argv for a supervisor, as JSON.
    Headless(cmd::headless::Args),
    /// Check the set-up: flag, database, shell and tmux lines, agent hooks (exit 1: something is missing).
    Doctor(cmd::doctor::Args),
    /// Print shell completions: `agent-resume completions bash > …`.
    Completions(cmd::completions::Args),
    /// Print the man page (roff): `agent-resume man > agent-resume.1`.
    Man(cmd::completions::ManArgs),
}

/// What `--version` prints: clap's own rendering (test
/// `the_version_fast_path_prints_what_clap_would`).
const VERSION_LINE: &str = concat!("agent-resume ", env!("CARGO_PKG_VERSION"), "\n");

/// `agent-resume --version` (or `-V`) alone: answered before the command
/// line parser is built, the start-up floor of every process.
fn version_only() -> bool {
    let mut args = std::env::args_os().skip(1);
    matches!(
        (args.next(), args.next()),
        (Some(a), None) if a == "--version" || a == "-V"
    )
}

/// `agent-resume init <target>` with nothing else: every new shell's rc
/// line runs it, flag on or off, so it is answered before the command line
/// parser is built: the target word is read by the parser's own
/// [`clap::ValueEnum`] matching, and the answer is what the parsed command
/// prints (test `the_init_fast_path_reads_exactly_what_the_parser_reads`).
/// Anything else (more words, a global flag) goes through the parser.
fn init_only(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<cmd::init::Target> {
    match (args.next(), args.next(), args.next()) {
        (Some(init), Some(target), None) if init == "init" => {
            <cmd::init::Target as clap::ValueEnum>::from_str(target.to_str()?, false).ok()
        }
        _ => None,
    }
}

fn main() -> ExitCode {
    if version_only() {
        use std::io::Write as _;
        // A closed pipe ends it as quietly as every other listing.
        let _closed = std::io::stdout().lock().write_all(VERSION_LINE.as_bytes());
        return ExitCode::SUCCESS;
    }
    if let Some(target) = init_only(std::env::args_os().skip(1)) {
        return cmd::init::run(target, false);
    }
    quiet_on_closed_stdout();
    let cli = Cli::parse();
    let paths = paths::Overrides {
        db: cli.db,
        config: cli.config,
    };
    let result = match cli.command {
        Command::Build(args) => cmd::build::run(args),
        Command::Agents(args) => cmd::agents::run(args),
        Command::Enable(args) => cmd::enable::run(args, &paths, true),
        Command::Disable(args) => cmd::enable::run(args, &paths, false),
        Command::Status(args) => cmd::status::run(args, &paths),
        Command::Record(args) => cmd::record::run(args, &paths),
        Command::Forget(args) => cmd::forget::run(args, &paths),
        Command::Ended(args) => Ok(cmd::ended::run(args, &paths)),
        Command::Follow(args) => {
            use agent_resume_engine::restore::log;
            let mut out = log::Log::append();
            log::follow(
                &args.queue,
                &Default::default(),
                &paths,
                &when::now,
                &mut |m| out.line(m),
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Recordings(args) => cmd::recordings::run(args, &paths),
        Command::Plan(args) => cmd::plan::run(args, &paths, false),
        Command::Restore(args) => cmd::plan::run(args, &paths, true),
        Command::Take(args) => cmd::take::run(args, &paths),
        Command::Explain(args) => cmd::explain::run(args, &paths),
        Command::Stats(args) => cmd::stats::run(args),
        Command::Hook(args) => Ok(cmd::hook::run(args, &paths)),
        Command::Report(args) => cmd::report::run(args, &paths),
        Command::Capture(args) => cmd::capture::run(args, &paths),
        Command::Init(args) => Ok(cmd::init::run(args.shell, args.rc_line)),
        Command::Note(args) => Ok(cmd::note::run(args, &paths)),
        Command::InstallHooks(args) => cmd::hooks::run(args, true),
        Command::UninstallHooks(args) => cmd::hooks::run(args, false),
        Command::Run(args) => cmd::run::run(args, &paths),
        Command::Tmux(args) => cmd::tmux::run(args, &paths),
        Command::Kitty(args) => cmd::kitty::run(args, &paths),
        Command::Demo(args) => cmd::demo::run(args),
        Command::Sessions(args) => cmd::sessions::run(args),
        Command::Resume(args) => cmd::resume::run(args),
        Command::Continue(args) => cmd::continue_::run(args, &paths),
        Command::Headless(args) => cmd::headless::run(args),
        Command::Doctor(args) => cmd::doctor::run(args, &paths),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Man(args) => cmd::completions::man(args),
    };
    match result {
        Ok(code) => code,
        // The reader went away (`agent-resume … | head`): it has what it
        // wanted, so exit quietly and successfully, as `rg … | head` does.
        Err(err) if closed_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("agent-resume: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether the error comes from writing to a pipe whose reader closed it.
fn closed_pipe(err: &anyhow::Error) -> bool {
    let broken = Some(std::io::ErrorKind::BrokenPipe);
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>().map(std::io::Error::kind) == broken
            // serde_json keeps the io error inside, out of the chain.
            || e.downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == broken
    })
}

/// `SIGPIPE` stays ignored (Rust's default), so no command — the hook
/// least of all, in the middle of a database write — is ever killed by a
/// reader that went away: a write to a closed pipe fails with `EPIPE`
/// instead, which [`closed_pipe`] turns into a quiet exit 0. A `println!`
/// panics on that failure rather than returning it; this panic hook ends
/// such a panic the same quiet way (exit 0, nothing on stderr) and leaves
/// every other panic to the default hook.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        let broken = std::io::Error::from(std::io::ErrorKind::BrokenPipe).to_string();
        let epipe =
            std::io::Error::from_raw_os_error(rustix::io::Errno::PIPE.raw_os_error()).to_string();
        if text.starts_with("failed printing to stdout")
            && (text.ends_with(&epipe) || text.ends_with(&broken))
        {
            std::process::exit(0);
        }
        default(info);
    }));
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    /// The fast path takes exactly the command lines the parser reads as
    /// `init <target>` alone, as the same target; every other line is left
    /// to the parser.
    #[test]
    fn the_init_fast_path_reads_exactly_what_the_parser_reads() {
        let words = |line: &[&str]| {
            line.iter()
                .map(std::ffi::OsString::from)
                .collect::<Vec<_>>()
        };
        let mut lines: Vec<Vec<&str>> = vec![
            vec!["init", "Bash"],
            vec!["init", "bash "],
            vec!["init", ""],
            vec!["init", "sh"],
            vec!["init"],
            vec!["init", "bash", "zsh"],
            vec!["init", "--", "bash"],
            vec!["--db", "x", "init", "bash"],
            vec!["status", "bash"],
        ];
        let names: Vec<String> = <crate::cmd::init::Target as clap::ValueEnum>::value_variants()
            .iter()
            .filter_map(clap::ValueEnum::to_possible_value)
            .map(|v| v.get_name().to_owned())
            .collect();
        assert_eq!(names.len(), 5, "every target has a name");
        lines.extend(names.iter().map(|n| vec!["init", n.as_str()]));
        for line in lines {
            let parsed = match super::Cli::try_parse_from(
                std::iter::once("agent-resume").chain(line.iter().copied()),
            ) {
                Ok(super::Cli {
                    command: super::Command::Init(args),
                    ..
                }) if line.len() == 2 => Some(args.shell),
                _ => None,
            };
            assert_eq!(
                super::init_only(words(&line).into_iter()),
                parsed,
                "{line:?}"
            );
        }
    }

    /// `take --now` shifts the clock posture is decided by: it is for
    /// tests, offered by no help text, and no integration script passes it
    /// (nor any word of its own choosing after `take`).
    #[test]
    fn take_offers_no_clock_and_the_integration_never_passes_one() {
        let mut cli = super::Cli::command();
        let help = cli
            .find_subcommand_mut("take")
            .expect("take is a command")
            .render_help()
            .to_string();
        assert!(!help.contains("--now"), "{help}");
        use crate::cmd::init::{script, Target};
        for target in [Target::Bash, Target::Zsh, Target::Fish] {
            let text = script(target).expect("a shell script renders");
            let takes: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with('#') && l.contains(" take"))
                .collect();
            assert!(!takes.is_empty(), "{target:?} takes");
            for line in takes {
                assert!(
                    !line.contains("--now") && !line.contains("now"),
                    "{target:?}: {line}"
                );
            }
        }
    }

    #[test]
    fn the_version_fast_path_prints_what_clap_would() {
        assert_eq!(super::VERSION_LINE, super::Cli::command().render_version());
    }
}
