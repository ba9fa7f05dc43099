//! The one safe take: what an armed line becomes at the moment a pane's
//! shell is ready.
//!
//! Whoever takes — the CLI's `take` at a shell's first prompt, the demo,
//! an embedding terminal — goes through [`decide`], so none of them can
//! forget a check:
//!
//! - an armed line older than the armed expiry, or dated in the future, is
//!   dropped (`armed_expired`);
//! - a pane that already has user input or a queued command is refused
//!   (`pane_has_input`, `queued_command`);
//! - posture is decided again from the recording's age *now*;
//! - the line is rebuilt from the armed words, which must rebuild to
//!   themselves under the agent's declaration, and the recorded program
//!   path is trusted again (else the bare command word).
//!
//! No stored text is ever handed back: the store keeps no quoted line, and
//! the line returned here is rendered from validated words for the shell
//! that will run it. Exactly one telemetry event is emitted per take.

use agent_resume_core::{
    decide as posture, rebuild, AgentKind, Catalog, Event, FsProbe, Outcome, PostureWindow, Shell,
    UnixMillis,
};

/// What the host knows about the pane at the moment its shell is ready.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ready {
    /// The user already typed into the pane.
    pub has_input: bool,
    /// The host already queued a command for the pane.
    pub queued_command: bool,
}

/// An armed invocation as the store hands it out: untrusted words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Armed<'a> {
    /// The agent.
    pub agent: AgentKind,
    /// The session it resumes.
    pub session_id: &'a str,
    /// The armed words.
    pub argv: &'a [String],
    /// When it was armed.
    pub armed_at: UnixMillis,
    /// When its recording was observed.
    pub observed_at: UnixMillis,
}

#[cfg(feature = "sqlite")]
impl<'a> From<&'a agent_resume_store::Armed> for Armed<'a> {
    fn from(a: &'a agent_resume_store::Armed) -> Self {
        Armed {
            agent: a.agent,
            session_id: &a.session_id,
            argv: &a.argv,
            armed_at: a.armed_at,
            observed_at: a.observed_at,
        }
    }
}

/// Everything a take decides from besides the armed line.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The shell that will run the line.
    pub shell: Shell,
    /// The pane's state.
    pub ready: Ready,
    /// The clock.
    pub now: UnixMillis,
    /// How long an armed line may wait, in milliseconds.
    pub armed_expiry_millis: i64,
    /// The filesystem, for the program-path decision.
    pub fs: &'a dyn FsProbe,
}

/// A line to run in the pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The agent.
    pub agent: AgentKind,
    /// The line, quoted for the shell asked for, marker first.
    pub line: String,
    /// The words it parses to.
    pub argv: Vec<String>,
    /// Whether posture flags are in it.
    pub posture_carried: bool,
}

/// Why nothing is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// Armed longer ago than the expiry allows (minutes waited), or dated
    /// in the future (`None`).
    Expired(Option<i64>),
    /// The pane already had user input.
    PaneHasInput,
    /// A command was already queued for the pane.
    QueuedCommand,
    /// The armed words do not rebuild to themselves.
    DoesNotRebuild,
}

/// The outcome of a take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Run this line.
    Line(Line),
    /// Run nothing: the pane comes back as a plain shell.
    Dropped(Dropped),
}

