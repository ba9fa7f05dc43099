//! GitHub Copilot CLI, offline: its BYOK provider pointed at the stand-in
//! (OpenAI chat completions), the project folder trusted as a user's
//! "remember this folder" answer leaves it.

use std::fs;

use serde_json::json;

use super::conformance;
use super::versions::{Setup, COPILOT};

/// What a user who answered "Yes, and remember this folder" once has, and
/// the BYOK variables of Copilot's offline mode.
pub(crate) fn setup(s: &mut Setup<'_>) {
    let dir = s.home.join(".copilot");
    fs::create_dir_all(&dir).unwrap();
    let config = json!({"trustedFolders": [s.proj], "appTipShown": true});
    fs::write(dir.join("config.json"), config.to_string()).unwrap();
    s.env.set("COPILOT_OFFLINE", "true");
    s.env
        .set("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", s.url));
    s.env.set("COPILOT_PROVIDER_API_KEY", "x");
    s.env.set("COPILOT_MODEL", "gpt-4o");
    s.env.set("COPILOT_AUTO_UPDATE", "false");
}

#[test]
fn copilot_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&COPILOT, &["--model", "gpt-4o"], false);
}
