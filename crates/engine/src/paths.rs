//! Where things live: the XDG base directories. The CLI and an embedding
//! terminal resolve them alike, so CLI hooks and the terminal share one
//! database. Each lookup has a form over any environment (`*_with`) and one
//! over this process's.
//!
//! | what | `--flag` / env | default |
//! |---|---|---|
//! | recordings database | `--db` / `AGENT_RESUME_DB` | `$XDG_DATA_HOME/agent-resume/recordings.sqlite3` |
//! | config file | `--config` / `AGENT_RESUME_CONFIG` | `$XDG_CONFIG_HOME/agent-resume/config.toml` |
//! | telemetry | `AGENT_RESUME_TELEMETRY` | `$XDG_STATE_HOME/agent-resume/telemetry.jsonl` |
//!
//! An `XDG_*` variable that is unset, empty or relative is ignored (as the
//! XDG spec says) in favour of `$HOME/.local/share` and `$HOME/.config`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agent_resume_discover::text::is_stripped;

/// The global path options.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--db` / `AGENT_RESUME_DB`.
    pub db: Option<PathBuf>,
    /// `--config` / `AGENT_RESUME_CONFIG`.
    pub config: Option<PathBuf>,
}

/// The application's folder name under each base directory.
const APP: &str = "agent-resume";

/// A base directory that cannot be located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot locate {var}: set {var} or HOME to an absolute path")]
#[non_exhaustive]
pub struct NoBase {
    /// The variable that was asked for (`XDG_DATA_HOME`, …).
    pub var: &'static str,
}

/// A path lookup's result.
pub type Result<T, E = NoBase> = std::result::Result<T, E>;

fn base(
    env: &dyn Fn(&str) -> Option<OsString>,
    var: &'static str,
    home_relative: &str,
) -> Result<PathBuf> {
    if let Some(v) = env(var).map(PathBuf::from) {
        if v.is_absolute() {
            return Ok(v);
        }
    }
    match env("HOME").map(PathBuf::from) {
        Some(home) if home.is_absolute() => Ok(home.join(home_relative)),
        _ => Err(NoBase { var }),
    }
}

/// The database path, from the override or `$XDG_DATA_HOME`.
pub fn db_with(o: &Overrides, env: &dyn Fn(&str) -> Option<OsString>) -> Result<PathBuf> {
    match &o.db {
        Some(p) => Ok(p.clone()),
        None => Ok(base(env, "XDG_DATA_HOME", ".local/share")?
            .join(APP)
            .join("recordings.sqlite3")),
    }
}

/// The config path, from the override or `$XDG_CONFIG_HOME`.
pub fn config_with(o: &Overrides, env: &dyn Fn(&str) -> Option<OsString>) -> Result<PathBuf> {
    match &o.config {
        Some(p) => Ok(p.clone()),
        None => Ok(base(env, "XDG_CONFIG_HOME", ".config")?
            .join(APP)
            .join("config.toml")),
    }
}

/// The state directory (telemetry), `$XDG_STATE_HOME/agent-resume`.
pub fn state_with(env: &dyn Fn(&str) -> Option<OsString>) -> Result<PathBuf> {
    Ok(base(env, "XDG_STATE_HOME", ".local/state")?.join(APP))
}

/// The data directory, `$XDG_DATA_HOME/agent-resume` (the database's
/// default home, and the shell integration's files).
pub fn data_with(env: &dyn Fn(&str) -> Option<OsString>) -> Result<PathBuf> {
    Ok(base(env, "XDG_DATA_HOME", ".local/share")?.join(APP))
}

/// The data directory for this process.
pub fn data() -> Result<PathBuf> {
    data_with(&process_env)
}

/// The state directory for this process.
pub fn state() -> Result<PathBuf> {
    state_with(&process_env)
}

/// This process's environment, as the `*_with` lookups take it.
pub fn process_env(var: &str) -> Option<OsString> {
    std::env::var_os(var)
}

/// The database path for this process.
pub fn db(o: &Overrides) -> Result<PathBuf> {
    db_with(o, &process_env)
}

/// The config path for this process.
pub fn config(o: &Overrides) -> Result<PathBuf> {
    config_with(o, &process_env)
}

