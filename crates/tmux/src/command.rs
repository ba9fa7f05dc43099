//! Running tmux: argv only (never a shell), on the default server or a
//! private socket, with every value made literal (`crate::literal`) and
//! every text sent to a pane checked first.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_resume_core::{PaneId, Shell};
use thiserror::Error;

use crate::listing::{parse_listing, ListingError, LivePane, LIST_FORMAT};
use crate::literal::{
    command_argument, current_window_target, literal, session_target, window_target, Refused, Value,
};

/// The pane user option that holds a pane's stable id.
pub const PANE_OPTION: &str = "@agent_resume_pane";

/// How a new pane starts.
#[derive(Clone, Copy, Debug)]
pub struct Start<'a> {
    /// Its stable id: the pane's `@agent_resume_pane`, set in the command
    /// list that creates the pane, and `AGENT_RESUME_PANE` in the pane's own
    /// spawn environment (never a session's or the server's).
    pub id: PaneId,
    /// Its directory, when it still exists.
    pub cwd: Option<&'a Path>,
    /// Its shell; `None` for the server's default command.
    pub shell: Option<Shell>,
    /// The name of the window it starts (`new-session`/`new-window -n`);
    /// `None` leaves tmux's automatic naming. A split ignores it.
    pub name: Option<&'a str>,
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
        mut args: Vec<OsString>,
        start: &Start<'_>,
        then: Vec<Vec<OsString>>,
    ) -> Result<String, TmuxError> {
        if let Some(cwd) = start.cwd {
            args.push("-c".into());
            args.push(literal(Value::Directory, cwd.as_os_str())?);
        }
        // The new pane's spawn environment only (for `new-session` the
        // caller's `then` unsets it from the session environment).
        args.push("-e".into());
        let env = format!("AGENT_RESUME_PANE={}", start.id);
        args.push(literal(Value::Environment, OsStr::new(&env))?);
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
        for command in then {
            args.push(";".into());
            args.extend(command);
        }
        let target = self.run(what, &args)?.trim().to_owned();
        let digits = target.strip_prefix('%').unwrap_or_default();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(TmuxError::Answer(what));
        }
        Ok(target)
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
        let session = session_target(name)?;
        let then = vec![
            Self::set_id_command(Some(current_window_target(name)?.into()), start.id),
            vec![
                "set-environment".into(),
                "-u".into(),
                "-t".into(),
                session,
                "AGENT_RESUME_PANE".into(),
            ],
        ];
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
        self.run(
            "select-window",
            &["select-window", "-t", &window_target(name, index)?],
        )?;
        if let Some(p) = pane {
            self.run("select-pane", &["select-pane", "-t", p])?;
        }
        Ok(())
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
