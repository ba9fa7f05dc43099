//! [`run`]: the restore sequence over any [`Host`] — the host's restore
//! model, the plan, arming and telemetry, then the host's recreate and
//! dispatch. It returns what the CLI (or a terminal) shows; it prints
//! nothing itself but through the `say` callback it is handed.

use std::collections::BTreeMap;

use agent_resume_core::Shell;
use agent_resume_core::{Gate, Layout, PaneId, PanePlan, TelemetrySink, UnixMillis, Verdict};

use super::{arm_and_report, decide, Tickets};
use crate::host::{take_command, Dispatched, Fate, Host, HostError, Model, Place};
use crate::paths::{NoBase, Overrides};

/// How a restore runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Whether missing panes are made ([`Host::recreate`]).
    pub recreate: bool,
    /// Plan only: nothing armed, swept, reported, created or typed.
    pub dry_run: bool,
    /// The clock.
    pub now: UnixMillis,
    /// This program, quoted for a shell, for the typed take command
    /// ([`crate::host::this_program`]).
    pub program: String,
}

/// What a restore decided and did, for the caller to show.
#[derive(Debug)]
pub struct Report {
    /// The feature gate, as decided; with it off nothing else happened.
    pub gate: Gate,
    /// Whether the host had anything saved ([`Model::saved`]).
    pub saved: bool,
    /// Every planned pane (dead ones included), in layout order.
    pub plans: Vec<PanePlan>,
    /// Where each planned pane sits.
    pub places: std::collections::HashMap<PaneId, Place>,
    /// Why nothing is restored, when `plans` is empty.
    pub nothing: String,
    /// How many panes were armed.
    pub armed: usize,
    /// The session to attach to, when the host made one.
    pub attach: Option<String>,
    /// The queue the armed panes' agents start in, to follow with
    /// [`super::watch::watch`]; `None` when nothing was armed.
    pub queue: Option<String>,
}

impl Report {
    fn stop(gate: Gate, model: Model) -> Report {
        Report {
            gate,
            saved: model.saved,
            plans: Vec::new(),
            places: model.places,
            nothing: model.nothing,
            armed: 0,
            attach: None,
            queue: None,
        }
    }
}

/// Why a restore could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The host failed.
    #[error(transparent)]
    Host(#[from] HostError),
    /// A base directory could not be located.
    #[error(transparent)]
    Paths(#[from] NoBase),
}

/// Where a restore's telemetry goes.
pub enum Telemetry<'a> {
    /// The telemetry file the CLI and `agent-resume stats` share.
    File,
    /// The host's own sink.
    Sink(&'a mut dyn TelemetrySink),
}

/// The restore sequence over any host, written once: the gate, the host's
/// restore model, the plan (load and sweep), then — unless a dry run —
/// arming and telemetry before any pane exists, the host's recreate, and
/// the take command typed into each resumable pane already there.
///
/// A pane whose fate is [`Fate::Dead`] is planned and returned but never
/// armed or reported. Notes for the user (untrusted rows, a pane that was
/// not made, nothing typed) go to `say` as they happen.
pub fn run(
    host: &mut dyn Host,
    o: &Overrides,
    opts: &RunOptions,
    telemetry: Telemetry<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Report, RunError> {
    let gate = crate::settings::gate_quiet(o);
    if !gate.enabled {
        let why = format!("disabled ({})", crate::settings::source_text(gate.source));
        return Ok(Report::stop(gate, Model::nothing(why)));
    }
    let model = host.restore_model(opts.recreate, say)?;
    if !model.saved {
        return Ok(Report::stop(gate, model));
    }
    let now = opts.now;
    let mut decided = decide(
        o,
        &model.layout,
        now,
        true,
        (!opts.dry_run).then_some(&model.keep),
    )?;
    for w in &decided.warnings {
        say(w);
    }
    if opts.dry_run {
        return Ok(Report {
            gate,
            saved: true,
            plans: decided.plans,
            places: model.places,
            nothing: model.nothing,
            armed: 0,
            attach: None,
            queue: None,
        });
    }
    let plans = decided.plans.clone();
    // A pane that is not coming back has nothing armed and nothing reported.
    decided
        .plans
        .retain(|p| model.fates.get(&p.pane) != Some(&Fate::Dead));
    // Armed before any pane exists: a new pane's first prompt takes its
    // line. With take keys, each pane created with a line gets a fresh one,
    // handed to its first process, so that its `take` needs no round trip
    // to a host still busy making the next panes.
    let tickets = model.take_keys.clone().map(|server| {
        Tickets::fresh(
            server,
            decided
                .plans
                .iter()
                .filter(|p| matches!(p.verdict, Verdict::Resume(_)))
                .filter(|p| model.fates.get(&p.pane) == Some(&Fate::Create))
                .map(|p| p.pane),
        )
    });
    // The telemetry file is located only now, once there is something to
    // report: a restore that stops earlier needs no state directory.
    let mut file;
    let sink: &mut dyn TelemetrySink = match telemetry {
        Telemetry::File => {
            file = crate::telemetry::FileSink::new(crate::telemetry::path()?);
            &mut file
        }
        Telemetry::Sink(sink) => sink,
    };
    let armed = arm_and_report(&decided, now, sink, tickets.as_ref());
    // Queued before any pane exists: a new pane's take finds its place.
    let cap = crate::settings::restore_settings(o).max_concurrent;
    let queue = super::queue(&mut decided, &model.layout, cap, now);
    let mut attach = None;
    if opts.recreate {
        let none = BTreeMap::new();
        let keys = tickets.as_ref().map_or(&none, |t| &t.keys);
        attach = host.recreate(&model, keys, say)?.attach;
    }
    for p in &decided.plans {
        if !matches!(p.verdict, Verdict::Resume(_))
            || model.fates.get(&p.pane) != Some(&Fate::InPlace)
        {
            continue;
        }
        // A resumed pane passed the plan's shell gate: its shell is known.
        let Some(shell) = shell_of(&model.layout, p.pane) else {
            continue;
        };
        // Typed only into an empty, idle prompt; otherwise the line stays
        // armed and the pane's integration takes it at its next prompt.
        let line = take_command(&opts.program, p.pane, shell);
        let (why, pending) = match host.dispatch(p.pane, &line) {
            Ok(Dispatched::Sent) => continue,
            Ok(Dispatched::NotTyped { why, pending }) => (why, pending),
            Err(e) => (e.to_string(), false),
        };
        let left = if pending {
            "left armed for its next prompt"
        } else {
            "left armed"
        };
        say(&format!("nothing typed into a pane ({why}); {left}"));
    }
    Ok(Report {
        gate,
        saved: true,
        plans,
        places: model.places,
        nothing: model.nothing,
        armed,
        attach,
        queue,
    })
}

/// The shell of `pane` in `layout`.
fn shell_of(layout: &Layout, pane: PaneId) -> Option<Shell> {
    layout
        .panes()
        .find(|(p, _)| p.id == pane)
        .and_then(|(p, _)| p.shell)
}
