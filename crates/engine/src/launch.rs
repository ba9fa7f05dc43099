//! Capture at an agent's launch: the zero-config scan of one pane, run a
//! few times in the seconds after its shell started an agent.
//!
//! A host's save ([`crate::scan`] through `tmux save`, `kitty save`) runs
//! only on the host's own events: an agent started in a pane where nothing
//! else happens would wait for the next split or window switch to be
//! recorded. Shell integration already runs `agent-resume note` just before
//! an agent command line runs; `note` then starts one background process
//! ([`spawn`]: its own process group, stdio on `/dev/null`, never waited
//! for) that runs [`watch`]: the same [`scan`] a save runs, for that pane
//! alone, at the waits of [`WAITS`] (about half a minute in all), until the
//! agent's session is recorded, the run is headless, or the agent is gone.
//! No process runs per prompt: only an agent command line starts one.
//!
//! An agent that writes its session only at the first prompt (OpenCode and
//! Kilo's row, Pi's file: [`agent_resume_discover::provider::Provider::first_prompt`])
//! may get that prompt an hour later. Its watch then holds: every
//! [`HOLD_EVERY`] it checks that the agent process is still the one it saw
//! (one `/proc` read) and stamps the agent's store
//! ([`agent_resume_discover::scan::store_stamp`]: a few `stat`s), and scans
//! again only when the stamp moved — so the session is recorded moments
//! after the first prompt writes it, however late, and the wait costs
//! nothing per prompt (the watch ends at the first recording) and no store
//! read while nothing is written.
//!
//! ```
//! use agent_resume_engine::launch::{Ended, WAITS};
//!
//! let bound: std::time::Duration = WAITS.iter().sum();
//! assert!(bound.as_secs() <= 40);
//! assert_eq!(Ended::Recorded.as_str(), "recorded");
//! ```

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use agent_resume_core::{PaneId, UnixMillis};
use agent_resume_discover::process::ProcessTable;
use agent_resume_discover::scan::store_stamp;
use agent_resume_discover::Homes;

use crate::paths::Overrides;
use crate::scan::{scan, Outcome, PaneRef, ScanError, Scanned};

/// The waits before each scan: short at first (most agents write their
/// session within a second or two of starting), longer later, bounded in
/// all (30 s: an agent whose id shows later is left to the host's saves).
pub const WAITS: [Duration; 9] = [
    Duration::from_millis(500),
    Duration::from_millis(1_000),
    Duration::from_millis(1_500),
    Duration::from_millis(2_000),
    Duration::from_millis(3_000),
    Duration::from_millis(4_000),
    Duration::from_millis(6_000),
    Duration::from_millis(6_000),
    Duration::from_millis(6_000),
];

/// How often a held watch ([`watch`], for an agent that writes its session
/// at the first prompt) checks its agent and its store's stamp.
pub const HOLD_EVERY: Duration = Duration::from_secs(2);

/// How many scans may find no agent at all before the watch ends: the
/// line `note` saw may never start one (a failed command, `claude
/// --version` already done).
const NO_AGENT_SCANS: usize = 4;

/// Why a watch ended. Closed, with stable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Ended {
    /// The run is recorded (by this watch, a hook or a save).
    Recorded = 1,
    /// The run is headless: never recorded.
    Headless = 2,
    /// The agent was seen and has ended.
    Gone = 3,
    /// No agent showed in the pane.
    NoAgent = 4,
    /// The agent runs; its id did not show within the bound.
    NoId = 5,
    /// The agent cannot resume a conversation by its id: nothing to record.
    NotResumableById = 6,
}

impl Ended {
    /// Every variant.
    pub const VARIANTS: &'static [Ended] = &[
        Ended::Recorded,
        Ended::Headless,
        Ended::Gone,
        Ended::NoAgent,
        Ended::NoId,
        Ended::NotResumableById,
    ];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Ended::Recorded => "recorded",
            Ended::Headless => "headless",
            Ended::Gone => "gone",
            Ended::NoAgent => "no_agent",
            Ended::NoId => "no_id",
            Ended::NotResumableById => "not_resumable_by_id",
        }
    }
}

/// Time, as a watch sees it: a test runs one without waiting.
pub trait Clock {
    /// Now.
    fn now(&self) -> UnixMillis;
    /// Waits `d`.
    fn sleep(&mut self, d: Duration);
}

