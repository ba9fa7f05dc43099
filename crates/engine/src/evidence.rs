//! What a hook records about the run that reported: the flags and whether
//! it is headless, from the agent's own process.
//!
//! A hook is a descendant of the agent that fired it, and of the agent the
//! user started in the pane: the same process, or the user's agent above a
//! tool call of it (`./claude --dangerously-skip-permissions` run by the
//! agent's shell tool). Flags, headlessness and the program path come from
//! the *outermost* agent process ([`agent_resume_discover::lineage`]), and
//! only when that walk proves it the pane's run: it reached the top, no
//! process of another agent runs above, and the run was started with the
//! pane identity the hook was (`AGENT_RESUME_PANE`, `TMUX`, `TMUX_PANE`).
//! Otherwise the id is recorded with no flags. Its argv goes through the
//! same extraction as a typed command line ([`extract_words`]). A report
//! from a headless run — the pane's run, or the nearest agent process that
//! ran the hook (`claude -p` as a tool call) — is never recorded.
//!
//! A shell note is consulted only when the process cannot show its flags
//! (it wrote a title over its argv), and only when it belongs to that same
//! process: its launcher pid is in the agent's ancestry (or is the agent,
//! for `run`, which becomes it) and the process the launcher started began
//! within moments of the note. A note never adds a posture flag: the argv
//! of that process does not show one. With no agent ancestor (a hook run
//! some other way) or no process table (not Linux), the id is recorded
//! with no flags.
//!
//! A run that serves no one pane is refused ([`Unattached`]): the agent
//! process that ran the hook, or the pane's run, is the agent's shared
//! background server (the catalog's `shared_server_args`: Codex 0.171's
//! `codex app-server --managed-daemon`, which runs the sessions of every
//! Codex window of a `$CODEX_HOME` with the environment of the window that
//! started it), or it is detached from every terminal (a session leader
//! with no controlling terminal, as a daemon is). Its pane cannot be known
//! from the environment the hook inherits, so nothing is recorded: the
//! right pane gets the right conversation or none.

use agent_resume_core::{extract_words, AgentDecl, Catalog, Extraction, PaneId, UnixMillis};
use agent_resume_discover::lineage::{another_agent_above, provenance, Provenance, Top};
use agent_resume_discover::process::{is_shared_server, AgentProcess, ProcessTable};
use agent_resume_store::{Noted, Store};

use crate::capture::noted_argv;

/// How far before a note the launched process may have started: `/proc`
/// start times are known to within a second, and `run` notes after it
/// started.
const STARTED_BEFORE_NOTE: i64 = 2_000;
/// How long after a note the launched process may start: the shell runs
/// the line right after its preexec step.
const STARTED_AFTER_NOTE: i64 = 5_000;

/// The variables that name a pane ([`PANE_ENV`]): the pane's run
/// must have been started with the hook's values of them.
const PANE_VARS: [&str; 3] = [PANE_ENV, "TMUX", "TMUX_PANE"];

pub use crate::PANE_ENV;

/// What the hook records besides the id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Program word and allowlisted flags, joined.
    pub invocation: Option<String>,
    /// The run is headless: never the pane's recording.
    pub headless: bool,
    /// The session the shell note of a run that hides its argv says the
    /// line resumed (`pi --session <id>`): that run's own argv, as the
    /// shell saw it.
    pub noted_id: Option<String>,
}

/// Why a run's report is attributed to no pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Unattached {
    /// The agent process is the agent's shared background server.
    SharedServer = 1,
    /// The agent process leads a session of its own with no controlling
    /// terminal.
    Detached = 2,
    /// No process of this agent runs above the hook, but another agent's
    /// does: that agent runs this one's hooks (Grok reads Claude's
    /// `settings.json`), and its id is not this agent's conversation.
    AnotherAgent = 3,
}

