//! The resume queue: each armed pane's place in its restore's order, and
//! what became of its agent (`migrations/0011_create_resumes.sql`).
//!
//! The decisions are core's ([`agent_resume_core::stagger`]); this module
//! keeps the rows. A take's step ([`Store::turn_step`]) reads its row and
//! its restore's others and marks its start in one `IMMEDIATE`
//! transaction, so of any number of takes deciding at once no more than
//! the cap go. The agent's own first report for the pane after its start
//! ([`Store::resume_reported`]) proves the resume; a restore's queue
//! replaces the rows of its panes.

use agent_resume_core::stagger::{Queued, Turn};
use agent_resume_core::{AgentKind, PaneId, UnixMillis};
use rusqlite::{params, OptionalExtension, TransactionBehavior};

use crate::error::WriteError;
use crate::open::Store;

/// One pane a restore queues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueRow {
    /// The pane.
    pub pane: PaneId,
    /// Its place in the order: 0 starts first.
    pub rank: u32,
    /// The agent.
    pub agent: AgentKind,
    /// The conversation it resumes.
    pub session_id: String,
    /// When that recording was observed.
    pub observed_at: UnixMillis,
}

/// A queued pane and what became of it, as read back. Untrusted: every
/// value was read from the database and checked for its type only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resume {
    /// The pane.
    pub pane: PaneId,
    /// The agent, when its code is known.
    pub agent: Option<AgentKind>,
    /// The conversation it resumes.
    pub session_id: String,
    /// When that recording was observed.
    pub observed_at: UnixMillis,
    /// The row's times.
    pub queued: Queued,
    /// The conversation the first report after the start named.
    pub reported_id: Option<String>,
    /// The resumed agent's exit status.
    pub status: Option<i64>,
}

/// What one step of a waiting take found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The pane is in no restore's queue: go.
    NotQueued,
    /// Its turn: the start is marked.
    Go,
    /// Not yet.
    Wait,
}

/// Core's turn decision: the pane, the other rows, the cap, the time.
pub type Decide = dyn Fn(&Queued, &[Queued], u32, UnixMillis) -> Turn;

const COLUMNS: &str = "pane, agent, session_id, observed_at, rank, queued_at, waiting_at, \
     started_at, reported_at, ended_at, reported_id, status";

fn millis(v: Option<i64>) -> Option<UnixMillis> {
    v.map(UnixMillis)
}

/// A row as read, or `None` when a value is not what the schema says.
fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<Resume>> {
    let pane = r
        .get::<_, String>(0)
        .ok()
        .and_then(|p| p.parse::<PaneId>().ok());
    let agent = r
        .get::<_, i64>(1)
        .ok()
        .and_then(|c| u16::try_from(c).ok())
        .and_then(AgentKind::from_code);
    let session_id = r.get::<_, String>(2).ok();
    let observed = r.get::<_, i64>(3).ok();
    let rank = r.get::<_, i64>(4).ok().and_then(|n| u32::try_from(n).ok());
    let queued_at = r.get::<_, i64>(5).ok();
    let (Some(pane), Some(session_id), Some(observed), Some(rank), Some(queued_at)) =
        (pane, session_id, observed, rank, queued_at)
    else {
        return Ok(None);
    };
    let opt = |i| r.get::<_, Option<i64>>(i).ok().flatten();
    Ok(Some(Resume {
        pane,
        agent,
        session_id,
        observed_at: UnixMillis(observed),
        queued: Queued {
            rank,
            queued_at: UnixMillis(queued_at),
            waiting_at: millis(opt(6)),
            started_at: millis(opt(7)),
            reported_at: millis(opt(8)),
            ended_at: millis(opt(9)),
        },
        reported_id: r.get::<_, Option<String>>(10).ok().flatten(),
        status: opt(11),
    }))
}

/// What one look at a pane's row found.
enum Look {
    /// No row, or one that does not read as the schema says.
    NotQueued,
    /// Its take went before.
    Started,
    /// Waiting: the pane's row, the other rows of its restore, the cap.
    Queued {
        me: Queued,
        others: Vec<Queued>,
        cap: u32,
    },
}

