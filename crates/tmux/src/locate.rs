//! Pane location — which pane a command is about: `--pane`; else, inside a tmux pane
//! (`$TMUX` and a `$TMUX_PANE` of the form `%N`), the stable id kept in that
//! pane's `@agent_resume_pane` option; else `AGENT_RESUME_PANE`, set by a
//! host in each pane's environment.
//!
//! Inside tmux the pane option is the identity and the environment never
//! is: a variable is inherited by every process started below the one that
//! has it — a tmux server started from a host pane copies it into its global
//! environment, a session created with `new-session -e` keeps it in the
//! session environment — so every later window and split would carry the
//! same value. `AGENT_RESUME_PANE` is read inside tmux only as a value the
//! option already holds (when they agree it is the same id; when they
//! disagree the option wins), and a pane whose option is unset gets a fresh
//! id, never the inherited one. `agent-resume tmux restore` sets the option
//! of each pane it creates in the same tmux command list that creates it,
//! so no shell in it can ask before the option is there.
//!
//! A pane `tmux restore --recreate` created may instead present the take
//! key it was started with ([`take_key`]); `take` looks its line up by that
//! key and the server `$TMUX` names, and falls back to the pane option
//! when that finds nothing (docs/tmux.md, "Take keys").
//!
//! [`resolve`] gives a tmux pane without an id a fresh one (a command that
//! records something needs a pane to record it under); [`existing`] never
//! does (`take` only reads: a pane the restore has not matched yet must stay
//! without an id, or the restore would take it for a pane that never died).

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use agent_resume_core::{BadPaneId, PaneId, TakeKey};
use thiserror::Error;

use crate::{Socket, Tmux, TmuxError, TAKE_ENV};

/// Why no pane could be named.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LocateError {
    /// Not in a tmux pane, no `--pane`, no `AGENT_RESUME_PANE`.
    #[error("no pane: pass --pane or set {ENV}")]
    NoPane,
    /// `--pane` is not a pane id.
    #[error("--pane is not a hyphenated UUID")]
    Flag(#[source] BadPaneId),
    /// `AGENT_RESUME_PANE` is not a pane id.
    #[error("{ENV} is not a hyphenated UUID")]
    Env,
    /// tmux did not answer.
    #[error(transparent)]
    Tmux(#[from] TmuxError),
}

type Result<T> = std::result::Result<T, LocateError>;

/// The environment variable a host sets in each pane.
pub const ENV: &str = agent_resume_engine::PANE_ENV;

/// What the process environment says about where a command runs.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// `AGENT_RESUME_PANE`.
    pub pane: Option<OsString>,
    /// `TMUX` (`socket,pid,session`).
    pub tmux: Option<OsString>,
    /// `TMUX_PANE` (`%N`).
    pub tmux_pane: Option<OsString>,
}

impl Seen {
    /// This process's environment.
    pub fn here() -> Seen {
        Seen {
            pane: std::env::var_os(ENV),
            tmux: std::env::var_os("TMUX"),
            tmux_pane: std::env::var_os("TMUX_PANE"),
        }
    }

    /// The tmux pane this runs in, when there is one: the server's socket
    /// (the part of `$TMUX` before its first `,`, as tmux reads it) and the
    /// pane (`%N`).
    fn tmux_pane(&self) -> Option<(PathBuf, String)> {
        let tmux = self.tmux.as_deref()?.to_str()?;
        let socket = tmux.split(',').next().filter(|s| !s.is_empty())?;
        let pane = self.tmux_pane.as_deref()?.to_str()?;
        let digits = pane.strip_prefix('%')?;
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| (PathBuf::from(socket), pane.to_owned()))
    }

    /// Whether any pane is named at all (tmux's or a host's).
    pub fn any(&self) -> bool {
        self.tmux_pane().is_some() || self.pane.as_deref().is_some_and(|p| !p.is_empty())
    }
}

/// The take key `tmux restore --recreate` handed this process's pane
/// ([`crate::TAKE_ENV`]) and the socket of the tmux server the
/// process runs under (from `$TMUX`): `None` outside a tmux pane, or
/// without a well-formed key. A key is only a lookup: the line it finds
/// must have been armed with this key for this very server
/// (`Store::take_ticket`).
pub fn take_key() -> Option<(TakeKey, PathBuf)> {
    take_key_in(&Seen::here(), std::env::var_os(TAKE_ENV).as_deref())
}

