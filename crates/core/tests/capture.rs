//! The capture state machine: the unchanged path allocates nothing, and over
//! random event streams the recorded state always equals the documented rule.
#![allow(unsafe_code)] // the counting allocator (tests/support/counting_alloc.rs); nothing else.
#![allow(clippy::unwrap_used)]

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use std::borrow::Cow;
use std::path::PathBuf;

use agent_resume_core::{
    AgentKind, Capture, Change, DetachKind, IdSource, Observation, PaneContext, PaneId, Recording,
    UnixMillis,
};
use counting_alloc::allocations;
use proptest::prelude::*;

const A: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const B: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";
const MARK: &str = "SECRETMARKER";

struct Ctx<'a>(&'a str);

impl PaneContext for Ctx<'_> {
    fn invocation(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(self.0))
    }
    fn cwd(&self) -> Option<PathBuf> {
        Some("/work".into())
    }
}

fn obs(pane: u8, id: Option<&str>, source: IdSource) -> Observation<'_> {
    Observation {
        pane: PaneId::from_bytes([pane; 16]),
        agent: AgentKind::Claude,
        session_id: id,
        source,
        headless: false,
    }
}

#[test]
fn unchanged_observation_allocates_nothing() {
    let mut c = Capture::new();
    let ctx = Ctx("claude --model opus 'a prompt'");
    for p in 0..100 {
        c.observe(&obs(p, Some(A), IdSource::Hook), &ctx, UnixMillis(1));
    }
    let o = obs(42, Some(A), IdSource::Hook);
    let (n, ()) = allocations(|| {
        for t in 0..1000 {
            assert!(c.observe(&o, &ctx, UnixMillis(t)).is_none());
        }
    });
    assert_eq!(n, 0, "the unchanged path allocated");
    // The counter does count: a changed pair allocates.
    let changed = obs(42, Some(B), IdSource::Hook);
    assert!(allocations(|| assert!(c.observe(&changed, &ctx, UnixMillis(2)).is_some())).0 > 0);
}

#[test]
fn no_observed_text_is_persisted_but_allowlisted_flags() {
    // Prompt, reply, summary, tool preview, draft and the raw command line
    // all carry the marker; only the allowlisted flag value may survive, and
    // it is not the marker.
    let invocation = format!(
        "claude --model opus --append-system-prompt {MARK} --settings /{MARK}.json '{MARK} prompt' --reply {MARK} --summary {MARK} --draft {MARK}"
    );
    let mut c = Capture::new();
    let Some(Change::Save(rec)) = c.observe(
        &obs(1, Some(A), IdSource::Hook),
        &Ctx(&invocation),
        UnixMillis(5),
    ) else {
        panic!("saved")
    };
    let Recording {
        agent,
        session_id,
        flags,
        program,
        cwd,
        observed_at,
        config_home,
        dir,
    } = rec;
    let persisted = format!(
        "{agent:?}{session_id}{flags:?}{program:?}{cwd:?}{observed_at:?}{config_home:?}{dir:?}"
    );
    assert!(!persisted.contains(MARK), "{persisted}");
    assert_eq!(flags.len(), 1);
}

#[derive(Clone, Debug)]
enum Ev {
    Observe {
        pane: u8,
        id: u8,
        source: u8,
        headless: bool,
    },
    Absent {
        pane: u8,
    },
    Ended {
        pane: u8,
    },
    Detach {
        pane: u8,
        kind: u8,
    },
    Suspend {
        pane: u8,
    },
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        4 => (0u8..3, 0u8..3, 0u8..5, any::<bool>()).prop_map(|(pane, id, source, headless)| Ev::Observe { pane, id, source, headless }),
        1 => (0u8..3).prop_map(|pane| Ev::Absent { pane }),
        1 => (0u8..3).prop_map(|pane| Ev::Ended { pane }),
        1 => (0u8..3, 0u8..3).prop_map(|(pane, kind)| Ev::Detach { pane, kind }),
        1 => (0u8..3).prop_map(|pane| Ev::Suspend { pane }),
    ]
}

