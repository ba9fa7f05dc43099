//! Arm and take: a pane's resume invocation held as data until its shell is
//! ready, taken exactly once, also across processes.
//!
//! `take` is one `DELETE … RETURNING` statement: SQLite serializes writers,
//! so of any number of processes racing for a pane exactly one gets the row.
//! A `UNIQUE (agent, session_id)` constraint with `INSERT OR REPLACE` makes
//! arming a session id for one pane drop its arm for any other pane, in the
//! same statement.

use agent_resume_core::{AgentKind, PaneId, TakeKey, UnixMillis};
use rusqlite::{params, OptionalExtension};

use crate::error::{TakeError, WriteError};
use crate::open::Store;

/// An armed invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Armed {
    /// The pane it is for.
    pub pane: PaneId,
    /// The agent.
    pub agent: AgentKind,
    /// The session it resumes.
    pub session_id: String,
    /// The words of the resume invocation. Untrusted when read back: a
    /// take rebuilds and re-validates them (`agent_resume_engine::take`);
    /// no quoted line is stored, so none can be handed back.
    pub argv: Vec<String>,
    /// When it was armed.
    pub armed_at: UnixMillis,
    /// When the recording it was built from was observed.
    pub observed_at: UnixMillis,
}

/// Where a pane that `tmux restore --recreate` creates may take its line
/// from without naming the pane: the key handed to the pane's first
/// process, and the server (its key, as `tmux servers` shows it) the pane
/// was created on. Both must match at take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket<'a> {
    /// The single-use key.
    pub key: TakeKey,
    /// The tmux server's key.
    pub server: &'a str,
}

impl Store {
    /// Arms the invocation `argv` for `pane`, replacing the pane's
    /// previous arm and any other pane's arm of the same session id.
    pub fn arm(&self, armed: &Armed) -> Result<(), WriteError> {
        self.arm_with(armed, None)
    }

