//! Display text from untrusted session files.
//!
//! Titles and prompts come from files any process of the user can write.
//! Before anything shows them they pass [`clean`]: every control character
//! (newlines included) and every invisible formatting character (bidi
//! overrides, zero-width marks, line and paragraph separators) becomes a
//! space, runs of whitespace collapse to one, and the result is capped.

/// The most characters kept of a title or a first prompt.
pub const MAX_TEXT: usize = 240;

/// Characters that render as nothing or reorder what follows.
fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E0FFF}')
}

/// Whether `c` is removed from display text.
pub fn is_stripped(c: char) -> bool {
    c.is_control() || is_hidden(c)
}

/// Display text: controls and invisible characters become spaces,
/// whitespace collapses, the ends are trimmed, and at most `max` characters
/// are kept (the last one `…` when cut). `None` when nothing is left.
pub fn clean(raw: &str, max: usize) -> Option<String> {
    let mut out = String::with_capacity(raw.len().min(max * 4));
    let mut kept = 0usize;
    let mut pending_space = false;
    for c in raw.chars() {
        let c = if is_stripped(c) { ' ' } else { c };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        let need = usize::from(pending_space) + 1;
        if kept + need > max {
            truncate_with_ellipsis(&mut out, max);
            return Some(out);
        }
        if pending_space {
            out.push(' ');
            kept += 1;
            pending_space = false;
        }
        out.push(c);
        kept += 1;
    }
    (!out.is_empty()).then_some(out)
}

/// Cuts `s` to at most `max` characters, ending in `…` when cut.
pub fn compact(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max).collect();
    truncate_with_ellipsis(&mut out, max);
    out
}

fn truncate_with_ellipsis(out: &mut String, max: usize) {
    if max == 0 {
        out.clear();
        return;
    }
    let keep = max - 1;
    let cut = out.char_indices().nth(keep).map_or(out.len(), |(i, _)| i);
    out.truncate(cut);
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('…');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_invisible_characters_never_survive_cleaning() {
        assert_eq!(
            clean("fix\nthe\x1b[2J bug\u{202E}txt.exe\t\r\n", 100).as_deref(),
            Some("fix the [2J bug txt.exe")
        );
        assert_eq!(clean("\u{2028}\u{200B}\n\t ", 100), None);
        assert_eq!(clean("", 100), None);
    }

    #[test]
    fn cleaned_text_is_capped_with_an_ellipsis() {
        assert_eq!(clean("abcdef", 4).as_deref(), Some("abc…"));
        assert_eq!(clean("ab  cdef", 4).as_deref(), Some("ab…"));
        assert_eq!(clean("abcd", 4).as_deref(), Some("abcd"));
        assert_eq!(compact("héllo wörld", 5), "héll…");
        assert_eq!(compact("short", 5), "short");
    }
}
