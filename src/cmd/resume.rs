//! `agent-resume resume <ID-PREFIX | PATH>`: resume any session found in the
//! agents' own stores, in the directory it ran in (`docs/discover.md`).
//!
//! A prefix is resolved across agents; more than one match is an error that
//! lists them, never "the first". The agent's own resume argv is built by
//! core (an unverified agent or an id off its shape is refused, exit 3) and
//! exec'd in the session's directory — no shell. `--print` prints the line
//! instead, led by `cd <dir> &&` when that is not the current directory.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_core::{
    build, quote, AgentKind, BuildRequest, Catalog, Posture, RecordedFlag, Shell,
};
use agent_resume_discover::{list, read_path, resolve_prefix, Depth, Resolved, SessionInfo};
use anyhow::{bail, Context, Result};

use super::sessions::{describe, homes, report_notes, same_dir};
use super::EXIT_REFUSED;
use crate::paths;
use agent_resume_engine::process;

#[derive(clap::Args)]
pub struct Args {
    /// A session id or a unique prefix of one (see `agent-resume sessions`),
    /// or the path of a session file.
    #[arg(value_name = "ID-PREFIX | PATH")]
    target: OsString,
    /// Print the resume line instead of running it.
    #[arg(long)]
    print: bool,
}

/// What to resume: the agent, the id, where, and the replayed flags.
pub struct Target<'a> {
    /// The agent.
    pub agent: AgentKind,
    /// The session id (checked against its shape by the builder).
    pub session_id: &'a str,
    /// The session's directory, when known.
    pub cwd: Option<&'a Path>,
    /// Allowlisted flags to replay (a pane's recording), else none.
    pub flags: &'a [RecordedFlag],
    /// The recorded program path, when one passed its shape.
    pub program: Option<&'a str>,
    /// Whether posture flags ride along.
    pub posture: Posture,
}

/// Builds the resume argv and runs it in the session's directory (or, with
/// `print`, prints the line). Refusals say why and exit 3.
pub fn launch(t: &Target<'_>, print: bool) -> Result<ExitCode> {
    let agent = Catalog::embedded().agent(t.agent);
    let inv = match build(&BuildRequest {
        agent,
        session_id: t.session_id,
        flags: t.flags,
        program: agent_resume_core::program::trusted(agent, t.program, &crate::restore::RealFs),
        posture: t.posture,
        shell: Shell::Sh,
    }) {
        Ok(inv) => inv,
        Err(e) => {
            eprintln!("agent-resume: refused: {e}");
            return Ok(ExitCode::from(EXIT_REFUSED));
        }
    };
    let here = std::env::current_dir().context("cannot read the current directory")?;
    let dir: PathBuf = match t.cwd {
        None => {
            eprintln!(
                "agent-resume: the store does not say where this session ran; running it here"
            );
            here.clone()
        }
        Some(d) if !d.is_dir() => {
            eprintln!(
                "agent-resume: refused: the session's directory {} no longer exists",
                paths::show(d)
            );
            return Ok(ExitCode::from(EXIT_REFUSED));
        }
        Some(d) => {
            if !same_dir(d, &here) {
                eprintln!(
                    "agent-resume: this session is from {}; running it there",
                    paths::show(d)
                );
            }
            d.to_path_buf()
        }
    };
    if print {
        let line = inv.line.trim_start();
        if same_dir(&dir, &here) {
            println!("{line}");
        } else {
            let Some(q) = dir.to_str().and_then(|d| quote(d).ok()) else {
                eprintln!(
                    "agent-resume: refused: the session's directory cannot be written in a shell line"
                );
                return Ok(ExitCode::from(EXIT_REFUSED));
            };
            println!("cd {q} && {line}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let err = process::exec_in(&inv.argv, &dir);
    bail!("could not run {}: {err}", paths::escape(&inv.argv[0]))
}

fn looks_like_path(t: &OsString) -> bool {
    let b = t.as_encoded_bytes();
    b.contains(&b'/') || Path::new(t).exists()
}

/// The one session `target` names, or an error listing why not.
fn find(target: &OsString) -> Result<SessionInfo> {
    let homes = homes();
    if looks_like_path(target) {
        return read_path(&homes, Path::new(target), Depth::FAST).with_context(|| {
            format!(
                "{} is not a readable session",
                paths::show(Path::new(target))
            )
        });
    }
    let Some(prefix) = target.to_str() else {
        bail!("an id prefix is ASCII");
    };
    let listing = list(&homes, &[], Depth::FAST);
    let found = resolve_prefix(&listing.sessions, prefix);
    match found {
        Resolved::One(s) => Ok(s.clone()),
        Resolved::None => {
            report_notes(&listing, false);
            bail!(
                "no session id starts with {:?} (see `agent-resume sessions --all`)",
                paths::escape(prefix)
            )
        }
        Resolved::Ambiguous(all) => {
            let lines: Vec<String> = all.iter().map(|s| format!("  {}", describe(s))).collect();
            bail!(
                "{:?} names {} sessions; give more of the id:\n{}",
                paths::escape(prefix),
                all.len(),
                lines.join("\n")
            )
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let s = find(&args.target)?;
    launch(
        &Target {
            agent: s.agent,
            session_id: &s.id,
            cwd: s.cwd.as_deref(),
            flags: &[],
            program: None,
            posture: Posture::Drop,
        },
        args.print,
    )
}
