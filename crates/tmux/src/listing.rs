//! Reading `list-panes`: framing no value can forge.
//!
//! tmux prints values raw, and a directory, a session name, a command name
//! or a pane option can hold a tab or a newline: text split on those is
//! decided by whoever names a directory. So every field of
//! [`LIST_FORMAT`] is written by tmux with its length first
//! (`#{n:…}` is `strlen` of the value in tmux 3.3a's `format.c`):
//! `LEN:BYTES,` per field, fourteen fields, then a newline. The parser takes
//! exactly `LEN` bytes for each value, so no value can start a field or a
//! record; anything else — a length that does not fit, a missing separator,
//! a number that is not canonical, a pane listed twice, a control character
//! in a value tmux writes or escapes itself — makes the whole listing an
//! error: nothing is typed
//! or created from a listing that does not read exactly. A control
//! character in free text whose framing held — a directory, a command name,
//! a window name — makes only that value unknown (read as empty): the pane
//! is still listed, and a pane with no known directory is never recreated
//! or typed into. (tmux must run with
//! `-u`, or it replaces non-ASCII bytes in what it prints.)

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use agent_resume_core::PaneId;
use thiserror::Error;

use crate::literal::has_control;

/// The `list-panes -F` format [`parse_listing`] reads.
pub const LIST_FORMAT: &str = concat!(
    "#{n:session_name}:#{session_name},",
    "#{n:session_last_attached}:#{session_last_attached},",
    "#{n:session_attached}:#{session_attached},",
    "#{n:window_index}:#{window_index},",
    "#{n:window_active}:#{window_active},",
    "#{n:window_name}:#{window_name},",
    "#{n:window_layout}:#{window_layout},",
    "#{n:pane_index}:#{pane_index},",
    "#{n:pane_active}:#{pane_active},",
    "#{n:pane_id}:#{pane_id},",
    "#{n:pane_current_path}:#{pane_current_path},",
    "#{n:pane_current_command}:#{pane_current_command},",
    "#{n:@agent_resume_pane}:#{@agent_resume_pane},",
    "#{n:pane_pid}:#{pane_pid},",
);

/// A field of [`LIST_FORMAT`], in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Field {
    /// `session_name`.
    SessionName = 1,
    /// `session_last_attached`.
    SessionLastAttached = 2,
    /// `session_attached`.
    SessionAttached = 3,
    /// `window_index`.
    WindowIndex = 4,
    /// `window_active`.
    WindowActive = 5,
    /// `window_name`.
    WindowName = 6,
    /// `window_layout`.
    WindowLayout = 7,
    /// `pane_index`.
    PaneIndex = 8,
    /// `pane_active`.
    PaneActive = 9,
    /// `pane_id`.
    PaneId = 10,
    /// `pane_current_path`.
    PaneCurrentPath = 11,
    /// `pane_current_command`.
    PaneCurrentCommand = 12,
    /// `@agent_resume_pane`.
    StableId = 13,
    /// `pane_pid`.
    PanePid = 14,
}

impl Field {
    /// Every field, in listing order.
    pub const VARIANTS: &'static [Field] = &[
        Field::SessionName,
        Field::SessionLastAttached,
        Field::SessionAttached,
        Field::WindowIndex,
        Field::WindowActive,
        Field::WindowName,
        Field::WindowLayout,
        Field::PaneIndex,
        Field::PaneActive,
        Field::PaneId,
        Field::PaneCurrentPath,
        Field::PaneCurrentCommand,
        Field::StableId,
        Field::PanePid,
    ];

    /// Whether a control character in this field makes only the value
    /// unknown (read as empty) rather than the listing an error: free text
    /// a process or a directory name decides. Everything else tmux writes
    /// itself (numbers, ids, layouts) or escapes (session names), so a
    /// control character there means the listing is not what was asked.
    pub const fn unknown_when_unreadable(self) -> bool {
        match self {
            Field::WindowName | Field::PaneCurrentPath | Field::PaneCurrentCommand => true,
            Field::SessionName
            | Field::SessionLastAttached
            | Field::SessionAttached
            | Field::WindowIndex
            | Field::WindowActive
            | Field::WindowLayout
            | Field::PaneIndex
            | Field::PaneActive
            | Field::PaneId
            | Field::StableId
            | Field::PanePid => false,
        }
    }

    /// The tmux format variable.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::SessionName => "session_name",
            Field::SessionLastAttached => "session_last_attached",
            Field::SessionAttached => "session_attached",
            Field::WindowIndex => "window_index",
            Field::WindowActive => "window_active",
            Field::WindowName => "window_name",
            Field::WindowLayout => "window_layout",
            Field::PaneIndex => "pane_index",
            Field::PaneActive => "pane_active",
            Field::PaneId => "pane_id",
            Field::PaneCurrentPath => "pane_current_path",
            Field::PaneCurrentCommand => "pane_current_command",
            Field::StableId => "@agent_resume_pane",
            Field::PanePid => "pane_pid",
        }
    }
}

