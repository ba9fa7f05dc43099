//! `scripts/test` chooses its runner: cargo-nextest when present, installed
//! at the locked version when missing, else plain `cargo test`; the runner
//! runs last, so its summary line closes the log. Checked with a stand-in
//! `cargo` first on `PATH` that logs every call (nothing is built).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// A stand-in `cargo`: logs its arguments; `nextest --version` answers only
/// once `$STATE/nextest` exists; `install` creates it when `FAKE_INSTALL=ok`
/// and fails otherwise; each runner prints its summary line. For
/// `scripts/embed-check` it answers as cargo does: a manifest with the
/// engine's default features on does not resolve next to the host's
/// SQLite, and the program built without them prints its line, then the
/// handle's; the `embed_host` example prints its closing line.
const FAKE_CARGO: &str = r#"#!/bin/sh
printf '%s\n' "$*" >> "$STATE/log"
case "$1" in
  nextest)
    if [ "$2" = --version ]; then
      [ -e "$STATE/nextest" ] && { echo "cargo-nextest 0.9.143"; exit 0; }
      echo "error: no such command: nextest" >&2; exit 101
    fi
    echo "     Summary [   1.000s] 3 tests run: 3 passed, 0 skipped"; exit 0 ;;
  install)
    [ "$FAKE_INSTALL" = ok ] && { : > "$STATE/nextest"; exit 0; }
    echo "error: failed to query the registry (offline)" >&2; exit 101 ;;
  test)
    echo "test result: ok. 3 passed; 0 failed"; exit 0 ;;
  tree)
    if [ "$2" = --manifest-path ] && grep -q 'default-features = true' "$3"; then
      echo 'error: package `libsqlite3-sys` links to the native library `sqlite3`, but it conflicts' >&2
      exit 101
    fi ;;
  run)
    if [ "$2" = -p ]; then
      echo "embed_host: the whole loop holds"; exit 0
    fi
    line=" AGENT_RESUME_LINE=1 'claude' '--resume' 'f6066ebb-140e-4519-ab63-b9cde0b60b57'"
    printf '%s\nhandle: %s\n' "$line" "$line" ;;
esac
exit 0
"#;

struct Run {
    log: Vec<String>,
    last_line: String,
}

/// A Python that runs (for mistral-vibe's virtual environment).
const FAKE_PYTHON: &str = "#!/bin/sh\nexit 0\n";

fn run(nextest_present: bool, install: &str) -> Run {
    let out = script(nextest_present, install, true);
    let stdout = String::from_utf8_lossy(&out.0.stdout).into_owned();
    assert!(
        out.0.status.success(),
        "scripts/test failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.0.stderr)
    );
    let log = fs::read_to_string(out.1.path().join("log")).expect("cargo was called");
    Run {
        log: log.lines().map(str::to_owned).collect(),
        last_line: stdout.lines().last().unwrap_or_default().to_owned(),
    }
}

/// Runs `scripts/test` with the stand-ins (and a `python3.12` when
/// `python`); its output and its state directory.
fn script(
    nextest_present: bool,
    install: &str,
    python: bool,
) -> (std::process::Output, tempfile::TempDir) {
    let state = tempfile::tempdir().expect("a temp dir");
    let bin = state.path().join("bin");
    fs::create_dir(&bin).expect("bin dir");
    let mut tools = vec![("cargo", FAKE_CARGO), ("id", "#!/bin/sh\necho 1000\n")];
    if python {
        tools.push(("python3.12", FAKE_PYTHON));
    }
    for (name, text) in tools {
        let p = bin.join(name);
        fs::write(&p, text).expect("write stand-in");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    if nextest_present {
        fs::write(state.path().join("nextest"), "").expect("marker");
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test");
    let out = Command::new("/bin/bash")
        .arg(&script)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", state.path())
        .env("STATE", state.path())
        .env("FAKE_INSTALL", install)
        .env("AGENT_RESUME_SKIP_FUZZ", "1")
        .stdin(Stdio::null())
        .output()
        .expect("bash runs scripts/test");
    (out, state)
}

#[test]
fn without_a_python_of_3_12_or_newer_the_script_fails_naming_it_before_building() {
    // Debian 12 has 3.11 only; mistral-vibe needs 3.12 (tests/real_agents/).
    let (out, state) = script(true, "fail", false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("python3.13 or python3.12"),
        "the failure names what is missing: {stderr}"
    );
    let log = fs::read_to_string(state.path().join("log")).unwrap_or_default();
    assert!(
        !log.lines()
            .any(|l| l.starts_with("nextest run") || l.starts_with("test ")),
        "no suite ran: {log}"
    );
}

#[test]
fn an_installed_nextest_runs_the_suite_without_installing_anything() {
    let r = run(true, "fail");
    assert!(
        !r.log.iter().any(|l| l.starts_with("install")),
        "{:?}",
        r.log
    );
    assert_eq!(
        r.log.last().map(String::as_str),
        Some("nextest run --workspace --locked --no-fail-fast")
    );
    assert!(r.last_line.contains("Summary"), "{}", r.last_line);
}

#[test]
fn a_missing_nextest_is_installed_at_the_locked_version_and_then_runs() {
    let r = run(false, "ok");
    assert!(
        r.log
            .iter()
            .any(|l| l == "install --locked cargo-nextest@0.9.143"),
        "{:?}",
        r.log
    );
    assert_eq!(
        r.log.last().map(String::as_str),
        Some("nextest run --workspace --locked --no-fail-fast")
    );
    assert!(r.last_line.contains("Summary"), "{}", r.last_line);
}

#[test]
fn when_nextest_cannot_be_installed_cargo_test_runs_last() {
    let r = run(false, "fail");
    assert!(
        r.log
            .iter()
            .any(|l| l.starts_with("install --locked cargo-nextest@")),
        "{:?}",
        r.log
    );
    assert!(
        !r.log.iter().any(|l| l.starts_with("nextest run")),
        "{:?}",
        r.log
    );
    assert_eq!(
        r.log.last().map(String::as_str),
        Some("test --workspace --locked --no-fail-fast")
    );
    assert!(
        r.last_line.starts_with("test result: ok."),
        "{}",
        r.last_line
    );
}

#[test]
fn the_api_documentation_is_built_with_and_without_the_engine_s_default_features() {
    let r = run(true, "");
    for want in [
        "doc --workspace --no-deps --locked",
        "doc -p agent-resume-engine --no-default-features --no-deps --locked",
    ] {
        assert!(r.log.iter().any(|l| l == want), "{want}: {:?}", r.log);
    }
}

#[test]
fn the_embedding_host_example_runs_without_default_features_before_the_suite() {
    let r = run(true, "fail");
    let at = |want: &str| r.log.iter().position(|l| l == want);
    let example =
        at("run -p agent-resume-engine --no-default-features --example embed_host --locked");
    let docs = at("test --workspace --locked --doc");
    assert!(
        example.is_some() && example < docs,
        "the example runs before the doc tests: {:?}",
        r.log
    );
}
