//! Flag extraction from the user's own invocation text.
//!
//! The text is tokenized as a POSIX shell does (`shell-words`), leading
//! environment assignments and the program word are read, and then flags are
//! taken until the first positional word or `--`. Only flags the catalog
//! declares `carry = true` are kept, under their canonical name, and only
//! when their value matches the declared shape: a bad value drops the flag,
//! it is never repaired. Everything after the first positional (a prompt, a
//! subcommand's arguments) is never looked at for flags, so a flag-shaped
//! word inside a quoted prompt can never be recorded.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::catalog::{AgentDecl, Arity};
use crate::shape::is_program_path;

/// One allowlisted flag as recorded: canonical name and, for value flags, the
/// value that passed its shape.
///
/// The texts are shared (`Arc<str>`): a store load parses each distinct
/// flags text once and hands every row with that text the same flags, so a
/// clone costs no allocation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedFlag {
    /// Canonical name, e.g. `--model`.
    pub name: Arc<str>,
    /// The value, for value flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Arc<str>>,
}

impl RecordedFlag {
    /// A switch.
    pub fn switch(name: &str) -> Self {
        RecordedFlag {
            name: name.into(),
            value: None,
        }
    }

    /// A flag with a value.
    pub fn value(name: &str, value: &str) -> Self {
        RecordedFlag {
            name: name.into(),
            value: Some(value.into()),
        }
    }

    /// Whether this flag, with its recorded value, changes `agent`'s
    /// permission posture ([`crate::catalog::FlagDecl::is_posture`]). A name
    /// the agent does not declare is never replayed; it answers posture so
    /// a caller filtering on this keeps to the safe side.
    pub fn is_posture(&self, agent: &AgentDecl) -> bool {
        agent
            .flag(&self.name)
            .is_none_or(|d| d.is_posture(self.value.as_deref()))
    }
}

/// What an invocation tells about resuming.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extraction {
    /// An interactive run: these flags may be replayed.
    Interactive {
        /// Allowlisted flags in catalog order, each at most once.
        flags: Vec<RecordedFlag>,
        /// The user's own absolute program path, when it passed the path
        /// shape; `None` means the declared command word.
        program: Option<String>,
    },
    /// A headless run (`-p`, `exec`, …): not interactively resumable.
    Headless,
}

/// Why an invocation yielded nothing.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExtractError {
    /// Unbalanced quotes or a trailing escape: not a command a shell ran.
    #[error("invocation does not tokenize as a shell command")]
    Untokenizable,
    /// No program word at all.
    #[error("invocation has no program word")]
    NoProgram,
    /// The program word is not one of this agent's detection words.
    #[error("invocation does not run this agent")]
    OtherProgram,
}

/// Launch wrappers skipped before the program word.
const WRAPPERS: &[&str] = &["command", "exec", "env", "nohup", "noglob"];

fn is_env_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.as_bytes()[0].is_ascii_digit()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
        None => false,
    }
}

/// The declared agent an invocation runs, by its program word.
pub fn detect<'c>(catalog: &'c crate::Catalog, invocation: &str) -> Option<&'c AgentDecl> {
    let words = shell_words::split(first_command(invocation)).ok()?;
    let word = words
        .iter()
        .find(|w| !is_env_assignment(w) && !WRAPPERS.contains(&w.as_str()))?;
    catalog.by_command(word.rsplit('/').next().unwrap_or(word))
}

/// Finds the program word: its index in `words` and its recorded form.
fn program<'w>(
    agent: &AgentDecl,
    words: &'w [String],
) -> Result<(usize, Option<&'w str>), ExtractError> {
    let i = words
        .iter()
        .position(|w| !is_env_assignment(w) && !WRAPPERS.contains(&w.as_str()))
        .ok_or(ExtractError::NoProgram)?;
    let word = words[i].as_str();
    let base = word.rsplit('/').next().unwrap_or(word);
    if !agent.commands.iter().any(|c| c == base) {
        return Err(ExtractError::OtherProgram);
    }
    let recorded = (word != base && is_program_path(word)).then_some(word);
    Ok((i, recorded))
}

