//! Adding an agent is an edit of the catalog and one provider module: the
//! provider registry is the one exhaustive match over `AgentKind` outside
//! the catalog. A match over the agents needs an arm per agent (the house
//! style has no `_ =>` arm on a closed enum), so a source file whose code
//! names every agent is such a match, or a list that has to grow with each
//! agent; only the registry may hold one.
//!
//! The providers fill in interfaces that stand below them (the store
//! layout, the record reader, the pid registry); a module they build on
//! never asks for a provider itself, or the two would import each other
//! around the registry.

use std::collections::{BTreeMap, BTreeSet};
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

/// The crate's top-level modules, each with the code of its files (a
/// parent and its children are one unit: `provider/claude.rs` is part of
/// `provider`), test modules and comment lines left out.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).expect("under src");
        let first = rel
            .iter()
            .next()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .unwrap_or_default();
        let text = fs::read_to_string(&f).expect("a source file is readable");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let mut kept: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .flat_map(|l| [l, "\n"])
            .collect();
        // In a file at the top, `super::` is the crate root.
        if rel.components().count() == 1 {
            kept = kept.replace("super::", "crate::");
        }
        out.entry(first).or_default().push_str(&kept);
    }
    out
}

/// The names the crate root imports (`pub use homes::Homes;`), by the
/// module they come from: `crate::Homes` is a use of `homes`.
fn root_imports(root: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for stmt in root.split(';') {
        let stmt = stmt.trim();
        let Some(path) = stmt
            .strip_prefix("pub use ")
            .or_else(|| stmt.strip_prefix("use "))
        else {
            continue;
        };
        let Some((module, rest)) = path.split_once("::") else {
            continue;
        };
        let names = rest.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            out.insert(name.to_owned(), module.to_owned());
        }
    }
    out
}

/// The modules `code` names through `crate::` paths, a name the root
/// imports counted as a use of the module it comes from.
fn uses(
    code: &str,
    modules: &BTreeMap<String, String>,
    via_root: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let after = &code[at + "crate::".len()..];
        let names: Vec<&str> = match after.strip_prefix('{') {
            Some(inner) => inner[..inner.find('}').unwrap_or(inner.len())]
                .split(',')
                .map(str::trim)
                .collect(),
            None => vec![after],
        };
        for name in names {
            let word: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let module = via_root.get(&word).cloned().unwrap_or(word);
            if modules.contains_key(&module) {
                out.insert(module);
            }
        }
    }
    out
}

/// The modules the providers are built on, each with the path that
/// reaches it from `provider`, that themselves name `provider`.
fn below_the_providers_asking_for_one(src: &Path) -> Vec<Vec<String>> {
    let mut modules = modules(src);
    let root = modules.remove("lib").unwrap_or_default();
    let via_root = root_imports(&root);
    let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut todo = vec![vec!["provider".to_owned()]];
    let mut offenders = Vec::new();
    while let Some(path) = todo.pop() {
        let at = path.last().expect("a path is never empty");
        for next in uses(&modules[at], &modules, &via_root) {
            if next == "provider" {
                if at != "provider" {
                    offenders.push(path.iter().cloned().chain([next]).collect());
                }
                continue;
            }
            if paths.contains_key(&next) {
                continue;
            }
            let mut longer = path.clone();
            longer.push(next.clone());
            paths.insert(next, longer.clone());
            todo.push(longer);
        }
    }
    offenders
}

#[test]
fn the_modules_the_providers_build_on_never_ask_for_a_provider() {
    let src = workspace().join("crates/discover/src");
    let offenders = below_the_providers_asking_for_one(&src);
    assert!(
        offenders.is_empty(),
        "a provider builds on a module that asks for a provider (a loop through the \
         registry): let the module take the agent's spec as an argument, or move what the \
         provider uses below it: {offenders:?}"
    );
}

#[test]
fn the_layering_check_follows_names_the_root_imports() {
    let mut modules = BTreeMap::new();
    modules.insert("provider".to_owned(), "use crate::Homes;".to_owned());
    modules.insert(
        "homes".to_owned(),
        "crate::provider::provider(k)".to_owned(),
    );
    modules.insert("store".to_owned(), String::new());
    let via_root = root_imports("pub use homes::Homes;\nuse store::{Store, Entry};");
    assert_eq!(via_root.get("Entry").map(String::as_str), Some("store"));
    assert_eq!(
        uses(&modules["provider"], &modules, &via_root),
        BTreeSet::from(["homes".to_owned()])
    );
    assert!(uses("crate::{json, store::Entry}", &modules, &via_root).contains("store"));
}
