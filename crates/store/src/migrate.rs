//! Schema migrations: plain `.sql` files in the top-level `migrations/`,
//! embedded at build time, applied in order in one transaction. The version
//! is `PRAGMA user_version` (= the number of migrations applied). A database
//! from a newer build is never migrated or downgraded.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Fault, OpenError, SqliteError};

pub use crate::schema::{Migration, LATEST, MIGRATIONS};

/// [`version`] with SQLite's own error, for this crate's callers.
pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<u32> {
    let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    // A negative or huge value is someone else's file: treat it as "future".
    Ok(u32::try_from(v).unwrap_or(u32::MAX))
}

/// Applies every pending migration in one `IMMEDIATE` transaction and
/// returns the resulting version. The version is read again inside the
/// transaction, so two processes opening a fresh file at once migrate it
/// exactly once. A version above [`LATEST`] is returned unchanged.
pub(crate) fn migrate(conn: &mut Connection) -> Result<u32, OpenError> {
    migrate_to(conn, LATEST)
}

/// [`migrate`], stopping at `target` (fixtures of older versions are made
/// with it).
pub(crate) fn migrate_to(conn: &mut Connection, target: u32) -> Result<u32, OpenError> {
    if user_version(conn).map_err(OpenError::sqlite)? >= target {
        return user_version(conn).map_err(OpenError::sqlite);
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(OpenError::sqlite)?;
    let current = user_version(&tx).map_err(OpenError::sqlite)?;
    if current >= target {
        return Ok(current);
    }
    for m in MIGRATIONS
        .iter()
        .filter(|m| m.version > current && m.version <= target)
    {
        let fail = |source: rusqlite::Error| OpenError::Migration {
            version: m.version,
            fault: Fault::of(&source),
            source: SqliteError::new(source),
        };
        tx.execute_batch(m.sql).map_err(fail)?;
        tx.pragma_update(None, "user_version", m.version)
            .map_err(fail)?;
    }
    tx.commit().map_err(OpenError::sqlite)?;
    Ok(target)
}

/// The `user_version` of the database at `path` (created empty when
/// missing, so a fresh path is version 0).
pub fn version_at(path: &Path) -> Result<u32, OpenError> {
    let conn = Connection::open(path).map_err(OpenError::sqlite)?;
    user_version(&conn).map_err(OpenError::sqlite)
}

/// Applies the pending migrations of the database at `path` up to
/// `target` ([`LATEST`] for all) in one transaction, as opening it does;
/// fixtures of older versions are made with it. Returns the version.
pub fn migrate_file_to(path: &Path, target: u32) -> Result<u32, OpenError> {
    let mut conn = Connection::open(path).map_err(OpenError::sqlite)?;
    migrate_to(&mut conn, target)
}

/// The schema of the database at `path` as text: `user_version` and every
/// table and index statement, in a stable order. `docs/schema.sql` is this
/// text for [`LATEST`].
pub fn schema_text_at(path: &Path) -> Result<String, OpenError> {
    let conn = Connection::open(path).map_err(OpenError::sqlite)?;
    schema_statements(&conn).map_err(OpenError::sqlite)
}

fn schema_statements(conn: &Connection) -> rusqlite::Result<String> {
    let mut out = String::from(
        "-- The schema of the agent-resume recordings database, as every migration in\n\
         -- migrations/ leaves it. Generated and checked by a test of agent-resume-store\n\
         -- (AGENT_RESUME_BLESS=1 rewrites it); do not edit by hand.\n\n",
    );
    out.push_str(&format!("PRAGMA user_version = {};\n", user_version(conn)?));
    let mut stmt = conn.prepare(
        "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' \
         ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name",
    )?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    for sql in rows {
        out.push('\n');
        out.push_str(&sql?);
        out.push_str(";\n");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_from_one_and_each_says_why() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1, "{}", m.name);
            assert!(
                m.name.starts_with(&format!("{:04}_", m.version)),
                "{}",
                m.name
            );
            assert!(
                m.sql.starts_with("-- "),
                "{} must open with a `--` line",
                m.name
            );
        }
    }

    #[test]
    fn migrating_twice_is_a_no_op() {
        let mut conn = Connection::open_in_memory().expect("in-memory database");
        assert_eq!(migrate(&mut conn).expect("migrates"), LATEST);
        assert_eq!(migrate(&mut conn).expect("no-op"), LATEST);
        assert_eq!(user_version(&conn).expect("version"), LATEST);
    }
}