/// The system's clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> UnixMillis {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        UnixMillis(i64::try_from(ms).unwrap_or(i64::MAX))
    }
    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// Scans `pane` at each of [`WAITS`] until its run is recorded, headless
/// or gone (or never showed); then, for an agent whose session is written
/// at the first prompt, holds while it runs and scans again each time its
/// store's stamp moves. The reason and the last scan's result.
pub fn watch(
    table: &dyn ProcessTable,
    homes: &Homes,
    db: &Path,
    pane: &PaneRef,
    clock: &mut dyn Clock,
) -> Result<(Ended, Option<Scanned>), ScanError> {
    let mut seen = false;
    let mut last: Option<Scanned> = None;
    let once = |clock: &mut dyn Clock| -> Result<Option<Scanned>, ScanError> {
        Ok(
            scan(table, homes, db, std::slice::from_ref(pane), clock.now())?
                .into_iter()
                .next(),
        )
    };
    for (n, wait) in WAITS.iter().enumerate() {
        clock.sleep(*wait);
        let found = once(clock)?;
        let outcome = found.as_ref().map_or(Outcome::NoAgent, |s| s.outcome);
        last = found;
        match outcome {
            Outcome::Recorded | Outcome::AlreadyRecorded => return Ok((Ended::Recorded, last)),
            Outcome::Headless => return Ok((Ended::Headless, last)),
            Outcome::NotResumableById => return Ok((Ended::NotResumableById, last)),
            Outcome::NoAgent if seen => return Ok((Ended::Gone, last)),
            Outcome::NoAgent if n + 1 >= NO_AGENT_SCANS => return Ok((Ended::NoAgent, last)),
            Outcome::NoAgent => {}
            Outcome::NoId | Outcome::Unproven => seen = true,
        }
    }
    // Only a run with no recording at all holds: a resume awaiting its
    // proof is recorded already.
    let held = last
        .as_ref()
        .filter(|s| s.outcome == Outcome::NoId)
        .and_then(|s| s.agent)
        .filter(|(agent, _)| agent_resume_discover::provider(*agent).first_prompt());
    let Some((agent, process)) = held else {
        return Ok((if seen { Ended::NoId } else { Ended::NoAgent }, last));
    };
    // No stamp yet: the first look scans, in case the store moved since
    // the last scan above.
    let mut stamp = Vec::new();
    loop {
        clock.sleep(HOLD_EVERY);
        if table.process(process.pid).map(|p| p.id) != Some(process) {
            return Ok((Ended::Gone, last));
        }
        let now = store_stamp(homes, agent);
        if now == stamp {
            continue;
        }
        stamp = now;
        let found = once(clock)?;
        let outcome = found.as_ref().map_or(Outcome::NoAgent, |s| s.outcome);
        last = found;
        match outcome {
            Outcome::Recorded | Outcome::AlreadyRecorded | Outcome::Unproven => {
                return Ok((Ended::Recorded, last))
            }
            Outcome::Headless => return Ok((Ended::Headless, last)),
            Outcome::NotResumableById => return Ok((Ended::NotResumableById, last)),
            Outcome::NoAgent => return Ok((Ended::Gone, last)),
            Outcome::NoId => {}
        }
    }
}

/// The command line of the watch for `pane` (`capture launch`), after the
/// program: the global path options first, so the watch uses the
/// database and config `note` used.
pub fn args(pane: PaneId, shell_pid: u32, o: &Overrides) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    if let Some(db) = &o.db {
        out.extend([OsString::from("--db"), db.clone().into_os_string()]);
    }
    if let Some(config) = &o.config {
        out.extend([OsString::from("--config"), config.clone().into_os_string()]);
    }
    out.extend(
        [
            "capture",
            "launch",
            "--pane",
            &pane.to_string(),
            "--shell-pid",
            &shell_pid.to_string(),
        ]
        .map(OsString::from),
    );
    out
}

