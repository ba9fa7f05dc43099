//! One `agent_sessions` row: encoding a [`Recording`] and decoding it back,
//! re-validating everything, since any process of the user can write the
//! file.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use agent_resume_core::{
    AgentKind, Catalog, DirIdentity, PaneId, RecordedFlag, Recording, Stored, UnixMillis,
};
use rusqlite::types::ValueRef;

/// One raw column value, as SQLite stores it (its storage class): what
/// [`decode_values`] decodes. Text may be any bytes (invalid UTF-8
/// included), as any process that can write the file may leave it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Column<'a> {
    /// NULL.
    Null,
    /// An integer.
    Integer(i64),
    /// A real.
    Real(f64),
    /// Text, raw bytes.
    Text(&'a [u8]),
    /// A blob.
    Blob(&'a [u8]),
}

impl<'a> Column<'a> {
    fn of(v: ValueRef<'a>) -> Column<'a> {
        match v {
            ValueRef::Null => Column::Null,
            ValueRef::Integer(i) => Column::Integer(i),
            ValueRef::Real(r) => Column::Real(r),
            ValueRef::Text(t) => Column::Text(t),
            ValueRef::Blob(b) => Column::Blob(b),
        }
    }
}
use rusqlite::Row;

/// What the store holds for one pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowState {
    /// A row that decoded and whose session id passed its agent's shape.
    /// Its flags and program are still re-validated by the builder.
    Recording(Recording),
    /// A row that is there but cannot be used: for this pane only it counts
    /// as "no recording". The row stays on disk until a clear or the sweep.
    Unreadable(Unreadable),
}

impl RowState {
    /// As core's restore input: the reason an unreadable row is unreadable
    /// is dropped there (restore has one skip reason for all of them).
    pub fn into_stored(self) -> Stored {
        match self {
            RowState::Recording(r) => Stored::Recording(r),
            RowState::Unreadable(_) => Stored::Unreadable,
        }
    }

    /// The recording, when readable.
    pub fn recording(&self) -> Option<&Recording> {
        match self {
            RowState::Recording(r) => Some(r),
            RowState::Unreadable(_) => None,
        }
    }
}

/// Why a row is unreadable. Closed: a new reason is reviewed everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Unreadable {
    /// `agent` is NULL (the writer could not serialize it).
    AgentMissing = 1,
    /// `agent` is not the code of a declared agent, or not an integer.
    AgentUnknown = 2,
    /// `session_id` is missing or fails the agent's id shape.
    SessionId = 3,
    /// `flags` is NULL or not a JSON list of flags.
    Flags = 4,
    /// `program` is not text.
    Program = 5,
    /// `cwd` is missing, empty or not bytes.
    Directory = 6,
    /// `observed_at` is not an integer.
    ObservedAt = 7,
    /// `config_home` is not bytes.
    ConfigHome = 8,
    /// The directory identity is partly there, or of the wrong types.
    DirIdentity = 9,
}

impl Unreadable {
    /// Every variant.
    pub const VARIANTS: &'static [Unreadable] = &[
        Unreadable::AgentMissing,
        Unreadable::AgentUnknown,
        Unreadable::SessionId,
        Unreadable::Flags,
        Unreadable::Program,
        Unreadable::Directory,
        Unreadable::ObservedAt,
        Unreadable::ConfigHome,
        Unreadable::DirIdentity,
    ];

    /// The stable lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Unreadable::AgentMissing => "agent-missing",
            Unreadable::AgentUnknown => "agent-unknown",
            Unreadable::SessionId => "session-id",
            Unreadable::Flags => "flags",
            Unreadable::Program => "program",
            Unreadable::Directory => "directory",
            Unreadable::ObservedAt => "observed-at",
            Unreadable::ConfigHome => "config-home",
            Unreadable::DirIdentity => "directory-identity",
        }
    }
}

/// The columns, in the order [`decode`] reads them ([`decode_values`] takes
/// all but the pane, in this order).
pub(crate) const COLUMNS: &str = "pane, agent, session_id, flags, program, cwd, observed_at, \
     config_home, dir_canonical, dir_volume, dir_inode";

