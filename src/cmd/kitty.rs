//! `agent-resume kitty save` and `kitty session`: the kitty host.
//!
//! `save` lists the kitty it runs in (`$KITTY_LISTEN_ON`, or `--to`) over
//! remote control and stores its snapshot in the database, one per kitty
//! instance (key `kitty:` and its socket), keeping each window's pane id
//! across saves (`agent_resume_kitty::snapshot`). The shell integration runs
//! it in the background at every prompt inside kitty, so the snapshot is
//! current while kitty runs, whatever way kitty ends. A socket that is not
//! this user's own is never asked (`agent_resume_kitty::examine`), and no
//! window takes the pane id kitty itself inherited.
//!
//! `session` takes the snapshot saved last (trust-checked like recordings),
//! maps it onto the restore model, plans, arms and reports — before any
//! window exists — and writes a kitty session file (`-o`, default
//! `$XDG_STATE_HOME/agent-resume/kitty.session`) that brings back every OS
//! window, tab, layout, directory and focus, each window's shell started
//! with its pane id in `AGENT_RESUME_PANE`; each shell takes its armed line
//! at its first prompt. `--dry-run` plans the same and changes nothing: no
//! file written, nothing armed or swept, no telemetry.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_core::{PaneId, PanePlan, Shell};

use super::plan::Place;
use agent_resume_kitty::{
    examine, session_file, shell_of, snapshot, to_layout, Kitty, Snapshot, PANE_ENV,
};
use agent_resume_store::Store;
use anyhow::{bail, Context, Result};

use crate::paths::{self, Overrides};
use crate::restore::{arm_and_report, decide};
use crate::telemetry_file::{self, FileSink};
use crate::{config, when};

/// The prefix of a kitty instance's snapshot key: `kitty:` and its socket.
const HOST: &str = "kitty:";

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Save the snapshot of the kitty this runs in.
    Save(SaveArgs),
    /// Plan, arm and write a kitty session file from the last snapshot.
    Session(SessionArgs),
    /// Save, then print the pane id of this kitty window (the shell
    /// integration asks once per window).
    #[command(hide = true)]
    Pane(PaneArgs),
}

#[derive(clap::Args)]
struct PaneArgs {
    /// kitty's remote-control address (`unix:PATH`).
    #[arg(long, value_name = "ADDRESS", env = "KITTY_LISTEN_ON")]
    to: Option<OsString>,
    /// kitty's id of the window.
    #[arg(long, value_name = "ID", env = "KITTY_WINDOW_ID")]
    window: u64,
}

#[derive(clap::Args)]
struct SaveArgs {
    /// kitty's remote-control address (`unix:PATH`).
    #[arg(long, value_name = "ADDRESS", env = "KITTY_LISTEN_ON")]
    to: Option<OsString>,
}

#[derive(clap::Args)]
struct SessionArgs {
    /// Where to write the session file.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Plan and print only: write no file, arm nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the plan as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    match args.command {
        Sub::Save(s) => save(&s, o),
        Sub::Session(s) => session(&s, o),
        Sub::Pane(p) => pane(&p, o),
    }
}

/// The kitty program (`AGENT_RESUME_KITTY`, else `kitty` from `PATH`).
fn program() -> OsString {
    std::env::var_os("AGENT_RESUME_KITTY")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "kitty".into())
}

fn save(args: &SaveArgs, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::SUCCESS);
    }
    save_instance(args.to.as_ref(), o)?;
    Ok(ExitCode::SUCCESS)
}

fn pane(args: &PaneArgs, o: &Overrides) -> Result<ExitCode> {
    if !config::gate_quiet(o).enabled {
        return Ok(ExitCode::FAILURE);
    }
    let snap = save_instance(args.to.as_ref(), o)?;
    let id = snap
        .windows()
        .find(|w| w.kitty_id == args.window)
        .map(|w| w.id);
    match id {
        Some(id) => {
            println!("{id}");
            Ok(ExitCode::SUCCESS)
        }
        None => Ok(ExitCode::FAILURE),
    }
}

