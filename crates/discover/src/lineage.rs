//! Which agent process speaks for a pane: the *outermost* agent process
//! between the pane and the process asking (a hook, or a scan's find).
//!
//! The process the user started in a pane is the outermost agent process
//! below the pane's shell; everything below it is that agent's own work
//! (tool calls), and a tool call can be anything a prompt makes it: a
//! script named `claude` run with `--dangerously-skip-permissions`, a
//! process that rewrites its own argv or environment, calls `setsid`, or
//! nests a hundred shells. Only the processes *above* the user's agent are
//! beyond its reach. So the walk never stops on a property of a process
//! between the asker and the outermost agent:
//!
//! - it visits every ancestor up to the top (pid 1, or the pane's first
//!   process when the caller knows it), and credits the outermost process
//!   that runs any agent of the catalog;
//! - when that process runs another agent, the asker is that agent's tool
//!   call ([`Doubt::UnderAnotherAgent`]); when the walk is cut (depth cap,
//!   an ancestor it cannot read, a loop), what lies above is unknown
//!   ([`Doubt::Cut`]); when the outermost agent's own starting environment
//!   does not name the asker's pane, it runs in another pane or terminal
//!   ([`Doubt::OtherPane`]: a terminal started from an agent's tool shell,
//!   or a hook told another pane's identity). Each is an unproven run:
//!   its report may name a session id, never a flag;
//! - the nearest agent process (the one that ran the hook) is kept as the
//!   reporter: a headless reporter's report is no pane's session.

use agent_resume_core::{AgentDecl, Catalog};

use crate::process::{agent_argv, ancestors, env_value, is_agent_program, AgentProcess};
use crate::process::{ProcessInfo, ProcessTable};

/// Where the pane ends, above the asking process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Top<'a> {
    /// The pane's first process (the host gave it): nothing above it is
    /// the pane's.
    Pane(u32),
    /// The pane as the asker's environment names it: these variables
    /// (`AGENT_RESUME_PANE`, `TMUX`, `TMUX_PANE`) with these values, or
    /// absent. The outermost agent must have been started with the same.
    Environment(&'a [(&'a str, Option<&'a [u8]>)]),
}

/// Why an agent process found is not proven to be the pane's run.
/// Closed, with stable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Doubt {
    /// A process of another agent runs above it: it is that agent's tool
    /// call.
    UnderAnotherAgent = 1,
    /// The walk ended before its top (depth cap, an unreadable ancestor, a
    /// loop): a process above may be the pane's agent.
    Cut = 2,
    /// The outermost agent was not started with the pane's identity, or
    /// its environment cannot be read.
    OtherPane = 3,
}

impl Doubt {
    /// Every variant.
    pub const VARIANTS: &'static [Doubt] =
        &[Doubt::UnderAnotherAgent, Doubt::Cut, Doubt::OtherPane];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Doubt::UnderAnotherAgent => "under_another_agent",
            Doubt::Cut => "cut",
            Doubt::OtherPane => "other_pane",
        }
    }
}

/// Which process of an agent speaks for the pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// No process between the asker and the top runs the agent.
    NoAgent,
    /// `run` is the pane's run: the outermost agent process, of this
    /// agent. `reporter`: the nearest process of the agent, when it is
    /// another one below `run` (a launcher's child, or a tool call).
    Run {
        /// The pane's run: flags, headlessness and program path.
        run: AgentProcess,
        /// The process nearest the asker, when it is not `run`.
        reporter: Option<AgentProcess>,
    },
    /// A process of the agent ran the asker, and it is not proven to be
    /// the pane's run.
    Unproven {
        /// The agent process nearest the asker.
        reporter: AgentProcess,
        /// Why.
        why: Doubt,
    },
}

impl Provenance {
    /// The pane's run, when proven.
    pub fn run(&self) -> Option<&AgentProcess> {
        match self {
            Provenance::Run { run, .. } => Some(run),
            Provenance::NoAgent | Provenance::Unproven { .. } => None,
        }
    }

    /// The agent process nearest the asker.
    pub fn reporter(&self) -> Option<&AgentProcess> {
        match self {
            Provenance::NoAgent => None,
            Provenance::Run { run, reporter } => Some(reporter.as_ref().unwrap_or(run)),
            Provenance::Unproven { reporter, .. } => Some(reporter),
        }
    }
}

fn agent_process(agent: &AgentDecl, chain: &[ProcessInfo], at: usize) -> Option<AgentProcess> {
    let p = chain.get(at)?;
    let argv = agent_argv(agent, &p.argv)?;
    Some(AgentProcess {
        process: p.clone(),
        rewritten: p.argv.iter().skip(1).any(String::is_empty),
        argv: argv.into_iter().filter(|w| !w.is_empty()).collect(),
        ancestors: chain.get(at + 1..).unwrap_or_default().to_vec(),
    })
}

