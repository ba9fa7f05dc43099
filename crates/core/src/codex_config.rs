//! Byte-exact edits of Codex's `config.toml`: its `notify` list and
//! `[features] daemon_auto_start`, the two entries `install-hooks codex`
//! owns.
//!
//! The file is parsed (`toml_edit`, with spans) only to find byte ranges;
//! every edit splices text in or out of the original and leaves every other
//! byte as it was: a UTF-8 BOM, CRLF or mixed line endings, comments, key
//! order, sub-tables such as `[features.sub]`, dotted keys and arrays of
//! tables. Removal is the exact inverse of insertion:
//!
//! - an entry we add is one whole line `key = value` plus the line ending of
//!   the line before it, inserted at a line start (after the root section's
//!   last entry, after the `[features]` header, or at the top of the file
//!   after the BOM); at the end of a file without a final newline it is the
//!   line ending plus the line, so the file still has no final newline.
//!   Removing it takes that same line (or line ending plus line) out again.
//! - a value we replace keeps its key and the whitespace and comment around
//!   it; uninstall puts back the original's own value text (from the
//!   backup) when its meaning is what is wanted.
//! - Codex's features are written as the root line
//!   `features.daemon_auto_start = false` when the file has no `[features]`
//!   header (none at all, or only `[features.sub]` or dotted keys), into
//!   the header's table when it has one, and as `, daemon_auto_start =
//!   false` into `features = { … }`.
//!
//! Each edit is parsed again and must read back as intended, else the file
//! is left alone.

use std::ops::Range;

use thiserror::Error;
use toml_edit::{Document, InlineTable, Item, Table, Value};

/// Why `config.toml` is left untouched.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodexConfigError {
    /// Not TOML.
    #[error("config.toml is not valid TOML; not touching it")]
    NotToml,
    /// `notify` is not a list.
    #[error("`notify` in config.toml is not a list; not touching it")]
    NotifyNotAList,
    /// `features` is not a table.
    #[error("`features` in config.toml is not a table; not touching it")]
    FeaturesNotATable,
    /// `features.daemon_auto_start` is a table.
    #[error("`features.daemon_auto_start` in config.toml is not a value; not touching it")]
    DaemonNotAValue,
    /// The edited text did not parse back to what was intended.
    #[error("the edit of config.toml would not read back as intended; not touching it")]
    EditDidNotReadBack,
}

type Result<T> = std::result::Result<T, CodexConfigError>;

/// Codex's switch for its shared app-server daemon, under `[features]`.
pub const DAEMON_KEY: &str = "daemon_auto_start";

fn parse(text: &str) -> Result<Document<&str>> {
    Document::parse(text).map_err(|_| CodexConfigError::NotToml)
}

/// The words of root `notify` (its string elements), `None` when absent.
pub fn notify(text: &str) -> Result<Option<Vec<String>>> {
    let doc = parse(text)?;
    notify_in(doc.as_table())
}

fn notify_in(root: &Table) -> Result<Option<Vec<String>>> {
    match root.get("notify") {
        None => Ok(None),
        Some(Item::Value(Value::Array(a))) => Ok(Some(
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        )),
        Some(_) => Err(CodexConfigError::NotifyNotAList),
    }
}

/// Whether notify `words` run agent-resume's Codex hook.
pub fn is_our_notify(words: &[String], is_our_program: &dyn Fn(&str) -> bool) -> bool {
    matches!(words, [program, hook, codex, ..]
        if is_our_program(program) && hook == "hook" && codex == "codex")
}

/// `notify` becomes `[program, "hook", "codex"]`; a notifier the user had
/// is chained after `--chain`. Unchanged when already so.
pub fn install_notify(
    text: &str,
    program: &str,
    is_our_program: &dyn Fn(&str) -> bool,
) -> Result<String> {
    let chained = chained(text, is_our_program)?;
    let mut words = vec![program.to_owned(), "hook".into(), "codex".into()];
    if !chained.is_empty() {
        words.push("--chain".into());
    }
    words.extend(chained);
    set_notify(text, &words, None)
}

/// `notify` becomes the chained notifier again, or goes. `original` is the
/// file before the first install (the backup): a notifier equal to its own
/// comes back in its own text.
pub fn uninstall_notify(
    text: &str,
    is_our_program: &dyn Fn(&str) -> bool,
    original: Option<&str>,
) -> Result<String> {
    let words = chained(text, is_our_program)?;
    set_notify(text, &words, original)
}

