//! The only code that runs kitty: `kitty @ --to unix:SOCKET ls`, as argv.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use thiserror::Error;

use crate::listing::{parse_ls, ListingError, LsOsWindow};

/// Why talking to kitty failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum KittyError {
    /// kitty could not be started.
    #[error("cannot run kitty")]
    Spawn(#[source] std::io::Error),
    /// kitty answered with a failure (not listening, remote control off).
    #[error("kitty remote control failed (is `allow_remote_control` on and `listen_on` set?)")]
    Failed,
    /// The listing did not read.
    #[error(transparent)]
    Listing(#[from] ListingError),
}

/// A kitty instance reached over its remote-control socket.
#[derive(Clone, Debug)]
pub struct Kitty {
    program: PathBuf,
    to: OsString,
}

impl Kitty {
    /// The kitty listening at `listen_on` (`unix:/path` as in
    /// `$KITTY_LISTEN_ON`), run as `program`.
    pub fn new(program: impl Into<PathBuf>, listen_on: impl Into<OsString>) -> Self {
        Kitty {
            program: program.into(),
            to: listen_on.into(),
        }
    }

    /// Lists OS windows → tabs → windows.
    pub fn ls(&self) -> Result<Vec<LsOsWindow>, KittyError> {
        let out = Command::new(&self.program)
            .arg("@")
            .arg("--to")
            .arg(&self.to)
            .arg("ls")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(KittyError::Spawn)?;
        if !out.status.success() {
            return Err(KittyError::Failed);
        }
        Ok(parse_ls(&out.stdout)?)
    }
}
