//! Augment's Auggie and Cline, offline. Auggie talks to Augment's own
//! `chat-stream` endpoint at the `tenantURL` of `AUGMENT_SESSION_AUTH`
//! (the stand-in); Cline to an OpenAI-compatible provider whose base URL is
//! the stand-in's, as `cline auth -p openai -k x -m gpt-4o -b <url>/v1`
//! leaves it. Neither has a hook agent-resume installs: both are captured
//! by the saves' scans.

use std::fs;

use serde_json::json;

use super::conformance;
use super::versions::{Setup, AUGGIE, CLINE};

/// A user who went through Auggie's welcome and tips once and answered
/// "Never index this workspace" for the project, signed in to the
/// stand-in.
pub(crate) fn auggie_setup(s: &mut Setup<'_>) {
    let dir = s.home.join(".augment");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join(".auggie.json"),
        json!({"onboardingVersion": "1.0.0"}).to_string(),
    )
    .unwrap();
    fs::write(
        dir.join("settings.json"),
        json!({"indexingDenyDirs": [s.proj]}).to_string(),
    )
    .unwrap();
    let auth = json!({"accessToken": "x", "tenantURL": format!("{}/", s.url), "scopes": ["email"]});
    s.env.set("AUGMENT_SESSION_AUTH", auth.to_string());
    s.env.set("AUGMENT_DISABLE_AUTO_UPDATE", "1");
}

/// What `cline auth -p openai -k x -m gpt-4o -b <url>/v1` writes, and the
/// notices a user has closed once.
pub(crate) fn cline_setup(s: &mut Setup<'_>) {
    let dir = s.home.join(".cline/data/settings");
    fs::create_dir_all(&dir).unwrap();
    let provider = json!({"provider": "openai-compatible", "apiKey": "x", "model": "gpt-4o",
        "baseUrl": format!("{}/v1", s.url)});
    let providers = json!({"version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
        "providers": {"openai-compatible": {"settings": provider,
            "updatedAt": "2026-12-05T04:30:54.057Z", "tokenSource": "manual"}}});
    fs::write(dir.join("providers.json"), providers.to_string()).unwrap();
    let notices =
        json!({"shown": {"cline-cli-cline-pass-intro": true, "cline-cli-desktop-launch": true}});
    fs::write(dir.join("cli-notices.json"), notices.to_string()).unwrap();
}

#[test]
fn auggie_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    // `--ask` narrows its tools: carried at any age.
    conformance(&AUGGIE, &["--model", "standin", "--ask"], false);
}

#[test]
fn cline_with_no_hook_comes_back_after_a_reboot_in_its_conversation_and_posture() {
    // Cline approves every tool unless told not to, and a resumed session
    // takes the flag: `--auto-approve false` must come back with it.
    conformance(
        &CLINE,
        &["--model", "gpt-4o", "--auto-approve", "false"],
        false,
    );
}
