//! Input formats shared by the fuzz targets and `fuzz/seedgen.py`.
//!
//! The targets decode raw bytes with these functions, so a seed written by
//! the generator (or by hand) is a plain file in the same format:
//!
//! - `extract_flags`: byte 0 picks the agent (`AgentKind::VARIANTS[b % n]`,
//!   i.e. `agents.toml` order); the rest, decoded as lossy UTF-8, is the
//!   invocation text.
//! - `build_invocation`: byte 0 picks the agent as above; byte 1 holds the
//!   shell (`Shell::VARIANTS[b & 3]`), the posture (bit 2 set: `Drop`) and
//!   whether a program is recorded (bit 3). The rest, lossy UTF-8, is split
//!   on U+001F into: session id, program, then one field per recorded flag,
//!   `name` for a switch or `name` U+001E `value`. `rebuild_invocation`
//!   reads the same format (and shares its seeds).
//! - `render_line`: byte 0 picks the shell (`b & 3`); the rest, lossy UTF-8,
//!   split on U+001F, is the argv (an empty rest is one empty word).
//! - `hook_payload`: byte 0 picks the agent as above; the rest, raw, is the
//!   payload (JSON, one document or JSON lines).
//! - `exit_hint`: as `extract_flags`: byte 0 picks the agent, the rest (lossy
//!   UTF-8) is the pane's retained text.
//! - `report_message`: the raw bytes are the report message.
//! - `store_row`: the seven column values, split on the byte U+001F, each
//!   led by a type byte ([`row_values`]).
//! - `tmux_literal`: byte 0 picks the position
//!   (`agent_resume_tmux::Value::VARIANTS[b % n]`); the rest, raw, is the
//!   value; checked against [`tmux_reads`], a model of tmux's own reading.
//! - `tmux_listing`: the raw bytes are a `list-panes` output.
//! - `plan`, `telemetry_privacy`: structure-aware, read with
//!   `arbitrary::Unstructured` ([`plan_case`], [`privacy_case`]); any bytes
//!   decode.
//!
//! Helpers here only decode and compute expectations that do not come from
//! the code under test; the invariants live in the targets.

use std::borrow::Cow;
use std::path::PathBuf;

use agent_resume_core::catalog::ResumeShape;
use agent_resume_core::shape::is_program_path;
use agent_resume_core::{
    AgentDecl, AgentKind, BuildRequest, Catalog, PaneContext, Posture, RecordedFlag, Shell,
};

mod plan;
mod row;
mod tmux;

pub use plan::{plan_case, privacy_case, Fs, PlanCase, NOW};
pub use row::{as_column, encode_row, row_values, COLUMN};
pub use tmux::tmux_reads;

/// Separates the fields of a `build_invocation` input.
pub const FIELD: char = '\u{1f}';
/// Separates a recorded flag's name from its value.
pub const VALUE: char = '\u{1e}';

/// The agent byte 0 selects.
pub fn agent(b: u8) -> &'static AgentDecl {
    let kinds = AgentKind::VARIANTS;
    Catalog::embedded().agent(kinds[usize::from(b) % kinds.len()])
}

/// A decoded `extract_flags` input.
pub fn extract_input(data: &[u8]) -> Option<(&'static AgentDecl, String)> {
    let (&a, text) = data.split_first()?;
    Some((agent(a), String::from_utf8_lossy(text).into_owned()))
}

/// A decoded `hook_payload` input: the agent and the raw payload.
pub fn hook_input(data: &[u8]) -> Option<(&'static AgentDecl, &[u8])> {
    let (&a, payload) = data.split_first()?;
    Some((agent(a), payload))
}

/// A pane whose host answers with fixed values (a report's invocation and
/// directory).
#[derive(Debug)]
pub struct Pane {
    /// The invocation text the host shows.
    pub invocation: Option<String>,
    /// The pane's directory.
    pub cwd: Option<PathBuf>,
}

impl PaneContext for Pane {
    fn invocation(&self) -> Option<Cow<'_, str>> {
        self.invocation.as_deref().map(Cow::Borrowed)
    }

    fn cwd(&self) -> Option<PathBuf> {
        self.cwd.clone()
    }
}

/// A decoded `render_line` input: the shell and the words.
pub fn line_input(data: &[u8]) -> Option<(Shell, Vec<String>)> {
    let (&b, rest) = data.split_first()?;
    let words = String::from_utf8_lossy(rest).split(FIELD).map(str::to_owned).collect();
    Some((Shell::VARIANTS[usize::from(b & 3)], words))
}

/// A decoded `build_invocation` input.
#[derive(Debug)]
pub struct BuildInput {
    /// The agent.
    pub agent: &'static AgentDecl,
    /// The target shell.
    pub shell: Shell,
    /// The posture decision.
    pub posture: Posture,
    /// The recorded session id.
    pub session_id: String,
    /// The recorded program word.
    pub program: Option<String>,
    /// The recorded flags, as hostile as the bytes allow.
    pub flags: Vec<RecordedFlag>,
}

