//! Grok Build, offline: its models endpoint pointed at the stand-in
//! (OpenAI chat completions) with a dummy key.

use super::conformance;
use super::versions::{Setup, GROK};

/// A dummy key and the stand-in as Grok's models endpoint.
pub(crate) fn setup(s: &mut Setup<'_>) {
    s.env.set("XAI_API_KEY", "x");
    s.env.set("GROK_MODELS_BASE_URL", format!("{}/v1", s.url));
}

#[test]
fn grok_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&GROK, &["--model", "gpt-4o"], false);
}
