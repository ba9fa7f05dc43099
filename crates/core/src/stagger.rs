//! A restore's agent starts, staggered and proven: the order panes resume
//! in ([`order`]), whether a waiting pane's agent may start now ([`turn`]),
//! and what became of one that started ([`proof`]). Pure: the store keeps
//! the rows, the take and the restore ask these.
//!
//! Every pane's shell comes back at once; only the agents wait. The pane
//! in front resumes first (the focused pane of the landing window), then
//! the visible windows' panes, each window's focused pane first, then the
//! rest in layout order. At most `cap` agents are starting at once: an
//! agent counts as starting from the moment its take hands out the line
//! until the agent reports a conversation for its pane (its hook, or a
//! scan), ends, or [`READY_WAIT`] passes.
//!
//! # Example
//!
//! ```
//! use agent_resume_core::stagger::{turn, Queued, Turn};
//! use agent_resume_core::UnixMillis;
//!
//! let at = |ms| Some(UnixMillis(ms));
//! let first = Queued { rank: 0, queued_at: UnixMillis(0), waiting_at: at(10), started_at: at(10), ..Queued::default() };
//! let second = Queued { rank: 1, queued_at: UnixMillis(0), waiting_at: at(20), ..Queued::default() };
//! // One at a time: the second waits while the first is starting …
//! assert_eq!(turn(&second, &[first], 1, UnixMillis(100)), Turn::Wait);
//! // … and goes once the first reported its conversation.
//! let ready = Queued { reported_at: at(300), ..first };
//! assert_eq!(turn(&second, &[ready], 1, UnixMillis(400)), Turn::Go);
//! ```

use crate::layout::Layout;
use crate::pane::PaneId;
use crate::posture::UnixMillis;

/// How long a started agent counts as starting when it reports nothing:
/// agents without a hook, and hooks that never fire, hold a slot no longer
/// (about the time a real agent takes to draw its UI on a small machine).
pub const READY_WAIT: i64 = 3_000;

/// How long a pane ranked earlier may keep a later one waiting before its
/// own take has even arrived (its shell is still starting: on a loaded
/// machine, with every other shell of the restore starting too, seconds).
pub const GRACE: i64 = 10_000;

/// The longest any take waits for its turn: past it, it goes.
pub const MAX_WAIT: i64 = 120_000;

/// How long after its start an agent that ended counts as having ended
/// at once (the resume failed: no conversation, a refused id).
pub const AT_ONCE: i64 = 10_000;

/// How long after its start an agent has to report its conversation.
pub const CONFIRM_WAIT: i64 = 30_000;

/// One queued pane of a restore, as its row says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Queued {
    /// Its place in the order: 0 starts first.
    pub rank: u32,
    /// When the restore queued it.
    pub queued_at: UnixMillis,
    /// When its take arrived.
    pub waiting_at: Option<UnixMillis>,
    /// When its take handed out the line.
    pub started_at: Option<UnixMillis>,
    /// When its agent first reported a conversation after the start.
    pub reported_at: Option<UnixMillis>,
    /// When the resumed agent ended.
    pub ended_at: Option<UnixMillis>,
}

impl Queued {
    /// Whether it counts as starting at `now`.
    fn starting(&self, now: UnixMillis) -> bool {
        match self.started_at {
            Some(s) => {
                self.reported_at.is_none() && self.ended_at.is_none() && s.until(now) < READY_WAIT
            }
            None => false,
        }
    }

    /// Whether it has not started and may still keep later panes waiting
    /// at `now`: its take is waiting, or its shell may still be starting.
    fn ahead(&self, now: UnixMillis) -> bool {
        self.started_at.is_none()
            && (self.waiting_at.is_some() || self.queued_at.until(now) < GRACE)
    }
}

/// Whether a waiting take goes now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Turn {
    /// Hand out the line now.
    Go = 0,
    /// Ask again shortly.
    Wait = 1,
}

impl Turn {
    /// Every variant.
    pub const VARIANTS: &'static [Turn] = &[Turn::Go, Turn::Wait];
}

/// Whether `mine` (waiting) starts at `now`, given the other panes of its
/// restore: no more than `cap` starting at once, no pane ranked earlier
/// still ahead of it, and never a wait longer than [`MAX_WAIT`].
pub fn turn(mine: &Queued, others: &[Queued], cap: u32, now: UnixMillis) -> Turn {
    let since = mine.waiting_at.unwrap_or(now);
    if since.until(now) >= MAX_WAIT {
        return Turn::Go;
    }
    let starting = others.iter().filter(|q| q.starting(now)).count();
    if starting >= cap.max(1) as usize {
        return Turn::Wait;
    }
    if others.iter().any(|q| q.rank < mine.rank && q.ahead(now)) {
        return Turn::Wait;
    }
    Turn::Go
}

