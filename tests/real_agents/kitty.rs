//! The real Codex CLI in a window of real kitty, with no hook: recorded by
//! kitty's save, and back in its window on its conversation when kitty is
//! started again as usual after a crash.
//!
//! The machine is a [`Machine`] (bash with the integration, Codex talking
//! to its own stand-in, no `install-hooks`); kitty runs under a private
//! Xvfb display with kitty.conf as `init kitty` prints it
//! ([`UsualKitty`]), and is started as a desktop launcher starts it,
//! `kitty` with no arguments.

use std::fs;
use std::time::{Duration, Instant};

use agent_resume_test_support::kitty::{windows, Display, UsualKitty};
use agent_resume_test_support::{wait_for, PATIENCE};

use super::{
    agent_args, agent_resume, flags_line, holding, without_resume, Machine, BASH_PROMPT, CODEX,
};

/// Types `text` into the active window of the kitty at `to` and submits
/// it with Enter as kitty's keyboard protocol sends it (`CSI 13 u`): a bare
/// CR from `send-text` lands in Codex's composer as a newline. The Enter
/// comes a moment after the text, which Codex would take for a paste.
fn submit(kitty: &UsualKitty, to: &str, text: &str) {
    kitty
        .at(to, &["send-text", "--", text])
        .expect("kitty takes the text");
    std::thread::sleep(Duration::from_secs(1));
    kitty
        .at(to, &["send-text", "\\x1b[13u"])
        .expect("kitty takes Enter");
}

/// The value of `name` in the environment `pid` started with.
fn environ(pid: u32, name: &str) -> Option<String> {
    let raw = fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{name}=");
    raw.split(|b| *b == 0).find_map(|kv| {
        kv.strip_prefix(prefix.as_bytes())
            .map(|v| String::from_utf8_lossy(v).into_owned())
    })
}

/// The pid of the first process below `shell` that runs Codex.
fn codex_below(shell: u32) -> Option<u32> {
    super::tree(shell).into_iter().skip(1).find(|pid| {
        fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
            c.split(|b| *b == 0)
                .next()
                .is_some_and(|w| w.ends_with(b"/codex") || w == b"codex")
        })
    })
}

/// The pid of the only window's shell of the kitty at `to`.
fn only_shell(kitty: &UsualKitty, to: &str) -> u32 {
    wait_for("the kitty window's shell", || {
        let ls = kitty.ls(to)?;
        let all = windows(&ls);
        assert!(all.len() <= 1, "one window: {all:?}");
        all.first()?.pid
    })
}

