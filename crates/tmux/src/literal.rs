//! The tmux value boundary: every value agent-resume hands to tmux passes
//! [`literal`], which returns the exact argument to pass or a typed refusal.
//!
//! tmux is an interpreter too. It expands formats in some of the values it
//! is handed (tmux 3.3a: `-c` of `new-session` in `cmd-new-session.c` and of
//! every spawn in `spawn.c`, `-s` of `new-session`, `-n` in `spawn.c`, each
//! through `format_single` once): `#(cmd)` runs `cmd` through `/bin/sh`,
//! `#{…}` and `#S`-style aliases substitute. In those places a value is
//! written so that tmux's reader (`format_expand1`) gives back exactly its
//! bytes: a run of `#` is doubled, except a run right before `[`, which tmux
//! copies as it is (`#[` is not an expansion, and `##…#[` is kept whole as
//! a style). Targets (`-t`, read by `cmd-find.c`), layouts and `-e`
//! assignments are not expanded and are passed as they are — after the same
//! checks that the value means exactly one thing.
//!
//! Before any of that, tmux splits its command line into commands at every
//! argument ending in `;` (`cmd_parse_from_arguments` in `cmd-parse.y`): the
//! `;` is dropped and the arguments after it start another command, unless
//! a `\` precedes it, which then becomes the `;`. So a value ending in `;`
//! is written with a `\` before that last `;`, whatever its position.
//!
//! Refused, never repaired: a value tmux cannot hold byte for byte (session
//! and window names go through `session_check_name`/`window_set_name`, which
//! replace `:` and `.` in session names and `vis(3)`-encode control
//! characters, `\`, `$` before a letter, `_` or `{`, and bytes that are not
//! UTF-8), a value a target would read as something else (a session name
//! starting with `$` is looked up as a session id), and any value holding a
//! control character (it could not be listed back unambiguously) is refused
//! with a [`Refusal`].

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use thiserror::Error;

/// Where a value goes in a tmux command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Value {
    /// A start directory (`-c`): format-expanded; absolute; any bytes but
    /// control characters.
    Directory = 1,
    /// A new session's name (`new-session -s`): format-expanded, then
    /// checked by `session_check_name`.
    SessionName = 2,
    /// A new window's name (`-n`): format-expanded, then `vis`-encoded by
    /// `window_set_name`.
    WindowName = 3,
    /// A session named in a target (`-t ={name}:…`): not expanded; must name
    /// that session and nothing else.
    TargetSession = 4,
    /// A window layout (`select-layout`): not expanded; tmux's own layout
    /// characters or a named layout.
    Layout = 5,
    /// An environment assignment (`-e NAME=value`): not expanded.
    Environment = 6,
}

impl Value {
    /// Every kind, in discriminant order.
    pub const VARIANTS: &'static [Value] = &[
        Value::Directory,
        Value::SessionName,
        Value::WindowName,
        Value::TargetSession,
        Value::Layout,
        Value::Environment,
    ];

    /// A stable name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Directory => "directory",
            Value::SessionName => "session name",
            Value::WindowName => "window name",
            Value::TargetSession => "target session",
            Value::Layout => "layout",
            Value::Environment => "environment assignment",
        }
    }

    /// Whether tmux expands formats in this position.
    pub fn expanded(self) -> bool {
        match self {
            Value::Directory | Value::SessionName | Value::WindowName => true,
            Value::TargetSession | Value::Layout | Value::Environment => false,
        }
    }
}

/// Why a value cannot be handed to tmux exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Refusal {
    /// Empty (tmux refuses an empty session name; an empty directory or
    /// window name means something else).
    Empty = 1,
    /// Longer than the boundary allows ([`MAX_DIRECTORY`], [`MAX_NAME`]).
    TooLong = 2,
    /// A control character (C0, DEL or C1): it cannot be listed back
    /// unambiguously and a name would be `vis`-encoded.
    ControlCharacter = 3,
    /// Bytes that are not UTF-8 in a name (tmux `vis`-encodes them).
    NotUtf8 = 4,
    /// `:` or `.` in a session name: tmux replaces them with `_`, and a
    /// target would split there.
    TargetSeparator = 5,
    /// `\`, or `$` before a letter, `_` or `{`, in a name: tmux's `vis`
    /// encoding rewrites them.
    Rewritten = 6,
    /// A session name starting with `$`: a target looks it up as a session id.
    SessionIdLookalike = 7,
    /// A relative directory: tmux would resolve it against its own.
    NotAbsolute = 8,
    /// A character foreign to the value's shape (a layout, an environment
    /// name).
    Foreign = 9,
}

