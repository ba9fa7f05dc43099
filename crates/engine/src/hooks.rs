//! Hook installation (`agent-resume install-hooks <agent>` /
//! `uninstall-hooks <agent>`, and any host that offers it): merge
//! agent-resume into the agent's own hook configuration, idempotently, as
//! text-preserving edits, with a diff on a dry run ([`edit`]), and the
//! check `doctor` makes ([`check`]).
//!
//! - claude, gemini, qwen, droid: `settings.json` `hooks.SessionStart`
//!   (claude and droid also `UserPromptSubmit`; droid's is
//!   `~/.factory/settings.json`) gets one command entry,
//!   `agent-resume hook <agent>`;
//!   every other byte is kept (JSONC comments and trailing commas too,
//!   [`agent_resume_core::hook_json`]).
//! - codex: `hooks.json` beside `config.toml` gets the same `SessionStart`
//!   entry when the installed Codex has hooks (0.125 and later, or when no
//!   `codex` is on `PATH`); Codex asks the user to trust it at its next
//!   start, and nothing here trusts it on their behalf. `config.toml`
//!   `notify` becomes `[agent-resume, hook, codex]` in every case (the
//!   fallback: it reports after each completed turn); a notifier the user
//!   already had is chained (`--chain PROGRAM ARGS…`) and restored on
//!   uninstall, in its own text. Only those entries are spliced, every
//!   other byte is kept ([`codex_config`]).
//!   Codex 0.171 runs the sessions of every TUI of a `$CODEX_HOME` in one
//!   shared background server (`codex app-server --managed-daemon`) with
//!   the environment of the TUI that started it, so its hooks cannot tell
//!   which pane a session is in and record nothing there
//!   (`evidence`, feature `sqlite`). `--per-window` sets `[features]
//!   daemon_auto_start = false` (each TUI then runs its own sessions, which
//!   end with their window), recorded in `config.toml.agent-resume.per-window`
//!   so uninstall gives back the value (or absence) the file had; without
//!   it install leaves Codex's server alone and says so.
//!
//! Files are replaced through a temporary file under a fresh random name,
//! created `O_EXCL | O_NOFOLLOW` ([`agent_resume_discover::file::replace`]); a symlinked settings
//! file is written through only to the user's own regular file
//! (`write_target`).
//!
//! The original file is copied once to `<file>.agent-resume.bak` (never
//! overwritten by a later install, removed once uninstall has given the
//! original bytes back). A file install creates is recorded in
//! `<file>.agent-resume.created` with the directories it created; uninstall
//! removes the file (once only an empty object is left), the record, and
//! those directories if they are empty.
//!
//! The hook command names the binary by its `PATH` name when that resolves
//! to this very file (an upgrade in place keeps working), else by its
//! absolute path, quoted for every shell (agents run hook commands through
//! `sh -c` or `$SHELL -lc`).
//!
//! Other agents' hook systems are documented in docs/capture.md; they are
//! not edited automatically.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use agent_resume_core::codex_config::{self, CodexConfigError};
use agent_resume_core::hook_json::{self, EditError, Ours};
use agent_resume_core::{quote, AgentKind};
use agent_resume_discover::file::{FileError, ReplaceError};
use agent_resume_discover::{provider, Homes};
use serde_json::json;
use thiserror::Error;

