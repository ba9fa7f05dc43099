//! An independent reading of a session file as kitty reads it (0.26.5 and
//! current `kitty/session.py`, then `child.py`), for tests and fuzzing: it
//! splits lines as Python's `str.splitlines`, strips them as `str.strip`,
//! expands variables as current kitty's `expandvars` and then Python's
//! `os.path.expandvars` (every variable taken as set), expands `~` and
//! normalises as `os.path.abspath`. It knows only the commands the writer
//! uses and reports anything else as [`Read::Unknown`].

use std::borrow::Cow;

use crate::value::is_python_space;

/// One window as kitty would start it. Words are borrowed from the session
/// file's text: kitty splits `launch` without unquoting or expanding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadWindow<'a> {
    /// The directory the window's process starts in.
    pub cwd: String,
    /// `--env` assignments.
    pub env: Vec<&'a str>,
    /// `--location=`: where kitty places the window (`hsplit`, `vsplit`).
    pub location: Option<&'a str>,
    /// The program and its arguments (empty: kitty's shell).
    pub argv: Vec<&'a str>,
}

/// What a session file reads as.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Read<'a> {
    /// OS windows → tabs → windows.
    pub os_windows: Vec<Vec<Vec<ReadWindow<'a>>>>,
    /// Lines kitty would not read as the writer meant (unknown commands,
    /// quotes in `launch`).
    pub unknown: usize,
}

/// The value every variable expands to.
pub const EXPANDED: &str = "<expanded>";
/// The home `~` expands to.
pub const HOME: &str = "/home/oracle";

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGH: u64 = ONES << 7;

// Scans below go eight bytes a step: the lanes of a `u64` are marked with
// arithmetic that never carries or borrows from one lane into another, and
// only the mark is tested. (In a fuzzing build every comparison is traced;
// this is about one traced test for eight bytes instead of two or three for
// each.)

/// The top bit of each byte of `word` that is below `n`.
fn below(word: u64, n: u8) -> u64 {
    // With its top bit set, no byte is below `n` (at most 0x80): none borrows.
    !(word | HIGH).wrapping_sub(ONES * u64::from(n)) & !word & HIGH
}

/// The top bit of each byte of `word` that is `b`.
fn equal(word: u64, b: u8) -> u64 {
    let v = word ^ (ONES * u64::from(b));
    // The low seven bits plus 0x7f reach the top bit unless all are zero,
    // and never carry out of the byte.
    !(((v & !HIGH).wrapping_add(!HIGH)) | v) & HIGH
}

/// The index of the first byte from `at` that `mark` marks, or the length.
/// The last step is padded with `a`, which no mark here marks.
fn find(bytes: &[u8], at: usize, mark: impl Fn(u64) -> u64) -> usize {
    let (steps, tail) = bytes[at..].as_chunks::<8>();
    let mut from = at;
    for &step in steps {
        let marked = mark(u64::from_le_bytes(step));
        if marked != 0 {
            return from + marked.trailing_zeros() as usize / 8;
        }
        from += 8;
    }
    let mut last = [b'a'; 8];
    last[..tail.len()].copy_from_slice(tail);
    let marked = mark(u64::from_le_bytes(last));
    from + if marked != 0 {
        marked.trailing_zeros() as usize / 8
    } else {
        tail.len()
    }
}

/// `text` split into lines as it is read (no list).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    // By bytes: a break is \n, \v, \f, \r (\r\n is one), \x1c to \x1e, or
    // U+0085 (C2 85), U+2028 and U+2029 (E2 80 A8, E2 80 A9): only a byte
    // below 0x1f, C2 or E2 can start one.
    let bytes = text.as_bytes();
    let (mut start, mut i) = (0, 0);
    std::iter::from_fn(move || loop {
        i = find(bytes, i, |w| {
            below(w, 0x1f) | equal(w, 0xc2) | equal(w, 0xe2)
        });
        let Some(&b) = bytes.get(i) else {
            // The rest, unless empty: no line after a final break.
            let last = (start < text.len()).then(|| &text[start..]);
            start = text.len();
            return last;
        };
        let len = match b {
            b'\n' | 0x0b | 0x0c | 0x1c..=0x1e => 1,
            b'\r' => 1 + usize::from(bytes.get(i + 1) == Some(&b'\n')),
            0xc2 if bytes.get(i + 1) == Some(&0x85) => 2,
            0xe2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xa8 | 0xa9)) =>
            {
                3
            }
            _ => 0,
        };
        if len == 0 {
            i += 1;
            continue;
        }
        let line = &text[start..i];
        i += len;
        start = i;
        return Some(line);
    })
}

