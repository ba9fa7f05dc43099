//! The agent catalog: every declared agent CLI, declared in `agents.toml`
//! and validated before anything uses it.
//!
//! The file is data, not code: detection words, whether the agent is
//! verified, its id shape, how its resume and headless invocations are
//! shaped, and the flags that may be replayed. The loader refuses unknown
//! keys, duplicates, unsafe shapes, carried flags that are variadic or have no
//! shape, and a resume section that names an executable: the program word
//! only ever comes from detection.
//!
//! `agents.toml` stays the single source of truth. `build.rs` validates it
//! with the same code as [`Catalog::load`] (a catalog that breaks a rule
//! fails the build, naming the rule) and emits the result as Rust, so a
//! process builds the embedded catalog from plain data instead of parsing
//! TOML; a test proves the two are equal.

use std::sync::OnceLock;

use crate::shape::Shape;
use crate::AgentKind;

mod decl;
mod validate;

pub use decl::{
    AgentDecl, Arity, Catalog, CatalogError, FlagDecl, HeadlessShape, PromptPlacement, ResumeShape,
};

/// The catalog shipped in the binary.
pub const EMBEDDED: &str = include_str!("../agents.toml");

/// The embedded catalog as Rust, emitted by `build.rs` after it validated
/// `agents.toml` with [`validate`].
mod generated {
    use std::collections::BTreeMap;

    use super::*;
    use crate::shape::{Charset, Segment};

    include!(concat!(env!("OUT_DIR"), "/catalog.rs"));
}

impl AgentDecl {
    /// The declared flag spelled `word` (canonical or alias).
    pub fn flag(&self, word: &str) -> Option<&FlagDecl> {
        self.flags
            .iter()
            .find(|f| f.name == word || f.aliases.iter().any(|a| a == word))
    }

    /// The default program word.
    pub fn command(&self) -> &str {
        &self.commands[0]
    }
}

