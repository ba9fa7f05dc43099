//! The CLI's only process spawning (tmux has its own crate): a chained
//! notifier, the launch wrapper's exec, an agent's `--version` asked by
//! `install-hooks` and `doctor`, and the background capture `note` starts
//! (`launch`, feature `sqlite`).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
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

/// Asks the program `word` found by [`on_path`] for its `--version` (no
/// shell, stdin null) and returns what it printed, up to 4 KiB per stream,
/// if it exits 0 within `limit`; a program still running then is killed. A
/// word found only through a relative `PATH` entry is not run. The answer is
/// stdout, else stderr when only stderr holds a version: pi prints its
/// version there.
pub fn version_within(word: &str, limit: Duration) -> Option<String> {
    version_of(&on_path(word)?, limit)
}

fn version_of(program: &Path, limit: Duration) -> Option<String> {
    let (out, err) = output_within(program, &["--version"], limit)?;
    let has = |t: &str| version_in(t).is_some();
    Some(if !has(&out) && has(&err) { err } else { out })
}

/// The first `a.b.c` version in a program's `--version` output.
pub fn version_in(text: &str) -> Option<(u64, u64, u64)> {
    text.split_whitespace().find_map(|w| {
        let mut parts = w.trim_start_matches('v').splitn(3, '.');
        let mut number = || -> Option<u64> {
            let p = parts.next()?;
            let digits = &p[..p.find(|c: char| !c.is_ascii_digit()).unwrap_or(p.len())];
            digits.parse().ok()
        };
        Some((number()?, number()?, number()?))
    })
}

/// Runs `program` with `args` and returns its stdout and stderr, up to
/// 4 KiB each, if it exits 0 within `limit`. Both are read after the exit:
/// a `--version` answer fits the pipes' buffers.
fn output_within(program: &Path, args: &[&str], limit: Duration) -> Option<(String, String)> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
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
    let read = |pipe: Option<&mut dyn Read>| {
        let mut text = String::new();
        pipe?.take(4096).read_to_string(&mut text).ok()?;
        Some(text)
    };
    let out = read(child.stdout.as_mut().map(|p| p as &mut dyn Read))?;
    let err = read(child.stderr.as_mut().map(|p| p as &mut dyn Read)).unwrap_or_default();
    status.success().then_some((out, err))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn stand_in(dir: &Path, body: &str) -> std::path::PathBuf {
        let path = dir.join("agent");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    #[test]
    fn a_version_printed_on_stderr_is_read_there() {
        let dir = tempfile::tempdir().expect("tempdir");
        let limit = Duration::from_secs(5);
        let pi = stand_in(dir.path(), "echo 0.73.1 >&2");
        assert_eq!(version_of(&pi, limit).as_deref(), Some("0.73.1\n"));
    }

    #[test]
    fn stdout_wins_and_a_failed_or_silent_probe_answers_no_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let limit = Duration::from_secs(5);
        let both = stand_in(
            dir.path(),
            "echo 'codex-cli 0.171.0'; echo 'warn 9.9.9' >&2",
        );
        assert_eq!(
            version_of(&both, limit).as_deref(),
            Some("codex-cli 0.171.0\n")
        );
        let failed = stand_in(dir.path(), "echo 1.2.3 >&2; exit 1");
        assert_eq!(version_of(&failed, limit), None);
        let none = stand_in(dir.path(), "echo usage >&2");
        let answer = version_of(&none, limit);
        assert_eq!(answer.as_deref(), Some(""));
        assert_eq!(answer.as_deref().and_then(version_in), None);
    }
}
