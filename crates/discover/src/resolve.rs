//! Finding sessions the user names: an id prefix across agents, and the
//! fuzzy filter of `sessions QUERY`.

use crate::SessionInfo;

/// What an id prefix names.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved<'a> {
    /// Exactly one session.
    One(&'a SessionInfo),
    /// No session.
    None,
    /// Several sessions: the caller must list them, never pick one.
    Ambiguous(Vec<&'a SessionInfo>),
}

/// The sessions whose id starts with `prefix` (ASCII case-insensitively).
/// An exact id wins over longer ids it is a prefix of only when it is the
/// one exact match; an empty prefix names nothing.
pub fn resolve_prefix<'a>(sessions: &'a [SessionInfo], prefix: &str) -> Resolved<'a> {
    let prefix = prefix.trim();
    if prefix.is_empty() {
        return Resolved::None;
    }
    let starts = |s: &&SessionInfo| {
        s.id.len() >= prefix.len()
            && s.id.is_char_boundary(prefix.len())
            && s.id[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    let exact: Vec<&SessionInfo> = sessions
        .iter()
        .filter(|s| s.id.eq_ignore_ascii_case(prefix))
        .collect();
    if let [one] = exact.as_slice() {
        return Resolved::One(one);
    }
    let mut all: Vec<&SessionInfo> = sessions.iter().filter(starts).collect();
    match all.len() {
        0 => Resolved::None,
        1 => Resolved::One(all.remove(0)),
        _ => Resolved::Ambiguous(all),
    }
}

/// Whether `needle`'s characters appear in `hay` in order (case-insensitive).
fn subsequence(hay: &str, needle: &str) -> bool {
    let mut want = needle.chars().flat_map(char::to_lowercase).peekable();
    for c in hay.chars().flat_map(char::to_lowercase) {
        if want.peek() == Some(&c) {
            want.next();
        }
    }
    want.peek().is_none()
}

/// Whether every whitespace-separated term of `query` fuzzily matches
/// (its characters in order, case-insensitive) one of the session's id,
/// title, directory or first prompt. An empty query matches everything.
pub fn fuzzy_match(s: &SessionInfo, query: &str) -> bool {
    let cwd = s
        .cwd
        .as_deref()
        .map(|p| p.to_string_lossy())
        .unwrap_or_default();
    let fields = [
        s.id.as_str(),
        s.title.as_deref().unwrap_or(""),
        &cwd,
        s.first_prompt.as_deref().unwrap_or(""),
    ];
    query
        .split_whitespace()
        .all(|term| fields.iter().any(|f| subsequence(f, term)))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use agent_resume_core::{AgentKind, UnixMillis};

    use super::*;

    fn s(agent: AgentKind, id: &str) -> SessionInfo {
        SessionInfo {
            agent,
            id: id.into(),
            cwd: Some(PathBuf::from("/home/me/shop")),
            title: Some("Fix the Checkout".into()),
            first_prompt: Some("why does cart total drift".into()),
            modified: UnixMillis(0),
            started: None,
            message_count: None,
            path: PathBuf::from("/x"),
        }
    }

    #[test]
    fn a_prefix_shared_by_two_agents_is_ambiguous_never_the_first_match() {
        let v = [
            s(AgentKind::Claude, "f6066ebb-140e-4519-ab63-b9cde0b60b57"),
            s(AgentKind::Codex, "f60aaaaa-140e-7519-ab63-b9cde0b60b57"),
        ];
        assert!(matches!(resolve_prefix(&v, "f60"), Resolved::Ambiguous(c) if c.len() == 2));
        assert!(
            matches!(resolve_prefix(&v, "F6066"), Resolved::One(x) if x.agent == AgentKind::Claude)
        );
        assert_eq!(resolve_prefix(&v, "0"), Resolved::None);
        assert_eq!(resolve_prefix(&v, " "), Resolved::None);
    }

    #[test]
    fn fuzzy_terms_match_any_field_in_order() {
        let x = s(AgentKind::Claude, "f6066ebb-140e-4519-ab63-b9cde0b60b57");
        assert!(fuzzy_match(&x, "chkout"));
        assert!(fuzzy_match(&x, "shop drift"));
        assert!(fuzzy_match(&x, "F6066"));
        assert!(fuzzy_match(&x, ""));
        assert!(!fuzzy_match(&x, "tuokcehc"));
        assert!(!fuzzy_match(&x, "shop zzz"));
    }
}
