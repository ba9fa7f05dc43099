//! The environment a provider resolves its agent's store root from
//! ([`crate::Homes::from_env`] builds one; the library never reads the
//! process environment itself).

use std::ffi::OsString;
use std::path::PathBuf;

fn absolute(v: Option<OsString>) -> Option<PathBuf> {
    v.map(PathBuf::from).filter(|p| p.is_absolute())
}

/// The environment a provider resolves its agent's root from.
pub(crate) struct HomeEnv<'a> {
    env: &'a dyn Fn(&str) -> Option<OsString>,
    home: Option<PathBuf>,
}

impl<'a> HomeEnv<'a> {
    /// The environment `env` reads, with its `$HOME` when absolute.
    pub(crate) fn new(env: &'a dyn Fn(&str) -> Option<OsString>) -> HomeEnv<'a> {
        HomeEnv {
            env,
            home: absolute(env("HOME")),
        }
    }

    /// The variable's raw value.
    pub(crate) fn var(&self, name: &str) -> Option<OsString> {
        (self.env)(name)
    }

    /// The variable, when set to an absolute path.
    pub(crate) fn absolute(&self, name: &str) -> Option<PathBuf> {
        absolute((self.env)(name))
    }

    /// The variable when absolute, else `default`.
    pub(crate) fn var_or(&self, name: &str, default: Option<PathBuf>) -> Option<PathBuf> {
        self.absolute(name).or(default)
    }

    /// `$HOME`, when absolute.
    pub(crate) fn home(&self) -> Option<PathBuf> {
        self.home.clone()
    }

    /// `rel` under `$HOME`.
    pub(crate) fn under(&self, rel: &str) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(rel))
    }
}