    /// [`Store::arm`], and the line may also be taken with `ticket`
    /// ([`Store::take_ticket`]). Arming the pane again without a ticket
    /// drops it.
    pub fn arm_with(&self, armed: &Armed, ticket: Option<Ticket<'_>>) -> Result<(), WriteError> {
        self.writable()?;
        let argv = serde_json::to_string(&armed.argv).unwrap_or_else(|_| "[]".into());
        self.conn
            .execute(
                "INSERT OR REPLACE INTO armed \
             (pane, agent, session_id, argv, armed_at, observed_at, take_key, take_server) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    armed.pane.to_string(),
                    armed.agent.code(),
                    armed.session_id,
                    argv,
                    armed.armed_at.0,
                    armed.observed_at.0,
                    ticket.map(|t| t.key.to_string()),
                    ticket.map(|t| t.server),
                ],
            )
            .map_err(WriteError::sqlite)?;
        Ok(())
    }

    /// Takes the pane's armed invocation, exactly once across every process:
    /// one `DELETE … RETURNING` statement. Refused on an untrusted or
    /// read-only database (nothing is taken then).
    pub fn take(&self, pane: PaneId) -> Result<Option<Armed>, TakeError> {
        self.take_where("pane = ?1", &[&pane.to_string()], None)
    }

    /// [`Store::take`] at `now`, by the pane's id or (with `ticket`) by its
    /// key: in the same transaction, a pane whose restore queued no more
    /// agents than its cap starts now (nothing can make it wait), so its
    /// take's turn costs no write of its own.
    pub fn take_at(
        &self,
        pane: Option<PaneId>,
        ticket: Option<Ticket<'_>>,
        now: UnixMillis,
    ) -> Result<Option<Armed>, TakeError> {
        match (ticket, pane) {
            (Some(t), _) => self.take_where(
                "take_key = ?1 AND take_server = ?2",
                &[&t.key.to_string(), &t.server],
                Some(now),
            ),
            (None, Some(p)) => self.take_where("pane = ?1", &[&p.to_string()], Some(now)),
            (None, None) => Ok(None),
        }
    }

    /// Takes the invocation armed with `ticket` — its key on its server —
    /// exactly once, as [`Store::take`]: a key presented on another server
    /// takes nothing, and a key is gone once its line is taken either way.
    pub fn take_ticket(&self, ticket: Ticket<'_>) -> Result<Option<Armed>, TakeError> {
        self.take_where(
            "take_key = ?1 AND take_server = ?2",
            &[&ticket.key.to_string(), &ticket.server],
            None,
        )
    }

    fn take_where(
        &self,
        condition: &'static str,
        values: &[&dyn rusqlite::ToSql],
        started: Option<UnixMillis>,
    ) -> Result<Option<Armed>, TakeError> {
        if let Some(why) = self.distrust() {
            return Err(TakeError::Untrusted(why));
        }
        if let Some(why) = self.read_only() {
            return Err(TakeError::ReadOnly(why));
        }
        if self.schema_version() == 0 {
            // Still being created: nothing can have been armed.
            return Ok(None);
        }
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(TakeError::sqlite)?;
        let row = tx
            .query_row(
                &format!(
                    "DELETE FROM armed WHERE {condition} \
                     RETURNING pane, agent, session_id, argv, armed_at, observed_at"
                ),
                values,
                |r| {
                    Ok((
                        r.get::<_, String>(0).ok(),
                        r.get::<_, i64>(1).ok(),
                        r.get::<_, String>(2).ok(),
                        r.get::<_, String>(3).ok(),
                        r.get::<_, i64>(4).ok(),
                        r.get::<_, i64>(5).ok(),
                    ))
                },
            )
            .optional()
            .map_err(TakeError::sqlite)?;
        if let (Some(now), Some((Some(pane), ..))) = (started, &row) {
            tx.execute(crate::resume::STARTED_UNCAPPED, params![pane, now.0])
                .map_err(TakeError::sqlite)?;
        }
        tx.commit().map_err(TakeError::sqlite)?;
        let Some((pane, agent, session_id, argv, armed_at, observed_at)) = row else {
            return Ok(None);
        };
        let pane = pane.and_then(|p| p.parse::<PaneId>().ok());
        let agent = agent
            .and_then(|c| u16::try_from(c).ok())
            .and_then(AgentKind::from_code);
        let argv = argv.and_then(|a| serde_json::from_str::<Vec<String>>(&a).ok());
        match (pane, agent, session_id, argv, armed_at, observed_at) {
            (Some(pane), Some(agent), Some(session_id), Some(argv), Some(at), Some(observed)) => {
                Ok(Some(Armed {
                    pane,
                    agent,
                    session_id,
                    argv,
                    armed_at: UnixMillis(at),
                    observed_at: UnixMillis(observed),
                }))
            }
            _ => Err(TakeError::Unreadable),
        }
    }

    /// Drops the pane's armed invocation, if any (the pane closed for good).
    pub fn disarm(&self, pane: PaneId) -> Result<bool, WriteError> {
        self.writable()?;
        let n = self
            .conn
            .execute("DELETE FROM armed WHERE pane = ?1", [pane.to_string()])
            .map_err(WriteError::sqlite)?;
        Ok(n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armed(pane: u8, id: &str) -> Armed {
        Armed {
            pane: PaneId::from_bytes([pane; 16]),
            agent: AgentKind::Claude,
            session_id: id.into(),
            argv: vec!["claude".into(), "--resume".into(), id.into()],
            armed_at: UnixMillis(7),
            observed_at: UnixMillis(5),
        }
    }

    #[test]
    fn an_armed_invocation_is_taken_exactly_once() {
        let store = Store::open_in_memory().expect("store");
        let a = armed(1, "f6066ebb-140e-4519-ab63-b9cde0b60b57");
        store.arm(&a).expect("arms");
        assert_eq!(store.take(a.pane).expect("takes"), Some(a.clone()));
        assert_eq!(store.take(a.pane).expect("takes"), None);
    }

    #[test]
    fn arming_a_session_id_for_one_pane_disarms_it_elsewhere() {
        let store = Store::open_in_memory().expect("store");
        let id = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
        store.arm(&armed(1, id)).expect("arms");
        store.arm(&armed(2, id)).expect("arms");
        assert_eq!(
            store.take(PaneId::from_bytes([1; 16])).expect("takes"),
            None
        );
        assert!(store
            .take(PaneId::from_bytes([2; 16]))
            .expect("takes")
            .is_some());
    }

    const KEY: &str = "0b9e4a1c-7d2f-4e8a-9c3b-5f6a7b8c9d0e";

    fn ticket(server: &str) -> Ticket<'_> {
        Ticket {
            key: KEY.parse().expect("a key"),
            server,
        }
    }

    #[test]
    fn a_ticket_takes_its_line_once_and_only_on_its_server() {
        let store = Store::open_in_memory().expect("store");
        let a = armed(1, "a");
        store.arm_with(&a, Some(ticket("work"))).expect("arms");
        let other = Ticket {
            key: "1b9e4a1c-7d2f-4e8a-9c3b-5f6a7b8c9d0e"
                .parse()
                .expect("a key"),
            server: "work",
        };
        assert_eq!(
            store.take_ticket(other).expect("takes"),
            None,
            "another key"
        );
        assert_eq!(
            store.take_ticket(ticket("default")).expect("takes"),
            None,
            "another server"
        );
        assert_eq!(
            store.take_ticket(ticket("work")).expect("takes"),
            Some(a.clone())
        );
        assert_eq!(
            store.take_ticket(ticket("work")).expect("takes"),
            None,
            "once"
        );
        assert_eq!(store.take(a.pane).expect("takes"), None, "gone by pane too");
    }

    #[test]
    fn a_line_armed_with_a_ticket_is_still_taken_by_its_pane_and_the_ticket_is_gone() {
        let store = Store::open_in_memory().expect("store");
        let a = armed(1, "a");
        store.arm_with(&a, Some(ticket("work"))).expect("arms");
        assert_eq!(store.take(a.pane).expect("takes"), Some(a.clone()));
        store
            .arm_with(&a, Some(ticket("work")))
            .expect("arms again");
        // Armed again without a ticket (a later restore): the key is dropped.
        store.arm(&a).expect("arms without");
        assert_eq!(store.take_ticket(ticket("work")).expect("takes"), None);
        assert_eq!(store.take(a.pane).expect("takes"), Some(a));
    }

    #[test]
    fn disarm_drops_only_that_pane() {
        let store = Store::open_in_memory().expect("store");
        store.arm(&armed(1, "a")).expect("arms");
        store.arm(&armed(2, "b")).expect("arms");
        assert!(store.disarm(PaneId::from_bytes([1; 16])).expect("disarms"));
        assert!(!store.disarm(PaneId::from_bytes([1; 16])).expect("no-op"));
        assert_eq!(store.counts().expect("counts").armed, 1);
    }

    #[test]
    fn an_unreadable_armed_row_is_consumed_and_reported() {
        let store = Store::open_in_memory().expect("store");
        let a = armed(1, "a");
        store.arm(&a).expect("arms");
        store
            .conn
            .execute("UPDATE armed SET argv = 'not json'", [])
            .expect("corrupts");
        assert!(matches!(store.take(a.pane), Err(TakeError::Unreadable)));
        assert_eq!(store.take(a.pane).expect("gone"), None);
    }
}
