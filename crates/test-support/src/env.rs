//! A private environment for the binary under test, and a command runner
//! for it.
//!
//! Every run starts from an empty environment (`env_clear`) and gets only
//! what the test set, so the developer's own `HOME`, config, database or
//! tmux can never leak into (or be written by) a test.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::text::{shown, text};
use crate::tmux::{world_path, Tmux};

/// A command to run, shown by its arguments when it fails.
pub struct TestCommand {
    cmd: Command,
    shown: Vec<String>,
}

impl TestCommand {
    /// `program` with an empty environment.
    pub fn new(program: impl AsRef<OsStr>) -> TestCommand {
        let mut cmd = Command::new(program);
        cmd.env_clear();
        TestCommand {
            cmd,
            shown: Vec::new(),
        }
    }

    /// Adds arguments.
    pub fn args<S: AsRef<OsStr>>(&mut self, args: &[S]) -> &mut TestCommand {
        self.cmd.args(args);
        self.shown.extend(shown(args));
        self
    }

    /// Adds one argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut TestCommand {
        self.args(&[arg])
    }

    /// Sets one variable.
    pub fn env(&mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> &mut TestCommand {
        self.cmd.env(k, v);
        self
    }

    /// Removes one variable.
    pub fn env_remove(&mut self, k: impl AsRef<OsStr>) -> &mut TestCommand {
        self.cmd.env_remove(k);
        self
    }

    /// Runs in `dir`.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut TestCommand {
        self.cmd.current_dir(dir);
        self
    }

    /// Where stdin comes from.
    pub fn stdin(&mut self, s: impl Into<Stdio>) -> &mut TestCommand {
        self.cmd.stdin(s);
        self
    }

    /// Reaches `server` by its socket name (`-L`), as a program started
    /// outside tmux does: sets the server's `TMUX_TMPDIR`; stdin is empty.
    pub fn reach(&mut self, server: &Tmux) -> &mut TestCommand {
        self.cmd
            .env("TMUX_TMPDIR", server.tmpdir())
            .stdin(Stdio::null());
        self
    }

    /// The command itself, for what this runner does not wrap.
    pub fn inner(&mut self) -> &mut Command {
        &mut self.cmd
    }

    /// The command itself, to be run by the caller.
    pub fn into_inner(self) -> Command {
        self.cmd
    }

    /// Runs to the end, capturing stdout and stderr (stdin is empty unless
    /// set).
    pub fn output(&mut self) -> Output {
        self.cmd
            .output()
            .unwrap_or_else(|e| panic!("{:?} cannot be started: {e}", self.shown))
    }

    /// Starts it.
    pub fn spawn(&mut self) -> Child {
        self.cmd
            .spawn()
            .unwrap_or_else(|e| panic!("{:?} cannot be started: {e}", self.shown))
    }

    /// Runs to the end and fails the test, showing both streams, unless
    /// it exits 0.
    pub fn ok(&mut self) -> Output {
        let out = self.output();
        assert!(
            out.status.success(),
            "{:?} failed ({:?}):\n{}\n{}",
            self.shown,
            out.status,
            text(&out.stdout),
            text(&out.stderr)
        );
        out
    }
}

/// A temp dir holding one test's whole world, removed on drop, and the
/// environment the binary under test runs with.
///
/// [`PrivateEnv::new`] sets, all inside the temp dir: `HOME` (`home`),
/// `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME` (`xdg-*`),
/// `AGENT_RESUME_DB`, `AGENT_RESUME_CONFIG` and `AGENT_RESUME_TELEMETRY`
/// ([`PrivateEnv::db`], …); `PATH` is the test's own. A test that needs
/// another shape changes it with [`PrivateEnv::with`] and
/// [`PrivateEnv::without`].
///
/// [`PrivateEnv::user`] is another shape: a user's login as a terminal
/// starts it, with no agent-resume variable, so every path is its default
/// under `HOME`; [`PrivateEnv::for_shells`] is the binary's own paths
/// with a shell's files left at their defaults under `HOME`. A test that proves behaviour under an environment neither
/// gives (no `HOME`, a C locale, an agent CLI's own variables) starts from
/// [`PrivateEnv::bare`] and sets each variable, saying why.
///
/// Programs run with this environment and nothing else: the binary
/// ([`PrivateEnv::command`]), another program ([`PrivateEnv::program`]), a
/// program a tmux pane starts ([`PrivateEnv::env_argv`]), and a private
/// tmux server with all its panes ([`PrivateEnv::tmux`]).
pub struct PrivateEnv {
    dir: tempfile::TempDir,
    bin: PathBuf,
    vars: Vec<(OsString, OsString)>,
}

