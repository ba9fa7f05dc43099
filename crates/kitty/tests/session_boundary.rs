//! The security claim of the session-file boundary: whatever a saved
//! directory holds, kitty reads the written file (as the independent
//! [`reread`] reads it) as exactly the windows saved, each in its exact
//! directory or, refused, in the fallback, and starting nothing but its
//! shell.

use agent_resume_core::{PaneId, Shell};
use agent_resume_kitty::{
    literal, reread, session_file, OsWindowSnap, Snapshot, TabSnap, Value, WindowSnap, PANE_ENV,
};
use proptest::prelude::*;

fn one_window(cwd: String) -> Snapshot {
    Snapshot {
        os_windows: vec![OsWindowSnap {
            landing: true,
            active_tab: 0,
            tabs: vec![TabSnap {
                layout: "splits".into(),
                active_window: 0,
                windows: vec![WindowSnap {
                    kitty_id: 1,
                    pid: Some(1),
                    id: PaneId::from_bytes([3; 16]),
                    cwd,
                    shell: Some(Shell::Fish),
                    split: None,
                }],
            }],
        }],
    }
}

fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => "[a-zé ]{1,3}",
        6 => Just("/".to_owned()),
        1 => Just("$HOME".to_owned()),
        1 => Just("${X}".to_owned()),
        1 => Just("$$".to_owned()),
        1 => Just("~".to_owned()),
        1 => Just("..".to_owned()),
        1 => Just(".".to_owned()),
        1 => Just("\nlaunch touch /tmp/canary\n".to_owned()),
        1 => Just("#".to_owned()),
        1 => Just("'\"\\".to_owned()),
        2 => "[\r\u{b}\u{c}\u{1c}-\u{1f}\u{85}\u{a0}\u{2028}\u{2029}\u{3000}\t]",
    ];
    (any::<bool>(), proptest::collection::vec(piece, 0..6))
        .prop_map(|(rooted, v)| format!("{}{}", if rooted { "/" } else { "" }, v.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]
    #[test]
    fn a_written_directory_reads_back_exactly_or_is_refused_to_the_fallback(dir in hostile()) {
        let written = session_file(&one_window(dir.clone()), "/fallback dir".as_ref());
        let read = reread(&written.text);
        prop_assert_eq!(read.unknown, 0);
        prop_assert_eq!(read.os_windows.len(), 1);
        prop_assert_eq!(read.os_windows[0].len(), 1);
        let window = &read.os_windows[0][0][..];
        prop_assert_eq!(window.len(), 1);
        prop_assert_eq!(&window[0].argv, &["fish".to_owned()]);
        prop_assert_eq!(&window[0].env, &[format!("{PANE_ENV}={}", PaneId::from_bytes([3; 16]))]);
        match literal(Value::Directory, dir.as_ref()) {
            Ok(_) => {
                prop_assert_eq!(&window[0].cwd, &dir);
                prop_assert!(written.refused.is_empty());
            }
            Err(_) => {
                prop_assert_eq!(window[0].cwd.as_str(), "/fallback dir");
                prop_assert_eq!(written.refused.len(), 1);
            }
        }
    }
}
