//! An independent reading of a session file as kitty reads it (0.26.5 and
//! current `kitty/session.py`, then `child.py`), for tests and fuzzing: it
//! splits lines as Python's `str.splitlines`, strips them as `str.strip`,
//! expands variables as current kitty's `expandvars` and then Python's
//! `os.path.expandvars` (every variable taken as set), expands `~` and
//! normalises as `os.path.abspath`. It knows only the commands the writer
//! uses and reports anything else as [`Read::Unknown`].

use crate::value::is_python_space;

/// One window as kitty would start it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadWindow {
    /// The directory the window's process starts in.
    pub cwd: String,
    /// `--env` assignments.
    pub env: Vec<String>,
    /// The program and its arguments (empty: kitty's shell).
    pub argv: Vec<String>,
}

/// What a session file reads as.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Read {
    /// OS windows → tabs → windows.
    pub os_windows: Vec<Vec<Vec<ReadWindow>>>,
    /// Lines kitty would not read as the writer meant (unknown commands,
    /// quotes in `launch`).
    pub unknown: usize,
}

/// The value every variable expands to.
pub const EXPANDED: &str = "<expanded>";
/// The home `~` expands to.
pub const HOME: &str = "/home/oracle";

fn lines(text: &str) -> Vec<&str> {
    // By bytes: a break is \n, \v, \f, \r (\r\n is one), \x1c to \x1e, or
    // U+0085 (C2 85), U+2028 and U+2029 (E2 80 A8, E2 80 A9); no byte from
    // 0x1f to 0xc1 starts one, so most bytes take one comparison.
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        if (0x1f..0xc2).contains(&b) {
            i += 1;
            continue;
        }
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
        out.push(&text[start..i]);
        i += len;
        start = i;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn expand(text: &str, dollars: bool) -> String {
    // Nothing to expand, and no NUL for the placeholder below to turn into
    // `$`: two byte searches instead of the passes below.
    if !text.contains('$') && !text.contains('\0') {
        return text.to_owned();
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
    out.replace('\0', "$")
}

fn normpath(path: &str) -> String {
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
    let home = |p: &str| match p.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{HOME}{rest}"),
        _ => p.to_owned(),
    };
    let cwd = expand(&home(&home(cwd)), false);
    let abs = if cwd.starts_with('/') {
        cwd
    } else {
        format!("/session-dir/{cwd}")
    };
    normpath(&abs)
}

/// The ASCII bytes Python's `str.isspace` counts as whitespace.
fn is_ascii_space(b: u8) -> bool {
    b <= b' ' && (b >= 0x1c || (b'\t'..=b'\r').contains(&b))
}

/// `text` split at runs of Python whitespace.
fn words(text: &str) -> Vec<&str> {
    // ASCII, the usual case, is split by bytes: the same words without
    // decoding every character.
    if !text.is_ascii() {
        return text
            .split(is_python_space)
            .filter(|w| !w.is_empty())
            .collect();
    }
    text.as_bytes()
        .split(|&b| is_ascii_space(b))
        .filter(|w| !w.is_empty())
        .filter_map(|w| std::str::from_utf8(w).ok())
        .collect()
}

/// Reads `text` as kitty would.
pub fn reread(text: &str) -> Read {
    let mut read = Read {
        os_windows: vec![vec![]],
        unknown: 0,
    };
    let mut cwd = String::new();
    for line in lines(text) {
        let line = line.trim_matches(is_python_space);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (cmd, rest) = line.split_once(is_python_space).unwrap_or((line, ""));
        let rest = rest.trim_matches(is_python_space);
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
            "cd" => cwd = expand(rest, true),
            "layout" | "focus" | "focus_os_window" => {}
            // Three searches for one byte each (memchr) rather than one
            // pass testing every character against three.
            "launch" if !(rest.contains('\'') || rest.contains('"') || rest.contains('\\')) => {
                let mut window = ReadWindow {
                    cwd: start_dir(&cwd),
                    ..ReadWindow::default()
                };
                let mut words = words(rest).into_iter();
                while let Some(word) = words.next() {
                    if word == "--env" {
                        window.env.extend(words.next().map(str::to_owned));
                    } else {
                        window.argv.push(word.to_owned());
                        window.argv.extend(words.by_ref().map(str::to_owned));
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
                        assert_eq!(words(&text), want, "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn lines_split_by_bytes_as_by_characters() {
        // The character-by-character reading `lines` replaced.
        fn by_chars(text: &str) -> Vec<&str> {
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
            assert_eq!(lines(text), by_chars(text), "{text:?}");
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
