//! The kitty [`Host`]: saves a running kitty's snapshot into the database,
//! and maps the snapshot saved last onto the restore model; its
//! [`Host::recreate`] writes the kitty session file that brings every OS
//! window, tab, layout, directory and focus back, each window's shell
//! started with its pane id in `AGENT_RESUME_PANE`, so each shell takes its
//! armed line at its first prompt.
//!
//! A socket that is not this user's own is never asked ([`examine`]), and
//! no window takes the pane id kitty itself inherited.

use std::collections::{BTreeMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use agent_resume_core::{PaneId, Shell, TakeKey, UnixMillis};
use agent_resume_engine::host::{places_of, Fate, Host, HostError, Live, Model, Recreated};
use agent_resume_engine::paths::{self, Overrides};
use agent_resume_engine::scan::{runs_agent, scan_here, ScanError, Scanned};
use agent_resume_store::{OpenOptions, Store};

use crate::{
    examine, session_file, shell_of, snapshot, to_layout, Kitty, KittyError, Refusal, Snapshot,
    Untrusted, PANE_ENV,
};

/// The prefix of a kitty instance's snapshot key: `kitty:` and its socket.
pub const HOST: &str = "kitty:";

/// The kitty program (`AGENT_RESUME_KITTY`, else `kitty` from `PATH`).
pub fn program() -> OsString {
    std::env::var_os("AGENT_RESUME_KITTY")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "kitty".into())
}

/// The kitty program on `PATH` (or as `AGENT_RESUME_KITTY` names it).
pub fn installed() -> Option<PathBuf> {
    let p = PathBuf::from(program());
    if p.components().count() > 1 {
        return p.is_file().then_some(p);
    }
    agent_resume_engine::process::on_path(&p.to_string_lossy())
}

/// The saved kitty instances (keys without `kitty:`) and when each was
/// saved, newest first; empty when the database is missing or not
/// trusted.
pub fn saved(o: &Overrides) -> Vec<(String, UnixMillis)> {
    let Ok(db) = paths::db(o) else {
        return Vec::new();
    };
    let mut out: Vec<(String, UnixMillis)> = OpenOptions::default()
        .inspect(&db)
        .ok()
        .flatten()
        .and_then(|s| s.host_layouts(HOST).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|(k, at)| (k.strip_prefix(HOST).unwrap_or(&k).to_owned(), at))
        .collect();
    out.sort_by_key(|(_, at)| std::cmp::Reverse(*at));
    out
}

