//! Typing only into an idle, empty prompt.
//!
//! A foreground shell is not a shell at an empty prompt: it may hold
//! half-typed input (typed text would be appended to it and Enter would run
//! both), be reading a continuation line, or be running a script, a `read`
//! loop or a function. So a pane is typed into only when four facts hold,
//! each checked by tmux or the kernel rather than guessed from the screen:
//!
//! 1. **The integration published an idle prompt.** At each prompt, inside
//!    tmux, the shell integration (`agent-resume init bash|zsh|fish`) writes
//!    the line `<seq>:<pid>` (the prompt's sequence number and the shell's
//!    pid) to its pane's prompt file, [`Prompts`] (`tmux-<server pid>-<pane
//!    number>` in a directory private to this user), last thing before the
//!    prompt is drawn, and the line `-` when a line starts to run (bash's
//!    `DEBUG` trap after `PS0`, zsh `preexec`, fish `fish_preexec`): shell
//!    builtins appending (`>>`), no process per prompt, and no truncation
//!    (ext4 flushes a file rewritten through one); every 100th prompt
//!    starts the file afresh. The newest line holds. A pane without the
//!    integration never has one, and is never typed into.
//! 2. **Nothing else holds the terminal.** The terminal's foreground process
//!    group (`tpgid` in `/proc/<pane pid>/stat`) is the publishing shell's
//!    own group: a program started from the prompt, or a stale marker left
//!    by a shell that died, fails this. Where `/proc` cannot say, nothing is
//!    typed.
//! 3. **The line editor says the line is empty.** The integration binds a
//!    private key sequence ([`PROBE_KEY`]) in every keymap to a handler that
//!    changes nothing and answers, in [`PROBE_OPTION`], `<seq>:empty` only
//!    when the whole edit buffer is empty and continues no unfinished line
//!    (bash: `READLINE_LINE` and a flag `PS2` sets as it is drawn; zsh:
//!    `BUFFER` and `PREBUFFER`; fish: `commandline`), `<seq>:busy`
//!    otherwise. Only a line editor at its prompt runs key bindings, so an
//!    answer also proves the prompt is drawn and reading keys. The probe is
//!    sent only after 1 and 2 hold.
//! 4. **Nothing moved since.** Immediately before typing, the marker and the
//!    foreground group are read again and must be unchanged; the text and
//!    its Enter then go in one tmux command.
//!
//! The residual window is between the last check and tmux writing the keys
//! (one tmux round trip, milliseconds): a key the user presses in exactly
//! that instant lands before the typed line. Everything else leaves the
//! line armed: the restore leaves the pane's id in its pending file
//! ([`Prompts::leave_pending`]), whose presence the integration tests at
//! each prompt (a `stat`), and the integration takes the line at the pane's
//! next prompt, as a prompt hook (never typed).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_resume_core::PaneId;
use agent_resume_engine::private_dir;
use thiserror::Error;

use crate::command::{Tmux, TmuxError};

/// The pane option the probe handler answers in: `<seq>:empty|busy`.
pub const PROBE_OPTION: &str = "@agent_resume_probe";

pub use agent_resume_engine::shell_init::PROMPT_DIR;

/// The prompt files of one user: `<state>/prompt`, private to this user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompts {
    dir: PathBuf,
}

impl Prompts {
    /// The prompt files in `dir` (checked at each read and write).
    pub fn at(dir: impl Into<PathBuf>) -> Prompts {
        Prompts { dir: dir.into() }
    }

    /// This user's: `$XDG_STATE_HOME/agent-resume/prompt`.
    pub fn here() -> Option<Prompts> {
        agent_resume_engine::paths::state()
            .ok()
            .map(|s| Prompts::at(s.join(PROMPT_DIR)))
    }

