//! One conformance suite for every host: the same restore scenarios run
//! through the engine's one restore sequence (`restore::run`) against the
//! fake host, a real tmux server (private socket) and a real kitty under
//! Xvfb (one kitty for every scenario, in one test: the scenarios run one
//! after another against it, each with its own database). Each scenario is
//! a function generic over a [`Harness`], which saves panes in given
//! directories, makes them gone and hands out the host; one scenario asks
//! the host's live view instead (`snapshot`, `live_panes`, `identity`).
//! A missing kitty or Xvfb fails naming it, never skips.

#![allow(clippy::unwrap_used)] // Test code: a failed unwrap fails the test.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Once;

use agent_resume_core::{
    AgentKind, Event, Layout, PaneId, PaneSpec, RecordedFlag, Recording, Shell, Tab, TelemetrySink,
    UnixMillis, Verdict, Window,
};
use agent_resume_engine::host::Host;
use agent_resume_engine::paths::Overrides;
use agent_resume_engine::restore::{run, Report, RunOptions};
use agent_resume_store::{Set, Store, Writer};
use agent_resume_test_support::FakeHost;

/// The agents' homes and the state directory point into one private
/// directory for the whole test binary (the plan asks the agents' stores;
/// the real user's must never answer). Each test has its own database and
/// config through [`Overrides`].
fn private_homes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let home = tempfile::tempdir().expect("a home").keep();
        for var in ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"] {
            std::env::set_var(var, &home);
        }
        std::env::remove_var("AGENT_RESUME");
        std::env::remove_var("AGENT_RESUME_DB");
        std::env::remove_var("AGENT_RESUME_CONFIG");
    });
}

/// One test's world: its directories, database and config.
struct World {
    dir: tempfile::TempDir,
    o: Overrides,
}

impl World {
    fn new(enabled: bool) -> World {
        private_homes();
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config.toml");
        std::fs::write(&config, format!("enabled = {enabled}\n")).expect("config");
        let o = Overrides {
            db: Some(dir.path().join("data/recordings.sqlite3")),
            config: Some(config),
        };
        World { dir, o }
    }

    fn db(&self) -> PathBuf {
        self.o.db.clone().expect("a db")
    }

    /// A fresh directory named `name`, canonical.
    fn work(&self, name: &str) -> PathBuf {
        let p = self.dir.path().join("work").join(name);
        std::fs::create_dir_all(&p).expect("mkdir");
        p.canonicalize().expect("canonical")
    }

    fn record(&self, pane: PaneId, rec: Recording) {
        let mut w = Writer::new(Store::open(&self.db()).expect("opens"));
        w.send(Set::save(pane, rec));
        w.flush().expect("saves");
    }
}

const ID_A: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const ID_B: &str = "0b5c2a38-6d3e-4c0a-9f6e-7a1d2b3c4d5e";
const HOUR: i64 = 3_600_000;

fn now() -> UnixMillis {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis();
    UnixMillis(i64::try_from(ms).expect("fits"))
}

fn claude(id: &str, cwd: &Path, age: i64, flags: Vec<RecordedFlag>) -> Recording {
    Recording {
        agent: AgentKind::Claude,
        session_id: id.into(),
        flags,
        program: None,
        cwd: cwd.into(),
        observed_at: UnixMillis(now().0 - age),
        config_home: None,
        dir: None,
    }
}

/// A host under test, set up the way each host is: saved, then its panes
/// gone (the host's restart).
trait Harness {
    /// Saves one pane in each of `dirs` (in order), then makes them gone;
    /// returns their ids in the same order.
    fn saved(&mut self, w: &World, dirs: &[&Path]) -> Vec<PaneId>;
    /// Marks the saved pane `i` as holding input / a queued command; false
    /// where the host cannot report either (then the scenario skips it).
    fn busy(&mut self, i: usize, input: bool, queued: bool) -> bool;
    /// The host.
    fn host(&mut self, w: &World) -> Box<dyn Host + '_>;
    /// How many panes the host has made since `saved`.
    fn made(&mut self) -> usize;
    /// Opens one pane in each of `dirs` (in order) and leaves them
    /// running, for the host's live view.
    fn open(&mut self, w: &World, dirs: &[&Path]);
    /// The host as a process inside the opened pane `i` sees it.
    fn host_inside(&mut self, w: &World, i: usize) -> Box<dyn Host + '_>;
}

