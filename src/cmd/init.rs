//! `agent-resume init <shell>`: shell integration for
//! `eval "$(agent-resume init zsh)"`, or with `--rc-line` the startup-file
//! line that sources the file `agent-resume enable` keeps (no process at a
//! shell start). The scripts are the engine's
//! ([`agent_resume_engine::shell_init`]), with the binary's own path
//! embedded with the quoting every supported shell parses identically.

use std::process::ExitCode;

use agent_resume_engine::shell_init;
use agent_resume_tmux::{CLOCK_OPTION, RESTORING_OPTION, SAVING_OPTION};
use clap::ValueEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Target {
    Bash,
    Zsh,
    Fish,
    /// tmux hooks keeping the layout snapshot current; load with the one
    /// line `run-shell 'agent-resume init tmux | tmux source-file -'`.
    Tmux,
    /// The kitty.conf lines that put kitty's remote control on a socket of
    /// this user's (the shell integration saves the snapshot at each prompt).
    Kitty,
}

#[derive(clap::Args)]
pub struct Args {
    /// The shell to integrate with.
    pub shell: Target,
    /// Print the startup-file line instead: it sources the file
    /// `agent-resume enable` writes (and `disable` removes), so a shell
    /// start runs no process, and none at all with the feature off.
    #[arg(long)]
    pub rc_line: bool,
}

/// This binary's path, as the scripts run it.
pub fn bin() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.into_os_string().into_string().ok())
        .unwrap_or_else(|| "agent-resume".to_owned())
}

fn shell_of(target: Target) -> Option<agent_resume_core::Shell> {
    match target {
        Target::Bash => Some(agent_resume_core::Shell::Bash),
        Target::Zsh => Some(agent_resume_core::Shell::Zsh),
        Target::Fish => Some(agent_resume_core::Shell::Fish),
        Target::Tmux | Target::Kitty => None,
    }
}

/// `init <shell> --rc-line`: the line for the shell's startup file.
pub fn rc_line(target: Target) -> anyhow::Result<String> {
    let shell = shell_of(target).unwrap_or(agent_resume_core::Shell::Sh);
    Ok(shell_init::startup_line(shell)?)
}

/// The script for `target`, with the binary path and command words filled in.
/// `init kitty` fails when its socket directory is not private.
pub fn script(target: Target) -> anyhow::Result<String> {
    let Some(shell) = shell_of(target) else {
        return match target {
            Target::Kitty => kitty_conf(),
            _ => Ok(tmux_hooks()),
        };
    };
    // The private directory prompts are published in, named only: a shell
    // start makes nothing (`enable` and a tmux server's start make it).
    Ok(shell_init::script(
        shell,
        &bin(),
        shell_init::prompt_path().as_deref(),
    ))
}

/// The kitty.conf lines: remote control on a socket in
/// `$XDG_STATE_HOME/agent-resume/kitty` (made 0700, checked private), named
/// by its concrete path — kitty leaves an unset `${XDG_RUNTIME_DIR}`
/// unexpanded and then does not start, or starts in a directory someone
/// else made — and one socket per instance (kitty appends `-<its pid>`);
/// `socket-only` refuses remote control from programs in windows that do
/// not use that socket.
///
/// Then `startup_session`, naming a session file of one window written
/// beside the socket, `launch <agent-resume> kitty start`: kitty started
/// as usual restores the kitty saved last, or that window becomes the
/// shell (`agent_resume_kitty::start`).
fn kitty_conf() -> anyhow::Result<String> {
    let dir = crate::paths::state()?.join("kitty");
    let listen_on = agent_resume_kitty::listen_on_line(&dir)?;
    let bin = bin();
    let startup = agent_resume_kitty::start::startup_line(&dir, &bin)?;
    let watcher = agent_resume_kitty::watcher::watcher_line(&dir, &bin)?;
    Ok(format!(
        "{KITTY_CONF}{listen_on}{STARTUP_CONF}{startup}{WATCHER_CONF}{watcher}"
    ))
}

/// The comment before `startup_session`.
pub const STARTUP_CONF: &str = "\
# agent-resume: kitty started as usual (a launcher, `kitty`) restores the
# kitty saved last; with nothing to restore the window is your shell.
";

/// The kitty.conf lines before `listen_on`.
pub const KITTY_CONF: &str = "\
# agent-resume: kitty remote control on a socket of yours; the shell
# integration saves the kitty snapshot when its directory changes.
allow_remote_control socket-only
";

/// The comment before `watcher`.
pub const WATCHER_CONF: &str = "\
# agent-resume: kitty's layout events (a window closed, split, moved or
# focused) save the snapshot; a prompt with nothing changed runs nothing.
";

/// tmux events after which the snapshot is saved again.
pub const TMUX_EVENTS: &[&str] = agent_resume_tmux::doctor::SAVE_EVENTS;

/// How long a hook's pending save keeps the other hooks from starting
/// another, at most (the save clears it as soon as it lists the panes).
const SAVE_PENDING_SECS: u32 = 10;

/// How long a server's start keeps the hooks quiet at most, should its
/// `tmux start` never run or never end.
const START_QUIET_SECS: u32 = 60;

/// The tmux configuration: one indexed hook per event (re-sourcing replaces
/// rather than duplicates). The binary path is used only when it needs no
/// quoting inside tmux's own quotes; otherwise `agent-resume` from `PATH`.
///
/// A hook starts a save only when no save is pending and no restore is
/// making panes: both are server options holding a deadline in seconds
/// since the epoch ([`SAVING_OPTION`], [`RESTORING_OPTION`]), compared with
/// tmux's own clock (`#{T:…}` expands `%s` through strftime), so a save
/// that never ran or a restore that died silences the hooks only until its
/// deadline. A burst of events starts one save; the restore saves once
/// itself.
fn tmux_hooks() -> String {
    let bin = Some(bin())
        .filter(|p| {
            p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b))
        })
        .unwrap_or_else(|| "agent-resume".to_owned());
    let now = format!("#{{T:{CLOCK_OPTION}}}");
    let due = format!(
        "#{{&&:#{{e|>=:{now},#{{{RESTORING_OPTION}}}}},#{{e|>=:{now},#{{{SAVING_OPTION}}}}}}}"
    );
    let mut out = String::from(
        "# agent-resume: keep the tmux layout snapshot current, one save at a time.\n",
    );
    out.push_str(&format!("set -g {CLOCK_OPTION} '%s'\n"));
    // A server not restored yet keeps the hooks quiet until its start's
    // restore has read the dead server's snapshot.
    out.push_str(&agent_resume_tmux::start::init_lines(
        &bin,
        &now,
        START_QUIET_SECS,
    ));
    for event in TMUX_EVENTS {
        out.push_str(&format!(
            "set-hook -g '{event}[77]' {{ if -F '{due}' {{ \
             set -gF {SAVING_OPTION} '#{{e|+:{now},{SAVE_PENDING_SECS}}}' ; \
             run-shell -b '{bin} tmux save' }} }}\n"
        ));
    }
    out
}

/// Prints `target`'s script; also the answer of `main`'s fast path, before
/// the command line parser. A closed pipe ends it quietly.
pub fn run(target: Target, rc: bool) -> ExitCode {
    use std::io::Write as _;
    let text = if rc { rc_line(target) } else { script(target) };
    match text {
        Ok(text) => {
            let _closed = std::io::stdout().lock().write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("agent-resume: {why:#}");
            ExitCode::FAILURE
        }
    }
}
