//! Capture benchmarks.
//!
//! - `observe/unchanged`: `Capture::observe` for the (agent, session id)
//!   pair the pane already holds — the case of almost every agent event
//!   (one map lookup and a short compare, no allocation);
//! - `observe/changed`: a new id on every call — flags extracted from the
//!   invocation and a recording built;
//! - `hook_process/agent_resume_hook_claude` against
//!   `hook_process/sh_cat_to_file`: the whole `agent-resume hook claude`
//!   process (release binary, feature on, a payload whose id is already
//!   recorded, so it reads one row and writes nothing) against the cheapest
//!   process that reads the same payload (`sh -c 'cat > file'`). The ratio
//!   of their medians over 101 interleaved runs each is printed after the
//!   group.
//!
//! Run: `cargo build --release && cargo bench --bench capture -- --quick`.
//! Without `target/release/agent-resume` only the `hook_process` group is
//! skipped, with a note saying how to build it.

#![allow(missing_docs)]

#[path = "support/ratio.rs"]
mod ratio;

use std::borrow::Cow;
use std::fs;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use agent_resume_core::{
    AgentKind, Capture, Change, IdSource, Observation, PaneContext, PaneId, UnixMillis,
};
use criterion::{criterion_group, criterion_main, Criterion};

const ID_A: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const ID_B: &str = "0f6066eb-140e-4519-ab63-b9cde0b60b57";
const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";

/// What a host knows about the pane (asked only when the pair changes).
struct Host;

impl PaneContext for Host {
    fn invocation(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(
            "claude --model opus --permission-mode plan 'fix the --flaky test'",
        ))
    }
    fn cwd(&self) -> Option<PathBuf> {
        Some(PathBuf::from("/home/me/src/some-project"))
    }
}

fn observe_benches(c: &mut Criterion) {
    let pane = PaneId::from_bytes([7; 16]);
    let obs = |id| Observation {
        pane,
        agent: AgentKind::Claude,
        session_id: Some(id),
        source: IdSource::Hook,
        headless: false,
    };
    let mut g = c.benchmark_group("observe");

    let mut capture = Capture::new();
    assert!(matches!(
        capture.observe(&obs(ID_A), &Host, UnixMillis(1)),
        Some(Change::Save(_))
    ));
    let same = obs(ID_A);
    assert_eq!(capture.observe(&same, &Host, UnixMillis(2)), None);
    g.bench_function("unchanged", |b| {
        b.iter(|| capture.observe(black_box(&same), &Host, UnixMillis(2)))
    });

    // P1: the same call against its floor, a bare `HashMap` get of the
    // pane and a compare of the (agent, id) it holds, interleaved.
    let mut floor: std::collections::HashMap<PaneId, (AgentKind, String)> =
        std::collections::HashMap::new();
    floor.insert(pane, (AgentKind::Claude, ID_A.to_owned()));
    let p = ratio::paired(
        51,
        20_000,
        || {
            black_box(capture.observe(black_box(&same), &Host, UnixMillis(2)));
        },
        || {
            let o = black_box(&same);
            let held = floor.get(&o.pane);
            black_box(
                held.is_some_and(|(a, id)| *a == o.agent && o.session_id == Some(id.as_str())),
            );
        },
    );
    ratio::report(
        "P1",
        "Capture::observe unchanged",
        "HashMap get + compare",
        Some(1.2),
        &p,
    );

    let pair = [obs(ID_A), obs(ID_B)];
    let mut i = 0;
    g.bench_function("changed", |b| {
        b.iter(|| {
            i ^= 1;
            let change = capture.observe(black_box(&pair[i]), &Host, UnixMillis(3));
            debug_assert!(matches!(change, Some(Change::Save(_))));
            change
        })
    });
    g.finish();
}

/// The release binary, or why the process group is skipped.
fn release_binary() -> Result<PathBuf, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let bin = target.join("release/agent-resume");
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "hook_process skipped: {} is missing; build it with `cargo build --release` \
             and run `cargo bench --bench capture` again",
            bin.display()
        ))
    }
}