impl Catalog {
    /// The embedded catalog, built once per process from the data
    /// `build.rs` generated after validating `agents.toml`.
    pub fn embedded() -> &'static Catalog {
        static CATALOG: OnceLock<Catalog> = OnceLock::new();
        CATALOG.get_or_init(generated::catalog)
    }

    /// Parses and validates a catalog file (the rules `build.rs` applies to
    /// the embedded one).
    pub fn load(text: &str) -> Result<Catalog, CatalogError> {
        validate::load(text, AgentKind::VARIANTS)
    }

    /// The declaration of `kind`.
    pub fn agent(&self, kind: AgentKind) -> &AgentDecl {
        // `load` proves every kind is declared exactly once, sorted by kind.
        let i = AgentKind::VARIANTS
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(0);
        &self.agents[i]
    }

    /// Every declared agent, in kind order.
    pub fn agents(&self) -> &[AgentDecl] {
        &self.agents
    }

    /// A named shape.
    pub fn shape(&self, name: &str) -> Option<&Shape> {
        self.shapes.get(name)
    }

    /// The agent whose detection words include `word` (a basename).
    pub fn by_command(&self, word: &str) -> Option<&AgentDecl> {
        self.agents
            .iter()
            .find(|a| a.commands.iter().any(|c| c == word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalog_loads() {
        let c = Catalog::load(EMBEDDED).expect("embedded catalog is valid");
        assert_eq!(c.agents().len(), AgentKind::VARIANTS.len());
        for k in AgentKind::VARIANTS {
            assert_eq!(c.agent(*k).kind, *k);
            assert_eq!(AgentKind::from_name(k.as_str()), Some(*k));
            assert_eq!(AgentKind::from_code(k.code()), Some(*k));
        }
    }

    #[test]
    fn the_generated_catalog_equals_the_parsed_toml() {
        let parsed = Catalog::load(EMBEDDED).expect("embedded catalog is valid");
        assert_eq!(generated::catalog(), parsed);
        assert_eq!(*Catalog::embedded(), parsed);
    }

    #[test]
    fn catalog_declares_every_required_agent() {
        for name in [
            "claude",
            "codex",
            "gemini",
            "opencode",
            "droid",
            "grok",
            "qwen",
            "copilot",
            "pi",
            "cursor",
            "antigravity",
            "amp",
            "kimi",
        ] {
            assert!(AgentKind::from_name(name).is_some(), "{name}");
        }
        assert_eq!(AgentKind::from_name("nope"), None);
        assert_eq!(AgentKind::from_code(0), None);
    }

    fn edited(from: &str, to: &str) -> String {
        assert!(
            EMBEDDED.contains(from),
            "fixture text {from:?} not in catalog"
        );
        EMBEDDED.replacen(from, to, 1)
    }

    #[test]
    fn unknown_key_is_a_load_error() {
        let text = edited(
            "display = \"Claude Code\"",
            "display = \"Claude Code\"\nsurprise = 1",
        );
        assert!(matches!(Catalog::load(&text), Err(CatalogError::Parse(_))));
    }

    #[test]
    fn a_verified_agent_without_verified_versions_is_a_load_error() {
        let text = edited("verified_versions = [\"2.1.332\", \"2.1.197\"]\n", "");
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Rule { agent: 0, .. })
        ));
        let text = edited("[\"2.1.332\", \"2.1.197\"]", "[\"2.1.x\"]");
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Rule { agent: 0, .. })
        ));
        let claude = Catalog::embedded().agent(AgentKind::Claude);
        assert_eq!(claude.verified_versions, ["2.1.332", "2.1.197"]);
    }

    #[test]
    fn resume_section_naming_an_executable_is_a_load_error() {
        let text = edited(
            "resume = { flag = \"--resume\" }",
            "resume = { flag = \"--resume\", program = \"/bin/sh\" }",
        );
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::ResumeNamesExecutable(0))
        ));
        let text = edited(
            "resume = { subcommand = [\"resume\"] }",
            "resume = { subcommand = [\"claude\"] }",
        );
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::ResumeNamesExecutable(_))
        ));
    }

    #[test]
    fn duplicate_agent_is_a_load_error() {
        let claude_start = EMBEDDED
            .find("[[agent]]\nname = \"claude\"")
            .expect("claude entry");
        let codex_start = EMBEDDED
            .find("[[agent]]\nname = \"codex\"")
            .expect("codex entry");
        let text = format!("{}\n{}", EMBEDDED, &EMBEDDED[claude_start..codex_start]);
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Duplicate { what: "agent", .. })
        ));
    }

    #[test]
    fn duplicate_flag_spelling_is_a_load_error() {
        let text = edited("{ name = \"--fallback-model\",", "{ name = \"--model\",");
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Duplicate { what: "flag", .. })
        ));
    }

    #[test]
    fn carried_variadic_flag_is_a_load_error() {
        let text = edited(
            "{ name = \"--add-dir\", arity = \"variadic\" }",
            "{ name = \"--add-dir\", arity = \"variadic\", carry = true }",
        );
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Rule { .. })
        ));
    }

    #[test]
    fn carried_value_flag_without_shape_is_a_load_error() {
        let text = edited(
            "{ name = \"--model\", arity = \"value\", shape = \"model\", carry = true }",
            "{ name = \"--model\", arity = \"value\", carry = true }",
        );
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Rule { .. })
        ));
    }

    #[test]
    fn unsafe_shape_is_a_load_error() {
        let text = edited("choice = [\"minimal\",", "choice = [\"$(reboot)\",");
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Shape { .. })
        ));
        let text = edited(
            "{ chars = \"A-Za-z0-9._:-\", min = 0, max = 199 }",
            "{ chars = \"A-Za-z0-9._:- \", min = 0, max = 199 }",
        );
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::Shape { .. })
        ));
    }

    #[test]
    fn agent_unknown_to_this_build_is_a_load_error() {
        let text = edited("name = \"kimi\"\ncode = 13", "name = \"kimi\"\ncode = 99");
        assert!(matches!(
            Catalog::load(&text),
            Err(CatalogError::UnknownAgent(_))
        ));
    }

    #[test]
    fn unverified_agents_are_exactly_the_documented_only_ones() {
        let unverified: Vec<_> = Catalog::embedded()
            .agents()
            .iter()
            .filter(|a| !a.verified)
            .map(|a| a.kind.as_str())
            .collect();
        assert_eq!(unverified, ["cursor", "antigravity", "amp", "kimi"]);
    }

    /// Every posture flag the catalog declares, acknowledged by a reviewer.
    /// A newly declared posture flag fails this test until it is added here
    /// after checking it is safe to replay on a fresh recording.
    const ACKNOWLEDGED_POSTURE: &[(&str, &str)] = &[
        ("claude", "--permission-mode"),
        ("claude", "--dangerously-skip-permissions"),
        ("claude", "--allow-dangerously-skip-permissions"),
        ("codex", "--sandbox"),
        ("codex", "--ask-for-approval"),
        ("codex", "--dangerously-bypass-approvals-and-sandbox"),
        ("gemini", "--yolo"),
        ("gemini", "--approval-mode"),
        ("gemini", "--sandbox"),
        ("opencode", "--auto"),
        ("droid", "--auto"),
        ("grok", "--permission-mode"),
        ("grok", "--always-approve"),
        ("grok", "--dangerously-skip-permissions"),
        ("grok", "--yolo"),
        ("grok", "--sandbox"),
        ("qwen", "--yolo"),
        ("qwen", "--approval-mode"),
        ("copilot", "--allow-all-tools"),
        ("copilot", "--allow-all-paths"),
        ("copilot", "--allow-all-urls"),
        ("copilot", "--allow-all"),
        ("copilot", "--autopilot"),
        ("cursor", "--force"),
        ("cursor", "--sandbox"),
        ("antigravity", "--dangerously-skip-permissions"),
        ("amp", "--dangerously-allow-all"),
    ];

    #[test]
    fn posture_flags_are_acknowledged() {
        let declared: Vec<(&str, &str)> = Catalog::embedded()
            .agents()
            .iter()
            .flat_map(|a| {
                a.flags
                    .iter()
                    .filter(|f| f.posture)
                    .map(move |f| (a.kind.as_str(), f.name.as_str()))
            })
            .collect();
        for pair in &declared {
            assert!(
                ACKNOWLEDGED_POSTURE.contains(pair),
                "posture flag {pair:?} is not acknowledged"
            );
        }
        for pair in ACKNOWLEDGED_POSTURE {
            assert!(
                declared.contains(pair),
                "acknowledged posture flag {pair:?} is no longer declared"
            );
        }
    }

    #[test]
    fn flags_whose_names_suggest_posture_are_declared_as_posture() {
        // A second net under the pinned list: a carried flag whose name speaks
        // of permissions, approval, sandboxing or danger must be posture.
        for a in Catalog::embedded().agents() {
            for f in a.flags.iter().filter(|f| f.carry) {
                let n = f.name.to_ascii_lowercase();
                let suggests = [
                    "permission",
                    "approv",
                    "sandbox",
                    "danger",
                    "yolo",
                    "allow",
                    "auto",
                    "force",
                ]
                .iter()
                .any(|w| n.contains(w));
                assert!(
                    !suggests || f.posture,
                    "{}: {} looks like posture",
                    a.kind,
                    f.name
                );
            }
        }
    }
}