/// The user's notifier: the words after `--chain` of ours, or a notifier
/// that is not ours.
fn chained(text: &str, is_our_program: &dyn Fn(&str) -> bool) -> Result<Vec<String>> {
    Ok(match notify(text)? {
        Some(w) if is_our_notify(&w, is_our_program) => match w.iter().position(|x| x == "--chain")
        {
            Some(i) => w[i + 1..].to_vec(),
            None => Vec::new(),
        },
        Some(w) => w,
        None => Vec::new(),
    })
}

/// `text` with `notify` holding `words`; empty words remove the key unless
/// `original` had it so.
fn set_notify(text: &str, words: &[String], original: Option<&str>) -> Result<String> {
    let doc = parse(text)?;
    let current = notify_in(doc.as_table())?;
    if current.as_deref() == Some(words) || (current.is_none() && words.is_empty()) {
        return Ok(text.to_owned());
    }
    let own = original.and_then(|o| raw_value(o, &["notify"]).filter(|(_, w)| w == words));
    let value = match (own, words.is_empty()) {
        (Some((raw, _)), _) => Some(raw),
        (None, true) => None,
        (None, false) => Some(render(words)),
    };
    let out = match (entry(text, doc.as_table(), &["notify"])?, value) {
        (Some(e), Some(v)) => splice(text, e.value.clone(), &v),
        (Some(e), None) => remove(text, &e),
        (None, Some(v)) => insert_line(text, root_insertion(text, doc.as_table()), "notify", &v),
        (None, None) => text.to_owned(),
    };
    let back = notify(&out).map_err(|_| CodexConfigError::EditDidNotReadBack)?;
    if back.as_deref().unwrap_or_default() != words {
        return Err(CodexConfigError::EditDidNotReadBack);
    }
    Ok(out)
}

/// `["a", "b"]`, each word as a TOML string.
fn render(words: &[String]) -> String {
    let mut a = toml_edit::Array::new();
    for w in words {
        a.push(w.as_str());
    }
    Value::Array(a).to_string()
}

/// The text of the value at `path` in `text`, with its words when it is
/// `notify`'s list.
fn raw_value(text: &str, path: &[&str]) -> Option<(String, Vec<String>)> {
    let doc = parse(text).ok()?;
    let e = entry(text, doc.as_table(), path).ok()??;
    let words = notify_in(doc.as_table()).ok().flatten().unwrap_or_default();
    Some((text.get(e.value)?.to_owned(), words))
}

/// Whether `text` turns Codex's shared app-server daemon off
/// (`[features] daemon_auto_start = false`), so each window runs its own
/// sessions.
pub fn per_window(text: &str) -> bool {
    parse(text).is_ok_and(|doc| {
        doc.get("features")
            .and_then(|f| f.get(DAEMON_KEY))
            .and_then(Item::as_bool)
            == Some(false)
    })
}

/// `text` with `[features] daemon_auto_start = false`.
pub fn set_per_window(text: &str) -> Result<String> {
    let out = set_daemon(text, "false")?;
    if !per_window(&out) {
        return Err(CodexConfigError::EditDidNotReadBack);
    }
    Ok(out)
}

/// `text` with `daemon_auto_start` as `original` (the file before install)
/// had it: its value text, or no key. Byte for byte the original when
/// nothing else differs.
pub fn unset_per_window(text: &str, original: Option<&str>) -> Result<String> {
    let path = ["features", DAEMON_KEY];
    let doc = parse(text)?;
    let own = original
        .and_then(|o| raw_value(o, &path))
        .map(|(raw, _)| raw);
    let out = match (entry(text, doc.as_table(), &path)?, own) {
        (Some(e), Some(raw)) => splice(text, e.value.clone(), &raw),
        (Some(e), None) => remove(text, &e),
        (None, Some(raw)) => set_daemon(text, &raw)?,
        (None, None) => return Ok(text.to_owned()),
    };
    parse(&out).map_err(|_| CodexConfigError::EditDidNotReadBack)?;
    Ok(out)
}

