//! The tmux host of agent-resume: the only place that talks to tmux.
//!
//! tmux loses every pane when its server dies. This crate gives each pane a
//! stable id (kept in the pane user option `@agent_resume_pane`, set in the
//! same tmux command list that creates a pane it recreates; never read from
//! an environment a pane could have inherited), takes
//! layout snapshots (sessions → windows → panes, with directories, the
//! active window and pane, and which session was attached last), maps a
//! snapshot onto agent-resume's host-neutral [`Layout`](agent_resume_core::Layout), recreates what is
//! missing, and types — only where the pane's shell integration shows an
//! empty, idle prompt (see `prompt`), and only a fixed command holding
//! nothing but a validated pane id — the request for a pane's armed resume
//! line.
//!
//! # Boundaries
//!
//! tmux expands formats (`#(cmd)` runs `cmd`) in directories and names it is
//! handed: every value goes through [`literal`], which writes it so tmux
//! reads back exactly its bytes or refuses it with a typed [`Refused`].
//! Listings are read with length-prefixed framing ([`LIST_FORMAT`],
//! [`parse_listing`]) that no value can forge; a listing that does not read
//! exactly is an error as a whole, and a directory or command name holding a
//! control character reads as unknown. See `docs/security.md`.
//!
//! # Example
//!
//! ```
//! use std::path::PathBuf;
//! use agent_resume_tmux::{parse_listing, render_listing, snapshot, LivePane};
//!
//! let pane = LivePane {
//!     session: "work".into(),
//!     session_last_attached: 1700000000,
//!     session_attached: 1,
//!     window_index: 0,
//!     window_active: true,
//!     window_name: "zsh".into(),
//!     window_layout: "b25d,80x24,0,0,1".into(),
//!     pane_index: 0,
//!     pane_active: true,
//!     target: "%1".into(),
//!     cwd: PathBuf::from("/home/me/proj"),
//!     command: "zsh".into(),
//!     stable_id: "6f9619ff-8b86-d011-b42d-00c04fc964ff".parse().ok(),
//!     pid: Some(4242),
//! };
//! // What `list-panes -F LIST_FORMAT` prints: every value length-prefixed.
//! let bytes = render_listing(&[pane.clone()]);
//! assert!(bytes.starts_with(b"4:work,10:1700000000,1:1,"));
//! let live = parse_listing(&bytes).expect("reads exactly");
//! assert_eq!(live, [pane]);
//! let snap = snapshot(&live);
//! assert_eq!(snap.sessions[0].windows[0].panes[0].cwd, live[0].cwd);
//!
//! // A newline in a directory forges nothing: that directory reads as
//! // unknown. In a session name (tmux escapes those) it fails the listing.
//! let mut forged = live[0].clone();
//! forged.cwd = PathBuf::from("/tmp/x\n2:%9,");
//! assert_eq!(parse_listing(&render_listing(&[forged.clone()])).expect("framed")[0].cwd, PathBuf::new());
//! forged.session = "s\n".into();
//! assert!(parse_listing(&render_listing(&[forged])).is_err());
//! ```

mod command;
pub mod doctor;
pub mod host;
mod listing;
mod literal;
pub mod locate;
mod model;
mod prompt;
pub mod start;

pub use command::{
    Made, NewWindow, Socket, Start, Tmux, TmuxError, CLOCK_OPTION, PANE_OPTION, RESTORING_OPTION,
    SAVING_OPTION, STARTED_OPTION, TAKE_ENV,
};
pub use listing::{parse_listing, render_listing, Field, ListingError, LivePane, LIST_FORMAT};
pub use literal::{
    current_window_target, literal, session_target, window_target, Refusal, Refused, Value,
    MAX_DIRECTORY, MAX_NAME,
};
pub use model::{
    is_shell, layout_size, shell_of, snapshot, to_layout, PaneSnap, Placed, SessionSnap, Snapshot,
    WindowSnap,
};
pub use prompt::{
    foreground_group, here_in, NotIdle, Prompt, Prompts, Typed, PROBE_KEY, PROBE_OPTION,
    PROBE_PATIENCE, PROMPT_DIR,
};