    /// The directory, made private when missing (the shell integration's
    /// `init` embeds it).
    pub fn ensure(&self) -> Result<&Path, agent_resume_engine::private_dir::DirError> {
        agent_resume_engine::private_dir::ensure(&self.dir).map(|()| self.dir.as_path())
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The prompt file's name of pane `%<pane>` of the server whose pid is
    /// `server`: the shell derives the same from `$TMUX` and `$TMUX_PANE`.
    pub fn name(server: u32, pane: u32) -> String {
        format!("tmux-{server}-{pane}")
    }

    /// The prompt that pane published, if any: the last line of its
    /// prompt file, `<seq>:<pid>` at a prompt, `-` once a line runs (any
    /// shell of the pane appends; the newest line holds).
    pub fn published(&self, server: u32, pane: u32) -> Option<Prompt> {
        private_dir::last_line(&self.dir, &Prompts::name(server, pane))
            .as_deref()
            .and_then(Prompt::parse)
    }

    /// The prompt a prompt file's `tail` holds, as [`Prompts::published`]
    /// reads it (`from_middle`: the tail starts inside the file).
    pub fn published_in(tail: &[u8], from_middle: bool) -> Option<Prompt> {
        private_dir::last_line_of(tail, from_middle).and_then(Prompt::parse)
    }

    /// Leaves the pane a note that `id`'s armed line waits for it: the
    /// integration takes it at the pane's next prompt.
    pub fn leave_pending(&self, server: u32, pane: u32, id: PaneId) -> std::io::Result<()> {
        private_dir::write(
            &self.dir,
            &format!("{}.pending", Prompts::name(server, pane)),
            &id.to_string(),
        )
    }

    /// Takes (reads and removes) the pane's pending note, once.
    pub fn take_pending(&self, server: u32, pane: u32) -> Option<PaneId> {
        private_dir::take(
            &self.dir,
            &format!("{}.pending", Prompts::name(server, pane)),
        )?
        .trim_end()
        .parse()
        .ok()
    }
}

/// The tmux server pid and pane number this process runs in, from `$TMUX`
/// (`<socket>,<server pid>,<session>`; the socket path may hold commas)
/// and `$TMUX_PANE` (`%<n>`).
pub fn here_in(tmux: &str, pane: &str) -> Option<(u32, u32)> {
    let (rest, _session) = tmux.rsplit_once(',')?;
    let (_socket, server) = rest.rsplit_once(',')?;
    let server = u32::try_from(digits(server)?).ok()?;
    let pane = u32::try_from(digits(pane.strip_prefix('%')?)?).ok()?;
    Some((server, pane))
}

/// The probe key sequence (`ESC [ 5 9 9 9 9 ~`), bound by the integration
/// in every keymap; no terminal sends it.
pub const PROBE_KEY: &[u8] = b"\x1b[59999~";

/// How long a restore waits for the probe's answer.
pub const PROBE_PATIENCE: Duration = Duration::from_secs(3);

/// Between two reads of the probe's answer.
const POLL: Duration = Duration::from_millis(10);

/// A prompt the integration published.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// The prompt's sequence number in its shell.
    pub seq: u64,
    /// The shell's pid (its own process group at the prompt).
    pub pid: u32,
}

impl Prompt {
    /// Parses `<seq>:<pid>`: ASCII digits only, nothing else.
    pub fn parse(text: &str) -> Option<Prompt> {
        let (seq, pid) = text.split_once(':')?;
        Some(Prompt {
            seq: digits(seq)?,
            pid: u32::try_from(digits(pid)?).ok().filter(|p| *p > 1)?,
        })
    }
}

fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// What the probe handler answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Empty(u64),
    Busy(u64),
}

impl Answer {
    fn parse(text: &str) -> Option<Answer> {
        let (seq, state) = text.split_once(':')?;
        let seq = digits(seq)?;
        match state {
            "empty" => Some(Answer::Empty(seq)),
            "busy" => Some(Answer::Busy(seq)),
            _ => None,
        }
    }
}

