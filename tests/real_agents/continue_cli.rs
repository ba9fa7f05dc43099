//! Continue CLI (`cn`), offline: it has no resume by id (`--resume` takes
//! the last session; `--fork <made-up id>` silently starts a new one), so
//! a pane running it must come back as a plain shell, never in a wrong
//! conversation.

use std::fs;
use std::time::Duration;

use super::versions::{Setup, CONTINUE};
use super::{agent_args, agent_resume, bash_pane, files_under, text, tmux_save, tree, Sandbox};

/// `~/.continue/config.yaml` with one OpenAI-style model at the stand-in
/// (named `gpt-4o`: another name gets a capability warning first). cn
/// 1.5.47 never shows its prompt while `CI` is set, even empty.
pub(crate) fn setup(s: &mut Setup<'_>) {
    let dir = s.home.join(".continue");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("config.yaml"),
        format!(
            "name: standin\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: standin\n    \
             provider: openai\n    model: gpt-4o\n    apiBase: {}/v1\n    apiKey: x\n",
            s.url
        ),
    )
    .unwrap();
}

/// The sandbox's cn config, written by [`setup`]; its path.
fn config(sb: &mut Sandbox) -> String {
    let (home, proj, url) = (sb.home(), sb.proj(), sb.server.url());
    (CONTINUE.setup)(&mut Setup {
        cli: &CONTINUE,
        home: &home,
        proj: &proj,
        url: &url,
        env: &mut sb.env,
    });
    home.join(".continue/config.yaml")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_pane_running_continue_is_reported_not_resumable_by_id_and_comes_back_as_a_plain_shell() {
    let mut sb = Sandbox::new(&CONTINUE, true);
    let name = sb.name();
    let config = config(&mut sb);
    // `--fork` of an id no store holds is no refusal: a new session
    // answers.
    let (args, said, code) = CONTINUE.made_up;
    let mut fork = vec!["--config", config.as_str()];
    fork.extend(args);
    let forked = sb.cli(&fork, &[]);
    assert!(
        forked.status.code() == code && text(&forked.stdout).contains(said),
        "{name}: `cn --fork <made-up id>`: {:?} {}{}",
        forked.status.code(),
        text(&forked.stdout),
        text(&forked.stderr)
    );
    let tmux = sb.tmux();
    let pane = bash_pane(&sb, &tmux);
    let shell: u32 = tmux
        .pane_format(&pane, "#{pane_pid}")
        .parse()
        .expect("the pane's pid");
    // cn 1.5.47 never shows its prompt while `CI` is set, even empty (the
    // sandbox sets it empty for the other CLIs).
    tmux.type_line(&pane, "unset CI");
    tmux.type_line(
        &pane,
        &format!("{} --config {config} --auto", sb.exe.display()),
    );
    tmux.wait_screen(&pane, "cn's prompt", |s| s.contains("Ask anything"));
    // A turn, so its store holds a session of this directory.
    let sessions = sb.home().join(".continue/sessions");
    let forked_files = files_under(&sessions);
    let mut typed = std::time::Instant::now() - Duration::from_secs(10);
    agent_resume_test_support::wait_for(&format!("{name}: a session with a reply"), || {
        let done = files_under(&sessions).iter().any(|p| {
            p.file_name().is_some_and(|n| n != "sessions.json")
                && !forked_files.contains(p)
                && fs::read_to_string(p).is_ok_and(|t| t.contains("\"ok\""))
        });
        if !done && typed.elapsed() > Duration::from_secs(4) {
            super::submit(&tmux, &pane, "hello");
            typed = std::time::Instant::now();
        }
        done.then_some(())
    });
    assert_eq!(
        agent_args(&CONTINUE, shell).as_deref(),
        Some(&["--config".to_owned(), config.clone(), "--auto".to_owned()][..]),
        "{name}: cn runs in the pane"
    );

    tmux_save(&sb, &tmux);
    let uuid = tmux.pane_format(&pane, "#{@agent_resume_pane}");
    assert!(
        sb.recordings().is_empty(),
        "{name}: a pane running cn was recorded: {:?}",
        sb.recordings()
    );
    let scan = sb
        .command(agent_resume())
        .args(["capture", "scan", "--pane", &format!("{uuid}={shell}")])
        .output()
        .expect("agent-resume runs");
    let said = text(&scan.stdout);
    assert!(
        scan.status.success()
            && said
                .lines()
                .any(|l| l.starts_with(&format!("{uuid}\tcontinue\tnot_resumable_by_id\t"))),
        "{name}: the scan's account of the pane: {said}{}",
        text(&scan.stderr)
    );
    assert!(sb.recordings().is_empty(), "{name}: the scan recorded it");

    // The server goes as a reboot takes it; the restore brings the pane
    // back in its directory as a plain shell.
    for p in tree(shell) {
        super::kill_tree(p);
    }
    tmux.kill_server();
    tmux.ok(&["new-session", "-d", "-s", "fresh", "-x", "200", "-y", "50"]);
    let out = sb
        .command(agent_resume())
        .args(["tmux", "restore", "-L", tmux.socket(), "--recreate"])
        .env("TMUX_TMPDIR", tmux.tmpdir())
        .output()
        .expect("agent-resume runs");
    assert!(
        out.status.success(),
        "{name}: tmux restore failed: {}",
        text(&out.stderr)
    );
    let listing = tmux.ok(&[
        "list-panes",
        "-a",
        "-F",
        "#{@agent_resume_pane} #{pane_pid} #{pane_current_path}",
    ]);
    let back: Vec<&str> = listing
        .lines()
        .find(|l| l.starts_with(&format!("{uuid} ")))
        .unwrap_or_else(|| panic!("{name}: the pane {uuid} is not back: {listing}"))
        .split(' ')
        .collect();
    assert_eq!(
        back[2],
        sb.proj().to_string_lossy(),
        "{name}: the pane is back in its directory"
    );
    let pid: u32 = back[1].parse().expect("the restored pane's pid");
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        agent_args(&CONTINUE, pid),
        None,
        "{name}: cn was started again in the restored pane"
    );
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    assert!(
        tree(pid).len() == 1,
        "{name}: the restored pane runs more than its shell ({}): {:?}",
        String::from_utf8_lossy(&cmdline),
        tree(pid)
    );
}
