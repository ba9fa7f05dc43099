//! The pure decisions of agent-resume: which agents exist, what a safe value
//! looks like, which flags of a user's own command line may be replayed, and
//! how a resume invocation is built so that every shell parses it back to
//! exactly the intended argv.
//!
//! This crate does no I/O, reads no clock and no environment: time,
//! filesystem answers and configuration come in as arguments, so every
//! decision is a unit-testable function and a fuzz target.
//!
//! # Pieces
//!
//! - [`catalog`]: the agent declarations of `agents.toml`, validated by
//!   `build.rs` and embedded as generated data ([`Catalog::embedded`]).
//!   [`AgentKind`] is generated from the same file: a closed enum with
//!   stable discriminants.
//! - [`shape`]: character allowlists every replayed value must match.
//! - [`flag`]: extraction of allowlisted flags from invocation text.
//! - [`posture`]: whether permission-posture flags may ride along.
//! - [`invocation`]: the builder of `argv` and the quoted shell line.
//! - [`program`]: whether a recorded program path may be replayed, from
//!   facts the host's [`FsProbe`] reports.
//! - [`shell`]: the quoting every supported shell parses identically, and the
//!   history marker.
//! - [`codex_config`]: byte-exact edits of the entries `install-hooks codex`
//!   owns in Codex's `config.toml`.
//!
//! # Example
//!
//! ```
//! use agent_resume_core::{build, decide, extract, AgentKind, BuildRequest, Catalog, Extraction,
//!     PostureWindow, Shell, UnixMillis};
//!
//! let claude = Catalog::embedded().agent(AgentKind::Claude);
//! let Ok(Extraction::Interactive { flags, program }) =
//!     extract(claude, "claude --model opus --permission-mode plan 'fix --the bug'")
//! else { unreachable!() };
//!
//! let posture = decide(UnixMillis(0), UnixMillis(60_000), PostureWindow::DEFAULT);
//! let inv = build(&BuildRequest {
//!     agent: claude,
//!     session_id: "f6066ebb-140e-4519-ab63-b9cde0b60b57",
//!     flags: &flags,
//!     program: program.as_deref(),
//!     posture,
//!     shell: Shell::Zsh,
//! }).expect("a verified agent and a well-formed id");
//!
//! assert_eq!(inv.argv, ["claude", "--model", "opus", "--permission-mode", "plan",
//!                       "--resume", "f6066ebb-140e-4519-ab63-b9cde0b60b57"]);
//! assert!(inv.line.starts_with(" AGENT_RESUME_LINE=1 'claude' '--model' 'opus'"));
//! ```
//!
//! # Security
//!
//! The boundary and how each claim is tested is described in
//! `docs/security.md`. In short: allowlists, not denylists; a value that
//! fails its shape drops its flag and a session id that fails its shape
//! yields no invocation; every word is quoted unconditionally and a word
//! holding `'` or a control character is refused as a second barrier.

pub mod batch;
pub mod capture;
pub mod catalog;
pub mod claim;
pub mod codex_config;
pub mod eligibility;
pub mod exit_hint;
pub mod filesystem;
pub mod flag;
pub mod gate;
pub mod hook;
pub mod hook_json;
pub mod invocation;
pub mod layout;
pub mod pane;
pub mod posture;
pub mod program;
pub mod recording;
pub mod report;
pub mod shape;
pub mod shell;
pub mod stagger;
pub mod telemetry;

mod agent_kind {
    include!(concat!(env!("OUT_DIR"), "/agent_kind.rs"));
}

#[cfg(feature = "arbitrary")]
mod arbitrary_impl;

pub use agent_kind::AgentKind;
pub use capture::{Capture, Change, DetachKind, IdSource, Observation, PaneContext};
pub use catalog::{AgentDecl, Catalog, CatalogError};
pub use eligibility::{plan, PanePlan, PlanInput, Reason, SessionProbe, Verdict};
pub use filesystem::{FsProbe, MemoFs};
pub use flag::{detect, extract, extract_words, ExtractError, Extraction, RecordedFlag};
pub use gate::{gate, Gate, GateSource};
pub use invocation::{
    build, build_from_text, rebuild, BuildError, BuildRequest, Invocation, Refusal,
};
pub use layout::{Layout, PaneSpec, Placement, Tab, Window};
pub use pane::{BadPaneId, PaneId, TakeKey};
pub use posture::{decide, Posture, PostureWindow, UnixMillis};
pub use program::{FileFacts, FileKind};
pub use recording::{DirIdentity, Recording, Stored};
pub use shape::Shape;
pub use shell::{quote, render_line, QuoteError, Shell, MARKER};
pub use telemetry::{AgeBand, Event, Outcome, TelemetrySink};

impl std::fmt::Display for AgentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for AgentKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for AgentKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        AgentKind::from_name(&name).ok_or_else(|| serde::de::Error::custom("unknown agent kind"))
    }
}