/// `text` with `features.daemon_auto_start` holding `value` (TOML text).
fn set_daemon(text: &str, value: &str) -> Result<String> {
    let doc = parse(text)?;
    let root = doc.as_table();
    if let Some(e) = entry(text, root, &["features", DAEMON_KEY])? {
        return Ok(splice(text, e.value, value));
    }
    let dotted = format!("features.{DAEMON_KEY}");
    let out = match root.get("features") {
        None => insert_line(text, root_insertion(text, root), &dotted, value),
        Some(Item::Table(t)) if t.is_dotted() || t.is_implicit() => {
            insert_line(text, root_insertion(text, root), &dotted, value)
        }
        Some(Item::Table(t)) => {
            let header = t.span().ok_or(CodexConfigError::FeaturesNotATable)?;
            insert_line(text, line_end(text, header.end), DAEMON_KEY, value)
        }
        Some(Item::Value(Value::InlineTable(t))) => {
            let span = t.span().ok_or(CodexConfigError::FeaturesNotATable)?;
            match entries(t).last() {
                Some(last) => splice_at(text, last.end, &format!(", {DAEMON_KEY} = {value}")),
                None => splice_at(text, span.start + 1, &format!("{DAEMON_KEY} = {value}")),
            }
        }
        Some(_) => return Err(CodexConfigError::FeaturesNotATable),
    };
    parse(&out).map_err(|_| CodexConfigError::EditDidNotReadBack)?;
    Ok(out)
}

/// Where an entry of ours sits.
#[derive(Debug)]
struct Entry {
    /// The start of its (first) key.
    key: usize,
    /// Its value's bytes.
    value: Range<usize>,
    /// In an inline table: the end of the entry before it and the start of
    /// the one after it.
    inline: Option<(Option<usize>, Option<usize>)>,
}

/// The entry at `path` (a root key, or `features.<key>`), if present as a
/// value. A dotted root line `features.key = …` starts at `features`.
fn entry(text: &str, root: &Table, path: &[&str]) -> Result<Option<Entry>> {
    let (&last, parents) = path.split_last().unwrap_or((&"", &[]));
    let Some(&parent) = parents.first() else {
        return line_entry(text, root, last);
    };
    match root.get(parent) {
        None => Ok(None),
        Some(Item::Table(t)) => line_entry(text, t, last),
        Some(Item::Value(Value::InlineTable(t))) => {
            let Some(v) = t.get(last) else {
                return Ok(None);
            };
            if matches!(v, Value::InlineTable(_)) {
                return Err(CodexConfigError::DaemonNotAValue);
            }
            let (Some(key), Some(value)) = (t.key(last).and_then(toml_edit::Key::span), v.span())
            else {
                return Err(CodexConfigError::EditDidNotReadBack);
            };
            let spans = entries(t);
            let order = spans.iter().position(|s| s.start == key.start).unwrap_or(0);
            let prev = order
                .checked_sub(1)
                .and_then(|p| spans.get(p))
                .map(|s| s.end);
            let next = spans.get(order + 1).map(|s| s.start);
            Ok(Some(Entry {
                key: key.start,
                value,
                inline: Some((prev, next)),
            }))
        }
        Some(_) => Err(CodexConfigError::FeaturesNotATable),
    }
}

/// A key of `table` holding a value, written on its own line.
fn line_entry(text: &str, table: &Table, key: &str) -> Result<Option<Entry>> {
    match table.get(key) {
        None => Ok(None),
        Some(Item::Value(v)) => {
            let value = v.span().ok_or(CodexConfigError::EditDidNotReadBack)?;
            let leaf = table
                .key(key)
                .and_then(toml_edit::Key::span)
                .ok_or(CodexConfigError::EditDidNotReadBack)?;
            Ok(Some(Entry {
                key: line_start(text, leaf.start),
                value,
                inline: None,
            }))
        }
        Some(_) => Err(if key == "notify" {
            CodexConfigError::NotifyNotAList
        } else {
            CodexConfigError::DaemonNotAValue
        }),
    }
}

/// The byte ranges of an inline table's entries (first key to value end),
/// in text order.
fn entries(t: &InlineTable) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = t
        .iter()
        .filter_map(|(k, v)| Some(t.key(k)?.span()?.start..value_end(v)?))
        .collect();
    out.sort_by_key(|r| r.start);
    out
}

/// The end of a value; a dotted inline table ends with its last value.
fn value_end(v: &Value) -> Option<usize> {
    match v {
        Value::InlineTable(t) if t.is_dotted() => t.iter().filter_map(|(_, v)| value_end(v)).max(),
        other => other.span().map(|s| s.end),
    }
}

