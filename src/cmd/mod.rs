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
pub mod ended;
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
/// `agent_resume_engine::host::Host`: the tmux server `socket` names, then
/// kitty.
pub fn hosts(
    o: &crate::paths::Overrides,
    socket: agent_resume_tmux::Socket,
) -> Vec<Box<dyn agent_resume_engine::host::Host>> {
    // Neither reads its session file here: only `kitty session` writes one.
    let session = crate::paths::state()
        .map(|s| s.join("kitty.session"))
        .unwrap_or_default();
    vec![
        Box::new(agent_resume_tmux::host::TmuxHost::new(
            agent_resume_tmux::Tmux::new(socket),
            o.clone(),
        )),
        Box::new(agent_resume_kitty::host::KittyHost::new(o.clone(), session)),
    ]
}
