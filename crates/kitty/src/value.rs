//! The session-file value boundary: every value agent-resume writes into a
//! kitty session file passes [`literal`], which returns the exact text to
//! write or a typed refusal.
//!
//! A session file is another interpreter. kitty (0.26.5 and current,
//! `kitty/session.py`) reads it with Python's `str.splitlines`, so a line
//! ends at `\n`, `\r`, `\v`, `\f`, `\x1c`–`\x1e`, `\x85`, U+2028 and U+2029;
//! it `strip`s each line of Python whitespace and splits the command from
//! its value at the first run of whitespace. Current kitty expands `$VAR`,
//! `${VAR}` and `$$` in every value but `launch`'s and runs `expanduser` on
//! `cd`; every kitty expands `~` and `$VAR` again when it starts the window
//! (`os.path.expandvars(os.path.expanduser(cwd))` in `child.py`) and then
//! normalises it (`os.path.abspath`: `//`, `.`, `..` and a trailing `/`
//! change the path). `launch` values are split like a POSIX shell would.
//!
//! So a directory is written as it is after `cd ` and must be UTF-8,
//! absolute, normal, free of `$`, control characters and line breaks, and
//! end in no whitespace; layouts, environment assignments and shell names
//! are drawn from small alphabets that need no quoting. Anything else is
//! refused with a [`Refusal`], never repaired.

use std::ffi::OsStr;
use std::fmt;

use thiserror::Error;

/// Where a value goes in a session file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Value {
    /// A window's directory (`cd DIR`).
    Directory = 1,
    /// A tab's layout name (`layout NAME`).
    Layout = 2,
    /// An environment assignment (`launch --env NAME=VALUE`).
    Environment = 3,
    /// The program a window starts (`launch … PROGRAM`).
    Program = 4,
}

impl Value {
    /// Every kind, in discriminant order.
    pub const VARIANTS: &'static [Value] = &[
        Value::Directory,
        Value::Layout,
        Value::Environment,
        Value::Program,
    ];

    /// A stable name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Directory => "directory",
            Value::Layout => "layout",
            Value::Environment => "environment assignment",
            Value::Program => "program",
        }
    }
}

/// Why a value cannot be written into a session file exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Refusal {
    /// Empty.
    Empty = 1,
    /// Longer than [`MAX_DIRECTORY`] or [`MAX_NAME`].
    TooLong = 2,
    /// Not UTF-8 (kitty reads the file as text).
    NotUtf8 = 3,
    /// A character Python's `splitlines` ends a line at.
    LineBreak = 4,
    /// Another control character (C0, DEL or C1).
    ControlCharacter = 5,
    /// Whitespace kitty's `strip` would drop at the end.
    EdgeWhitespace = 6,
    /// `$` (kitty expands variables) or a leading `~` (home).
    Expansion = 7,
    /// A relative directory.
    NotAbsolute = 8,
    /// A directory kitty's `abspath` would change (`//`, `.`, `..`, a
    /// trailing `/`).
    NotNormal = 9,
    /// A character foreign to the value's shape.
    Foreign = 10,
}

impl Refusal {
    /// Every refusal, in discriminant order.
    pub const VARIANTS: &'static [Refusal] = &[
        Refusal::Empty,
        Refusal::TooLong,
        Refusal::NotUtf8,
        Refusal::LineBreak,
        Refusal::ControlCharacter,
        Refusal::EdgeWhitespace,
        Refusal::Expansion,
        Refusal::NotAbsolute,
        Refusal::NotNormal,
        Refusal::Foreign,
    ];

    /// A stable name for messages and telemetry.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Empty => "empty",
            Refusal::TooLong => "too long",
            Refusal::NotUtf8 => "is not UTF-8",
            Refusal::LineBreak => "holds a line break",
            Refusal::ControlCharacter => "holds a control character",
            Refusal::EdgeWhitespace => "ends in whitespace",
            Refusal::Expansion => "holds `$` or starts with `~`",
            Refusal::NotAbsolute => "is not absolute",
            Refusal::NotNormal => "is not normal",
            Refusal::Foreign => "holds a character foreign to its shape",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value refused at the session-file boundary (never echoes the value).
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[error("a {} a kitty session file cannot hold exactly: it {why}", .value.as_str())]
pub struct Refused {
    /// Where the value was going.
    pub value: Value,
    /// Why it was refused.
    pub why: Refusal,
}

/// The longest directory accepted, in bytes (`PATH_MAX` less its NUL).
pub const MAX_DIRECTORY: usize = 4095;

