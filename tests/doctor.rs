//! `agent-resume doctor`: a fresh HOME fails naming every missing piece; a
//! HOME set up word for word as the README says (agent-resume on PATH,
//! `enable`, `install-hooks claude` with a stand-in `claude`, the bash line
//! in `~/.bashrc`, the tmux line in `~/.tmux.conf` loaded by a private tmux
//! server) passes every check, run from an interactive bash that read that
//! `~/.bashrc`; removing any one piece is named.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agent_resume_test_support::tmux::Tmux;
use agent_resume_test_support::{require, wait_for};

const BIN: &str = env!("CARGO_BIN_EXE_agent-resume");

/// A verified Claude Code version (crates/core/agents.toml).
const CLAUDE_VERSION: &str = "2.1.332 (Claude Code)";

/// A temporary HOME with a `bin/` first on PATH holding `agent-resume` (a
/// link to the binary under test) and a stand-in `claude`.
struct Home {
    dir: tempfile::TempDir,
    path_var: OsString,
}

impl Home {
    fn new(claude_version: &str) -> Home {
        let dir = tempfile::tempdir().expect("a temp HOME");
        let bin = dir.path().join("bin");
        fs::create_dir(&bin).expect("bin dir");
        std::os::unix::fs::symlink(BIN, bin.join("agent-resume")).expect("link agent-resume");
        let claude = bin.join("claude");
        fs::write(
            &claude,
            format!("#!/bin/sh\nprintf '%s\\n' '{claude_version}'\n"),
        )
        .expect("stand-in claude");
        fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).expect("chmod");
        let tmux = require("tmux");
        let tmux_dir = tmux.parent().expect("tmux has a directory");
        let path_var = std::env::join_paths([
            bin.as_path(),
            tmux_dir,
            Path::new("/usr/bin"),
            Path::new("/bin"),
        ])
        .expect("PATH joins");
        Home { dir, path_var }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn bin(&self) -> PathBuf {
        self.path().join("bin")
    }

