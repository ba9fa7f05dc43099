//! Starting kitty as usual restores it: kitty.conf's `startup_session`
//! (from `agent-resume init kitty`) names a session file of one window,
//! `launch <agent-resume> kitty start`. That window decides, by the
//! `restore` setting and what is saved ([`start`]):
//!
//! - something to restore (the kitty saved last is gone, its windows run
//!   nowhere, and no start restored that snapshot before): the plan is
//!   made and armed, the session file of the saved OS windows, tabs and
//!   windows is written, and a new kitty is started on it (`kitty
//!   --session FILE`, which overrides `startup_session`); the first
//!   window then ends, and with it the kitty that had only that window;
//! - nothing to restore, the feature off, or `restore = "manual"`: the
//!   window becomes the user's shell (`$SHELL`, else `/bin/sh`), replacing
//!   this process.
//!
//! Exactly once: starts hold a lock beside the database, and a restore
//! records the save time of the snapshot it restored ([`RESTORED`]); a
//! later start restores only a snapshot saved after it. Windows that run
//! in a kitty that answers are never restored (the host's own rule).

use std::path::{Path, PathBuf};

use agent_resume_core::UnixMillis;
use agent_resume_engine::paths::{self, Overrides};
use agent_resume_engine::restore::{self, Report, RunError, RunOptions, Telemetry};
use agent_resume_engine::settings::{self, RestoreMode};
use agent_resume_store::{OpenOptions, Store};

use crate::host::{KittyHost, HOST};

/// The lock file beside the database a kitty start holds.
pub const LOCK: &str = "kitty-restore.lock";

/// The database key that holds when the snapshot restored last was saved.
pub const RESTORED: &str = "kitty-restored";

pub use crate::socket::START_SESSION;

/// Why a start could not decide.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The restore sequence failed.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// What [`start`] decided.
#[derive(Debug)]
#[non_exhaustive]
pub enum Started {
    /// The feature is off.
    Disabled,
    /// `restore = "manual"`.
    Manual,
    /// Nothing to restore, and why.
    Nothing(String),
    /// The session file at `session` brings the saved kitty back.
    Restored {
        /// The session file.
        session: PathBuf,
        /// What the restore decided.
        report: Box<Report>,
    },
}

/// The newest kitty snapshot's save time, and the one restored last.
fn saved_and_restored(store: &Store) -> (Option<UnixMillis>, Option<UnixMillis>) {
    let newest = store
        .host_layouts(HOST)
        .ok()
        .and_then(|all| all.into_iter().map(|(_, at)| at).max());
    let restored = store.host_layout(RESTORED).ok().flatten().map(|(_, at)| at);
    (newest, restored)
}

