//! The settings a host shares with the CLI: the config file
//! (`enabled = true|false`, `armed_expiry_minutes`) and the feature gate
//! decided from it and the environment. The precedence itself is core's
//! pure [`agent_resume_core::gate()`]; this module reads and writes the file.

use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use agent_resume_core::gate::ENV_VAR;
use agent_resume_core::{gate, Gate, GateSource};
use agent_resume_discover::file::{self, FileError, Kind};

use crate::paths::{self, Overrides};

/// Why the config file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The config file's path cannot be located.
    #[error(transparent)]
    Path(#[from] paths::NoBase),
    /// The file could not be read (not a regular file, too large, …).
    #[error(transparent)]
    Read(#[from] FileError),
    /// The file is not TOML.
    #[error("config file is not valid TOML")]
    NotToml(#[source] toml::de::Error),
    /// The file is not TOML, so it is not rewritten.
    #[error("config file is not valid TOML; not rewriting it")]
    NotRewritten(#[source] toml::de::Error),
    /// `enabled` is not a boolean.
    #[error("`enabled` in the config file must be true or false")]
    EnabledNotBool,
    /// The new file could not be serialized.
    #[error("cannot serialize the config")]
    Serialize(#[source] toml::ser::Error),
    /// The config directory could not be made.
    #[error("cannot create the config directory")]
    CreateDir(#[source] io::Error),
    /// The config file could not be written.
    #[error("cannot write the config file")]
    Write(#[source] file::ReplaceError),
}

/// The raw value of `AGENT_RESUME`, when set and UTF-8.
pub fn env_value() -> Option<String> {
    std::env::var_os(ENV_VAR).and_then(|v| v.into_string().ok())
}

/// The largest config file read.
const MAX_CONFIG: u64 = 64 * 1024;

/// Reads the config file: a regular file of at most [`MAX_CONFIG`] bytes,
/// opened without blocking (a FIFO, `/dev/zero` or a huge file in its
/// place is refused at once).
fn read(path: &Path) -> Result<String, FileError> {
    file::read_text(path, Kind::Config, MAX_CONFIG)
}

/// What the config file says about `enabled`: `None` when the file or the
/// key is missing.
pub fn config_flag(path: &Path) -> Result<Option<bool>, SettingsError> {
    let text = match read(path) {
        Ok(t) => t,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let table: toml::Table = text.parse().map_err(SettingsError::NotToml)?;
    match table.get("enabled") {
        None => Ok(None),
        Some(toml::Value::Boolean(b)) => Ok(Some(*b)),
        Some(_) => Err(SettingsError::EnabledNotBool),
    }
}

/// The gate and, when the config file could not be used, why (it then
/// counts as not saying anything: off unless the environment says on).
#[derive(Debug)]
pub struct Decided {
    /// The decision.
    pub gate: Gate,
    /// Why the config file was ignored, if it was.
    pub problem: Option<SettingsError>,
}

/// Decides the gate. When the environment decides, the config file is not
/// read at all.
pub fn decide(config_path: &Path) -> Decided {
    let env = env_value();
    let by_env = gate(env.as_deref(), None);
    if by_env.source == GateSource::Env {
        return Decided {
            gate: by_env,
            problem: None,
        };
    }
    match config_flag(config_path) {
        Ok(flag) => Decided {
            gate: gate(env.as_deref(), flag),
            problem: None,
        },
        Err(e) => Decided {
            gate: gate(env.as_deref(), None),
            problem: Some(e),
        },
    }
}

/// Decides the gate for the config file `o` names (or the default one);
/// a path that cannot be located is the problem then.
pub fn decide_for(o: &Overrides) -> Decided {
    match paths::config(o) {
        Ok(path) => decide(&path),
        Err(e) => Decided {
            gate: gate(env_value().as_deref(), None),
            problem: Some(e.into()),
        },
    }
}

/// The gate, silently: a config file that cannot be read counts as saying
/// nothing. For callers whose output other programs read (`take`, `plan`).
pub fn gate_quiet(o: &Overrides) -> Gate {
    decide_for(o).gate
}

/// Sets `enabled` in the config file, keeping its other keys; creates the
/// file (and its directory, private) when missing. Written whole to a
/// fresh temporary file beside it and renamed ([`file::replace`]), so a
/// reader never sees half a file and nothing planted beside it is
/// followed.
pub fn set_enabled(path: &Path, on: bool) -> Result<(), SettingsError> {
    let mut table = match read(path) {
        Ok(text) => text
            .parse::<toml::Table>()
            .map_err(SettingsError::NotRewritten)?,
        Err(e) if e.is_missing() => toml::Table::new(),
        Err(e) => return Err(e.into()),
    };
    table.insert("enabled".into(), toml::Value::Boolean(on));
    let text = toml::to_string(&table).map_err(SettingsError::Serialize)?;

    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(SettingsError::CreateDir)?;
    }
    file::replace(path, text.as_bytes()).map_err(SettingsError::Write)
}

/// How the gate was decided, for people.
pub fn source_text(source: GateSource) -> &'static str {
    match source {
        GateSource::Env => "by AGENT_RESUME in the environment",
        GateSource::Config => "by the config file",
        GateSource::Default => "the default; `agent-resume enable` turns it on",
    }
}

/// The environment variable that sets the armed expiry, in whole minutes;
/// it beats the config file's [`ARMED_EXPIRY_KEY`].
pub const ARMED_EXPIRY_ENV: &str = "AGENT_RESUME_ARMED_EXPIRY_MINUTES";
/// The config file key of the armed expiry, in whole minutes.
pub const ARMED_EXPIRY_KEY: &str = "armed_expiry_minutes";
/// How long an armed line may wait for its pane's first prompt by default.
pub const ARMED_EXPIRY_DEFAULT_MINUTES: i64 = 10;
/// The longest armed expiry accepted: minutes, never days.
pub const ARMED_EXPIRY_MAX_MINUTES: i64 = 120;

/// The armed expiry in minutes from the environment's value and the config
/// file's table: the environment first, then the file, then the default.
/// A value that is not a whole number in `1..=`[`ARMED_EXPIRY_MAX_MINUTES`]
/// counts as not set (the shorter default is the safe side).
pub fn armed_expiry_minutes(env: Option<&str>, table: Option<&toml::Table>) -> i64 {
    let ok = |m: i64| (1..=ARMED_EXPIRY_MAX_MINUTES).contains(&m).then_some(m);
    env.and_then(|v| v.parse::<i64>().ok())
        .and_then(ok)
        .or_else(|| {
            table
                .and_then(|t| t.get(ARMED_EXPIRY_KEY))
                .and_then(toml::Value::as_integer)
                .and_then(ok)
        })
        .unwrap_or(ARMED_EXPIRY_DEFAULT_MINUTES)
}

/// The armed expiry in milliseconds, read quietly (for a take): a config
/// file that cannot be read counts as saying nothing.
pub fn armed_expiry_millis(o: &Overrides) -> i64 {
    let env = std::env::var_os(ARMED_EXPIRY_ENV).and_then(|v| v.into_string().ok());
    let table = table_quiet(o);
    armed_expiry_minutes(env.as_deref(), table.as_ref()) * 60 * 1000
}

/// What a host does at its start with the panes of a terminal that is
/// gone (config `restore`, environment [`RESTORE_ENV`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RestoreMode {
    /// Bring the panes back and resume their agents with no question.
    Auto = 0,
    /// Bring the panes back; each pane's shell asks before it resumes.
    Ask = 1,
    /// Nothing at start: `agent-resume tmux restore` (or the embedding
    /// terminal's own call) does it.
    Manual = 2,
}

impl RestoreMode {
    /// Every mode, in discriminant order.
    pub const VARIANTS: &'static [RestoreMode] =
        &[RestoreMode::Auto, RestoreMode::Ask, RestoreMode::Manual];

    /// The mode's word in the config file.
    pub const fn as_str(self) -> &'static str {
        match self {
            RestoreMode::Auto => "auto",
            RestoreMode::Ask => "ask",
            RestoreMode::Manual => "manual",
        }
    }

    /// The mode a word names, exactly.
    pub fn parse(word: &str) -> Option<RestoreMode> {
        Self::VARIANTS.iter().copied().find(|m| m.as_str() == word)
    }
}

/// The environment variable that sets the restore mode; it beats the
/// config file's [`RESTORE_KEY`].
pub const RESTORE_ENV: &str = "AGENT_RESUME_RESTORE";
/// The config file key of the restore mode.
pub const RESTORE_KEY: &str = "restore";

/// The restore mode from the environment's value and the config file's
/// table: the environment, then the file, then [`RestoreMode::Auto`]. A
/// word that names no mode counts as not set; where the file holds one,
/// that is [`RestoreMode::Ask`] rather than the default: a person who wrote
/// something there wanted a say.
pub fn restore_mode(env: Option<&str>, table: Option<&toml::Table>) -> RestoreMode {
    if let Some(mode) = env.and_then(RestoreMode::parse) {
        return mode;
    }
    match table.and_then(|t| t.get(RESTORE_KEY)) {
        None => RestoreMode::Auto,
        Some(v) => v
            .as_str()
            .and_then(RestoreMode::parse)
            .unwrap_or(RestoreMode::Ask),
    }
}

/// The environment variable that caps how many agents a restore starts at
/// once; it beats the config file's [`MAX_CONCURRENT_KEY`].
pub const MAX_CONCURRENT_ENV: &str = "AGENT_RESUME_MAX_CONCURRENT_RESUMES";
/// The config file key of that cap.
pub const MAX_CONCURRENT_KEY: &str = "max_concurrent_resumes";
/// The largest cap accepted.
pub const MAX_CONCURRENT_MAX: u32 = 64;

/// How many agents a restore starts at once: the environment, then the
/// file, then the number of cores (`cores`). A value outside
/// `1..=`[`MAX_CONCURRENT_MAX`] counts as not set.
pub fn max_concurrent(env: Option<&str>, table: Option<&toml::Table>, cores: u32) -> u32 {
    let ok = |n: i64| {
        u32::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_CONCURRENT_MAX).contains(n))
    };
    env.and_then(|v| v.parse::<i64>().ok())
        .and_then(ok)
        .or_else(|| {
            table
                .and_then(|t| t.get(MAX_CONCURRENT_KEY))
                .and_then(toml::Value::as_integer)
                .and_then(ok)
        })
        .unwrap_or_else(|| cores.clamp(1, MAX_CONCURRENT_MAX))
}

/// The config file's table, read quietly: one that cannot be read or
/// parsed counts as empty.
fn table_quiet(o: &Overrides) -> Option<toml::Table> {
    paths::config(o)
        .ok()
        .and_then(|p| read(&p).ok())
        .and_then(|t| t.parse::<toml::Table>().ok())
}

/// The settings a restore and a take read, from one read of the config
/// file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestoreSettings {
    /// What happens at start.
    pub mode: RestoreMode,
    /// How many agents start at once.
    pub max_concurrent: u32,
    /// How long an armed line may wait for its pane's first prompt, in
    /// milliseconds ([`armed_expiry_minutes`]).
    pub armed_expiry_millis: i64,
}

