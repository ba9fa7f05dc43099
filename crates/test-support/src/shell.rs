//! The shared case files, fake agent executables, and one way to run a
//! batch of built lines through a real shell and read back the argv each
//! line delivered.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_resume_core::{quote, AgentKind, Shell};
use serde::Deserialize;
use tempfile::TempDir;

use crate::tool::require;

/// The shared case corpus, `tests/cases/invocation.json`.
pub const CORPUS_JSON: &str = include_str!("../../../tests/cases/invocation.json");

/// The labelled hostile values, `tests/cases/hostile_words.json`.
pub const HOSTILE_JSON: &str = include_str!("../../../tests/cases/hostile_words.json");

/// One case of the corpus.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// What the case pins.
    pub label: String,
    /// The agent kind's name.
    pub agent: String,
    /// The id the agent reported (untrusted).
    pub session_id: String,
    /// The user's invocation text (untrusted).
    pub invocation: String,
    /// Age of the recording; negative is future-dated.
    pub age_secs: i64,
    /// What `build_from_text` must return.
    pub expect: Expect,
}

impl Case {
    /// The agent kind, or a panic naming the case.
    pub fn kind(&self) -> AgentKind {
        AgentKind::from_name(&self.agent)
            .unwrap_or_else(|| panic!("case {:?}: unknown agent {:?}", self.label, self.agent))
    }

    /// The age in milliseconds, as `build_from_text` takes it.
    pub fn age_millis(&self) -> i64 {
        self.age_secs
            .checked_mul(1000)
            .unwrap_or_else(|| panic!("case {:?}: age overflows", self.label))
    }
}

/// The expected outcome of a case.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Expect {
    /// A built invocation.
    Built {
        /// The exact argv.
        argv: Vec<String>,
        /// Whether a posture flag rides along.
        posture_carried: bool,
    },
    /// A refusal, by `Refusal::as_str()`.
    Refused {
        /// The refusal's name.
        refused: String,
    },
}

/// Loads the corpus.
pub fn corpus() -> Vec<Case> {
    serde_json::from_str(CORPUS_JSON)
        .expect("tests/cases/invocation.json parses as the case schema")
}

/// One hostile value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostileWord {
    /// What the value is.
    pub label: String,
    /// The value.
    pub value: String,
    /// `ok` (the quoter accepts it) or `refused`.
    pub expect: String,
}

impl HostileWord {
    /// Whether the quoter must accept the value.
    pub fn accepted(&self) -> bool {
        match self.expect.as_str() {
            "ok" => true,
            "refused" => false,
            other => panic!("hostile word {:?}: expect is {other:?}", self.label),
        }
    }
}

/// Loads the hostile words.
pub fn hostile_words() -> Vec<HostileWord> {
    serde_json::from_str(HOSTILE_JSON)
        .expect("tests/cases/hostile_words.json parses as the word schema")
}

/// A fresh temp dir named after `tag`, removed with everything in it when
/// dropped.
fn temp_dir(tag: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("agent-resume-test-{tag}-"))
        .tempdir()
        .expect("the system temp dir is writable")
}

/// A shell under test: its executable and the `Shell` lines are built for.
#[derive(Clone, Debug)]
pub struct ShellBin {
    /// The executable name (`bash`, `zsh`, `fish`, `dash`).
    pub name: &'static str,
    /// The target the builder is given.
    pub shell: Shell,
    /// Where the executable is.
    pub path: PathBuf,
}

/// Every shell the quoting promise covers.
pub fn shells() -> Vec<ShellBin> {
    [
        ("bash", Shell::Bash),
        ("zsh", Shell::Zsh),
        ("fish", Shell::Fish),
        ("dash", Shell::Sh),
    ]
    .into_iter()
    .map(|(name, shell)| ShellBin {
        name,
        shell,
        path: require(name),
    })
    .collect()
}

/// How a shell reads the lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `sh -c SCRIPT`, no rc files.
    Script,
    /// `sh -i -c SCRIPT`, no rc files.
    InteractiveScript,
    /// `sh -i < SCRIPT`: each line read by the interactive reader, with
    /// history expansion on (bash, zsh) and `#` not a comment (zsh).
    InteractiveStdin,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 3] = [
        Mode::Script,
        Mode::InteractiveScript,
        Mode::InteractiveStdin,
    ];
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Script => "-c",
            Mode::InteractiveScript => "-i -c",
            Mode::InteractiveStdin => "-i <stdin",
        })
    }
}

