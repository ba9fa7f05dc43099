//! The pinned agent CLIs of the real-CLI suite: every version in one
//! place, so a version bump is one line here.

use std::path::Path;

use agent_resume_test_support::tmux::Tmux;
use agent_resume_test_support::PrivateEnv;

/// Where a CLI is installed from.
pub(crate) enum Registry {
    /// `npm install <package>@<version> <extra…>` (a platform package the
    /// main one does not pull in offline, say).
    Npm {
        package: &'static str,
        extra: &'static [&'static str],
    },
    /// A venv made with the first of `python` found (on `PATH` or under
    /// `~/.pyenv/versions`), then `pip install <package>==<version>`.
    Pypi {
        package: &'static str,
        python: &'static [&'static str],
    },
}

/// What a CLI's [`Cli::setup`] writes into and sets for its user's home.
pub(crate) struct Setup<'a> {
    pub cli: &'a Cli,
    pub home: &'a Path,
    pub proj: &'a Path,
    /// The stand-in model server this CLI talks to (`http://127.0.0.1:PORT`).
    pub url: &'a str,
    pub env: &'a mut PrivateEnv,
}

/// One pinned agent CLI and what running it offline takes.
pub(crate) struct Cli {
    /// The catalog name (`agent-resume hook <agent>`).
    pub agent: &'static str,
    pub registry: Registry,
    /// The pinned version.
    pub version: &'static str,
    /// The executable the package installs.
    pub bin: &'static str,
    /// The file name of the process whose argv holds the user's words
    /// (the CLI's own, or node's script below `node_modules/<package>/`).
    pub process: &'static str,
    /// Whether the process's argv shows the user's words at all (a CLI
    /// that renames its process title hides them).
    pub argv_shown: bool,
    /// The first-run state and provider config that make the CLI start
    /// offline at its prompt in `proj`, talking to the stand-in.
    pub setup: fn(&mut Setup<'_>),
    /// Where under `HOME` its conversations live: a reply's marker is
    /// looked for in every file below (SQLite's `-wal` beside its file).
    pub store: &'static str,
    /// The words before `<id>` in its resume (`--resume`, `--session`,
    /// Codex's `resume`); the joined `--flag=<id>` is matched too.
    pub resume_words: &'static [&'static str],
    /// The words after the program that resume an id of the agent's shape
    /// no store holds, what the CLI says then, and its exit status
    /// (`None`: the CLI stays open showing it).
    pub made_up: (&'static [&'static str], &'static str, Option<i32>),
    /// Whether a resume with no hook installed is still confirmed: the
    /// agent names its conversation itself as it starts (a registry entry,
    /// a file it holds open), which the capture at the take finds.
    pub confirms_without_hook: bool,
    /// Keys a user answers after start-up (a trust dialog), if any.
    pub after_start: Option<fn(&Tmux, &str)>,
}

impl Cli {
    /// The package name.
    pub fn package(&self) -> &'static str {
        match self.registry {
            Registry::Npm { package, .. } | Registry::Pypi { package, .. } => package,
        }
    }

    /// `claude-code 2.1.332`: how every assertion names the CLI.
    pub fn name(&self) -> String {
        let p = self.package();
        format!("{} {}", p.rsplit('/').next().unwrap_or(p), self.version)
    }

    /// Its directory in the install cache.
    pub fn cache_name(&self) -> String {
        let p = self.package().trim_start_matches('@').replace('/', "-");
        match self.registry {
            Registry::Npm { .. } => format!("{p}@{}", self.version),
            Registry::Pypi { .. } => format!("pypi-{p}@{}", self.version),
        }
    }
}

/// The first-run state of the project's own four: [`super::seed`].
fn seeded(s: &mut Setup<'_>) {
    super::seed(s.cli.agent, s.home, s.proj, s.url);
}

