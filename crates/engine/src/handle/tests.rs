use std::sync::atomic::{AtomicUsize, Ordering};

use agent_resume_core::{
    AgentKind, IdSource, Outcome, PaneSpec, Reason, Stored, Tab, Verdict, Window,
};

use super::*;
use crate::persistence::{Arm, Loaded, Memory, Ticket};

const A: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const B: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";
const C: &str = "1f6066eb-140e-4519-ab63-b9cde0b60b57";

fn pane(n: u8) -> PaneId {
    PaneId::from_bytes([n; 16])
}

static NOW: AtomicUsize = AtomicUsize::new(1_000);

/// A clock that moves one millisecond per reading, so every change has
/// its own time.
fn ticking() -> UnixMillis {
    UnixMillis(NOW.fetch_add(1, Ordering::SeqCst) as i64)
}

fn config() -> Config {
    Config {
        enabled: true,
        discover_sessions: false,
        clock: ticking,
        ..Config::default()
    }
}

fn obs(p: u8, id: &str, source: IdSource) -> Observation<'_> {
    Observation {
        pane: pane(p),
        agent: AgentKind::Claude,
        session_id: Some(id),
        source,
        headless: false,
    }
}

fn recorded(memory: &Memory, p: u8) -> Option<(String, Vec<String>)> {
    match memory.clone().row(pane(p)).expect("memory reads") {
        Some(Stored::Recording(r)) => Some((
            r.session_id,
            r.flags
                .iter()
                .map(|f| format!("{}={}", f.name, f.value.as_deref().unwrap_or("")))
                .collect(),
        )),
        Some(Stored::Unreadable) => panic!("unreadable"),
        None => None,
    }
}

fn started(memory: &Memory) -> AgentResume {
    AgentResume::start(config(), Box::new(memory.clone()))
}

/// Panics on any call: proves the flag-off path never reaches it.
struct Untouchable;

impl Persistence for Untouchable {
    fn load(&mut self) -> Loaded {
        panic!("load with the feature off")
    }
    fn sweep(&mut self, _: &HashSet<PaneId>) -> Result<usize, Warning> {
        panic!("sweep with the feature off")
    }
    fn apply(&mut self, _: &[Set]) -> Result<usize, PersistError> {
        panic!("apply with the feature off")
    }
    fn arm(&mut self, _: &Arm, _: Option<Ticket<'_>>) -> Result<(), PersistError> {
        panic!("arm with the feature off")
    }
    fn take(&mut self, _: PaneId) -> Result<Option<Arm>, PersistError> {
        panic!("take with the feature off")
    }
    fn disarm(&mut self, _: PaneId) -> Result<bool, PersistError> {
        panic!("disarm with the feature off")
    }
    fn row(&mut self, _: PaneId) -> Result<Option<Stored>, PersistError> {
        panic!("row with the feature off")
    }
}

fn layout(panes: &[(u8, &Path)]) -> Layout {
    Layout {
        startup: true,
        windows: vec![Window {
            landing: true,
            visible: true,
            active_tab: 0,
            tabs: vec![Tab {
                focused_pane: None,
                panes: panes
                    .iter()
                    .map(|(n, cwd)| PaneSpec {
                        id: pane(*n),
                        cwd: Some(cwd.to_path_buf()),
                        shared_viewer: false,
                        shell: Some(Shell::Bash),
                        has_input: false,
                        queued_command: false,
                    })
                    .collect(),
            }],
        }],
    }
}

#[test]
fn with_the_feature_off_nothing_touches_persistence_and_no_thread_starts() {
    let mut h = AgentResume::start(Config::default(), Box::new(Untouchable));
    assert!(!h.enabled() && !h.writer_running());
    h.agent_started(pane(1), Some("claude"), Some("/".into()));
    h.observe(&obs(1, A, IdSource::Hook));
    h.agent_exited(pane(1), 0);
    h.pane_detached(pane(1), DetachKind::Closed);
    h.pane_cwd(pane(1), None);
    h.flush().expect("nothing to write");
    let restored = h.restore(&layout(&[(1, Path::new("/"))]));
    assert!(restored.events.is_empty() && restored.armed == 0);
    assert_eq!(
        restored.plans[0].verdict,
        Verdict::Skip(Reason::FeatureDisabled)
    );
    assert_eq!(
        h.take(pane(1), Shell::Bash, Ready::default())
            .expect("no-op"),
        None
    );
    drop(h);
}

