//! `agent-resume record`: one observation through the real capture path
//! (core's capture state machine, flag extraction included) into the store.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_core::capture::Change;
use agent_resume_core::{
    AgentKind, Capture, Catalog, DirIdentity, IdSource, Observation, PaneContext, PaneId,
};
use agent_resume_store::{Set, Store, Writer};
use anyhow::{anyhow, bail, Context, Result};

use super::EXIT_REFUSED;
use crate::config::enabled_or_say;
use crate::paths::{self, Overrides};
use crate::when;

#[derive(clap::Args)]
pub struct Args {
    /// The pane (hyphenated UUID).
    #[arg(long)]
    pane: String,
    /// Agent name (see `agent-resume agents`).
    #[arg(long)]
    agent: String,
    /// The session id the agent reported.
    #[arg(long)]
    session_id: String,
    /// The directory the agent runs in (absolute; stored as given).
    #[arg(long)]
    cwd: OsString,
    /// When it was observed (RFC 3339) [default: now].
    #[arg(long)]
    observed_at: Option<String>,
    /// The user's own invocation text, as typed.
    #[arg(long, allow_hyphen_values = true)]
    invocation: String,
    /// The agent's config home (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …).
    #[arg(long)]
    config_home: Option<OsString>,
}

struct Given<'a> {
    invocation: &'a str,
    cwd: PathBuf,
    config_home: Option<PathBuf>,
}

impl PaneContext for Given<'_> {
    fn invocation(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(self.invocation))
    }
    fn cwd(&self) -> Option<PathBuf> {
        Some(self.cwd.clone())
    }
    fn config_home(&self) -> Option<PathBuf> {
        self.config_home.clone()
    }
    fn dir_identity(&self, cwd: &Path) -> Option<DirIdentity> {
        agent_resume_discover::file::dir_identity(cwd)
    }
}

pub fn run(args: Args, o: &Overrides) -> Result<ExitCode> {
    if !enabled_or_say(o, "nothing recorded") {
        return Ok(ExitCode::SUCCESS);
    }
    let pane: PaneId = args.pane.parse().context("--pane")?;
    let agent = AgentKind::from_name(&args.agent)
        .ok_or_else(|| anyhow!("unknown agent (see `agent-resume agents`)"))?;
    let cwd = PathBuf::from(args.cwd);
    if !cwd.is_absolute() {
        bail!("--cwd must be an absolute path");
    }
    let at = match &args.observed_at {
        Some(text) => when::parse(text).context("--observed-at")?,
        None => when::now(),
    };
    if !Catalog::embedded()
        .agent(agent)
        .id_shape
        .matches(&args.session_id)
    {
        eprintln!("agent-resume: refused: the session id does not match the agent's id shape");
        return Ok(ExitCode::from(EXIT_REFUSED));
    }
    let ctx = Given {
        invocation: &args.invocation,
        cwd,
        config_home: args.config_home.map(PathBuf::from),
    };
    let obs = Observation {
        pane,
        agent,
        session_id: Some(&args.session_id),
        source: IdSource::Hook,
        headless: false,
    };
    // A fresh state machine: with an id and a directory, the only way it
    // declines is a headless invocation.
    let Some(change @ Change::Save(_)) = Capture::new().observe(&obs, &ctx, at) else {
        eprintln!("agent-resume: headless run; nothing recorded");
        return Ok(ExitCode::SUCCESS);
    };
    let path = paths::db(o)?;
    let store = Store::open(&path)
        .with_context(|| format!("recordings database {}", paths::show(&path)))?;
    let mut writer = Writer::new(store);
    writer.send(Set::from_change(pane, change, at));
    let flushed = writer.flush()?;
    if flushed.applied == 0 {
        eprintln!("agent-resume: a newer observation or clear is stored for this pane; kept it");
    }
    Ok(ExitCode::SUCCESS)
}