/// The end of the root section's last entry's line: where a root line
/// goes. The top of the file (after a BOM) when the root has no entry.
fn root_insertion(text: &str, root: &Table) -> usize {
    fn last_end(t: &Table) -> Option<usize> {
        t.iter()
            .filter_map(|(_, item)| match item {
                Item::Value(v) => value_end(v),
                Item::Table(s) if s.is_dotted() => last_end(s),
                Item::Table(_) | Item::ArrayOfTables(_) | Item::None => None,
            })
            .max()
    }
    match last_end(root) {
        Some(end) => line_end(text, end),
        None => bom_len(text),
    }
}

fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    }
}

/// Just past the line ending of the line holding `at`, or the end of text.
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// The start of the line holding `at` (after a BOM on the first line).
fn line_start(text: &str, at: usize) -> usize {
    text[..at]
        .rfind('\n')
        .map_or_else(|| bom_len(text), |i| i + 1)
}

/// The line ending to write at `at`: the one of the line before, else the
/// file's first, else `\n`.
fn eol_at(text: &str, at: usize) -> &'static str {
    let before = &text[..at];
    if before.ends_with("\r\n") {
        return "\r\n";
    }
    if before.ends_with('\n') {
        return "\n";
    }
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        Some(_) | None => "\n",
    }
}

/// Inserts the line `key = value` at line start `at`; at the end of a file
/// without a final newline, as a line ending and the line.
fn insert_line(text: &str, at: usize, key: &str, value: &str) -> String {
    let eol = eol_at(text, at);
    let line = if at == text.len() && at > bom_len(text) && !text.ends_with('\n') {
        format!("{eol}{key} = {value}")
    } else {
        format!("{key} = {value}{eol}")
    };
    splice_at(text, at, &line)
}

/// Takes out an entry of ours: the inverse of [`insert_line`] and of the
/// inline insertion in [`set_daemon`].
fn remove(text: &str, e: &Entry) -> String {
    if let Some((prev, next)) = e.inline {
        let range = match (prev, next) {
            (Some(p), _) => p..e.value.end,
            (None, Some(n)) => e.key..n,
            (None, None) => e.key..e.value.end,
        };
        return splice(text, range, "");
    }
    let rest = &text[e.value.end..];
    let line_rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
    if !line_rest.trim_matches([' ', '\t', '\r']).is_empty() {
        // A comment the user added after the value stays.
        return splice(text, e.key..e.value.end, "");
    }
    let end = e.value.end + line_rest.len();
    if end < text.len() {
        return splice(text, e.key..end + 1, "");
    }
    // The last line, with no line ending after it: the one before goes.
    let start = if e.key > bom_len(text) {
        e.key - eol_at(text, e.key).len()
    } else {
        e.key
    };
    splice(text, start..end, "")
}

fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