impl BuildInput {
    /// The request these values make.
    pub fn request(&self) -> BuildRequest<'_> {
        BuildRequest {
            agent: self.agent,
            session_id: &self.session_id,
            flags: &self.flags,
            program: self.program.as_deref(),
            posture: self.posture,
            shell: self.shell,
        }
    }
}

/// Decodes a `build_invocation` input.
pub fn build_input(data: &[u8]) -> Option<BuildInput> {
    let [a, bits, rest @ ..] = data else {
        return None;
    };
    let text = String::from_utf8_lossy(rest);
    let mut fields = text.split(FIELD);
    let session_id = fields.next().unwrap_or_default().to_owned();
    let program = fields.next().filter(|_| bits & 8 != 0).map(str::to_owned);
    let flags = fields
        .map(|f| match f.split_once(VALUE) {
            Some((name, value)) => RecordedFlag::value(name, value),
            None => RecordedFlag::switch(f),
        })
        .collect();
    Some(BuildInput {
        agent: agent(*a),
        shell: Shell::VARIANTS[usize::from(bits & 3)],
        posture: if bits & 4 != 0 { Posture::Drop } else { Posture::Carry },
        session_id,
        program,
        flags,
    })
}

/// A well-formed session id for `agent`, from its shape's name (written out
/// here, not derived from the shape under test).
pub fn sample_id(agent: &AgentDecl) -> Option<&'static str> {
    Some(match agent.id_shape_name.as_str() {
        "uuid" => "f6066ebb-140e-4519-ab63-b9cde0b60b57",
        "opencode_id" => "ses_0b5cefde2ffeXhHuHeWoYLX8iP",
        "amp_thread" => "T-f6066ebb-140e-4519-ab63-b9cde0b60b57",
        "kimi_session" => "session_f6066ebb-140e-4519-ab63-b9cde0b60b57",
        "generic_id" => "a1.b-c:d",
        _ => return None,
    })
}

/// The words the resume operand must end `argv` with.
pub fn resume_tail(agent: &AgentDecl, id: &str) -> Vec<String> {
    match &agent.resume {
        ResumeShape::Flag { name, joined: true } => vec![format!("{name}={id}")],
        ResumeShape::Flag { name, .. } => vec![name.clone(), id.to_owned()],
        ResumeShape::Subcommand(words) => words.iter().cloned().chain([id.to_owned()]).collect(),
    }
}

/// Whether `value` could be a shaped value at all: it starts with an ASCII
/// letter or digit and holds only those and `._:/@+=,-`. Written out here so a
/// bug in shape matching cannot hide behind the same bug in the oracle.
pub fn is_safe_value(value: &str) -> bool {
    value.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || b"._:/@+=,-".contains(&b))
}

/// Whether a word of `argv` is a carried flag of `agent` that is posture with
/// the value after it (by value: `--mode autopilot` is, `--mode plan` is not).
pub fn has_posture_flag(agent: &AgentDecl, argv: &[String]) -> bool {
    argv.iter().enumerate().any(|(i, w)| {
        let value = |d: &agent_resume_core::catalog::FlagDecl| d.shape.as_ref().and(argv.get(i + 1));
        agent.flags.iter().any(|d| d.carry && d.name == *w && d.is_posture(value(d).map(String::as_str)))
    })
}

/// Whether `word` may run `agent`: one of its command words, or an absolute
/// plain path (`shape::is_program_path`) whose basename is one.
pub fn is_agent_program(agent: &AgentDecl, word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    agent.commands.iter().any(|c| c == base) && (base == word || is_program_path(word))
}

/// Appended to an invocation that extracted: a quoted prompt holding flag
/// words, then `--` and a posture flag. Whatever the text ended with (a
/// dangling value flag, a variadic, a subcommand), nothing it appends may be
/// recorded. The run may turn headless (qwen reads any positional as a
/// one-shot prompt; `-\` before the tail reads as a bundle holding `-x`),
/// which records nothing. A bare `-- --flag` would not do: a dangling value
/// flag takes `--` as its value, as the agents' own parsers do.
pub const PROMPT_TAIL: &str =
    " 'x --dangerously-skip-permissions --yolo' -- --dangerously-skip-permissions --yolo";

/// `AGENT_RESUME_PANE=<id>` for the pane id `[n; 16]` the `kitty_session`
/// target gives its window `n` (mod 256), as the id displays: made once per
/// process, not once per window.
pub fn kitty_pane_assignment(n: u8) -> &'static str {
    static ALL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        (0..=255u8)
            .map(|n| {
                format!("{}={}", agent_resume_kitty::PANE_ENV, agent_resume_core::PaneId::from_bytes([n; 16]))
            })
            .collect()
    });
    &all[usize::from(n)]
}
