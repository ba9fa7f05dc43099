//! A report that parses, fed to capture with the pane answering the report's invocation and
//! directory, saves only a recording of the report's agent, id and directory, whose id passes its
//! shape and whose flags are carried flags of that agent, by canonical name, each with a value
//! exactly when it has a shape, in shape and safe; a program is an absolute path to one of the
//! agent's commands; the same report again saves nothing.
#![no_main]
use agent_resume_core::{report, Capture, Catalog, Change, Observation, UnixMillis};
use agent_resume_fuzz::{is_agent_program, is_safe_value, Pane};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(r) = report::parse(data) else { return };
    let pane = Pane { invocation: r.invocation.clone(), cwd: r.cwd.clone() };
    let (agent, session_id, source, headless) = (r.agent, r.session_id.as_deref(), r.source, r.headless);
    let obs = Observation { pane: r.pane, agent, session_id, source, headless };
    let mut capture = Capture::new();
    let Some(Change::Save(rec)) = capture.observe(&obs, &pane, UnixMillis(1)) else { return };
    let decl = Catalog::embedded().agent(rec.agent);
    assert!(decl.id_shape.matches(&rec.session_id) && is_safe_value(&rec.session_id), "{rec:?}");
    assert_eq!((rec.agent, Some(&*rec.session_id), Some(&rec.cwd)), (agent, session_id, r.cwd.as_ref()));
    for f in &rec.flags {
        let d = decl.flags.iter().find(|d| d.carry && *d.name == *f.name).unwrap_or_else(|| panic!("{f:?}"));
        let ok = match (&d.shape, f.value.as_deref()) {
            (Some(shape), Some(v)) => shape.matches(v) && is_safe_value(v),
            (shape, v) => shape.is_none() && v.is_none(),
        };
        assert!(ok, "{f:?} in {rec:?}");
    }
    assert!(rec.program.as_deref().is_none_or(|p| is_agent_program(decl, p)), "{rec:?}");
    assert_eq!(capture.observe(&obs, &pane, UnixMillis(2)), None, "{rec:?}");
});