/// Why an install or uninstall stopped. Each names what it could not do;
/// a file already written stays as written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HookError {
    /// This agent's hooks are not edited automatically.
    #[error("{0}'s hooks are not edited automatically; see docs/capture.md")]
    NotEdited(AgentKind),
    /// No home to find the agent's configuration under.
    #[error("cannot locate the agent's configuration: set HOME")]
    NoHome,
    /// `--per-window` given for an agent other than Codex.
    #[error("--per-window is for codex only")]
    PerWindowNotCodex,
    /// The settings file is a link to something other than a regular file
    /// of the user's own.
    #[error("{REFUSED}")]
    Link(#[source] Option<std::io::Error>),
    /// A JSON settings file that cannot be edited safely.
    #[error(transparent)]
    Json(#[from] EditError),
    /// A Codex `config.toml` that cannot be edited safely.
    #[error(transparent)]
    Toml(#[from] CodexConfigError),
    /// The configuration could not be read.
    #[error("cannot read the agent's configuration")]
    Read(#[source] FileError),
    /// The configuration could not be replaced.
    #[error("cannot replace the configuration file")]
    Replace(#[source] ReplaceError),
    /// A directory for a new configuration file could not be created.
    #[error("cannot create the configuration directory")]
    CreateDir(#[source] std::io::Error),
    /// The backup or an install record could not be written.
    #[error("cannot write the backup")]
    Backup(#[source] std::io::Error),
    /// A file install made, or its record, could not be removed.
    #[error("{0}")]
    Remove(&'static str, #[source] std::io::Error),
}

type Result<T, E = HookError> = std::result::Result<T, E>;

const REFUSED: &str = "the settings file is a link to something other than a regular file \
                       of your own; not touching it (edit the file it points to yourself)";

/// Where `agent` reads its hook configuration, under the config home the
/// discovery crate resolves (`$CLAUDE_CONFIG_DIR`, `$CODEX_HOME`,
/// `$GEMINI_CLI_HOME`, `$QWEN_HOME`, else their defaults under `HOME`).
/// `None`: this agent's hooks are not edited automatically.
fn default_file(agent: AgentKind, homes: &Homes) -> Option<Option<PathBuf>> {
    let hook = provider(agent).hook()?;
    Some(homes.root(agent, None).map(|r| r.join(hook.file)))
}

fn events(agent: AgentKind) -> &'static [&'static str] {
    provider(agent).hook().map_or(&[], |h| h.events)
}

/// The installed name of the binary.
const NAME: &str = "agent-resume";

/// The first executable `name` in an absolute `PATH` directory.
pub fn on_path(name: &str) -> Option<PathBuf> {
    crate::process::on_path(name)
}

/// How hooks name the `agent-resume` binary at `exe`: `agent-resume` when
/// the `PATH` lookup finds this very file (so an upgrade in place, or a move
/// along `PATH`, keeps working), else its absolute path.
pub fn program(exe: Option<PathBuf>) -> String {
    let same = match (&exe, on_path(NAME)) {
        (Some(exe), Some(found)) => fs::canonicalize(exe)
            .ok()
            .is_some_and(|e| fs::canonicalize(found).ok() == Some(e)),
        _ => false,
    };
    match exe.and_then(|p| p.into_os_string().into_string().ok()) {
        Some(exe) if !same => exe,
        _ => NAME.to_owned(),
    }
}

/// The hook command line, as a shell runs it.
fn command_line(program: &str, agent: AgentKind) -> String {
    let word = if program == NAME {
        NAME.to_owned()
    } else {
        quote(program).unwrap_or_else(|_| NAME.into())
    };
    format!("{word} hook {}", agent.as_str())
}

/// Whether `word` names this binary (by path, or by the installed name).
fn is_our_program(word: &str, current: &str) -> bool {
    word == current || word.rsplit('/').next() == Some(NAME)
}

/// Whether a hook command is ours for `agent`.
fn is_ours(command: &str, agent: AgentKind, current: &str) -> bool {
    match shell_words::split(command).as_deref() {
        Ok([word, hook, name]) => {
            is_our_program(word, current) && hook == "hook" && name == agent.as_str()
        }
        _ => false,
    }
}

/// The hook group added to each event.
fn group(agent: AgentKind, command: &str) -> serde_json::Value {
    let handler = json!({"type": "command", "command": command});
    match agent {
        // Codex: no matcher is "every source".
        AgentKind::Codex => json!({ "hooks": [handler] }),
        _ => json!({"matcher": "", "hooks": [handler]}),
    }
}

/// Edits a JSON hook file's text; `original` is the file before the first
/// install (the backup), `None` when it did not exist.
fn edit_json(
    text: &str,
    agent: AgentKind,
    install: bool,
    program: &str,
    original: Option<&str>,
) -> Result<String> {
    let wanted = command_line(program, agent);
    let any = |c: &str| is_ours(c, agent, program);
    let current = |c: &str| c == wanted;
    let ours = Ours {
        any: &any,
        current: &current,
    };
    Ok(if install {
        hook_json::install(text, events(agent), &group(agent, &wanted), &ours)?
    } else {
        hook_json::uninstall(text, &any, original)?
    })
}

/// Edits `config.toml`'s `notify`, splicing only its own bytes
/// ([`codex_config`]). On uninstall, a restored notifier equal to the one in
/// `original` (the backup) gets its original text back.
fn edit_toml(text: &str, install: bool, program: &str, original: Option<&str>) -> Result<String> {
    let ours = |w: &str| is_our_program(w, program);
    Ok(if install {
        codex_config::install_notify(text, program, &ours)?
    } else {
        codex_config::uninstall_notify(text, &ours, original)?
    })
}

/// Whether Codex's `config.toml` (where Codex reads it) leaves its shared
/// app-server daemon on: hooks then cannot tell a session's pane. `false`
/// when the file cannot be located.
pub fn codex_shares_a_server(homes: &Homes) -> bool {
    match default_file(AgentKind::Codex, homes) {
        Some(Some(path)) => {
            !codex_config::per_window(&read(&path).ok().flatten().unwrap_or_default())
        }
        Some(None) | None => false,
    }
}

/// Line diff (longest common subsequence), for a dry run: each line
/// prefixed `  `, `- ` or `+ `.
pub fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        }
    }
    out
}

/// Creates `dir` and its missing ancestors; returns those it created,
/// outermost first.
fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && fs::symlink_metadata(d).is_err())
        .collect();
    missing.reverse();
    let mut created = Vec::new();
    for d in missing {
        match fs::create_dir(d) {
            Ok(()) => created.push(d.to_path_buf()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(HookError::CreateDir(e)),
        }
    }
    Ok(created)
}

/// The file a write of `path` replaces: `path` itself, or, when `path` is
/// a symlink (a dotfiles checkout), the file it resolves to if that is a
/// regular file of the user's own; the link then stays a link. A link to
/// anything else (another user's file, a directory, nothing) is refused:
/// never replaced by a regular file, never written through.
fn write_target(path: &Path) -> Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = fs::canonicalize(path).map_err(|e| HookError::Link(Some(e)))?;
            let m = fs::symlink_metadata(&target).map_err(|e| HookError::Link(Some(e)))?;
            let own =
                std::os::unix::fs::MetadataExt::uid(&m) == rustix::process::geteuid().as_raw();
            if !m.file_type().is_file() || !own {
                return Err(HookError::Link(None));
            }
            Ok(target)
        }
        _ => Ok(path.to_path_buf()),
    }
}

