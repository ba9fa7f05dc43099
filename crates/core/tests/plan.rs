//! The restore plan: every reason reachable, claims ranked, the feature gate
//! costs nothing, and telemetry carries no input byte.
#![allow(clippy::unwrap_used)]

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agent_resume_core::eligibility::plan;
use agent_resume_core::{
    AgentKind, DirIdentity, Event, FsProbe, Layout, Outcome, PaneId, PanePlan, PaneSpec, PlanInput,
    PostureWindow, Reason, RecordedFlag, Recording, SessionProbe, Shell, Stored, Tab, UnixMillis,
    Verdict, Window,
};
use proptest::prelude::*;

const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const NOW: UnixMillis = UnixMillis(1_800_000_000_000);

/// A filesystem of known directories, with symlink-style aliases, that
/// counts every call.
#[derive(Default)]
struct FakeFs {
    dirs: BTreeSet<PathBuf>,
    aliases: BTreeMap<PathBuf, PathBuf>,
    /// What each canonical directory is now; absent: cannot tell.
    identities: BTreeMap<PathBuf, DirIdentity>,
    calls: Cell<usize>,
}

impl FakeFs {
    fn with(dirs: &[&str]) -> Self {
        FakeFs {
            dirs: dirs.iter().map(PathBuf::from).collect(),
            ..Default::default()
        }
    }
}

impl FsProbe for FakeFs {
    fn is_dir(&self, path: &Path) -> bool {
        self.calls.set(self.calls.get() + 1);
        self.dirs.contains(path) || self.aliases.contains_key(path)
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.calls.set(self.calls.get() + 1);
        if let Some(real) = self.aliases.get(path) {
            return Some(real.clone());
        }
        self.dirs.contains(path).then(|| path.to_path_buf())
    }
    fn identity(&self, path: &Path) -> Option<DirIdentity> {
        self.identities.get(&self.canonicalize(path)?).cloned()
    }
}

fn identity(canonical: &str, inode: u64) -> DirIdentity {
    DirIdentity {
        canonical: canonical.into(),
        volume: 7,
        inode,
    }
}

#[test]
fn a_busy_pane_is_decided_by_the_plan_and_hands_its_claim_to_the_next_pane() {
    let mut busy = spec(1, Some("/w"));
    busy.has_input = true;
    let mut queued = spec(3, Some("/w"));
    queued.queued_command = true;
    let layout = one_window(vec![busy, spec(2, Some("/w")), queued]);
    let fs = FakeFs::with(&["/w"]);
    let recs: BTreeMap<_, _> = [
        (pane(1), Stored::Recording(rec(AgentKind::Claude, ID, "/w"))),
        (pane(2), Stored::Recording(rec(AgentKind::Claude, ID, "/w"))),
        (
            pane(3),
            Stored::Recording(rec(
                AgentKind::Claude,
                "0f6066eb-140e-4519-ab63-b9cde0b60b57",
                "/w",
            )),
        ),
    ]
    .into();
    let got = run(true, &layout, &recs, &fs);
    assert_eq!(got[0].verdict, Verdict::Skip(Reason::PaneHasInput));
    assert!(matches!(got[1].verdict, Verdict::Resume(_)), "{got:?}");
    assert_eq!(got[2].verdict, Verdict::Skip(Reason::QueuedCommand));
    assert_eq!(Reason::GATES[got[0].gates_passed], Reason::PaneHasInput);
}

