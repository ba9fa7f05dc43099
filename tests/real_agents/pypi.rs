//! CLIs from PyPI: a virtual environment per pinned package, made with the
//! newest Python the package accepts and cached beside the npm installs
//! (`<cache>/pypi-<package>@<version>`).
//!
//! The environment is built in a `.part-<pid>` directory and renamed into
//! place, so a half-made one is never used; pip writes the absolute path of
//! the environment's Python into each script's `#!` line, so those lines
//! are pointed at the final directory before the rename. A missing Python
//! fails the test naming the versions it looked for: these tests never
//! skip.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The first of `names` (newest first, e.g. `["python3.13", "python3.12"]`)
/// that runs, on `PATH` or under `~/.pyenv/versions/*/bin` (pyenv's shims
/// on `PATH` name versions that may not be installed, so each candidate is
/// run once).
pub(crate) fn python(names: &[&str]) -> PathBuf {
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    let mut versions: Vec<PathBuf> = pyenv
        .and_then(|r| fs::read_dir(r.join("versions")).ok())
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path().join("bin"))
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions.reverse();
    for name in names {
        for dir in path_dirs.iter().chain(&versions) {
            let candidate = dir.join(name);
            if candidate.is_file() && runs(&candidate) {
                return candidate;
            }
        }
    }
    panic!(
        "none of {names:?} runs (looked on PATH and under ~/.pyenv/versions/*/bin): \
         install one (scripts/test names it too)"
    );
}

fn runs(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import venv"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `<bin>` of `package==version` in its cached environment, made first
/// when it is not there. Concurrent tests each build their own and the
/// first rename wins.
pub(crate) fn installed(
    cache: &Path,
    package: &str,
    version: &str,
    pythons: &[&str],
    bin: &str,
) -> PathBuf {
    let dir = cache.join(format!("pypi-{package}@{version}"));
    let exe = dir.join("bin").join(bin);
    if exe.is_file() {
        return exe;
    }
    let python = python(pythons);
    let part = PathBuf::from(format!("{}.part-{}", dir.display(), std::process::id()));
    let _ = fs::remove_dir_all(&part);
    fs::create_dir_all(cache).expect("creates the CLI cache");
    let spec = format!("{package}=={version}");
    let started = Instant::now();
    let venv = Command::new(&python)
        .arg("-m")
        .arg("venv")
        .arg(&part)
        .stdin(Stdio::null())
        .output()
        .expect("python can be started");
    assert!(
        venv.status.success(),
        "{spec}: `{} -m venv` failed: {}",
        python.display(),
        String::from_utf8_lossy(&venv.stderr)
    );
    let pip = Command::new(part.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            &spec,
        ])
        .stdin(Stdio::null())
        .output()
        .expect("the environment's python can be started");
    assert!(
        pip.status.success(),
        "{spec}: `pip install {spec}` failed (PyPI unreachable?): {}",
        String::from_utf8_lossy(&pip.stderr)
    );
    relocate_scripts(&part, &dir);
    eprintln!(
        "installed {spec} into {} with {} in {:.1} s",
        dir.display(),
        python.display(),
        started.elapsed().as_secs_f64()
    );
    if fs::rename(&part, &dir).is_err() {
        // Another test installed it first.
        let _ = fs::remove_dir_all(&part);
    }
    assert!(exe.is_file(), "{spec}: {} is not installed", exe.display());
    exe
}

/// Points every `#!<from>/…` line of `<from>/bin/*` at `<to>/…`.
fn relocate_scripts(from: &Path, to: &Path) {
    let old = format!("#!{}/", from.display());
    let new = format!("#!{}/", to.display());
    for e in fs::read_dir(from.join("bin"))
        .expect("the environment's bin")
        .flatten()
    {
        let path = e.path();
        if path.is_symlink() || !path.is_file() {
            continue;
        }
        let Ok(bytes) = fs::read(&path) else { continue };
        if let Some(rest) = bytes.strip_prefix(old.as_bytes()) {
            let mut out = new.as_bytes().to_vec();
            out.extend_from_slice(rest);
            fs::write(&path, out).expect("rewrites a script's #! line");
        }
    }
}