/// Why a listing was refused as a whole (never echoes a value).
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListingError {
    /// The bytes do not follow the framing (a length, `:`, `,` or the
    /// record's newline is missing or wrong).
    #[error("tmux listing record {record} is not framed as asked (field {})", .field.as_str())]
    Framing {
        /// 0-based record number.
        record: usize,
        /// The field being read.
        field: Field,
    },
    /// A value holds a control character.
    #[error("tmux listing record {record}: {} holds a control character", .field.as_str())]
    ControlCharacter {
        /// 0-based record number.
        record: usize,
        /// The field.
        field: Field,
    },
    /// A value is not what tmux writes there (a number that is not
    /// canonical, a pane id not `%N`, text that is not UTF-8).
    #[error("tmux listing record {record}: {} is not a value tmux writes there", .field.as_str())]
    Value {
        /// 0-based record number.
        record: usize,
        /// The field.
        field: Field,
    },
    /// The same pane, or the same session/window/pane slot, twice.
    #[error("tmux listing record {record} repeats a pane")]
    Duplicate {
        /// 0-based record number.
        record: usize,
    },
}

/// One pane as a running server reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LivePane {
    /// Session name.
    pub session: String,
    /// When a client last attached to the session (Unix seconds; 0 never).
    pub session_last_attached: i64,
    /// Clients attached now.
    pub session_attached: u32,
    /// Window index.
    pub window_index: u32,
    /// The session's current window.
    pub window_active: bool,
    /// The window's name.
    pub window_name: String,
    /// tmux's layout string for the window.
    pub window_layout: String,
    /// Pane index in its window.
    pub pane_index: u32,
    /// The window's active pane.
    pub pane_active: bool,
    /// tmux's own pane id (`%N`), for targeting.
    pub target: String,
    /// The foreground process's directory (any bytes but controls).
    pub cwd: PathBuf,
    /// The foreground command's name.
    pub command: String,
    /// The stable id, when the pane has a valid one.
    pub stable_id: Option<PaneId>,
    /// The pane's first process (its shell).
    pub pid: Option<u32>,
}

/// Reads a whole `list-panes -F LIST_FORMAT` output; any record that does
/// not read exactly makes it all an error.
pub fn parse_listing(bytes: &[u8]) -> Result<Vec<LivePane>, ListingError> {
    let mut panes: Vec<LivePane> = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let record = panes.len();
        let mut values: Vec<&[u8]> = Vec::with_capacity(Field::VARIANTS.len());
        for field in Field::VARIANTS {
            let framing = ListingError::Framing {
                record,
                field: *field,
            };
            let (mut value, after) = take_field(rest).ok_or(framing)?;
            if has_control(value) {
                if !field.unknown_when_unreadable() {
                    return Err(ListingError::ControlCharacter {
                        record,
                        field: *field,
                    });
                }
                // The framing held, so this value cannot have forged
                // anything; only it is unusable. One pane in an odd
                // directory (or running a program with an odd name) must
                // not cost every other pane its restore.
                value = b"";
            }
            values.push(value);
            rest = after;
        }
        rest = rest.strip_prefix(b"\n").ok_or(ListingError::Framing {
            record,
            field: Field::PanePid,
        })?;
        let pane = pane_of(record, &values)?;
        let repeated = panes.iter().any(|p| {
            p.target == pane.target
                || (p.session == pane.session
                    && p.window_index == pane.window_index
                    && p.pane_index == pane.pane_index)
        });
        if repeated {
            return Err(ListingError::Duplicate { record });
        }
        panes.push(pane);
    }
    Ok(panes)
}

/// `LEN:BYTES,` at the start of `rest`: the value and what follows.
fn take_field(rest: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = rest.iter().take(21).position(|b| *b == b':')?;
    let len: usize = canonical(std::str::from_utf8(&rest[..colon]).ok()?)?;
    let value = rest.get(colon + 1..colon + 1 + len)?;
    let after = rest.get(colon + 1 + len..)?.strip_prefix(b",")?;
    Some((value, after))
}

/// A decimal number written as tmux writes it (no sign, no leading zero).
fn canonical<T: std::str::FromStr + ToString>(text: &str) -> Option<T> {
    let n: T = text.parse().ok()?;
    (n.to_string() == text).then_some(n)
}

