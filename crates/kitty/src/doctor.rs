//! What `status` and `doctor` say of kitty: whether kitty is on `PATH`,
//! whether kitty.conf has the `init kitty` lines, whether the private
//! socket directory they name exists, whether the kitty a shell runs in
//! answers on a socket of this user's, and which snapshot was saved when.
//! Reads only: nothing is made, and kitty is never asked anything.

use std::path::{Path, PathBuf};

use agent_resume_core::UnixMillis;
use agent_resume_engine::check::{config_home, file_with_lines, home, Check, Status};
use agent_resume_engine::host::age;
use agent_resume_engine::paths;

use crate::{check_private_dir, examine, listen_on_text, PrivateDirError};

/// The socket directory `init kitty` makes and names in kitty.conf.
pub fn socket_dir() -> Result<PathBuf, paths::NoBase> {
    Ok(paths::state()?.join("kitty"))
}

/// Whether this process runs in a kitty window (kitty sets
/// `$KITTY_WINDOW_ID` in each).
fn inside_kitty() -> bool {
    std::env::var_os("KITTY_WINDOW_ID").is_some_and(|v| !v.is_empty())
}

/// kitty.conf as kitty finds it: `$KITTY_CONFIG_DIRECTORY`, else
/// `$XDG_CONFIG_HOME/kitty`, else `~/.config/kitty`.
fn conf_file(home: &Path) -> PathBuf {
    std::env::var_os("KITTY_CONFIG_DIRECTORY")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .unwrap_or_else(|| config_home(home).join("kitty"))
        .join("kitty.conf")
}

/// What the saved snapshots say, for people: `no kitty saved`, or the
/// newest's age and how many instances are saved.
fn saved_text(saved: &[(String, UnixMillis)], now: UnixMillis) -> Option<String> {
    let (_, newest) = saved.first()?;
    let instances = if saved.len() == 1 {
        "1 instance".to_owned()
    } else {
        format!("{} instances", saved.len())
    };
    Some(format!(
        "{instances}, the last saved {} ago (`agent-resume kitty session --dry-run`)",
        age(*newest, now)
    ))
}

