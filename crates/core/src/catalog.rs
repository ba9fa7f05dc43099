//! The agent catalog: every declared agent CLI, loaded from the embedded
//! `agents.toml` and validated before anything uses it.
//!
//! The file is data, not code: detection words, whether the agent is
//! verified, its id shape, how its resume and headless invocations are
//! shaped, and the flags that may be replayed. The loader refuses unknown
//! keys, duplicates, unsafe shapes, carried flags that are variadic or have no
//! shape, and a resume section that names an executable: the program word
//! only ever comes from detection.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::Deserialize;
use thiserror::Error;

use crate::shape::{Charset, Segment, Shape, ShapeError};
use crate::AgentKind;

/// The catalog shipped in the binary.
pub const EMBEDDED: &str = include_str!("../agents.toml");

/// How many values a flag takes on the agent's own command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arity {
    /// No value.
    Switch,
    /// Exactly one value, as `--flag value` or `--flag=value`.
    Value,
    /// An optional value: the next word unless it starts with `-`.
    Optional,
    /// Greedy: every following word up to the next one starting with `-`.
    Variadic,
}

/// One declared flag of an agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagDecl {
    /// Canonical name, e.g. `--model`.
    pub name: String,
    /// Other spellings resolved to `name`, e.g. `-m`.
    pub aliases: Vec<String>,
    /// How many values it takes.
    pub arity: Arity,
    /// Shape of the value when carried.
    pub shape: Option<Shape>,
    /// Recorded and replayed on resume.
    pub carry: bool,
    /// Changes the agent's permission posture.
    pub posture: bool,
    /// Makes the run headless (not interactively resumable).
    pub headless: bool,
}

/// Where the session id goes in a resume invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResumeShape {
    /// `--resume <id>`, or `--resume=<id>` when `joined`.
    Flag {
        /// The flag, e.g. `--resume`.
        name: String,
        /// Emit `name=id` as one word.
        joined: bool,
    },
    /// `resume <id>`, `threads continue <id>`.
    Subcommand(Vec<String>),
}

/// Where a headless run takes its prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptPlacement {
    /// After a `--` separator: nothing in the prompt can be read as a flag.
    AfterSeparator,
    /// As the last positional word.
    Positional,
    /// As the value of this flag, joined (`--prompt=<text>`).
    Flag(String),
}

/// The non-interactive resume form used by supervisors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadlessShape {
    /// Whether evidence verifies this form.
    pub verified: bool,
    /// Words right after the program (`-p`, `exec`).
    pub prefix: Vec<String>,
    /// Where the id goes.
    pub resume: ResumeShape,
    /// Where the prompt goes.
    pub prompt: PromptPlacement,
}

