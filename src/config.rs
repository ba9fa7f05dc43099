//! The config file and the feature gate, as the CLI reports them: the
//! reading, deciding and writing live in [`agent_resume_engine::settings`],
//! shared with an embedding terminal.

pub use agent_resume_engine::settings::*;

use crate::paths::Overrides;

/// An error and its causes on one line (`a: b: c`), as anyhow's `{:#}`.
pub use agent_resume_engine::error_line as chain;

/// Whether the feature is on. When it is off, says so in one line on
/// stderr, ending with `what` ("nothing recorded"), having touched nothing
/// but the config file.
pub fn enabled_or_say(o: &Overrides, what: &str) -> bool {
    let decided = decide_for(o);
    if let Some(problem) = &decided.problem {
        eprintln!("agent-resume: config ignored: {}", chain(problem));
    }
    if !decided.gate.enabled {
        eprintln!(
            "agent-resume: disabled ({}); {what}",
            source_text(decided.gate.source)
        );
    }
    decided.gate.enabled
}