/// `status`'s kitty lines, given where kitty is installed and the saved
/// instances, newest first.
pub fn status(
    installed: Option<&Path>,
    saved: &[(String, UnixMillis)],
    now: UnixMillis,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    out.push((
        "kitty",
        match installed {
            Some(p) => paths::show(p),
            None => "not on PATH".to_owned(),
        },
    ));
    if let Ok(dir) = socket_dir() {
        let state = match check_private_dir(&dir) {
            Ok(()) => String::new(),
            Err(PrivateDirError::Make(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                " (missing: `agent-resume init kitty` makes it)".to_owned()
            }
            Err(e) => format!(" ({e})"),
        };
        out.push(("kitty dir", format!("{}{state}", paths::show(&dir))));
    }
    out.push((
        "kitty save",
        saved_text(saved, now).unwrap_or_else(|| "no kitty saved".to_owned()),
    ));
    out
}

/// `doctor`'s kitty checks, given what [`status`] is given. A check that
/// kitty needs fails only inside kitty (`$KITTY_WINDOW_ID`); elsewhere it
/// warns.
pub fn checks(
    installed: Option<&Path>,
    saved: &[(String, UnixMillis)],
    now: UnixMillis,
) -> Vec<Check> {
    if installed.is_none() {
        return vec![Check::new("kitty", Status::Skip, "kitty is not installed")];
    }
    let used = inside_kitty();
    let missing = if used { Status::Fail } else { Status::Warn };
    let mut out = Vec::new();
    let dir = socket_dir().ok();
    if let (Some(home), Some(dir)) = (home(), &dir) {
        let conf = conf_file(&home);
        let line = listen_on_text(dir);
        let found = line.as_deref().and_then(|l| {
            file_with_lines(
                std::slice::from_ref(&conf),
                &[l, "allow_remote_control socket-only"],
            )
        });
        out.push(match &found {
            Some(f) => Check::new(
                "kitty.conf",
                Status::Pass,
                format!(
                    "{} has the lines of `agent-resume init kitty`",
                    paths::show(f)
                ),
            ),
            None => Check::new(
                "kitty.conf",
                missing,
                format!(
                    "{} lacks the lines of `agent-resume init kitty`{}",
                    paths::show(&conf),
                    if used {
                        ""
                    } else {
                        " (needed only with kitty)"
                    }
                ),
            )
            .fix(format!("agent-resume init kitty >> {}", paths::show(&conf))),
        });
        if found.is_some() {
            let start = dir.join(crate::socket::START_SESSION);
            let line = format!("startup_session {}", paths::show(&start));
            let has = file_with_lines(std::slice::from_ref(&conf), &[line.as_str()]).is_some()
                && start.is_file();
            out.push(if has {
                Check::new(
                    "kitty.start",
                    Status::Pass,
                    "kitty started as usual restores the kitty saved last",
                )
            } else {
                Check::new(
                    "kitty.start",
                    Status::Warn,
                    format!(
                        "{} names no start session of agent-resume: kitty started as usual restores nothing (`agent-resume kitty session` does)",
                        paths::show(&conf)
                    ),
                )
                .fix("agent-resume init kitty | grep startup_session >> ".to_owned() + &paths::show(&conf))
            });
            let watcher = dir.join(crate::socket::WATCHER);
            let line = format!("watcher {}", paths::show(&watcher));
            let has = file_with_lines(std::slice::from_ref(&conf), &[line.as_str()]).is_some()
                && watcher.is_file();
            out.push(if has {
                Check::new(
                    "kitty.watcher",
                    Status::Pass,
                    "kitty's layout changes save the snapshot (its watcher)",
                )
            } else {
                Check::new(
                    "kitty.watcher",
                    Status::Warn,
                    format!(
                        "{} loads no watcher of agent-resume: a window closed or moved is saved only at the next cd or new window",
                        paths::show(&conf)
                    ),
                )
                .fix("agent-resume init kitty | grep watcher >> ".to_owned() + &paths::show(&conf))
            });
            out.push(match check_private_dir(dir) {
                Ok(()) => Check::new(
                    "kitty.dir",
                    Status::Pass,
                    format!("{} is yours alone", paths::show(dir)),
                ),
                Err(e) => Check::new(
                    "kitty.dir",
                    Status::Fail,
                    format!(
                        "{}: {}; kitty does not start without it",
                        paths::show(dir),
                        agent_resume_engine::error_line(&e)
                    ),
                )
                .fix("agent-resume init kitty"),
            });
        }
    }
    if used {
        out.push(match std::env::var_os("KITTY_LISTEN_ON").filter(|v| !v.is_empty()) {
            None => Check::new(
                "kitty.socket",
                Status::Fail,
                "this kitty does not answer remote control ($KITTY_LISTEN_ON is unset): nothing is saved",
            )
            .fix("quit kitty and start it again with the lines of `agent-resume init kitty`"),
            Some(to) => match examine(&to) {
                Ok(_) => Check::new(
                    "kitty.socket",
                    Status::Pass,
                    "this kitty answers remote control on a socket of yours",
                ),
                Err(why) => Check::new(
                    "kitty.socket",
                    Status::Fail,
                    format!("this kitty's socket is not trusted: {why}; nothing is saved"),
                )
                .fix("quit kitty and start it again with the lines of `agent-resume init kitty`"),
            },
        });
    }
    out.push(match saved_text(saved, now) {
        Some(text) => Check::new("kitty.saved", Status::Pass, text),
        None if used => Check::new(
            "kitty.saved",
            Status::Warn,
            "no kitty snapshot saved yet: the shell integration saves one at each prompt in kitty",
        ),
        None => Check::new("kitty.saved", Status::Skip, "no kitty snapshot saved"),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_text_names_the_newest_and_how_many() {
        let now = UnixMillis(10_000_000);
        assert_eq!(saved_text(&[], now), None);
        let one = [("unix:/s/kitty-1".to_owned(), UnixMillis(now.0 - 120_000))];
        assert_eq!(
            saved_text(&one, now).as_deref(),
            Some("1 instance, the last saved 2m ago (`agent-resume kitty session --dry-run`)")
        );
        let two = [
            ("unix:/s/kitty-2".to_owned(), UnixMillis(now.0 - 5_000)),
            ("unix:/s/kitty-1".to_owned(), UnixMillis(now.0 - 120_000)),
        ];
        assert!(saved_text(&two, now)
            .is_some_and(|t| t.starts_with("2 instances, the last saved 5s ago")));
    }
}
