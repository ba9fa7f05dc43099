//! `agent-resume doctor [--json]`: checks the set-up the README describes,
//! one line per check with ✓ or ✗ and the command that fixes it. Exit 0
//! when nothing fails, 1 otherwise.
//!
//! Reads only: the config file, the database (inspected, never created or
//! migrated), the shells' startup files and the agents' hook files, each
//! bounded ([`agent_resume_discover::file`]); each host checks its own
//! set-up (`Host::doctor`: tmux's config and the running server's hooks,
//! kitty's config, socket directory and saved snapshot); asks each agent on
//! `PATH` for its `--version` (through [`agent_resume_engine::process`],
//! with a short timeout).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agent_resume_core::{AgentKind, Catalog, GateSource};
use agent_resume_discover::Homes;
use agent_resume_engine::check::{file_with, home, Check, Status};
use agent_resume_engine::hooks::Unhooked;
use agent_resume_engine::shell_init;
use agent_resume_store::{migrate::LATEST, Distrust, OpenOptions};
use agent_resume_tmux::Socket;
use anyhow::Result;
use serde_json::json;

use crate::config;
use crate::paths::{self, Overrides};

#[derive(clap::Args)]
pub struct Args {
    /// Print the checks as JSON (`{"ok", "checks": [{"check", "status", "detail", "fix"}]}`).
    #[arg(long)]
    json: bool,
    /// The tmux server's socket name (`tmux -L`) [default: the one tmux finds].
    #[arg(short = 'L', long, value_name = "NAME")]
    socket_name: Option<String>,
    /// The tmux server's socket path (`tmux -S`).
    #[arg(short = 'S', long, value_name = "PATH", conflicts_with = "socket_name")]
    socket_path: Option<PathBuf>,
}

/// The mark that starts a check's line.
const fn mark(status: Status) -> &'static str {
    match status {
        Status::Pass => "✓",
        Status::Warn => "!",
        Status::Fail => "✗",
        Status::Skip => "-",
    }
}

fn check(key: impl Into<String>, status: Status, detail: impl Into<String>) -> Check {
    Check::new(key, status, detail)
}

/// How long an agent may take to print its version.
const VERSION_TIMEOUT: Duration = Duration::from_secs(3);

fn env(var: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(var)
}

/// A supported shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Sh {
    Bash = 1,
    Zsh = 2,
    Fish = 3,
}

impl Sh {
    const VARIANTS: &'static [Sh] = &[Sh::Bash, Sh::Zsh, Sh::Fish];

    const fn as_str(self) -> &'static str {
        match self {
            Sh::Bash => "bash",
            Sh::Zsh => "zsh",
            Sh::Fish => "fish",
        }
    }

    fn from_name(name: &str) -> Option<Sh> {
        Sh::VARIANTS.iter().copied().find(|s| s.as_str() == name)
    }

    /// The startup files that may load the integration; the first is where
    /// the README puts the line.
    fn rc_files(self, home: &Path) -> Vec<PathBuf> {
        match self {
            Sh::Bash => vec![home.join(".bashrc"), home.join(".bash_profile")],
            Sh::Zsh => {
                let dir = env("ZDOTDIR")
                    .map(PathBuf::from)
                    .filter(|d| d.is_absolute())
                    .unwrap_or_else(|| home.to_path_buf());
                vec![dir.join(".zshrc")]
            }
            Sh::Fish => {
                let dir = env("XDG_CONFIG_HOME")
                    .map(PathBuf::from)
                    .filter(|d| d.is_absolute())
                    .unwrap_or_else(|| home.join(".config"))
                    .join("fish");
                let mut files = vec![dir.join("config.fish")];
                if let Ok(entries) = std::fs::read_dir(dir.join("conf.d")) {
                    let mut more: Vec<PathBuf> = entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|x| x == "fish"))
                        .collect();
                    more.sort();
                    files.extend(more.into_iter().take(256));
                }
                files
            }
        }
    }

    /// The README's command that appends its line to `file`.
    fn fix(self, file: &Path) -> String {
        format!(
            "agent-resume init {} --rc-line >> {}",
            self.as_str(),
            paths::show(file)
        )
    }

    fn shell(self) -> agent_resume_core::Shell {
        match self {
            Sh::Bash => agent_resume_core::Shell::Bash,
            Sh::Zsh => agent_resume_core::Shell::Zsh,
            Sh::Fish => agent_resume_core::Shell::Fish,
        }
    }
}