/// Lists the kitty at `to` and stores its snapshot, under a lock shared by
/// every save (concurrent saves would mint different ids for one window).
/// A socket that is not this user's own is refused before kitty is asked
/// anything, and the lock is taken only beside a trusted database.
pub fn save_instance(to: Option<&OsString>, o: &Overrides) -> Result<Snapshot> {
    let Some(to) = to.filter(|t| !t.is_empty()) else {
        bail!("no kitty to save: $KITTY_LISTEN_ON is unset (add `listen_on` to kitty.conf, see `agent-resume init kitty`)");
    };
    let Some(key) = to.to_str().map(|t| format!("{HOST}{t}")) else {
        bail!("the kitty address is not UTF-8");
    };
    let listener = examine(to).map_err(|why| {
        anyhow::anyhow!(
            "kitty socket not trusted: {why}; nothing saved (see `agent-resume init kitty`)"
        )
    })?;
    let db = paths::db(o)?;
    let store =
        Store::open(&db).with_context(|| format!("recordings database {}", paths::show(&db)))?;
    let _lock = store.lock_beside("kitty.lock").context("no kitty saved")?;
    let ls = Kitty::new(program(), to).ls()?;
    let previous: Option<Snapshot> = store
        .host_layout(&key)
        .map_err(|why| anyhow::anyhow!("recordings database not trusted ({why})"))?
        .and_then(|(text, _)| serde_json::from_str(&text).ok());
    let snap = snapshot(&ls, previous.as_ref(), listener.inherited(), || {
        PaneId::from_bytes(*uuid::Uuid::new_v4().as_bytes())
    });
    store.save_host_layout(&key, &serde_json::to_string(&snap)?, when::now())?;
    Ok(snap)
}

/// How many of the most recently saved kitty instances are asked whether
/// they still run.
const LIVE_CHECKED: usize = 8;

/// The snapshot saved last, of any kitty instance, less the windows that
/// still run in a kitty that answers (one started by an earlier session, a
/// second instance): those are never restored twice. `Err` with why there
/// is nothing to restore.
fn last_snapshot(o: &Overrides) -> Result<std::result::Result<Snapshot, String>> {
    let db = paths::db(o)?;
    let Some(store) = agent_resume_store::OpenOptions::default().inspect(&db)? else {
        return Ok(Err(
            "no kitty saved (see `agent-resume init kitty`)".to_owned()
        ));
    };
    let mut saved = match store.host_layouts(HOST) {
        Ok(saved) => saved,
        Err(why) => {
            eprintln!("agent-resume: recordings database not trusted ({why}); nothing restored");
            return Ok(Err("the recordings database is not trusted".to_owned()));
        }
    };
    saved.sort_by_key(|(_, at)| std::cmp::Reverse(*at));
    let read = |key: &str| -> Option<Snapshot> {
        let (text, _) = store.host_layout(key).ok()??;
        serde_json::from_str(&text).ok()
    };
    let Some(mut snap) = saved.first().and_then(|(key, _)| read(key)) else {
        return Ok(Err(
            "no kitty saved (see `agent-resume init kitty`)".to_owned()
        ));
    };
    // Pane ids of windows that run now: a running instance's listed
    // `AGENT_RESUME_PANE`s and the ids its own snapshot gave its windows.
    // A socket that is not this user's own is not asked: its listener
    // could say any window runs.
    let mut live: HashSet<PaneId> = HashSet::new();
    let mut refused = None;
    for (key, _) in saved.iter().take(LIVE_CHECKED) {
        let Some(to) = key.strip_prefix(HOST) else {
            continue;
        };
        let listener = match examine(to.as_ref()) {
            Ok(listener) => listener,
            Err(agent_resume_kitty::Untrusted::Unexamined) => continue,
            Err(why) => {
                refused.get_or_insert(why);
                continue;
            }
        };
        let Ok(ls) = Kitty::new(program(), to).ls() else {
            continue;
        };
        let inherited = listener.inherited();
        let windows = ls.iter().flat_map(|o| &o.tabs).flat_map(|t| &t.windows);
        live.extend(
            windows
                .filter_map(|w| w.env.get(PANE_ENV))
                .filter_map(|v| v.parse::<PaneId>().ok())
                .filter(|id| !inherited.is(*id)),
        );
        if let Some(theirs) = read(key) {
            let running: HashSet<(u64, Option<u32>)> = ls
                .iter()
                .flat_map(|o| &o.tabs)
                .flat_map(|t| &t.windows)
                .map(|w| (w.id, w.pid))
                .collect();
            live.extend(
                theirs
                    .windows()
                    .filter(|w| running.contains(&(w.kitty_id, w.pid)))
                    .map(|w| w.id),
            );
        }
    }
    if let Some(why) = refused {
        eprintln!("agent-resume: a saved kitty's socket is not trusted ({why}); its windows are not counted as running");
    }
    for o in &mut snap.os_windows {
        for t in &mut o.tabs {
            let active = t.windows.get(t.active_window).map(|w| w.id);
            t.windows.retain(|w| !live.contains(&w.id));
            t.active_window = t
                .windows
                .iter()
                .position(|w| Some(w.id) == active)
                .unwrap_or(0);
        }
        // The active tab keeps its place among the tabs that remain.
        let active = o
            .tabs
            .iter()
            .take(o.active_tab)
            .filter(|t| !t.windows.is_empty())
            .count();
        let active_kept = o
            .tabs
            .get(o.active_tab)
            .is_some_and(|t| !t.windows.is_empty());
        o.tabs.retain(|t| !t.windows.is_empty());
        o.active_tab = if active_kept { active } else { 0 };
    }
    snap.os_windows.retain(|o| !o.tabs.is_empty());
    if snap.os_windows.is_empty() {
        return Ok(Err("every saved kitty window is running".to_owned()));
    }
    Ok(Ok(snap))
}