/// The panes of `layout` in the order they resume: the focused pane of
/// the landing window's active tab, then each visible window's active
/// tab (its focused pane first), then every other pane, in layout order.
pub fn order(layout: &Layout) -> Vec<PaneId> {
    let mut keyed: Vec<((u8, usize, u8), PaneId)> = Vec::new();
    let mut seq = 0;
    for w in &layout.windows {
        for (ti, t) in w.tabs.iter().enumerate() {
            let shown = ti == w.active_tab;
            for p in &t.panes {
                let focused = t.focused_pane == Some(p.id);
                let class = match (w.landing && shown, w.visible && shown) {
                    (true, _) if focused => 0,
                    (true, _) => 1,
                    (false, true) => 2,
                    (false, false) => 3,
                };
                keyed.push(((class, seq, u8::from(!focused)), p.id));
                seq += 1;
            }
        }
    }
    // Within a class, a tab's focused pane before its others: the layout
    // index breaks ties only after focus.
    keyed.sort_by_key(|((class, seq, unfocused), _)| (*class, *unfocused, *seq));
    keyed.into_iter().map(|(_, id)| id).collect()
}

/// What became of a started resume.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Proof {
    /// The agent reported the conversation it was resumed on.
    Confirmed = 0,
    /// The agent reported another conversation (it started a new one).
    OtherConversation = 1,
    /// Nothing reported within [`CONFIRM_WAIT`] (an agent without a hook
    /// reports only through a later scan).
    Unconfirmed = 2,
    /// The agent ended within [`AT_ONCE`] without reporting: the resume
    /// failed.
    ExitedAtOnce = 3,
    /// Still to be decided.
    Pending = 4,
}

impl Proof {
    /// Every variant.
    pub const VARIANTS: &'static [Proof] = &[
        Proof::Confirmed,
        Proof::OtherConversation,
        Proof::Unconfirmed,
        Proof::ExitedAtOnce,
        Proof::Pending,
    ];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Proof::Confirmed => "confirmed",
            Proof::OtherConversation => "other_conversation",
            Proof::Unconfirmed => "not_confirmed",
            Proof::ExitedAtOnce => "exited_at_once",
            Proof::Pending => "pending",
        }
    }
}