fn expand(text: &str, dollars: bool) -> Cow<'_, str> {
    // Nothing to expand, and no NUL for the placeholder below to turn into
    // `$`: two byte searches instead of the passes below, and no copy.
    if find(text.as_bytes(), 0, |w| equal(w, b'$') | equal(w, 0)) == text.len() {
        return Cow::Borrowed(text);
    }
    let text = if dollars {
        text.replace("$$", "\0")
    } else {
        text.to_owned()
    };
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let word = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if word > 0 {
            out.push_str(EXPANDED);
            rest = &after[word..];
        } else if let Some(close) = after.strip_prefix('{').and_then(|b| b.find('}')) {
            if close > 0 {
                out.push_str(EXPANDED);
                rest = &after[close + 2..];
            } else {
                out.push('$');
                rest = after;
            }
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Cow::Owned(out.replace('\0', "$"))
}

/// Whether `normpath` leaves `path` as it is: one leading `/`, then no
/// empty, `.` or `..` component (so no `//` and no trailing `/`).
fn is_normal(path: &str) -> bool {
    path == "/"
        || path
            .strip_prefix('/')
            .is_some_and(|rest| rest.split('/').all(|part| !matches!(part, "" | "." | "..")))
}

fn normpath(path: &str) -> String {
    if is_normal(path) {
        return path.to_owned();
    }
    normalise(path)
}

/// Python's `os.path.normpath`.
fn normalise(path: &str) -> String {
    let lead = match path.len() - path.trim_start_matches('/').len() {
        0 => "",
        2 => "//",
        _ => "/",
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if !lead.is_empty() => {}
            p => parts.push(p),
        }
    }
    let joined = format!("{lead}{}", parts.join("/"));
    if joined.is_empty() {
        ".".into()
    } else {
        joined
    }
}

fn start_dir(cwd: &str) -> String {
    fn home(p: Cow<'_, str>) -> Cow<'_, str> {
        match p.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                Cow::Owned(format!("{HOME}{rest}"))
            }
            _ => p,
        }
    }
    let cwd = home(home(Cow::Borrowed(cwd)));
    let cwd = match expand(&cwd, false) {
        Cow::Borrowed(_) => cwd,
        Cow::Owned(expanded) => Cow::Owned(expanded),
    };
    if cwd.starts_with('/') {
        normpath(&cwd)
    } else {
        normpath(&format!("/session-dir/{cwd}"))
    }
}

/// The ASCII bytes Python's `str.isspace` counts as whitespace.
fn is_ascii_space(b: u8) -> bool {
    b <= b' ' && (b >= 0x1c || (b'\t'..=b'\r').contains(&b))
}

/// `text` split at runs of Python whitespace, as it is read (no list).
fn words(text: &str) -> impl Iterator<Item = &str> {
    // ASCII, the usual case, is split by bytes: the same words without
    // decoding every character.
    let mut other =
        (!text.is_ascii()).then(|| text.split(is_python_space).filter(|w| !w.is_empty()));
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        if let Some(words) = &mut other {
            return words.next();
        }
        while bytes.get(i).is_some_and(|&b| is_ascii_space(b)) {
            i += 1;
        }
        if i == bytes.len() {
            return None;
        }
        let start = i;
        // Every space is below 0x21; so are other controls, passed over.
        i = find(bytes, i, |w| below(w, 0x21));
        while bytes.get(i).is_some_and(|&b| !is_ascii_space(b)) {
            i = find(bytes, i + 1, |w| below(w, 0x21));
        }
        Some(&text[start..i])
    })
}

/// Whether `b` is ASCII, printable or DEL, and not a space: a whole
/// character that Python's `str.isspace` rejects.
fn is_ascii_word(b: u8) -> bool {
    (0x21..0x80).contains(&b)
}

