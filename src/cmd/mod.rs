//! One module per subcommand; each exposes `Args` and `run`.

pub mod agents;
pub mod build;
pub mod capture;
pub mod completions;
pub mod continue_;
pub mod demo;
pub mod demo_kitty;
pub mod doctor;
pub mod enable;
pub mod explain;
pub mod forget;
pub mod headless;
pub mod hook;
pub mod hooks;
pub mod init;
pub mod kitty;
pub mod note;
pub mod plan;
pub mod record;
pub mod recordings;
pub mod report;
pub mod resume;
pub mod run;
pub mod sessions;
pub mod stats;
pub mod status;
pub mod take;
pub mod tmux;

/// Exit code for a refusal: the request was understood and deliberately not
/// served (distinct from usage errors, 2).
pub const EXIT_REFUSED: u8 = 3;