/// The longest layout, assignment or program name accepted, in bytes.
pub const MAX_NAME: usize = 256;

/// The characters Python's `str.splitlines` ends a line at.
pub fn is_line_break(c: char) -> bool {
    // Most text is printable ASCII: one comparison rules it out.
    if ('\u{1f}'..'\u{85}').contains(&c) {
        return false;
    }
    matches!(
        c,
        '\n' | '\r'
            | '\u{b}'
            | '\u{c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// The characters Python's `str.isspace` (and so `strip`) counts as
/// whitespace.
pub fn is_python_space(c: char) -> bool {
    // Most text is printable ASCII: one comparison rules it out.
    if ('\u{21}'..'\u{85}').contains(&c) {
        return false;
    }
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// The text to write for `raw` in position `value`: kitty reads back
/// exactly `raw`, or it is refused.
pub fn literal(value: Value, raw: &OsStr) -> Result<&str, Refused> {
    let refuse = |why| Refused { value, why };
    let text = raw.to_str().ok_or(refuse(Refusal::NotUtf8))?;
    if text.is_empty() {
        return Err(refuse(Refusal::Empty));
    }
    let max = match value {
        Value::Directory => MAX_DIRECTORY,
        Value::Layout | Value::Environment | Value::Program => MAX_NAME,
    };
    if text.len() > max {
        return Err(refuse(Refusal::TooLong));
    }
    let shaped = match value {
        Value::Directory => directory(text),
        Value::Layout | Value::Program => plain(text, WORD),
        Value::Environment => match text.split_once('=') {
            Some((name, val))
                if !name.starts_with(|c: char| c.is_ascii_digit()) && in_alphabet(name, NAME) =>
            {
                plain(val, ASSIGNED).map(|_| text)
            }
            _ => Err(Refusal::Foreign),
        },
    };
    // A name in its alphabet holds no line break or control character: no
    // second pass. Anything else is checked for them first, so that they
    // are the reason given over its shape.
    if value == Value::Directory || shaped.is_err() {
        controls(text).map_err(refuse)?;
    }
    shaped.map_err(refuse)
}

/// A line break anywhere is the reason given over a control character.
fn controls(text: &str) -> Result<(), Refusal> {
    // Printable ASCII, the usual case, holds neither and needs no decoding.
    if printable_ascii(text.as_bytes()) {
        return Ok(());
    }
    let mut control = false;
    for c in text.chars() {
        if is_line_break(c) {
            return Err(Refusal::LineBreak);
        }
        control |= c.is_control();
    }
    if control {
        Err(Refusal::ControlCharacter)
    } else {
        Ok(())
    }
}

/// Whether every byte is printable ASCII, space to `~`.
fn printable_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    // Eight bytes a test: a byte from 0x80 up has its top bit set; the
    // lowest byte under a space borrows into its own top bit, and DEL
    // carries into it (neither reaches another byte that would pass).
    let printable = |w: u64| {
        (w.wrapping_sub(ONES * u64::from(b' ')) | w | w.wrapping_add(ONES)) & (ONES << 7) == 0
    };
    let (steps, tail) = bytes.as_chunks::<8>();
    steps
        .iter()
        .all(|&step| printable(u64::from_le_bytes(step)))
        && tail.iter().all(|b| (b' '..=b'~').contains(b))
}

/// [`ALPHABET`] classes: ASCII letters, digits and `_` (assignment names);
/// also `-` (layouts, programs); also `-` and `.` (assigned values).
const NAME: u8 = 1;
const WORD: u8 = 2;
const ASSIGNED: u8 = 4;

/// The classes of each byte: one lookup a byte instead of several ranges.
/// Every allowed character is ASCII, so any byte of a longer character is
/// foreign, as the character is.
const ALPHABET: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphanumeric() || c == b'_' {
            NAME | WORD | ASSIGNED
        } else if c == b'-' {
            WORD | ASSIGNED
        } else if c == b'.' {
            ASSIGNED
        } else {
            0
        };
        b += 1;
    }
    table
};

/// Whether `text` is non-empty and every byte is in `class`.
fn in_alphabet(text: &str, class: u8) -> bool {
    !text.is_empty() && text.bytes().all(|b| ALPHABET[usize::from(b)] & class != 0)
}

fn plain(text: &str, class: u8) -> Result<&str, Refusal> {
    if text.contains('$') {
        return Err(Refusal::Expansion);
    }
    if text.bytes().all(|b| ALPHABET[usize::from(b)] & class != 0) {
        Ok(text)
    } else {
        Err(Refusal::Foreign)
    }
}

