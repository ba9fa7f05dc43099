//! Exit-hint scraping: the resume command an agent prints when it exits,
//! read back from the pane's retained text.
//!
//! A fallback id source, but the highest-precedence one within a run: it is
//! the agent's own last word on which conversation the pane held. The text
//! is stripped of ANSI sequences; the last well-formed hint wins; only ids
//! that pass the agent's shape are returned. Codex prints its hint on two
//! lines (`To continue this session, run:` / `  codex resume <id>`), and a
//! narrow terminal may wrap the id itself onto the next line: a line is also
//! tried joined with the next one.

use crate::catalog::{AgentDecl, Catalog, ResumeShape};
use crate::AgentKind;

/// The largest text scanned (from the end): hints are printed last.
pub const MAX_TEXT: usize = 64 * 1024;

/// Removes ANSI escape sequences (CSI, OSC, two-byte escapes) and turns CR
/// into a line break.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => match chars.next() {
                Some('[') => {
                    // CSI: parameters and intermediates, then one final byte.
                    for c in chars.by_ref() {
                        if ('\x40'..='\x7e').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') | Some('P') | Some('_') | Some('^') => {
                    // OSC/DCS/APC/PM: up to BEL or ST (ESC \).
                    while let Some(c) = chars.next() {
                        if c == '\x07' {
                            break;
                        }
                        if c == '\x1b' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn unquote(word: &str) -> &str {
    word.trim_matches(|c| c == '"' || c == '\'' || c == '`')
}

/// The id a hint on `line` names for `agent`, if any: the last resume
/// operand (or the words of the agent's own `exit_hint`) that follows one
/// of the agent's program words (launch flags may sit between them). One
/// pass over the words.
fn hint_in_line(agent: &AgentDecl, line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().map(unquote).collect();
    let spellings: Vec<&str> = match &agent.resume {
        ResumeShape::Flag { name, .. } => std::iter::once(name.as_str())
            .chain(
                agent
                    .flag(name)
                    .into_iter()
                    .flat_map(|f| f.aliases.iter().map(String::as_str)),
            )
            .collect(),
        ResumeShape::Subcommand(_) => Vec::new(),
    };
    let mut program_seen = false;
    let mut found = None;
    for (j, w) in words.iter().enumerate() {
        if !program_seen {
            let base = w.rsplit('/').next().unwrap_or(w);
            program_seen = agent.commands.iter().any(|c| c == base);
            continue;
        }
        let hint = &agent.exit_hint;
        let own = (!hint.is_empty()
            && words
                .get(j..j + hint.len())
                .is_some_and(|win| win.iter().zip(hint).all(|(a, b)| a == b)))
        .then(|| words.get(j + hint.len()).copied())
        .flatten();
        let id = own.or_else(|| match &agent.resume {
            ResumeShape::Flag { .. } => {
                if spellings.contains(w) {
                    words.get(j + 1).copied()
                } else {
                    spellings
                        .iter()
                        .find_map(|s| w.strip_prefix(s).and_then(|v| v.strip_prefix('=')))
                }
            }
            ResumeShape::Subcommand(sub) => {
                let matches = words
                    .get(j..j + sub.len())
                    .is_some_and(|win| win.iter().zip(sub).all(|(a, b)| a == b));
                if matches {
                    words.get(j + sub.len()).copied()
                } else {
                    None
                }
            }
        });
        if let Some(id) = id.map(unquote).filter(|id| agent.id_shape.matches(id)) {
            found = Some(id.to_owned());
        }
    }
    found
}

/// The last well-formed exit hint in `text`, for any verified agent.
pub fn scrape(text: &str) -> Option<(AgentKind, String)> {
    scrape_where(text, |a| a.verified)
}

/// The last well-formed exit hint of `agent` in `text`.
pub fn scrape_agent(agent: AgentKind, text: &str) -> Option<String> {
    scrape_where(text, |a| a.kind == agent).map(|(_, id)| id)
}

fn scrape_where(text: &str, want: impl Fn(&AgentDecl) -> bool) -> Option<(AgentKind, String)> {
    let mut start = text.len().saturating_sub(MAX_TEXT);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let clean = strip_ansi(&text[start..]);
    let lines: Vec<&str> = clean.lines().collect();
    let agents: Vec<&AgentDecl> = Catalog::embedded()
        .agents()
        .iter()
        .filter(|a| want(a))
        .collect();
    for i in (0..lines.len()).rev() {
        // A wrapped id: the line joined with the next one, no space.
        let joined = lines
            .get(i + 1)
            .map(|next| format!("{}{}", lines[i].trim_end(), next.trim_start()));
        for agent in &agents {
            if names_program(agent, lines[i]) {
                if let Some(id) = hint_in_line(agent, lines[i]) {
                    return Some((agent.kind, id));
                }
            }
            if let Some(j) = joined.as_deref().filter(|j| names_program(agent, j)) {
                if let Some(id) = hint_in_line(agent, j) {
                    return Some((agent.kind, id));
                }
            }
        }
    }
    None
}

/// Whether `line` holds one of the agent's program words at all: a hint
/// needs a word ending in one, so a line without any cannot hold a hint and
/// is not split into words (most lines of a pane name no agent).
fn names_program(agent: &AgentDecl, line: &str) -> bool {
    agent.commands.iter().any(|c| line.contains(c.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const U4: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
    const U7: &str = "01a22abf-a931-72c2-b857-4949dadb1b99";

    #[test]
    fn claude_hint_with_launch_flags_and_colour() {
        let text = format!("bye\n\x1b[2mResume this session with:\x1b[0m\n\x1b[2mclaude --model opus --resume {U4}\x1b[0m\n$ ");
        assert_eq!(scrape(&text), Some((AgentKind::Claude, U4.into())));
    }

    #[test]
    fn codex_two_line_hint_and_wrapped_id() {
        let text =
            format!("Token usage: total=1\nTo continue this session, run:\n  codex resume {U7}\n");
        assert_eq!(scrape(&text), Some((AgentKind::Codex, U7.into())));
        let wrapped = format!(
            "To continue this session, run:\n  codex resume {}\n{}\n",
            &U7[..20],
            &U7[20..]
        );
        assert_eq!(scrape(&wrapped), Some((AgentKind::Codex, U7.into())));
    }

    #[test]
    fn other_agents_hints() {
        let oc = "ses_0b5cefde2ffeXhHuHeWoYLX8iP";
        for (text, want) in [
            (
                format!("To resume this session: gemini --resume {U4}"),
                (AgentKind::Gemini, U4),
            ),
            (
                format!("  Session   fix it\n  Continue  opencode -s {oc}"),
                (AgentKind::Opencode, oc),
            ),
            (
                format!("To continue this session, run qwen --resume {U4}"),
                (AgentKind::Qwen, U4),
            ),
            (format!("copilot --resume={U4}"), (AgentKind::Copilot, U4)),
            (
                // Kilo 7.7.7's exit: its logo, the title and the command
                // beside it.
                format!(
                    "  ██  ██ ██🬺🬏   ██  ██   ██🬺🬏  New session - 2026-12-05T04:41:12.835Z\n  \
                     ████🬺🬏   ██   ██     ██  ██  kilo -s {oc}\n  ██  ██ ██████ 🬁🬬████ 🬁🬬██\n"
                ),
                (AgentKind::Kilo, oc),
            ),
        ] {
            assert_eq!(scrape(&text), Some((want.0, want.1.to_owned())), "{text}");
        }
    }

    #[test]
    fn an_exit_hint_that_is_not_the_resume_operand_is_read_by_its_own_words() {
        // Auggie 0.36.0 resumes with `--resume <id>` and says this on exit.
        let text = format!(
            "\u{2728} Tip: Use 'auggie session continue' or 'auggie session resume {U4}' to resume your session\nbash-5.2# "
        );
        assert_eq!(scrape(&text), Some((AgentKind::Auggie, U4.into())));
        // Its resume flag is a hint too; a bare `session continue` names none.
        let flag = format!("auggie --resume {U4}");
        assert_eq!(scrape(&flag), Some((AgentKind::Auggie, U4.into())));
        assert_eq!(scrape("Use 'auggie session continue'"), None);
        assert_eq!(scrape("auggie session resume not-an-id'"), None);
    }

    #[test]
    fn clines_exit_summary_names_its_session() {
        let id = "1796444736065_1iqet";
        let text =
            format!("  Messages  2\n  Cost      $0.00\n  Continue  cline --id {id}\nbash-5.2# ");
        assert_eq!(scrape(&text), Some((AgentKind::Cline, id.into())));
        assert_eq!(scrape("  Continue  cline --id 1796444736065_1IQET"), None);
    }

    #[test]
    fn last_well_formed_hint_wins_and_malformed_ones_are_ignored() {
        let text = format!(
            "claude --resume {U4}\nclaude --resume \"my analysis session\"\nclaude --resume {U4}b57e REPL\ncodex resume $(id)\n"
        );
        assert_eq!(scrape(&text), Some((AgentKind::Claude, U4.into())));
        let text = format!("claude --resume {U4}\ngemini --resume {U7}\n");
        assert_eq!(scrape(&text), Some((AgentKind::Gemini, U7.into())));
        assert_eq!(scrape_agent(AgentKind::Claude, &text), Some(U4.into()));
        assert_eq!(scrape("nothing here"), None);
    }

    #[test]
    fn vibes_hint_names_a_prefix_and_is_never_taken_for_an_id() {
        // Vibe 3.0.2 at exit: a prefix of the id, never the id itself.
        for text in [
            "To continue this session, run: vibe --continue\nOr: vibe --resume 65639cbd\n",
            "To continue this session, run: vibe --continue\nOr: vibe --resume 65639cbd\nbash$ ",
            "Or: vibe --resume 65639cbd\n-e55f-5c86\n",
        ] {
            assert_eq!(scrape(text), None, "{text:?}");
            assert_eq!(scrape_agent(AgentKind::Vibe, text), None, "{text:?}");
        }
    }

    #[test]
    fn unverified_agents_hints_are_not_scraped() {
        assert_eq!(scrape(&format!("cursor-agent --resume={U4}")), None);
    }

    #[test]
    fn a_long_line_of_program_words_is_scanned_in_one_pass() {
        // Quadratic once: every program word rescanned the rest of the line.
        let text = format!("{}\nclaude --resume {U4}", "claude ".repeat(9300));
        assert_eq!(scrape(&text), Some((AgentKind::Claude, U4.into())));
        let text = format!("{}claude --resume {U4}", "claude ".repeat(9300));
        assert_eq!(scrape(&text), Some((AgentKind::Claude, U4.into())));
    }
}
