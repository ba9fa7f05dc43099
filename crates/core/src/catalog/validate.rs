//! Parsing and validating `agents.toml`. The same code runs in `build.rs`
//! (included there by path), so a catalog that breaks a rule fails the
//! build, and in [`Catalog::load`](super::Catalog::load) for a catalog given
//! at run time; the build emits the validated catalog as Rust, so no process
//! parses TOML for the embedded one.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::{
    AgentDecl, Arity, Catalog, CatalogError, FlagDecl, HeadlessShape, PayloadHeadless, PayloadKey,
    PayloadShape, PostureRule, PromptPlacement, ResumeShape,
};
use crate::shape::{Charset, Segment, Shape, ShapeError};
use crate::AgentKind;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    version: u32,
    shape: BTreeMap<String, RawShape>,
    agent: Vec<RawAgent>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShape {
    segments: Option<Vec<RawSegment>>,
    choice: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSegment {
    literal: Option<String>,
    chars: Option<String>,
    len: Option<u16>,
    min: Option<u16>,
    max: Option<u16>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    name: String,
    code: u16,
    display: String,
    commands: Vec<String>,
    #[serde(default)]
    process_names: Vec<String>,
    verified: bool,
    #[serde(default)]
    verified_versions: Vec<String>,
    resumable_by_id: Option<bool>,
    id_shape: String,
    payload: RawPayload,
    #[serde(default)]
    config_env: Vec<String>,
    resume: RawResume,
    headless: Option<RawHeadless>,
    #[serde(default)]
    headless_subcommands: Vec<String>,
    #[serde(default)]
    positional_is_headless: bool,
    #[serde(default)]
    interactive_flags: Vec<String>,
    launch_id_flag: Option<String>,
    #[serde(default)]
    shared_server_args: Vec<String>,
    #[serde(default)]
    ui_child_args: Vec<String>,
    #[serde(default)]
    exit_hint: Vec<String>,
    #[serde(default)]
    flags: Vec<RawFlag>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPayload {
    ids: Option<Vec<PayloadKey>>,
    headless: Option<PayloadHeadless>,
    format: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResume {
    flag: Option<String>,
    #[serde(default)]
    joined: bool,
    subcommand: Option<Vec<String>>,
    // Present only to be refused with a precise error.
    program: Option<toml::Value>,
    executable: Option<toml::Value>,
    command: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeadless {
    verified: bool,
    #[serde(default)]
    prefix: Vec<String>,
    resume: RawResume,
    prompt: Option<String>,
    prompt_flag: Option<String>,
    program: Option<toml::Value>,
    executable: Option<toml::Value>,
    command: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlag {
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    arity: Arity,
    shape: Option<String>,
    #[serde(default)]
    carry: bool,
    #[serde(default)]
    posture: bool,
    /// The values that leave the posture alone; every other value is
    /// posture.
    plain_values: Option<Vec<String>>,
    #[serde(default)]
    headless: bool,
}

/// `1.2.3`: one to four dot-separated runs of digits, at most 32 bytes.
fn is_version(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    v.len() <= 32
        && (1..=4).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn is_flag_word(w: &str) -> bool {
    let body = w
        .strip_prefix("--")
        .or_else(|| w.strip_prefix('-'))
        .unwrap_or("");
    !body.is_empty()
        && body.as_bytes()[0].is_ascii_alphanumeric()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn is_plain_word(w: &str) -> bool {
    !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn shape_from_raw(raw: RawShape) -> Result<Shape, ShapeError> {
    match (raw.segments, raw.choice) {
        (Some(segs), None) => {
            let mut out = Vec::with_capacity(segs.len());
            for s in segs {
                out.push(match (s.literal, s.chars, s.len, s.min, s.max) {
                    (Some(lit), None, None, None, None) => Segment::Literal(lit),
                    (None, Some(chars), Some(n), None, None) => Segment::Run {
                        set: Charset::parse(&chars)?,
                        min: n,
                        max: n,
                    },
                    (None, Some(chars), None, Some(min), Some(max)) => Segment::Run {
                        set: Charset::parse(&chars)?,
                        min,
                        max,
                    },
                    _ => return Err(ShapeError::BadSegment),
                });
            }
            Shape::segments(out)
        }
        (None, Some(values)) => Shape::choice(values),
        _ => Err(ShapeError::Empty),
    }
}

/// Parses and validates a catalog file whose agents must be exactly
/// `kinds` (by name and code).
pub(super) fn load(text: &str, kinds: &[AgentKind]) -> Result<Catalog, CatalogError> {
    let raw: RawCatalog =
        toml::from_str(text).map_err(|e| CatalogError::Parse(e.message().to_owned()))?;
    if raw.version != 1 {
        return Err(CatalogError::Version(raw.version));
    }
    let mut shapes = BTreeMap::new();
    for (name, rs) in raw.shape {
        let shape = shape_from_raw(rs).map_err(|source| CatalogError::Shape {
            name: name.clone(),
            source,
        })?;
        shapes.insert(name, shape);
    }
    let all_commands: BTreeSet<&str> = raw
        .agent
        .iter()
        .flat_map(|a| {
            a.commands
                .iter()
                .chain(&a.process_names)
                .map(String::as_str)
        })
        .collect();
    let mut seen_kinds = BTreeSet::new();
    let mut agents = Vec::with_capacity(raw.agent.len());
    for (i, ra) in raw.agent.iter().enumerate() {
        let rule = |rule| CatalogError::Rule { agent: i, rule };
        let kind = kinds
            .iter()
            .copied()
            .find(|k| k.as_str() == ra.name && k.code() == ra.code)
            .ok_or(CatalogError::UnknownAgent(i))?;
        if !seen_kinds.insert(kind) {
            return Err(CatalogError::Duplicate {
                what: "agent",
                agent: i,
            });
        }
        if ra.commands.is_empty() || !ra.commands.iter().all(|c| is_plain_word(c)) {
            return Err(rule("commands must be plain words"));
        }
        if !ra.process_names.iter().all(|c| is_plain_word(c))
            || ra.process_names.iter().any(|c| ra.commands.contains(c))
        {
            return Err(rule(
                "process names are plain words other than the commands",
            ));
        }
        let resumable_by_id = ra.resumable_by_id.unwrap_or(true);
        if !resumable_by_id && (ra.verified || ra.headless.as_ref().is_some_and(|h| h.verified)) {
            return Err(rule("an agent that cannot resume by id is never verified"));
        }
        let id_shape = shapes
            .get(&ra.id_shape)
            .cloned()
            .ok_or(CatalogError::UnknownShape(i))?;
        let resume = resume_from_raw(&ra.resume, i, &all_commands)?;
        let headless = match &ra.headless {
            None => None,
            Some(h) => {
                if h.program.is_some() || h.executable.is_some() || h.command.is_some() {
                    return Err(CatalogError::ResumeNamesExecutable(i));
                }
                if !h.prefix.iter().all(|w| is_plain_word(w) || is_flag_word(w))
                    || h.prefix.iter().any(|w| all_commands.contains(w.as_str()))
                {
                    return Err(rule("headless prefix must be plain words or flags"));
                }
                let prompt =
                    match (h.prompt.as_deref(), &h.prompt_flag) {
                        (Some("separator"), None) => PromptPlacement::AfterSeparator,
                        (Some("positional"), None) => PromptPlacement::Positional,
                        (None, Some(f)) if is_flag_word(f) => PromptPlacement::Flag(f.clone()),
                        _ => return Err(rule(
                            "headless needs one of prompt = separator|positional or prompt_flag",
                        )),
                    };
                Some(HeadlessShape {
                    verified: h.verified,
                    prefix: h.prefix.clone(),
                    resume: resume_from_raw(&h.resume, i, &all_commands)?,
                    prompt,
                })
            }
        };
        if ra.verified && ra.verified_versions.is_empty() {
            return Err(rule(
                "a verified agent names the versions it was verified with",
            ));
        }
        if !ra.verified_versions.iter().all(|v| is_version(v)) {
            return Err(rule("a verified version is dotted numbers, like 1.2.3"));
        }
        if let Some(f) = &ra.launch_id_flag {
            if !is_flag_word(f) || ra.flags.iter().any(|d| &d.name == f && d.carry) {
                return Err(rule("launch_id_flag must be a flag that is never carried"));
            }
        }
        if !ra.shared_server_args.iter().all(|w| !w.is_empty()) {
            return Err(rule("shared server words are not empty"));
        }
        if !ra.ui_child_args.iter().all(|w| !w.is_empty()) {
            return Err(rule("UI child words are not empty"));
        }
        let switch = |n: &String| {
            ra.flags
                .iter()
                .any(|f| &f.name == n && f.arity == Arity::Switch && !f.headless)
        };
        if !ra.interactive_flags.iter().all(switch)
            || (!ra.interactive_flags.is_empty() && !ra.positional_is_headless)
        {
            return Err(rule(
                "interactive flags are declared switches of an agent whose positional is headless",
            ));
        }
        if !ra.exit_hint.iter().all(|w| is_plain_word(w)) {
            return Err(rule("exit hint words must be plain words"));
        }
        if !ra.headless_subcommands.iter().all(|w| is_plain_word(w)) {
            return Err(rule("headless subcommands must be plain words"));
        }
        if !ra
            .config_env
            .iter()
            .all(|v| is_plain_word(v) && !v.contains('-'))
        {
            return Err(rule("config_env must be variable names"));
        }
        let payload = payload_from_raw(&ra.payload).map_err(rule)?;
        let mut words = BTreeSet::new();
        let mut flags = Vec::with_capacity(ra.flags.len());
        for rf in &ra.flags {
            for w in std::iter::once(&rf.name).chain(&rf.aliases) {
                if !is_flag_word(w) {
                    return Err(rule("flag names must look like -x or --name"));
                }
                if !words.insert(w.clone()) {
                    return Err(CatalogError::Duplicate {
                        what: "flag",
                        agent: i,
                    });
                }
            }
            let shape = match &rf.shape {
                None => None,
                Some(s) => Some(
                    shapes
                        .get(s)
                        .cloned()
                        .ok_or(CatalogError::UnknownShape(i))?,
                ),
            };
            if rf.carry {
                match rf.arity {
                    Arity::Switch if shape.is_none() => {}
                    Arity::Value if shape.is_some() => {}
                    _ => {
                        return Err(rule(
                            "a carried flag is a switch, or a value flag with a shape",
                        ))
                    }
                }
                if rf.headless {
                    return Err(rule("a headless flag is never carried"));
                }
                if !rf.name.starts_with("--") {
                    return Err(rule("a carried flag's canonical name is a long flag"));
                }
            } else if rf.plain_values.is_some() || shape.is_some() {
                // `posture = true` alone may mark a flag that is never
                // carried: the review is pinned before anyone carries it.
                return Err(rule("a shape and plain values only apply to carried flags"));
            }
            let posture = posture_rule(rf, shape.as_ref()).map_err(rule)?;
            flags.push(FlagDecl {
                name: rf.name.clone(),
                aliases: rf.aliases.clone(),
                arity: rf.arity,
                shape,
                carry: rf.carry,
                posture,
                headless: rf.headless,
            });
        }
        agents.push(AgentDecl {
            kind,
            display: ra.display.clone(),
            commands: ra.commands.clone(),
            process_names: ra.process_names.clone(),
            verified: ra.verified,
            resumable_by_id,
            verified_versions: ra.verified_versions.clone(),
            id_shape_name: ra.id_shape.clone(),
            id_shape,
            payload,
            config_env: ra.config_env.clone(),
            resume,
            headless,
            headless_subcommands: ra.headless_subcommands.clone(),
            positional_is_headless: ra.positional_is_headless,
            interactive_flags: ra.interactive_flags.clone(),
            launch_id_flag: ra.launch_id_flag.clone(),
            shared_server_args: ra.shared_server_args.clone(),
            ui_child_args: ra.ui_child_args.clone(),
            exit_hint: ra.exit_hint.clone(),
            flags,
        });
    }
    if seen_kinds.len() != kinds.len() {
        return Err(CatalogError::Rule {
            agent: agents.len(),
            rule: "every built-in agent kind must be declared",
        });
    }
    agents.sort_by_key(|a| a.kind);
    Ok(Catalog { agents, shapes })
}

/// A flag's posture: `posture = true` for every value, or, carried,
/// `plain_values` naming the only values that are not posture.
fn posture_rule(rf: &RawFlag, shape: Option<&Shape>) -> Result<PostureRule, &'static str> {
    let Some(plain) = &rf.plain_values else {
        return Ok(if rf.posture {
            PostureRule::Always
        } else {
            PostureRule::Never
        });
    };
    if rf.posture {
        return Err("a flag is posture for every value or names its plain values, not both");
    }
    let Some(shape) = shape.filter(|_| rf.arity == Arity::Value) else {
        return Err("plain values belong to a value flag with a shape");
    };
    let distinct: BTreeSet<&String> = plain.iter().collect();
    if plain.is_empty() || distinct.len() != plain.len() {
        return Err("plain values are a non-empty list without duplicates");
    }
    if !plain.iter().all(|v| shape.matches(v)) {
        return Err("every plain value matches the flag's shape");
    }
    if let Shape::Choice(choices) = shape {
        if choices.iter().all(|c| distinct.contains(c)) {
            return Err("plain values that name every choice leave no posture: drop them");
        }
    }
    Ok(PostureRule::ExceptValues(plain.clone()))
}

/// Either the keys and the headless rule, or a payload family's name.
fn payload_from_raw(p: &RawPayload) -> Result<PayloadShape, &'static str> {
    match (&p.ids, p.headless, p.format.as_deref()) {
        (Some(ids), Some(headless), None) => {
            let distinct: BTreeSet<PayloadKey> = ids.iter().copied().collect();
            if ids.is_empty() || distinct.len() != ids.len() {
                return Err("payload ids are a non-empty list without duplicates");
            }
            Ok(PayloadShape::Fields {
                ids: ids.clone(),
                headless,
            })
        }
        (None, None, Some("codex")) => Ok(PayloadShape::Codex),
        (None, None, Some("opencode")) => Ok(PayloadShape::Opencode),
        (None, None, Some("pi")) => Ok(PayloadShape::Pi),
        (None, None, Some(_)) => Err("payload format is one of codex, opencode, pi"),
        _ => Err("payload needs ids and headless, or a format"),
    }
}

fn resume_from_raw(
    r: &RawResume,
    i: usize,
    commands: &BTreeSet<&str>,
) -> Result<ResumeShape, CatalogError> {
    if r.program.is_some() || r.executable.is_some() || r.command.is_some() {
        return Err(CatalogError::ResumeNamesExecutable(i));
    }
    match (&r.flag, &r.subcommand) {
        (Some(f), None) if is_flag_word(f) => Ok(ResumeShape::Flag {
            name: f.clone(),
            joined: r.joined,
        }),
        (None, Some(words))
            if !r.joined && !words.is_empty() && words.iter().all(|w| is_plain_word(w)) =>
        {
            if words.iter().any(|w| commands.contains(w.as_str())) {
                return Err(CatalogError::ResumeNamesExecutable(i));
            }
            Ok(ResumeShape::Subcommand(words.clone()))
        }
        _ => Err(CatalogError::Rule {
            agent: i,
            rule: "resume needs one of flag or subcommand",
        }),
    }
}
