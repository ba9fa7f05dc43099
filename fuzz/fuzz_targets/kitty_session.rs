//! Whatever directories a kitty snapshot holds: the written session file, read as kitty reads it
//! (the independent `reread`), starts exactly the saved windows, each with its pane id and shell
//! and nothing else, in its exact directory when the boundary accepts it, else in the fallback;
//! a window of a `splits` tab after its first is split on its saved axis.
#![no_main]
use agent_resume_core::{PaneId, Shell};
use agent_resume_kitty::{literal, reread, session_file, OsWindowSnap, Snapshot, Split, TabSnap, Value, WindowSnap};
fn pairs<T>(items: Vec<T>) -> impl Iterator<Item = Vec<T>> {
    let mut items = items.into_iter();
    std::iter::from_fn(move || Some(items.by_ref().take(2).collect::<Vec<T>>()).filter(|g| !g.is_empty()))
}
const WINDOWS: usize = 32; // at most; the last keeps the rest, NULs and all (docs/fuzzing.md)
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let windows: Vec<WindowSnap> = data.splitn(WINDOWS, |&b| b == 0).enumerate().map(|(i, cwd)| WindowSnap {
        kitty_id: i as u64, pid: None, id: PaneId::from_bytes([i as u8; 16]), cwd: String::from_utf8_lossy(cwd).into_owned(),
        shell: Some(Shell::VARIANTS[i % Shell::VARIANTS.len()]),
        split: [None, Some(Split::Hsplit), Some(Split::Vsplit)][i % 3],
    }).collect();
    let tabs: Vec<TabSnap> = pairs(windows).enumerate()
        .map(|(i, w)| TabSnap { layout: ["tall", "splits"][i % 2].into(), active_window: 1, windows: w }).collect();
    let snap = Snapshot { os_windows: pairs(tabs).map(|t| OsWindowSnap { landing: false, active_tab: 0, tabs: t }).collect() };
    let written = session_file(&snap, "/fallback".as_ref());
    let read = reread(&written.text);
    assert_eq!(read.unknown, 0);
    let got: Vec<_> = read.os_windows.iter().flatten().flatten().collect();
    let windows: Vec<_> = snap.os_windows.iter().flat_map(|o| &o.tabs)
        .flat_map(|t| t.windows.iter().enumerate().map(move |(wi, w)| (w, (t.layout == "splits" && wi > 0).then_some(()).and(w.split))))
        .collect();
    assert_eq!(got.len(), windows.len());
    for (i, ((w, split), r)) in windows.into_iter().zip(got).enumerate() {
        assert_eq!(r.location, split.map(|s| s.as_str()), "{r:?}");
        let (want, shell) = (literal(Value::Directory, w.cwd.as_ref()).unwrap_or("/fallback"), w.shell.map_or("", |s| s.as_str()));
        assert!(r.cwd == want && r.argv == [shell], "{r:?}: want {want:?} and [{shell:?}]");
        assert_eq!(r.env, [agent_resume_fuzz::kitty_pane_assignment(i as u8)]);
    }
});
