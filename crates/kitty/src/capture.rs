//! Zero-config capture in `kitty save`: the engine's scan
//! ([`agent_resume_engine::scan::scan`], the one `tmux save` runs over tmux
//! panes) over kitty windows.
//!
//! Each window's first process is the `pid` kitty lists for it; a window
//! whose foreground is that process alone, not itself an agent (its shell
//! at a prompt), is left out: the common case costs no process-table read.
//! A window whose foreground kitty does not list is scanned.

use agent_resume_engine::scan::PaneRef;

use crate::{LsOsWindow, Snapshot};

/// The windows of `ls` to scan, each under its id in `snap` (the snapshot
/// just made from `ls`). `runs_agent` says whether an argv runs an agent.
pub fn panes(
    ls: &[LsOsWindow],
    snap: &Snapshot,
    runs_agent: &dyn Fn(&[String]) -> bool,
) -> Vec<PaneRef> {
    let mut out = Vec::new();
    for w in ls.iter().flat_map(|o| &o.tabs).flat_map(|t| &t.windows) {
        let Some(pid) = w.pid.filter(|p| *p > 1) else {
            continue;
        };
        let Some(saved) = snap
            .windows()
            .find(|s| s.kitty_id == w.id && s.pid == Some(pid))
        else {
            continue;
        };
        let fg = &w.foreground_processes;
        let shell_in_front = !fg.is_empty()
            && fg
                .iter()
                .all(|p| p.pid == Some(pid) && !runs_agent(&p.cmdline));
        if !shell_in_front {
            out.push(PaneRef {
                pane: saved.id,
                pid,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use agent_resume_core::PaneId;

    use super::*;
    use crate::{parse_ls, snapshot, Inherited};

    fn agent(argv: &[String]) -> bool {
        argv.first().is_some_and(|w| w.ends_with("claude"))
    }

    #[test]
    fn windows_whose_foreground_is_more_than_their_shell_are_scanned_under_their_ids() {
        let ls = parse_ls(
            br#"[{"id": 1, "tabs": [{"id": 1, "windows": [
              {"id": 1, "pid": 100, "foreground_processes": [{"pid": 100, "cmdline": ["bash"]}]},
              {"id": 2, "pid": 200, "foreground_processes": [{"pid": 201, "cmdline": ["claude"]}]},
              {"id": 3, "pid": 300, "foreground_processes": [{"pid": 300, "cmdline": ["claude"]}]},
              {"id": 4, "pid": 400},
              {"id": 5, "foreground_processes": [{"pid": 501, "cmdline": ["claude"]}]},
              {"id": 6, "pid": 1, "foreground_processes": [{"pid": 601, "cmdline": ["claude"]}]}
            ]}]}]"#,
        )
        .expect("reads");
        let mut n = 0u8;
        let snap = snapshot(&ls, None, Inherited::Nothing, || {
            n += 1;
            PaneId::from_bytes([n; 16])
        });
        let id = |kitty: u64| {
            snap.windows()
                .find(|w| w.kitty_id == kitty)
                .expect("listed")
                .id
        };
        let got = panes(&ls, &snap, &agent);
        assert_eq!(
            got,
            [
                PaneRef {
                    pane: id(2),
                    pid: 200
                },
                PaneRef {
                    pane: id(3),
                    pid: 300
                },
                PaneRef {
                    pane: id(4),
                    pid: 400
                },
            ],
            "a shell at its prompt, a window with no pid or pid 1 are left out"
        );
    }
}
