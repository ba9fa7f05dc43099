//! Following a restore's queue to its end: each pane as its agent starts
//! and as it is proven (or not) to have reached its conversation, one
//! telemetry event per started pane, and a summary with timings.

use std::time::Duration;

use agent_resume_core::stagger::{proof, Proof, READY_WAIT};
use agent_resume_core::{AgentKind, Event, Outcome, PaneId, TelemetrySink, UnixMillis};
use agent_resume_store::{OpenOptions, Resume};

use crate::paths::Overrides;

/// How long a watch follows a queue at most.
pub const WATCH_AT_MOST: Duration = Duration::from_secs(180);

/// Between two reads of the queue.
const POLL: Duration = Duration::from_millis(100);

/// What happened to one pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Its agent started, this long after the restore queued it.
    Started {
        /// Milliseconds since the queue was made.
        after: i64,
    },
    /// Its resume is decided.
    Settled {
        /// What became of it.
        proof: Proof,
        /// Milliseconds since the queue was made.
        after: i64,
    },
    /// Its line was never handed out (the take refused or dropped it, or
    /// the pane never reached a prompt in time).
    NotStarted,
}

/// A restore's queue at its end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Panes queued.
    pub queued: usize,
    /// Proven on their conversation.
    pub confirmed: usize,
    /// On another conversation, or nothing reported in time.
    pub not_confirmed: usize,
    /// Ended at once.
    pub exited: usize,
    /// Never started.
    pub not_started: usize,
    /// Milliseconds from the queue to the first pane's report (the pane in
    /// front), when it reported.
    pub first_ready: Option<i64>,
    /// Milliseconds from the queue to the last pane settled.
    pub all_settled: i64,
    /// The most agents starting at one moment.
    pub peak_starting: usize,
}

/// The telemetry outcome of a decided proof.
fn outcome(p: Proof) -> Option<Outcome> {
    match p {
        Proof::Confirmed => Some(Outcome::ResumeConfirmed),
        Proof::OtherConversation | Proof::Unconfirmed => Some(Outcome::ResumeNotConfirmed),
        Proof::ExitedAtOnce => Some(Outcome::ResumeExited),
        Proof::Pending => None,
    }
}

/// How long a row whose line was taken must stay unstarted to count as
/// never started: its take marks the start just after it takes the line.
const TAKEN_UNSTARTED: i64 = 2_000;

/// Where a row stands: `None` while undecided. `gone` is how long the
/// pane's armed line has been seen gone (taken or dropped), if it is.
fn settled(r: &Resume, gone: Option<i64>, now: UnixMillis, last: bool) -> Option<Seen> {
    let q = &r.queued;
    let Some(started) = q.started_at else {
        let given_up = gone.is_some_and(|g| g >= TAKEN_UNSTARTED) && q.waiting_at.is_none();
        return (given_up || last).then_some(Seen::NotStarted);
    };
    let p = proof(
        started,
        r.reported_id.as_deref(),
        &r.session_id,
        q.ended_at,
        now,
    );
    let p = match (p, last) {
        (Proof::Pending, true) => Proof::Unconfirmed,
        (p, _) => p,
    };
    let at = q
        .reported_at
        .or(q.ended_at)
        .unwrap_or(now)
        .0
        .saturating_sub(q.queued_at.0);
    (p != Proof::Pending).then_some(Seen::Settled {
        proof: p,
        after: at,
    })
}

/// The most rows starting at one moment: a row starts at its start and
/// stops at its report, its end or [`READY_WAIT`] later, whichever is
/// first.
pub fn peak_starting(rows: &[Resume]) -> usize {
    let mut edges: Vec<(i64, i32)> = Vec::new();
    for r in rows {
        let Some(s) = r.queued.started_at else {
            continue;
        };
        let mut end = s.0.saturating_add(READY_WAIT);
        for t in [r.queued.reported_at, r.queued.ended_at]
            .into_iter()
            .flatten()
        {
            end = end.min(t.0.max(s.0));
        }
        edges.push((s.0, 1));
        edges.push((end, -1));
    }
    // Ends before starts at one instant: a slot freed and taken at once
    // was never two.
    edges.sort_by_key(|(t, d)| (*t, *d));
    let (mut now, mut peak) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        peak = peak.max(now);
    }
    usize::try_from(peak).unwrap_or(0)
}