/// Why a pane was not typed into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NotIdle {
    /// No published prompt: no integration, or a line is running.
    #[error("no idle prompt published (no shell integration, or a command is running)")]
    NoPrompt = 1,
    /// Another process group holds the terminal, or `/proc` cannot say.
    #[error("the shell does not hold its terminal")]
    NotForeground = 2,
    /// The line being edited is not empty.
    #[error("the prompt holds input")]
    HasInput = 3,
    /// The probe went unanswered.
    #[error("the prompt did not answer")]
    NoAnswer = 4,
    /// The prompt changed between the checks and the typing.
    #[error("the prompt changed")]
    Moved = 5,
}

/// What [`Tmux::type_at_idle_prompt`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typed {
    /// The line and Enter were sent.
    Sent,
    /// Nothing was sent.
    Refused(NotIdle),
}

/// The terminal's foreground process group, as the process `pid` sees it
/// (`tpgid` in `/proc/<pid>/stat`).
pub fn foreground_group(pid: u32) -> Option<u32> {
    let mut text = String::new();
    std::fs::File::open(format!("/proc/{pid}/stat"))
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    tpgid(&text)
}

/// The `tpgid` field of a `/proc/<pid>/stat` text. The command name (field
/// 2) is in parentheses and may hold anything: the fields after its last
/// `)` are state, ppid, pgrp, session, tty and tpgid.
fn tpgid(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let group: i64 = rest.split_ascii_whitespace().nth(5)?.parse().ok()?;
    u32::try_from(group).ok().filter(|g| *g > 0)
}

impl Tmux {
    /// The pane's pid and published prompt: the pane's first process,
    /// the server's pid and the pane's number in one tmux command, then
    /// the pane's prompt file.
    fn prompt_state(
        &self,
        prompts: &Prompts,
        target: &str,
    ) -> Result<(Option<u32>, Option<Prompt>), TmuxError> {
        let text = self.run(
            "display-message",
            &[
                "display-message",
                "-p",
                "-t",
                target,
                "#{pane_pid} #{pid} #{pane_id}",
            ],
        )?;
        let mut words = text.trim_end_matches('\n').split(' ');
        let mut number = || words.next().and_then(|w| digits(w.trim_start_matches('%')));
        let pid = number().and_then(|p| u32::try_from(p).ok());
        let server = number().and_then(|p| u32::try_from(p).ok());
        let pane = number().and_then(|p| u32::try_from(p).ok());
        let prompt = server
            .zip(pane)
            .and_then(|(server, pane)| prompts.published(server, pane));
        Ok((pid, prompt))
    }

    /// The server's pid and the pane's number, to name its files.
    fn pane_key(&self, target: &str) -> Result<Option<(u32, u32)>, TmuxError> {
        let text = self.run(
            "display-message",
            &["display-message", "-p", "-t", target, "#{pid} #{pane_id}"],
        )?;
        let mut words = text.trim_end_matches('\n').split(' ');
        let server = words
            .next()
            .and_then(digits)
            .and_then(|p| u32::try_from(p).ok());
        let pane = words
            .next()
            .and_then(|w| w.strip_prefix('%'))
            .and_then(digits)
            .and_then(|p| u32::try_from(p).ok());
        Ok(server.zip(pane))
    }

    /// The published prompt, when the shell that published it holds the
    /// terminal.
    fn idle_prompt(
        &self,
        prompts: &Prompts,
        target: &str,
    ) -> Result<Result<Prompt, NotIdle>, TmuxError> {
        let (pid, prompt) = self.prompt_state(prompts, target)?;
        let Some(prompt) = prompt else {
            return Ok(Err(NotIdle::NoPrompt));
        };
        match pid.and_then(foreground_group) {
            Some(group) if group == prompt.pid => Ok(Ok(prompt)),
            _ => Ok(Err(NotIdle::NotForeground)),
        }
    }

