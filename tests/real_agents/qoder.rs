//! Qoder CLI, offline: what can be checked without signing in.
//!
//! A turn needs sign-in (`Not logged in · Please run /login`), so no live
//! conversation is ever resumed here and the catalog keeps qoder
//! unverified. What is checked: a Claude-shaped transcript in qoder's store
//! is listed by the CLI and by `agent-resume sessions` with its directory,
//! `--resume` of that id gets past the lookup to the sign-in check, and a
//! made-up id is refused with the CLI's exact error and exit code.

use std::fs;

use serde_json::{json, Value};

use super::versions::{Setup, QODER};
use super::{text, Sandbox};

/// Nothing to set up: no model is reachable without signing in.
pub(crate) fn setup(_: &mut Setup<'_>) {}

/// An id qoder's store holds in the test.
const LISTED: &str = "5f0c2a1e-8b3d-4c6f-9a7e-1d2c3b4a5f60";

/// Qoder's project folder name: every byte of the path that is not an
/// ASCII letter or digit becomes `-`.
fn slug(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[test]
fn qoder_lists_a_stored_session_resumes_it_up_to_sign_in_and_refuses_a_made_up_id_with_exit_42() {
    let sb = Sandbox::new(&QODER, true);
    let name = sb.name();
    let proj = sb.proj().to_string_lossy().into_owned();
    let dir = sb.home().join(".qoder/projects").join(slug(&proj));
    fs::create_dir_all(&dir).unwrap();
    let line = json!({"type": "user", "sessionId": LISTED, "cwd": proj,
        "timestamp": "2026-12-05T04:00:00.000Z", "uuid": "a1b2c3d4-0000-4000-8000-000000000001",
        "parentUuid": null, "message": {"role": "user", "content": "hello qoder"}});
    fs::write(dir.join(format!("{LISTED}.jsonl")), format!("{line}\n")).unwrap();

    let listed = sb.cli(&["--list-sessions"], &[]);
    assert!(
        listed.status.success() && text(&listed.stdout).contains(LISTED),
        "{name}: --list-sessions does not list the stored session: {}{}",
        text(&listed.stdout),
        text(&listed.stderr)
    );
    let rows: Vec<Value> =
        serde_json::from_str(&sb.ar_ok(&["sessions", "--all", "--json"])).unwrap_or_default();
    assert!(
        rows.iter().any(|r| r["agent"] == "qoder"
            && r["id"] == LISTED
            && r["cwd"].as_str() == Some(proj.as_str())),
        "{name}: agent-resume sessions does not list it with its directory: {rows:?}"
    );

    let found = sb.cli(&["--resume", LISTED, "-p", "hi"], &[]);
    let said = format!("{}{}", text(&found.stdout), text(&found.stderr));
    assert!(
        said.contains("Not logged in") && !said.contains("Invalid session identifier"),
        "{name}: --resume of a stored id does not reach the sign-in check: {said}"
    );

    let (args, refusal, code) = QODER.made_up;
    let refused = sb.cli(args, &[]);
    let said = format!("{}{}", text(&refused.stdout), text(&refused.stderr));
    assert_eq!(
        refused.status.code(),
        code,
        "{name}: a made-up id's exit status; it said: {said}"
    );
    assert!(
        said.contains(refusal),
        "{name}: a made-up id's error: {said}"
    );
}
