//! `agent-resume tmux restore` (without `--recreate`) types into a pane that
//! already exists only when the pane's shell sits at an empty, idle prompt
//! (docs/security.md, "Typing into a pane").
//!
//! Each test runs real bash, zsh and fish in a private tmux server, with
//! `TMUX` and `TMUX_PANE` set as tmux sets them and the integration loaded
//! from an rc file (`eval "$(agent-resume init …)"`), or not at all. The
//! panes are saved (`tmux save` gives them ids), a claude session is
//! recorded for one, its id is removed again (as after tmux-resurrect
//! recreated it), and the pane is put in the state under test before
//! `tmux restore` runs. A stand-in `claude` first on `PATH` appends its
//! argv to a file.
//!
//! Whether anything was typed is read from the pane itself: after the
//! restore the test types a sentinel, and keys reach a pane in order, so
//! anything the restore sent shows before the sentinel.
//!
//! A missing tmux, bash, zsh or fish fails the test naming it.

#![allow(clippy::unwrap_used)]

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use agent_resume_test_support::tmux::{Sh, Tmux};
use agent_resume_test_support::{require, wait_for, PrivateEnv};
use agent_resume_tmux::PROMPT_DIR;
use serde_json::Value;

/// A fresh session id for each world's pane: restore skips an id that any
/// live process on the machine holds (`already_running`), and tests in
/// other processes run stand-ins resuming their own ids at the same time.
fn fresh_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Every shell's prompt.
const PROMPT: &str = "READY$";

/// What the test types after the restore.
const SENTINEL: &str = "sentinel-4711";

const SHELLS: [Sh; 3] = [Sh::Bash, Sh::Zsh, Sh::Fish];

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

/// One shell's world: a temporary directory with the stand-in agent, the
/// database, config and rc files, and a private tmux server.
struct World {
    sh: Sh,
    shell: PathBuf,
    /// The binary's environment ([`PrivateEnv::for_shells`] in a UTF-8
    /// locale: tmux prints a tab as `_` to a client without one); each
    /// shell starts from it with its own additions.
    env: PrivateEnv,
    tmux: Tmux,
    /// The session id recorded for the pane.
    id: String,
}

impl World {
    fn new(sh: Sh) -> World {
        let shell = require(sh.name());
        require("env");
        require("sh");
        let env = PrivateEnv::for_shells(bin()).with("LANG", "C.UTF-8");
        let root = env.root().to_owned();
        assert!(
            !root.to_string_lossy().contains(['\'', '"', ' ', '\\']),
            "temp paths are written into rc files unquoted: {root:?}"
        );
        for d in [
            "home",
            // fish skips its background man-page scan (a python process
            // that would outlive the test) when this exists.
            "home/.local/share/fish/generated_completions",
            "bin",
            "work",
            "xdg-state",
            "zdot",
            "zdot-bare",
        ] {
            fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        let w = World {
            sh,
            shell,
            env,
            tmux: Tmux::start(),
            id: fresh_id(),
        };
        let agent = w.p("bin/claude");
        fs::write(
            &agent,
            format!(
                "#!/bin/sh\n{{ printf '%s\\0' \"${{0##*/}}\" \"$@\"; printf '\\n'; }} >> '{}'\n",
                w.p("calls").display()
            ),
        )
        .expect("writes the stand-in agent");
        fs::set_permissions(&agent, fs::Permissions::from_mode(0o755)).expect("chmod");
        w.write_rc();
        w.cli_ok(&["enable"]);
        w
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.env.root().join(rel)
    }

    /// The prompt the integration published for `pane` (its prompt file
    /// in the private directory under `XDG_STATE_HOME`), as the restore
    /// reads it; empty when none.
    fn published(&self, pane: &str) -> String {
        let key = self.tmux.pane_format(pane, "#{pid} #{pane_id}");
        let (server, id) = key.split_once(" %").expect("a server pid and a pane id");
        let dir = self.p("xdg-state/agent-resume").join(PROMPT_DIR);
        agent_resume_tmux::Prompts::at(dir)
            .published(server.parse().unwrap(), id.parse().unwrap())
            .map(|p| format!("{}:{}", p.seq, p.pid))
            .unwrap_or_default()
    }

    /// Two rc files per shell: one loading the integration, one not.
    fn write_rc(&self) {
        let init = self.cli_ok(&["init", self.sh.name()]).0;
        let init_path = self.p(&format!("init.{}", self.sh.name()));
        fs::write(&init_path, init).expect("writes the init script");
        let source = format!("source {}\n", init_path.display());
        for (with, name) in [(true, "rc"), (false, "rc-bare")] {
            let load = if with { source.as_str() } else { "" };
            let (path, text) = match self.sh {
                Sh::Bash => (
                    self.p(&format!("{name}.bash")),
                    format!("PS1='{PROMPT} '\n{load}"),
                ),
                Sh::Zsh => (
                    self.p(if with {
                        "zdot/.zshrc"
                    } else {
                        "zdot-bare/.zshrc"
                    }),
                    format!("PS1='{PROMPT} '\n{load}"),
                ),
                Sh::Fish => (
                    self.p(&format!("{name}.fish")),
                    format!(
                        "function fish_prompt\n    printf '%s ' '{PROMPT}'\nend\n\
                         function fish_greeting\nend\n{load}"
                    ),
                ),
            };
            fs::write(path, text).expect("writes an rc file");
        }
    }

    /// `agent-resume` with this world's paths, reaching its tmux server.
    fn cli<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.env.command(args).reach(&self.tmux).output()
    }