#[derive(Default)]
struct Events(Vec<Event>);

impl TelemetrySink for Events {
    fn emit(&mut self, event: &Event) {
        self.0.push(*event);
    }
}

fn restore(h: &mut dyn Harness, w: &World, dry_run: bool) -> (Report, Vec<Event>) {
    let mut events = Events::default();
    let opts = RunOptions {
        recreate: !dry_run,
        dry_run,
        now: now(),
        program: "agent-resume".into(),
    };
    let mut host = h.host(w);
    let report = run(
        host.as_mut(),
        &w.o,
        &opts,
        agent_resume_engine::restore::Telemetry::Sink(&mut events),
        &mut |_| {},
    )
    .expect("runs");
    (report, events.0)
}

fn verdict(r: &Report, pane: PaneId) -> Result<bool, &'static str> {
    let p = r.plans.iter().find(|p| p.pane == pane).expect("planned");
    match &p.verdict {
        Verdict::Resume(inv) => Ok(inv.posture_carried),
        Verdict::Skip(why) => Err(why.as_str()),
    }
}

// ---- the scenarios ----

/// Two panes claim one session id: exactly one resumes (the one the plan
/// ranks first), the other is `duplicate_claim_lost`.
fn two_panes_claiming_one_id_resume_once(h: &mut dyn Harness) {
    let w = World::new(true);
    let (a, b) = (w.work("a"), w.work("b"));
    let ids = h.saved(&w, &[&a, &b]);
    w.record(ids[0], claude(ID_A, &a, HOUR, Vec::new()));
    w.record(ids[1], claude(ID_A, &b, 0, Vec::new()));
    let (r, events) = restore(h, &w, false);
    let verdicts = [verdict(&r, ids[0]), verdict(&r, ids[1])];
    assert_eq!(
        verdicts.iter().filter(|v| v.is_ok()).count(),
        1,
        "{verdicts:?}"
    );
    assert!(
        verdicts.contains(&Err("duplicate_claim_lost")),
        "{verdicts:?}"
    );
    assert_eq!(events.len(), 1, "one event, for the loser");
}

/// Every skip reason a host can produce comes back typed, with one event
/// per pane that had a recording and none for the pane without one.
fn every_skip_reason_is_typed(h: &mut dyn Harness) {
    let w = World::new(true);
    let dirs: Vec<PathBuf> = ["none", "gone", "moved", "badid", "input", "queued"]
        .iter()
        .map(|n| w.work(n))
        .collect();
    let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let ids = h.saved(&w, &refs);
    std::fs::remove_dir(&dirs[1]).expect("rmdir");
    w.record(ids[1], claude(ID_A, &dirs[1], 0, Vec::new()));
    w.record(ids[2], claude(ID_B, &dirs[0], 0, Vec::new()));
    w.record(ids[3], claude("not an id; rm -rf", &dirs[3], 0, Vec::new()));
    let busy = h.busy(4, true, false) && h.busy(5, false, true);
    if busy {
        w.record(
            ids[4],
            claude(
                "11111111-2222-4333-8444-555555555555",
                &dirs[4],
                0,
                Vec::new(),
            ),
        );
        w.record(
            ids[5],
            claude(
                "66666666-7777-4888-9999-aaaaaaaaaaaa",
                &dirs[5],
                0,
                Vec::new(),
            ),
        );
    }
    let (r, events) = restore(h, &w, false);
    assert_eq!(verdict(&r, ids[0]), Err("no_recording"));
    assert_eq!(verdict(&r, ids[1]), Err("directory_gone"));
    assert_eq!(verdict(&r, ids[2]), Err("directory_mismatch"));
    // An id that fails its shape does not read back as a recording.
    assert_eq!(verdict(&r, ids[3]), Err("recording_unreadable"));
    let mut expected = 3;
    if busy {
        assert_eq!(verdict(&r, ids[4]), Err("pane_has_input"));
        assert_eq!(verdict(&r, ids[5]), Err("queued_command"));
        expected += 2;
    }
    assert_eq!(
        events.len(),
        expected,
        "one event per pane with a recording"
    );
    assert_eq!(r.armed, 0);
}

