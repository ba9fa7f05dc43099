//! One module per subcommand; each exposes `Args` and `run`.

pub mod agents;
pub mod build;
pub mod capture;
pub mod completions;
pub mod continue_;
pub mod demo;
pub mod demo_kitty;
mod demo_show;
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

/// Standard output for a listing: locked once and buffered, so a listing of
/// thousands of rows is a handful of `write` calls instead of one per line.
/// The caller flushes it (`flush()?`) before returning, so a closed pipe
/// surfaces as an error (`main` turns `BrokenPipe` into a quiet exit 0)
/// rather than being lost in the writer's drop.
pub fn listing_stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
}

/// The hosts `status` and `doctor` report on, each through its
/// `agent_resume_engine::host::Host`: tmux's default server, then kitty.
pub fn hosts(o: &crate::paths::Overrides) -> Vec<Box<dyn agent_resume_engine::host::Host>> {
    vec![Box::new(agent_resume_tmux::host::TmuxHost::new(
        agent_resume_tmux::Tmux::new(agent_resume_tmux::Socket::Default),
        o.clone(),
    ))]
}
