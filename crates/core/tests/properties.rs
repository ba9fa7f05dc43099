//! Property tests that state the security claims of the builder, the
//! extractor and the quoter: a built line parses back to exactly its argv; no
//! byte of a rejected value reaches a line; nothing after the first
//! positional is recorded; posture rides along only inside the window; every
//! accepted word quotes to a string that splits back to it; extraction keeps
//! only carried flags whose values match their shapes.

use agent_resume_core::catalog::{AgentDecl, Arity};
use agent_resume_core::invocation::{program_word, resume_words};
use agent_resume_core::posture::decide_age;
use agent_resume_core::shape::{is_program_path, Segment};
use agent_resume_core::{
    build, build_from_text, extract, extract_words, quote, rebuild, render_line, AgentKind,
    BuildError, BuildRequest, Catalog, Extraction, Invocation, Posture, PostureWindow,
    RecordedFlag, Refusal, Shape, Shell, MARKER,
};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;

const CASES: u32 = 384;

fn config() -> ProptestConfig {
    ProptestConfig {
        // Relative to the package root, where cargo runs the test.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/properties.txt",
        ))),
        ..ProptestConfig::with_cases(CASES)
    }
}

/// A well-formed id for `kind`.
fn known_id(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::Opencode | AgentKind::Kilo => "ses_0b5cefde2ffeXhHuHeWoYLX8iP",
        AgentKind::Cline => "1796444736065_1iqet",
        _ => "f6066ebb-140e-4519-ab63-b9cde0b60b57",
    }
}

fn agent(kind: AgentKind) -> &'static AgentDecl {
    Catalog::embedded().agent(kind)
}

fn any_kind() -> impl Strategy<Value = AgentKind> {
    select(AgentKind::VARIANTS.to_vec())
}

fn verified_kind() -> impl Strategy<Value = AgentKind> {
    select(
        AgentKind::VARIANTS
            .iter()
            .copied()
            .filter(|k| agent(*k).verified)
            .collect::<Vec<_>>(),
    )
}

fn any_shell() -> impl Strategy<Value = Shell> {
    select(Shell::VARIANTS.to_vec())
}

/// A value matching `shape`.
fn shape_value(shape: &Shape) -> BoxedStrategy<String> {
    match shape {
        Shape::Choice(values) => select(values.clone()).boxed(),
        Shape::Segments(segments) => {
            let parts: Vec<BoxedStrategy<String>> = segments
                .iter()
                .map(|seg| match seg {
                    Segment::Literal(l) => Just(l.clone()).boxed(),
                    Segment::Run { set, min, max } => {
                        let chars: Vec<char> = (0u8..128)
                            .filter(|b| set.contains(*b))
                            .map(char::from)
                            .collect();
                        // Long runs are bounded so cases stay varied and fast.
                        let max = usize::from(*max).min(usize::from(*min) + 40);
                        prop::collection::vec(select(chars), usize::from(*min)..=max)
                            .prop_map(|cs| cs.into_iter().collect::<String>())
                            .boxed()
                    }
                })
                .collect();
            parts.prop_map(|ps| ps.concat()).boxed()
        }
    }
}

/// Characters that no shape admits and that never occur in a built line
/// (which is ASCII letters, digits, `._:/@+=,-`, `_`, `'` and spaces).
const POISON: &[char] = &[
    '$', ';', '*', '"', '\\', '|', '&', '<', '>', '(', ')', '!', '~', '#', '%', '^', '{', '}', '[',
    ']', '?', '`', '\n', '\t', '\r', '\0', '\x1b', '\x7f', 'é', '＄', '\u{202E}', '\u{200B}',
    '\u{85}', '🙂',
];

/// A value that fails every shape, in which every 3-byte window holds a byte
/// that cannot occur in a built line: a poison character at least every
/// third byte.
fn poisoned() -> impl Strategy<Value = String> {
    prop::collection::vec((select(POISON.to_vec()), "[ -~]{0,2}"), 1..8).prop_map(|chunks| {
        chunks
            .into_iter()
            .map(|(p, rest)| format!("{p}{rest}"))
            .collect()
    })
}

/// Arbitrary text, biased towards shell metacharacters and flag shapes.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,24}",
        "[-=a-z '\"\\\\$;*]{0,24}",
        poisoned(),
    ]
}

