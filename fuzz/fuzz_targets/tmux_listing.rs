//! Whatever bytes tmux (or a forger) prints: a listing that reads yields no more panes than it
//! has newlines, no value holding a control character, and writes back to itself — so no value
//! can have started a record or a field.
#![no_main]
use std::os::unix::ffi::OsStrExt;
use agent_resume_tmux::{parse_listing, render_listing};
fn clean(bytes: &[u8]) -> bool {
    !bytes.iter().any(|c| *c < 0x20 || *c == 0x7f)
        && !bytes.utf8_chunks().any(|c| c.valid().chars().any(char::is_control))
}
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(panes) = parse_listing(data) else { return };
    assert!(panes.len() <= data.iter().filter(|b| **b == b'\n').count());
    for p in &panes {
        for v in [&p.session, &p.window_name, &p.window_layout, &p.target, &p.command] {
            assert!(clean(v.as_bytes()), "{p:?}");
        }
        assert!(clean(p.cwd.as_os_str().as_bytes()), "{p:?}");
    }
    assert_eq!(parse_listing(&render_listing(&panes)), Ok(panes.clone()));
});
