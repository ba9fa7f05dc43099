//! Shell-safe lines: the one quoting that bash, zsh, fish and dash all parse
//! back to the same bytes, and the history marker every resume line carries.
//!
//! Each run of characters other than `\` goes inside single quotes, and every
//! `\` is written outside the quotes as `\\`. Plain POSIX `'…'\''…'` breaks in
//! fish (inside single quotes fish reads `\\` and `\'` as escapes), and
//! `shell_words::quote` leaves `{a,b}`, `^x` and CR bare. As a second barrier
//! the quoter refuses outright any value holding `'`, a control character, or
//! an invisible formatting character (bidi overrides, zero-width marks) that
//! would make a displayed line differ from what runs.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// The history-suppression marker: an environment assignment that parses the
/// same in interactive bash, zsh, fish and dash (a trailing `# comment` does
/// not: interactive zsh passes it as arguments). Shell integration keeps
/// every line containing it out of history.
pub const MARKER: &str = "AGENT_RESUME_LINE=1";

/// A target shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shell {
    /// GNU bash.
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
    /// A POSIX `sh` (dash).
    Sh,
}

impl Shell {
    /// Every supported shell.
    pub const VARIANTS: &'static [Shell] = &[Shell::Bash, Shell::Zsh, Shell::Fish, Shell::Sh];

    /// The shell a program is, by its file name (a login shell's leading
    /// `-` ignored: `-zsh`, `/usr/bin/fish`): `None` for any other program,
    /// PowerShell and nushell included.
    pub fn of_program(program: &str) -> Option<Shell> {
        let base = program.rsplit('/').next().unwrap_or(program);
        match base.trim_start_matches('-') {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            "sh" | "dash" => Some(Shell::Sh),
            _ => None,
        }
    }

    /// The shell's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
            Shell::Fish => "fish",
            Shell::Sh => "sh",
        }
    }
}

impl fmt::Display for Shell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A shell name this module does not build lines for.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("unsupported shell (expected bash, zsh, fish or sh)")]
pub struct UnknownShell;

impl FromStr for Shell {
    type Err = UnknownShell;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "bash" => Ok(Shell::Bash),
            "zsh" => Ok(Shell::Zsh),
            "fish" => Ok(Shell::Fish),
            "sh" | "dash" => Ok(Shell::Sh),
            _ => Err(UnknownShell),
        }
    }
}

/// Why a word was refused by the quoter.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuoteError {
    /// The word holds a single quote.
    #[error("word holds a single quote")]
    SingleQuote,
    /// The word holds a control character (C0, DEL or C1).
    #[error("word holds a control character")]
    Control,
    /// The word holds an invisible formatting character.
    #[error("word holds an invisible formatting character")]
    Invisible,
}

/// Bidi controls, zero-width marks, fillers, variation selectors, tag
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

/// Checks a word against the quoter's second barrier.
pub fn check_word(word: &str) -> Result<(), QuoteError> {
    if word.is_ascii() {
        // No invisible character is ASCII: the same verdict, byte by byte.
        for &b in word.as_bytes() {
            if b == b'\'' {
                return Err(QuoteError::SingleQuote);
            }
            if b.is_ascii_control() {
                return Err(QuoteError::Control);
            }
        }
        return Ok(());
    }
    for c in word.chars() {
        if c == '\'' {
            return Err(QuoteError::SingleQuote);
        }
        if c.is_control() {
            return Err(QuoteError::Control);
        }
        if is_invisible(c) {
            return Err(QuoteError::Invisible);
        }
    }
    Ok(())
}

/// Quotes one word unconditionally, appending it to `out`.
pub fn quote_into(word: &str, out: &mut String) -> Result<(), QuoteError> {
    check_word(word)?;
    if word.is_empty() {
        out.push_str("''");
        return Ok(());
    }
    if !word.contains('\\') {
        // One quoted run: what the loop below writes for such a word.
        out.push('\'');
        out.push_str(word);
        out.push('\'');
        return Ok(());
    }
    let mut open = false;
    for c in word.chars() {
        if c == '\\' {
            if open {
                out.push('\'');
                open = false;
            }
            out.push_str("\\\\");
        } else {
            if !open {
                out.push('\'');
                open = true;
            }
            out.push(c);
        }
    }
    if open {
        out.push('\'');
    }
    Ok(())
}