/// Reads `pane`'s row and the other rows of its restore.
fn look(conn: &rusqlite::Connection, pane: &str) -> rusqlite::Result<Look> {
    let mine = conn
        .query_row(
            "SELECT restore, cap, rank, queued_at, waiting_at, started_at FROM resumes \
             WHERE pane = ?1",
            [pane],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                ))
            },
        )
        .optional();
    // A row that does not read as the schema says queues nothing.
    let Ok(Some((restore, cap, rank, queued_at, waiting_at, started_at))) = mine else {
        return Ok(Look::NotQueued);
    };
    if started_at.is_some() {
        return Ok(Look::Started);
    }
    let Ok(rank) = u32::try_from(rank) else {
        return Ok(Look::NotQueued);
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM resumes WHERE restore = ?1 AND pane != ?2"
    ))?;
    let others = stmt
        .query_map(params![restore, pane], read_row)?
        .filter_map(|r| r.ok().flatten().map(|r| r.queued))
        .collect();
    Ok(Look::Queued {
        me: Queued {
            rank,
            queued_at: UnixMillis(queued_at),
            waiting_at: millis(waiting_at),
            ..Queued::default()
        },
        others,
        cap: u32::try_from(cap).unwrap_or(1),
    })
}

impl Store {
    /// Queues `rows` as restore `restore`, starting at most `cap` agents
    /// at once; a pane queued before is queued afresh.
    pub fn queue(
        &mut self,
        restore: &str,
        cap: u32,
        now: UnixMillis,
        rows: &[QueueRow],
    ) -> Result<(), WriteError> {
        self.writable()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(WriteError::sqlite)?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO resumes \
                     (pane, restore, rank, cap, agent, session_id, observed_at, queued_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(WriteError::sqlite)?;
            for r in rows {
                insert
                    .execute(params![
                        r.pane.to_string(),
                        restore,
                        r.rank,
                        cap,
                        r.agent.code(),
                        r.session_id,
                        r.observed_at.0,
                        now.0
                    ])
                    .map_err(WriteError::sqlite)?;
            }
        }
        tx.commit().map_err(WriteError::sqlite)
    }

    /// One step of `pane`'s waiting take at the time `clock` says:
    /// `decide` (core's [`agent_resume_core::stagger::turn`]) is asked with
    /// the pane's row, the other rows of its restore and the cap; a go
    /// marks the start. Inside the transaction the clock is read again,
    /// once the write lock is held: a take that waited for the lock never
    /// dates its start before the start of the take that held it.
    ///
    /// A take that already waits and still has to looks without writing or
    /// taking the write lock: fifty waiting takes cost the writers
    /// nothing. Its first look, and any go, decide again inside one
    /// `IMMEDIATE` transaction, so no more than the cap go at once.
    pub fn turn_step(
        &mut self,
        pane: PaneId,
        clock: &dyn Fn() -> UnixMillis,
        decide: &Decide,
    ) -> Result<Step, WriteError> {
        let now = clock();
        self.writable()?;
        if self.schema_version() == 0 {
            return Ok(Step::NotQueued);
        }
        let id = pane.to_string();
        match look(&self.conn, &id).map_err(WriteError::sqlite)? {
            Look::NotQueued => return Ok(Step::NotQueued),
            Look::Started => return Ok(Step::Go),
            Look::Queued { me, others, cap } if me.waiting_at.is_some() => {
                if decide(&me, &others, cap, now) == Turn::Wait {
                    return Ok(Step::Wait);
                }
            }
            Look::Queued { .. } => {}
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(WriteError::sqlite)?;
        let (me, others, cap) = match look(&tx, &id).map_err(WriteError::sqlite)? {
            Look::NotQueued => return Ok(Step::NotQueued),
            Look::Started => return Ok(Step::Go),
            Look::Queued { me, others, cap } => (me, others, cap),
        };
        let now = clock().max(now);
        let waiting_at = me.waiting_at.unwrap_or(now);
        let me = Queued {
            waiting_at: Some(waiting_at),
            ..me
        };
        let step = match decide(&me, &others, cap, now) {
            Turn::Go => {
                tx.execute(
                    "UPDATE resumes SET waiting_at = ?2, started_at = ?3 WHERE pane = ?1",
                    params![id, waiting_at.0, now.0],
                )
                .map_err(WriteError::sqlite)?;
                Step::Go
            }
            Turn::Wait => {
                tx.execute(
                    "UPDATE resumes SET waiting_at = ?2 WHERE pane = ?1",
                    params![id, waiting_at.0],
                )
                .map_err(WriteError::sqlite)?;
                Step::Wait
            }
        };
        tx.commit().map_err(WriteError::sqlite)?;
        Ok(step)
    }

    /// Marks that the agent resumed in `pane` ended with `status`.
    pub fn resume_ended(
        &self,
        pane: PaneId,
        status: i64,
        now: UnixMillis,
    ) -> Result<bool, WriteError> {
        self.writable()?;
        let n = self
            .conn
            .execute(
                "UPDATE resumes SET ended_at = ?2, status = ?3 \
                 WHERE pane = ?1 AND started_at IS NOT NULL AND ended_at IS NULL",
                params![pane.to_string(), now.0, status],
            )
            .map_err(WriteError::sqlite)?;
        Ok(n > 0)
    }

    /// Marks that the agent in `pane` reported conversation `id` at `now`:
    /// the first report after the pane's resume started proves it, or a
    /// later one of the resumed conversation after one of another. Reads
    /// first, so a pane with no resume waiting for its report costs no
    /// write.
    pub fn resume_reported(
        &self,
        pane: PaneId,
        id: &str,
        now: UnixMillis,
    ) -> Result<bool, WriteError> {
        if self.schema_version() == 0 {
            return Ok(false);
        }
        let key = pane.to_string();
        let waiting = self
            .conn
            .query_row(
                "SELECT 1 FROM resumes WHERE pane = ?1 AND started_at IS NOT NULL \
                 AND (reported_at IS NULL OR reported_id IS NOT session_id)",
                [&key],
                |_| Ok(()),
            )
            .optional()
            .map_err(WriteError::sqlite)?;
        if waiting.is_none() {
            return Ok(false);
        }
        self.writable()?;
        let n = self
            .conn
            .execute(REPORTED, params![key, now.0, id])
            .map_err(WriteError::sqlite)?;
        Ok(n > 0)
    }

    /// The panes whose resume started at or after `since` and has neither
    /// been reported on its conversation nor ended: a scan looks for their agents' own word
    /// even where this run is already recorded.
    pub fn awaiting_report(
        &self,
        since: UnixMillis,
    ) -> Result<std::collections::BTreeSet<PaneId>, WriteError> {
        if self.schema_version() == 0 {
            return Ok(std::collections::BTreeSet::new());
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT pane FROM resumes WHERE started_at >= ?1 \
                 AND (reported_at IS NULL OR reported_id IS NOT session_id) \
                 AND ended_at IS NULL",
            )
            .map_err(WriteError::sqlite)?;
        let rows = stmt
            .query_map([since.0], |r| r.get::<_, String>(0))
            .map_err(WriteError::sqlite)?;
        Ok(rows
            .filter_map(|r| r.ok().and_then(|p| p.parse::<PaneId>().ok()))
            .collect())
    }

    /// Every readable row of restore `restore`, in rank order.
    pub fn resumes(&self, restore: &str) -> Result<Vec<Resume>, WriteError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM resumes WHERE restore = ?1 ORDER BY rank"
            ))
            .map_err(WriteError::sqlite)?;
        let rows = stmt
            .query_map([restore], read_row)
            .map_err(WriteError::sqlite)?;
        Ok(rows.filter_map(|r| r.ok().flatten()).collect())
    }

    /// Whether `pane` still has an armed line (its take has not run).
    pub fn is_armed(&self, pane: PaneId) -> Result<bool, WriteError> {
        self.conn
            .query_row(
                "SELECT 1 FROM armed WHERE pane = ?1",
                [pane.to_string()],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
            .map_err(WriteError::sqlite)
    }
}

