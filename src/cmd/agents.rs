//! `agent-resume agents`: the catalog, for people and for tools.

use std::io::Write;
use std::process::ExitCode;

use agent_resume_core::catalog::{PostureRule, ResumeShape};
use agent_resume_core::{AgentDecl, Catalog};
use anyhow::Result;
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct FlagRow<'a> {
    name: &'a str,
    aliases: &'a [String],
    value: bool,
    /// Some value of it is posture.
    posture: bool,
    /// The values reviewed as not posture; every other value is.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    plain_values: &'a [String],
}

#[derive(Serialize)]
struct AgentRow<'a> {
    name: &'static str,
    display: &'a str,
    commands: &'a [String],
    verified: bool,
    verified_versions: &'a [String],
    id_shape: &'a str,
    resume: String,
    headless: Option<String>,
    flags: Vec<FlagRow<'a>>,
}

fn resume_text(shape: &ResumeShape) -> String {
    match shape {
        ResumeShape::Flag { name, joined: true } => format!("{name}=<id>"),
        ResumeShape::Flag {
            name,
            joined: false,
        } => format!("{name} <id>"),
        ResumeShape::Subcommand(words) => format!("{} <id>", words.join(" ")),
    }
}

/// The resume column of an agent that cannot resume by id.
const NOT_RESUMABLE: &str = "none (not resumable by id)";

fn row(a: &AgentDecl) -> AgentRow<'_> {
    AgentRow {
        name: a.kind.as_str(),
        display: &a.display,
        commands: &a.commands,
        verified: a.verified,
        verified_versions: &a.verified_versions,
        id_shape: &a.id_shape_name,
        resume: if a.resumable_by_id {
            format!("{} {}", a.command(), resume_text(&a.resume))
        } else {
            NOT_RESUMABLE.to_owned()
        },
        headless: a.headless.as_ref().filter(|h| h.verified).map(|h| {
            let mut words = vec![a.command().to_owned()];
            words.extend(h.prefix.iter().cloned());
            words.push(resume_text(&h.resume));
            words.join(" ")
        }),
        flags: a
            .flags
            .iter()
            .filter(|f| f.carry)
            .map(|f| FlagRow {
                name: &f.name,
                aliases: &f.aliases,
                value: f.shape.is_some(),
                posture: f.may_be_posture(),
                plain_values: match &f.posture {
                    PostureRule::ExceptValues(plain) => plain,
                    PostureRule::Never | PostureRule::Always => &[],
                },
            })
            .collect(),
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let rows: Vec<AgentRow<'_>> = Catalog::embedded().agents().iter().map(row).collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:<12} {:<9} {:<34} carried flags (* = posture; *(but a|b) = posture but for a, b)",
        "agent", "verified", "resume"
    )?;
    for r in &rows {
        let flags: Vec<String> = r
            .flags
            .iter()
            .map(|f| match (f.posture, f.plain_values) {
                (false, _) => f.name.to_owned(),
                (true, []) => format!("{}*", f.name),
                (true, plain) => format!("{}*(but {})", f.name, plain.join("|")),
            })
            .collect();
        writeln!(
            out,
            "{:<12} {:<9} {:<34} {}",
            r.name,
            if r.verified { "yes" } else { "no" },
            r.resume,
            flags.join(" ")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
