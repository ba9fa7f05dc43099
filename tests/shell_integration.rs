//! The shell integration scripts (`agent-resume init bash|zsh|fish`) in real
//! interactive shells under a private tmux server, typed into as a user
//! would.
//!
//! Every shell starts from `env -i` with a temporary `HOME`, a `PATH` whose
//! first directory holds a fake `claude` (it appends its argv to a file and
//! exits with the code in another), and the user's rc files off; the
//! integration is the output of `agent-resume init <shell>` written to a
//! file the shell sources at start-up, as `eval "$(agent-resume init …)"` in
//! an rc file would:
//!
//! - bash: `bash --noprofile --rcfile RC -i` (`--norc` would also drop
//!   `--rcfile`; Debian's bash still reads `/etc/bash.bashrc` first, and RC
//!   sets the prompt after it);
//! - zsh: `zsh --no-globalrcs -i` with `ZDOTDIR` holding a `.zshrc` (`-f`
//!   would skip that `.zshrc` too);
//! - fish: `fish --no-config -i -C 'source RC'`.
//!
//! A missing tmux, bash, zsh or fish fails the test naming it.

#![allow(clippy::unwrap_used)]

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use agent_resume_test_support::tmux::{Sh, Tmux};
use agent_resume_test_support::{require, wait_for, PrivateEnv};
use serde_json::{json, Value};

/// The pane id every shell is started with.
const PANE: &str = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
/// Every shell's prompt (rc files set it), so the harness can count prompts.
const PROMPT: &str = "READY$";

/// One test's world: a temporary directory with the fake agent, the
/// database, config and state, the rc files, and a private tmux server.
struct World {
    sh: Sh,
    shell: PathBuf,
    /// The binary's environment ([`PrivateEnv::for_shells`]); each shell
    /// starts from it with its own additions.
    env: PrivateEnv,
    tmux: Tmux,
    /// Session ids of this world, fresh for each: restore skips an id any
    /// live process on the machine holds (`already_running`), and other
    /// tests run stand-ins resuming their own ids at the same time.
    id_a: String,
    id_b: String,
}

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