/// Follows queue `queue` until every pane is settled or
/// [`WATCH_AT_MOST`] passed: `seen` hears of each pane as it starts and
/// as it settles; one event per started pane goes to `sink`. A store that
/// cannot be opened ends the watch at once.
pub fn watch(
    o: &Overrides,
    queue: &str,
    clock: &dyn Fn() -> UnixMillis,
    sink: &mut dyn TelemetrySink,
    seen: &mut dyn FnMut(PaneId, Option<AgentKind>, Seen),
) -> Summary {
    let mut summary = Summary::default();
    let Some(store) = crate::paths::db(o)
        .ok()
        .and_then(|db| OpenOptions::default().open_existing(&db).ok().flatten())
    else {
        return summary;
    };
    let deadline = std::time::Instant::now() + WATCH_AT_MOST;
    let mut started = std::collections::HashSet::new();
    let mut done = std::collections::HashMap::new();
    let mut gone_since = std::collections::HashMap::new();
    let rows = loop {
        let last = std::time::Instant::now() >= deadline;
        let now = clock();
        let rows = store.resumes(queue).unwrap_or_default();
        for r in &rows {
            if done.contains_key(&r.pane) {
                continue;
            }
            if let Some(s) = r.queued.started_at {
                if started.insert(r.pane) {
                    let after = s.0.saturating_sub(r.queued.queued_at.0);
                    seen(r.pane, r.agent, Seen::Started { after });
                }
            }
            let gone = if store.is_armed(r.pane).unwrap_or(false) {
                None
            } else {
                let since = *gone_since.entry(r.pane).or_insert(now);
                Some(since.until(now))
            };
            if let Some(s) = settled(r, gone, now, last) {
                if let (Seen::Settled { proof, .. }, Some(agent)) = (s, r.agent) {
                    if let Some(outcome) = outcome(proof) {
                        let age = Some(r.observed_at.until(now));
                        sink.emit(&Event::at_take(agent, outcome, false, age));
                    }
                }
                seen(r.pane, r.agent, s);
                done.insert(r.pane, s);
            }
        }
        if last || done.len() >= rows.len() {
            break rows;
        }
        std::thread::sleep(POLL);
    };
    summary.queued = rows.len();
    for s in done.values() {
        match s {
            Seen::Settled {
                proof: Proof::Confirmed,
                ..
            } => summary.confirmed += 1,
            Seen::Settled {
                proof: Proof::ExitedAtOnce,
                ..
            } => summary.exited += 1,
            Seen::Settled { .. } => summary.not_confirmed += 1,
            Seen::NotStarted | Seen::Started { .. } => summary.not_started += 1,
        }
    }
    summary.first_ready = rows.first().and_then(|r| {
        r.queued
            .reported_at
            .map(|t| t.0.saturating_sub(r.queued.queued_at.0))
    });
    summary.all_settled = done
        .values()
        .filter_map(|s| match s {
            Seen::Settled { after, .. } => Some(*after),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    summary.peak_starting = peak_starting(&rows);
    summary
}

/// The summary as one line.
pub fn summary_line(s: &Summary) -> String {
    let secs = |ms: i64| format!("{:.1}s", ms as f64 / 1000.0);
    let mut text = format!(
        "{} agent(s) resumed: {} confirmed, {} not confirmed, {} exited at once",
        s.queued - s.not_started,
        s.confirmed,
        s.not_confirmed,
        s.exited
    );
    if s.not_started > 0 {
        text.push_str(&format!(", {} not started", s.not_started));
    }
    if let Some(first) = s.first_ready {
        text.push_str(&format!("; first ready in {}", secs(first)));
    }
    text.push_str(&format!(
        "; all settled in {}; at most {} starting at once",
        secs(s.all_settled),
        s.peak_starting
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_resume_core::stagger::Queued;

    fn row(started: i64, reported: Option<i64>, ended: Option<i64>) -> Resume {
        Resume {
            pane: PaneId::from_bytes([1; 16]),
            agent: Some(AgentKind::Claude),
            session_id: "a".into(),
            observed_at: UnixMillis(0),
            queued: Queued {
                started_at: Some(UnixMillis(started)),
                reported_at: reported.map(UnixMillis),
                ended_at: ended.map(UnixMillis),
                ..Queued::default()
            },
            reported_id: reported.map(|_| "a".into()),
            status: None,
        }
    }

    #[test]
    fn the_peak_counts_overlapping_starts_only() {
        assert_eq!(peak_starting(&[]), 0);
        let serial = [row(0, Some(100), None), row(100, Some(200), None)];
        assert_eq!(peak_starting(&serial), 1);
        let overlapping = [
            row(0, Some(100), None),
            row(50, None, Some(80)),
            row(60, None, None),
        ];
        assert_eq!(peak_starting(&overlapping), 3);
        // Unreported, it stops counting after the ready wait.
        let late = [row(0, None, None), row(READY_WAIT, None, None)];
        assert_eq!(peak_starting(&late), 1);
    }

    #[test]
    fn a_row_settles_by_its_proof_and_a_never_started_one_once_its_line_is_gone() {
        let now = UnixMillis(100);
        assert!(matches!(
            settled(&row(0, Some(10), None), Some(0), now, false),
            Some(Seen::Settled {
                proof: Proof::Confirmed,
                after: 10
            })
        ));
        assert_eq!(settled(&row(0, None, None), Some(0), now, false), None);
        assert!(matches!(
            settled(&row(0, None, None), Some(0), now, true),
            Some(Seen::Settled {
                proof: Proof::Unconfirmed,
                ..
            })
        ));
        let mut waiting = row(0, None, None);
        waiting.queued.started_at = None;
        assert_eq!(settled(&waiting, None, now, false), None);
        // Just taken: its start is about to be marked.
        assert_eq!(settled(&waiting, Some(10), now, false), None);
        assert_eq!(
            settled(&waiting, Some(TAKEN_UNSTARTED), now, false),
            Some(Seen::NotStarted)
        );
    }
}
