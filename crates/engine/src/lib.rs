//! The agent-resume feature module a Rust terminal links: the long-lived
//! [`handle`], persistence behind a trait ([`persistence`]), the settings
//! and paths it shares with the CLI, the real filesystem probe, capture into
//! the store (hooks, the zero-config scan, hook installation), the `Host`
//! trait ([`host`]) and the restore sequence over any host, the one safe
//! take, and the telemetry file sink.
//!
//! Everything a host *decides* lives here or below (in
//! `agent_resume_core`), once: the CLI is one host of this crate, and a
//! terminal that links it gets exactly the CLI's behaviour — the same
//! `enabled` flag and XDG paths (so agent hooks run by the CLI and the
//! terminal share one database), the same take.
//!
//! # Features
//!
//! - `sqlite` (default): the SQLite store of recordings and armed lines
//!   (`agent-resume-store`), the path the CLI and the shell integration
//!   share across processes. Without it the engine builds no C code;
//!   [`persistence::Memory`] or a host's own [`persistence::Persistence`]
//!   holds recordings and arms.
//!
//! # Example
//!
//! A pane's shell is ready; its armed line is taken through [`take::decide`],
//! which re-checks the expiry, the pane's state, the posture window and the
//! program path, and renders the line from validated words:
//!
//! ```
//! use agent_resume_core::{AgentKind, Shell, UnixMillis};
//! use agent_resume_engine::fs::RealFs;
//! use agent_resume_engine::take::{decide, Armed, Ready, Request, Taken};
//!
//! let id = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
//! let argv: Vec<String> = ["claude", "--model", "opus", "--resume", id]
//!     .map(String::from)
//!     .to_vec();
//! let armed = Armed {
//!     agent: AgentKind::Claude,
//!     session_id: id,
//!     argv: &argv,
//!     armed_at: UnixMillis(1_000),
//!     observed_at: UnixMillis(0),
//! };
//! let request = Request {
//!     shell: Shell::Zsh,
//!     ready: Ready::default(),
//!     now: UnixMillis(2_000),
//!     armed_expiry_millis: 10 * 60 * 1000,
//!     fs: &RealFs,
//! };
//! let (taken, event) = decide(&armed, &request);
//! let Taken::Line(line) = taken else { panic!("resumes") };
//! assert!(line.line.starts_with(" AGENT_RESUME_LINE=1 'claude'"));
//! assert_eq!(event.outcome.as_str(), "resumed");
//! ```

pub mod ask;
#[cfg(feature = "sqlite")]
pub mod capture;
pub mod check;
#[cfg(feature = "sqlite")]
pub mod evidence;
pub mod fs;
pub mod handle;
pub mod hooks;
pub mod host;
#[cfg(feature = "sqlite")]
pub mod launch;
pub mod paths;
pub mod persistence;
pub mod private_dir;
pub mod process;
pub mod restore;
#[cfg(feature = "sqlite")]
pub mod scan;
pub mod settings;
pub mod shell_init;
pub mod take;
pub mod telemetry;

/// The pure core every type of the engine's API comes from (layouts,
/// observations, verdicts, telemetry events): a host depends on the engine
/// alone and names them through it.
pub use agent_resume_core as core;

/// The variable that carries a pane's id into its processes outside tmux
/// (a terminal that is not tmux sets it in every pane it starts).
pub const PANE_ENV: &str = "AGENT_RESUME_PANE";

/// An error and its causes on one line (`a: b: c`), the way a host shows
/// it to a user.
pub fn error_line(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        next = cause.source();
    }
    out
}
