//! Duplicate claims: two panes whose recordings name one conversation.
//!
//! Resolution is a pure function over the eligible claimants, run before any
//! pane is created. Rank: landing window > visible window > active tab >
//! focused leaf > newest observation > pane-id bytes (the smaller id wins, so
//! the result never depends on listing order). Only claimants that passed
//! every other gate compete, so a winner that could not resume anyway never
//! strands the id.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use crate::layout::Placement;
use crate::pane::PaneId;
use crate::posture::UnixMillis;
use crate::AgentKind;

/// One eligible pane's claim.
#[derive(Clone, Copy, Debug)]
pub struct Claim<'a> {
    /// The claiming pane.
    pub pane: PaneId,
    /// The agent.
    pub agent: AgentKind,
    /// The claimed session id.
    pub session_id: &'a str,
    /// Where the pane sits.
    pub placement: Placement,
    /// When its recording was observed.
    pub observed_at: UnixMillis,
}

impl Claim<'_> {
    /// Smaller is better.
    fn rank(&self) -> (Reverse<Placement>, Reverse<UnixMillis>, [u8; 16]) {
        (
            Reverse(self.placement),
            Reverse(self.observed_at),
            *self.pane.as_bytes(),
        )
    }
}

/// The winning pane of each claimed (agent, session id).
pub fn winners<'a>(claims: &[Claim<'a>]) -> BTreeMap<(AgentKind, &'a str), PaneId> {
    let mut best: BTreeMap<(AgentKind, &'a str), &Claim<'a>> = BTreeMap::new();
    for c in claims {
        best.entry((c.agent, c.session_id))
            .and_modify(|b| {
                if c.rank() < b.rank() {
                    *b = c;
                }
            })
            .or_insert(c);
    }
    best.into_iter().map(|(k, c)| (k, c.pane)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(n: u8) -> PaneId {
        PaneId::from_bytes([n; 16])
    }

    fn claim(n: u8, placement: Placement, t: i64) -> Claim<'static> {
        Claim {
            pane: pane(n),
            agent: AgentKind::Claude,
            session_id: "s",
            placement,
            observed_at: UnixMillis(t),
        }
    }

    #[test]
    fn landing_window_beats_newer_observation_elsewhere() {
        let landing = Placement {
            landing: true,
            ..Placement::default()
        };
        let visible = Placement {
            visible: true,
            active_tab: true,
            focused: true,
            ..Placement::default()
        };
        let w = winners(&[claim(1, visible, 100), claim(2, landing, 1)]);
        assert_eq!(w[&(AgentKind::Claude, "s")], pane(2));
    }

    #[test]
    fn focused_leaf_then_newest_then_smaller_id() {
        let tab = Placement {
            active_tab: true,
            ..Placement::default()
        };
        let focused = Placement {
            focused: true,
            ..tab
        };
        assert_eq!(
            winners(&[claim(1, tab, 9), claim(2, focused, 1)])[&(AgentKind::Claude, "s")],
            pane(2)
        );
        assert_eq!(
            winners(&[claim(1, tab, 1), claim(2, tab, 9)])[&(AgentKind::Claude, "s")],
            pane(2)
        );
        assert_eq!(
            winners(&[claim(3, tab, 5), claim(2, tab, 5)])[&(AgentKind::Claude, "s")],
            pane(2)
        );
    }

    #[test]
    fn same_id_under_different_agents_are_different_claims() {
        let mut other = claim(2, Placement::default(), 0);
        other.agent = AgentKind::Codex;
        assert_eq!(
            winners(&[claim(1, Placement::default(), 0), other]).len(),
            2
        );
    }
}
