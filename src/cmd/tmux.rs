//! `agent-resume tmux save`, `tmux restore` and `tmux servers`: the tmux
//! host.
//!
//! `save` gives every pane a stable id and stores a layout snapshot in the
//! database, in its own table (recordings are never touched), one per tmux
//! server ([`server_key`]), then records what each pane's agent shows with
//! no hook ([`crate::tmux_scan`]); `servers` lists the snapshots. `restore`
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
//! the integration takes the armed line at the pane's next prompt. A saved
//! pane that is gone is planned and shown either way (`recreate`, or
//! `needs --recreate` with nothing armed); `--dry-run` plans the same and
//! changes nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agent_resume_core::{quote, PaneId, PanePlan, PaneSpec, Shell, Verdict};

use super::plan::{Place, Position};
use agent_resume_store::Store;
use agent_resume_tmux::{
    layout_size, literal, shell_of, snapshot, to_layout, LivePane, NewWindow, Refused, Snapshot,
    Socket, Start, Tmux, Typed, Value, PROBE_PATIENCE, RESTORING_OPTION, SAVING_OPTION,
};
use anyhow::{Context, Result};

use crate::paths::{self, Overrides};
use crate::restore::{arm_and_report, decide, Tickets};
use crate::telemetry_file::{self, FileSink};
use crate::{config, when};

/// The prefix of a tmux server's snapshot key in the database: the key is
/// this followed by the server's [`server_key`].
const HOST: &str = "tmux:";

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
        Sub::Servers => servers(o),
    }
}

/// Gives panes without one a fresh stable id; returns the live panes.
///
/// Never the `AGENT_RESUME_PANE` a pane's process was started with: every
/// pane of a server started under an outer `AGENT_RESUME_PANE` inherits the
/// same one. A pane `restore` creates has its id from the command list that
/// created it, before anyone can list it. The server options `unset` are
/// cleared in the command list that lists the panes.
pub fn ensure_ids(tmux: &Tmux, unset: &[&str]) -> Result<Vec<LivePane>> {
    claim_ids(tmux, tmux.list_panes_unsetting(unset)?)
}

