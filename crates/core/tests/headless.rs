//! Headless resume for supervisors: the declared headless argv of every
//! verified agent, refusal for the rest, and the session id read back from a
//! headless run's JSON output.
#![allow(clippy::unwrap_used)]

use agent_resume_core::catalog::EMBEDDED;
use agent_resume_core::hook::{headless_output, PayloadError};
use agent_resume_core::{AgentKind, BuildError, Catalog, Invocation, Refusal};

const U4: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const U7: &str = "01a22abf-a931-72c2-b857-4949dadb1b99";
const OC: &str = "ses_0b5cefde2ffeXhHuHeWoYLX8iP";

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| (*s).to_owned()).collect()
}

fn headless(kind: AgentKind, id: &str, prompt: &[&str]) -> Result<Vec<String>, BuildError> {
    Invocation::headless(Catalog::embedded().agent(kind), id, &words(prompt))
}

#[test]
fn headless_argv_of_every_verified_agent_follows_its_declared_shape() {
    let p = ["fix", "the --bug"];
    let cases: [(AgentKind, &str, &[&str]); 10] = [
        (
            AgentKind::Claude,
            U4,
            &["claude", "-p", "--resume", U4, "--", "fix the --bug"],
        ),
        (
            AgentKind::Codex,
            U7,
            &["codex", "exec", "resume", U7, "fix the --bug"],
        ),
        (
            AgentKind::Gemini,
            U4,
            &["gemini", "--resume", U4, "--prompt=fix the --bug"],
        ),
        (
            AgentKind::Opencode,
            OC,
            &["opencode", "run", "--session", OC, "fix the --bug"],
        ),
        (
            AgentKind::Grok,
            U7,
            &["grok", "--resume", U7, "--single=fix the --bug"],
        ),
        (
            AgentKind::Qwen,
            U4,
            &["qwen", "--resume", U4, "fix the --bug"],
        ),
        (
            AgentKind::Copilot,
            U4,
            &[
                "copilot",
                &format!("--resume={U4}"),
                "--prompt=fix the --bug",
            ],
        ),
        (
            AgentKind::Pi,
            U7,
            &["pi", "-p", "--session", U7, "fix the --bug"],
        ),
        (
            AgentKind::Kilo,
            OC,
            &["kilo", "run", "--session", OC, "fix the --bug"],
        ),
        (
            AgentKind::Auggie,
            U4,
            &["auggie", "--print", "--resume", U4, "fix the --bug"],
        ),
    ];
    for (kind, id, want) in cases {
        assert_eq!(headless(kind, id, &p), Ok(words(want)), "{kind}");
    }
    // Droid 0.225.2's `exec --session-id <id>` asks Factory's server and
    // fails offline for every id: its headless form is not verified.
    assert_eq!(
        headless(AgentKind::Droid, U4, &p),
        Err(BuildError::HeadlessNotVerified)
    );
    // Cline 3.0.65's `--id` resumes in its UI only.
    assert_eq!(
        headless(AgentKind::Cline, "1796444736065_1iqet", &p),
        Err(BuildError::HeadlessNotVerified)
    );
    let verified: Vec<AgentKind> = Catalog::embedded()
        .agents()
        .iter()
        .filter(|a| a.verified && a.headless.as_ref().is_some_and(|h| h.verified))
        .map(|a| a.kind)
        .collect();
    assert_eq!(
        verified.len(),
        cases.len(),
        "every verified headless form is pinned"
    );
}

#[test]
fn agents_without_a_verified_headless_shape_are_refused_never_run_cold() {
    for a in Catalog::embedded().agents().iter().filter(|a| !a.verified) {
        let id = match a.kind {
            AgentKind::Amp => format!("T-{U4}"),
            AgentKind::Kimi => format!("session_{U4}"),
            _ => U4.to_owned(),
        };
        assert!(a.id_shape.matches(&id), "{}", a.kind);
        assert_eq!(
            Invocation::headless(a, &id, &words(&["hi"])),
            Err(BuildError::AgentNotVerified),
            "{}",
            a.kind
        );
    }
    // A verified agent whose headless shape is not verified is refused too.
    let text = EMBEDDED.replacen(
        "headless = { verified = true, prefix = [\"-p\"], resume = { flag = \"--resume\" }, prompt = \"separator\" }",
        "headless = { verified = false, prefix = [\"-p\"], resume = { flag = \"--resume\" }, prompt = \"separator\" }",
        1,
    );
    assert_ne!(text, EMBEDDED, "fixture text is in the catalog");
    let catalog = Catalog::load(&text).unwrap();
    let claude = catalog.agent(AgentKind::Claude);
    assert_eq!(
        Invocation::headless(claude, U4, &words(&["hi"])),
        Err(BuildError::HeadlessNotVerified)
    );
    assert_eq!(
        Refusal::from(BuildError::HeadlessNotVerified),
        Refusal::AgentNotVerified
    );
}