fn feature(o: &Overrides) -> Vec<Check> {
    let path = match paths::config(o) {
        Ok(p) => p,
        Err(e) => return vec![check("feature", Status::Fail, format!("{e:#}"))],
    };
    let decided = config::decide(&path);
    let g = decided.gate;
    let mut out = Vec::new();
    if let Some(problem) = &decided.problem {
        out.push(
            check(
                "config",
                Status::Fail,
                format!(
                    "{} is ignored: {}",
                    paths::show(&path),
                    paths::escape(&format!("{problem:#}"))
                ),
            )
            .fix(format!("fix or remove {}", paths::show(&path))),
        );
    }
    let detail = format!(
        "{} ({})",
        if g.enabled { "on" } else { "off" },
        config::source_text(g.source)
    );
    out.push(if g.enabled {
        check("feature", Status::Pass, detail)
    } else {
        let fix = match g.source {
            GateSource::Env => "unset AGENT_RESUME",
            GateSource::Config | GateSource::Default => "agent-resume enable",
        };
        check("feature", Status::Fail, detail).fix(fix)
    });
    out
}

fn distrust_fix(why: Distrust, db: &Path) -> String {
    let dir = db.parent().unwrap_or(Path::new("/"));
    match why {
        Distrust::FileWritableByOthers => format!("chmod go-w {}", paths::show(db)),
        Distrust::DirWritableByOthers => format!("chmod go-w {}", paths::show(dir)),
        Distrust::WalWritableByOthers => format!("chmod go-w {}-wal {0}-shm", paths::show(db)),
        Distrust::FileOwner
        | Distrust::DirOwner
        | Distrust::Unexamined
        | Distrust::Symlink
        | Distrust::WalOwner
        | Distrust::WalNotRegular
        | Distrust::AncestorOwner
        | Distrust::AncestorWritableByOthers => {
            "keep the database in a directory only you own (--db PATH or AGENT_RESUME_DB)".into()
        }
    }
}

fn database(o: &Overrides) -> Vec<Check> {
    let db = match paths::db(o) {
        Ok(p) => p,
        Err(e) => return vec![check("database", Status::Fail, format!("{e:#}"))],
    };
    let shown = paths::show(&db);
    let store = match OpenOptions::default().inspect(&db) {
        Ok(Some(s)) => s,
        Ok(None) => {
            return vec![
                check(
                    "database",
                    Status::Pass,
                    format!("{shown}: none yet (created at the first recording)"),
                ),
                check("recordings", Status::Pass, "0 recordings, 0 armed"),
            ]
        }
        Err(e) => {
            return vec![check(
                "database",
                Status::Fail,
                format!("{shown}: unreadable ({})", e.fault()),
            )
            .fix(format!("mv {shown} {shown}.bad"))]
        }
    };
    let v = store.schema_version();
    let mut out = Vec::new();
    let db_check = if v > LATEST {
        check(
            "database",
            Status::Fail,
            format!("{shown}: schema {v} is newer than this build's {LATEST}: recordings are read, never written"),
        )
        .fix("install the newer agent-resume that wrote it")
    } else {
        match store.distrust() {
            None => check(
                "database",
                Status::Pass,
                format!("{shown}: schema {v} (this build writes {LATEST}), trusted"),
            ),
            Some(why) => check(
                "database",
                Status::Fail,
                format!("{shown}: not trusted: {why}; restore resumes nothing from it"),
            )
            .fix(distrust_fix(why, &db)),
        }
    };
    out.push(db_check);
    out.push(match store.counts() {
        Ok(c) => check(
            "recordings",
            Status::Pass,
            format!("{} recordings, {} armed", c.recordings, c.armed),
        ),
        Err(e) => check(
            "recordings",
            Status::Fail,
            format!("unreadable ({})", e.fault),
        ),
    });
    out
}

