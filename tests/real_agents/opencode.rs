//! OpenCode, its fork Kilo, and Pi, offline: each reaches the stand-in
//! (OpenAI chat completions) through a provider of its own config. Neither
//! has a hook agent-resume installs: each comes back with zero-config
//! capture (the shell integration's launch capture and `tmux save`).
//! OpenCode and Kilo write their session row at the first prompt; Pi
//! hides its argv (`process.title`), so its flags come from the shell's
//! note of the line.

use std::fs;

use serde_json::json;

use super::conformance;
use super::versions::{Setup, KILO, OPENCODE, PI};

/// A session id of OpenCode's shape no database holds.
pub(crate) const MADE_UP_SES: &str = "ses_0b5cefde2ffeXhHuHeWoYLX8iP";

/// OpenCode's config (Kilo reads the same shape): a provider `stub` whose
/// one model is the stand-in's, no update check, no sharing.
fn config(url: &str) -> String {
    json!({
        "autoupdate": false,
        "share": "disabled",
        "provider": {"stub": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "stub",
            "options": {"baseURL": format!("{url}/v1"), "apiKey": "x"},
            "models": {"gpt-4o": {"name": "gpt-4o"}},
        }},
        "model": "stub/gpt-4o",
    })
    .to_string()
}

pub(crate) fn setup_opencode(s: &mut Setup<'_>) {
    let dir = s.home.join(".config/opencode");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("opencode.json"), config(s.url)).unwrap();
}

pub(crate) fn setup_kilo(s: &mut Setup<'_>) {
    let dir = s.home.join(".config/kilo");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("kilo.json"), config(s.url)).unwrap();
}

/// Pi's custom provider `stub` in `models.json`, and no start-up network
/// work (`PI_OFFLINE`, as `--offline` does, so the typed line carries only
/// the flags under test).
pub(crate) fn setup_pi(s: &mut Setup<'_>) {
    let dir = s.home.join(".pi/agent");
    fs::create_dir_all(&dir).unwrap();
    let models = json!({"providers": {"stub": {
        "baseUrl": format!("{}/v1", s.url),
        "api": "openai-completions",
        "apiKey": "x",
        "models": [{"id": "gpt-4o"}],
    }}});
    fs::write(dir.join("models.json"), models.to_string()).unwrap();
    s.env.set("PI_OFFLINE", "1");
}

#[test]
fn opencode_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&OPENCODE, &["--model", "stub/gpt-4o"], false);
}

#[test]
fn kilo_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&KILO, &["--model", "stub/gpt-4o", "--auto"], false);
}

#[test]
fn pi_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&PI, &["--provider", "stub", "--model", "gpt-4o"], false);
}