#[test]
fn headless_id_failing_its_shape_yields_no_argv() {
    for id in [
        "",
        "$(reboot)",
        "F6066EBB-140E-4519-AB63-B9CDE0B60B57",
        "--help",
    ] {
        assert_eq!(
            headless(AgentKind::Claude, id, &["hi"]),
            Err(BuildError::InvalidSessionId),
            "{id:?}"
        );
    }
}

#[test]
fn positional_prompt_starting_with_a_dash_is_refused_but_fine_after_a_separator() {
    assert_eq!(
        headless(AgentKind::Codex, U7, &["-", "read stdin"]),
        Err(BuildError::PromptLooksLikeFlag)
    );
    assert_eq!(
        headless(AgentKind::Qwen, U4, &["--yolo"]),
        Err(BuildError::PromptLooksLikeFlag)
    );
    assert_eq!(
        headless(AgentKind::Claude, U4, &["--dangerously-skip-permissions"]),
        Ok(words(&[
            "claude",
            "-p",
            "--resume",
            U4,
            "--",
            "--dangerously-skip-permissions"
        ]))
    );
    // A flag prompt is joined to its flag: it cannot become a flag either.
    assert_eq!(
        headless(AgentKind::Gemini, U4, &["--yolo"]),
        Ok(words(&["gemini", "--resume", U4, "--prompt=--yolo"]))
    );
}

#[test]
fn prompt_with_control_characters_other_than_newline_and_tab_is_refused() {
    assert_eq!(
        headless(AgentKind::Claude, U4, &["line one\nline\ttwo"]),
        Ok(words(&[
            "claude",
            "-p",
            "--resume",
            U4,
            "--",
            "line one\nline\ttwo"
        ]))
    );
    for bad in ["a\x1b[2Jb", "a\rb", "a\0b", "a\u{7f}b", "a\u{85}b"] {
        assert_eq!(
            headless(AgentKind::Claude, U4, &[bad]),
            Err(BuildError::PromptControl),
            "{bad:?}"
        );
    }
    assert_eq!(
        headless(AgentKind::Claude, U4, &[]),
        Err(BuildError::EmptyPrompt)
    );
}

#[test]
fn session_id_is_read_back_from_each_verified_agents_headless_output() {
    let cases: [(AgentKind, String, &str); 9] = [
        (
            AgentKind::Claude,
            format!(r#"{{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"{U4}"}}"#),
            U4,
        ),
        (
            AgentKind::Codex,
            format!("{{\"type\":\"thread.started\",\"thread_id\":\"{U7}\"}}\n{{\"type\":\"turn.started\"}}\n"),
            U7,
        ),
        (
            AgentKind::Gemini,
            format!("{{\n  \"session_id\": \"{U4}\",\n  \"response\": \"ok\",\n  \"stats\": {{}}\n}}\n"),
            U4,
        ),
        (
            AgentKind::Opencode,
            format!("{{\"type\":\"step_start\",\"timestamp\":1766204176981,\"sessionID\":\"{OC}\",\"part\":{{}}}}\n"),
            OC,
        ),
        (
            AgentKind::Droid,
            format!(r#"{{"type":"result","session_id":"{U4}","result":"ok"}}"#),
            U4,
        ),
        (
            AgentKind::Grok,
            format!(r#"{{"sessionId":"{U7}","response":"ok"}}"#),
            U7,
        ),
        (
            AgentKind::Qwen,
            format!(r#"{{"type":"result","session_id":"{U4}"}}"#),
            U4,
        ),
        (
            AgentKind::Copilot,
            format!("progress text\n{{\"type\":\"session.start\",\"sessionId\":\"{U4}\"}}\n"),
            U4,
        ),
        (
            AgentKind::Pi,
            format!("{{\"type\":\"session\",\"version\":3,\"id\":\"{U7}\",\"timestamp\":\"t\",\"cwd\":\"/p\"}}\n{{\"type\":\"message\"}}\n"),
            U7,
        ),
    ];
    for (kind, output, want) in &cases {
        assert_eq!(
            headless_output(*kind, output.as_bytes()).as_deref(),
            Ok(*want),
            "{kind}"
        );
    }
}

#[test]
fn headless_output_with_a_bad_id_or_none_is_refused() {
    let bad = br#"{"type":"result","session_id":"$(reboot)"}"#;
    assert_eq!(
        headless_output(AgentKind::Claude, bad),
        Err(PayloadError::InvalidSessionId)
    );
    // A bad id is not skipped in favour of a later good one.
    let two = format!(
        "{}\n{{\"type\":\"result\",\"session_id\":\"{U4}\"}}",
        "{\"type\":\"result\",\"session_id\":\"nope\"}"
    );
    assert_eq!(
        headless_output(AgentKind::Claude, two.as_bytes()),
        Err(PayloadError::InvalidSessionId)
    );
    assert!(headless_output(AgentKind::Claude, b"").is_err());
    assert!(headless_output(AgentKind::Claude, b"plain text\nmore\n").is_err());
    assert!(headless_output(AgentKind::Codex, b"{\"type\":\"turn.started\"}\n").is_err());
}
