//! Where each agent keeps its sessions.
//!
//! The library never reads the environment: the CLI resolves these once
//! with [`Homes::from_env`], passing its own lookup, and tests build them
//! from a temporary directory. A variable that is unset, empty or relative
//! is ignored in favour of the agent's default under `HOME`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;

/// The store root of every agent with a reader. Each field has the meaning
/// of the agent's own config-home variable, so a recording's config home
/// (captured from that variable) can stand in for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Homes {
    /// `$CLAUDE_CONFIG_DIR`, default `~/.claude` (`projects/`, `sessions/`).
    pub claude: Option<PathBuf>,
    /// `$CODEX_HOME`, default `~/.codex` (`sessions/YYYY/MM/DD/`).
    pub codex: Option<PathBuf>,
    /// `$GEMINI_CLI_HOME`, default `~`: the home holding `.gemini/`.
    pub gemini: Option<PathBuf>,
    /// `$QWEN_HOME`, default `~/.qwen` (`projects/<slug>/chats/`).
    pub qwen: Option<PathBuf>,
    /// `$GROK_HOME`, default `~/.grok` (`sessions/`, `active_sessions.json`).
    pub grok: Option<PathBuf>,
    /// `$FACTORY_HOME_OVERRIDE`, default `~`: the home holding `.factory/`.
    pub droid: Option<PathBuf>,
    /// `$PI_CODING_AGENT_DIR`, default `~/.pi/agent` (`sessions/`).
    pub pi: Option<PathBuf>,
    /// `$COPILOT_HOME`, default `~/.copilot` (`session-state/`).
    pub copilot: Option<PathBuf>,
    /// OpenCode's database: `$OPENCODE_DB` (absolute, or relative to the
    /// data directory), default `$XDG_DATA_HOME/opencode/opencode.db`.
    pub opencode_db: Option<PathBuf>,
}

fn absolute(v: Option<OsString>) -> Option<PathBuf> {
    v.map(PathBuf::from).filter(|p| p.is_absolute())
}

impl Homes {
    /// Resolves every root from `env` (the CLI passes `std::env::var_os`).
    pub fn from_env(env: &dyn Fn(&str) -> Option<OsString>) -> Homes {
        let home = absolute(env("HOME"));
        let var_or = |var: &str, default: Option<PathBuf>| absolute(env(var)).or(default);
        let under = |rel: &str| home.as_ref().map(|h| h.join(rel));
        let data = absolute(env("XDG_DATA_HOME")).or_else(|| under(".local/share"));
        let opencode_dir = data.map(|d| d.join("opencode"));
        let opencode_db = match env("OPENCODE_DB").filter(|v| !v.is_empty()) {
            Some(v) if v == ":memory:" => None,
            Some(v) => {
                let p = PathBuf::from(v);
                if p.is_absolute() {
                    Some(p)
                } else {
                    opencode_dir.map(|d| d.join(p))
                }
            }
            None => opencode_dir.map(|d| d.join("opencode.db")),
        };
        Homes {
            claude: var_or("CLAUDE_CONFIG_DIR", under(".claude")),
            codex: var_or("CODEX_HOME", under(".codex")),
            gemini: var_or("GEMINI_CLI_HOME", home.clone()),
            qwen: var_or("QWEN_HOME", under(".qwen")),
            grok: var_or("GROK_HOME", under(".grok")),
            droid: var_or("FACTORY_HOME_OVERRIDE", home.clone()),
            pi: var_or("PI_CODING_AGENT_DIR", under(".pi/agent")),
            copilot: var_or("COPILOT_HOME", under(".copilot")),
            opencode_db,
        }
    }

    /// Every root under one home directory, as the agents default them.
    pub fn under(home: &Path) -> Homes {
        let h = home.as_os_str().to_owned();
        Homes::from_env(&|k| (k == "HOME").then(|| h.clone()))
    }

    /// The agent's root: `config_home` (a recording's) when given, else the
    /// resolved one. `None` for agents without a reader.
    pub fn root(&self, agent: AgentKind, config_home: Option<&Path>) -> Option<PathBuf> {
        let resolved = match agent {
            AgentKind::Claude => &self.claude,
            AgentKind::Codex => &self.codex,
            AgentKind::Gemini => &self.gemini,
            AgentKind::Qwen => &self.qwen,
            AgentKind::Grok => &self.grok,
            AgentKind::Droid => &self.droid,
            AgentKind::Pi => &self.pi,
            AgentKind::Copilot => &self.copilot,
            AgentKind::Opencode => return self.opencode_db.clone(),
            AgentKind::Cursor | AgentKind::Antigravity | AgentKind::Amp | AgentKind::Kimi => {
                return None
            }
        };
        match config_home {
            Some(h) if h.is_absolute() => Some(h.to_path_buf()),
            _ => resolved.clone(),
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
        assert_eq!(h.claude.as_deref(), Some(Path::new("/c")));
        assert_eq!(h.codex.as_deref(), Some(Path::new("/h/.codex")));
        assert_eq!(h.gemini.as_deref(), Some(Path::new("/g")));
        assert_eq!(h.qwen.as_deref(), Some(Path::new("/h/.qwen")));
        assert_eq!(h.grok.as_deref(), Some(Path::new("/k")));
        assert_eq!(h.droid.as_deref(), Some(Path::new("/f")));
        assert_eq!(h.pi.as_deref(), Some(Path::new("/pi")));
        assert_eq!(h.copilot.as_deref(), Some(Path::new("/cp")));
        assert_eq!(
            h.opencode_db.as_deref(),
            Some(Path::new("/d/opencode/opencode.db"))
        );
    }

    #[test]
    fn opencode_db_variable_is_absolute_relative_to_the_data_dir_or_memory() {
        let h = Homes::from_env(&env_of(&[("HOME", "/h"), ("OPENCODE_DB", "x.db")]));
        assert_eq!(
            h.opencode_db.as_deref(),
            Some(Path::new("/h/.local/share/opencode/x.db"))
        );
        let h = Homes::from_env(&env_of(&[("HOME", "/h"), ("OPENCODE_DB", ":memory:")]));
        assert_eq!(h.opencode_db, None);
        let h = Homes::from_env(&env_of(&[("OPENCODE_DB", "/o.db")]));
        assert_eq!(h.opencode_db.as_deref(), Some(Path::new("/o.db")));
        assert_eq!(h.claude, None, "no HOME, no default");
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