fn take_key_in(seen: &Seen, key: Option<&OsStr>) -> Option<(TakeKey, PathBuf)> {
    let (socket, _) = seen.tmux_pane()?;
    let key = key?.to_str()?.parse().ok()?;
    Some((key, socket))
}

/// The pane id a restore that could not type into this tmux pane left in
/// its pending note ([`crate::Prompts::leave_pending`]), taken once:
/// `None` outside a tmux pane or without a note.
pub fn pending() -> Option<PaneId> {
    let seen = Seen::here();
    let (server, pane) = crate::here_in(
        seen.tmux.as_deref()?.to_str()?,
        seen.tmux_pane.as_deref()?.to_str()?,
    )?;
    crate::Prompts::here()?.take_pending(server, pane)
}

/// Whether a pane without an id is given one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Claim {
    /// A fresh id, kept in the pane option (`set-option -o`).
    Fresh,
    /// None: the pane stays without an id.
    Never,
}

/// The pane from `--pane` or the environment; a tmux pane without an id is
/// given a fresh one.
pub fn resolve(flag: Option<&str>) -> Result<PaneId> {
    match resolve_in(flag, &Seen::here(), Claim::Fresh)? {
        Some(id) => Ok(id),
        None => Err(LocateError::NoPane),
    }
}

/// The pane from `--pane` or the environment, if it has an id already:
/// never gives a tmux pane one.
pub fn existing(flag: Option<&str>) -> Result<Option<PaneId>> {
    resolve_in(flag, &Seen::here(), Claim::Never)
}

fn resolve_in(flag: Option<&str>, seen: &Seen, claim: Claim) -> Result<Option<PaneId>> {
    if let Some(p) = flag {
        return p.parse().map(Some).map_err(LocateError::Flag);
    }
    if let Some((socket, target)) = seen.tmux_pane() {
        return from_tmux(&Tmux::new(Socket::Path(socket)), &target, claim);
    }
    from_env(seen.pane.as_deref())
}

/// `AGENT_RESUME_PANE` outside tmux.
fn from_env(pane: Option<&OsStr>) -> Result<Option<PaneId>> {
    match pane {
        Some(p) if !p.is_empty() => p
            .to_str()
            .and_then(|p| p.parse().ok())
            .map(Some)
            .ok_or(LocateError::Env),
        _ => Ok(None),
    }
}

/// The first process of the tmux pane this runs in (`#{pane_pid}`, the
/// process `tmux save` scans for it), when that pane's stable id is `pane`;
/// `None` outside tmux, for another pane's id, or when tmux does not answer.
pub fn first_process(pane: PaneId) -> Option<u32> {
    first_process_in(&Seen::here(), pane)
}

fn first_process_in(seen: &Seen, pane: PaneId) -> Option<u32> {
    let (socket, target) = seen.tmux_pane()?;
    Tmux::new(Socket::Path(socket))
        .pane_pid_of(&target, pane)
        .ok()
        .flatten()
}

