//! `agent-resume tmux save`, `tmux restore` and `tmux servers`: the tmux
//! host's arguments and output. What the host does — stable ids, the
//! snapshot, the restore model, recreation and typing the take command —
//! is `agent_resume_tmux::host`; the restore sequence is the engine's
//! (`agent_resume_engine::restore::run`). `save` also records what each
//! pane's agent shows with no hook ([`crate::tmux_scan`]).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_core::quote;
use agent_resume_engine::host::this_program;
use agent_resume_engine::restore::{self, Report, RunOptions};
use agent_resume_tmux::host;
use agent_resume_tmux::{LivePane, Socket, Tmux};
use anyhow::Result;

use crate::paths::{self, Overrides};
use crate::{config, when};

pub use agent_resume_tmux::host::server_key;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Give every pane a stable id and save the layout snapshot.
    Save(Server),
    /// Restore agent panes from the server's last snapshot.
    Restore(RestoreArgs),
    /// List the tmux servers with a saved snapshot, and how old each is.
    Servers,
    /// What the `init tmux` line runs when a server starts: restores the
    /// server's saved layout once, by the `restore` setting. Prints
    /// nothing; its notes go to `restore.log` in the state directory.
    Start(Server),
}

#[derive(clap::Args)]
struct Server {
    /// tmux socket name (`tmux -L`).
    #[arg(short = 'L', value_name = "NAME", conflicts_with = "socket_path")]
    socket_name: Option<String>,
    /// tmux socket path (`tmux -S`).
    #[arg(short = 'S', value_name = "PATH")]
    socket_path: Option<PathBuf>,
}

impl Server {
    fn tmux(&self) -> Tmux {
        Tmux::new(match (&self.socket_name, &self.socket_path) {
            (Some(n), _) => Socket::Name(n.clone()),
            (None, Some(p)) => Socket::Path(p.clone()),
            (None, None) => Socket::Default,
        })
    }
}

#[derive(clap::Args)]
struct RestoreArgs {
    #[command(flatten)]
    server: Server,
    /// Recreate the saved sessions, windows and panes that are missing.
    #[arg(long)]
    recreate: bool,
    /// Show the plan; create, arm and type nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the plan as JSON.
    #[arg(long)]
    json: bool,
    /// Follow the resumed agents until each is confirmed on its
    /// conversation (or not), one line per pane and a summary (the default
    /// when stdout is a terminal).
    #[arg(long, conflicts_with = "no_wait")]
    wait: bool,
    /// Return once the panes are made and armed.
    #[arg(long)]
    no_wait: bool,
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    match args.command {
        Sub::Save(s) => save(&s, o),
        Sub::Restore(r) => restore(&r, o),
        Sub::Servers => servers(o),
        Sub::Start(s) => start(&s, o),
    }
}

fn save(server: &Server, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::SUCCESS);
    }
    save_server(&server.tmux(), o)?;
    Ok(ExitCode::SUCCESS)
}

/// Gives every pane a stable id, stores the snapshot, and captures what
/// the panes' agents show with no hook (the feature flag already checked).
pub fn save_server(tmux: &Tmux, o: &Overrides) -> Result<()> {
    // Zero-config capture: each pane's agent from its process tree, and an
    // ended agent's exit hint (crate::tmux_scan). A capture that fails
    // costs nothing of the snapshot, saved before it.
    #[cfg(target_os = "linux")]
    let mut capture = |tmux: &Tmux, live: &[LivePane], db: &Path, key: &str, now| {
        if let Err(e) = crate::tmux_scan::capture(tmux, live, db, key, now) {
            eprintln!("agent-resume: tmux save: capture: {e:#}");
        }
    };
    #[cfg(target_os = "linux")]
    let capture: Option<host::Capture<'_>> = Some(&mut capture);
    #[cfg(not(target_os = "linux"))]
    let capture = None;
    host::save_server(tmux, o, capture)?;
    Ok(())
}

/// `word` as a shell reads it back: as it is when it holds only characters
/// no shell treats specially, else quoted.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.starts_with(['-', '~'])
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./:@%+,".contains(&b));
    if plain {
        return word.to_owned();
    }
    quote(word).unwrap_or_else(|_| paths::escape(word))
}

/// The `-L`/`-S` flags that name a server by its key, quoted for a shell.
fn server_flags(key: &str) -> String {
    let (flag, value) = if key.starts_with('/') {
        ("-S", key)
    } else {
        ("-L", key)
    };
    format!("{flag} {}", shell_word(value))
}