fn pane_of(record: usize, v: &[&[u8]]) -> Result<LivePane, ListingError> {
    let text = |f: Field| -> Result<&str, ListingError> {
        std::str::from_utf8(v[f as usize - 1]).map_err(|_| ListingError::Value { record, field: f })
    };
    let number = |f: Field| -> Result<u32, ListingError> {
        canonical(text(f)?).ok_or(ListingError::Value { record, field: f })
    };
    let flag = |f: Field| -> Result<bool, ListingError> {
        match text(f)? {
            "0" => Ok(false),
            "1" => Ok(true),
            _ => Err(ListingError::Value { record, field: f }),
        }
    };
    let optional = |f: Field| -> Result<Option<u32>, ListingError> {
        match text(f)? {
            "" => Ok(None),
            t => canonical(t)
                .map(Some)
                .ok_or(ListingError::Value { record, field: f }),
        }
    };
    let target = text(Field::PaneId)?;
    if canonical::<u32>(target.strip_prefix('%').unwrap_or_default()).is_none() {
        return Err(ListingError::Value {
            record,
            field: Field::PaneId,
        });
    }
    let last = match text(Field::SessionLastAttached)? {
        "" => 0,
        t => canonical(t).ok_or(ListingError::Value {
            record,
            field: Field::SessionLastAttached,
        })?,
    };
    Ok(LivePane {
        session: text(Field::SessionName)?.to_owned(),
        session_last_attached: last,
        session_attached: number(Field::SessionAttached)?,
        window_index: number(Field::WindowIndex)?,
        window_active: flag(Field::WindowActive)?,
        window_name: text(Field::WindowName)?.to_owned(),
        window_layout: text(Field::WindowLayout)?.to_owned(),
        pane_index: number(Field::PaneIndex)?,
        pane_active: flag(Field::PaneActive)?,
        target: target.to_owned(),
        cwd: PathBuf::from(OsStr::from_bytes(v[Field::PaneCurrentPath as usize - 1])),
        command: text(Field::PaneCurrentCommand)?.to_owned(),
        stable_id: text(Field::StableId)?.parse().ok(),
        pid: optional(Field::PanePid)?,
    })
}