#[test]
fn a_pane_resumes_only_into_the_directory_its_recording_names_by_identity() {
    let layout = one_window(vec![
        spec(1, Some("/w")),
        spec(2, Some("/link")),
        spec(3, Some("/v")),
    ]);
    let mut fs = FakeFs::with(&["/w", "/v", "/elsewhere"]);
    fs.aliases.insert("/link".into(), "/elsewhere".into());
    fs.identities.insert("/w".into(), identity("/w", 1));
    fs.identities
        .insert("/elsewhere".into(), identity("/elsewhere", 2));
    let with = |n: u8, cwd: &str, dir: DirIdentity| {
        let mut r = rec(
            AgentKind::Claude,
            &format!("00000000-0000-4000-8000-{n:012x}"),
            cwd,
        );
        r.dir = Some(dir);
        (pane(n), Stored::Recording(r))
    };
    let recs: BTreeMap<_, _> = [
        with(1, "/w", identity("/w", 1)),
        // Recorded as `/link` when it was a directory of its own; a link
        // to `/elsewhere` stands there now.
        with(2, "/link", identity("/link", 3)),
        // The filesystem cannot say what `/v` is.
        with(3, "/v", identity("/v", 4)),
    ]
    .into();
    let got: Vec<_> = run(true, &layout, &recs, &fs)
        .into_iter()
        .map(|p| p.verdict)
        .collect();
    assert!(matches!(got[0], Verdict::Resume(_)), "{got:?}");
    assert_eq!(got[1], Verdict::Skip(Reason::DirectoryChanged));
    assert_eq!(got[2], Verdict::Skip(Reason::DirectoryChanged));
}

/// Session-store answers: the ids the store holds (`None`: cannot tell),
/// the ids a live process holds, and a count of every call.
#[derive(Default)]
struct FakeSessions {
    stored: Option<BTreeSet<String>>,
    running: BTreeSet<String>,
    homes: std::cell::RefCell<Vec<Option<PathBuf>>>,
    calls: Cell<usize>,
}

impl SessionProbe for FakeSessions {
    fn exists(&self, _: AgentKind, id: &str, home: Option<&Path>) -> Option<bool> {
        self.calls.set(self.calls.get() + 1);
        self.homes.borrow_mut().push(home.map(Path::to_path_buf));
        self.stored.as_ref().map(|s| s.contains(id))
    }
    fn running(&self, _: AgentKind, id: &str) -> bool {
        self.calls.set(self.calls.get() + 1);
        self.running.contains(id)
    }
}

fn pane(n: u8) -> PaneId {
    PaneId::from_bytes([n; 16])
}

fn spec(n: u8, cwd: Option<&str>) -> PaneSpec {
    PaneSpec {
        id: pane(n),
        cwd: cwd.map(PathBuf::from),
        shared_viewer: false,
        shell: Some(Shell::Zsh),
        has_input: false,
        queued_command: false,
    }
}

fn rec(agent: AgentKind, id: &str, cwd: &str) -> Recording {
    Recording {
        agent,
        session_id: id.into(),
        flags: vec![RecordedFlag::value("--model", "opus")],
        program: None,
        cwd: cwd.into(),
        observed_at: UnixMillis(NOW.0 - 60_000),
        config_home: None,
        dir: None,
    }
}

fn one_window(panes: Vec<PaneSpec>) -> Layout {
    let focused = panes.first().map(|p| p.id);
    Layout {
        startup: true,
        windows: vec![Window {
            landing: true,
            visible: true,
            active_tab: 0,
            tabs: vec![Tab {
                focused_pane: focused,
                panes,
            }],
        }],
    }
}

fn run(
    enabled: bool,
    layout: &Layout,
    recs: &BTreeMap<PaneId, Stored>,
    fs: &FakeFs,
) -> Vec<PanePlan> {
    run_with(enabled, layout, recs, fs, None)
}

fn run_with(
    enabled: bool,
    layout: &Layout,
    recs: &BTreeMap<PaneId, Stored>,
    fs: &FakeFs,
    sessions: Option<&dyn SessionProbe>,
) -> Vec<PanePlan> {
    plan(&PlanInput {
        enabled,
        layout,
        recordings: recs,
        now: NOW,
        window: PostureWindow::DEFAULT,
        fs,
        sessions,
    })
}

fn only(stored: Stored, spec: PaneSpec, fs: &FakeFs) -> PanePlan {
    let layout = one_window(vec![spec]);
    let recs = BTreeMap::from([(pane(1), stored)]);
    run(true, &layout, &recs, fs).remove(0)
}

