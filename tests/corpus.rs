//! The shared case corpus (`tests/cases/invocation.json`): every case runs
//! the whole text-to-line pipeline for every shell and must give exactly its
//! expected argv or refusal, and every line must split back into the marker
//! and that argv.

use std::collections::BTreeSet;

use agent_resume_core::{
    build_from_text, AgentKind, Catalog, Invocation, PostureWindow, Refusal, Shell, MARKER,
};
use agent_resume_test_support::shell::{corpus, Case, Expect};

fn run(case: &Case, shell: Shell) -> Result<Invocation, Refusal> {
    build_from_text(
        Catalog::embedded().agent(case.kind()),
        &case.session_id,
        &case.invocation,
        case.age_millis(),
        PostureWindow::DEFAULT,
        shell,
    )
}

/// Checks one case in one shell; `None` when it holds.
fn check(case: &Case, shell: Shell) -> Option<String> {
    let got = run(case, shell);
    let head = format!(
        "[{shell}] {}\n  invocation: {:?}\n  id: {:?}, age: {} s",
        case.label, case.invocation, case.session_id, case.age_secs
    );
    match (&case.expect, &got) {
        (Expect::Refused { refused }, Err(r)) if r.as_str() == refused => None,
        (
            Expect::Built {
                argv,
                posture_carried,
            },
            Ok(inv),
        ) if inv.argv == *argv && inv.posture_carried == *posture_carried => {
            let mut want = vec![MARKER.to_owned()];
            want.extend(argv.iter().cloned());
            match shell_words::split(&inv.line) {
                Ok(words) if words == want => None,
                split => Some(format!(
                    "{head}\n  line {:?} splits to {split:?}, want {want:?}",
                    inv.line
                )),
            }
        }
        (want, got) => Some(format!("{head}\n  want: {want:?}\n  got:  {got:?}")),
    }
}

#[test]
fn every_corpus_case_gives_exactly_its_expected_argv_or_refusal_in_every_shell() {
    let cases = corpus();
    let failures: Vec<String> = cases
        .iter()
        .flat_map(|case| Shell::VARIANTS.iter().filter_map(|s| check(case, *s)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} checks failed:\n{}",
        failures.len(),
        cases.len() * Shell::VARIANTS.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_is_large_and_its_labels_are_unique() {
    let cases = corpus();
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    let mut seen = BTreeSet::new();
    for case in &cases {
        assert!(seen.insert(&case.label), "duplicate label {:?}", case.label);
    }
}

#[test]
fn corpus_covers_every_agent_kind() {
    let covered: BTreeSet<AgentKind> = corpus().iter().map(Case::kind).collect();
    let missing: Vec<&str> = AgentKind::VARIANTS
        .iter()
        .filter(|k| !covered.contains(k))
        .map(|k| k.as_str())
        .collect();
    assert!(missing.is_empty(), "no corpus case for {missing:?}");
}

#[test]
fn corpus_covers_every_refusal_the_text_pipeline_can_give() {
    let names: BTreeSet<String> = corpus()
        .into_iter()
        .filter_map(|c| match c.expect {
            Expect::Refused { refused } => Some(refused),
            Expect::Built { .. } => None,
        })
        .collect();
    for r in Refusal::VARIANTS {
        // Every value that passes a shape is quotable, so no invocation text
        // can reach the quoter's refusal.
        if *r == Refusal::Unquotable {
            continue;
        }
        assert!(
            names.contains(r.as_str()),
            "no case refused as {:?}",
            r.as_str()
        );
    }
    let known: BTreeSet<&str> = Refusal::VARIANTS.iter().map(|r| r.as_str()).collect();
    for name in &names {
        assert!(
            known.contains(name.as_str()),
            "unknown refusal name {name:?}"
        );
    }
}

#[test]
fn corpus_covers_the_posture_window_edges() {
    let cases = corpus();
    let carried_at = |age: i64| {
        cases.iter().any(|c| {
            c.age_secs == age
                && matches!(
                    c.expect,
                    Expect::Built {
                        posture_carried: true,
                        ..
                    }
                )
        })
    };
    let window = PostureWindow::DEFAULT.millis() / 1000;
    assert!(carried_at(0), "no case carries posture at age 0");
    assert!(
        carried_at(window),
        "no case carries posture at exactly the window"
    );
    assert!(
        cases.iter().any(|c| c.age_secs == window + 1),
        "no case one second past the window"
    );
    assert!(cases.iter().any(|c| c.age_secs < 0), "no future-dated case");
}

// ---------------------------------------------------------------------------
// Shell tokenization at command boundaries. DESIGN.md: "Flag extraction
// tokenizes like a shell and stops at the first positional". A shell ends a
// command at a newline and at `;`, `&`, `&&`, `|`, `||` even when glued to
// the previous word; a flag after that boundary belongs to another command
// and was never passed to the agent.
// ---------------------------------------------------------------------------

const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

/// The message when the pipeline carries `flag` for `invocation` (a fresh
/// recording), though a shell ends the agent's command before that flag.
fn carried_past_the_command(invocation: &str, flag: &str) -> Option<String> {
    let inv = build_from_text(
        Catalog::embedded().agent(AgentKind::Claude),
        ID,
        invocation,
        60_000,
        PostureWindow::DEFAULT,
        Shell::Bash,
    )
    .ok()?;
    inv.argv
        .iter()
        .any(|w| w == flag)
        .then(|| format!("{invocation:?} carries {flag}: {:?}", inv.argv))
}

#[test]
fn a_newline_ends_the_command_so_a_flag_after_it_is_never_carried() {
    let failures: Vec<String> = [
        (
            "claude --model opus\n--dangerously-skip-permissions",
            "--dangerously-skip-permissions",
        ),
        (
            "claude\n--dangerously-skip-permissions",
            "--dangerously-skip-permissions",
        ),
        (
            "claude # note\n--permission-mode bypassPermissions",
            "--permission-mode",
        ),
    ]
    .into_iter()
    .filter_map(|(text, flag)| carried_past_the_command(text, flag))
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_command_separator_glued_to_a_flag_ends_the_command() {
    let failures: Vec<String> = [
        (
            "claude --verbose; --dangerously-skip-permissions",
            "--dangerously-skip-permissions",
        ),
        (
            "claude --verbose&& --dangerously-skip-permissions",
            "--dangerously-skip-permissions",
        ),
        (
            "claude --mystery& --dangerously-skip-permissions",
            "--dangerously-skip-permissions",
        ),
        (
            "claude -c|| --dangerously-skip-permissions",
            "--dangerously-skip-permissions",
        ),
        (
            "claude -c| --permission-mode bypassPermissions",
            "--permission-mode",
        ),
    ]
    .into_iter()
    .filter_map(|(text, flag)| carried_past_the_command(text, flag))
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// docs/agents.md: "qwen (Qwen Code 0.24.4) … A positional prompt is one-shot
// (headless) in 0.24." DESIGN.md: a headless run is not interactively
// resumable.
// ---------------------------------------------------------------------------

#[test]
fn a_qwen_positional_prompt_is_a_headless_run() {
    let qwen = Catalog::embedded().agent(AgentKind::Qwen);
    for text in ["qwen 'fix it'", "qwen -m qwen3-coder-plus 'fix it'"] {
        let got = build_from_text(qwen, ID, text, 0, PostureWindow::DEFAULT, Shell::Bash);
        assert_eq!(got, Err(Refusal::Headless), "{text:?}");
    }
}
