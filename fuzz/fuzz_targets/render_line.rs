//! The quoter, on any words (not only shaped ones): a line is rendered iff every word passes
//! `check_word`; it splits back into the marker and exactly the words; and it holds no `\` inside
//! quotes (fish reads `\\` and `\'` there) and nothing bare outside them but `\\` and spaces.
#![no_main]
use agent_resume_core::{render_line, shell::check_word, MARKER};
use agent_resume_fuzz::line_input;
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((shell, argv)) = line_input(data) else { return };
    let got = render_line(shell, &argv);
    assert_eq!(got.is_ok(), argv.iter().all(|w| check_word(w).is_ok()), "{argv:?}");
    let Ok(line) = got else { return };
    assert_eq!(shell_words::split(&line).ok(), Some([vec![MARKER.to_owned()], argv].concat()), "{line:?}");
    let body = line.strip_prefix(&format!(" {MARKER}")).expect("marker first");
    let (mut quoted, mut chars) = (false, body.chars());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (_, '\'') => quoted = !quoted,
            (true, '\\') => panic!("backslash inside quotes: {line:?}"),
            (false, '\\') => assert_eq!(chars.next(), Some('\\'), "lone backslash: {line:?}"),
            (false, ' ') | (true, _) => {}
            (false, c) => panic!("bare {c:?} outside quotes: {line:?}"),
        }
    }
    assert!(!quoted, "unterminated quote: {line:?}");
});