fn base_args(name: &str) -> &'static [&'static str] {
    match name {
        "bash" => &["--norc", "--noprofile"],
        "zsh" => &["-f"],
        "fish" => &["--no-config"],
        _ => &[],
    }
}

/// The program words the fake agents are installed under.
pub const AGENT_PROGRAMS: &[&str] = &[
    "claude", "codex", "gemini", "opencode", "droid", "grok", "qwen", "copilot", "pi", "kilo",
    "auggie", "cline", "vibe",
];

/// The fake agent: writes its own basename and then every argument, each
/// followed by a NUL, to the file named by `$ARGV_OUT`.
const FAKE_AGENT: &str = "#!/bin/sh\nprintf '%s\\0' \"${0##*/}\" \"$@\" > \"$ARGV_OUT\"\n";

/// A directory of fake agent executables.
pub struct FakeAgents {
    dir: TempDir,
}

impl FakeAgents {
    /// Installs a fake under every name in [`AGENT_PROGRAMS`].
    pub fn install() -> FakeAgents {
        let dir = temp_dir("bin");
        for name in AGENT_PROGRAMS {
            let path = dir.path().join(name);
            fs::write(&path, FAKE_AGENT).expect("temp dir is writable");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
                .expect("temp file permissions can be set");
        }
        FakeAgents { dir }
    }

    /// The directory to put first on `PATH`.
    pub fn bin(&self) -> &Path {
        self.dir.path()
    }

    /// The absolute path of the fake for `program` (by basename).
    pub fn path_of(&self, program: &str) -> PathBuf {
        let base = program.rsplit('/').next().unwrap_or(program);
        self.bin().join(base)
    }
}

/// One line to run and the argv its program must receive.
#[derive(Clone, Debug)]
pub struct LineCase {
    /// Names the case in failure messages.
    pub label: String,
    /// The line exactly as built.
    pub line: String,
    /// The program word's basename.
    pub program: String,
    /// `argv[1..]`, byte for byte.
    pub args: Vec<String>,
}

/// A script passed with `-c` is one argument, and Linux caps one argument
/// at 128 KiB: batches are cut into scripts below this size.
const SCRIPT_LIMIT: usize = 96 * 1024;

/// Runs `cases` through `sh` in `mode`, as few scripts as the argument limit
/// allows, and returns one message per case whose received argv differs (or
/// that never ran its program).
pub fn run_batch(sh: &ShellBin, mode: Mode, fakes: &FakeAgents, cases: &[LineCase]) -> Vec<String> {
    let work = temp_dir(sh.name);
    let out_dir = work.path().join("out");
    let home = work.path().join("home");
    fs::create_dir_all(&out_dir).expect("temp dir is writable");
    fs::create_dir_all(&home).expect("temp dir is writable");

    let mut scripts = vec![String::new()];
    for (i, case) in cases.iter().enumerate() {
        let out = out_dir.join(i.to_string());
        let out = quote(&out.to_string_lossy()).expect("temp paths are quotable");
        let set = if sh.name == "fish" {
            format!("set -gx ARGV_OUT {out}\n")
        } else {
            format!("export ARGV_OUT={out}\n")
        };
        let piece = format!("{set}{}\n", case.line);
        let current = scripts.last_mut().expect("never empty");
        if !current.is_empty() && current.len() + piece.len() > SCRIPT_LIMIT {
            scripts.push(piece);
        } else {
            current.push_str(&piece);
        }
    }
    let mut errors = Vec::new();
    for (n, script) in scripts.iter().enumerate() {
        if let Err(e) = run_script(sh, mode, fakes, work.path(), &home, n, script) {
            errors.push(e);
        }
    }

    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let want: Vec<Vec<u8>> = std::iter::once(case.program.as_bytes().to_vec())
            .chain(case.args.iter().map(|a| a.as_bytes().to_vec()))
            .collect();
        let got = fs::read(out_dir.join(i.to_string()))
            .ok()
            .map(|bytes| split_nul(&bytes));
        if got.as_ref() != Some(&want) {
            failures.push(format!(
                "[{} {mode}] {}\n  line: {:?}\n  want: {:?}\n  got:  {}",
                sh.name,
                case.label,
                case.line,
                Readable(&want),
                got.as_ref().map_or_else(
                    || "nothing: the program never ran".to_owned(),
                    |g| format!("{:?}", Readable(g))
                ),
            ));
        }
    }
    if !failures.is_empty() || !errors.is_empty() {
        for n in 0..scripts.len() {
            let stderr = fs::read(work.path().join(format!("stderr-{n}"))).unwrap_or_default();
            let stderr = String::from_utf8_lossy(&stderr);
            let skip = stderr.chars().count().saturating_sub(2000);
            let tail: String = stderr.chars().skip(skip).collect();
            failures.push(format!(
                "[{} {mode}] shell stderr of script {n} (tail): {tail:?}",
                sh.name
            ));
        }
    }
    errors.extend(failures);
    errors
}