#[test]
fn writes_run_on_the_named_writer_thread_and_the_drop_drains_them() {
    struct Named(Memory, Arc<Mutex<Vec<String>>>);
    impl Persistence for Named {
        fn load(&mut self) -> Loaded {
            self.0.load()
        }
        fn sweep(&mut self, keep: &HashSet<PaneId>) -> Result<usize, Warning> {
            self.0.sweep(keep)
        }
        fn apply(&mut self, sets: &[Set]) -> Result<usize, PersistError> {
            let name = std::thread::current().name().unwrap_or("").to_owned();
            self.1.lock().expect("names").push(name);
            self.0.apply(sets)
        }
        fn arm(&mut self, a: &Arm, t: Option<Ticket<'_>>) -> Result<(), PersistError> {
            self.0.arm(a, t)
        }
        fn take(&mut self, p: PaneId) -> Result<Option<Arm>, PersistError> {
            self.0.take(p)
        }
        fn disarm(&mut self, p: PaneId) -> Result<bool, PersistError> {
            self.0.disarm(p)
        }
        fn row(&mut self, p: PaneId) -> Result<Option<Stored>, PersistError> {
            self.0.row(p)
        }
    }
    let memory = Memory::new();
    let names = Arc::new(Mutex::new(Vec::new()));
    let mut h = AgentResume::start(config(), Box::new(Named(memory.clone(), names.clone())));
    assert!(h.writer_running());
    for p in 1..=20 {
        h.agent_started(pane(p), Some("claude"), Some("/".into()));
        h.observe(&obs(p, A, IdSource::Hook));
    }
    drop(h);
    assert_eq!(
        memory.clone().load().recordings.len(),
        20,
        "drained on drop"
    );
    let names = names.lock().expect("names");
    assert!(!names.is_empty());
    assert!(names.iter().all(|n| n == WRITER_THREAD), "{names:?}");
}

#[test]
fn the_same_event_repeated_writes_once() {
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(pane(1), Some("claude --model opus"), Some("/".into()));
    for _ in 0..100 {
        h.observe(&obs(1, A, IdSource::Hook));
    }
    h.flush().expect("written");
    assert_eq!(
        recorded(&memory, 1),
        Some((A.into(), vec!["--model=opus".into()]))
    );
}

#[test]
fn after_an_exit_hint_and_a_failed_exit_the_next_runs_hook_is_recorded() {
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(pane(1), Some("claude"), Some("/".into()));
    h.observe(&obs(1, A, IdSource::Hook));
    h.observe(&obs(1, B, IdSource::ExitHint));
    h.agent_exited(pane(1), 1);
    h.flush().expect("written");
    assert_eq!(recorded(&memory, 1).map(|r| r.0), Some(B.into()), "kept");
    // The next run, announced or not, reports its own id by hook.
    h.observe(&obs(1, C, IdSource::Hook));
    h.flush().expect("written");
    assert_eq!(recorded(&memory, 1).map(|r| r.0), Some(C.into()));
}

#[test]
fn a_new_run_reporting_the_same_id_with_other_flags_records_them() {
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(pane(1), Some("claude --model opus"), Some("/".into()));
    h.observe(&obs(1, A, IdSource::Hook));
    // The host saw no exit (the agent was replaced by a resume of itself).
    h.agent_started(
        pane(1),
        Some("claude --model sonnet --resume x"),
        Some("/".into()),
    );
    h.observe(&obs(1, A, IdSource::Hook));
    h.flush().expect("written");
    assert_eq!(
        recorded(&memory, 1),
        Some((A.into(), vec!["--model=sonnet".into()]))
    );
}

#[test]
fn exit_zero_clears_and_any_other_status_keeps() {
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(pane(1), Some("claude"), Some("/".into()));
    h.observe(&obs(1, A, IdSource::Hook));
    for status in [1, 130, 148] {
        h.agent_exited(pane(1), status);
        h.flush().expect("written");
        assert!(recorded(&memory, 1).is_some(), "status {status} keeps");
    }
    h.agent_exited(pane(1), 0);
    h.flush().expect("written");
    assert_eq!(recorded(&memory, 1), None);
}

#[test]
fn a_headless_run_is_never_recorded_and_its_exit_clears_nothing() {
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(pane(1), Some("claude"), Some("/".into()));
    h.observe(&obs(1, A, IdSource::Hook));
    h.agent_started(pane(1), Some("claude -p hi"), Some("/".into()));
    for _ in 0..3 {
        h.observe(&obs(1, B, IdSource::Hook));
    }
    h.agent_exited(pane(1), 0);
    h.flush().expect("written");
    assert_eq!(recorded(&memory, 1).map(|r| r.0), Some(A.into()));
}

#[test]
fn a_pane_whose_directory_becomes_known_is_recorded_then() {
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(pane(1), Some("claude"), None);
    h.observe(&obs(1, A, IdSource::Hook));
    h.observe(&obs(1, A, IdSource::Hook));
    h.flush().expect("written");
    assert_eq!(recorded(&memory, 1), None);
    h.pane_cwd(pane(1), Some("/".into()));
    h.observe(&obs(1, A, IdSource::Hook));
    h.flush().expect("written");
    assert_eq!(recorded(&memory, 1).map(|r| r.0), Some(A.into()));
}

