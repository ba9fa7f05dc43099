//! Structure-aware inputs of `plan` and `telemetry_privacy`: a restored
//! layout, what the store holds per pane and a filesystem, read from the
//! fuzzer's bytes with `arbitrary::Unstructured` (every byte string decodes;
//! when the bytes run out, the remaining choices take their first option).
//!
//! Pane ids, directories, session ids and flag values come from small pools
//! so that panes and recordings line up, directories exist or alias one
//! another, and two panes claim one conversation often; hostile strings come
//! in through the pools and through `arbitrary` strings.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agent_resume_core::catalog::FlagDecl;
use agent_resume_core::shape::Shape;
use agent_resume_core::{
    AgentDecl, AgentKind, Catalog, FsProbe, Layout, PaneId, PaneSpec, PlanInput, PostureWindow, RecordedFlag,
    Recording, Stored, Tab, UnixMillis, Window,
};
use libfuzzer_sys::arbitrary::{Result, Unstructured};

use crate::sample_id;

/// The clock every plan input is decided at.
pub const NOW: UnixMillis = UnixMillis(1_800_000_000_000);
const HOUR: i64 = 3_600_000;
/// Pane ids are `[n; 16]` for `n` below this, so layouts and stores share them.
const PANES: u8 = 6;

/// A filesystem of known directories and symlink-style aliases that counts
/// every call.
#[derive(Debug, Default)]
pub struct Fs {
    /// Existing directories (their own canonical form).
    pub dirs: BTreeSet<PathBuf>,
    /// Aliases, each to its canonical directory.
    pub aliases: BTreeMap<PathBuf, PathBuf>,
    /// Calls made, to `is_dir` and `canonicalize` together.
    pub calls: Cell<usize>,
}

impl FsProbe for Fs {
    fn is_dir(&self, path: &Path) -> bool {
        self.calls.set(self.calls.get() + 1);
        self.dirs.contains(path) || self.aliases.contains_key(path)
    }

    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.calls.set(self.calls.get() + 1);
        let own = self.dirs.contains(path).then(|| path.to_path_buf());
        self.aliases.get(path).cloned().or(own)
    }
}

/// A decoded plan input.
#[derive(Debug)]
pub struct PlanCase {
    /// The feature flag.
    pub enabled: bool,
    /// The restored layout.
    pub layout: Layout,
    /// What the store holds, per pane.
    pub recordings: BTreeMap<PaneId, Stored>,
    /// The posture window.
    pub window: PostureWindow,
    /// The filesystem the plan asks.
    pub fs: Fs,
}

impl PlanCase {
    /// The plan's input: decided at [`NOW`], with no session-store probe.
    pub fn input(&self) -> PlanInput<'_> {
        PlanInput {
            enabled: self.enabled,
            layout: &self.layout,
            recordings: &self.recordings,
            now: NOW,
            window: self.window,
            fs: &self.fs,
            sessions: None,
        }
    }

    /// The readable recording the store holds for `pane`.
    pub fn recording(&self, pane: PaneId) -> Option<&Recording> {
        match self.recordings.get(&pane) {
            Some(Stored::Recording(r)) => Some(r),
            Some(Stored::Unreadable) | None => None,
        }
    }
}

/// What recordings and layouts are drawn from.
struct Pool {
    /// Planted in ids, paths, flag names and values (empty for `plan`).
    marker: String,
    /// Directories, program words and config homes (existing or not).
    paths: Vec<String>,
    /// Flag names and values, ids.
    values: Vec<String>,
    /// The filesystem, knowing some of `paths`.
    fs: Fs,
}

/// A `plan` input: pooled directories (`/w/a`, `/w/b`, an alias of `/w/a`,
/// a gone one, a relative one), well-formed and hostile values.
pub fn plan_case(data: &[u8]) -> Option<PlanCase> {
    let paths = ["/w/a", "/w/b", "/w/link", "/gone", "w/rel", "/w/a/"];
    let values = ["opus", "high", "plan", "gpt-5.1-codex", "o3:high", "a b", "$(id)", "it's", "", "-x"];
    let fs = Fs {
        dirs: ["/w/a", "/w/b"].into_iter().map(PathBuf::from).collect(),
        aliases: [("/w/link".into(), "/w/a".into())].into(),
        calls: Cell::new(0),
    };
    let pool = Pool { marker: String::new(), paths: owned(&paths), values: owned(&values), fs };
    decode(&mut Unstructured::new(data), pool).ok()
}