/// A resumable pane is armed once and taken once.
fn a_resumed_pane_is_taken_exactly_once(h: &mut dyn Harness) {
    let w = World::new(true);
    let a = w.work("a");
    let ids = h.saved(&w, &[&a]);
    w.record(ids[0], claude(ID_A, &a, 0, Vec::new()));
    let (r, _) = restore(h, &w, false);
    assert_eq!(verdict(&r, ids[0]), Ok(false));
    assert_eq!(r.armed, 1);
    assert_eq!(h.made(), 1, "the gone pane was made");
    let store = Store::open(&w.db()).expect("opens");
    let first = store.take(ids[0]).expect("takes");
    assert_eq!(first.map(|a| a.session_id), Some(ID_A.to_owned()));
    assert!(store.take(ids[0]).expect("takes").is_none(), "taken once");
}

/// Posture flags ride along only inside the window; past it the pane
/// still resumes, without them.
fn posture_rides_along_only_inside_the_window(h: &mut dyn Harness) {
    let w = World::new(true);
    let (a, b) = (w.work("a"), w.work("b"));
    let ids = h.saved(&w, &[&a, &b]);
    let posture = || vec![RecordedFlag::switch("--dangerously-skip-permissions")];
    w.record(ids[0], claude(ID_A, &a, HOUR, posture()));
    w.record(ids[1], claude(ID_B, &b, 13 * HOUR, posture()));
    let (r, _) = restore(h, &w, true);
    assert_eq!(verdict(&r, ids[0]), Ok(true), "fresh: posture carried");
    assert_eq!(verdict(&r, ids[1]), Ok(false), "stale: resumed without it");
}

/// With the flag off: nothing planned, armed, swept, reported or made,
/// and the database is not touched.
fn with_the_flag_off_nothing_happens(h: &mut dyn Harness) {
    let w = World::new(false);
    let a = w.work("a");
    let ids = h.saved(&w, &[&a]);
    w.record(ids[0], claude(ID_A, &a, 0, Vec::new()));
    let listing = |dir: &Path| -> Vec<(PathBuf, u64)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .expect("lists")
            .map(|e| {
                let e = e.expect("entry");
                (e.path(), e.metadata().expect("meta").len())
            })
            .collect();
        out.sort();
        out
    };
    let data = w.db().parent().expect("a parent").to_path_buf();
    let before = (listing(&data), std::fs::read(w.db()).expect("reads"));
    let (r, events) = restore(h, &w, false);
    assert!(!r.gate.enabled);
    assert!(r.plans.is_empty() && events.is_empty() && r.armed == 0);
    assert_eq!(h.made(), 0, "nothing made");
    let after = (listing(&data), std::fs::read(w.db()).expect("reads"));
    assert_eq!(before, after, "no file written, nothing swept");
    assert_eq!(
        Store::open(&w.db())
            .expect("opens")
            .load()
            .expect("loads")
            .rows
            .len(),
        1
    );
}

