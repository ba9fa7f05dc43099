//! Posture by value: a flag whose *value* selects the permission posture
//! (copilot `--mode autopilot`, codex `-a never`) is posture for that value,
//! so the posture window drops it when stale exactly as it drops a posture
//! switch (`--autopilot`), while a value reviewed as plain (`--mode
//! interactive`) rides along at any age.

use agent_resume_core::catalog::{FlagDecl, PostureRule};
use agent_resume_core::invocation::replay_flags;
use agent_resume_core::posture::decide_age;
use agent_resume_core::{
    build_from_text, extract, rebuild, AgentDecl, AgentKind, Catalog, Extraction, Posture,
    PostureWindow, Shape, Shell,
};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;

const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const HOUR: i64 = 3600 * 1000;

fn agent(kind: AgentKind) -> &'static AgentDecl {
    Catalog::embedded().agent(kind)
}

fn copilot_argv(invocation: &str, age_millis: i64) -> Vec<String> {
    let inv = build_from_text(
        agent(AgentKind::Copilot),
        ID,
        invocation,
        age_millis,
        PostureWindow::DEFAULT,
        Shell::Bash,
    )
    .expect("builds");
    assert_eq!(
        inv.posture_carried,
        inv.argv.iter().any(|w| w == "--mode") && inv.argv.iter().any(|w| w == "autopilot"),
        "{inv:?}"
    );
    inv.argv
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn copilot_mode_autopilot_recorded_25_hours_ago_resumes_without_it_as_the_autopilot_switch_does() {
    let resume = format!("--resume={ID}");
    for text in [
        "copilot --mode autopilot",
        "copilot --mode=autopilot",
        "copilot --autopilot",
    ] {
        assert_eq!(
            copilot_argv(text, 25 * HOUR),
            words(&["copilot", &resume]),
            "{text}"
        );
    }
    // A plain mode is no posture: it rides along at any age.
    for mode in ["interactive", "plan"] {
        for text in [
            format!("copilot --mode {mode}"),
            format!("copilot --mode={mode}"),
        ] {
            assert_eq!(
                copilot_argv(&text, 25 * HOUR),
                words(&["copilot", "--mode", mode, &resume]),
                "{text}"
            );
        }
    }
}

#[test]
fn copilot_mode_recorded_an_hour_ago_resumes_with_it_whatever_the_mode() {
    let resume = format!("--resume={ID}");
    for mode in ["autopilot", "interactive", "plan"] {
        for text in [
            format!("copilot --mode {mode}"),
            format!("copilot --mode={mode}"),
        ] {
            assert_eq!(
                copilot_argv(&text, HOUR),
                words(&["copilot", "--mode", mode, &resume]),
                "{text}"
            );
        }
    }
}

#[test]
fn an_armed_mode_autopilot_taken_after_the_window_loses_it_and_a_plain_mode_keeps_it() {
    let copilot = agent(AgentKind::Copilot);
    let resume = format!("--resume={ID}");
    let armed = words(&[
        "copilot",
        "--model",
        "gpt-5",
        "--mode",
        "autopilot",
        &resume,
    ]);
    let late = rebuild(copilot, ID, &armed, Shell::Bash, Posture::Drop).expect("rebuilds");
    assert_eq!(late.argv, words(&["copilot", "--model", "gpt-5", &resume]));
    assert!(!late.posture_carried);
    let armed = words(&["copilot", "--mode", "plan", &resume]);
    let late = rebuild(copilot, ID, &armed, Shell::Bash, Posture::Drop).expect("rebuilds");
    assert_eq!(late.argv, armed);
    assert!(!late.posture_carried);
}

/// Replays `text`'s flags for `kind` at `age_millis` (the replay step every
/// resume runs; unverified agents included, as their flags are declared).
fn replayed(kind: AgentKind, text: &str, age_millis: i64) -> (Vec<String>, bool) {
    let a = agent(kind);
    let Ok(Extraction::Interactive { flags, .. }) = extract(a, text) else {
        panic!("{text:?} is not an interactive run");
    };
    replay_flags(a, &flags, decide_age(age_millis, PostureWindow::DEFAULT))
}

/// `(agent, invocation, the flag words it records, whether they are posture)`.
/// Every by-value flag of the catalog has a row for each of its plain values
/// and at least one for a posture value (checked below).
const TABLE: &[(AgentKind, &str, &[&str], bool)] = {
    use AgentKind::*;
    &[
        (
            Copilot,
            "copilot --mode autopilot",
            &["--mode", "autopilot"],
            true,
        ),
        (
            Copilot,
            "copilot --mode=autopilot",
            &["--mode", "autopilot"],
            true,
        ),
        (
            Copilot,
            "copilot --mode interactive",
            &["--mode", "interactive"],
            false,
        ),
        (Copilot, "copilot --mode=plan", &["--mode", "plan"], false),
        (Copilot, "copilot --autopilot", &["--autopilot"], true),
        (
            Codex,
            "codex -a never",
            &["--ask-for-approval", "never"],
            true,
        ),
        (
            Codex,
            "codex --ask-for-approval=on-request",
            &["--ask-for-approval", "on-request"],
            true,
        ),
        (
            Codex,
            "codex --sandbox danger-full-access",
            &["--sandbox", "danger-full-access"],
            true,
        ),
        (
            Codex,
            "codex -s read-only",
            &["--sandbox", "read-only"],
            true,
        ),
        (Codex, "codex --profile work", &["--profile", "work"], true),
        (Codex, "codex -p=work", &["--profile", "work"], true),
        (
            Gemini,
            "gemini --approval-mode yolo",
            &["--approval-mode", "yolo"],
            true,
        ),
        (
            Gemini,
            "gemini --approval-mode=default",
            &["--approval-mode", "default"],
            true,
        ),
        (
            Qwen,
            "qwen --approval-mode yolo",
            &["--approval-mode", "yolo"],
            true,
        ),
        (
            Qwen,
            "qwen --approval-mode=plan",
            &["--approval-mode", "plan"],
            true,
        ),
        (
            Claude,
            "claude --permission-mode bypassPermissions",
            &["--permission-mode", "bypassPermissions"],
            true,
        ),
        (
            Claude,
            "claude --agent reviewer",
            &["--agent", "reviewer"],
            true,
        ),
        (
            Opencode,
            "opencode --agent build",
            &["--agent", "build"],
            true,
        ),
        // Only `opencode run` takes it; the UI rejects it: never carried.
        (Opencode, "opencode --variant high", &[], false),
        (Kilo, "kilo --agent code", &["--agent", "code"], true),
        (Kilo, "kilo --variant high", &[], false),
        (
            Grok,
            "grok --permission-mode=dontAsk",
            &["--permission-mode", "dontAsk"],
            true,
        ),
        (
            Grok,
            "grok --sandbox strict",
            &["--sandbox", "strict"],
            true,
        ),
        (Droid, "droid --auto high", &["--auto", "high"], true),
        (
            Cursor,
            "cursor-agent --sandbox disabled",
            &["--sandbox", "disabled"],
            true,
        ),
        (Amp, "amp --mode low", &["--mode", "low"], false),
        (Amp, "amp -m medium", &["--mode", "medium"], false),
        (Amp, "amp --mode=high", &["--mode", "high"], false),
        (Amp, "amp --mode ultra", &["--mode", "ultra"], false),
        (Amp, "amp --mode yolo", &["--mode", "yolo"], true),
        // Output mode, never carried: nothing at any age.
        (Pi, "pi --mode json", &[], false),
        (Kimi, "kimi --yolo", &[], false),
        (
            Auggie,
            "auggie --persona reviewer",
            &["--persona", "reviewer"],
            true,
        ),
        // Cline 3.0.65 approves every tool unless told not to, and a resumed
        // session takes the flag, not what it ran with: `false` rides at
        // any age, `true` only while fresh.
        (
            Cline,
            "cline --auto-approve false",
            &["--auto-approve", "false"],
            false,
        ),
        (
            Cline,
            "cline --auto-approve=true",
            &["--auto-approve", "true"],
            true,
        ),
        // Vibe 3.0.2's built-in agents: only `ask` asks before every tool.
        (Vibe, "vibe --agent ask", &["--agent", "ask"], false),
        (
            Vibe,
            "vibe --agent accept-edits",
            &["--agent", "accept-edits"],
            true,
        ),
        (
            Vibe,
            "vibe --agent smart-approve",
            &["--agent", "smart-approve"],
            true,
        ),
        (
            Vibe,
            "vibe --agent=auto-approve",
            &["--agent", "auto-approve"],
            true,
        ),
        // A user's own `~/.vibe/agents/NAME.toml` may approve anything.
        (Vibe, "vibe --agent mine", &["--agent", "mine"], true),
        (
            Qoder,
            "qodercli --permission-mode bypass_permissions",
            &["--permission-mode", "bypass_permissions"],
            true,
        ),
        (
            Qoder,
            "qodercli --permission-mode default",
            &["--permission-mode", "default"],
            true,
        ),
    ]
};

#[test]
fn every_agents_mode_approval_and_sandbox_values_are_posture_exactly_as_tabled() {
    for (kind, text, recorded, posture) in TABLE {
        let fresh = replayed(*kind, text, HOUR);
        assert_eq!(
            fresh,
            (words(recorded), *posture && !recorded.is_empty()),
            "fresh {text}"
        );
        let stale = replayed(*kind, text, 25 * HOUR);
        let want = if *posture { vec![] } else { words(recorded) };
        assert_eq!(stale, (want, false), "25 h old {text}");
    }
}

#[test]
fn switches_that_narrow_the_posture_ride_at_any_age() {
    // Auggie's ask mode and Cline's plan mode allow fewer tools than a run
    // without them: dropping them from a stale recording would widen it.
    for (kind, text, flag) in [
        (AgentKind::Auggie, "auggie --ask --model m", "--ask"),
        (AgentKind::Auggie, "auggie -a", "--ask"),
        (AgentKind::Cline, "cline --plan --model m", "--plan"),
        (AgentKind::Cline, "cline -p", "--plan"),
    ] {
        for age in [HOUR, 25 * HOUR] {
            let (flags, posture) = replayed(kind, text, age);
            assert!(
                flags.contains(&flag.to_owned()),
                "{text} at {age}: {flags:?}"
            );
            assert!(!posture, "{text}");
        }
    }
}

/// The values `TABLE` records as plain for `kind`'s `flag`, when it tables
/// some value of that flag as posture.
fn tabled_plain(kind: AgentKind, flag: &str) -> Option<Vec<&'static str>> {
    let rows: Vec<_> = TABLE
        .iter()
        .filter(|(k, _, rec, _)| *k == kind && rec.first() == Some(&flag))
        .collect();
    rows.iter().any(|(.., posture)| *posture).then(|| {
        rows.iter()
            .filter(|(.., posture)| !posture)
            .map(|(_, _, rec, _)| rec[1])
            .collect()
    })
}

