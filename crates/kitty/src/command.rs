//! The only code that runs `kitty @`: `ls` (and, for the demo's own
//! windows, `send-text` and `get-text`), as argv.

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

    fn at(&self, args: &[&str]) -> Result<Vec<u8>, KittyError> {
        let out = Command::new(&self.program)
            .arg("@")
            .arg("--to")
            .arg(&self.to)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(KittyError::Spawn)?;
        if !out.status.success() {
            return Err(KittyError::Failed);
        }
        Ok(out.stdout)
    }

    /// Types `text` into window `window` (`send-text`; kitty reads Python
    /// escapes in it, so `\\r` is Enter). For the demo's own windows only.
    pub fn send_text(&self, window: u64, text: &str) -> Result<(), KittyError> {
        self.at(&["send-text", "--match", &format!("id:{window}"), text])
            .map(drop)
    }

    /// The text on window `window`'s screen.
    pub fn screen(&self, window: u64) -> Result<String, KittyError> {
        self.at(&["get-text", "--match", &format!("id:{window}")])
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// Lists OS windows → tabs → windows.
    pub fn ls(&self) -> Result<Vec<LsOsWindow>, KittyError> {
        Ok(parse_ls(&self.at(&["ls"])?)?)
    }
}