fn claim_ids(tmux: &Tmux, mut live: Vec<LivePane>) -> Result<Vec<LivePane>> {
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
/// Clears [`SAVING_OPTION`] as it lists the panes: a hook that fires after
/// that starts the next save.
pub fn save_server(tmux: &Tmux, o: &Overrides) -> Result<()> {
    let live = ensure_ids(tmux, &[SAVING_OPTION])?;
    save_live(tmux, o, &live, true)
}

/// Stores the snapshot of `live` (every pane with its id); with `capture`,
/// also what the panes' agents show with no hook.
fn save_live(tmux: &Tmux, o: &Overrides, live: &[LivePane], capture: bool) -> Result<()> {
    let snap = snapshot(live);
    let db = paths::db(o)?;
    let store =
        Store::open(&db).with_context(|| format!("recordings database {}", paths::show(&db)))?;
    let now = when::now();
    let key = host_key(tmux.socket())?;
    store.save_host_layout(&key, &serde_json::to_string(&snap)?, now)?;
    // Zero-config capture: each pane's agent from its process tree, and an
    // ended agent's exit hint (crate::tmux_scan).
    // A capture that fails costs nothing of the snapshot, saved above.
    #[cfg(target_os = "linux")]
    if capture {
        if let Err(e) = crate::tmux_scan::capture(tmux, live, &db, &key, now) {
            eprintln!("agent-resume: tmux save: capture: {e:#}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = capture;
    Ok(())
}

/// The end of a restore that made panes: clears the options that kept the
/// hooks quiet and, where the `init tmux` hooks are installed (they would
/// have saved after each change), saves once, in this process. No process
/// scan: the shells of the panes just made are still starting, and the next
/// save scans what they run. Without the hooks nothing is saved, as before.
fn save_after_restore(tmux: &Tmux, o: &Overrides) -> Result<()> {
    let (hooked, live) = tmux.list_panes_unsetting_hooked(&[RESTORING_OPTION, SAVING_OPTION])?;
    if hooked {
        let live = claim_ids(tmux, live)?;
        save_live(tmux, o, &live, false)?;
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
    /// Gone, and not recreated (no `--recreate`): planned, shown, never
    /// armed.
    Dead,
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
pub fn server_key(socket: &Socket) -> Result<String> {
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
        _ => anyhow::bail!(
            "the tmux socket {} is not plain text; its layout is not kept",
            paths::show(&resolved)
        ),
    }
}

/// The database key of the server's snapshot.
fn host_key(socket: &Socket) -> Result<String> {
    Ok(format!("{HOST}{}", server_key(socket)?))
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
    let db = paths::db(o)?;
    let saved = match agent_resume_store::OpenOptions::default().inspect(&db)? {
        Some(store) => match store.host_layouts(HOST) {
            Ok(saved) => saved,
            Err(why) => {
                eprintln!("agent-resume: recordings database not trusted ({why}); its snapshots are not listed");
                Vec::new()
            }
        },
        None => Vec::new(),
    };
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
        .map(|(host, at)| {
            let key = host.strip_prefix(HOST).unwrap_or(host);
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

/// The names of the servers with a saved snapshot, for messages.
pub fn saved_servers(o: &Overrides) -> Vec<(String, agent_resume_core::UnixMillis)> {
    let Ok(db) = paths::db(o) else {
        return Vec::new();
    };
    agent_resume_store::OpenOptions::default()
        .inspect(&db)
        .ok()
        .flatten()
        .and_then(|s| s.host_layouts(HOST).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|(host, at)| (host.strip_prefix(HOST).unwrap_or(&host).to_owned(), at))
        .collect()
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
    let tmux = args.server.tmux();
    let restored = restore_server(&tmux, args.recreate, args.dry_run, o)?;
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

/// What a restore decided and did.
pub struct Restored {
    /// Every planned pane.
    pub plans: Vec<PanePlan>,
    /// Where each planned pane sits, its directory and how it comes back.
    pub places: HashMap<PaneId, Place>,
    /// Why nothing is restored, when `plans` is empty.
    pub nothing: String,
    /// The session to attach to, when `--recreate` made one.
    pub attach: Option<String>,
}

impl Restored {
    fn nothing(why: String) -> Self {
        Restored {
            plans: Vec::new(),
            places: HashMap::new(),
            nothing: why,
            attach: None,
        }
    }
}

/// The restore itself (the feature flag already checked): plan, and unless
/// `dry_run`, arm, report, recreate and dispatch. A dry run plans exactly
/// what the same restore would, dead panes included, and changes nothing:
/// no pane created or typed into, nothing armed or swept, no telemetry, the
/// database only read (never migrated), no tmux option set.
///
/// A saved pane whose tmux pane is gone is planned either way: with
/// `recreate` it comes back (`recreate`), without it nothing is armed for it
/// and its row says `needs --recreate`.
pub fn restore_server(
    tmux: &Tmux,
    recreate: bool,
    dry_run: bool,
    o: &Overrides,
) -> Result<Restored> {
    let db = paths::db(o)?;
    let key = server_key(tmux.socket())?;
    let host = format!("{HOST}{key}");
    // The snapshot decides what is created and typed: it passes the same
    // trust check as recordings, and an untrusted database yields nothing.
    let saved = match agent_resume_store::OpenOptions::default()
        .inspect(&db)?
        .map(|s| s.host_layout(&host))
    {
        Some(Ok(saved)) => saved,
        Some(Err(why)) => {
            eprintln!("agent-resume: recordings database not trusted ({why}); nothing restored, recreated or typed");
            return Ok(Restored::nothing(
                "the recordings database is not trusted".to_owned(),
            ));
        }
        None => None,
    };
    let Some((text, _)) = saved else {
        let others: Vec<String> = saved_servers(o)
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
        return Ok(Restored::nothing(format!(
            "no saved layout for tmux server {}{also}",
            paths::escape(&key)
        )));
    };
    let snap: Snapshot =
        serde_json::from_str(&text).context("the saved tmux layout does not parse")?;
    let running = tmux.running();
    let live = if running {
        tmux.list_panes()?
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

    let mut fates: BTreeMap<PaneId, Fate> = BTreeMap::new();
    let mut places: HashMap<PaneId, Place> = HashMap::new();
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
        let mut place = |cwd: &std::path::Path, comes_back| {
            places.insert(
                p.id,
                Place {
                    position: Position::Tmux {
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
                fates.insert(p.id, Fate::AtPrompt(l.target.clone()));
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
                    fates.insert(p.id, Fate::Create(p.cwd.is_dir().then(|| p.cwd.clone())));
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
        eprintln!("agent-resume: {n} saved pane(s) not recreated: {r}");
    }
    let keep: HashSet<PaneId> = snap
        .sessions
        .iter()
        .flat_map(|s| s.windows.iter().flat_map(|w| w.panes.iter().map(|p| p.id)))
        .chain(live.iter().filter_map(|p| p.stable_id))
        .collect();
    let nothing = if refused.is_empty() {
        format!(
            "every saved pane of tmux server {} is running",
            paths::escape(&key)
        )
    } else {
        "no saved pane can be recreated exactly".to_owned()
    };
    let now = when::now();
    let mut decided = decide(o, &layout, now, true, (!dry_run).then_some(&keep))?;
    for w in &decided.warnings {
        eprintln!("agent-resume: {w}");
    }
    if dry_run {
        return Ok(Restored {
            plans: decided.plans,
            places,
            nothing,
            attach: None,
        });
    }
    let plans = decided.plans.clone();
    // A pane that is not coming back has nothing armed and nothing reported.
    decided
        .plans
        .retain(|p| !matches!(fates.get(&p.pane), Some(Fate::Dead)));
    // Arm before any pane exists: a new pane's first prompt takes its line.
    // Each pane to be created with a line is armed with a fresh take key,
    // handed to its first process, so that `take` needs no round trip to
    // a server still busy making the next windows.
    let tickets = Tickets::fresh(
        key.clone(),
        decided
            .plans
            .iter()
            .filter(|p| matches!(p.verdict, Verdict::Resume(_)))
            .filter(|p| matches!(fates.get(&p.pane), Some(Fate::Create(_))))
            .map(|p| p.pane),
    );
    let mut sink = FileSink::new(telemetry_file::path()?);
    arm_and_report(&decided, now, &mut sink, Some(&tickets));

    let mut attach = None;
    if recreate {
        // Sessions the server still has (listed once, before anything is made).
        let existing: BTreeSet<&str> = live.iter().map(|p| p.session.as_str()).collect();
        let made = recreate_missing(tmux, &snap, &fates, &existing, &tickets);
        if made.tried {
            // The one save of this restore, once everything is made; it
            // clears the option that kept the hooks quiet in the command
            // list that lists the panes.
            if let Err(e) = save_after_restore(tmux, o) {
                eprintln!("agent-resume: the restored layout was not saved ({e:#})");
                let _ = tmux.unset_global(RESTORING_OPTION);
            }
        }
        // The session the user was last in, of those made.
        attach = snap
            .sessions
            .iter()
            .filter(|s| made.sessions.contains(&s.name))
            .max_by_key(|s| s.last_attached)
            .map(|s| s.name.clone());
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
        // A resumed pane passed the plan's shell gate: its shell is known.
        let Some(shell) = placed
            .iter()
            .find(|x| x.spec.id == p.pane)
            .and_then(|x| x.spec.shell)
        else {
            continue;
        };
        // Typed only into an empty, idle prompt; otherwise the line stays
        // armed and the pane's integration takes it at its next prompt.
        let line = take_command(&bin, p.pane, shell);
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
    Ok(Restored {
        plans,
        places,
        nothing,
        attach,
    })
}

/// Whether a saved pane can be recreated exactly: its session name and its
/// directory both pass the tmux value boundary.
fn recreatable(session: &str, cwd: &std::path::Path) -> Result<(), Refused> {
    literal(Value::SessionName, session.as_ref())?;
    literal(Value::Directory, cwd.as_os_str())?;
    Ok(())
}

/// How long the `init tmux` hooks stay quiet for a restore at most: a
/// restore that dies leaves them silenced no longer than this. Each window
/// a restore makes sets the deadline again.
const RESTORE_QUIET: Duration = Duration::from_secs(60);

/// What [`recreate_missing`] did.
struct Recreated {
    /// The sessions it made a window in.
    sessions: BTreeSet<String>,
    /// Whether it ran any tmux command that creates (so the hooks were
    /// quieted and a save is due).
    tried: bool,
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
    fates: &BTreeMap<PaneId, Fate>,
    existing: &BTreeSet<&str>,
    tickets: &Tickets,
) -> Recreated {
    let mut made_sessions = BTreeSet::new();
    let mut tried = false;
    for s in &snap.sessions {
        let mut session_made = existing.contains(s.name.as_str());
        let mut window_made = false;
        let mut active_target = None;
        for w in &s.windows {
            let creates: Vec<(u32, Start<'_>)> = w
                .panes
                .iter()
                .filter_map(|p| match fates.get(&p.id) {
                    Some(Fate::Create(cwd)) => Some((
                        p.index,
                        Start {
                            take: tickets.keys.get(&p.id).copied(),
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
                    eprintln!("agent-resume: a pane was not recreated ({e})");
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
                    (Some(t), _) => tmux.split(t, start).inspect(|_| {
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
                        eprintln!("agent-resume: a pane was not recreated ({e})");
                        continue;
                    }
                };
                session_made = true;
                window_made = true;
                if w.index == s.active_window && *index == w.active_pane {
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
        if window_made {
            made_sessions.insert(s.name.clone());
        }
    }
    Recreated {
        sessions: made_sessions,
        tried,
    }
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
