//! The catalog's declared types, shared with `build.rs`, which validates
//! `agents.toml` with the same code at build time and emits the result as
//! Rust (see `validate.rs`).

use std::collections::BTreeMap;

use serde::Deserialize;
use thiserror::Error;

use crate::shape::{Shape, ShapeError};
use crate::AgentKind;

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

/// Which values of a flag change the agent's permission posture. Asked
/// only through [`FlagDecl::is_posture`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PostureRule {
    /// No value does (`--model`).
    Never,
    /// The switch, or every value, does (`--dangerously-skip-permissions`,
    /// `--permission-mode`, and a flag naming a saved configuration that
    /// can carry a permission mode: `--profile`, `--agent`).
    Always,
    /// Every value but these does (copilot `--mode`: `autopilot` is
    /// posture, `interactive` and `plan` are not). Fail closed: a value a
    /// CLI adds later is posture until it is reviewed and listed here.
    ExceptValues(Vec<String>),
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
    /// Which of its values change the agent's permission posture.
    pub posture: PostureRule,
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

/// A top-level payload key that may carry the session id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub enum PayloadKey {
    /// `session_id`.
    #[serde(rename = "session_id")]
    SessionId,
    /// `sessionId`.
    #[serde(rename = "sessionId")]
    SessionIdCamel,
    /// `conversation_id`.
    #[serde(rename = "conversation_id")]
    ConversationId,
}

/// Which payloads are a headless run's output rather than a live hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayloadHeadless {
    /// Those with a `type` and no hook event name (print-mode output).
    TypedWithoutEvent,
    /// Those without a hook event name.
    WithoutEvent,
    /// None.
    Never,
}

/// Where an agent's hook and headless-output payloads carry the session id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PayloadShape {
    /// In the first of these top-level keys that is present.
    Fields {
        /// The keys, in order of preference.
        ids: Vec<PayloadKey>,
        /// Which payloads are headless output.
        headless: PayloadHeadless,
    },
    /// Codex's notifier, hooks and `exec --json` lines.
    Codex,
    /// OpenCode's plugin events and `run --format json` lines.
    Opencode,
    /// Pi's `--mode json` session header.
    Pi,
}

/// One declared agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentDecl {
    /// The closed kind.
    pub kind: AgentKind,
    /// Human name, e.g. "Claude Code".
    pub display: String,
    /// Detection words; the first is the default program word.
    pub commands: Vec<String>,
    /// Names the agent's own process runs under besides the commands
    /// (Mistral Vibe's `vibe` launcher execs `…/vibe/_bin/vibe-rs`): they
    /// recognise the process, and are never replayed as the program word.
    pub process_names: Vec<String>,
    /// Resumed only when true.
    pub verified: bool,
    /// Whether the CLI can resume a conversation by its id at all. `false`
    /// (Continue's `cn`: `--resume` takes the last session) never resumes:
    /// such a pane comes back as a plain shell, `not_resumable_by_id`.
    pub resumable_by_id: bool,
    /// The versions the evidence was taken from (`1.2.3`; non-empty when
    /// `verified`).
    pub verified_versions: Vec<String>,
    /// Name of the id shape in the catalog.
    pub id_shape_name: String,
    /// The id shape.
    pub id_shape: Shape,
    /// Where its payloads carry the session id.
    pub payload: PayloadShape,
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
    /// Switches that, before the first positional, keep a run whose
    /// positional would make it headless interactive (Cline 3.0's
    /// `-i/--tui`), by canonical name.
    pub interactive_flags: Vec<String>,
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
    /// Words that, all present in an argv (spaced or as `--flag=value`),
    /// mark the agent's own child of its interactive UI (Droid 0.225's
    /// `exec --input-format stream-jsonrpc --output-format stream-jsonrpc`,
    /// under which the UI's hooks run): never a headless run, whatever
    /// its subcommand. Empty: no such child is known.
    pub ui_child_args: Vec<String>,
    /// The words before the id in the agent's exit hint where they are
    /// not its resume operand (Auggie 0.36 resumes with `--resume <id>`
    /// and prints `auggie session resume <id>`). Empty: the hint is the
    /// resume operand.
    pub exit_hint: Vec<String>,
    /// Declared flags, in replay order.
    pub flags: Vec<FlagDecl>,
}

/// The validated catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalog {
    pub(super) agents: Vec<AgentDecl>,
    pub(super) shapes: BTreeMap<String, Shape>,
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