fn shells(o: &Overrides) -> Vec<Check> {
    let enabled = config::gate_quiet(o).enabled;
    let login = env("SHELL").and_then(|s| {
        Path::new(&s)
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(Sh::from_name)
    });
    let mut out = Vec::new();
    let active = env("AGENT_RESUME_SHELL").and_then(|v| v.into_string().ok());
    out.push(match active.as_deref().and_then(Sh::from_name) {
        Some(sh) => check(
            "shell.active",
            Status::Pass,
            format!("the {} integration is loaded in this shell", sh.as_str()),
        ),
        None => {
            let sh = login.unwrap_or(Sh::Bash);
            let fix = match sh {
                Sh::Bash | Sh::Zsh => format!("eval \"$(agent-resume init {})\"", sh.as_str()),
                Sh::Fish => "agent-resume init fish | source".into(),
            };
            check(
                "shell.active",
                Status::Fail,
                "the shell integration is not loaded in this shell",
            )
            .fix(fix)
        }
    });
    let Some(home) = home() else {
        out.push(check("shell.rc", Status::Fail, "HOME is not set").fix("set HOME"));
        return out;
    };
    let mut any = false;
    for &sh in Sh::VARIANTS {
        let files = sh.rc_files(&home);
        let key = format!("shell.rc.{}", sh.as_str());
        match shell_init::loaded_by(&files, sh.shell()) {
            Some((f, needle, by_file)) => {
                any = true;
                out.push(check(
                    key,
                    Status::Pass,
                    format!("{} loads `{needle}`", paths::show(&f)),
                ));
                if by_file {
                    out.push(shell_init::file_check(
                        sh.shell(),
                        enabled,
                        &crate::cmd::init::bin(),
                    ));
                }
                if sh == Sh::Bash && login == Some(Sh::Bash) && f == home.join(".bashrc") {
                    out.extend(bash_login(&home));
                }
            }
            None if login == Some(sh) => {
                any = true;
                out.push(
                    check(
                        key,
                        Status::Fail,
                        format!(
                            "{} does not load the integration ({} is your login shell)",
                            paths::show(&files[0]),
                            sh.as_str()
                        ),
                    )
                    .fix(sh.fix(&files[0])),
                );
            }
            None => {}
        }
    }
    if !any {
        let bashrc = home.join(".bashrc");
        out.push(
            check(
                "shell.rc",
                Status::Fail,
                "no startup file of bash, zsh or fish loads the integration",
            )
            .fix(Sh::Bash.fix(&bashrc)),
        );
    }
    out
}

/// tmux starts bash as a login shell, which reads the first of
/// `~/.bash_profile`, `~/.bash_login` and `~/.profile` and never `~/.bashrc`
/// itself: an integration loaded from `~/.bashrc` reaches tmux's panes
/// only when that file loads it.
fn bash_login(home: &Path) -> Option<Check> {
    let candidates = [".bash_profile", ".bash_login", ".profile"].map(|f| home.join(f));
    let login = candidates.iter().find(|f| f.exists());
    let sources_bashrc = |f: &Path| file_with(&[f.to_path_buf()], ".bashrc").is_some();
    let fix = |f: &Path| {
        format!(
            "echo '[ -f ~/.bashrc ] && . ~/.bashrc' >> {}",
            paths::show(f)
        )
    };
    match login {
        Some(f) if sources_bashrc(f) => None,
        Some(f) => Some(
            check(
                "shell.login.bash",
                Status::Fail,
                format!(
                    "{} does not load ~/.bashrc: tmux starts bash as a login shell, which \
                     reads it instead, so tmux's panes never load the integration",
                    paths::show(f)
                ),
            )
            .fix(fix(f)),
        ),
        None => Some(
            check(
                "shell.login.bash",
                Status::Fail,
                "no ~/.bash_profile, ~/.bash_login or ~/.profile loads ~/.bashrc: tmux starts \
                 bash as a login shell, so tmux's panes never load the integration",
            )
            .fix(fix(&candidates[2])),
        ),
    }
}

/// `(major, minor)` of a version text.
fn major_minor(v: &str) -> Option<(u64, u64)> {
    agent_resume_engine::hooks::version_in(v).map(|(a, b, _)| (a, b))
}

