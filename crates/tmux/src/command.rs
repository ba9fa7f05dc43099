//! Running tmux: argv only (never a shell), on the default server or a
//! private socket, with every value made literal (`crate::literal`) and
//! every text sent to a pane checked first.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_resume_core::{PaneId, Shell, TakeKey};
use thiserror::Error;

use crate::listing::{parse_listing, ListingError, LivePane, LIST_FORMAT};
use crate::literal::{
    command_argument, current_window_target, literal, session_target, window_target, Refused, Value,
};

/// The pane user option that holds a pane's stable id.
pub const PANE_OPTION: &str = "@agent_resume_pane";

/// The server option a restore sets while it makes sessions, windows and
/// panes: until when (seconds since the epoch) the `init tmux` hooks start
/// no save. The restore clears it and saves once at its end; a restore that
/// died leaves a deadline the hooks stop honouring once it passes.
pub const RESTORING_OPTION: &str = "@agent_resume_restoring";

/// The server option the `init tmux` configuration sets to `%s`, so that
/// `#{T:@agent_resume_clock}` is tmux's time now in seconds since the
/// epoch; set means the hooks are installed.
pub const CLOCK_OPTION: &str = "@agent_resume_clock";

/// The server option a hook sets when it starts a save: until when (seconds
/// since the epoch) other hooks start none. The save clears it in the
/// command list that lists the panes, so a change after that listing starts
/// another save; a save that never ran stops silencing once it passes.
pub const SAVING_OPTION: &str = "@agent_resume_saving";

/// The server option `agent-resume tmux start` (and any restore) sets on
/// a server it restored into, or found nothing to restore into: a server
/// restores its saved layout once, at its start, and never again.
pub const STARTED_OPTION: &str = "@agent_resume_started";

/// The spawn-environment variable holding a new pane's stable id.
const PANE_ENV: &str = "AGENT_RESUME_PANE";

/// The spawn-environment variable holding a new pane's [`TakeKey`].
pub const TAKE_ENV: &str = "AGENT_RESUME_TAKE";

/// The variables a new pane gets in its own spawn environment; `-e` on
/// `new-session` also lands in tmux 3.3's session environment, so they are
/// taken back out of it in the same command list.
const SPAWN_ENV: [&str; 2] = [PANE_ENV, TAKE_ENV];

/// How a new pane starts.
#[derive(Clone, Copy, Debug)]
pub struct Start<'a> {
    /// Its stable id: the pane's `@agent_resume_pane`, set in the command
    /// list that creates the pane, and `AGENT_RESUME_PANE` in the pane's own
    /// spawn environment (never a session's or the server's).
    pub id: PaneId,
    /// The single-use key its first `take` may present instead of asking
    /// the server which pane it runs in ([`TAKE_ENV`] in the pane's own
    /// spawn environment); `None` for a pane with no armed line.
    pub take: Option<TakeKey>,
    /// Its directory, when it still exists.
    pub cwd: Option<&'a Path>,
    /// Its shell; `None` for the server's default command.
    pub shell: Option<Shell>,
    /// The name of the window it starts (`new-session`/`new-window -n`);
    /// `None` leaves tmux's automatic naming. A split ignores it.
    pub name: Option<&'a str>,
}

/// A window [`Tmux::create_window`] makes in one command list.
#[derive(Clone, Debug)]
pub struct NewWindow<'a> {
    /// Its session.
    pub session: &'a str,
    /// Its index.
    pub index: u32,
    /// `Some` when the window starts its session (`new-session`), with the
    /// session's size, if known.
    pub session_size: Option<Option<(u16, u16)>>,
    /// Its panes, in order: the first starts the window, the others split it.
    pub panes: &'a [Start<'a>],
    /// The layout applied once every pane is made (when there are several).
    pub layout: Option<&'a str>,
    /// Sets [`RESTORING_OPTION`] to this deadline (seconds since the epoch)
    /// first, in the same command list, so no hook that the list fires
    /// starts a save.
    pub quiet_until: Option<u64>,
}

/// What [`Tmux::create_window`] made.
#[derive(Debug, Default)]
pub struct Made {
    /// The targets (`%N`) of the panes made, in the order asked.
    pub panes: Vec<String>,
    /// The error that ended the command list early, if one did.
    pub error: Option<TmuxError>,
}

/// Which tmux server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Socket {
    /// The server `tmux` finds itself (`$TMUX`, or the default socket).
    Default,
    /// `-L NAME`.
    Name(String),
    /// `-S PATH`.
    Path(PathBuf),
}

