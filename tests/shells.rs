//! Differential tests against real shells: every line the builder or the
//! quoter produces is run by bash, zsh, fish and dash — non-interactive,
//! interactive with `-c`, and interactive reading the lines from stdin (where
//! bash and zsh expand history and zsh does not treat `#` as a comment) —
//! with the environment cleared, and the argv a fake agent receives must be
//! exactly the intended one, byte for byte.

use agent_resume_core::{
    build_from_text, quote, render_line, Catalog, PostureWindow, Shell, MARKER,
};
use agent_resume_test_support::shell::{
    assert_round_trips, corpus, hostile_words, run_batch, shells, FakeAgents, LineCase, Mode,
};

const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

#[test]
fn every_required_shell_is_installed() {
    let found: Vec<&str> = shells().iter().map(|s| s.name).collect();
    assert_eq!(found, ["bash", "zsh", "fish", "dash"]);
}

#[test]
fn hostile_words_marked_refused_are_refused_by_the_quoter_and_the_line_renderer() {
    let words = hostile_words();
    assert!(words.len() >= 70, "only {} hostile words", words.len());
    for w in &words {
        let argv = vec!["claude".to_owned(), "--model".to_owned(), w.value.clone()];
        let quoted = quote(&w.value);
        let lines: Vec<_> = Shell::VARIANTS
            .iter()
            .map(|s| render_line(*s, &argv))
            .collect();
        assert_eq!(
            w.accepted(),
            !refused_by_rule(&w.value),
            "{:?}: the file's expectation disagrees with the quoter's rule",
            w.label
        );
        if w.accepted() {
            assert!(
                quoted.is_ok(),
                "{:?}: quote refused {:?}: {quoted:?}",
                w.label,
                w.value
            );
            assert!(
                lines.iter().all(Result::is_ok),
                "{:?}: render_line refused",
                w.label
            );
        } else {
            assert!(
                quoted.is_err(),
                "{:?}: quote accepted {:?}",
                w.label,
                w.value
            );
            assert!(
                lines.iter().all(Result::is_err),
                "{:?}: render_line accepted",
                w.label
            );
        }
    }
}

#[test]
fn hostile_words_the_quoter_accepts_round_trip_in_every_shell() {
    let mut cases = Vec::new();
    for shell in Shell::VARIANTS {
        for w in hostile_words().into_iter().filter(|w| w.accepted()) {
            let args = vec![
                "--model".to_owned(),
                w.value.clone(),
                "--resume".to_owned(),
                ID.to_owned(),
                w.value.clone(),
            ];
            let argv: Vec<String> = std::iter::once("claude".to_owned())
                .chain(args.clone())
                .collect();
            let line = render_line(*shell, &argv).expect("the word is marked ok");
            cases.push(LineCase {
                label: format!("hostile word {:?} rendered for {shell}", w.label),
                line,
                program: "claude".to_owned(),
                args,
            });
        }
    }
    // Lines are one form for every shell today; run each distinct line once.
    unique_lines(&mut cases);
    assert_round_trips("hostile words", &FakeAgents::install(), &cases);
}

/// Keeps the first case of each distinct line (every shell runs every line).
fn unique_lines(cases: &mut Vec<LineCase>) {
    let mut seen = std::collections::HashSet::new();
    cases.retain(|c| seen.insert(c.line.clone()));
}

/// The corpus cases that build, as lines for `shell`. A line whose program
/// word is an absolute path has that path replaced by the fake's path,
/// re-rendered with the same quoter: the rest of the line is unchanged.
fn corpus_lines(shell: Shell, fakes: &FakeAgents) -> Vec<LineCase> {
    let mut out = Vec::new();
    for case in corpus() {
        let Ok(inv) = build_from_text(
            Catalog::embedded().agent(case.kind()),
            &case.session_id,
            &case.invocation,
            case.age_millis(),
            PostureWindow::DEFAULT,
            shell,
        ) else {
            continue;
        };
        let program = inv.argv[0].clone();
        let line = if program.starts_with('/') {
            assert_eq!(render_line(shell, &inv.argv).as_ref(), Ok(&inv.line));
            let mut argv = inv.argv.clone();
            argv[0] = fakes.path_of(&program).to_string_lossy().into_owned();
            render_line(shell, &argv).expect("the fake's temp path is quotable")
        } else {
            inv.line.clone()
        };
        out.push(LineCase {
            label: format!("corpus {:?} built for {shell}", case.label),
            line,
            program: program.rsplit('/').next().unwrap_or(&program).to_owned(),
            args: inv.argv[1..].to_vec(),
        });
    }
    out
}

