//! The tmux [`Host`]: saves a server's layout into the database, and maps
//! the saved layout onto the restore model, recreates what is missing and
//! types the take command into panes already there.
//!
//! `save` gives every pane a stable id and stores a layout snapshot in the
//! database, in its own table (recordings are never touched), one per tmux
//! server ([`server_key`]). The restore model is planned, armed and reported
//! by the engine ([`agent_resume_engine::restore::run`]) before any pane is
//! created; then [`Host::recreate`] makes what is missing, each pane started
//! in its directory with its stable id set as its tmux pane option in the
//! same tmux command list that creates it (and in its own spawn environment,
//! never the session's), so its shell integration takes the armed line at
//! the first prompt. Panes that already exist (restored by tmux-resurrect,
//! say) are matched by session, window and pane index; where such a pane's
//! shell integration shows an empty, idle prompt, [`Host::dispatch`] types
//! the fixed take command; anywhere else nothing is typed and the
//! integration takes the armed line at the pane's next prompt.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_resume_core::{PaneId, PaneSpec, Shell, TakeKey, UnixMillis};
use agent_resume_engine::host::{
    Dispatched, Fate, Host, HostError, Live, Model, Place, Position, Recreated,
};
use agent_resume_engine::paths::{self, Overrides};
use agent_resume_engine::private_dir;
use agent_resume_store::{OpenOptions, Store};

use crate::{
    layout_size, literal, shell_of, snapshot, to_layout, LivePane, NewWindow, NotIdle, Prompts,
    Refused, SessionSnap, Snapshot, Socket, Start, Tmux, TmuxError, Typed, Value, WindowSnap,
    PROBE_PATIENCE, RESTORING_OPTION, SAVING_OPTION,
};

/// The prefix of a tmux server's snapshot key in the database: the key is
/// this followed by the server's [`server_key`].
pub const HOST: &str = "tmux:";