impl World {
    fn new(sh: Sh) -> World {
        let shell = require(sh.name());
        require("env");
        let env = PrivateEnv::for_shells(bin());
        let root = env.root().to_owned();
        assert!(
            !root.to_string_lossy().contains(['\'', '"', ' ', '\\']),
            "temp paths are typed and sourced unquoted-safe: {root:?}"
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
        ] {
            fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        let world = World {
            sh,
            shell,
            env,
            tmux: Tmux::start(),
            id_a: uuid::Uuid::new_v4().to_string(),
            id_b: uuid::Uuid::new_v4().to_string(),
        };
        world.write_fake_agent();
        world.write_rc();
        world.cli_ok(&["enable"]);
        world
    }

    fn root(&self) -> &Path {
        self.env.root()
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// A fake `claude`: appends its basename and arguments (NUL-terminated,
    /// then a newline) to `calls`, writes its parent's pid to `parent`, and
    /// exits with the code in `exit-code`
    /// (`stop`: suspends itself as Ctrl-Z would; continued, it appends a
    /// line to `resumed` and exits 0; `probe`: writes `stty -a` of its
    /// terminal to `stty.<pid>`, appends its pid to `probes`, reads one line
    /// from its terminal into `got.<pid>` and exits 0).
    fn write_fake_agent(&self) {
        let script = format!(
            "#!/bin/sh\n{{ printf '%s\\0' \"${{0##*/}}\" \"$@\"; printf '\\n'; }} >> '{calls}'\n\
             echo \"$PPID\" > '{parent}'\n\
             code=$(cat '{code}' 2>/dev/null) || code=0\n\
             if [ \"$code\" = stop ]; then kill -TSTP $$; echo >> '{resumed}'; code=0; fi\n\
             if [ \"$code\" = probe ]; then\n\
               stty -a > '{root}/stty.'$$ 2>&1\n\
               echo $$ >> '{probes}'\n\
               IFS= read -r line\n\
               printf '%s\\n' \"$line\" > '{root}/got.tmp.'$$\n\
               mv '{root}/got.tmp.'$$ '{root}/got.'$$\n\
               code=0\n\
             fi\n\
             exit \"${{code:-0}}\"\n",
            calls = self.p("calls").display(),
            code = self.p("exit-code").display(),
            resumed = self.p("resumed").display(),
            parent = self.p("parent").display(),
            root = self.root().display(),
            probes = self.p("probes").display(),
        );
        let path = self.p("bin/claude");
        fs::write(&path, script).expect("writes the fake agent");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// The integration script, and the rc file that sources it.
    fn write_rc(&self) {
        let init = self.cli_ok(&["init", self.sh.name()]).0;
        let init_path = self.p(&format!("init.{}", self.sh.name()));
        fs::write(&init_path, init).expect("writes the init script");
        let init_path = init_path.display();
        match self.sh {
            Sh::Bash => fs::write(
                self.p("rc.bash"),
                format!("PS1='{PROMPT} '\nsource {init_path}\n"),
            ),
            Sh::Zsh => fs::write(
                self.p("zdot/.zshrc"),
                format!("PS1='{PROMPT} '\nHISTSIZE=1000\nSAVEHIST=1000\nsource {init_path}\n"),
            ),
            Sh::Fish => fs::write(
                self.p("rc.fish"),
                format!(
                    "function fish_prompt\n    printf '%s ' '{PROMPT}'\nend\n\
                     function fish_greeting\nend\nsource {init_path}\n"
                ),
            ),
        }
        .expect("writes the rc file");
    }

    /// `agent-resume` with this world's paths (no pane in the environment).
    fn cli<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        self.env.run(args)
    }

    fn cli_ok<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> (String, String) {
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

    /// Records a claude session for the pane, run in `work/`.
    fn record(&self, id: &str) {
        let work = self.p("work");
        self.cli_ok(&[
            "record".as_ref(),
            "--pane".as_ref(),
            PANE.as_ref(),
            "--agent".as_ref(),
            "claude".as_ref(),
            "--session-id".as_ref(),
            id.as_ref(),
            "--cwd".as_ref(),
            work.as_os_str(),
            "--invocation".as_ref(),
            "claude --model opus --permission-mode plan".as_ref(),
        ]);
    }

    fn layout(&self) -> PathBuf {
        let path = self.p("layout.json");
        let layout = json!({"startup": true, "windows": [{"landing": true, "visible": true,
            "active_tab": 0, "tabs": [{"focused_pane": PANE, "panes": [{"id": PANE,
            "cwd": self.p("work"), "shell": self.sh.name()}]}]}]});
        fs::write(&path, layout.to_string()).expect("writes the layout");
        path
    }

    /// Arms the pane's resume line (`restore`); the argv it will run.
    fn arm(&self) -> Vec<String> {
        self.record(&self.id_a);
        let layout = self.layout();
        let (out, _) = self.cli_ok(&[
            "restore".as_ref(),
            "--layout".as_ref(),
            layout.as_os_str(),
            "--json".as_ref(),
        ]);
        let plan: Value = serde_json::from_str(&out).expect("restore --json is JSON");
        assert_eq!(plan[0]["verdict"], "resume", "{plan}");
        assert_eq!(self.armed(), 1);
        serde_json::from_value(plan[0]["argv"].clone()).expect("argv is a list of strings")
    }

    /// The resume line `plan` builds for the recorded session (nothing armed).
    fn planned_line(&self) -> String {
        self.record(&self.id_a);
        let layout = self.layout();
        let (out, _) = self.cli_ok(&[
            "plan".as_ref(),
            "--layout".as_ref(),
            layout.as_os_str(),
            "--json".as_ref(),
        ]);
        let plan: Value = serde_json::from_str(&out).expect("plan --json is JSON");
        plan[0]["line"].as_str().expect("a line").to_owned()
    }

    /// `armed:` from `status`.
    fn armed(&self) -> usize {
        let (out, _) = self.cli_ok(&["status"]);
        out.lines()
            .find_map(|l| l.strip_prefix("armed:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("status has an `armed:` count:\n{out}"))
    }

    fn recordings(&self) -> Value {
        serde_json::from_str(&self.cli_ok(&["recordings", "--json"]).0)
            .expect("recordings --json is JSON")
    }

    /// Every run of the fake agent: basename then arguments.
    fn calls(&self) -> Vec<Vec<String>> {
        let bytes = fs::read(self.p("calls")).unwrap_or_default();
        String::from_utf8(bytes)
            .expect("fake agent argv is UTF-8")
            .split_terminator('\n')
            .map(|rec| {
                rec.split_terminator('\0')
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn set_agent_exit(&self, code: &str) {
        fs::write(self.p("exit-code"), code).expect("writes the exit code");
    }

    /// The argv that starts this world's shell (`env -i …`), plus `extra`
    /// environment.
    fn shell_argv(&self, extra: &[(&str, &str)]) -> Vec<OsString> {
        let cargo_bin = bin().parent().expect("the binary has a directory");
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            self.p("bin").display(),
            cargo_bin.display()
        );
        let mut own: Vec<(&str, OsString)> = vec![
            ("TERM", "xterm".into()),
            ("LANG", "C.UTF-8".into()),
            ("PATH", path.into()),
            ("HISTFILE", self.p("hist").into()),
            ("AGENT_RESUME_PANE", PANE.into()),
        ];
        if self.sh == Sh::Zsh {
            own.push(("ZDOTDIR", self.p("zdot").into()));
        }
        own.extend(extra.iter().map(|(k, v)| (*k, OsString::from(v))));
        let mut argv = self.env.env_argv(own);
        argv.push(self.shell.clone().into());
        argv.extend(self.shell_args().into_iter().map(OsString::from));
        argv
    }

    /// The shell's arguments after its path.
    fn shell_args(&self) -> Vec<String> {
        match self.sh {
            Sh::Bash => vec![
                "--noprofile".into(),
                "--rcfile".into(),
                self.p("rc.bash").display().to_string(),
                "-i".into(),
            ],
            Sh::Zsh => vec!["--no-globalrcs".into(), "-i".into()],
            Sh::Fish => vec![
                "--no-config".into(),
                "-i".into(),
                "-C".into(),
                format!("source {}", self.p("rc.fish").display()),
            ],
        }
    }

    /// The line that starts a nested shell from inside a running one.
    fn nested_shell_line(&self) -> String {
        let mut words = vec![self.shell.display().to_string()];
        words.extend(self.shell_args().into_iter().map(|w| {
            if w.contains(' ') {
                format!("'{w}'")
            } else {
                w
            }
        }));
        words.join(" ")
    }

    /// Starts the shell in a new window and waits for its first prompt.
    fn start_shell(&self, extra: &[(&str, &str)]) -> String {
        let pane = self.tmux.spawn(&self.p("work"), &self.shell_argv(extra));
        self.tmux
            .wait_screen(&pane, "the first prompt", |s| prompts(s) >= 1);
        pane
    }

    /// Types `line` and waits for the prompt after it.
    fn run_line(&self, pane: &str, line: &str) -> String {
        let before = prompts(&self.tmux.screen(pane));
        self.tmux.type_line(pane, line);
        self.tmux
            .wait_screen(pane, &format!("the prompt after `{line}`"), |s| {
                prompts(s) > before
            })
    }

    /// Types `exit` and waits for the shell to end.
    fn exit_shell(&self, pane: &str) {
        self.tmux.type_line(pane, "exit");
        self.tmux.wait_dead(pane);
    }

    /// The shell's own history list, written by its builtin to a file.
    fn builtin_history(&self, pane: &str) -> String {
        let out = self.p("history-builtin");
        let cmd = match self.sh {
            Sh::Bash | Sh::Fish => "history",
            Sh::Zsh => "fc -ln 1",
        };
        self.run_line(pane, &format!("{cmd} > {}", out.display()));
        fs::read_to_string(out).expect("the history builtin wrote its list")
    }

    /// A claude SessionStart hook payload for `id`, run in `work/`.
    fn hook(&self, id: &str) {
        let payload = json!({"session_id": id, "transcript_path": format!("/t/{id}.jsonl"),
            "cwd": self.p("work"), "hook_event_name": "SessionStart", "source": "startup"});
        let mut child = self
            .env
            .command(&["hook", "claude"])
            .env("AGENT_RESUME_PANE", PANE)
            .inner()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("runs agent-resume hook");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("piped");
            stdin
                .write_all(payload.to_string().as_bytes())
                .expect("writes the payload");
        }
        let out = child.wait_with_output().expect("hook finishes");
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "the hook reported a problem"
        );
    }

    /// The flags of the pane's recording, as `name[=value]`.
    fn recorded(&self) -> Option<(String, Vec<String>)> {
        let rows = self.recordings();
        let row = rows.as_array()?.first()?;
        let flags = row["flags"]
            .as_array()
            .expect("flags is a list")
            .iter()
            .map(|f| match f["value"].as_str() {
                Some(v) => format!("{}={v}", f["name"].as_str().unwrap()),
                None => f["name"].as_str().unwrap().to_owned(),
            })
            .collect();
        Some((row["session_id"].as_str().unwrap().to_owned(), flags))
    }
}

/// How many prompts the screen shows.
fn prompts(screen: &str) -> usize {
    screen.lines().filter(|l| l.starts_with(PROMPT)).count()
}

fn words(v: &[&str]) -> Vec<String> {
    v.iter().map(|w| (*w).to_owned()).collect()
}

// ------------------------------------------------------------- history ----

fn marked_lines_never_reach_history(sh: Sh) {
    let w = World::new(sh);
    let resume_line = w.planned_line();
    assert!(
        resume_line.starts_with(" AGENT_RESUME_LINE=1 "),
        "{resume_line}"
    );
    let pane = w.start_shell(&[]);
    w.run_line(&pane, "echo unmarked-kept");
    // The line exactly as the builder renders it (leading space, marker).
    w.run_line(&pane, &resume_line);
    assert_eq!(w.calls().len(), 1, "the typed resume line ran the agent");
    if sh != Sh::Fish {
        // bash and zsh honour the marker itself; fish 3.6 only the leading
        // space (docs: TOOLING history table), which every built line has.
        w.run_line(&pane, "AGENT_RESUME_LINE=1 echo marked-unspaced");
    }
    w.run_line(&pane, "echo unmarked-last");
    let listed = w.builtin_history(&pane);
    assert!(listed.contains("echo unmarked-kept"), "{listed}");
    assert!(listed.contains("echo unmarked-last"), "{listed}");
    assert!(
        !listed.contains("AGENT_RESUME_LINE"),
        "a marked line is in {}'s history list:\n{listed}",
        sh.name()
    );
    w.exit_shell(&pane);
    if sh != Sh::Fish {
        // `fish --no-config` keeps no history file; bash and zsh write theirs
        // at exit.
        let saved = fs::read_to_string(w.p("hist")).expect("the history file was written");
        assert!(saved.contains("echo unmarked-kept"), "{saved}");
        assert!(
            !saved.contains("AGENT_RESUME_LINE"),
            "a marked line reached {}'s history file:\n{saved}",
            sh.name()
        );
    }
}

#[test]
fn bash_keeps_marked_lines_out_of_history_and_unmarked_lines_in() {
    marked_lines_never_reach_history(Sh::Bash);
}

#[test]
fn zsh_keeps_marked_lines_out_of_history_and_unmarked_lines_in() {
    marked_lines_never_reach_history(Sh::Zsh);
}

#[test]
fn fish_keeps_marked_lines_out_of_history_and_unmarked_lines_in() {
    marked_lines_never_reach_history(Sh::Fish);
}

// ---------------------------------------------------------- first prompt ----

fn first_prompt_takes_the_armed_line_exactly_once(sh: Sh) {
    let w = World::new(sh);
    let argv = w.arm();
    w.set_agent_exit("0");

    // The pane's shell: its first prompt takes and runs the line.
    let first = w.start_shell(&[]);
    let calls = wait_for("the armed line to run", || {
        let c = w.calls();
        (!c.is_empty()).then_some(c)
    });
    let mut want = argv.clone();
    want[0] = "claude".into();
    assert_eq!(calls, vec![want.clone()], "the agent got the plan's argv");
    assert_eq!(w.armed(), 0, "taking consumed the arm");
    // The resumed agent exited 0 while attached: the shell clears the
    // recording once it is back at its prompt.
    wait_for("the resumed agent's exit 0 to clear the recording", || {
        (w.recordings() == json!([])).then_some(())
    });

    // Another shell in the same pane (not inheriting AGENT_RESUME_TAKEN)
    // asks, and there is nothing left to take.
    let second = w.start_shell(&[]);
    w.run_line(&second, "echo second-shell");
    assert_eq!(
        w.calls().len(),
        1,
        "the arm was consumed by the first shell"
    );

    // A nested shell inherits AGENT_RESUME_TAKEN and does not even ask: a
    // fresh arm stays armed through it.
    w.arm();
    w.run_line(&first, &w.nested_shell_line());
    w.run_line(&first, "echo inside-nested");
    assert_eq!(w.calls().len(), 1, "the nested shell ran nothing");
    assert_eq!(w.armed(), 1, "the nested shell did not take the arm");
    w.run_line(&first, "exit");

    // Control: a new shell without the inherited variable takes that arm.
    w.start_shell(&[]);
    wait_for("the second arm to be taken", || {
        (w.calls().len() == 2).then_some(())
    });
    assert_eq!(w.calls()[1], want);
    assert_eq!(w.armed(), 0);
}

#[test]
fn bash_first_prompt_runs_the_armed_line_once_and_no_other_shell_takes_it() {
    first_prompt_takes_the_armed_line_exactly_once(Sh::Bash);
}

#[test]
fn zsh_first_prompt_runs_the_armed_line_once_and_no_other_shell_takes_it() {
    first_prompt_takes_the_armed_line_exactly_once(Sh::Zsh);
}

#[test]
fn fish_first_prompt_runs_the_armed_line_once_and_no_other_shell_takes_it() {
    first_prompt_takes_the_armed_line_exactly_once(Sh::Fish);
}

// ------------------------------------------------------- note and ended ----

/// Types `line` (an agent command) twice: exiting 1 keeps the recording and
/// the note holds its allowlisted flags and the shell's pid; exiting 0
/// clears it.
fn agent_command_is_noted_and_cleared_only_on_success(
    w: &World,
    pane: &str,
    line: &str,
    noted: &str,
) {
    w.record(&w.id_a);
    w.set_agent_exit("1");
    let before = w.calls().len();
    w.run_line(pane, line);
    assert_eq!(w.calls().len(), before + 1, "`{line}` ran the fake agent");
    assert_eq!(
        w.recorded().map(|r| r.0),
        Some(w.id_a.clone()),
        "[{}] `{line}` failed (exit 1): the recording is kept",
        w.sh.name()
    );
    // The shell noted only the allowlisted flags before the prompt, bound
    // to itself (its pid): a hook reads the note only for the process this
    // shell started right after it.
    let note = agent_resume_store::Store::open(&w.env.db())
        .expect("opens the database")
        .noted(
            PANE.parse().expect("pane"),
            agent_resume_core::AgentKind::Claude,
            agent_resume_core::UnixMillis(0),
        )
        .expect("the line was noted");
    let (name, value) = noted.split_once('=').expect("name=value");
    assert_eq!(
        note.argv,
        words(&["claude", name, value]),
        "[{}] `{line}` was noted with exactly its allowlisted flags",
        w.sh.name()
    );
    let parent = fs::read_to_string(w.p("parent")).expect("the fake agent wrote its parent");
    assert_eq!(
        note.pid.map(|p| p.to_string()),
        Some(parent.trim().to_owned()),
        "[{}] the note names the shell that launched `{line}`",
        w.sh.name()
    );
    // A hook that no process of that line ran gets nothing from the note.
    w.hook(&w.id_b);
    assert_eq!(
        w.recorded(),
        Some((w.id_b.clone(), Vec::new())),
        "[{}] the note of `{line}` reached a hook of another process",
        w.sh.name()
    );
    w.set_agent_exit("0");
    w.run_line(pane, line);
    assert_eq!(
        w.recordings(),
        json!([]),
        "[{}] `{line}` exited 0 while attached: the recording is cleared",
        w.sh.name()
    );
}

fn typed_agent_commands(sh: Sh) {
    let w = World::new(sh);
    let pane = w.start_shell(&[]);
    agent_command_is_noted_and_cleared_only_on_success(
        &w,
        &pane,
        "claude --model opus 'hi --dangerously-skip-permissions'",
        "--model=opus",
    );
    // An environment-assignment prefix parses the same in every shell.
    agent_command_is_noted_and_cleared_only_on_success(
        &w,
        &pane,
        "NO_COLOR=1 claude --model sonnet 'hi --dangerously-skip-permissions'",
        "--model=sonnet",
    );
    // A command that is not an agent leaves a kept recording alone.
    w.record(&w.id_a);
    w.run_line(&pane, "true");
    assert_eq!(w.recorded().map(|r| r.0), Some(w.id_a.clone()));
    // An agent suspended by job control (Ctrl-Z) keeps its recording.
    w.set_agent_exit("stop");
    w.run_line(&pane, "claude --model opus");
    assert_eq!(
        w.recorded().map(|r| r.0),
        Some(w.id_a.clone()),
        "[{}] a suspended agent keeps its recording",
        sh.name()
    );
}

#[test]
fn bash_notes_typed_agent_flags_and_clears_on_exit_0_but_not_on_failure_or_suspension() {
    typed_agent_commands(Sh::Bash);
}

#[test]
fn zsh_notes_typed_agent_flags_and_clears_on_exit_0_but_not_on_failure_or_suspension() {
    typed_agent_commands(Sh::Zsh);
}

#[test]
fn fish_notes_typed_agent_flags_and_clears_on_exit_0_but_not_on_failure_or_suspension() {
    typed_agent_commands(Sh::Fish);
}

#[test]
fn bash_agent_rerun_that_history_drops_as_a_duplicate_still_clears_on_exit_0() {
    // Debian's default .bashrc sets HISTCONTROL=ignoreboth: running the
    // same agent command twice adds no history entry the second time.
    let w = World::new(Sh::Bash);
    let pane = w.start_shell(&[("HISTCONTROL", "ignoreboth")]);
    let line = "claude --model opus";
    w.set_agent_exit("0");
    w.record(&w.id_a);
    w.run_line(&pane, line);
    assert_eq!(w.recordings(), json!([]), "the first run exited 0");
    w.record(&w.id_a);
    w.run_line(&pane, line);
    assert_eq!(w.calls().len(), 2);
    assert_eq!(
        w.recordings(),
        json!([]),
        "the rerun exited 0 while attached: the recording is cleared"
    );
    // An empty line runs nothing and clears nothing.
    w.record(&w.id_a);
    w.run_line(&pane, "");
    assert_eq!(w.recorded().map(|r| r.0), Some(w.id_a.clone()));
}

#[test]
fn every_tool_these_tests_drive_is_installed() {
    for tool in ["tmux", "bash", "zsh", "fish", "env"] {
        require(tool);
    }
}

fn resumed_agent_suspended_keeps_its_recording(sh: Sh) {
    let w = World::new(sh);
    w.arm();
    w.set_agent_exit("stop");
    let pane = w.start_shell(&[]);
    w.run_line(&pane, "echo after-resume");
    assert_eq!(w.calls().len(), 1, "the armed line ran");
    assert_eq!(
        w.recorded().map(|r| r.0),
        Some(w.id_a.clone()),
        "[{}] the resumed agent was suspended: its recording is kept",
        sh.name()
    );
    // It is the shell's job, so `fg` continues it.
    w.run_line(&pane, "fg");
    wait_for("`fg` to continue the suspended agent", || {
        w.p("resumed").exists().then_some(())
    });
}

#[test]
fn bash_resumed_agent_suspended_by_job_control_keeps_its_recording_and_stays_a_job() {
    resumed_agent_suspended_keeps_its_recording(Sh::Bash);
}

#[test]
fn zsh_resumed_agent_suspended_by_job_control_keeps_its_recording_and_stays_a_job() {
    resumed_agent_suspended_keeps_its_recording(Sh::Zsh);
}

#[test]
fn fish_resumed_agent_suspended_by_job_control_keeps_its_recording_and_stays_a_job() {
    resumed_agent_suspended_keeps_its_recording(Sh::Fish);
}

// ------------------------------------------------- the resumed agent's job ----

/// Whether the screen ends at a prompt with nothing typed after it.
fn at_empty_prompt(screen: &str) -> bool {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_end() == PROMPT)
}

/// What `/proc/<pid>` says of a process.
#[derive(Debug)]
struct Proc {
    /// `R`, `S`, `T` (stopped), …
    state: char,
    ppid: i64,
    pgrp: i64,
    /// The process group in the foreground of its terminal.
    tpgid: i64,
    /// Signals ignored (`SigIgn`) and blocked (`SigBlk`), as masks.
    ignored: u64,
    blocked: u64,
}

impl Proc {
    fn read(pid: i64) -> Proc {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_else(|e| panic!("reads /proc/{pid}/stat: {e}"));
        // Fields after the command name (which may hold spaces): state,
        // ppid, pgrp, session, tty_nr, tpgid, …
        let rest: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let mask = |key: &str| {
            let hex = status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .unwrap_or_else(|| panic!("/proc/{pid}/status has {key}"));
            u64::from_str_radix(hex.trim(), 16).unwrap()
        };
        Proc {
            state: rest[0].chars().next().unwrap(),
            ppid: rest[1].parse().unwrap(),
            pgrp: rest[2].parse().unwrap(),
            tpgid: rest[5].parse().unwrap(),
            ignored: mask("SigIgn:"),
            blocked: mask("SigBlk:"),
        }
    }
}

impl World {
    /// The pids of the stand-in's `probe` runs, in order.
    fn probes(&self) -> Vec<i64> {
        fs::read_to_string(self.p("probes"))
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().parse().expect("a pid"))
            .collect()
    }

    /// Starts the pane's shell, which takes the armed line at its first
    /// prompt; the pid of the resumed stand-in, reading its terminal.
    fn resume_probe(&self) -> (String, i64) {
        let before = self.probes().len();
        self.set_agent_exit("probe");
        let pane = self.tmux.spawn(&self.p("work"), &self.shell_argv(&[]));
        let pid = wait_for("the resumed stand-in to start", || {
            self.probes().get(before).copied()
        });
        (pane, pid)
    }

    /// Types `line` at the stand-in `pid` and waits for what it read.
    fn type_to_probe(&self, pane: &str, pid: i64, line: &str) {
        self.tmux.type_line(pane, line);
        let got = wait_for("the stand-in to read the typed line", || {
            fs::read_to_string(self.p(&format!("got.{pid}"))).ok()
        });
        assert_eq!(
            got.trim_end_matches('\n'),
            line,
            "[{}] the resumed agent read the typed line whole",
            self.sh.name()
        );
    }
}

/// The resumed agent is a foreground job of the shell, as if typed at the
/// prompt: its own process group, the terminal's foreground group, SIGINT
/// and SIGQUIT neither ignored nor blocked, the terminal in the cooked mode
/// a freshly started program gets; Ctrl-Z stops it and `fg` brings it back;
/// a clean exit clears the recording; the line stays out of history.
fn resumed_agent_is_a_foreground_job_of_its_own(sh: Sh) {
    let name = sh.name();
    let w = World::new(sh);
    w.arm();
    let (pane, pid) = w.resume_probe();
    let agent = Proc::read(pid);
    let shell = Proc::read(agent.ppid);
    assert_ne!(
        agent.pgrp, shell.pgrp,
        "[{name}] the resumed agent runs in its shell's process group: {agent:?}"
    );
    assert_eq!(
        agent.pgrp, agent.tpgid,
        "[{name}] the resumed agent is not the terminal's foreground process group: {agent:?}"
    );
    for (signal, number) in [("SIGINT", 2), ("SIGQUIT", 3)] {
        let bit = 1u64 << (number - 1);
        assert_eq!(
            agent.ignored & bit,
            0,
            "[{name}] the resumed agent ignores {signal}: {agent:?}"
        );
        assert_eq!(
            agent.blocked & bit,
            0,
            "[{name}] the resumed agent blocks {signal}: {agent:?}"
        );
    }
    let stty = fs::read_to_string(w.p(&format!("stty.{pid}"))).expect("the stand-in ran stty");
    let modes: Vec<&str> = stty.split([' ', ';', '\n']).collect();
    for mode in ["icanon", "echo", "isig", "icrnl"] {
        assert!(
            modes.contains(&mode),
            "[{name}] the resumed agent's terminal is not in cooked mode ({mode} is off):\n{stty}"
        );
    }
    // The keys that send SIGINT, SIGQUIT and SIGTSTP to the foreground job.
    for key in ["intr = ^C;", "quit = ^\\;", "susp = ^Z;"] {
        assert!(
            stty.contains(key),
            "[{name}] the resumed agent's terminal lacks `{key}`:\n{stty}"
        );
    }
    assert_ne!(
        w.tmux.pane_format(&pane, "#{pane_current_command}"),
        name,
        "[{name}] tmux names the shell as the pane's command while the agent runs"
    );
    w.type_to_probe(&pane, pid, "hello from the keyboard");
    wait_for("the resumed agent's exit 0 to clear the recording", || {
        (w.recordings() == json!([])).then_some(())
    });
    w.tmux
        .wait_screen(&pane, "the prompt after the agent", at_empty_prompt);
    let history = w.builtin_history(&pane);
    // Neither the line nor the command fish runs it with.
    assert!(
        !history.to_lowercase().contains("agent_resume"),
        "[{name}] the resume line reached history:\n{history}"
    );

    // Ctrl-Z stops it; `fg` continues it in the foreground.
    wait_for("the first stand-in to be gone", || {
        (!Path::new(&format!("/proc/{pid}")).exists()).then_some(())
    });
    w.arm();
    let (pane, pid) = w.resume_probe();
    w.tmux.ok(&["send-keys", "-t", &pane, "C-z"]);
    wait_for("Ctrl-Z to stop the resumed agent", || {
        (Proc::read(pid).state == 'T').then_some(())
    });
    w.tmux
        .wait_screen(&pane, "the prompt after Ctrl-Z", at_empty_prompt);
    assert_eq!(
        w.recorded().map(|r| r.0),
        Some(w.id_a.clone()),
        "[{name}] a suspended agent keeps its recording"
    );
    w.tmux.type_line(&pane, "fg");
    wait_for("`fg` to bring the agent back to the foreground", || {
        let p = Proc::read(pid);
        (p.state != 'T' && p.pgrp == p.tpgid).then_some(())
    });
    w.type_to_probe(&pane, pid, "after fg");
}

#[test]
fn bash_resumed_agent_is_a_foreground_job_of_its_own_with_default_signals_and_cooked_terminal() {
    resumed_agent_is_a_foreground_job_of_its_own(Sh::Bash);
}

#[test]
fn zsh_resumed_agent_is_a_foreground_job_of_its_own_with_default_signals_and_cooked_terminal() {
    resumed_agent_is_a_foreground_job_of_its_own(Sh::Zsh);
}

#[test]
fn fish_resumed_agent_is_a_foreground_job_of_its_own_with_default_signals_and_cooked_terminal() {
    resumed_agent_is_a_foreground_job_of_its_own(Sh::Fish);
}

/// Keys typed before fish reads its first line are on the command line when
/// the line would be taken: the armed line is dropped, nothing runs, and
/// the typed text stays the user's, unchanged.
#[test]
fn fish_first_prompt_with_typed_ahead_input_runs_nothing_and_drops_the_armed_line() {
    let w = World::new(Sh::Fish);
    w.arm();
    w.set_agent_exit("0");
    // fish starts only once the keys are typed: they wait in the terminal.
    let go = w.p("go");
    let mut argv: Vec<OsString> = vec![
        "/bin/sh".into(),
        "-c".into(),
        "while [ ! -e \"$0\" ]; do sleep 0.05; done; exec \"$@\"".into(),
        go.clone().into(),
    ];
    argv.extend(w.shell_argv(&[]));
    let pane = w.tmux.spawn(&w.p("work"), &argv);
    w.tmux
        .ok(&["send-keys", "-t", &pane, "-l", "--", "echo typed-ahead"]);
    fs::write(&go, "").expect("lets fish start");
    wait_for("the armed line to be taken", || {
        (w.armed() == 0).then_some(())
    });
    w.tmux
        .wait_screen(&pane, "the typed-ahead text at the prompt", |s| {
            s.lines()
                .any(|l| l.trim_end() == format!("{PROMPT} echo typed-ahead"))
        });
    w.tmux.ok(&["send-keys", "-t", &pane, "Enter"]);
    w.tmux
        .wait_screen(&pane, "the typed-ahead line's output", |s| {
            s.lines().any(|l| l == "typed-ahead")
        });
    assert_eq!(w.calls(), Vec::<Vec<String>>::new(), "the armed line ran");
    assert_eq!(
        w.recorded().map(|r| r.0),
        Some(w.id_a.clone()),
        "nothing ran: the recording is kept"
    );
}

/// The terminal's status report is what makes fish take the line; one that
/// arrives when the integration did not ask (here typed) takes nothing.
#[test]
fn fish_status_report_nobody_asked_for_takes_nothing() {
    let w = World::new(Sh::Fish);
    let pane = w.start_shell(&[]);
    w.run_line(&pane, "echo first");
    w.arm();
    w.tmux
        .ok(&["send-keys", "-t", &pane, "-l", "--", "\u{1b}[0n"]);
    w.run_line(&pane, "echo after-report");
    assert_eq!(w.calls(), Vec::<Vec<String>>::new(), "the armed line ran");
    assert_eq!(w.armed(), 1, "the armed line was taken");
}