impl Unattached {
    /// Every variant.
    #[cfg(test)]
    pub const VARIANTS: &'static [Unattached] = &[
        Unattached::SharedServer,
        Unattached::Detached,
        Unattached::AnotherAgent,
    ];

    /// The kind, as `hook.log` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Unattached::SharedServer => "shared-server",
            Unattached::Detached => "detached",
            Unattached::AnotherAgent => "another-agent",
        }
    }

    /// What it means, for `hook.log`.
    pub fn explain(self) -> &'static str {
        match self {
            Unattached::SharedServer => {
                "the session runs in the agent's shared background server, whose environment \
                 is another window's: its pane cannot be known, nothing recorded"
            }
            Unattached::Detached => {
                "the agent process has no terminal of its own (a background server): its \
                 pane cannot be known, nothing recorded"
            }
            Unattached::AnotherAgent => {
                "the hook was run by another agent (one that reads this agent's hook \
                 settings): its session is not this agent's, nothing recorded"
            }
        }
    }
}

/// The evidence for the run of `agent` that this hook process belongs to,
/// or why it belongs to no pane.
pub fn of_this_run(
    store: &Store,
    pane: PaneId,
    agent: &AgentDecl,
    now: UnixMillis,
) -> Result<Evidence, Unattached> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let table = agent_resume_discover::process::ProcFs;
        let parent = std::os::unix::process::parent_id();
        let values = PANE_VARS.map(std::env::var_os);
        let vars: Vec<(&str, Option<&[u8]>)> = PANE_VARS
            .iter()
            .zip(&values)
            .map(|(name, v)| (*name, v.as_deref().map(OsStrExt::as_bytes)))
            .collect();
        let note = || {
            store.noted(
                pane,
                agent.kind,
                UnixMillis(now.0.saturating_sub(24 * 3600 * 1000)),
            )
        };
        from_table(&table, parent, agent, Top::Environment(&vars), note)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (store, pane, agent, now);
        Ok(Evidence::default())
    }
}

/// The evidence for the run of `agent` above `parent` (the hook's parent)
/// in `table`, the pane ending at `top`, or why it belongs to no pane.
pub fn from_table(
    table: &dyn ProcessTable,
    parent: u32,
    agent: &AgentDecl,
    top: Top<'_>,
    note: impl FnOnce() -> Option<Noted>,
) -> Result<Evidence, Unattached> {
    let catalog = Catalog::embedded();
    let found = provenance(table, parent, agent, catalog, top);
    if matches!(found, Provenance::NoAgent)
        && another_agent_above(table, parent, agent, catalog, top)
    {
        return Err(Unattached::AnotherAgent);
    }
    for f in found.reporter().into_iter().chain(found.run()) {
        attached(table, agent, f)?;
    }
    Ok(decide(table, agent, &found, note))
}

/// Whether `found` runs in a pane of its own, as far as the table shows.
pub fn attached(
    table: &dyn ProcessTable,
    agent: &AgentDecl,
    found: &AgentProcess,
) -> Result<(), Unattached> {
    if is_shared_server(agent, &found.argv) {
        return Err(Unattached::SharedServer);
    }
    if table.detached(found.process.id) == Some(true) {
        return Err(Unattached::Detached);
    }
    Ok(())
}

