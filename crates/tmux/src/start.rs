//! A tmux server's restore, once: [`restore()`] (what `agent-resume tmux
//! restore` runs) and [`start()`] (what the `init tmux` line runs, in the
//! background, when a server starts).
//!
//! Typing `tmux` after a reboot is the whole restore. The `init tmux`
//! configuration, when it finds the server not yet marked
//! ([`STARTED_OPTION`]), quiets the save hooks and starts [`start`]: the
//! snapshot of the dead server on the same socket is still the one saved,
//! so nothing of it is lost to a save of the new, nearly empty server.
//! [`start`] then decides, by the `restore` setting
//! ([`RestoreMode`]), whether to bring the saved sessions back.
//!
//! Exactly once per server: the mark is set and read in one tmux command
//! list ([`Tmux::mark_started`]), which the server runs whole before it
//! serves another client, so of two starts (a re-sourced config, two
//! clients at once) one restores. A restore of either kind holds a lock
//! beside the database while it runs, so `agent-resume tmux restore`
//! making a server (whose config then starts [`start`]) finishes first,
//! and marks the server, before [`start`] looks.
//!
//! The session the user's own `tmux` made is left alone when the saved
//! layout has one of its name (its pane is restored in place); otherwise
//! its clients are moved to the restored session that was last used, and
//! it is closed when its shell still sits at its first, empty prompt.
//!
//! With tmux-continuum's automatic restore on (`@continuum-restore` is
//! `on`), tmux-resurrect makes the panes: [`start`] waits until the
//! server's panes stop changing, then resumes agents only in the panes
//! that are there (no `--recreate`).

use std::time::{Duration, Instant};

use agent_resume_core::UnixMillis;
use agent_resume_engine::paths::{self, Overrides};
use agent_resume_engine::restore::{self, Report, RunError, RunOptions, Telemetry};
use agent_resume_engine::settings::{self, RestoreMode};
use agent_resume_store::Store;

use crate::host::TmuxHost;
use crate::{Tmux, TmuxError, RESTORING_OPTION, STARTED_OPTION};

/// The lock file beside the database a restore holds.
pub const LOCK: &str = "tmux-restore.lock";

/// The tmux-continuum option that turns its automatic restore on.
pub const CONTINUUM_RESTORE: &str = "@continuum-restore";

/// How long [`start`] waits for tmux-resurrect's panes to settle, at most.
const SETTLE_AT_MOST: Duration = Duration::from_secs(30);

/// How long the pane count must hold still to count as settled.
const SETTLED: Duration = Duration::from_secs(2);

/// Why a restore could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The restore sequence failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// tmux failed.
    #[error(transparent)]
    Tmux(#[from] TmuxError),
}

/// What [`start`] did.
#[derive(Debug)]
#[non_exhaustive]
pub enum Started {
    /// The feature is off: nothing was read or restored.
    Disabled,
    /// `restore = "manual"`: nothing restored.
    Manual,
    /// The server was restored into (or found with nothing to restore)
    /// before: nothing done.
    Already,
    /// The restore ran.
    Restored(Box<Report>),
}

impl Started {
    /// What the start did, in one line for the restore log.
    pub fn describe(&self) -> String {
        match self {
            Started::Disabled => "tmux start: disabled; nothing restored".to_owned(),
            Started::Manual => "tmux start: restore = \"manual\"; nothing restored".to_owned(),
            Started::Already => "tmux start: this server was restored before".to_owned(),
            Started::Restored(r) if r.plans.is_empty() => {
                format!("tmux start: nothing restored ({})", r.nothing)
            }
            Started::Restored(r) => format!(
                "tmux start: {} pane(s) planned, {} agent(s) armed",
                r.plans.len(),
                r.armed
            ),
        }
    }
}