/// Decides a kitty start and, when there is something to restore, plans,
/// arms and writes the session file `session` (see the module docs).
pub fn start(
    o: &Overrides,
    session: &Path,
    program: String,
    now: UnixMillis,
    telemetry: Telemetry<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Started, StartError> {
    if !settings::gate_quiet(o).enabled {
        return Ok(Started::Disabled);
    }
    if settings::restore_settings(o).mode == RestoreMode::Manual {
        return Ok(Started::Manual);
    }
    let Some(store) = paths::db(o)
        .ok()
        .and_then(|db| OpenOptions::default().open_existing(&db).ok().flatten())
    else {
        return Ok(Started::Nothing("nothing saved".to_owned()));
    };
    let Ok(_lock) = store.lock_beside(LOCK) else {
        return Ok(Started::Nothing(
            "the recordings database is not trusted".to_owned(),
        ));
    };
    let (newest, restored) = saved_and_restored(&store);
    let Some(newest) = newest else {
        return Ok(Started::Nothing("no kitty saved".to_owned()));
    };
    if restored.is_some_and(|r| r >= newest) {
        return Ok(Started::Nothing(
            "the kitty saved last was restored already".to_owned(),
        ));
    }
    let mut host = KittyHost::new(o.clone(), session.to_path_buf());
    let opts = RunOptions {
        recreate: true,
        dry_run: false,
        now,
        program,
    };
    let report = restore::run(&mut host, o, &opts, telemetry, say)?;
    if !report.saved || report.plans.is_empty() {
        return Ok(Started::Nothing(report.nothing));
    }
    // This snapshot is restored: a later start restores only a newer one.
    let _ = store.save_host_layout(RESTORED, "{}", newest);
    Ok(Started::Restored {
        session: session.to_path_buf(),
        report: Box::new(report),
    })
}

/// What kitty's first window does ([`start`], then [`launch`] or
/// [`become_shell`]), its notes in `log`: `Ok` once the restored kitty is
/// started (the window then ends); otherwise it becomes the user's shell
/// and returns only when no shell could start.
pub fn first_window(
    o: &Overrides,
    session: &Path,
    now: UnixMillis,
    log: &mut restore::log::Log,
) -> std::io::Result<()> {
    let program = agent_resume_engine::host::this_program();
    let started = start(o, session, program, now, Telemetry::File, &mut |m| {
        log.line(m)
    });
    let why = match started {
        Ok(Started::Restored { session, report }) => match launch(&session) {
            Ok(()) => {
                log.line(&format!(
                    "kitty start: {} window(s) planned, {} agent(s) armed; kitty --session {}",
                    report.plans.len(),
                    report.armed,
                    paths::show(&session)
                ));
                if let (Some(queue), Ok(me)) = (&report.queue, std::env::current_exe()) {
                    if let Err(e) = restore::log::follow_in_background(&me, queue) {
                        log.line(&format!("kitty start: its resumes are not followed ({e})"));
                    }
                }
                return Ok(());
            }
            Err(e) => format!("the restored kitty did not start ({e})"),
        },
        Ok(Started::Disabled) => "disabled; nothing restored".to_owned(),
        Ok(Started::Manual) => "restore = \"manual\"; nothing restored".to_owned(),
        Ok(Started::Nothing(why)) => format!("nothing restored ({why})"),
        Err(e) => agent_resume_engine::error_line(&e),
    };
    log.line(&format!("kitty start: {why}"));
    Err(become_shell())
}

/// Why the start session file was not written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartupError {
    /// Its path cannot be written into kitty.conf exactly (kitty expands
    /// `$VAR` and `~` in `startup_session`).
    #[error("the start session's path cannot be named in kitty.conf: {0}")]
    Path(crate::Refused),
    /// It could not be written.
    #[error(transparent)]
    Write(#[from] crate::host::WriteError),
}

/// Writes the start session file into `dir` (the private socket
/// directory) and returns the kitty.conf line that names it. The path
/// passes the same boundary as a session file's directories; `bin` is this
/// program, used only when it needs no quoting in kitty's session syntax,
/// otherwise `agent-resume` from `PATH`.
pub fn startup_line(dir: &Path, bin: &str) -> Result<String, StartupError> {
    let path = dir.join(START_SESSION);
    let text = crate::literal(crate::Value::Directory, path.as_os_str())
        .map_err(StartupError::Path)?
        .to_owned();
    let plain = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b))
    };
    let bin = if plain(bin) { bin } else { "agent-resume" };
    crate::host::write(
        &path,
        &format!(
            "# agent-resume: the first window of a kitty started as usual restores\n\
             # the kitty saved last, or becomes your shell.\n\
             launch {bin} kitty start\n"
        ),
    )?;
    Ok(format!("startup_session {text}\n"))
}

/// Variables of the kitty this runs in that the new kitty must not
/// inherit: they name this kitty and this window.
const THIS_KITTY: [&str; 5] = [
    "KITTY_WINDOW_ID",
    "KITTY_LISTEN_ON",
    "KITTY_PID",
    "KITTY_PUBLIC_KEY",
    "WINDOWID",
];

/// Starts a new kitty on `session` (the kitty [`crate::host::program`]),
/// in a process group of its own, not waited for: it outlives this window
/// and the kitty this window belongs to.
pub fn launch(session: &Path) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(crate::host::program());
    cmd.arg("--session").arg(session);
    for v in THIS_KITTY {
        cmd.env_remove(v);
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .map(drop)
}

/// Replaces this process with the user's shell (`$SHELL`, else
/// `/bin/sh`), as kitty starts it in a window. Returns only on failure.
pub fn become_shell() -> std::io::Error {
    use std::os::unix::process::CommandExt;
    let shell = std::env::var_os("SHELL")
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".into());
    let err = std::process::Command::new(&shell).exec();
    if shell != "/bin/sh" {
        return std::process::Command::new("/bin/sh").exec();
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_session_is_named_only_by_a_path_kitty_reads_back_exactly() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let line = startup_line(tmp.path(), "/opt/bin/agent-resume").expect("written");
        let path = tmp.path().join(START_SESSION);
        assert_eq!(line, format!("startup_session {}\n", path.display()));
        let text = std::fs::read_to_string(&path).expect("reads");
        assert!(
            text.ends_with("launch /opt/bin/agent-resume kitty start\n"),
            "{text}"
        );
        // A program path kitty's session syntax would split is not written.
        startup_line(tmp.path(), "/opt/my bin/agent-resume").expect("written");
        let text = std::fs::read_to_string(&path).expect("reads");
        assert!(
            text.ends_with("launch agent-resume kitty start\n"),
            "{text}"
        );
        // kitty expands `$VAR` in `startup_session`: refused, and
        // nothing written there.
        for bad in ["a$HOME", "a${X}", "a\nb"] {
            let dir = tmp.path().join(bad);
            std::fs::create_dir_all(&dir).expect("mkdir");
            assert!(
                matches!(
                    startup_line(&dir, "agent-resume"),
                    Err(StartupError::Path(_))
                ),
                "{bad:?}"
            );
            assert!(!dir.join(START_SESSION).exists(), "{bad:?}");
        }
    }
}
