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
    /// What is known not to work with this version (one line for
    /// docs/agents.md; empty when nothing is).
    pub gaps: &'static str,
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
    gaps: "",
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
    confirms_without_hook: false,
    after_start: None,
    gaps: "",
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
    gaps: "",
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
    confirms_without_hook: false,
    after_start: None,
    gaps: "its SessionStart hook fires only at the first prompt after a resume: an untouched resumed pane is not confirmed",
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
    gaps: "install-hooks does not write its hook file; a resume is proved only by its next turn (it writes nothing of the session before it)",
};
pub(crate) const GROK: Cli = Cli {
    agent: "grok",
    registry: Registry::Npm {
        package: "@xai-official/grok",
        extra: &[],
    },
    version: "1.0.41",
    bin: "grok",
    process: "grok",
    argv_shown: true,
    setup: super::grok::setup,
    store: ".grok/sessions",
    resume_words: &["--resume", "-r"],
    made_up: (
        &["--resume", "0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e"],
        "Session \"0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e\" not found locally",
        Some(1),
    ),
    // Its `active_sessions.json` names the conversation of each pid.
    confirms_without_hook: true,
    after_start: None,
    gaps: "a made-up id is looked up on xAI's server before it is refused",
};
pub(crate) const DROID: Cli = Cli {
    agent: "droid",
    registry: Registry::Npm {
        package: "@factory/cli",
        extra: &["@factory/cli-linux-x64@0.225.2"],
    },
    version: "0.225.1",
    bin: "droid",
    process: "droid",
    argv_shown: true,
    setup: super::droid::setup,
    store: ".factory/sessions",
    resume_words: &["--resume", "-r"],
    // Droid exits 1 and says nothing on the terminal
    // (`Error: Session not found` goes to its console log).
    made_up: (
        &["--resume=0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e"],
        "",
        Some(1),
    ),
    confirms_without_hook: false,
    after_start: None,
    gaps: "its headless `exec -s <id>` needs Factory's server (not verified); a resume with no hook is proved only by its next turn",
};
pub(crate) const OPENCODE: Cli = Cli {
    agent: "opencode",
    registry: Registry::Npm {
        package: "opencode-ai",
        extra: &[],
    },
    version: "1.18.33",
    bin: "opencode",
    // The package's script execs the native binary under its own name.
    process: "opencode",
    argv_shown: true,
    setup: super::opencode::setup_opencode,
    store: ".local/share/opencode",
    resume_words: &["--session", "-s"],
    made_up: (
        &["--session", super::opencode::MADE_UP_SES],
        "Session not found",
        Some(1),
    ),
    confirms_without_hook: false,
    after_start: None,
    gaps: "a first prompt long after launch is recorded by the held launch watch or a later save; two panes in one directory both waiting for their first prompt stay unrecorded without its plugin",
};
pub(crate) const KILO: Cli = Cli {
    agent: "kilo",
    registry: Registry::Npm {
        package: "@kilocode/cli",
        extra: &["@kilocode/cli-linux-x64@7.7.7"],
    },
    version: "7.7.7",
    bin: "kilo",
    // `node …/bin/kilo`, with the native `.kilo` below it.
    process: "kilo",
    argv_shown: true,
    setup: super::opencode::setup_kilo,
    store: ".local/share/kilo",
    resume_words: &["--session", "-s"],
    made_up: (
        &["--session", super::opencode::MADE_UP_SES],
        "Session not found",
        Some(1),
    ),
    confirms_without_hook: false,
    after_start: None,
    gaps: "a first prompt long after launch is recorded by the held launch watch or a later save; two panes in one directory both waiting for their first prompt stay unrecorded without its plugin",
};
pub(crate) const PI: Cli = Cli {
    agent: "pi",
    registry: Registry::Npm {
        package: "@mariozechner/pi-coding-agent",
        extra: &[],
    },
    version: "0.73.1",
    bin: "pi",
    process: "pi",
    // `process.title = "pi"`: its argv shows nothing.
    argv_shown: false,
    setup: super::opencode::setup_pi,
    store: ".pi/agent/sessions",
    resume_words: &["--session"],
    made_up: (
        &["--session", super::MADE_UP],
        "No session found matching",
        Some(1),
    ),
    confirms_without_hook: false,
    after_start: None,
    gaps: "it hides its argv (process.title): its flags and a resumed id come only from the shell integration's note",
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
    gaps: "install-hooks does not write its TOML hook file (none is needed); in a terminal a made-up id leaves its UI open showing the error (exit 0)",
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
    gaps: "not verified: a turn needs sign-in; lookup of a listed id and the refusal of a made-up one are checked",
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
    gaps: "no resume by id: a pane running it comes back as a plain shell (`not_resumable_by_id`)",
};

/// Every pinned CLI: the suite's proof for each verified agent.
pub(crate) const PINNED: &[&Cli] = &[
    &CLAUDE, &CODEX, &GEMINI, &QWEN, &COPILOT, &GROK, &DROID, &OPENCODE, &KILO, &PI, &AUGGIE,
    &CLINE, &VIBE,
];
pub(crate) const AUGGIE: Cli = Cli {
    agent: "auggie",
    registry: Registry::Npm {
        package: "@augmentcode/auggie",
        extra: &[],
    },
    version: "0.36.0",
    bin: "auggie",
    // node runs `node_modules/.bin/auggie` (a link to the package's script).
    process: "auggie",
    argv_shown: true,
    setup: super::augment_cline::auggie_setup,
    store: ".augment/sessions",
    resume_words: &["--resume", "-r"],
    made_up: (
        &["--resume", super::MADE_UP],
        "Failed to resume session: No session found matching",
        Some(1),
    ),
    confirms_without_hook: false,
    after_start: None,
    gaps: "no hook is installed (Augment's server alone turns hooks on)",
};
pub(crate) const CLINE: Cli = Cli {
    agent: "cline",
    registry: Registry::Npm {
        package: "cline",
        extra: &[],
    },
    version: "3.0.65",
    bin: "cline",
    // `node_modules/.bin/cline` links the native binary of its platform
    // package.
    process: "cline",
    argv_shown: true,
    setup: super::augment_cline::cline_setup,
    store: ".cline/data/sessions",
    resume_words: &["--id"],
    // The UI stays open, saying so.
    made_up: (
        &["--id", "1796444736065_zzzzz"],
        "Error: Unknown session: 1796444736065_zzzzz",
        None,
    ),
    confirms_without_hook: false,
    after_start: None,
    gaps: "no hook is installed (its payload names the session only nested); a UI started while another's hub daemon runs is captured by correlation alone",
};