    fn cli_ok<S: AsRef<OsStr>>(&self, args: &[S]) -> (String, String) {
        let out = self.cli(args);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert!(
            out.status.success(),
            "agent-resume {:?} failed:\n{}{}",
            args.iter()
                .map(|a| a.as_ref().to_owned())
                .collect::<Vec<_>>(),
            text(&out.stdout),
            text(&out.stderr)
        );
        (text(&out.stdout), text(&out.stderr))
    }

    /// Starts the shell (with or without the integration) in a new window
    /// of the test server, with `TMUX` and `TMUX_PANE` as tmux set them and
    /// nothing else of the test's environment; waits for its first prompt.
    fn start_shell(&self, integration: bool) -> String {
        self.start_shell_with(integration, &[])
    }

    /// [`World::start_shell`] with `extra` environment set last (it wins).
    fn start_shell_with(&self, integration: bool, extra: &[(&str, &str)]) -> String {
        let mut argv: Vec<OsString> = vec![
            "sh".into(),
            "-c".into(),
            r#"exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" "$@""#.into(),
            "sh".into(),
        ];
        let path = format!("{}:/usr/bin:/bin", self.p("bin").display());
        let zdot = if integration { "zdot" } else { "zdot-bare" };
        let own: Vec<(&str, OsString)> = vec![
            ("TERM", "xterm".into()),
            ("PATH", path.into()),
            ("HISTFILE", self.p("hist").into()),
            ("ZDOTDIR", self.p(zdot).into()),
        ];
        let extra = extra.iter().map(|(k, v)| (*k, OsString::from(v)));
        argv.extend(self.env.assignments(own.into_iter().chain(extra)));
        argv.push(self.shell.clone().into());
        let rc = if integration { "rc" } else { "rc-bare" };
        match self.sh {
            Sh::Bash => {
                argv.extend(["--noprofile".into(), "--rcfile".into()]);
                argv.push(self.p(&format!("{rc}.bash")).into());
                argv.push("-i".into());
            }
            Sh::Zsh => argv.extend(["--no-globalrcs".into(), "-i".into()]),
            Sh::Fish => {
                argv.extend(["--no-config".into(), "-i".into(), "-C".into()]);
                argv.push(format!("source {}", self.p(&format!("{rc}.fish")).display()).into());
            }
        }
        let pane = self.tmux.spawn(&self.p("work"), &argv);
        self.tmux
            .wait_screen(&pane, "the first prompt", |s| prompts(s) >= 1);
        pane
    }