fn reason(p: &PanePlan) -> Option<Reason> {
    match p.verdict {
        Verdict::Skip(r) => Some(r),
        Verdict::Resume(_) => None,
    }
}

#[test]
fn resumes_a_pane_whose_recording_passes_every_gate() {
    let fs = FakeFs::with(&["/p"]);
    let p = only(
        Stored::Recording(rec(AgentKind::Claude, ID, "/p")),
        spec(1, Some("/p")),
        &fs,
    );
    let Verdict::Resume(inv) = &p.verdict else {
        panic!("{p:?}")
    };
    assert_eq!(inv.argv, ["claude", "--model", "opus", "--resume", ID]);
}

#[test]
fn feature_disabled() {
    let fs = FakeFs::with(&["/p"]);
    let layout = one_window(vec![spec(1, Some("/p"))]);
    let recs = BTreeMap::from([(pane(1), Stored::Recording(rec(AgentKind::Claude, ID, "/p")))]);
    let plans = run(false, &layout, &recs, &fs);
    assert_eq!(reason(&plans[0]), Some(Reason::FeatureDisabled));
}

#[test]
fn feature_off_makes_zero_filesystem_calls_and_emits_nothing() {
    let fs = FakeFs::with(&["/p"]);
    let panes: Vec<PaneSpec> = (1..=20).map(|n| spec(n, Some("/p"))).collect();
    let layout = one_window(panes);
    let recs: BTreeMap<PaneId, Stored> = (1..=20)
        .map(|n| (pane(n), Stored::Recording(rec(AgentKind::Claude, ID, "/p"))))
        .collect();
    let plans = run(false, &layout, &recs, &fs);
    assert_eq!(fs.calls.get(), 0);
    assert!(plans
        .iter()
        .all(|p| reason(p) == Some(Reason::FeatureDisabled)));
    assert!(plans.iter().all(|p| Event::for_skip(p).is_none()));
}

#[test]
fn not_startup_pass() {
    let fs = FakeFs::with(&["/p"]);
    let mut layout = one_window(vec![spec(1, Some("/p"))]);
    layout.startup = false;
    let recs = BTreeMap::from([(pane(1), Stored::Recording(rec(AgentKind::Claude, ID, "/p")))]);
    assert_eq!(
        reason(&run(true, &layout, &recs, &fs)[0]),
        Some(Reason::NotStartupPass)
    );
    assert_eq!(fs.calls.get(), 0);
}

#[test]
fn no_recording() {
    let fs = FakeFs::with(&["/p"]);
    let layout = one_window(vec![spec(1, Some("/p"))]);
    let p = run(true, &layout, &BTreeMap::new(), &fs).remove(0);
    assert_eq!(reason(&p), Some(Reason::NoRecording));
    assert!(
        Event::for_skip(&p).is_none(),
        "a pane without a recording emits nothing"
    );
}

#[test]
fn recording_unreadable() {
    let p = only(
        Stored::Unreadable,
        spec(1, Some("/p")),
        &FakeFs::with(&["/p"]),
    );
    assert_eq!(reason(&p), Some(Reason::RecordingUnreadable));
}

#[test]
fn agent_not_verified() {
    let p = only(
        Stored::Recording(rec(AgentKind::Cursor, ID, "/p")),
        spec(1, Some("/p")),
        &FakeFs::with(&["/p"]),
    );
    assert_eq!(reason(&p), Some(Reason::AgentNotVerified));
}

#[test]
fn an_agent_that_cannot_resume_by_id_comes_back_as_a_plain_shell() {
    // Continue's `cn` has no resume by id: every other gate would pass
    // (its id has the uuid shape, the directory is there), yet no line is
    // ever built, and the reason says why rather than "not verified".
    let p = only(
        Stored::Recording(rec(AgentKind::Continue, ID, "/p")),
        spec(1, Some("/p")),
        &FakeFs::with(&["/p"]),
    );
    assert_eq!(reason(&p), Some(Reason::NotResumableById));
    assert_eq!(Reason::NotResumableById.as_str(), "not_resumable_by_id");
    assert_eq!(Reason::NotResumableById as u8, 18);
    assert_eq!(
        Reason::from_code(18),
        Some(Reason::NotResumableById),
        "the stored code decodes"
    );
}

