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

#[test]
fn grok_with_its_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&GROK, &["--model", "gpt-4o"], true);
}

/// Grok runs the hooks of Claude's `settings.json` too: with both agents'
/// hooks installed, a grok pane is recorded as grok's, never as a Claude
/// conversation (`hook.log` says `another-agent` for the Claude hook).
#[test]
fn grok_running_claude_s_hooks_is_recorded_as_grok_only() {
    let m = super::Machine::new(&[(&GROK, &["--model", "gpt-4o"])], true);
    m.ar_ok(&["install-hooks", "claude"]);
    let dir = m.seats[0].dir.to_str().unwrap().to_owned();
    m.tmux.ok(&[
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "200",
        "-y",
        "50",
        "-c",
        &dir,
    ]);
    m.tmux.wait_screen("=work:0.0", "the bash prompt", |sc| {
        sc.contains(super::BASH_PROMPT)
    });
    m.tmux.type_line("=work:0.0", &m.seats[0].line());
    let log = m.home().join(".local/state/agent-resume/hook.log");
    let said = agent_resume_test_support::wait_for("the Claude hook's refusal", || {
        std::fs::read_to_string(&log)
            .ok()
            .filter(|l| l.contains("claude another-agent"))
    });
    let recs = m.recordings();
    assert!(
        !recs.is_empty() && recs.iter().all(|r| r["agent"] == "grok"),
        "{recs:?}\n{said}"
    );
}

/// The hook file `install-hooks grok` writes is one grok runs: a grok
/// started with no shell integration, outside tmux's view of panes (its
/// pane named only by `AGENT_RESUME_PANE`), is recorded under that pane
/// by its SessionStart hook alone, with its flags.
#[test]
fn grok_runs_the_hook_file_install_hooks_writes() {
    let m = super::Machine::new(&[(&GROK, &["--model", "gpt-4o"])], true);
    let dir = m.seats[0].dir.to_str().unwrap().to_owned();
    m.tmux.ok(&[
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "200",
        "-y",
        "50",
        "-c",
        &dir,
    ]);
    m.tmux.wait_screen("=work:0.0", "the bash prompt", |sc| {
        sc.contains(super::BASH_PROMPT)
    });
    let pane = "5f0c6a9e-3b7d-4c21-9e8a-2d4b6f8a1c03";
    m.tmux.type_line(
        "=work:0.0",
        &format!(
            "exec env -u TMUX -u TMUX_PANE AGENT_RESUME_PANE={pane} PS1='plain$ ' bash --norc"
        ),
    );
    m.tmux
        .wait_screen("=work:0.0", "the plain prompt", |sc| sc.contains("plain$"));
    m.tmux.type_line("=work:0.0", &m.seats[0].line());
    let rec = agent_resume_test_support::wait_for("the hook's recording", || {
        m.recordings()
            .into_iter()
            .find(|r| r["pane"].as_str() == Some(pane))
    });
    assert_eq!(rec["agent"], "grok", "{rec}");
    assert_eq!(super::flags_line(&rec), "--model gpt-4o", "{rec}");
}
