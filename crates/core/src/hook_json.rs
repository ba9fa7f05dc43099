//! Text-preserving edits of an agent's JSON hook configuration (Claude,
//! Gemini and Qwen `settings.json`, Codex `hooks.json`): the file is parsed
//! as JSONC (`//` and `/* */` comments, trailing commas — Gemini loads such
//! files) only to find byte ranges; every edit splices text in or out and
//! leaves every other byte as it was.
//!
//! Removal is the exact inverse of insertion: a group is appended after the
//! last element of its list as `,` + separator + the group, and removed as
//! the text from the end of the element before it to its own end; a
//! container created into an empty one is written with no added whitespace
//! and removed as its own range. So uninstall after install gives back the
//! original bytes (compact stays compact, comments and a missing final
//! newline are kept). Containers (`hooks`, `hooks.<Event>`) are removed when
//! our entries leave them empty only if the original file (the backup) did
//! not have them.

use jsonc_parser::ast::{Array, Object, Value};
use jsonc_parser::common::{Range, Ranged};
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};
use serde_json::Value as Json;
use thiserror::Error;

/// Why a configuration file is left untouched.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum EditError {
    /// Not JSON (comments and trailing commas allowed).
    #[error("the settings file is not valid JSON; not touching it")]
    NotJson,
    /// The top level is not an object.
    #[error("the settings file is not a JSON object; not touching it")]
    NotAnObject,
    /// `hooks` is not an object.
    #[error("`hooks` in the settings file is not an object; not touching it")]
    HooksNotAnObject,
    /// `hooks.<event>` is not a list.
    #[error("`hooks.{0}` is not a list; not touching it")]
    EventNotAList(&'static str),
}

/// Tells our hook commands from the user's.
pub struct Ours<'a> {
    /// The command is one of ours (any spelling of the binary).
    pub any: &'a dyn Fn(&str) -> bool,
    /// The command is exactly the one install writes now.
    pub current: &'a dyn Fn(&str) -> bool,
}

fn options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn parse(text: &str) -> Result<Value<'_>, EditError> {
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Off,
        tokens: false,
    };
    match jsonc_parser::parse_to_ast(text, &collect, &options()) {
        Ok(r) => r.value.ok_or(EditError::NotJson),
        Err(_) => Err(EditError::NotJson),
    }
}

/// Every handler command under `hooks.<event>`, in file order; a missing
/// `hooks` or event is none.
pub fn commands(text: &str, event: &str) -> Result<Vec<String>, EditError> {
    if is_blank(text) {
        return Ok(Vec::new());
    }
    let root = parse(text)?;
    let Value::Object(root) = &root else {
        return Err(EditError::NotAnObject);
    };
    let hooks = match prop(root, "hooks") {
        None => return Ok(Vec::new()),
        Some(Value::Object(h)) => h,
        Some(_) => return Err(EditError::HooksNotAnObject),
    };
    let groups = match prop(hooks, event) {
        Some(Value::Array(a)) => &a.elements,
        _ => return Ok(Vec::new()),
    };
    Ok(groups
        .iter()
        .filter_map(handlers)
        .flat_map(|h| h.elements.iter().filter_map(command_of))
        .map(str::to_owned)
        .collect())
}

/// Whether `text` is blank (a file to create from nothing).
pub fn is_blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}

/// Whether `text` is an empty object and nothing else (no comment, no key).
pub fn is_empty_object(text: &str) -> bool {
    text.chars().filter(|c| !c.is_whitespace()).eq("{}".chars())
}

/// The last property named `name` (a JSON reader keeps the last).
fn prop<'o, 'a>(obj: &'o Object<'a>, name: &str) -> Option<&'o Value<'a>> {
    obj.properties
        .iter()
        .rev()
        .find(|p| p.name.as_str() == name)
        .map(|p| &p.value)
}

fn command_of<'v>(handler: &'v Value<'_>) -> Option<&'v str> {
    match handler {
        Value::Object(o) => match prop(o, "command") {
            Some(Value::StringLit(s)) => Some(s.value.as_ref()),
            _ => None,
        },
        _ => None,
    }
}

fn handlers<'v, 'a>(group: &'v Value<'a>) -> Option<&'v Array<'a>> {
    match group {
        Value::Object(o) => match prop(o, "hooks") {
            Some(Value::Array(a)) => Some(a),
            _ => None,
        },
        _ => None,
    }
}