/// Why a save failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// tmux failed.
    #[error(transparent)]
    Tmux(#[from] TmuxError),
    /// The server's socket cannot be a key.
    #[error(transparent)]
    Key(#[from] KeyError),
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
    /// The snapshot could not be stored.
    #[error(transparent)]
    Store(#[from] agent_resume_store::WriteError),
    /// The snapshot could not be serialized.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// A tmux socket whose path is not plain text: its layout is not kept.
#[derive(Debug, thiserror::Error)]
#[error("the tmux socket {shown} is not plain text; its layout is not kept")]
#[non_exhaustive]
pub struct KeyError {
    /// The socket's path, escaped.
    pub shown: String,
}

/// Now, in Unix milliseconds.
fn now() -> UnixMillis {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    UnixMillis(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// A fresh random pane id.
fn fresh_id() -> PaneId {
    PaneId::from_bytes(*uuid::Uuid::new_v4().as_bytes())
}

/// Gives panes without one a fresh stable id; returns the live panes.
///
/// Never the `AGENT_RESUME_PANE` a pane's process was started with: every
/// pane of a server started under an outer `AGENT_RESUME_PANE` inherits the
/// same one. A pane `restore` creates has its id from the command list that
/// created it, before anyone can list it. The server options `unset` are
/// cleared in the command list that lists the panes.
pub fn ensure_ids(tmux: &Tmux, unset: &[&str]) -> Result<Vec<LivePane>, TmuxError> {
    claim_ids(tmux, tmux.list_panes_unsetting(unset)?)
}

fn claim_ids(tmux: &Tmux, mut live: Vec<LivePane>) -> Result<Vec<LivePane>, TmuxError> {
    for p in live.iter_mut().filter(|p| p.stable_id.is_none()) {
        p.stable_id = Some(tmux.claim_pane_id(&p.target, fresh_id())?);
    }
    Ok(live)
}

/// What a save hands the zero-config capture: the server, its live panes
/// (each with its id), the database, the server's snapshot key and now.
/// The capture reports its own failures: one costs nothing of the snapshot.
pub type Capture<'a> = &'a mut dyn FnMut(&Tmux, &[LivePane], &Path, &str, UnixMillis);

/// Gives every pane a stable id, stores the snapshot, and (with `capture`)
/// captures what the panes' agents show with no hook (the feature flag
/// already checked). Clears [`SAVING_OPTION`] as it lists the panes: a
/// hook that fires after that starts the next save.
pub fn save_server(
    tmux: &Tmux,
    o: &Overrides,
    capture: Option<Capture<'_>>,
) -> Result<(), SaveError> {
    let live = ensure_ids(tmux, &[SAVING_OPTION])?;
    save_live(tmux, o, &live, capture)
}

/// Stores the snapshot of `live` (every pane with its id); with `capture`,
/// also what the panes' agents show with no hook.
fn save_live(
    tmux: &Tmux,
    o: &Overrides,
    live: &[LivePane],
    capture: Option<Capture<'_>>,
) -> Result<(), SaveError> {
    let snap = snapshot(live);
    let db = paths::db(o)?;
    let store = Store::open(&db).map_err(|source| SaveError::Open {
        path: paths::show(&db),
        source,
    })?;
    let now = now();
    let key = host_key(tmux.socket())?;
    store.save_host_layout(&key, &serde_json::to_string(&snap)?, now)?;
    if let Some(capture) = capture {
        capture(tmux, live, &db, &key, now);
    }
    Ok(())
}

/// The end of a restore that made panes: clears the options that kept the
/// hooks quiet and, where the `init tmux` hooks are installed (they would
/// have saved after each change), saves once, in this process. No process
/// scan: the shells of the panes just made are still starting, and the next
/// save scans what they run. Without the hooks nothing is saved, as before.
fn save_after_restore(tmux: &Tmux, o: &Overrides) -> Result<(), SaveError> {
    let (hooked, live) = tmux.list_panes_unsetting_hooked(&[RESTORING_OPTION, SAVING_OPTION])?;
    if hooked {
        let live = claim_ids(tmux, live)?;
        save_live(tmux, o, &live, None)?;
    }
    Ok(())
}

/// tmux's own socket directory: `$TMUX_TMPDIR` (else `/tmp`), then
/// `tmux-<uid>`, resolved as tmux resolves it.
fn socket_dir() -> PathBuf {
    let base = std::env::var_os("TMUX_TMPDIR")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    let dir = base.join(format!("tmux-{}", rustix::process::getuid().as_raw()));
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

/// The socket a `tmux` command with this `-L`/`-S` (or neither) talks to:
/// `-L NAME` in tmux's socket directory; with neither, `$TMUX`'s socket
/// (its first comma-separated field) inside tmux, else `default` there.
fn socket_path(socket: &Socket) -> PathBuf {
    match socket {
        Socket::Name(n) => socket_dir().join(n),
        Socket::Path(p) => std::path::absolute(p).unwrap_or_else(|_| p.clone()),
        Socket::Default => std::env::var_os("TMUX")
            .and_then(|t| {
                let first = t.as_bytes().split(|b| *b == b',').next()?.to_vec();
                (!first.is_empty()).then(|| PathBuf::from(std::ffi::OsString::from_vec(first)))
            })
            .unwrap_or_else(|| socket_dir().join("default")),
    }
}

/// The server's key, as stored and as `tmux servers` shows it: the socket's
/// name when it sits in tmux's socket directory (`default` for the default
/// server, so `-L default`, `-S <dir>/default` and no flag are one server),
/// else the socket's path with its directory resolved. Text held in the
/// database, never handed to tmux.
pub fn server_key(socket: &Socket) -> Result<String, KeyError> {
    let path = socket_path(socket);
    let resolved = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
            if parent == socket_dir() {
                PathBuf::from(name)
            } else {
                parent.join(name)
            }
        }
        _ => path,
    };
    match resolved.to_str() {
        Some(text) if !text.is_empty() && !text.chars().any(char::is_control) => {
            Ok(text.to_owned())
        }
        _ => Err(KeyError {
            shown: paths::show(&resolved),
        }),
    }
}

/// The database key of the server's snapshot.
fn host_key(socket: &Socket) -> Result<String, KeyError> {
    Ok(format!("{HOST}{}", server_key(socket)?))
}

/// The servers with a saved snapshot (their keys) and when each was saved;
/// empty when the database is missing or not trusted.
pub fn saved_servers(o: &Overrides) -> Vec<(String, UnixMillis)> {
    let Ok(db) = paths::db(o) else {
        return Vec::new();
    };
    OpenOptions::default()
        .inspect(&db)
        .ok()
        .flatten()
        .and_then(|s| s.host_layouts(HOST).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|(host, at)| (host.strip_prefix(HOST).unwrap_or(&host).to_owned(), at))
        .collect()
}

/// Why the saved servers could not be listed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServersError {
    /// A base directory could not be located.
    #[error(transparent)]
    Paths(#[from] paths::NoBase),
    /// The database could not be opened.
    #[error(transparent)]
    Open(#[from] agent_resume_store::OpenError),
}

/// The saved servers, as `tmux servers` lists them: `Err` where the
/// database cannot be opened; an untrusted database lists nothing, and
/// `say` is told why.
pub fn list_servers(
    o: &Overrides,
    say: &mut dyn FnMut(&str),
) -> Result<Vec<(String, UnixMillis)>, ServersError> {
    let db = paths::db(o)?;
    let saved = match OpenOptions::default().inspect(&db)? {
        Some(store) => match store.host_layouts(HOST) {
            Ok(saved) => saved,
            Err(why) => {
                say(&format!(
                    "recordings database not trusted ({why}); its snapshots are not listed"
                ));
                Vec::new()
            }
        },
        None => Vec::new(),
    };
    Ok(saved
        .into_iter()
        .map(|(host, at)| (host.strip_prefix(HOST).unwrap_or(&host).to_owned(), at))
        .collect())
}

/// How a saved pane comes back, as the tmux host carries it out.
enum Way {
    /// Created now, in this directory (if it still exists).
    Create(Option<PathBuf>),
    /// Already there at this target, a shell in front.
    AtPrompt(String),
}

/// A tmux server as a [`Host`].
pub struct TmuxHost {
    tmux: Tmux,
    o: Overrides,
    /// What the last restore model was made of.
    last: Option<Last>,
    /// The calling process's pane, when not read from `$TMUX_PANE`
    /// ([`TmuxHost::seen_from`]).
    caller: Option<Option<String>>,
}

/// The saved snapshot and live panes behind the last restore model.
struct Last {
    snap: Snapshot,
    live: Vec<LivePane>,
    ways: BTreeMap<PaneId, Way>,
}

impl TmuxHost {
    /// The server `tmux` talks to, with the database and config `o` names.
    pub fn new(tmux: Tmux, o: Overrides) -> TmuxHost {
        TmuxHost {
            tmux,
            o,
            last: None,
            caller: None,
        }
    }

    /// The same host as seen from the tmux pane `pane` (`%N`; a process
    /// started elsewhere, a test): [`Host::identity`] answers for that
    /// pane instead of the one `$TMUX_PANE` names.
    pub fn seen_from(mut self, pane: Option<String>) -> TmuxHost {
        self.caller = Some(pane);
        self
    }

    /// The server.
    pub fn tmux(&self) -> &Tmux {
        &self.tmux
    }
}

/// Whether a saved pane can be recreated exactly: its session name and its
/// directory both pass the tmux value boundary.
fn recreatable(session: &str, cwd: &Path) -> Result<(), Refused> {
    literal(Value::SessionName, session.as_ref())?;
    literal(Value::Directory, cwd.as_os_str())?;
    Ok(())
}

impl Host for TmuxHost {
    fn name(&self) -> &'static str {
        "tmux"
    }

    fn snapshot(&mut self) -> Result<Live, HostError> {
        let live = ensure_ids(&self.tmux, &[]).map_err(HostError::other)?;
        let snap = snapshot(&live);
        let (mut layout, _) = to_layout(&snap, |_, _, p| {
            Some(PaneSpec {
                id: p.id,
                cwd: Some(p.cwd.clone()),
                shared_viewer: false,
                shell: p.shell,
                has_input: false,
                queued_command: false,
            })
        });
        layout.startup = false;
        Ok(Live {
            layout,
            panes: live.iter().filter_map(|p| p.stable_id).collect(),
        })
    }

    fn restore_model(
        &mut self,
        recreate: bool,
        say: &mut dyn FnMut(&str),
    ) -> Result<Model, HostError> {
        restore_model(self, recreate, say)
    }

    fn recreate(
        &mut self,
        _model: &Model,
        keys: &BTreeMap<PaneId, TakeKey>,
        say: &mut dyn FnMut(&str),
    ) -> Result<Recreated, HostError> {
        let Some(last) = &self.last else {
            return Ok(Recreated::default());
        };
        // Sessions the server still has (listed once, before anything is made).
        let existing: BTreeSet<&str> = last.live.iter().map(|p| p.session.as_str()).collect();
        let made = recreate_missing(&self.tmux, &last.snap, &last.ways, &existing, keys, say);
        if made.tried {
            // The one save of this restore, once everything is made; it
            // clears the option that kept the hooks quiet in the command
            // list that lists the panes.
            if let Err(e) = save_after_restore(&self.tmux, &self.o) {
                say(&format!(
                    "the restored layout was not saved ({})",
                    chain(&e)
                ));
                let _ = self.tmux.unset_global(RESTORING_OPTION);
            }
        }
        // The session the user was last in, of those made.
        let attach = last
            .snap
            .sessions
            .iter()
            .filter(|s| made.sessions.contains(&s.name))
            .max_by_key(|s| s.last_attached)
            .map(|s| s.name.clone());
        Ok(Recreated { attach })
    }

    fn dispatch(&mut self, pane: PaneId, line: &str) -> Result<Dispatched, HostError> {
        let Some(Way::AtPrompt(target)) = self.last.as_ref().and_then(|l| l.ways.get(&pane)) else {
            return Err(HostError::Unsupported {
                what: "type into a pane it did not find",
            });
        };
        // No private prompt directory: no prompt is trusted, nothing typed.
        let prompts = Prompts::here().filter(|p| private_dir::check(p.dir()).is_ok());
        let Some(prompts) = prompts else {
            return Ok(Dispatched::NotTyped {
                why: NotIdle::NoPrompt.to_string(),
                pending: false,
            });
        };
        let why = match self
            .tmux
            .type_at_idle_prompt(&prompts, target, line, PROBE_PATIENCE)
        {
            Ok(Typed::Sent) => return Ok(Dispatched::Sent),
            Ok(Typed::Refused(why)) => why.to_string(),
            Err(e) => e.to_string(),
        };
        let pending = self.tmux.leave_pending(&prompts, target, pane).is_ok();
        Ok(Dispatched::NotTyped { why, pending })
    }

    fn identity(&mut self) -> Result<Option<PaneId>, HostError> {
        let pane = match &self.caller {
            Some(pane) => pane.clone(),
            None => std::env::var("TMUX_PANE").ok(),
        };
        let Some(target) = pane.filter(|t| !t.is_empty()) else {
            return Ok(None);
        };
        self.tmux.pane_id(&target).map_err(HostError::other)
    }

    fn status(&self) -> Vec<(&'static str, String)> {
        vec![("tmux", status_text(&saved_servers(&self.o), now()))]
    }

    fn doctor(&self) -> Vec<agent_resume_engine::check::Check> {
        crate::doctor::checks(&self.tmux)
    }
}

/// What `status` says of the saved tmux servers.
fn status_text(servers: &[(String, UnixMillis)], now: UnixMillis) -> String {
    if servers.is_empty() {
        return "no server saved".to_owned();
    }
    let list: Vec<String> = servers
        .iter()
        .map(|(k, at)| {
            format!(
                "{} ({})",
                paths::escape(k),
                agent_resume_engine::host::age(*at, now)
            )
        })
        .collect();
    format!(
        "{} saved: {} (`agent-resume tmux servers`)",
        if servers.len() == 1 {
            "server"
        } else {
            "servers"
        },
        list.join(", ")
    )
}

/// An error and its causes, `: `-separated (as the CLI prints a chain).
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        out.push_str(": ");
        out.push_str(&s.to_string());
        next = s.source();
    }
    out
}

/// The restore model (the feature flag already checked): the saved
/// snapshot against the live panes. A saved pane whose tmux pane is gone
/// is planned either way: with `recreate` it comes back (`recreate`),
/// without it it is [`Fate::Dead`] and its row says `needs --recreate`.
fn restore_model(
    host: &mut TmuxHost,
    recreate: bool,
    say: &mut dyn FnMut(&str),
) -> Result<Model, HostError> {
    let tmux = &host.tmux;
    let db = paths::db(&host.o)?;
    let key = server_key(tmux.socket()).map_err(HostError::other)?;
    let hkey = format!("{HOST}{key}");
    // The snapshot decides what is created and typed: it passes the same
    // trust check as recordings, and an untrusted database yields nothing.
    let saved = match OpenOptions::default()
        .inspect(&db)
        .map_err(HostError::other)?
        .map(|s| s.host_layout(&hkey))
    {
        Some(Ok(saved)) => saved,
        Some(Err(why)) => {
            say(&format!(
                "recordings database not trusted ({why}); nothing restored, recreated or typed"
            ));
            return Ok(Model::nothing("the recordings database is not trusted"));
        }
        None => None,
    };
    let Some((text, _)) = saved else {
        let others: Vec<String> = saved_servers(&host.o)
            .into_iter()
            .map(|(k, _)| paths::escape(&k))
            .collect();
        let also = if others.is_empty() {
            " (run `agent-resume tmux save`, or add the `init tmux` line)".to_owned()
        } else {
            format!(
                " (saved: {}; see `agent-resume tmux servers`)",
                others.join(", ")
            )
        };
        return Ok(Model::nothing(format!(
            "no saved layout for tmux server {}{also}",
            paths::escape(&key)
        )));
    };
    let snap: Snapshot = serde_json::from_str(&text).map_err(|e| HostError::Saved {
        host: "tmux",
        source: Box::new(e),
    })?;
    let running = tmux.running();
    let live = if running {
        tmux.list_panes().map_err(HostError::other)?
    } else {
        Vec::new()
    };
    let at: BTreeMap<(&str, u32, u32), &LivePane> = live
        .iter()
        .map(|p| ((p.session.as_str(), p.window_index, p.pane_index), p))
        .collect();
    // Asked only of a running server, and only for a saved pane whose shell
    // is unknown: one tmux client less on the way to the first pane.
    let shell_unknown = snap
        .sessions
        .iter()
        .flat_map(|s| s.windows.iter().flat_map(|w| w.panes.iter()))
        .any(|p| p.shell.is_none());
    // The shell tmux starts in a recreated pane: its `default-shell`, else
    // bash; one agent-resume cannot drive is planned as
    // `shell_unsupported`, never as another shell.
    let default_shell = match running
        .then(|| shell_unknown.then(|| tmux.default_shell()).flatten())
        .flatten()
    {
        Some(program) => shell_of(&program),
        None => Some(Shell::Bash),
    };

    let mut ways: BTreeMap<PaneId, Way> = BTreeMap::new();
    let mut fates: BTreeMap<PaneId, Fate> = BTreeMap::new();
    let mut places: HashMap<PaneId, Place> = HashMap::new();
    let mut refused: BTreeMap<Refused, usize> = BTreeMap::new();
    let (layout, _) = to_layout(&snap, |s, w, p| {
        let spec = |cwd: Option<PathBuf>, shell| PaneSpec {
            id: p.id,
            cwd,
            shared_viewer: false,
            shell,
            has_input: false,
            queued_command: false,
        };
        let mut place = |cwd: &Path, comes_back| {
            places.insert(
                p.id,
                Place {
                    position: Position::Session {
                        session: s.name.clone(),
                        window: w.index,
                        pane: p.index,
                    },
                    cwd: Some(cwd.to_path_buf()),
                    comes_back: Some(comes_back),
                },
            );
        };
        match at.get(&(s.name.as_str(), w.index, p.index)) {
            // A pane that never died, or another pane in its place: not ours to restore.
            Some(l) if l.stable_id.is_some() => None,
            // Restored by someone else (tmux-resurrect): only at a prompt.
            Some(l) => {
                // Its foreground program: a shell at its prompt, or nothing
                // to restore into (a program runs there).
                let shell = shell_of(&l.command)?;
                ways.insert(p.id, Way::AtPrompt(l.target.clone()));
                fates.insert(p.id, Fate::InPlace);
                place(&l.cwd, "in place");
                Some(spec(Some(l.cwd.clone()), Some(shell)))
            }
            None => {
                // A session name or directory tmux cannot hold exactly is
                // never handed to it: the pane is left out of the restore
                // (nothing armed, nothing created).
                if let Err(r) = recreatable(&s.name, &p.cwd) {
                    *refused.entry(r).or_default() += 1;
                    return None;
                }
                if recreate {
                    // Started in its saved directory when it still exists; the
                    // plan checks the directory either way (`directory_gone`).
                    ways.insert(p.id, Way::Create(p.cwd.is_dir().then(|| p.cwd.clone())));
                    fates.insert(p.id, Fate::Create);
                    place(&p.cwd, "recreate");
                } else {
                    fates.insert(p.id, Fate::Dead);
                    place(&p.cwd, "needs --recreate");
                }
                Some(spec(Some(p.cwd.clone()), p.shell.or(default_shell)))
            }
        }
    });
    for (r, n) in &refused {
        say(&format!("{n} saved pane(s) not recreated: {r}"));
    }
    let mut model = Model::new(layout);
    model.keep = snap
        .sessions
        .iter()
        .flat_map(|s| s.windows.iter().flat_map(|w| w.panes.iter().map(|p| p.id)))
        .chain(live.iter().filter_map(|p| p.stable_id))
        .collect();
    model.nothing = if refused.is_empty() {
        format!(
            "every saved pane of tmux server {} is running",
            paths::escape(&key)
        )
    } else {
        "no saved pane can be recreated exactly".to_owned()
    };
    model.fates = fates;
    model.places = places;
    model.take_keys = Some(key);
    host.last = Some(Last { snap, live, ways });
    Ok(model)
}

/// How long the `init tmux` hooks stay quiet for a restore at most: a
/// restore that dies leaves them silenced no longer than this. Each window
/// a restore makes sets the deadline again.
const RESTORE_QUIET: Duration = Duration::from_secs(60);

/// What [`recreate_missing`] did.
struct Made {
    /// The sessions it made a window in.
    sessions: BTreeSet<String>,
    /// Whether it ran any tmux command that creates (so the hooks were
    /// quieted and a save is due).
    tried: bool,
}

/// The order sessions and windows are made in: the pane in front first —
/// the landing session (attached last; the last of equals, as the model
/// decides it) and, in each session, its current window — then the rest in
/// saved order. Its shell starts first, so its agent, which the restore
/// queued first, does not wait for the other shells.
fn creation_order(snap: &Snapshot) -> Vec<(&SessionSnap, Vec<&WindowSnap>)> {
    let landing = snap
        .sessions
        .iter()
        .enumerate()
        .max_by_key(|(_, s)| s.last_attached)
        .map(|(i, _)| i);
    let mut sessions: Vec<(usize, &SessionSnap)> = snap.sessions.iter().enumerate().collect();
    sessions.sort_by_key(|(i, _)| Some(*i) != landing);
    sessions
        .into_iter()
        .map(|(_, s)| {
            let mut windows: Vec<&WindowSnap> = s.windows.iter().collect();
            windows.sort_by_key(|w| w.index != s.active_window);
            (s, windows)
        })
        .collect()
}

/// Recreates every missing saved session, window and pane, in index order,
/// then restores window layouts and the current window and pane. Each
/// window is made by one tmux command list ([`Tmux::create_window`]) that
/// first quiets the `init tmux` hooks ([`RESTORING_OPTION`]); where a list
/// stops at an error, the rest of its window is made pane by pane, so one
/// pane that cannot be made never costs the others.
fn recreate_missing(
    tmux: &Tmux,
    snap: &Snapshot,
    ways: &BTreeMap<PaneId, Way>,
    existing: &BTreeSet<&str>,
    keys: &BTreeMap<PaneId, TakeKey>,
    say: &mut dyn FnMut(&str),
) -> Made {
    let mut made_sessions = BTreeSet::new();
    let mut tried = false;
    for (s, windows) in creation_order(snap) {
        let mut session_made = existing.contains(s.name.as_str());
        let mut window_made = false;
        let mut active_target = None;
        for w in windows {
            let creates: Vec<(u32, Start<'_>)> = w
                .panes
                .iter()
                .filter_map(|p| match ways.get(&p.id) {
                    Some(Way::Create(cwd)) => Some((
                        p.index,
                        Start {
                            take: keys.get(&p.id).copied(),
                            id: p.id,
                            cwd: cwd.as_deref(),
                            shell: p.shell,
                            name: None,
                        },
                    )),
                    _ => None,
                })
                .collect();
            if creates.is_empty() {
                continue;
            }
            let starts: Vec<Start<'_>> = creates.iter().map(|(_, start)| *start).collect();
            let quiet_until = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .saturating_add(RESTORE_QUIET)
                .as_secs();
            let new_session = !session_made;
            tried = true;
            let (targets, failed) = match tmux.create_window(&NewWindow {
                session: &s.name,
                index: w.index,
                session_size: new_session.then(|| layout_size(&w.layout)),
                panes: &starts,
                layout: (w.panes.len() > 1).then_some(w.layout.as_str()),
                quiet_until: Some(quiet_until),
            }) {
                Ok(made) => (made.panes, made.error.is_some()),
                Err(e) => {
                    say(&format!("a pane was not recreated ({e})"));
                    (Vec::new(), true)
                }
            };
            let mut window_target: Option<String> = targets.first().cloned();
            if window_target.is_some() {
                session_made = true;
                window_made = true;
                if new_session && failed {
                    // The list ended before the window was moved.
                    let _ = tmux.move_first_window(&s.name, w.index);
                }
            }
            let made_whole = targets.len();
            // Each pane is split from the one made before it, so the panes
            // keep their saved order.
            let mut last_target: Option<String> = targets.last().cloned();
            for ((index, _), target) in creates.iter().zip(&targets) {
                if w.index == s.active_window && *index == w.active_pane {
                    active_target = Some(target.clone());
                }
            }
            if !failed {
                continue;
            }
            // Pane by pane from the first pane the list did not make.
            for (index, start) in &creates[made_whole..] {
                let made = match (&window_target, session_made) {
                    (Some(t), _) => tmux
                        .split(last_target.as_deref().unwrap_or(t), start)
                        .inspect(|_| {
                            // Spread the panes so the next split has room.
                            let _ = tmux.select_layout(&s.name, w.index, "tiled");
                        }),
                    (None, false) => {
                        tmux.new_session(&s.name, w.index, layout_size(&w.layout), start)
                    }
                    (None, true) => tmux.new_window(&s.name, w.index, start),
                };
                // One pane that cannot be made never costs the others.
                let target = match made {
                    Ok(t) => t,
                    Err(e) => {
                        say(&format!("a pane was not recreated ({e})"));
                        continue;
                    }
                };
                session_made = true;
                window_made = true;
                if w.index == s.active_window && *index == w.active_pane {
                    active_target = Some(target.clone());
                }
                last_target = Some(target.clone());
                window_target.get_or_insert(target);
            }
            if window_target.is_some() && w.panes.len() > 1 {
                if let Err(e) = tmux.select_layout(&s.name, w.index, &w.layout) {
                    say(&format!("window layout not restored ({e})"));
                }
            }
        }
        if session_made {
            let _ = tmux.select(&s.name, s.active_window, active_target.as_deref());
        }
        if window_made {
            made_sessions.insert(s.name.clone());
        }
    }
    Made {
        sessions: made_sessions,
        tried,
    }
}
