//! The restore path shared by `plan`, `restore`, `explain` and the tmux
//! host: load what the store holds (never failing), decide every pane with
//! core's pure plan, and — for `restore` — sweep, arm and report.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use agent_resume_core::{
    plan, Event, FileFacts, FsProbe, Layout, Outcome, PaneId, PanePlan, PlanInput, PostureWindow,
    Stored, TelemetrySink, UnixMillis, Verdict,
};
use agent_resume_discover::file::{self, Kind};
use agent_resume_store::{inspect_or_empty, startup, Armed, OpenOptions, Startup};
use anyhow::{Context, Result};

use crate::paths::Overrides;

/// The real filesystem, for the plan's questions: directories, and whether
/// a recorded program path may be replayed (core's `program`).
pub struct RealFs;

impl FsProbe for RealFs {
    fn is_dir(&self, path: &Path) -> bool {
        fs::metadata(path).is_ok_and(|m| m.is_dir())
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        fs::canonicalize(path).ok()
    }
    fn facts(&self, path: &Path) -> Option<FileFacts> {
        file::facts(path)
    }
    fn user(&self) -> Option<u32> {
        Some(file::user())
    }
}

/// [`RealFs`] for one plan, resolving a directory from its parent's
/// resolution: `realpath` reads every component of every path, and a
/// layout's directories share most of theirs. A path of plain components
/// (absolute; no `.`, `..`, empty or trailing component) whose last
/// component `lstat` finds is not a symlink resolves to its parent's
/// canonical form joined with that component, which is what `realpath`
/// itself builds, and is a directory when that `lstat` says so, as `stat`
/// of the path would; anything else goes to `realpath` and `stat`. The
/// answers are those of one instant, kept for the life of one plan.
pub struct PlanFs {
    // Keyed by bytes: `Path` equality ignores a trailing slash, which
    // `realpath` does not (`file/` does not resolve).
    known: RefCell<HashMap<OsString, Resolved>>,
}

/// What [`PlanFs`] learnt of one path.
#[derive(Clone)]
struct Resolved {
    canonical: Option<PathBuf>,
    /// Whether it is a directory, when the resolution's `lstat` told.
    dir: Option<bool>,
}

impl PlanFs {
    /// An empty memo.
    pub fn new() -> Self {
        PlanFs {
            known: RefCell::new(HashMap::new()),
        }
    }

    fn resolve(&self, path: &Path) -> Resolved {
        if let Some(known) = self.known.borrow().get(path.as_os_str()) {
            return known.clone();
        }
        let whole = || Resolved {
            canonical: fs::canonicalize(path).ok(),
            dir: None,
        };
        let resolved = match plain_split(path) {
            Some((parent, name)) => match self.resolve(parent).canonical {
                Some(mut p) => {
                    p.push(name);
                    match fs::symlink_metadata(&p) {
                        Ok(m) if !m.file_type().is_symlink() => Resolved {
                            canonical: Some(p),
                            dir: Some(m.is_dir()),
                        },
                        _ => whole(),
                    }
                }
                None => whole(),
            },
            None => whole(),
        };
        self.known
            .borrow_mut()
            .insert(path.as_os_str().to_owned(), resolved.clone());
        resolved
    }
}

impl Default for PlanFs {
    fn default() -> Self {
        Self::new()
    }
}

/// `path` as its parent and last component when every component is plain
/// (absolute, no `.`, `..`, empty or trailing component) and it is not the
/// root.
fn plain_split(path: &Path) -> Option<(&Path, &OsStr)> {
    use std::os::unix::ffi::OsStrExt;
    let b = path.as_os_str().as_bytes();
    let rest = b.strip_prefix(b"/")?;
    if rest.is_empty()
        || rest
            .split(|&c| c == b'/')
            .any(|c| c.is_empty() || c == b"." || c == b"..")
    {
        return None;
    }
    Some((path.parent()?, path.file_name()?))
}

