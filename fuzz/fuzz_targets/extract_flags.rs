//! Extraction records only carried flags, by canonical name, value in shape, once each, in
//! catalog order; a recorded program is an absolute path to an agent command; a prompt, `--` and
//! posture flags appended change nothing or make the run headless (never record more);
//! the text-to-line pipeline (fresh posture) replays exactly the recorded flags.
#![no_main]
use agent_resume_core::shape::is_program_path;
use agent_resume_core::{build_from_text, extract, Extraction::*, PostureWindow, Shell};
use agent_resume_fuzz::{extract_input, is_agent_program, resume_tail, sample_id, PROMPT_TAIL};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((agent, text)) = extract_input(data) else { return };
    let Ok(got) = extract(agent, &text) else { return };
    let tailed = extract(agent, &format!("{text}{PROMPT_TAIL}"));
    assert!(tailed == Ok(got.clone()) || tailed == Ok(Headless), "{text:?} gave {tailed:?}");
    let Interactive { flags, program } = got else { return };
    let mut last = None;
    for f in &flags {
        let i = agent.flags.iter().position(|d| *d.name == *f.name && d.carry);
        assert!(i > last, "{f:?}: carried, canonical, once, in catalog order");
        let shape = agent.flags[i.expect("i > last")].shape.as_ref();
        assert_eq!(shape.is_some(), f.value.is_some(), "{f:?}");
        assert!(shape.zip(f.value.as_deref()).is_none_or(|(s, v)| s.matches(v)), "{f:?}");
        last = i;
    }
    assert!(program.as_deref().is_none_or(|p| is_program_path(p) && is_agent_program(agent, p)));
    let Some(session_id) = sample_id(agent).filter(|_| agent.verified) else { return };
    let built = build_from_text(agent, session_id, &text, 0, PostureWindow::DEFAULT, Shell::Sh);
    let mut argv = vec![program.as_deref().unwrap_or(agent.command()).to_owned()];
    argv.extend(flags.iter().flat_map(|f| [Some(f.name.to_string()), f.value.as_deref().map(str::to_owned)]).flatten());
    assert_eq!(built.map(|inv| inv.argv), Ok([argv, resume_tail(agent, session_id)].concat()));
});
