//! Generates the closed `AgentKind` enum from `agents.toml`, so adding an
//! agent is an edit of that file while every stored or sent agent value stays
//! a closed enum with a stable discriminant. Full validation of the file
//! happens in `Catalog::load`; this only needs `name` and `code`.

use std::fmt::Write as _;
use std::{env, fs, path::PathBuf};

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
    println!("cargo:rerun-if-changed=agents.toml");
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

    let out =
        PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("agent_kind.rs");
    fs::write(out, s).expect("OUT_DIR is writable");
}