fn splice_at(text: &str, at: usize, with: &str) -> String {
    splice(text, at..at, with)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    const PROG: &str = "/opt/bin/agent-resume";

    fn ours(word: &str) -> bool {
        word == PROG || word.rsplit('/').next() == Some("agent-resume")
    }

    /// What `install-hooks codex [--per-window]` then `uninstall-hooks
    /// codex` do to the text, with the backup; returns the installed text.
    fn round_trip(original: &str, window: bool) -> String {
        let mut installed = install_notify(original, PROG, &ours).expect("installs");
        let set = window && !per_window(original);
        if set {
            installed = set_per_window(&installed).expect("per window");
        }
        let read: toml::Table = installed
            .trim_start_matches('\u{feff}')
            .parse()
            .unwrap_or_else(|e| panic!("{e}\n{installed:?}"));
        let words: Vec<&str> = read["notify"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert_eq!(words[..3], [PROG, "hook", "codex"], "{installed:?}");
        if window {
            assert_eq!(
                read["features"][DAEMON_KEY].as_bool(),
                Some(false),
                "{installed:?}"
            );
        }
        assert_eq!(
            install_notify(&installed, PROG, &ours).unwrap(),
            installed,
            "install is idempotent"
        );
        let mut back = uninstall_notify(&installed, &ours, Some(original)).expect("uninstalls");
        if set {
            back = unset_per_window(&back, Some(original)).expect("restores");
        }
        assert_eq!(back, original, "installed:\n{installed:?}");
        installed
    }

    #[test]
    fn crlf_a_bom_and_a_features_sub_table_come_back_byte_for_byte() {
        let original = "\u{feff}# mine\r\nmodel = \"o3\"\r\n\r\n[features.sub]\r\nx = 1 # keep\r\n";
        let installed = round_trip(original, true);
        assert!(installed.starts_with('\u{feff}'), "{installed:?}");
        assert!(
            !installed.replace("\r\n", "").contains('\n'),
            "{installed:?}"
        );
        assert!(
            installed.contains("\r\nfeatures.daemon_auto_start = false\r\n"),
            "{installed:?}"
        );
        assert!(!installed.contains("[features]"), "{installed:?}");
    }

    #[test]
    fn each_shape_of_features_and_notify_comes_back_byte_for_byte() {
        for original in [
            "",
            "\u{feff}",
            "model = \"o3\"",
            "model = \"o3\" # no final newline",
            "# only a comment",
            "[profiles.fast]\nmodel = \"x\"",
            "notify = [ \"notify-send\",\"-u\", \"low\" ] # mine\n",
            "notify = [\r\n  'a',\r\n]\r\n[t]\r\n",
            "notify = []\n",
            "[features]\nweb_search = true # keep\n",
            "[features]",
            "[ features ] # c\r\n\r\n[features.sub]\r\n",
            "[features.sub]\n[features]\nx = 1\n",
            "features.web_search = true\n[features.sub]\nx = 1\n",
            "[features]\ndaemon_auto_start = true  # mine\n\n[tui]\nx = 1\n",
            "features.daemon_auto_start = true\n",
            "features = { web_search = true }\n",
            "features = { daemon_auto_start = true, a = 1 }\n",
            "features = {}\n",
            "features = { }",
            "[[features.list]]\na = 1\n",
            "[[profiles]]\na = 1\n[profiles.q]\nb = 1\n[[profiles]]\n",
        ] {
            for window in [false, true] {
                round_trip(original, window);
            }
        }
    }

    #[test]
    fn uninstall_keeps_what_the_user_changed_meanwhile() {
        let original =
            "model = \"o3\"\r\nnotify = [\"notify-send\"]\r\n\r\n[features.sub]\r\nx = 1\r\n";
        let installed = set_per_window(&install_notify(original, PROG, &ours).unwrap()).unwrap();
        let edited = installed.replace("\"o3\"", "\"o4\"") + "[tui]\r\ny = 2\r\n";
        let back = uninstall_notify(&edited, &ours, Some(original)).unwrap();
        let back = unset_per_window(&back, Some(original)).unwrap();
        assert_eq!(
            back,
            "model = \"o4\"\r\nnotify = [\"notify-send\"]\r\n\r\n[features.sub]\r\nx = 1\r\n[tui]\r\ny = 2\r\n"
        );
        // Without the backup the notifier and the daemon come back by
        // meaning.
        let back = uninstall_notify(&installed, &ours, None).unwrap();
        let back = unset_per_window(&back, None).unwrap();
        assert_eq!(back, original);
    }

    #[test]
    fn files_codex_config_cannot_take_are_refused() {
        let install = |t: &str| install_notify(t, PROG, &ours).err();
        assert_eq!(install("a = "), Some(CodexConfigError::NotToml));
        assert_eq!(
            install("notify = 3\n"),
            Some(CodexConfigError::NotifyNotAList)
        );
        assert_eq!(
            install("[notify]\n"),
            Some(CodexConfigError::NotifyNotAList)
        );
        let window = |t: &str| set_per_window(t).err();
        assert_eq!(
            window("features = 3\n"),
            Some(CodexConfigError::FeaturesNotATable)
        );
        assert_eq!(
            window("[[features]]\n"),
            Some(CodexConfigError::FeaturesNotATable)
        );
        assert_eq!(
            window("[features.daemon_auto_start]\n"),
            Some(CodexConfigError::DaemonNotAValue)
        );
        assert!(per_window("[features]\ndaemon_auto_start = false\n"));
        assert!(per_window("features.daemon_auto_start = false\n"));
    }

    /// One line ending, LF or CRLF.
    fn eol() -> impl Strategy<Value = &'static str> {
        prop_oneof![Just("\n"), Just("\r\n")]
    }

    /// Root lines other than ours: comments, blanks, keys, dotted keys,
    /// multi-line arrays and strings.
    fn root_line(i: usize) -> impl Strategy<Value = Vec<String>> {
        prop_oneof![
            Just(vec!["# a note".to_owned()]),
            Just(vec![String::new()]),
            Just(vec![format!("k{i} = \"v\"  # trailing")]),
            Just(vec![format!("d{i}.x.y = 1")]),
            Just(vec![
                format!("a{i} = ["),
                "  1, # one".into(),
                "  2,".into(),
                "]".into()
            ]),
            Just(vec![
                format!("s{i} = \"\"\""),
                "two".into(),
                "lines\"\"\"".into()
            ]),
        ]
    }

    /// How the user's file holds `features`.
    #[derive(Clone, Copy, Debug)]
    enum Features {
        Absent,
        Header(Option<bool>),
        Dotted(Option<bool>),
        Inline(Option<bool>),
    }

    fn features() -> impl Strategy<Value = Features> {
        let value = prop::option::of(any::<bool>());
        prop_oneof![
            Just(Features::Absent),
            value.clone().prop_map(Features::Header),
            value.clone().prop_map(Features::Dotted),
            value.prop_map(Features::Inline),
        ]
    }

    fn notify_line() -> impl Strategy<Value = Option<Vec<String>>> {
        prop::option::of(prop_oneof![
            Just(vec![
                "notify = [\"notify-send\", \"done\"] # mine".to_owned()
            ]),
            Just(vec!["notify=['a']".to_owned()]),
            Just(vec!["notify = [".to_owned(), "  \"x\",".into(), "]".into()]),
            Just(vec!["notify = []".to_owned()]),
        ])
    }

    /// Config files: a BOM or not, each line ending LF or CRLF, root lines
    /// in any order, `features` in each form with or without
    /// `[features.sub]` before or after, arrays of tables, a final newline
    /// or not.
    fn document() -> impl Strategy<Value = String> {
        (
            any::<bool>(),
            prop::collection::vec((0..6usize).prop_flat_map(root_line), 0..5),
            notify_line(),
            any::<prop::sample::Index>(),
            features(),
            (any::<bool>(), any::<bool>(), any::<bool>()),
            prop::collection::vec(eol(), 64),
            any::<bool>(),
        )
            .prop_map(
                |(bom, mut root, notify, at, features, (sub, sub_first, aot), eols, last)| {
                    let mut root: Vec<Vec<String>> = std::mem::take(&mut root);
                    if let Some(n) = notify {
                        root.insert(at.index(root.len() + 1), n);
                    }
                    let daemon =
                        |v: Option<bool>, pre: &str| v.map(|b| format!("{pre}{DAEMON_KEY} = {b}"));
                    let mut tables: Vec<Vec<String>> = Vec::new();
                    match features {
                        Features::Absent => {}
                        Features::Header(v) => tables.push(
                            ["[features]".to_owned(), "web_search = true".into()]
                                .into_iter()
                                .chain(daemon(v, ""))
                                .collect(),
                        ),
                        Features::Dotted(v) => root.push(
                            ["features.web_search = true".to_owned()]
                                .into_iter()
                                .chain(daemon(v, "features."))
                                .collect(),
                        ),
                        Features::Inline(v) => root.push(vec![match v {
                            Some(b) => format!("features = {{ {DAEMON_KEY} = {b}, x = 1 }}"),
                            None => "features = { x = 1 }".to_owned(),
                        }]),
                    }
                    if sub && !matches!(features, Features::Inline(_)) {
                        let t = vec!["[features.sub]".to_owned(), "x = 1 # keep".into()];
                        if sub_first {
                            tables.insert(0, t);
                        } else {
                            tables.push(t);
                        }
                    }
                    if aot {
                        tables.push(vec!["[[profiles]]".into(), "a = 1".into()]);
                        tables.push(vec!["[profiles.fast]".into(), "m = \"x\"".into()]);
                        tables.push(vec!["[[profiles]]".into()]);
                    }
                    let lines: Vec<String> = root.into_iter().chain(tables).flatten().collect();
                    let mut out = String::from(if bom { "\u{feff}" } else { "" });
                    for (i, l) in lines.iter().enumerate() {
                        out.push_str(l);
                        if i + 1 < lines.len() || last {
                            out.push_str(eols[i % eols.len()]);
                        }
                    }
                    out
                },
            )
    }

    proptest! {
        #[test]
        fn install_then_uninstall_gives_back_the_original_bytes(
            doc in document(),
            window in any::<bool>(),
        ) {
            prop_assume!(parse(&doc).is_ok());
            round_trip(&doc, window);
        }
    }
}