/// Whether any flag word before `--` makes this run headless. Scanning past
/// the first positional here errs on the side of "headless": agent CLIs accept
/// options after the prompt, and a misread only means nothing is recorded.
fn has_headless_flag(agent: &AgentDecl, args: &[String]) -> bool {
    let headless = |name: &str| agent.flag(name).is_some_and(|f| f.headless);
    args.iter().take_while(|w| *w != "--").any(|w| {
        let name = w.split_once('=').map_or(w.as_str(), |(n, _)| n);
        if !w.starts_with('-') {
            return false;
        }
        if headless(name) {
            return true;
        }
        // Bundled short switches (`-cp`): any headless letter counts. Only
        // the part before `=` is a bundle: `-C=/tmp/p` is one flag's value.
        let bundle = name
            .strip_prefix('-')
            .filter(|b| !b.starts_with('-') && b.len() > 1 && agent.flag(name).is_none());
        bundle.is_some_and(|b| {
            b.chars()
                .any(|c| c.is_ascii_alphanumeric() && headless(&format!("-{c}")))
        })
    })
}

/// Extracts the replayable flags of `agent` from the user's invocation text.
pub fn extract(agent: &AgentDecl, invocation: &str) -> Result<Extraction, ExtractError> {
    let words =
        shell_words::split(first_command(invocation)).map_err(|_| ExtractError::Untokenizable)?;
    extract_words(agent, &words)
}

/// The text up to the first unquoted command separator, newline, comment,
/// redirection or subshell paren: what a shell hands to the first command.
/// A flag after `;`, `&&`, `|` or a newline belongs to another command and
/// must never be carried. Quotes and backslashes are honoured; unbalanced
/// quotes are left for the tokenizer to refuse.
pub fn first_command(text: &str) -> &str {
    #[derive(PartialEq)]
    enum Q {
        None,
        Single,
        Double,
    }
    let mut q = Q::None;
    let mut escaped = false;
    let mut word_start = true;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            word_start = false;
            continue;
        }
        match q {
            Q::Single => {
                if c == '\'' {
                    q = Q::None;
                }
            }
            Q::Double => match c {
                '\\' => escaped = true,
                '"' => q = Q::None,
                _ => {}
            },
            Q::None => match c {
                '\\' => escaped = true,
                '\'' => q = Q::Single,
                '"' => q = Q::Double,
                ';' | '&' | '|' | '\n' | '\r' | '(' | ')' | '<' | '>' | '`' => return &text[..i],
                '#' if word_start => return &text[..i],
                _ => {}
            },
        }
        word_start = q == Q::None && !escaped && (c == ' ' || c == '\t');
    }
    text
}