/// Runs one script; an error names the shell and what went wrong.
fn run_script(
    sh: &ShellBin,
    mode: Mode,
    fakes: &FakeAgents,
    work: &Path,
    home: &Path,
    n: usize,
    script: &str,
) -> Result<(), String> {
    let script_path = work.join(format!("script-{n}"));
    fs::write(&script_path, script).expect("temp dir is writable");
    let stderr_path = work.join(format!("stderr-{n}"));

    let mut cmd = Command::new(&sh.path);
    cmd.args(base_args(sh.name));
    match mode {
        Mode::Script => {
            cmd.arg("-c").arg(script).stdin(Stdio::null());
        }
        Mode::InteractiveScript => {
            cmd.arg("-i").arg("-c").arg(script).stdin(Stdio::null());
        }
        Mode::InteractiveStdin => {
            cmd.arg("-i")
                .stdin(fs::File::open(&script_path).expect("script was written"));
        }
    }
    let path_var = format!("{}:/usr/bin:/bin", fakes.bin().display());
    cmd.env_clear()
        .env("PATH", path_var)
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(fs::File::create(&stderr_path).expect("temp dir is writable"));
    let mut child = cmd.spawn().map_err(|e| {
        format!(
            "[{} {mode}] cannot start {}: {e}",
            sh.name,
            sh.path.display()
        )
    })?;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return Ok(()),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "[{} {mode}] script {n} timed out after 120 s",
                    sh.name
                ));
            }
            Err(e) => return Err(format!("[{} {mode}] waiting: {e}", sh.name)),
        }
    }
}

fn split_nul(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut words: Vec<Vec<u8>> = bytes.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
    // Every word is NUL-terminated, so the last piece is the empty remainder.
    if words.last().is_some_and(Vec::is_empty) {
        words.pop();
    }
    words
}

/// Debug-prints byte words as strings when they are UTF-8.
struct Readable<'a>(&'a [Vec<u8>]);

impl fmt::Debug for Readable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for w in self.0 {
            match std::str::from_utf8(w) {
                Ok(s) => list.entry(&s),
                Err(_) => list.entry(&w),
            };
        }
        list.finish()
    }
}

/// Runs `cases` through every shell in every mode, the shells in parallel,
/// and panics with every mismatch.
pub fn assert_round_trips(what: &str, fakes: &FakeAgents, cases: &[LineCase]) {
    let shells = shells();
    let failures: BTreeMap<&str, Vec<String>> = std::thread::scope(|s| {
        let handles: Vec<_> = shells
            .iter()
            .map(|sh| {
                s.spawn(move || {
                    let mut all = Vec::new();
                    for mode in Mode::ALL {
                        all.extend(run_batch(sh, mode, fakes, cases));
                    }
                    (sh.name, all)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a shell runner thread panicked"))
            .collect()
    });
    let total: usize = failures.values().map(Vec::len).sum();
    if total > 0 {
        let mut msg = format!("{what}: {total} mismatches over {} lines\n", cases.len());
        for line in failures.values().flatten().take(40) {
            msg.push_str(line);
            msg.push('\n');
        }
        panic!("{msg}");
    }
}
