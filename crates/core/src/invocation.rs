//! The resume invocation builder.
//!
//! Given an agent, the session id it reported, the recorded flags, the
//! program word, the posture decision and the target shell, the builder
//! returns the exact `argv` and the shell `line` — or a typed refusal, never
//! a partial line. Every input is treated as hostile (it comes from a store
//! any process of the user can write): the id must match its shape or there
//! is no invocation at all; each recorded flag must be a carried flag of that
//! agent with a value matching its shape, or it is dropped; the program word
//! is the declared command word or an absolute path whose basename is one
//! (hosts pass a path only once [`crate::program::trusted`] has found it in
//! a place nobody else can change).
//! Flags come before the id operand so no trailing positional can swallow
//! them, and the builder adds no flag of its own.

use serde::Serialize;
use thiserror::Error;

use crate::catalog::{AgentDecl, Arity, PromptPlacement, ResumeShape};
use crate::flag::{extract, extract_words, ExtractError, Extraction, RecordedFlag};
use crate::posture::{decide_age, Posture, PostureWindow};
use crate::shape::is_program_path;
use crate::shell::{render_line, QuoteError, Shell};

/// A built resume invocation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Invocation {
    /// The exact argument vector the agent receives.
    pub argv: Vec<String>,
    /// The line a shell runs to produce `argv`, carrying the history marker.
    pub line: String,
    /// Whether any posture flag is in `argv`.
    pub posture_carried: bool,
}

/// Why no invocation was built.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The agent is declared but not verified: never resumed.
    #[error("agent is not verified for resume")]
    AgentNotVerified,
    /// The session id fails the agent's id shape.
    #[error("session id fails its shape")]
    InvalidSessionId,
    /// A stored argv that the builder would not produce from its parts.
    #[error("stored invocation does not rebuild to itself")]
    Mismatch,
    /// A word passed every shape yet the quoter refused it.
    #[error("a word was refused by the quoter: {0}")]
    Unquotable(QuoteError),
    /// The agent has no headless form that evidence verifies: a supervisor
    /// is refused rather than run cold.
    #[error("agent has no verified headless resume")]
    HeadlessNotVerified,
    /// A headless run needs a prompt.
    #[error("headless prompt is empty")]
    EmptyPrompt,
    /// A positional prompt starting with `-` would be read as a flag.
    #[error("positional prompt starts with `-`")]
    PromptLooksLikeFlag,
    /// The prompt holds a control character other than newline or tab.
    #[error("headless prompt holds a control character")]
    PromptControl,
}

/// Everything the builder needs.
#[derive(Clone, Copy, Debug)]
pub struct BuildRequest<'a> {
    /// The agent's declaration.
    pub agent: &'a AgentDecl,
    /// The id the agent reported.
    pub session_id: &'a str,
    /// The recorded flags (untrusted).
    pub flags: &'a [RecordedFlag],
    /// The recorded program word (untrusted); `None` for the declared word.
    pub program: Option<&'a str>,
    /// Whether posture flags may ride along.
    pub posture: Posture,
    /// The shell that will parse the line.
    pub shell: Shell,
}

/// The program word: the recorded one when it is a declared command word or
/// an absolute path ending in one; otherwise the declared word.
pub fn program_word<'a>(agent: &'a AgentDecl, recorded: Option<&'a str>) -> &'a str {
    match recorded {
        Some(p) if agent.commands.iter().any(|c| c == p) => p,
        Some(p)
            if is_program_path(p)
                && agent
                    .commands
                    .iter()
                    .any(|c| p.rsplit('/').next() == Some(c.as_str())) =>
        {
            p
        }
        _ => agent.command(),
    }
}