/// A group whose handlers are all ours (and at least one).
fn all_ours(group: &Value<'_>, is_ours: &dyn Fn(&str) -> bool) -> bool {
    handlers(group).is_some_and(|h| {
        !h.elements.is_empty()
            && h.elements
                .iter()
                .all(|e| command_of(e).is_some_and(is_ours))
    })
}

/// The text range that removes child `i` of a container whose children span
/// `children`: the inverse of [`insertion`].
fn deletion(text: &str, children: &[Range], i: usize) -> Range {
    if i > 0 {
        return Range {
            start: children[i - 1].end,
            end: children[i].end,
        };
    }
    if let Some(next) = children.get(1) {
        return Range {
            start: children[0].start,
            end: next.start,
        };
    }
    // The only child: its own range, and a trailing comma right after it.
    let end = children[0].end;
    let rest = &text[end..];
    let skipped = rest.len() - rest.trim_start().len();
    let end = if rest[skipped..].starts_with(',') {
        end + skipped + 1
    } else {
        end
    };
    Range {
        start: children[0].start,
        end,
    }
}

fn splice(text: &str, r: Range, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..r.start]);
    out.push_str(with);
    out.push_str(&text[r.end..]);
    out
}

/// Which containers the original file had: those are never removed.
struct Original {
    hooks: bool,
    events: Vec<String>,
}

impl Original {
    fn of(text: Option<&str>) -> Original {
        let none = Original {
            hooks: false,
            events: Vec::new(),
        };
        let Some(text) = text.filter(|t| !is_blank(t)) else {
            return none;
        };
        let Ok(Value::Object(root)) = parse(text) else {
            // Unreadable: keep every container.
            return Original {
                hooks: true,
                events: vec!["*".into()],
            };
        };
        match prop(&root, "hooks") {
            Some(Value::Object(h)) => Original {
                hooks: true,
                events: h
                    .properties
                    .iter()
                    .map(|p| p.name.as_str().to_owned())
                    .collect(),
            },
            Some(_) => Original {
                hooks: true,
                events: vec!["*".into()],
            },
            None => none,
        }
    }

    fn had_event(&self, name: &str) -> bool {
        self.events.iter().any(|e| e == name || e == "*")
    }
}

/// One removal step: the range to cut, or `None` when nothing of ours is
/// left. `keep_containers` keeps event lists and `hooks` (install).
fn next_removal(
    text: &str,
    is_ours: &dyn Fn(&str) -> bool,
    original: &Original,
    keep_containers: bool,
) -> Result<Option<Range>, EditError> {
    let Value::Object(root) = parse(text)? else {
        return Err(EditError::NotAnObject);
    };
    let Some((hooks_index, hooks)) = root
        .properties
        .iter()
        .enumerate()
        .rev()
        .find(|(_, p)| p.name.as_str() == "hooks")
    else {
        return Ok(None);
    };
    let Value::Object(events) = &hooks.value else {
        return Ok(None);
    };
    let removable_event = |name: &str, v: &Value<'_>| {
        !keep_containers
            && !original.had_event(name)
            && matches!(v, Value::Array(a) if a.elements.iter().all(|g| all_ours(g, is_ours)))
    };
    for (ei, event) in events.properties.iter().enumerate() {
        let Value::Array(groups) = &event.value else {
            continue;
        };
        for (gi, group) in groups.elements.iter().enumerate() {
            let Some(list) = handlers(group) else {
                continue;
            };
            let Some(hi) = list
                .elements
                .iter()
                .position(|h| command_of(h).is_some_and(is_ours))
            else {
                continue;
            };
            if !all_ours(group, is_ours) {
                let ranges: Vec<Range> = list.elements.iter().map(Ranged::range).collect();
                return Ok(Some(deletion(text, &ranges, hi)));
            }
            if !removable_event(event.name.as_str(), &event.value) {
                let ranges: Vec<Range> = groups.elements.iter().map(Ranged::range).collect();
                return Ok(Some(deletion(text, &ranges, gi)));
            }
            let all_events_go = !original.hooks
                && events
                    .properties
                    .iter()
                    .all(|p| removable_event(p.name.as_str(), &p.value));
            if all_events_go {
                let ranges: Vec<Range> = root.properties.iter().map(|p| p.range).collect();
                return Ok(Some(deletion(text, &ranges, hooks_index)));
            }
            let ranges: Vec<Range> = events.properties.iter().map(|p| p.range).collect();
            return Ok(Some(deletion(text, &ranges, ei)));
        }
    }
    Ok(None)
}