/// How many values [`decode_values`] takes: every column but the pane.
pub const VALUES: usize = 10;

/// A recording as bound parameters. `agent` and `flags` degrade to NULL
/// when they cannot be serialized, instead of failing the batch.
pub(crate) struct Encoded {
    pub agent: Option<i64>,
    pub flags: Option<String>,
    pub cwd: Vec<u8>,
    pub config_home: Option<Vec<u8>>,
    /// `(canonical, volume, inode)`, the numbers as SQLite's signed
    /// integers (bit for bit).
    pub dir: Option<(Vec<u8>, i64, i64)>,
}

pub(crate) fn encode(r: &Recording) -> Encoded {
    Encoded {
        agent: Some(i64::from(r.agent.code())),
        flags: serde_json::to_string(&r.flags).ok(),
        cwd: r.cwd.as_os_str().as_bytes().to_vec(),
        config_home: r
            .config_home
            .as_ref()
            .map(|p| p.as_os_str().as_bytes().to_vec()),
        dir: r.dir.as_ref().map(|d| {
            (
                d.canonical.as_os_str().as_bytes().to_vec(),
                d.volume as i64,
                d.inode as i64,
            )
        }),
    }
}

fn bytes(v: Column<'_>) -> Option<&[u8]> {
    match v {
        Column::Blob(b) | Column::Text(b) => Some(b),
        Column::Null | Column::Integer(_) | Column::Real(_) => None,
    }
}

fn text(v: Column<'_>) -> Option<&str> {
    match v {
        Column::Text(b) => std::str::from_utf8(b).ok(),
        Column::Null | Column::Integer(_) | Column::Real(_) | Column::Blob(_) => None,
    }
}

/// The pane of a row: `None` when the key is not a pane id (the row cannot
/// be attributed to any pane; the sweep removes it).
pub(crate) fn pane(row: &Row<'_>) -> rusqlite::Result<Option<PaneId>> {
    Ok(text(Column::of(row.get_ref(0)?)).and_then(|s| s.parse().ok()))
}

/// Decodes columns 1.. of a row selected with [`COLUMNS`].
pub(crate) fn decode(row: &Row<'_>) -> rusqlite::Result<RowState> {
    decode_cached(row, &mut FlagsCache::default())
}

/// [`decode`] for many rows: the flags JSON of each distinct text is parsed
/// once (rows of one machine share a handful of flag sets).
pub(crate) fn decode_cached(row: &Row<'_>, cache: &mut FlagsCache) -> rusqlite::Result<RowState> {
    let mut values = [Column::Null; VALUES];
    for (i, v) in values.iter_mut().enumerate() {
        *v = Column::of(row.get_ref(i + 1)?);
    }
    Ok(match decode_recording(values, cache) {
        Ok(r) => RowState::Recording(r),
        Err(why) => RowState::Unreadable(why),
    })
}

/// Parsed flags by their exact JSON text, for one load. Bounded: past
/// [`FlagsCache::MAX`] distinct texts the rest are parsed each time. A
/// clone shares the flags' texts ([`RecordedFlag`] holds `Arc<str>`), so
/// each row costs one allocation for its list, none for its texts.
#[derive(Default)]
pub(crate) struct FlagsCache(
    HashMap<Box<str>, Option<Vec<RecordedFlag>>>,
    /// The text asked last (its buffer reused) and its flags: rows in a row
    /// often share one text, and a compare is cheaper than hashing it.
    Option<(String, Option<Vec<RecordedFlag>>)>,
);

impl FlagsCache {
    const MAX: usize = 1024;

