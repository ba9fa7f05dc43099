//! The listings print the same bytes as before their output was buffered
//! and their inputs memoized: `recordings`, `plan` and `sessions` over a
//! deterministic data set (the benches' shapes, smaller) compared with the
//! committed output of the earlier implementation under
//! `tests/expected/listing/`. The temporary folder prints as `<tmp>`.
//!
//! `AGENT_RESUME_BLESS=1 cargo test --test listing_output` rewrites the
//! expected files (only ever from an implementation known to be right).
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "../benches/support/plan_data.rs"]
mod bench_plan;
#[path = "../benches/support/sessions.rs"]
mod bench_sessions;
#[path = "../crates/discover/tests/fixtures/mod.rs"]
mod fixtures;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use agent_resume_core::{AgentKind, Layout, PaneId, Recording, Tab, Window};
use agent_resume_store::{Set, Store, Writer};
use agent_resume_test_support::PrivateEnv;

const NOW_MS: i64 = 1_800_000_000_000;
const NOW: &str = "2027-01-15T08:00:00Z";
const HOUR: i64 = 3_600_000;

/// 200 panes in 2 windows × 5 tabs × 20 panes; every other pane recorded,
/// over 10 directories: duplicate claims, a gone directory, fresh and old.
fn data(root: &Path) -> (Layout, BTreeMap<PaneId, Recording>) {
    let dirs: Vec<PathBuf> = (0..10)
        .map(|i| root.join(format!("src/project-{i}")))
        .collect();
    for d in &dirs {
        std::fs::create_dir_all(d).unwrap();
    }
    let gone = root.join("src/gone");
    let (mut recordings, mut windows, mut n, mut k) = (BTreeMap::new(), Vec::new(), 0u32, 0u32);
    for w in 0..2 {
        let mut tabs = Vec::new();
        for _ in 0..5 {
            let mut panes = Vec::new();
            for _ in 0..20 {
                let dir = dirs[((n / 2) % 10) as usize].clone();
                if n.is_multiple_of(2) {
                    let s = if k % 5 == 1 { k - 1 } else { k };
                    let cwd = if k % 20 == 7 {
                        gone.clone()
                    } else {
                        dir.clone()
                    };
                    let at = if k.is_multiple_of(2) {
                        NOW_MS - 60_000
                    } else {
                        NOW_MS - 13 * HOUR
                    };
                    let agent = if k % 3 == 0 {
                        AgentKind::Codex
                    } else {
                        AgentKind::Claude
                    };
                    recordings.insert(
                        bench_plan::pane(n),
                        Recording {
                            agent,
                            ..bench_plan::recording(s, cwd, at)
                        },
                    );
                    k += 1;
                }
                panes.push(bench_plan::spec(n, dir));
                n += 1;
            }
            tabs.push(Tab {
                focused_pane: panes.get(3).map(|p| p.id),
                panes,
            });
        }
        windows.push(Window {
            landing: w == 1,
            visible: w == 0,
            active_tab: w,
            tabs,
        });
    }
    (
        Layout {
            startup: true,
            windows,
        },
        recordings,
    )
}

fn sessions(home: &Path) {
    for i in 0..60usize {
        let cwd = PathBuf::from(format!("/home/me/src/project-{}", i % 7));
        let at = fixtures::NOW_MS - (i as i64) * 60_000;
        let prompt = format!("task {i}: make the build faster");
        let id = |v: char| format!("{:08x}-{:04x}-{v}000-8000-{:012x}", i, i % 0xffff, i);
        match i % 4 {
            0 | 1 => drop(fixtures::claude(home, &cwd, &id('4'), &prompt, at, 3)),
            2 => drop(fixtures::codex(
                home,
                &cwd,
                &id('7'),
                &prompt,
                at,
                i % 8 == 2,
            )),
            _ => drop(fixtures::qwen(home, &cwd, &id('4'), &prompt, at)),
        }
    }
}

/// The world the expected listings were recorded in: [`PrivateEnv::bare`]
/// with the test's `PATH`, the database and config at the root, and
/// `TZ=UTC` for the printed times. No `XDG_*`: each run's `HOME` (set by
/// [`run`], one with agent stores and one without) holds the agents'
/// stores at their defaults.
fn world() -> PrivateEnv {
    let mut env = PrivateEnv::bare(env!("CARGO_BIN_EXE_agent-resume"));
    let root = env.root().to_owned();
    env.set("PATH", std::env::var_os("PATH").unwrap_or_default());
    env.set("AGENT_RESUME_DB", root.join("recordings.sqlite3"));
    env.set("AGENT_RESUME_CONFIG", root.join("config.toml"));
    env.set("TZ", "UTC");
    env
}

/// Runs the binary with `HOME` at `root/home`; its stdout with the root
/// shown as `<tmp>`.
fn run(env: &PrivateEnv, home: &str, args: &[&str]) -> String {
    let root = env.root();
    let out = env.command(args).env("HOME", root.join(home)).output();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let root = root.to_str().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .replace(root, "<tmp>")
}

fn check(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expected/listing")
        .join(name);
    if std::env::var_os("AGENT_RESUME_BLESS").is_some() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert!(
        got == want,
        "{name}: output differs from {}",
        path.display()
    );
}

