//! Any text as an agent's JSON settings file: install either refuses it or yields JSON whose
//! every event lists our command once, is idempotent, and uninstall (given the text as the
//! original) gives back exactly the bytes it started from (an empty object where there was
//! no text).
#![no_main]
use agent_resume_core::hook_json::{commands, install, is_blank, is_empty_object, uninstall, Ours};
const OURS: &str = "agent-resume hook claude";
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let any = |c: &str| c == OURS || c.ends_with("/agent-resume hook claude");
    let current = |c: &str| c == OURS;
    let ours = Ours { any: &any, current: &current };
    let group = serde_json::json!({"matcher": "", "hooks": [{"type": "command", "command": OURS}]});
    let events = ["SessionStart", "UserPromptSubmit"];
    if commands(text, "SessionStart").is_ok_and(|c| c.iter().any(|c| any(c))) {
        return; // a file that already holds ours: uninstall removes those too
    }
    let Ok(once) = install(text, &events, &group, &ours) else { return };
    for e in events {
        let listed = commands(&once, e).expect("install writes JSON");
        assert_eq!(listed.iter().filter(|c| current(c)).count(), 1, "{e}: {once:?}");
    }
    assert_eq!(install(&once, &events, &group, &ours).as_deref(), Ok(once.as_str()));
    let back = uninstall(&once, &any, Some(text)).expect("uninstalls what it installed");
    if is_blank(text) {
        // A file install created: what is left is empty, and the caller removes it.
        assert!(is_blank(&back) || is_empty_object(&back), "{back:?}");
    } else {
        assert_eq!(back, text, "from {once:?}");
    }
});