/// The stable id in pane `target`'s option; a fresh one when it has none
/// and `claim` says so. The environment is not consulted.
fn from_tmux(tmux: &Tmux, target: &str, claim: Claim) -> Result<Option<PaneId>> {
    if let Some(id) = tmux.pane_id(target)? {
        return Ok(Some(id));
    }
    match claim {
        Claim::Never => Ok(None),
        Claim::Fresh => Ok(Some(tmux.claim_pane_id(
            target,
            PaneId::from_bytes(*uuid::Uuid::new_v4().as_bytes()),
        )?)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::process::Command;

    /// A private tmux server (its own socket path) with one pane; killed on
    /// drop.
    struct Server {
        _dir: tempfile::TempDir,
        socket: PathBuf,
        pane: String,
    }

    impl Server {
        fn start() -> Server {
            let dir = tempfile::tempdir().unwrap();
            let socket = dir.path().join("s");
            let out = Command::new("tmux")
                .arg("-S")
                .arg(&socket)
                .args(["-f", "/dev/null", "new-session", "-d", "-P", "-F"])
                .args(["#{pane_id}", "sleep", "600"])
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .output()
                .expect("tmux is required by this test and is not installed");
            assert!(out.status.success(), "tmux new-session: {out:?}");
            let pane = String::from_utf8(out.stdout).unwrap().trim().to_owned();
            Server {
                _dir: dir,
                socket,
                pane,
            }
        }

        fn tmux(&self) -> Tmux {
            Tmux::new(Socket::Path(self.socket.clone()))
        }

        fn seen(&self, pane_env: Option<PaneId>) -> Seen {
            let mut tmux = self.socket.clone().into_os_string();
            tmux.push(",1,0");
            Seen {
                pane: pane_env.map(|p| p.to_string().into()),
                tmux: Some(tmux),
                tmux_pane: Some(self.pane.clone().into()),
            }
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.tmux().kill_server();
        }
    }

    fn id(n: u8) -> PaneId {
        PaneId::from_bytes([n; 16])
    }

    #[test]
    fn inside_tmux_an_environment_id_that_agrees_with_the_pane_option_is_that_id() {
        let s = Server::start();
        s.tmux().set_pane_id(&s.pane, id(1)).unwrap();
        let got = resolve_in(None, &s.seen(Some(id(1))), Claim::Fresh).unwrap();
        assert_eq!(got, Some(id(1)));
    }

    #[test]
    fn inside_tmux_an_environment_id_that_disagrees_with_the_pane_option_is_ignored() {
        let s = Server::start();
        s.tmux().set_pane_id(&s.pane, id(1)).unwrap();
        for claim in [Claim::Fresh, Claim::Never] {
            let got = resolve_in(None, &s.seen(Some(id(2))), claim).unwrap();
            assert_eq!(got, Some(id(1)), "{claim:?}");
        }
    }

    #[test]
    fn inside_tmux_a_pane_without_an_option_never_takes_the_inherited_environment_id() {
        let s = Server::start();
        let got = resolve_in(None, &s.seen(Some(id(3))), Claim::Fresh)
            .unwrap()
            .expect("a fresh id");
        assert_ne!(got, id(3), "the inherited id was taken");
        assert_eq!(
            s.tmux().pane_id(&s.pane).unwrap(),
            Some(got),
            "the fresh id is the pane's option"
        );
    }

    #[test]
    fn the_first_process_is_the_panes_only_for_the_id_the_pane_holds() {
        let s = Server::start();
        assert_eq!(first_process_in(&s.seen(None), id(5)), None, "no id yet");
        s.tmux().set_pane_id(&s.pane, id(5)).unwrap();
        let pid = s
            .tmux()
            .run(
                "display-message",
                &["display-message", "-p", "-t", &s.pane, "#{pane_pid}"],
            )
            .unwrap();
        assert_eq!(
            first_process_in(&s.seen(None), id(5)),
            Some(pid.trim().parse().unwrap())
        );
        assert_eq!(
            first_process_in(&s.seen(None), id(6)),
            None,
            "another pane's id"
        );
        assert_eq!(
            first_process_in(&Seen::default(), id(5)),
            None,
            "outside tmux"
        );
    }

    #[test]
    fn a_reading_command_leaves_a_tmux_pane_without_an_id_as_it_is() {
        let s = Server::start();
        for env in [None, Some(id(4))] {
            assert_eq!(resolve_in(None, &s.seen(env), Claim::Never).unwrap(), None);
        }
        assert_eq!(s.tmux().pane_id(&s.pane).unwrap(), None);
    }

    #[test]
    fn outside_tmux_the_environment_names_the_pane() {
        let seen = |tmux: Option<&str>, tmux_pane: Option<&str>| Seen {
            pane: Some(id(5).to_string().into()),
            tmux: tmux.map(Into::into),
            tmux_pane: tmux_pane.map(Into::into),
        };
        // No $TMUX, no $TMUX_PANE, or a $TMUX_PANE that names no tmux pane:
        // no multiplexer pane to ask (nothing here reaches a server).
        for s in [
            seen(None, None),
            seen(None, Some("%1")),
            seen(Some("/nonexistent/s,1,0"), None),
            seen(Some("/nonexistent/s,1,0"), Some("1")),
            seen(Some(""), Some("%1")),
        ] {
            assert_eq!(
                resolve_in(None, &s, Claim::Fresh).unwrap(),
                Some(id(5)),
                "{s:?}"
            );
        }
        assert_eq!(
            resolve_in(None, &Seen::default(), Claim::Fresh).unwrap(),
            None
        );
        assert!(resolve_in(
            None,
            &Seen {
                pane: Some("not-a-uuid".into()),
                ..Seen::default()
            },
            Claim::Fresh
        )
        .is_err());
    }

    #[test]
    fn the_flag_wins_over_everything() {
        let s = Server::start();
        s.tmux().set_pane_id(&s.pane, id(1)).unwrap();
        let flag = id(9).to_string();
        let got = resolve_in(Some(&flag), &s.seen(Some(id(2))), Claim::Fresh).unwrap();
        assert_eq!(got, Some(id(9)));
    }
}