/// Decides what `armed` becomes for the pane, and the one telemetry event
/// that says so.
pub fn decide(armed: &Armed<'_>, req: &Request<'_>) -> (Taken, Event) {
    let age = Some(armed.observed_at.until(req.now));
    let event =
        |outcome, posture_carried| Event::at_take(armed.agent, outcome, posture_carried, age);
    let waited = armed.armed_at.until(req.now);
    if !(0..=req.armed_expiry_millis).contains(&waited) {
        let minutes = (waited >= 0).then_some(waited / 60_000);
        return (
            Taken::Dropped(Dropped::Expired(minutes)),
            event(Outcome::ArmedExpired, false),
        );
    }
    if req.ready.has_input {
        return (
            Taken::Dropped(Dropped::PaneHasInput),
            event(Outcome::PaneHasInput, false),
        );
    }
    if req.ready.queued_command {
        return (
            Taken::Dropped(Dropped::QueuedCommand),
            event(Outcome::QueuedCommand, false),
        );
    }
    let agent = Catalog::embedded().agent(armed.agent);
    let posture = posture(armed.observed_at, req.now, PostureWindow::DEFAULT);
    let rebuilt = rebuild(agent, armed.session_id, armed.argv, req.shell, posture)
        .and_then(|inv| inv.with_trusted_program(agent, req.fs, req.shell));
    match rebuilt {
        Ok(inv) => (
            Taken::Line(Line {
                agent: armed.agent,
                posture_carried: inv.posture_carried,
                line: inv.line,
                argv: inv.argv,
            }),
            event(Outcome::Resumed, inv.posture_carried),
        ),
        Err(_) => (
            Taken::Dropped(Dropped::DoesNotRebuild),
            event(Outcome::RecordingUnreadable, false),
        ),
    }
}

/// Between two steps of a waiting take: from the first to the longest.
#[cfg(feature = "sqlite")]
const TURN_POLL: (u64, u64) = (20, 100);

/// Waits until `pane`'s agent may start (see
/// [`agent_resume_core::stagger`]): at once when the pane is in no
/// restore's queue or the store cannot say. Nothing is shown while it
/// waits: the pane's screen is the agent's.
#[cfg(feature = "sqlite")]
pub fn wait_turn(
    store: &mut agent_resume_store::Store,
    pane: agent_resume_core::PaneId,
    clock: &dyn Fn() -> UnixMillis,
) {
    let mut poll = TURN_POLL.0;
    while let Ok(agent_resume_store::Step::Wait) =
        store.turn_step(pane, clock, &agent_resume_core::stagger::turn)
    {
        std::thread::sleep(std::time::Duration::from_millis(poll));
        poll = (poll * 3 / 2).min(TURN_POLL.1);
    }
}

/// What a take does with a line [`decide`] handed out, and its event:
/// with `restore = "ask"` the pane's terminal is asked first (a no is the
/// event `declined`, and no line); the event is emitted; then the pane
/// waits its turn among its restore's agents ([`wait_turn`]). With
/// `capture`, the pane's background capture starts as the line goes out
/// ([`crate::launch`]), as it does for a line the user typed.
#[cfg(feature = "sqlite")]
#[allow(clippy::too_many_arguments)]
pub fn hand_out(
    line: Line,
    mut event: Event,
    armed: &agent_resume_store::Armed,
    now: UnixMillis,
    mode: crate::settings::RestoreMode,
    store: &mut agent_resume_store::Store,
    sink: &mut dyn agent_resume_core::TelemetrySink,
    clock: &dyn Fn() -> UnixMillis,
    capture: Option<Capture<'_>>,
) -> Option<Line> {
    if mode == crate::settings::RestoreMode::Ask {
        let dir = std::env::current_dir().unwrap_or_default();
        let question = crate::ask::question(line.agent, &dir, armed.observed_at, now, &line.argv);
        if crate::ask::ask_terminal(&question) != crate::ask::Answer::Yes {
            event.outcome = Outcome::Declined;
            event.posture_carried = false;
            sink.emit(&event);
            return None;
        }
    }
    sink.emit(&event);
    wait_turn(store, armed.pane, clock);
    if let Some(c) = capture {
        // The resumed agent is captured as a typed one is (an agent
        // without a hook reports its conversation only through a scan):
        // the proof of the resume needs that report.
        let _ = crate::launch::spawn(c.program, armed.pane, c.shell_pid, c.overrides);
    }
    Some(line)
}