/// The decision, over any process table: flags only from a proven run.
pub fn decide(
    table: &dyn ProcessTable,
    agent: &AgentDecl,
    found: &Provenance,
    note: impl FnOnce() -> Option<Noted>,
) -> Evidence {
    let headless = |p: &AgentProcess| extract_words(agent, &p.argv) == Ok(Extraction::Headless);
    if found.reporter().is_some_and(headless) || found.run().is_some_and(headless) {
        return Evidence {
            invocation: None,
            headless: true,
            noted_id: None,
        };
    }
    let Some(found) = found.run() else {
        return Evidence::default();
    };
    let from_argv = extract_words(agent, &found.argv);
    if !found.rewritten {
        return Evidence {
            invocation: match from_argv {
                Ok(Extraction::Interactive { flags, program }) => {
                    Some(shell_words::join(noted_argv(agent, program, flags)))
                }
                Ok(Extraction::Headless) | Err(_) => None,
            },
            headless: false,
            noted_id: None,
        };
    }
    match note().filter(|n| belongs(table, found, n)) {
        Some(n) if n.headless => Evidence {
            invocation: None,
            headless: true,
            noted_id: None,
        },
        Some(n) => Evidence {
            invocation: match extract_words(agent, &n.argv) {
                Ok(Extraction::Interactive { flags, program }) => {
                    let flags = flags.into_iter().filter(|f| !f.is_posture(agent)).collect();
                    Some(shell_words::join(noted_argv(agent, program, flags)))
                }
                Ok(Extraction::Headless) | Err(_) => None,
            },
            headless: false,
            noted_id: agent_resume_discover::scan::argv_id(agent, &n.argv),
        },
        None => Evidence::default(),
    }
}

/// Whether `note` was written for the command that started `found`.
fn belongs(table: &dyn ProcessTable, found: &AgentProcess, note: &Noted) -> bool {
    let Some(launched) = note.pid.and_then(|pid| found.launched_by(pid)) else {
        return false;
    };
    let Some(started) = table.started_at(launched.id) else {
        return false;
    };
    started.0 >= note.at.0.saturating_sub(STARTED_BEFORE_NOTE)
        && started.0 <= note.at.0.saturating_add(STARTED_AFTER_NOTE)
}

#[cfg(test)]
mod tests {
    use agent_resume_core::AgentKind;
    use agent_resume_discover::process::{ProcessId, ProcessInfo};

    use super::*;

    /// Every process started at `start` (Unix ms, as ticks).
    struct Table;