impl FsProbe for PlanFs {
    fn is_dir(&self, path: &Path) -> bool {
        self.resolve(path)
            .dir
            .unwrap_or_else(|| RealFs.is_dir(path))
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.resolve(path).canonical
    }
    fn facts(&self, path: &Path) -> Option<FileFacts> {
        RealFs.facts(path)
    }
    fn user(&self) -> Option<u32> {
        RealFs.user()
    }
}

/// The largest layout file read.
const MAX_LAYOUT: u64 = 16 << 20;

/// Reads a layout file (`-` for stdin).
pub fn read_layout(path: &Path) -> Result<Layout> {
    let mut text = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .take(MAX_LAYOUT)
            .read_to_end(&mut text)
            .context("cannot read the layout from stdin")?;
    } else {
        text = file::read(path, Kind::Layout, MAX_LAYOUT)?;
    }
    serde_json::from_slice(&text)
        .context("layout is not a valid layout document (see docs/layout.md)")
}

/// A decided restore.
pub struct Decided {
    /// Whether the feature flag is on.
    pub enabled: bool,
    /// One decision per pane, in layout order.
    pub plans: Vec<PanePlan>,
    /// The recordings the plan saw.
    pub recordings: BTreeMap<PaneId, Stored>,
    /// What the user may want to know (printed on stderr).
    pub warnings: Vec<String>,
    /// The open store, when `restore` will arm.
    pub store: Option<agent_resume_store::Store>,
}

/// Loads and decides. With the flag off nothing is opened, swept or asked
/// of the filesystem. `sweep` runs the once-per-process start-up sweep,
/// keeping the rows of these panes.
pub fn decide(
    o: &Overrides,
    layout: &Layout,
    now: UnixMillis,
    enabled: bool,
    sweep: Option<&HashSet<PaneId>>,
) -> Result<Decided> {
    let mut warnings = Vec::new();
    let (recordings, store) = if enabled {
        let db = crate::paths::db(o)?;
        let options = OpenOptions::default();
        let st = if let Some(keep) = sweep {
            startup(&db, &options, keep)
        } else {
            Startup {
                store: None,
                loaded: inspect_or_empty(&db, &options),
            }
        };
        warnings.extend(st.loaded.warnings.iter().map(ToString::to_string));
        (st.loaded.into_stored(), st.store)
    } else {
        (BTreeMap::new(), None)
    };
    // The agents' own stores and this machine's processes: asked only with
    // the feature on (the plan asks nothing before its start-up gates pass).
    let homes = agent_resume_discover::Homes::from_env(&|k| std::env::var_os(k));
    let probe = agent_resume_discover::StoreProbe::new(&homes);
    let plans = plan(&PlanInput {
        enabled,
        layout,
        recordings: &recordings,
        now,
        window: PostureWindow::DEFAULT,
        fs: &PlanFs::new(),
        sessions: enabled.then_some(&probe as &dyn agent_resume_core::SessionProbe),
    });
    Ok(Decided {
        enabled,
        plans,
        recordings,
        warnings,
        store,
    })
}