    /// The environment every program of the test runs with.
    fn env(&self) -> Vec<(OsString, OsString)> {
        vec![
            ("HOME".into(), self.path().into()),
            ("PATH".into(), self.path_var.clone()),
            ("SHELL".into(), require("bash").into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm".into()),
        ]
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .envs(self.env())
            .current_dir(self.path())
            .stdin(Stdio::null());
        c
    }

    /// Runs `agent-resume ARGS` as a README step; it must succeed.
    fn step(&self, args: &[&str]) {
        let out = self
            .command(self.bin().join("agent-resume"))
            .args(args)
            .output()
            .expect("agent-resume runs");
        assert!(
            out.status.success(),
            "agent-resume {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The README's set-up, minus tmux: enable, hooks, the bash line.
    fn set_up(&self) {
        self.step(&["enable"]);
        self.step(&["install-hooks", "claude"]);
        // `agent-resume init bash --rc-line >> ~/.bashrc`.
        let out = self
            .command(self.bin().join("agent-resume"))
            .args(["init", "bash", "--rc-line"])
            .output()
            .expect("agent-resume runs");
        assert!(out.status.success());
        fs::write(self.path().join(".bashrc"), &out.stdout).expect("write .bashrc");
        // A login bash (what tmux starts) reads ~/.profile, which (as
        // Debian's /etc/skel has it) loads ~/.bashrc; /etc/profile set
        // PATH again before, so ~/bin goes first.
        fs::write(
            self.path().join(".profile"),
            "PATH=\"$HOME/bin:$PATH\"\n\
             if [ -n \"$BASH_VERSION\" ] && [ -f \"$HOME/.bashrc\" ]; then . \"$HOME/.bashrc\"; fi\n",
        )
        .expect("write .profile");
        fs::write(
            self.path().join(".tmux.conf"),
            "run-shell 'agent-resume init tmux | tmux source-file -'\n",
        )
        .expect("write .tmux.conf");
    }

    /// A private tmux server started from `~/.tmux.conf` (or no config),
    /// with the tmux line's hooks loaded when the config has it.
    fn tmux(&self, with_config: bool) -> Tmux {
        let config = if with_config {
            self.path().join(".tmux.conf")
        } else {
            PathBuf::from("/dev/null")
        };
        let tmux = Tmux::private(&config, self.env());
        tmux.ok(&["new-session", "-d", "-s", "main", "-x", "120", "-y", "30"]);
        if with_config {
            wait_for("the tmux line's hooks to load", || {
                let hooks = tmux.ok(&["show-hooks", "-g"]) + &tmux.ok(&["show-hooks", "-gw"]);
                (hooks.matches("[77]").count() == 13).then_some(())
            });
        }
        tmux
    }

    /// `agent-resume doctor ARGS` run directly (no shell).
    fn doctor(&self, tmux: &Tmux, args: &[&str]) -> Output {
        self.command(self.bin().join("agent-resume"))
            .arg("doctor")
            .args(["-L", tmux.socket()])
            .args(args)
            .env("TMUX_TMPDIR", tmux.tmpdir())
            .output()
            .expect("doctor runs")
    }

    /// `agent-resume doctor` typed in an interactive bash that read
    /// `~/.bashrc`.
    fn doctor_in_bash(&self, tmux: &Tmux) -> Output {
        self.command(require("bash"))
            .args(["-i", "-c"])
            .arg(format!("agent-resume doctor -L {}", tmux.socket()))
            .env("TMUX_TMPDIR", tmux.tmpdir())
            .output()
            .expect("bash runs")
    }
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The line of `key`, which must exist.
fn line<'a>(stdout: &'a str, key: &str) -> &'a str {
    let prefix = format!(" {key}: ");
    stdout
        .lines()
        .find(|l| l.contains(&prefix))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{stdout}"))
}

fn assert_fails(out: &Output, keys: &[&str]) {
    let stdout = text(out);
    for key in keys {
        let l = line(&stdout, key);
        assert!(l.starts_with("✗ "), "`{key}` should fail:\n{stdout}");
        assert!(l.contains("fix: "), "`{key}` names no fix:\n{stdout}");
    }
    assert_eq!(out.status.code(), Some(1), "{stdout}");
}

fn assert_all_pass(out: &Output) {
    let stdout = text(out);
    assert!(
        !stdout.contains("✗"),
        "a check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for key in [
        "feature",
        "database",
        "recordings",
        "shell.active",
        "shell.rc.bash",
        "tmux.conf",
        "tmux.server",
        "agent.claude.hooks",
        "agent.claude.version",
    ] {
        assert!(line(&stdout, key).starts_with("✓ "), "`{key}`:\n{stdout}");
    }
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}

#[test]
fn a_fresh_home_fails_naming_each_missing_piece_with_its_fix() {
    let home = Home::new(CLAUDE_VERSION);
    let tmux = home.tmux(false);
    let out = home.doctor(&tmux, &[]);
    assert_fails(
        &out,
        &[
            "feature",
            "shell.active",
            "shell.rc.bash",
            "tmux.conf",
            "tmux.server",
        ],
    );
    let stdout = text(&out);
    assert!(line(&stdout, "feature").contains("fix: agent-resume enable"));
    // No hooks: a note (the zero-config scan records the agent's panes),
    // not a failure.
    let hooks = line(&stdout, "agent.claude.hooks");
    assert!(hooks.starts_with("! "), "{stdout}");
    assert!(hooks.contains("zero-config scan"), "{stdout}");
    assert!(hooks.contains("fix: agent-resume install-hooks claude"));
    assert!(line(&stdout, "shell.rc.bash").contains(".bashrc"));
    // Nothing was created by looking.
    assert!(!home.path().join(".local/share/agent-resume").exists());
}

#[test]
fn a_home_set_up_as_the_readme_says_passes_every_check() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    assert_all_pass(&home.doctor_in_bash(&tmux));
}

#[test]
fn removing_the_rc_line_is_named() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    fs::write(home.path().join(".bashrc"), "# nothing here\n").expect("rewrite .bashrc");
    assert_fails(
        &home.doctor_in_bash(&tmux),
        &["shell.rc.bash", "shell.active"],
    );
}

#[test]
fn the_eval_line_still_counts_as_loading_the_integration() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    fs::write(
        home.path().join(".bashrc"),
        "eval \"$(agent-resume init bash)\"\n",
    )
    .expect("rewrite .bashrc");
    assert_all_pass(&home.doctor_in_bash(&tmux));
}