/// The host's live view: `snapshot` lists every open pane once, with its
/// directory, its pane ids are those `live_panes` gives (stable across
/// calls and across host values), and `identity` names the pane the caller
/// runs in.
fn the_live_view_lists_each_pane_once_and_identity_names_the_callers(h: &mut dyn Harness) {
    let w = World::new(true);
    let (a, b) = (w.work("a"), w.work("b"));
    h.open(&w, &[&a, &b]);
    let mut host = h.host_inside(&w, 1);
    let live = host.snapshot().expect("snapshots");
    assert!(!live.layout.startup, "a live view is not a restore pass");
    let in_layout: HashSet<PaneId> = live.layout.panes().map(|(p, _)| p.id).collect();
    let listed: HashSet<PaneId> = live.panes.iter().copied().collect();
    assert_eq!(listed.len(), live.panes.len(), "no id listed twice");
    assert_eq!(in_layout, listed, "the layout and the ids agree");
    let id_of = |dir: &Path| -> PaneId {
        let found: Vec<PaneId> = live
            .layout
            .panes()
            .filter(|(p, _)| p.cwd.as_deref() == Some(dir))
            .map(|(p, _)| p.id)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one pane in {}: {:?}",
            dir.display(),
            live.layout
        );
        found[0]
    };
    let (ia, ib) = (id_of(&a), id_of(&b));
    assert_ne!(ia, ib);
    let again: HashSet<PaneId> = host.live_panes().expect("lists").into_iter().collect();
    assert_eq!(again, listed, "ids are stable from one call to the next");
    assert_eq!(host.identity().expect("identifies"), Some(ib));
    drop(host);
    let mut other = h.host_inside(&w, 0);
    assert_eq!(other.identity().expect("identifies"), Some(ia));
    let again: HashSet<PaneId> = other.live_panes().expect("lists").into_iter().collect();
    assert_eq!(
        again, listed,
        "ids are stable from one host value to the next"
    );
}

// ---- the fake host ----

struct Fake(Option<FakeHost>);

impl Harness for Fake {
    fn saved(&mut self, _: &World, dirs: &[&Path]) -> Vec<PaneId> {
        let panes: Vec<PaneSpec> = dirs
            .iter()
            .enumerate()
            .map(|(i, d)| PaneSpec {
                id: PaneId::from_bytes([u8::try_from(i + 1).expect("few"); 16]),
                cwd: Some(d.to_path_buf()),
                shared_viewer: false,
                shell: Some(Shell::Bash),
                has_input: false,
                queued_command: false,
            })
            .collect();
        let ids = panes.iter().map(|p| p.id).collect();
        self.0 = Some(FakeHost::new(Layout {
            startup: true,
            windows: vec![Window {
                landing: true,
                visible: true,
                active_tab: 0,
                tabs: vec![Tab {
                    focused_pane: None,
                    panes,
                }],
            }],
        }));
        ids
    }

    fn busy(&mut self, i: usize, input: bool, queued: bool) -> bool {
        let host = self.0.as_mut().expect("saved");
        let p = &mut host.saved.windows[0].tabs[0].panes[i];
        p.has_input = input;
        p.queued_command = queued;
        true
    }

    fn host(&mut self, _: &World) -> Box<dyn Host + '_> {
        Box::new(Borrowed(self.0.as_mut().expect("saved")))
    }

    fn made(&mut self) -> usize {
        self.0.as_ref().map_or(0, |h| h.created.len())
    }

    fn open(&mut self, w: &World, dirs: &[&Path]) {
        let ids = self.saved(w, dirs);
        let host = self.0.as_mut().expect("saved");
        host.live = ids.into_iter().collect();
    }

    fn host_inside(&mut self, _: &World, i: usize) -> Box<dyn Host + '_> {
        let host = self.0.as_mut().expect("opened");
        host.caller = Some(host.saved.windows[0].tabs[0].panes[i].id);
        Box::new(Borrowed(host))
    }
}

/// A host lent out for one restore.
struct Borrowed<'a, H: Host>(&'a mut H);

impl<H: Host> Host for Borrowed<'_, H> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn snapshot(
        &mut self,
    ) -> Result<agent_resume_engine::host::Live, agent_resume_engine::host::HostError> {
        self.0.snapshot()
    }
    fn restore_model(
        &mut self,
        recreate: bool,
        say: &mut dyn FnMut(&str),
    ) -> Result<agent_resume_engine::host::Model, agent_resume_engine::host::HostError> {
        self.0.restore_model(recreate, say)
    }
    fn recreate(
        &mut self,
        model: &agent_resume_engine::host::Model,
        keys: &std::collections::BTreeMap<PaneId, agent_resume_core::TakeKey>,
        say: &mut dyn FnMut(&str),
    ) -> Result<agent_resume_engine::host::Recreated, agent_resume_engine::host::HostError> {
        self.0.recreate(model, keys, say)
    }
    fn dispatch(
        &mut self,
        pane: PaneId,
        line: &str,
    ) -> Result<agent_resume_engine::host::Dispatched, agent_resume_engine::host::HostError> {
        self.0.dispatch(pane, line)
    }
    fn live_panes(&mut self) -> Result<Vec<PaneId>, agent_resume_engine::host::HostError> {
        self.0.live_panes()
    }
    fn identity(&mut self) -> Result<Option<PaneId>, agent_resume_engine::host::HostError> {
        self.0.identity()
    }
}