    /// The flags of a `flags` column value: `None` unless it is UTF-8 text
    /// holding a JSON list of flags.
    fn parse(&mut self, value: Column<'_>) -> Option<Vec<RecordedFlag>> {
        let Column::Text(bytes) = value else {
            return None;
        };
        // Bytes equal to the last text are that text: valid UTF-8 already.
        if let Some((text, flags)) = &self.1 {
            if text.as_bytes() == bytes {
                return flags.clone();
            }
        }
        let json = std::str::from_utf8(bytes).ok()?;
        let flags = match self.0.get(json) {
            Some(flags) => flags.clone(),
            None => {
                let flags = serde_json::from_str::<Vec<RecordedFlag>>(json).ok();
                if self.0.len() < Self::MAX {
                    self.0.insert(json.into(), flags.clone());
                }
                flags
            }
        };
        let last = self.1.get_or_insert_with(Default::default);
        last.0.clear();
        last.0.push_str(json);
        last.1.clone_from(&flags);
        flags
    }
}

/// Decodes one row from its raw column values, in the table's column order
/// after the pane: `[agent, session_id, flags, program, cwd, observed_at,
/// config_home, dir_canonical, dir_volume, dir_inode]`. Pure (no connection), so any values can be fed to it: a
/// row decodes to a recording whose session id passes its agent's shape, or
/// to the first reason it is unreadable.
pub fn decode_values(values: [Column<'_>; VALUES]) -> RowState {
    match decode_recording(values, &mut FlagsCache::default()) {
        Ok(r) => RowState::Recording(r),
        Err(why) => RowState::Unreadable(why),
    }
}

fn decode_recording(
    values: [Column<'_>; VALUES],
    cache: &mut FlagsCache,
) -> Result<Recording, Unreadable> {
    let [agent, session_id, flags, program, cwd, observed_at, config_home, dir_canonical, dir_volume, dir_inode] =
        values;
    let agent = match agent {
        Column::Null => return Err(Unreadable::AgentMissing),
        Column::Integer(code) => u16::try_from(code)
            .ok()
            .and_then(AgentKind::from_code)
            .ok_or(Unreadable::AgentUnknown)?,
        Column::Real(_) | Column::Text(_) | Column::Blob(_) => {
            return Err(Unreadable::AgentUnknown)
        }
    };
    let decl = Catalog::embedded().agent(agent);
    let session_id = text(session_id)
        .filter(|id| decl.id_shape.matches(id))
        .ok_or(Unreadable::SessionId)?;
    let flags = cache.parse(flags).ok_or(Unreadable::Flags)?;
    let program = match program {
        Column::Null => None,
        v => Some(text(v).ok_or(Unreadable::Program)?.to_owned()),
    };
    let cwd = bytes(cwd)
        .filter(|b| !b.is_empty())
        .ok_or(Unreadable::Directory)?;
    let Column::Integer(observed_at) = observed_at else {
        return Err(Unreadable::ObservedAt);
    };
    let config_home = match config_home {
        Column::Null => None,
        v => Some(PathBuf::from(OsStr::from_bytes(
            bytes(v).ok_or(Unreadable::ConfigHome)?,
        ))),
    };
    let dir = match (dir_canonical, dir_volume, dir_inode) {
        (Column::Null, Column::Null, Column::Null) => None,
        (canonical, Column::Integer(volume), Column::Integer(inode)) => Some(DirIdentity {
            canonical: PathBuf::from(OsStr::from_bytes(
                bytes(canonical)
                    .filter(|b| b.first() == Some(&b'/'))
                    .ok_or(Unreadable::DirIdentity)?,
            )),
            volume: volume as u64,
            inode: inode as u64,
        }),
        _ => return Err(Unreadable::DirIdentity),
    };
    Ok(Recording {
        agent,
        session_id: session_id.to_owned(),
        flags,
        program,
        cwd: PathBuf::from(OsStr::from_bytes(cwd)),
        observed_at: UnixMillis(observed_at),
        config_home,
        dir,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_reasons_have_distinct_names() {
        let names: std::collections::BTreeSet<_> =
            Unreadable::VARIANTS.iter().map(|u| u.as_str()).collect();
        assert_eq!(names.len(), Unreadable::VARIANTS.len());
    }

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

    fn claude_row<'a>() -> [Column<'a>; VALUES] {
        [
            Column::Integer(i64::from(AgentKind::Claude.code())),
            Column::Text(ID.as_bytes()),
            Column::Text(br#"[{"name":"--model","value":"opus"}]"#),
            Column::Null,
            Column::Blob(b"/w\xff"),
            Column::Integer(7),
            Column::Null,
            Column::Blob(b"/w\xff"),
            Column::Integer(-3),
            Column::Integer(42),
        ]
    }

    #[test]
    fn encoded_recording_decodes_back_from_its_values() {
        let RowState::Recording(r) = decode_values(claude_row()) else {
            panic!("a well-formed row decodes");
        };
        assert_eq!(r.cwd.as_os_str().as_bytes(), b"/w\xff");
        let dir = r.dir.clone().expect("an identity");
        assert_eq!((dir.volume, dir.inode), (u64::MAX - 2, 42), "bit for bit");
        let e = encode(&r);
        let flags = e.flags.expect("flags serialize");
        let (canonical, volume, inode) = e.dir.clone().expect("an identity");
        let again = decode_values([
            Column::Integer(e.agent.expect("a code")),
            Column::Text(r.session_id.as_bytes()),
            Column::Text(flags.as_bytes()),
            Column::Null,
            Column::Blob(&e.cwd),
            Column::Integer(r.observed_at.0),
            Column::Null,
            Column::Blob(&canonical),
            Column::Integer(volume),
            Column::Integer(inode),
        ]);
        assert_eq!(again, RowState::Recording(r));
    }

    #[test]
    fn a_row_without_any_identity_column_decodes_with_no_identity() {
        let mut row = claude_row();
        row[7..].fill(Column::Null);
        let RowState::Recording(r) = decode_values(row) else {
            panic!("a row from before identities decodes");
        };
        assert_eq!(r.dir, None);
    }

    #[test]
    fn flags_json_is_parsed_once_per_distinct_text_and_decodes_alike() {
        let mut cache = FlagsCache::default();
        let texts: [&[u8]; 4] = [
            br#"[{"name":"--model","value":"opus"}]"#,
            br#"[{"name":"--model","value":"opus"}]"#,
            br#"[{"name":"--effort","value":"high"}]"#,
            b"{}",
        ];
        for t in texts {
            let mut row = claude_row();
            row[2] = Column::Text(t);
            let cached = match decode_recording(row, &mut cache) {
                Ok(r) => RowState::Recording(r),
                Err(why) => RowState::Unreadable(why),
            };
            assert_eq!(cached, decode_values(row));
        }
        assert_eq!(cache.0.len(), 3, "two flag sets and one unreadable text");
    }

    #[test]
    fn decode_values_names_the_first_unreadable_column() {
        for (column, value, want) in [
            (0, Column::Null, Unreadable::AgentMissing),
            (0, Column::Integer(0), Unreadable::AgentUnknown),
            (0, Column::Integer(-1), Unreadable::AgentUnknown),
            (0, Column::Text(b"1"), Unreadable::AgentUnknown),
            (1, Column::Text(b"$(id)"), Unreadable::SessionId),
            (1, Column::Blob(ID.as_bytes()), Unreadable::SessionId),
            (2, Column::Null, Unreadable::Flags),
            (2, Column::Text(b"{}"), Unreadable::Flags),
            (3, Column::Blob(b"/bin/claude"), Unreadable::Program),
            (3, Column::Text(b"\xff"), Unreadable::Program),
            (4, Column::Blob(b""), Unreadable::Directory),
            (4, Column::Integer(1), Unreadable::Directory),
            (5, Column::Real(1.0), Unreadable::ObservedAt),
            (6, Column::Integer(1), Unreadable::ConfigHome),
            (7, Column::Null, Unreadable::DirIdentity),
            (7, Column::Blob(b"relative"), Unreadable::DirIdentity),
            (8, Column::Null, Unreadable::DirIdentity),
            (9, Column::Text(b"42"), Unreadable::DirIdentity),
        ] {
            let mut row = claude_row();
            row[column] = value;
            assert_eq!(
                decode_values(row),
                RowState::Unreadable(want),
                "{column}: {value:?}"
            );
        }
    }
}