#[test]
fn a_sourced_file_missing_or_written_by_another_agent_resume_is_named() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    let file = home
        .path()
        .join(".local/share/agent-resume/shell/agent-resume.bash");
    let script = fs::read_to_string(&file).expect("enable wrote the file");
    fs::write(
        &file,
        script.replace("__agent_resume_bin=", "__agent_resume_bin_old="),
    )
    .expect("rewrites the file");
    let out = home.doctor(&tmux, &[]);
    assert_fails(&out, &["shell.file.bash"]);
    assert!(line(&text(&out), "shell.file.bash").contains("another agent-resume"));
    fs::remove_file(&file).expect("removes the file");
    let out = home.doctor(&tmux, &[]);
    assert_fails(&out, &["shell.file.bash"]);
    assert!(line(&text(&out), "shell.file.bash").contains("missing"));
    // `enable` (the fix doctor names) writes it again.
    home.step(&["enable"]);
    let out = home.doctor(&tmux, &[]);
    assert!(
        line(&text(&out), "shell.file.bash").starts_with("✓ "),
        "{}",
        text(&out)
    );
}

#[test]
fn a_server_without_the_tmux_line_loaded_is_named() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    // The line is in ~/.tmux.conf, but this server was started without it.
    let tmux = home.tmux(false);
    let out = home.doctor_in_bash(&tmux);
    assert_fails(&out, &["tmux.server"]);
    assert!(line(&text(&out), "tmux.conf").starts_with("✓ "));
    // And one of its hooks unset in a server that had them all.
    let tmux = home.tmux(true);
    tmux.ok(&["set-hook", "-gwu", "pane-exited[77]"]);
    let out = home.doctor_in_bash(&tmux);
    assert_fails(&out, &["tmux.server"]);
    assert!(line(&text(&out), "tmux.server").contains("pane-exited"));
}

#[test]
fn removing_the_tmux_line_from_the_config_is_named() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    fs::write(home.path().join(".tmux.conf"), "set -g mouse on\n").expect("rewrite");
    assert_fails(&home.doctor_in_bash(&tmux), &["tmux.conf"]);
}

#[test]
fn removing_the_claude_hook_is_named() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    home.step(&["uninstall-hooks", "claude"]);
    let out = home.doctor_in_bash(&tmux);
    let stdout = text(&out);
    assert!(
        line(&stdout, "agent.claude.hooks").starts_with("! "),
        "{stdout}"
    );
    assert!(!stdout.contains("✗"), "nothing else fails:\n{stdout}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "a note is no failure:\n{stdout}"
    );
}

/// What `echo` typed into a new tmux window's login bash (what tmux starts)
/// says of the integration: loaded or not.
fn login_bash_loads_the_integration(tmux: &Tmux, home: &Home, n: usize) -> bool {
    let out = home.path().join(format!("loaded-{n}"));
    let pane = tmux
        .ok(&["new-window", "-d", "-P", "-F", "#{pane_id}"])
        .trim()
        .to_owned();
    let line = format!("echo \"${{AGENT_RESUME_SHELL:-none}}\" > {}", out.display());
    // Typed at once: the terminal keeps it until the shell reads it.
    tmux.ok(&["send-keys", "-t", &pane, "-l", &line]);
    tmux.ok(&["send-keys", "-t", &pane, "Enter"]);
    let said = wait_for("the login shell's answer", || {
        fs::read_to_string(&out).ok().filter(|t| t.ends_with('\n'))
    });
    said.trim() == "bash"
}