#[test]
fn the_table_covers_every_value_flag_that_can_be_posture_and_each_plain_value() {
    for a in Catalog::embedded().agents() {
        for f in a.flags.iter().filter(|f| f.carry && f.shape.is_some()) {
            if !f.may_be_posture() {
                continue;
            }
            let plain = tabled_plain(a.kind, &f.name)
                .unwrap_or_else(|| panic!("{} {}: no posture value tabled", a.kind, f.name));
            let declared: &[String] = match &f.posture {
                PostureRule::ExceptValues(v) => v,
                PostureRule::Never | PostureRule::Always => &[],
            };
            assert_eq!(plain, declared, "{} {}: plain values", a.kind, f.name);
        }
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/posture_by_value.txt",
        ))),
        ..ProptestConfig::with_cases(256)
    }
}

/// Every carried value flag `TABLE` tables as posture for some value, with
/// the values it tables as plain: the property's own oracle, independent
/// of how the catalog declares the flag.
fn posture_value_flags() -> Vec<(AgentKind, &'static FlagDecl, Vec<&'static str>)> {
    Catalog::embedded()
        .agents()
        .iter()
        .flat_map(|a| {
            a.flags
                .iter()
                .filter(|f| f.carry && f.shape.is_some())
                .filter_map(move |f| tabled_plain(a.kind, &f.name).map(|p| (a.kind, f, p)))
        })
        .collect()
}

