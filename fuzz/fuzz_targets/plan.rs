//! The restore plan gives one verdict per listed pane, in listing order; a conversation (agent,
//! session id) resumes in at most one pane; every resumed line splits into the marker and exactly
//! its argv, which ends with that pane's recorded id; with the feature off or outside the start-up
//! pass nothing resumes and the filesystem is never asked.
#![no_main]
use agent_resume_core::{plan, Verdict, MARKER};
use agent_resume_fuzz::plan_case;
use std::collections::BTreeMap;
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(case) = plan_case(data) else { return };
    let plans = plan(&case.input());
    let listed: Vec<_> = case.layout.panes().map(|(spec, _)| spec.id).collect();
    assert_eq!(plans.iter().map(|p| p.pane).collect::<Vec<_>>(), listed);
    let mut claimed = BTreeMap::new();
    for p in &plans {
        let Verdict::Resume(inv) = &p.verdict else { continue };
        let rec = case.recording(p.pane).expect("a resumed pane has a readable recording");
        let before = claimed.insert((rec.agent, rec.session_id.as_str()), p.pane);
        assert!(before.is_none_or(|q| q == p.pane), "{rec:?} resumes in {before:?} and {:?}", p.pane);
        let want = [vec![MARKER.to_owned()], inv.argv.clone()].concat();
        assert_eq!(shell_words::split(&inv.line).ok(), Some(want), "{:?}", inv.line);
        assert!(inv.argv.last().is_some_and(|w| w.ends_with(&rec.session_id)), "{:?}", inv.argv);
    }
    if !case.enabled || !case.layout.startup {
        assert!(claimed.is_empty() && case.fs.calls.get() == 0, "{case:?}");
    }
});