/// A session id: valid for the agent, a near miss, or hostile text.
fn session_id(kind: AgentKind) -> BoxedStrategy<String> {
    let valid = shape_value(&agent(kind).id_shape);
    prop_oneof![
        3 => valid.clone(),
        1 => (valid.clone(), any::<prop::sample::Index>(), select(POISON.to_vec())).prop_map(
            |(v, at, c)| {
                let mut v: Vec<char> = v.chars().collect();
                let i = at.index(v.len() + 1);
                v.insert(i, c);
                v.into_iter().collect()
            }
        ),
        1 => valid.prop_map(|v| v.to_uppercase()),
        1 => hostile_text(),
    ]
    .boxed()
}

/// Every spelling of every declared flag of the agent.
fn spellings(a: &AgentDecl) -> Vec<String> {
    a.flags
        .iter()
        .flat_map(|f| std::iter::once(f.name.clone()).chain(f.aliases.iter().cloned()))
        .collect()
}

/// A recorded flag as a hostile store could hold it: any declared spelling
/// or a made-up name, with no value, a value matching the declared shape, or
/// hostile text.
fn recorded_flag(kind: AgentKind) -> BoxedStrategy<RecordedFlag> {
    let a = agent(kind);
    let carried: Vec<(String, Option<Shape>)> = a
        .flags
        .iter()
        .filter(|f| f.carry)
        .map(|f| (f.name.clone(), f.shape.clone()))
        .collect();
    let good = select(carried).prop_flat_map(|(name, shape)| match shape {
        None => Just(RecordedFlag::switch(&name)).boxed(),
        Some(s) => shape_value(&s)
            .prop_map(move |v| RecordedFlag::value(&name, &v))
            .boxed(),
    });
    let names = prop_oneof![select(spellings(a)), "--[a-z-]{1,12}", hostile_text()];
    let wild = (names, prop::option::of(hostile_text())).prop_map(|(name, value)| RecordedFlag {
        name: name.into(),
        value: value.map(Into::into),
    });
    prop_oneof![2 => good, 1 => wild].boxed()
}

fn program() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        Just("/home/me/.local/bin/claude".to_owned()),
        Just("/opt/node-v20/bin/codex".to_owned()),
        Just("claude".to_owned()),
        "/[a-z_.]{1,8}/(claude|codex|gemini|pi|qwen)",
        hostile_text(),
    ])
}

fn request_parts() -> impl Strategy<
    Value = (
        AgentKind,
        String,
        Vec<RecordedFlag>,
        Option<String>,
        bool,
        Shell,
    ),
> {
    any_kind().prop_flat_map(|k| {
        (
            Just(k),
            session_id(k),
            prop::collection::vec(recorded_flag(k), 0..8),
            program(),
            any::<bool>(),
            any_shell(),
        )
    })
}

fn posture(carry: bool) -> Posture {
    if carry {
        Posture::Carry
    } else {
        Posture::Drop
    }
}

/// The line must split into the marker and exactly the argv.
fn assert_line_is_argv(inv: &Invocation) -> Result<(), TestCaseError> {
    let mut want = vec![MARKER.to_owned()];
    want.extend(inv.argv.iter().cloned());
    prop_assert_eq!(
        shell_words::split(&inv.line).ok(),
        Some(want),
        "{:?}",
        inv.line
    );
    prop_assert!(inv.line.starts_with(' '));
    prop_assert!(inv.line.is_ascii(), "{:?}", inv.line);
    Ok(())
}

/// A word of invocation text as the user could type it.
fn flag_words(kind: AgentKind) -> BoxedStrategy<Vec<String>> {
    let a = agent(kind);
    let values: Vec<BoxedStrategy<String>> = a
        .flags
        .iter()
        .filter_map(|f| f.shape.as_ref().map(shape_value))
        .collect();
    let value = prop_oneof![
        3 => select(values).prop_flat_map(|s| s),
        1 => hostile_text(),
    ];
    let spelled = select(spellings(a));
    prop_oneof![
        (spelled.clone(), value.clone()).prop_map(|(f, v)| vec![f, v]),
        (spelled.clone(), value).prop_map(|(f, v)| vec![format!("{f}={v}")]),
        spelled.prop_map(|f| vec![f]),
        "--[a-z-]{1,10}".prop_map(|f| vec![f]),
        Just(vec!["--".to_owned()]),
        hostile_text().prop_map(|w| vec![w]),
    ]
    .boxed()
}

