//! The restore path shared by `plan`, `restore`, `explain` and the hosts:
//! the layout file is read here; the sequence itself is the engine's
//! ([`agent_resume_engine::restore`]).

use std::io::Read;
use std::path::Path;

use agent_resume_core::Layout;
use agent_resume_discover::file::{self, Kind};
use anyhow::{Context, Result};

pub use agent_resume_engine::fs::RealFs;
pub use agent_resume_engine::restore::{arm_and_report, decide, Decided};

/// The largest layout file read.
const MAX_LAYOUT: u64 = 16 << 20;

/// Reads a layout file (`-` for stdin).
pub fn read_layout(path: &Path) -> Result<Layout> {
    let text = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_LAYOUT)
            .read_to_end(&mut bytes)
            .context("cannot read the layout from stdin")?;
        String::from_utf8(bytes).context("the layout on stdin is not UTF-8")?
    } else {
        // UTF-8 checked once over the whole text rather than string by
        // string inside the parser.
        file::read_text(path, Kind::Layout, MAX_LAYOUT)?
    };
    serde_json::from_str(&text)
        .context("layout is not a valid layout document (see docs/layout.md)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_layout_is_read_as_utf8_json_and_anything_else_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = dir.path().join("good.json");
        let id = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
        let text = format!(
            r#"{{"startup":true,"windows":[{{"tabs":[{{"panes":[{{"id":"{id}","cwd":"/tmp/caf\u00e9 é","shell":"zsh"}}]}}]}}]}}"#
        );
        fs::write(&good, &text).expect("writes");
        let layout = read_layout(&good).expect("a valid layout");
        let (spec, _) = layout.panes().next().expect("one pane");
        assert_eq!(spec.cwd.as_deref(), Some(Path::new("/tmp/café é")));
        // Invalid UTF-8 inside a string, and between values.
        let mut inside = text.clone().into_bytes();
        inside[text.find('é').expect("an é")] = 0xff;
        let mut between = text.clone().into_bytes();
        between.insert(between.len() - 1, 0xff);
        for (name, bytes) in [("inside", inside), ("between", between)] {
            let bad = dir.path().join(name);
            fs::write(&bad, &bytes).expect("writes");
            assert!(read_layout(&bad).is_err(), "{name}");
        }
    }
}
