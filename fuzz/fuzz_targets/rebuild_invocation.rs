//! An armed argv is taken back only as the builder makes it: whatever `build` returns rebuilds
//! to itself, and a stored argv `rebuild` accepts comes back unchanged, from a verified agent and
//! a well-shaped id, re-quoted so it splits into the marker and that argv, with only carried flag
//! names and safe values between the program word and the resume operand; taken past the posture
//! window it keeps those words less every flag whose value is posture.
#![no_main]
use agent_resume_core::{build, rebuild, shell::check_word, Posture, MARKER};
use agent_resume_fuzz::{build_input, has_posture_flag, is_agent_program, is_safe_value, resume_tail};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(i) = build_input(data) else { return };
    let (agent, id, shell, tail) =
        (i.agent, i.session_id.as_str(), i.shell, resume_tail(i.agent, &i.session_id));
    if let Ok(inv) = build(&i.request()) {
        assert_eq!(rebuild(agent, id, &inv.argv, shell, Posture::Carry), Ok(inv));
    }
    // The same fields read as a stored argv: program, flag words, the resume operand.
    let mut argv = vec![i.program.clone().unwrap_or_default()];
    argv.extend(i.flags.iter().flat_map(|f| [Some(f.name.to_string()), f.value.as_deref().map(str::to_owned)]).flatten());
    argv.extend(tail.iter().cloned());
    // Taken after the window: the same argv less every posture flag, never anything new.
    if let Ok(late) = rebuild(agent, id, &argv, shell, Posture::Drop) {
        assert!(late.argv.iter().all(|w| argv.contains(w)), "{argv:?}");
        assert!(!has_posture_flag(agent, &late.argv), "{:?}", late.argv);
    }
    let Ok(inv) = rebuild(agent, id, &argv, shell, Posture::Carry) else { return };
    assert_eq!(inv.argv, argv);
    assert!(agent.verified && agent.id_shape.matches(id) && is_agent_program(agent, &argv[0]), "{argv:?}");
    assert_eq!(shell_words::split(&inv.line).ok(), Some([vec![MARKER.to_owned()], argv.clone()].concat()));
    assert!(argv.iter().all(|w| !w.is_empty() && check_word(w).is_ok()), "{argv:?}");
    let body = &argv[1..argv.len() - tail.len()];
    assert!(body.iter().all(|w| is_safe_value(w) || agent.flags.iter().any(|d| d.carry && d.name == *w)));
});
