//! Adding an agent is an edit of the catalog and one provider module: the
//! provider registry is the one exhaustive match over `AgentKind` outside
//! the catalog. A match over the agents needs an arm per agent (the house
//! style has no `_ =>` arm on a closed enum), so a source file whose code
//! names every agent is such a match, or a list that has to grow with each
//! agent; only the registry may hold one.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use agent_resume_core::AgentKind;
use agent_resume_discover::provider;

/// The registry, relative to the workspace root.
const REGISTRY: &str = "crates/discover/src/provider/mod.rs";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The library and binary code of the workspace: `src/` and each crate's
/// `src/` and `build.rs`; tests, benches and fuzz targets are not product
/// code.
fn product_sources() -> Vec<PathBuf> {
    let root = workspace();
    let mut out = Vec::new();
    sources(&root.join("src"), &mut out);
    for krate in fs::read_dir(root.join("crates"))
        .expect("crates/ is readable")
        .filter_map(Result::ok)
    {
        sources(&krate.path().join("src"), &mut out);
        let build = krate.path().join("build.rs");
        if build.is_file() {
            out.push(build);
        }
    }
    out.sort();
    out
}

/// The agents a source text names as `AgentKind::<Variant>`, its test
/// module (everything from the first `#[cfg(test)]`) left out.
fn named_agents(text: &str) -> BTreeSet<AgentKind> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    AgentKind::VARIANTS
        .iter()
        .copied()
        .filter(|k| {
            let word = format!("AgentKind::{k:?}");
            code.match_indices(&word).any(|(at, _)| {
                !code[at + word.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .collect()
}

#[test]
fn every_agent_kind_has_its_own_provider() {
    for &k in AgentKind::VARIANTS {
        assert_eq!(provider(k).kind(), k, "{k:?}");
    }
}

#[test]
fn the_registry_is_the_only_exhaustive_match_over_the_agents_outside_the_catalog() {
    let root = workspace();
    let all: BTreeSet<AgentKind> = AgentKind::VARIANTS.iter().copied().collect();
    let registry = fs::read_to_string(root.join(REGISTRY)).expect("the registry is readable");
    assert_eq!(
        named_agents(&registry),
        all,
        "the registry names every agent (else this check sees nothing)"
    );
    let files = product_sources();
    assert!(files.len() > 50, "the workspace sources were found");
    let mut offenders = Vec::new();
    for path in files {
        let rel = path.strip_prefix(&root).unwrap_or(&path).to_owned();
        if rel == Path::new(REGISTRY) {
            continue;
        }
        let text = fs::read_to_string(&path).expect("a source file is readable");
        if named_agents(&text) == all {
            offenders.push(rel);
        }
    }
    assert!(
        offenders.is_empty(),
        "these files name every agent, which only the provider registry ({REGISTRY}) may: \
         move the per-agent knowledge into the agents' provider modules or the catalog: \
         {offenders:?}"
    );
}

#[test]
fn a_file_naming_every_agent_is_caught_and_a_test_module_is_not_counted() {
    let arms: Vec<String> = AgentKind::VARIANTS
        .iter()
        .map(|k| format!("AgentKind::{k:?} => 1,"))
        .collect();
    let all = AgentKind::VARIANTS.len();
    let code = format!(
        "fn f(a: AgentKind) -> u8 {{ match a {{ {} }} }}",
        arms.join(" ")
    );
    assert_eq!(named_agents(&code).len(), all);
    let tested = format!("fn g() {{}}\n#[cfg(test)]\nmod tests {{ {code} }}");
    assert!(named_agents(&tested).is_empty());
    // A longer name that starts with a variant's is not that variant.
    assert!(named_agents("AgentKind::Claude2").is_empty());
}
