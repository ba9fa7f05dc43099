//! Raw `agent_sessions` column values for `store_row`, and a recording
//! written back as the store's writer binds it.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use agent_resume_core::Recording;
use agent_resume_store::{Column, VALUES};
use rusqlite::types::Value;

/// Separates the column fields of a `store_row` input (the byte U+001F).
pub const COLUMN: u8 = 0x1f;

/// The ten values `decode_values` takes (agent, session_id, flags,
/// program, cwd, observed_at, config_home, dir_canonical, dir_volume,
/// dir_inode), from `data` split on
/// [`COLUMN`]; a missing field is NULL. A field's first byte is its type:
/// `n` NULL, `i` integer, `r` real, `t` text, `b` blob (any other byte `b`
/// picks `b % 5` in that order). Integers and reals are the decimal rest
/// (an integer that is not decimal takes up to 8 bytes, little-endian);
/// text and blobs are the raw rest, so text may be invalid UTF-8, as any
/// process that can write the file may leave it.
pub fn row_values(data: &[u8]) -> [Column<'_>; VALUES] {
    let mut fields = data.split(|b| *b == COLUMN);
    std::array::from_fn(|_| fields.next().map_or(Column::Null, column))
}

fn column(field: &[u8]) -> Column<'_> {
    let Some((&tag, rest)) = field.split_first() else {
        return Column::Null;
    };
    let kind = match tag {
        b'n' => 0,
        b'i' => 1,
        b'r' => 2,
        b't' => 3,
        b'b' => 4,
        b => b % 5,
    };
    let decimal = std::str::from_utf8(rest).unwrap_or_default();
    match kind {
        1 => Column::Integer(decimal.parse().unwrap_or_else(|_| {
            let mut le = [0; 8];
            le.iter_mut().zip(rest).for_each(|(d, s)| *d = *s);
            i64::from_le_bytes(le)
        })),
        2 => Column::Real(decimal.parse().unwrap_or(0.0)),
        3 => Column::Text(rest),
        4 => Column::Blob(rest),
        _ => Column::Null,
    }
}

/// `r` as the writer binds it (written out here, not taken from the store):
/// the agent's code, the id as text, the flags as JSON text, the program as
/// text or NULL, the directory and config home as raw bytes.
pub fn encode_row(r: &Recording) -> [Value; VALUES] {
    let bytes = |p: &Path| Value::Blob(p.as_os_str().as_bytes().to_vec());
    [
        Value::Integer(r.agent.code().into()),
        Value::Text(r.session_id.clone()),
        Value::Text(serde_json::to_string(&r.flags).expect("flags are strings, so they serialize")),
        r.program.clone().map_or(Value::Null, Value::Text),
        bytes(&r.cwd),
        Value::Integer(r.observed_at.0),
        r.config_home.as_deref().map_or(Value::Null, bytes),
        r.dir.as_ref().map_or(Value::Null, |d| bytes(&d.canonical)),
        r.dir.as_ref().map_or(Value::Null, |d| Value::Integer(d.volume as i64)),
        r.dir.as_ref().map_or(Value::Null, |d| Value::Integer(d.inode as i64)),
    ]
}

/// A bound value as the decoder reads it back.
pub fn as_column(v: &Value) -> Column<'_> {
    match v {
        Value::Null => Column::Null,
        Value::Integer(i) => Column::Integer(*i),
        Value::Real(r) => Column::Real(*r),
        Value::Text(t) => Column::Text(t.as_bytes()),
        Value::Blob(b) => Column::Blob(b),
    }
}