/// Replaces the file's contents atomically and without following anything
/// planted beside it ([`agent_resume_discover::file::replace`]).
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    agent_resume_discover::file::replace(path, text.as_bytes()).map_err(HookError::Replace)
}

/// `<path><suffix>`, beside the file.
fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// The copy of the file as it was before the first install.
const BACKUP: &str = ".agent-resume.bak";
/// The record of a file install created, and of the directories it made.
const CREATED: &str = ".agent-resume.created";
/// The record that install set Codex's `daemon_auto_start = false`
/// (`--per-window`): uninstall then restores what the file had.
const PER_WINDOW: &str = ".agent-resume.per-window";

/// Writes `<path><suffix>` unless it exists: never overwritten.
fn write_once(path: &Path, suffix: &str, text: &str) -> Result<()> {
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(sidecar(path, suffix))
    {
        Ok(mut f) => f.write_all(text.as_bytes()).map_err(HookError::Backup),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(HookError::Backup(e)),
    }
}

fn read(path: &Path) -> Result<Option<String>> {
    match agent_resume_discover::file::read_text(
        path,
        agent_resume_discover::file::Kind::AgentSettings,
        16 << 20,
    ) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.is_missing() => Ok(None),
        Err(e) => Err(HookError::Read(e)),
    }
}

/// The first Codex with `SessionStart` hooks on by default.
const CODEX_HOOKS_SINCE: (u64, u64, u64) = (0, 125, 0);

/// What the `codex` on `PATH` says of hooks.
#[derive(Debug, PartialEq, Eq)]
enum CodexHooks {
    Supported,
    TooOld(String),
    /// No `codex` on `PATH`, or an unreadable version: install the hook (an
    /// older Codex ignores `hooks.json`).
    Unknown,
}