/// Starts the watch for `pane` in the background ([`crate::process::spawn_background`]):
/// `program` is this binary. The caller returns at once; a failure to
/// start costs the shell nothing.
pub fn spawn(program: &Path, pane: PaneId, shell_pid: u32, o: &Overrides) -> std::io::Result<()> {
    crate::process::spawn_background(program, &args(pane, shell_pid, o))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::cell::Cell;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use agent_resume_core::AgentKind;
    use agent_resume_discover::process::{ProcessId, ProcessInfo};
    use agent_resume_store::{RowState, Store};

    use super::*;

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
    const START: i64 = 1_000_000;

    /// A process table that changes as the watch waits: at each step the
    /// rows of `steps[step]` (the last one stays).
    struct Steps {
        step: Cell<usize>,
        steps: Vec<BTreeMap<u32, (u32, Vec<String>)>>,
    }

    impl Steps {
        fn new(steps: &[&[(u32, u32, &[&str])]]) -> Steps {
            Steps {
                step: Cell::new(0),
                steps: steps
                    .iter()
                    .map(|rows| {
                        rows.iter()
                            .map(|(p, pp, a)| {
                                (*p, (*pp, a.iter().map(|w| (*w).to_owned()).collect()))
                            })
                            .collect()
                    })
                    .collect(),
            }
        }
        fn rows(&self) -> &BTreeMap<u32, (u32, Vec<String>)> {
            let last = self.steps.len() - 1;
            &self.steps[self.step.get().min(last)]
        }
    }

    impl ProcessTable for Steps {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            let (ppid, argv) = self.rows().get(&pid)?.clone();
            Some(ProcessInfo {
                id: ProcessId { pid, start: 7 },
                ppid,
                argv,
            })
        }
        fn pids(&self) -> Vec<u32> {
            self.rows().keys().copied().collect()
        }
        fn started_at(&self, _id: ProcessId) -> Option<UnixMillis> {
            Some(UnixMillis(START))
        }
        fn cwd(&self, _pid: u32) -> Option<PathBuf> {
            Some(PathBuf::from("/w/p"))
        }
    }

    /// Simulated time: each sleep moves the table one step on, and runs
    /// `at` with the number of sleeps so far.
    struct Fake<'a> {
        table: &'a Steps,
        slept: Duration,
        sleeps: usize,
        at: &'a dyn Fn(usize),
    }

    impl Clock for Fake<'_> {
        fn now(&self) -> UnixMillis {
            UnixMillis(START + i64::try_from(self.slept.as_millis()).unwrap())
        }
        fn sleep(&mut self, d: Duration) {
            self.slept += d;
            self.sleeps += 1;
            self.table.step.set(self.sleeps - 1);
            (self.at)(self.sleeps);
        }
    }

    fn pane() -> PaneRef {
        PaneRef {
            pane: PaneId::from_bytes([1; 16]),
            pid: 10,
        }
    }

    fn recorded(db: &Path) -> Option<String> {
        match Store::open(db).unwrap().row(pane().pane).unwrap() {
            Some(RowState::Recording(r)) => Some(r.session_id),
            Some(RowState::Unreadable(_)) | None => None,
        }
    }

    const BASH: (u32, u32, &[&str]) = (10, 1, &["bash"]);
    const CLAUDE: (u32, u32, &[&str]) = (11, 10, &["claude", "--model", "opus"]);

    #[test]
    fn an_agent_whose_registry_shows_seconds_after_it_started_is_recorded_then_the_watch_ends() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.sqlite3");
        let home = dir.path().join("home");
        let homes = Homes::under(&home);
        // The shell forks, then the agent starts; its registry entry is
        // written at the fourth wait.
        let table = Steps::new(&[&[BASH], &[BASH, CLAUDE]]);
        let register = |n: usize| {
            if n == 4 {
                let d = home.join(".claude/sessions");
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(
                    d.join("11.json"),
                    format!("{{\"pid\":11,\"sessionId\":\"{ID}\"}}"),
                )
                .unwrap();
            }
        };
        let mut clock = Fake {
            table: &table,
            slept: Duration::ZERO,
            sleeps: 0,
            at: &register,
        };
        let (ended, last) = watch(&table, &homes, &db, &pane(), &mut clock).unwrap();
        assert_eq!(ended, Ended::Recorded);
        assert_eq!(clock.sleeps, 4, "no scan after the recording");
        assert_eq!(last.unwrap().agent.map(|(a, _)| a), Some(AgentKind::Claude));
        assert_eq!(recorded(&db), Some(ID.to_owned()));
    }

    #[test]
    fn a_watch_ends_when_its_agent_ends_when_none_shows_and_at_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.sqlite3");
        let homes = Homes::under(&dir.path().join("home"));
        let nothing = |_: usize| {};
        let cases: Vec<(&str, Steps, Ended, usize)> = vec![
            (
                "the agent ended before its id showed",
                Steps::new(&[&[BASH, CLAUDE], &[BASH, CLAUDE], &[BASH]]),
                Ended::Gone,
                3,
            ),
            (
                "no agent ever showed",
                Steps::new(&[&[BASH]]),
                Ended::NoAgent,
                NO_AGENT_SCANS,
            ),
            (
                "the agent runs and never shows its id",
                Steps::new(&[&[BASH, CLAUDE]]),
                Ended::NoId,
                WAITS.len(),
            ),
            (
                "a headless run",
                Steps::new(&[&[BASH, (11, 10, &["claude", "-p", "hi"])]]),
                Ended::Headless,
                1,
            ),
        ];
        for (what, table, want, sleeps) in &cases {
            let mut clock = Fake {
                table,
                slept: Duration::ZERO,
                sleeps: 0,
                at: &nothing,
            };
            let (ended, _) = watch(table, &homes, &db, &pane(), &mut clock).unwrap();
            assert_eq!((ended, clock.sleeps), (*want, *sleeps), "{what}");
            assert_eq!(recorded(&db), None, "{what}");
        }
    }

    const SES: &str = "ses_dbb8e5307ffeL7B04j7BArXAEA";
    const OPENCODE: (u32, u32, &[&str]) = (11, 10, &["opencode", "-m", "stub/gpt-4o"]);

    /// OpenCode's database under `home` with one session row made at `at`.
    fn opencode_row(home: &Path, at: i64) {
        let d = home.join(".local/share/opencode");
        std::fs::create_dir_all(&d).unwrap();
        let c = rusqlite::Connection::open(d.join("opencode.db")).unwrap();
        c.execute_batch(
            "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, \
             title TEXT, time_created INTEGER, time_updated INTEGER)",
        )
        .unwrap();
        c.execute(
            "INSERT INTO session VALUES (?1, NULL, '/w/p', 'hi', ?2, ?2)",
            rusqlite::params![SES, at],
        )
        .unwrap();
    }

    #[test]
    fn an_agent_whose_first_prompt_comes_after_the_waits_is_recorded_when_its_row_appears() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.sqlite3");
        let home = dir.path().join("home");
        let homes = Homes::under(&home);
        let table = Steps::new(&[&[BASH, OPENCODE]]);
        // The first prompt: five holds past the waits (40 s after launch).
        let at = WAITS.len() + 5;
        let prompt = |n: usize| {
            if n == at {
                opencode_row(&home, START + 40_000);
            }
        };
        let mut clock = Fake {
            table: &table,
            slept: Duration::ZERO,
            sleeps: 0,
            at: &prompt,
        };
        let (ended, _) = watch(&table, &homes, &db, &pane(), &mut clock).unwrap();
        assert_eq!(ended, Ended::Recorded);
        assert_eq!(clock.sleeps, at, "recorded at the first look after the row");
        assert!(clock.slept > WAITS.iter().sum::<Duration>());
        assert_eq!(recorded(&db), Some(SES.to_owned()));
    }

    #[test]
    fn a_held_watch_ends_when_its_agent_ends_with_no_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.sqlite3");
        let homes = Homes::under(&dir.path().join("home"));
        // The agent runs through the waits and three holds, then ends.
        let mut steps: Vec<&[(u32, u32, &[&str])]> = vec![&[BASH, OPENCODE]; WAITS.len() + 3];
        steps.push(&[BASH]);
        let table = Steps::new(&steps);
        let nothing = |_: usize| {};
        let mut clock = Fake {
            table: &table,
            slept: Duration::ZERO,
            sleeps: 0,
            at: &nothing,
        };
        let (ended, _) = watch(&table, &homes, &db, &pane(), &mut clock).unwrap();
        assert_eq!((ended, clock.sleeps), (Ended::Gone, WAITS.len() + 4));
        assert_eq!(recorded(&db), None);
    }

    #[test]
    fn the_watch_command_carries_the_global_paths_and_the_pane() {
        let o = Overrides {
            db: Some(PathBuf::from("/d/r.sqlite3")),
            config: None,
        };
        let got: Vec<String> = args(PaneId::from_bytes([1; 16]), 42, &o)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            got,
            [
                "--db",
                "/d/r.sqlite3",
                "capture",
                "launch",
                "--pane",
                "01010101-0101-0101-0101-010101010101",
                "--shell-pid",
                "42"
            ]
        );
    }

    #[test]
    fn ended_names_are_distinct() {
        let names: std::collections::BTreeSet<&str> =
            Ended::VARIANTS.iter().map(|e| e.as_str()).collect();
        assert_eq!(names.len(), Ended::VARIANTS.len());
    }
}
