//! A terminal's whole agent-resume loop through the handle, with its own
//! persistence (in memory) and its own telemetry sink; runnable with the
//! engine's default features off (no SQLite, no C):
//!
//! `cargo run -p agent-resume-engine --no-default-features --example embed_host`
//!
//! feature flag → capture events → restart (drop the handle, start a new
//! one over the same persistence) → plan → take at shell-ready →
//! telemetry → the flag off does nothing at all. Every outcome is checked:
//! a wrong one exits 1.

use std::collections::HashSet;
use std::process::ExitCode;

use agent_resume_engine::core::batch::Set;
use agent_resume_engine::core::{
    AgentKind, Event, IdSource, Layout, Observation, Outcome, PaneId, PaneSpec, Reason, Shell,
    Stored, Tab, TelemetrySink, Verdict, Window,
};
use agent_resume_engine::handle::{AgentResume, Config};
use agent_resume_engine::persistence::{
    Arm, Loaded, Memory, PersistError, Persistence, Ticket, Warning,
};
use agent_resume_engine::take::{Ready, Taken};

const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";

/// The terminal's own telemetry pipeline.
#[derive(Default)]
struct HostSink(Vec<Event>);

impl TelemetrySink for HostSink {
    fn emit(&mut self, event: &Event) {
        self.0.push(*event);
    }
}

/// A persistence that must never be reached: with the flag off.
struct Untouchable;

impl Persistence for Untouchable {
    fn load(&mut self) -> Loaded {
        unreachable!("flag off: load")
    }
    fn sweep(&mut self, _: &HashSet<PaneId>) -> Result<usize, Warning> {
        unreachable!("flag off: sweep")
    }
    fn apply(&mut self, _: &[Set]) -> Result<usize, PersistError> {
        unreachable!("flag off: apply")
    }
    fn arm(&mut self, _: &Arm, _: Option<Ticket<'_>>) -> Result<(), PersistError> {
        unreachable!("flag off: arm")
    }
    fn take(&mut self, _: PaneId) -> Result<Option<Arm>, PersistError> {
        unreachable!("flag off: take")
    }
    fn disarm(&mut self, _: PaneId) -> Result<bool, PersistError> {
        unreachable!("flag off: disarm")
    }
    fn row(&mut self, _: PaneId) -> Result<Option<Stored>, PersistError> {
        unreachable!("flag off: row")
    }
}

fn layout(pane: PaneId, cwd: &std::path::Path) -> Layout {
    Layout {
        startup: true,
        windows: vec![Window {
            landing: true,
            visible: true,
            active_tab: 0,
            tabs: vec![Tab {
                focused_pane: Some(pane),
                panes: vec![PaneSpec {
                    id: pane,
                    cwd: Some(cwd.to_path_buf()),
                    shared_viewer: false,
                    shell: Some(Shell::Zsh),
                    has_input: false,
                    queued_command: false,
                }],
            }],
        }],
    }
}

fn check(ok: bool, what: &str) -> Result<(), String> {
    if ok {
        println!("ok: {what}");
        Ok(())
    } else {
        Err(format!("wrong outcome: {what}"))
    }
}

fn run() -> Result<(), String> {
    let project = std::env::temp_dir();
    let pane = PaneId::from_bytes(*b"embed-host-pane!");
    // The terminal's own flag, and its own store (here: memory).
    let config = Config {
        enabled: true,
        // This example's world holds no agent session store to ask.
        discover_sessions: false,
        ..Config::default()
    };
    let memory = Memory::new();

    // A session: the user starts an agent; its hooks report the id, over
    // and over (once per tool call).
    let mut handle = AgentResume::start(config, Box::new(memory.clone()));
    check(handle.writer_running(), "flag on: the writer thread runs")?;
    handle.agent_started(pane, Some("claude --model opus"), Some(project.clone()));
    let hook = Observation {
        pane,
        agent: AgentKind::Claude,
        session_id: Some(ID),
        source: IdSource::Hook,
        headless: false,
    };
    for _ in 0..100 {
        handle.observe(&hook);
    }
    // The terminal quits: the handle drains its queue and joins its writer.
    drop(handle);
    check(
        memory.clone().load().recordings.len() == 1,
        "capture recorded the pane once",
    )?;

    // The terminal starts again over the same persistence.
    let mut handle = AgentResume::start(config, Box::new(memory.clone()));
    let restored = handle.restore(&layout(pane, &project));
    let mut sink = HostSink::default();
    restored.emit(&mut sink);
    for p in &restored.plans {
        println!("plan: {} {:?}", p.pane, p.verdict);
    }
    check(
        matches!(restored.plans[..], [ref p] if matches!(p.verdict, Verdict::Resume(_))),
        "the plan resumes the pane",
    )?;
    check(restored.armed == 1, "one pane armed")?;

    // The pane's shell is ready: take its line, exactly once.
    let took = handle
        .take(pane, Shell::Zsh, Ready::default())
        .map_err(|e| format!("take failed: {e}"))?
        .ok_or("nothing armed")?;
    sink.emit(&took.event);
    let Taken::Line(line) = &took.taken else {
        return Err(format!(
            "wrong outcome: the line was dropped: {:?}",
            took.taken
        ));
    };
    println!("run in the pane: {}", line.line);
    check(
        line.line == format!(" AGENT_RESUME_LINE=1 'claude' '--model' 'opus' '--resume' '{ID}'"),
        "the line is the agent's own resume, quoted for zsh, marker first",
    )?;
    check(
        handle
            .take(pane, Shell::Zsh, Ready::default())
            .map_err(|e| e.to_string())?
            .is_none(),
        "a second take finds nothing",
    )?;
    check(
        sink.0.len() == 1 && sink.0[0].outcome == Outcome::Resumed,
        "the host's sink got one event: resumed",
    )?;

    // The agent ends cleanly: its recording is cleared.
    handle.agent_started(pane, Some(&line.line), Some(project.clone()));
    handle.observe(&hook);
    handle.agent_exited(pane, 0);
    handle.flush().map_err(|e| format!("flush failed: {e}"))?;
    check(
        memory.clone().load().recordings.is_empty(),
        "exit 0 cleared",
    )?;
    drop(handle);

    // The flag off: no thread, no persistence call (it would panic), no
    // plan beyond `feature_disabled`, nothing taken, no telemetry.
    let mut off = AgentResume::start(Config::default(), Box::new(Untouchable));
    check(!off.writer_running(), "flag off: no thread")?;
    off.agent_started(pane, Some("claude"), Some(project.clone()));
    off.observe(&hook);
    off.agent_exited(pane, 0);
    let restored = off.restore(&layout(pane, &project));
    check(
        restored.events.is_empty()
            && restored
                .plans
                .iter()
                .all(|p| p.verdict == Verdict::Skip(Reason::FeatureDisabled)),
        "flag off: every pane comes back as a shell, no telemetry",
    )?;
    check(
        off.take(pane, Shell::Zsh, Ready::default())
            .map_err(|e| e.to_string())?
            .is_none(),
        "flag off: nothing taken",
    )?;
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("embed_host: the whole loop holds");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("embed_host: {e}");
            ExitCode::FAILURE
        }
    }
}