fn codex_hooks(version_output: Option<&str>) -> CodexHooks {
    match version_output.and_then(crate::process::version_in) {
        None => CodexHooks::Unknown,
        Some(v) if v >= CODEX_HOOKS_SINCE => CodexHooks::Supported,
        Some((a, b, c)) => CodexHooks::TooOld(format!("{a}.{b}.{c}")),
    }
}

/// What becomes of one file.
enum Action {
    /// Already as wanted.
    Keep,
    /// New contents.
    Write(String),
    /// Install created it: it goes.
    Remove,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Toml,
}

/// What an install or uninstall asks for.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The agent.
    pub agent: AgentKind,
    /// Install (or uninstall).
    pub install: bool,
    /// Show each change and write nothing.
    pub dry_run: bool,
    /// The agent's configuration file, instead of where the agent reads it
    /// (for Codex, `config.toml`; its `hooks.json` is the one beside it).
    pub config_file: Option<PathBuf>,
    /// Codex only: also set `[features] daemon_auto_start = false`.
    pub per_window: bool,
    /// Where the agents keep their configuration.
    pub homes: &'a Homes,
    /// How hooks name the binary ([`program`]).
    pub program: &'a str,
}

/// One thing an edit did or would do, in order, for the caller to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The Codex on `PATH` (this version) has no `SessionStart` hooks:
    /// only `notify` is installed.
    CodexTooOld(String),
    /// Dry run: the file's text before and after (`None`: removed).
    Diff {
        /// The file, as shown to a user.
        shown: String,
        /// Its text now.
        old: String,
        /// Its text after, or `None` when it goes.
        new: Option<String>,
    },
    /// The file already is as wanted.
    Kept {
        /// The file, as shown.
        shown: String,
    },
    /// Hooks written into the file.
    Installed {
        /// The file, as shown.
        shown: String,
        /// It is Codex's `hooks.json`, which Codex asks the user to trust.
        codex_hooks_json: bool,
    },
    /// Hooks removed from the file.
    Removed {
        /// The file, as shown.
        shown: String,
    },
    /// The file install had created is gone.
    Deleted {
        /// The file, as shown.
        shown: String,
    },
    /// Codex's `daemon_auto_start = false` set in the file.
    PerWindowSet {
        /// The file, as shown.
        shown: String,
    },
    /// Codex keeps running the sessions of every window in its shared
    /// server: its hooks record nothing there.
    SharedServer,
    /// `daemon_auto_start = false` is in the file, but Codex's shared
    /// server is running (these pids) and keeps serving every window until
    /// it exits.
    SharedServerRunning {
        /// The file, as shown.
        shown: String,
        /// The servers' pids.
        pids: Vec<u32>,
    },
}

