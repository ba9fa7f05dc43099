//! The shell integration's scripts, and the files a startup file sources.
//!
//! `agent-resume init bash|zsh|fish` prints a script for `eval`; that costs
//! one process at every shell start, also with the feature off. The line
//! [`rc_line`] gives instead sources a file [`write_files`] keeps (written
//! by `agent-resume enable`, removed by `agent-resume disable`): a shell
//! start then runs no process at all, and with the feature off nothing
//! loads. The script is the same either way, rendered from the templates
//! beside this module with the binary's path, the private prompt directory
//! and the agents' command words.
//!
//! ```
//! use agent_resume_core::Shell;
//! use agent_resume_engine::shell_init::{rc_line, script};
//!
//! let text = script(Shell::Bash, "/usr/bin/agent-resume", Some("/run/p".as_ref()));
//! assert!(text.contains("__agent_resume_bin='/usr/bin/agent-resume'"));
//! let line = rc_line(Shell::Fish, "/home/u/.local/share/agent-resume/shell/agent-resume.fish".as_ref()).unwrap();
//! assert!(line.starts_with("test -r '/home/u/"));
//! ```

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use agent_resume_core::{quote, Catalog, Shell};

use crate::paths;
use crate::private_dir;

const BASH: &str = include_str!("shell_init/agent-resume.bash");
const ZSH: &str = include_str!("shell_init/agent-resume.zsh");
const FISH: &str = include_str!("shell_init/agent-resume.fish");

/// The shells with an integration.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// The directory under the state directory where prompts are published
/// (`agent_resume_tmux::Prompts`).
pub const PROMPT_DIR: &str = "prompt";

/// The private prompt directory's path,
/// `$XDG_STATE_HOME/agent-resume/prompt`: nothing is made or read (a
/// shell start and `doctor` only name it).
pub fn prompt_path() -> Option<PathBuf> {
    Some(paths::state().ok()?.join(PROMPT_DIR))
}

/// The private prompt directory, made when missing (by `enable`, and by a
/// tmux server's start with the feature on); `None` when it is not
/// private: no prompt is then ever published, and no restore types into a
/// pane.
pub fn prompt_dir() -> Option<PathBuf> {
    let dir = prompt_path()?;
    private_dir::ensure(&dir).ok().map(|()| dir)
}

/// Why [`startup_line`] has no line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// A shell without an integration.
    #[error("--rc-line is for bash, zsh and fish")]
    NoIntegration,
    /// Neither `XDG_DATA_HOME` nor `HOME` names the data directory.
    #[error("no data directory (set HOME or XDG_DATA_HOME)")]
    NoDataDir,
    /// The file's path cannot be quoted for the shells.
    #[error("the path {0} cannot be written into a startup file exactly")]
    Unquotable(String),
}

/// The startup-file line for `shell` ([`rc_line`] of its [`file()`]), with
/// its newline.
pub fn startup_line(shell: Shell) -> Result<String, LineError> {
    if !SHELLS.contains(&shell) {
        return Err(LineError::NoIntegration);
    }
    let file = file(shell).ok_or(LineError::NoDataDir)?;
    let line = rc_line(shell, &file).ok_or_else(|| LineError::Unquotable(paths::show(&file)))?;
    Ok(format!("{line}\n"))
}

/// The script for `shell`, running `bin`, publishing prompts in `prompts`.
/// `None` for a shell without an integration (`sh`).
pub fn script(shell: Shell, bin: &str, prompts: Option<&Path>) -> String {
    let template = match shell {
        Shell::Bash => BASH,
        Shell::Zsh => ZSH,
        Shell::Fish => FISH,
        Shell::Sh => return String::new(),
    };
    let bin = quote(bin).unwrap_or_else(|_| "agent-resume".to_owned());
    let prompts = prompts
        .and_then(Path::to_str)
        .and_then(|d| quote(d).ok())
        .unwrap_or_else(|| "''".to_owned());
    // Command words are plain words (the catalog loader checks it).
    let words: Vec<&str> = Catalog::embedded()
        .agents()
        .iter()
        .flat_map(|a| a.commands.iter().map(String::as_str))
        .collect();
    let pattern = quote(&fish_agent_pattern(&words)).unwrap_or_else(|_| "'^$'".to_owned());
    // `AGENT_RESUME=0` turns the feature off for this shell: the whole
    // script is one block that defines nothing then (a `return` would end
    // the startup file that evals it).
    let (open, close) = match shell {
        Shell::Fish => ("if test \"$AGENT_RESUME\" != 0\n", "end\n"),
        _ => ("if [ \"${AGENT_RESUME-}\" != 0 ]; then\n", "fi\n"),
    };
    let body = template
        .replace("@AGENT_RESUME_AGENT_RE@", &pattern)
        .replace("@AGENT_RESUME_BIN@", &bin)
        .replace("@AGENT_RESUME_PROMPTS@", &prompts)
        .replace("@AGENT_RESUME_COMMANDS@", &words.join(" "));
    format!("{open}{body}{close}")
}