fn session(args: &SessionArgs, o: &Overrides) -> Result<ExitCode> {
    let output = match &args.output {
        Some(p) => p.clone(),
        None => paths::state()?.join("kitty.session"),
    };
    let made = write_session(&output, args.dry_run, o)?;
    super::plan::print(&made.plans, &made.places, &made.nothing, args.json)?;
    if !args.dry_run {
        eprintln!("session: kitty --session {}", paths::show(&output));
    }
    Ok(ExitCode::SUCCESS)
}

/// What a `kitty session` decided.
pub struct Made {
    /// Every planned window.
    pub plans: Vec<PanePlan>,
    /// Where each sits (`w<window>.t<tab>.p<window>`) and its directory.
    pub places: HashMap<PaneId, Place>,
    /// Why nothing is restored, when `plans` is empty.
    pub nothing: String,
}

/// Plans the last snapshot and, unless `dry_run`, arms, reports and writes
/// the session file to `output` (a file with no window when there is
/// nothing to restore: kitty then starts one plain shell).
pub fn write_session(output: &Path, dry_run: bool, o: &Overrides) -> Result<Made> {
    let gate = config::gate_quiet(o);
    let snap = if gate.enabled {
        last_snapshot(o)?
    } else {
        Err(format!("disabled ({})", config::source_text(gate.source)))
    };
    let snap = match snap {
        Ok(snap) => snap,
        Err(why) => {
            if !dry_run {
                write(
                    output,
                    "# kitty session written by agent-resume: nothing to restore\n",
                )?;
            }
            return Ok(Made {
                plans: Vec::new(),
                places: HashMap::new(),
                nothing: why,
            });
        }
    };
    // The shell kitty starts in a window: `$SHELL`, else bash (as kitty
    // falls back when it has no shell); one agent-resume cannot drive is
    // planned as `shell_unsupported`.
    let default_shell = match std::env::var("SHELL") {
        Ok(program) if !program.is_empty() => shell_of(&program),
        _ => Some(Shell::Bash),
    };
    let layout = to_layout(&snap, default_shell);
    let places = super::plan::places_of(&layout);
    let keep: HashSet<PaneId> = snap.windows().map(|w| w.id).collect();
    let now = when::now();
    let decided = decide(o, &layout, now, true, (!dry_run).then_some(&keep))?;
    for w in &decided.warnings {
        eprintln!("agent-resume: {w}");
    }
    if !dry_run {
        // Armed before the file exists: no shell of it can prompt first.
        let mut sink = FileSink::new(telemetry_file::path()?);
        arm_and_report(&decided, now, &mut sink, None);
        let home = std::env::var_os("HOME").unwrap_or_else(|| "/".into());
        // A directory gone since the save is not handed to kitty: that
        // window comes back as a plain shell in the fallback directory.
        let mut snap = snap;
        for o in &mut snap.os_windows {
            for t in &mut o.tabs {
                for w in &mut t.windows {
                    if !Path::new(&w.cwd).is_dir() {
                        w.cwd.clear();
                    }
                }
            }
        }
        let written = session_file(&snap, &home);
        for (_, why) in &written.refused {
            if why.why != agent_resume_kitty::Refusal::Empty {
                eprintln!("agent-resume: a window comes back as a plain shell: {why}");
            }
        }
        write(output, &written.text)?;
    }
    Ok(Made {
        plans: decided.plans,
        places,
        nothing: "the saved kitty has no window".to_owned(),
    })
}

/// Writes the session file (its directory made when missing).
fn write(path: &std::path::Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot make {}", paths::show(dir)))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", paths::show(path)))
}