fn strip(
    text: &str,
    is_ours: &dyn Fn(&str) -> bool,
    original: &Original,
    keep_containers: bool,
) -> Result<String, EditError> {
    let mut text = text.to_owned();
    while let Some(r) = next_removal(&text, is_ours, original, keep_containers)? {
        text = splice(&text, r, "");
    }
    Ok(text)
}

/// Removes every hook entry of ours. Event lists and `hooks` that our
/// entries leave empty go too, unless `original` (the file before install,
/// `None` when it did not exist) had them.
pub fn uninstall(
    text: &str,
    is_ours: &dyn Fn(&str) -> bool,
    original: Option<&str>,
) -> Result<String, EditError> {
    if is_blank(text) {
        return Ok(text.to_owned());
    }
    strip(text, is_ours, &Original::of(original), false)
}

/// Adds `group` to each of `events`, unless a group there already runs the
/// current command. Entries of ours with another command (an older binary
/// path) are replaced.
pub fn install(
    text: &str,
    events: &[&'static str],
    group: &Json,
    ours: &Ours<'_>,
) -> Result<String, EditError> {
    if is_blank(text) {
        let mut hooks = serde_json::Map::new();
        for e in events {
            hooks.insert((*e).to_owned(), Json::Array(vec![group.clone()]));
        }
        let root = Json::Object(
            [("hooks".to_owned(), Json::Object(hooks))]
                .into_iter()
                .collect(),
        );
        let mut out = String::new();
        render(&root, Some(("", "  ")), &mut out);
        out.push('\n');
        return Ok(out);
    }
    let stale = |c: &str| (ours.any)(c) && !(ours.current)(c);
    let keep = Original {
        hooks: true,
        events: vec!["*".into()],
    };
    let mut text = strip(text, &stale, &keep, true)?;
    for event in events {
        let Value::Object(root) = parse(&text)? else {
            return Err(EditError::NotAnObject);
        };
        let Some(hooks) = prop(&root, "hooks") else {
            let mut map = serde_json::Map::new();
            for e in events {
                map.insert((*e).to_owned(), Json::Array(vec![group.clone()]));
            }
            let ranges: Vec<Range> = root.properties.iter().map(|p| p.range).collect();
            text = insertion(
                &text,
                root.range,
                &ranges,
                Some("hooks"),
                &Json::Object(map),
            );
            return Ok(text);
        };
        let Value::Object(hooks) = hooks else {
            return Err(EditError::HooksNotAnObject);
        };
        let inserted = match prop(hooks, event) {
            None => {
                let ranges: Vec<Range> = hooks.properties.iter().map(|p| p.range).collect();
                let list = Json::Array(vec![group.clone()]);
                insertion(&text, hooks.range, &ranges, Some(event), &list)
            }
            Some(Value::Array(groups)) => {
                let present = groups.elements.iter().any(|g| {
                    handlers(g).is_some_and(|h| {
                        h.elements
                            .iter()
                            .any(|e| command_of(e).is_some_and(ours.current))
                    })
                });
                if present {
                    continue;
                }
                let ranges: Vec<Range> = groups.elements.iter().map(Ranged::range).collect();
                insertion(&text, groups.range, &ranges, None, group)
            }
            Some(_) => return Err(EditError::EventNotAList(event)),
        };
        text = inserted;
    }
    Ok(text)
}

/// The leading whitespace of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Inserts a child (`key: value` in an object, `value` in a list) after the
/// container's last child, in the container's own style: on a new line with
/// the last child's indentation when the container spans lines, else after
/// `, `. Into an empty container: right after the opening bracket, compact.
fn insertion(
    text: &str,
    container: Range,
    children: &[Range],
    key: Option<&str>,
    value: &Json,
) -> String {
    let mut child = String::new();
    let Some(last) = children.last() else {
        if let Some(k) = key {
            push_string(k, &mut child);
            child.push_str(": ");
        }
        render(value, None, &mut child);
        let at = container.start + 1;
        return splice(text, Range { start: at, end: at }, &child);
    };
    let multiline = text[container.start..last.start].contains('\n');
    child.push(',');
    let pretty = if multiline {
        let indent = line_indent(text, last.start);
        let outer = line_indent(text, container.start);
        let unit = indent
            .strip_prefix(outer)
            .filter(|u| !u.is_empty())
            .unwrap_or("  ");
        child.push('\n');
        child.push_str(indent);
        Some((indent, unit))
    } else {
        child.push(' ');
        None
    };
    if let Some(k) = key {
        push_string(k, &mut child);
        child.push_str(": ");
    }
    render(value, pretty, &mut child);
    splice(
        text,
        Range {
            start: last.end,
            end: last.end,
        },
        &child,
    )
}

fn push_string(s: &str, out: &mut String) {
    out.push_str(&Json::String(s.to_owned()).to_string());
}

/// Renders `v`: compact (`{"a": 1, "b": [2]}`) or, with `(base, unit)`,
/// one entry per line indented from `base`.
fn render(v: &Json, pretty: Option<(&str, &str)>, out: &mut String) {
    let items: Vec<(Option<&str>, &Json)> = match v {
        Json::Object(m) => m.iter().map(|(k, v)| (Some(k.as_str()), v)).collect(),
        Json::Array(a) => a.iter().map(|v| (None, v)).collect(),
        other => {
            out.push_str(&other.to_string());
            return;
        }
    };
    let (open, close) = if v.is_object() {
        ('{', '}')
    } else {
        ('[', ']')
    };
    out.push(open);
    let inner = pretty.map(|(base, unit)| format!("{base}{unit}"));
    for (i, (key, item)) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
            if pretty.is_none() {
                out.push(' ');
            }
        }
        if let (Some(inner), Some(_)) = (&inner, pretty) {
            out.push('\n');
            out.push_str(inner);
        }
        if let Some(k) = key {
            push_string(k, out);
            out.push_str(": ");
        }
        render(
            item,
            pretty.map(|(_, unit)| (inner.as_deref().unwrap_or(""), unit)),
            out,
        );
    }
    if let (Some((base, _)), false) = (pretty, items.is_empty()) {
        out.push('\n');
        out.push_str(base);
    }
    out.push(close);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    const OURS: &str = "agent-resume hook claude";

    fn is_ours(c: &str) -> bool {
        c.ends_with(" hook claude")
    }

    fn current(c: &str) -> bool {
        c == OURS
    }

    fn ours() -> Ours<'static> {
        Ours {
            any: &is_ours,
            current: &current,
        }
    }

    fn group() -> Json {
        json!({"matcher": "", "hooks": [{"type": "command", "command": OURS}]})
    }

    const EVENTS: &[&str] = &["SessionStart", "UserPromptSubmit"];

    fn round_trip(original: &str) -> String {
        let installed = install(original, EVENTS, &group(), &ours()).expect("installs");
        assert!(
            parse(&installed).is_ok(),
            "installed text parses:\n{installed}"
        );
        assert_eq!(installed.matches(OURS).count(), EVENTS.len(), "{installed}");
        assert_eq!(
            install(&installed, EVENTS, &group(), &ours()).expect("again"),
            installed,
            "install is idempotent"
        );
        let back = uninstall(&installed, &is_ours, Some(original)).expect("uninstalls");
        assert_eq!(back, original, "installed:\n{installed}");
        installed
    }

    #[test]
    fn compact_json_comes_back_compact_and_byte_identical() {
        let installed = round_trip(r#"{"model":"opus","hooks":{"Stop":[]}}"#);
        assert!(!installed.contains('\n'), "{installed}");
    }

    #[test]
    fn pretty_json_gets_entries_in_its_own_indentation() {
        let original = "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"SessionStart\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}\n        ]\n    }\n}\n";
        let installed = round_trip(original);
        assert!(
            installed.contains("\n            {\n                \"matcher\": \"\","),
            "{installed}"
        );
        assert!(
            installed.contains("\n        \"UserPromptSubmit\": ["),
            "{installed}"
        );
    }

    #[test]
    fn jsonc_comments_trailing_commas_and_a_missing_final_newline_are_kept() {
        round_trip(
            "// my settings\n{\n  /* theme */ \"theme\": \"dark\", // trailing\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"mine\"},],}, // mine\n    ],\n  },\n}",
        );
        round_trip("{\n  \"a\": [1, 2,],\n}\n");
        round_trip("{}");
        round_trip("{ }\n");
        round_trip("  {\"ü\": \"é\"}  \n\n");
    }

    #[test]
    fn a_file_created_from_nothing_is_an_empty_object_after_uninstall() {
        let created = install("", EVENTS, &group(), &ours()).expect("installs");
        assert!(created.ends_with("]\n  }\n}\n"), "{created}");
        let back = uninstall(&created, &is_ours, None).expect("uninstalls");
        assert!(is_empty_object(&back), "{back:?}");
    }

    #[test]
    fn containers_the_original_had_are_kept_even_when_empty() {
        let original = r#"{"hooks": {"SessionStart": []}}"#;
        round_trip(original);
        // Without the original (backup lost), emptied containers go.
        let installed = install(original, EVENTS, &group(), &ours()).expect("installs");
        assert_eq!(
            uninstall(&installed, &is_ours, None).expect("uninstalls"),
            "{}"
        );
    }

    #[test]
    fn a_stale_entry_of_ours_is_replaced_and_the_users_hooks_are_kept() {
        let text = r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "mine"}, {"type": "command", "command": "/old/agent-resume hook claude"}]}]}}"#;
        let installed = install(text, &["SessionStart"], &group(), &ours()).expect("installs");
        assert!(!installed.contains("/old/"), "{installed}");
        assert!(installed.contains("\"mine\""), "{installed}");
        assert!(installed.contains(OURS), "{installed}");
    }

    #[test]
    fn files_that_are_not_json_objects_are_refused() {
        let e = |t: &str| install(t, EVENTS, &group(), &ours()).err();
        assert_eq!(e("[1]"), Some(EditError::NotAnObject));
        assert_eq!(e("{"), Some(EditError::NotJson));
        assert_eq!(e("{'a': 1}"), Some(EditError::NotJson));
        assert_eq!(e(r#"{"hooks": 3}"#), Some(EditError::HooksNotAnObject));
        assert_eq!(
            e(r#"{"hooks": {"SessionStart": {}}}"#),
            Some(EditError::EventNotAList("SessionStart"))
        );
    }

    fn scalar() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("1".to_owned()),
            Just("true".to_owned()),
            Just("null".to_owned()),
            "[a-zé ]{0,6}".prop_map(|s| Json::String(s).to_string()),
        ]
    }

    fn ws() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just(" ".to_owned()),
            Just("\n  ".to_owned()),
            Just("\n\t\t".to_owned()),
            Just(" // note\n ".to_owned()),
            Just("/* c */".to_owned()),
        ]
    }

    /// Objects of scalars, arrays and nested objects, in random layouts
    /// with comments and trailing commas, sometimes with a `hooks` object.
    fn document() -> impl Strategy<Value = String> {
        let entry = (ws(), "[a-z]{1,5}", ws(), scalar(), ws());
        let user_hook = (ws(), ws()).prop_map(|(a, b)| {
            format!(r#"{{{a}"hooks": [{{"type": "command", "command": "mine"}}]{b}}}"#)
        });
        let hooks = prop::option::of((
            ws(),
            prop::collection::vec(user_hook, 0..3),
            any::<bool>(),
            ws(),
        ));
        (
            prop::collection::vec(entry, 0..4),
            hooks,
            any::<bool>(),
            ws(),
            ws(),
        )
            .prop_map(|(entries, hooks, trailing, lead, tail)| {
                let mut parts: Vec<String> = entries
                    .iter()
                    .map(|(a, k, b, v, c)| format!("{a}\"{k}\"{b}:{v}{c}"))
                    .collect();
                if let Some((a, groups, events_trailing, b)) = hooks {
                    let comma = if events_trailing && !groups.is_empty() {
                        ","
                    } else {
                        ""
                    };
                    parts.push(format!(
                        "{a}\"hooks\": {{\"SessionStart\": [{}{comma}]{b}}}",
                        groups.join(",")
                    ));
                }
                let comma = if trailing && !parts.is_empty() {
                    ","
                } else {
                    ""
                };
                format!("{lead}{{{}{comma}}}{tail}", parts.join(","))
            })
    }

    proptest! {
        #[test]
        fn uninstall_after_install_gives_back_the_original_bytes(doc in document()) {
            round_trip(&doc);
        }
    }
}