#[test]
fn every_corpus_case_that_builds_round_trips_in_every_shell() {
    let fakes = FakeAgents::install();
    let mut cases = Vec::new();
    for shell in Shell::VARIANTS {
        cases.extend(corpus_lines(*shell, &fakes));
    }
    let per_shell = cases.len() / Shell::VARIANTS.len();
    assert!(per_shell >= 100, "only {per_shell} corpus cases build");
    unique_lines(&mut cases);
    assert_round_trips("corpus", &fakes, &cases);
}

#[test]
fn every_built_line_starts_with_a_space_and_carries_the_marker_once() {
    let mut built = 0;
    for shell in Shell::VARIANTS {
        for case in corpus() {
            let Ok(inv) = build_from_text(
                Catalog::embedded().agent(case.kind()),
                &case.session_id,
                &case.invocation,
                case.age_millis(),
                PostureWindow::DEFAULT,
                *shell,
            ) else {
                continue;
            };
            built += 1;
            let line = &inv.line;
            assert!(line.starts_with(' '), "{:?}: {line:?}", case.label);
            assert!(
                line[1..].starts_with(MARKER),
                "{:?}: the marker is not the first word: {line:?}",
                case.label
            );
            assert_eq!(
                line.matches(MARKER).count(),
                1,
                "{:?}: {line:?}",
                case.label
            );
        }
    }
    assert!(built >= 400, "only {built} lines built");
}

/// xorshift64: deterministic words without a dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Characters shells treat specially, repeated so they come up often.
const PUNCT: &str = "\\\\\\$$$   \"\"``!!##&&||;;<>(){}[]*?~^%=,.:/@+-_";

/// Non-ASCII: accents, bytes 0x81-0x83 inside UTF-8 (dash's and zsh's
/// internal markers), fish's reserved private-use and noncharacter ranges,
/// lookalikes, wide, astral, combining, separators.
const UNICODE: &[char] = &[
    'é',
    'ā',
    'Ł',
    'Ã',
    'ă',
    '€',
    '中',
    'ß',
    'ÿ',
    '＄',
    'ʼ',
    '’',
    '🙂',
    '\u{F600}',
    '\u{F6FF}',
    '\u{FDD0}',
    '\u{0301}',
    '\u{00A0}',
    '\u{2028}',
    '\u{3000}',
    '\u{10FFFF}',
    '\u{E0041}',
];

/// Characters the quoter refuses, rarely, so the refusal is exercised too.
const REFUSED: &[char] = &[
    '\'', '\n', '\t', '\r', '\0', '\x1b', '\u{85}', '\u{202E}', '\u{200B}',
];

include!("cases/invisible.rs");

/// The quoter's rule: a `'`, a control character (C0, DEL, C1) or an
/// invisible formatting character.
fn refused_by_rule(word: &str) -> bool {
    word.chars()
        .any(|c| c == '\'' || c.is_control() || is_invisible(c))
}

fn generated_word(rng: &mut XorShift) -> String {
    let len = rng.below(25);
    let punct: Vec<char> = PUNCT.chars().collect();
    (0..len)
        .map(|_| match rng.below(200) {
            0 => REFUSED[rng.below(REFUSED.len())],
            1..=60 => punct[rng.below(punct.len())],
            61..=90 => UNICODE[rng.below(UNICODE.len())],
            _ => char::from(b' ' + rng.below(95) as u8),
        })
        .collect()
}

