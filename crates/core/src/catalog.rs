//! The agent catalog: every declared agent CLI, declared in `agents.toml`
//! and validated before anything uses it.
//!
//! The file is data, not code: detection words, whether the agent is
//! verified, its id shape, how its resume and headless invocations are
//! shaped, and the flags that may be replayed. The loader refuses unknown
//! keys, duplicates, unsafe shapes, carried flags that are variadic or have no
//! shape, a list of plain values it cannot trust, and a resume section that
//! names an executable: the program word only ever comes from detection.
//! Whether a flag is posture is asked of [`FlagDecl::is_posture`] with the
//! flag's value, never of the declaration directly.
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
    AgentDecl, Arity, Catalog, CatalogError, FlagDecl, HeadlessShape, PayloadHeadless, PayloadKey,
    PayloadShape, PostureRule, PromptPlacement, ResumeShape,
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

impl FlagDecl {
    /// Whether this flag with `value` (`None` for a switch) changes the
    /// agent's permission posture: the one question every caller asks
    /// (replay, notes, listings), so `--autopilot` and `--mode autopilot`
    /// can never be told apart by one of them and not another. A by-value
    /// flag without a value is posture: nothing proves it plain.
    pub fn is_posture(&self, value: Option<&str>) -> bool {
        match &self.posture {
            PostureRule::Never => false,
            PostureRule::Always => true,
            PostureRule::ExceptValues(plain) => {
                !value.is_some_and(|v| plain.iter().any(|p| p == v))
            }
        }
    }

    /// Whether any value of this flag is posture.
    pub fn may_be_posture(&self) -> bool {
        match &self.posture {
            PostureRule::Never => false,
            PostureRule::Always | PostureRule::ExceptValues(_) => true,
        }
    }
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

