//! Running tmux: argv only (never a shell), on the default server or a
//! private socket, with every text sent to a pane checked first.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_resume_core::{PaneId, Shell};
use thiserror::Error;

use crate::model::{LivePane, LIST_FORMAT};

/// The pane user option that holds a pane's stable id.
pub const PANE_OPTION: &str = "@agent_resume_pane";

/// How a new pane starts.
#[derive(Clone, Copy, Debug)]
pub struct Start<'a> {
    /// Its stable id (also set as `AGENT_RESUME_PANE` in its environment).
    pub id: PaneId,
    /// Its directory, when it still exists.
    pub cwd: Option<&'a Path>,
    /// Its shell; `None` for the server's default command.
    pub shell: Option<Shell>,
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
        c.stdin(Stdio::null());
        c
    }

    pub(crate) fn run(&self, what: &'static str, args: &[&str]) -> Result<String, TmuxError> {
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
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
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

    /// Every pane of every session (lines that do not parse are skipped).
    pub fn list_panes(&self) -> Result<Vec<LivePane>, TmuxError> {
        let text = self.run("list-panes", &["list-panes", "-a", "-F", LIST_FORMAT])?;
        Ok(text.lines().filter_map(LivePane::parse_line).collect())
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

    /// The server's default shell (`default-shell`).
    pub fn default_shell(&self) -> Option<String> {
        self.run("show-options", &["show-options", "-gv", "default-shell"])
            .ok()
            .map(|s| s.trim().to_owned())
    }

    fn env_args(id: PaneId) -> [String; 2] {
        ["-e".to_owned(), format!("AGENT_RESUME_PANE={id}")]
    }

    fn cwd_args(cwd: Option<&Path>) -> Vec<String> {
        match cwd.and_then(Path::to_str) {
            Some(dir) => vec!["-c".to_owned(), dir.to_owned()],
            None => Vec::new(),
        }
    }

    fn create(
        &self,
        what: &'static str,
        mut args: Vec<String>,
        start: &Start<'_>,
    ) -> Result<String, TmuxError> {
        args.extend(Self::cwd_args(start.cwd));
        args.extend(Self::env_args(start.id));
        args.extend(["-P".to_owned(), "-F".to_owned(), "#{pane_id}".to_owned()]);
        // A known shell by name only: never a command line from the snapshot.
        if let Some(shell) = start.shell {
            args.push(
                match shell {
                    Shell::Bash => "bash",
                    Shell::Zsh => "zsh",
                    Shell::Fish => "fish",
                    Shell::Sh => "sh",
                }
                .to_owned(),
            );
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let target = self.run(what, &refs)?.trim().to_owned();
        self.set_pane_id(&target, start.id)?;
        Ok(target)
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
        check_name(name)?;
        let mut args = vec!["new-session".into(), "-d".into(), "-s".into(), name.into()];
        // At the saved size, so the saved splits fit (a detached session is
        // 80x24 otherwise).
        if let Some((w, h)) = size {
            args.extend(["-x".into(), w.to_string(), "-y".into(), h.to_string()]);
        }
        let target = self.create("new-session", args, start)?;
        // The first window takes the session's base-index: move it to the saved index.
        let _ = self.run(
            "move-window",
            &[
                "move-window",
                "-s",
                &format!("={name}:"),
                "-t",
                &format!("={name}:{index}"),
            ],
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
        check_name(name)?;
        let args = vec![
            "new-window".into(),
            "-d".into(),
            "-t".into(),
            format!("={name}:{index}"),
        ];
        self.create("new-window", args, start)
    }

    /// Splits the window of pane `target`.
    pub fn split(&self, target: &str, start: &Start<'_>) -> Result<String, TmuxError> {
        let args = vec![
            "split-window".into(),
            "-d".into(),
            "-t".into(),
            target.into(),
        ];
        self.create("split-window", args, start)
    }

    /// Applies a saved window layout string.
    pub fn select_layout(&self, name: &str, index: u32, layout: &str) -> Result<(), TmuxError> {
        check_name(name)?;
        let named = matches!(
            layout,
            "tiled" | "even-horizontal" | "even-vertical" | "main-horizontal" | "main-vertical"
        );
        if !named
            && (layout.is_empty()
                || !layout
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || b"x,{}[]".contains(&b)))
        {
            return Err(TmuxError::Unsafe("layout"));
        }
        self.run(
            "select-layout",
            &["select-layout", "-t", &format!("={name}:{index}"), layout],
        )
        .map(drop)
    }

    /// Makes window `index` current in its session and `pane` current in it.
    pub fn select(&self, name: &str, index: u32, pane: Option<&str>) -> Result<(), TmuxError> {
        check_name(name)?;
        self.run(
            "select-window",
            &["select-window", "-t", &format!("={name}:{index}")],
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
        self.run("send-keys", &["send-keys", "-t", target, "-l", "--", text])?;
        self.run("send-keys", &["send-keys", "-t", target, "Enter"])
            .map(drop)
    }

    /// Stops the server.
    pub fn kill_server(&self) -> Result<(), TmuxError> {
        self.run("kill-server", &["kill-server"]).map(drop)
    }
}

/// A session name tmux will read back as the same name.
fn check_name(name: &str) -> Result<(), TmuxError> {
    if name.is_empty() || name.chars().any(|c| c.is_control() || c == ':' || c == '.') {
        return Err(TmuxError::Unsafe("session name"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(matches!(
            t.select_layout("s", 0, "b25d,80x24;rm"),
            Err(TmuxError::Unsafe("layout"))
        ));
        assert!(matches!(
            t.select("a:b", 0, None),
            Err(TmuxError::Unsafe("session name"))
        ));
        assert!(matches!(
            t.select("a\nb", 0, None),
            Err(TmuxError::Unsafe("session name"))
        ));
    }
}
