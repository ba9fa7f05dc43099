//! Mistral Vibe (PyPI `mistral-vibe`), offline: a provider of its own
//! `config.toml` pointed at the stand-in (OpenAI chat completions). Vibe
//! writes its hooks in `hooks.toml`, which agent-resume does not edit: it
//! is captured with no hook (the lock its app server holds open).

use std::fs;

use super::conformance;
use super::versions::{Setup, VIBE};

/// The variable `config.toml` names for the stand-in's key.
const KEY_VAR: &str = "STANDIN_API_KEY";

/// `~/.vibe/config.toml`: one provider at the stand-in and its model as
/// the active one.
pub(crate) fn setup(s: &mut Setup<'_>) {
    let dir = s.home.join(".vibe");
    fs::create_dir_all(&dir).unwrap();
    let config = format!(
        "active_model = \"standin\"\n\n\
         [[providers]]\nname = \"standin\"\napi_base = \"{}/v1\"\n\
         api_key_env_var = \"{KEY_VAR}\"\napi_style = \"openai\"\n\n\
         [[models]]\nname = \"gpt-4o\"\nprovider = \"standin\"\nalias = \"standin\"\n",
        s.url
    );
    fs::write(dir.join("config.toml"), config).unwrap();
    s.env.set(KEY_VAR, "x");
}

#[test]
fn vibe_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&VIBE, &["--agent", "ask"], false);
}