fn directory(text: &str) -> Result<&str, Refusal> {
    if text.starts_with('~') {
        return Err(Refusal::Expansion);
    }
    if !text.starts_with('/') {
        return Err(Refusal::NotAbsolute);
    }
    if text.contains('$') {
        return Err(Refusal::Expansion);
    }
    if text.ends_with(is_python_space) || text.starts_with(is_python_space) {
        return Err(Refusal::EdgeWhitespace);
    }
    // After the leading `/`, an empty part is a `//` or a trailing `/`.
    if text != "/"
        && text[1..]
            .split('/')
            .any(|part| matches!(part, "" | "." | ".."))
    {
        return Err(Refusal::NotNormal);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    fn dir(text: &str) -> Result<&str, Refusal> {
        literal(Value::Directory, OsStr::new(text)).map_err(|r| r.why)
    }

    #[test]
    fn directories_kitty_reads_back_exactly_are_written_as_they_are() {
        for ok in [
            "/",
            "/tmp",
            "/tmp/a b",
            "/tmp/ü ∂",
            "/tmp/#x",
            "/tmp/'\"`;|&",
            "/tmp/~x",
            "/tmp/a\u{a0}b",
        ] {
            assert_eq!(dir(ok), Ok(ok), "{ok:?}");
        }
    }

    #[test]
    fn directories_kitty_would_split_expand_or_change_are_refused_with_their_reason() {
        let cases = [
            ("", Refusal::Empty),
            ("tmp", Refusal::NotAbsolute),
            ("~/x", Refusal::Expansion),
            ("/tmp/$HOME", Refusal::Expansion),
            ("/tmp/${HOME}", Refusal::Expansion),
            ("/tmp/$$", Refusal::Expansion),
            ("/tmp/a\nlaunch sh", Refusal::LineBreak),
            ("/tmp/a\rb", Refusal::LineBreak),
            ("/tmp/a\u{b}b", Refusal::LineBreak),
            ("/tmp/a\u{c}b", Refusal::LineBreak),
            ("/tmp/a\u{1c}b", Refusal::LineBreak),
            ("/tmp/a\u{1d}b", Refusal::LineBreak),
            ("/tmp/a\u{1e}b", Refusal::LineBreak),
            ("/tmp/a\u{85}b", Refusal::LineBreak),
            ("/tmp/a\u{2028}b", Refusal::LineBreak),
            ("/tmp/a\u{2029}b", Refusal::LineBreak),
            ("/tmp/a\u{1f}b", Refusal::ControlCharacter),
            ("/tmp/a\tb", Refusal::ControlCharacter),
            ("/tmp/a\u{7f}", Refusal::ControlCharacter),
            ("/tmp/a ", Refusal::EdgeWhitespace),
            ("/tmp/a\u{3000}", Refusal::EdgeWhitespace),
            ("/tmp/", Refusal::NotNormal),
            ("//tmp", Refusal::NotNormal),
            ("/tmp//a", Refusal::NotNormal),
            ("/tmp/./a", Refusal::NotNormal),
            ("/tmp/../a", Refusal::NotNormal),
        ];
        for (raw, why) in cases {
            assert_eq!(dir(raw), Err(why), "{raw:?}");
        }
        let bytes = OsString::from_vec(b"/tmp/\xff".to_vec());
        assert_eq!(
            literal(Value::Directory, &bytes).map_err(|r| r.why),
            Err(Refusal::NotUtf8)
        );
        let long = format!("/{}", "a".repeat(MAX_DIRECTORY));
        assert_eq!(dir(&long), Err(Refusal::TooLong));
    }

    #[test]
    fn names_and_assignments_outside_their_alphabet_are_refused() {
        let lit = |v, t: &str| {
            literal(v, OsStr::new(t))
                .map(str::to_owned)
                .map_err(|r| r.why)
        };
        assert_eq!(lit(Value::Layout, "splits"), Ok("splits".into()));
        assert_eq!(lit(Value::Layout, "tall bias"), Err(Refusal::Foreign));
        assert_eq!(lit(Value::Program, "zsh"), Ok("zsh".into()));
        assert_eq!(lit(Value::Program, "$SHELL"), Err(Refusal::Expansion));
        assert_eq!(lit(Value::Environment, "A_B=1-2.c"), Ok("A_B=1-2.c".into()));
        assert_eq!(lit(Value::Environment, "A=$B"), Err(Refusal::Expansion));
        assert_eq!(lit(Value::Environment, "A='b'"), Err(Refusal::Foreign));
        assert_eq!(lit(Value::Environment, "1A=b"), Err(Refusal::Foreign));
        assert_eq!(lit(Value::Environment, "AB"), Err(Refusal::Foreign));
        // Letters and digits outside ASCII are foreign too (checked by bytes).
        assert_eq!(lit(Value::Layout, "tallé"), Err(Refusal::Foreign));
        assert_eq!(lit(Value::Program, "sh٣"), Err(Refusal::Foreign));
        assert_eq!(lit(Value::Environment, "Aé=b"), Err(Refusal::Foreign));
        assert_eq!(lit(Value::Environment, "A=b\u{a0}"), Err(Refusal::Foreign));
    }

    #[test]
    fn every_character_is_a_line_break_or_space_exactly_as_in_python() {
        // From Python 3.11: `str.splitlines` and `str.isspace` over all of Unicode.
        let breaks = [0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029];
        let mut spaces = vec![
            0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0,
        ];
        spaces.extend([0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);
        spaces.extend(0x2000..=0x200a);
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let u = u32::from(c);
            assert_eq!(is_line_break(c), breaks.contains(&u), "{u:#x}");
            assert_eq!(is_python_space(c), spaces.contains(&u), "{u:#x}");
        }
    }

    #[test]
    fn a_line_break_is_the_reason_given_even_after_another_control() {
        assert_eq!(dir("/tmp/a\tb\nlaunch sh"), Err(Refusal::LineBreak));
        assert_eq!(dir("/tmp/a\u{7f}\u{2028}"), Err(Refusal::LineBreak));
        assert_eq!(dir("/tmp/a\u{9f}b"), Err(Refusal::ControlCharacter));
    }

    #[test]
    fn a_name_gives_a_line_break_or_control_as_the_reason_before_its_alphabet() {
        let why = |v, t: &str| literal(v, OsStr::new(t)).map(|_| ()).map_err(|r| r.why);
        for v in [Value::Layout, Value::Program] {
            assert_eq!(why(v, "tall\n"), Err(Refusal::LineBreak));
            assert_eq!(why(v, "$x\u{2028}"), Err(Refusal::LineBreak));
            assert_eq!(why(v, "ta ll\u{1}"), Err(Refusal::ControlCharacter));
            assert_eq!(why(v, "t$"), Err(Refusal::Expansion));
        }
        assert_eq!(why(Value::Environment, "A=\n"), Err(Refusal::LineBreak));
        assert_eq!(
            why(Value::Environment, "1A=\u{7f}"),
            Err(Refusal::ControlCharacter)
        );
        assert_eq!(
            why(Value::Environment, "A\tB"),
            Err(Refusal::ControlCharacter)
        );
        assert_eq!(why(Value::Environment, "A=$\r"), Err(Refusal::LineBreak));
    }

    #[test]
    fn every_byte_is_in_the_alphabets_it_was_tested_against_before() {
        for b in 0..=255u8 {
            let name = b.is_ascii_alphanumeric() || b == b'_';
            assert_eq!(ALPHABET[usize::from(b)] & NAME != 0, name, "{b:#x}");
            assert_eq!(
                ALPHABET[usize::from(b)] & WORD != 0,
                name || b == b'-',
                "{b:#x}"
            );
            let assigned = name || matches!(b, b'-' | b'.');
            assert_eq!(ALPHABET[usize::from(b)] & ASSIGNED != 0, assigned, "{b:#x}");
        }
    }

    #[test]
    fn eight_bytes_are_printable_exactly_when_each_is() {
        // Every byte in every lane and beside every byte in another lane
        // (a borrow or carry must not hide or invent one), and the tail.
        let each = |b: u8| (b' '..=b'~').contains(&b);
        for len in 1..=17 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    assert_eq!(printable_ascii(&bytes), each(b), "{len} {at} {b:#x}");
                    if len != 8 {
                        continue;
                    }
                    for other in (0..8).filter(|&o| o != at) {
                        for c in 0..=255u8 {
                            bytes[other] = c;
                            assert_eq!(printable_ascii(&bytes), each(b) && each(c));
                        }
                        bytes[other] = b'a';
                    }
                }
            }
        }
    }

    #[test]
    fn every_refusal_has_a_distinct_name() {
        let mut names: Vec<_> = Refusal::VARIANTS.iter().map(|r| r.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Refusal::VARIANTS.len());
        assert_eq!(Value::VARIANTS.len(), 4);
    }
}