impl Refusal {
    /// Every refusal, in discriminant order.
    pub const VARIANTS: &'static [Refusal] = &[
        Refusal::Empty,
        Refusal::TooLong,
        Refusal::ControlCharacter,
        Refusal::NotUtf8,
        Refusal::TargetSeparator,
        Refusal::Rewritten,
        Refusal::SessionIdLookalike,
        Refusal::NotAbsolute,
        Refusal::Foreign,
    ];

    /// A stable name for messages and telemetry.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Empty => "empty",
            Refusal::TooLong => "too long",
            Refusal::ControlCharacter => "holds a control character",
            Refusal::NotUtf8 => "is not UTF-8",
            Refusal::TargetSeparator => "holds `:` or `.`",
            Refusal::Rewritten => "holds `\\` or `$` that tmux rewrites",
            Refusal::SessionIdLookalike => "starts with `$`",
            Refusal::NotAbsolute => "is not absolute",
            Refusal::Foreign => "holds a character foreign to its shape",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value refused at the tmux boundary (never echoes the value).
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[error("a {} tmux cannot hold exactly: it {why}", .value.as_str())]
pub struct Refused {
    /// Where the value was going.
    pub value: Value,
    /// Why it was refused.
    pub why: Refusal,
}

/// The longest directory accepted, in bytes (`PATH_MAX` less its NUL).
pub const MAX_DIRECTORY: usize = 4095;

/// The longest name accepted, in bytes (a tmux command must fit in one
/// message to the server).
pub const MAX_NAME: usize = 2048;

/// The layouts tmux names.
const NAMED_LAYOUTS: [&str; 5] = [
    "tiled",
    "even-horizontal",
    "even-vertical",
    "main-horizontal",
    "main-vertical",
];

/// The argument to hand tmux for `raw` in position `value`: written so that
/// tmux reads back exactly `raw`, or refused.
pub fn literal(value: Value, raw: &OsStr) -> Result<OsString, Refused> {
    let bytes = raw.as_bytes();
    let refuse = |why| Refused { value, why };
    if bytes.is_empty() {
        return Err(refuse(Refusal::Empty));
    }
    if has_control(bytes) {
        return Err(refuse(Refusal::ControlCharacter));
    }
    match value {
        Value::Directory => {
            if bytes.len() > MAX_DIRECTORY {
                return Err(refuse(Refusal::TooLong));
            }
            if bytes[0] != b'/' {
                return Err(refuse(Refusal::NotAbsolute));
            }
        }
        Value::SessionName | Value::WindowName | Value::TargetSession => {
            check_name(value, bytes).map_err(refuse)?;
        }
        Value::Layout => {
            let text = std::str::from_utf8(bytes).map_err(|_| refuse(Refusal::NotUtf8))?;
            let own = text
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b"x,{}[]".contains(&b));
            if !(own || NAMED_LAYOUTS.contains(&text)) {
                return Err(refuse(Refusal::Foreign));
            }
        }
        Value::Environment => {
            std::str::from_utf8(bytes).map_err(|_| refuse(Refusal::NotUtf8))?;
            let name = bytes.split(|b| *b == b'=').next().unwrap_or_default();
            let shaped = name
                .first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
                && name.len() < bytes.len();
            if !shaped {
                return Err(refuse(Refusal::Foreign));
            }
        }
    }
    let out = if value.expanded() {
        escape_format(bytes)
    } else {
        bytes.to_vec()
    };
    Ok(OsString::from_vec(command_argument(out)))
}

/// An argument tmux's command-line parser keeps whole: a final `;` (which
/// would end the command there) is written `\;`.
pub(crate) fn command_argument(mut arg: Vec<u8>) -> Vec<u8> {
    if let Some(b';') = arg.last() {
        arg.insert(arg.len() - 1, b'\\');
    }
    arg
}

/// `={session}`: a session target naming exactly that session, written
/// for tmux's command-line parser (a name ending in `;` keeps it).
pub fn session_target(session: &str) -> Result<OsString, Refused> {
    let mut target = OsString::from("=");
    target.push(literal(Value::TargetSession, OsStr::new(session))?);
    Ok(target)
}

/// `={session}:`: the current window (and so its active pane) of exactly
/// that session.
pub fn current_window_target(session: &str) -> Result<String, Refused> {
    literal(Value::TargetSession, OsStr::new(session))?;
    Ok(format!("={session}:"))
}

/// `={session}:{index}`: a window target naming exactly that session.
pub fn window_target(session: &str, index: u32) -> Result<String, Refused> {
    literal(Value::TargetSession, OsStr::new(session))?;
    Ok(format!("={session}:{index}"))
}