/// A take's start, in the take's own transaction, for a pane whose
/// restore queued no more agents than its cap: no turn can make it wait.
pub(crate) const STARTED_UNCAPPED: &str = "UPDATE resumes SET waiting_at = ?2, started_at = ?2 \
     WHERE pane = ?1 AND started_at IS NULL \
     AND cap >= (SELECT count(*) FROM resumes AS r WHERE r.restore = resumes.restore)";

/// The first report for a started pane names the conversation its agent
/// runs; a later report of the resumed conversation replaces one of
/// another (an agent may name a fresh session a moment before it loads the
/// resumed one).
const REPORTED: &str = "UPDATE resumes SET reported_at = ?2, reported_id = ?3 \
     WHERE pane = ?1 AND started_at IS NOT NULL \
     AND (reported_at IS NULL OR (reported_id IS NOT session_id AND ?3 = session_id))";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::Set;
    use agent_resume_core::stagger::turn;

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

    fn row(n: u8, rank: u32) -> QueueRow {
        QueueRow {
            pane: PaneId::from_bytes([n; 16]),
            rank,
            agent: AgentKind::Claude,
            session_id: ID.into(),
            observed_at: UnixMillis(1),
        }
    }

    #[test]
    fn takes_go_in_rank_order_no_more_than_the_cap_at_once() {
        let mut store = Store::open_in_memory().expect("store");
        let rows: Vec<QueueRow> = (0..3).map(|n| row(n, u32::from(n))).collect();
        store.queue("r", 1, UnixMillis(0), &rows).expect("queues");
        let p = |n| PaneId::from_bytes([n; 16]);
        // The last arrives first: the first is still within its grace.
        assert!(matches!(
            store
                .turn_step(p(2), &|| UnixMillis(10), &turn)
                .expect("step"),
            Step::Wait
        ));
        assert_eq!(
            store
                .turn_step(p(0), &|| UnixMillis(20), &turn)
                .expect("step"),
            Step::Go
        );
        assert!(matches!(
            store
                .turn_step(p(1), &|| UnixMillis(30), &turn)
                .expect("step"),
            Step::Wait
        ));
        // The first reports its conversation: the next goes.
        let rec = agent_resume_core::Recording {
            agent: AgentKind::Claude,
            session_id: ID.into(),
            flags: Vec::new(),
            program: None,
            cwd: "/".into(),
            observed_at: UnixMillis(40),
            config_home: None,
            dir: None,
        };
        store.apply(&[Set::save(p(0), rec)]).expect("records");
        // A recording written proves nothing: only the agent's report does.
        assert!(matches!(
            store
                .turn_step(p(1), &|| UnixMillis(35), &turn)
                .expect("step"),
            Step::Wait
        ));
        assert!(store
            .resume_reported(p(0), ID, UnixMillis(40))
            .expect("reports"));
        assert_eq!(
            store
                .turn_step(p(1), &|| UnixMillis(50), &turn)
                .expect("step"),
            Step::Go
        );
        assert!(matches!(
            store
                .turn_step(p(2), &|| UnixMillis(60), &turn)
                .expect("step"),
            Step::Wait
        ));
        // A later report of another conversation changes nothing.
        assert!(!store
            .resume_reported(p(0), "other", UnixMillis(45))
            .expect("reports"));
        let read = store.resumes("r").expect("reads");
        assert_eq!(read[0].reported_id.as_deref(), Some(ID));
        assert_eq!(read[0].queued.reported_at, Some(UnixMillis(40)));
        assert_eq!(read[1].queued.started_at, Some(UnixMillis(50)));
        assert!(store.resume_ended(p(1), 1, UnixMillis(70)).expect("ends"));
        assert_eq!(
            store
                .turn_step(p(2), &|| UnixMillis(80), &turn)
                .expect("step"),
            Step::Go
        );
        // A pane in no queue goes.
        assert_eq!(
            store
                .turn_step(p(9), &|| UnixMillis(90), &turn)
                .expect("step"),
            Step::NotQueued
        );
    }

    #[test]
    fn a_report_of_another_conversation_gives_way_to_a_later_one_of_the_resumed() {
        let mut store = Store::open_in_memory().expect("store");
        store
            .queue("r", 1, UnixMillis(0), &[row(0, 0)])
            .expect("queues");
        let p = PaneId::from_bytes([0; 16]);
        assert_eq!(
            store.turn_step(p, &|| UnixMillis(10), &turn).expect("step"),
            Step::Go
        );
        assert!(store
            .resume_reported(p, "fresh", UnixMillis(20))
            .expect("reports"));
        // Still awaited: a scan keeps looking for the agent's own word.
        assert!(store
            .awaiting_report(UnixMillis(0))
            .expect("reads")
            .contains(&p));
        assert!(store
            .resume_reported(p, ID, UnixMillis(30))
            .expect("reports"));
        let read = store.resumes("r").expect("reads");
        assert_eq!(read[0].reported_id.as_deref(), Some(ID));
        assert_eq!(read[0].queued.reported_at, Some(UnixMillis(30)));
        assert!(!store
            .awaiting_report(UnixMillis(0))
            .expect("reads")
            .contains(&p));
    }

    #[test]
    fn a_take_starts_its_pane_itself_only_where_the_cap_cannot_bind() {
        let p = |n| PaneId::from_bytes([n; 16]);
        let armed = |n: u8| crate::Armed {
            pane: p(n),
            agent: AgentKind::Claude,
            session_id: format!("f6066ebb-140e-4519-ab63-b9cde0b600{n:02}"),
            argv: vec!["claude".into()],
            armed_at: UnixMillis(0),
            observed_at: UnixMillis(0),
        };
        let mut store = Store::open_in_memory().expect("store");
        // Two panes, cap 2: nothing can wait, the take marks the start.
        store
            .queue("wide", 2, UnixMillis(0), &[row(1, 0), row(2, 1)])
            .expect("queues");
        // Three panes, cap 2: the turn decides.
        store
            .queue(
                "narrow",
                2,
                UnixMillis(0),
                &[row(3, 0), row(4, 1), row(5, 2)],
            )
            .expect("queues");
        for n in [1, 3] {
            store.arm(&armed(n)).expect("arms");
            store
                .take_at(Some(p(n)), None, UnixMillis(7))
                .expect("takes")
                .expect("a line");
        }
        let started = |queue: &str| -> Vec<Option<UnixMillis>> {
            store
                .resumes(queue)
                .expect("reads")
                .iter()
                .map(|r| r.queued.started_at)
                .collect()
        };
        assert_eq!(started("wide"), [Some(UnixMillis(7)), None]);
        assert_eq!(started("narrow"), [None, None, None]);
    }
}