/// The regular expression (PCRE2, as fish's `string match -r` reads it)
/// that tells the fish integration a line starts one of `words`, as the
/// bash and zsh integrations decide it word by word: words split at
/// spaces; leading `NAME=value` assignments and `command`, `exec`, `env`
/// and `nohup` skipped; quotes around the first other word and any
/// directory before it dropped; that word, up to a `;`, `|` or `&`, one
/// of `words`.
pub fn fish_agent_pattern(words: &[&str]) -> String {
    // Quote characters by their code: the pattern itself is quoted for
    // fish with the all-shells quoting, which takes no `'`.
    let quotes = "[\\x27\\x22]*";
    let escaped: Vec<String> = words
        .iter()
        .map(|w| {
            w.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_string()
                    } else {
                        format!("\\{c}")
                    }
                })
                .collect()
        })
        .collect();
    format!(
        "^ *(?:(?:{quotes}[A-Za-z_][A-Za-z0-9_]*=[^ ]*|{quotes}(?:command|exec|env|nohup){quotes}) +)*\
         {quotes}(?:[^ ]*/)?(?:{}){quotes}(?:[ ;|&]|$)",
        escaped.join("|")
    )
}

/// The file a startup file sources for `shell`:
/// `$XDG_DATA_HOME/agent-resume/shell/agent-resume.<shell>`.
pub fn file(shell: Shell) -> Option<PathBuf> {
    Some(
        paths::data()
            .ok()?
            .join("shell")
            .join(format!("agent-resume.{}", shell.as_str())),
    )
}

/// The startup-file line that sources `file` when it exists: no process,
/// and nothing at all once `agent-resume disable` removed it. `None` when
/// the path cannot be quoted for the shells.
pub fn rc_line(shell: Shell, file: &Path) -> Option<String> {
    let q = quote(file.to_str()?).ok()?;
    Some(match shell {
        Shell::Fish => format!("test -r {q}; and source {q}"),
        _ => format!("[ -r {q} ] && . {q}"),
    })
}

/// The words a startup file's line holds when it loads the integration
/// from [`file()`] (what `doctor` looks for).
pub fn rc_needle(shell: Shell) -> String {
    format!("agent-resume/shell/agent-resume.{}", shell.as_str())
}

/// The first of `files` (a shell's startup files) that loads `shell`'s
/// integration, the words it loads it by, and whether through the
/// sourced [`file()`] (the README's line) rather than `eval "$(agent-resume
/// init …)"`.
pub fn loaded_by(files: &[PathBuf], shell: Shell) -> Option<(PathBuf, String, bool)> {
    let sourced = rc_needle(shell);
    if let Some(f) = crate::check::file_with(files, &sourced) {
        return Some((f, sourced, true));
    }
    let eval = format!("agent-resume init {}", shell.as_str());
    crate::check::file_with(files, &eval).map(|f| (f, eval, false))
}

/// What [`file()`] holds for `shell` against what this binary writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileState {
    /// This binary's script.
    Current,
    /// Another script (another agent-resume, another path).
    Stale,
    /// No file.
    Missing,
}

/// Whether `shell`'s file is this binary's script.
pub fn file_state(shell: Shell, bin: &str) -> FileState {
    let Some(path) = file(shell) else {
        return FileState::Missing;
    };
    match std::fs::read_to_string(&path) {
        Ok(text) if text == script(shell, bin, prompt_path().as_deref()) => FileState::Current,
        Ok(_) => FileState::Stale,
        Err(_) => FileState::Missing,
    }
}