/// Why a save failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// No address to ask.
    #[error("no kitty to save: $KITTY_LISTEN_ON is unset (add `listen_on` to kitty.conf, see `agent-resume init kitty`)")]
    NoAddress,
    /// The address is not UTF-8.
    #[error("the kitty address is not UTF-8")]
    NotUtf8,
    /// The socket is not this user's own.
    #[error("kitty socket not trusted: {0}; nothing saved (see `agent-resume init kitty`)")]
    Untrusted(Untrusted),
    /// A base directory could not be located.
    #[error(transparent)]
    Paths(#[from] paths::NoBase),
    /// The database could not be opened.
    #[error("recordings database {path}")]
    Open {
        /// The database, as shown.
        path: String,
        /// Why.
        #[source]
        source: agent_resume_store::OpenError,
    },
    /// The lock shared by every save could not be taken.
    #[error("no kitty saved")]
    Lock(#[source] agent_resume_store::LockError),
    /// kitty failed.
    #[error(transparent)]
    Kitty(#[from] KittyError),
    /// The database is not trusted.
    #[error("recordings database not trusted ({0})")]
    Distrust(agent_resume_store::Distrust),
    /// The snapshot could not be stored.
    #[error(transparent)]
    Store(#[from] agent_resume_store::WriteError),
    /// The snapshot could not be serialized.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Now, in Unix milliseconds.
fn now() -> UnixMillis {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    UnixMillis(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// Lists the kitty at `to` and stores its snapshot, under a lock shared by
/// every save (concurrent saves would mint different ids for one window).
/// A socket that is not this user's own is refused before kitty is asked
/// anything, and the lock is taken only beside a trusted database.
pub fn save_instance(to: Option<&OsStr>, o: &Overrides) -> Result<Snapshot, SaveError> {
    Ok(save(to, o)?.snapshot)
}

/// What [`save_capturing`] did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Saved {
    /// The snapshot stored.
    pub snapshot: Snapshot,
    /// The zero-config capture of its windows: a failed one costs nothing
    /// of the snapshot, stored before it.
    pub capture: Result<Vec<Scanned>, ScanError>,
}

/// [`save_instance`], then the zero-config capture of the windows
/// ([`crate::capture`]): each window whose foreground is not just its
/// shell is scanned by the engine's scan, as `tmux save` scans tmux panes,
/// after the lock is released.
pub fn save_capturing(to: Option<&OsStr>, o: &Overrides) -> Result<Saved, SaveError> {
    let saved = save(to, o)?;
    let panes = crate::capture::panes(&saved.ls, &saved.snapshot, &runs_agent);
    let capture = if panes.is_empty() {
        Ok(Vec::new())
    } else {
        scan_here(&saved.db, &panes, now())
    };
    Ok(Saved {
        snapshot: saved.snapshot,
        capture,
    })
}

/// A stored snapshot, with the listing it was made from and the database.
struct Stored {
    snapshot: Snapshot,
    ls: Vec<crate::LsOsWindow>,
    db: PathBuf,
}

fn save(to: Option<&OsStr>, o: &Overrides) -> Result<Stored, SaveError> {
    let Some(to) = to.filter(|t| !t.is_empty()) else {
        return Err(SaveError::NoAddress);
    };
    let Some(key) = to.to_str().map(|t| format!("{HOST}{t}")) else {
        return Err(SaveError::NotUtf8);
    };
    let listener = examine(to).map_err(SaveError::Untrusted)?;
    let db = paths::db(o)?;
    let store = Store::open(&db).map_err(|source| SaveError::Open {
        path: paths::show(&db),
        source,
    })?;
    let _lock = store.lock_beside("kitty.lock").map_err(SaveError::Lock)?;
    let ls = Kitty::new(program(), to).ls()?;
    let previous: Option<Snapshot> = store
        .host_layout(&key)
        .map_err(SaveError::Distrust)?
        .and_then(|(text, _)| serde_json::from_str(&text).ok());
    let snap = snapshot(&ls, previous.as_ref(), listener.inherited(), || {
        PaneId::from_bytes(*uuid::Uuid::new_v4().as_bytes())
    });
    store.save_host_layout(&key, &serde_json::to_string(&snap)?, now())?;
    Ok(Stored {
        snapshot: snap,
        ls,
        db,
    })
}

/// Why a session file could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// Its directory could not be made.
    #[error("cannot make {path}")]
    Dir {
        /// The directory, as shown.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write {path}")]
    File {
        /// The file, as shown.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The session file written when there is nothing to restore: kitty then
/// starts one plain shell.
pub const NOTHING: &str = "# kitty session written by agent-resume: nothing to restore\n";

/// Writes a session file (its directory made when missing).
pub fn write(path: &Path, text: &str) -> Result<(), WriteError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| WriteError::Dir {
            path: paths::show(dir),
            source,
        })?;
    }
    std::fs::write(path, text).map_err(|source| WriteError::File {
        path: paths::show(path),
        source,
    })
}

/// kitty as a [`Host`]: the snapshot saved last, restored through a
/// session file written to `output`.
pub struct KittyHost {
    o: Overrides,
    program: OsString,
    output: PathBuf,
    /// The snapshot behind the last restore model.
    last: Option<Snapshot>,
    /// The calling process's kitty and window, when not read from
    /// `$KITTY_LISTEN_ON` and `$KITTY_WINDOW_ID` ([`KittyHost::seen_from`]).
    caller: Option<(OsString, Option<u64>)>,
}

impl KittyHost {
    /// A host restoring into the session file `output`, with the database
    /// and config `o` names and the kitty [`program`].
    pub fn new(o: Overrides, output: PathBuf) -> KittyHost {
        KittyHost {
            o,
            program: program(),
            output,
            last: None,
            caller: None,
        }
    }

    /// The same host as seen from window `window` of the kitty listening
    /// at `to` (a process started elsewhere, a test): [`Host::snapshot`]
    /// lists that kitty and [`Host::identity`] answers for that window,
    /// instead of what `$KITTY_LISTEN_ON` and `$KITTY_WINDOW_ID` say.
    pub fn seen_from(mut self, to: OsString, window: Option<u64>) -> KittyHost {
        self.caller = Some((to, window));
        self
    }

    /// The kitty the calling process runs in.
    fn listen_on(&self) -> Option<OsString> {
        match &self.caller {
            Some((to, _)) => Some(to.clone()),
            None => std::env::var_os("KITTY_LISTEN_ON"),
        }
    }

    /// The kitty window the calling process runs in.
    fn window(&self) -> Option<u64> {
        match &self.caller {
            Some((_, window)) => *window,
            None => std::env::var("KITTY_WINDOW_ID")
                .ok()
                .and_then(|w| w.parse::<u64>().ok()),
        }
    }
}

impl Host for KittyHost {
    fn name(&self) -> &'static str {
        "kitty"
    }

    fn snapshot(&mut self) -> Result<Live, HostError> {
        let to = self.listen_on();
        let snap = save_instance(to.as_deref(), &self.o).map_err(HostError::other)?;
        let mut layout = to_layout(&snap, None);
        layout.startup = false;
        Ok(Live {
            layout,
            panes: snap.windows().map(|w| w.id).collect(),
        })
    }

    fn restore_model(
        &mut self,
        _recreate: bool,
        say: &mut dyn FnMut(&str),
    ) -> Result<Model, HostError> {
        let snap = match last_snapshot(&self.o, &self.program, say)? {
            Ok(snap) => snap,
            Err(why) => return Ok(Model::nothing(why)),
        };
        // The shell kitty starts in a window: `$SHELL`, else bash (as kitty
        // falls back when it has no shell); one agent-resume cannot drive is
        // planned as `shell_unsupported`.
        let default_shell = match std::env::var("SHELL") {
            Ok(program) if !program.is_empty() => shell_of(&program),
            _ => Some(Shell::Bash),
        };
        let layout = to_layout(&snap, default_shell);
        let places = places_of(&layout);
        let keep: HashSet<PaneId> = snap.windows().map(|w| w.id).collect();
        let mut model = Model::new(layout);
        model.fates = keep.iter().map(|id| (*id, Fate::Create)).collect();
        model.keep = keep;
        model.places = places;
        model.nothing = "the saved kitty has no window".to_owned();
        self.last = Some(snap);
        Ok(model)
    }

    fn recreate(
        &mut self,
        _model: &Model,
        _keys: &BTreeMap<PaneId, TakeKey>,
        say: &mut dyn FnMut(&str),
    ) -> Result<Recreated, HostError> {
        let Some(mut snap) = self.last.take() else {
            return Ok(Recreated::default());
        };
        let home = std::env::var_os("HOME").unwrap_or_else(|| "/".into());
        // A directory gone since the save is not handed to kitty: that
        // window comes back as a plain shell in the fallback directory.
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
            if why.why != Refusal::Empty {
                say(&format!("a window comes back as a plain shell: {why}"));
            }
        }
        write(&self.output, &written.text).map_err(HostError::other)?;
        Ok(Recreated::default())
    }

    fn status(&self) -> Vec<(&'static str, String)> {
        crate::doctor::status(installed().as_deref(), &saved(&self.o), now())
    }

    fn doctor(&self) -> Vec<agent_resume_engine::check::Check> {
        crate::doctor::checks(installed().as_deref(), &saved(&self.o), now())
    }

    fn identity(&mut self) -> Result<Option<PaneId>, HostError> {
        let to = self.listen_on();
        let Some(window) = self.window() else {
            return Ok(None);
        };
        let snap = save_instance(to.as_deref(), &self.o).map_err(HostError::other)?;
        let id = snap.windows().find(|w| w.kitty_id == window).map(|w| w.id);
        Ok(id)
    }
}

/// How many of the most recently saved kitty instances are asked whether
/// they still run.
const LIVE_CHECKED: usize = 8;

/// The snapshot saved last, of any kitty instance, less the windows that
/// still run in a kitty that answers (one started by an earlier session, a
/// second instance): those are never restored twice. `Err` with why there
/// is nothing to restore.
fn last_snapshot(
    o: &Overrides,
    program: &OsStr,
    say: &mut dyn FnMut(&str),
) -> Result<Result<Snapshot, String>, HostError> {
    let db = paths::db(o)?;
    let Some(store) = OpenOptions::default()
        .inspect(&db)
        .map_err(HostError::other)?
    else {
        return Ok(Err(
            "no kitty saved (see `agent-resume init kitty`)".to_owned()
        ));
    };
    let mut saved = match store.host_layouts(HOST) {
        Ok(saved) => saved,
        Err(why) => {
            say(&format!(
                "recordings database not trusted ({why}); nothing restored"
            ));
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
            Err(Untrusted::Unexamined) => continue,
            Err(why) => {
                refused.get_or_insert(why);
                continue;
            }
        };
        let Ok(ls) = Kitty::new(program, to).ls() else {
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
        say(&format!(
            "a saved kitty's socket is not trusted ({why}); its windows are not counted as running"
        ));
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