// ---- real tmux ----

/// A private tmux server: panes are saved in session `c`, which is then
/// killed (the anchor session keeps the server).
struct RealTmux {
    server: agent_resume_test_support::tmux::Tmux,
    /// The opened panes (`%N`), in order.
    opened: Vec<String>,
}

impl RealTmux {
    fn new() -> RealTmux {
        let server = agent_resume_test_support::tmux::Tmux::start();
        server.ok(&["set-option", "-g", "default-shell", "/bin/sh"]);
        RealTmux {
            server,
            opened: Vec::new(),
        }
    }

    fn client(&self) -> agent_resume_tmux::Tmux {
        let dir = std::fs::read_dir(self.server.tmpdir())
            .expect("lists")
            .map(|e| e.expect("entry").path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("tmux-"))
            })
            .expect("tmux's socket directory");
        agent_resume_tmux::Tmux::new(agent_resume_tmux::Socket::Path(
            dir.join(self.server.socket()),
        ))
    }

    fn sessions(&self) -> HashSet<String> {
        self.server
            .ok(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

impl Harness for RealTmux {
    fn saved(&mut self, w: &World, dirs: &[&Path]) -> Vec<PaneId> {
        let sleep = agent_resume_test_support::require("sleep");
        let sleep = sleep.to_string_lossy();
        for (i, d) in dirs.iter().enumerate() {
            let d = d.to_string_lossy();
            if i == 0 {
                self.server.ok(&[
                    "new-session",
                    "-d",
                    "-s",
                    "c",
                    "-x",
                    "200",
                    "-y",
                    "80",
                    "-c",
                    &d,
                    "--",
                    &sleep,
                    "100000",
                ]);
            } else {
                self.server.ok(&[
                    "split-window",
                    "-t",
                    "c:0",
                    "-c",
                    &d,
                    "--",
                    &sleep,
                    "100000",
                ]);
                self.server.ok(&["select-layout", "-t", "c:0", "tiled"]);
            }
        }
        // A pane just made may not show its directory yet (its process is
        // still starting; tmux reads the directory from it): a save then
        // leaves it out, as it should. Saved once every pane shows it.
        let want: Vec<String> = dirs
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
        agent_resume_test_support::poll::wait_for("every pane's directory", || {
            let shown: Vec<String> = self
                .server
                .ok(&["list-panes", "-t", "c:0", "-F", "#{pane_current_path}"])
                .lines()
                .map(str::to_owned)
                .collect();
            (shown == want).then_some(())
        });
        let client = self.client();
        agent_resume_tmux::host::save_server(&client, &w.o, None).expect("saves");
        let mut live: Vec<_> = client
            .list_panes()
            .expect("lists")
            .into_iter()
            .filter(|p| p.session == "c")
            .collect();
        live.sort_by_key(|p| p.pane_index);
        let ids: Vec<PaneId> = live.iter().map(|p| p.stable_id.expect("an id")).collect();
        assert_eq!(ids.len(), dirs.len());
        self.server.ok(&["kill-session", "-t", "c"]);
        ids
    }

    fn busy(&mut self, _: usize, _: bool, _: bool) -> bool {
        // A recreated tmux pane starts with an empty prompt; typing into a
        // pane that holds input is refused at dispatch, not planned.
        false
    }

    fn host(&mut self, w: &World) -> Box<dyn Host + '_> {
        Box::new(agent_resume_tmux::host::TmuxHost::new(
            self.client(),
            w.o.clone(),
        ))
    }

    fn made(&mut self) -> usize {
        if !self.sessions().contains("c") {
            return 0;
        }
        self.server
            .ok(&["list-panes", "-t", "c", "-F", "#{pane_id}"])
            .lines()
            .count()
    }

    fn open(&mut self, _: &World, dirs: &[&Path]) {
        let sleep = agent_resume_test_support::require("sleep");
        let sleep = sleep.to_string_lossy();
        for (i, d) in dirs.iter().enumerate() {
            let d = d.to_string_lossy();
            let made = if i == 0 {
                self.server.ok(&[
                    "new-session",
                    "-d",
                    "-P",
                    "-F",
                    "#{pane_id}",
                    "-s",
                    "l",
                    "-x",
                    "200",
                    "-y",
                    "80",
                    "-c",
                    &d,
                    "--",
                    &sleep,
                    "100000",
                ])
            } else {
                self.server.ok(&[
                    "split-window",
                    "-P",
                    "-F",
                    "#{pane_id}",
                    "-t",
                    "l:0",
                    "-c",
                    &d,
                    "--",
                    &sleep,
                    "100000",
                ])
            };
            self.opened.push(made.trim().to_owned());
            self.server.ok(&["select-layout", "-t", "l:0", "tiled"]);
        }
    }

    fn host_inside(&mut self, w: &World, i: usize) -> Box<dyn Host + '_> {
        Box::new(
            agent_resume_tmux::host::TmuxHost::new(self.client(), w.o.clone())
                .seen_from(Some(self.opened[i].clone())),
        )
    }
}

