//! Every store reader on fixture stores generated in a temporary home:
//! found, listed newest first, prefix-bounded, and never stopped by a
//! missing, unreadable, half-written or hostile file.
#![allow(clippy::unwrap_used)]

mod fixtures;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use agent_resume_core::{AgentKind, Catalog, SessionProbe, UnixMillis};
use agent_resume_discover::{
    list, parse_session, read_path, text, Depth, Homes, Listing, PathError, Problem, StoreProbe,
};
use fixtures::*;
use proptest::prelude::*;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    fn work(&self, name: &str) -> PathBuf {
        let p = self.dir.path().join("work").join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }
    fn homes(&self) -> Homes {
        Homes::under(&self.home())
    }
    fn list(&self, depth: Depth) -> Listing {
        list(&self.homes(), &[], depth)
    }
}

fn by_agent(l: &Listing) -> BTreeMap<&'static str, &agent_resume_discover::SessionInfo> {
    l.sessions.iter().map(|s| (s.agent.as_str(), s)).collect()
}

fn problems(l: &Listing) -> Vec<(AgentKind, Problem)> {
    l.notes
        .iter()
        .filter(|n| n.problem != Problem::StoreMissing)
        .map(|n| (n.agent, n.problem))
        .collect()
}

#[test]
fn every_agent_store_is_found_with_its_id_directory_and_first_prompt() {
    let h = Home::new();
    let cwd = h.work("shop");
    every_agent(&h.home(), &cwd);
    for depth in [Depth::FAST, Depth::Full] {
        let l = h.list(depth);
        assert_eq!(problems(&l), [], "{:?}", l.notes);
        let got = by_agent(&l);
        for (agent, id) in ALL {
            let s = got
                .get(agent)
                .unwrap_or_else(|| panic!("{agent} not listed"));
            assert_eq!(s.id, *id, "{agent}");
            assert_eq!(s.cwd.as_deref(), Some(cwd.as_path()), "{agent}");
            let shape = &Catalog::embedded().agent(s.agent).id_shape;
            assert!(shape.matches(&s.id), "{agent}");
        }
        assert_eq!(
            l.sessions.len(),
            ALL.len(),
            "the child OpenCode session is left out"
        );
        // Newest first: the fixture writes them a minute apart in ALL order.
        let order: Vec<&str> = l.sessions.iter().map(|s| s.agent.as_str()).collect();
        let mut want: Vec<&str> = ALL.iter().map(|(a, _)| *a).collect();
        want.reverse();
        assert_eq!(order, want);
        let prompt = |a: &str| got[a].first_prompt.clone();
        assert_eq!(
            prompt("claude").as_deref(),
            Some("fix the flaky login test")
        );
        assert_eq!(prompt("codex").as_deref(), Some("port the parser to rust"));
        assert_eq!(prompt("gemini").as_deref(), Some("explain the build"));
        assert_eq!(prompt("qwen").as_deref(), Some("add a qwen feature"));
        // Grok's history opens with a ~9 KB system prompt: only the full
        // listing reaches the prompt; the fast one names the session by its
        // summary.json.
        let grok_prompt = (depth == Depth::Full).then_some("grok the logs");
        assert_eq!(prompt("grok").as_deref(), grok_prompt, "{depth:?}");
        assert_eq!(prompt("droid").as_deref(), Some("droid, refactor"));
        assert_eq!(prompt("pi").as_deref(), Some("pi: write docs"));
        assert_eq!(prompt("copilot").as_deref(), Some("copilot: review"));
        assert_eq!(got["grok"].display_name(), "Log triage");
        assert_eq!(got["opencode"].display_name(), "OpenCode fixture");
        assert_eq!(got["copilot"].display_name(), "Copilot fixture");
        assert_eq!(got["claude"].display_name(), "fix the flaky login test");
        assert_eq!(prompt("auggie").as_deref(), Some("auggie: explain"));
        assert_eq!(prompt("cline").as_deref(), Some("cline: plan it"));
        assert_eq!(got["cline"].display_name(), "Cline fixture");
    }
}