/// Runs the restore sequence over `tmux`'s server with the lock held, and
/// marks the server restored when it runs after.
pub fn restore(
    tmux: Tmux,
    o: &Overrides,
    opts: &RunOptions,
    telemetry: Telemetry<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Report, StartError> {
    // Held to the end; a database that is not trusted gives no lock, and
    // the restore then restores nothing.
    let _lock = (!opts.dry_run).then(|| lock(o)).flatten();
    let mut host = TmuxHost::new(tmux, o.clone());
    let report = restore::run(&mut host, o, opts, telemetry, say)?;
    if !opts.dry_run && report.gate.enabled && host.tmux().running() {
        host.tmux().mark_started()?;
    }
    Ok(report)
}

/// The lock beside the database, when the database opens and is trusted.
fn lock(o: &Overrides) -> Option<std::fs::File> {
    let db = paths::db(o).ok()?;
    let store = Store::open(&db).ok()?;
    store.lock_beside(LOCK).ok()
}

/// The restore a server runs at its start (see the module docs): by the
/// `restore` setting, once per server, and always ending with the save
/// hooks' quiet cleared.
pub fn start(
    tmux: Tmux,
    o: &Overrides,
    program: String,
    now: impl Fn() -> UnixMillis,
    telemetry: Telemetry<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Started, StartError> {
    let outcome = start_inner(&tmux, o, program, &now, telemetry, say);
    // The hooks save again from here on — unless another restore, which
    // clears the quiet itself, marked the server.
    if !matches!(outcome, Ok(Started::Already)) {
        let _ = tmux.unset_global(RESTORING_OPTION);
    }
    outcome
}

fn start_inner(
    tmux: &Tmux,
    o: &Overrides,
    program: String,
    now: &dyn Fn() -> UnixMillis,
    telemetry: Telemetry<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Started, StartError> {
    if !settings::gate_quiet(o).enabled {
        return Ok(Started::Disabled);
    }
    // The shells' private prompt directory (also for a feature turned on
    // by the environment alone, which `enable` never saw).
    let _ = agent_resume_engine::shell_init::prompt_dir();
    // Held to the end: a `tmux restore` making this server finishes first.
    let _lock = lock(o);
    if settings::restore_settings(o).mode == RestoreMode::Manual {
        return Ok(Started::Manual);
    }
    if tmux.mark_started()? {
        return Ok(Started::Already);
    }
    let continuum = tmux.global_option(CONTINUUM_RESTORE)? == "on";
    if continuum {
        settle(tmux);
    }
    // The session the user's own `tmux` made, when it is the only one.
    let before = tmux.list_panes()?;
    let scratch = match before.as_slice() {
        [only] if only.stable_id.is_none() => Some(only.clone()),
        _ => None,
    };
    let mut host = TmuxHost::new(tmux.clone(), o.clone());
    let opts = RunOptions {
        recreate: !continuum,
        dry_run: false,
        now: now(),
        program,
    };
    let report = restore::run(&mut host, o, &opts, telemetry, say)?;
    if let (Some(scratch), Some(attach)) = (scratch, &report.attach) {
        let saved = report.places.values().any(|p| {
            matches!(&p.position, agent_resume_engine::host::Position::Session { session, .. }
                if *session == scratch.session)
        });
        if !saved && *attach != scratch.session {
            let fresh = crate::Prompts::here().is_some_and(|prompts| {
                tmux.at_first_prompt(&prompts, &scratch.target, crate::PROBE_PATIENCE)
                    .unwrap_or(false)
            });
            if let Err(e) = tmux.move_clients(&scratch.session, attach, fresh) {
                say(&format!("clients not moved to the restored session ({e})"));
            }
        }
    }
    Ok(Started::Restored(Box::new(report)))
}

/// Waits until the server's pane count holds still for [`SETTLED`], at
/// most [`SETTLE_AT_MOST`].
fn settle(tmux: &Tmux) {
    let deadline = Instant::now() + SETTLE_AT_MOST;
    let mut last = usize::MAX;
    let mut since = Instant::now();
    while Instant::now() < deadline {
        let count = tmux.list_panes().map_or(usize::MAX, |p| p.len());
        if count != last {
            last = count;
            since = Instant::now();
        } else if since.elapsed() >= SETTLED {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The `init tmux` lines that start [`start`] when the server is not yet
/// marked: the save hooks quiet for at most `quiet_secs`, then
/// `<bin> tmux start` in the background. `now` is the tmux format of the
/// time now in seconds.
pub fn init_lines(bin: &str, now: &str, quiet_secs: u32) -> String {
    format!(
        "if -F '#{{{STARTED_OPTION}}}' '' {{ \
         set -gF {RESTORING_OPTION} '#{{e|+:{now},{quiet_secs}}}' ; \
         run-shell -b '{bin} tmux start' }}\n"
    )
}
