//! One `agent_sessions` row: encoding a [`Recording`] and decoding it back,
//! re-validating everything, since any process of the user can write the
//! file.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use agent_resume_core::{AgentKind, Catalog, PaneId, RecordedFlag, Recording, Stored, UnixMillis};
use rusqlite::types::ValueRef;
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
        }
    }
}

/// The columns, in the order [`decode`] reads them.
pub(crate) const COLUMNS: &str =
    "pane, agent, session_id, flags, program, cwd, observed_at, config_home";

/// A recording as bound parameters. `agent` and `flags` degrade to NULL
/// when they cannot be serialized, instead of failing the batch.
pub(crate) struct Encoded {
    pub agent: Option<i64>,
    pub flags: Option<String>,
    pub cwd: Vec<u8>,
    pub config_home: Option<Vec<u8>>,
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
    }
}

fn bytes(v: ValueRef<'_>) -> Option<&[u8]> {
    match v {
        ValueRef::Blob(b) | ValueRef::Text(b) => Some(b),
        ValueRef::Null | ValueRef::Integer(_) | ValueRef::Real(_) => None,
    }
}

fn text(v: ValueRef<'_>) -> Option<&str> {
    match v {
        ValueRef::Text(b) => std::str::from_utf8(b).ok(),
        ValueRef::Null | ValueRef::Integer(_) | ValueRef::Real(_) | ValueRef::Blob(_) => None,
    }
}

/// The pane of a row: `None` when the key is not a pane id (the row cannot
/// be attributed to any pane; the sweep removes it).
pub(crate) fn pane(row: &Row<'_>) -> rusqlite::Result<Option<PaneId>> {
    Ok(text(row.get_ref(0)?).and_then(|s| s.parse().ok()))
}

/// Decodes columns 1.. of a row selected with [`COLUMNS`].
pub(crate) fn decode(row: &Row<'_>) -> rusqlite::Result<RowState> {
    Ok(match decode_recording(row)? {
        Ok(r) => RowState::Recording(r),
        Err(why) => RowState::Unreadable(why),
    })
}

fn decode_recording(row: &Row<'_>) -> rusqlite::Result<Result<Recording, Unreadable>> {
    let agent = match row.get_ref(1)? {
        ValueRef::Null => return Ok(Err(Unreadable::AgentMissing)),
        ValueRef::Integer(code) => match u16::try_from(code).ok().and_then(AgentKind::from_code) {
            Some(kind) => kind,
            None => return Ok(Err(Unreadable::AgentUnknown)),
        },
        ValueRef::Real(_) | ValueRef::Text(_) | ValueRef::Blob(_) => {
            return Ok(Err(Unreadable::AgentUnknown))
        }
    };
    let decl = Catalog::embedded().agent(agent);
    let Some(session_id) = text(row.get_ref(2)?).filter(|id| decl.id_shape.matches(id)) else {
        return Ok(Err(Unreadable::SessionId));
    };
    let Some(flags) =
        text(row.get_ref(3)?).and_then(|json| serde_json::from_str::<Vec<RecordedFlag>>(json).ok())
    else {
        return Ok(Err(Unreadable::Flags));
    };
    let program = match row.get_ref(4)? {
        ValueRef::Null => None,
        v => match text(v) {
            Some(p) => Some(p.to_owned()),
            None => return Ok(Err(Unreadable::Program)),
        },
    };
    let Some(cwd) = bytes(row.get_ref(5)?).filter(|b| !b.is_empty()) else {
        return Ok(Err(Unreadable::Directory));
    };
    let ValueRef::Integer(observed_at) = row.get_ref(6)? else {
        return Ok(Err(Unreadable::ObservedAt));
    };
    let config_home = match row.get_ref(7)? {
        ValueRef::Null => None,
        v => match bytes(v) {
            Some(b) => Some(PathBuf::from(OsStr::from_bytes(b))),
            None => return Ok(Err(Unreadable::ConfigHome)),
        },
    };
    Ok(Ok(Recording {
        agent,
        session_id: session_id.to_owned(),
        flags,
        program,
        cwd: PathBuf::from(OsStr::from_bytes(cwd)),
        observed_at: UnixMillis(observed_at),
        config_home,
    }))
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
}
