//! `agent-resume install-hooks <agent>` / `uninstall-hooks <agent>`: merge
//! agent-resume into the agent's own hook configuration, idempotently, with
//! a backup, and a diff on `--dry-run`.
//!
//! - claude, gemini, qwen: `settings.json` `hooks.SessionStart` (claude also
//!   `UserPromptSubmit`) gets one command entry, `agent-resume hook <agent>`;
//!   every other key and hook is kept.
//! - codex: `config.toml` `notify` becomes `[agent-resume, hook, codex]`; a
//!   notifier the user already had is chained (`--chain PROGRAM ARGS…`) and
//!   restored on uninstall. Comments and formatting are kept.
//!
//! Other agents' hook systems are documented in docs/capture.md; they are
//! not edited automatically.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_resume_core::{quote, AgentKind};
use agent_resume_discover::Homes;
use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

use super::EXIT_REFUSED;

#[derive(clap::Args)]
pub struct Args {
    /// The agent (claude, codex, gemini, qwen).
    agent: String,
    /// Show the change as a diff and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The agent's configuration file [default: where the agent reads it].
    #[arg(long, value_name = "PATH")]
    config_file: Option<PathBuf>,
}

/// Where `agent` reads its hook configuration, under the config home the
/// discovery crate resolves (`$CLAUDE_CONFIG_DIR`, `$CODEX_HOME`,
/// `$GEMINI_CLI_HOME`, `$QWEN_HOME`, else their defaults under `HOME`).
/// `None`: this agent's hooks are not edited automatically.
fn default_file(agent: AgentKind, homes: &Homes) -> Option<Option<PathBuf>> {
    let (root, file) = match agent {
        AgentKind::Claude => (&homes.claude, "settings.json"),
        // GEMINI_CLI_HOME replaces the home directory itself.
        AgentKind::Gemini => (&homes.gemini, ".gemini/settings.json"),
        AgentKind::Qwen => (&homes.qwen, "settings.json"),
        AgentKind::Codex => (&homes.codex, "config.toml"),
        AgentKind::Opencode
        | AgentKind::Droid
        | AgentKind::Grok
        | AgentKind::Copilot
        | AgentKind::Pi
        | AgentKind::Cursor
        | AgentKind::Antigravity
        | AgentKind::Amp
        | AgentKind::Kimi => return None,
    };
    Some(root.as_ref().map(|r| r.join(file)))
}

fn events(agent: AgentKind) -> &'static [&'static str] {
    match agent {
        AgentKind::Claude => &["SessionStart", "UserPromptSubmit"],
        _ => &["SessionStart"],
    }
}

fn bin_path() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.into_os_string().into_string().ok())
        .unwrap_or_else(|| "agent-resume".to_owned())
}

/// Whether `program` is this binary (by path, or by the installed name).
fn is_our_program(program: &str) -> bool {
    program == bin_path() || program.rsplit('/').next() == Some("agent-resume")
}

/// Whether a hook command is ours for `agent`.
fn is_ours(command: &str, agent: AgentKind) -> bool {
    match shell_words::split(command).as_deref() {
        Ok([program, hook, name]) => {
            is_our_program(program) && hook == "hook" && name == agent.as_str()
        }
        _ => false,
    }
}

/// Removes our command from every event; drops what that leaves empty.
fn strip_json(root: &mut Map<String, Value>, agent: AgentKind) {
    let Some(Value::Object(hooks)) = root.get_mut("hooks") else {
        return;
    };
    for groups in hooks.values_mut() {
        let Value::Array(groups) = groups else {
            continue;
        };
        for group in groups.iter_mut() {
            if let Some(Value::Array(list)) = group.get_mut("hooks") {
                list.retain(|h| {
                    !h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|c| is_ours(c, agent))
                });
            }
        }
        groups.retain(|g| !matches!(g.get("hooks"), Some(Value::Array(l)) if l.is_empty()));
    }
    hooks.retain(|_, v| !matches!(v, Value::Array(a) if a.is_empty()));
    if hooks.is_empty() {
        root.remove("hooks");
    }
}

