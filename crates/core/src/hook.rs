//! Native signals: each agent's own hook, notify and headless-output
//! payloads, parsed for the session id the agent itself reported.
//!
//! Where each agent puts the id is catalog data (`payload` in
//! `agents.toml`): the keys to read and which payloads are headless output,
//! or the name of a payload family parsed here by its own code (Codex,
//! OpenCode, Pi). One parser per family, fed by fixtures shaped as the agents
//! document them (`docs/capture.md`). Payloads are untrusted: over the size
//! cap, malformed, without an id, or with an id failing the agent's shape,
//! they are refused with a typed error and nothing is written. Only the id,
//! the event name and the directory are read; prompts, replies, summaries
//! and tool data in the same payload are skipped by the deserializer without
//! being kept.

use std::borrow::Cow;
use std::path::PathBuf;

use serde::Deserialize;
use thiserror::Error;

use crate::catalog::{Catalog, PayloadHeadless, PayloadKey, PayloadShape};
use crate::AgentKind;

/// The largest payload read (Claude's tool events can carry large outputs;
/// the id is in every event, so skipping an oversized one loses nothing).
pub const MAX_PAYLOAD: usize = 1 << 20;

/// Why a payload yielded no id.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum PayloadError {
    /// Larger than [`MAX_PAYLOAD`].
    #[error("payload is larger than the cap")]
    TooLarge,
    /// Empty input.
    #[error("payload is empty")]
    Empty,
    /// Not a JSON object, or fields of the wrong type.
    #[error("payload is not a well-formed JSON object")]
    Malformed,
    /// No session id where this agent puts it.
    #[error("payload carries no session id")]
    NoSessionId,
    /// The id fails the agent's id shape.
    #[error("payload session id fails its shape")]
    InvalidSessionId,
    /// A child (sub-agent) session, which is not the pane's conversation.
    #[error("payload is about a child session")]
    ChildSession,
}

/// The hook event, where the payload names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookEvent {
    /// A session started (startup, resume, clear, compact, fork).
    SessionStart,
    /// A session ended.
    SessionEnd,
    /// Any other event (tool use, prompt, stop, notify, …).
    Other,
}

/// What a payload reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reported {
    /// The id, which passed the agent's shape.
    pub session_id: String,
    /// The event.
    pub event: HookEvent,
    /// The directory the payload names, when absolute.
    pub cwd: Option<PathBuf>,
    /// The payload is a headless run's output, not a live interactive hook.
    pub headless: bool,
}

type Text<'a> = Option<Cow<'a, str>>;

#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow, default)]
    session_id: Text<'a>,
    #[serde(borrow, default, rename = "sessionId")]
    session_id_camel: Text<'a>,
    #[serde(borrow, default, rename = "sessionID")]
    session_id_upper: Text<'a>,
    #[serde(borrow, default, rename = "thread-id")]
    thread_id_dash: Text<'a>,
    #[serde(borrow, default)]
    thread_id: Text<'a>,
    #[serde(borrow, default)]
    conversation_id: Text<'a>,
    #[serde(borrow, default)]
    id: Text<'a>,
    #[serde(borrow, default, rename = "type")]
    kind: Text<'a>,
    #[serde(borrow, default)]
    hook_event_name: Text<'a>,
    #[serde(borrow, default, rename = "hookEventName")]
    hook_event_name_camel: Text<'a>,
    #[serde(borrow, default)]
    client: Text<'a>,
    #[serde(borrow, default)]
    cwd: Text<'a>,
    #[serde(borrow, default)]
    properties: Option<Props<'a>>,
}

#[derive(Deserialize)]
struct Props<'a> {
    #[serde(borrow, default, rename = "sessionID")]
    session_id: Text<'a>,
    #[serde(borrow, default)]
    info: Option<Info<'a>>,
}

#[derive(Deserialize)]
struct Info<'a> {
    #[serde(borrow, default)]
    id: Text<'a>,
    #[serde(borrow, default)]
    directory: Text<'a>,
    #[serde(borrow, default, rename = "parentID")]
    parent_id: Text<'a>,
}

fn event_of(name: Option<&str>) -> HookEvent {
    match name {
        Some("SessionStart" | "session_start" | "sessionStart") => HookEvent::SessionStart,
        Some("SessionEnd" | "session_end" | "sessionEnd") => HookEvent::SessionEnd,
        _ => HookEvent::Other,
    }
}