#[test]
fn invalid_session_id() {
    let p = only(
        Stored::Recording(rec(AgentKind::Claude, "$(reboot)", "/p")),
        spec(1, Some("/p")),
        &FakeFs::with(&["/p"]),
    );
    assert_eq!(reason(&p), Some(Reason::InvalidSessionId));
}

#[test]
fn shared_viewer() {
    let mut s = spec(1, Some("/p"));
    s.shared_viewer = true;
    let p = only(
        Stored::Recording(rec(AgentKind::Claude, ID, "/p")),
        s,
        &FakeFs::with(&["/p"]),
    );
    assert_eq!(reason(&p), Some(Reason::SharedViewer));
}

#[test]
fn not_local() {
    let p = only(
        Stored::Recording(rec(AgentKind::Claude, ID, "/p")),
        spec(1, None),
        &FakeFs::with(&["/p"]),
    );
    assert_eq!(reason(&p), Some(Reason::NotLocal));
}

#[test]
fn directory_gone() {
    let p = only(
        Stored::Recording(rec(AgentKind::Claude, ID, "/gone")),
        spec(1, Some("/p")),
        &FakeFs::with(&["/p"]),
    );
    assert_eq!(reason(&p), Some(Reason::DirectoryGone));
}

#[test]
fn directory_mismatch() {
    let p = only(
        Stored::Recording(rec(AgentKind::Claude, ID, "/q")),
        spec(1, Some("/p")),
        &FakeFs::with(&["/p", "/q"]),
    );
    assert_eq!(reason(&p), Some(Reason::DirectoryMismatch));
}

#[test]
fn directories_equal_after_canonicalization_match() {
    let mut fs = FakeFs::with(&["/private/tmp/p"]);
    fs.aliases.insert("/tmp/p".into(), "/private/tmp/p".into());
    let p = only(
        Stored::Recording(rec(AgentKind::Claude, ID, "/private/tmp/p")),
        spec(1, Some("/tmp/p")),
        &fs,
    );
    assert!(matches!(p.verdict, Verdict::Resume(_)), "{p:?}");
}

#[test]
fn session_missing() {
    let fs = FakeFs::with(&["/p"]);
    let sessions = FakeSessions {
        stored: Some(BTreeSet::from([
            "0f6066eb-140e-4519-ab63-b9cde0b60b57".to_owned()
        ])),
        ..Default::default()
    };
    let layout = one_window(vec![spec(1, Some("/p"))]);
    let mut r = rec(AgentKind::Claude, ID, "/p");
    r.config_home = Some("/home/me/.claude-work".into());
    let recs = BTreeMap::from([(pane(1), Stored::Recording(r))]);
    let p = run_with(true, &layout, &recs, &fs, Some(&sessions)).remove(0);
    assert_eq!(reason(&p), Some(Reason::SessionMissing));
    assert_eq!(
        Event::for_skip(&p).map(|e| e.outcome),
        Some(Outcome::SessionMissing)
    );
    assert_eq!(
        *sessions.homes.borrow(),
        [Some(PathBuf::from("/home/me/.claude-work"))],
        "the recording's config home is where the store is looked for"
    );
}

#[test]
fn session_store_that_cannot_tell_passes_the_gate() {
    let fs = FakeFs::with(&["/p"]);
    let sessions = FakeSessions::default();
    let layout = one_window(vec![spec(1, Some("/p"))]);
    let recs = BTreeMap::from([(pane(1), Stored::Recording(rec(AgentKind::Claude, ID, "/p")))]);
    let p = run_with(true, &layout, &recs, &fs, Some(&sessions)).remove(0);
    assert!(matches!(p.verdict, Verdict::Resume(_)), "{p:?}");
}

