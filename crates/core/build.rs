//! Generates, from `agents.toml`:
//!
//! - the closed `AgentKind` enum, so adding an agent is an edit of that file
//!   while every stored or sent agent value stays a closed enum with a
//!   stable discriminant;
//! - the validated catalog as Rust data (`catalog.rs` in `OUT_DIR`): the file
//!   is checked here by the very code `Catalog::load` runs (`src/shape.rs`,
//!   `src/catalog/decl.rs` and `src/catalog/validate.rs`, included by path),
//!   so a catalog that breaks a rule fails the build with the rule's
//!   message, and no process parses TOML for the embedded catalog.

use std::fmt::Write as _;
use std::{env, fs, path::PathBuf};

#[allow(dead_code)]
#[path = "src/shape.rs"]
mod shape;

#[allow(dead_code)]
#[path = "src/catalog/decl.rs"]
mod decl;

#[allow(dead_code)]
#[path = "src/catalog/validate.rs"]
mod validate;

use decl::{
    AgentDecl, Arity, Catalog, CatalogError, FlagDecl, HeadlessShape, PayloadHeadless, PayloadKey,
    PayloadShape, PostureRule, PromptPlacement, ResumeShape,
};
use shape::{Segment, Shape};

/// What the validator needs of the generated `AgentKind`, before it exists:
/// each agent's name, code and place in the file (the enum's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct AgentKind {
    order: usize,
    code: u16,
    name: &'static str,
}

impl AgentKind {
    fn as_str(self) -> &'static str {
        self.name
    }

    fn code(self) -> u16 {
        self.code
    }
}

#[derive(serde::Deserialize)]
struct File {
    agent: Vec<Agent>,
}

#[derive(serde::Deserialize)]
struct Agent {
    name: String,
    code: u16,
}

fn variant(name: &str) -> String {
    let mut out = String::new();
    for part in name.split(['-', '_']) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    out
}