const IDS: [&str; 3] = [A, B, "00000000-140e-4519-ab63-b9cde0b60b57"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn recorded_state_always_equals_the_documented_rule(events in proptest::collection::vec(ev(), 0..60)) {
        let mut c = Capture::new();
        // The model: per pane, (id, source) of the current run, and what the
        // store holds.
        let mut model: [Option<(usize, IdSource)>; 3] = [None, None, None];
        let mut stored: [Option<String>; 3] = [None, None, None];
        let ctx = Ctx("claude --model opus");
        for (t, e) in events.iter().enumerate() {
            let now = UnixMillis(t as i64);
            match *e {
                Ev::Observe { pane, id, source, headless } => {
                    let source = IdSource::VARIANTS[usize::from(source)];
                    let mut o = obs(pane, Some(IdSources::id(id)), source);
                    o.headless = headless;
                    let change = c.observe(&o, &ctx, now);
                    let p = usize::from(pane);
                    let expect_write = !headless && match model[p] {
                        None => true,
                        Some((cur, _)) if cur == usize::from(id) => false,
                        Some((_, cur_src)) => source == IdSource::Launch || source >= cur_src,
                    };
                    if expect_write {
                        model[p] = Some((usize::from(id), source));
                    }
                    // Unchanged observations cause no write; changed ones write.
                    match change {
                        Some(Change::Save(r)) => {
                            prop_assert!(expect_write);
                            stored[p] = Some(r.session_id);
                        }
                        None => prop_assert!(!expect_write),
                        Some(other) => prop_assert!(false, "unexpected {other:?}"),
                    }
                }
                Ev::Absent { pane } => {
                    prop_assert_eq!(c.observe(&obs(pane, None, IdSource::Hook), &ctx, now), None);
                }
                Ev::Ended { pane } => {
                    prop_assert_eq!(c.agent_ended(PaneId::from_bytes([pane; 16])), Change::Clear);
                    model[usize::from(pane)] = None;
                    stored[usize::from(pane)] = None;
                }
                Ev::Detach { pane, kind } => {
                    let kind = [DetachKind::HiddenForClose, DetachKind::Teardown, DetachKind::Closed][usize::from(kind)];
                    let change = c.detach(PaneId::from_bytes([pane; 16]), kind);
                    if kind == DetachKind::Closed {
                        prop_assert_eq!(change, Some(Change::Delete));
                        model[usize::from(pane)] = None;
                        stored[usize::from(pane)] = None;
                    } else {
                        prop_assert_eq!(change, None);
                    }
                }
                Ev::Suspend { pane } => {
                    prop_assert_eq!(c.suspended(PaneId::from_bytes([pane; 16])), None);
                }
            }
            for p in 0..3u8 {
                let got = c.recording(PaneId::from_bytes([p; 16])).map(|r| r.session_id.clone());
                prop_assert_eq!(&got, &stored[usize::from(p)]);
                prop_assert_eq!(got, model[usize::from(p)].map(|(id, _)| IDS[id].to_owned()));
            }
        }
    }
}

struct IdSources;
impl IdSources {
    fn id(i: u8) -> &'static str {
        IDS[usize::from(i)]
    }
}

#[test]
fn an_id_read_from_the_agent_process_ranks_below_a_hook_and_above_correlation() {
    let ctx = Ctx("claude");
    let mut c = Capture::new();
    assert!(c
        .observe(&obs(1, Some(A), IdSource::Hook), &ctx, UnixMillis(1))
        .is_some());
    assert!(
        c.observe(&obs(1, Some(B), IdSource::Process), &ctx, UnixMillis(2))
            .is_none(),
        "a hook's id stands within the run"
    );
    let mut c = Capture::new();
    c.observe(&obs(1, Some(A), IdSource::Correlation), &ctx, UnixMillis(1));
    assert!(
        c.observe(&obs(1, Some(B), IdSource::Process), &ctx, UnixMillis(2))
            .is_some(),
        "the process's own id replaces a correlated one"
    );
    assert!(c
        .observe(&obs(1, Some(A), IdSource::ExitHint), &ctx, UnixMillis(3))
        .is_some());
    assert_eq!(IdSource::from_name("process"), Some(IdSource::Process));
    let names: std::collections::BTreeSet<&str> =
        IdSource::VARIANTS.iter().map(|s| s.as_str()).collect();
    assert_eq!(names.len(), IdSource::VARIANTS.len());
}
