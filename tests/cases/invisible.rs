// The quoter's invisible formatting characters, pinned here independently of
// `crates/core/src/shell.rs` and shared by the tests that check the quoter's
// rule (included with `include!`).

/// Bidi controls, zero-width marks, fillers, variation selectors and tag
/// characters: the default-ignorable code points that render as nothing.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{034F}'
        | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}'
        | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{E0000}'..='\u{E0FFF}')
}