fn edit_json(text: &str, agent: AgentKind, install: bool) -> Result<String> {
    let mut root: Map<String, Value> = if text.trim().is_empty() {
        Map::new()
    } else {
        match serde_json::from_str(text)
            .context("settings file is not valid JSON; not touching it")?
        {
            Value::Object(m) => m,
            _ => bail!("settings file is not a JSON object; not touching it"),
        }
    };
    strip_json(&mut root, agent);
    if install {
        let command = format!(
            "{} hook {}",
            quote(&bin_path()).unwrap_or_else(|_| "agent-resume".into()),
            agent.as_str()
        );
        let hooks = root.entry("hooks").or_insert_with(|| json!({}));
        let Value::Object(hooks) = hooks else {
            bail!("`hooks` in the settings file is not an object; not touching it")
        };
        for event in events(agent) {
            let groups = hooks.entry(*event).or_insert_with(|| json!([]));
            let Value::Array(groups) = groups else {
                bail!("`hooks.{event}` is not a list; not touching it")
            };
            groups.push(json!({"matcher": "", "hooks": [{"type": "command", "command": command}]}));
        }
    }
    Ok(serde_json::to_string_pretty(&Value::Object(root))? + "\n")
}

fn is_our_notify(a: &toml_edit::Array) -> bool {
    let words: Vec<&str> = a.iter().filter_map(|v| v.as_str()).collect();
    words.len() >= 3 && is_our_program(words[0]) && words[1] == "hook" && words[2] == "codex"
}

fn edit_toml(text: &str, install: bool) -> Result<String> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .context("config.toml is not valid TOML; not touching it")?;
    let existing = doc.get("notify").and_then(|i| i.as_array()).cloned();
    let chained: Vec<String> = match &existing {
        Some(a) if is_our_notify(a) => {
            let words: Vec<String> = a
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            match words.iter().position(|w| w == "--chain") {
                Some(i) => words[i + 1..].to_vec(),
                None => Vec::new(),
            }
        }
        Some(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        None => {
            if doc.contains_key("notify") {
                bail!("`notify` in config.toml is not a list; not touching it");
            }
            Vec::new()
        }
    };
    let mut words: Vec<String> = Vec::new();
    if install {
        words.extend([bin_path(), "hook".into(), "codex".into()]);
        if !chained.is_empty() {
            words.push("--chain".into());
        }
    }
    words.extend(chained);
    if words.is_empty() {
        doc.remove("notify");
    } else {
        let mut array = toml_edit::Array::new();
        for w in words {
            array.push(w);
        }
        doc["notify"] = toml_edit::value(array);
    }
    Ok(doc.to_string())
}

/// Line diff (longest common subsequence), for `--dry-run`.
fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        }
    }
    out
}

/// Replaces the file's contents atomically. A symlinked settings file (a
/// dotfiles checkout) is written through: its target is replaced, the link
/// stays. The file keeps its permissions (new files are 0600).
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let path = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).context("cannot follow the settings link")?
        }
        _ => path.to_path_buf(),
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).context("cannot create the configuration directory")?;
    }
    let mode = fs::metadata(&path).map_or(0o600, |m| {
        std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777
    });
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".agent-resume.tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&tmp)?;
    f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    fs::rename(&tmp, &path).context("cannot replace the configuration file")
}