/// A `telemetry_privacy` input: byte 0 sets the marker's length (4 to 11),
/// the next bytes become its letters (`A` + b % 26: capitals, which no
/// event's text holds), and the rest decodes as a plan input whose every
/// directory, value, flag name, program and config home carries the marker.
/// Every pooled directory exists, so recordings get as far as the plan goes.
pub fn privacy_case(data: &[u8]) -> Option<(String, PlanCase)> {
    let (&n, rest) = data.split_first()?;
    let (letters, rest) = rest.split_at_checked(4 + usize::from(n % 8))?;
    let m: String = letters.iter().map(|b| char::from(b'A' + b % 26)).collect();
    let paths = [format!("/w/{m}"), format!("/{m}"), format!("/w/{m}/x-{m}")];
    let values =
        [m.clone(), format!("{m}-x"), format!("a{m}"), format!("--{m}"), format!("/{m}"), format!("{m}=1")];
    let fs = Fs { dirs: paths.iter().map(PathBuf::from).collect(), ..Fs::default() };
    let pool = Pool { marker: m.clone(), paths: paths.to_vec(), values: values.to_vec(), fs };
    Some((m, decode(&mut Unstructured::new(rest), pool).ok()?))
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

fn decode(u: &mut Unstructured<'_>, pool: Pool) -> Result<PlanCase> {
    let enabled = u.ratio(7, 8)?;
    let window =
        if u.ratio(1, 8)? { PostureWindow::from_secs(u.arbitrary()?) } else { PostureWindow::DEFAULT };
    let layout = layout(u, &pool)?;
    let mut recordings = BTreeMap::new();
    for n in 0..PANES {
        let stored = match u.int_in_range(0..=3)? {
            0 => continue,
            1 => Stored::Unreadable,
            _ => Stored::Recording(recording(u, &pool)?),
        };
        recordings.insert(PaneId::from_bytes([n; 16]), stored);
    }
    Ok(PlanCase { enabled, layout, recordings, window, fs: pool.fs })
}

fn pane(u: &mut Unstructured<'_>) -> Result<PaneId> {
    Ok(PaneId::from_bytes([u.int_in_range(0..=PANES - 1)?; 16]))
}

fn layout(u: &mut Unstructured<'_>, pool: &Pool) -> Result<Layout> {
    let startup = u.ratio(7, 8)?;
    let mut windows = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let mut tabs = Vec::new();
        for _ in 0..u.int_in_range(1..=3)? {
            let mut panes = Vec::new();
            for _ in 0..u.int_in_range(1..=4)? {
                panes.push(PaneSpec {
                    id: pane(u)?,
                    cwd: if u.ratio(7, 8)? { Some(u.choose(&pool.paths)?.into()) } else { None },
                    shared_viewer: u.ratio(1, 8)?,
                    shell: u.arbitrary()?,
                    has_input: u.arbitrary()?,
                    queued_command: u.arbitrary()?,
                });
            }
            let focused_pane = if u.arbitrary()? { Some(pane(u)?) } else { None };
            tabs.push(Tab { focused_pane, panes });
        }
        let (landing, visible, active_tab) = (u.arbitrary()?, u.arbitrary()?, u.int_in_range(0..=2)?);
        windows.push(Window { landing, visible, active_tab, tabs });
    }
    Ok(Layout { startup, windows })
}

fn recording(u: &mut Unstructured<'_>, pool: &Pool) -> Result<Recording> {
    // Half are claude's, so that two panes claim one conversation often.
    let agent = if u.arbitrary()? { AgentKind::Claude } else { u.arbitrary()? };
    let decl = Catalog::embedded().agent(agent);
    let session_id = session_id(u, decl, pool)?;
    let mut flags = Vec::new();
    for _ in 0..u.int_in_range(0..=4)? {
        flags.push(flag(u, decl, pool)?);
    }
    let program = match u.int_in_range(0..=4)? {
        0 | 1 => None,
        2 => Some(decl.command().to_owned()),
        3 => Some(format!("{}/{}", u.choose(&pool.paths)?, decl.command())),
        _ => Some(u.arbitrary()?),
    };
    let cwd = u.choose(&pool.paths)?.into();
    let age = match u.int_in_range(0..=4)? {
        0 => 0,
        1 => HOUR,
        2 => 13 * HOUR,
        3 => -HOUR,
        _ => u.arbitrary()?,
    };
    let config_home = if u.arbitrary()? { Some(u.choose(&pool.paths)?.into()) } else { None };
    let observed_at = UnixMillis(NOW.0.saturating_sub(age));
    Ok(Recording { agent, session_id, flags, program, cwd, observed_at, config_home, dir: None })
}

/// Ids: one of two well-formed ids of the agent's shape (so panes
/// collide), the marker spliced into one, a pooled value, any string.
fn session_id(u: &mut Unstructured<'_>, decl: &AgentDecl, pool: &Pool) -> Result<String> {
    let sample = sample_id(decl).unwrap_or("a1");
    let keep = sample.len().saturating_sub(pool.marker.len().max(1));
    Ok(match u.int_in_range(0..=4)? {
        0 | 1 => format!("{}{}", &sample[..sample.len() - 1], u.int_in_range(0..=1)?),
        2 => format!("{}{}", &sample[..keep], pool.marker),
        3 => u.choose(&pool.values)?.clone(),
        _ => u.arbitrary()?,
    })
}

/// Flags: a declared flag (by name, alias, or a pooled or any name), with
/// no value, a value its shape accepts, a pooled value or any string.
fn flag(u: &mut Unstructured<'_>, decl: &AgentDecl, pool: &Pool) -> Result<RecordedFlag> {
    if decl.flags.is_empty() || u.ratio(1, 8)? {
        return u.arbitrary();
    }
    let d: &FlagDecl = u.choose(&decl.flags)?;
    let name = match u.int_in_range(0..=3)? {
        0 | 1 => d.name.clone(),
        2 => d.aliases.first().unwrap_or(&d.name).clone(),
        _ => u.choose(&pool.values)?.clone(),
    };
    let value = match (u.int_in_range(0..=3)?, &d.shape) {
        (0, _) => None,
        (1, Some(Shape::Choice(choices))) => Some(u.choose(choices)?.clone()),
        (1 | 2, _) => Some(u.choose(&pool.values)?.clone()),
        _ => Some(u.arbitrary()?),
    };
    Ok(RecordedFlag { name: name.into(), value: value.map(Into::into) })
}
