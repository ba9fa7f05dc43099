//! Whether a live process on this machine already holds a session.
//!
//! Two sources, read once per [`Running::scan`]:
//!
//! - `/proc/*/cmdline`: a process whose program is the agent (its program
//!   word's basename is one of the agent's commands, or an interpreter such
//!   as `node` running a script whose path names the agent's package or
//!   command) and whose argv holds the session id as a whole word
//!   (`--resume <id>`, `--resume=<id>`);
//! - the agents' own pid registries: Claude's `sessions/<pid>.json`
//!   (`sessionId`) and Grok's `active_sessions.json` (`session_id`, `pid`),
//!   counted only while that pid is alive and is still the agent.
//!
//! This process and its ancestors are never counted: an agent that runs
//! agent-resume (a hook, a tool call) is not a second holder of its own
//! session.

use std::collections::HashSet;
use std::fs;

use agent_resume_core::{AgentDecl, AgentKind, Catalog};

use crate::provider::provider;
use crate::Homes;

pub use crate::process::is_agent_program;
pub use crate::registry::Registered;

/// Whether `id` occurs in `word` as a whole word: not preceded or followed
/// by a letter, digit, `-` or `_`.
pub fn holds_word(word: &str, id: &str) -> bool {
    if id.is_empty() {
        return false;
    }
    let inner = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    let w = word.as_bytes();
    word.match_indices(id).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| w[i]);
        let after = w.get(at + id.len()).copied();
        !before.is_some_and(inner) && !after.is_some_and(inner)
    })
}

/// Whether a process with `argv` is `agent` holding `id`.
pub fn argv_holds(agent: &AgentDecl, argv: &[String], id: &str) -> bool {
    is_agent_program(agent, argv) && argv[1..].iter().any(|w| holds_word(w, id))
}

/// One live process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    /// Its pid.
    pub pid: u32,
    /// Its argv, lossily decoded.
    pub argv: Vec<String>,
}

/// A snapshot of who holds what.
#[derive(Clone, Debug, Default)]
pub struct Running {
    /// Live processes other than this one and its ancestors.
    pub procs: Vec<Proc>,
    /// Registry entries.
    pub registered: Vec<Registered>,
}

#[cfg(target_os = "linux")]
use crate::process::{cmdline, parent};

#[cfg(not(target_os = "linux"))]
fn cmdline(_pid: u32) -> Option<Vec<String>> {
    None
}

#[cfg(not(target_os = "linux"))]
fn parent(_pid: u32) -> Option<u32> {
    None
}

/// This process and its ancestors.
pub fn self_and_ancestors() -> HashSet<u32> {
    let mut out = HashSet::new();
    let mut pid = std::process::id();
    while pid > 1 && out.insert(pid) {
        match parent(pid) {
            Some(p) => pid = p,
            None => break,
        }
    }
    out
}

impl Running {
    /// Reads `/proc` and the registries under `homes`.
    pub fn scan(homes: &Homes) -> Running {
        let skip = self_and_ancestors();
        let mut procs = Vec::new();
        if let Ok(dir) = fs::read_dir("/proc") {
            for e in dir.filter_map(Result::ok) {
                let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                if skip.contains(&pid) {
                    continue;
                }
                if let Some(argv) = cmdline(pid) {
                    procs.push(Proc { pid, argv });
                }
            }
        }
        let mut registered = Vec::new();
        for &agent in AgentKind::VARIANTS {
            let Some(registry) = &provider(agent).registry else {
                continue;
            };
            if let Some(root) = homes.root(agent, None) {
                (registry.all)(&root, &mut registered);
            }
        }
        Running { procs, registered }
    }

    /// Whether a live process holds `agent`'s session `id`.
    pub fn holds(&self, agent: AgentKind, id: &str) -> bool {
        self.holds_among(agent, &self.of_agent(agent), id)
    }

    /// The indices in [`Running::procs`] of the processes that run `agent`
    /// ([`is_agent_program`]). Asking this once per agent and handing it to
    /// [`Running::holds_among`] spares a plan of many panes from matching
    /// every process against the agent again for each pane.
    pub fn of_agent(&self, agent: AgentKind) -> Vec<usize> {
        let decl = Catalog::embedded().agent(agent);
        (0..self.procs.len())
            .filter(|&i| is_agent_program(decl, &self.procs[i].argv))
            .collect()
    }

    /// [`Running::holds`], given `of_agent(agent)`.
    pub fn holds_among(&self, agent: AgentKind, among: &[usize], id: &str) -> bool {
        let procs = || among.iter().filter_map(|&i| self.procs.get(i));
        if procs().any(|p| p.argv[1..].iter().any(|w| holds_word(w, id))) {
            return true;
        }
        self.registered
            .iter()
            .filter(|r| r.agent == agent && r.session_id == id)
            .any(|r| procs().any(|p| p.pid == r.pid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

    fn argv(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_process_holds_a_session_only_as_the_agent_and_as_a_whole_word() {
        let claude = Catalog::embedded().agent(AgentKind::Claude);
        for yes in [
            argv(&["claude", "--resume", ID]),
            argv(&["/opt/bin/claude", &format!("--resume={ID}")]),
            argv(&[
                "node",
                "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js",
                "-r",
                ID,
            ]),
        ] {
            assert!(argv_holds(claude, &yes, ID), "{yes:?}");
        }
        for no in [
            argv(&["vim", ID]),
            argv(&["claude", "--resume", &format!("{ID}0")]),
            argv(&["claude", "--resume", &format!("x{ID}")]),
            argv(&["node", "/srv/other.js", ID]),
            argv(&["claude2", "--resume", ID]),
            argv(&["claude"]),
            argv(&[]),
        ] {
            assert!(!argv_holds(claude, &no, ID), "{no:?}");
        }
    }

    #[test]
    fn a_registry_entry_counts_only_while_its_pid_is_still_the_agent() {
        let r = Running {
            procs: vec![
                Proc {
                    pid: 10,
                    argv: argv(&["claude"]),
                },
                Proc {
                    pid: 11,
                    argv: argv(&["bash"]),
                },
            ],
            registered: vec![
                Registered {
                    agent: AgentKind::Claude,
                    pid: 10,
                    session_id: ID.into(),
                },
                Registered {
                    agent: AgentKind::Claude,
                    pid: 11,
                    session_id: "0f6066eb-140e-4519-ab63-b9cde0b60b57".into(),
                },
            ],
        };
        assert!(r.holds(AgentKind::Claude, ID));
        assert!(!r.holds(AgentKind::Claude, "0f6066eb-140e-4519-ab63-b9cde0b60b57"));
        assert!(!r.holds(AgentKind::Grok, ID));
    }

    #[test]
    fn this_process_is_its_own_first_ancestor() {
        assert!(self_and_ancestors().contains(&std::process::id()));
    }
}