    /// The prompt of pane `target` when its shell sits at it idle with an
    /// empty line (asked with the probe key, answered within `patience`),
    /// else why not. Changes nothing in the pane.
    fn probe_empty(
        &self,
        prompts: &Prompts,
        target: &str,
        patience: Duration,
    ) -> Result<Result<Prompt, NotIdle>, TmuxError> {
        let prompt = match self.idle_prompt(prompts, target)? {
            Ok(p) => p,
            Err(why) => return Ok(Err(why)),
        };
        let hex: Vec<String> = PROBE_KEY.iter().map(|b| format!("{b:02x}")).collect();
        let mut args = vec!["set-option", "-p", "-u", "-t", target, PROBE_OPTION, ";"];
        args.extend(["send-keys", "-t", target, "-H"]);
        args.extend(hex.iter().map(String::as_str));
        self.run("send-keys", &args)?;
        let deadline = Instant::now() + patience;
        let answer = loop {
            let text = self.run(
                "display-message",
                &[
                    "display-message",
                    "-p",
                    "-t",
                    target,
                    "#{@agent_resume_probe}",
                ],
            )?;
            if let Some(a) = Answer::parse(text.trim_end_matches('\n')) {
                break a;
            }
            if Instant::now() >= deadline {
                return Ok(Err(NotIdle::NoAnswer));
            }
            std::thread::sleep(POLL);
        };
        match answer {
            Answer::Empty(seq) if seq == prompt.seq => Ok(Ok(prompt)),
            Answer::Busy(seq) if seq == prompt.seq => Ok(Err(NotIdle::HasInput)),
            Answer::Empty(_) | Answer::Busy(_) => Ok(Err(NotIdle::Moved)),
        }
    }

    /// Whether pane `target`'s shell sits at its first prompt, nothing run
    /// and nothing typed there: waits up to `patience` for the prompt to
    /// be published.
    pub fn at_first_prompt(
        &self,
        prompts: &Prompts,
        target: &str,
        patience: Duration,
    ) -> Result<bool, TmuxError> {
        let deadline = Instant::now() + patience;
        loop {
            match self.idle_prompt(prompts, target)? {
                Ok(p) if p.seq == 1 => break,
                Ok(_) => return Ok(false),
                Err(_) if Instant::now() < deadline => std::thread::sleep(POLL),
                Err(_) => return Ok(false),
            }
        }
        Ok(matches!(self.probe_empty(prompts, target, patience)?, Ok(p) if p.seq == 1))
    }

    /// Types `text` and Enter into pane `target` only when its shell sits at
    /// an empty, idle prompt (see the module docs); otherwise sends nothing
    /// and says why. Refuses every control character, and a `;` at the end
    /// (tmux would read it as a command separator).
    pub fn type_at_idle_prompt(
        &self,
        prompts: &Prompts,
        target: &str,
        text: &str,
        patience: Duration,
    ) -> Result<Typed, TmuxError> {
        if text.chars().any(char::is_control) {
            return Err(TmuxError::ControlCharacter);
        }
        if text.is_empty() || text.ends_with(';') {
            return Err(TmuxError::Unsafe("typed text"));
        }
        let prompt = match self.probe_empty(prompts, target, patience)? {
            Ok(p) => p,
            Err(why) => return Ok(Typed::Refused(why)),
        };
        // Immediately before typing: the same prompt, its shell in front.
        match self.idle_prompt(prompts, target)? {
            Ok(now) if now == prompt => {}
            Ok(_) | Err(_) => return Ok(Typed::Refused(NotIdle::Moved)),
        }
        self.run(
            "send-keys",
            &[
                "send-keys",
                "-t",
                target,
                "-l",
                "--",
                text,
                ";",
                "send-keys",
                "-t",
                target,
                "Enter",
            ],
        )?;
        Ok(Typed::Sent)
    }