#[test]
fn already_running() {
    let fs = FakeFs::with(&["/p"]);
    let sessions = FakeSessions {
        stored: Some(BTreeSet::from([ID.to_owned()])),
        running: BTreeSet::from([ID.to_owned()]),
        ..Default::default()
    };
    let layout = one_window(vec![spec(1, Some("/p"))]);
    let recs = BTreeMap::from([(pane(1), Stored::Recording(rec(AgentKind::Claude, ID, "/p")))]);
    let p = run_with(true, &layout, &recs, &fs, Some(&sessions)).remove(0);
    assert_eq!(reason(&p), Some(Reason::AlreadyRunning));
    assert_eq!(
        Event::for_skip(&p).map(|e| e.outcome),
        Some(Outcome::AlreadyRunning)
    );
    assert_eq!(Reason::GATES[p.gates_passed], Reason::AlreadyRunning);
}

#[test]
fn pane_whose_session_is_gone_never_wins_a_claim() {
    let fs = FakeFs::with(&["/p"]);
    let sessions = FakeSessions {
        stored: Some(BTreeSet::from([ID.to_owned()])),
        ..Default::default()
    };
    // Pane 1 is focused and would win, but its conversation is gone from
    // the store; pane 2 claims a conversation that is there.
    let layout = one_window(vec![spec(1, Some("/p")), spec(2, Some("/p"))]);
    let recs = BTreeMap::from([
        (
            pane(1),
            Stored::Recording(rec(
                AgentKind::Claude,
                "0f6066eb-140e-4519-ab63-b9cde0b60b57",
                "/p",
            )),
        ),
        (pane(2), Stored::Recording(rec(AgentKind::Claude, ID, "/p"))),
    ]);
    let plans = run_with(true, &layout, &recs, &fs, Some(&sessions));
    assert_eq!(reason(&plans[0]), Some(Reason::SessionMissing));
    assert!(matches!(plans[1].verdict, Verdict::Resume(_)));
}

#[test]
fn feature_off_makes_zero_session_store_calls() {
    let fs = FakeFs::with(&["/p"]);
    let sessions = FakeSessions {
        stored: Some(BTreeSet::new()),
        running: BTreeSet::from([ID.to_owned()]),
        ..Default::default()
    };
    let layout = one_window((1..=5).map(|n| spec(n, Some("/p"))).collect());
    let recs: BTreeMap<PaneId, Stored> = (1..=5)
        .map(|n| (pane(n), Stored::Recording(rec(AgentKind::Claude, ID, "/p"))))
        .collect();
    let plans = run_with(false, &layout, &recs, &fs, Some(&sessions));
    assert_eq!(sessions.calls.get(), 0);
    assert!(plans
        .iter()
        .all(|p| reason(p) == Some(Reason::FeatureDisabled)));
    let mut not_startup = layout.clone();
    not_startup.startup = false;
    run_with(true, &not_startup, &recs, &fs, Some(&sessions));
    assert_eq!(sessions.calls.get(), 0);
}

#[test]
fn duplicate_claim_lost() {
    let fs = FakeFs::with(&["/p"]);
    let layout = one_window(vec![spec(1, Some("/p")), spec(2, Some("/p"))]);
    let recs = BTreeMap::from([
        (pane(1), Stored::Recording(rec(AgentKind::Claude, ID, "/p"))),
        (pane(2), Stored::Recording(rec(AgentKind::Claude, ID, "/p"))),
    ]);
    let plans = run(true, &layout, &recs, &fs);
    assert!(
        matches!(plans[0].verdict, Verdict::Resume(_)),
        "the focused pane wins"
    );
    assert_eq!(reason(&plans[1]), Some(Reason::DuplicateClaimLost));
}

