//! `agent-resume tmux save` and `agent-resume tmux restore`: the tmux host.
//!
//! `save` gives every pane a stable id and stores a layout snapshot in the
//! database, in its own table, then records what each pane's agent shows
//! with no hook ([`crate::tmux_scan`]). `restore`
//! maps the snapshot onto the restore model, plans, arms and reports —
//! before any pane is created — then recreates what is missing
//! (`--recreate`), each pane started in its directory with its stable id set
//! as its tmux pane option in the same tmux command list that creates it
//! (and in its own spawn environment, never the session's), so its shell
//! integration takes the armed line at the first prompt. Panes that already exist (restored by tmux-resurrect, say)
//! are matched by session, window and pane index; where such a pane's shell
//! integration shows an empty, idle prompt (`agent_resume_tmux`'s `prompt`
//! module), a fixed command holding nothing but the validated pane id and
//! the history marker is typed into it; anywhere else nothing is typed and
//! the integration takes the armed line at the pane's next prompt.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;

use agent_resume_core::{quote, PaneId, PanePlan, PaneSpec, Shell, Verdict};
use agent_resume_store::Store;
use agent_resume_tmux::{
    layout_size, literal, shell_of, snapshot, to_layout, LivePane, Refused, Snapshot, Socket,
    Start, Tmux, Typed, Value, PROBE_PATIENCE,
};
use anyhow::{Context, Result};

use crate::paths::{self, Overrides};
use crate::restore::{arm_and_report, decide};
use crate::telemetry_file::{self, FileSink};
use crate::{config, when};

/// The host name of tmux's snapshot in the database.
const HOST: &str = "tmux";

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Give every pane a stable id and save the layout snapshot.
    Save(Server),
    /// Restore agent panes from the last snapshot.
    Restore(RestoreArgs),
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
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    match args.command {
        Sub::Save(s) => save(&s, o),
        Sub::Restore(r) => restore(&r, o),
    }
}

/// Gives panes without one a fresh stable id; returns the live panes.
///
/// Never the `AGENT_RESUME_PANE` a pane's process was started with: every
/// pane of a server started under an outer `AGENT_RESUME_PANE` inherits the
/// same one. A pane `restore` creates has its id from the command list that
/// created it, before anyone can list it.
pub fn ensure_ids(tmux: &Tmux) -> Result<Vec<LivePane>> {
    let mut live = tmux.list_panes()?;
    for p in live.iter_mut().filter(|p| p.stable_id.is_none()) {
        let id = PaneId::from_bytes(*uuid::Uuid::new_v4().as_bytes());
        p.stable_id = Some(tmux.claim_pane_id(&p.target, id)?);
    }
    Ok(live)
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
    let live = ensure_ids(tmux)?;
    let snap = snapshot(&live);
    let db = paths::db(o)?;
    let store =
        Store::open(&db).with_context(|| format!("recordings database {}", paths::show(&db)))?;
    let now = when::now();
    store.save_host_layout(HOST, &serde_json::to_string(&snap)?, now)?;
    // Zero-config capture: each pane's agent from its process tree, and an
    // ended agent's exit hint (crate::tmux_scan).
    // A capture that fails costs nothing of the snapshot, saved above.
    #[cfg(target_os = "linux")]
    if let Err(e) = crate::tmux_scan::capture(tmux, &live, &db, now) {
        eprintln!("agent-resume: tmux save: capture: {e:#}");
    }
    Ok(())
}

/// How a saved pane comes back in this restore.
enum Fate {
    /// Created now, in this directory (if it still exists).
    Create(Option<PathBuf>),
    /// Already there, a shell in front: typed into only at an empty, idle
    /// prompt.
    AtPrompt(String),
}

/// The command typed into an existing pane at its prompt: fixed text but for
/// the validated pane id; it carries the history marker.
fn take_command(bin: &str, pane: PaneId, shell: Shell) -> String {
    match shell {
        Shell::Fish => format!(" AGENT_RESUME_LINE=1 eval ({bin} take --pane {pane} --shell fish)"),
        Shell::Bash | Shell::Zsh | Shell::Sh => {
            format!(" AGENT_RESUME_LINE=1 eval \"$({bin} take --pane {pane} --shell {shell})\"")
        }
    }
}