impl PrivateEnv {
    /// A fresh world for `bin` (pass `env!("CARGO_BIN_EXE_agent-resume")`).
    pub fn new(bin: impl Into<PathBuf>) -> PrivateEnv {
        let mut env = PrivateEnv::bare(bin);
        let root = env.root().to_owned();
        env.set("PATH", std::env::var_os("PATH").unwrap_or_default());
        env.set("HOME", root.join("home"));
        env.set("XDG_DATA_HOME", root.join("xdg-data"));
        env.set("XDG_CONFIG_HOME", root.join("xdg-config"));
        env.set("XDG_STATE_HOME", root.join("xdg-state"));
        env.set("AGENT_RESUME_DB", env.db());
        env.set("AGENT_RESUME_CONFIG", env.config());
        env.set("AGENT_RESUME_TELEMETRY", env.telemetry());
        env
    }

    /// A user's world as a terminal starts it, for the binary `bin`:
    /// `HOME` (`root/home`, created), `PATH` from [`world_path`]
    /// (`root/bin`, created, for stand-in agents; then the binary's
    /// folder, as a user installs it; then the system's), `LANG=C.UTF-8`
    /// (zsh and tmux mangle non-ASCII without it), `TERM=xterm-256color`
    /// and `AGENT_RESUME=1`. No `XDG_*` and no `AGENT_RESUME_DB`, `…_CONFIG`
    /// or `…_TELEMETRY`: the binary, its hooks and the agents all find
    /// their files at their defaults under `HOME`.
    pub fn user(bin: impl Into<PathBuf>) -> PrivateEnv {
        let mut env = PrivateEnv::bare(bin);
        let root = env.root().to_owned();
        for dir in [env.home(), root.join("bin")] {
            fs::create_dir_all(dir).expect("the temp dir is writable");
        }
        env.set("HOME", env.home());
        env.set("PATH", world_path(&root, env.bin()));
        env.set("LANG", "C.UTF-8");
        env.set("TERM", "xterm-256color");
        env.set("AGENT_RESUME", "1");
        env
    }

    /// A world for interactive shells the test starts (each from
    /// [`PrivateEnv::env_argv`] with its own additions) and the binary they
    /// and the test run: `HOME` (`root/home`), `XDG_STATE_HOME`,
    /// `AGENT_RESUME_DB` and `AGENT_RESUME_CONFIG` as in
    /// [`PrivateEnv::new`], and `PATH=/usr/bin:/bin`. No `XDG_DATA_HOME`
    /// or `XDG_CONFIG_HOME`: a shell keeps its history, completions and
    /// settings at their defaults under `HOME` (fish skips its background
    /// man-page scan only when `~/.local/share/fish/generated_completions`
    /// exists), and no `AGENT_RESUME_TELEMETRY`: events go to the state
    /// directory.
    pub fn for_shells(bin: impl Into<PathBuf>) -> PrivateEnv {
        let mut env = PrivateEnv::bare(bin);
        let root = env.root().to_owned();
        env.set("PATH", "/usr/bin:/bin");
        env.set("HOME", env.home());
        env.set("XDG_STATE_HOME", root.join("xdg-state"));
        env.set("AGENT_RESUME_DB", env.db());
        env.set("AGENT_RESUME_CONFIG", env.config());
        env
    }