/// Installs or uninstalls `agent-resume hook <agent>` in the agent's own
/// configuration, reporting each step to `on` as it happens. Asks the
/// `codex` on `PATH` for its version on a Codex install.
pub fn edit(req: &Request<'_>, on: &mut dyn FnMut(Step)) -> Result<()> {
    let (agent, install) = (req.agent, req.install);
    let path = match (req.config_file.clone(), default_file(agent, req.homes)) {
        (Some(p), Some(_)) => p,
        (None, Some(Some(p))) => p,
        (None, Some(None)) => return Err(HookError::NoHome),
        (_, None) => return Err(HookError::NotEdited(agent)),
    };
    if req.per_window && agent != AgentKind::Codex {
        return Err(HookError::PerWindowNotCodex);
    }
    let program = req.program;
    let mut files = Vec::new();
    // Codex's shared app-server daemon comes with its hooks (0.171 has
    // both): an older Codex gets no note about it.
    let mut shared_server_note = false;
    if agent == AgentKind::Codex {
        files.push((path.clone(), Format::Toml));
        let support = if install {
            let out = crate::process::version_within("codex", std::time::Duration::from_secs(5));
            codex_hooks(out.as_deref())
        } else {
            CodexHooks::Supported
        };
        match support {
            CodexHooks::TooOld(v) => on(Step::CodexTooOld(v)),
            CodexHooks::Supported | CodexHooks::Unknown => {
                shared_server_note = true;
                files.push((path.with_file_name("hooks.json"), Format::Json));
            }
        }
    } else {
        files.push((path, Format::Json));
    }
    if !install {
        // Undo in reverse: the file whose install made the folders goes last.
        files.reverse();
    }
    for (path, format) in files {
        let old = read(&path)?;
        let backup = read(&sidecar(&path, BACKUP))?;
        // Refused before anything is written beside it.
        let target = write_target(&path)?;
        let text = old.as_deref().unwrap_or("");
        let mut new = match format {
            Format::Toml => edit_toml(text, install, program, backup.as_deref())?,
            Format::Json => edit_json(text, agent, install, program, backup.as_deref())?,
        };
        // Codex's shared server: switched off only when asked, and given
        // back on uninstall only when install switched it.
        let per_window_record = sidecar(&path, PER_WINDOW);
        let per_window_set =
            format == Format::Toml && install && req.per_window && !codex_config::per_window(text);
        if per_window_set {
            new = codex_config::set_per_window(&new)?;
        }
        let per_window_undo =
            format == Format::Toml && !install && read(&per_window_record)?.is_some();
        if per_window_undo {
            new = codex_config::unset_per_window(&new, backup.as_deref())?;
        }
        let shown = crate::paths::show(&path);
        let record = sidecar(&path, CREATED);
        let action = if old.as_deref() == Some(new.as_str()) || (old.is_none() && !install) {
            Action::Keep
        } else if install {
            Action::Write(new)
        } else {
            let empty = hook_json::is_blank(&new) || hook_json::is_empty_object(&new);
            let is_link = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            match &backup {
                // Install created this file.
                None if empty && !is_link && read(&record)?.is_some() => Action::Remove,
                Some(b) if empty && hook_json::is_blank(b) => Action::Write(b.clone()),
                _ => Action::Write(new),
            }
        };
        if req.dry_run {
            on(Step::Diff {
                shown,
                old: text.to_owned(),
                new: match action {
                    Action::Keep => Some(text.to_owned()),
                    Action::Write(new) => Some(new),
                    Action::Remove => None,
                },
            });
            continue;
        }
        // Before the file and the folders install made go.
        if per_window_undo {
            fs::remove_file(&per_window_record)
                .map_err(|e| HookError::Remove("cannot remove the install record", e))?;
        }
        match action {
            Action::Keep => on(Step::Kept {
                shown: shown.clone(),
            }),
            Action::Write(new) if install => {
                match &old {
                    Some(original) => write_once(&path, BACKUP, original)?,
                    None => {
                        let dir = path.parent().unwrap_or(Path::new(""));
                        let created: Vec<String> = create_dirs(dir)?
                            .iter()
                            .map(|d| d.to_string_lossy().into_owned())
                            .collect();
                        write_once(&path, CREATED, &(json!(created).to_string() + "\n"))?;
                    }
                }
                write_atomic(&target, &new)?;
                if per_window_set {
                    write_once(&path, PER_WINDOW, "daemon_auto_start\n")?;
                }
                on(Step::Installed {
                    shown: shown.clone(),
                    codex_hooks_json: agent == AgentKind::Codex && format == Format::Json,
                });
            }
            Action::Write(new) => {
                write_atomic(&target, &new)?;
                if backup.as_deref() == Some(new.as_str()) {
                    fs::remove_file(sidecar(&path, BACKUP))
                        .map_err(|e| HookError::Remove("cannot remove the backup", e))?;
                }
                on(Step::Removed {
                    shown: shown.clone(),
                });
            }
            Action::Remove => {
                // With the folders install made for it, each only if empty.
                fs::remove_file(&path)
                    .map_err(|e| HookError::Remove("cannot remove the configuration file", e))?;
                let dirs: Vec<String> = read(&record)?
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default();
                fs::remove_file(&record)
                    .map_err(|e| HookError::Remove("cannot remove the install record", e))?;
                for d in dirs.iter().rev() {
                    if fs::remove_dir(d).is_err() {
                        break;
                    }
                }
                on(Step::Deleted {
                    shown: shown.clone(),
                });
            }
        }
        if format == Format::Toml && install {
            let running = if per_window_set || (req.per_window && !req.dry_run) {
                codex_servers(req.homes)
            } else {
                Vec::new()
            };
            if !running.is_empty() {
                // The setting is read when a server starts: the one running
                // keeps serving every window until it exits.
                on(Step::SharedServerRunning {
                    shown: shown.clone(),
                    pids: running,
                });
            } else if per_window_set {
                on(Step::PerWindowSet { shown });
            } else if shared_server_note
                && !codex_config::per_window(&read(&path)?.unwrap_or_default())
            {
                on(Step::SharedServer);
            }
        }
    }
    Ok(())
}

