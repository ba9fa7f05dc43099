//! The harness every integration test of agent-resume shares, so each test
//! file states its rule and not its own copy of the world around it:
//!
//! - [`require`]: a tool the test needs, or a failure naming it (never a
//!   skip);
//! - [`PrivateEnv`]: a temp dir with its own `HOME`, `XDG_*`, database,
//!   config and telemetry paths, and [`TestCommand`]s for the binary under
//!   test run with exactly that environment (`env_clear` + what is set);
//! - [`wait_for`]: polling with one patience, never a fixed sleep;
//! - [`fake`]: a host in memory ([`FakeHost`]) for the conformance suite;
//! - [`tmux`]: a private tmux server, killed and waited for on drop;
//! - [`TmuxWorld`]: such a server started with a [`PrivateEnv`], whose
//!   panes and the binary under test see that same environment;
//! - [`kitty`]: a real kitty under a private Xvfb display;
//! - [`shell`]: the case corpus and running built lines through real
//!   shells.
//!
//! ```
//! use agent_resume_test_support::PrivateEnv;
//!
//! // A pane's shell starts from `env -i` with the world's variables and
//! // its own on top.
//! let env = PrivateEnv::bare("/bin/true").with("LANG", "C.UTF-8");
//! let argv = env.env_argv([("TERM", "xterm")]);
//! assert_eq!(argv, ["env", "-i", "LANG=C.UTF-8", "TERM=xterm"]);
//! ```
//!
//! A library cannot name the binary under test (`CARGO_BIN_EXE_*` exists
//! only for the package's own test targets): each test file passes it in.

#![allow(clippy::unwrap_used)] // Test code: a failed unwrap fails the test.

pub mod env;
pub mod fake;
pub mod kitty;
pub mod poll;
pub mod shell;
pub mod text;
pub mod tmux;
pub mod tool;
pub mod world;

pub use env::{PrivateEnv, TestCommand};
pub use fake::FakeHost;
pub use poll::{wait_for, PATIENCE, POLL};
pub use text::{shown, text, texts, tree};
pub use tool::require;
pub use world::TmuxWorld;
