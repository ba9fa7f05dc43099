//! The reader of OpenCode's database (and its forks'): the `session` table, opened
//! read-only (`SQLITE_OPEN_READ_ONLY`, `query_only`): nothing is ever
//! written to it. Columns are looked up first, so a version that renamed
//! or dropped an optional one still lists what it has; child sessions
//! (`parent_id` set) are sub-agents, not conversations, and are left out.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;
use rusqlite::{Connection, OpenFlags};

use crate::json::number_time;
use crate::read::Depth;
use crate::store::{id_ok, mtime};
use crate::text::{clean, MAX_TEXT};
use crate::{Problem, SessionInfo};

fn open(db: &Path) -> Result<Connection, Problem> {
    // A FIFO or device in the database's place is refused without
    // blocking; SQLite then opens the regular file found there.
    match crate::file::open(db, crate::file::Kind::Session) {
        Ok(_) => {}
        Err(e) if e.is_missing() => return Err(Problem::StoreMissing),
        Err(_) => return Err(Problem::StoreUnreadable),
    }
    let c = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|_| Problem::StoreUnreadable)?;
    c.pragma_update(None, "query_only", true)
        .map_err(|_| Problem::StoreUnreadable)?;
    let _ = c.busy_timeout(std::time::Duration::from_millis(200));
    Ok(c)
}

fn columns(c: &Connection, table: &str) -> BTreeSet<String> {
    let Ok(mut st) = c.prepare(&format!("PRAGMA table_info({table})")) else {
        return BTreeSet::new();
    };
    st.query_map([], |r| r.get::<_, String>(1))
        .map(|rows| rows.filter_map(Result::ok).collect())
        .unwrap_or_default()
}

/// Every top-level session of `agent` in the database.
pub fn list(
    agent: AgentKind,
    db: &Path,
    depth: Depth,
) -> Result<(Vec<SessionInfo>, Vec<PathBuf>), Problem> {
    let c = open(db)?;
    let cols = columns(&c, "session");
    if !cols.contains("id") {
        return Err(Problem::StoreUnreadable);
    }
    let pick = |name: &str| {
        if cols.contains(name) {
            name.to_owned()
        } else {
            "NULL".to_owned()
        }
    };
    let filter = if cols.contains("parent_id") {
        " WHERE parent_id IS NULL"
    } else {
        ""
    };
    // Only fixed column names from this list reach the statement.
    let sql = format!(
        "SELECT id, {}, {}, {}, {} FROM session{filter}",
        pick("directory"),
        pick("title"),
        pick("time_created"),
        pick("time_updated"),
    );
    let counts = if depth == Depth::Full {
        message_counts(&c)
    } else {
        HashMap::new()
    };
    let fallback = mtime(db).unwrap_or(agent_resume_core::UnixMillis(0));
    let mut st = c.prepare(&sql).map_err(|_| Problem::StoreUnreadable)?;
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, Option<String>>(0).ok().flatten(),
                r.get::<_, Option<String>>(1).ok().flatten(),
                r.get::<_, Option<String>>(2).ok().flatten(),
                r.get::<_, Option<i64>>(3).ok().flatten(),
                r.get::<_, Option<i64>>(4).ok().flatten(),
            ))
        })
        .map_err(|_| Problem::StoreUnreadable)?;
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for row in rows {
        let Ok((id, dir, title, created, updated)) = row else {
            continue;
        };
        let Some(id) = id.filter(|id| id_ok(agent, id)) else {
            bad.push(db.to_path_buf());
            continue;
        };
        let message_count = (depth == Depth::Full).then(|| counts.get(&id).copied().unwrap_or(0));
        out.push(SessionInfo {
            agent,
            cwd: dir.map(PathBuf::from).filter(|p| p.is_absolute()),
            title: title.as_deref().and_then(|t| clean(t, MAX_TEXT)),
            first_prompt: None,
            modified: updated.or(created).map_or(fallback, number_time),
            started: created.map(number_time),
            message_count,
            path: db.to_path_buf(),
            id,
        });
    }
    Ok((out, bad))
}

fn message_counts(c: &Connection) -> HashMap<String, u32> {
    if !columns(c, "message").contains("session_id") {
        return HashMap::new();
    }
    let Ok(mut st) = c.prepare("SELECT session_id, count(*) FROM message GROUP BY session_id")
    else {
        return HashMap::new();
    };
    st.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            u32::try_from(r.get::<_, i64>(1)?).unwrap_or(u32::MAX),
        ))
    })
    .map(|rows| rows.filter_map(Result::ok).collect())
    .unwrap_or_default()
}

/// Whether the database holds `id`: `None` when it cannot tell.
pub fn exists(db: &Path, id: &str) -> Option<bool> {
    let c = open(db).ok()?;
    c.query_row("SELECT count(*) FROM session WHERE id = ?1", [id], |r| {
        r.get::<_, i64>(0)
    })
    .ok()
    .map(|n| n > 0)
}