/// [`extract`] over words already split (an argv).
pub fn extract_words(agent: &AgentDecl, words: &[String]) -> Result<Extraction, ExtractError> {
    let (at, program) = program(agent, words)?;
    let program = program.map(str::to_owned);
    let args = &words[at + 1..];
    // The UI's own child (Droid's `exec --input-format stream-jsonrpc …`)
    // runs the UI's hooks: reading it as headless would drop every capture.
    let ui_child = agent.is_ui_child(args);
    if !ui_child && has_headless_flag(agent, args) {
        return Ok(Extraction::Headless);
    }
    let mut found: Vec<RecordedFlag> = Vec::new();
    // A switch that keeps the UI (Cline's `-i`) seen before the prompt.
    let mut kept = false;
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_str();
        i += 1;
        if word == "--" {
            if agent.positional_is_headless && !ui_child && !kept && i < args.len() {
                return Ok(Extraction::Headless);
            }
            break;
        }
        if !word.starts_with('-') || word == "-" {
            let headless = (agent.positional_is_headless && !kept)
                || agent.headless_subcommands.iter().any(|s| s == word);
            if headless && !ui_child {
                return Ok(Extraction::Headless);
            }
            break;
        }
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (word, None),
        };
        let Some(decl) = agent.flag(name) else {
            // Unknown flag: its arity is unknown, so it is taken as a switch;
            // a value after it then reads as the first positional and stops
            // extraction. Recording less is the safe direction. A joined
            // `--flag=value` holds its own value and never stops the scan.
            // The catalog declares the real CLIs' value flags so their values
            // are skipped instead.
            continue;
        };
        let value: Option<&str> = match decl.arity {
            Arity::Switch => {
                if inline.is_some() {
                    continue; // `--switch=x` is malformed: never guess.
                }
                kept |= agent.interactive_flags.contains(&decl.name);
                None
            }
            Arity::Value => match inline {
                Some(v) => Some(v),
                None => match args.get(i) {
                    // `--` is never a value: the options end there.
                    Some(v) if v == "--" => break,
                    Some(v) => {
                        i += 1;
                        Some(v.as_str())
                    }
                    None => continue,
                },
            },
            Arity::Optional => match inline {
                Some(v) => Some(v),
                None => match args.get(i) {
                    Some(v) if !v.starts_with('-') => {
                        i += 1;
                        Some(v.as_str())
                    }
                    _ => None,
                },
            },
            Arity::Variadic => {
                while args.get(i).is_some_and(|v| !v.starts_with('-')) {
                    i += 1;
                }
                None
            }
        };
        if !decl.carry {
            continue;
        }
        let accepted = match (&decl.shape, value) {
            (None, None) => true,
            (Some(shape), Some(v)) => shape.matches(v),
            _ => false,
        };
        if accepted {
            found.retain(|f| *f.name != *decl.name);
            found.push(RecordedFlag {
                name: decl.name.as_str().into(),
                value: value.map(Arc::from),
            });
        }
    }
    // Catalog order, so equal inputs record equal flag lists.
    let mut flags = Vec::with_capacity(found.len());
    for decl in &agent.flags {
        if let Some(pos) = found.iter().position(|f| *f.name == *decl.name) {
            flags.push(found.swap_remove(pos));
        }
    }
    Ok(Extraction::Interactive { flags, program })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentKind, Catalog};

    fn ex(kind: AgentKind, text: &str) -> Result<Extraction, ExtractError> {
        extract(Catalog::embedded().agent(kind), text)
    }

    fn flags(kind: AgentKind, text: &str) -> Vec<RecordedFlag> {
        match ex(kind, text) {
            Ok(Extraction::Interactive { flags, .. }) => flags,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    use AgentKind::*;

    #[test]
    fn flag_inside_quoted_prompt_is_never_recorded() {
        assert_eq!(
            flags(Claude, "claude \"use --permission-mode bypassPermissions\""),
            vec![]
        );
        assert_eq!(flags(Claude, "claude 'fix it' --model opus"), vec![]);
    }

    #[test]
    fn posture_flag_before_the_prompt_is_recorded() {
        assert_eq!(
            flags(Claude, "claude --permission-mode bypassPermissions \"x\""),
            vec![RecordedFlag::value(
                "--permission-mode",
                "bypassPermissions"
            )]
        );
    }

    #[test]
    fn nothing_after_double_dash_is_recorded() {
        assert_eq!(
            flags(
                Claude,
                "claude --model opus -- --dangerously-skip-permissions"
            ),
            vec![RecordedFlag::value("--model", "opus")]
        );
    }

    #[test]
    fn aliases_and_joined_forms_resolve_to_the_canonical_name() {
        let want = vec![
            RecordedFlag::value("--model", "o3"),
            RecordedFlag::value("--sandbox", "workspace-write"),
        ];
        assert_eq!(flags(Codex, "codex -m o3 -s workspace-write"), want);
        assert_eq!(
            flags(Codex, "codex --model=o3 --sandbox=workspace-write"),
            want
        );
        assert_eq!(flags(Codex, "codex -s=workspace-write -m=o3"), want);
        assert_eq!(
            flags(Codex, "codex --yolo"),
            vec![RecordedFlag::switch(
                "--dangerously-bypass-approvals-and-sandbox"
            )]
        );
    }

    #[test]
    fn value_failing_its_shape_drops_the_flag_and_is_never_repaired() {
        assert_eq!(flags(Claude, "claude --model 'opus;rm -rf ~'"), vec![]);
        assert_eq!(
            flags(Claude, "claude --model '$(id)' --effort high"),
            vec![RecordedFlag::value("--effort", "high")]
        );
        assert_eq!(flags(Claude, "claude --permission-mode manual"), vec![]);
        assert_eq!(flags(Claude, "claude --model ******"), vec![]);
        assert_eq!(
            flags(Claude, "claude --model --dangerously-skip-permissions"),
            vec![]
        );
        assert_eq!(flags(Codex, "codex --sandbox yolo"), vec![]);
    }

    #[test]
    fn variadic_and_file_flags_are_skipped_not_carried() {
        assert_eq!(
            flags(
                Claude,
                "claude --add-dir /a /b --model opus --settings s.json --effort low"
            ),
            vec![
                RecordedFlag::value("--model", "opus"),
                RecordedFlag::value("--effort", "low")
            ]
        );
    }

    #[test]
    fn unknown_flag_with_a_value_stops_extraction() {
        assert_eq!(
            flags(Claude, "claude --model opus --mystery value --effort low"),
            vec![RecordedFlag::value("--model", "opus")]
        );
    }

    #[test]
    fn last_occurrence_wins_and_output_is_in_catalog_order() {
        assert_eq!(
            flags(Claude, "claude --effort low --model a --model b"),
            vec![
                RecordedFlag::value("--model", "b"),
                RecordedFlag::value("--effort", "low")
            ]
        );
    }

    #[test]
    fn switch_with_inline_value_is_dropped() {
        assert_eq!(
            flags(Claude, "claude --dangerously-skip-permissions=1"),
            vec![]
        );
    }

    #[test]
    fn headless_runs_are_classified() {
        for (kind, text) in [
            (Claude, "claude -p 'hi'"),
            (Claude, "claude --print --model opus 'hi'"),
            (Claude, "claude 'hi' -p"),
            (Codex, "codex exec 'hi'"),
            (Codex, "codex -m o3 exec resume abc"),
            (Gemini, "gemini -p 'hi'"),
            (Gemini, "gemini --prompt=hi"),
            (Opencode, "opencode run hi"),
            (Droid, "droid exec hi"),
            (Grok, "grok -p hi"),
            (Pi, "pi -p hi"),
        ] {
            assert_eq!(ex(kind, text), Ok(Extraction::Headless), "{text}");
        }
        // A headless word inside a prompt or after `--` is not a headless run.
        assert!(matches!(
            ex(Claude, "claude 'explain -p'"),
            Ok(Extraction::Interactive { .. })
        ));
        assert!(matches!(
            ex(Claude, "claude -- -p"),
            Ok(Extraction::Interactive { .. })
        ));
        assert!(matches!(
            ex(Codex, "codex 'exec the plan'"),
            Ok(Extraction::Interactive { .. })
        ));
        // `exec` as the value of a flag is not the subcommand.
        assert!(matches!(
            ex(Codex, "codex -p exec"),
            Ok(Extraction::Interactive { .. })
        ));
    }

    /// Droid 0.225.2: the UI runs its hooks under its own child `droid exec
    /// --input-format stream-jsonrpc --output-format stream-jsonrpc`; only a
    /// user's `droid exec "<prompt>"` is a headless run.
    #[test]
    fn droid_ui_child_is_not_headless_but_a_users_exec_is() {
        let argv = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        let droid = Catalog::embedded().agent(Droid);
        for words in [
            &[
                "droid",
                "exec",
                "--input-format",
                "stream-jsonrpc",
                "--output-format",
                "stream-jsonrpc",
            ][..],
            &[
                "/usr/lib/node_modules/@factory/cli-linux-x64/bin/droid",
                "exec",
                "--output-format=stream-jsonrpc",
                "--input-format=stream-jsonrpc",
            ],
        ] {
            assert!(
                matches!(
                    extract_words(droid, &argv(words)),
                    Ok(Extraction::Interactive { .. })
                ),
                "{words:?}"
            );
        }
        for words in [
            &["droid", "exec", "fix the tests"][..],
            &[
                "droid",
                "exec",
                "-s",
                "6b4d1e0a-9f59-4c43-8f7b-1d2b8f0f6c11",
                "go on",
            ],
            &["droid", "exec", "--output-format", "json", "hi"],
            &["droid", "exec", "--output-format", "stream-jsonrpc", "hi"],
            &[
                "droid",
                "exec",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-jsonrpc",
            ],
        ] {
            assert_eq!(
                extract_words(droid, &argv(words)),
                Ok(Extraction::Headless),
                "{words:?}"
            );
        }
    }

    #[test]
    fn program_word_and_wrappers() {
        assert_eq!(
            ex(Claude, "FOO=1 env /home/me/.local/bin/claude --model opus"),
            Ok(Extraction::Interactive {
                flags: vec![RecordedFlag::value("--model", "opus")],
                program: Some("/home/me/.local/bin/claude".into())
            })
        );
        assert_eq!(
            ex(Claude, "./claude"),
            Ok(Extraction::Interactive {
                flags: vec![],
                program: None
            }),
            "a relative path falls back to the declared word"
        );
        assert_eq!(
            ex(Claude, "codex --model x"),
            Err(ExtractError::OtherProgram)
        );
        assert_eq!(ex(Claude, "FOO=1"), Err(ExtractError::NoProgram));
        assert_eq!(ex(Claude, ""), Err(ExtractError::NoProgram));
        assert_eq!(
            ex(Claude, "claude 'unbalanced"),
            Err(ExtractError::Untokenizable)
        );
    }

    #[test]
    fn subcommand_operand_ends_extraction() {
        assert_eq!(
            flags(
                Codex,
                "codex -m o3 resume 01a22abf-a931-72c2-b857-4949dadb1b99 --yolo"
            ),
            vec![RecordedFlag::value("--model", "o3")]
        );
    }

    #[test]
    fn a_flag_after_a_command_separator_belongs_to_another_command() {
        for text in [
            "claude --model opus\n--dangerously-skip-permissions",
            "claude --model opus; --dangerously-skip-permissions",
            "claude --model opus --verbose; --dangerously-skip-permissions",
            "claude --model opus && --dangerously-skip-permissions",
            "claude --model opus & --dangerously-skip-permissions",
            "claude --model opus || --dangerously-skip-permissions",
            "claude --model opus -c| --permission-mode bypassPermissions",
            "claude --model opus # note\n--permission-mode bypassPermissions",
            "claude --model opus\r--dangerously-skip-permissions",
            "claude --model opus >log --dangerously-skip-permissions",
        ] {
            assert_eq!(
                flags(Claude, text),
                vec![RecordedFlag::value("--model", "opus")],
                "{text:?}"
            );
        }
        // Quoted or escaped separators do not end the command.
        assert_eq!(
            flags(Claude, "claude --model opus 'a; b' --effort low"),
            vec![RecordedFlag::value("--model", "opus")]
        );
        assert_eq!(
            first_command("a 'b;c' \"d;e\" f\\;g; h"),
            "a 'b;c' \"d;e\" f\\;g"
        );
        assert_eq!(first_command("a#b # c"), "a#b ");
    }

    #[test]
    fn bundled_short_switches_holding_a_headless_letter_are_headless() {
        assert_eq!(ex(Claude, "claude -cp hi"), Ok(Extraction::Headless));
        assert!(matches!(
            ex(Claude, "claude -cv"),
            Ok(Extraction::Interactive { .. })
        ));
    }

    #[test]
    fn a_qwen_positional_prompt_is_a_headless_run() {
        assert_eq!(ex(Qwen, "qwen 'fix it'"), Ok(Extraction::Headless));
        assert_eq!(ex(Qwen, "qwen -m x -- 'fix it'"), Ok(Extraction::Headless));
        assert!(matches!(
            ex(Qwen, "qwen -m qwen3 -i 'fix it'"),
            Ok(Extraction::Interactive { .. })
        ));
        assert!(matches!(
            ex(Qwen, "qwen -m qwen3"),
            Ok(Extraction::Interactive { .. })
        ));
    }

    #[test]
    fn a_cline_prompt_is_headless_unless_its_ui_switch_comes_first() {
        // Cline 3.0.65: `cline "fix it"` runs and exits; `-i` keeps the UI.
        assert_eq!(ex(Cline, "cline 'fix it'"), Ok(Extraction::Headless));
        assert_eq!(
            ex(Cline, "cline -m gpt-4o -- 'fix it'"),
            Ok(Extraction::Headless)
        );
        assert_eq!(
            flags(Cline, "cline -i -m gpt-4o 'fix it'"),
            [RecordedFlag::value("--model", "gpt-4o")]
        );
        assert_eq!(
            flags(Cline, "cline --tui --plan -- 'fix it'"),
            [RecordedFlag::switch("--plan")]
        );
        // After the prompt it is not seen: taken as headless, nothing recorded.
        assert_eq!(ex(Cline, "cline 'fix it' -i"), Ok(Extraction::Headless));
        // `--tui=x` is no switch; another agent's positional is unchanged.
        assert_eq!(
            ex(Cline, "cline --tui=1 'fix it'"),
            Ok(Extraction::Headless)
        );
        assert_eq!(ex(Qwen, "qwen --tui 'fix it'"), Ok(Extraction::Headless));
    }

    #[test]
    fn detect_finds_the_agent_by_its_program_word() {
        let c = Catalog::embedded();
        assert_eq!(
            detect(c, "FOO=1 /opt/bin/codex -m o3").map(|a| a.kind),
            Some(Codex)
        );
        assert_eq!(detect(c, "claude; rm x").map(|a| a.kind), Some(Claude));
        assert!(detect(c, "vim claude").is_none());
        assert!(detect(c, "'unbalanced").is_none());
    }

    #[test]
    fn a_dangling_value_flag_never_takes_double_dash_as_its_value() {
        assert_eq!(
            flags(Claude, "claude --model -- --dangerously-skip-permissions"),
            vec![]
        );
        assert_eq!(
            flags(
                Claude,
                "claude --effort low --model -- --dangerously-skip-permissions"
            ),
            vec![RecordedFlag::value("--effort", "low")]
        );
    }
    #[test]
    fn a_value_flag_the_cli_really_has_is_skipped_with_its_value() {
        let model = |v| vec![RecordedFlag::value("--model", v)];
        assert_eq!(
            flags(Copilot, "copilot --reasoning-effort high --model gpt-4o"),
            model("gpt-4o")
        );
        assert_eq!(
            flags(
                Copilot,
                "copilot -C /tmp/w --allow-url a.io b.io --share out.md --model gpt-4o"
            ),
            model("gpt-4o")
        );
        // `-i`'s value is a prompt: skipped whole, never read for flags.
        assert_eq!(
            flags(Copilot, "copilot -i 'fix --yolo' --model gpt-4o"),
            model("gpt-4o")
        );
        assert_eq!(
            flags(Pi, "pi --models 'a,b' --skill s.md --model gpt-4o"),
            model("gpt-4o")
        );
        assert_eq!(
            flags(Droid, "droid --append-system-prompt-file p.md --auto low"),
            vec![RecordedFlag::value("--auto", "low")]
        );
        assert_eq!(
            flags(
                Opencode,
                "opencode --mdns-domain x.local --replay-limit 5 -m stub/gpt-4o"
            ),
            model("stub/gpt-4o")
        );
    }

    #[test]
    fn every_declared_flag_before_a_carried_one_keeps_it() {
        for agent in Catalog::embedded().agents() {
            if !agent.flag("--model").is_some_and(|f| f.carry) {
                continue;
            }
            let cmd = &agent.commands[0];
            for f in agent.flags.iter().filter(|f| !f.carry && !f.headless) {
                let text = match f.arity {
                    Arity::Switch => format!("{cmd} {} --model m1", f.name),
                    _ => format!("{cmd} {} v1 --model m1", f.name),
                };
                assert_eq!(
                    flags(agent.kind, &text),
                    vec![RecordedFlag::value("--model", "m1")],
                    "{text}"
                );
            }
        }
    }

    /// The flag words a help text names: the leading `-x`/`--name` words of
    /// each option line (indented at most 8 columns; a deeper line is a
    /// description, which may mention flags of its own) and the words after
    /// `alias:`/`aliases:` (clap's `[aliases: --effort]`). `#` lines are
    /// the fixture's own notes.
    fn help_flags(text: &str) -> Vec<String> {
        fn flag_word(token: &str) -> Option<&str> {
            let dashes = if token.starts_with("--") { 2 } else { 1 };
            let body = token.strip_prefix('-')?;
            let body = if dashes == 2 { &body[1..] } else { body };
            if !body.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                return None;
            }
            let len = body
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(body.len());
            Some(&token[..dashes + len])
        }
        let mut out: Vec<String> = Vec::new();
        let mut push = |w: &str| {
            if !out.iter().any(|o| o == w) {
                out.push(w.to_owned());
            }
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let body = line.trim_start();
            if line.len() - body.len() <= 8 && body.starts_with('-') {
                for token in body.split([' ', ',']).filter(|t| !t.is_empty()) {
                    let Some(word) = flag_word(token) else { break };
                    push(word);
                    if word != token {
                        break;
                    }
                }
            }
            for (at, _) in line.match_indices("alias") {
                let Some((_, rest)) = line[at..].split_once(": ") else {
                    continue;
                };
                for token in rest.split([' ', ',']).filter(|t| !t.is_empty()) {
                    let Some(word) = flag_word(token) else { break };
                    push(word);
                }
            }
        }
        out
    }

    #[test]
    fn help_flags_reads_option_lines_and_named_aliases_only() {
        let text = "# note --not-a-flag\n\
                    Options:\n\
                    \x20 -r, --resume [value]      Resume (see --continue)\n\
                    \x20 --allowedTools, --allowed-tools <tools...>\n\
                    \x20     Comma list, e.g. --debug=hooks\n\
                    \x20                           --system-prompt[-file], --bare\n\
                    \x20     --reasoning-effort <EFFORT>\n\
                    \x20         [aliases: --effort]\n\
                    \x20     --allow <RULE>   Allow rule (compat alias: --allowedTools)\n\
                    \x20 -C <directory>\n\
                    \x20         - on-request: a value, not a flag\n";
        assert_eq!(
            help_flags(text),
            [
                "-r",
                "--resume",
                "--allowedTools",
                "--allowed-tools",
                "--reasoning-effort",
                "--effort",
                "--allow",
                "-C"
            ]
        );
    }

    #[test]
    fn every_flag_of_a_pinned_help_is_declared() {
        // tests/help/<agent>-<version>.txt: the options sections of a pinned
        // CLI's own help. A version whose help adds a flag fails here until
        // the agent's table declares it, with its arity.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/help");
        let mut pinned: Vec<String> = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("tests/help") {
            let path = entry.expect("entry").path();
            let file = path.file_name().and_then(|f| f.to_str()).expect("name");
            let (agent, version) = file
                .strip_suffix(".txt")
                .and_then(|s| s.split_once('-'))
                .unwrap_or_else(|| panic!("{file}: not <agent>-<version>.txt"));
            let kind = *AgentKind::VARIANTS
                .iter()
                .find(|k| k.as_str() == agent)
                .unwrap_or_else(|| panic!("{file}: no agent {agent}"));
            let decl = Catalog::embedded().agent(kind);
            assert!(
                decl.verified_versions.iter().any(|v| v == version),
                "{file}: {version} is not a verified version of {agent}"
            );
            let text = std::fs::read_to_string(&path).expect("help text");
            let named = help_flags(&text);
            assert!(named.len() >= 10, "{file}: only {named:?}");
            let missing: Vec<&String> = named.iter().filter(|n| decl.flag(n).is_none()).collect();
            assert!(
                missing.is_empty(),
                "{file}: {agent} declares none of {missing:?}"
            );
            pinned.push(agent.to_owned());
        }
        for agent in Catalog::embedded().agents().iter().filter(|a| a.verified) {
            let agent = agent.kind.as_str();
            assert!(
                pinned.iter().any(|p| p == agent),
                "no pinned help for verified {agent}"
            );
        }
    }

    #[test]
    fn opencode_variant_is_never_carried_into_the_ui() {
        // The UI rejects `--variant` (usage, exit 1): only `run` has it.
        assert_eq!(
            flags(Opencode, "opencode --variant high -m stub/gpt-4o --auto"),
            vec![
                RecordedFlag::value("--model", "stub/gpt-4o"),
                RecordedFlag::switch("--auto")
            ]
        );
    }

    #[test]
    fn pi_two_letter_switches_are_not_bundles() {
        assert_eq!(
            flags(Pi, "pi -np -nt --model gpt-4o"),
            vec![RecordedFlag::value("--model", "gpt-4o")]
        );
    }

    #[test]
    fn an_unknown_joined_flag_never_stops_the_scan() {
        assert_eq!(
            flags(Claude, "claude --mystery=value --model opus"),
            vec![RecordedFlag::value("--model", "opus")]
        );
        // Only the part before `=` can be a bundle of short switches.
        assert_eq!(
            flags(Copilot, "copilot -Z=/tmp/p --model gpt-4o"),
            vec![RecordedFlag::value("--model", "gpt-4o")]
        );
        assert_eq!(ex(Claude, "claude -cp=x"), Ok(Extraction::Headless));
    }

    proptest::proptest! {
        #[test]
        fn an_unknown_joined_flag_changes_nothing(
            k in 0usize..64,
            name in "--zz[a-z]{1,8}",
            value in "[A-Za-z0-9/._ -]{0,12}",
        ) {
            let agents = Catalog::embedded().agents();
            let agent = &agents[k % agents.len()];
            let cmd = &agent.commands[0];
            let joined = shell_words::quote(&format!("{name}={value}")).into_owned();
            for rest in ["--model m1", "--model m1 'a prompt'", ""] {
                proptest::prop_assert_eq!(
                    extract(agent, &format!("{cmd} {joined} {rest}")),
                    extract(agent, &format!("{cmd} {rest}")),
                    "{} {} {}", cmd, joined, rest
                );
            }
        }
    }
}
