//! Any bytes as Qwen's runtime sidecar, through `agent_resume_discover::runtime::parse_runtime`:
//! a sidecar that passes is a JSON object whose `pid` (above 1) and `session_id` (the file's own
//! id) are exactly what it yields, written on this host when it names one. Input: the file's id
//! (lossy UTF-8) up to the first NUL, then the file's bytes.
#![no_main]
use agent_resume_discover::runtime::parse_runtime;
use serde_json::Value;
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (id, bytes) = match data.iter().position(|b| *b == 0) {
        Some(at) => (String::from_utf8_lossy(&data[..at]), &data[at + 1..]),
        None => ("8a4b3c1f-5d2e-4c6d-9e0f-1a2b3c4d5e6f".into(), data),
    };
    let Ok(status) = parse_runtime(bytes, &id, Some("box")) else { return };
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(bytes) else {
        panic!("passed, yet not a JSON object");
    };
    assert!(status.pid > 1);
    assert_eq!(map.get("pid").and_then(Value::as_u64), Some(u64::from(status.pid)));
    assert_eq!(status.session_id, id);
    assert_eq!(map.get("session_id").and_then(Value::as_str), Some(&*id));
    assert_eq!(map.get("schema_version").and_then(Value::as_i64), Some(1));
    if let Some(Value::String(host)) = map.get("hostname") {
        assert_eq!(host, "box");
    }
});
