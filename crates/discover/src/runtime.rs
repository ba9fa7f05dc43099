//! Qwen Code's runtime-status sidecar: `projects/<slug>/chats/<id>.runtime.json`,
//! written by an interactive `qwen` (0.24.4) when it starts and on each
//! session swap (`/clear`), and removed when it ends:
//!
//! ```json
//! {"schema_version":1,"pid":4242,"session_id":"<id>","work_dir":"/abs/cwd",
//!  "hostname":"box","started_at":1764567000.123,"qwen_version":"0.24.4"}
//! ```
//!
//! Qwen holds its chat file open only while it writes, so a session whose
//! first prompt comes late is matched to its process only through this
//! file: its pid is the registry entry (the crate's `registry` module), as Claude's
//! `sessions/<pid>.json` is. Every file is untrusted: read through a size
//! cap ([`MAX_RUNTIME`]), and a file that is not exactly this shape, names
//! another session than its own file name, or another host, is a typed
//! [`RuntimeSkip`].
//!
//! ```
//! use agent_resume_discover::runtime::{parse_runtime, RuntimeSkip};
//!
//! let id = "8a4b3c1f-5d2e-4c6d-9e0f-1a2b3c4d5e6f";
//! let text = format!(r#"{{"schema_version":1,"pid":4242,"session_id":"{id}","hostname":"box","started_at":1.5}}"#);
//! let status = parse_runtime(text.as_bytes(), id, Some("box")).expect("reads");
//! assert_eq!((status.pid, status.session_id.as_str()), (4242, id));
//! assert_eq!(parse_runtime(text.as_bytes(), id, Some("other")), Err(RuntimeSkip::OtherHost));
//! ```

use serde_json::{Map, Value};

/// The largest sidecar read, in bytes (Qwen's is about 250).
pub const MAX_RUNTIME: u64 = 16 * 1024;

/// The file name's ending after the session id.
pub const SUFFIX: &str = ".runtime.json";

/// The schema version Qwen 0.24.4 writes and reads.
const SCHEMA: i64 = 1;

/// A sidecar that passed: this pid runs this session.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeStatus {
    /// The qwen process (its re-launched `node` child).
    pub pid: u32,
    /// The session, as the file names it (equal to its file name's id).
    pub session_id: String,
    /// When it started (Unix seconds), when it says.
    pub started_at: Option<f64>,
}

/// Why a sidecar was skipped. Closed, with stable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[repr(u8)]
#[non_exhaustive]
pub enum RuntimeSkip {
    /// Not a JSON object.
    #[error("not a JSON object")]
    NotJson = 1,
    /// A `schema_version` other than 1.
    #[error("an unknown schema version")]
    Schema = 2,
    /// No `pid`, or not a process id (an integer above 1 that fits a pid).
    #[error("no process id")]
    Pid = 3,
    /// No `session_id` string.
    #[error("no session id")]
    NoSession = 4,
    /// A `session_id` other than the file name's.
    #[error("a session id other than the file's own")]
    OtherSession = 5,
    /// Written on another host (a home shared between machines): its pid
    /// is not one of this machine's.
    #[error("written on another host")]
    OtherHost = 6,
}

impl RuntimeSkip {
    /// Every variant.
    pub const VARIANTS: &'static [RuntimeSkip] = &[
        RuntimeSkip::NotJson,
        RuntimeSkip::Schema,
        RuntimeSkip::Pid,
        RuntimeSkip::NoSession,
        RuntimeSkip::OtherSession,
        RuntimeSkip::OtherHost,
    ];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            RuntimeSkip::NotJson => "not_json",
            RuntimeSkip::Schema => "schema",
            RuntimeSkip::Pid => "pid",
            RuntimeSkip::NoSession => "no_session",
            RuntimeSkip::OtherSession => "other_session",
            RuntimeSkip::OtherHost => "other_host",
        }
    }
}