/// Writes every shell's file (mode 0644, replaced through a new file and
/// a rename, never through a link): the paths written.
pub fn write_files(bin: &str) -> io::Result<Vec<PathBuf>> {
    let prompts = prompt_dir();
    let mut written = Vec::new();
    for shell in SHELLS {
        let path = file(shell).ok_or_else(|| io::Error::other("no data directory"))?;
        let dir = path.parent().ok_or_else(|| io::Error::other("no parent"))?;
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(
            ".agent-resume.{}.{}",
            shell.as_str(),
            uuid::Uuid::new_v4().simple()
        ));
        {
            use std::os::unix::fs::OpenOptionsExt;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(&tmp)?;
            f.write_all(script(shell, bin, prompts.as_deref()).as_bytes())?;
            f.sync_all()?;
        }
        if let Err(e) = std::fs::rename(&tmp, &path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        written.push(path);
    }
    Ok(written)
}

/// `doctor`'s check of the file the README's line sources for `shell`
/// (only read): there while the feature is `enabled`, and this binary's
/// script.
pub fn file_check(shell: Shell, enabled: bool, bin: &str) -> crate::check::Check {
    use crate::check::{Check, Status};
    let key = format!("shell.file.{}", shell.as_str());
    let shown = file(shell).map(|p| paths::show(&p)).unwrap_or_default();
    match (file_state(shell, bin), enabled) {
        (FileState::Current, _) => {
            Check::new(key, Status::Pass, format!("{shown} is this agent-resume's"))
        }
        (FileState::Missing, false) => Check::new(
            key,
            Status::Pass,
            format!("{shown} is absent: the feature is off, shells load nothing"),
        ),
        (FileState::Missing, true) => Check::new(
            key,
            Status::Fail,
            format!("{shown} is missing: new shells load no integration"),
        )
        .fix("agent-resume enable"),
        (FileState::Stale, _) => Check::new(
            key,
            Status::Fail,
            format!("{shown} was written by another agent-resume (or another path)"),
        )
        .fix("agent-resume enable"),
    }
}

/// What `enable` (`on`) and `disable` do to the files: writes them, or
/// removes them. The directory written, if any.
pub fn follow_gate(on: bool, bin: &str) -> io::Result<Option<PathBuf>> {
    if on {
        Ok(write_files(bin)?
            .first()
            .and_then(|p| p.parent())
            .map(Path::to_owned))
    } else {
        remove_files();
        Ok(None)
    }
}

/// Removes every shell's file: a startup file's [`rc_line`] then loads
/// nothing. The paths removed.
pub fn remove_files() -> Vec<PathBuf> {
    SHELLS
        .iter()
        .filter_map(|&s| file(s))
        .filter(|p| std::fs::remove_file(p).is_ok())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_template_placeholder_is_filled() {
        for shell in SHELLS {
            let text = script(shell, "/opt/a b/agent-resume", Some(Path::new("/s/prompt")));
            assert!(!text.contains("@AGENT_RESUME_"), "{shell:?}");
            assert!(text.contains("'/opt/a b/agent-resume'"), "{shell:?}");
            assert!(text.contains("'/s/prompt'"), "{shell:?}");
            assert!(
                text.contains(" claude ") || text.contains("(claude "),
                "{shell:?}"
            );
        }
        assert_eq!(script(Shell::Sh, "/x", None), "");
        assert!(
            script(Shell::Bash, "/x", None).starts_with("if [ \"${AGENT_RESUME-}\" != 0 ]; then\n")
        );
        assert!(script(Shell::Zsh, "/x", None).contains("_agent_resume_prompts=''"));
    }

    #[test]
    fn only_a_shell_with_an_integration_has_a_startup_line() {
        assert!(matches!(
            startup_line(Shell::Sh),
            Err(LineError::NoIntegration)
        ));
    }

    #[test]
    fn the_rc_line_quotes_the_file_for_every_shell() {
        assert_eq!(
            rc_line(Shell::Bash, Path::new("/h/a b/agent-resume.bash")).unwrap(),
            "[ -r '/h/a b/agent-resume.bash' ] && . '/h/a b/agent-resume.bash'"
        );
        // What the all-shells quoting refuses is never written.
        assert!(rc_line(Shell::Zsh, Path::new("/h/it's/agent-resume.zsh")).is_none());
        assert_eq!(
            rc_line(Shell::Fish, Path::new("/h/f")).unwrap(),
            "test -r '/h/f'; and source '/h/f'"
        );
        assert!(rc_line(Shell::Bash, Path::new("/h/a\nb")).is_none());
    }
}