/// `tmux servers`: every server with a saved snapshot, its age and the
/// command that restores it.
fn servers(o: &Overrides) -> Result<ExitCode> {
    let saved = host::list_servers(o, &mut |m| eprintln!("agent-resume: {m}"))?;
    let mut out = std::io::stdout().lock();
    if saved.is_empty() {
        writeln!(
            out,
            "no tmux server saved (the `init tmux` line saves on every layout change)"
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let now = when::now();
    let rows: Vec<(String, String, String)> = saved
        .iter()
        .map(|(key, at)| {
            (
                paths::escape(key),
                super::sessions::age(*at, now),
                format!("agent-resume tmux restore {}", server_flags(key)),
            )
        })
        .collect();
    let w = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    writeln!(out, "{:<w$}  {:<5}  restore with", "server", "saved")?;
    for (key, age, cmd) in &rows {
        writeln!(out, "{key:<w$}  {age:<5}  {cmd}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn restore(args: &RestoreArgs, o: &Overrides) -> Result<ExitCode> {
    let tmux = args.server.tmux();
    let restored = restore_server(tmux.clone(), args.recreate, args.dry_run, o)?;
    if !restored.gate.enabled {
        eprintln!(
            "agent-resume: disabled ({}); nothing restored",
            config::source_text(restored.gate.source)
        );
        return Ok(ExitCode::SUCCESS);
    }
    super::plan::print(
        &restored.plans,
        &restored.places,
        &restored.nothing,
        args.json,
    )?;
    if let Some(session) = &restored.attach {
        let line = attach_line(tmux.socket(), session);
        if args.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    let wait = args.wait || (!args.no_wait && !args.json && std::io::stdout().is_terminal());
    if wait && !args.dry_run {
        if let Some(queue) = &restored.queue {
            restore::log::follow(queue, &restored.places, o, &when::now, &mut |line| {
                println!("{line}")
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The restore sequence over this server, its notes on stderr and its
/// telemetry in the telemetry file.
pub fn restore_server(tmux: Tmux, recreate: bool, dry_run: bool, o: &Overrides) -> Result<Report> {
    let opts = RunOptions {
        recreate,
        dry_run,
        now: when::now(),
        program: this_program(),
    };
    Ok(agent_resume_tmux::start::restore(
        tmux,
        o,
        &opts,
        restore::Telemetry::File,
        &mut |m| eprintln!("agent-resume: {m}"),
    )?)
}

/// `tmux start`: the server's restore at its start. Run in the background
/// by tmux, whose job output is no place for notes: they go to the log.
fn start(server: &Server, o: &Overrides) -> Result<ExitCode> {
    let mut log = restore::log::Log::open();
    let outcome = agent_resume_tmux::start::start(
        server.tmux(),
        o,
        this_program(),
        when::now,
        restore::Telemetry::File,
        &mut |m| log.line(m),
    );
    match outcome {
        Ok(done) => {
            log.line(&done.describe());
            if let agent_resume_tmux::start::Started::Restored(report) = &done {
                if let Some(queue) = &report.queue {
                    restore::log::follow(queue, &report.places, o, &when::now, &mut |m| {
                        log.line(m)
                    });
                }
            }
        }
        Err(e) => log.line(&format!("tmux start: {}", config::chain(&e))),
    }
    Ok(ExitCode::SUCCESS)
}

/// The one line that says how to attach to a recreated session, every
/// word quoted for a shell.
fn attach_line(socket: &Socket, session: &str) -> String {
    let q = shell_word;
    let server = match socket {
        Socket::Default => String::new(),
        Socket::Name(n) => format!(" -L {}", q(n)),
        Socket::Path(p) => format!(" -S {}", q(&paths::show(p))),
    };
    // A name tmux would read as a flag is given as an exact-match target.
    let target = if session.starts_with('-') {
        format!("={session}")
    } else {
        session.to_owned()
    };
    format!("attach: tmux{server} attach -t {}", q(&target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attach_line_quotes_each_word_a_shell_would_read_otherwise() {
        assert_eq!(
            attach_line(&Socket::Name("work".into()), "main"),
            "attach: tmux -L work attach -t main"
        );
        assert_eq!(
            attach_line(&Socket::Default, "my $HOME; rm"),
            "attach: tmux attach -t 'my $HOME; rm'"
        );
        assert_eq!(
            attach_line(&Socket::Path("/tmp/a b/s".into()), "-x"),
            "attach: tmux -S '/tmp/a b/s' attach -t '=-x'"
        );
    }
}
