//! The tmux host of agent-resume: the only place that talks to tmux.
//!
//! tmux loses every pane when its server dies. This crate gives each pane a
//! stable id (kept in the pane user option `@agent_resume_pane`), takes
//! layout snapshots (sessions → windows → panes, with directories, the
//! active window and pane, and which session was attached last), maps a
//! snapshot onto agent-resume's host-neutral [`Layout`], recreates what is
//! missing, and types — only where the pane's shell integration shows an
//! empty, idle prompt (see `prompt`), and only a fixed command holding
//! nothing but a validated pane id — the request for a pane's armed resume
//! line.
//!
//! # Example
//!
//! ```
//! use agent_resume_tmux::{snapshot, LivePane};
//!
//! let live = vec![LivePane::parse_line(
//!     "work\t1700000000\t1\t0\t1\tb25d,80x24,0,0,1\t0\t1\t%1\t/home/me/proj\tzsh\t6f9619ff-8b86-d011-b42d-00c04fc964ff\t4242",
//! ).expect("a well-formed line")];
//! let snap = snapshot(&live);
//! assert_eq!(snap.sessions[0].windows[0].panes[0].cwd.to_str(), Some("/home/me/proj"));
//! ```

mod command;
mod model;
mod prompt;

pub use command::{Socket, Start, Tmux, TmuxError, PANE_OPTION};
pub use model::{
    is_shell, layout_size, shell_of, snapshot, started_with, to_layout, LivePane, PaneSnap, Placed,
    SessionSnap, Snapshot, WindowSnap,
};
pub use prompt::{
    foreground_group, NotIdle, Prompt, Typed, PENDING_OPTION, PROBE_KEY, PROBE_OPTION,
    PROBE_PATIENCE, PROMPT_OPTION,
};