/// Codex typed with `--model standin` at the prompt of a kitty window,
/// with no hook installed, its first prompt given only once the launch
/// capture gave up: nothing records it until kitty's save (its zero-config
/// scan) records the window with the rollout's id and exactly the run's
/// flags. kitty is killed and every process of the machine ends (Codex's
/// shared app-server daemon too); `kitty` started again as usual brings
/// the window back with Codex resumed with exactly those flags plus
/// `resume <id>`, its next request carries the earlier reply's marker, and
/// restore.log reports the window (not confirmed: Codex with no hook names
/// its conversation nowhere as it starts) and never that it exited at once.
#[test]
fn codex_with_no_hook_in_a_kitty_window_comes_back_in_it_when_kitty_is_started_as_usual() {
    let display = Display::start();
    let m = Machine::new(&[(&CODEX, &["--model", "standin"])], false);
    let s = &m.seats[0];
    let name = s.cli.name();
    let kitty = UsualKitty::new(agent_resume(), &display, m.env.vars().to_vec());

    let first = kitty.start();
    let to = kitty.address(first);
    wait_for("the first kitty's shell", || {
        kitty.screen(&to).contains(BASH_PROMPT).then_some(())
    });
    let cd = format!("cd {}\r", s.dir.display());
    kitty.at(&to, &["send-text", "--", &cd]).unwrap();
    let shell = only_shell(&kitty, &to);
    wait_for("the shell in the project", || {
        fs::read_link(format!("/proc/{shell}/cwd"))
            .is_ok_and(|d| d == s.dir)
            .then_some(())
    });
    kitty
        .at(&to, &["send-text", "--", &format!("{}\r", s.line())])
        .unwrap();
    let codex = wait_for(&format!("{name}: its process in the window"), || {
        codex_below(shell)
    });
    let pane = wait_for(&format!("{name}: the window's pane id"), || {
        environ(codex, "AGENT_RESUME_PANE")
    });
    wait_for(&format!("{name}: its prompt"), || {
        kitty.screen(&to).contains("OpenAI Codex").then_some(())
    });

    // The first prompt comes late: once the launch capture `note` started
    // for the line has given up (Codex writes its rollout at the first
    // prompt), so only kitty's save can record the window.
    let deadline = Instant::now() + 2 * PATIENCE;
    while m
        .processes()
        .iter()
        .any(|(_, c)| c.contains("capture launch"))
    {
        assert!(
            Instant::now() < deadline,
            "{name}: the launch capture still runs: {:#?}",
            m.processes()
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // A turn, until a rollout holds the reply's marker.
    let store = m.home().join(s.cli.store);
    let deadline = Instant::now() + 3 * PATIENCE;
    let mut typed: Option<Instant> = None;
    let file = loop {
        if let Some(f) = holding(&store, &s.marker).into_iter().next() {
            break f;
        }
        if typed.is_none_or(|at| at.elapsed() > Duration::from_secs(4)) {
            assert!(
                Instant::now() < deadline,
                "{name}: no rollout holds the reply {:?}; the screen:\n{}",
                s.marker,
                kitty.screen(&to)
            );
            submit(&kitty, &to, "hello");
            typed = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let args = agent_args(s.cli, shell).expect("codex runs in the window");
    assert_eq!(args, s.flags, "{name}: the first run's arguments");

    assert!(
        m.recordings().is_empty(),
        "{name}: recorded before any save: {:?}",
        m.recordings()
    );

    // kitty's save, as the shell integration runs it at a prompt.
    m.ar_ok(&["kitty", "save", "--to", &to]);
    let recs = m.recordings();
    let rec = recs
        .iter()
        .find(|r| r["pane"].as_str() == Some(pane.as_str()))
        .unwrap_or_else(|| panic!("{name}: kitty's save recorded no window {pane}: {recs:?}"));
    let id = rec["session_id"].as_str().unwrap_or_default().to_owned();
    assert!(
        rec["agent"] == "codex" && id.len() >= 8 && file.to_string_lossy().contains(&id),
        "{name}: the window {pane} is recorded with the rollout {}: {rec}",
        file.display()
    );
    assert_eq!(
        flags_line(rec),
        s.flags.join(" "),
        "{name}: the recording carries the run's flags"
    );
    let asked_before = s.server.bodies().len();

    // A crash: kitty killed, then every process of the machine gone
    // (Codex's app-server daemon outlives its window).
    kitty.kill(first);
    m.reboot();

    // `kitty` again, as usual: its first window restores the saved kitty
    // in a new kitty and ends.
    let second = kitty.start();
    wait_for("the starting kitty to hand over and end", || {
        kitty.ended(second).then_some(())
    });
    let (restored, to) = wait_for("the restored kitty to listen", || {
        kitty
            .listening()
            .into_iter()
            .find(|(p, _)| ![first, second].contains(p))
    });
    kitty.adopt(restored);
    let shell = only_shell(&kitty, &to);
    let ls = kitty.ls(&to).unwrap_or_default();
    assert_eq!(
        windows(&ls)[0].env.get("AGENT_RESUME_PANE"),
        Some(&pane),
        "{name}: the window comes back with its pane id"
    );
    let resumed = wait_for(&format!("{name}: codex resumed in the window"), || {
        agent_args(s.cli, shell).filter(|a| a.contains(&id))
    });
    eprintln!("{name}: resumed as {resumed:?}");
    let flags: Vec<String> = s.flags.iter().map(ToString::to_string).collect();
    assert_eq!(
        without_resume(s.cli, &resumed, &id),
        Some(flags),
        "{name}: the resumed process runs with exactly the first run's flags and the resume \
         of {id}: {resumed:?}"
    );

    // Its next turn carries the earlier conversation.
    let deadline = Instant::now() + 2 * PATIENCE;
    let mut typed: Option<Instant> = None;
    loop {
        let asked: Vec<String> = s.server.bodies()[asked_before..]
            .iter()
            .filter(|b| b.contains("recall"))
            .cloned()
            .collect();
        if asked.iter().any(|b| b.contains(&s.marker)) {
            break;
        }
        if typed.is_none_or(|at| at.elapsed() > Duration::from_secs(4)) {
            assert!(
                Instant::now() < deadline,
                "{name}: no request after the restart carries the earlier reply {:?}; the \
                 requests with the new prompt: {asked:?}; the screen:\n{}",
                s.marker,
                kitty.screen(&to)
            );
            submit(&kitty, &to, "recall");
            typed = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(100));
    }

    // restore.log reports the window; with no hook Codex names its
    // conversation nowhere as it starts, so it may stay not confirmed, but
    // never exited at once.
    let log = wait_for("the start's summary in restore.log", || {
        fs::read_to_string(m.log())
            .ok()
            .filter(|l| l.contains("agent(s) resumed"))
    });
    eprintln!("restore.log after the restart:\n{log}");
    assert!(
        log.lines().any(|l| {
            l.strip_prefix(&format!("{pane}: codex "))
                .is_some_and(|r| r.starts_with("confirmed (") || r.starts_with("not confirmed ("))
        }),
        "{name}: restore.log does not report the window {pane}:\n{log}"
    );
    assert!(!log.contains(": codex exited at once"), "{name}: {log}");
    assert!(log.contains("1 agent(s) resumed: "), "{name}: {log}");
}