/// Whether `text` holds a quote or backslash, which kitty's `launch`
/// would unquote.
fn quoted(text: &str) -> bool {
    // A `launch` line is longer than a memchr's inlined (and, fuzzing,
    // traced) prefix: three searches mostly in the precompiled library
    // cost fewer traced tests than one pass here.
    let bytes = text.as_bytes();
    bytes.contains(&b'\'') || bytes.contains(&b'"') || bytes.contains(&b'\\')
}

/// `text` stripped as Python's `str.strip` strips it.
fn strip(text: &str) -> &str {
    // A word byte at each end, the usual case, strips nothing: two tests
    // instead of decoding a character from each end.
    let bytes = text.as_bytes();
    if bytes.first().is_some_and(|&b| is_ascii_word(b))
        && bytes.last().is_some_and(|&b| is_ascii_word(b))
    {
        return text;
    }
    text.trim_matches(is_python_space)
}

/// `line` split at its first Python whitespace character, as
/// `str.split(None, 1)` on a stripped line.
fn command(line: &str) -> (&str, &str) {
    // A command is ASCII: look at bytes until the first that is not a word
    // byte, and decode characters only when that one is not ASCII space.
    let bytes = line.as_bytes();
    let at = find(bytes, 0, |w| below(w, 0x21) | w & HIGH);
    match bytes.get(at) {
        None => (line, ""),
        Some(&b) if is_ascii_space(b) => (&line[..at], &line[at + 1..]),
        Some(_) => line.split_once(is_python_space).unwrap_or((line, "")),
    }
}