    /// A process table in memory: pid → (ppid, argv, detached).
    struct Rows(Vec<(u32, u32, &'static [&'static str], bool)>);

    impl ProcessTable for Rows {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            let (_, ppid, argv, _) = self.0.iter().find(|r| r.0 == pid)?;
            Some(info(pid, *ppid, u64::from(pid) * 100, argv))
        }
        fn pids(&self) -> Vec<u32> {
            self.0.iter().map(|r| r.0).collect()
        }
        fn started_at(&self, id: ProcessId) -> Option<UnixMillis> {
            Some(UnixMillis(i64::try_from(id.start).ok()?))
        }
        fn detached(&self, id: ProcessId) -> Option<bool> {
            self.0.iter().find(|r| r.0 == id.pid).map(|r| r.3)
        }
        fn environ(&self, _id: ProcessId) -> Option<Vec<Vec<u8>>> {
            Some(Vec::new())
        }
    }

    /// A hook whose environment names its pane by no variable, as every
    /// process of [`Rows`] was started.
    const TOP: Top<'static> = Top::Environment(&[]);

    const DAEMON: &[&str] = &[
        "/h/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex",
        "app-server",
        "--listen",
        "unix://",
        "--analytics-default-enabled",
        "--managed-daemon",
    ];

    /// Two Codex TUIs in two panes; the first started the shared daemon,
    /// whose hooks run `sh -c 'agent-resume hook codex'` (pids 60 → 61).
    /// `daemon_detached`: the daemon has no terminal (as the real one).
    fn two_tuis(daemon_detached: bool) -> Rows {
        Rows(vec![
            (10, 1, &["tmux"], true),
            (20, 10, &["bash"], false),
            (30, 20, &["node", "/n/bin/codex"], false),
            (
                31,
                30,
                &["/n/@openai/codex-linux-x64/vendor/x/codex/codex"],
                false,
            ),
            (40, 31, DAEMON, daemon_detached),
            (21, 10, &["bash"], false),
            (
                32,
                21,
                &["/n/@openai/codex-linux-x64/vendor/x/codex/codex"],
                false,
            ),
            (60, 40, &["/bin/sh", "-c", "agent-resume hook codex"], false),
            (61, 60, &["agent-resume", "hook", "codex"], false),
            // With daemon_auto_start = false: the TUI runs its own hooks.
            (70, 32, &["/bin/sh", "-c", "agent-resume hook codex"], false),
        ])
    }

    fn codex() -> &'static AgentDecl {
        Catalog::embedded().agent(AgentKind::Codex)
    }

    #[test]
    fn a_hook_another_agent_runs_is_attributed_to_no_pane_and_one_with_no_agent_above_still_is() {
        // Grok 1.0.41 runs the hooks of Claude's settings.json: its
        // `agent-resume hook claude` has grok above it, no claude.
        let rows = Rows(vec![
            (10, 1, &["tmux"], true),
            (20, 10, &["bash"], false),
            (
                30,
                20,
                &["/n/@xai-official/grok/bin/grok", "--model", "m"],
                false,
            ),
            (
                40,
                30,
                &["/bin/sh", "-c", "agent-resume hook claude"],
                false,
            ),
            // A hook run by hand, or by a script: no agent above it.
            (
                50,
                20,
                &["/bin/sh", "-c", "agent-resume hook claude"],
                false,
            ),
        ]);
        let claude = Catalog::embedded().agent(AgentKind::Claude);
        assert_eq!(
            from_table(&rows, 40, claude, TOP, || None),
            Err(Unattached::AnotherAgent)
        );
        assert_eq!(
            from_table(&rows, 50, claude, TOP, || None),
            Ok(Evidence::default())
        );
        let grok = Catalog::embedded().agent(AgentKind::Grok);
        assert!(from_table(&rows, 40, grok, TOP, || None).is_ok());
    }

    #[test]
    fn a_hook_under_codex_s_shared_daemon_is_attributed_to_no_pane() {
        for detached in [false, true] {
            assert_eq!(
                from_table(&two_tuis(detached), 60, codex(), TOP, || None),
                Err(Unattached::SharedServer),
                "the daemon's argv decides, whatever its terminal"
            );
        }
        let own = from_table(&two_tuis(true), 70, codex(), TOP, || None);
        assert!(
            own.is_ok_and(|e| e.invocation.is_some() && !e.headless),
            "a TUI that runs its own hooks is its pane's"
        );
    }

    #[test]
    fn an_agent_process_detached_from_every_terminal_is_attributed_to_no_pane() {
        let rows = Rows(vec![
            (30, 1, &["claude", "--model", "opus"], true),
            (40, 30, &["agent-resume", "hook", "claude"], false),
            (31, 1, &["claude", "--model", "opus"], false),
            (41, 31, &["agent-resume", "hook", "claude"], false),
        ]);
        assert_eq!(
            from_table(&rows, 40, claude(), TOP, || None),
            Err(Unattached::Detached)
        );
        assert_eq!(
            from_table(&rows, 41, claude(), TOP, || None).map(|e| e.invocation),
            Ok(Some("claude --model opus".to_owned()))
        );
        // A table that cannot tell (not Linux, a stand-in) keeps the run.
        assert_eq!(
            from_table(&Table, 40, claude(), TOP, || None),
            Ok(Evidence::default())
        );
    }

    /// The user's `claude --model opus` (30) in a pane; its shell tool (40)
    /// runs `inner` (50), which runs the hook through `sh -c` (60).
    fn nested(inner: &'static [&'static str]) -> Rows {
        Rows(vec![
            (10, 1, &["tmux"], true),
            (20, 10, &["bash"], false),
            (30, 20, &["claude", "--model", "opus"], false),
            (40, 30, &["/bin/bash", "-c", "./claude"], false),
            (50, 40, inner, false),
            (
                60,
                50,
                &["/bin/sh", "-c", "agent-resume hook claude"],
                false,
            ),
        ])
    }

    #[test]
    fn a_fake_agent_in_the_agent_s_tool_shell_adds_no_flag_and_the_user_s_run_speaks() {
        let fake = nested(&["/bin/sh", "./claude", "--dangerously-skip-permissions"]);
        let e = from_table(&fake, 60, claude(), TOP, || None);
        assert_eq!(
            e,
            Ok(Evidence {
                invocation: Some("claude --model opus".to_owned()),
                headless: false,
                noted_id: None,
            }),
            "the outermost claude's flags and program word, never the tool call's"
        );
        // A headless tool call's report is no pane's session.
        let headless = nested(&["claude", "-p", "hi"]);
        assert!(from_table(&headless, 60, claude(), TOP, || None).is_ok_and(|e| e.headless));
        // The user's run headless: an interactive-looking tool call below
        // it records nothing either.
        let rows = Rows(vec![
            (20, 1, &["bash"], false),
            (30, 20, &["claude", "-p", "task"], false),
            (50, 30, &["claude", "--dangerously-skip-permissions"], false),
            (60, 50, &["sh"], false),
        ]);
        assert!(from_table(&rows, 60, claude(), TOP, || None).is_ok_and(|e| e.headless));
        // Under another agent: the id alone, whatever a note says.
        let rows = Rows(vec![
            (20, 1, &["bash"], false),
            (30, 20, &["codex"], false),
            (50, 30, &["claude", "--dangerously-skip-permissions"], false),
            (60, 50, &["sh"], false),
        ]);
        assert_eq!(
            from_table(&rows, 60, claude(), TOP, || note(
                POSTURE,
                false,
                Some(20),
                2_900
            )),
            Ok(Evidence::default())
        );
        // Started with another pane's identity than the hook's.
        let other = Top::Environment(&[("TMUX_PANE", Some(b"%1"))]);
        assert_eq!(
            from_table(&fake, 60, claude(), other, || None),
            Ok(Evidence::default())
        );
    }

    #[test]
    fn every_unattached_kind_has_a_distinct_name() {
        let names: std::collections::BTreeSet<_> =
            Unattached::VARIANTS.iter().map(|u| u.as_str()).collect();
        assert_eq!(names.len(), Unattached::VARIANTS.len());
    }

    impl ProcessTable for Table {
        fn process(&self, _pid: u32) -> Option<ProcessInfo> {
            None
        }
        fn pids(&self) -> Vec<u32> {
            Vec::new()
        }
        fn started_at(&self, id: ProcessId) -> Option<UnixMillis> {
            Some(UnixMillis(i64::try_from(id.start).ok()?))
        }
    }

    fn words(v: &[&str]) -> Vec<String> {
        v.iter().map(|w| (*w).to_owned()).collect()
    }

    fn info(pid: u32, ppid: u32, start: u64, argv: &[&str]) -> ProcessInfo {
        ProcessInfo {
            id: ProcessId { pid, start },
            ppid,
            argv: words(argv),
        }
    }

    /// Claude (pid 30, started at 10 000) under a shell (pid 20).
    fn found(argv: &[&str], rewritten: bool) -> AgentProcess {
        AgentProcess {
            process: info(30, 20, 10_000, argv),
            argv: words(argv),
            rewritten,
            ancestors: vec![info(20, 10, 1_000, &["bash"]), info(10, 1, 500, &["tmux"])],
        }
    }

    /// `found` proven the pane's run, and the process that reported.
    fn run(found: &AgentProcess) -> Provenance {
        Provenance::Run {
            run: found.clone(),
            reporter: None,
        }
    }

    fn note(argv: &[&str], headless: bool, pid: Option<u32>, at: i64) -> Option<Noted> {
        Some(Noted {
            argv: words(argv),
            headless,
            pid,
            at: UnixMillis(at),
        })
    }

    fn claude() -> &'static AgentDecl {
        Catalog::embedded().agent(AgentKind::Claude)
    }

    const POSTURE: &[&str] = &[
        "claude",
        "--permission-mode",
        "acceptEdits",
        "--model",
        "opus",
    ];

    #[test]
    fn the_process_argv_decides_and_a_note_adds_nothing_to_it() {
        let plain = found(&["claude"], false);
        let e = decide(&Table, claude(), &run(&plain), || {
            note(POSTURE, false, Some(20), 9_990)
        });
        assert_eq!(e.invocation.as_deref(), Some("claude"));
        assert!(!e.headless);
        let flagged = found(POSTURE, false);
        let e = decide(&Table, claude(), &run(&flagged), || None);
        assert_eq!(
            e.invocation.as_deref(),
            Some("claude --model opus --permission-mode acceptEdits")
        );
        let headless = found(&["claude", "-p", "hi"], false);
        let e = decide(&Table, claude(), &run(&headless), || {
            note(&["claude"], false, Some(20), 9_990)
        });
        assert!(e.headless, "headless from the argv, whatever a note says");
        let e = decide(&Table, claude(), &run(&plain), || {
            note(&["claude"], true, Some(20), 9_990)
        });
        assert!(
            !e.headless,
            "a headless note does not make an interactive argv headless"
        );
    }

    #[test]
    fn without_an_agent_process_the_id_is_recorded_with_no_flags() {
        let e = decide(&Table, claude(), &Provenance::NoAgent, || {
            note(POSTURE, false, Some(20), 9_990)
        });
        assert_eq!(e, Evidence::default());
    }

    #[test]
    fn a_note_fills_a_rewritten_argv_only_for_the_same_process_and_never_with_posture() {
        let titled = found(&["claude"], true);
        // The shell that launched it, noted just before it started.
        let e = decide(&Table, claude(), &run(&titled), || {
            note(POSTURE, false, Some(20), 9_990)
        });
        assert_eq!(e.invocation.as_deref(), Some("claude --model opus"));
        let e = decide(&Table, claude(), &run(&titled), || {
            note(&["claude"], true, Some(20), 9_990)
        });
        assert!(e.headless);
        // `run`, which became the agent, noted just after it started.
        let e = decide(&Table, claude(), &run(&titled), || {
            note(POSTURE, false, Some(30), 10_050)
        });
        assert_eq!(e.invocation.as_deref(), Some("claude --model opus"));
        for (label, n) in [
            (
                "a note of an earlier run",
                note(POSTURE, false, Some(20), 1_000),
            ),
            (
                "a note from after it started",
                note(POSTURE, false, Some(20), 20_000),
            ),
            (
                "a note of another shell",
                note(POSTURE, false, Some(21), 9_990),
            ),
            ("an unbound note", note(POSTURE, false, None, 9_990)),
            (
                "a headless note of an earlier run",
                note(&["claude"], true, Some(20), 1_000),
            ),
        ] {
            assert_eq!(
                decide(&Table, claude(), &run(&titled), || n),
                Evidence::default(),
                "{label}"
            );
        }
    }

    #[test]
    fn a_note_never_adds_a_posture_value_of_a_by_value_flag_but_adds_a_plain_one() {
        let copilot = Catalog::embedded().agent(AgentKind::Copilot);
        let titled = found(&["copilot"], true);
        for (noted, want) in [
            (
                &["copilot", "--mode", "autopilot", "--model", "gpt-5"][..],
                "copilot --model gpt-5",
            ),
            (&["copilot", "--mode=autopilot"][..], "copilot"),
            (
                &["copilot", "--mode", "interactive", "--model", "gpt-5"][..],
                "copilot --model gpt-5 --mode interactive",
            ),
        ] {
            let e = decide(&Table, copilot, &run(&titled), || {
                note(noted, false, Some(20), 9_990)
            });
            assert_eq!(e.invocation.as_deref(), Some(want), "{noted:?}");
        }
    }
}
