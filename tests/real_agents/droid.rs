//! Factory Droid, offline: air-gapped mode with one BYOK custom model at
//! the stand-in (OpenAI chat completions), the project folder trusted as
//! a user's first answer leaves it.

use std::fs;

use serde_json::json;

use super::conformance;
use super::versions::{Setup, DROID};

/// The custom model, the trusted folder, and air-gapped mode (without it
/// Droid asks for a login).
pub(crate) fn setup(s: &mut Setup<'_>) {
    let dir = s.home.join(".factory");
    fs::create_dir_all(&dir).unwrap();
    let settings = json!({
        "customModels": [{"model": "gpt-4o", "displayName": "standin",
            "baseUrl": format!("{}/v1", s.url), "apiKey": "x",
            "provider": "generic-chat-completion-api"}],
        "logoAnimation": "off",
        "trustedFolders": {s.proj.to_string_lossy(): {"trustedAt": "2026-01-01T00:00:00.000Z"}},
    });
    fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    s.env.set("FACTORY_AIRGAP_ENABLED", "1");
}

#[test]
fn droid_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&DROID, &["--auto", "low"], false);
}

#[test]
fn droid_with_its_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&DROID, &["--auto", "low"], true);
}
