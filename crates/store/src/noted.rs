//! The capture-side small tables: one pane's row read by key (the hook's
//! hot path), invocations noted by shell integration (flags only), and the
//! per-pane sequence numbers of host report messages.

use agent_resume_core::{AgentKind, PaneId, UnixMillis};
use rusqlite::OptionalExtension;

use crate::error::{LoadError, WriteError};
use crate::open::Store;
use crate::row::{self, RowState};

/// An agent command line noted for a pane: flags only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Noted {
    /// Program word and allowlisted flags, then the agent's resume flag and
    /// the shape-checked session id when the line resumed one.
    pub argv: Vec<String>,
    /// The command line was a headless run.
    pub headless: bool,
    /// The pid of the process that launched it: the shell that ran the line,
    /// or `run`, which becomes the agent. `None`: unbound, never applied to
    /// a hook.
    pub pid: Option<u32>,
    /// When it was noted.
    pub at: UnixMillis,
}

impl Store {
    /// One pane's recording, by key: what capture compares a new
    /// observation against.
    pub fn row(&self, pane: PaneId) -> Result<Option<RowState>, LoadError> {
        let sql = format!(
            "SELECT {} FROM agent_sessions WHERE pane = ?1",
            row::COLUMNS
        );
        self.conn
            .query_row(&sql, [pane.to_string()], row::decode)
            .optional()
            .map_err(LoadError::sqlite)
    }

    /// Notes, for `pane`, the program word and allowlisted flags of the agent
    /// command line the user just ran, whether it was a headless run, and
    /// the pid of its launcher (see [`Noted::pid`]). Never the text itself:
    /// `argv` is what extraction kept, and the session id the line resumed.
    pub fn note(
        &self,
        pane: PaneId,
        agent: AgentKind,
        argv: &[String],
        headless: bool,
        pid: Option<u32>,
        at: UnixMillis,
    ) -> Result<(), WriteError> {
        self.writable()?;
        let argv = serde_json::to_string(argv).unwrap_or_else(|_| "[]".into());
        self.conn.execute(
            "INSERT OR REPLACE INTO noted (pane, agent, argv, noted_at, headless, pid) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![pane.to_string(), agent.code(), argv, at.0, headless, pid],
        ).map_err(WriteError::sqlite)?;
        Ok(())
    }

    /// What was noted for `pane` when it was noted for `agent` no earlier
    /// than `since`; anything unreadable is `None`.
    pub fn noted(&self, pane: PaneId, agent: AgentKind, since: UnixMillis) -> Option<Noted> {
        let (text, headless, pid, at): (String, bool, Option<i64>, i64) = self
            .conn
            .query_row(
                "SELECT argv, headless, pid, noted_at FROM noted WHERE pane = ?1 AND agent = ?2 AND noted_at >= ?3",
                rusqlite::params![pane.to_string(), agent.code(), since.0],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()
            .ok()
            .flatten()?;
        Some(Noted {
            argv: serde_json::from_str(&text).ok()?,
            headless,
            pid: pid.and_then(|p| u32::try_from(p).ok()),
            at: UnixMillis(at),
        })
    }

    /// Whether the last agent command line noted for `pane` (since `since`)
    /// was a headless run: its exit must not clear the pane's recording.
    pub fn last_noted_headless(&self, pane: PaneId, since: UnixMillis) -> bool {
        self.conn
            .query_row(
                "SELECT headless FROM noted WHERE pane = ?1 AND noted_at >= ?2",
                rusqlite::params![pane.to_string(), since.0],
                |r| r.get::<_, bool>(0),
            )
            .unwrap_or(false)
    }

    /// Records `seq` as the pane's newest report when it is above the last
    /// one applied; `false` means the report is late or replayed. One
    /// statement, so racing receivers agree.
    pub fn accept_seq(&self, pane: PaneId, seq: u64) -> Result<bool, WriteError> {
        self.writable()?;
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        let n = self.conn.execute(
            "INSERT INTO report_seq (pane, seq) VALUES (?1, ?2) \
             ON CONFLICT (pane) DO UPDATE SET seq = excluded.seq WHERE excluded.seq > report_seq.seq",
            rusqlite::params![pane.to_string(), seq],
        ).map_err(WriteError::sqlite)?;
        Ok(n == 1)
    }
}

impl Store {
    /// Replaces `host`'s layout snapshot, in its own table: recordings are
    /// never touched by a layout save.
    pub fn save_host_layout(
        &self,
        host: &str,
        layout: &str,
        at: UnixMillis,
    ) -> Result<(), WriteError> {
        self.writable()?;
        self.conn
            .execute(
                "INSERT OR REPLACE INTO host_layouts (host, layout, saved_at) VALUES (?1, ?2, ?3)",
                rusqlite::params![host, layout, at.0],
            )
            .map_err(WriteError::sqlite)?;
        Ok(())
    }

