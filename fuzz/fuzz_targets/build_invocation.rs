//! No line for an unverified agent or an id off its shape; else the line splits into marker + argv,
//! every word passes the quoter, and argv is the program, then carried flags in catalog order (each
//! the last recorded of its name, value safe, posture only when carried), then the resume operand.
#![no_main]
use agent_resume_core::{build, shell::check_word, BuildError::*, Posture, MARKER};
use agent_resume_fuzz::{build_input, is_agent_program, is_safe_value, resume_tail};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(i) = build_input(data) else { return };
    let (agent, id, got) = (i.agent, i.session_id.as_str(), build(&i.request()));
    if !agent.verified || !agent.id_shape.matches(id) {
        return assert_eq!(got, Err(if agent.verified { InvalidSessionId } else { AgentNotVerified }));
    }
    let inv = got.expect("a verified agent and a well-shaped id always build");
    let want = [vec![MARKER.to_owned()], inv.argv.clone()].concat();
    assert_eq!(shell_words::split(&inv.line).ok(), Some(want), "{:?}", inv.line);
    assert!(is_safe_value(id) && inv.argv.iter().all(|w| check_word(w).is_ok()));
    let (prog, rest) = inv.argv.split_first().expect("a program word");
    assert!(prog == agent.command() || i.program.as_ref() == Some(prog) && is_agent_program(agent, prog));
    let mut words = rest.strip_suffix(&resume_tail(agent, id)[..]).expect("id operand last").iter();
    let (mut last, mut posture) = (None, false);
    while let Some(name) = words.next() {
        let (at, d) = agent.flags.iter().enumerate().find(|(_, d)| d.carry && d.name == *name).expect(name);
        assert!(Some(at) > last, "{name}: carried, canonical, once, in catalog order");
        let value = d.shape.as_ref().map(|_| words.next().expect("value follows"));
        assert_eq!(i.flags.iter().rev().find(|f| *f.name == **name).map(|f| f.value.as_deref()), Some(value.map(String::as_str)));
        assert!(value.is_none_or(|v| is_safe_value(v)), "{value:?}");
        (last, posture) = (Some(at), posture | d.is_posture(value.map(String::as_str)));
    }
    assert!(inv.posture_carried == posture && !(posture && i.posture == Posture::Drop));
});