/// Why a tmux command failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TmuxError {
    /// tmux could not be started (not installed?).
    #[error("cannot run tmux: {0}")]
    Spawn(#[source] std::io::Error),
    /// tmux ran and failed.
    #[error("tmux {what} failed: {stderr}")]
    Failed {
        /// The subcommand.
        what: &'static str,
        /// tmux's message, control characters escaped.
        stderr: String,
    },
    /// Text refused before it reached a pane.
    #[error("refused to type text holding a control character")]
    ControlCharacter,
    /// A value that tmux would read as something else (a session name with
    /// a control character, a layout with foreign characters).
    #[error("refused an unsafe {0}")]
    Unsafe(&'static str),
    /// A value refused at the tmux boundary before tmux ran.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// A listing that does not read exactly.
    #[error(transparent)]
    Listing(#[from] ListingError),
    /// tmux answered something other than a pane id (`%N`).
    #[error("tmux {0} did not answer a pane id")]
    Answer(&'static str),
}

/// A tmux server.
#[derive(Clone, Debug)]
pub struct Tmux {
    socket: Socket,
    program: PathBuf,
}

fn escape(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .flat_map(char::escape_default)
        .collect::<String>()
        .replace("\\n", " ")
}

impl Tmux {
    /// The server at `socket`, run with the `tmux` on `PATH`.
    pub fn new(socket: Socket) -> Self {
        Tmux {
            socket,
            program: PathBuf::from("tmux"),
        }
    }

    /// The socket.
    pub fn socket(&self) -> &Socket {
        &self.socket
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        match &self.socket {
            Socket::Default => {}
            Socket::Name(n) => {
                c.args(["-L", n]);
            }
            Socket::Path(p) => {
                c.arg("-S").arg(p);
            }
        }
        // UTF-8 output whatever the locale: otherwise tmux prints `_` for
        // every non-ASCII byte of a value.
        c.arg("-u");
        c.stdin(Stdio::null());
        c
    }

    fn run_bytes<S: AsRef<OsStr>>(
        &self,
        what: &'static str,
        args: &[S],
    ) -> Result<Vec<u8>, TmuxError> {
        let out = self
            .command()
            .args(args)
            .output()
            .map_err(TmuxError::Spawn)?;
        if !out.status.success() {
            return Err(TmuxError::Failed {
                what,
                stderr: escape(&out.stderr),
            });
        }
        Ok(out.stdout)
    }

    /// Runs a command list whose commands print as they go: what it
    /// printed before it ended, and whether it failed.
    fn run_list(
        &self,
        what: &'static str,
        args: &[OsString],
    ) -> Result<(Vec<u8>, Option<TmuxError>), TmuxError> {
        let out = self
            .command()
            .args(args)
            .output()
            .map_err(TmuxError::Spawn)?;
        let failed = (!out.status.success()).then(|| TmuxError::Failed {
            what,
            stderr: escape(&out.stderr),
        });
        Ok((out.stdout, failed))
    }

    pub(crate) fn run<S: AsRef<OsStr>>(
        &self,
        what: &'static str,
        args: &[S],
    ) -> Result<String, TmuxError> {
        self.run_bytes(what, args)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// The pane's text with the last `history` lines of its scrollback,
    /// wrapped lines joined (`capture-pane -p -J -S -<history>`). `target`
    /// is a pane target from the listing (`%N`).
    pub fn capture_text(&self, target: &str, history: u32) -> Result<String, TmuxError> {
        let start = format!("-{history}");
        self.run(
            "capture-pane",
            &["capture-pane", "-p", "-J", "-S", &start, "-t", target],
        )
    }

    /// Whether the server is up.
    pub fn running(&self) -> bool {
        self.command()
            .arg("list-sessions")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Every pane of every session. A listing that does not read exactly
    /// (see [`crate::parse_listing`]) is an error as a whole.
    pub fn list_panes(&self) -> Result<Vec<LivePane>, TmuxError> {
        let bytes = self.run_bytes("list-panes", &["list-panes", "-a", "-F", LIST_FORMAT])?;
        Ok(parse_listing(&bytes)?)
    }

    /// Like [`Tmux::list_panes`], with the server options `unset` cleared
    /// in the same command list, before the listing: a change the listing
    /// misses happens after they are cleared.
    pub fn list_panes_unsetting(&self, unset: &[&str]) -> Result<Vec<LivePane>, TmuxError> {
        let mut args: Vec<&str> = Vec::new();
        for option in unset {
            args.extend(["set-option", "-gu", option, ";"]);
        }
        args.extend(["list-panes", "-a", "-F", LIST_FORMAT]);
        let bytes = self.run_bytes("list-panes", &args)?;
        Ok(parse_listing(&bytes)?)
    }

    /// [`Tmux::list_panes_unsetting`], also saying whether the `init tmux`
    /// hooks are installed ([`CLOCK_OPTION`] holds `%s`), asked in the same
    /// command list.
    pub fn list_panes_unsetting_hooked(
        &self,
        unset: &[&str],
    ) -> Result<(bool, Vec<LivePane>), TmuxError> {
        let mut args: Vec<&str> = vec!["show-options", "-gqv", CLOCK_OPTION, ";"];
        for option in unset {
            args.extend(["set-option", "-gu", option, ";"]);
        }
        args.extend(["list-panes", "-a", "-F", LIST_FORMAT]);
        let bytes = self.run_bytes("list-panes", &args)?;
        // A listing starts with a length (`4:work,…`), never with `%s`.
        let (hooked, listing) = match bytes.strip_prefix(b"%s\n") {
            Some(rest) => (true, rest),
            None => (false, &bytes[..]),
        };
        Ok((hooked, parse_listing(listing)?))
    }

    /// Clears the server option `option`.
    pub fn unset_global(&self, option: &str) -> Result<(), TmuxError> {
        self.run("set-option", &["set-option", "-gu", option])
            .map(drop)
    }

    /// A pane's stable id, if it has one.
    pub fn pane_id(&self, target: &str) -> Result<Option<PaneId>, TmuxError> {
        let text = self.run(
            "display-message",
            &[
                "display-message",
                "-p",
                "-t",
                target,
                "#{@agent_resume_pane}",
            ],
        )?;
        Ok(text.trim().parse().ok())
    }

    /// A pane's first process (`#{pane_pid}`) when the pane's stable id
    /// is `id`: the process a save scans for that pane.
    pub fn pane_pid_of(&self, target: &str, id: PaneId) -> Result<Option<u32>, TmuxError> {
        let text = self.run(
            "display-message",
            &[
                "display-message",
                "-p",
                "-t",
                target,
                "#{pane_pid} #{@agent_resume_pane}",
            ],
        )?;
        let Some((pid, pane)) = text.trim().split_once(' ') else {
            return Ok(None);
        };
        if pane.parse::<PaneId>().ok() != Some(id) {
            return Ok(None);
        }
        Ok(pid.parse::<u32>().ok().filter(|p| *p > 1))
    }

    /// Gives a pane its stable id.
    pub fn set_pane_id(&self, target: &str, id: PaneId) -> Result<(), TmuxError> {
        self.run(
            "set-option",
            &[
                "set-option",
                "-p",
                "-t",
                target,
                PANE_OPTION,
                &id.to_string(),
            ],
        )
        .map(drop)
    }

    /// Gives a pane `id` unless it already has an id (`set-option -o`);
    /// returns the id it has afterwards. A snapshot racing a restore never
    /// overwrites the id the restore gives a new pane.
    pub fn claim_pane_id(&self, target: &str, id: PaneId) -> Result<PaneId, TmuxError> {
        let _ = self.run(
            "set-option",
            &[
                "set-option",
                "-o",
                "-p",
                "-t",
                target,
                PANE_OPTION,
                &id.to_string(),
            ],
        );
        Ok(self.pane_id(target)?.unwrap_or(id))
    }

    /// The server's global hooks, one `name[index] command` per line:
    /// session hooks (`show-hooks -g`), then window and pane hooks
    /// (`show-hooks -gw`; tmux 3.2 and later keep `pane-exited` and
    /// `window-layout-changed` there). Read by `doctor`.
    pub fn global_hooks(&self) -> Result<String, TmuxError> {
        let mut text = self.run("show-hooks", &["show-hooks", "-g"])?;
        if let Ok(window) = self.run("show-hooks", &["show-hooks", "-gw"]) {
            text.push_str(&window);
        }
        Ok(text)
    }

    /// A server option's value (`show-options -gqv`): empty when unset.
    pub fn global_option(&self, option: &str) -> Result<String, TmuxError> {
        self.run("show-options", &["show-options", "-gqv", option])
            .map(|s| s.trim_end_matches('\n').to_owned())
    }

    /// Sets the server option [`STARTED_OPTION`] and says whether it was
    /// set already, in one command list: the server runs a client's whole
    /// list before it serves another, so of any number of callers exactly
    /// one hears `false` from a server.
    pub fn mark_started(&self) -> Result<bool, TmuxError> {
        let text = self.run(
            "set-option",
            &[
                "show-options",
                "-gqv",
                STARTED_OPTION,
                ";",
                "set-option",
                "-g",
                STARTED_OPTION,
                "1",
            ],
        )?;
        Ok(!text.trim().is_empty())
    }

    /// Moves every client of session `from` to session `to`
    /// (`switch-client`), then, when `kill` holds and a client was moved,
    /// ends `from`. Returns how many clients moved.
    pub fn move_clients(&self, from: &str, to: &str, kill: bool) -> Result<usize, TmuxError> {
        let from_t = session_target(from).map_err(|_| TmuxError::Unsafe("session name"))?;
        let to_t = session_target(to).map_err(|_| TmuxError::Unsafe("session name"))?;
        let clients = self.run(
            "list-clients",
            &[
                OsStr::new("list-clients"),
                OsStr::new("-t"),
                &from_t,
                OsStr::new("-F"),
                OsStr::new("#{client_name}"),
            ],
        )?;
        let mut moved = 0;
        for client in clients.lines().filter(|c| is_client_name(c)) {
            moved += 1;
            self.run(
                "switch-client",
                &[
                    OsStr::new("switch-client"),
                    OsStr::new("-c"),
                    OsStr::new(client),
                    OsStr::new("-t"),
                    &to_t,
                ],
            )?;
        }
        if kill && moved > 0 {
            self.run(
                "kill-session",
                &[OsStr::new("kill-session"), OsStr::new("-t"), &from_t],
            )?;
        }
        Ok(moved)
    }

    /// The server's default shell (`default-shell`).
    pub fn default_shell(&self) -> Option<String> {
        self.run("show-options", &["show-options", "-gv", "default-shell"])
            .ok()
            .map(|s| s.trim().to_owned())
    }

    /// Runs `args` (a `new-session`, `new-window` or `split-window` that
    /// prints the new pane's id), then `then`, as ONE tmux command list: the
    /// server runs a client's whole list before it serves another client,
    /// so nothing the new pane runs can ask tmux anything before `then` is
    /// done (and an error in any command drops the rest of the list).
    fn create(
        &self,
        what: &'static str,
        args: Vec<OsString>,
        start: &Start<'_>,
        then: Vec<Vec<OsString>>,
    ) -> Result<String, TmuxError> {
        let mut args = Self::spawn_args(args, start)?;
        for command in then {
            args.push(";".into());
            args.extend(command);
        }
        let target = self.run(what, &args)?.trim().to_owned();
        if !is_pane_target(&target) {
            return Err(TmuxError::Answer(what));
        }
        Ok(target)
    }

    /// `args` (a `new-session`, `new-window` or `split-window`) completed
    /// with the pane's directory, its spawn environment, `-P -F
    /// '#{pane_id}'` and its shell.
    fn spawn_args(mut args: Vec<OsString>, start: &Start<'_>) -> Result<Vec<OsString>, TmuxError> {
        if let Some(cwd) = start.cwd {
            args.push("-c".into());
            args.push(literal(Value::Directory, cwd.as_os_str())?);
        }
        // The new pane's spawn environment only (for `new-session` the
        // caller's `then` unsets it from the session environment).
        let key = start.take.map(|key| format!("{TAKE_ENV}={key}"));
        for env in std::iter::once(format!("{PANE_ENV}={}", start.id)).chain(key) {
            args.push("-e".into());
            args.push(literal(Value::Environment, OsStr::new(&env))?);
        }
        args.extend(["-P", "-F", "#{pane_id}"].map(OsString::from));
        // A known shell by name only: never a command line from the snapshot.
        if let Some(shell) = start.shell {
            args.push(
                match shell {
                    Shell::Bash => "bash",
                    Shell::Zsh => "zsh",
                    Shell::Fish => "fish",
                    Shell::Sh => "sh",
                }
                .into(),
            );
        }
        Ok(args)
    }

    /// `set-environment -u` of each [`SPAWN_ENV`] variable in session
    /// `name`'s environment.
    fn unset_spawn_env(name: &str) -> Result<Vec<Vec<OsString>>, TmuxError> {
        let session = session_target(name)?;
        Ok(SPAWN_ENV
            .iter()
            .map(|var| {
                vec![
                    "set-environment".into(),
                    "-u".into(),
                    "-t".into(),
                    session.clone(),
                    (*var).into(),
                ]
            })
            .collect())
    }

    /// Makes a whole window — `window.panes` in order, the first one by
    /// `new-session` or `new-window`, the others by splitting the first
    /// again and again — in ONE tmux command list: each pane's id option
    /// set right after the command that creates it, the panes re-tiled
    /// between splits, the saved layout applied, and a new session's
    /// window moved to its saved index. One client instead of three or
    /// four per pane, and the server runs the whole list before it serves
    /// anyone else.
    ///
    /// The list stops at its first error: [`Made`] says which panes exist
    /// (their targets, in order, printed as they were made) and the error.
    pub fn create_window(&self, window: &NewWindow<'_>) -> Result<Made, TmuxError> {
        let Some(args) = Self::window_list(window)? else {
            return Ok(Made::default());
        };
        let what = if window.session_size.is_some() {
            "new-session"
        } else {
            "new-window"
        };
        let (out, error) = self.run_list(what, &args)?;
        let text = String::from_utf8_lossy(&out);
        let mut panes = Vec::new();
        for line in text.lines() {
            if !is_pane_target(line) || panes.len() == window.panes.len() {
                return Ok(Made {
                    panes,
                    error: Some(TmuxError::Answer(what)),
                });
            }
            panes.push(line.to_owned());
        }
        Ok(Made { panes, error })
    }

    /// The argv of [`Tmux::create_window`]'s command list; `None` for a
    /// window without panes.
    fn window_list(window: &NewWindow<'_>) -> Result<Option<Vec<OsString>>, TmuxError> {
        let Some((first, rest)) = window.panes.split_first() else {
            return Ok(None);
        };
        let name = window.session;
        let mut args: Vec<OsString> = Vec::new();
        let then = |args: &mut Vec<OsString>, command: Vec<OsString>| {
            args.push(";".into());
            args.extend(command);
        };
        if let Some(until) = window.quiet_until {
            args.extend(
                [
                    "set-option",
                    "-g",
                    RESTORING_OPTION,
                    &until.to_string(),
                    ";",
                ]
                .map(OsString::from),
            );
        }
        // The window, as later commands of the list name it: a new
        // session's only window is its current one until it is moved.
        let target: OsString = match window.session_size {
            Some(_) => current_window_target(name)?.into(),
            None => window_target(name, window.index)?.into(),
        };
        match window.session_size {
            Some(size) => {
                let mut create: Vec<OsString> = vec![
                    "new-session".into(),
                    "-d".into(),
                    "-s".into(),
                    literal(Value::SessionName, OsStr::new(name))?,
                ];
                create.extend(Self::window_name(first)?);
                if let Some((w, h)) = size {
                    create.extend([
                        "-x".into(),
                        w.to_string().into(),
                        "-y".into(),
                        h.to_string().into(),
                    ]);
                }
                args.extend(Self::spawn_args(create, first)?);
                then(
                    &mut args,
                    Self::set_id_command(Some(target.clone()), first.id),
                );
                // `-e` goes to the session environment in tmux 3.3: out again.
                for command in Self::unset_spawn_env(name)? {
                    then(&mut args, command);
                }
            }
            None => {
                let mut create: Vec<OsString> = vec![
                    "new-window".into(),
                    "-d".into(),
                    "-t".into(),
                    target.clone(),
                ];
                create.extend(Self::window_name(first)?);
                args.extend(Self::spawn_args(create, first)?);
                then(
                    &mut args,
                    Self::set_id_command(Some(target.clone()), first.id),
                );
            }
        }
        for start in rest {
            // The split makes the new pane active and the list's current
            // pane (so the `set-option` with no `-t` is about it), and the
            // next split splits it: each pane comes right after the one
            // made before it, so the panes keep their saved order (split
            // the first pane each time and they come back reversed after
            // it, a|b|c|d as a|d|c|b).
            let split = vec!["split-window".into(), "-t".into(), target.clone()];
            then(&mut args, Self::spawn_args(split, start)?);
            then(&mut args, Self::set_id_command(None, start.id));
            // Spread the panes so the next split has room.
            then(
                &mut args,
                vec![
                    "select-layout".into(),
                    "-t".into(),
                    target.clone(),
                    "tiled".into(),
                ],
            );
        }
        if !rest.is_empty() {
            // The first pane active again, as a new window leaves it: in the
            // tiled spread it is the top-left one.
            let mut first = target.clone();
            first.push(".{top-left}");
            then(&mut args, vec!["select-pane".into(), "-t".into(), first]);
        }
        if let Some(layout) = window.layout.filter(|_| !rest.is_empty()) {
            let layout = literal(Value::Layout, OsStr::new(layout))?;
            then(
                &mut args,
                vec!["select-layout".into(), "-t".into(), target.clone(), layout],
            );
        }
        if window.session_size.is_some() {
            // The first window took the session's base-index: renumbered
            // from the saved index instead (a `move-window` onto the index
            // it already has fails, and would end the list), then the
            // session follows the global base-index again.
            let session = current_window_target(name)?;
            let index = window.index.to_string();
            for command in [
                &["set-option", "-t", &session, "base-index", &index][..],
                &["move-window", "-r", "-t", &session],
                &["set-option", "-u", "-t", &session, "base-index"],
            ] {
                then(&mut args, command.iter().map(OsString::from).collect());
            }
        }
        Ok(Some(args))
    }

    /// Moves a new session's only window to `index` (it took the session's
    /// base-index); an index it already has stays.
    pub fn move_first_window(&self, name: &str, index: u32) -> Result<(), TmuxError> {
        let session = current_window_target(name)?;
        self.run(
            "move-window",
            &[
                "move-window",
                "-s",
                &session,
                "-t",
                &window_target(name, index)?,
            ],
        )
        .map(drop)
    }

    /// `set-option -p [-t target] @agent_resume_pane <id>`: the command that
    /// gives a pane its stable id inside a creating command list.
    fn set_id_command(target: Option<OsString>, id: PaneId) -> Vec<OsString> {
        let mut command: Vec<OsString> = vec!["set-option".into(), "-p".into()];
        if let Some(t) = target {
            command.extend(["-t".into(), t]);
        }
        command.extend([PANE_OPTION.into(), id.to_string().into()]);
        command
    }

    fn window_name(start: &Start<'_>) -> Result<Vec<OsString>, TmuxError> {
        Ok(match start.name {
            Some(n) => vec!["-n".into(), literal(Value::WindowName, OsStr::new(n))?],
            None => Vec::new(),
        })
    }

    /// Creates a detached session whose first window has `index`; returns
    /// the new pane's target (`%N`).
    pub fn new_session(
        &self,
        name: &str,
        index: u32,
        size: Option<(u16, u16)>,
        start: &Start<'_>,
    ) -> Result<String, TmuxError> {
        let first_window = window_target(name, index)?;
        let mut args: Vec<OsString> = vec![
            "new-session".into(),
            "-d".into(),
            "-s".into(),
            literal(Value::SessionName, OsStr::new(name))?,
        ];
        args.extend(Self::window_name(start)?);
        // At the saved size, so the saved splits fit (a detached session is
        // 80x24 otherwise).
        if let Some((w, h)) = size {
            args.extend([
                "-x".into(),
                w.to_string().into(),
                "-y".into(),
                h.to_string().into(),
            ]);
        }
        // The session's only pane (`=name:` is its current window, whose
        // active pane it is) gets its id, and `-e`, which tmux 3.3 puts in
        // the session environment every later window and split would
        // inherit, is taken back out of it at once.
        let mut then = vec![Self::set_id_command(
            Some(current_window_target(name)?.into()),
            start.id,
        )];
        then.extend(Self::unset_spawn_env(name)?);
        let target = self.create("new-session", args, start, then)?;
        // The first window takes the session's base-index: move it to the saved index.
        let _ = self.run(
            "move-window",
            &["move-window", "-s", &target, "-t", &first_window],
        );
        Ok(target)
    }

    /// Creates window `index` in session `name`.
    pub fn new_window(
        &self,
        name: &str,
        index: u32,
        start: &Start<'_>,
    ) -> Result<String, TmuxError> {
        let window: OsString = window_target(name, index)?.into();
        let mut args: Vec<OsString> = vec![
            "new-window".into(),
            "-d".into(),
            "-t".into(),
            window.clone(),
        ];
        args.extend(Self::window_name(start)?);
        // `=name:index` is the new window (`new-window` fails on an index in
        // use) and its only pane the one it started.
        let then = vec![Self::set_id_command(Some(window), start.id)];
        self.create("new-window", args, start, then)
    }

    /// Splits the window of pane `target`; `target` stays its active pane.
    pub fn split(&self, target: &str, start: &Start<'_>) -> Result<String, TmuxError> {
        if !is_pane_target(target) {
            return Err(TmuxError::Unsafe("pane target"));
        }
        // Without `-d`, tmux makes the new pane the command list's current
        // pane (`cmd-split-window.c`), so the `set-option` after it with no
        // `-t` is about the new pane; `select-pane` then makes `target`
        // active again, as `-d` would have left it.
        let args: Vec<OsString> = vec!["split-window".into(), "-t".into(), target.into()];
        let then = vec![
            Self::set_id_command(None, start.id),
            vec!["select-pane".into(), "-t".into(), target.into()],
        ];
        self.create("split-window", args, start, then)
    }

    /// Applies a saved window layout string.
    pub fn select_layout(&self, name: &str, index: u32, layout: &str) -> Result<(), TmuxError> {
        let window = window_target(name, index)?;
        let layout = literal(Value::Layout, OsStr::new(layout))?;
        self.run(
            "select-layout",
            &[
                OsStr::new("select-layout"),
                "-t".as_ref(),
                window.as_ref(),
                layout.as_os_str(),
            ],
        )
        .map(drop)
    }

    /// Makes window `index` current in its session and `pane` current in it.
    pub fn select(&self, name: &str, index: u32, pane: Option<&str>) -> Result<(), TmuxError> {
        let window = window_target(name, index)?;
        let mut args = vec!["select-window", "-t", &window];
        // One command list: `select-pane` runs only if the window was found.
        if let Some(p) = pane {
            if !is_pane_target(p) {
                return Err(TmuxError::Unsafe("pane target"));
            }
            args.extend([";", "select-pane", "-t", p]);
        }
        self.run("select-window", &args).map(drop)
    }

    /// Types `text` into pane `target`, then Enter. Refuses every control
    /// character: a line editor is not a parser (TAB completes, CR submits).
    pub fn type_line(&self, target: &str, text: &str) -> Result<(), TmuxError> {
        if text.chars().any(char::is_control) {
            return Err(TmuxError::ControlCharacter);
        }
        // A final `;` would end tmux's command there and go untyped.
        let text = OsString::from_vec(command_argument(text.as_bytes().to_vec()));
        let args = [
            OsStr::new("send-keys"),
            "-t".as_ref(),
            target.as_ref(),
            "-l".as_ref(),
        ];
        self.run(
            "send-keys",
            &[&args[..], &["--".as_ref(), text.as_os_str()]].concat(),
        )?;
        self.run("send-keys", &["send-keys", "-t", target, "Enter"])
            .map(drop)
    }

    /// Stops the server.
    pub fn kill_server(&self) -> Result<(), TmuxError> {
        self.run("kill-server", &["kill-server"]).map(drop)
    }
}

/// A pane id target, `%N`.
/// Whether `name` is a client name as tmux lists it, of plain characters:
/// a terminal's path (`/dev/pts/3`), or `client-<pid>` for a client with
/// no terminal (control mode).
fn is_client_name(name: &str) -> bool {
    (name.starts_with('/') || name.starts_with("client-"))
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
}

fn is_pane_target(target: &str) -> bool {
    target
        .strip_prefix('%')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::Refusal;

    #[test]
    fn typed_text_with_any_control_character_is_refused_before_tmux_runs() {
        // A socket that cannot exist: the refusal must come first.
        let t = Tmux::new(Socket::Path("/nonexistent/agent-resume-test".into()));
        for text in ["a\tb", "a\rb", "a\nb", "\x1b[A", "\x7f", "a\u{85}b"] {
            assert!(
                matches!(t.type_line("%1", text), Err(TmuxError::ControlCharacter)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_window_list_keeps_every_value_whole_and_sets_each_pane_id_where_it_is_made() {
        let ids = [PaneId::from_bytes([1; 16]), PaneId::from_bytes([2; 16])];
        let key: TakeKey = "0b9e4a1c-7d2f-4e8a-9c3b-5f6a7b8c9d0e"
            .parse()
            .expect("a key");
        // The first pane has an armed line (a take key), the second none.
        let panes = ids.map(|id| Start {
            take: (id == ids[0]).then_some(key),
            id,
            cwd: Some(Path::new("/w/a b;")),
            shell: Some(Shell::Bash),
            name: None,
        });
        let list = Tmux::window_list(&NewWindow {
            session: "s;",
            index: 3,
            session_size: Some(Some((200, 60))),
            panes: &panes,
            layout: Some("b25d,80x24,0,0,1"),
            quiet_until: Some(42),
        })
        .expect("every value is accepted")
        .expect("a window with panes has a list");
        let words: Vec<&str> = list
            .iter()
            .map(|w| w.to_str().expect("UTF-8 in, UTF-8 out"))
            .collect();
        // Commands split only at `;` arguments of their own; a value ending
        // in `;` keeps it (`\;`).
        let commands: Vec<&[&str]> = words.split(|w| *w == ";").collect();
        let names: Vec<&str> = commands.iter().map(|c| c[0]).collect();
        assert_eq!(
            names,
            [
                "set-option",
                "new-session",
                "set-option",
                "set-environment",
                "set-environment",
                "split-window",
                "set-option",
                "select-layout",
                "select-pane",
                "select-layout",
                "set-option",
                "move-window",
                "set-option",
            ]
        );
        // Each pane's key in its own spawn environment only; the session
        // environment `-e` also lands in is emptied of both variables.
        let take = format!("{TAKE_ENV}={key}");
        assert!(commands[1].windows(2).any(|w| w == ["-e", take.as_str()]));
        assert_eq!(commands[5][0], "split-window");
        assert!(!commands[5].iter().any(|w| w.starts_with(TAKE_ENV)));
        assert_eq!(
            commands[3],
            ["set-environment", "-u", "-t", "=s\\;", "AGENT_RESUME_PANE"]
        );
        assert_eq!(
            commands[4],
            ["set-environment", "-u", "-t", "=s\\;", TAKE_ENV]
        );
        assert!(commands
            .iter()
            .flat_map(|c| c.iter())
            .all(|w| !w.ends_with(';') || w.ends_with("\\;")));
        assert_eq!(commands[0], ["set-option", "-g", RESTORING_OPTION, "42"]);
        assert!(commands[1].windows(2).any(|w| w == ["-s", "s\\;"]));
        assert!(commands[1].windows(2).any(|w| w == ["-c", "/w/a b\\;"]));
        // Each pane's id is set by the command right after the one that
        // makes it.
        let id = |i: usize| ids[i].to_string();
        assert_eq!(
            commands[2],
            ["set-option", "-p", "-t", "=s;:", PANE_OPTION, &id(0)]
        );
        assert_eq!(commands[6], ["set-option", "-p", PANE_OPTION, &id(1)]);
        // Each split splits the pane made before it (the active one), then
        // the first pane is made active again.
        assert_eq!(commands[5][..3], ["split-window", "-t", "=s;:"]);
        assert_eq!(commands[8], ["select-pane", "-t", "=s;:.{top-left}"]);
        assert_eq!(
            commands[10],
            ["set-option", "-t", "=s;:", "base-index", "3"]
        );
    }

    #[test]
    fn a_window_list_refuses_an_unsafe_value_before_tmux_runs() {
        let t = Tmux::new(Socket::Path("/nonexistent/agent-resume-test".into()));
        let start = |cwd: &'static str| Start {
            take: None,
            id: PaneId::from_bytes([1; 16]),
            cwd: Some(Path::new(cwd)),
            shell: None,
            name: None,
        };
        let window = |panes, layout| NewWindow {
            session: "s",
            index: 0,
            session_size: None,
            panes,
            layout,
            quiet_until: None,
        };
        let refused = |r: Result<Made, TmuxError>| match r {
            Err(TmuxError::Refused(r)) => r,
            other => panic!("not refused at the boundary: {other:?}"),
        };
        let panes = [start("/a"), start("/b\tc")];
        assert_eq!(
            refused(t.create_window(&window(&panes, None))),
            Refused {
                value: Value::Directory,
                why: Refusal::ControlCharacter
            }
        );
        let panes = [start("/a"), start("/b")];
        assert_eq!(
            refused(t.create_window(&window(&panes, Some("b25d,80x24;rm")))),
            Refused {
                value: Value::Layout,
                why: Refusal::Foreign
            }
        );
        let mut bad = window(&panes, None);
        bad.session = "a:b";
        assert_eq!(
            refused(t.create_window(&bad)),
            Refused {
                value: Value::TargetSession,
                why: Refusal::TargetSeparator
            }
        );
    }

    #[test]
    fn unsafe_names_and_layouts_are_refused() {
        let t = Tmux::new(Socket::Path("/nonexistent/agent-resume-test".into()));
        let refused = |value, why| Err::<(), _>(Refused { value, why });
        let why = |r: Result<(), TmuxError>| match r {
            Err(TmuxError::Refused(r)) => Err(r),
            other => panic!("not refused at the boundary: {other:?}"),
        };
        assert_eq!(
            why(t.select_layout("s", 0, "b25d,80x24;rm")),
            refused(Value::Layout, Refusal::Foreign)
        );
        assert_eq!(
            why(t.select("a:b", 0, None)),
            refused(Value::TargetSession, Refusal::TargetSeparator)
        );
        assert_eq!(
            why(t.select("a\nb", 0, None)),
            refused(Value::TargetSession, Refusal::ControlCharacter)
        );
        let start = |cwd: &'static str, name| Start {
            take: None,
            id: PaneId::from_bytes([1; 16]),
            cwd: Some(Path::new(cwd)),
            shell: None,
            name,
        };
        assert_eq!(
            why(t.new_session("s", 0, None, &start("/a\tb", None)).map(drop)),
            refused(Value::Directory, Refusal::ControlCharacter)
        );
        assert_eq!(
            why(t.new_window("s", 0, &start("/a", Some("a\\b"))).map(drop)),
            refused(Value::WindowName, Refusal::Rewritten)
        );
    }
}
