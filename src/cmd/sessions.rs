//! `agent-resume sessions`: every agent session on this machine, from each
//! agent's own store, newest first (`docs/discover.md`).
//!
//! Also the helpers `resume` and `continue` share: the resolved store
//! roots, directory comparison, and how skipped files are reported.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_core::{AgentKind, UnixMillis};
use agent_resume_discover::{fuzzy_match, list, Depth, Homes, Listing, Problem, SessionInfo};
use anyhow::{anyhow, Context, Result};
use serde::Serialize;

use crate::{paths, when};

#[derive(clap::Args)]
pub struct Args {
    /// Only sessions that ran in this directory [default: the current one].
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    cwd: Option<PathBuf>,
    /// Sessions of every directory.
    #[arg(long)]
    all: bool,
    /// Only this agent's sessions (see `agent-resume agents`).
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// Read whole files (message counts, titles set late); implied by QUERY.
    #[arg(long)]
    full: bool,
    /// List every file skipped, and why.
    #[arg(long)]
    verbose: bool,
    /// Fuzzy filter over id, title, directory and first prompt.
    query: Vec<String>,
}

/// One row of `--json`, borrowed from its session.
#[derive(Serialize)]
struct Row<'a> {
    agent: &'static str,
    id: &'a str,
    cwd: Option<Cow<'a, str>>,
    title: Cow<'a, str>,
    modified: Option<String>,
}

/// The `--json` array, each row made as it is written (not a vector of
/// rows first): the same bytes as serializing a `Vec<Row>`.
struct Rows<'a>(&'a [&'a SessionInfo]);

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(self.0.iter().map(|s| Row {
            agent: s.agent.as_str(),
            id: &s.id,
            cwd: s.cwd.as_deref().map(|p| p.to_string_lossy()),
            title: s.display_name_ref(),
            modified: when::format(s.modified),
        }))
    }
}

/// The store roots, from this process's environment.
pub fn homes() -> Homes {
    Homes::from_env(&|k| std::env::var_os(k))
}

/// Whether `dir` (a session's, untrusted) is the directory `here`.
pub fn same_dir(dir: &Path, here: &Path) -> bool {
    Here::new(here).is(dir)
}

/// One directory, compared with many: both sides canonicalized, each
/// distinct session directory resolved once.
pub struct Here {
    raw: PathBuf,
    real: PathBuf,
    seen: std::cell::RefCell<std::collections::HashMap<PathBuf, bool>>,
}

impl Here {
    /// The directory `here`.
    pub fn new(here: &Path) -> Here {
        Here {
            raw: here.to_path_buf(),
            real: std::fs::canonicalize(here).unwrap_or_else(|_| here.to_path_buf()),
            seen: Default::default(),
        }
    }

    /// Whether `dir` is this directory.
    pub fn is(&self, dir: &Path) -> bool {
        if dir == self.raw || dir == self.real {
            return true;
        }
        *self
            .seen
            .borrow_mut()
            .entry(dir.to_path_buf())
            .or_insert_with(|| std::fs::canonicalize(dir).is_ok_and(|d| d == self.real))
    }
}

/// Reports what listing skipped: one line per file with `verbose`, else a
/// count. Missing stores (agents not used here) are not worth a line.
pub fn report_notes(l: &Listing, verbose: bool) {
    let notes: Vec<_> = l
        .notes
        .iter()
        .filter(|n| n.problem != Problem::StoreMissing)
        .collect();
    if verbose {
        for n in &notes {
            eprintln!(
                "agent-resume: skipped {} {}: {}",
                n.agent,
                paths::show(&n.path),
                n.problem.as_str()
            );
        }
    } else if !notes.is_empty() {
        eprintln!(
            "agent-resume: skipped {} unreadable or half-written session file(s) (--verbose lists them)",
            notes.len()
        );
    }
}

/// `3m`, `5h`, `2d` — how long ago.
pub fn age(modified: UnixMillis, now: UnixMillis) -> String {
    agent_resume_engine::host::age(modified, now)
}

/// A session as one line for messages: agent, id, directory, name.
pub fn describe(s: &SessionInfo) -> String {
    let dir = s.cwd.as_deref().map_or_else(|| "?".to_owned(), paths::show);
    format!("{} {} in {} ({})", s.agent, s.id, dir, s.compact_name(50))
}

/// The last `max` characters of `s`, led by `…` when cut: a path's end
/// says more than its start.
fn tail(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_owned();
    }
    let rest: String = s.chars().skip(n - max + 1).collect();
    format!("…{rest}")
}

pub fn run(args: Args) -> Result<ExitCode> {
    let agents = match &args.agent {
        Some(a) => vec![AgentKind::from_name(a)
            .ok_or_else(|| anyhow!("unknown agent (see `agent-resume agents`)"))?],
        None => Vec::new(),
    };
    let here = match (&args.cwd, args.all) {
        (_, true) => None,
        (Some(d), false) => Some(Here::new(d)),
        (None, false) => Some(Here::new(
            &std::env::current_dir().context("cannot read the current directory")?,
        )),
    };
    let query = args.query.join(" ");
    let depth = if args.full || !query.trim().is_empty() {
        Depth::Full
    } else {
        Depth::FAST
    };
    let listing = list(&homes(), &agents, depth);
    report_notes(&listing, args.verbose);
    let shown: Vec<&SessionInfo> = listing
        .sessions
        .iter()
        .filter(|s| match &here {
            Some(h) => s.cwd.as_deref().is_some_and(|d| h.is(d)),
            None => true,
        })
        .filter(|s| fuzzy_match(s, &query))
        .collect();
    let mut out = super::listing_stdout();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &Rows(&shown))?;
        writeln!(out)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let now = when::now();
    writeln!(
        out,
        "{:<9} {:>4}  {:<40}  {:<30}  id",
        "agent", "age", "title", "cwd"
    )?;
    for s in shown {
        let dir = s.cwd.as_deref().map_or_else(|| "-".to_owned(), paths::show);
        writeln!(
            out,
            "{:<9} {:>4}  {:<40}  {:<30}  {}",
            s.agent.as_str(),
            age(s.modified, now),
            s.compact_name(40),
            tail(&dir, 30),
            s.id
        )?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