pub(crate) const CLAUDE: Cli = Cli {
    agent: "claude",
    registry: Registry::Npm {
        package: "@anthropic-ai/claude-code",
        extra: &[],
    },
    version: "2.1.332",
    bin: "claude",
    process: "claude",
    argv_shown: true,
    setup: seeded,
    store: ".claude/projects",
    resume_words: &["--resume", "-r"],
    made_up: (
        &["--resume", super::MADE_UP],
        "No conversation found with session ID",
        Some(1),
    ),
    confirms_without_hook: true,
    after_start: None,
};
pub(crate) const GEMINI: Cli = Cli {
    agent: "gemini",
    registry: Registry::Npm {
        package: "@google/gemini-cli",
        extra: &[],
    },
    version: "0.61.0",
    bin: "gemini",
    process: "gemini",
    argv_shown: true,
    setup: seeded,
    store: ".gemini/tmp",
    resume_words: &["--resume", "-r"],
    made_up: (
        &["--resume", super::MADE_UP],
        "Invalid session identifier",
        Some(42),
    ),
    confirms_without_hook: true,
    after_start: None,
};
pub(crate) const QWEN: Cli = Cli {
    agent: "qwen",
    registry: Registry::Npm {
        package: "@qwen-code/qwen-code",
        extra: &[],
    },
    version: "0.24.4",
    bin: "qwen",
    process: "qwen",
    argv_shown: true,
    setup: seeded,
    store: ".qwen/projects",
    resume_words: &["--resume", "-r"],
    made_up: (
        &["--resume", super::MADE_UP],
        "No saved session found with ID",
        Some(1),
    ),
    confirms_without_hook: true,
    after_start: None,
};
pub(crate) const CODEX: Cli = Cli {
    agent: "codex",
    registry: Registry::Npm {
        package: "@openai/codex",
        extra: &[],
    },
    version: "0.171.0",
    bin: "codex",
    process: "codex",
    argv_shown: true,
    setup: seeded,
    store: ".codex/sessions",
    resume_words: &["resume"],
    made_up: (
        &[
            "exec",
            "--skip-git-repo-check",
            "resume",
            super::MADE_UP,
            "hi",
        ],
        "no rollout found for thread id",
        Some(1),
    ),
    confirms_without_hook: true,
    after_start: None,
};
pub(crate) const COPILOT: Cli = Cli {
    agent: "copilot",
    registry: Registry::Npm {
        package: "@github/copilot",
        extra: &[],
    },
    version: "1.0.102",
    bin: "copilot",
    // The node wrapper runs the native binary with the same argv.
    process: "copilot",
    argv_shown: true,
    setup: super::copilot::setup,
    store: ".copilot/session-state",
    resume_words: &["--resume", "-r"],
    made_up: (
        &["--resume=0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e"],
        "No session, task, or name matched '0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e'",
        Some(1),
    ),
    confirms_without_hook: false,
    after_start: None,
};
pub(crate) const VIBE: Cli = Cli {
    agent: "vibe",
    registry: Registry::Pypi {
        package: "mistral-vibe",
        python: &["python3.13", "python3.12"],
    },
    version: "3.0.2",
    bin: "vibe",
    // The `vibe` script execs its Rust UI with the same arguments.
    process: "vibe-rs",
    argv_shown: true,
    setup: super::vibe::setup,
    store: ".vibe/logs/session/unified",
    resume_words: &["--resume"],
    // In a terminal a made-up id leaves the UI open showing the error; a
    // run with a prompt prints it and exits 1.
    made_up: (
        &["--resume", super::MADE_UP, "-p", "hi"],
        "Error: Session not found: 0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e",
        Some(1),
    ),
    // Its `vibe-app-server` holds `active/<id>.lock` open and writes
    // `<id>.lock.json` as it starts.
    confirms_without_hook: true,
    after_start: None,
};
/// Not verified: a turn needs sign-in; its own test checks what works
/// offline (`qoder.rs`).
pub(crate) const QODER: Cli = Cli {
    agent: "qoder",
    registry: Registry::Npm {
        package: "@qoder-ai/qodercli",
        extra: &[],
    },
    version: "1.1.52",
    bin: "qodercli",
    process: "qodercli",
    argv_shown: true,
    setup: super::qoder::setup,
    store: ".qoder/projects",
    resume_words: &["--resume", "-r"],
    made_up: (
        &["--resume", super::MADE_UP, "-p", "hi"],
        "Error resuming session: Invalid session identifier \"0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e\".",
        Some(42),
    ),
    confirms_without_hook: false,
    after_start: None,
};
/// No resume by id: its own test checks that a pane running it comes back
/// as a plain shell (`continue_cli.rs`).
pub(crate) const CONTINUE: Cli = Cli {
    agent: "continue",
    registry: Registry::Npm {
        package: "@continuedev/cli",
        extra: &[],
    },
    version: "1.5.47",
    bin: "cn",
    process: "cn",
    argv_shown: true,
    setup: super::continue_cli::setup,
    store: ".continue/sessions",
    resume_words: &[],
    // No refusal: `--fork` of an id no store holds silently starts a new
    // session, answers and exits 0.
    made_up: (&["--fork", super::MADE_UP, "-p", "hi"], "ok", Some(0)),
    confirms_without_hook: false,
    after_start: None,
};