/// A path for a message: lossy UTF-8 with control characters and invisible
/// formatting characters (bidi overrides, zero-width marks) escaped, so a
/// hostile name can neither drive the terminal nor display as another
/// name.
pub fn show(p: &Path) -> String {
    escape(&p.to_string_lossy())
}

/// [`show`], borrowing `p` when it needs no change (valid UTF-8 with
/// nothing to escape).
pub fn show_cow(p: &Path) -> std::borrow::Cow<'_, str> {
    match p.to_str() {
        Some(s) if !has_control(s) => std::borrow::Cow::Borrowed(s),
        _ => std::borrow::Cow::Owned(show(p)),
    }
}

/// Whether `s` holds a character a message escapes: a control character
/// (Unicode `Cc`) or an invisible formatting one
/// ([`agent_resume_discover::text::is_stripped`], as titles are cleaned).
/// ASCII text, the usual case for paths, is checked byte by byte without
/// decoding.
fn has_control(s: &str) -> bool {
    if s.is_ascii() {
        s.bytes().any(|b| b < 0x20 || b == 0x7f)
    } else {
        s.chars().any(is_stripped)
    }
}

/// Text for a message with every control and invisible formatting
/// character escaped (`\u{202e}`).
pub fn escape(s: &str) -> String {
    if !has_control(s) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_stripped(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn xdg_directories_win_over_home_unless_empty_or_relative() {
        let o = Overrides::default();
        let env = env_of(&[
            ("HOME", "/h"),
            ("XDG_DATA_HOME", "/d"),
            ("XDG_CONFIG_HOME", "/c"),
        ]);
        assert_eq!(
            db_with(&o, &env).expect("resolves"),
            Path::new("/d/agent-resume/recordings.sqlite3")
        );
        assert_eq!(
            config_with(&o, &env).expect("resolves"),
            Path::new("/c/agent-resume/config.toml")
        );
        let env = env_of(&[
            ("HOME", "/h"),
            ("XDG_DATA_HOME", ""),
            ("XDG_CONFIG_HOME", "rel"),
        ]);
        assert_eq!(
            db_with(&o, &env).expect("resolves"),
            Path::new("/h/.local/share/agent-resume/recordings.sqlite3")
        );
        assert_eq!(
            config_with(&o, &env).expect("resolves"),
            Path::new("/h/.config/agent-resume/config.toml")
        );
        assert!(db_with(&o, &env_of(&[])).is_err());
    }

    #[test]
    fn explicit_paths_win() {
        let o = Overrides {
            db: Some("/x.db".into()),
            config: Some("/y.toml".into()),
        };
        let env = env_of(&[]);
        assert_eq!(db_with(&o, &env).expect("resolves"), Path::new("/x.db"));
        assert_eq!(
            config_with(&o, &env).expect("resolves"),
            Path::new("/y.toml")
        );
    }

    #[test]
    fn control_characters_are_escaped_for_display() {
        assert_eq!(escape("a\x1b[2Jb\n"), "a\\u{1b}[2Jb\\n");
        assert_eq!(show(Path::new("/tmp/ok")), "/tmp/ok");
    }

    #[test]
    fn control_characters_are_found_in_ascii_and_other_text_alike() {
        for c in (0u32..0x200).filter_map(char::from_u32) {
            for s in [format!("/a/{c}/b"), format!("/é/{c}")] {
                assert_eq!(has_control(&s), s.chars().any(is_stripped), "{c:?}");
            }
        }
    }

    #[test]
    fn bidi_overrides_and_invisible_marks_in_a_path_are_escaped_for_display() {
        for (raw, shown) in [
            ("/w/\u{202e}gpj.exe", "/w/\\u{202e}gpj.exe"),
            ("/w/a\u{200b}b", "/w/a\\u{200b}b"),
            ("/w/\u{2066}x\u{2069}", "/w/\\u{2066}x\\u{2069}"),
            ("/w/\u{feff}é", "/w/\\u{feff}é"),
        ] {
            assert_eq!(show(Path::new(raw)), shown);
            assert_eq!(show_cow(Path::new(raw)), shown);
        }
        assert!(matches!(
            show_cow(Path::new("/w/é")),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