#[test]
fn recordings_plan_and_sessions_print_the_same_bytes_as_the_earlier_implementation() {
    let env = world();
    let root = env.root();
    let (layout, recordings) = data(root);
    let layout_file = store_and_layout(root, &layout, recordings);
    sessions(&root.join("home"));
    let lf = layout_file.to_str().unwrap();

    // No agent session store in the restoring user's home (both session
    // gates pass); the sessions listing gets its own.
    let none = "empty-home";
    check("recordings.txt", &run(&env, none, &["recordings"]));
    check(
        "recordings.json",
        &run(&env, none, &["recordings", "--json"]),
    );
    let plan = ["plan", "--layout", lf, "--now", NOW];
    check("plan.txt", &run(&env, none, &plan));
    check(
        "plan.json",
        &run(&env, none, &[&plan[..], &["--json"]].concat()),
    );
    check(
        "sessions.json",
        &run(&env, "home", &["sessions", "--all", "--json"]),
    );
}

/// Compares `got` with the zstd-compressed expected file `name`; on a
/// difference, names the first differing line and leaves the whole output
/// beside the test's temporary files.
fn check_zst(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expected/listing")
        .join(format!("{name}.zst"));
    if std::env::var_os("AGENT_RESUME_BLESS").is_some() {
        let packed = zstd::stream::encode_all(got.as_bytes(), 19).unwrap();
        std::fs::write(&path, packed).unwrap();
    }
    let mut want = String::new();
    if let Ok(f) = std::fs::File::open(&path) {
        zstd::stream::read::Decoder::new(f)
            .unwrap()
            .read_to_string(&mut want)
            .unwrap();
    }
    if got == want {
        return;
    }
    let kept = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&kept, got).unwrap();
    let line = got
        .lines()
        .zip(want.lines())
        .position(|(g, w)| g != w)
        .map_or_else(|| "its length".to_owned(), |n| format!("line {}", n + 1));
    panic!(
        "{name}: output differs from {} at {line}; the output is in {}",
        path.display(),
        kept.display()
    );
}

/// The bench's own 10,000 sessions (`benches/support/sessions.rs`: Claude,
/// Codex plain and zstd, Qwen, Pi), listed fast and full, print the bytes
/// the single-threaded, whole-line-parsing implementation printed (the same
/// for both depths: no record past the prefix changes a row of this data).
#[test]
fn sessions_over_the_bench_stores_print_the_same_bytes_as_the_earlier_implementation() {
    let env = world();
    let root = env.root();
    bench_sessions::generate(&root.join("home"), bench_sessions::SESSIONS);
    let args = ["sessions", "--all", "--json"];
    check_zst("sessions-bench.json", &run(&env, "home", &args));
    check_zst(
        "sessions-bench.json",
        &run(&env, "home", &[&args[..], &["--full"]].concat()),
    );
}

/// Writes `recordings` to a fresh store and `layout` to a file under
/// `root`, with the feature on; returns the layout file.
fn store_and_layout(
    root: &Path,
    layout: &Layout,
    recordings: impl IntoIterator<Item = (PaneId, Recording)>,
) -> PathBuf {
    std::fs::write(root.join("config.toml"), "enabled = true\n").unwrap();
    let mut w = Writer::new(Store::open(&root.join("recordings.sqlite3")).unwrap());
    for (p, r) in recordings {
        w.send(Set::save(p, r));
    }
    w.flush().unwrap();
    drop(w);
    let layout_file = root.join("layout.json");
    std::fs::write(&layout_file, serde_json::to_vec(layout).unwrap()).unwrap();
    layout_file
}

/// The P3 bench's 1,000-pane plan (`benches/support/plan_data.rs`) prints
/// the table the implementation before the table was written straight
/// from the layout printed.
#[test]
fn plan_over_the_bench_layout_prints_the_same_bytes_as_the_earlier_implementation() {
    let env = world();
    let root = env.root();
    let s = bench_plan::thousand(&root.join("src"));
    for d in &s.dirs {
        std::fs::create_dir_all(d).unwrap();
    }
    let lf = store_and_layout(root, &s.layout, s.recordings);
    let plan = [
        "plan",
        "--layout",
        lf.to_str().unwrap(),
        "--now",
        bench_plan::NOW_RFC3339,
    ];
    check_zst("plan-bench.txt", &run(&env, "home", &plan));
}

/// A layout the table's straight path must hand back to the map of places:
/// one pane id twice (the map keeps one place per id), a remote pane, and
/// directories whose names need escaping (control characters) or hold
/// characters wider than a byte, or are long enough to widen the column.
#[test]
fn plan_of_an_odd_layout_prints_the_same_bytes_as_the_earlier_implementation() {
    let env = world();
    let root = env.root();
    let (mut layout, recordings) = data(root);
    let odd = [
        root.join("src/tab\there"),
        root.join("src/\u{e9}t\u{e9}-\u{9b}-\u{7f}"),
        root.join(format!("src/{}", "long-".repeat(12))),
    ];
    for d in &odd {
        std::fs::create_dir_all(d).unwrap();
    }
    let panes = &mut layout.windows[0].tabs[0].panes;
    panes[1].cwd = Some(odd[0].clone());
    panes[3].cwd = Some(odd[1].clone());
    panes[5].cwd = None;
    panes[7].cwd = Some(odd[2].clone());
    // Pane 0's id again, elsewhere, in another directory.
    let mut twin = panes[0].clone();
    twin.cwd = Some(odd[2].clone());
    layout.windows[1].tabs[2].panes.insert(4, twin);
    let lf = store_and_layout(root, &layout, recordings);
    let plan = ["plan", "--layout", lf.to_str().unwrap(), "--now", NOW];
    check("plan-odd.txt", &run(&env, "empty-home", &plan));
}