fn absolute(p: Option<&str>) -> Option<PathBuf> {
    p.filter(|p| p.starts_with('/')).map(PathBuf::from)
}

/// Parses one payload of `agent`.
pub fn parse(agent: AgentKind, payload: &[u8]) -> Result<Reported, PayloadError> {
    if payload.len() > MAX_PAYLOAD {
        return Err(PayloadError::TooLarge);
    }
    if payload.iter().all(u8::is_ascii_whitespace) {
        return Err(PayloadError::Empty);
    }
    let mut raw: Raw<'_> = serde_json::from_slice(payload).map_err(|_| PayloadError::Malformed)?;
    let kind = raw.kind.take();
    let kind = kind.as_deref();
    let hook_name = raw
        .hook_event_name
        .take()
        .or(raw.hook_event_name_camel.take());
    let hook_name = hook_name.as_deref();
    let mut cwd = absolute(raw.cwd.as_deref());
    let decl = Catalog::embedded().agent(agent);
    // (id, headless), from where the catalog says this agent puts it.
    let (id, headless): (Text<'_>, bool) = match &decl.payload {
        PayloadShape::Fields { ids, headless } => {
            let mut id = None;
            for key in ids {
                id = id.or(match key {
                    PayloadKey::SessionId => raw.session_id.take(),
                    PayloadKey::SessionIdCamel => raw.session_id_camel.take(),
                    PayloadKey::ConversationId => raw.conversation_id.take(),
                });
            }
            // Hooks name their event; print-mode output has a `type`
            // (`result`, `system`, `init`) and no event name.
            let headless = match headless {
                PayloadHeadless::TypedWithoutEvent => hook_name.is_none() && kind.is_some(),
                PayloadHeadless::WithoutEvent => hook_name.is_none(),
                PayloadHeadless::Never => false,
            };
            (id, headless)
        }
        PayloadShape::Codex => match kind {
            Some("agent-turn-complete") => {
                let headless = raw.client.as_deref().is_some_and(|c| c.contains("exec"));
                (raw.thread_id_dash, headless)
            }
            Some("thread.started") => (raw.thread_id, true),
            _ => (raw.session_id, false),
        },
        PayloadShape::Opencode => match (kind, raw.properties) {
            (
                Some("session.created" | "session.updated"),
                Some(Props {
                    info: Some(info), ..
                }),
            ) => {
                if info.parent_id.is_some() {
                    return Err(PayloadError::ChildSession);
                }
                cwd = absolute(info.directory.as_deref()).or(cwd);
                (info.id, false)
            }
            (
                Some(_),
                Some(Props {
                    session_id: Some(id),
                    ..
                }),
            ) => (Some(id), false),
            // `run --format json` lines carry a top-level `sessionID`.
            _ => (raw.session_id_upper, true),
        },
        PayloadShape::Pi => match kind {
            Some("session") => (raw.id, true),
            _ => (None, false),
        },
    };
    let id = id.ok_or(PayloadError::NoSessionId)?;
    if !decl.id_shape.matches(&id) {
        return Err(PayloadError::InvalidSessionId);
    }
    Ok(Reported {
        session_id: id.into_owned(),
        event: event_of(hook_name),
        cwd,
        headless,
    })
}

