//! Where each agent keeps its sessions.
//!
//! The library never reads the environment: the CLI resolves these once
//! with [`Homes::from_env`], passing its own lookup, and tests build them
//! from a temporary directory. A variable that is unset, empty or relative
//! is ignored in favour of the agent's default under `HOME`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;

use crate::provider::{provider, HomeEnv};
use crate::store::Store;

/// The store root of every agent with a reader, each with the meaning of
/// the agent's own config-home variable, so a recording's config home
/// (captured from that variable) can stand in for it. Which variable and
/// which default is the agent's provider's ([`mod@crate::provider`]):
/// `$CLAUDE_CONFIG_DIR` (`~/.claude`), `$CODEX_HOME` (`~/.codex`),
/// `$GEMINI_CLI_HOME` (`~`, the home holding `.gemini/`), `$QWEN_HOME`
/// (`~/.qwen`), `$GROK_HOME` (`~/.grok`), `$FACTORY_HOME_OVERRIDE` (`~`,
/// holding `.factory/`), `$PI_CODING_AGENT_DIR` (`~/.pi/agent`),
/// `$COPILOT_HOME` (`~/.copilot`); OpenCode's is its database,
/// `$OPENCODE_DB` (absolute, or relative to the data directory), default
/// `$XDG_DATA_HOME/opencode/opencode.db`, and Kilo's, `$KILO_DB`, default
/// `$XDG_DATA_HOME/kilo/kilo.db`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Homes {
    roots: BTreeMap<AgentKind, PathBuf>,
}

impl Homes {
    /// Resolves every root from `env` (the CLI passes `std::env::var_os`).
    pub fn from_env(env: &dyn Fn(&str) -> Option<OsString>) -> Homes {
        let e = HomeEnv::new(env);
        let roots = AgentKind::VARIANTS
            .iter()
            .filter_map(|&k| (provider(k).home)(&e).map(|root| (k, root)))
            .collect();
        Homes { roots }
    }

    /// Every root under one home directory, as the agents default them.
    pub fn under(home: &Path) -> Homes {
        let h = home.as_os_str().to_owned();
        Homes::from_env(&|k| (k == "HOME").then(|| h.clone()))
    }

    /// The agent's root: `config_home` (a recording's) when given, else the
    /// resolved one. `None` for agents without a reader. OpenCode's root
    /// is its database, which no config home moves.
    pub fn root(&self, agent: AgentKind, config_home: Option<&Path>) -> Option<PathBuf> {
        let resolved = self.roots.get(&agent);
        match provider(agent).store {
            Store::None => None,
            Store::Database(_) => resolved.cloned(),
            Store::Files(_) => match config_home {
                Some(h) if h.is_absolute() => Some(h.to_path_buf()),
                _ => resolved.cloned(),
            },
        }
    }
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
    fn every_documented_variable_moves_its_store_and_relative_values_are_ignored() {
        let h = Homes::from_env(&env_of(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CODEX_HOME", "relative"),
            ("GEMINI_CLI_HOME", "/g"),
            ("QWEN_HOME", ""),
            ("GROK_HOME", "/k"),
            ("FACTORY_HOME_OVERRIDE", "/f"),
            ("PI_CODING_AGENT_DIR", "/pi"),
            ("COPILOT_HOME", "/cp"),
            ("XDG_DATA_HOME", "/d"),
        ]));
        assert_eq!(
            h.root(AgentKind::Claude, None).as_deref(),
            Some(Path::new("/c"))
        );
        assert_eq!(
            h.root(AgentKind::Codex, None).as_deref(),
            Some(Path::new("/h/.codex"))
        );
        assert_eq!(
            h.root(AgentKind::Gemini, None).as_deref(),
            Some(Path::new("/g"))
        );
        assert_eq!(
            h.root(AgentKind::Qwen, None).as_deref(),
            Some(Path::new("/h/.qwen"))
        );
        assert_eq!(
            h.root(AgentKind::Grok, None).as_deref(),
            Some(Path::new("/k"))
        );
        assert_eq!(
            h.root(AgentKind::Droid, None).as_deref(),
            Some(Path::new("/f"))
        );
        assert_eq!(
            h.root(AgentKind::Pi, None).as_deref(),
            Some(Path::new("/pi"))
        );
        assert_eq!(
            h.root(AgentKind::Copilot, None).as_deref(),
            Some(Path::new("/cp"))
        );
        assert_eq!(
            h.root(AgentKind::Opencode, None).as_deref(),
            Some(Path::new("/d/opencode/opencode.db"))
        );
    }

    #[test]
    fn opencode_db_variable_is_absolute_relative_to_the_data_dir_or_memory() {
        let h = Homes::from_env(&env_of(&[("HOME", "/h"), ("OPENCODE_DB", "x.db")]));
        assert_eq!(
            h.root(AgentKind::Opencode, None).as_deref(),
            Some(Path::new("/h/.local/share/opencode/x.db"))
        );
        let h = Homes::from_env(&env_of(&[("HOME", "/h"), ("OPENCODE_DB", ":memory:")]));
        assert_eq!(h.root(AgentKind::Opencode, None), None);
        let h = Homes::from_env(&env_of(&[("OPENCODE_DB", "/o.db")]));
        assert_eq!(
            h.root(AgentKind::Opencode, None).as_deref(),
            Some(Path::new("/o.db"))
        );
        assert_eq!(h.root(AgentKind::Claude, None), None, "no HOME, no default");
        // Kilo's `KILO_DB` and `kilo/kilo.db`, OpenCode's rule.
        let h = Homes::from_env(&env_of(&[("HOME", "/h"), ("OPENCODE_DB", "/o.db")]));
        assert_eq!(
            h.root(AgentKind::Kilo, None).as_deref(),
            Some(Path::new("/h/.local/share/kilo/kilo.db"))
        );
        let h = Homes::from_env(&env_of(&[("HOME", "/h"), ("KILO_DB", "k.db")]));
        assert_eq!(
            h.root(AgentKind::Kilo, None).as_deref(),
            Some(Path::new("/h/.local/share/kilo/k.db"))
        );
    }

    #[test]
    fn a_recordings_config_home_replaces_the_resolved_root() {
        let h = Homes::under(Path::new("/h"));
        assert_eq!(
            h.root(AgentKind::Claude, Some(Path::new("/work/.claude"))),
            Some(PathBuf::from("/work/.claude"))
        );
        assert_eq!(
            h.root(AgentKind::Claude, None),
            Some(PathBuf::from("/h/.claude"))
        );
        assert_eq!(h.root(AgentKind::Kimi, None), None);
    }
}
