//! The tools a test needs: found, or the test fails naming the missing one.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Where a tool is looked for after `PATH`.
const SYSTEM_DIRS: [&str; 3] = ["/usr/local/bin", "/usr/bin", "/bin"];

/// The Debian package that installs `name`, for the failure message.
fn package_of(name: &str) -> &str {
    match name {
        "Xvfb" => "xvfb",
        "node" | "npm" => "nodejs npm",
        other => other,
    }
}

/// Finds the executable `name` on `PATH` or in the usual system
/// directories, or fails the test naming it: a missing tool is a failure,
/// never a skip.
pub fn require(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(SYSTEM_DIRS.map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| {
            panic!(
                "`{name}` is required by this test and is not installed; these tests \
                 never skip (apt-get install -y --no-install-recommends {})",
                package_of(name)
            )
        })
}

/// Fails naming the mesa driver when its software rasteriser is missing
/// (kitty cannot draw under Xvfb without it).
pub fn require_mesa() {
    let found = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
    ]
    .iter()
    .any(|d| Path::new(d).join("dri/swrast_dri.so").exists());
    assert!(
        found,
        "required package `libgl1-mesa-dri` is not installed; these tests never skip \
         (apt-get install -y kitty xvfb libgl1-mesa-dri)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_fails_naming_it() {
        let name = "agent-resume-no-such-tool";
        let err = std::panic::catch_unwind(|| require(name)).expect_err("not installed");
        let msg = err
            .downcast_ref::<String>()
            .expect("the panic carries a formatted message");
        assert!(msg.contains(&format!("`{name}` is required")), "{msg}");
    }

    #[test]
    fn an_installed_tool_is_found_by_its_path() {
        let sh = require("sh");
        assert!(sh.ends_with("sh") && sh.is_absolute(), "{}", sh.display());
    }
}