    /// A fresh temp dir and an empty environment.
    pub fn bare(bin: impl Into<PathBuf>) -> PrivateEnv {
        PrivateEnv::bare_in(
            bin,
            tempfile::tempdir().expect("a temp dir for the test's world"),
        )
    }

    /// An empty environment in `dir`, a temp dir the test made (a test
    /// whose values must avoid some characters picks its own name).
    pub fn bare_in(bin: impl Into<PathBuf>, dir: tempfile::TempDir) -> PrivateEnv {
        PrivateEnv {
            dir,
            bin: bin.into(),
            vars: Vec::new(),
        }
    }

    /// The binary under test.
    pub fn bin(&self) -> &Path {
        &self.bin
    }

    /// The temp dir.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `root/home`, the default `HOME`.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// `root/data/recordings.sqlite3`, the default `AGENT_RESUME_DB`.
    pub fn db(&self) -> PathBuf {
        self.root().join("data/recordings.sqlite3")
    }

    /// `root/config/config.toml`, the default `AGENT_RESUME_CONFIG`.
    pub fn config(&self) -> PathBuf {
        self.root().join("config/config.toml")
    }

    /// `root/state/telemetry.jsonl`, the default `AGENT_RESUME_TELEMETRY`.
    pub fn telemetry(&self) -> PathBuf {
        self.root().join("state/telemetry.jsonl")
    }

    /// `root/work/<name>`, created.
    pub fn work(&self, name: &str) -> PathBuf {
        let p = self.root().join("work").join(name);
        fs::create_dir_all(&p).expect("the temp dir is writable");
        p
    }

    /// Sets `k` (replacing an earlier value).
    pub fn set(&mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) {
        let (k, v) = (k.as_ref().to_owned(), v.as_ref().to_owned());
        match self.vars.iter_mut().find(|(name, _)| *name == k) {
            Some(slot) => slot.1 = v,
            None => self.vars.push((k, v)),
        }
    }

    /// Unsets `k`.
    pub fn unset(&mut self, k: impl AsRef<OsStr>) {
        self.vars.retain(|(name, _)| name != k.as_ref());
    }

    /// With `k` set to `v`.
    pub fn with(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> PrivateEnv {
        self.set(k, v);
        self
    }

    /// With `root/bin` (stand-in programs the test writes) first on `PATH`,
    /// before the test's own.
    pub fn with_own_bin(self) -> PrivateEnv {
        let path = format!(
            "{}:{}",
            self.root().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        self.with("PATH", path)
    }

    /// Without `k`.
    pub fn without(mut self, k: impl AsRef<OsStr>) -> PrivateEnv {
        self.unset(k);
        self
    }

    /// The value `k` is set to.
    pub fn var(&self, k: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.as_os_str())
    }

    /// Every variable set, in the order first set.
    pub fn vars(&self) -> &[(OsString, OsString)] {
        &self.vars
    }

    /// The binary under test with `args`, exactly this environment and no
    /// other.
    pub fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> TestCommand {
        self.program(&self.bin, args)
    }

    /// Another program (a shell, a stand-in agent) with `args`, exactly this
    /// environment and no other.
    pub fn program<S: AsRef<OsStr>>(&self, program: impl AsRef<OsStr>, args: &[S]) -> TestCommand {
        let mut c = TestCommand::new(program);
        c.args(args);
        self.apply(c.inner());
        c
    }

    /// Every variable as one `NAME=value` word, then `extra` over them
    /// (an `extra` name already set is replaced, so it wins): what
    /// `env -i` takes.
    pub fn assignments<K, V>(&self, extra: impl IntoIterator<Item = (K, V)>) -> Vec<OsString>
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        let mut vars = self.vars.clone();
        for (k, v) in extra {
            let (k, v) = (k.as_ref().to_owned(), v.as_ref().to_owned());
            match vars.iter_mut().find(|(name, _)| *name == k) {
                Some(slot) => slot.1 = v,
                None => vars.push((k, v)),
            }
        }
        vars.into_iter()
            .map(|(mut kv, v)| {
                kv.push("=");
                kv.push(v);
                kv
            })
            .collect()
    }

