//! Telemetry holds no input byte: with a marker (4 to 11 capitals taken from the input) planted in
//! the recordings' session ids, directories, flag names and values, programs and config homes, no
//! event of the plan's panes (`Event::for_skip`, and `Event::at_take` with every outcome for each
//! resumed pane) serializes to text holding the marker, a `/` or a `--`.
#![no_main]
use agent_resume_core::{plan, Event, Outcome, Verdict};
use agent_resume_fuzz::privacy_case;
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((marker, case)) = privacy_case(data) else { return };
    let plans = plan(&case.input());
    let mut events: Vec<Event> = plans.iter().filter_map(Event::for_skip).collect();
    for p in &plans {
        let (Verdict::Resume(inv), Some(agent)) = (&p.verdict, p.agent) else { continue };
        let take = |o: &Outcome| Event::at_take(agent, *o, inv.posture_carried, p.age_millis);
        events.extend(Outcome::VARIANTS.iter().map(take));
    }
    let mut distinct: Vec<Event> = Vec::new(); // equal events serialize alike: each checked once
    for e in &events {
        if distinct.contains(e) { continue }
        distinct.push(*e);
        let json = serde_json::to_string(e).expect("an event is closed enums and a bool");
        assert!(!json.contains(&marker) && !json.contains('/') && !json.contains("--"), "{marker}: {json}");
    }
});