// ---- real kitty ----

/// A real kitty under a private Xvfb display, listening on a socket in a
/// directory only this user may enter; its first window stays open for the
/// whole run (as tmux's anchor session does), the windows a scenario opens
/// are closed before the next one opens any.
struct RealKitty {
    // Fields drop in order: kitty before its display and its directory.
    kitty: agent_resume_test_support::kitty::Kitty,
    _display: agent_resume_test_support::kitty::Display,
    dir: tempfile::TempDir,
    /// kitty's ids of the windows opened and not yet closed, in order.
    opened: Vec<u64>,
    /// The session file the last host handed out writes.
    output: Option<PathBuf>,
}

impl RealKitty {
    fn new() -> RealKitty {
        private_homes();
        let display = agent_resume_test_support::kitty::Display::start();
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("home");
        // tempfile makes the directory 0700: the socket is this user's alone.
        let kitty = agent_resume_test_support::kitty::Kitty::start(
            &display,
            &dir.path().join("kitty"),
            &home,
            None,
            &[],
        );
        RealKitty {
            kitty,
            _display: display,
            dir,
            opened: Vec::new(),
            output: None,
        }
    }

    /// Closes the windows a scenario opened and waits until kitty no
    /// longer lists them.
    fn tidy(&mut self) {
        let gone: Vec<u64> = std::mem::take(&mut self.opened);
        for id in &gone {
            // A window already closed answers with an error: nothing to do.
            let _ = self
                .kitty
                .at(&["close-window", "--match", &format!("id:{id}")]);
        }
        self.kitty.wait_until(
            |ls| {
                ls.is_some_and(|ls| {
                    agent_resume_test_support::kitty::windows(ls)
                        .iter()
                        .all(|w| !gone.contains(&w.id))
                })
            },
            "closed the scenario's windows",
        );
    }

    /// Opens a `/bin/sh` window in each of `dirs`, once kitty lists each
    /// in its directory; returns kitty's ids.
    fn launch(&mut self, dirs: &[&Path]) -> Vec<u64> {
        self.tidy();
        for d in dirs {
            let id = self
                .kitty
                .at(&[
                    "launch",
                    "--type=window",
                    "--cwd",
                    &d.to_string_lossy(),
                    "/bin/sh",
                ])
                .expect("kitty opens a window");
            self.opened
                .push(id.trim().parse().expect("kitty names the window it opened"));
        }
        let opened = self.opened.clone();
        self.kitty.wait_until(
            |ls| {
                ls.is_some_and(|ls| {
                    let listed = agent_resume_test_support::kitty::windows(ls);
                    opened.iter().zip(dirs).all(|(id, d)| {
                        listed
                            .iter()
                            .any(|w| w.id == *id && Path::new(&w.cwd) == *d)
                    })
                })
            },
            "lists every window it opened in its directory",
        );
        opened
    }

