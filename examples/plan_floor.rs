//! The inherent work of `agent-resume plan` over a layout file, measured
//! beside it by `benches/ratios.rs` (goal P3): read the layout and
//! deserialize it into the same types, `SELECT` the same columns of every
//! stored row with plain rusqlite, resolve each distinct directory once
//! (`realpath`), and write one line per pane with its place, directory and
//! session. No gate, no quoting, no telemetry: what any plan must do.
//!
//! Usage: `plan_floor LAYOUT DATABASE`.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use agent_resume_core::Layout;
use rusqlite::{Connection, OpenFlags};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, layout, db] = args.as_slice() else {
        eprintln!("usage: plan_floor LAYOUT DATABASE");
        std::process::exit(2);
    };
    let text = std::fs::read(layout).expect("reads the layout");
    let layout: Layout = serde_json::from_slice(&text).expect("parses the layout");

    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("opens the database");
    let mut stmt = conn
        .prepare(
            "SELECT pane, agent, session_id, flags, program, cwd, observed_at, config_home \
             FROM agent_sessions",
        )
        .expect("prepares");
    let mut rows = stmt.query([]).expect("queries");
    // pane text → (agent, session id, flags, directory)
    let mut stored: HashMap<String, (String, String, String, String)> = HashMap::new();
    while let Some(r) = rows.next().expect("steps") {
        let text = |i| -> String {
            r.get_ref(i)
                .ok()
                .and_then(|v| v.as_str().ok())
                .unwrap_or("")
                .to_owned()
        };
        stored.insert(text(0), (text(1), text(2), text(3), text(5)));
    }

    let mut real: HashMap<&Path, Option<std::path::PathBuf>> = HashMap::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (wi, w) in layout.windows.iter().enumerate() {
        for (ti, t) in w.tabs.iter().enumerate() {
            for (pi, p) in t.panes.iter().enumerate() {
                let dir = p.cwd.as_deref().unwrap_or(Path::new("-"));
                let same = real
                    .entry(dir)
                    .or_insert_with(|| std::fs::canonicalize(dir).ok())
                    .is_some();
                let id = p.id.to_string();
                let (agent, session) = stored
                    .get(&id)
                    .map_or(("-", "-"), |(a, s, _, _)| (a.as_str(), s.as_str()));
                writeln!(
                    out,
                    "w{wi}.t{ti}.p{pi} {} {} {agent} {session}",
                    dir.display(),
                    if same { "resume" } else { "skip" }
                )
                .expect("writes");
            }
        }
    }
    out.flush().expect("flushes");
}