    /// Leaves pane `target` a note that `id`'s armed line waits for it: the
    /// integration takes it at the pane's next prompt.
    pub fn leave_pending(
        &self,
        prompts: &Prompts,
        target: &str,
        id: PaneId,
    ) -> Result<(), TmuxError> {
        let (server, pane) = self
            .pane_key(target)?
            .ok_or(TmuxError::Unsafe("pane without a server pid or number"))?;
        prompts
            .leave_pending(server, pane, id)
            .map_err(|_| TmuxError::Unsafe("pending note"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::command::Socket;

    #[test]
    fn only_a_well_formed_marker_is_a_published_prompt() {
        assert_eq!(Prompt::parse("3:4242"), Some(Prompt { seq: 3, pid: 4242 }));
        for bad in [
            "",
            ":",
            "3",
            "3:",
            ":4242",
            "3:1",
            "3:0",
            "+3:4242",
            "3:4242\n",
            "3: 4242",
            "3:4242:1",
            "x:4242",
            "3:99999999999",
            "-1:4242",
        ] {
            assert_eq!(Prompt::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn only_a_well_formed_answer_is_an_answer() {
        assert_eq!(Answer::parse("3:empty"), Some(Answer::Empty(3)));
        assert_eq!(Answer::parse("3:busy"), Some(Answer::Busy(3)));
        for bad in ["", "3", "3:", "3:Empty", "3:empty ", ":empty", "a:busy"] {
            assert_eq!(Answer::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_pane_is_named_from_tmux_s_own_variables_whatever_its_socket_path() {
        assert_eq!(here_in("/tmp/tmux-0/default,1234,0", "%7"), Some((1234, 7)));
        assert_eq!(here_in("/tmp/a,b,c/x,55,3", "%0"), Some((55, 0)));
        for (tmux, pane) in [
            ("", "%1"),
            ("/tmp/s,1234", "%1"),
            ("/tmp/s,,0", "%1"),
            ("/tmp/s,x,0", "%1"),
            ("/tmp/s,1234,0", "1"),
            ("/tmp/s,1234,0", "%"),
            ("/tmp/s,1234,0", "%1a"),
            ("/tmp/s,99999999999,0", "%1"),
        ] {
            assert_eq!(here_in(tmux, pane), None, "{tmux:?} {pane:?}");
        }
    }

    #[test]
    fn a_published_prompt_and_a_pending_note_live_in_the_private_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let prompts = Prompts::at(tmp.path().join("prompt"));
        prompts.ensure().unwrap();
        assert_eq!(prompts.published(12, 3), None);
        std::fs::write(prompts.dir().join("tmux-12-3"), "3:777\n-\n4:777\n").unwrap();
        assert_eq!(prompts.published(12, 3), Some(Prompt { seq: 4, pid: 777 }));
        // A line running: no prompt.
        std::fs::write(prompts.dir().join("tmux-12-3"), "3:777\n-\n4:777\n-\n").unwrap();
        assert_eq!(prompts.published(12, 3), None);
        let id: PaneId = "f6066ebb-140e-4519-ab63-b9cde0b60b57".parse().unwrap();
        prompts.leave_pending(12, 3, id).unwrap();
        assert_eq!(prompts.take_pending(12, 4), None);
        assert_eq!(prompts.take_pending(12, 3), Some(id));
        assert_eq!(prompts.take_pending(12, 3), None);
    }

    #[test]
    fn the_foreground_group_is_read_after_the_last_parenthesis() {
        let stat = "77 (a) 1 2 3 4 5 6) S 1 77 77 34816 99 4194560 0";
        assert_eq!(tpgid(stat), Some(99));
        assert_eq!(tpgid("77 (sleep) S 1 77 77 0 -1 4194560"), None);
        assert_eq!(tpgid("77 (sleep"), None);
        assert_eq!(foreground_group(u32::MAX), None);
    }

    #[test]
    fn typed_text_with_a_control_character_or_a_trailing_separator_is_refused_first() {
        let t = Tmux::new(Socket::Path("/nonexistent/agent-resume-test".into()));
        assert!(matches!(
            t.type_at_idle_prompt(&Prompts::at("/nonexistent"), "%1", "a\tb", PROBE_PATIENCE),
            Err(TmuxError::ControlCharacter)
        ));
        assert!(matches!(
            t.type_at_idle_prompt(&Prompts::at("/nonexistent"), "%1", "a;", PROBE_PATIENCE),
            Err(TmuxError::Unsafe("typed text"))
        ));
    }
}