#[test]
fn a_bash_profile_that_does_not_load_bashrc_is_named_as_tmux_s_login_shell_shows_it() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    assert!(login_bash_loads_the_integration(&tmux, &home, 0), "set up");
    assert!(!text(&home.doctor_in_bash(&tmux)).contains("shell.login.bash"));
    // A ~/.bash_profile that does not load ~/.bashrc: bash's login shell
    // reads it instead of ~/.profile.
    let profile = home.path().join(".bash_profile");
    fs::write(&profile, "PATH=\"$HOME/bin:$PATH\"\n").expect("write .bash_profile");
    assert!(
        !login_bash_loads_the_integration(&tmux, &home, 1),
        "tmux's pane"
    );
    let out = home.doctor_in_bash(&tmux);
    assert_fails(&out, &["shell.login.bash"]);
    let found = text(&out);
    let named = line(&found, "shell.login.bash");
    assert!(named.contains(".bash_profile"), "{named}");
    // The fix it names, run as it is, is what the shell needed.
    let fix = named.split("fix: ").nth(1).expect("a fix").trim();
    let ran = home
        .command(require("sh"))
        .args(["-c", fix])
        .output()
        .expect("sh runs");
    assert!(ran.status.success(), "{fix}: {ran:?}");
    assert!(login_bash_loads_the_integration(&tmux, &home, 2), "fixed");
    assert!(!text(&home.doctor_in_bash(&tmux)).contains("shell.login.bash"));
}

#[test]
fn a_hook_whose_binary_is_gone_is_named() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    let settings = home.path().join(".claude/settings.json");
    let text_before = fs::read_to_string(&settings).expect("settings.json");
    assert!(
        text_before.contains("\"agent-resume hook claude\""),
        "{text_before}"
    );
    fs::write(
        &settings,
        text_before.replace(
            "\"agent-resume hook claude\"",
            "\"/gone/agent-resume hook claude\"",
        ),
    )
    .expect("rewrite settings");
    let out = home.doctor_in_bash(&tmux);
    assert_fails(&out, &["agent.claude.hooks"]);
    assert!(line(&text(&out), "agent.claude.hooks").contains("/gone/agent-resume"));
}