/// The session id a headless run reported in its JSON output: one JSON
/// document (`claude -p --output-format json`, `gemini -o json`, `grok
/// --output-format json`) or JSON lines (`codex exec --json`, `opencode run
/// --format json`, `pi --mode json`, stream-json). The first line (or the
/// whole document) that yields an id of the agent's shape wins; lines that
/// are not JSON (progress text) are skipped. An id failing its shape is
/// never skipped over in favour of a later one: it refuses the output.
pub fn headless_output(agent: AgentKind, output: &[u8]) -> Result<String, PayloadError> {
    let mut last = PayloadError::Empty;
    let whole = std::iter::once(output).filter(|o| o.len() <= MAX_PAYLOAD);
    for chunk in whole.chain(output.split(|b| *b == b'\n')) {
        match parse(agent, chunk) {
            Ok(r) => return Ok(r.session_id),
            Err(PayloadError::InvalidSessionId) => return Err(PayloadError::InvalidSessionId),
            Err(PayloadError::ChildSession) => last = PayloadError::ChildSession,
            Err(PayloadError::Empty) => {}
            Err(e) => {
                if last != PayloadError::ChildSession {
                    last = e;
                }
            }
        }
    }
    Err(match last {
        PayloadError::Empty | PayloadError::TooLarge => PayloadError::NoSessionId,
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const U4: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
    const U7: &str = "01a22abf-a931-72c2-b857-4949dadb1b99";

    fn ok(agent: AgentKind, payload: &str) -> Reported {
        parse(agent, payload.as_bytes()).unwrap_or_else(|e| panic!("{payload}: {e}"))
    }

    #[test]
    fn claude_session_start_hook() {
        let p = format!(
            r#"{{"session_id":"{U4}","transcript_path":"/Users/me/.claude/projects/-Users-me-proj/{U4}.jsonl",
               "cwd":"/Users/me/proj","hook_event_name":"SessionStart","source":"startup","model":"claude-sonnet-4-6"}}"#
        );
        let r = ok(AgentKind::Claude, &p);
        assert_eq!(
            (r.session_id.as_str(), r.event, r.headless),
            (U4, HookEvent::SessionStart, false)
        );
        assert_eq!(r.cwd, Some(PathBuf::from("/Users/me/proj")));
    }

    #[test]
    fn claude_print_mode_result_is_headless() {
        let p = format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"result":"hi","session_id":"{U4}"}}"#
        );
        assert!(ok(AgentKind::Claude, &p).headless);
    }

    #[test]
    fn codex_notify_hook_and_exec_json() {
        let notify = format!(
            r#"{{"type":"agent-turn-complete","thread-id":"{U7}","turn-id":"12345","cwd":"/Users/example/project",
               "client":"codex-tui","input-messages":["Rename `foo`"],"last-assistant-message":"done"}}"#
        );
        let r = ok(AgentKind::Codex, &notify);
        assert_eq!((r.session_id.as_str(), r.headless), (U7, false));
        let hook = format!(
            r#"{{"cwd":"/p","hook_event_name":"SessionStart","model":"gpt-5","permission_mode":"default",
               "session_id":"{U7}","source":"startup","transcript_path":null}}"#
        );
        assert_eq!(ok(AgentKind::Codex, &hook).event, HookEvent::SessionStart);
        let exec = format!(r#"{{"type":"thread.started","thread_id":"{U7}"}}"#);
        assert!(ok(AgentKind::Codex, &exec).headless);
    }

    #[test]
    fn codex_session_start_hook_as_codex_0_171_sends_it() {
        // Captured from `codex exec` 0.171.0 running a `hooks.json`
        // SessionStart command (only the home directory renamed).
        let p = r#"{"session_id":"01a23012-56b3-7110-9b08-b19de01699f8","transcript_path":"/home/me/.codex/sessions/2026/12/01/rollout-2026-12-01T05-27-17-01a23012-56b3-7110-9b08-b19de01699f8.jsonl","cwd":"/home/me/proj","hook_event_name":"SessionStart","model":"gpt-6.2-sol","permission_mode":"bypassPermissions","source":"startup"}"#;
        let r = ok(AgentKind::Codex, p);
        assert_eq!(r.session_id, "01a23012-56b3-7110-9b08-b19de01699f8");
        assert_eq!((r.event, r.headless), (HookEvent::SessionStart, false));
        assert_eq!(r.cwd, Some(PathBuf::from("/home/me/proj")));
    }

    #[test]
    fn grok_uses_camel_case_session_id() {
        let p = format!(
            r#"{{"hookEventName":"pre_tool_use","hook_event_name":"PreToolUse","sessionId":"{U7}","cwd":"/Users/you/project",
               "workspaceRoot":"/Users/you/project","permissionMode":"default","toolName":"run_terminal_command",
               "toolInput":{{"command":"npm test"}},"timestamp":"2026-04-14T12:00:00Z"}}"#
        );
        assert_eq!(ok(AgentKind::Grok, &p).session_id, U7);
        let snake = format!(r#"{{"hook_event_name":"PreToolUse","session_id":"{U7}"}}"#);
        assert_eq!(
            parse(AgentKind::Grok, snake.as_bytes()),
            Err(PayloadError::NoSessionId)
        );
    }

    #[test]
    fn copilot_accepts_camel_and_snake() {
        let camel = format!(
            r#"{{"sessionId":"{U4}","timestamp":1700000000000,"cwd":"/p","source":"new","initialPrompt":"x"}}"#
        );
        let snake = format!(r#"{{"hook_event_name":"SessionStart","session_id":"{U4}"}}"#);
        assert_eq!(ok(AgentKind::Copilot, &camel).session_id, U4);
        assert_eq!(ok(AgentKind::Copilot, &snake).session_id, U4);
    }

    #[test]
    fn opencode_plugin_events() {
        let id = "ses_0b5cefde2ffeXhHuHeWoYLX8iP";
        let created = format!(
            r#"{{"type":"session.created","properties":{{"info":{{"id":"{id}","projectID":"p","directory":"/w"}}}}}}"#
        );
        let r = ok(AgentKind::Opencode, &created);
        assert_eq!(
            (r.session_id.as_str(), r.cwd.as_deref()),
            (id, Some(std::path::Path::new("/w")))
        );
        let idle = format!(r#"{{"type":"session.idle","properties":{{"sessionID":"{id}"}}}}"#);
        assert_eq!(ok(AgentKind::Opencode, &idle).session_id, id);
        let child = format!(
            r#"{{"type":"session.created","properties":{{"info":{{"id":"{id}","parentID":"ses_x"}}}}}}"#
        );
        assert_eq!(
            parse(AgentKind::Opencode, child.as_bytes()),
            Err(PayloadError::ChildSession)
        );
        let run = format!(
            r#"{{"type":"step_start","timestamp":1766204176981,"sessionID":"{id}","part":{{}}}}"#
        );
        assert!(ok(AgentKind::Opencode, &run).headless);
    }

    #[test]
    fn pi_json_header_is_headless() {
        let p =
            format!(r#"{{"type":"session","version":3,"id":"{U7}","timestamp":"t","cwd":"/p"}}"#);
        let r = ok(AgentKind::Pi, &p);
        assert!(r.headless);
        assert_eq!(r.session_id, U7);
    }

    #[test]
    fn gemini_qwen_droid_hooks() {
        for agent in [AgentKind::Gemini, AgentKind::Qwen, AgentKind::Droid] {
            let p = format!(
                r#"{{"session_id":"{U4}","transcript_path":"/t","cwd":"/c","hook_event_name":"BeforeTool","timestamp":"t"}}"#
            );
            assert_eq!(ok(agent, &p).session_id, U4);
        }
    }

    #[test]
    fn bad_payloads_are_refused_with_a_typed_error() {
        let c = AgentKind::Claude;
        assert_eq!(parse(c, b""), Err(PayloadError::Empty));
        assert_eq!(parse(c, b"  \n"), Err(PayloadError::Empty));
        assert_eq!(parse(c, b"not json"), Err(PayloadError::Malformed));
        assert_eq!(parse(c, b"[1,2]"), Err(PayloadError::Malformed));
        assert_eq!(parse(c, b"\xff\xfe{"), Err(PayloadError::Malformed));
        assert_eq!(
            parse(c, br#"{"session_id": 7}"#),
            Err(PayloadError::Malformed)
        );
        assert_eq!(
            parse(c, br#"{"hook_event_name":"Stop"}"#),
            Err(PayloadError::NoSessionId)
        );
        assert_eq!(
            parse(c, br#"{"session_id":"$(reboot)"}"#),
            Err(PayloadError::InvalidSessionId)
        );
        assert_eq!(
            parse(
                c,
                br#"{"session_id":"abc123","hook_event_name":"SessionStart"}"#
            ),
            Err(PayloadError::InvalidSessionId)
        );
        let huge = format!(
            r#"{{"session_id":"{U4}","pad":"{}"}}"#,
            "x".repeat(MAX_PAYLOAD)
        );
        assert_eq!(parse(c, huge.as_bytes()), Err(PayloadError::TooLarge));
    }

    #[test]
    fn payload_text_fields_never_reach_the_report() {
        let mark = "SECRETMARK";
        let p = format!(
            r#"{{"type":"agent-turn-complete","thread-id":"{U7}","cwd":"/p","client":"codex-tui",
               "input-messages":["{mark}"],"last-assistant-message":"{mark}","summary":"{mark}","draft":"{mark}"}}"#
        );
        let Reported {
            session_id,
            event,
            cwd,
            headless,
        } = ok(AgentKind::Codex, &p);
        let text = format!("{session_id}{event:?}{cwd:?}{headless}");
        assert!(!text.contains(mark));
    }
}