/// What the background capture of a handed-out line needs: the
/// agent-resume program, the pid of the shell that runs the line, and the
/// overrides the capture runs with.
#[derive(Clone, Copy, Debug)]
pub struct Capture<'a> {
    /// The agent-resume executable the capture runs.
    pub program: &'a std::path::Path,
    /// The shell that runs the line (its next child is the agent).
    pub shell_pid: u32,
    /// The database and config the capture uses.
    pub overrides: &'a crate::paths::Overrides,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::RealFs;

    const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
    const MIN: i64 = 60_000;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    fn req(now: i64) -> Request<'static> {
        Request {
            shell: Shell::Bash,
            ready: Ready::default(),
            now: UnixMillis(now),
            armed_expiry_millis: 10 * MIN,
            fs: &RealFs,
        }
    }

    fn armed(argv: &[String], armed_at: i64, observed_at: i64) -> Armed<'_> {
        Armed {
            agent: AgentKind::Claude,
            session_id: ID,
            argv,
            armed_at: UnixMillis(armed_at),
            observed_at: UnixMillis(observed_at),
        }
    }

    #[test]
    fn a_fresh_arm_becomes_the_line_rebuilt_for_the_shell_and_says_resumed() {
        let argv = words(&["claude", "--model", "opus", "--resume", ID]);
        let (taken, event) = decide(&armed(&argv, 0, 0), &req(MIN));
        let Taken::Line(line) = taken else {
            panic!("a line: {taken:?}")
        };
        assert_eq!(line.argv, argv);
        assert_eq!(
            line.line,
            format!(" AGENT_RESUME_LINE=1 'claude' '--model' 'opus' '--resume' '{ID}'")
        );
        assert_eq!(event.outcome, Outcome::Resumed);
    }

    #[test]
    fn words_that_do_not_rebuild_to_themselves_are_never_handed_back() {
        for tampered in [
            words(&["sh", "-c", "curl x | sh"]),
            words(&["claude", "--resume", ID, "; id"]),
            words(&["claude", "--settings", "/tmp/evil.json", "--resume", ID]),
        ] {
            let (taken, event) = decide(&armed(&tampered, 0, 0), &req(MIN));
            assert_eq!(
                taken,
                Taken::Dropped(Dropped::DoesNotRebuild),
                "{tampered:?}"
            );
            assert_eq!(event.outcome, Outcome::RecordingUnreadable);
        }
    }

    #[test]
    fn expiry_input_and_queued_commands_drop_the_line_each_with_its_outcome() {
        let argv = words(&["claude", "--resume", ID]);
        let a = armed(&argv, 0, 0);
        let (late, e) = decide(&a, &req(11 * MIN));
        assert_eq!(
            (late, e.outcome),
            (
                Taken::Dropped(Dropped::Expired(Some(11))),
                Outcome::ArmedExpired
            )
        );
        let (future, _) = decide(&armed(&argv, 5 * MIN, 0), &req(MIN));
        assert_eq!(future, Taken::Dropped(Dropped::Expired(None)));
        let mut busy = req(MIN);
        busy.ready.has_input = true;
        assert_eq!(decide(&a, &busy).1.outcome, Outcome::PaneHasInput);
        let mut queued = req(MIN);
        queued.ready.queued_command = true;
        assert_eq!(decide(&a, &queued).1.outcome, Outcome::QueuedCommand);
    }

    #[test]
    fn posture_is_decided_again_from_the_age_at_the_moment_of_taking() {
        let argv = words(&["claude", "--dangerously-skip-permissions", "--resume", ID]);
        let hour = 60 * MIN;
        // Armed at 11 h 58 min with posture; taken 5 minutes later.
        let a = armed(&argv, 11 * hour + 58 * MIN, 0);
        let (taken, event) = decide(&a, &req(12 * hour + 3 * MIN));
        let Taken::Line(line) = taken else {
            panic!("a line: {taken:?}")
        };
        assert_eq!(line.argv, words(&["claude", "--resume", ID]));
        assert!(!line.posture_carried && !event.posture_carried);
    }
}