#[test]
fn a_session_document_is_never_read_past_its_bound_at_any_depth() {
    // Auggie and Cline keep a session as one JSON document: a long
    // conversation is one large file, read to 64 KiB whatever the depth.
    let h = Home::new();
    let cwd = h.work("p");
    let long = "word ".repeat(200_000);
    let a = auggie(&h.home(), &cwd, AUGGIE, "short first prompt", NOW_MS);
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    let later = doc["chatHistory"][0].clone();
    for _ in 0..3 {
        let mut ex = later.clone();
        ex["exchange"]["request_message"] = long.clone().into();
        doc["chatHistory"].as_array_mut().unwrap().push(ex);
    }
    std::fs::write(&a, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let c = cline(&h.home(), &cwd, CLINE, &long, NOW_MS);
    let size = std::fs::metadata(&a).unwrap().len() + std::fs::metadata(&c).unwrap().len();
    assert!(size > 3 << 20);
    for depth in [Depth::FAST, Depth::Full] {
        let l = h.list(depth);
        assert_eq!(problems(&l), [], "{depth:?}");
        let got = by_agent(&l);
        assert_eq!(got["auggie"].id, AUGGIE);
        assert_eq!(got["auggie"].cwd.as_deref(), Some(cwd.as_path()));
        assert_eq!(
            got["auggie"].first_prompt.as_deref(),
            Some("short first prompt")
        );
        // Past the prompt's 1 MB, Cline's directory came first.
        assert_eq!(got["cline"].id, CLINE);
        assert_eq!(got["cline"].cwd.as_deref(), Some(cwd.as_path()));
        assert_eq!(
            got["auggie"].message_count, None,
            "not read whole: not counted"
        );
        assert!(
            l.stats.bytes_read <= 2 * (64 << 10),
            "{depth:?} read {} bytes",
            l.stats.bytes_read
        );
    }
}

#[test]
fn a_session_document_naming_another_id_than_its_name_is_a_bad_id() {
    let h = Home::new();
    let cwd = h.work("p");
    let a = auggie(&h.home(), &cwd, AUGGIE, "x", NOW_MS);
    std::fs::rename(&a, a.with_file_name(format!("{CLAUDE}.json"))).unwrap();
    let c = cline(&h.home(), &cwd, CLINE, "x", NOW_MS);
    let other = "1796039460000_zzzzz";
    let dir = c.parent().unwrap().with_file_name(other);
    std::fs::rename(c.parent().unwrap(), &dir).unwrap();
    std::fs::rename(
        dir.join(format!("{CLINE}.json")),
        dir.join(format!("{other}.json")),
    )
    .unwrap();
    let l = h.list(Depth::FAST);
    assert!(l.sessions.is_empty(), "{:?}", l.sessions);
    assert_eq!(
        problems(&l),
        [
            (AgentKind::Auggie, Problem::BadId),
            (AgentKind::Cline, Problem::BadId)
        ]
    );
}

#[test]
fn full_listing_counts_messages_and_the_fast_one_does_not() {
    let h = Home::new();
    let cwd = h.work("p");
    claude(&h.home(), &cwd, CLAUDE, "go", NOW_MS, 3);
    let fast = h.list(Depth::FAST);
    assert_eq!(fast.sessions[0].message_count, None);
    let full = h.list(Depth::Full);
    // The meta record is not a message: prompt, reply, 3 × (tool result, reply).
    assert_eq!(full.sessions[0].message_count, Some(8));
}

#[test]
fn prefix_listing_reads_no_more_than_its_bound_per_file() {
    let h = Home::new();
    let cwd = h.work("p");
    let p = claude(&h.home(), &cwd, CLAUDE, "unused", NOW_MS, 0);
    // One first record that straddles the bound: read to 4 KiB it is cut
    // (only its directory is recovered); read further it would be whole and
    // name a prompt. After it, a title the user set, then a megabyte of
    // garbage. Reading past the bound would change what is shown.
    let c = cwd.to_string_lossy();
    let mut bytes = format!(
        "{{\"cwd\":\"{c}\",\"sessionId\":\"{CLAUDE}\",\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
        "p".repeat(5000)
    )
    .into_bytes();
    bytes.extend_from_slice(
        format!("{{\"type\":\"custom-title\",\"customTitle\":\"LATE TITLE\",\"sessionId\":\"{CLAUDE}\"}}\n")
            .as_bytes(),
    );
    bytes.extend((0..(1u32 << 20)).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    std::fs::write(&p, &bytes).unwrap();
    codex(&h.home(), &cwd, CODEX, "zipped", NOW_MS, true);
    let fast = h.list(Depth::FAST);
    let got = by_agent(&fast);
    assert_eq!(problems(&fast), []);
    assert_eq!(
        got["claude"].display_name(),
        CLAUDE,
        "nothing past the bound was read"
    );
    assert_eq!(got["claude"].cwd.as_deref(), Some(cwd.as_path()));
    assert_eq!(got["codex"].first_prompt.as_deref(), Some("zipped"));
    assert_eq!(fast.stats.files, 2);
    let zst = std::fs::metadata(got["codex"].path.as_path())
        .unwrap()
        .len();
    assert!(zst <= 4096 * 16);
    assert_eq!(
        fast.stats.bytes_read - zst,
        4096,
        "the plain file is read to exactly its bound"
    );
    let full = h.list(Depth::Full);
    let whole = by_agent(&full)["claude"];
    assert_eq!(whole.display_name(), "LATE TITLE");
    assert!(whole
        .first_prompt
        .as_deref()
        .is_some_and(|t| t.starts_with("ppp")));
    assert!(full.stats.bytes_read > 1 << 20);
}

#[test]
fn a_first_record_longer_than_the_bound_still_yields_its_directory() {
    let h = Home::new();
    let cwd = h.work("long");
    let huge = "x".repeat(10_000);
    claude(&h.home(), &cwd, CLAUDE, &huge, NOW_MS, 0);
    // Put the long prompt first: rewrite without the meta record.
    let p = h
        .home()
        .join(".claude/projects")
        .join(slug(&cwd))
        .join(format!("{CLAUDE}.jsonl"));
    let text = std::fs::read_to_string(&p).unwrap();
    let rest: Vec<&str> = text.lines().skip(1).collect();
    std::fs::write(&p, rest.join("\n") + "\n").unwrap();
    let l = h.list(Depth::FAST);
    assert_eq!(problems(&l), []);
    assert_eq!(l.sessions[0].cwd.as_deref(), Some(cwd.as_path()));
}

#[test]
fn half_written_and_garbage_files_are_skipped_with_a_note_and_the_rest_listed() {
    let h = Home::new();
    let cwd = h.work("p");
    claude(&h.home(), &cwd, CLAUDE, "good", NOW_MS, 0);
    let dir = h.home().join(".claude/projects").join(slug(&cwd));
    let half = "0f6066eb-140e-4519-ab63-b9cde0b60b57";
    std::fs::write(
        dir.join(format!("{half}.jsonl")),
        br#"{"parentUuid":null,"isSidechain":false,"sess"#,
    )
    .unwrap();
    let empty = "1f6066eb-140e-4519-ab63-b9cde0b60b57";
    std::fs::write(dir.join(format!("{empty}.jsonl")), b"").unwrap();
    let garbage = "2f6066eb-140e-4519-ab63-b9cde0b60b57";
    std::fs::write(
        dir.join(format!("{garbage}.jsonl")),
        b"\x00\xff\xfe binary\n\x1b[2J\x07\n\xc3\x28\n",
    )
    .unwrap();
    let l = h.list(Depth::FAST);
    assert_eq!(l.sessions.len(), 1);
    assert_eq!(l.sessions[0].id, CLAUDE);
    let mut p = problems(&l);
    p.sort();
    assert_eq!(
        p,
        [
            (AgentKind::Claude, Problem::HalfWritten),
            (AgentKind::Claude, Problem::HalfWritten),
            (AgentKind::Claude, Problem::Garbage)
        ]
    );
    // A live session whose last record is being written is listed.
    append(&dir.join(format!("{CLAUDE}.jsonl")), br#"{"type":"assist"#);
    assert_eq!(h.list(Depth::Full).sessions.len(), 1);
}

#[test]
fn non_utf8_names_are_skipped_with_a_note() {
    let h = Home::new();
    let cwd = h.work("p");
    claude(&h.home(), &cwd, CLAUDE, "good", NOW_MS, 0);
    let dir = h.home().join(".claude/projects").join(slug(&cwd));
    let bad = dir.join(OsStr::from_bytes(b"\xff\xfe-not-utf8.jsonl"));
    std::fs::write(&bad, b"{}\n").unwrap();
    // A project directory whose own name is not UTF-8 still has sessions.
    let odd = h
        .home()
        .join(".claude/projects")
        .join(OsStr::from_bytes(b"-home-\xe9t\xe9"));
    std::fs::create_dir_all(&odd).unwrap();
    std::fs::copy(
        dir.join(format!("{CLAUDE}.jsonl")),
        odd.join("0f6066eb-140e-4519-ab63-b9cde0b60b57.jsonl"),
    )
    .unwrap();
    let l = h.list(Depth::FAST);
    assert_eq!(l.sessions.len(), 2);
    assert_eq!(problems(&l), [(AgentKind::Claude, Problem::BadName)]);
    assert_eq!(
        l.notes
            .iter()
            .find(|n| n.problem == Problem::BadName)
            .unwrap()
            .path,
        bad
    );
}

#[test]
fn zstd_rollout_is_read_and_a_plain_sibling_wins() {
    let h = Home::new();
    let cwd = h.work("p");
    let zst = codex(&h.home(), &cwd, CODEX, "compressed", NOW_MS, true);
    let l = h.list(Depth::FAST);
    assert_eq!(l.sessions.len(), 1);
    assert_eq!(l.sessions[0].first_prompt.as_deref(), Some("compressed"));
    assert_eq!(l.sessions[0].path, zst);
    let plain = codex(&h.home(), &cwd, CODEX, "plain", NOW_MS - 1000, false);
    let l = h.list(Depth::Full);
    assert_eq!(l.sessions.len(), 1);
    assert_eq!(l.sessions[0].path, plain);
    assert_eq!(l.sessions[0].message_count, Some(2));
}

#[test]
fn missing_and_unreadable_stores_are_notes_never_errors() {
    let h = Home::new();
    let l = h.list(Depth::FAST);
    assert!(l.sessions.is_empty());
    assert_eq!(l.notes.len(), agent_resume_discover::READABLE.len());
    assert!(l.notes.iter().all(|n| n.problem == Problem::StoreMissing));
    // A file where the store's directory should be cannot be read as one.
    std::fs::create_dir_all(h.home().join(".claude")).unwrap();
    std::fs::write(h.home().join(".claude/projects"), b"not a dir").unwrap();
    std::fs::create_dir_all(h.home().join(".local/share/opencode")).unwrap();
    std::fs::write(
        h.home().join(".local/share/opencode/opencode.db"),
        b"not a database, just text",
    )
    .unwrap();
    let cwd = h.work("p");
    qwen(&h.home(), &cwd, QWEN, "still here", NOW_MS);
    let l = h.list(Depth::FAST);
    assert_eq!(l.sessions.len(), 1);
    let mut p = problems(&l);
    p.sort();
    assert_eq!(
        p,
        [
            (AgentKind::Claude, Problem::StoreUnreadable),
            (AgentKind::Opencode, Problem::StoreUnreadable)
        ]
    );
}

#[test]
fn ids_failing_their_shape_are_never_listed() {
    let h = Home::new();
    let cwd = h.work("p");
    let p = claude(&h.home(), &cwd, CLAUDE, "x", NOW_MS, 0);
    std::fs::copy(
        &p,
        p.with_file_name("F6066EBB-140E-4519-AB63-B9CDE0B60B57.jsonl"),
    )
    .unwrap();
    std::fs::copy(&p, p.with_file_name("$(reboot).jsonl")).unwrap();
    // Gemini takes its id from the header: a hostile one is refused.
    let g = gemini(&h.home(), &cwd, GEMINI, "x", NOW_MS);
    let text = std::fs::read_to_string(&g).unwrap();
    std::fs::write(&g, text.replacen(GEMINI, "a1b2c3d4; rm -rf ~", 1)).unwrap();
    let l = h.list(Depth::FAST);
    let ids: Vec<&str> = l.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [CLAUDE]);
    assert_eq!(problems(&l), [(AgentKind::Gemini, Problem::BadId)]);
}

#[test]
fn hostile_titles_and_prompts_are_shown_without_control_characters() {
    let h = Home::new();
    let cwd = h.work("p");
    claude(
        &h.home(),
        &cwd,
        CLAUDE,
        "evil\x1b]0;pwned\x07\nsecond line\u{202e}txt",
        NOW_MS,
        0,
    );
    let l = h.list(Depth::FAST);
    let name = l.sessions[0].display_name();
    assert!(!name.chars().any(text::is_stripped), "{name:?}");
    assert_eq!(name, "evil ]0;pwned second line txt");
    assert_eq!(l.sessions[0].compact_name(8), "evil ]0…");
}

#[test]
fn opencode_database_is_never_written() {
    let h = Home::new();
    let cwd = h.work("p");
    every_agent(&h.home(), &cwd);
    let db = h.home().join(".local/share/opencode/opencode.db");
    let before = std::fs::read(&db).unwrap();
    let dir_before: Vec<_> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    h.list(Depth::Full);
    let probe_homes = h.homes();
    let probe = StoreProbe::new(&probe_homes);
    assert_eq!(
        probe.exists(AgentKind::Opencode, OPENCODE, None),
        Some(true)
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let dir_after: Vec<_> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(dir_before, dir_after, "no journal or WAL file appears");
}

#[test]
fn session_probe_says_exists_missing_or_cannot_tell_for_every_agent() {
    let h = Home::new();
    let cwd = h.work("p");
    every_agent(&h.home(), &cwd);
    let homes = h.homes();
    let probe = StoreProbe::new(&homes);
    for (agent, id) in ALL {
        let kind = AgentKind::from_name(agent).unwrap();
        assert_eq!(probe.exists(kind, id, None), Some(true), "{agent}");
        let other = if kind == AgentKind::Opencode {
            "ses_0b5cefde2ffeXhHuHeWoYLX8iQ".to_owned()
        } else {
            "00000000-0000-4000-8000-000000000000".to_owned()
        };
        assert_eq!(probe.exists(kind, &other, None), Some(false), "{agent}");
    }
    let empty = Homes::under(&h.dir.path().join("nobody"));
    let probe = StoreProbe::new(&empty);
    for (agent, id) in ALL {
        let kind = AgentKind::from_name(agent).unwrap();
        assert_eq!(
            probe.exists(kind, id, None),
            None,
            "{agent}: no store, cannot tell"
        );
    }
    // A recording's config home is where its store is looked for.
    assert_eq!(
        probe.exists(AgentKind::Claude, CLAUDE, Some(&h.home().join(".claude"))),
        Some(true)
    );
    assert_eq!(probe.exists(AgentKind::Kimi, "session_x", None), None);
}

#[test]
fn a_session_file_path_reads_as_its_session_and_other_paths_are_refused() {
    let h = Home::new();
    let cwd = h.work("p");
    let p = claude(&h.home(), &cwd, CLAUDE, "by path", NOW_MS, 0);
    let homes = h.homes();
    let s = read_path(&homes, &p, Depth::FAST).unwrap();
    assert_eq!((s.agent, s.id.as_str()), (AgentKind::Claude, CLAUDE));
    let g = grok(&h.home(), &cwd, GROK, "dir", "Grok dir", NOW_MS);
    assert_eq!(read_path(&homes, &g, Depth::FAST).unwrap().id, GROK);
    assert_eq!(
        read_path(&homes, &g.join("chat_history.jsonl"), Depth::FAST)
            .unwrap()
            .id,
        GROK
    );
    let outside = h.work("elsewhere").join("x.jsonl");
    std::fs::write(&outside, b"{}\n").unwrap();
    assert_eq!(
        read_path(&homes, &outside, Depth::FAST),
        Err(PathError::NotInAStore)
    );
    let side = h
        .home()
        .join(".claude/projects")
        .join(slug(&cwd))
        .join("notes.txt");
    std::fs::write(&side, b"x").unwrap();
    assert_eq!(
        read_path(&homes, &side, Depth::FAST),
        Err(PathError::NotASession)
    );
}

#[test]
fn listing_one_agent_reads_only_that_store() {
    let h = Home::new();
    let cwd = h.work("p");
    every_agent(&h.home(), &cwd);
    let l = list(&h.homes(), &[AgentKind::Codex], Depth::FAST);
    assert_eq!(l.sessions.len(), 1);
    assert_eq!(l.sessions[0].agent, AgentKind::Codex);
    assert_eq!(l.stats.files, 1);
}

#[test]
fn modified_time_is_the_files_own() {
    let h = Home::new();
    let cwd = h.work("p");
    claude(&h.home(), &cwd, CLAUDE, "x", NOW_MS - 5000, 0);
    assert_eq!(
        h.list(Depth::FAST).sessions[0].modified,
        UnixMillis(NOW_MS - 5000)
    );
}

fn any_agent() -> impl Strategy<Value = AgentKind> {
    prop::sample::select(
        agent_resume_discover::READABLE
            .iter()
            .copied()
            .filter(|a| *a != AgentKind::Opencode)
            .collect::<Vec<_>>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_session_parsed_from_arbitrary_bytes_has_a_shaped_id_and_a_clean_name(
        agent in any_agent(),
        name in prop::sample::select(vec![
            format!("{CLAUDE}.jsonl"), format!("rollout-2026-11-30T11-59-00-{CODEX}.jsonl"),
            format!("2026-11-30T11-59-00-000Z_{PI}.jsonl"), GROK.to_owned(), "x.jsonl".to_owned(),
        ]),
        head in prop::sample::select(vec![
            String::new(),
            format!("{{\"type\":\"session\",\"id\":\"{PI}\",\"cwd\":\"/p\"}}\n"),
            format!("{{\"sessionId\":\"{GEMINI}\",\"startTime\":\"2026-11-30T11:59:00Z\"}}\n"),
            "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"\\u001b[2J\\nhi\"}}\n".to_owned(),
        ]),
        body in prop::collection::vec(any::<u8>(), 0..512),
        depth in prop::sample::select(vec![Depth::Prefix(64), Depth::FAST, Depth::Full]),
    ) {
        let mut bytes = head.into_bytes();
        bytes.extend(body);
        if let Ok(s) = parse_session(agent, &name, &bytes, depth) {
            prop_assert!(Catalog::embedded().agent(agent).id_shape.matches(&s.id));
            let shown = s.display_name();
            prop_assert!(!shown.chars().any(char::is_control), "{:?}", shown);
            prop_assert!(!shown.is_empty());
        }
    }
}

#[test]
fn notes_come_in_the_order_of_the_walk_however_many_threads_read() {
    let h = Home::new();
    let mut want = Vec::new();
    for project in 0..4 {
        let cwd = h.work(&format!("p{project}"));
        for i in 0..60u32 {
            let id = format!("{project:08x}-0000-4000-8000-{i:012x}");
            let p = claude(&h.home(), &cwd, &id, "task", NOW_MS - i64::from(i), 0);
            if i % 9 == 4 {
                std::fs::write(&p, b"not json\n").unwrap();
                want.push(p);
            }
        }
    }
    // The walk lists each directory's names in order, and the directories in
    // order of their names: the order of the paths.
    want.sort();
    for _ in 0..5 {
        let l = h.list(Depth::FAST);
        assert_eq!(l.sessions.len(), 240 - want.len());
        let got: Vec<_> = l
            .notes
            .iter()
            .filter(|n| n.problem != Problem::StoreMissing)
            .map(|n| (n.problem, n.path.clone()))
            .collect();
        let expected: Vec<_> = want.iter().map(|p| (Problem::Garbage, p.clone())).collect();
        assert_eq!(got, expected);
    }
}

#[test]
fn a_linked_session_file_shows_the_time_of_the_file_it_leads_to() {
    let h = Home::new();
    let cwd = h.work("p");
    let real = claude(&h.home(), &cwd, CLAUDE, "x", NOW_MS - 5000, 0);
    let kept = h.dir.path().join("kept.jsonl");
    std::fs::rename(&real, &kept).unwrap();
    std::os::unix::fs::symlink(&kept, &real).unwrap();
    let l = h.list(Depth::FAST);
    assert_eq!(l.sessions.len(), 1);
    assert_eq!(l.sessions[0].modified, UnixMillis(NOW_MS - 5000));
}

#[test]
fn a_codex_session_without_a_user_event_shows_its_first_user_item_with_text() {
    let name = format!("rollout-2026-11-30T11-59-00-{CODEX}.jsonl");
    let item = |text: &str| {
        serde_json::json!({"type":"response_item","payload":{"type":"message","role":"user",
            "content":[{"type":"input_text","text":text}]}})
        .to_string()
            + "\n"
    };
    let meta = format!(
        "{{\"type\":\"session_meta\",\"payload\":{{\"id\":\"{CODEX}\",\"cwd\":\"/p\"}}}}\n"
    );
    // Injected context first (not what the user typed), then the user's
    // items; once with enough context between them that the items kept for
    // later are read on the way.
    let context = item(&format!("<environment_context>{}", "x".repeat(2000)));
    for between in [0, 40] {
        let mut file = meta.clone() + &context + &item("first");
        file += &context.repeat(between);
        file += &item("second");
        let s = parse_session(AgentKind::Codex, &name, file.as_bytes(), Depth::Full).unwrap();
        assert_eq!(s.first_prompt.as_deref(), Some("first"), "{between}");
        // A user event wins over every item.
        file += "{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"event\"}}\n";
        let s = parse_session(AgentKind::Codex, &name, file.as_bytes(), Depth::Full).unwrap();
        assert_eq!(s.first_prompt.as_deref(), Some("event"), "{between}");
    }
}

#[test]
fn parsing_a_session_document_reads_it_as_a_listing_does() {
    // `parse_session` is what the fuzz target `session_store_line` drives.
    let h = Home::new();
    let cwd = h.work("p");
    let a = std::fs::read(auggie(&h.home(), &cwd, AUGGIE, "go", NOW_MS)).unwrap();
    let c = std::fs::read(cline(&h.home(), &cwd, CLINE, "go", NOW_MS)).unwrap();
    let name = |id: &str| format!("{id}.json");
    for (agent, id, bytes) in [
        (AgentKind::Auggie, AUGGIE, &a),
        (AgentKind::Cline, CLINE, &c),
    ] {
        let s = parse_session(agent, &name(id), bytes, Depth::Full).unwrap();
        assert_eq!((s.id.as_str(), s.cwd.as_deref()), (id, Some(cwd.as_path())));
        assert_eq!(s.first_prompt.as_deref(), Some("go"));
        // Another id's name, a cut document, bytes that are no document.
        let other = parse_session(agent, &name(CLAUDE), bytes, Depth::FAST);
        assert_eq!(other.err(), Some(Problem::BadId), "{agent}");
        let cut = parse_session(agent, &name(id), &bytes[..bytes.len() / 2], Depth::Full);
        assert_eq!(cut.err(), Some(Problem::HalfWritten), "{agent}");
        let junk = parse_session(agent, &name(id), b"\x1b[31m", Depth::FAST);
        assert_eq!(junk.err(), Some(Problem::Garbage), "{agent}");
    }
    let s = parse_session(AgentKind::Auggie, &name(AUGGIE), &a, Depth::Full).unwrap();
    assert_eq!(s.message_count, Some(2));
    let s = parse_session(AgentKind::Cline, &name(CLINE), &c, Depth::Full).unwrap();
    assert_eq!(s.message_count, None, "its messages are in another file");
}

/// Droid 0.225.2's header names no time; a first message whose content
/// runs past the record limit is cut, and its timestamp, which comes
/// before the content, still gives the session's start (correlation needs
/// it).
#[test]
fn a_droid_session_whose_first_message_is_cut_still_has_its_start_time() {
    let h = Home::new();
    let cwd = h.work("p");
    let id = "79f9b49d-d189-4b91-9594-acbfe72bbc20";
    let at = 1_796_000_000_000;
    let slug = format!(
        "-{}",
        cwd.to_string_lossy().trim_matches('/').replace('/', "-")
    );
    let dir = h.home().join(".factory/sessions").join(slug);
    std::fs::create_dir_all(&dir).unwrap();
    let long = "x".repeat(2 << 20);
    let text = format!(
        "{}\n{}\n",
        serde_json::json!({"type":"session_start","id":id,"title":"t","cwd":cwd.to_string_lossy()}),
        serde_json::json!({"type":"message","id":"m1","timestamp":rfc3339(at),
            "message":{"role":"user","content":[{"type":"text","text":long}]}}),
    );
    let p = dir.join(format!("{id}.jsonl"));
    std::fs::write(&p, text).unwrap();
    set_mtime(&p, at + 60_000);
    for depth in [Depth::FAST, Depth::Full] {
        let l = h.list(depth);
        let s = l
            .sessions
            .iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("{depth:?}: {:?}", l.notes));
        assert_eq!(s.started, Some(UnixMillis(at)), "{depth:?}");
    }
}