/// Whether a source file is newer than `bin` (the numbers would then be
/// for older code).
fn newer_source(bin: &Path) -> Option<PathBuf> {
    fn newest(dir: &Path, best: &mut Option<(SystemTime, PathBuf)>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                newest(&p, best);
            } else if let Ok(t) = e.metadata().and_then(|m| m.modified()) {
                if best.as_ref().is_none_or(|(b, _)| t > *b) {
                    *best = Some((t, p));
                }
            }
        }
    }
    let built = fs::metadata(bin).and_then(|m| m.modified()).ok()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut best = None;
    newest(&root.join("src"), &mut best);
    newest(&root.join("crates"), &mut best);
    best.filter(|(t, _)| *t > built).map(|(_, p)| p)
}

/// Runs `cmd` with `payload` on stdin to completion; how long it took.
fn run_once(cmd: &mut Command, payload: &[u8]) -> Duration {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the benchmarked program starts");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(payload)
        .expect("the payload is written");
    let status = child.wait().expect("the benchmarked program ends");
    let took = start.elapsed();
    assert!(status.success(), "the benchmarked program failed: {status}");
    took
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn hook_benches(c: &mut Criterion) {
    let bin = match release_binary() {
        Ok(bin) => bin,
        Err(why) => {
            eprintln!("{why}");
            return;
        }
    };
    if let Some(src) = newer_source(&bin) {
        eprintln!(
            "note: {} is newer than {}; `cargo build --release` to measure the current code",
            src.display(),
            bin.display()
        );
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("config.toml");
    fs::write(&config, "enabled = true\n").expect("writes the config");
    let payload = format!(
        r#"{{"session_id":"{ID_A}","transcript_path":"/home/me/.claude/projects/-p/{ID_A}.jsonl","cwd":"/home/me/src/some-project","hook_event_name":"SessionStart","source":"startup"}}"#
    );
    let hook = || {
        let mut cmd = Command::new(&bin);
        cmd.args(["hook", "claude"])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", tmp.path())
            .env("XDG_STATE_HOME", tmp.path().join("state"))
            .env("AGENT_RESUME_DB", tmp.path().join("recordings.sqlite3"))
            .env("AGENT_RESUME_CONFIG", &config)
            .env("AGENT_RESUME_PANE", PANE);
        cmd
    };
    // The first run records; every measured run is the unchanged case.
    let out = hook()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .expect("piped")
                .write_all(payload.as_bytes())?;
            child.wait_with_output()
        })
        .expect("the hook runs");
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "the seeding hook run reported a problem: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sink = tmp.path().join("payload");
    let cat = || {
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg("cat > \"$1\"")
            .arg("sh")
            .arg(&sink)
            .env_clear()
            .env("PATH", "/usr/bin:/bin");
        cmd
    };

    let mut g = c.benchmark_group("hook_process");
    g.bench_function("agent_resume_hook_claude", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| run_once(&mut hook(), payload.as_bytes()))
                .sum()
        })
    });
    g.bench_function("sh_cat_to_file", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| run_once(&mut cat(), payload.as_bytes()))
                .sum()
        })
    });
    g.finish();

    // The ratio from paired, interleaved runs, so a load change on the
    // machine weighs on both sides alike.
    let (mut hook_times, mut cat_times) = (Vec::new(), Vec::new());
    for _ in 0..RATIO_RUNS {
        hook_times.push(run_once(&mut hook(), payload.as_bytes()));
        cat_times.push(run_once(&mut cat(), payload.as_bytes()));
    }
    let (h, s) = (median(&mut hook_times), median(&mut cat_times));
    println!(
        "hook_process: medians of {RATIO_RUNS} interleaved runs each: \
         agent-resume hook claude {:.3} ms, sh -c 'cat > file' {:.3} ms; ratio {:.2}x",
        h.as_secs_f64() * 1e3,
        s.as_secs_f64() * 1e3,
        h.as_secs_f64() / s.as_secs_f64()
    );
}

/// Paired runs behind the printed ratio.
const RATIO_RUNS: usize = 101;

criterion_group!(benches, observe_benches, hook_benches);
criterion_main!(benches);
