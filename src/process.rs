//! The CLI's only process spawning (tmux has its own crate): a chained
//! notifier, and the launch wrapper's exec.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// Runs `argv` with `last` appended, detached, stdio null, not waited for:
/// a notifier the user already had keeps working after ours.
pub fn spawn_detached(argv: &[String], last: &str) {
    let Some((program, args)) = argv.split_first() else {
        return;
    };
    let _ = Command::new(program)
        .args(args)
        .arg(last)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

/// Replaces this process with `argv`, run in `dir` (a resumed session's
/// own directory). No shell is involved. Returns only on failure.
pub fn exec_in(argv: &[String], dir: &std::path::Path) -> std::io::Error {
    let Some((program, args)) = argv.split_first() else {
        return std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command");
    };
    Command::new(program).args(args).current_dir(dir).exec()
}

/// Replaces this process with `argv`. Returns only on failure.
pub fn exec(argv: &[String]) -> std::io::Error {
    let Some((program, args)) = argv.split_first() else {
        return std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command");
    };
    Command::new(program).args(args).exec()
}