    /// `env -i` and [`PrivateEnv::assignments`]: the first words of a
    /// program that must start with exactly this environment (and `extra`)
    /// although its parent has another, such as a shell in a pane of a
    /// tmux server the test shares.
    pub fn env_argv<K, V>(&self, extra: impl IntoIterator<Item = (K, V)>) -> Vec<OsString>
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        let mut argv = vec![OsString::from("env"), OsString::from("-i")];
        argv.extend(self.assignments(extra));
        argv
    }

    /// A private tmux server, not started yet, reading `config`: it and
    /// every pane run with exactly this environment (plus its own
    /// `TMUX_TMPDIR`); see [`Tmux::private`]. Reach it from the binary
    /// with [`TestCommand::reach`].
    pub fn tmux(&self, config: &Path) -> Tmux {
        Tmux::private(config, self.vars.clone())
    }

    /// Gives `c` exactly this environment and no other.
    pub fn apply(&self, c: &mut Command) {
        c.env_clear().envs(self.vars.iter().map(|(k, v)| (k, v)));
    }

    /// Runs the binary with `args`; its output.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.command(args).output()
    }

    /// Runs the binary with `args`, which must exit 0; its output.
    pub fn ok<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.command(args).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(env: &PrivateEnv) -> Vec<&str> {
        env.vars()
            .iter()
            .map(|(k, _)| k.to_str().unwrap())
            .collect()
    }

    #[test]
    fn an_extra_assignment_replaces_a_name_already_set_and_new_ones_follow() {
        let env = PrivateEnv::bare("/bin/true")
            .with("PATH", "/usr/bin:/bin")
            .with("HOME", "/h");
        assert_eq!(
            env.assignments([("PATH", "/own/bin"), ("TERM", "xterm")]),
            ["PATH=/own/bin", "HOME=/h", "TERM=xterm"]
        );
        assert_eq!(
            env.env_argv([("HOME", "/other")]),
            ["env", "-i", "PATH=/usr/bin:/bin", "HOME=/other"]
        );
    }

    #[test]
    fn a_user_world_sets_no_agent_resume_path_and_finds_stand_ins_then_the_binary() {
        let env = PrivateEnv::user("/opt/ar/bin/agent-resume");
        assert_eq!(
            names(&env),
            ["HOME", "PATH", "LANG", "TERM", "AGENT_RESUME"]
        );
        assert!(env.home().is_dir() && env.root().join("bin").is_dir());
        let path = env.var("PATH").unwrap().to_str().unwrap();
        let first = format!("{}:/opt/ar/bin:", env.root().join("bin").display());
        assert!(path.starts_with(&first), "{path}");
    }

    #[test]
    fn a_shell_world_leaves_the_shells_data_and_config_under_home() {
        let env = PrivateEnv::for_shells("/bin/true");
        assert_eq!(
            names(&env),
            [
                "PATH",
                "HOME",
                "XDG_STATE_HOME",
                "AGENT_RESUME_DB",
                "AGENT_RESUME_CONFIG"
            ]
        );
        assert_eq!(env.var("AGENT_RESUME_DB"), Some(env.db().as_os_str()));
    }

    #[test]
    fn a_command_reaching_a_server_carries_its_socket_directory() {
        let tmux = Tmux::private(Path::new("/dev/null"), Vec::new());
        let env = PrivateEnv::bare("/bin/true");
        let mut c = env.command(&["ls"]);
        c.reach(&tmux);
        let set: Vec<_> = c.inner().get_envs().collect();
        assert_eq!(
            set,
            [(OsStr::new("TMUX_TMPDIR"), Some(tmux.tmpdir().as_os_str()))]
        );
    }
}