/// One declared agent.
#[derive(Clone, Debug)]
pub struct AgentDecl {
    /// The closed kind.
    pub kind: AgentKind,
    /// Human name, e.g. "Claude Code".
    pub display: String,
    /// Detection words; the first is the default program word.
    pub commands: Vec<String>,
    /// Resumed only when true.
    pub verified: bool,
    /// The versions the evidence was taken from (`1.2.3`; non-empty when
    /// `verified`).
    pub verified_versions: Vec<String>,
    /// Name of the id shape in the catalog.
    pub id_shape_name: String,
    /// The id shape.
    pub id_shape: Shape,
    /// Environment variables naming the agent's config home.
    pub config_env: Vec<String>,
    /// Interactive resume shape.
    pub resume: ResumeShape,
    /// Headless resume shape, when known.
    pub headless: Option<HeadlessShape>,
    /// First positional words that make a run headless (`exec`, `run`).
    pub headless_subcommands: Vec<String>,
    /// Any positional word (a prompt) makes the run headless (qwen 0.24).
    pub positional_is_headless: bool,
    /// The flag that chooses the id of a *new* session at launch, where the
    /// agent has one (`--session-id`).
    pub launch_id_flag: Option<String>,
    /// Words whose presence, all of them, in a process's argv marks the
    /// agent's shared background server (Codex's `app-server
    /// --managed-daemon`): one process serving the sessions of several
    /// windows, with the environment of whichever started it. A hook under
    /// it cannot tell which pane a session belongs to. Empty: no such
    /// server is known.
    pub shared_server_args: Vec<String>,
    /// Declared flags, in replay order.
    pub flags: Vec<FlagDecl>,
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

/// The validated catalog.
#[derive(Clone, Debug)]
pub struct Catalog {
    agents: Vec<AgentDecl>,
    shapes: BTreeMap<String, Shape>,
}

/// Why a catalog file was refused.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Not TOML, or a key the schema does not know.
    #[error("catalog does not parse: {0}")]
    Parse(String),
    /// A schema version this build does not read.
    #[error("catalog version {0} is not supported")]
    Version(u32),
    /// A shape declaration is unsafe or malformed.
    #[error("shape `{name}`: {source}")]
    Shape {
        /// The shape's name.
        name: String,
        /// What is wrong with it.
        source: ShapeError,
    },
    /// An agent whose name this build has no `AgentKind` for, or whose code differs.
    #[error(
        "agent #{0} does not match the built-in agent kinds (rebuild after editing agents.toml)"
    )]
    UnknownAgent(usize),
    /// A name declared twice.
    #[error("duplicate {what} in agent #{agent}")]
    Duplicate {
        /// What was duplicated.
        what: &'static str,
        /// Index of the agent.
        agent: usize,
    },
    /// A reference to a shape that is not declared.
    #[error("agent #{0} names an undeclared shape")]
    UnknownShape(usize),
    /// A resume or headless section that names an executable.
    #[error("agent #{0}: a resume section may not name an executable")]
    ResumeNamesExecutable(usize),
    /// Any other rule.
    #[error("agent #{agent}: {rule}")]
    Rule {
        /// Index of the agent.
        agent: usize,
        /// The rule broken.
        rule: &'static str,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    version: u32,
    shape: BTreeMap<String, RawShape>,
    agent: Vec<RawAgent>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShape {
    segments: Option<Vec<RawSegment>>,
    choice: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSegment {
    literal: Option<String>,
    chars: Option<String>,
    len: Option<u16>,
    min: Option<u16>,
    max: Option<u16>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    name: String,
    code: u16,
    display: String,
    commands: Vec<String>,
    verified: bool,
    #[serde(default)]
    verified_versions: Vec<String>,
    id_shape: String,
    #[serde(default)]
    config_env: Vec<String>,
    resume: RawResume,
    headless: Option<RawHeadless>,
    #[serde(default)]
    headless_subcommands: Vec<String>,
    #[serde(default)]
    positional_is_headless: bool,
    launch_id_flag: Option<String>,
    #[serde(default)]
    shared_server_args: Vec<String>,
    #[serde(default)]
    flags: Vec<RawFlag>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResume {
    flag: Option<String>,
    #[serde(default)]
    joined: bool,
    subcommand: Option<Vec<String>>,
    // Present only to be refused with a precise error.
    program: Option<toml::Value>,
    executable: Option<toml::Value>,
    command: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeadless {
    verified: bool,
    #[serde(default)]
    prefix: Vec<String>,
    resume: RawResume,
    prompt: Option<String>,
    prompt_flag: Option<String>,
    program: Option<toml::Value>,
    executable: Option<toml::Value>,
    command: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlag {
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    arity: Arity,
    shape: Option<String>,
    #[serde(default)]
    carry: bool,
    #[serde(default)]
    posture: bool,
    #[serde(default)]
    headless: bool,
}

/// `1.2.3`: one to four dot-separated runs of digits, at most 32 bytes.
fn is_version(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    v.len() <= 32
        && (1..=4).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn is_flag_word(w: &str) -> bool {
    let body = w
        .strip_prefix("--")
        .or_else(|| w.strip_prefix('-'))
        .unwrap_or("");
    !body.is_empty()
        && body.as_bytes()[0].is_ascii_alphanumeric()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn is_plain_word(w: &str) -> bool {
    !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn shape_from_raw(raw: RawShape) -> Result<Shape, ShapeError> {
    match (raw.segments, raw.choice) {
        (Some(segs), None) => {
            let mut out = Vec::with_capacity(segs.len());
            for s in segs {
                out.push(match (s.literal, s.chars, s.len, s.min, s.max) {
                    (Some(lit), None, None, None, None) => Segment::Literal(lit),
                    (None, Some(chars), Some(n), None, None) => Segment::Run {
                        set: Charset::parse(&chars)?,
                        min: n,
                        max: n,
                    },
                    (None, Some(chars), None, Some(min), Some(max)) => Segment::Run {
                        set: Charset::parse(&chars)?,
                        min,
                        max,
                    },
                    _ => return Err(ShapeError::BadSegment),
                });
            }
            Shape::segments(out)
        }
        (None, Some(values)) => Shape::choice(values),
        _ => Err(ShapeError::Empty),
    }
}

impl Catalog {
    /// The embedded catalog, parsed once per process.
    pub fn embedded() -> &'static Catalog {
        static CATALOG: OnceLock<Catalog> = OnceLock::new();
        CATALOG.get_or_init(|| {
            Catalog::load(EMBEDDED).expect(
                "the embedded catalog is validated by catalog::tests::embedded_catalog_loads",
            )
        })
    }

    /// Parses and validates a catalog file.
    pub fn load(text: &str) -> Result<Catalog, CatalogError> {
        let raw: RawCatalog =
            toml::from_str(text).map_err(|e| CatalogError::Parse(e.message().to_owned()))?;
        if raw.version != 1 {
            return Err(CatalogError::Version(raw.version));
        }
        let mut shapes = BTreeMap::new();
        for (name, rs) in raw.shape {
            let shape = shape_from_raw(rs).map_err(|source| CatalogError::Shape {
                name: name.clone(),
                source,
            })?;
            shapes.insert(name, shape);
        }
        let all_commands: BTreeSet<&str> = raw
            .agent
            .iter()
            .flat_map(|a| a.commands.iter().map(String::as_str))
            .collect();
        let mut seen_kinds = BTreeSet::new();
        let mut agents = Vec::with_capacity(raw.agent.len());
        for (i, ra) in raw.agent.iter().enumerate() {
            let rule = |rule| CatalogError::Rule { agent: i, rule };
            let kind = AgentKind::from_name(&ra.name)
                .filter(|k| k.code() == ra.code)
                .ok_or(CatalogError::UnknownAgent(i))?;
            if !seen_kinds.insert(kind) {
                return Err(CatalogError::Duplicate {
                    what: "agent",
                    agent: i,
                });
            }
            if ra.commands.is_empty() || !ra.commands.iter().all(|c| is_plain_word(c)) {
                return Err(rule("commands must be plain words"));
            }
            let id_shape = shapes
                .get(&ra.id_shape)
                .cloned()
                .ok_or(CatalogError::UnknownShape(i))?;
            let resume = resume_from_raw(&ra.resume, i, &all_commands)?;
            let headless = match &ra.headless {
                None => None,
                Some(h) => {
                    if h.program.is_some() || h.executable.is_some() || h.command.is_some() {
                        return Err(CatalogError::ResumeNamesExecutable(i));
                    }
                    if !h.prefix.iter().all(|w| is_plain_word(w) || is_flag_word(w))
                        || h.prefix.iter().any(|w| all_commands.contains(w.as_str()))
                    {
                        return Err(rule("headless prefix must be plain words or flags"));
                    }
                    let prompt = match (h.prompt.as_deref(), &h.prompt_flag) {
                        (Some("separator"), None) => PromptPlacement::AfterSeparator,
                        (Some("positional"), None) => PromptPlacement::Positional,
                        (None, Some(f)) if is_flag_word(f) => PromptPlacement::Flag(f.clone()),
                        _ => return Err(rule(
                            "headless needs one of prompt = separator|positional or prompt_flag",
                        )),
                    };
                    Some(HeadlessShape {
                        verified: h.verified,
                        prefix: h.prefix.clone(),
                        resume: resume_from_raw(&h.resume, i, &all_commands)?,
                        prompt,
                    })
                }
            };
            if ra.verified && ra.verified_versions.is_empty() {
                return Err(rule(
                    "a verified agent names the versions it was verified with",
                ));
            }
            if !ra.verified_versions.iter().all(|v| is_version(v)) {
                return Err(rule("a verified version is dotted numbers, like 1.2.3"));
            }
            if let Some(f) = &ra.launch_id_flag {
                if !is_flag_word(f) || ra.flags.iter().any(|d| &d.name == f && d.carry) {
                    return Err(rule("launch_id_flag must be a flag that is never carried"));
                }
            }
            if !ra.shared_server_args.iter().all(|w| !w.is_empty()) {
                return Err(rule("shared server words are not empty"));
            }
            if !ra.headless_subcommands.iter().all(|w| is_plain_word(w)) {
                return Err(rule("headless subcommands must be plain words"));
            }
            if !ra
                .config_env
                .iter()
                .all(|v| is_plain_word(v) && !v.contains('-'))
            {
                return Err(rule("config_env must be variable names"));
            }
            let mut words = BTreeSet::new();
            let mut flags = Vec::with_capacity(ra.flags.len());
            for rf in &ra.flags {
                for w in std::iter::once(&rf.name).chain(&rf.aliases) {
                    if !is_flag_word(w) {
                        return Err(rule("flag names must look like -x or --name"));
                    }
                    if !words.insert(w.clone()) {
                        return Err(CatalogError::Duplicate {
                            what: "flag",
                            agent: i,
                        });
                    }
                }
                let shape = match &rf.shape {
                    None => None,
                    Some(s) => Some(
                        shapes
                            .get(s)
                            .cloned()
                            .ok_or(CatalogError::UnknownShape(i))?,
                    ),
                };
                if rf.carry {
                    match rf.arity {
                        Arity::Switch if shape.is_none() => {}
                        Arity::Value if shape.is_some() => {}
                        _ => {
                            return Err(rule(
                                "a carried flag is a switch, or a value flag with a shape",
                            ))
                        }
                    }
                    if rf.headless {
                        return Err(rule("a headless flag is never carried"));
                    }
                    if !rf.name.starts_with("--") {
                        return Err(rule("a carried flag's canonical name is a long flag"));
                    }
                } else if rf.posture || shape.is_some() {
                    return Err(rule("posture and shape only apply to carried flags"));
                }
                flags.push(FlagDecl {
                    name: rf.name.clone(),
                    aliases: rf.aliases.clone(),
                    arity: rf.arity,
                    shape,
                    carry: rf.carry,
                    posture: rf.posture,
                    headless: rf.headless,
                });
            }
            agents.push(AgentDecl {
                kind,
                display: ra.display.clone(),
                commands: ra.commands.clone(),
                verified: ra.verified,
                verified_versions: ra.verified_versions.clone(),
                id_shape_name: ra.id_shape.clone(),
                id_shape,
                config_env: ra.config_env.clone(),
                resume,
                headless,
                headless_subcommands: ra.headless_subcommands.clone(),
                positional_is_headless: ra.positional_is_headless,
                launch_id_flag: ra.launch_id_flag.clone(),
                shared_server_args: ra.shared_server_args.clone(),
                flags,
            });
        }
        if seen_kinds.len() != AgentKind::VARIANTS.len() {
            return Err(CatalogError::Rule {
                agent: agents.len(),
                rule: "every built-in agent kind must be declared",
            });
        }
        agents.sort_by_key(|a| a.kind);
        Ok(Catalog { agents, shapes })
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

fn resume_from_raw(
    r: &RawResume,
    i: usize,
    commands: &BTreeSet<&str>,
) -> Result<ResumeShape, CatalogError> {
    if r.program.is_some() || r.executable.is_some() || r.command.is_some() {
        return Err(CatalogError::ResumeNamesExecutable(i));
    }
    match (&r.flag, &r.subcommand) {
        (Some(f), None) if is_flag_word(f) => Ok(ResumeShape::Flag {
            name: f.clone(),
            joined: r.joined,
        }),
        (None, Some(words))
            if !r.joined && !words.is_empty() && words.iter().all(|w| is_plain_word(w)) =>
        {
            if words.iter().any(|w| commands.contains(w.as_str())) {
                return Err(CatalogError::ResumeNamesExecutable(i));
            }
            Ok(ResumeShape::Subcommand(words.clone()))
        }
        _ => Err(CatalogError::Rule {
            agent: i,
            rule: "resume needs one of flag or subcommand",
        }),
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