/// The pids of Codex's shared background servers running now for the
/// Codex home `homes` names.
pub fn codex_servers(homes: &Homes) -> Vec<u32> {
    let Some(root) = homes.root(AgentKind::Codex, None) else {
        return Vec::new();
    };
    let decl = agent_resume_core::Catalog::embedded().agent(AgentKind::Codex);
    agent_resume_discover::process::shared_servers(
        &agent_resume_discover::process::ProcFs,
        decl,
        &root,
    )
}

/// Whether a hook's program word runs: `agent-resume` is looked up on
/// `PATH`; any other word must be an executable file.
fn runs(word: &str) -> bool {
    if word == NAME {
        return on_path(NAME).is_some();
    }
    let p = Path::new(word);
    p.is_absolute()
        && fs::metadata(p).is_ok_and(|m| {
            m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
        })
}

/// Checks one JSON hook file: every event of `events` has a command of
/// ours whose program runs.
fn check_json(
    path: &Path,
    agent: AgentKind,
    events: &[&str],
    program: &str,
) -> Result<(), Unhooked> {
    let shown = crate::paths::show(path);
    let text = match read(path) {
        Ok(Some(t)) => t,
        Ok(None) => return Err(Unhooked::Missing(format!("{shown} does not exist"))),
        Err(e) => return Err(Unhooked::Broken(crate::error_line(&e))),
    };
    for event in events {
        let commands = hook_json::commands(&text, event)
            .map_err(|e| Unhooked::Broken(format!("{shown}: {e}")))?;
        let Some(ours) = commands.iter().find(|c| is_ours(c, agent, program)) else {
            return Err(Unhooked::Missing(format!(
                "no {event} hook of ours in {shown}"
            )));
        };
        let word = shell_words::split(ours)
            .ok()
            .and_then(|w| w.into_iter().next())
            .unwrap_or_default();
        if !runs(&word) {
            return Err(Unhooked::Broken(format!(
                "the {event} hook in {shown} runs {}, which is missing or not executable",
                crate::paths::escape(&word)
            )));
        }
    }
    Ok(())
}

/// Checks Codex's `config.toml` `notify`.
fn check_notify(path: &Path, program: &str) -> Result<(), Unhooked> {
    let shown = crate::paths::show(path);
    let text = match read(path) {
        Ok(Some(t)) => t,
        Ok(None) => return Err(Unhooked::Missing(format!("{shown} does not exist"))),
        Err(e) => return Err(Unhooked::Broken(crate::error_line(&e))),
    };
    let words = match codex_config::notify(&text) {
        Err(codex_config::CodexConfigError::NotToml) => {
            return Err(Unhooked::Broken(format!("{shown} is not valid TOML")))
        }
        other => other.ok().flatten().unwrap_or_default(),
    };
    match words.first() {
        Some(word) if codex_config::is_our_notify(&words, &|w| is_our_program(w, program)) => {
            if runs(word) {
                Ok(())
            } else {
                Err(Unhooked::Broken(format!(
                    "notify in {shown} runs {}, which is missing or not executable",
                    crate::paths::escape(word)
                )))
            }
        }
        _ => Err(Unhooked::Missing(format!(
            "notify in {shown} is not agent-resume"
        ))),
    }
}

/// Why an agent's hooks do not record, as `doctor` says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unhooked {
    /// Not installed (or not all of them): the agent's panes are still
    /// recorded by the zero-config scan, only later than at session start.
    Missing(String),
    /// Installed but broken (a hook that runs a missing program, a file the
    /// agent cannot read): every session start of the agent meets it.
    Broken(String),
}

impl Unhooked {
    /// What is wrong, in one line.
    pub fn text(&self) -> &str {
        match self {
            Unhooked::Missing(t) | Unhooked::Broken(t) => t,
        }
    }
}

