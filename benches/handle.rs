//! The in-process handle's repeated event, for every state a pane can be
//! in, each against its floor in the same run: a bare `HashMap` get of the
//! same key and a compare of the (agent, id) it holds (goal H1: ≤ 1.2×).
//!
//! - `recorded`: the pair the pane holds (the common case);
//! - `unknown_directory`: the host knows no directory for the pane;
//! - `headless_invocation`: the run is `claude -p …`;
//! - `unparseable_invocation`: the invocation does not tokenize (recorded
//!   with no flags, then the pair the pane holds);
//! - `headless_report`: the agent's own report says headless;
//! - `lower_precedence`: a correlated id after a hook's.
//!
//! Run: `cargo bench --bench handle`.

#![allow(missing_docs)]

#[path = "support/ratio.rs"]
mod ratio;

use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;

use agent_resume_core::{AgentKind, IdSource, Observation, PaneId};
use agent_resume_engine::handle::{AgentResume, Config};
use agent_resume_engine::persistence::Memory;
use criterion::{criterion_group, criterion_main, Criterion};

const ID_A: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const ID_B: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";

struct State {
    name: &'static str,
    invocation: Option<&'static str>,
    cwd: Option<&'static str>,
    /// What the pane reported before (the pair it holds, if any).
    before: Option<(&'static str, IdSource)>,
    repeated: (&'static str, IdSource, bool),
}

const STATES: &[State] = &[
    State {
        name: "recorded",
        invocation: Some("claude --model opus --permission-mode plan 'fix the --flaky test'"),
        cwd: Some("/home/me/src/some-project"),
        before: None,
        repeated: (ID_A, IdSource::Hook, false),
    },
    State {
        name: "unknown_directory",
        invocation: Some("claude --model opus"),
        cwd: None,
        before: None,
        repeated: (ID_A, IdSource::Hook, false),
    },
    State {
        name: "headless_invocation",
        invocation: Some("claude -p 'summarise the log' --output-format json"),
        cwd: Some("/home/me/src/some-project"),
        before: None,
        repeated: (ID_A, IdSource::Hook, false),
    },
    State {
        name: "unparseable_invocation",
        invocation: Some("claude --model 'opus"),
        cwd: Some("/home/me/src/some-project"),
        before: None,
        repeated: (ID_A, IdSource::Hook, false),
    },
    State {
        name: "headless_report",
        invocation: Some("claude"),
        cwd: Some("/home/me/src/some-project"),
        before: None,
        repeated: (ID_A, IdSource::Hook, true),
    },
    State {
        name: "lower_precedence",
        invocation: Some("claude"),
        cwd: Some("/home/me/src/some-project"),
        before: Some((ID_A, IdSource::Hook)),
        repeated: (ID_B, IdSource::Correlation, false),
    },
];

fn handle_benches(c: &mut Criterion) {
    let pane = PaneId::from_bytes([7; 16]);
    let mut g = c.benchmark_group("handle_repeated_event");
    for s in STATES {
        let mut h = AgentResume::start(
            Config {
                enabled: true,
                discover_sessions: false,
                ..Config::default()
            },
            Box::new(Memory::new()),
        );
        // Other panes, so the map is not a single entry.
        for n in 0..64u8 {
            let other = PaneId::from_bytes([n.wrapping_add(100); 16]);
            h.agent_started(other, Some("claude"), Some(PathBuf::from("/")));
        }
        h.agent_started(pane, s.invocation, s.cwd.map(PathBuf::from));
        let obs = |id, source, headless| Observation {
            pane,
            agent: AgentKind::Claude,
            session_id: Some(id),
            source,
            headless,
        };
        if let Some((id, source)) = s.before {
            h.observe(&obs(id, source, false));
        }
        let (id, source, headless) = s.repeated;
        let repeated = obs(id, source, headless);
        // The first one decides (and may write); every later one repeats.
        h.observe(&repeated);
        h.flush().expect("memory never fails");
        g.bench_function(s.name, |b| b.iter(|| h.observe(black_box(&repeated))));

        let mut floor: HashMap<PaneId, (AgentKind, String)> = HashMap::new();
        floor.insert(pane, (AgentKind::Claude, id.to_owned()));
        let p = ratio::paired(
            51,
            20_000,
            || h.observe(black_box(&repeated)),
            || {
                let o = black_box(&repeated);
                let held = floor.get(&o.pane);
                black_box(
                    held.is_some_and(|(a, id)| *a == o.agent && o.session_id == Some(id.as_str())),
                );
            },
        );
        ratio::report(
            "H1",
            &format!("AgentResume::observe repeated, {}", s.name),
            "HashMap get + compare",
            Some(1.2),
            &p,
        );
    }
    g.finish();
}

criterion_group!(benches, handle_benches);
criterion_main!(benches);
