//! A session record read in one parse with its body values read alone
//! (`agent_resume_discover::json::line` and `bodies`) gives exactly what two
//! whole serde parses of it give (`Line`, then `Bodies` or nothing), and
//! refuses exactly what they refuse: any bytes as one record.
#![no_main]
use agent_resume_discover::json::{bodies, line, Bodies, Line};
libfuzzer_sys::fuzz_target!(|raw: &[u8]| {
    let two = serde_json::from_slice::<Line<'_>>(raw).ok().map(|l| {
        let b = serde_json::from_slice::<Bodies<'_>>(raw).unwrap_or_default();
        (format!("{l:?}"), format!("{b:?}"))
    });
    let one = line(raw).ok().map(|(l, spans)| (format!("{l:?}"), format!("{:?}", bodies(raw, &spans))));
    assert_eq!(one, two, "{:?}", String::from_utf8_lossy(raw));
});