/// Quotes one word unconditionally.
pub fn quote(word: &str) -> Result<String, QuoteError> {
    let mut out = String::with_capacity(word.len() + 2);
    quote_into(word, &mut out)?;
    Ok(out)
}

/// Renders `argv` as a resume line for `shell`: a leading space (history
/// suppression in fish, and in bash/zsh set to ignore space), the marker,
/// then every word quoted.
pub fn render_line(shell: Shell, argv: &[String]) -> Result<String, QuoteError> {
    // One form for every shell today; `shell` keeps the door open for a shell
    // that needs another.
    let _ = shell;
    let mut line =
        String::with_capacity(MARKER.len() + 2 + argv.iter().map(|w| w.len() + 3).sum::<usize>());
    line.push(' ');
    line.push_str(MARKER);
    for word in argv {
        line.push(' ');
        quote_into(word, &mut line)?;
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quoter char by char, with no shortcut: what the ASCII and
    /// no-backslash paths must agree with.
    fn quote_slowly(word: &str) -> Result<String, QuoteError> {
        for c in word.chars() {
            if c == '\'' {
                return Err(QuoteError::SingleQuote);
            }
            if c.is_control() {
                return Err(QuoteError::Control);
            }
            if is_invisible(c) {
                return Err(QuoteError::Invisible);
            }
        }
        if word.is_empty() {
            return Ok("''".to_owned());
        }
        let (mut out, mut open) = (String::new(), false);
        for c in word.chars() {
            if c == '\\' {
                if open {
                    out.push('\'');
                    open = false;
                }
                out.push_str("\\\\");
            } else {
                if !open {
                    out.push('\'');
                    open = true;
                }
                out.push(c);
            }
        }
        if open {
            out.push('\'');
        }
        Ok(out)
    }

    proptest::proptest! {
        #[test]
        fn shortcuts_quote_as_the_char_loop_does(
            word in "[ -~\\x00-\\x1f\\x7f\\u{80}-\\u{a0}\\u{ad}\\u{200b}\\u{e9}\\\\']{0,12}",
        ) {
            proptest::prop_assert_eq!(quote(&word), quote_slowly(&word));
        }
    }

    #[test]
    fn quoting_table() {
        for (word, want) in [
            ("", "''"),
            ("a", "'a'"),
            ("a b", "'a b'"),
            ("\\", "\\\\"),
            ("a\\b", "'a'\\\\'b'"),
            ("\\\\x\\", "\\\\\\\\'x'\\\\"),
            ("$(id)", "'$(id)'"),
            ("{a,b}", "'{a,b}'"),
            ("~", "'~'"),
        ] {
            assert_eq!(quote(word).as_deref(), Ok(want), "{word:?}");
        }
    }

    #[test]
    fn quoter_refuses_quotes_controls_and_invisibles() {
        assert_eq!(quote("it's"), Err(QuoteError::SingleQuote));
        for c in ['\0', '\n', '\r', '\t', '\x1b', '\x7f', '\u{85}', '\u{9b}'] {
            assert_eq!(quote(&format!("a{c}b")), Err(QuoteError::Control), "{c:?}");
        }
        for c in ['\u{202e}', '\u{2066}', '\u{200b}', '\u{feff}', '\u{200d}'] {
            assert_eq!(
                quote(&format!("a{c}b")),
                Err(QuoteError::Invisible),
                "{c:?}"
            );
        }
    }

    #[test]
    fn line_splits_into_marker_and_argv() {
        let argv: Vec<String> = ["claude", "--model", "a\\b c", "--resume", "x"]
            .map(String::from)
            .to_vec();
        let line = render_line(Shell::Zsh, &argv).expect("quotable");
        let words = shell_words::split(&line).expect("splits");
        assert_eq!(words[0], MARKER);
        assert_eq!(&words[1..], &argv[..]);
        assert!(line.starts_with(' '));
    }
}