/// Whether a process of another declared agent than `agent` runs above
/// `from` (one walk of its parents, up to `top`): that agent, not
/// `agent`, started what runs there.
pub fn another_agent_above(
    table: &dyn ProcessTable,
    from: u32,
    agent: &AgentDecl,
    catalog: &Catalog,
    top: Top<'_>,
) -> bool {
    let pane_root = match top {
        Top::Pane(pid) => Some(pid),
        Top::Environment(_) => None,
    };
    ancestors(table, from, pane_root).chain.iter().any(|p| {
        catalog
            .agents()
            .iter()
            .any(|a| a.kind != agent.kind && is_agent_program(a, &p.argv))
    })
}

/// The provenance of `agent` for the process `from` (a hook's parent, or
/// the agent process a scan found), walking parents up to `top`.
pub fn provenance(
    table: &dyn ProcessTable,
    from: u32,
    agent: &AgentDecl,
    catalog: &Catalog,
    top: Top<'_>,
) -> Provenance {
    let pane_root = match top {
        Top::Pane(pid) => Some(pid),
        Top::Environment(_) => None,
    };
    let walk = ancestors(table, from, pane_root);
    let chain = &walk.chain;
    let Some(near) = chain.iter().position(|p| is_agent_program(agent, &p.argv)) else {
        return Provenance::NoAgent;
    };
    let Some(reporter) = agent_process(agent, chain, near) else {
        return Provenance::NoAgent;
    };
    let unproven = |reporter, why| Provenance::Unproven { reporter, why };
    if !walk.whole {
        return unproven(reporter, Doubt::Cut);
    }
    let outer = chain
        .iter()
        .rposition(|p| {
            catalog
                .agents()
                .iter()
                .any(|a| is_agent_program(a, &p.argv))
        })
        .unwrap_or(near);
    let Some(run) = agent_process(agent, chain, outer) else {
        return unproven(reporter, Doubt::UnderAnotherAgent);
    };
    if let Top::Environment(vars) = top {
        let same = table.environ(run.process.id).is_some_and(|env| {
            vars.iter()
                .all(|(name, value)| env_value(&env, name) == *value)
        });
        if !same {
            return unproven(reporter, Doubt::OtherPane);
        }
    }
    Provenance::Run {
        reporter: (outer != near).then_some(reporter),
        run,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use agent_resume_core::{AgentKind, UnixMillis};

    use super::*;
    use crate::process::ProcessId;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    /// A process's `NAME=value` entries, or none when unreadable.
    type Environ = Option<Vec<Vec<u8>>>;

    /// A process table in memory: pid → (ppid, argv, environment).
    #[derive(Default)]
    struct Table(BTreeMap<u32, (u32, Vec<String>, Environ)>);

    impl Table {
        /// A process started with `TMUX_PANE=%1`.
        fn with(self, pid: u32, ppid: u32, argv: &[&str]) -> Table {
            self.with_env(pid, ppid, argv, Some(&["TMUX_PANE=%1"]))
        }

        fn with_env(mut self, pid: u32, ppid: u32, argv: &[&str], env: Option<&[&str]>) -> Table {
            let env = env.map(|e| e.iter().map(|v| v.as_bytes().to_vec()).collect());
            self.0.insert(pid, (ppid, words(argv), env));
            self
        }
    }

    impl ProcessTable for Table {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            let (ppid, argv, _) = self.0.get(&pid)?.clone();
            Some(ProcessInfo {
                id: ProcessId {
                    pid,
                    start: u64::from(pid) * 10,
                },
                ppid,
                argv,
            })
        }
        fn pids(&self) -> Vec<u32> {
            self.0.keys().copied().collect()
        }
        fn started_at(&self, id: ProcessId) -> Option<UnixMillis> {
            Some(UnixMillis(i64::try_from(id.start).ok()?))
        }
        fn environ(&self, id: ProcessId) -> Option<Vec<Vec<u8>>> {
            self.0.get(&id.pid)?.2.clone()
        }
    }

    fn claude() -> &'static AgentDecl {
        Catalog::embedded().agent(AgentKind::Claude)
    }

    const PANE: &[(&str, Option<&[u8]>)] =
        &[("TMUX_PANE", Some(b"%1")), ("AGENT_RESUME_PANE", None)];

    fn walk(t: &Table, from: u32, top: Top<'_>) -> Provenance {
        provenance(t, from, claude(), Catalog::embedded(), top)
    }

    fn pid(p: Option<&AgentProcess>) -> Option<u32> {
        p.map(|a| a.process.id.pid)
    }

    /// The pane: tmux (10) → bash (20) → `claude --model opus` (30) → its
    /// tool shell (40).
    fn pane() -> Table {
        Table::default()
            .with_env(10, 1, &["tmux"], Some(&[]))
            .with(20, 10, &["bash"])
            .with(30, 20, &["claude", "--model", "opus"])
            .with(
                40,
                30,
                &["/bin/bash", "-c", "./claude --dangerously-skip-permissions"],
            )
    }

    #[test]
    fn a_same_agent_process_below_the_pane_s_agent_is_a_tool_call_and_the_outermost_speaks() {
        let t = pane()
            .with(
                50,
                40,
                &["/bin/sh", "./claude", "--dangerously-skip-permissions"],
            )
            .with(60, 50, &["agent-resume", "hook", "claude"]);
        let found = walk(&t, 50, Top::Environment(PANE));
        let run = found.run().expect("the pane's claude is proven");
        assert_eq!(run.process.id.pid, 30);
        assert_eq!(run.argv, words(&["claude", "--model", "opus"]));
        assert_eq!(
            run.ancestors.iter().map(|p| p.id.pid).collect::<Vec<_>>(),
            [20, 10]
        );
        assert_eq!(pid(found.reporter()), Some(50), "the fake reported");
        // The same from the pane's own process, with the pane as the top.
        let scan = walk(&t, 30, Top::Pane(20));
        assert_eq!(pid(scan.run()), Some(30));
        assert_eq!(pid(scan.reporter()), Some(30));
        // The pane's own hook: reporter and run are one process.
        let own = walk(&t, 40, Top::Environment(PANE));
        assert!(matches!(own, Provenance::Run { reporter: None, .. }));
        let run = own.run().expect("proven");
        assert_eq!(run.launched_by(20).map(|p| p.id.pid), Some(30));
        assert_eq!(run.launched_by(30).map(|p| p.id.pid), Some(30));
        assert_eq!(run.launched_by(10).map(|p| p.id.pid), Some(20));
        assert_eq!(run.launched_by(99), None);
    }

    #[test]
    fn a_title_written_over_the_argv_is_seen_as_rewritten() {
        let t = Table::default()
            .with(30, 1, &["claude", "", "", ""])
            .with(40, 30, &["hook"]);
        let found = walk(&t, 40, Top::Environment(PANE));
        let run = found.run().expect("proven");
        assert!(run.rewritten);
        assert_eq!(run.argv, words(&["claude"]));
    }

    #[test]
    fn an_agent_process_under_another_agent_is_that_agent_s_tool_call() {
        // codex in the pane; its tool shell runs claude, which runs the
        // hook; a fake codex between them changes nothing.
        let t = Table::default()
            .with(20, 1, &["bash"])
            .with(30, 20, &["codex", "-m", "o3"])
            .with(40, 30, &["claude", "--dangerously-skip-permissions"])
            .with(50, 40, &["/bin/sh", "-c", "hook"])
            .with(35, 30, &["codex"])
            .with(45, 35, &["claude", "--dangerously-skip-permissions"]);
        for from in [50, 45] {
            match walk(&t, from, Top::Environment(PANE)) {
                Provenance::Unproven { reporter, why } => {
                    assert_eq!(why, Doubt::UnderAnotherAgent);
                    assert_eq!(reporter.argv[1], "--dangerously-skip-permissions");
                }
                other => panic!("{other:?}"),
            }
        }
        // Another agent's process nearer than any claude: none was found.
        assert_eq!(walk(&t, 35, Top::Environment(PANE)), Provenance::NoAgent);
    }

    #[test]
    fn a_walk_cut_below_its_top_proves_no_run() {
        // A tool call nests deeper than the walk goes: the claude above is
        // out of reach, the fake one never speaks for the pane.
        let mut t = pane();
        let mut parent = 40;
        for pid in 100..100 + 80 {
            t = t.with(pid, parent, &["sh"]);
            parent = pid;
        }
        let t = t
            .with(500, parent, &["claude", "--dangerously-skip-permissions"])
            .with(501, 500, &["sh"]);
        let deep = walk(&t, 501, Top::Environment(PANE));
        match deep {
            Provenance::Unproven { reporter, why } => {
                assert_eq!(why, Doubt::Cut);
                assert_eq!(reporter.process.id.pid, 500);
            }
            other => panic!("{other:?}"),
        }
        // A hook nested past the cap below every agent: none was found.
        assert_eq!(walk(&t, 170, Top::Environment(PANE)), Provenance::NoAgent);
        // An ancestor that cannot be read (its parent pid names nothing).
        let t = Table::default()
            .with(30, 999, &["claude", "--model", "opus"])
            .with(40, 30, &["sh"]);
        assert!(matches!(
            walk(&t, 40, Top::Environment(PANE)),
            Provenance::Unproven {
                why: Doubt::Cut,
                ..
            }
        ));
        // A pane whose first process is not above it.
        assert!(matches!(
            walk(&pane(), 40, Top::Pane(77)),
            Provenance::Unproven {
                why: Doubt::Cut,
                ..
            }
        ));
        // A parent loop.
        let t = Table::default()
            .with(30, 40, &["claude"])
            .with(40, 30, &["bash"]);
        assert!(matches!(
            walk(&t, 40, Top::Environment(PANE)),
            Provenance::Unproven {
                why: Doubt::Cut,
                ..
            }
        ));
    }

    #[test]
    fn an_outermost_agent_started_without_the_pane_s_identity_proves_no_run() {
        // A claude (30) whose tool shell started a terminal (50); in that
        // terminal's pane (TMUX_PANE=%1) a plain claude (70) runs a hook.
        let t = Table::default()
            .with_env(20, 1, &["bash"], Some(&["TMUX_PANE=%9"]))
            .with_env(
                30,
                20,
                &["claude", "--dangerously-skip-permissions"],
                Some(&["TMUX_PANE=%9"]),
            )
            .with_env(40, 30, &["bash"], Some(&["TMUX_PANE=%9"]))
            .with_env(50, 40, &["kitty"], Some(&[]))
            .with(60, 50, &["bash"])
            .with(70, 60, &["claude"])
            .with(80, 70, &["sh"]);
        match walk(&t, 80, Top::Environment(PANE)) {
            Provenance::Unproven { reporter, why } => {
                assert_eq!(why, Doubt::OtherPane);
                assert_eq!(reporter.process.id.pid, 70);
            }
            other => panic!("{other:?}"),
        }
        // Its environment unreadable: not proven either.
        let t = Table::default()
            .with_env(30, 1, &["claude"], None)
            .with(40, 30, &["sh"]);
        assert!(matches!(
            walk(&t, 40, Top::Environment(PANE)),
            Provenance::Unproven {
                why: Doubt::OtherPane,
                ..
            }
        ));
        // A variable the asker lacks must be absent from the run's too.
        let t = Table::default()
            .with_env(
                30,
                1,
                &["claude"],
                Some(&["TMUX_PANE=%1", "AGENT_RESUME_PANE=x"]),
            )
            .with(40, 30, &["sh"]);
        assert!(matches!(
            walk(&t, 40, Top::Environment(PANE)),
            Provenance::Unproven {
                why: Doubt::OtherPane,
                ..
            }
        ));
    }

    #[test]
    fn every_doubt_has_a_distinct_name() {
        let names: std::collections::BTreeSet<_> =
            Doubt::VARIANTS.iter().map(|d| d.as_str()).collect();
        assert_eq!(names.len(), Doubt::VARIANTS.len());
    }

    const ARGVS: &[&[&str]] = &[
        &["claude"],
        &["claude", "--dangerously-skip-permissions"],
        &["claude", "-p", "hi"],
        &["codex"],
        &["bash"],
        &["sh", "-c", "claude"],
        &["node", "/n/@anthropic-ai/claude-code/cli.js"],
        &["node", "/srv/app.js"],
    ];

    proptest::proptest! {
        /// Whatever the table, a proven run is the outermost process of the
        /// whole chain that runs any agent, and it runs this one; the
        /// reporter is the nearest process that runs it.
        #[test]
        fn a_proven_run_is_the_outermost_agent_process_of_the_whole_chain(
            rows in proptest::collection::vec((0u32..40, 0usize..ARGVS.len()), 1..40),
            from in 2u32..42,
        ) {
            // pid i + 2, its parent below it (a forest rooted at 1).
            let mut t = Table::default();
            for (i, (p, a)) in rows.iter().enumerate() {
                let pid = u32::try_from(i).unwrap_or(0) + 2;
                t = t.with(pid, (*p % pid).max(1), ARGVS[*a]);
            }
            let c = Catalog::embedded();
            let chain = ancestors(&t, from, None).chain;
            let runs_any = |p: &ProcessInfo| c.agents().iter().any(|a| is_agent_program(a, &p.argv));
            let found = walk(&t, from, Top::Environment(PANE));
            let nearest = chain.iter().find(|p| is_agent_program(claude(), &p.argv));
            proptest::prop_assert_eq!(
                found.reporter().map(|r| r.process.id),
                nearest.map(|p| p.id)
            );
            if let Some(run) = found.run() {
                let at = chain.iter().position(|p| p.id == run.process.id);
                proptest::prop_assert!(at.is_some());
                let at = at.unwrap_or(0);
                proptest::prop_assert!(is_agent_program(claude(), &run.process.argv));
                proptest::prop_assert!(!chain[at + 1..].iter().any(runs_any));
                proptest::prop_assert_eq!(&run.ancestors[..], &chain[at + 1..]);
            }
        }
    }
}