/// The validated flags for replay, in catalog order, and whether posture is
/// among them.
pub fn replay_flags(
    agent: &AgentDecl,
    recorded: &[RecordedFlag],
    posture: Posture,
) -> (Vec<String>, bool) {
    let mut words = Vec::new();
    let mut posture_carried = false;
    for decl in agent.flags.iter().filter(|d| d.carry) {
        // The last recorded occurrence wins, as on the agent's command line;
        // a dropped posture value never falls back to an earlier one.
        let Some(rec) = recorded.iter().rev().find(|f| *f.name == *decl.name) else {
            continue;
        };
        let ok = match (decl.arity, &decl.shape, rec.value.as_deref()) {
            (Arity::Switch, None, None) => true,
            (Arity::Value, Some(shape), Some(v)) => shape.matches(v),
            _ => false,
        };
        // Posture is a property of the flag *with its value*: `--mode
        // autopilot` is dropped when stale exactly as `--autopilot` is.
        let is_posture = decl.is_posture(rec.value.as_deref());
        if !ok || (is_posture && posture == Posture::Drop) {
            continue;
        }
        words.push(decl.name.clone());
        if let Some(v) = &rec.value {
            words.push(v.to_string());
        }
        posture_carried |= is_posture;
    }
    (words, posture_carried)
}

/// The resume operand words for `shape` and `id`.
pub fn resume_words(shape: &ResumeShape, id: &str) -> Vec<String> {
    match shape {
        ResumeShape::Flag { name, joined: true } => vec![format!("{name}={id}")],
        ResumeShape::Flag {
            name,
            joined: false,
        } => vec![name.clone(), id.to_owned()],
        ResumeShape::Subcommand(words) => words.iter().cloned().chain([id.to_owned()]).collect(),
    }
}

/// Builds the interactive resume invocation.
pub fn build(req: &BuildRequest<'_>) -> Result<Invocation, BuildError> {
    let agent = req.agent;
    if !agent.verified {
        return Err(BuildError::AgentNotVerified);
    }
    if !agent.id_shape.matches(req.session_id) {
        return Err(BuildError::InvalidSessionId);
    }
    let (flag_words, posture_carried) = replay_flags(agent, req.flags, req.posture);
    let mut argv = Vec::with_capacity(1 + flag_words.len() + 3);
    argv.push(program_word(agent, req.program).to_owned());
    argv.extend(flag_words);
    argv.extend(resume_words(&agent.resume, req.session_id));
    let line = render_line(req.shell, &argv).map_err(BuildError::Unquotable)?;
    Ok(Invocation {
        argv,
        line,
        posture_carried,
    })
}

impl Invocation {
    /// The headless (non-interactive) resume argv for a supervisor, in the
    /// catalog's declared headless shape: the program word, the shape's
    /// prefix (`-p`, `exec`, `run`), the resume operand, then the prompt —
    /// after `--` where the agent takes one, as the last positional word, or
    /// joined to its flag (`--prompt=<text>`). The prompt words are joined by
    /// single spaces into one argv element; no shell parses it.
    ///
    /// Refused, never run cold: an unverified agent, an agent without a
    /// verified headless shape, an id failing its shape, an empty prompt, a
    /// positional prompt starting with `-` (it would be read as a flag), and
    /// a prompt holding any control character other than `\n` and `\t`.
    pub fn headless(
        agent: &AgentDecl,
        session_id: &str,
        prompt: &[String],
    ) -> Result<Vec<String>, BuildError> {
        if !agent.verified {
            return Err(BuildError::AgentNotVerified);
        }
        let Some(shape) = agent.headless.as_ref().filter(|h| h.verified) else {
            return Err(BuildError::HeadlessNotVerified);
        };
        if !agent.id_shape.matches(session_id) {
            return Err(BuildError::InvalidSessionId);
        }
        let text = prompt.join(" ");
        if text.is_empty() {
            return Err(BuildError::EmptyPrompt);
        }
        if text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        {
            return Err(BuildError::PromptControl);
        }
        let mut argv = Vec::with_capacity(4 + shape.prefix.len());
        argv.push(agent.command().to_owned());
        argv.extend(shape.prefix.iter().cloned());
        argv.extend(resume_words(&shape.resume, session_id));
        match &shape.prompt {
            PromptPlacement::AfterSeparator => {
                argv.push("--".to_owned());
                argv.push(text);
            }
            PromptPlacement::Positional => {
                if text.starts_with('-') {
                    return Err(BuildError::PromptLooksLikeFlag);
                }
                argv.push(text);
            }
            PromptPlacement::Flag(flag) => argv.push(format!("{flag}={text}")),
        }
        Ok(argv)
    }
}