fn join(words: &[String]) -> String {
    shell_words::join(words)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_built_line_is_absent_or_splits_into_the_marker_and_exactly_its_argv(
        (kind, id, flags, program, carry, shell) in request_parts()
    ) {
        let req = BuildRequest {
            agent: agent(kind),
            session_id: &id,
            flags: &flags,
            program: program.as_deref(),
            posture: posture(carry),
            shell,
        };
        match build(&req) {
            Ok(inv) => {
                prop_assert!(agent(kind).verified);
                prop_assert!(agent(kind).id_shape.matches(&id));
                assert_line_is_argv(&inv)?;
            }
            Err(BuildError::AgentNotVerified) => prop_assert!(!agent(kind).verified),
            Err(BuildError::InvalidSessionId) => prop_assert!(!agent(kind).id_shape.matches(&id)),
            Err(e) => prop_assert!(false, "a shape-checked request was refused: {e:?}"),
        }
    }

    #[test]
    fn the_text_pipeline_line_is_absent_or_splits_into_the_marker_and_exactly_its_argv(
        (kind, id, words, age, shell) in any_kind().prop_flat_map(|k| (
            Just(k),
            session_id(k),
            prop::collection::vec(flag_words(k), 0..8),
            any::<i64>(),
            any_shell(),
        ))
    ) {
        let mut all = vec![agent(kind).command().to_owned()];
        all.extend(words.into_iter().flatten());
        for text in [join(&all), all.join(" ")] {
            match build_from_text(agent(kind), &id, &text, age, PostureWindow::DEFAULT, shell) {
                Ok(inv) => assert_line_is_argv(&inv)?,
                // Every value that passes a shape is quotable.
                Err(r) => prop_assert_ne!(r, Refusal::Unquotable, "{:?}", text),
            }
        }
    }

    #[test]
    fn no_three_byte_window_of_a_rejected_value_reaches_the_line(
        (kind, id, good, bad, shell) in verified_kind().prop_flat_map(|k| {
            let a = agent(k);
            let mut names = spellings(a);
            names.push("--unknown".to_owned());
            (
                Just(k),
                shape_value(&a.id_shape),
                prop::collection::vec(recorded_flag(k), 0..6)
                    .prop_map(|fs| fs.into_iter().filter(|f| {
                        f.value.as_deref().is_none_or(|v| v.is_ascii())
                            && f.name.is_ascii()
                    }).collect::<Vec<_>>()),
                prop::collection::vec((select(names), poisoned()), 1..4),
                any_shell(),
            )
        })
    ) {
        let a = agent(kind);
        let bad_flags: Vec<RecordedFlag> =
            bad.iter().map(|(n, v)| RecordedFlag::value(n, v)).collect();
        let mut flags = good.clone();
        flags.extend(bad_flags.iter().cloned());
        // Recorded values (a hostile store).
        let req = |id: &str, flags: &[RecordedFlag]| build(&BuildRequest {
            agent: a,
            session_id: id,
            flags,
            program: None,
            posture: Posture::Carry,
            shell,
        });
        let inv = req(&id, &flags).expect("verified agent, valid id");
        for (_, v) in &bad {
            let w = v.len().min(3);
            for window in v.as_bytes().windows(w) {
                prop_assert!(
                    !inv.line.as_bytes().windows(w).any(|x| x == window),
                    "{:?} of {:?} reached {:?}", window, v, inv.line
                );
            }
        }
        // A rejected id yields no line at all.
        for (_, v) in &bad {
            prop_assert_eq!(req(v, &flags), Err(BuildError::InvalidSessionId));
        }
        // The same through the text pipeline, the values typed by the user.
        let mut words = vec![a.command().to_owned()];
        for f in &flags {
            words.push(f.name.to_string());
            words.extend(f.value.as_deref().map(str::to_owned));
        }
        if let Ok(inv) = build_from_text(a, &id, &join(&words), 0, PostureWindow::DEFAULT, shell) {
            for (_, v) in &bad {
                let w = v.len().min(3);
                for window in v.as_bytes().windows(w) {
                    prop_assert!(!inv.line.as_bytes().windows(w).any(|x| x == window));
                }
            }
        }
    }

    #[test]
    fn a_flag_whose_value_fails_its_shape_is_dropped_whole_as_if_never_recorded(
        (kind, others, name, value, shell) in verified_kind().prop_flat_map(|k| {
            let a = agent(k);
            let valued: Vec<String> = a
                .flags
                .iter()
                .filter(|f| f.carry && f.arity == Arity::Value)
                .map(|f| f.name.clone())
                .collect();
            (
                Just(k),
                prop::collection::vec(recorded_flag(k), 0..6),
                select(valued),
                hostile_text(),
                any_shell(),
            )
        })
    ) {
        let a = agent(kind);
        let shape = a.flag(&name).and_then(|f| f.shape.as_ref()).expect("carried value flag");
        prop_assume!(!shape.matches(&value));
        let others: Vec<RecordedFlag> = others.into_iter().filter(|f| *f.name != *name).collect();
        let mut with_bad = others.clone();
        with_bad.push(RecordedFlag::value(&name, &value));
        let id = known_id(kind);
        let req = |flags: &[RecordedFlag]| build(&BuildRequest {
            agent: a,
            session_id: id,
            flags,
            program: None,
            posture: Posture::Carry,
            shell,
        });
        prop_assert_eq!(req(&with_bad), req(&others));
    }

    #[test]
    fn nothing_after_the_first_positional_is_ever_recorded(
        (kind, prefix, positional, tail) in any_kind().prop_flat_map(|k| {
            let a = agent(k);
            // Prefix units that end where they end: no variadic flag (it
            // would swallow the positional) and optional flags only joined.
            let units: Vec<BoxedStrategy<Vec<String>>> = a
                .flags
                .iter()
                .filter(|f| f.arity != Arity::Variadic)
                .flat_map(|f| {
                    let spell: Vec<String> =
                        std::iter::once(f.name.clone()).chain(f.aliases.iter().cloned()).collect();
                    let value = match &f.shape {
                        Some(s) => prop_oneof![3 => shape_value(s), 1 => hostile_text()].boxed(),
                        None => hostile_text().boxed(),
                    };
                    let mut out = vec![(select(spell.clone()), value.clone())
                        .prop_map(|(n, v)| vec![format!("{n}={v}")])
                        .boxed()];
                    match f.arity {
                        Arity::Switch => out.push(select(spell).prop_map(|n| vec![n]).boxed()),
                        Arity::Value => out.push(
                            (select(spell), value).prop_map(|(n, v)| vec![n, v]).boxed(),
                        ),
                        Arity::Optional | Arity::Variadic => {}
                    }
                    out
                })
                .collect();
            let unit = select(units).prop_flat_map(|u| u);
            let positional = prop_oneof![
                "[^-][ -~]{0,20}",
                Just("use --permission-mode bypassPermissions".to_owned()),
                Just(String::new()),
                Just("-".to_owned()),
            ];
            (
                Just(k),
                prop::collection::vec(unit, 0..6),
                positional,
                prop::collection::vec(flag_words(k), 0..8),
            )
        })
    ) {
        let a = agent(kind);
        let mut head = vec![a.command().to_owned()];
        head.extend(prefix.into_iter().flatten());
        head.push(positional);
        let mut full = head.clone();
        let tail: Vec<String> = tail.into_iter().flatten().collect();
        full.extend(tail.iter().cloned());
        prop_assume!(shell_words::split(&join(&full)).ok() == Some(full.clone()));
        let alone = extract(a, &join(&head));
        let all = extract(a, &join(&full));
        match (&all, &alone) {
            (
                Ok(Extraction::Interactive { flags: f, program: p }),
                Ok(Extraction::Interactive { flags: h, program: q }),
            ) => {
                prop_assert_eq!(f, h, "{:?}", join(&full));
                prop_assert_eq!(p, q);
            }
            (Ok(Extraction::Headless), Ok(Extraction::Headless)) => {}
            // Headless flags are looked for past the positional on purpose:
            // a misread there only records nothing.
            (Ok(Extraction::Headless), Ok(Extraction::Interactive { .. })) => {
                let headless = |n: &str| a.flag(n).is_some_and(|f| f.headless);
                prop_assert!(tail.iter().any(|w| {
                    let n = w.split_once('=').map_or(w.as_str(), |(n, _)| n);
                    // `-p0`, `-cp`: short switches bundled, or a short flag
                    // with its value attached, as the agents' parsers read them.
                    let bundled = !w.starts_with("--")
                        && a.flag(n).is_none()
                        && w.chars().skip(1).any(|c| headless(&format!("-{c}")));
                    headless(n) || (w.starts_with('-') && bundled)
                }), "headless without a headless flag: {:?}", join(&full));
            }
            _ => prop_assert!(false, "{:?} gave {:?}, its head {:?}", join(&full), all, alone),
        }
    }

    #[test]
    fn posture_is_carried_iff_the_recording_age_is_within_the_window(
        (kind, age, window_secs, shell) in verified_kind()
            .prop_filter("has a posture flag", |k| agent(*k).flags.iter().any(|f| f.may_be_posture()))
            .prop_flat_map(|k| (
                Just(k),
                prop_oneof![
                    any::<i64>(),
                    -2_000i64..2_000,
                    (0i64..=86_400_000).prop_map(|a| a - 1),
                    select(vec![i64::MIN, i64::MAX, 43_200_000, 43_200_001, -1, 0]),
                ],
                prop_oneof![Just(43_200i64), 0i64..200_000, any::<i64>()],
                any_shell(),
            ))
    ) {
        let a = agent(kind);
        let window = PostureWindow::from_secs(window_secs);
        let fresh = (0..=window.millis()).contains(&age);
        prop_assert_eq!(decide_age(age, window) == Posture::Carry, fresh);
        // Every posture flag with a posture value its shape accepts, typed by
        // the user.
        let mut words = vec![a.command().to_owned()];
        for f in a.flags.iter().filter(|f| f.carry && f.may_be_posture()) {
            words.push(f.name.clone());
            match &f.shape {
                Some(Shape::Choice(v)) => words.extend(v.iter().find(|c| f.is_posture(Some(c))).cloned()),
                Some(_) => words.push("a".to_owned()),
                None => {}
            }
        }
        let inv = build_from_text(a, known_id(kind), &join(&words), age, window, shell).expect("builds");
        prop_assert_eq!(inv.posture_carried, fresh);
        let Ok(Extraction::Interactive { flags, .. }) = extract_words(a, &inv.argv) else {
            return Err(TestCaseError::fail(format!("{:?} does not read back", inv.argv)));
        };
        let any_posture_word = flags.iter().any(|f| f.is_posture(a));
        prop_assert_eq!(any_posture_word, fresh, "{:?}", inv.argv);
    }

    #[test]
    fn every_word_the_quoter_accepts_splits_back_to_itself(
        words in prop::collection::vec(
            prop_oneof![any::<String>(), hostile_text(), "[\\\\' $\"a-]{0,12}"],
            1..5,
        ),
        shell in any_shell(),
    ) {
        for w in &words {
            let refused = w.chars().any(|c| c == '\'' || c.is_control() || is_invisible(c));
            match quote(w) {
                Ok(q) => {
                    prop_assert!(!refused, "accepted {:?}", w);
                    prop_assert_eq!(shell_words::split(&q).ok(), Some(vec![w.clone()]), "{:?}", q);
                }
                Err(_) => prop_assert!(refused, "refused {:?}", w),
            }
        }
        if let Ok(line) = render_line(shell, &words) {
            let mut want = vec![MARKER.to_owned()];
            want.extend(words.iter().cloned());
            prop_assert_eq!(shell_words::split(&line).ok(), Some(want));
        } else {
            prop_assert!(words.iter().any(|w| quote(w).is_err()));
        }
    }

    #[test]
    fn extraction_never_records_a_value_that_fails_its_shape_nor_a_flag_that_is_not_carried(
        (kind, env, words) in any_kind().prop_flat_map(|k| (
            Just(k),
            prop::collection::vec("[A-Z]{1,4}=[ -~]{0,6}", 0..2),
            prop::collection::vec(flag_words(k), 0..10),
        ))
    ) {
        let a = agent(kind);
        let mut all = env;
        all.push(a.command().to_owned());
        all.extend(words.into_iter().flatten());
        for text in [join(&all), all.join(" ")] {
            let Ok(Extraction::Interactive { flags, program }) = extract(a, &text) else {
                continue;
            };
            let mut seen = Vec::new();
            for f in &flags {
                let decl = a.flag(&f.name).expect("a declared flag");
                prop_assert_eq!(decl.name.as_str(), &*f.name, "recorded under an alias");
                prop_assert!(decl.carry, "{} is not carried", f.name);
                prop_assert!(!decl.headless);
                match (&decl.shape, &f.value) {
                    (None, None) => prop_assert_eq!(decl.arity, Arity::Switch),
                    (Some(s), Some(v)) => prop_assert!(s.matches(v), "{:?} recorded", v),
                    other => prop_assert!(false, "{:?}", other),
                }
                prop_assert!(!seen.contains(&f.name), "{} twice", f.name);
                seen.push(f.name.clone());
            }
            // Catalog order.
            let order: Vec<usize> = flags
                .iter()
                .map(|f| a.flags.iter().position(|d| *d.name == *f.name).unwrap_or(usize::MAX))
                .collect();
            prop_assert!(order.windows(2).all(|w| w[0] < w[1]));
            if let Some(p) = program {
                prop_assert!(is_program_path(&p));
                prop_assert!(a.commands.iter().any(|c| p.rsplit('/').next() == Some(c.as_str())));
            }
        }
    }

    #[test]
    fn the_builder_adds_no_flag_of_its_own(
        (kind, id, flags, program, carry, shell) in request_parts()
    ) {
        let a = agent(kind);
        let req = BuildRequest {
            agent: a,
            session_id: &id,
            flags: &flags,
            program: program.as_deref(),
            posture: posture(carry),
            shell,
        };
        let Ok(inv) = build(&req) else { return Ok(()) };
        let tail = resume_words(&a.resume, &id);
        prop_assert!(inv.argv.len() > tail.len());
        prop_assert_eq!(&inv.argv[0], program_word(a, program.as_deref()));
        prop_assert_eq!(&inv.argv[inv.argv.len() - tail.len()..], &tail[..]);
        let middle = &inv.argv[1..inv.argv.len() - tail.len()];
        let mut i = 0;
        let mut carried_posture = false;
        while i < middle.len() {
            let decl = a.flag(&middle[i]).expect("a declared flag");
            prop_assert_eq!(&decl.name, &middle[i]);
            prop_assert!(decl.carry);
            let value = match decl.arity {
                Arity::Value => {
                    i += 1;
                    Some(middle[i].clone())
                }
                _ => None,
            };
            let is_posture = decl.is_posture(value.as_deref());
            prop_assert!(carry || !is_posture, "posture {} {:?} carried while dropping", decl.name, value);
            carried_posture |= is_posture;
            // It is the last recording of that flag, verbatim.
            let last = flags.iter().rev().find(|f| *f.name == *decl.name);
            prop_assert_eq!(last.map(|f| f.value.as_deref()), Some(value.as_deref()));
            i += 1;
        }
        prop_assert_eq!(inv.posture_carried, carried_posture);
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_built_argv_rebuilds_to_itself_and_a_poisoned_word_added_to_it_is_refused(
        ((kind, id, flags, program, carry, shell), at, poison, other_shell) in (
            request_parts(),
            any::<prop::sample::Index>(),
            poisoned(),
            any_shell(),
        )
    ) {
        let a = agent(kind);
        let req = BuildRequest {
            agent: a,
            session_id: &id,
            flags: &flags,
            program: program.as_deref(),
            posture: posture(carry),
            shell,
        };
        let Ok(inv) = build(&req) else { return Ok(()) };
        let again = rebuild(a, &id, &inv.argv, other_shell, Posture::Carry).expect("a built argv rebuilds");
        prop_assert_eq!(&again.argv, &inv.argv);
        prop_assert_eq!(again.posture_carried, inv.posture_carried);
        assert_line_is_argv(&again)?;
        let mut tampered = inv.argv.clone();
        tampered.insert(at.index(tampered.len() + 1), poison);
        prop_assert!(rebuild(a, &id, &tampered, other_shell, Posture::Carry).is_err(), "{:?}", tampered);
    }
}

include!("../../../tests/cases/invisible.rs");
