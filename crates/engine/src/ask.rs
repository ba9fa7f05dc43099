//! Asking before a resume (`restore = "ask"`): one line on the pane's own
//! terminal — the agent, the directory, the recording's age, the command,
//! and the posture flags it carries by name — and one key read from it.
//! Only `y` or `Y` resumes; any other key, end of input or no terminal at
//! all leaves a plain shell. Nothing is typed into the shell's line
//! editor: the key is read from the terminal by this process, in
//! non-canonical mode without echo, and the terminal's mode is put back
//! before the answer is acted on.
//!
//! # Example
//!
//! ```
//! use agent_resume_core::{AgentKind, UnixMillis};
//! use agent_resume_engine::ask::{question, is_yes};
//!
//! let argv = ["claude", "--dangerously-skip-permissions", "--resume", "f6066ebb-140e-4519-ab63-b9cde0b60b57"]
//!     .map(String::from);
//! let q = question(AgentKind::Claude, std::path::Path::new("/work/app"), UnixMillis(0), UnixMillis(7_200_000), &argv);
//! assert!(q.contains("claude in /work/app, 2h ago"));
//! assert!(q.contains("carries --dangerously-skip-permissions"));
//! assert!(is_yes(b'y') && !is_yes(b'\r') && !is_yes(b'n'));
//! ```

use std::io::{Read, Write};
use std::path::Path;

use agent_resume_core::{extract_words, AgentKind, Catalog, Extraction, UnixMillis};

/// Whether the key answers yes.
pub fn is_yes(key: u8) -> bool {
    matches!(key, b'y' | b'Y')
}

/// The question for resuming `argv` (validated words) of `agent` in `dir`
/// from a recording observed at `observed`, asked at `now`. Every value is
/// escaped: nothing in it can move the cursor or change the terminal.
pub fn question(
    agent: AgentKind,
    dir: &Path,
    observed: UnixMillis,
    now: UnixMillis,
    argv: &[String],
) -> String {
    let decl = Catalog::embedded().agent(agent);
    let posture: Vec<String> = match extract_words(decl, argv) {
        Ok(Extraction::Interactive { flags, .. }) => flags
            .iter()
            .filter(|f| f.is_posture(decl))
            .map(|f| crate::paths::escape(&f.name))
            .collect(),
        _ => Vec::new(),
    };
    let command: Vec<String> = argv.iter().map(|w| crate::paths::escape(w)).collect();
    let mut text = format!(
        "agent-resume: resume {} in {}, {} ago: {}",
        agent.as_str(),
        crate::paths::show(dir),
        crate::host::age(observed, now),
        command.join(" ")
    );
    if !posture.is_empty() {
        text.push_str(&format!(" (carries {})", posture.join(", ")));
    }
    text.push_str("? [y/N] ");
    text
}

/// What the terminal answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Answer {
    /// `y` or `Y`.
    Yes = 0,
    /// Any other key, or the end of input.
    No = 1,
    /// No terminal to ask on.
    NoTerminal = 2,
}

impl Answer {
    /// Every variant.
    pub const VARIANTS: &'static [Answer] = &[Answer::Yes, Answer::No, Answer::NoTerminal];
}

/// Asks `text` on the controlling terminal (`/dev/tty`) and reads one key.
pub fn ask_terminal(text: &str) -> Answer {
    let Ok(mut tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return Answer::NoTerminal;
    };
    let Ok(saved) = rustix::termios::tcgetattr(&tty) else {
        return Answer::NoTerminal;
    };
    let mut raw = saved.clone();
    raw.local_modes
        .remove(rustix::termios::LocalModes::ICANON | rustix::termios::LocalModes::ECHO);
    raw.special_codes[rustix::termios::SpecialCodeIndex::VMIN] = 1;
    raw.special_codes[rustix::termios::SpecialCodeIndex::VTIME] = 0;
    if rustix::termios::tcsetattr(&tty, rustix::termios::OptionalActions::Now, &raw).is_err() {
        return Answer::NoTerminal;
    }
    let _ = tty.write_all(text.as_bytes());
    let _ = tty.flush();
    let mut key = [0u8; 1];
    let read = tty.read(&mut key);
    let _ = rustix::termios::tcsetattr(&tty, rustix::termios::OptionalActions::Now, &saved);
    let answer = match read {
        Ok(1) if is_yes(key[0]) => Answer::Yes,
        _ => Answer::No,
    };
    let _ = tty.write_all(if answer == Answer::Yes {
        b"y\r\n"
    } else {
        b"n\r\n"
    });
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_escapes_every_value_and_names_posture() {
        let argv = ["claude", "--resume", "f6066ebb-140e-4519-ab63-b9cde0b60b57"].map(String::from);
        let q = question(
            AgentKind::Claude,
            Path::new("/tmp/a\x1b[2Jb"),
            UnixMillis(0),
            UnixMillis(90_000),
            &argv,
        );
        assert!(!q.chars().any(|c| c.is_control()), "{q:?}");
        assert!(q.contains("1m ago"), "{q}");
        assert!(!q.contains("carries"), "{q}");
        assert!(q.ends_with("? [y/N] "));
    }

    #[test]
    fn only_y_is_yes() {
        for k in 0..=255u8 {
            assert_eq!(is_yes(k), k == b'y' || k == b'Y', "{k}");
        }
    }
}