#[test]
fn a_full_queue_never_blocks_and_keeps_each_panes_order() {
    let memory = Memory::new();
    let mut h = AgentResume::start(
        Config {
            queue: 1,
            ..config()
        },
        Box::new(memory.clone()),
    );
    for round in 0..50u8 {
        for p in 1..=4 {
            h.agent_started(pane(p), Some("claude"), Some("/".into()));
            let id = [A, B, C][usize::from(round % 3)];
            h.observe(&obs(p, id, IdSource::Launch));
            if round % 7 == 6 {
                h.agent_exited(pane(p), 0);
            }
        }
    }
    h.flush().expect("written");
    // Round 49: 49 % 3 == 1 → B, and 49 % 7 == 0: not cleared.
    for p in 1..=4 {
        assert_eq!(recorded(&memory, p).map(|r| r.0), Some(B.into()));
    }
}

#[test]
fn a_failed_write_is_retried_with_the_next_and_loses_nothing() {
    struct Flaky(Memory, Arc<std::sync::atomic::AtomicBool>);
    impl Persistence for Flaky {
        fn load(&mut self) -> Loaded {
            self.0.load()
        }
        fn sweep(&mut self, keep: &HashSet<PaneId>) -> Result<usize, Warning> {
            self.0.sweep(keep)
        }
        fn apply(&mut self, sets: &[Set]) -> Result<usize, PersistError> {
            if self.1.load(Ordering::SeqCst) {
                return Err(PersistError::Backend("disk full".into()));
            }
            self.0.apply(sets)
        }
        fn arm(&mut self, a: &Arm, t: Option<Ticket<'_>>) -> Result<(), PersistError> {
            self.0.arm(a, t)
        }
        fn take(&mut self, p: PaneId) -> Result<Option<Arm>, PersistError> {
            self.0.take(p)
        }
        fn disarm(&mut self, p: PaneId) -> Result<bool, PersistError> {
            self.0.disarm(p)
        }
        fn row(&mut self, p: PaneId) -> Result<Option<Stored>, PersistError> {
            self.0.row(p)
        }
    }
    let memory = Memory::new();
    let full = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut h = AgentResume::start(config(), Box::new(Flaky(memory.clone(), full.clone())));
    h.agent_started(pane(1), Some("claude"), Some("/".into()));
    h.observe(&obs(1, A, IdSource::Hook));
    assert!(h.flush().is_err());
    assert_eq!(recorded(&memory, 1), None);
    full.store(false, Ordering::SeqCst);
    h.flush().expect("retried");
    assert_eq!(recorded(&memory, 1).map(|r| r.0), Some(A.into()));
}

#[test]
fn a_restarted_handle_restores_over_the_same_persistence_and_takes_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(
        pane(1),
        Some("claude --model opus"),
        Some(dir.path().into()),
    );
    h.observe(&obs(1, A, IdSource::Hook));
    // A pane the next layout does not restore: swept.
    h.agent_started(pane(2), Some("claude"), Some(dir.path().into()));
    h.observe(&obs(2, B, IdSource::Hook));
    drop(h);
    let mut h = started(&memory);
    let restored = h.restore(&layout(&[(1, dir.path())]));
    assert_eq!(restored.armed, 1, "{:?}", restored.plans);
    assert!(restored.warnings.is_empty() && restored.failed.is_empty());
    assert_eq!(recorded(&memory, 2), None, "swept");
    let took = h
        .take(pane(1), Shell::Bash, Ready::default())
        .expect("takes")
        .expect("armed");
    let Taken::Line(line) = &took.taken else {
        panic!("a line: {took:?}")
    };
    assert_eq!(line.argv, ["claude", "--model", "opus", "--resume", A]);
    assert_eq!(took.event.outcome, Outcome::Resumed);
    assert_eq!(
        h.take(pane(1), Shell::Bash, Ready::default())
            .expect("takes"),
        None
    );
    // The resumed agent's own report of its id writes nothing new.
    h.agent_started(pane(1), Some(&line.line), Some(dir.path().into()));
    let before = memory.clone().load();
    h.observe(&obs(1, A, IdSource::Hook));
    h.flush().expect("written");
    assert_eq!(memory.clone().load(), before);
}

#[test]
fn a_pane_closed_for_good_is_deleted_and_disarmed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = Memory::new();
    let mut h = started(&memory);
    h.agent_started(pane(1), Some("claude"), Some(dir.path().into()));
    h.observe(&obs(1, A, IdSource::Hook));
    h.flush().expect("written");
    let restored = h.restore(&layout(&[(1, dir.path())]));
    assert_eq!(restored.armed, 1);
    h.pane_detached(pane(1), DetachKind::HiddenForClose);
    h.flush().expect("written");
    assert!(recorded(&memory, 1).is_some(), "hidden: kept");
    h.pane_detached(pane(1), DetachKind::Closed);
    assert_eq!(
        h.take(pane(1), Shell::Bash, Ready::default())
            .expect("takes"),
        None
    );
    assert_eq!(recorded(&memory, 1), None);
}

#[test]
fn what_crosses_threads_is_send() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<AgentResume>();
    sync::<AgentResume>();
    send::<Restored>();
    send::<Took>();
    send::<Config>();
}