/// Reads `text` as kitty would.
pub fn reread(text: &str) -> Read<'_> {
    let mut read = Read {
        os_windows: vec![vec![]],
        unknown: 0,
    };
    let mut cwd = Cow::Borrowed("");
    // The writer puts a `cd` before every window, most of them alike (the
    // fallback): a `cd` to the same text as the one before changes nothing,
    // and the start directory, a function of it alone, is made once.
    let (mut last_cd, mut start) = (None, None);
    for line in lines(text) {
        let line = strip(line);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (cmd, rest) = command(line);
        let rest = strip(rest);
        let os = read.os_windows.len() - 1;
        match cmd {
            "new_os_window" => read.os_windows.push(vec![vec![]]),
            "new_tab" => {
                if read.os_windows[os].last().is_some_and(|t| !t.is_empty()) {
                    read.os_windows[os].push(vec![]);
                }
                if read.os_windows[os].is_empty() {
                    read.os_windows[os].push(vec![]);
                }
            }
            "cd" if last_cd != Some(rest) => {
                last_cd = Some(rest);
                cwd = expand(rest, true);
                start = None;
            }
            "cd" => {}
            "layout" | "focus" | "focus_os_window" => {}
            // Three searches for one byte each (memchr) rather than one
            // pass testing every character against three.
            "launch" if !quoted(rest) => {
                // Room for the one assignment and the one word the writer
                // writes: no growing.
                let mut window = ReadWindow {
                    cwd: start.get_or_insert_with(|| start_dir(&cwd)).clone(),
                    env: Vec::with_capacity(1),
                    location: None,
                    argv: Vec::with_capacity(1),
                };
                let mut words = words(rest);
                while let Some(word) = words.next() {
                    if word == "--env" {
                        window.env.extend(words.next());
                    } else if let Some(at) = word.strip_prefix("--location=") {
                        window.location = Some(at);
                    } else {
                        window.argv.push(word);
                        window.argv.extend(words.by_ref());
                    }
                }
                if let Some(tab) = read.os_windows[os].last_mut() {
                    tab.push(window);
                } else {
                    read.os_windows[os].push(vec![window]);
                }
            }
            _ => read.unknown += 1,
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_by_bytes_as_by_characters() {
        let pieces = [
            "a", "-", " ", "\t", "\n", "\r", "\u{b}", "\u{c}", "\u{8}", "\u{e}", "\u{1b}",
            "\u{1c}", "\u{1f}", "\u{21}", "\u{7f}", "\u{85}", "\u{a0}", "\u{3000}", "é",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in ["", "x y", " "] {
                        let text = format!("{a}{b}{d}{c}");
                        let want: Vec<&str> = text
                            .split(is_python_space)
                            .filter(|w| !w.is_empty())
                            .collect();
                        assert_eq!(words(&text).collect::<Vec<_>>(), want, "{text:?}");
                    }
                }
            }
        }
    }

    /// The character-by-character reading `lines` replaced.
    fn lines_by_chars(text: &str) -> Vec<&str> {
        let (mut out, mut start) = (Vec::new(), 0);
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if crate::value::is_line_break(c) {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
                if c == '\r' && chars.next_if(|p| p.1 == '\n').is_some() {
                    start += 1;
                }
            }
        }
        if start < text.len() {
            out.push(&text[start..]);
        }
        out
    }

    /// The character-by-character split `words` replaced.
    fn words_by_chars(text: &str) -> Vec<&str> {
        text.split(is_python_space)
            .filter(|w| !w.is_empty())
            .collect()
    }

    #[test]
    fn each_byte_is_marked_exactly_when_it_is_below_or_equal() {
        // Every byte in every lane, beside every byte in every other lane
        // (no borrow or carry may reach another lane).
        let fill = u64::from_le_bytes([b'a'; 8]);
        for lane in 0..8 {
            for b in 0..=255u8 {
                let one = (fill & !(0xff << (8 * lane))) | u64::from(b) << (8 * lane);
                for other in 0..8 {
                    for c in 0..=255u8 {
                        let two = (one & !(0xff << (8 * other))) | u64::from(c) << (8 * other);
                        let (x, y) = if other == lane { (c, c) } else { (b, c) };
                        let lanes = |mark: u64, at: usize| mark >> (8 * at + 7) & 1 == 1;
                        for n in [0x1f, 0x21] {
                            let mark = below(two, n);
                            assert_eq!(
                                lanes(mark, lane),
                                x < n,
                                "{n:#x} {lane} {b:#x} {other} {c:#x}"
                            );
                            assert_eq!(lanes(mark, other), y < n);
                            assert_eq!(mark & !(0x80 << (8 * lane) | 0x80 << (8 * other)), 0);
                        }
                        for e in [0, b'$', 0xc2, 0xe2, b'\'', b'"', b'\\'] {
                            let mark = equal(two, e);
                            assert_eq!(
                                lanes(mark, lane),
                                x == e,
                                "{e:#x} {lane} {b:#x} {other} {c:#x}"
                            );
                            assert_eq!(lanes(mark, other), y == e);
                            assert_eq!(mark & !(0x80 << (8 * lane) | 0x80 << (8 * other)), 0);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_break_or_space_is_found_at_every_offset_of_an_eight_byte_step() {
        let specials = [
            "\n", "\r", "\r\n", "\u{b}", "\u{c}", "\u{1c}", "\u{1e}", "\u{1f}", " ", "\t", "\0",
            "\u{7f}", "\u{85}", "\u{a0}", "\u{2028}", "\u{2029}", "\u{3000}", "é", "~", "$", "'",
            "\"", "\\",
        ];
        for special in specials {
            for len in 0..26 {
                for at in 0..=len {
                    let text = format!("{}{special}{}", "a".repeat(at), "b".repeat(len - at));
                    let read: Vec<_> = lines(&text).collect();
                    assert_eq!(read, lines_by_chars(&text), "{text:?}");
                    assert_eq!(
                        words(&text).collect::<Vec<_>>(),
                        words_by_chars(&text),
                        "{text:?}"
                    );
                    let twice = format!("{text}{special}{text}");
                    let read: Vec<_> = lines(&twice).collect();
                    assert_eq!(read, lines_by_chars(&twice), "{twice:?}");
                    let read: Vec<_> = words(&twice).collect();
                    assert_eq!(read, words_by_chars(&twice), "{twice:?}");
                    let quotes = special.contains(['\'', '"', '\\']);
                    assert_eq!(quoted(&twice), quotes, "{twice:?}");
                    // Only text without `$` and NUL is left unexpanded.
                    let plain = !special.contains(['$', '\0']);
                    assert_eq!(
                        matches!(expand(&text, true), Cow::Borrowed(_)),
                        plain,
                        "{text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn each_window_starts_in_its_last_cd_however_the_cds_repeat() {
        let pool = ["/a", "/a/", "~/b", "/$X", "rel", "/a/../c"];
        // Every sequence of three `cd`s from the pool, a window after each
        // and one more after the last, and a window before any `cd`.
        for a in pool {
            for b in pool {
                for c in pool {
                    let text = format!(
                        "launch sh\ncd {a}\nlaunch sh\ncd {b}\nlaunch sh\ncd {c}\nlaunch sh\nlaunch sh\n"
                    );
                    let read = reread(&text);
                    let got: Vec<&str> = read.os_windows[0][0]
                        .iter()
                        .map(|w| w.cwd.as_str())
                        .collect();
                    let dir = |cd: &str| start_dir(&expand(cd, true));
                    let want = [dir(""), dir(a), dir(b), dir(c), dir(c)];
                    assert_eq!(got, want, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn strip_and_command_by_bytes_as_by_characters() {
        let pieces = [
            "", "a", "cd", "launch", " ", "\t", "\u{1f}", "\u{1}", "\0", "\u{7f}", "\u{85}",
            "\u{a0}", "\u{3000}", "é", "#", "~",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = format!("{a}{b}{c}");
                    assert_eq!(strip(&text), text.trim_matches(is_python_space), "{text:?}");
                    let line = text.trim_matches(is_python_space);
                    let want = line.split_once(is_python_space).unwrap_or((line, ""));
                    assert_eq!(command(line), want, "{line:?}");
                }
            }
        }
    }

    #[test]
    fn normal_paths_are_left_as_they_are_and_no_other() {
        for path in [
            "/", "//", "///", "/a", "/a/", "//a", "/a//b", "/a/./b", "/a/../b", "/.", "/..",
            "/a/.", "/a/..", "/.a", "/..a", "/a.", "/a b/c", "", ".", "a", "a/b", "/a/b/c",
        ] {
            // `//` stays as it is too, but goes the long way.
            let unchanged =
                path.starts_with('/') && !path.starts_with("//") && normalise(path) == path;
            assert_eq!(is_normal(path), unchanged, "{path:?}");
            assert_eq!(normpath(path), normalise(path), "{path:?}");
        }
    }

    #[test]
    fn lines_split_by_bytes_as_by_characters() {
        let by_chars = lines_by_chars;
        let pieces = [
            "a", "\n", "\r", "\r\n", "\n\r", "\u{b}", "\u{c}", "\u{1c}", "\u{1d}", "\u{1e}",
            "\u{1f}", "\u{85}", "\u{84}", "\u{c2}", "\u{2028}", "\u{2029}", "\u{2027}", "\u{202a}",
            "\u{3000}", "\u{e2}", "é", "€", "\t", " ",
        ];
        let mut texts = vec![String::new()];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    texts.push(format!("{a}{b}{c}"));
                }
            }
        }
        for text in &texts {
            assert_eq!(lines(text).collect::<Vec<_>>(), by_chars(text), "{text:?}");
        }
    }

    #[test]
    fn the_oracle_splits_strips_and_expands_as_kitty_does() {
        let read = reread(
            "cd /a/$X/${Y}/$$/~\u{2028}launch sh\r\n  # c\nnew_tab\ncd ~/b/../c//d/\nlaunch --env A=1\n",
        );
        let tab = &read.os_windows[0];
        assert_eq!(tab.len(), 2);
        assert_eq!(tab[0][0].cwd, format!("/a/{EXPANDED}/{EXPANDED}/$/~"));
        assert_eq!(tab[0][0].argv, ["sh"]);
        assert_eq!(tab[1][0].cwd, format!("{HOME}/c/d"));
        assert_eq!(tab[1][0].env, ["A=1"]);
        assert_eq!(normpath("//a/../.."), "//");
        assert_eq!(read.unknown, 0);
    }

    #[test]
    fn text_without_a_dollar_skips_expansion_unchanged() {
        for dollars in [true, false] {
            assert_eq!(expand("/a b/~c/{x}", dollars), "/a b/~c/{x}");
            // A NUL still goes the long way, where `$$` is held as a NUL.
            assert_eq!(expand("/a\0b", dollars), "/a$b");
            assert_eq!(expand("/$A\0", dollars), format!("/{EXPANDED}$"));
        }
        assert_eq!(expand("/$$", true), "/$");
        assert_eq!(expand("/$$", false), "/$$");
    }
}
