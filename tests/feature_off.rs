//! With the feature off, a shell whose startup file holds the README's
//! line (`agent-resume init <shell> --rc-line`) loads nothing: no function,
//! no hook, no variable, so its start and its prompts run what they would
//! without the line — no process, no tmux call. Off is `agent-resume
//! disable` (the sourced file is removed) or `AGENT_RESUME=0` (the file
//! defines nothing). Real bash, zsh and fish, interactive.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;

use agent_resume_test_support::{require, PrivateEnv};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

struct World {
    env: PrivateEnv,
}

impl World {
    fn new() -> World {
        let env = PrivateEnv::new(bin());
        fs::create_dir_all(env.root().join("xdg-config/fish")).unwrap();
        fs::create_dir_all(env.root().join("zdot")).unwrap();
        World { env }
    }

    fn ar(&self, args: &[&str]) -> String {
        let out = self
            .env
            .program(bin(), args)
            .into_inner()
            .env_remove("AGENT_RESUME")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// Writes each shell's startup file: a prompt, then the README's line.
    fn rc(&self) {
        let root = self.env.root();
        for (shell, path) in [
            ("bash", root.join("bashrc")),
            ("zsh", root.join("zdot/.zshrc")),
            ("fish", root.join("xdg-config/fish/config.fish")),
        ] {
            fs::write(path, self.ar(&["init", shell, "--rc-line"])).unwrap();
        }
    }

    /// What an interactive `shell` reports once its startup file ran: how
    /// many of the integration's functions it has and whether it says it
    /// is loaded.
    fn loaded(&self, shell: &str, off_by_env: bool) -> String {
        let root = self.env.root();
        let (args, probe): (Vec<String>, &str) = match shell {
            "bash" => (
                vec!["--rcfile".into(), root.join("bashrc").display().to_string(), "-i".into()],
                "echo \"$(declare -F | grep -c agent_resume) ${AGENT_RESUME_SHELL-none}\"",
            ),
            "zsh" => (
                vec!["-i".into()],
                "echo \"$(print -l ${(k)functions} | grep -c agent_resume) ${AGENT_RESUME_SHELL-none}\"",
            ),
            _ => (
                vec!["-i".into()],
                "echo (functions -a | grep -c agent_resume) (set -q AGENT_RESUME_SHELL; and echo $AGENT_RESUME_SHELL; or echo none)",
            ),
        };
        let mut c = self
            .env
            .program(require(shell), &[] as &[&str])
            .into_inner();
        c.args(&args)
            .arg("-c")
            .arg(probe)
            .env("HOME", root.join("home"))
            .env("ZDOTDIR", root.join("zdot"))
            .env_remove("AGENT_RESUME")
            .env_remove("TMUX")
            .env_remove("KITTY_LISTEN_ON");
        if off_by_env {
            c.env("AGENT_RESUME", "0");
        }
        let out = c.output().unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .last()
            .unwrap_or_default()
            .trim()
            .to_owned()
    }
}

#[test]
fn with_the_feature_off_the_readme_s_line_loads_nothing_in_bash_zsh_and_fish() {
    let w = World::new();
    w.ar(&["enable"]);
    w.rc();
    for shell in ["bash", "zsh", "fish"] {
        // The control: enabled, the line loads the integration.
        let on = w.loaded(shell, false);
        assert!(
            on.ends_with(&format!(" {shell}")) && !on.starts_with("0 "),
            "{shell}: enabled, the line loads the integration: {on:?}"
        );
        assert_eq!(
            w.loaded(shell, true),
            "0 none",
            "{shell}: AGENT_RESUME=0 loads nothing"
        );
    }
    w.ar(&["disable"]);
    let files = w.env.root().join("xdg-data/agent-resume/shell");
    assert_eq!(
        fs::read_dir(&files).map(|d| d.count()).unwrap_or(0),
        0,
        "disable removes the sourced files"
    );
    for shell in ["bash", "zsh", "fish"] {
        assert_eq!(
            w.loaded(shell, false),
            "0 none",
            "{shell}: disabled, nothing loads"
        );
    }
}