/// Reads a sidecar's `bytes`, found as `<file_id>.runtime.json`. With
/// `host` (this machine's name), a file naming another host is skipped; a
/// file naming none is taken.
pub fn parse_runtime(
    bytes: &[u8],
    file_id: &str,
    host: Option<&str>,
) -> Result<RuntimeStatus, RuntimeSkip> {
    // An object, never a list (serde would read a struct from one).
    let raw: Map<String, Value> =
        serde_json::from_slice(bytes).map_err(|_| RuntimeSkip::NotJson)?;
    let field = |k: &str| raw.get(k).unwrap_or(&Value::Null);
    if field("schema_version").as_i64() != Some(SCHEMA) {
        return Err(RuntimeSkip::Schema);
    }
    let pid = field("pid")
        .as_u64()
        .and_then(|p| u32::try_from(p).ok())
        .filter(|p| *p > 1)
        .ok_or(RuntimeSkip::Pid)?;
    let Value::String(session_id) = field("session_id") else {
        return Err(RuntimeSkip::NoSession);
    };
    if session_id != file_id {
        return Err(RuntimeSkip::OtherSession);
    }
    if let (Some(here), Value::String(there)) = (host, field("hostname")) {
        if here != there {
            return Err(RuntimeSkip::OtherHost);
        }
    }
    Ok(RuntimeStatus {
        pid,
        session_id: session_id.clone(),
        started_at: field("started_at").as_f64().filter(|t| t.is_finite()),
    })
}

/// This machine's host name, as Node's `os.hostname()` gives it.
pub fn host_name() -> Option<String> {
    let text = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = text.trim_end_matches('\n');
    (!name.is_empty()).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "8a4b3c1f-5d2e-4c6d-9e0f-1a2b3c4d5e6f";

    /// As Qwen 0.24.4 writes it (`writeRuntimeStatus`, `atomicWriteJSON`).
    fn written(pid: &str, id: &str, host: &str) -> String {
        format!(
            "{{\n  \"schema_version\": 1,\n  \"pid\": {pid},\n  \"session_id\": \"{id}\",\n  \
             \"work_dir\": \"/w/p\",\n  \"hostname\": \"{host}\",\n  \
             \"started_at\": 1764567000.123,\n  \"qwen_version\": \"0.24.4\"\n}}"
        )
    }

    #[test]
    fn a_sidecar_as_qwen_writes_it_names_its_pid_and_session() {
        let got = parse_runtime(written("4242", ID, "box").as_bytes(), ID, Some("box"));
        assert_eq!(
            got,
            Ok(RuntimeStatus {
                pid: 4242,
                session_id: ID.to_owned(),
                started_at: Some(1_764_567_000.123),
            })
        );
        // With this host's name unknown, any host's is taken.
        assert!(parse_runtime(written("4242", ID, "elsewhere").as_bytes(), ID, None).is_ok());
    }

    #[test]
    fn bad_sidecars_are_skipped_by_kind() {
        let other = "9e0f3c1f-5d2e-4c6d-8a4b-1a2b3c4d5e6f";
        let cases: Vec<(&str, String, RuntimeSkip)> = vec![
            ("empty", String::new(), RuntimeSkip::NotJson),
            ("a list", "[1]".into(), RuntimeSkip::NotJson),
            (
                "cut short",
                written("4242", ID, "box")[..40].into(),
                RuntimeSkip::NotJson,
            ),
            (
                "schema 2",
                written("4242", ID, "box")
                    .replace("\"schema_version\": 1", "\"schema_version\": 2"),
                RuntimeSkip::Schema,
            ),
            (
                "schema as text",
                written("4242", ID, "box")
                    .replace("\"schema_version\": 1", "\"schema_version\": \"1\""),
                RuntimeSkip::Schema,
            ),
            ("pid 1", written("1", ID, "box"), RuntimeSkip::Pid),
            ("pid 0", written("0", ID, "box"), RuntimeSkip::Pid),
            ("negative pid", written("-5", ID, "box"), RuntimeSkip::Pid),
            (
                "pid past u32",
                written("4294967296", ID, "box"),
                RuntimeSkip::Pid,
            ),
            (
                "fractional pid",
                written("42.5", ID, "box"),
                RuntimeSkip::Pid,
            ),
            (
                "pid as text",
                written("\"42\"", ID, "box"),
                RuntimeSkip::Pid,
            ),
            (
                "no session",
                written("4242", ID, "box").replace("\"session_id\"", "\"sessionId\""),
                RuntimeSkip::NoSession,
            ),
            (
                "another session",
                written("4242", other, "box"),
                RuntimeSkip::OtherSession,
            ),
            (
                "another host",
                written("4242", ID, "elsewhere"),
                RuntimeSkip::OtherHost,
            ),
        ];
        for (what, text, want) in &cases {
            assert_eq!(
                parse_runtime(text.as_bytes(), ID, Some("box")),
                Err(*want),
                "{what}"
            );
        }
    }

    #[test]
    fn skip_names_are_distinct() {
        let names: std::collections::BTreeSet<&str> =
            RuntimeSkip::VARIANTS.iter().map(|s| s.as_str()).collect();
        assert_eq!(names.len(), RuntimeSkip::VARIANTS.len());
    }
}
