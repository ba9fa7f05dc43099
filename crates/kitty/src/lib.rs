//! The kitty host of agent-resume: the only place that talks to kitty.
//!
//! kitty restores nothing on its own. This crate reads a running kitty over
//! remote control (`kitty @ ls`, JSON read with serde into typed structs,
//! bounded, every value untrusted: [`parse_ls`]), keeps a snapshot of it
//! (OS windows → tabs → windows, with directories, layouts, focus and each
//! window's shell) under stable pane ids ([`snapshot`]), maps the snapshot
//! onto agent-resume's host-neutral [`Layout`](agent_resume_core::Layout)
//! ([`to_layout`]), and writes a kitty session file that brings it back
//! ([`session_file`]): each window's shell starts with its pane id in
//! `AGENT_RESUME_PANE`, and takes its armed line at its first prompt
//! through the shell integration.
//!
//! # Boundaries
//!
//! Whatever answers on kitty's socket decides what the listing says, so the
//! socket is checked first ([`examine`]: a socket of this user's in a
//! directory only this user may write, listened on by a process of this
//! user's), and a window never takes the pane id kitty itself inherited
//! ([`Inherited`]).
//!
//! A session file is an interpreter: kitty splits its lines as Python's
//! `splitlines`, expands `$VAR` and `~` in directories and normalises them.
//! Every value written passes [`literal`], which writes it so kitty reads
//! back exactly its text or refuses it with a typed [`Refused`]; [`reread`]
//! is an independent reading of a file as kitty reads it, which the tests
//! and the fuzz target hold the writer to. See `docs/security.md`.
//!
//! # Example
//!
//! ```
//! use agent_resume_kitty::{parse_ls, reread, session_file, snapshot, Inherited, PANE_ENV};
//! use agent_resume_core::PaneId;
//!
//! let ls = br#"[{"id": 1, "is_focused": true, "tabs": [{"id": 1, "is_active": true,
//!   "layout": "splits", "windows": [{"id": 1, "is_active": true, "pid": 42,
//!   "cwd": "/tmp/a b", "cmdline": ["/usr/bin/zsh"]},
//!   {"id": 2, "pid": 43, "cwd": "/tmp/$HOME\nlaunch sh", "cmdline": ["bash"]}]}]}]"#;
//! let snap = snapshot(&parse_ls(ls).expect("reads"), None, Inherited::Nothing, || PaneId::from_bytes([7; 16]));
//! let written = session_file(&snap, "/home/me".as_ref());
//! let read = reread(&written.text);
//! let tab = &read.os_windows[0][0];
//! assert_eq!(tab[0].cwd, "/tmp/a b");
//! assert_eq!(tab[0].argv, ["zsh"]);
//! // The hostile directory is refused: a plain shell at home, nothing run.
//! assert_eq!(tab[1].cwd, "/home/me");
//! assert_eq!(tab[1].argv, ["bash"]);
//! assert_eq!(written.refused.len(), 1);
//! assert!(tab[1].env[0].starts_with(PANE_ENV));
//! ```

pub mod capture;
mod command;
pub mod doctor;
pub mod host;
mod listing;
mod model;
mod reread;
mod socket;
pub mod start;
mod value;
pub mod watcher;
mod writer;

pub use command::{Kitty, KittyError};
pub use listing::{
    parse_ls, ListingError, LsOsWindow, LsProcess, LsTab, LsWindow, MAX_LISTING, MAX_WINDOWS,
};
pub use model::{
    restorable_cwd, shell_of, snapshot, split_order, to_layout, Inherited, OsWindowSnap, Snapshot,
    Split, TabSnap, WindowSnap, PANE_ENV,
};
pub use reread::{reread, Read, ReadWindow, EXPANDED, HOME};
pub use socket::{
    check_private_dir, examine, listen_on_line, listen_on_text, Listener, PrivateDirError,
    Untrusted, MAX_SOCKET_DIR,
};
pub use value::{
    is_line_break, is_python_space, literal, Refusal, Refused, Value, MAX_DIRECTORY, MAX_NAME,
};
pub use writer::{session_file, Written, LAYOUTS};