/// Why the text-to-line pipeline ([`build_from_text`]) refused: one closed
/// variant per cause, each with a stable snake_case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The invocation was a headless run.
    Headless,
    /// The invocation does not tokenize.
    Untokenizable,
    /// The invocation has no program word.
    NoProgram,
    /// The invocation runs another program.
    OtherProgram,
    /// The agent is not verified.
    AgentNotVerified,
    /// The session id fails its shape.
    InvalidSessionId,
    /// The quoter refused a word.
    Unquotable,
}

impl Refusal {
    /// Every variant.
    pub const VARIANTS: &'static [Refusal] = &[
        Refusal::Headless,
        Refusal::Untokenizable,
        Refusal::NoProgram,
        Refusal::OtherProgram,
        Refusal::AgentNotVerified,
        Refusal::InvalidSessionId,
        Refusal::Unquotable,
    ];

    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Refusal::Headless => "headless",
            Refusal::Untokenizable => "untokenizable",
            Refusal::NoProgram => "no_program",
            Refusal::OtherProgram => "other_program",
            Refusal::AgentNotVerified => "agent_not_verified",
            Refusal::InvalidSessionId => "invalid_session_id",
            Refusal::Unquotable => "unquotable",
        }
    }
}

impl From<BuildError> for Refusal {
    fn from(e: BuildError) -> Self {
        match e {
            BuildError::AgentNotVerified => Refusal::AgentNotVerified,
            BuildError::InvalidSessionId => Refusal::InvalidSessionId,
            BuildError::HeadlessNotVerified => Refusal::AgentNotVerified,
            BuildError::Unquotable(_)
            | BuildError::Mismatch
            | BuildError::EmptyPrompt
            | BuildError::PromptLooksLikeFlag
            | BuildError::PromptControl => Refusal::Unquotable,
        }
    }
}

impl From<ExtractError> for Refusal {
    fn from(e: ExtractError) -> Self {
        match e {
            ExtractError::Untokenizable => Refusal::Untokenizable,
            ExtractError::NoProgram => Refusal::NoProgram,
            ExtractError::OtherProgram => Refusal::OtherProgram,
        }
    }
}

/// The whole pipeline from a user's invocation text to a resume line:
/// extract the allowlisted flags, decide posture from `age_millis`, build.
/// This is what `agent-resume build` runs, and what the shared case corpus
/// (`tests/cases/invocation.json`) pins.
pub fn build_from_text(
    agent: &AgentDecl,
    session_id: &str,
    invocation: &str,
    age_millis: i64,
    window: PostureWindow,
    shell: Shell,
) -> Result<Invocation, Refusal> {
    let (flags, program) = match extract(agent, invocation)? {
        Extraction::Interactive { flags, program } => (flags, program),
        Extraction::Headless => return Err(Refusal::Headless),
    };
    let posture = decide_age(age_millis, window);
    Ok(build(&BuildRequest {
        agent,
        session_id,
        flags: &flags,
        program: program.as_deref(),
        posture,
        shell,
    })?)
}

/// Re-derives an armed invocation from its stored parts, for the moment it
/// is taken. The armed row is as untrusted as any stored value, so the line
/// is never taken from it: the stored `argv` is read back through flag
/// extraction and rebuilt, and is accepted only if the builder produces
/// exactly the same `argv` from the agent, the session id and the flags it
/// yields. The line is then rendered afresh for `shell`.
///
/// `posture` is decided again by the caller at the moment of taking (the
/// recording may have aged past the window since it was armed): with
/// [`Posture::Drop`] the posture flags of a valid stored argv are left out
/// and the rest is kept, so the pane still resumes.
pub fn rebuild(
    agent: &AgentDecl,
    session_id: &str,
    argv: &[String],
    shell: Shell,
    posture: Posture,
) -> Result<Invocation, BuildError> {
    let (flags, program) = match extract_words(agent, argv) {
        Ok(Extraction::Interactive { flags, program }) => (flags, program),
        _ => return Err(BuildError::Mismatch),
    };
    // The stored argv must rebuild to itself with whatever posture it was
    // armed with; only then is the take-time posture applied.
    let request = |posture| BuildRequest {
        agent,
        session_id,
        flags: &flags,
        program: program
            .as_deref()
            .or_else(|| argv.first().map(String::as_str)),
        posture,
        shell,
    };
    let rebuilt = build(&request(Posture::Carry))?;
    if rebuilt.argv != argv {
        return Err(BuildError::Mismatch);
    }
    match posture {
        Posture::Carry => Ok(rebuilt),
        Posture::Drop => build(&request(Posture::Drop)),
    }
}