#[test]
fn claim_winner_that_cannot_resume_hands_id_to_next_pane() {
    let fs = FakeFs::with(&["/p"]);
    // Pane 1 is focused and in the landing window, but its directory is gone.
    let layout = one_window(vec![spec(1, Some("/p")), spec(2, Some("/p"))]);
    let recs = BTreeMap::from([
        (
            pane(1),
            Stored::Recording(rec(AgentKind::Claude, ID, "/gone")),
        ),
        (pane(2), Stored::Recording(rec(AgentKind::Claude, ID, "/p"))),
    ]);
    let plans = run(true, &layout, &recs, &fs);
    assert_eq!(reason(&plans[0]), Some(Reason::DirectoryGone));
    assert!(matches!(plans[1].verdict, Verdict::Resume(_)));
}

#[test]
fn stale_recording_resumes_without_posture_and_fresh_one_with_it() {
    let fs = FakeFs::with(&["/p"]);
    let mut r = rec(AgentKind::Claude, ID, "/p");
    r.flags
        .push(RecordedFlag::switch("--dangerously-skip-permissions"));
    let fresh = only(Stored::Recording(r.clone()), spec(1, Some("/p")), &fs);
    let Verdict::Resume(inv) = fresh.verdict else {
        panic!()
    };
    assert!(inv.posture_carried);
    r.observed_at = UnixMillis(NOW.0 - PostureWindow::DEFAULT.millis() - 1);
    let stale = only(Stored::Recording(r.clone()), spec(1, Some("/p")), &fs);
    let Verdict::Resume(inv) = stale.verdict else {
        panic!()
    };
    assert!(!inv.posture_carried);
    r.observed_at = UnixMillis(NOW.0 + 1);
    let future = only(Stored::Recording(r), spec(1, Some("/p")), &fs);
    let Verdict::Resume(inv) = future.verdict else {
        panic!()
    };
    assert!(!inv.posture_carried, "a future-dated recording is stale");
}

// ---------------------------------------------------------------- privacy --

const MARK: &str = "SECRETMARKER";

#[test]
fn telemetry_event_holds_no_input_byte_and_exactly_the_pinned_keys() {
    let fs = FakeFs::with(&["/p"]);
    let mut r = rec(
        AgentKind::Claude,
        &format!("{MARK}-{MARK}"),
        &format!("/{MARK}/--{MARK}"),
    );
    r.flags = vec![
        RecordedFlag::value("--model", MARK),
        RecordedFlag::value(&format!("--{MARK}"), MARK),
    ];
    r.program = Some(format!("/{MARK}/claude"));
    r.config_home = Some(format!("/{MARK}").into());
    let mut s = spec(1, Some(&format!("/{MARK}")));
    s.cwd = Some(format!("/{MARK}").into());
    for stored in [Stored::Recording(r.clone()), Stored::Unreadable] {
        let p = only(stored, s.clone(), &fs);
        let event = Event::for_skip(&p).expect("a skipped pane with a recording emits");
        // Exhaustive destructuring: a new field fails to compile until reviewed here.
        let Event {
            agent,
            outcome,
            posture_carried,
            age_band,
        } = event;
        let _ = (agent, outcome, posture_carried, age_band);
        let json = serde_json::to_string(&event).unwrap();
        assert!(!json.contains(MARK), "{json}");
        assert!(!json.contains('/'), "{json}");
        assert!(!json.contains("--"), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let keys: BTreeSet<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            BTreeSet::from(["agent", "outcome", "posture_carried", "age_band"])
        );
    }
}

// ------------------------------------------------------------- properties --

