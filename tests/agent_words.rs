//! The three integrations decide alike which typed line starts an agent:
//! bash and zsh read a line word by word, fish with one regular expression
//! (`shell_init::fish_agent_pattern`, so a line that is no agent costs
//! fish one match, not a command substitution per word). Each real shell
//! loads its integration and judges every line of one corpus; the answers
//! must be the same.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;
use std::process::Command;

use agent_resume_test_support::{require, PrivateEnv};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// Lines a user types, words apart by spaces, quotes around whole words.
const LINES: &[&str] = &[
    "claude",
    "claude --model opus",
    "  claude",
    "codex resume abc",
    "'claude' --x",
    "\"claude\"",
    "/usr/local/bin/claude",
    "./claude -p hi",
    "'/opt/x/gemini'",
    "FOO=1 claude",
    "FOO=1 BAR=two qwen --yolo",
    "_A9=x codex",
    "env claude",
    "command claude",
    "exec   claude",
    "nohup claude &",
    "env FOO=1 claude",
    "FOO=1 env nohup claude",
    "cursor-agent",
    "kilocode",
    "cn",
    "echo claude",
    "claudex",
    "xclaude",
    "claude-x",
    "cd /tmp",
    "9A=1 claude",
    "=x claude",
    "FOO= claude",
    "sudo claude",
    "time claude",
    "env",
    "command",
    "",
    "   ",
    "git commit -m claude",
    "/claude/bin/ls",
    "ls /usr/bin/claude",
    "claude;ls",
    "claude|less",
    "vim claude.md",
    "opencode run hi",
    "pi",
    "pip install x",
];

#[test]
fn bash_zsh_and_fish_agree_on_which_lines_start_an_agent() {
    let env = PrivateEnv::for_shells(bin());
    let root = env.root().to_owned();
    let corpus = root.join("lines");
    fs::write(&corpus, LINES.join("\n") + "\n").unwrap();
    let init = |shell: &str| {
        let out = Command::new(bin())
            .args(["init", shell])
            .env("HOME", root.join("home"))
            .env("XDG_STATE_HOME", root.join("state"))
            .output()
            .unwrap();
        assert!(out.status.success());
        let path = root.join(format!("init.{shell}"));
        fs::write(&path, out.stdout).unwrap();
        path
    };
    let judge = |shell: &str, script: String| -> Vec<String> {
        let out = Command::new(require(shell))
            .args(match shell {
                "fish" => vec!["--no-config", "-c"],
                "zsh" => vec!["-f", "-c"],
                _ => vec!["--norc", "-c"],
            })
            .arg(script)
            .env("HOME", root.join("home"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let corpus = corpus.display();
    let bash = judge(
        "bash",
        format!(
            ". {}\nwhile IFS= read -r l; do __agent_resume_is_agent \"$l\" && echo y || echo n; done < {corpus}",
            init("bash").display()
        ),
    );
    let zsh = judge(
        "zsh",
        format!(
            ". {}\nwhile IFS= read -r l; do _agent_resume_is_agent \"$l\" && echo y || echo n; done < {corpus}",
            init("zsh").display()
        ),
    );
    let fish = judge(
        "fish",
        format!(
            "source {}\nwhile read -l l; if __agent_resume_is_agent \"$l\"; echo y; else; echo n; end; end < {corpus}",
            init("fish").display()
        ),
    );
    assert_eq!(bash.len(), LINES.len(), "{bash:?}");
    let mut differ = Vec::new();
    for (i, line) in LINES.iter().enumerate() {
        if bash[i] != zsh[i] || bash[i] != fish[i] {
            differ.push(format!(
                "{line:?}: bash {} zsh {} fish {}",
                bash[i], zsh[i], fish[i]
            ));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
    // The corpus holds both answers.
    assert!(bash.iter().any(|a| a == "y") && bash.iter().any(|a| a == "n"));
}
