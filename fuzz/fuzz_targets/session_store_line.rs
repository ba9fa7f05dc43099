//! Any session a store reader makes of arbitrary bytes has an id that passes its agent's shape
//! and a display name, title and prompt with no control or invisible character. The first byte
//! picks the agent, the second the depth, then `name NUL content`.
#![no_main]
use agent_resume_core::Catalog;
use agent_resume_discover::{parse_session, text::is_stripped, Depth, READABLE};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [a, d, rest @ ..] = data else { return };
    let agent = READABLE[usize::from(*a) % READABLE.len()];
    let depth = match d % 3 {
        0 => Depth::FAST,
        1 => Depth::Prefix(usize::from(*d)),
        _ => Depth::Full,
    };
    let (name, bytes) = match rest.iter().position(|b| *b == 0) {
        Some(at) => (String::from_utf8_lossy(&rest[..at]), &rest[at + 1..]),
        None => ("f6066ebb-140e-4519-ab63-b9cde0b60b57.jsonl".into(), rest),
    };
    let Ok(s) = parse_session(agent, &name, bytes, depth) else { return };
    assert_eq!(s.agent, agent);
    assert!(Catalog::embedded().agent(agent).id_shape.matches(&s.id), "{:?}", s.id);
    let shown = s.display_name();
    assert!(!shown.is_empty() && !shown.chars().any(is_stripped), "{shown:?}");
    for t in [&s.title, &s.first_prompt].into_iter().flatten() {
        assert!(!t.chars().any(is_stripped), "{t:?}");
    }
});