fn main() {
    for input in [
        "agents.toml",
        "src/shape.rs",
        "src/catalog/decl.rs",
        "src/catalog/validate.rs",
    ] {
        println!("cargo:rerun-if-changed={input}");
    }
    let text = fs::read_to_string("agents.toml").expect("agents.toml is readable");
    let file: File = toml::from_str(&text).expect("agents.toml parses (details: Catalog::load)");
    let mut names = std::collections::BTreeSet::new();
    let mut codes = std::collections::BTreeSet::new();
    for a in &file.agent {
        let ok = !a.name.is_empty()
            && a.name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && a.name.as_bytes()[0].is_ascii_lowercase();
        assert!(ok, "agent name {:?} must be lowercase [a-z0-9-]", a.name);
        assert!(
            names.insert(a.name.clone()),
            "duplicate agent name {:?}",
            a.name
        );
        assert!(
            a.code > 0 && codes.insert(a.code),
            "agent code {} is zero or duplicate",
            a.code
        );
    }

    let mut s = String::new();
    s.push_str("/// A declared agent: one variant per `[[agent]]` of `agents.toml`.\n");
    s.push_str("///\n/// The discriminant is the stored `code`; unknown codes and names decode to `None`.\n");
    s.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[repr(u16)]\npub enum AgentKind {\n");
    for a in &file.agent {
        let _ = writeln!(
            s,
            "    /// `{}` (code {}).\n    {} = {},",
            a.name,
            a.code,
            variant(&a.name),
            a.code
        );
    }
    s.push_str("}\n\nimpl AgentKind {\n    /// Every variant, in catalog order.\n    pub const VARIANTS: &'static [AgentKind] = &[\n");
    for a in &file.agent {
        let _ = writeln!(s, "        AgentKind::{},", variant(&a.name));
    }
    s.push_str("    ];\n\n    /// The stable lowercase name (catalog `name`).\n    pub const fn as_str(self) -> &'static str {\n        match self {\n");
    for a in &file.agent {
        let _ = writeln!(
            s,
            "            AgentKind::{} => {:?},",
            variant(&a.name),
            a.name
        );
    }
    s.push_str("        }\n    }\n\n    /// The stored discriminant.\n    pub const fn code(self) -> u16 {\n        self as u16\n    }\n\n");
    s.push_str("    /// Decodes a stored discriminant; unknown codes are `None`.\n    pub const fn from_code(code: u16) -> Option<Self> {\n        match code {\n");
    for a in &file.agent {
        let _ = writeln!(
            s,
            "            {} => Some(AgentKind::{}),",
            a.code,
            variant(&a.name)
        );
    }
    s.push_str("            _ => None,\n        }\n    }\n\n    /// Decodes a name; unknown names are `None`.\n    pub fn from_name(name: &str) -> Option<Self> {\n        match name {\n");
    for a in &file.agent {
        let _ = writeln!(
            s,
            "            {:?} => Some(AgentKind::{}),",
            a.name,
            variant(&a.name)
        );
    }
    s.push_str("            _ => None,\n        }\n    }\n}\n");

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::write(out_dir.join("agent_kind.rs"), s).expect("OUT_DIR is writable");

    let kinds: Vec<AgentKind> = file
        .agent
        .iter()
        .enumerate()
        .map(|(order, a)| AgentKind {
            order,
            code: a.code,
            name: String::leak(a.name.clone()),
        })
        .collect();
    let catalog = validate::load(&text, &kinds)
        .unwrap_or_else(|e| panic!("crates/core/agents.toml is refused: {e}"));
    fs::write(out_dir.join("catalog.rs"), emit(&catalog)).expect("OUT_DIR is writable");
}

/// The catalog as one Rust function building it.
fn emit(c: &Catalog) -> String {
    let mut s = String::from(
        "// Generated by build.rs from agents.toml, after validating it: do not edit.\n\n\
         /// The embedded catalog.\npub(super) fn catalog() -> Catalog {\n    Catalog {\n        agents: vec![\n",
    );
    for a in &c.agents {
        s.push_str(&agent(a));
    }
    s.push_str("        ],\n        shapes: BTreeMap::from([\n");
    for (name, sh) in &c.shapes {
        let _ = writeln!(s, "            ({}, {}),", string(name), shape(sh));
    }
    s.push_str("        ]),\n    }\n}\n");
    s
}

fn string(v: &str) -> String {
    // `{:?}` of a str is a valid Rust string literal.
    format!("String::from({v:?})")
}

fn strings(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|w| string(w)).collect();
    format!("vec![{}]", items.join(", "))
}

fn option(v: Option<String>) -> String {
    v.map_or_else(|| "None".to_owned(), |v| format!("Some({v})"))
}

fn shape(sh: &Shape) -> String {
    match sh {
        Shape::Choice(values) => format!("Shape::Choice({})", strings(values)),
        Shape::Segments(segs) => {
            let items: Vec<String> = segs
                .iter()
                .map(|seg| match seg {
                    Segment::Literal(l) => format!("Segment::Literal({})", string(l)),
                    Segment::Run { set, min, max } => format!(
                        "Segment::Run {{ set: Charset::from_bits({:#x}), min: {min}, max: {max} }}",
                        set.bits()
                    ),
                })
                .collect();
            format!("Shape::Segments(vec![{}])", items.join(", "))
        }
    }
}

fn resume(r: &ResumeShape) -> String {
    match r {
        ResumeShape::Flag { name, joined } => format!(
            "ResumeShape::Flag {{ name: {}, joined: {joined} }}",
            string(name)
        ),
        ResumeShape::Subcommand(words) => format!("ResumeShape::Subcommand({})", strings(words)),
    }
}

