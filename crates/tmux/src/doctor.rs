//! What `doctor` checks of tmux: the `init tmux` line in tmux's config and,
//! on a running server, the hooks that line installs.

use std::path::{Path, PathBuf};

use agent_resume_engine::check::{config_home, file_with, home, Check, Status};
use agent_resume_engine::paths;

use crate::{Socket, Tmux};

/// tmux events after which the snapshot is saved again (each gets one
/// indexed hook from `agent-resume init tmux`).
pub const SAVE_EVENTS: &[&str] = &[
    "session-created",
    "session-closed",
    "session-renamed",
    "after-new-window",
    "after-split-window",
    "after-kill-pane",
    "pane-exited",
    "window-layout-changed",
    "client-attached",
    "client-session-changed",
    "session-window-changed",
    "after-select-pane",
    "pane-focus-in",
];

/// The line the README adds to tmux's config.
pub const CONF_LINE: &str = "run-shell 'agent-resume init tmux | tmux source-file -'";

fn conf_files(home: &Path) -> Vec<PathBuf> {
    vec![
        home.join(".tmux.conf"),
        config_home(home).join("tmux/tmux.conf"),
    ]
}

/// The checks of tmux's set-up for the server `server` talks to: the
/// config line fails only where tmux is used (a socket named, `$TMUX`, or
/// a server running), and the server's hooks are checked only when one
/// runs.
pub fn checks(server: &Tmux) -> Vec<Check> {
    if agent_resume_engine::process::on_path("tmux").is_none() {
        return vec![Check::new("tmux", Status::Skip, "tmux is not installed")];
    }
    let explicit = *server.socket() != Socket::Default || std::env::var_os("TMUX").is_some();
    let running = server.running();
    let used = explicit || running;
    let mut out = Vec::new();
    if let Some(home) = home() {
        let files = conf_files(&home);
        out.push(match file_with(&files, "agent-resume init tmux") {
            Some(f) => Check::new(
                "tmux.conf",
                Status::Pass,
                format!("{} loads `agent-resume init tmux`", paths::show(&f)),
            ),
            None => Check::new(
                "tmux.conf",
                if used { Status::Fail } else { Status::Warn },
                format!(
                    "{} does not load `agent-resume init tmux`{}",
                    paths::show(&files[0]),
                    if used { "" } else { " (needed only with tmux)" }
                ),
            )
            .fix(format!(
                "echo \"{CONF_LINE}\" >> {}",
                paths::show(&files[0])
            )),
        });
    }
    if !running {
        out.push(Check::new(
            "tmux.server",
            Status::Skip,
            "no tmux server is running: its hooks are checked once one is",
        ));
        return out;
    }
    let events = SAVE_EVENTS;
    out.push(match server.global_hooks() {
        Ok(text) => {
            let missing: Vec<&str> = events
                .iter()
                .copied()
                .filter(|e| {
                    let name = format!("{e}[77] ");
                    !text
                        .lines()
                        .any(|l| l.starts_with(&name) && l.contains(" tmux save"))
                })
                .collect();
            if missing.is_empty() {
                Check::new(
                    "tmux.server",
                    Status::Pass,
                    format!("the running server has the {} hooks that save the layout", events.len()),
                )
            } else {
                Check::new(
                    "tmux.server",
                    Status::Fail,
                    format!(
                        "the running server lacks {} of the {} layout hooks ({}…): the tmux line is not loaded",
                        missing.len(),
                        events.len(),
                        missing[0]
                    ),
                )
                .fix("agent-resume init tmux | tmux source-file -")
            }
        }
        Err(e) => Check::new(
            "tmux.server",
            Status::Fail,
            format!("cannot read the server's hooks: {e}"),
        ),
    });
    out
}