fn agents() -> Vec<Check> {
    let homes = Homes::from_env(&env);
    let mut out = Vec::new();
    for agent in Catalog::embedded().agents() {
        let name = agent.kind.as_str();
        let Some(word) = agent
            .commands
            .iter()
            .find(|c| agent_resume_engine::hooks::on_path(c).is_some())
        else {
            continue;
        };
        let version = agent_resume_engine::process::version_within(word, VERSION_TIMEOUT);
        if let Some(hooks) = agent_resume_engine::hooks::check(
            agent.kind,
            &homes,
            &agent_resume_engine::hooks::program(std::env::current_exe().ok()),
            version.as_deref(),
        ) {
            // Codex's shared app-server daemon runs every window's sessions
            // with the first window's environment: its hooks record nothing.
            let hooked = hooks.is_ok();
            let shared = hooked
                && agent.kind == AgentKind::Codex
                && agent_resume_engine::hooks::codex_shares_a_server(&homes);
            out.push(match hooks {
                Ok(files) => check(
                    format!("agent.{name}.hooks"),
                    Status::Pass,
                    format!("{word}: hooks installed in {files}"),
                ),
                // Without hooks the zero-config scan still records the
                // agent's panes (at each save): a note, not a failure. A
                // hook that is there but cannot run fails every session
                // start of the agent.
                Err(Unhooked::Missing(why)) => check(
                    format!("agent.{name}.hooks"),
                    Status::Warn,
                    format!(
                        "{word}: {why}; its panes are recorded by the zero-config scan \
                         (at each save), hooks record them at session start"
                    ),
                )
                .fix(format!("agent-resume install-hooks {name}")),
                Err(Unhooked::Broken(why)) => check(
                    format!("agent.{name}.hooks"),
                    Status::Fail,
                    format!("{word}: {why}"),
                )
                .fix(format!("agent-resume install-hooks {name}")),
            });
            let serving = if hooked && agent.kind == AgentKind::Codex && !shared {
                agent_resume_engine::hooks::codex_servers(&homes)
            } else {
                Vec::new()
            };
            if !serving.is_empty() {
                let pids: Vec<String> = serving.iter().map(u32::to_string).collect();
                out.push(
                    check(
                        format!("agent.{name}.per-window"),
                        Status::Warn,
                        format!(
                            "{word}: daemon_auto_start is off, but a shared Codex background \
                             server still runs (pid {}) and serves every window's sessions \
                             until it exits: its hooks record nothing",
                            pids.join(", ")
                        ),
                    )
                    .fix(format!("kill {}", pids.join(" "))),
                );
            }
            if shared {
                out.push(
                    check(
                        format!("agent.{name}.per-window"),
                        Status::Warn,
                        format!(
                            "{word}: Codex runs its sessions in a background server shared by \
                             its windows ([features] daemon_auto_start is on): its hooks cannot \
                             tell a session's pane and record nothing; capture relies on the \
                             scan at save"
                        ),
                    )
                    .fix("agent-resume install-hooks codex --per-window"),
                );
            }
        }
        let key = format!("agent.{name}.version");
        let verified = agent.verified_versions.join(", ");
        let found = version
            .as_deref()
            .and_then(agent_resume_engine::hooks::version_in);
        out.push(match found {
            _ if !agent.verified => check(
                key,
                Status::Warn,
                format!("{word}: {} is not verified; its panes are never resumed", agent.display),
            ),
            None => check(
                key,
                Status::Warn,
                format!("{word} --version did not answer a version within {} s", VERSION_TIMEOUT.as_secs()),
            ),
            Some((a, b, c)) => {
                let same = agent
                    .verified_versions
                    .iter()
                    .any(|v| major_minor(v) == Some((a, b)));
                if same {
                    check(
                        key,
                        Status::Pass,
                        format!("{word} {a}.{b}.{c} (verified with {verified})"),
                    )
                } else {
                    check(
                        key,
                        Status::Warn,
                        format!(
                            "{word} {a}.{b}.{c} is not a version agent-resume was verified with ({verified}); \
                             `agent-resume explain` shows what a restore would run"
                        ),
                    )
                }
            }
        });
    }
    if out.is_empty() {
        out.push(check(
            "agents",
            Status::Warn,
            "no agent CLI of the catalog is on PATH (`agent-resume agents` lists them)",
        ));
    }
    out
}

fn print_text(checks: &[Check]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for c in checks {
        let fix = c
            .fix
            .as_deref()
            .map(|f| format!("  — fix: {f}"))
            .unwrap_or_default();
        writeln!(out, "{} {}: {}{fix}", mark(c.status), c.key, c.detail)?;
    }
    let counts: Vec<String> = Status::VARIANTS
        .iter()
        .map(|s| (s, checks.iter().filter(|c| c.status == *s).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {}", mark(*s)))
        .collect();
    writeln!(out, "{}", counts.join(", "))?;
    out.flush()
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    let mut checks = feature(o);
    checks.extend(database(o));
    checks.extend(shells(o));
    let socket = match (&args.socket_name, &args.socket_path) {
        (Some(n), _) => Socket::Name(n.clone()),
        (None, Some(p)) => Socket::Path(p.clone()),
        (None, None) => Socket::Default,
    };
    // Each host checks its own set-up: tmux, then kitty.
    for host in super::hosts(o, socket) {
        checks.extend(host.doctor());
    }
    checks.extend(agents());
    let ok = !checks.iter().any(|c| c.status == Status::Fail);
    let written = if args.json {
        let list: Vec<serde_json::Value> = checks
            .iter()
            .map(|c| {
                json!({
                    "check": c.key,
                    "status": c.status.as_str(),
                    "detail": c.detail,
                    "fix": c.fix,
                })
            })
            .collect();
        let text = json!({"ok": ok, "checks": list}).to_string();
        use std::io::Write;
        writeln!(std::io::stdout().lock(), "{text}")
    } else {
        print_text(&checks)
    };
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(e.into()),
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