/// What `doctor` finds of `agent`'s hooks: `None` when they are not edited
/// automatically; else the files checked, or what is missing or broken.
/// `version_output` is what the agent's `--version` printed (Codex:
/// whether its `hooks.json` is expected).
pub fn check(
    agent: AgentKind,
    homes: &Homes,
    program: &str,
    version_output: Option<&str>,
) -> Option<Result<String, Unhooked>> {
    let path = match default_file(agent, homes)? {
        Some(p) => p,
        None => {
            return Some(Err(Unhooked::Broken(
                "cannot locate the agent's configuration: set HOME".into(),
            )))
        }
    };
    let result = if agent == AgentKind::Codex {
        check_notify(&path, program).and_then(|()| match codex_hooks(version_output) {
            CodexHooks::TooOld(_) => Ok(crate::paths::show(&path)),
            CodexHooks::Supported | CodexHooks::Unknown => {
                let json = path.with_file_name("hooks.json");
                check_json(&json, agent, events(agent), program).map(|()| {
                    format!(
                        "{} and {}",
                        crate::paths::show(&path),
                        crate::paths::show(&json)
                    )
                })
            }
        })
    } else {
        check_json(&path, agent, events(agent), program).map(|()| crate::paths::show(&path))
    };
    Some(result)
}