#[test]
fn an_agent_version_not_verified_is_a_warning_that_does_not_fail() {
    let home = Home::new("7.0.1 (Claude Code)");
    home.set_up();
    let tmux = home.tmux(true);
    let out = home.doctor_in_bash(&tmux);
    let stdout = text(&out);
    let l = line(&stdout, "agent.claude.version");
    assert!(
        l.starts_with("! ") && l.contains("7.0.1") && l.contains("2.1.332"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}

#[test]
fn doctor_never_runs_an_agent_found_through_a_relative_path_entry() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    let tmux = home.tmux(true);
    // A `claude` in the directory doctor runs in (a cloned repository, say),
    // reachable through `.` ahead of the real one on PATH.
    let planted = home.path().join("claude");
    let canary = home.path().join("planted-ran");
    fs::write(
        &planted,
        format!(
            "#!/bin/sh
touch '{}'
echo '9.9.9'
",
            canary.display()
        ),
    )
    .expect("planted claude");
    fs::set_permissions(&planted, fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut path = OsString::from(".:");
    path.push(&home.path_var);
    let out = home
        .command(home.bin().join("agent-resume"))
        .arg("doctor")
        .args(["-L", tmux.socket()])
        .env("TMUX_TMPDIR", tmux.tmpdir())
        .env("PATH", &path)
        .output()
        .expect("doctor runs");
    let stdout = text(&out);
    assert!(!canary.exists(), "doctor ran ./claude:\n{stdout}");
    let l = line(&stdout, "agent.claude.version");
    assert!(l.starts_with("✓ ") && l.contains("2.1.332"), "{stdout}");
}

#[test]
fn json_output_has_stable_keys_and_the_same_verdict() {
    let home = Home::new(CLAUDE_VERSION);
    let tmux = home.tmux(false);
    let out = home.doctor(&tmux, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("doctor --json is JSON");
    assert_eq!(v["ok"], false);
    let checks = v["checks"].as_array().expect("checks is a list");
    for c in checks {
        let keys: Vec<&str> = c
            .as_object()
            .expect("a check is an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["check", "status", "detail", "fix"]);
        assert!(["pass", "warn", "fail", "skip"].contains(&c["status"].as_str().unwrap_or("")));
    }
    let feature = checks
        .iter()
        .find(|c| c["check"] == "feature")
        .expect("a feature check");
    assert_eq!(feature["status"], "fail");
    assert_eq!(feature["fix"], "agent-resume enable");
}

#[test]
fn fifo_startup_files_and_an_agent_that_never_answers_hold_doctor_up_for_no_longer_than_its_timeout(
) {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    fs::write(home.bin().join("claude"), "#!/bin/sh\nexec sleep 100\n").expect("hanging claude");
    for name in [".bashrc", ".tmux.conf"] {
        let p = home.path().join(name);
        fs::remove_file(&p).expect("remove");
        let ok = Command::new(require("mkfifo"))
            .arg(&p)
            .status()
            .expect("mkfifo runs");
        assert!(ok.success());
    }
    let tmux = home.tmux(false);
    let mut child = home
        .command(home.bin().join("agent-resume"))
        .args(["doctor", "-L", tmux.socket()])
        .env("TMUX_TMPDIR", tmux.tmpdir())
        .stdout(Stdio::piped())
        .spawn()
        .expect("doctor starts");
    // A hang guard, not a benchmark: the version timeout is 3 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("doctor was still running after 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let out = child.wait_with_output().expect("output");
    let stdout = text(&out);
    assert_eq!(status.code(), Some(1), "{stdout}");
    assert!(line(&stdout, "shell.rc.bash").starts_with("✗ "), "{stdout}");
    assert!(
        line(&stdout, "agent.claude.version").starts_with("! "),
        "{stdout}"
    );
}

#[test]
fn codex_notify_and_its_session_start_hook_are_checked() {
    let home = Home::new(CLAUDE_VERSION);
    let codex = home.bin().join("codex");
    fs::write(&codex, "#!/bin/sh\necho 'codex-cli 0.171.0'\n").expect("stand-in codex");
    fs::set_permissions(&codex, fs::Permissions::from_mode(0o755)).expect("chmod");
    home.set_up();
    home.step(&["install-hooks", "codex"]);
    let tmux = home.tmux(true);
    let out = home.doctor_in_bash(&tmux);
    assert_all_pass(&out);
    assert!(line(&text(&out), "agent.codex.hooks").starts_with("✓ "));
    assert!(line(&text(&out), "agent.codex.version").starts_with("✓ "));
    // Codex's shared app-server daemon is on: its hooks record nothing.
    let stdout = text(&out);
    let shared = line(&stdout, "agent.codex.per-window");
    assert!(
        shared.starts_with("! ") && shared.contains("install-hooks codex --per-window"),
        "{shared}"
    );
    home.step(&["install-hooks", "codex", "--per-window"]);
    let out = home.doctor_in_bash(&tmux);
    assert_all_pass(&out);
    assert!(
        !text(&out).contains("agent.codex.per-window"),
        "{}",
        text(&out)
    );
    home.step(&["uninstall-hooks", "codex"]);
    home.step(&["install-hooks", "codex"]);
    // Another notifier took its place.
    let config = home.path().join(".codex/config.toml");
    let before = fs::read_to_string(&config).expect("config.toml");
    fs::write(&config, "notify = [\"notify-send\", \"done\"]\n").expect("rewrite");
    let out = home.doctor_in_bash(&tmux);
    // Not ours: a note (the zero-config scan still records Codex's panes).
    assert!(line(&text(&out), "agent.codex.hooks").starts_with("! "));
    assert!(line(&text(&out), "agent.codex.hooks").contains("notify"));
    // notify is back, but hooks.json lost its SessionStart entry.
    fs::write(&config, before).expect("restore");
    fs::write(home.path().join(".codex/hooks.json"), "{}\n").expect("rewrite hooks.json");
    let out = home.doctor_in_bash(&tmux);
    assert!(line(&text(&out), "agent.codex.hooks").starts_with("! "));
    assert!(line(&text(&out), "agent.codex.hooks").contains("SessionStart"));
}

#[test]
fn zsh_and_fish_set_ups_are_recognised_from_their_own_startup_files() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    fs::remove_file(home.path().join(".bashrc")).expect("no bash line");
    fs::write(
        home.path().join(".zshrc"),
        "eval \"$(agent-resume init zsh)\"\n",
    )
    .expect("write .zshrc");
    let conf_d = home.path().join(".config/fish/conf.d");
    fs::create_dir_all(&conf_d).expect("fish conf.d");
    fs::write(
        conf_d.join("agent-resume.fish"),
        "agent-resume init fish | source\n",
    )
    .expect("write conf.d file");
    let tmux = home.tmux(true);
    for (shell, args) in [("zsh", &["-i", "-c"][..]), ("fish", &["-i", "-c"][..])] {
        let out = home
            .command(require(shell))
            .args(args)
            .arg(format!("agent-resume doctor -L {}", tmux.socket()))
            .env("SHELL", require(shell))
            .env("TMUX_TMPDIR", tmux.tmpdir())
            .output()
            .expect("the shell runs");
        let stdout = text(&out);
        let active = line(&stdout, "shell.active");
        assert!(
            active.starts_with("✓ ") && active.contains(shell),
            "{shell}:\n{stdout}"
        );
        assert!(
            line(&stdout, &format!("shell.rc.{shell}")).starts_with("✓ "),
            "{shell}:\n{stdout}"
        );
        assert!(!stdout.contains(" shell.rc.bash: "), "{shell}:\n{stdout}");
        assert_eq!(out.status.code(), Some(0), "{shell}:\n{stdout}");
    }
}

#[test]
fn a_database_others_can_write_is_named_with_its_reason_and_the_chmod_that_fixes_it() {
    let home = Home::new(CLAUDE_VERSION);
    home.set_up();
    home.step(&[
        "record",
        "--pane",
        "0b8a3a4e-5d2c-4f0e-9a71-3c5e8f1d2b6a",
        "--agent",
        "claude",
        "--session-id",
        "5f0c2a9e-7b1d-4c3e-8a6f-9d2e1b0c4a7f",
        "--cwd",
        &home.path().to_string_lossy(),
        "--invocation",
        "claude",
    ]);
    let tmux = home.tmux(true);
    let out = home.doctor_in_bash(&tmux);
    assert_all_pass(&out);
    assert!(
        line(&text(&out), "recordings").contains("1 recordings"),
        "{}",
        text(&out)
    );
    let dir = home.path().join(".local/share/agent-resume");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).expect("chmod 777");
    let out = home.doctor_in_bash(&tmux);
    assert_fails(&out, &["database"]);
    let l = line(&text(&out), "database").to_owned();
    assert!(
        l.contains("not trusted") && l.contains("fix: chmod go-w"),
        "{l}"
    );
}

/// A running Codex shared server keeps serving every window's sessions
/// until it exits, whatever `daemon_auto_start` says now: install says so
/// (with the pid to end) instead of claiming each window runs its own
/// sessions, and doctor keeps its warning until the server is gone.
#[test]
fn a_running_codex_server_is_named_until_it_exits_even_with_per_window_set() {
    let home = Home::new(CLAUDE_VERSION);
    let codex = home.bin().join("codex");
    fs::write(&codex, "#!/bin/sh\necho 'codex-cli 0.171.0'\n").expect("stand-in codex");
    fs::set_permissions(&codex, fs::Permissions::from_mode(0o755)).expect("chmod");
    home.set_up();
    let tmux = home.tmux(true);
    // A stand-in shared server: a process whose program word is `codex`,
    // run as `codex … app-server --managed-daemon` (bash under that name,
    // waiting on its stdin).
    let srv = home.path().join("srv");
    fs::create_dir_all(&srv).expect("mkdir");
    std::os::unix::fs::symlink(require("bash"), srv.join("codex")).expect("symlink");
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let server = Killed(
        // In the home's environment: the server of this `~/.codex`.
        home.command(srv.join("codex"))
            // `read` is a builtin: no child outlives the kill.
            .args(["-c", "read -r _; :", "app-server", "--managed-daemon"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the stand-in server starts"),
    );
    let pid = server.0.id().to_string();
    let out = home
        .command(home.bin().join("agent-resume"))
        .args(["install-hooks", "codex", "--per-window"])
        .output()
        .expect("install runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains(&format!("is running (pid {pid})")), "{said}");
    assert!(
        !said.contains("each Codex window runs its own sessions"),
        "{said}"
    );
    let out = home.doctor_in_bash(&tmux);
    let stdout = text(&out);
    let warned = line(&stdout, "agent.codex.per-window");
    assert!(
        warned.starts_with("! ") && warned.contains(&pid),
        "{warned}"
    );
    assert!(warned.contains(&format!("fix: kill {pid}")), "{warned}");
    drop(server);
    let out = home.doctor_in_bash(&tmux);
    assert!(
        !text(&out).contains("agent.codex.per-window"),
        "{}",
        text(&out)
    );
}