    /// `host`'s last layout snapshot and when it was saved: what a host
    /// recreates sessions, windows and panes from, so it passes the same
    /// trust check as recordings and armed rows. An untrusted database
    /// yields `Err` with why, and nothing is read from it; a database still
    /// being created (or one without the table) has no snapshot.
    pub fn host_layout(&self, host: &str) -> Result<Option<(String, UnixMillis)>, crate::Distrust> {
        if let Some(why) = self.distrust() {
            return Err(why);
        }
        if self.schema_version() == 0 {
            return Ok(None);
        }
        Ok(self
            .conn
            .query_row(
                "SELECT layout, saved_at FROM host_layouts WHERE host = ?1",
                [host],
                |r| Ok((r.get::<_, String>(0)?, UnixMillis(r.get(1)?))),
            )
            .optional()
            .ok()
            .flatten())
    }

    /// Every saved layout snapshot whose host key starts with `prefix`, with
    /// when it was saved, in key order (`tmux servers`). The same trust
    /// check as [`Store::host_layout`]; keys are data, never a pattern.
    pub fn host_layouts(&self, prefix: &str) -> Result<Vec<(String, UnixMillis)>, crate::Distrust> {
        if let Some(why) = self.distrust() {
            return Err(why);
        }
        if self.schema_version() == 0 {
            return Ok(Vec::new());
        }
        let Ok(mut stmt) = self.conn.prepare(
            "SELECT host, saved_at FROM host_layouts \
             WHERE substr(host, 1, length(?1)) = ?1 ORDER BY host",
        ) else {
            return Ok(Vec::new());
        };
        let Ok(rows) = stmt.query_map([prefix], |r| {
            Ok((r.get::<_, String>(0)?, UnixMillis(r.get(1)?)))
        }) else {
            return Ok(Vec::new());
        };
        Ok(rows.filter_map(Result::ok).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(n: u8) -> PaneId {
        PaneId::from_bytes([n; 16])
    }

    #[test]
    fn report_seq_must_increase_strictly_per_pane() {
        let s = Store::open_in_memory().expect("store");
        assert!(s.accept_seq(pane(1), 5).expect("writes"));
        assert!(
            !s.accept_seq(pane(1), 5).expect("writes"),
            "a replay is dropped"
        );
        assert!(
            !s.accept_seq(pane(1), 4).expect("writes"),
            "a late report is dropped"
        );
        assert!(s.accept_seq(pane(1), 6).expect("writes"));
        assert!(
            s.accept_seq(pane(2), 1).expect("writes"),
            "panes are independent"
        );
    }

    #[test]
    fn noted_argv_is_per_pane_and_agent_and_not_stale() {
        let s = Store::open_in_memory().expect("store");
        let argv = vec!["claude".to_owned(), "--model".to_owned(), "opus".to_owned()];
        s.note(
            pane(1),
            AgentKind::Claude,
            &argv,
            false,
            Some(4242),
            UnixMillis(100),
        )
        .expect("notes");
        assert_eq!(
            s.noted(pane(1), AgentKind::Claude, UnixMillis(50)),
            Some(Noted {
                argv,
                headless: false,
                pid: Some(4242),
                at: UnixMillis(100),
            })
        );
        assert_eq!(s.noted(pane(1), AgentKind::Codex, UnixMillis(50)), None);
        assert_eq!(s.noted(pane(1), AgentKind::Claude, UnixMillis(101)), None);
        assert_eq!(s.noted(pane(2), AgentKind::Claude, UnixMillis(0)), None);
        assert!(!s.last_noted_headless(pane(1), UnixMillis(0)));
        s.note(
            pane(1),
            AgentKind::Claude,
            &["claude".to_owned()],
            true,
            None,
            UnixMillis(200),
        )
        .expect("notes");
        assert!(s.last_noted_headless(pane(1), UnixMillis(0)));
        assert!(!s.last_noted_headless(pane(1), UnixMillis(201)), "stale");
    }

    #[test]
    fn host_layout_save_replaces_the_snapshot_and_leaves_recordings_alone() {
        let s = Store::open_in_memory().expect("store");
        assert_eq!(s.host_layout("tmux"), Ok(None));
        s.save_host_layout("tmux", "{\"a\":1}", UnixMillis(1))
            .expect("saves");
        s.save_host_layout("tmux", "{\"a\":2}", UnixMillis(2))
            .expect("saves");
        assert_eq!(
            s.host_layout("tmux"),
            Ok(Some(("{\"a\":2}".to_owned(), UnixMillis(2))))
        );
        assert_eq!(s.counts().expect("counts").recordings, 0);
    }

    #[test]
    fn one_row_reads_by_key() {
        let s = Store::open_in_memory().expect("store");
        assert_eq!(s.row(pane(1)).expect("reads"), None);
    }
}