    /// Saves the server's panes, records a claude session for `pane`, and
    /// removes the pane's id again, as a pane tmux-resurrect recreated.
    fn save_and_record(&self, pane: &str) {
        let socket = self.tmux.socket().to_owned();
        self.cli_ok(&["tmux", "save", "-L", &socket]);
        let id = self.tmux.pane_format(pane, "#{@agent_resume_pane}");
        assert_eq!(id.len(), 36, "the save gave the pane an id: {id:?}");
        let work = self.p("work");
        self.cli_ok(&[
            "record".as_ref(),
            "--pane".as_ref(),
            id.as_ref(),
            "--agent".as_ref(),
            "claude".as_ref(),
            "--session-id".as_ref(),
            self.id.as_ref(),
            "--cwd".as_ref(),
            work.as_os_str(),
            "--invocation".as_ref(),
            "claude --model opus".as_ref(),
        ]);
        self.tmux
            .ok(&["set-option", "-p", "-u", "-t", pane, "@agent_resume_pane"]);
    }

    /// `tmux restore` (no `--recreate`); the argv the pane is to resume
    /// with (the stand-in's name first), and what the restore said.
    fn restore(&self) -> (Vec<String>, String) {
        let socket = self.tmux.socket().to_owned();
        let (out, err) = self.cli_ok(&["tmux", "restore", "-L", &socket, "--json"]);
        let plan: Value = serde_json::from_str(&out).expect("restore --json is JSON");
        let resumed: Vec<&Value> = plan
            .as_array()
            .expect("a list")
            .iter()
            .filter(|p| p["verdict"] == "resume")
            .collect();
        assert_eq!(
            resumed.len(),
            1,
            "one pane resumes: {plan}\n{err}\n{}\n{}",
            self.cli_ok(&["recordings"]).0,
            self.tmux.ok(&[
                "list-panes",
                "-a",
                "-F",
                "#{pane_id} #{session_name}:#{window_index}.#{pane_index} [#{@agent_resume_pane}] #{pane_current_command} #{pane_current_path}"
            ])
        );
        let mut argv: Vec<String> =
            serde_json::from_value(resumed[0]["argv"].clone()).expect("argv is a list");
        argv[0] = "claude".into();
        (argv, err)
    }

    /// Every run of the stand-in agent: its name, then its arguments.
    fn calls(&self) -> Vec<Vec<String>> {
        let bytes = fs::read(self.p("calls")).unwrap_or_default();
        String::from_utf8(bytes)
            .expect("argv is UTF-8")
            .split_terminator('\n')
            .map(|r| r.split_terminator('\0').map(str::to_owned).collect())
            .collect()
    }