fn arb_layout_and_recordings() -> impl Strategy<Value = (Layout, BTreeMap<PaneId, Stored>, Vec<u8>)>
{
    // Up to 3 windows × 2 tabs × 3 panes; each pane maybe records one of 3 ids
    // in one of 2 directories (one of which may be gone).
    let pane_gen = (any::<bool>(), 0u8..4, 0u8..3, any::<bool>(), 0i64..100);
    let tab_gen = (proptest::collection::vec(pane_gen, 1..4), 0usize..4);
    let win_gen = (
        any::<bool>(),
        any::<bool>(),
        0usize..2,
        proptest::collection::vec(tab_gen, 1..3),
    );
    (
        proptest::collection::vec(win_gen, 1..4),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(wins, order)| {
            let mut n = 0u8;
            let mut recs = BTreeMap::new();
            let mut landing_used = false;
            let windows = wins
                .into_iter()
                .map(|(landing, visible, active_tab, tabs)| {
                    let landing = landing && !landing_used;
                    landing_used |= landing;
                    let tabs = tabs
                        .into_iter()
                        .map(|(panes, focus)| {
                            let panes: Vec<PaneSpec> = panes
                                .into_iter()
                                .map(|(has, id, dir, shared, age)| {
                                    n += 1;
                                    let dir_name = ["/a", "/b", "/gone"][usize::from(dir)];
                                    let mut s = spec(n, Some(["/a", "/b", "/a"][usize::from(dir)]));
                                    s.shared_viewer = shared && id == 3;
                                    if has {
                                        let ids = [
                                            ID,
                                            "0f6066eb-140e-4519-ab63-b9cde0b60b57",
                                            "bad id",
                                            ID,
                                        ];
                                        let mut r =
                                            rec(AgentKind::Claude, ids[usize::from(id)], dir_name);
                                        r.observed_at = UnixMillis(NOW.0 - age * 1000);
                                        recs.insert(s.id, Stored::Recording(r));
                                    }
                                    s
                                })
                                .collect();
                            let focused_pane = panes.get(focus).map(|p| p.id);
                            Tab {
                                focused_pane,
                                panes,
                            }
                        })
                        .collect();
                    Window {
                        landing,
                        visible,
                        active_tab,
                        tabs,
                    }
                })
                .collect();
            (
                Layout {
                    startup: true,
                    windows,
                },
                recs,
                order,
            )
        })
}

fn shuffle(layout: &Layout, order: &[u8]) -> Layout {
    let mut l = layout.clone();
    let mut k = 0usize;
    let mut next = || {
        k += 1;
        usize::from(order.get(k % order.len().max(1)).copied().unwrap_or(0))
    };
    let wins = l.windows.len();
    l.windows.rotate_left(next() % wins);
    for w in &mut l.windows {
        let tabs = w.tabs.len();
        let active = w.active_tab;
        let r = next() % tabs;
        w.tabs.rotate_left(r);
        w.active_tab = if active < tabs {
            (active + tabs - r) % tabs
        } else {
            active
        };
        for t in &mut w.tabs {
            let len = t.panes.len();
            t.panes.rotate_left(next() % len);
        }
    }
    l
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_session_id_resumes_in_at_most_one_pane_and_the_best_eligible_claimant_wins(
        (layout, recs, order) in arb_layout_and_recordings()
    ) {
        let fs = FakeFs::with(&["/a", "/b"]);
        let plans = run(true, &layout, &recs, &fs);
        let mut resumed: BTreeMap<String, PaneId> = BTreeMap::new();
        for p in &plans {
            if let Verdict::Resume(inv) = &p.verdict {
                let id = inv.argv.last().unwrap().clone();
                prop_assert!(resumed.insert(id, p.pane).is_none(), "one id resumed twice");
            }
        }
        // Every id with at least one eligible claimant resumes exactly once.
        for p in &plans {
            if reason(p) == Some(Reason::DuplicateClaimLost) {
                let Some(Stored::Recording(r)) = recs.get(&p.pane) else { unreachable!() };
                prop_assert!(resumed.contains_key(&r.session_id));
            }
        }
        // `gates_passed` names the stopping gate (explain relies on it).
        for p in &plans {
            match reason(p) {
                Some(r) => prop_assert_eq!(Reason::GATES[p.gates_passed], r),
                None => prop_assert_eq!(p.gates_passed, Reason::GATES.len()),
            }
        }
        // The winner outranks every loser: placement, then newest, then smaller id.
        let placement: BTreeMap<PaneId, _> = layout.panes().map(|(s, pl)| (s.id, pl)).collect();
        let key = |pane: PaneId| {
            let Some(Stored::Recording(r)) = recs.get(&pane) else { unreachable!() };
            (std::cmp::Reverse(placement[&pane]), std::cmp::Reverse(r.observed_at), *pane.as_bytes())
        };
        for p in &plans {
            if reason(p) == Some(Reason::DuplicateClaimLost) {
                let Some(Stored::Recording(r)) = recs.get(&p.pane) else { unreachable!() };
                let winner = resumed[&r.session_id];
                prop_assert!(key(winner) < key(p.pane), "loser outranks the winner");
            }
        }
        // The result does not depend on listing order.
        let shuffled = shuffle(&layout, &order);
        let again = run(true, &shuffled, &recs, &fs);
        let verdicts = |ps: &[PanePlan]| ps.iter().map(|p| (p.pane, p.verdict.clone())).collect::<BTreeMap<_, _>>();
        prop_assert_eq!(verdicts(&plans), verdicts(&again));
    }

    #[test]
    fn with_the_feature_off_nothing_resumes_and_no_file_is_asked_about(
        (layout, recs, _order) in arb_layout_and_recordings()
    ) {
        let fs = FakeFs::with(&["/a", "/b"]);
        let plans = run(false, &layout, &recs, &fs);
        prop_assert_eq!(fs.calls.get(), 0);
        prop_assert!(plans.iter().all(|p| reason(p) == Some(Reason::FeatureDisabled)));
    }

    #[test]
    fn serialized_telemetry_never_holds_a_recorded_byte(
        id in "[a-z0-9/_-]{8,40}", flag in "[A-Za-z0-9/=-]{1,30}", dir in "/[a-z]{1,12}", age in -10_000_000i64..10_000_000_000,
    ) {
        let fs = FakeFs::with(&["/a"]);
        let mut r = rec(AgentKind::Claude, &id, &dir);
        r.flags = vec![RecordedFlag::value("--model", &flag)];
        r.observed_at = UnixMillis(NOW.0 - age);
        let p = only(Stored::Recording(r), spec(1, Some("/a")), &fs);
        if let Some(e) = Event::for_skip(&p) {
            let json = serde_json::to_string(&e).unwrap();
            prop_assert!(!json.contains('/') && !json.contains("--"));
            prop_assert!(!json.contains(&id) && !json.contains(&dir));
        }
    }
}