fn restore(args: &RestoreArgs, o: &Overrides) -> Result<ExitCode> {
    let gate = config::gate_quiet(o);
    if !gate.enabled {
        eprintln!(
            "agent-resume: disabled ({}); nothing restored",
            config::source_text(gate.source)
        );
        return Ok(ExitCode::SUCCESS);
    }
    let plans = restore_server(&args.server.tmux(), args.recreate, args.dry_run, o)?;
    super::plan::print(&plans, args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// The restore itself (the feature flag already checked): plan, and unless
/// `dry_run`, arm, report, recreate and dispatch. Returns the decisions.
pub fn restore_server(
    tmux: &Tmux,
    recreate: bool,
    dry_run: bool,
    o: &Overrides,
) -> Result<Vec<PanePlan>> {
    let db = paths::db(o)?;
    // The snapshot decides what is created and typed: it passes the same
    // trust check as recordings, and an untrusted database yields nothing.
    let saved = match agent_resume_store::OpenOptions::default()
        .inspect(&db)?
        .map(|s| s.host_layout(HOST))
    {
        Some(Ok(saved)) => saved,
        Some(Err(why)) => {
            eprintln!("agent-resume: recordings database not trusted ({why}); nothing restored, recreated or typed");
            return Ok(Vec::new());
        }
        None => None,
    };
    let Some((text, _)) = saved else {
        eprintln!("agent-resume: no saved tmux layout (run `agent-resume tmux save`, or add the `init tmux` line)");
        return Ok(Vec::new());
    };
    let snap: Snapshot =
        serde_json::from_str(&text).context("the saved tmux layout does not parse")?;
    let live = if tmux.running() {
        tmux.list_panes()?
    } else {
        Vec::new()
    };
    let at: BTreeMap<(&str, u32, u32), &LivePane> = live
        .iter()
        .map(|p| ((p.session.as_str(), p.window_index, p.pane_index), p))
        .collect();
    let default_shell = tmux
        .default_shell()
        .as_deref()
        .and_then(shell_of)
        .unwrap_or(Shell::Bash);

    let mut fates: BTreeMap<PaneId, Fate> = BTreeMap::new();
    let mut refused: BTreeMap<Refused, usize> = BTreeMap::new();
    let (layout, placed) = to_layout(&snap, |s, w, p| {
        let spec = |cwd: Option<PathBuf>, shell| PaneSpec {
            id: p.id,
            cwd,
            shared_viewer: false,
            shell,
            has_input: false,
            queued_command: false,
        };
        match at.get(&(s.name.as_str(), w.index, p.index)) {
            // A pane that never died, or another pane in its place: not ours to restore.
            Some(l) if l.stable_id.is_some() => None,
            // Restored by someone else (tmux-resurrect): only at a prompt.
            Some(l) => {
                let shell = shell_of(&l.command)?;
                fates.insert(p.id, Fate::AtPrompt(l.target.clone()));
                Some(spec(Some(l.cwd.clone()), shell))
            }
            None if recreate => {
                // A session name or directory tmux cannot hold exactly is
                // never handed to it: the pane is left out of the restore
                // (nothing armed, nothing created).
                if let Err(r) = recreatable(&s.name, &p.cwd) {
                    *refused.entry(r).or_default() += 1;
                    return None;
                }
                // Started in its saved directory when it still exists; the
                // plan checks the directory either way (`directory_gone`).
                fates.insert(p.id, Fate::Create(p.cwd.is_dir().then(|| p.cwd.clone())));
                Some(spec(Some(p.cwd.clone()), p.shell.unwrap_or(default_shell)))
            }
            None => None,
        }
    });
    for (r, n) in &refused {
        eprintln!("agent-resume: {n} saved pane(s) not recreated: {r}");
    }
    let keep: HashSet<PaneId> = snap
        .sessions
        .iter()
        .flat_map(|s| s.windows.iter().flat_map(|w| w.panes.iter().map(|p| p.id)))
        .chain(live.iter().filter_map(|p| p.stable_id))
        .collect();
    let now = when::now();
    let decided = decide(o, &layout, now, true, (!dry_run).then_some(&keep))?;
    for w in &decided.warnings {
        eprintln!("agent-resume: {w}");
    }
    if dry_run {
        return Ok(decided.plans);
    }
    // Arm before any pane exists: a new pane's first prompt takes its line.
    let mut sink = FileSink::new(telemetry_file::path()?);
    arm_and_report(&decided, &layout, now, &mut sink);

    if recreate {
        // Sessions the server still has (listed once, before anything is made).
        let existing: BTreeSet<&str> = live.iter().map(|p| p.session.as_str()).collect();
        recreate_missing(tmux, &snap, &fates, &existing);
    }
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| p.into_os_string().into_string().ok())
        .and_then(|p| quote(&p).ok())
        .unwrap_or_else(|| "agent-resume".to_owned());
    for p in &decided.plans {
        let (Verdict::Resume(_), Some(Fate::AtPrompt(target))) = (&p.verdict, fates.get(&p.pane))
        else {
            continue;
        };
        let Some(spec) = placed.iter().find(|x| x.spec.id == p.pane) else {
            continue;
        };
        // Typed only into an empty, idle prompt; otherwise the line stays
        // armed and the pane's integration takes it at its next prompt.
        let line = take_command(&bin, p.pane, spec.spec.shell);
        let why = match tmux.type_at_idle_prompt(target, &line, PROBE_PATIENCE) {
            Ok(Typed::Sent) => continue,
            Ok(Typed::Refused(why)) => why.to_string(),
            Err(e) => e.to_string(),
        };
        let left = match tmux.leave_pending(target, p.pane) {
            Ok(()) => "left armed for its next prompt",
            Err(_) => "left armed",
        };
        eprintln!("agent-resume: nothing typed into a pane ({why}); {left}");
    }
    Ok(decided.plans)
}

/// Whether a saved pane can be recreated exactly: its session name and its
/// directory both pass the tmux value boundary.
fn recreatable(session: &str, cwd: &std::path::Path) -> Result<(), Refused> {
    literal(Value::SessionName, session.as_ref())?;
    literal(Value::Directory, cwd.as_os_str())?;
    Ok(())
}

/// Recreates every missing saved session, window and pane, in index order,
/// then restores window layouts and the current window and pane.
fn recreate_missing(
    tmux: &Tmux,
    snap: &Snapshot,
    fates: &BTreeMap<PaneId, Fate>,
    existing: &BTreeSet<&str>,
) {
    for s in &snap.sessions {
        let mut session_made = existing.contains(s.name.as_str());
        let mut active_target = None;
        for w in &s.windows {
            let mut window_target: Option<String> = None;
            for p in &w.panes {
                let Some(Fate::Create(cwd)) = fates.get(&p.id) else {
                    continue;
                };
                let start = Start {
                    id: p.id,
                    cwd: cwd.as_deref(),
                    shell: p.shell,
                    name: None,
                };
                let made = match (&window_target, session_made) {
                    (Some(t), _) => tmux.split(t, &start).inspect(|_| {
                        // Spread the panes so the next split has room.
                        let _ = tmux.select_layout(&s.name, w.index, "tiled");
                    }),
                    (None, false) => {
                        tmux.new_session(&s.name, w.index, layout_size(&w.layout), &start)
                    }
                    (None, true) => tmux.new_window(&s.name, w.index, &start),
                };
                // One pane that cannot be made never costs the others.
                let target = match made {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("agent-resume: a pane was not recreated ({e})");
                        continue;
                    }
                };
                session_made = true;
                if w.index == s.active_window && p.index == w.active_pane {
                    active_target = Some(target.clone());
                }
                window_target.get_or_insert(target);
            }
            if window_target.is_some() && w.panes.len() > 1 {
                if let Err(e) = tmux.select_layout(&s.name, w.index, &w.layout) {
                    eprintln!("agent-resume: window layout not restored ({e})");
                }
            }
        }
        if session_made {
            let _ = tmux.select(&s.name, s.active_window, active_target.as_deref());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typed_take_command_holds_only_the_pane_id_and_the_marker() {
        let pane = PaneId::from_bytes([7; 16]);
        for shell in Shell::VARIANTS {
            let line = take_command("'/usr/bin/agent-resume'", pane, *shell);
            assert!(line.starts_with(" AGENT_RESUME_LINE=1 "));
            assert!(!line.chars().any(char::is_control));
            let rest = line
                .replace(&pane.to_string(), "")
                .replace("'/usr/bin/agent-resume'", "");
            assert!(
                rest.chars()
                    .all(|c| c.is_ascii_alphanumeric() || " =-_()$\"".contains(c)),
                "{line}"
            );
        }
    }
}