/// The restore settings for the config file `o` names, read quietly.
pub fn restore_settings(o: &Overrides) -> RestoreSettings {
    let table = table_quiet(o);
    let var = |k: &str| std::env::var_os(k).and_then(|v| v.into_string().ok());
    let expiry = armed_expiry_minutes(var(ARMED_EXPIRY_ENV).as_deref(), table.as_ref());
    let cores = std::thread::available_parallelism()
        .map_or(1, |n| u32::try_from(n.get()).unwrap_or(MAX_CONCURRENT_MAX));
    RestoreSettings {
        mode: restore_mode(var(RESTORE_ENV).as_deref(), table.as_ref()),
        max_concurrent: max_concurrent(var(MAX_CONCURRENT_ENV).as_deref(), table.as_ref(), cores),
        armed_expiry_millis: expiry * 60 * 1000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enabling_never_writes_through_a_link_planted_beside_the_config() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "armed_expiry_minutes = 5\n").expect("writes");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "victim").expect("writes");
        // The name the earlier writer used for this process.
        let planted = dir
            .path()
            .join(format!("config.toml.tmp{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).expect("plants a link");
        set_enabled(&config, true).expect("enables");
        assert_eq!(std::fs::read_to_string(&victim).expect("reads"), "victim");
        assert_eq!(config_flag(&config).expect("reads"), Some(true));
        let text = std::fs::read_to_string(&config).expect("reads");
        assert!(text.contains("armed_expiry_minutes = 5"), "{text}");
        assert!(std::fs::symlink_metadata(&config)
            .expect("stat")
            .file_type()
            .is_file());
    }

    #[test]
    fn the_restore_mode_is_the_environment_then_the_file_then_auto() {
        let t = |text: &str| text.parse::<toml::Table>().expect("toml");
        assert_eq!(restore_mode(None, None), RestoreMode::Auto);
        assert_eq!(restore_mode(None, Some(&t(""))), RestoreMode::Auto);
        for m in RestoreMode::VARIANTS {
            let file = t(&format!("restore = \"{}\"", m.as_str()));
            assert_eq!(restore_mode(None, Some(&file)), *m);
            assert_eq!(
                restore_mode(Some(m.as_str()), Some(&t("restore = \"auto\""))),
                *m
            );
        }
        // A word the file holds that names no mode asks; one in the
        // environment is not set.
        for bad in ["\"yes\"", "true", "1", "\"Auto\""] {
            let file = t(&format!("restore = {bad}"));
            assert_eq!(restore_mode(None, Some(&file)), RestoreMode::Ask, "{bad}");
        }
        assert_eq!(restore_mode(Some("never"), None), RestoreMode::Auto);
    }

    #[test]
    fn the_concurrency_cap_is_the_environment_then_the_file_then_the_cores() {
        let file: toml::Table = "max_concurrent_resumes = 3".parse().expect("toml");
        assert_eq!(max_concurrent(None, None, 8), 8);
        assert_eq!(max_concurrent(None, None, 0), 1);
        assert_eq!(max_concurrent(None, Some(&file), 8), 3);
        assert_eq!(max_concurrent(Some("2"), Some(&file), 8), 2);
        for bad in ["0", "-1", "65", "many", ""] {
            assert_eq!(max_concurrent(Some(bad), None, 4), 4, "{bad:?}");
        }
    }

    #[test]
    fn armed_expiry_is_the_environment_then_the_file_then_ten_minutes() {
        let file: toml::Table = "armed_expiry_minutes = 30".parse().expect("toml");
        assert_eq!(armed_expiry_minutes(None, None), 10);
        assert_eq!(armed_expiry_minutes(None, Some(&file)), 30);
        assert_eq!(armed_expiry_minutes(Some("5"), Some(&file)), 5);
        for bad in ["0", "-1", "121", "1440", "ten", ""] {
            assert_eq!(armed_expiry_minutes(Some(bad), None), 10, "{bad:?}");
        }
        let days: toml::Table = "armed_expiry_minutes = 2880".parse().expect("toml");
        assert_eq!(armed_expiry_minutes(None, Some(&days)), 10);
        let text: toml::Table = "armed_expiry_minutes = \"30\"".parse().expect("toml");
        assert_eq!(armed_expiry_minutes(None, Some(&text)), 10);
    }
}
