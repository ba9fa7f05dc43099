//! A payload parses only to an id that passes the agent's id shape (and the independent safe-value
//! check), with a directory that, when reported, is absolute; the headless-output reader gives only
//! such ids, and for a payload that parses whole, the very id `parse` gave.
#![no_main]
use agent_resume_core::hook::{headless_output, parse};
use agent_resume_fuzz::{hook_input, is_safe_value};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((agent, payload)) = hook_input(data) else { return };
    let shaped = |id: &str| agent.id_shape.matches(id) && is_safe_value(id);
    let got = parse(agent.kind, payload);
    if let Ok(r) = &got {
        assert!(shaped(&r.session_id), "{r:?}");
        let cwd = r.cwd.as_deref().map(|c| c.as_os_str().as_encoded_bytes());
        assert!(cwd.is_none_or(|c| c.first() == Some(&b'/')), "{r:?}");
    }
    let out = headless_output(agent.kind, payload);
    assert!(out.as_deref().map_or(true, shaped), "{out:?}");
    if let Ok(r) = got {
        assert_eq!(out, Ok(r.session_id));
    }
});