#[test]
fn every_reason_is_a_gate_of_the_plan_busy_panes_just_before_the_claim() {
    assert_eq!(Reason::GATES.first(), Some(&Reason::FeatureDisabled));
    assert_eq!(
        Reason::GATES[Reason::GATES.len() - 3..],
        [
            Reason::PaneHasInput,
            Reason::QueuedCommand,
            Reason::DuplicateClaimLost
        ]
    );
    for r in Reason::VARIANTS {
        assert!(Reason::GATES.contains(r), "{r:?}");
    }
}

#[test]
fn panes_sharing_a_directory_ask_the_filesystem_once_per_distinct_directory() {
    // 40 panes, 40 distinct sessions, over 4 directories (one of them gone):
    // at most one is_dir and one canonicalize per distinct path.
    let fs = FakeFs::with(&["/p0", "/p1", "/p2"]);
    let dirs = ["/p0", "/p1", "/p2", "/gone"];
    let mut panes = Vec::new();
    let mut recs = BTreeMap::new();
    for n in 1..=40u8 {
        let dir = dirs[usize::from(n) % dirs.len()];
        panes.push(spec(n, Some(dir)));
        let id = format!("00000000-0000-4000-8000-{n:012x}");
        recs.insert(pane(n), Stored::Recording(rec(AgentKind::Claude, &id, dir)));
    }
    let plans = run(true, &one_window(panes), &recs, &fs);
    let gone = plans
        .iter()
        .filter(|p| reason(p) == Some(Reason::DirectoryGone))
        .count();
    let resumed = plans.iter().filter(|p| reason(p).is_none()).count();
    assert_eq!((gone, resumed), (10, 30));
    // 4 is_dir (one per distinct recorded directory) + 3 canonicalize (the
    // existing ones; restored and recorded paths are byte-equal).
    assert_eq!(fs.calls.get(), 7);
}
