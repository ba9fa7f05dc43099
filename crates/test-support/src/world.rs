//! A tmux world: a private tmux server and the [`PrivateEnv`] it was
//! started with, so the server, its panes and the binary under test all
//! see one environment.

use std::ffi::OsStr;
use std::path::Path;

use crate::env::{PrivateEnv, TestCommand};
use crate::tmux::Tmux;

/// A tmux world: a private server started (by the test's first command)
/// with exactly a [`PrivateEnv`], so its panes and the binary under test
/// see the same environment, and the binary reaching that server.
pub struct TmuxWorld {
    /// The server; declared first, so it is killed before the temp dir
    /// goes.
    pub tmux: Tmux,
    /// The environment of the server, its panes and the binary.
    pub env: PrivateEnv,
}

impl TmuxWorld {
    /// A server, not started yet, reading `config` and running with
    /// exactly `env`.
    pub fn new(env: PrivateEnv, config: &Path) -> TmuxWorld {
        TmuxWorld {
            tmux: env.tmux(config),
            env,
        }
    }

    /// The world's temp dir.
    pub fn root(&self) -> &Path {
        self.env.root()
    }

    /// The binary under test with `args` and the world's environment,
    /// reaching the world's server by its socket name; stdin is empty.
    pub fn cli<S: AsRef<OsStr>>(&self, args: &[S]) -> TestCommand {
        let mut c = self.env.command(args);
        c.reach(&self.tmux);
        c
    }
}