/// A value its shape accepts, most often one the catalog or the table knows.
fn value_for(kind: AgentKind, f: &'static FlagDecl) -> BoxedStrategy<String> {
    let mut known: Vec<String> = match &f.shape {
        Some(Shape::Choice(c)) => c.clone(),
        _ => vec!["a".to_owned()],
    };
    known.extend(
        TABLE
            .iter()
            .filter(|(k, _, rec, _)| *k == kind && rec.first() == Some(&f.name.as_str()))
            .map(|(_, _, rec, _)| rec[1].to_owned()),
    );
    prop_oneof![
        3 => select(known),
        1 => "[A-Za-z0-9][A-Za-z0-9._-]{0,12}",
    ]
    .prop_filter("matches the shape", move |v| {
        f.shape.as_ref().is_some_and(|s| s.matches(v))
    })
    .boxed()
}

fn stale_age() -> impl Strategy<Value = i64> {
    prop_oneof![
        (PostureWindow::DEFAULT.millis() + 1)..=i64::MAX,
        i64::MIN..0,
        Just(25 * HOUR),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_value_outside_a_flags_plain_list_is_always_dropped_when_stale(
        ((kind, f, plain, value), age, joined, alias) in (
            select(posture_value_flags())
                .prop_flat_map(|(k, f, p)| (Just(k), Just(f), Just(p), value_for(k, f))),
            stale_age(),
            any::<bool>(),
            any::<bool>(),
        )
    ) {
        let a = agent(kind);
        let spelled = if alias { f.aliases.first().unwrap_or(&f.name) } else { &f.name };
        let text = if joined {
            format!("{} {spelled}={value}", a.command())
        } else {
            format!("{} {spelled} {value}", a.command())
        };
        let is_plain = plain.contains(&value.as_str());
        let (words, carried) = replayed(kind, &text, age);
        prop_assert!(!carried, "{text}");
        if is_plain {
            prop_assert_eq!(words, vec![f.name.clone(), value.clone()], "{}", text);
        } else {
            prop_assert!(words.is_empty(), "{text} at {age} ms kept {words:?}");
        }
        // Fresh, the same flag rides along, posture or not.
        let (fresh, fresh_carried) = replayed(kind, &text, HOUR);
        prop_assert_eq!(fresh, vec![f.name.clone(), value.clone()]);
        prop_assert_eq!(fresh_carried, !is_plain);
    }
}