/// Arms every resumable pane and emits one event per skipped pane that had
/// a recording. Returns how many panes were armed.
pub fn arm_and_report(
    decided: &Decided,
    layout: &Layout,
    now: UnixMillis,
    sink: &mut dyn TelemetrySink,
) -> usize {
    if !decided.enabled {
        return 0;
    }
    // What the host already knows at restore about a pane's input: such a
    // pane is refused now, as `take` would refuse it, and nothing is armed.
    let busy: BTreeMap<PaneId, Outcome> = layout
        .panes()
        .filter_map(|(spec, _)| match (spec.has_input, spec.queued_command) {
            (true, _) => Some((spec.id, Outcome::PaneHasInput)),
            (false, true) => Some((spec.id, Outcome::QueuedCommand)),
            (false, false) => None,
        })
        .collect();
    let mut armed = 0;
    for p in &decided.plans {
        match &p.verdict {
            Verdict::Resume(inv) => {
                let Some(Stored::Recording(rec)) = decided.recordings.get(&p.pane) else {
                    continue;
                };
                if let Some(outcome) = busy.get(&p.pane) {
                    sink.emit(&Event::at_take(
                        rec.agent,
                        *outcome,
                        false,
                        Some(rec.observed_at.until(now)),
                    ));
                    continue;
                }
                let Some(store) = &decided.store else {
                    continue;
                };
                let arm = Armed {
                    pane: p.pane,
                    agent: rec.agent,
                    session_id: rec.session_id.clone(),
                    line: inv.line.clone(),
                    argv: inv.argv.clone(),
                    armed_at: now,
                    observed_at: rec.observed_at,
                };
                match store.arm(&arm) {
                    Ok(()) => armed += 1,
                    Err(e) => eprintln!(
                        "agent-resume: could not arm a pane ({e}); it comes back as a shell"
                    ),
                }
            }
            Verdict::Skip(_) => {
                if let Some(event) = Event::for_skip(p) {
                    sink.emit(&event);
                }
            }
        }
    }
    armed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan's memoized filesystem answers every question as the plain
    /// one does: symlinks first, in the middle and last, dangling and
    /// looping; `.`, `..`, doubled and trailing slashes; files; gone paths;
    /// relative paths. Asked in both orders, each with a fresh memo and
    /// again with one memo shared by every path.
    #[test]
    fn plan_fs_answers_as_real_fs() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(tmp.path()).expect("canonical tempdir");
        let r = |p: &str| root.join(p);
        fs::create_dir_all(r("a/b/c")).expect("dirs");
        fs::create_dir_all(r("x/y")).expect("dirs");
        fs::write(r("a/file"), "f").expect("file");
        symlink(r("a/b"), r("to-b")).expect("symlink");
        symlink("b/c", r("a/rel-c")).expect("symlink");
        symlink(r("x"), r("a/b/up")).expect("symlink");
        symlink(r("nowhere"), r("dangling")).expect("symlink");
        symlink(r("loop2"), r("loop1")).expect("symlink");
        symlink(r("loop1"), r("loop2")).expect("symlink");
        symlink(r("a/file"), r("to-file")).expect("symlink");
        let mut paths: Vec<PathBuf> = [
            "",
            "a",
            "a/b",
            "a/b/c",
            "x/y",
            "a/file",
            "a/file/z",
            "to-b",
            "to-b/c",
            "a/rel-c",
            "a/b/up",
            "a/b/up/y",
            "a/b/up/../b",
            "dangling",
            "dangling/x",
            "loop1",
            "loop1/z",
            "to-file",
            "to-file/",
            "gone",
            "gone/deeper",
            "a/./b",
            "a/b/..",
            "a/b/../b/c",
            "a//b",
            "a/b/",
            "to-b/",
            "to-b/c/../..",
            ".",
            "a/file/.",
            "to-file/.",
            "a/b/up/../a",
        ]
        .iter()
        .map(|p| r(p))
        .collect();
        paths.extend(["/", "/..", "/.", "//", "relative", ".", ""].map(PathBuf::from));
        let shared = PlanFs::new();
        for order in [false, true] {
            for p in &paths {
                let fresh = PlanFs::new();
                let (want_dir, want_canon) = (RealFs.is_dir(p), RealFs.canonicalize(p));
                for fs in [&fresh, &shared] {
                    let (dir, canon) = if order {
                        let c = fs.canonicalize(p);
                        (fs.is_dir(p), c)
                    } else {
                        (fs.is_dir(p), fs.canonicalize(p))
                    };
                    assert_eq!(dir, want_dir, "is_dir {p:?}");
                    assert_eq!(canon, want_canon, "canonicalize {p:?}");
                }
            }
        }
    }
}