    fn to(&self) -> std::ffi::OsString {
        self.kitty.to.clone().into()
    }
}

impl Harness for RealKitty {
    fn saved(&mut self, w: &World, dirs: &[&Path]) -> Vec<PaneId> {
        let kitty_ids = self.launch(dirs);
        let to = self.to();
        let snap =
            agent_resume_kitty::host::save_instance(Some(&to), &w.o).expect("saves the snapshot");
        let ids = kitty_ids
            .iter()
            .map(|k| {
                snap.windows()
                    .find(|w| w.kitty_id == *k)
                    .expect("every opened window is saved")
                    .id
            })
            .collect();
        self.tidy();
        ids
    }

    fn busy(&mut self, _: usize, _: bool, _: bool) -> bool {
        // kitty has no in-place restore: every saved window comes back
        // from the session file with a fresh shell at an empty prompt, so
        // neither typed input nor a queued command can be planned.
        false
    }

    fn host(&mut self, w: &World) -> Box<dyn Host + '_> {
        let output = w.dir.path().join("kitty.session");
        self.output = Some(output.clone());
        Box::new(agent_resume_kitty::host::KittyHost::new(
            w.o.clone(),
            output,
        ))
    }

    /// kitty's recreate writes the session file kitty starts from: the
    /// windows it makes are the windows that file holds, read as kitty
    /// reads it.
    fn made(&mut self) -> usize {
        let Some(text) = self
            .output
            .as_ref()
            .and_then(|o| std::fs::read_to_string(o).ok())
        else {
            return 0;
        };
        let read = agent_resume_kitty::reread(&text);
        assert_eq!(read.unknown, 0, "kitty reads every line:\n{text}");
        read.os_windows.iter().flatten().map(Vec::len).sum()
    }

    fn open(&mut self, _: &World, dirs: &[&Path]) {
        self.launch(dirs);
    }

    fn host_inside(&mut self, w: &World, i: usize) -> Box<dyn Host + '_> {
        let output = w.dir.path().join("kitty.session");
        Box::new(
            agent_resume_kitty::host::KittyHost::new(w.o.clone(), output)
                .seen_from(self.to(), Some(self.opened[i])),
        )
    }
}

macro_rules! conformance {
    ($host:ident, $make:expr) => {
        mod $host {
            use super::*;

            #[test]
            fn two_panes_claiming_one_id_resume_once() {
                super::two_panes_claiming_one_id_resume_once(&mut $make);
            }

            #[test]
            fn every_skip_reason_is_typed() {
                super::every_skip_reason_is_typed(&mut $make);
            }

            #[test]
            fn a_resumed_pane_is_taken_exactly_once() {
                super::a_resumed_pane_is_taken_exactly_once(&mut $make);
            }

            #[test]
            fn posture_rides_along_only_inside_the_window() {
                super::posture_rides_along_only_inside_the_window(&mut $make);
            }

            #[test]
            fn with_the_flag_off_nothing_happens() {
                super::with_the_flag_off_nothing_happens(&mut $make);
            }

            #[test]
            fn the_live_view_lists_each_pane_once_and_identity_names_the_callers() {
                super::the_live_view_lists_each_pane_once_and_identity_names_the_callers(
                    &mut $make,
                );
            }
        }
    };
}

conformance!(fake, Fake(None));
conformance!(tmux, RealTmux::new());

/// kitty: one instance (and one X display) for every scenario, run one
/// after another; each scenario closes what the one before it opened.
#[test]
fn kitty_passes_every_scenario() {
    let mut k = RealKitty::new();
    two_panes_claiming_one_id_resume_once(&mut k);
    every_skip_reason_is_typed(&mut k);
    a_resumed_pane_is_taken_exactly_once(&mut k);
    posture_rides_along_only_inside_the_window(&mut k);
    with_the_flag_off_nothing_happens(&mut k);
    the_live_view_lists_each_pane_once_and_identity_names_the_callers(&mut k);
    k.tidy();
    drop(k.dir);
}