#[test]
fn generated_words_the_quoter_accepts_round_trip_in_every_shell() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut accepted = Vec::new();
    let mut refused = 0;
    for _ in 0..560 {
        let w = generated_word(&mut rng);
        let must_refuse = refused_by_rule(&w);
        match quote(&w) {
            Ok(q) => {
                assert!(!must_refuse, "quote accepted {w:?} as {q:?}");
                assert_eq!(shell_words::split(&q).ok(), Some(vec![w.clone()]), "{q:?}");
                accepted.push(w);
            }
            Err(_) => {
                assert!(must_refuse, "quote refused {w:?}");
                refused += 1;
            }
        }
    }
    assert!(
        accepted.len() >= 400,
        "only {} accepted words",
        accepted.len()
    );
    assert!(refused > 0, "no generated word exercised the refusal");
    let cases: Vec<LineCase> = accepted
        .chunks(4)
        .enumerate()
        .map(|(i, words)| {
            let argv: Vec<String> = std::iter::once("claude".to_owned())
                .chain(words.iter().cloned())
                .collect();
            LineCase {
                label: format!("generated line {i}"),
                line: render_line(Shell::Bash, &argv).expect("accepted words"),
                program: "claude".to_owned(),
                args: words.to_vec(),
            }
        })
        .collect();
    for shell in Shell::VARIANTS {
        for case in &cases {
            let argv: Vec<String> = std::iter::once("claude".to_owned())
                .chain(case.args.iter().cloned())
                .collect();
            assert_eq!(render_line(*shell, &argv).as_ref(), Ok(&case.line));
        }
    }
    assert_round_trips("generated words", &FakeAgents::install(), &cases);
}

#[test]
fn a_resume_line_for_every_verified_agent_runs_that_agent() {
    let mut cases = Vec::new();
    for agent in Catalog::embedded().agents().iter().filter(|a| a.verified) {
        let id = if agent.id_shape.matches("ses_0b5cefde2ffeXhHuHeWoYLX8iP") {
            "ses_0b5cefde2ffeXhHuHeWoYLX8iP"
        } else if agent.id_shape.matches("1796444736065_1iqet") {
            "1796444736065_1iqet"
        } else {
            ID
        };
        let inv = build_from_text(
            agent,
            id,
            agent.command(),
            0,
            PostureWindow::DEFAULT,
            Shell::Bash,
        )
        .unwrap_or_else(|r| panic!("{}: {r:?}", agent.kind));
        cases.push(LineCase {
            label: format!("bare resume of {}", agent.kind),
            line: inv.line,
            program: agent.command().to_owned(),
            args: inv.argv[1..].to_vec(),
        });
    }
    let programs: Vec<&str> = cases.iter().map(|c| c.program.as_str()).collect();
    assert_eq!(
        programs,
        agent_resume_test_support::shell::AGENT_PROGRAMS,
        "a fake for every verified agent"
    );
    assert_round_trips("verified agents", &FakeAgents::install(), &cases);
}

#[test]
fn harness_reports_a_line_that_a_shell_parses_differently() {
    // The differential is only worth something if it can fail: POSIX
    // `'…'` around a backslash breaks in fish, an unquoted `!!` is expanded
    // by interactive bash and zsh, and interactive zsh passes `# x` as words.
    let fakes = FakeAgents::install();
    let case = |label: &str, line: &str, args: &[&str]| LineCase {
        label: label.to_owned(),
        line: line.to_owned(),
        program: "claude".to_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
    };
    let posix = case(
        "posix quoting",
        " AGENT_RESUME_LINE=1 'claude' 'a\\\\b'",
        &["a\\\\b"],
    );
    let bang = case(
        "bare history expansion",
        " AGENT_RESUME_LINE=1 'claude' x!!y",
        &["x!!y"],
    );
    let hash = case("bare comment", " AGENT_RESUME_LINE=1 'claude' x #y", &["x"]);
    for sh in shells() {
        let good =
            render_line(sh.shell, &["claude".to_owned(), "a\\\\b".to_owned()]).expect("quotable");
        let good = case("control", &good, &["a\\\\b"]);
        for mode in Mode::ALL {
            assert_eq!(
                run_batch(&sh, mode, &fakes, std::slice::from_ref(&good)),
                Vec::<String>::new(),
                "{} {mode}: a correctly quoted line failed",
                sh.name
            );
            let bad = match (sh.name, mode) {
                ("fish", _) => &posix,
                ("bash", Mode::InteractiveStdin) => &bang,
                ("zsh", Mode::InteractiveStdin) => &hash,
                _ => continue,
            };
            assert!(
                !run_batch(&sh, mode, &fakes, std::slice::from_ref(bad)).is_empty(),
                "{} {mode}: the harness did not see {:?} break",
                sh.name,
                bad.label
            );
        }
    }
}