    /// Whether `args` (the words after the program) carry every one of
    /// `ui_child_args`: the agent's own child of its interactive UI. A
    /// declared `--flag=value` also matches `--flag value`.
    pub fn is_ui_child(&self, args: &[String]) -> bool {
        let has = |want: &str| {
            args.iter().enumerate().any(|(i, w)| {
                w == want
                    || want.split_once('=').is_some_and(|(flag, value)| {
                        w == flag && args.get(i + 1).is_some_and(|v| v == value)
                    })
            })
        };
        !self.ui_child_args.is_empty() && self.ui_child_args.iter().all(|w| has(w))
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

    /// Droid 0.225.2's `exec -s <id>` asks Factory's server for the session
    /// and fails offline for every id: its headless resume is unverified,
    /// while the interactive `--resume=<id>` resumed a real session.
    #[test]
    fn droid_headless_resume_is_not_verified() {
        let droid = Catalog::embedded().agent(AgentKind::Droid);
        let headless = droid.headless.as_ref().expect("droid has a headless form");
        assert!(!headless.verified);
        assert!(droid.verified);
        assert!(droid.is_ui_child(&[
            "exec".to_owned(),
            "--input-format".to_owned(),
            "stream-jsonrpc".to_owned(),
            "--output-format=stream-jsonrpc".to_owned(),
        ]));
        assert!(!droid.is_ui_child(&["exec".to_owned(), "hi".to_owned()]));
        // No other agent declares such a child.
        let claude = Catalog::embedded().agent(AgentKind::Claude);
        assert!(!claude.is_ui_child(&[]));
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
    fn a_payload_is_keys_and_a_headless_rule_or_a_known_format() {
        let claude = "payload = { ids = [\"session_id\"], headless = \"typed_without_event\" }";
        for bad in [
            "payload = { format = \"claude\" }",
            "payload = { ids = [], headless = \"never\" }",
            "payload = { ids = [\"session_id\", \"session_id\"], headless = \"never\" }",
            "payload = { ids = [\"session_id\"] }",
            "payload = { ids = [\"session_id\"], headless = \"never\", format = \"pi\" }",
        ] {
            assert!(
                matches!(
                    Catalog::load(&edited(claude, bad)),
                    Err(CatalogError::Rule { agent: 0, .. })
                ),
                "{bad}"
            );
        }
        let text = edited(
            claude,
            "payload = { ids = [\"thread_id\"], headless = \"never\" }",
        );
        assert!(matches!(Catalog::load(&text), Err(CatalogError::Parse(_))));
        let text = edited(claude, "");
        assert!(matches!(Catalog::load(&text), Err(CatalogError::Parse(_))));
        let text = edited(claude, "payload = { format = \"pi\" }");
        let c = Catalog::load(&text).expect("a known format loads");
        assert_eq!(c.agent(AgentKind::Claude).payload, PayloadShape::Pi);
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
    fn an_interactive_flag_that_is_no_declared_switch_is_a_load_error() {
        for to in [
            "interactive_flags = [\"--nope\"]",
            "interactive_flags = [\"--id\"]",
        ] {
            let text = edited("interactive_flags = [\"--tui\"]", to);
            assert!(
                matches!(Catalog::load(&text), Err(CatalogError::Rule { .. })),
                "{to}"
            );
        }
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
        assert_eq!(
            unverified,
            ["cursor", "antigravity", "amp", "kimi", "qoder", "continue"]
        );
    }

    /// Every posture flag the catalog declares, acknowledged by a reviewer:
    /// `None` when every value is posture, else the values reviewed as
    /// plain (every other value is posture). A newly declared posture flag,
    /// or a plain value added to one, fails this test until it is added
    /// here after checking it is safe to replay on a fresh recording. A
    /// posture flag that is not carried is listed too, with why it is
    /// posture: carrying it later starts from that review.
    const ACKNOWLEDGED_POSTURE: &[(&str, &str, Option<&[&str]>)] = &[
        ("claude", "--agent", None),
        ("claude", "--permission-mode", None),
        ("claude", "--dangerously-skip-permissions", None),
        ("claude", "--allow-dangerously-skip-permissions", None),
        ("claude", "--settings", None), // not carried: a settings file or JSON can hold permission rules
        ("claude", "--setting-sources", None), // not carried: picks which settings, and so which rules, load
        ("claude", "--allowedTools", None),    // not carried: pre-approves tools
        ("claude", "--disallowedTools", None), // not carried: a deny rule is a permission rule
        ("claude", "--agents", None), // not carried: an inline agent can set its permissionMode
        ("claude", "--permission-prompts", None), // not carried: decides who answers permission prompts
        ("claude", "--restricted", None), // not carried: narrows the posture, still a change of it
        ("codex", "--profile", None),
        ("codex", "--sandbox", None),
        ("codex", "--ask-for-approval", None),
        ("codex", "--dangerously-bypass-approvals-and-sandbox", None),
        ("codex", "--config", None), // not carried: `-c approval_policy=…` sets the posture
        ("codex", "--approve-for-me", None), // not carried: approvals go to automatic review
        ("codex", "--dangerously-bypass-hook-trust", None), // not carried: runs untrusted hooks
        ("codex", "--trust", None),  // not carried (`exec` only): saves trust for the project
        ("codex", "--ignore-rules", None), // not carried (`exec` only): drops the execpolicy rules
        ("codex", "--ignore-user-config", None), // not carried (`exec` only): drops the configured posture
        ("gemini", "--yolo", None),
        ("gemini", "--approval-mode", None),
        ("gemini", "--sandbox", None),
        ("gemini", "--policy", None), // not carried: policy files decide what runs unasked
        ("gemini", "--admin-policy", None), // not carried: policy files decide what runs unasked
        ("gemini", "--allowed-tools", None), // not carried: tools run without confirmation
        ("gemini", "--skip-trust", None), // not carried: trusts the workspace
        ("opencode", "--agent", None),
        ("opencode", "--auto", None),
        ("droid", "--auto", None),
        ("droid", "--settings", None), // not carried: runtime settings can set the autonomy level
        ("droid", "--skip-permissions-unsafe", None), // not carried (`exec` only): skips every permission check
        ("droid", "--mission", None), // not carried (`exec` only): auto-approves its proposals
        ("grok", "--permission-mode", None),
        ("grok", "--always-approve", None),
        ("grok", "--dangerously-skip-permissions", None),
        ("grok", "--yolo", None),
        ("grok", "--sandbox", None),
        ("grok", "--trust", None),  // not carried: trusts the project
        ("grok", "--agent", None),  // not carried: an agent definition can set its permission mode
        ("grok", "--agents", None), // not carried: inline agent definitions
        ("grok", "--allow", None),  // not carried: a permission allow rule
        ("grok", "--deny", None),   // not carried: a permission deny rule
        ("qwen", "--yolo", None),
        ("qwen", "--approval-mode", None),
        ("qwen", "--sandbox", None), // not carried: runs in a sandbox
        ("qwen", "--sandbox-image", None), // not carried: picks the sandbox
        ("qwen", "--allowed-tools", None), // not carried: tools bypass confirmation
        ("copilot", "--mode", Some(&["interactive", "plan"])),
        ("copilot", "--allow-all-tools", None),
        ("copilot", "--allow-all-paths", None),
        ("copilot", "--allow-all-urls", None),
        ("copilot", "--allow-all", None),
        ("copilot", "--autopilot", None),
        ("copilot", "--allow-tool", None), // not carried: pre-approves tools
        ("copilot", "--deny-tool", None),  // not carried: a deny rule is a permission rule
        ("copilot", "--add-dir", None), // not carried: grants file access and trusts its configuration
        ("copilot", "--agent", None),   // not carried: a custom agent can carry its own tool rules
        ("copilot", "--allow-url", None), // not carried: pre-approves URLs
        ("copilot", "--deny-url", None), // not carried: a deny rule is a permission rule
        ("copilot", "--trust-folder", None), // not carried: trusts the folder's configuration
        ("copilot", "--assisted-approval", None), // not carried: a judge answers permission requests
        ("copilot", "--disallow-temp-dir", None), // not carried: narrows path access
        ("copilot", "--no-ask-user", None),       // not carried: the agent goes on without asking
        ("cursor", "--force", None),
        ("cursor", "--sandbox", None),
        ("antigravity", "--dangerously-skip-permissions", None),
        ("amp", "--mode", Some(&["low", "medium", "high", "ultra"])),
        ("amp", "--dangerously-allow-all", None),
        ("kilo", "--agent", None),
        ("kilo", "--auto", None),
        ("vibe", "--agent", Some(&["ask"])),
        ("vibe", "--auto-approve", None),
        ("vibe", "--smart-approve", None),
        ("vibe", "--trust", None),
        ("qoder", "--permission-mode", None),
        ("qoder", "--dangerously-skip-permissions", None),
        ("continue", "--auto", None),
        ("auggie", "--persona", None),
        // On by default and not kept by a resumed session: `false` is what
        // keeps the user's choice (3.0.65).
        ("cline", "--auto-approve", Some(&["false"])),
    ];

    #[test]
    fn posture_flags_and_their_plain_values_are_acknowledged() {
        let declared: Vec<(&str, &str, Option<Vec<&str>>)> = Catalog::embedded()
            .agents()
            .iter()
            .flat_map(|a| {
                a.flags.iter().filter_map(move |f| {
                    let plain = match &f.posture {
                        PostureRule::Never => return None,
                        PostureRule::Always => None,
                        PostureRule::ExceptValues(v) => {
                            Some(v.iter().map(String::as_str).collect())
                        }
                    };
                    Some((a.kind.as_str(), f.name.as_str(), plain))
                })
            })
            .collect();
        let acknowledged: Vec<(&str, &str, Option<Vec<&str>>)> = ACKNOWLEDGED_POSTURE
            .iter()
            .map(|(a, f, p)| (*a, *f, p.map(<[&str]>::to_vec)))
            .collect();
        for entry in &declared {
            assert!(
                acknowledged.contains(entry),
                "posture flag {entry:?} is not acknowledged"
            );
        }
        for entry in &acknowledged {
            assert!(
                declared.contains(entry),
                "acknowledged posture flag {entry:?} is no longer declared so"
            );
        }
    }

    #[test]
    fn flags_whose_names_suggest_posture_are_declared_as_posture() {
        // A second net under the pinned list: a carried flag whose name speaks
        // of permissions, approval, sandboxing or danger must be posture (for
        // every value but `false`, which turns it off); one that names a mode
        // or a saved configuration must be posture for at least the values
        // not reviewed as plain.
        let always = [
            "permission",
            "approv",
            "sandbox",
            "danger",
            "yolo",
            "allow",
            "auto",
            "force",
        ];
        let by_value = [
            "mode", "agent", "profile", "persona", "preset", "settings", "config",
        ];
        for a in Catalog::embedded().agents() {
            for f in a.flags.iter().filter(|f| f.carry) {
                let n = f.name.to_ascii_lowercase();
                let off_only =
                    matches!(&f.posture, PostureRule::ExceptValues(v) if v == &["false"]);
                assert!(
                    !always.iter().any(|w| n.contains(w))
                        || f.posture == PostureRule::Always
                        || off_only,
                    "{}: {} looks like posture",
                    a.kind,
                    f.name
                );
                // Whole words: `--model` names no mode.
                let names_config = n.split('-').any(|part| by_value.contains(&part));
                assert!(
                    !names_config || f.may_be_posture(),
                    "{}: {} selects a mode or configuration",
                    a.kind,
                    f.name
                );
            }
        }
    }

    #[test]
    fn choice_values_that_suggest_posture_are_posture_for_that_value() {
        // `--mode autopilot` must be posture as `--autopilot` is: every
        // choice of a carried flag that reads as a permission posture.
        let words = [
            "auto", "yolo", "danger", "bypass", "allow", "never", "full", "force", "skip", "approv",
        ];
        for a in Catalog::embedded().agents() {
            for f in a.flags.iter().filter(|f| f.carry) {
                let Some(Shape::Choice(choices)) = &f.shape else {
                    continue;
                };
                for c in choices {
                    let lower = c.to_ascii_lowercase();
                    if words.iter().any(|w| lower.contains(w)) {
                        assert!(
                            f.is_posture(Some(c)),
                            "{}: {} {c} reads as posture",
                            a.kind,
                            f.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn by_value_posture_is_posture_for_every_value_but_the_plain_ones() {
        let copilot = Catalog::embedded().agent(AgentKind::Copilot);
        let mode = copilot.flag("--mode").expect("copilot --mode");
        assert!(mode.is_posture(Some("autopilot")));
        assert!(mode.is_posture(Some("a-mode-added-later")));
        assert!(mode.is_posture(None), "no value proves nothing plain");
        assert!(!mode.is_posture(Some("interactive")));
        assert!(!mode.is_posture(Some("plan")));
        let model = copilot.flag("--model").expect("copilot --model");
        assert!(!model.is_posture(Some("autopilot")) && !model.may_be_posture());
        let autopilot = copilot.flag("--autopilot").expect("copilot --autopilot");
        assert!(autopilot.is_posture(None));
    }

    #[test]
    fn a_plain_values_list_the_loader_cannot_trust_is_a_load_error() {
        let rule_of = |text: &str| match Catalog::load(text) {
            Err(CatalogError::Rule { rule, .. }) => rule,
            other => panic!("not refused by a rule: {other:?}"),
        };
        let mode = "plain_values = [\"interactive\", \"plan\"]";
        for (to, want) in [
            (
                "plain_values = [\"interactive\", \"plan\"], posture = true",
                "a flag is posture for every value or names its plain values, not both",
            ),
            (
                "plain_values = []",
                "plain values are a non-empty list without duplicates",
            ),
            (
                "plain_values = [\"plan\", \"plan\"]",
                "plain values are a non-empty list without duplicates",
            ),
            (
                "plain_values = [\"plan\", \"bogus\"]",
                "every plain value matches the flag's shape",
            ),
            (
                "plain_values = [\"interactive\", \"plan\", \"autopilot\"]",
                "plain values that name every choice leave no posture: drop them",
            ),
        ] {
            assert_eq!(rule_of(&edited(mode, to)), want, "{to}");
        }
        let switch = edited(
            "{ name = \"--continue\", arity = \"switch\" },\n  { name = \"--session-id\", arity = \"value\" },\n  { name = \"--name\"",
            "{ name = \"--continue\", arity = \"switch\", carry = true, plain_values = [\"x\"] },\n  { name = \"--session-id\", arity = \"value\" },\n  { name = \"--name\"",
        );
        assert_eq!(
            rule_of(&switch),
            "plain values belong to a value flag with a shape"
        );
        let not_carried = edited(
            "{ name = \"--session-id\", arity = \"value\" },\n  { name = \"--name\"",
            "{ name = \"--session-id\", arity = \"value\", plain_values = [\"x\"] },\n  { name = \"--name\"",
        );
        assert_eq!(
            rule_of(&not_carried),
            "a shape and plain values only apply to carried flags"
        );
        let shaped = edited(
            "{ name = \"--session-id\", arity = \"value\" },\n  { name = \"--name\"",
            "{ name = \"--session-id\", arity = \"value\", shape = \"uuid\" },\n  { name = \"--name\"",
        );
        assert_eq!(
            rule_of(&shaped),
            "a shape and plain values only apply to carried flags"
        );
    }
}