impl Invocation {
    /// This invocation with its program word checked again against the
    /// filesystem ([`crate::program::check`]): a recorded program path that
    /// is no longer trusted becomes the agent's bare command word, and the
    /// line is rendered afresh for `shell`. Used at take, after [`rebuild`]
    /// has proven the stored argv is the builder's own.
    pub fn with_trusted_program(
        mut self,
        agent: &AgentDecl,
        fs: &dyn crate::filesystem::FsProbe,
        shell: Shell,
    ) -> Result<Invocation, BuildError> {
        let Some(first) = self.argv.first() else {
            return Ok(self);
        };
        if crate::program::trusted(agent, Some(first), fs).is_some() {
            return Ok(self);
        }
        self.argv[0] = agent.command().to_owned();
        self.line = render_line(shell, &self.argv).map_err(BuildError::Unquotable)?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentKind, Catalog};

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

    fn req<'a>(
        kind: AgentKind,
        id: &'a str,
        flags: &'a [RecordedFlag],
        posture: Posture,
    ) -> BuildRequest<'a> {
        BuildRequest {
            agent: Catalog::embedded().agent(kind),
            session_id: id,
            flags,
            program: None,
            posture,
            shell: Shell::Bash,
        }
    }

    #[test]
    fn claude_resume_puts_flags_before_the_id() {
        let flags = [
            RecordedFlag::value("--permission-mode", "plan"),
            RecordedFlag::value("--model", "opus"),
        ];
        let inv = build(&req(AgentKind::Claude, ID, &flags, Posture::Carry)).expect("builds");
        assert_eq!(
            inv.argv,
            [
                "claude",
                "--model",
                "opus",
                "--permission-mode",
                "plan",
                "--resume",
                ID
            ]
        );
        assert!(inv.posture_carried);
        assert_eq!(inv.line, format!(" AGENT_RESUME_LINE=1 'claude' '--model' 'opus' '--permission-mode' 'plan' '--resume' '{ID}'"));
    }

    #[test]
    fn stale_recording_resumes_without_posture() {
        let flags = [
            RecordedFlag::switch("--dangerously-skip-permissions"),
            RecordedFlag::value("--model", "opus"),
        ];
        let inv = build(&req(AgentKind::Claude, ID, &flags, Posture::Drop)).expect("builds");
        assert_eq!(inv.argv, ["claude", "--model", "opus", "--resume", ID]);
        assert!(!inv.posture_carried);
    }

    #[test]
    fn subcommand_and_joined_shapes() {
        let codex = build(&req(
            AgentKind::Codex,
            ID,
            &[RecordedFlag::value("--sandbox", "read-only")],
            Posture::Carry,
        ))
        .expect("builds");
        assert_eq!(
            codex.argv,
            ["codex", "--sandbox", "read-only", "resume", ID]
        );
        let droid = build(&req(AgentKind::Droid, ID, &[], Posture::Carry)).expect("builds");
        assert_eq!(droid.argv, ["droid", format!("--resume={ID}").as_str()]);
        let oc = build(&req(
            AgentKind::Opencode,
            "ses_0b5cefde2ffeXhHuHeWoYLX8iP",
            &[],
            Posture::Carry,
        ))
        .expect("builds");
        assert_eq!(
            oc.argv,
            ["opencode", "--session", "ses_0b5cefde2ffeXhHuHeWoYLX8iP"]
        );
    }

    #[test]
    fn session_id_failing_its_shape_yields_no_invocation() {
        for id in [
            "",
            "x",
            "$(reboot)",
            "f6066ebb-140e-4519-ab63-b9cde0b60b57; id",
            "F6066EBB-140E-4519-AB63-B9CDE0B60B57",
        ] {
            assert_eq!(
                build(&req(AgentKind::Claude, id, &[], Posture::Carry)),
                Err(BuildError::InvalidSessionId),
                "{id:?}"
            );
        }
    }

    #[test]
    fn unverified_agent_is_never_resumed() {
        assert_eq!(
            build(&req(AgentKind::Cursor, ID, &[], Posture::Carry)),
            Err(BuildError::AgentNotVerified)
        );
    }

    #[test]
    fn hostile_recorded_flags_are_dropped_not_repaired() {
        let flags = [
            RecordedFlag::value("--model", "opus'; rm -rf ~; '"),
            RecordedFlag::value("--add-dir", "/"),
            RecordedFlag::value("--dangerously-skip-permissions", "1"),
            RecordedFlag::switch("--model"),
            RecordedFlag::value("-m", "opus"),
            RecordedFlag::value("--effort", "high"),
        ];
        let inv = build(&req(AgentKind::Claude, ID, &flags, Posture::Carry)).expect("builds");
        assert_eq!(inv.argv, ["claude", "--effort", "high", "--resume", ID]);
        assert!(!inv.posture_carried);
    }

    #[test]
    fn program_word_is_declared_or_a_matching_absolute_path() {
        let c = Catalog::embedded().agent(AgentKind::Claude);
        assert_eq!(program_word(c, None), "claude");
        assert_eq!(program_word(c, Some("/opt/bin/claude")), "/opt/bin/claude");
        for bad in [
            "/bin/sh",
            "sh",
            "/opt/bin/claude; id",
            "./claude",
            "/opt/bin/claude2",
            "~/claude",
        ] {
            assert_eq!(program_word(c, Some(bad)), "claude", "{bad:?}");
        }
    }

    #[test]
    fn rebuilding_at_take_with_posture_dropped_leaves_out_only_the_posture_flags() {
        let claude = Catalog::embedded().agent(AgentKind::Claude);
        let flags = [
            RecordedFlag::value("--model", "opus"),
            RecordedFlag::switch("--dangerously-skip-permissions"),
        ];
        let armed = build(&req(AgentKind::Claude, ID, &flags, Posture::Carry)).expect("builds");
        assert!(armed.posture_carried);
        let taken = rebuild(claude, ID, &armed.argv, Shell::Bash, Posture::Drop).expect("rebuilds");
        assert!(!taken.posture_carried);
        assert_eq!(taken.argv, ["claude", "--model", "opus", "--resume", ID]);
        let tampered = ["sh", "-c", "id"].map(str::to_owned);
        assert!(rebuild(claude, ID, &tampered, Shell::Bash, Posture::Drop).is_err());
    }

    #[test]
    fn armed_argv_is_accepted_only_if_it_rebuilds_to_itself() {
        let claude = Catalog::embedded().agent(AgentKind::Claude);
        let flags = [
            RecordedFlag::value("--model", "opus"),
            RecordedFlag::switch("--dangerously-skip-permissions"),
        ];
        for posture in [Posture::Carry, Posture::Drop] {
            let inv = build(&req(AgentKind::Claude, ID, &flags, posture)).expect("builds");
            assert_eq!(
                rebuild(claude, ID, &inv.argv, Shell::Fish, Posture::Carry).map(|i| i.argv),
                Ok(inv.argv.clone())
            );
        }
        let codex = Catalog::embedded().agent(AgentKind::Codex);
        let inv = build(&req(
            AgentKind::Codex,
            ID,
            &[RecordedFlag::value("--sandbox", "read-only")],
            Posture::Carry,
        ))
        .expect("builds");
        assert!(rebuild(codex, ID, &inv.argv, Shell::Bash, Posture::Carry).is_ok());
        let s = |v: &[&str]| v.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        for tampered in [
            s(&["sh", "-c", "id"]),
            s(&["claude", "--resume", ID, "; id"]),
            s(&["claude", "--add-dir", "/", "--resume", ID]),
            s(&["claude", "--resume", "0f6066eb-140e-4519-ab63-b9cde0b60b57"]),
            s(&["claude", "--model", "opus", "--model", "x", "--resume", ID]),
            s(&["claude", "--resume", ID, "--model", "opus"]),
            s(&["/tmp/evil/claude2", "--resume", ID]),
            s(&[]),
        ] {
            assert!(
                rebuild(claude, ID, &tampered, Shell::Bash, Posture::Carry).is_err(),
                "{tampered:?}"
            );
        }
    }
}