/// The first `a.b.c` version in an agent's `--version` output.
pub fn version_in(text: &str) -> Option<(u64, u64, u64)> {
    crate::process::version_in(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const BIN: &str = "/opt/bin/agent-resume";

    const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "SessionStart": [
      {"matcher": "", "hooks": [{"type": "command", "command": "my-own-hook"}]}
    ],
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]}
}"#;

    fn v(s: &str) -> Value {
        serde_json::from_str(s).expect("json")
    }

    #[test]
    fn claude_install_is_idempotent_keeps_unrelated_keys_and_uninstall_restores_the_bytes() {
        let once = edit_json(SETTINGS, AgentKind::Claude, true, BIN, None).expect("installs");
        let twice = edit_json(&once, AgentKind::Claude, true, BIN, None).expect("again");
        assert_eq!(once, twice);
        let parsed = v(&once);
        assert_eq!(parsed["model"], "opus");
        assert_eq!(parsed["permissions"]["allow"][0], "Bash(ls)");
        assert_eq!(
            parsed["hooks"]["SessionStart"].as_array().map(Vec::len),
            Some(2)
        );
        assert!(
            parsed["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
                .as_str()
                .is_some_and(|c| is_ours(c, AgentKind::Claude, BIN))
        );
        let back =
            edit_json(&once, AgentKind::Claude, false, BIN, Some(SETTINGS)).expect("uninstalls");
        assert_eq!(back, SETTINGS);
    }

    #[test]
    fn an_entry_naming_a_moved_binary_is_replaced_by_the_current_one() {
        let old = edit_json(SETTINGS, AgentKind::Claude, true, "/old/agent-resume", None)
            .expect("installs");
        let new = edit_json(&old, AgentKind::Claude, true, NAME, None).expect("reinstalls");
        assert!(!new.contains("/old/"), "{new}");
        assert_eq!(
            new.matches("\"agent-resume hook claude\"").count(),
            2,
            "{new}"
        );
    }

    #[test]
    fn the_hook_command_quotes_an_absolute_path_and_leaves_the_path_name_bare() {
        assert_eq!(
            command_line(NAME, AgentKind::Gemini),
            "agent-resume hook gemini"
        );
        assert_eq!(
            command_line("/my dir/agent-resume", AgentKind::Qwen),
            "'/my dir/agent-resume' hook qwen"
        );
        assert!(is_ours(
            "'/my dir/agent-resume' hook qwen",
            AgentKind::Qwen,
            NAME
        ));
        assert!(!is_ours("agent-resume hook qwen", AgentKind::Gemini, NAME));
    }

    #[test]
    fn settings_that_are_not_an_object_are_never_touched() {
        for text in ["[1]", "{", r#"{"hooks": 3}"#] {
            assert!(edit_json(text, AgentKind::Claude, true, BIN, None).is_err());
        }
    }

    #[test]
    fn per_window_sets_codex_s_daemon_off_and_uninstall_gives_back_the_original_bytes() {
        let cases = [
            "",
            "# mine\nmodel = \"o3\"  # trailing\n",
            "model = \"o3\"\n\n[features]\nweb_search = true # keep\n",
            "[features]\ndaemon_auto_start = true  # mine\n\n[tui]\nx = 1\n",
            "features = { web_search = true }\n",
            "model = \"o3\"",
        ];
        for original in cases {
            let installed = edit_toml(original, true, BIN, Some(original)).expect("notify");
            let installed = codex_config::set_per_window(&installed).expect("per window");
            assert!(
                codex_config::per_window(&installed),
                "{original:?} → {installed}"
            );
            assert!(!codex_config::per_window(original), "{original:?}");
            let removed = edit_toml(&installed, false, BIN, Some(original)).expect("uninstall");
            let removed =
                codex_config::unset_per_window(&removed, Some(original)).expect("restores");
            assert_eq!(removed, original, "{installed}");
        }
        assert!(codex_config::set_per_window("features = 3\n").is_err());
    }

    fn notify(text: &str) -> Vec<String> {
        codex_config::notify(text)
            .expect("toml")
            .expect("a notifier")
    }

    #[test]
    fn codex_notify_chains_an_existing_notifier_and_uninstall_restores_the_bytes() {
        let config = "# my config\nmodel = \"o3\"\nnotify = [ \"notify-send\",\"-u\", \"low\" ] # mine\n\n[profiles.fast]\nmodel = \"o4-mini\"\n";
        let once = edit_toml(config, true, BIN, None).expect("installs");
        assert!(
            once.contains("# my config") && once.contains("# mine"),
            "{once}"
        );
        assert!(once.contains("[profiles.fast]"));
        assert_eq!(
            notify(&once),
            [BIN, "hook", "codex", "--chain", "notify-send", "-u", "low"]
        );
        assert_eq!(edit_toml(&once, true, BIN, None).expect("again"), once);
        let back = edit_toml(&once, false, BIN, Some(config)).expect("uninstalls");
        assert_eq!(back, config);
        // Without the backup, the notifier still comes back.
        let back = edit_toml(&once, false, BIN, None).expect("uninstalls");
        assert_eq!(notify(&back), ["notify-send", "-u", "low"]);
    }

    #[test]
    fn codex_without_a_notifier_gets_ours_and_loses_it_on_uninstall() {
        for config in [
            "model = \"o3\"\n",
            "model = \"o3\"",
            "# top\nmodel = \"o3\" # m\n\n# tables\n[profiles.fast]\nmodel = \"x\"\n",
            "[profiles.fast]\nmodel = \"x\"\n",
            "",
        ] {
            let once = edit_toml(config, true, BIN, None).expect("installs");
            assert!(once.contains("\"hook\", \"codex\"]"), "{once}");
            let back = edit_toml(&once, false, BIN, Some(config)).expect("uninstalls");
            assert_eq!(back, config);
        }
    }

    #[test]
    fn codex_hooks_are_installed_from_0_125_on_and_when_no_codex_answers() {
        assert_eq!(
            codex_hooks(Some("codex-cli 0.171.0\n")),
            CodexHooks::Supported
        );
        assert_eq!(
            codex_hooks(Some("codex-cli 0.125.0-alpha.2")),
            CodexHooks::Supported
        );
        assert_eq!(
            codex_hooks(Some("codex-cli 0.116.1")),
            CodexHooks::TooOld("0.116.1".into())
        );
        assert_eq!(codex_hooks(None), CodexHooks::Unknown);
        assert_eq!(codex_hooks(Some("garbage")), CodexHooks::Unknown);
    }

    #[test]
    fn codex_hooks_json_gets_a_session_start_group_without_a_matcher() {
        let once = edit_json("", AgentKind::Codex, true, NAME, None).expect("installs");
        assert_eq!(
            v(&once),
            json!({"hooks": {"SessionStart": [{"hooks": [
                {"type": "command", "command": "agent-resume hook codex"}]}]}})
        );
    }

    #[test]
    fn dry_run_diff_marks_added_and_removed_lines() {
        assert_eq!(diff("a\nb\nc\n", "a\nx\nc\n"), "  a\n- b\n+ x\n  c\n");
    }
}