fn headless(h: &HeadlessShape) -> String {
    let prompt = match &h.prompt {
        PromptPlacement::AfterSeparator => "PromptPlacement::AfterSeparator".to_owned(),
        PromptPlacement::Positional => "PromptPlacement::Positional".to_owned(),
        PromptPlacement::Flag(f) => format!("PromptPlacement::Flag({})", string(f)),
    };
    format!(
        "HeadlessShape {{ verified: {}, prefix: {}, resume: {}, prompt: {prompt} }}",
        h.verified,
        strings(&h.prefix),
        resume(&h.resume)
    )
}

fn payload(p: &PayloadShape) -> String {
    match p {
        PayloadShape::Fields { ids, headless } => {
            let ids: Vec<&str> = ids
                .iter()
                .map(|k| match k {
                    PayloadKey::SessionId => "PayloadKey::SessionId",
                    PayloadKey::SessionIdCamel => "PayloadKey::SessionIdCamel",
                    PayloadKey::ConversationId => "PayloadKey::ConversationId",
                })
                .collect();
            let headless = match headless {
                PayloadHeadless::TypedWithoutEvent => "TypedWithoutEvent",
                PayloadHeadless::WithoutEvent => "WithoutEvent",
                PayloadHeadless::Never => "Never",
            };
            format!(
                "PayloadShape::Fields {{ ids: vec![{}], headless: PayloadHeadless::{headless} }}",
                ids.join(", ")
            )
        }
        PayloadShape::Codex => "PayloadShape::Codex".to_owned(),
        PayloadShape::Opencode => "PayloadShape::Opencode".to_owned(),
        PayloadShape::Pi => "PayloadShape::Pi".to_owned(),
    }
}

fn flag(f: &FlagDecl) -> String {
    let arity = match f.arity {
        Arity::Switch => "Switch",
        Arity::Value => "Value",
        Arity::Optional => "Optional",
        Arity::Variadic => "Variadic",
    };
    let posture = match &f.posture {
        PostureRule::Never => "PostureRule::Never".to_owned(),
        PostureRule::Always => "PostureRule::Always".to_owned(),
        PostureRule::ExceptValues(plain) => {
            format!("PostureRule::ExceptValues({})", strings(plain))
        }
    };
    format!(
        "                FlagDecl {{ name: {}, aliases: {}, arity: Arity::{arity}, shape: {}, \
         carry: {}, posture: {posture}, headless: {} }},\n",
        string(&f.name),
        strings(&f.aliases),
        option(f.shape.as_ref().map(shape)),
        f.carry,
        f.headless
    )
}

fn agent(a: &AgentDecl) -> String {
    let mut s = String::from("            AgentDecl {\n");
    let mut field = |name: &str, value: String| {
        let _ = writeln!(s, "                {name}: {value},");
    };
    field("kind", format!("AgentKind::{}", variant(a.kind.name)));
    field("display", string(&a.display));
    field("commands", strings(&a.commands));
    field("process_names", strings(&a.process_names));
    field("verified", a.verified.to_string());
    field("resumable_by_id", a.resumable_by_id.to_string());
    field("verified_versions", strings(&a.verified_versions));
    field("id_shape_name", string(&a.id_shape_name));
    field("id_shape", shape(&a.id_shape));
    field("payload", payload(&a.payload));
    field("config_env", strings(&a.config_env));
    field("resume", resume(&a.resume));
    field("headless", option(a.headless.as_ref().map(headless)));
    field("headless_subcommands", strings(&a.headless_subcommands));
    field(
        "positional_is_headless",
        a.positional_is_headless.to_string(),
    );
    field(
        "launch_id_flag",
        option(a.launch_id_flag.as_deref().map(string)),
    );
    field("interactive_flags", strings(&a.interactive_flags));
    field("shared_server_args", strings(&a.shared_server_args));
    field("ui_child_args", strings(&a.ui_child_args));
    field("exit_hint", strings(&a.exit_hint));
    s.push_str("                flags: vec![\n");
    for f in &a.flags {
        s.push_str(&flag(f));
    }
    s.push_str("                ],\n            },\n");
    s
}
