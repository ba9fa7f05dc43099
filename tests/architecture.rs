//! The shape of the workspace, checked: no two modules of one crate import
//! each other, directly or around a loop (a cycle makes a module impossible
//! to read, test or move alone), and the binary stays thin.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file under `src` (`cmd/demo.rs` is
/// `cmd::demo`, `cmd/mod.rs` is `cmd`, `lib.rs` and `main.rs` the root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The text before the unit tests: what the module is, not how it is tested.
fn code(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i])
}

/// The modules of the crate at `src` that `text` (the module `me`) names
/// through `crate::` or `super::` paths, comments excluded.
fn imports(me: &str, text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let parent = me.rsplit_once("::").map_or("", |(p, _)| p);
    let mut out = BTreeSet::new();
    for line in code(text).lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        for (prefix, base) in [("crate::", ""), ("super::", parent)] {
            let mut rest = line;
            while let Some(i) = rest.find(prefix) {
                let after = &rest[i + prefix.len()..];
                // `crate::{a, b}`: each name in the braces.
                let names: Vec<&str> = if let Some(inner) = after.strip_prefix('{') {
                    let end = inner.find('}').unwrap_or(inner.len());
                    inner[..end].split(',').map(str::trim).collect()
                } else {
                    vec![after]
                };
                for name in names {
                    let word: String = name
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let target = if base.is_empty() {
                        word
                    } else {
                        format!("{base}::{word}")
                    };
                    if modules.contains(&target) && target != me && !me.starts_with(&target) {
                        out.insert(target);
                    }
                }
                rest = after;
            }
        }
    }
    out
}

/// A loop in `edges`, if any, as the modules along it.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|n| n == next).unwrap_or(0);
                    let mut found = stack[at..].to_vec();
                    found.push(next.clone());
                    return Some(found);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if !state.contains_key(node.as_str()) {
            let mut stack = Vec::new();
            if let Some(c) = visit(node, edges, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    files
        .iter()
        .map(|f| {
            let me = module_of(src, f);
            let text = std::fs::read_to_string(f).expect("readable source");
            let deps = if me.is_empty() {
                BTreeSet::new() // the root declares every module
            } else {
                imports(&me, &text, &modules)
            };
            (me, deps)
        })
        .collect()
}

fn roots() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("src")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    out.extend(crates);
    out
}

#[test]
fn no_crate_has_a_cycle_between_its_modules() {
    for src in roots() {
        if let Some(c) = cycle(&graph(&src)) {
            panic!(
                "{}: modules import each other: {}",
                src.display(),
                c.join(" -> ")
            );
        }
    }
}

#[test]
fn the_cycle_check_sees_a_loop_through_crate_and_super_paths() {
    let modules: BTreeSet<String> = ["a", "b", "cmd::x", "cmd::y"].map(String::from).into();
    let mut edges = BTreeMap::new();
    edges.insert("a".to_owned(), imports("a", "use crate::{b, c};", &modules));
    edges.insert(
        "b".to_owned(),
        imports("b", "fn f() { crate::a::g() }", &modules),
    );
    assert_eq!(
        cycle(&edges),
        Some(vec!["a".to_owned(), "b".to_owned(), "a".to_owned()])
    );
    edges.insert(
        "b".to_owned(),
        imports("b", "// crate::a::g()\nfn f() {}", &modules),
    );
    assert_eq!(cycle(&edges), None, "a comment is no import");
    let y = imports("cmd::y", "use super::x::{f};", &modules);
    assert_eq!(y, ["cmd::x".to_owned()].into());
}
