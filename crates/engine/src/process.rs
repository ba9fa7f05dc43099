//! The CLI's only process spawning (tmux has its own crate): a chained
//! notifier, the launch wrapper's exec, an agent's `--version` asked by
//! `install-hooks`, and the background capture `note` starts
//! (`launch`, feature `sqlite`).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// Starts `program` with `args` in the background: stdio on `/dev/null`
/// (a shell reading the caller's output through a pipe or a command
/// substitution never waits for it), in a process group of its own (the
/// terminal's job control and its Ctrl-C never reach it), not waited for.
/// For a caller that exits right after: the child is then reparented and
/// reaped by init.
pub fn spawn_background(
    program: &std::path::Path,
    args: &[std::ffi::OsString],
) -> std::io::Result<()> {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map(drop)
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

/// The first executable `name` in an absolute `PATH` directory. A relative
/// entry (`.`, `bin`, an empty one) names whatever directory the command
/// happens to run in, such as a freshly cloned repository: it is skipped.
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| {
                m.is_file()
                    && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
            })
        })
}

/// Runs the program `word` found by [`on_path`] with `args` (no shell,
/// stdin and stderr null) and returns what it printed on stdout, up to
/// 4 KiB, if it exits 0 within `limit`; a program still running then is
/// killed. A word found only through a relative `PATH` entry is not run.
pub fn output_within(word: &str, args: &[&str], limit: Duration) -> Option<String> {
    let program = on_path(word)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut out = String::new();
    child
        .stdout
        .take()?
        .take(4096)
        .read_to_string(&mut out)
        .ok()?;
    status.success().then_some(out)
}
