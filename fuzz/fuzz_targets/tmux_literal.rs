//! Whatever tmux position and bytes: an accepted value, read as tmux reads its argument (a model
//! of cmd-parse.y and format.c's `format_expand1`), gives back exactly the input — nothing
//! expands, runs, or ends the command — and holds no control character (any value holding one is refused); a window target names
//! exactly the session it was built from.
#![no_main]
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use agent_resume_fuzz::tmux_reads;
use agent_resume_tmux::{literal, window_target, Value};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&b, raw)) = data.split_first() else { return };
    let value = Value::VARIANTS[usize::from(b) % Value::VARIANTS.len()];
    let out = literal(value, OsStr::from_bytes(raw));
    assert!(out.is_err() || !raw.iter().any(|c| *c < 0x20 || *c == 0x7f), "{value:?} {raw:?}");
    let Ok(arg) = out else { return };
    assert_eq!(tmux_reads(arg.as_bytes(), value.expanded()).as_deref(), Some(raw), "{value:?}");
    assert!(!arg.as_bytes().iter().any(|c| *c < 0x20 || *c == 0x7f), "{arg:?}");
    if let Ok(name) = std::str::from_utf8(raw) {
        if let Ok(target) = window_target(name, u32::from(b)) {
            let (session, index) = target[1..].rsplit_once(':').expect("a window part");
            assert_eq!((session, index), (name, b.to_string().as_str()));
            assert!(!session.contains(['.', ':']) && !session.starts_with('$'), "{target:?}");
        }
    }
});