fn check_name(value: Value, bytes: &[u8]) -> Result<(), Refusal> {
    if bytes.len() > MAX_NAME {
        return Err(Refusal::TooLong);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| Refusal::NotUtf8)?;
    let session = matches!(value, Value::SessionName | Value::TargetSession);
    if session && text.contains([':', '.']) {
        return Err(Refusal::TargetSeparator);
    }
    let rewritten = bytes.contains(&b'\\')
        || bytes
            .windows(2)
            .any(|w| w[0] == b'$' && (w[1].is_ascii_alphabetic() || b"_{".contains(&w[1])));
    if rewritten {
        return Err(Refusal::Rewritten);
    }
    if session && bytes[0] == b'$' {
        return Err(Refusal::SessionIdLookalike);
    }
    Ok(())
}

/// Whether `bytes` hold a C0 control, DEL, or a C1 control encoded as UTF-8
/// (bytes that are not UTF-8 are not characters and are judged elsewhere).
pub fn has_control(bytes: &[u8]) -> bool {
    bytes.iter().any(|b| *b < 0x20 || *b == 0x7f)
        || bytes
            .utf8_chunks()
            .any(|c| c.valid().chars().any(char::is_control))
}

/// Writes `bytes` so that tmux's format reader gives them back: each run of
/// `#` doubled, unless `[` follows it (tmux keeps `#[` and `##…#[` as they
/// are).
fn escape_format(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 8);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'#' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|b| **b == b'#').count();
        let copies = if bytes.get(i + run) == Some(&b'[') {
            run
        } else {
            2 * run
        };
        out.resize(out.len() + copies, b'#');
        i += run;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How tmux 3.3a's `format_expand1` reads a string, for the bytes that
    /// can come out of the boundary: the literal text, or `None` where it
    /// would expand, run or cut anything (`#(`, `#{`, `#` + letter, a
    /// trailing `#`). Written from format.c, independently of the escaper.
    fn tmux_reads(fmt: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < fmt.len() {
            if fmt[i] != b'#' {
                out.push(fmt[i]);
                i += 1;
                continue;
            }
            let ch = *fmt.get(i + 1)?;
            i += 2;
            match ch {
                b'(' | b'{' => return None,
                b'#' => {
                    let more = fmt[i..].iter().take_while(|b| **b == b'#').count();
                    if fmt.get(i + more) == Some(&b'[') {
                        out.extend_from_slice(&fmt[i - 2..i + more + 1]);
                        i += more + 1;
                    } else {
                        out.push(b'#');
                    }
                }
                b'}' | b',' => out.push(ch),
                c if c.is_ascii_alphabetic() => return None,
                c => out.extend_from_slice(&[b'#', c]),
            }
        }
        Some(out)
    }

    /// How tmux 3.3a's `cmd_parse_from_arguments` reads one argument: the
    /// argument it keeps, or `None` where it would end the command there.
    fn tmux_argument(arg: &[u8]) -> Option<Vec<u8>> {
        let mut copy = arg.to_vec();
        if copy.last() == Some(&b';') {
            copy.pop();
            match copy.last_mut() {
                Some(last) if *last == b'\\' => *last = b';',
                _ => return None,
            }
        }
        Some(copy)
    }

    /// What tmux makes of an argument in position `value`.
    fn tmux_value(value: Value, arg: &[u8]) -> Option<Vec<u8>> {
        let kept = tmux_argument(arg)?;
        if value.expanded() {
            tmux_reads(&kept)
        } else {
            Some(kept)
        }
    }

    fn lit(value: Value, s: &str) -> Result<String, Refusal> {
        literal(value, OsStr::new(s))
            .map(|o| o.into_string().expect("utf-8 in, utf-8 out"))
            .map_err(|r| r.why)
    }

    #[test]
    fn hashes_are_doubled_except_runs_before_a_bracket() {
        let cases = [
            ("/a#(touch x)", "/a##(touch x)"),
            ("/#{pane_id}", "/##{pane_id}"),
            ("/##", "/####"),
            ("/#[fg=red]", "/#[fg=red]"),
            ("/##[x", "/##[x"),
            ("/a#", "/a##"),
            ("/#S#,#}", "/##S##,##}"),
            ("/#;'\"$(x)`y`", "/##;'\"$(x)`y`"),
            ("/a;", "/a\\;"),
            ("/a\\;", "/a\\\\;"),
            ("/;;", "/;\\;"),
        ];
        for (raw, want) in cases {
            assert_eq!(lit(Value::Directory, raw).as_deref(), Ok(want), "{raw:?}");
            assert_eq!(
                tmux_value(Value::Directory, want.as_bytes()).as_deref(),
                Some(raw.as_bytes()),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn the_oracle_refuses_what_tmux_would_expand() {
        for fmt in ["#(x)", "#{x}", "a#S", "#", "x#D"] {
            assert_eq!(tmux_reads(fmt.as_bytes()), None, "{fmt:?}");
        }
        assert_eq!(tmux_reads(b"##[#,#}#%"), Some(b"##[,}#%".to_vec()));
        assert_eq!(tmux_argument(b"a;"), None);
        assert_eq!(tmux_argument(b"a\\;"), Some(b"a;".to_vec()));
    }

    #[test]
    fn values_tmux_cannot_hold_are_refused_with_their_reason() {
        use Refusal::*;
        let cases: [(Value, &str, Refusal); 16] = [
            (Value::Directory, "", Empty),
            (Value::Directory, "rel/dir", NotAbsolute),
            (Value::Directory, "/a\nb", ControlCharacter),
            (Value::Directory, "/a\tb", ControlCharacter),
            (Value::Directory, "/a\u{85}b", ControlCharacter),
            (Value::SessionName, "a:b", TargetSeparator),
            (Value::SessionName, "a.b", TargetSeparator),
            (Value::SessionName, "a\\b", Rewritten),
            (Value::SessionName, "x$HOME", Rewritten),
            (Value::SessionName, "${x}", Rewritten),
            (Value::SessionName, "$(x)", SessionIdLookalike),
            (Value::TargetSession, "$1", SessionIdLookalike),
            (Value::WindowName, "a\x7fb", ControlCharacter),
            (Value::WindowName, "a\\b", Rewritten),
            (Value::Layout, "b25d,80x24;rm", Foreign),
            (Value::Environment, "1X=2", Foreign),
        ];
        for (value, raw, why) in cases {
            assert_eq!(lit(value, raw), Err(why), "{value:?} {raw:?}");
        }
        let long = format!("/{}", "a".repeat(MAX_DIRECTORY));
        assert_eq!(lit(Value::Directory, &long), Err(TooLong));
        let bad = OsStr::from_bytes(b"s\xff");
        assert_eq!(
            literal(Value::SessionName, bad).map_err(|r| r.why),
            Err(NotUtf8)
        );
    }

    #[test]
    fn values_tmux_holds_pass_with_only_hashes_changed() {
        assert_eq!(
            lit(Value::WindowName, "a.b:c $(x)").as_deref(),
            Ok("a.b:c $(x)")
        );
        assert_eq!(lit(Value::SessionName, "w#S").as_deref(), Ok("w##S"));
        assert_eq!(lit(Value::TargetSession, "w#S").as_deref(), Ok("w#S"));
        assert_eq!(window_target("a#{b}", 3).as_deref(), Ok("=a#{b}:3"));
        assert_eq!(window_target("a;", 3).as_deref(), Ok("=a;:3"));
        assert_eq!(lit(Value::WindowName, ";").as_deref(), Ok("\\;"));
        assert_eq!(lit(Value::Layout, "tiled").as_deref(), Ok("tiled"));
        assert_eq!(
            lit(Value::Environment, "AGENT_RESUME_PANE=x#y").as_deref(),
            Ok("AGENT_RESUME_PANE=x#y")
        );
        let dir = OsStr::from_bytes(b"/\xff\xfe#(x)");
        assert_eq!(
            literal(Value::Directory, dir).map(OsString::into_vec),
            Ok(b"/\xff\xfe##(x)".to_vec())
        );
    }

    #[test]
    fn refusals_name_the_kind_and_reason_but_never_the_value() {
        let e = literal(Value::SessionName, OsStr::new("sec:ret")).expect_err("refused");
        let text = e.to_string();
        assert_eq!(
            text,
            "a session name tmux cannot hold exactly: it holds `:` or `.`"
        );
        assert!(!text.contains("sec"));
    }

    #[test]
    fn every_value_and_refusal_has_a_distinct_name() {
        let mut names: Vec<&str> = Value::VARIANTS.iter().map(|v| v.as_str()).collect();
        names.extend(Refusal::VARIANTS.iter().map(|r| r.as_str()));
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    proptest::proptest! {
        #[test]
        fn every_accepted_expanded_value_reads_back_exactly_in_tmux(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b'#'),
                    proptest::strategy::Just(b'['),
                    proptest::strategy::Just(b'('),
                    proptest::strategy::Just(b'{'),
                    proptest::strategy::Just(b';'),
                    proptest::num::u8::ANY,
                ],
                0..40,
            ),
            kind in 0usize..3,
        ) {
            let value = [Value::Directory, Value::SessionName, Value::WindowName][kind];
            let mut raw = b"/".to_vec();
            raw.extend_from_slice(&bytes);
            if let Ok(out) = literal(value, OsStr::from_bytes(&raw)) {
                proptest::prop_assert_eq!(tmux_value(value, out.as_bytes()), Some(raw.clone()));
                proptest::prop_assert!(!has_control(out.as_bytes()));
            }
        }
    }
}
