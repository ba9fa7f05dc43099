//! The documentation that states facts about the catalog is checked against
//! it, so the two can never silently disagree.

use agent_resume_core::catalog::{PostureRule, PromptPlacement, ResumeShape};
use agent_resume_core::{AgentDecl, Catalog};

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

fn headless_text(a: &AgentDecl) -> String {
    let Some(h) = &a.headless else {
        return "—".into();
    };
    let mut words = vec![a.command().to_owned()];
    words.extend(h.prefix.iter().cloned());
    words.push(resume_text(&h.resume));
    match &h.prompt {
        PromptPlacement::AfterSeparator => words.push("-- <prompt>".into()),
        PromptPlacement::Positional => words.push("<prompt>".into()),
        PromptPlacement::Flag(f) => words.push(format!("{f}=<prompt>")),
    }
    let text = format!("`{}`", words.join(" "));
    if h.verified {
        text
    } else {
        format!("{text} (unverified)")
    }
}

fn flag_list(a: &AgentDecl, posture: bool) -> String {
    let names: Vec<String> = a
        .flags
        .iter()
        .filter(|f| f.carry && f.may_be_posture() == posture)
        .map(|f| match &f.posture {
            PostureRule::ExceptValues(plain) => {
                let plain: Vec<String> = plain.iter().map(|v| format!("`{v}`")).collect();
                format!("`{}` (but {})", f.name, plain.join(" "))
            }
            PostureRule::Never | PostureRule::Always => format!("`{}`", f.name),
        })
        .collect();
    if names.is_empty() {
        "—".into()
    } else {
        names.join(" ")
    }
}

fn matrix() -> String {
    let mut out = String::from(
        "| agent | command | verified | id shape | resume | headless | carried flags | posture flags |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for a in Catalog::embedded().agents() {
        out.push_str(&format!(
            "| {} | `{}` | {} | `{}` | {} | {} | {} | {} |\n",
            a.kind.as_str(),
            a.commands.join("`, `"),
            if a.verified { "yes" } else { "no" },
            a.id_shape_name,
            if a.resumable_by_id {
                format!("`{} {}`", a.command(), resume_text(&a.resume))
            } else {
                "none: not resumable by id".to_owned()
            },
            headless_text(a),
            flag_list(a, false),
            flag_list(a, true),
        ));
    }
    out
}

#[test]
fn agent_matrix_in_docs_matches_the_catalog() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/agents.md"))
        .expect("docs/agents.md");
    let want = matrix();
    assert!(
        doc.contains(&want),
        "docs/agents.md is out of date; the matrix must read:\n\n{want}"
    );
}
