//! The restore plan (core's pure `plan`) over two layouts:
//!
//! - 8 panes, every one eligible (one recording each, distinct sessions);
//! - 1,000 panes in 10 windows × 5 tabs × 20 panes, 500 of them with a
//!   recording over 50 directories (a deterministic generator): 100 pairs of panes claim one session
//!   (duplicate claims), 25 recordings name a directory that is gone, half
//!   the recordings are fresh (posture carried) and half are 13 h old;
//!
//! each with an in-memory [`FsProbe`] (a set of directories) and with the
//! real filesystem (the same directories created in a temporary folder,
//! probed with `std::fs` exactly as the CLI's `RealFs` does).
//!
//! Run: `cargo bench --bench plan -- --quick`. The verdict counts of each
//! layout are printed once, with the filesystem calls one plan makes, and
//! for the 1,000-pane layout the P3 line: the real-filesystem plan against
//! the same plan over the in-memory probe, interleaved (the goal itself is
//! absolute: at most 2 ms in process).

#![allow(missing_docs)]

#[path = "support/plan_data.rs"]
mod plan_data;
#[path = "support/ratio.rs"]
mod ratio;

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use agent_resume_core::{
    plan, FsProbe, Layout, PaneId, PanePlan, PlanInput, PostureWindow, Stored, Tab, Verdict, Window,
};
use criterion::{criterion_group, criterion_main, Criterion};

use plan_data::{pane, NOW};

/// Known directories, each its own canonical form.
struct FakeFs(HashSet<PathBuf>);

impl FsProbe for FakeFs {
    fn is_dir(&self, path: &Path) -> bool {
        self.0.contains(path)
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.0.contains(path).then(|| path.to_path_buf())
    }
}

/// The CLI's `RealFs` (src/restore.rs), which is not a library.
struct RealFs;

impl FsProbe for RealFs {
    fn is_dir(&self, path: &Path) -> bool {
        fs::metadata(path).is_ok_and(|m| m.is_dir())
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        fs::canonicalize(path).ok()
    }
}

/// A layout with the stored rows a plan reads.
struct Scenario {
    layout: Layout,
    recordings: BTreeMap<PaneId, Stored>,
    dirs: Vec<PathBuf>,
}

impl From<plan_data::Scenario> for Scenario {
    fn from(s: plan_data::Scenario) -> Self {
        Scenario {
            layout: s.layout,
            recordings: s
                .recordings
                .into_iter()
                .map(|(p, r)| (p, Stored::Recording(r)))
                .collect(),
            dirs: s.dirs,
        }
    }
}

/// 8 panes in one window, one tab, all eligible.
fn eight(root: &Path) -> Scenario {
    let dirs: Vec<PathBuf> = (0..8).map(|i| root.join(format!("project-{i}"))).collect();
    let mut recordings = BTreeMap::new();
    let mut panes = Vec::new();
    for (i, dir) in (0u32..).zip(&dirs) {
        recordings.insert(
            pane(i),
            Stored::Recording(plan_data::recording(i, dir.clone(), NOW.0 - 60_000)),
        );
        panes.push(plan_data::spec(i, dir.clone()));
    }
    Scenario {
        layout: Layout {
            startup: true,
            windows: vec![Window {
                landing: true,
                visible: true,
                active_tab: 0,
                tabs: vec![Tab {
                    focused_pane: Some(pane(0)),
                    panes,
                }],
            }],
        },
        recordings,
        dirs,
    }
}

/// The P3 layout: 1,000 panes, 500 recordings, duplicate claims and gone
/// directories (`support/plan_data.rs`, shared with `benches/ratios.rs`).
fn thousand(root: &Path) -> Scenario {
    plan_data::thousand(root).into()
}

/// Counts the calls a plan makes to the real filesystem.
#[derive(Default)]
struct Counting {
    is_dir: std::cell::Cell<usize>,
    canonicalize: std::cell::Cell<usize>,
}

impl FsProbe for Counting {
    fn is_dir(&self, path: &Path) -> bool {
        self.is_dir.set(self.is_dir.get() + 1);
        RealFs.is_dir(path)
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.canonicalize.set(self.canonicalize.get() + 1);
        RealFs.canonicalize(path)
    }
}

fn run(s: &Scenario, fs: &dyn FsProbe) -> Vec<PanePlan> {
    plan(&PlanInput {
        enabled: true,
        layout: &s.layout,
        recordings: &s.recordings,
        now: NOW,
        window: PostureWindow::DEFAULT,
        fs,
        sessions: None,
    })
}

fn kind(p: &PanePlan) -> &'static str {
    match &p.verdict {
        Verdict::Resume(inv) if inv.posture_carried => "resume (posture)",
        Verdict::Resume(_) => "resume",
        Verdict::Skip(r) => r.as_str(),
    }
}

fn summary(name: &str, plans: &[PanePlan]) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in plans {
        *counts.entry(kind(p)).or_default() += 1;
    }
    eprintln!("plan/{name}: {} panes {counts:?}", plans.len());
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut g = c.benchmark_group("plan");
    type Build = fn(&Path) -> Scenario;
    let layouts: [(&str, Build); 2] = [
        ("8_eligible_panes", eight),
        ("1000_panes_500_recordings", thousand),
    ];
    for (name, build) in layouts {
        let fake = build(Path::new("/home/me/src"));
        let fake_fs = FakeFs(fake.dirs.iter().cloned().collect());
        let real = build(&tmp.path().join(name));
        for d in &real.dirs {
            fs::create_dir_all(d).expect("mkdir");
        }
        let (a, b) = (run(&fake, &fake_fs), run(&real, &RealFs));
        assert_eq!(
            a.iter().map(kind).collect::<Vec<_>>(),
            b.iter().map(kind).collect::<Vec<_>>(),
            "both probes decide alike"
        );
        summary(name, &b);
        let counting = Counting::default();
        run(&real, &counting);
        eprintln!(
            "plan/{name}: one plan asks is_dir {} and canonicalize {} times ({} distinct directories)",
            counting.is_dir.get(),
            counting.canonicalize.get(),
            real.dirs.len()
        );
        if name.starts_with("1000") {
            let p = ratio::paired(
                31,
                10,
                || {
                    black_box(run(black_box(&real), &RealFs));
                },
                || {
                    black_box(run(black_box(&fake), &fake_fs));
                },
            );
            ratio::report(
                "P3",
                "plan 1000 panes/500 recordings/50 dirs, real fs",
                "same plan, in-memory fs",
                None,
                &p,
            );
            println!(
                "P3 absolute: real-fs plan {:.3} ms in process (goal <= 2 ms: {})",
                p.path.as_secs_f64() * 1e3,
                if p.path.as_secs_f64() <= 2e-3 {
                    "holds"
                } else {
                    "MISSED"
                }
            );
        }
        g.bench_function(format!("{name}/fake_fs"), |bch| {
            bch.iter(|| black_box(run(black_box(&fake), &fake_fs)));
        });
        g.bench_function(format!("{name}/real_fs"), |bch| {
            bch.iter(|| black_box(run(black_box(&real), &RealFs)));
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