/// Writes panes as tmux would print them for [`LIST_FORMAT`] (the inverse of
/// [`parse_listing`], for tests and examples).
pub fn render_listing(panes: &[LivePane]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in panes {
        let flag = |b: bool| if b { "1" } else { "0" }.to_owned();
        let fields: [Vec<u8>; 14] = [
            p.session.clone().into_bytes(),
            p.session_last_attached.to_string().into_bytes(),
            p.session_attached.to_string().into_bytes(),
            p.window_index.to_string().into_bytes(),
            flag(p.window_active).into_bytes(),
            p.window_name.clone().into_bytes(),
            p.window_layout.clone().into_bytes(),
            p.pane_index.to_string().into_bytes(),
            flag(p.pane_active).into_bytes(),
            p.target.clone().into_bytes(),
            p.cwd.as_os_str().as_bytes().to_vec(),
            p.command.clone().into_bytes(),
            p.stable_id
                .map(|i| i.to_string())
                .unwrap_or_default()
                .into_bytes(),
            p.pid
                .map(|i| i.to_string())
                .unwrap_or_default()
                .into_bytes(),
        ];
        for f in fields {
            out.extend_from_slice(f.len().to_string().as_bytes());
            out.push(b':');
            out.extend_from_slice(&f);
            out.push(b',');
        }
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pane(n: u32, cwd: &[u8]) -> LivePane {
        LivePane {
            session: format!("s{n}"),
            session_last_attached: 0,
            session_attached: 0,
            window_index: n,
            window_active: true,
            window_name: "bash".to_owned(),
            window_layout: "b25d,80x24,0,0,1".to_owned(),
            pane_index: 0,
            pane_active: true,
            target: format!("%{n}"),
            cwd: PathBuf::from(OsStr::from_bytes(cwd)),
            command: "bash".to_owned(),
            stable_id: Some(PaneId::from_bytes([7; 16])),
            pid: Some(100 + n),
        }
    }

    #[test]
    fn the_format_lists_every_field_in_order_length_first() {
        let want: String = Field::VARIANTS
            .iter()
            .map(|f| format!("#{{n:{0}}}:#{{{0}}},", f.as_str()))
            .collect();
        assert_eq!(LIST_FORMAT, want);
    }

    #[test]
    fn panes_read_back_exactly_whatever_bytes_their_values_hold() {
        let mut odd = pane(2, b"/a,b:c 3:x,\xff\xfe/#(touch x)");
        odd.session = "4:s,1:0,".to_owned();
        odd.window_name = ",\u{e9}:".to_owned();
        odd.stable_id = None;
        odd.pid = None;
        odd.session_last_attached = 1_700_000_000;
        let panes = vec![pane(1, b"/home/me"), odd];
        assert_eq!(parse_listing(&render_listing(&panes)), Ok(panes));
        assert_eq!(parse_listing(b""), Ok(Vec::new()));
    }

    #[test]
    fn a_newline_or_tab_in_a_directory_makes_only_that_directory_unknown() {
        let forged_record = b"\n2:s9,1:0,1:0,1:0,1:1,0:,0:,1:0,1:1,2:%9,4:/tmp,0:,0:,0:,";
        for control in [
            &b"\n"[..],
            b"\t",
            b"\r",
            b"\x1b",
            b"\x7f",
            "\u{85}".as_bytes(),
        ] {
            let mut cwd = b"/tmp/x".to_vec();
            cwd.extend_from_slice(control);
            cwd.extend_from_slice(forged_record);
            let bytes = render_listing(&[pane(1, b"/ok"), pane(2, &cwd)]);
            assert_eq!(
                parse_listing(&bytes),
                Ok(vec![pane(1, b"/ok"), pane(2, b"")]),
                "{control:?}"
            );
            let mut session = pane(2, b"/ok");
            session.session = format!("s{}", String::from_utf8_lossy(control));
            assert_eq!(
                parse_listing(&render_listing(&[pane(1, b"/ok"), session])),
                Err(ListingError::ControlCharacter {
                    record: 1,
                    field: Field::SessionName
                }),
                "{control:?}"
            );
        }
    }

    #[test]
    fn text_that_is_not_framed_as_asked_is_refused_not_skipped() {
        let good = render_listing(&[pane(1, b"/a")]);
        let old_style = b"work\t0\t1\t0\t1\tb25d,80x24,0,0,1\t0\t1\t%1\t/a\tzsh\t\t42\n";
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("tab-separated", old_style.to_vec()),
            ("truncated", good[..good.len() - 1].to_vec()),
            ("a length past the end", good.replacen(b"2:/a", b"9:/a")),
            ("a short length", good.replacen(b"2:/a", b"1:/a")),
            ("a leading zero", good.replacen(b"2:/a", b"02:/a")),
            ("a trailing record", [&good[..], b"x\n"].concat()),
        ];
        for (label, bytes) in cases {
            assert!(
                matches!(parse_listing(&bytes), Err(ListingError::Framing { .. })),
                "{label}: {:?}",
                parse_listing(&bytes)
            );
        }
        let value = |from: &[u8], to: &[u8]| parse_listing(&good.replacen(from, to));
        assert!(matches!(
            value(b"2:%1", b"2:x1"),
            Err(ListingError::Value { .. })
        ));
        assert!(matches!(
            value(b"1:1,1:1,", b"1:1,1:2,"),
            Err(ListingError::Value { .. })
        ));
        let twice = render_listing(&[pane(1, b"/a"), pane(1, b"/b")]);
        assert_eq!(
            parse_listing(&twice),
            Err(ListingError::Duplicate { record: 1 })
        );
    }

    trait ReplaceN {
        fn replacen(&self, from: &[u8], to: &[u8]) -> Vec<u8>;
    }

    impl ReplaceN for Vec<u8> {
        fn replacen(&self, from: &[u8], to: &[u8]) -> Vec<u8> {
            let at = self
                .windows(from.len())
                .position(|w| w == from)
                .expect("the pattern is in the listing");
            [&self[..at], to, &self[at + from.len()..]].concat()
        }
    }

    proptest! {
        #[test]
        fn values_read_back_exactly_and_a_directory_with_controls_as_unknown(
            cwd in proptest::collection::vec(any::<u8>(), 0..40),
            session in "[^\\p{Cc}]{0,12}",
            name in "[^\\p{Cc}]{0,12}",
        ) {
            let mut p = pane(3, &cwd);
            p.session = session;
            p.window_name = name;
            let read = parse_listing(&render_listing(std::slice::from_ref(&p)));
            if has_control(&cwd) {
                p.cwd = PathBuf::new();
                prop_assert_eq!(read, Ok(vec![p]));
            } else {
                prop_assert_eq!(read, Ok(vec![p]));
            }
        }

        #[test]
        fn no_bytes_yield_more_records_than_newlines(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(panes) = parse_listing(&bytes) {
                prop_assert!(panes.len() <= bytes.iter().filter(|b| **b == b'\n').count());
            }
        }
    }
}
