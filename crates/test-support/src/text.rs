//! Reading what a run left: its output as text, the files it made.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Bytes as text, invalid UTF-8 replaced.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A run's stdout and stderr as text.
pub fn texts(out: &Output) -> (String, String) {
    (text(&out.stdout), text(&out.stderr))
}

/// Arguments as strings, for a failure message.
pub fn shown<S: AsRef<OsStr>>(args: &[S]) -> Vec<String> {
    args.iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect()
}

/// Every file and folder under `p` (not `p` itself), sorted; nothing when
/// `p` does not exist.
pub fn tree(p: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd {
            let path = e.expect("a directory entry").path();
            out.extend(tree(&path));
            out.push(path);
        }
    }
    out.sort();
    out
}