pub fn run(args: Args, install: bool) -> Result<ExitCode> {
    let agent =
        AgentKind::from_name(&args.agent).context("unknown agent (see `agent-resume agents`)")?;
    let homes = Homes::from_env(&|k| std::env::var_os(k));
    let path = match (args.config_file, default_file(agent, &homes)) {
        (Some(p), Some(_)) => p,
        (None, Some(Some(p))) => p,
        (None, Some(None)) => bail!("cannot locate the agent's configuration: set HOME"),
        (_, None) => {
            eprintln!("agent-resume: refused: {agent}'s hooks are not edited automatically; see docs/capture.md");
            return Ok(ExitCode::from(EXIT_REFUSED));
        }
    };
    let old = match agent_resume_discover::file::read_text(
        &path,
        agent_resume_discover::file::Kind::AgentSettings,
        16 << 20,
    ) {
        Ok(t) => t,
        Err(e) if e.is_missing() => String::new(),
        Err(e) => return Err(e).context("cannot read the agent's configuration"),
    };
    let new = if agent == AgentKind::Codex {
        edit_toml(&old, install)?
    } else {
        edit_json(&old, agent, install)?
    };
    let shown = crate::paths::show(&path);
    if args.dry_run {
        print!("--- {shown}\n+++ {shown}\n{}", diff(&old, &new));
        return Ok(ExitCode::SUCCESS);
    }
    // Semantically unchanged (JSON may differ only in formatting): no write.
    let same = old == new
        || (old.trim().is_empty() && !install)
        || (agent != AgentKind::Codex
            && serde_json::from_str::<Value>(&old).ok()
                == serde_json::from_str::<Value>(&new).ok());
    if same {
        eprintln!(
            "agent-resume: {shown} already {}",
            if install {
                "has the hooks"
            } else {
                "has no hooks of ours"
            }
        );
        return Ok(ExitCode::SUCCESS);
    }
    if !old.is_empty() {
        let mut backup = path.as_os_str().to_owned();
        backup.push(".agent-resume.bak");
        fs::write(PathBuf::from(backup), &old).context("cannot write the backup")?;
    }
    write_atomic(&path, &new)?;
    eprintln!(
        "agent-resume: {} {shown}",
        if install {
            "installed hooks in"
        } else {
            "removed hooks from"
        }
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "SessionStart": [
      {"matcher": "", "hooks": [{"type": "command", "command": "my-own-hook"}]}
    ],
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]}
}"#;

    fn v(s: &str) -> Value {
        serde_json::from_str(s).expect("json")
    }

    #[test]
    fn claude_install_is_idempotent_keeps_unrelated_keys_and_uninstall_restores() {
        let once = edit_json(SETTINGS, AgentKind::Claude, true).expect("installs");
        let twice = edit_json(&once, AgentKind::Claude, true).expect("installs again");
        assert_eq!(v(&once), v(&twice));
        let parsed = v(&once);
        assert_eq!(parsed["model"], "opus");
        assert_eq!(parsed["permissions"]["allow"][0], "Bash(ls)");
        assert_eq!(
            parsed["hooks"]["SessionStart"].as_array().map(Vec::len),
            Some(2)
        );
        assert!(
            parsed["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
                .as_str()
                .is_some_and(|c| is_ours(c, AgentKind::Claude))
        );
        let back = edit_json(&once, AgentKind::Claude, false).expect("uninstalls");
        assert_eq!(v(&back), v(SETTINGS));
        // Keys keep their order.
        let keys: Vec<String> = v(&back)
            .as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["model", "hooks", "permissions"]);
    }

    #[test]
    fn settings_that_are_not_an_object_are_never_touched() {
        assert!(edit_json("[1]", AgentKind::Claude, true).is_err());
        assert!(edit_json("{", AgentKind::Claude, true).is_err());
        assert!(edit_json(r#"{"hooks": 3}"#, AgentKind::Claude, true).is_err());
    }

    #[test]
    fn codex_notify_chains_an_existing_notifier_and_uninstall_restores_it() {
        let config = "# my config\nmodel = \"o3\"\nnotify = [\"notify-send\", \"-u\", \"low\"]\n\n[profiles.fast]\nmodel = \"o4-mini\"\n";
        let once = edit_toml(config, true).expect("installs");
        assert!(once.contains("# my config"));
        assert!(once.contains("[profiles.fast]"));
        let doc: toml_edit::DocumentMut = once.parse().expect("toml");
        let words: Vec<&str> = doc["notify"]
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(
            &words[1..],
            ["hook", "codex", "--chain", "notify-send", "-u", "low"]
        );
        assert_eq!(edit_toml(&once, true).expect("again"), once, "idempotent");
        let back = edit_toml(&once, false).expect("uninstalls");
        let doc: toml_edit::DocumentMut = back.parse().expect("toml");
        let words: Vec<&str> = doc["notify"]
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(words, ["notify-send", "-u", "low"]);
        assert!(back.contains("# my config"));
    }

    #[test]
    fn codex_without_a_notifier_gets_ours_and_loses_it_on_uninstall() {
        let once = edit_toml("model = \"o3\"\n", true).expect("installs");
        assert!(once.contains("\"hook\", \"codex\"]"));
        let back = edit_toml(&once, false).expect("uninstalls");
        assert_eq!(back, "model = \"o3\"\n");
    }

    #[test]
    fn dry_run_diff_marks_added_and_removed_lines() {
        assert_eq!(diff("a\nb\nc\n", "a\nx\nc\n"), "  a\n- b\n+ x\n  c\n");
    }
}