    /// `armed:` from `status`.
    fn armed(&self) -> usize {
        let (out, _) = self.cli_ok(&["status"]);
        out.lines()
            .find_map(|l| l.strip_prefix("armed:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("status has an `armed:` count:\n{out}"))
    }

    /// Types the sentinel (no Enter) and returns the line it lands on, once
    /// it shows: keys reach a pane in order, so whatever the restore typed
    /// shows before it.
    fn line_with_sentinel(&self, pane: &str) -> String {
        self.tmux
            .ok(&["send-keys", "-t", pane, "-l", "--", SENTINEL]);
        let screen = self
            .tmux
            .wait_screen(pane, "the sentinel", |s| s.contains(SENTINEL));
        screen
            .lines()
            .rev()
            .find(|l| l.contains(SENTINEL))
            .expect("the sentinel shows")
            .trim_end()
            .to_owned()
    }

    /// Waits for the stand-in agent to have run once; its argv.
    fn wait_one_call(&self, what: &str) -> Vec<String> {
        let calls = wait_for(what, || {
            let c = self.calls();
            (!c.is_empty()).then_some(c)
        });
        assert_eq!(
            calls.len(),
            1,
            "{}: the agent ran once: {calls:?}",
            self.name()
        );
        calls.into_iter().next().expect("one call")
    }

    /// The words that start this world's shell with the integration, for a
    /// line typed into another shell (paths hold no space or quote).
    fn nested_shell(&self) -> String {
        match self.sh {
            Sh::Bash => format!(
                "{} --noprofile --rcfile {} -i",
                self.shell.display(),
                self.p("rc.bash").display()
            ),
            Sh::Zsh => format!("{} --no-globalrcs -i", self.shell.display()),
            Sh::Fish => format!(
                "{} --no-config -i -C \"source {}\"",
                self.shell.display(),
                self.p("rc.fish").display()
            ),
        }
    }

    /// The pane never showed the typed take command.
    fn assert_nothing_typed(&self, pane: &str) {
        let screen = self.tmux.screen(pane);
        assert!(
            !screen.contains("AGENT_RESUME_LINE"),
            "{}: the take command was typed:\n{screen}",
            self.name()
        );
        assert_eq!(self.calls(), Vec::<Vec<String>>::new(), "{}", self.name());
    }

    fn name(&self) -> &'static str {
        self.sh.name()
    }
}

/// How many prompts the screen shows.
fn prompts(screen: &str) -> usize {
    screen.lines().filter(|l| l.starts_with(PROMPT)).count()
}

#[test]
fn an_idle_empty_prompt_gets_the_take_command_and_the_agent_runs_with_the_planned_argv() {
    for sh in SHELLS {
        let w = World::new(sh);
        let pane = w.start_shell(true);
        w.save_and_record(&pane);
        let (argv, err) = w.restore();
        assert!(!err.contains("nothing typed"), "{}: {err}", w.name());
        assert_eq!(
            w.wait_one_call("the typed take command to run the agent"),
            argv,
            "{}: the agent got the plan's argv",
            w.name()
        );
        assert_eq!(w.armed(), 0, "{}: taking consumed the arm", w.name());
    }
}

/// `pgrp` and `tpgid` from a `/proc/<pid>/stat` text (fields 5 and 8; the
/// command name in parentheses may hold anything).
fn groups(stat: &str) -> (u32, u32) {
    let rest = &stat[stat.rfind(')').expect("a stat line") + 1..];
    let f: Vec<&str> = rest.split_ascii_whitespace().collect();
    (f[2].parse().expect("pgrp"), f[5].parse().expect("tpgid"))
}

/// The probe's answer is written while the shell keeps its terminal: a
/// handler whose `tmux` ran as a foreground job of its own held the
/// terminal until it exited, so a restore reading the answer at once found
/// another group in front and typed nothing ("the prompt changed").
#[test]
fn the_probe_is_answered_without_the_shell_giving_up_its_terminal() {
    for sh in SHELLS {
        let w = World::new(sh);
        // A `tmux` first on the shell's PATH that notes its process groups
        // as it starts, then runs the real one.
        let real = require("tmux");
        let wrapper = w.p("bin/tmux");
        fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\n{{ printf '%s\\n' \"$*\"; cat /proc/$$/stat; }} >> '{}'\nexec '{}' \"$@\"\n",
                w.p("tmux-calls").display(),
                real.display()
            ),
        )
        .expect("writes the tmux wrapper");
        fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod");
        let pane = w.start_shell(true);
        let shell: u32 = w
            .tmux
            .pane_format(&pane, "#{pane_pid}")
            .parse()
            .expect("pid");
        w.save_and_record(&pane);
        let (argv, err) = w.restore();
        assert!(!err.contains("nothing typed"), "{}: {err}", w.name());
        assert_eq!(
            w.wait_one_call("the typed take command"),
            argv,
            "{}",
            w.name()
        );
        let log = fs::read_to_string(w.p("tmux-calls")).expect("the wrapper ran");
        let lines: Vec<&str> = log.lines().collect();
        let probes: Vec<(u32, u32)> = lines
            .chunks(2)
            .filter(|c| c[0].contains("@agent_resume_probe"))
            .map(|c| groups(c[1]))
            .collect();
        assert!(
            !probes.is_empty(),
            "{}: the probe was answered:\n{log}",
            w.name()
        );
        for (pgrp, tpgid) in probes {
            assert_eq!(
                (pgrp, tpgid),
                (shell, shell),
                "{}: the probe's tmux ran in the shell's group, the shell in front:\n{log}",
                w.name()
            );
        }
    }
}

#[test]
fn half_typed_input_never_gets_the_line_and_the_next_prompt_takes_it() {
    for sh in SHELLS {
        let w = World::new(sh);
        let pane = w.start_shell(true);
        w.save_and_record(&pane);
        w.tmux
            .ok(&["send-keys", "-t", &pane, "-l", "--", "echo half"]);
        w.tmux.wait_screen(&pane, "the half-typed input", |s| {
            s.lines()
                .any(|l| l.trim_end() == format!("{PROMPT} echo half"))
        });
        let (argv, err) = w.restore();
        assert_eq!(
            w.line_with_sentinel(&pane),
            format!("{PROMPT} echo half{SENTINEL}"),
            "{}: nothing was typed after the user's input",
            w.name()
        );
        w.assert_nothing_typed(&pane);
        assert_eq!(w.armed(), 1, "{}: the line stays armed", w.name());
        assert!(
            err.contains("the prompt holds input"),
            "{}: {err}",
            w.name()
        );
        // The user's own line runs as typed; the next prompt takes the line.
        w.tmux.ok(&["send-keys", "-t", &pane, "Enter"]);
        assert_eq!(
            w.wait_one_call("the next prompt to take the line"),
            argv,
            "{}",
            w.name()
        );
        let screen = w.tmux.screen(&pane);
        assert!(
            screen.lines().any(|l| l == format!("half{SENTINEL}")),
            "{}: the user's line ran as typed:\n{screen}",
            w.name()
        );
    }
}

#[test]
fn an_unfinished_line_at_a_continuation_prompt_never_gets_the_line() {
    for sh in SHELLS {
        let w = World::new(sh);
        let pane = w.start_shell(true);
        w.save_and_record(&pane);
        // An open quote: the shell waits for the rest of the line, and the
        // line being edited is empty.
        w.tmux.type_line(&pane, "echo 'open");
        wait_for("the continuation line", || {
            let visible = w.tmux.ok(&["capture-pane", "-p", "-t", &pane]);
            let at = visible
                .lines()
                .position(|l| l.trim_end() == format!("{PROMPT} echo 'open"))?;
            let y: usize = w.tmux.pane_format(&pane, "#{cursor_y}").parse().ok()?;
            (y > at).then_some(())
        });
        let (_, err) = w.restore();
        let line = w.line_with_sentinel(&pane);
        let before = line.strip_suffix(SENTINEL).expect("ends with the sentinel");
        assert!(
            matches!(before.trim(), "" | ">" | "quote>"),
            "{}: the sentinel starts the continuation line: {line:?}",
            w.name()
        );
        w.assert_nothing_typed(&pane);
        assert!(
            err.contains("the prompt holds input"),
            "{}: {err}",
            w.name()
        );
    }
}

#[test]
fn a_shell_running_a_script_never_gets_the_line_and_the_next_prompt_takes_it() {
    for sh in SHELLS {
        let w = World::new(sh);
        let pane = w.start_shell(true);
        w.save_and_record(&pane);
        // The foreground command is a shell (bash), reading a line.
        w.tmux.type_line(
            &pane,
            r#"bash -c 'echo waiting; read -r l; printf "got[%q]\n" "$l"'"#,
        );
        w.tmux.wait_screen(&pane, "the script to wait", |s| {
            s.lines().any(|l| l == "waiting")
        });
        wait_for("bash in front", || {
            (w.tmux.pane_format(&pane, "#{pane_current_command}") == "bash").then_some(())
        });
        let (argv, err) = w.restore();
        w.tmux.type_line(&pane, SENTINEL);
        let screen = w.tmux.wait_screen(&pane, "the script's answer", |s| {
            s.lines().any(|l| l.starts_with("got["))
        });
        let got: Vec<&str> = screen.lines().filter(|l| l.starts_with("got[")).collect();
        assert_eq!(
            got,
            vec![format!("got[{SENTINEL}]").as_str()],
            "{}: the script read only what the user typed:\n{screen}",
            w.name()
        );
        assert!(
            !screen.contains("AGENT_RESUME_LINE"),
            "{}: the take command was typed:\n{screen}",
            w.name()
        );
        assert!(
            err.contains("no idle prompt published"),
            "{}: {err}",
            w.name()
        );
        // Back at its prompt, the shell takes the line.
        assert_eq!(
            w.wait_one_call("the next prompt to take the line"),
            argv,
            "{}",
            w.name()
        );
    }
}

#[test]
fn a_read_in_the_shell_itself_never_gets_the_line_and_the_next_prompt_takes_it() {
    for sh in SHELLS {
        let w = World::new(sh);
        let pane = w.start_shell(true);
        w.save_and_record(&pane);
        // The shell itself (a builtin, no other process) reads a line: it
        // holds its terminal, and only the cleared marker tells it is busy.
        let line = match sh {
            Sh::Bash | Sh::Zsh => r#"echo reading; read -r l; printf 'got[%q]\n' "$l""#,
            Sh::Fish => r#"echo reading; read -l l; printf 'got[%s]\n' (string escape -- $l)"#,
        };
        w.tmux.type_line(&pane, line);
        w.tmux.wait_screen(&pane, "the line to start", |s| {
            s.lines().any(|l| l == "reading")
        });
        let (argv, err) = w.restore();
        w.tmux.type_line(&pane, SENTINEL);
        let screen = w.tmux.wait_screen(&pane, "the read's answer", |s| {
            s.lines().any(|l| l.starts_with("got["))
        });
        let got: Vec<&str> = screen.lines().filter(|l| l.starts_with("got[")).collect();
        assert_eq!(
            got,
            vec![format!("got[{SENTINEL}]").as_str()],
            "{}: the read got only what the user typed:\n{screen}",
            w.name()
        );
        assert!(
            !screen.contains("AGENT_RESUME_LINE"),
            "{}: the take command was typed:\n{screen}",
            w.name()
        );
        assert!(
            err.contains("no idle prompt published"),
            "{}: {err}",
            w.name()
        );
        assert_eq!(
            w.wait_one_call("the next prompt to take the line"),
            argv,
            "{}",
            w.name()
        );
    }
}

/// bash marks a running line from its DEBUG trap: a trap the user sets
/// after the integration replaces it, and from the next prompt on the
/// integration publishes no prompt, so a `read` in the shell itself still
/// never gets the probe key or the line.
#[test]
fn bash_with_its_debug_trap_replaced_never_lets_keys_into_a_read() {
    let w = World::new(Sh::Bash);
    let pane = w.start_shell(true);
    w.save_and_record(&pane);
    w.tmux.type_line(&pane, "trap ':' DEBUG");
    w.tmux
        .type_line(&pane, r#"echo reading; read -r l; printf 'got[%q]\n' "$l""#);
    w.tmux.wait_screen(&pane, "the line to start", |s| {
        s.lines().any(|l| l == "reading")
    });
    let (_, err) = w.restore();
    w.tmux.type_line(&pane, SENTINEL);
    let screen = w.tmux.wait_screen(&pane, "the read's answer", |s| {
        s.lines().any(|l| l.starts_with("got["))
    });
    let got: Vec<&str> = screen.lines().filter(|l| l.starts_with("got[")).collect();
    assert_eq!(
        got,
        vec![format!("got[{SENTINEL}]").as_str()],
        "the read got only what the user typed:\n{screen}"
    );
    assert!(!screen.contains("AGENT_RESUME_LINE"), "{screen}");
    assert!(err.contains("no idle prompt published"), "{err}");
}

#[test]
fn a_prompt_left_published_by_a_shell_that_ended_never_lets_keys_into_the_program_in_front() {
    for sh in SHELLS {
        let w = World::new(sh);
        let pane = w.start_shell(true);
        w.save_and_record(&pane);
        // A script (a shell in front) runs a shell with the integration,
        // which publishes its prompt and ends at end-of-file (no line runs,
        // so nothing clears the marker); then the script reads a line.
        let script = format!(
            r#"bash -c '{}; echo back; read -r l; printf "got[%q]\n" "$l"'"#,
            w.nested_shell()
        );
        w.tmux.type_line(&pane, &script);
        wait_for("the inner shell's prompt", || {
            let screen = w.tmux.screen(&pane);
            let marker = w.published(&pane);
            (prompts(&screen) >= 2 && !marker.is_empty()).then_some(())
        });
        w.tmux.ok(&["send-keys", "-t", &pane, "C-d"]);
        w.tmux.wait_screen(&pane, "the script to go on", |s| {
            s.lines().any(|l| l == "back")
        });
        wait_for("bash in front", || {
            (w.tmux.pane_format(&pane, "#{pane_current_command}") == "bash").then_some(())
        });
        assert!(
            !w.published(&pane).is_empty(),
            "{}: the ended shell's prompt is still published",
            w.name()
        );
        let (_, err) = w.restore();
        w.tmux.type_line(&pane, SENTINEL);
        let screen = w.tmux.wait_screen(&pane, "the script's answer", |s| {
            s.lines().any(|l| l.starts_with("got["))
        });
        let got: Vec<&str> = screen.lines().filter(|l| l.starts_with("got[")).collect();
        assert_eq!(
            got,
            vec![format!("got[{SENTINEL}]").as_str()],
            "{}: the script read only what the user typed:\n{screen}",
            w.name()
        );
        assert!(
            !screen.contains("AGENT_RESUME_LINE"),
            "{}: the take command was typed:\n{screen}",
            w.name()
        );
        assert!(
            err.contains("the shell does not hold its terminal"),
            "{}: {err}",
            w.name()
        );
    }
}

#[test]
fn a_pane_without_the_integration_is_never_typed_into() {
    for sh in SHELLS {
        let w = World::new(sh);
        let pane = w.start_shell(false);
        w.save_and_record(&pane);
        let (_, err) = w.restore();
        assert_eq!(
            w.line_with_sentinel(&pane),
            format!("{PROMPT} {SENTINEL}"),
            "{}: nothing was typed",
            w.name()
        );
        w.assert_nothing_typed(&pane);
        assert_eq!(w.armed(), 1, "{}: the line stays armed", w.name());
        assert!(
            err.contains("no idle prompt published"),
            "{}: {err}",
            w.name()
        );
    }
}

#[test]
fn without_a_reachable_tmux_the_integration_prints_nothing_and_fails_nothing() {
    for sh in SHELLS {
        let w = World::new(sh);
        // `TMUX` names no server, and no tmux is on `PATH`.
        let only_agent = w.p("bin");
        let pane = w.start_shell_with(
            true,
            &[
                ("TMUX", "/nonexistent/agent-resume-test,1,0"),
                ("PATH", only_agent.to_str().expect("a UTF-8 path")),
            ],
        );
        w.tmux.type_line(&pane, "echo one");
        let screen = w
            .tmux
            .wait_screen(&pane, "the prompt after a line", |s| prompts(s) >= 2);
        let text: Vec<&str> = screen
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(
            text,
            [format!("{PROMPT} echo one").as_str(), "one", PROMPT],
            "{}: only the prompts and the line's own output",
            w.name()
        );
    }
}
