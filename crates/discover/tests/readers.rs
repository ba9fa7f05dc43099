//! The two readers that are C builds, cargo features `sqlite` (OpenCode's
//! database) and `zstd` (compressed Codex rollouts): with one, its store is
//! listed; without it, what is there is a `not_built` note, never a panic,
//! and every other store is listed as before. Runs in both builds
//! (`scripts/test` runs this crate's tests with `--no-default-features`).
#![allow(clippy::unwrap_used)]

mod fixtures;

use std::io;

use agent_resume_core::{AgentKind, SessionProbe};
use agent_resume_discover::read::{records_of_file, Depth, ZSTD_READER};
use agent_resume_discover::{list, read_path, Homes, Listing, PathError, Problem, StoreProbe};
use fixtures::*;

fn notes_of(l: &Listing, agent: AgentKind) -> Vec<(Problem, std::path::PathBuf)> {
    l.notes
        .iter()
        .filter(|n| n.agent == agent)
        .map(|n| (n.problem, n.path.clone()))
        .collect()
}

fn listed(l: &Listing) -> Vec<(AgentKind, &str)> {
    let mut v: Vec<_> = l
        .sessions
        .iter()
        .map(|s| (s.agent, s.id.as_str()))
        .collect();
    v.sort();
    v
}

#[test]
fn kilo_sessions_are_read_by_opencode_s_reader_from_kilo_s_own_database() {
    const KILO: &str = "ses_dbb8c72ccffeKl44QKSROO4vRB";
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let homes = Homes::under(&home);
    let db = opencode_db(
        home.join(".local/share/kilo/kilo.db"),
        &[(KILO, &cwd, "Kilo fixture", None, NOW_MS)],
    );
    opencode(&home, &[(OPENCODE, &cwd, "OpenCode fixture", None, NOW_MS)]);
    let l = list(&homes, &[AgentKind::Kilo], Depth::FAST);
    let probe = StoreProbe::new(&homes);
    if cfg!(feature = "sqlite") {
        assert_eq!(listed(&l), [(AgentKind::Kilo, KILO)]);
        assert_eq!(l.sessions[0].cwd.as_deref(), Some(cwd.as_path()));
        assert_eq!(probe.exists(AgentKind::Kilo, KILO, None), Some(true));
        assert_eq!(
            probe.exists(AgentKind::Kilo, OPENCODE, None),
            Some(false),
            "OpenCode's session is not Kilo's"
        );
        assert_eq!(
            listed(&list(&homes, &[], Depth::FAST)),
            [(AgentKind::Opencode, OPENCODE), (AgentKind::Kilo, KILO)]
        );
    } else {
        assert_eq!(notes_of(&l, AgentKind::Kilo), [(Problem::NotBuilt, db)]);
    }
}

#[test]
fn opencode_sessions_are_listed_with_the_sqlite_reader_and_a_not_built_note_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let homes = Homes::under(&home);
    // No database: missing in either build.
    let l = list(&homes, &[AgentKind::Opencode], Depth::FAST);
    assert_eq!(
        notes_of(&l, AgentKind::Opencode),
        [(
            Problem::StoreMissing,
            home.join(".local/share/opencode/opencode.db")
        )]
    );
    let db = opencode(&home, &[(OPENCODE, &cwd, "OpenCode fixture", None, NOW_MS)]);
    qwen(&home, &cwd, QWEN, "still listed", NOW_MS - 1000);
    for depth in [Depth::FAST, Depth::Full] {
        let l = list(&homes, &[], depth);
        let probe = StoreProbe::new(&homes);
        if cfg!(feature = "sqlite") {
            assert_eq!(
                listed(&l),
                [(AgentKind::Opencode, OPENCODE), (AgentKind::Qwen, QWEN)]
            );
            assert_eq!(notes_of(&l, AgentKind::Opencode), []);
            assert_eq!(
                probe.exists(AgentKind::Opencode, OPENCODE, None),
                Some(true)
            );
        } else {
            assert_eq!(listed(&l), [(AgentKind::Qwen, QWEN)]);
            assert_eq!(
                notes_of(&l, AgentKind::Opencode),
                [(Problem::NotBuilt, db.clone())]
            );
            assert_eq!(
                probe.exists(AgentKind::Opencode, OPENCODE, None),
                None,
                "without the reader it cannot tell"
            );
        }
    }
}

#[test]
fn compressed_rollouts_are_read_with_the_zstd_reader_and_a_not_built_note_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let homes = Homes::under(&home);
    let plain_id = "019ad4e7-3c80-7ae0-a931-48a4aec65cd8";
    assert_eq!(
        ZSTD_READER,
        cfg!(feature = "zstd"),
        "the build says what it reads"
    );
    let zst = codex(&home, &cwd, CODEX, "compressed", NOW_MS, true);
    let plain = codex(&home, &cwd, plain_id, "plain", NOW_MS - 1000, false);
    for depth in [Depth::FAST, Depth::Full] {
        let l = list(&homes, &[AgentKind::Codex], depth);
        let mut lines = 0;
        let read = records_of_file(&zst, depth, &mut |_| lines += 1);
        if cfg!(feature = "zstd") {
            assert_eq!(
                listed(&l),
                [(AgentKind::Codex, CODEX), (AgentKind::Codex, plain_id)]
            );
            assert_eq!(notes_of(&l, AgentKind::Codex), []);
            assert!(read.is_ok() && lines == 5, "{read:?}, {lines} records");
            assert_eq!(
                read_path(&homes, &zst, depth).map(|s| s.id),
                Ok(CODEX.to_owned())
            );
        } else {
            assert_eq!(listed(&l), [(AgentKind::Codex, plain_id)]);
            assert_eq!(
                notes_of(&l, AgentKind::Codex),
                [(Problem::NotBuilt, zst.clone())]
            );
            assert_eq!(read.map_err(|e| e.kind()), Err(io::ErrorKind::Unsupported));
            assert_eq!(lines, 0, "nothing of it is handed out");
            assert_eq!(
                read_path(&homes, &zst, depth).map(|s| s.id),
                Err(PathError::Skipped(Problem::NotBuilt))
            );
        }
        assert_eq!(
            read_path(&homes, &plain, depth).map(|s| s.id),
            Ok(plain_id.to_owned())
        );
    }
}