/// What became of a resume that started at `started`, by `now`: the
/// conversation its agent reported (`reported`, compared with `expected`)
/// and when it ended.
pub fn proof(
    started: UnixMillis,
    reported: Option<&str>,
    expected: &str,
    ended: Option<UnixMillis>,
    now: UnixMillis,
) -> Proof {
    match (reported, ended) {
        (Some(id), _) if id == expected => Proof::Confirmed,
        // Another conversation first (an agent may name a fresh session a
        // moment before it loads the resumed one): final once the agent
        // ended or the wait is over; a later report of the resumed one
        // replaces it.
        (Some(_), None) if started.until(now) < CONFIRM_WAIT => Proof::Pending,
        (Some(_), _) => Proof::OtherConversation,
        (None, Some(end)) if started.until(end) < AT_ONCE => Proof::ExitedAtOnce,
        (None, Some(_)) => Proof::Unconfirmed,
        (None, None) if started.until(now) >= CONFIRM_WAIT => Proof::Unconfirmed,
        (None, None) => Proof::Pending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{PaneSpec, Tab, Window};
    use proptest::prelude::*;

    fn at(ms: i64) -> Option<UnixMillis> {
        Some(UnixMillis(ms))
    }

    fn q(rank: u32) -> Queued {
        Queued {
            rank,
            ..Queued::default()
        }
    }

    #[test]
    fn the_cap_holds_until_an_agent_reports_ends_or_its_wait_passes() {
        let started = Queued {
            started_at: at(0),
            waiting_at: at(0),
            ..q(0)
        };
        let me = Queued {
            waiting_at: at(0),
            ..q(1)
        };
        assert_eq!(turn(&me, &[started], 1, UnixMillis(100)), Turn::Wait);
        assert_eq!(turn(&me, &[started], 2, UnixMillis(100)), Turn::Go);
        let reported = Queued {
            reported_at: at(50),
            ..started
        };
        assert_eq!(turn(&me, &[reported], 1, UnixMillis(100)), Turn::Go);
        let ended = Queued {
            ended_at: at(50),
            ..started
        };
        assert_eq!(turn(&me, &[ended], 1, UnixMillis(100)), Turn::Go);
        assert_eq!(turn(&me, &[started], 1, UnixMillis(READY_WAIT)), Turn::Go);
    }

    #[test]
    fn an_earlier_rank_goes_first_while_it_waits_or_its_shell_may_still_come() {
        let me = Queued {
            waiting_at: at(0),
            ..q(3)
        };
        let waiting = Queued {
            waiting_at: at(10),
            ..q(0)
        };
        assert_eq!(turn(&me, &[waiting], 4, UnixMillis(100)), Turn::Wait);
        // Not arrived yet: waited for only within the grace.
        assert_eq!(turn(&me, &[q(0)], 4, UnixMillis(100)), Turn::Wait);
        assert_eq!(turn(&me, &[q(0)], 4, UnixMillis(GRACE)), Turn::Go);
        // A later rank never holds an earlier one.
        let later = Queued {
            waiting_at: at(0),
            ..q(5)
        };
        assert_eq!(turn(&me, &[later], 4, UnixMillis(100)), Turn::Go);
        // Nobody waits past the bound.
        assert_eq!(turn(&me, &[waiting], 4, UnixMillis(MAX_WAIT)), Turn::Go);
    }

    #[test]
    fn the_proof_names_each_end_of_a_resume() {
        let s = UnixMillis(0);
        assert_eq!(
            proof(s, Some("a"), "a", None, UnixMillis(1)),
            Proof::Confirmed
        );
        // Another conversation is final only once the agent ended or the
        // wait is over: a later report of the resumed one may still come.
        assert_eq!(
            proof(s, Some("b"), "a", None, UnixMillis(1)),
            Proof::Pending
        );
        assert_eq!(
            proof(s, Some("b"), "a", None, UnixMillis(CONFIRM_WAIT)),
            Proof::OtherConversation
        );
        assert_eq!(
            proof(s, Some("b"), "a", at(5), UnixMillis(6)),
            Proof::OtherConversation
        );
        assert_eq!(
            proof(s, None, "a", at(500), UnixMillis(600)),
            Proof::ExitedAtOnce
        );
        assert_eq!(
            proof(s, None, "a", at(AT_ONCE), UnixMillis(AT_ONCE)),
            Proof::Unconfirmed
        );
        assert_eq!(proof(s, None, "a", None, UnixMillis(1)), Proof::Pending);
        assert_eq!(
            proof(s, None, "a", None, UnixMillis(CONFIRM_WAIT)),
            Proof::Unconfirmed
        );
    }

    fn pane(n: u8) -> PaneSpec {
        PaneSpec {
            id: PaneId::from_bytes([n; 16]),
            cwd: None,
            shared_viewer: false,
            shell: None,
            has_input: false,
            queued_command: false,
        }
    }

    #[test]
    fn the_pane_in_front_resumes_first_then_visible_windows_then_the_rest() {
        let id = |n| PaneId::from_bytes([n; 16]);
        let layout = Layout {
            startup: true,
            windows: vec![
                Window {
                    landing: false,
                    visible: false,
                    active_tab: 0,
                    tabs: vec![Tab {
                        focused_pane: Some(id(2)),
                        panes: vec![pane(1), pane(2)],
                    }],
                },
                Window {
                    landing: false,
                    visible: true,
                    active_tab: 1,
                    tabs: vec![
                        Tab {
                            focused_pane: None,
                            panes: vec![pane(3)],
                        },
                        Tab {
                            focused_pane: Some(id(5)),
                            panes: vec![pane(4), pane(5)],
                        },
                    ],
                },
                Window {
                    landing: true,
                    visible: true,
                    active_tab: 0,
                    tabs: vec![Tab {
                        focused_pane: Some(id(7)),
                        panes: vec![pane(6), pane(7)],
                    }],
                },
            ],
        };
        let order: Vec<u8> = order(&layout).iter().map(|p| p.as_bytes()[0]).collect();
        assert_eq!(order, vec![7, 6, 5, 4, 2, 1, 3]);
    }

    proptest! {
        /// However the rows stand, a take that goes never makes more than
        /// `cap` agents starting at once, and nobody waits past the bound.
        #[test]
        fn a_go_never_exceeds_the_cap(
            rows in proptest::collection::vec(
                (0u32..20, proptest::option::of(0i64..20_000), proptest::option::of(0i64..20_000),
                 proptest::option::of(0i64..20_000), proptest::option::of(0i64..20_000)),
                0..20),
            cap in 1u32..8,
            now in 0i64..30_000,
            waited in 0i64..30_000,
        ) {
            let now = UnixMillis(now);
            let others: Vec<Queued> = rows.iter().map(|(rank, w, s, r, e)| Queued {
                rank: *rank,
                queued_at: UnixMillis(0),
                waiting_at: w.map(UnixMillis),
                started_at: s.map(UnixMillis),
                reported_at: r.map(UnixMillis),
                ended_at: e.map(UnixMillis),
            }).collect();
            let me = Queued { rank: 10, queued_at: UnixMillis(0), waiting_at: Some(UnixMillis(now.0 - waited)), ..Queued::default() };
            let starting = others.iter().filter(|q| q.starting(now)).count();
            match turn(&me, &others, cap, now) {
                Turn::Go => prop_assert!(starting < cap as usize || waited >= MAX_WAIT),
                Turn::Wait => prop_assert!(waited < MAX_WAIT),
            }
        }
    }
}
