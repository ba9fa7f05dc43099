//! `agent-resume completions bash|zsh|fish` load in the real shells and
//! complete the subcommands, and `agent-resume man` renders with `man -l`.

use std::process::{Command, Output, Stdio};

use agent_resume_test_support::{require, PrivateEnv};

const BIN: &str = env!("CARGO_BIN_EXE_agent-resume");

/// Runs `shell ARGS` with a scratch HOME and `$BIN` naming the binary.
///
/// The world is [`PrivateEnv::bare`] with what a shell sourcing the
/// completion scripts needs and nothing of the binary's own paths: `HOME`
/// (made), the system's `PATH`, a UTF-8 locale and `$BIN`.
fn run(shell: &str, args: &[&str]) -> Output {
    let mut env = PrivateEnv::bare(BIN);
    std::fs::create_dir_all(env.home()).expect("a temp HOME");
    env.set("HOME", env.home());
    env.set("PATH", "/usr/bin:/bin");
    env.set("BIN", BIN);
    env.set("LANG", "C.UTF-8");
    env.program(require(shell), args)
        .stdin(Stdio::null())
        .output()
}

fn assert_clean(what: &str, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "{what}: status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    stdout
}

#[test]
fn bash_completions_load_and_complete_subcommands() {
    let out = run(
        "bash",
        &[
            "--norc",
            "--noprofile",
            "-c",
            r#"source <("$BIN" completions bash) || exit 9
               spec=$(complete -p agent-resume) || exit 8
               fn=${spec##*-F }; fn=${fn%% *}
               COMP_WORDS=(agent-resume doc); COMP_CWORD=1; COMP_LINE='agent-resume doc'; COMP_POINT=${#COMP_LINE}
               "$fn" agent-resume doc agent-resume
               printf '%s\n' "${COMPREPLY[@]}""#,
        ],
    );
    let stdout = assert_clean("bash", &out);
    assert!(stdout.lines().any(|l| l == "doctor"), "{stdout}");
}

#[test]
fn zsh_completions_load_and_register_the_command() {
    let out = run(
        "zsh",
        &[
            "-f",
            "-c",
            r#"autoload -Uz compinit && compinit -u -D || exit 9
               source <("$BIN" completions zsh) || exit 8
               (( $+functions[_agent-resume] )) || exit 7
               print -r -- "$_comps[agent-resume]""#,
        ],
    );
    let stdout = assert_clean("zsh", &out);
    assert_eq!(stdout.trim(), "_agent-resume");
}

#[test]
fn fish_completions_load_and_complete_subcommands() {
    let out = run(
        "fish",
        &[
            "--no-config",
            "-c",
            r#"$BIN completions fish | source; or exit 9
               complete -C 'agent-resume doc'"#,
        ],
    );
    let stdout = assert_clean("fish", &out);
    assert!(stdout.lines().any(|l| l.starts_with("doctor")), "{stdout}");
}

#[test]
fn the_man_page_renders_and_lists_the_subcommands() {
    let out = Command::new(BIN).arg("man").output().expect("man runs");
    let roff = assert_clean("agent-resume man", &out);
    assert!(roff.contains(".TH agent-resume 1"), "{roff}");
    assert!(
        roff.contains(".SH NAME") && roff.contains(".SH SYNOPSIS"),
        "{roff}"
    );
    assert!(roff.contains("doctor"), "{roff}");
    let dir = tempfile::tempdir().expect("temp dir");
    let page = dir.path().join("agent-resume.1");
    std::fs::write(&page, &roff).expect("write the page");
    let man = require("man");
    let out = Command::new(man)
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "80")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .output()
        .expect("man -l runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "man -l failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("NAME") && text.contains("agent-resume"),
        "{text}"
    );
    assert!(text.contains("doctor"), "{text}");
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    for args in [&["completions", "bash"][..], &["man"][..]] {
        // The read end is closed before the program starts: its first
        // write meets a closed pipe, as `agent-resume … | head` can.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(BIN)
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("agent-resume runs");
        assert_clean(&format!("{args:?} into a closed pipe"), &out);
    }
}
