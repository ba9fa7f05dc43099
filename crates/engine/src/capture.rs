//! Capture from a short-lived process (the CLI's `hook`, `report`, `note`,
//! `run`, the zero-config scan): seed the state machine with the pane's
//! stored recording, observe, and write what changed. The unchanged case
//! reads one row by key and writes nothing.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use agent_resume_core::{
    Capture, Change, DirIdentity, IdSource, Observation, PaneContext, PaneId, UnixMillis,
};
use agent_resume_store::{RowState, Set, Store, WriteError, Writer};

/// What a capturing process knows about the pane.
pub struct Known {
    /// Program word and allowlisted flags (never raw text), joined.
    pub invocation: Option<String>,
    /// The pane's directory.
    pub cwd: Option<PathBuf>,
    /// The agent's config home.
    pub config_home: Option<PathBuf>,
}

impl PaneContext for Known {
    fn invocation(&self) -> Option<Cow<'_, str>> {
        self.invocation.as_deref().map(Cow::Borrowed)
    }
    fn cwd(&self) -> Option<PathBuf> {
        self.cwd.clone()
    }
    fn config_home(&self) -> Option<PathBuf> {
        self.config_home.clone()
    }
    fn dir_identity(&self, cwd: &Path) -> Option<DirIdentity> {
        agent_resume_discover::file::dir_identity(cwd)
    }
}

/// What happened to the store.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// Nothing changed (unchanged pair, headless, lower-precedence source).
    Unchanged,
    /// A recording was saved.
    Saved,
    /// A newer observation or clear from another process won.
    Superseded,
}

/// Observes `obs` for its pane against what `store` holds.
pub fn observe(
    store: Store,
    obs: &Observation<'_>,
    known: &Known,
    now: UnixMillis,
) -> Result<Applied, WriteError> {
    // The agent's own word on its conversation proves a resume of the
    // pane, whether or not the recording changes; an id read from the
    // command line the restore itself wrote proves nothing.
    if let (false, Some(id), IdSource::Hook | IdSource::Correlation) =
        (obs.headless, obs.session_id, obs.source)
    {
        let _ = store.resume_reported(obs.pane, id, now);
    }
    let mut capture = Capture::new();
    if let Ok(Some(RowState::Recording(rec))) = store.row(obs.pane) {
        // Every hook process is a fresh look at the pane: its stored
        // recording, as of a new run, so the same id with other flags than
        // this run shows is recorded again (a recording carries the flags
        // of the run that reported) — core's run rule, once.
        capture.seed(obs.pane, rec);
        capture.run_started(obs.pane, known);
    }
    let Some(change) = capture.observe(obs, known, now) else {
        return Ok(Applied::Unchanged);
    };
    apply(store, obs.pane, change, now)
}

/// Writes one change for `pane`.
pub fn apply(
    store: Store,
    pane: PaneId,
    change: Change,
    now: UnixMillis,
) -> Result<Applied, WriteError> {
    let delete = change == Change::Delete;
    let mut writer = Writer::new(store);
    writer.send(Set::from_change(pane, change, now));
    let flushed = writer.flush()?;
    if delete {
        writer.store().disarm(pane)?;
    }
    Ok(if flushed.applied == 0 {
        Applied::Superseded
    } else {
        Applied::Saved
    })
}

/// What is noted for an interactive run: the program word (the user's own
/// path, or the declared word) then the allowlisted flags, never more.
pub fn noted_argv(
    agent: &agent_resume_core::AgentDecl,
    program: Option<String>,
    flags: Vec<agent_resume_core::RecordedFlag>,
) -> Vec<String> {
    let mut argv = vec![program.unwrap_or_else(|| agent.command().to_owned())];
    for f in flags {
        argv.push(f.name.to_string());
        argv.extend(f.value.as_deref().map(str::to_owned));
    }
    argv
}

/// What `note` stores for an agent command line `text` of `agent`: the
/// program word and the allowlisted flags ([`noted_argv`]), then — for an
/// agent whose resume is a flag — that flag and the session id the line
/// resumes when the id passes the agent's shape (`pi --session <id>`), so a
/// run that hides its argv (Pi renames its process) is still known to be
/// on that session ([`crate::evidence`]); for a headless run the program
/// word alone, and `true`. `None` when the line is no run of `agent`.
pub fn noted_line(agent: &agent_resume_core::AgentDecl, text: &str) -> Option<(Vec<String>, bool)> {
    use agent_resume_core::catalog::ResumeShape;
    use agent_resume_core::flag::first_command;
    use agent_resume_core::{extract, Extraction};
    match extract(agent, text).ok()? {
        Extraction::Interactive { flags, program } => {
            let mut argv = noted_argv(agent, program, flags);
            let words = shell_words::split(first_command(text)).unwrap_or_default();
            if let (ResumeShape::Flag { name, .. }, Some(id)) = (
                &agent.resume,
                agent_resume_discover::scan::argv_id(agent, &words),
            ) {
                argv.extend([name.clone(), id]);
            }
            Some((argv, false))
        }
        // Noted so its hooks and its exit leave the pane's recording alone.
        Extraction::Headless => Some((vec![agent.command().to_owned()], true)),
    }
}

/// How long a noted command line counts for the exit of the line it noted.
const NOTED_FOR: i64 = 24 * 3600 * 1000;

/// Whether the pane's last noted agent command line was a headless run.
pub fn last_run_headless(store: &Store, pane: PaneId, now: UnixMillis) -> bool {
    store.last_noted_headless(pane, UnixMillis(now.0.saturating_sub(NOTED_FOR)))
}
