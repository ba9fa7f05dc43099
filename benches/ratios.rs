//! Whole-process ratios, each against its floor in the same run, with a
//! paired, interleaved process timer (one run of the path, one of the
//! floor, alternating which goes first; 61 pairs; the median of the
//! per-pair ratios):
//!
//! - P7: `agent-resume --version` against `examples/version_floor.rs`, a
//!   Rust hello-world built with the same (release) profile;
//! - P2a: `agent-resume hook claude` whose id is already recorded (reads one
//!   row, writes nothing) against `sh -c 'cat > file'` on the same payload;
//! - P2b: the same hook with a new id on every run (one write) against the
//!   same floor;
//! - P3 (whole process): the CPU time (user + system, from the kernel's
//!   accounting of waited-for children) of `agent-resume plan` over the
//!   1,000-pane layout with 500 recordings in 50 directories
//!   (`support/plan_data.rs`, real directories and database) against that of
//!   `agent-resume --version`; and, beside it, the same plan against
//!   `examples/plan_floor.rs` (the work any plan over that data must do)
//!   and that floor against `--version`.
//!
//! Run: `cargo build --release --bins --examples && cargo bench --bench ratios`.

#![allow(missing_docs)]

#[path = "support/cpu.rs"]
mod cpu;
#[path = "support/plan_data.rs"]
mod plan_data;
#[path = "support/ratio.rs"]
mod ratio;

use agent_resume_store::{Set, Store, Writer};

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const PAIRS: usize = 61;

fn release(rel: &str) -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let bin = target.join("release").join(rel);
    if bin.is_file() {
        Some(bin)
    } else {
        eprintln!(
            "{} is missing: `cargo build --release --bins --examples` first",
            bin.display()
        );
        None
    }
}

/// Runs `cmd` to completion with `stdin` fed in; panics on failure.
fn run(mut cmd: Command, stdin: &[u8]) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the benchmarked program starts");
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin).expect("stdin is written");
    }
    let status = child.wait().expect("the benchmarked program ends");
    assert!(status.success(), "the benchmarked program failed: {status}");
}

fn payload(id: &str) -> Vec<u8> {
    format!(
        r#"{{"session_id":"{id}","transcript_path":"/home/me/.claude/projects/-p/{id}.jsonl","cwd":"/home/me/src/some-project","hook_event_name":"SessionStart","source":"startup"}}"#
    )
    .into_bytes()
}

fn main() {
    let (Some(bin), Some(floor)) = (release("agent-resume"), release("examples/version_floor"))
    else {
        return;
    };
    let p = ratio::paired(
        PAIRS,
        1,
        || {
            let mut c = Command::new(&bin);
            c.arg("--version");
            run(c, b"");
        },
        || run(Command::new(&floor), b""),
    );
    ratio::report(
        "P7",
        "agent-resume --version",
        "hello-world, same profile",
        Some(1.3),
        &p,
    );

    let tmp = tempfile::tempdir().expect("tempdir");
    // `AGENT_RESUME_BENCH_DATA=<dir>` keeps the data (database, layout) in
    // `<dir>` for profiling one side alone afterwards.
    let tmp = match std::env::var_os("AGENT_RESUME_BENCH_DATA") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            fs::create_dir_all(&dir).expect("creates the data directory");
            dir
        }
        None => tmp.path().to_owned(),
    };
    let config = tmp.join("config.toml");
    fs::write(&config, "enabled = true\n").expect("writes the config");
    let hook = || {
        let mut cmd = Command::new(&bin);
        cmd.args(["hook", "claude"])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", tmp.as_path())
            .env("XDG_STATE_HOME", tmp.as_path().join("state"))
            .env("AGENT_RESUME_DB", tmp.as_path().join("recordings.sqlite3"))
            .env("AGENT_RESUME_CONFIG", &config)
            .env("AGENT_RESUME_PANE", PANE);
        cmd
    };
    let sink = tmp.as_path().join("payload");
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
    let same = payload("f6066ebb-140e-4519-ab63-b9cde0b60b57");
    run(hook(), &same);
    let p = ratio::paired(PAIRS, 1, || run(hook(), &same), || run(cat(), &same));
    ratio::report(
        "P2a",
        "agent-resume hook claude, unchanged id",
        "sh -c 'cat > f', same payload",
        Some(1.5),
        &p,
    );
    let mut n = 0u64;
    let p = ratio::paired(
        PAIRS,
        1,
        || {
            n += 1;
            run(
                hook(),
                &payload(&format!("00000000-0000-4000-8000-{n:012x}")),
            );
        },
        || run(cat(), &same),
    );
    ratio::report(
        "P2b",
        "agent-resume hook claude, new id every run",
        "sh -c 'cat > f', same payload",
        Some(2.0),
        &p,
    );

    plan_cpu(&bin, tmp.as_path(), &config);
}

/// P3's whole-process line: `plan` over the 1,000-pane layout against
/// `--version`, in CPU time.
fn plan_cpu(bin: &Path, tmp: &Path, config: &Path) {
    let root = tmp.join("p3");
    let s = plan_data::thousand(&root.join("src"));
    for d in &s.dirs {
        fs::create_dir_all(d).expect("creates the layout's directories");
    }
    let layout = root.join("layout.json");
    fs::write(
        &layout,
        serde_json::to_vec(&s.layout).expect("the layout serializes"),
    )
    .expect("writes the layout");
    let db = root.join("recordings.sqlite3");
    let mut w = Writer::new(Store::open(&db).expect("creates the database"));
    for (pane, rec) in &s.recordings {
        w.send(Set::save(*pane, rec.clone()));
    }
    w.flush().expect("writes the recordings");
    drop(w);
    let plan = || {
        let mut cmd = Command::new(bin);
        cmd.args(["plan", "--now", plan_data::NOW_RFC3339, "--layout"])
            .arg(&layout)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", root.join("home"))
            .env("XDG_STATE_HOME", root.join("state"))
            .env("AGENT_RESUME_DB", &db)
            .env("AGENT_RESUME_CONFIG", config);
        run(cmd, b"");
    };
    let version = || {
        let mut cmd = Command::new(bin);
        cmd.arg("--version");
        run(cmd, b"");
    };
    let p = cpu::paired(PAIRS, 1, plan, version);
    ratio::report(
        "P3",
        "agent-resume plan 1000 panes/500 recordings/50 dirs, whole-process CPU (user+sys)",
        "agent-resume --version, whole-process CPU",
        Some(2.0),
        &p,
    );
    // The inherent work of any plan over the same data (examples/plan_floor.rs:
    // parse the layout into the same types, SELECT the same rows, resolve
    // each directory once, write a line per pane), against `--version` and
    // as the floor of the plan itself: what P3's goal can and cannot reach.
    let Some(floor_bin) = release("examples/plan_floor") else {
        return;
    };
    let floor = || {
        let mut cmd = Command::new(&floor_bin);
        cmd.arg(&layout).arg(&db).env_clear();
        run(cmd, b"");
    };
    let p = cpu::paired(PAIRS, 1, floor, version);
    ratio::report(
        "P3-inherent",
        "examples/plan_floor over the same layout and database, whole-process CPU",
        "agent-resume --version, whole-process CPU",
        None,
        &p,
    );
    let p = cpu::paired(PAIRS, 1, plan, floor);
    ratio::report(
        "P3-over-inherent",
        "agent-resume plan 1000 panes/500 recordings/50 dirs, whole-process CPU",
        "examples/plan_floor over the same data, whole-process CPU",
        None,
        &p,
    );
}
