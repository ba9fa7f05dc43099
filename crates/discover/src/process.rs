//! The process table: who a process is (pid and start time), what it runs
//! (its argv), who launched it (its parent), and which process is an
//! agent.
//!
//! Everything that walks processes goes through the [`ProcessTable`] trait,
//! so the walks are tested on a table made in memory; [`ProcFs`] reads
//! `/proc` on Linux. A process is named by [`ProcessId`]: its pid and its
//! start time, so a pid reused by a later process is never taken for the
//! one first seen. `/proc` files are made by the kernel, yet `cmdline` can
//! be as large as the process's whole argument area: it is read through
//! [`crate::file`] with a cap, and a process whose argv is over the cap is
//! treated as unreadable.
//!
//! An agent is recognised by the catalog's command words, never by what a
//! payload says: a native binary whose program word's basename is one of
//! the agent's commands, or an interpreter (`node`, `bun`, `deno`, a shell,
//! Python) running a script whose basename is one of them or whose path
//! lies in the agent's npm package. The agent's argv then starts at that
//! word, so the same flag extraction as for a typed command line applies.
//! A script interpreter run with inline code (`sh -c`, `node -e`) runs no
//! agent script.
//!
//! Some agent processes serve no one pane: an agent's shared background
//! server, known by the catalog's `shared_server_args` ([`is_shared_server`]:
//! Codex 0.171's `codex app-server … --managed-daemon`), and any process
//! that leads a session of its own with no controlling terminal
//! ([`ProcessTable::detached`], from `/proc/<pid>/stat` fields 6 and 7).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use agent_resume_core::{AgentDecl, UnixMillis};

use crate::provider::provider;

/// Interpreters an agent's script may run under: `node …/cli.js`, or a
/// shell or Python reading a script file (`#!/bin/sh`).
const INTERPRETERS: &[&str] = &[
    "node", "nodejs", "bun", "deno", "python", "python3", "sh", "bash", "dash", "zsh",
];

/// Interpreter options that run inline code, not a script.
const INLINE: &[&str] = &["-c", "-e", "--eval", "-p", "--print", "-m"];

/// How many ancestors a walk visits at most.
const MAX_DEPTH: usize = 64;

/// The largest `cmdline` read: argv beyond this is unreadable.
const MAX_ARGV: u64 = 1 << 20;

/// One process, named so that a reused pid is another process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProcessId {
    /// Its pid.
    pub pid: u32,
    /// Its start time, in clock ticks since boot (`/proc/<pid>/stat` field
    /// 22).
    pub start: u64,
}

/// What the table says about one process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessInfo {
    /// Who it is.
    pub id: ProcessId,
    /// Its parent's pid.
    pub ppid: u32,
    /// Its argv, lossily decoded; a word emptied by a process that wrote
    /// its title over its own argv shows as `""`.
    pub argv: Vec<String>,
}

/// A process table: `/proc`, or one made in memory for tests.
pub trait ProcessTable {
    /// The process `pid`, read consistently (its start time is the same
    /// before and after its argv was read), or `None`.
    fn process(&self, pid: u32) -> Option<ProcessInfo>;
    /// Every pid alive.
    fn pids(&self) -> Vec<u32>;
    /// When `id` started, in Unix milliseconds (to within a tick, 10 ms on
    /// Linux, plus the wall clock's steps since boot).
    fn started_at(&self, id: ProcessId) -> Option<UnixMillis>;
    /// The process's working directory, when the table can tell.
    fn cwd(&self, _pid: u32) -> Option<std::path::PathBuf> {
        None
    }
    /// The files the process holds open (`/proc/<pid>/fd` links), at most
    /// [`MAX_OPEN_FILES`] of them; none when the table cannot tell.
    fn open_files(&self, _pid: u32) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
    /// Whether `id` is detached from every terminal: it leads a session of
    /// its own and has no controlling terminal, as a daemon does. `None`:
    /// the table cannot tell.
    fn detached(&self, id: ProcessId) -> Option<bool> {
        let _ = id;
        None
    }
    /// The environment `id` was started with (`/proc/<pid>/environ`), as
    /// `NAME=value` entries: what its parent gave it, which no process
    /// below it can change. `None`: the table cannot tell.
    fn environ(&self, id: ProcessId) -> Option<Vec<Vec<u8>>> {
        let _ = id;
        None
    }
}

/// The value of `name` among `environ`'s `NAME=value` entries.
pub fn env_value<'a>(environ: &'a [Vec<u8>], name: &str) -> Option<&'a [u8]> {
    environ.iter().find_map(|e| {
        e.strip_prefix(name.as_bytes())
            .and_then(|rest| rest.strip_prefix(b"="))
    })
}

/// The most open files read for one process.
pub const MAX_OPEN_FILES: usize = 4096;

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The agent's own argv within a process's argv, program word first: the
/// whole argv for a native binary, or the script and its arguments for an
/// interpreter. A script found by its package path (`cli.js`) is replaced
/// by the agent's command word, so extraction reads it as the agent.
/// `None`: this process does not run `agent`.
pub fn agent_argv(agent: &AgentDecl, argv: &[String]) -> Option<Vec<String>> {
    let program = argv.first()?;
    let is_command = |w: &str| agent.commands.iter().any(|c| c == basename(w));
    if is_command(program) {
        return Some(argv.to_vec());
    }
    // A binary its launcher execs under another name (`vibe` → `…/vibe-rs`)
    // is read as the agent's command word: never replayed as a program path.
    if agent.process_names.iter().any(|c| c == basename(program)) {
        let mut out = vec![agent.command().to_owned()];
        out.extend(argv[1..].iter().cloned());
        return Some(out);
    }
    let interpreter = basename(program);
    if !INTERPRETERS.contains(&interpreter) {
        return None;
    }
    let mut at = 1;
    while let Some(w) = argv.get(at) {
        if INLINE.contains(&w.as_str()) {
            return None;
        }
        let subcommand = matches!(interpreter, "bun" | "deno") && w == "run";
        if !w.starts_with('-') && !subcommand {
            break;
        }
        at += 1;
    }
    let script = argv.get(at)?;
    let word = if is_command(script) {
        script.clone()
    } else if provider(agent.kind)
        .package
        .is_some_and(|p| script.contains(p))
    {
        agent.command().to_owned()
    } else {
        return None;
    };
    let mut out = vec![word];
    out.extend(argv[at + 1..].iter().cloned());
    Some(out)
}

/// Whether `argv` runs `agent`: its program word, or the script an
/// interpreter runs.
pub fn is_agent_program(agent: &AgentDecl, argv: &[String]) -> bool {
    agent_argv(agent, argv).is_some()
}

/// Whether `argv` (a process's, or the agent's own from [`agent_argv`]) is
/// `agent`'s shared background server: every word of the catalog's
/// `shared_server_args` is among its arguments (Codex 0.171's `codex
/// app-server --listen unix:// … --managed-daemon`). Such a process serves
/// the sessions of several windows with the environment of the one that
/// started it.
pub fn is_shared_server(agent: &AgentDecl, argv: &[String]) -> bool {
    !agent.shared_server_args.is_empty()
        && agent
            .shared_server_args
            .iter()
            .all(|w| argv.iter().skip(1).any(|a| a == w))
}

/// The pids of `agent`'s shared background servers the table shows
/// running for the store at `root` ([`is_shared_server`]; the store is the
/// one the server's own environment names, so a server of another
/// `$CODEX_HOME`, or another user's, is not counted): while one runs, it
/// keeps serving the sessions of every window of the agent, whatever its
/// config says now.
pub fn shared_servers(table: &dyn ProcessTable, agent: &AgentDecl, root: &Path) -> Vec<u32> {
    table
        .pids()
        .into_iter()
        .filter(|pid| {
            let Some(p) = table.process(*pid) else {
                return false;
            };
            if !agent_argv(agent, &p.argv).is_some_and(|argv| is_shared_server(agent, &argv)) {
                return false;
            }
            let Some(environ) = table.environ(p.id) else {
                return false;
            };
            let var =
                |k: &str| env_value(&environ, k).map(|v| std::ffi::OsStr::from_bytes(v).to_owned());
            crate::Homes::from_env(&var)
                .root(agent.kind, None)
                .is_some_and(|r| r == root)
        })
        .collect()
}

/// The agent process a walk found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentProcess {
    /// The agent's process.
    pub process: ProcessInfo,
    /// The agent's argv, program word first ([`agent_argv`]), without the
    /// empty words a rewritten title leaves.
    pub argv: Vec<String>,
    /// The process wrote over its own argv (a process title): its flags
    /// cannot be read from it.
    pub rewritten: bool,
    /// Its ancestors, parent first, as far as the table shows them.
    pub ancestors: Vec<ProcessInfo>,
}

impl AgentProcess {
    /// The process `launcher` started on the way to this agent: the agent
    /// itself when `launcher` is the agent (a launcher that replaced itself
    /// with it), else the child of `launcher` among its ancestors. `None`
    /// when `launcher` is not in its ancestry.
    pub fn launched_by(&self, launcher: u32) -> Option<&ProcessInfo> {
        if self.process.id.pid == launcher {
            return Some(&self.process);
        }
        let i = self.ancestors.iter().position(|p| p.id.pid == launcher)?;
        Some(match i {
            0 => &self.process,
            _ => &self.ancestors[i - 1],
        })
    }
}

/// A process and its ancestors, nearest first.
pub(crate) struct Ancestry {
    /// The process, its parent, and so on.
    pub chain: Vec<ProcessInfo>,
    /// The walk reached its top: `top` when given, else a process whose
    /// parent is pid 1 or 0. Not when it met the depth cap, a process it
    /// could not read, or a loop.
    pub whole: bool,
}

/// `pid` and its ancestors, up to `top` (included) when given.
pub(crate) fn ancestors(table: &dyn ProcessTable, mut pid: u32, top: Option<u32>) -> Ancestry {
    let mut chain: Vec<ProcessInfo> = Vec::new();
    loop {
        if top.is_none() && pid <= 1 {
            return Ancestry { chain, whole: true };
        }
        if chain.len() >= MAX_DEPTH || chain.iter().any(|q| q.id.pid == pid) {
            break;
        }
        let Some(p) = table.process(pid) else { break };
        let at_top = top == Some(pid);
        pid = p.ppid;
        chain.push(p);
        if at_top {
            return Ancestry { chain, whole: true };
        }
    }
    Ancestry {
        chain,
        whole: false,
    }
}

/// The children of `pid`.
pub fn children(table: &dyn ProcessTable, pid: u32) -> Vec<ProcessInfo> {
    table
        .pids()
        .into_iter()
        .filter_map(|p| table.process(p))
        .filter(|p| p.ppid == pid && p.id.pid != pid)
        .collect()
}

/// Every descendant of `pid`, nearest first (one table read).
pub fn descendants(table: &dyn ProcessTable, pid: u32) -> Vec<ProcessInfo> {
    let all: Vec<ProcessInfo> = table
        .pids()
        .into_iter()
        .filter_map(|p| table.process(p))
        .collect();
    let mut out: Vec<ProcessInfo> = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for p in all.iter().filter(|p| p.ppid == parent) {
            if p.id.pid != pid && !out.iter().any(|q| q.id == p.id) {
                frontier.push(p.id.pid);
                out.push(p.clone());
            }
        }
    }
    out
}

/// `(session, tty_nr)` from a `/proc/<pid>/stat` line (fields 6 and 7),
/// counted from the last `)` as [`parse_stat`] does.
pub fn parse_stat_terminal(stat: &str) -> Option<(u32, i64)> {
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let session = fields.get(3)?.parse().ok()?;
    let tty = fields.get(4)?.parse().ok()?;
    Some((session, tty))
}

/// `(ppid, start)` from a `/proc/<pid>/stat` line. The command name (field
/// 2) is in parentheses and may hold spaces and parentheses itself, so the
/// fields are counted from the last `)`.
pub fn parse_stat(stat: &str) -> Option<(u32, u64)> {
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): ppid is field 4, starttime 22.
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((ppid, start))
}

/// NUL-separated words, the trailing NUL dropped.
pub fn split_cmdline(raw: &[u8]) -> Vec<String> {
    let raw = raw.strip_suffix(&[0]).unwrap_or(raw);
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|b| *b == 0)
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect()
}

/// `/proc`, on Linux.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcFs;

#[cfg(target_os = "linux")]
mod procfs {
    use std::path::Path;

    use agent_resume_core::UnixMillis;

    use std::io::Read;

    use super::{
        parse_stat, parse_stat_terminal, split_cmdline, ProcFs, ProcessId, ProcessInfo,
        ProcessTable,
    };
    use crate::file::{open, read_prefix, Kind};

    /// `/proc` reports times in `USER_HZ`, 100 on every Linux ABI.
    const TICKS_PER_SECOND: u64 = 100;

    /// The first `limit` bytes of a `/proc` file, through [`open`] (never
    /// blocks, regular files only). `/proc` reports a size of 0, so the
    /// buffer starts at a page: one `read` takes a whole `stat` or a usual
    /// `cmdline`, where growing from nothing took four to six.
    fn read_proc(path: &Path, limit: u64) -> Option<Vec<u8>> {
        let mut buf = Vec::with_capacity(4096);
        open(path, Kind::PidRegistry)
            .ok()?
            .take(limit)
            .read_to_end(&mut buf)
            .ok()?;
        Some(buf)
    }

    fn stat_line(pid: u32) -> Option<String> {
        let raw = read_proc(Path::new(&format!("/proc/{pid}/stat")), 4096)?;
        Some(String::from_utf8_lossy(&raw).into_owned())
    }

    pub(super) fn stat(pid: u32) -> Option<(u32, u64)> {
        parse_stat(&stat_line(pid)?)
    }

    pub(super) fn cmdline(pid: u32) -> Option<Vec<String>> {
        // One byte over the cap tells an argv over it, which is unreadable.
        let raw = read_proc(
            Path::new(&format!("/proc/{pid}/cmdline")),
            super::MAX_ARGV + 1,
        )?;
        if raw.len() as u64 > super::MAX_ARGV {
            return None;
        }
        let argv = split_cmdline(&raw);
        (!argv.is_empty()).then_some(argv)
    }

    /// When the machine booted, in Unix milliseconds: now less
    /// `/proc/uptime` (the clock start times count from).
    fn boot_millis() -> Option<u64> {
        let raw = read_prefix(Path::new("/proc/uptime"), Kind::PidRegistry, 256).ok()?;
        let text = String::from_utf8_lossy(&raw);
        let (secs, frac) = text.split_whitespace().next()?.split_once('.')?;
        let up = secs
            .parse::<u64>()
            .ok()?
            .checked_mul(1000)?
            .checked_add(frac.get(..2)?.parse::<u64>().ok()? * 10)?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_millis();
        u64::try_from(now).ok()?.checked_sub(up)
    }

    impl ProcessTable for ProcFs {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            let (ppid, start) = stat(pid)?;
            let argv = cmdline(pid)?;
            // The same process still: its pid was not reused meanwhile.
            if stat(pid)?.1 != start {
                return None;
            }
            Some(ProcessInfo {
                id: ProcessId { pid, start },
                ppid,
                argv,
            })
        }

        fn pids(&self) -> Vec<u32> {
            std::fs::read_dir("/proc")
                .map(|d| {
                    d.filter_map(Result::ok)
                        .filter_map(|e| e.file_name().to_str()?.parse().ok())
                        .collect()
                })
                .unwrap_or_default()
        }

        fn started_at(&self, id: ProcessId) -> Option<UnixMillis> {
            if stat(id.pid)?.1 != id.start {
                return None;
            }
            let ms = boot_millis()?.checked_add(id.start.checked_mul(1000 / TICKS_PER_SECOND)?)?;
            Some(UnixMillis(i64::try_from(ms).ok()?))
        }

        fn cwd(&self, pid: u32) -> Option<std::path::PathBuf> {
            std::fs::read_link(format!("/proc/{pid}/cwd")).ok()
        }

        fn open_files(&self, pid: u32) -> Vec<std::path::PathBuf> {
            let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
                return Vec::new();
            };
            dir.filter_map(Result::ok)
                .take(super::MAX_OPEN_FILES)
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter(|p| p.is_absolute())
                .collect()
        }

        fn detached(&self, id: ProcessId) -> Option<bool> {
            let line = stat_line(id.pid)?;
            if parse_stat(&line)?.1 != id.start {
                return None;
            }
            let (session, tty) = parse_stat_terminal(&line)?;
            Some(session == id.pid && tty == 0)
        }

        fn environ(&self, id: ProcessId) -> Option<Vec<Vec<u8>>> {
            if stat(id.pid)?.1 != id.start {
                return None;
            }
            let raw = read_proc(
                Path::new(&format!("/proc/{}/environ", id.pid)),
                super::MAX_ARGV + 1,
            )?;
            // Over the cap, or read from a process that reused the pid.
            if raw.len() as u64 > super::MAX_ARGV || stat(id.pid)?.1 != id.start {
                return None;
            }
            let raw = raw.strip_suffix(&[0]).unwrap_or(&raw);
            Some(raw.split(|b| *b == 0).map(<[u8]>::to_vec).collect())
        }
    }
}

/// The parent pid of `pid` from `/proc` (Linux).
#[cfg(target_os = "linux")]
pub fn parent(pid: u32) -> Option<u32> {
    procfs::stat(pid).map(|(ppid, _)| ppid)
}

/// The argv of `pid` from `/proc` (Linux), capped.
#[cfg(target_os = "linux")]
pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    procfs::cmdline(pid)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use agent_resume_core::{AgentKind, Catalog};

    use super::*;

    fn argv(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    /// A process table in memory: pid → (ppid, argv).
    struct Table(BTreeMap<u32, (u32, Vec<String>)>);

    impl Table {
        fn new(rows: &[(u32, u32, &[&str])]) -> Table {
            Table(
                rows.iter()
                    .map(|(pid, ppid, a)| (*pid, (*ppid, argv(a))))
                    .collect(),
            )
        }
    }

    impl ProcessTable for Table {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            let (ppid, argv) = self.0.get(&pid)?.clone();
            Some(ProcessInfo {
                id: ProcessId {
                    pid,
                    start: u64::from(pid) * 10,
                },
                ppid,
                argv,
            })
        }
        fn pids(&self) -> Vec<u32> {
            self.0.keys().copied().collect()
        }
        fn started_at(&self, id: ProcessId) -> Option<UnixMillis> {
            Some(UnixMillis(i64::try_from(id.start).ok()?))
        }
    }

    fn claude() -> &'static AgentDecl {
        Catalog::embedded().agent(AgentKind::Claude)
    }

    /// Each process's environment: `HOME=/h<pid % 10>`.
    struct Homed(Table);

    impl ProcessTable for Homed {
        fn process(&self, pid: u32) -> Option<ProcessInfo> {
            self.0.process(pid)
        }
        fn pids(&self) -> Vec<u32> {
            self.0.pids()
        }
        fn started_at(&self, id: ProcessId) -> Option<UnixMillis> {
            self.0.started_at(id)
        }
        fn environ(&self, id: ProcessId) -> Option<Vec<Vec<u8>>> {
            (id.pid != 13).then(|| vec![format!("HOME=/h{}", id.pid % 10).into_bytes()])
        }
    }

    #[test]
    fn shared_servers_are_the_ones_of_this_store_only() {
        let codex = Catalog::embedded().agent(AgentKind::Codex);
        let t = Homed(Table::new(&[
            // This home's server, another home's, a TUI, and a server
            // whose environment cannot be read (another user's).
            (11, 1, &["codex", "app-server", "--managed-daemon"]),
            (12, 1, &["codex", "app-server", "--managed-daemon"]),
            (21, 1, &["codex", "--model", "o3"]),
            (13, 1, &["codex", "app-server", "--managed-daemon"]),
        ]));
        assert_eq!(
            shared_servers(&t, codex, Path::new("/h1/.codex")),
            [11],
            "not /h2's, not a TUI, not an unreadable one"
        );
    }

    #[test]
    fn vibes_rust_binary_is_vibe_and_its_path_is_never_the_program_word() {
        // 3.0.2: the `vibe` script execs `…/vibe/_bin/vibe-rs` with the same
        // arguments; its child `vibe-app-server` retitles itself.
        let vibe = Catalog::embedded().agent(AgentKind::Vibe);
        let real = argv(&[
            "/v/lib/python3.13/site-packages/vibe/_bin/vibe-rs",
            "--resume",
            "65639cbd-e55f-5c86-9cc2-713ae9a243a3",
            "--agent",
            "ask",
        ]);
        assert_eq!(
            agent_argv(vibe, &real),
            Some(argv(&[
                "vibe",
                "--resume",
                "65639cbd-e55f-5c86-9cc2-713ae9a243a3",
                "--agent",
                "ask"
            ]))
        );
        assert!(is_agent_program(vibe, &argv(&["vibe", "--trust"])));
        assert!(!is_agent_program(vibe, &argv(&["vibe-app-server"])));
        assert!(!is_agent_program(vibe, &argv(&["/x/vibe-rs2"])));
        assert!(
            !is_agent_program(claude(), &real),
            "another agent's process name is not claude's"
        );
    }

    #[test]
    fn the_agent_argv_starts_at_the_command_word_or_the_script_an_interpreter_runs() {
        let cases: &[(&[&str], Option<&[&str]>)] = &[
            (
                &["claude", "--model", "opus"],
                Some(&["claude", "--model", "opus"]),
            ),
            (
                &["/opt/bin/claude", "-p", "hi"],
                Some(&["/opt/bin/claude", "-p", "hi"]),
            ),
            (
                &["/bin/sh", "/tmp/x/claude", "--model", "opus"],
                Some(&["/tmp/x/claude", "--model", "opus"]),
            ),
            (
                &[
                    "node",
                    "--max-old-space-size=9",
                    "/n/@anthropic-ai/claude-code/cli.js",
                    "-c",
                ],
                Some(&["claude", "-c"]),
            ),
            (
                &["bun", "run", "/x/bin/claude", "-c"],
                Some(&["/x/bin/claude", "-c"]),
            ),
            (&["sh", "-c", "claude --model opus"], None),
            (&["node", "-e", "1", "/x/claude"], None),
            (&["node", "/srv/other.js", "claude"], None),
            (&["vim", "claude"], None),
            (&["claude2"], None),
            (&["sh"], None),
            (&[], None),
        ];
        for (raw, want) in cases {
            assert_eq!(agent_argv(claude(), &argv(raw)), want.map(argv), "{raw:?}");
        }
        // As the real CLIs run: qwen and gemini relaunch themselves under
        // node with options; Codex's `bin/codex.js` execs its native binary.
        let qwen = Catalog::embedded().agent(AgentKind::Qwen);
        assert_eq!(
            agent_argv(
                qwen,
                &argv(&[
                    "/usr/bin/node",
                    "--expose-gc",
                    "/n/node_modules/@qwen-code/qwen-code/cli.js",
                    "--approval-mode",
                    "yolo",
                ])
            ),
            Some(argv(&["qwen", "--approval-mode", "yolo"]))
        );
        let codex = Catalog::embedded().agent(AgentKind::Codex);
        assert_eq!(
            agent_argv(
                codex,
                &argv(&[
                    "/n/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex/codex",
                    "-m",
                    "o3"
                ])
            ),
            Some(argv(&[
                "/n/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex/codex",
                "-m",
                "o3"
            ]))
        );
        let gemini = Catalog::embedded().agent(AgentKind::Gemini);
        assert_eq!(
            agent_argv(
                gemini,
                &argv(&[
                    "/usr/bin/node",
                    "--max-old-space-size=12052",
                    "/n/.bin/gemini",
                    "-m",
                    "x"
                ])
            ),
            Some(argv(&["/n/.bin/gemini", "-m", "x"]))
        );
    }

    proptest::proptest! {
        /// Whatever a process names itself (spaces, parentheses, newlines
        /// in `comm`), its parent and start time are read right.
        #[test]
        fn any_command_name_leaves_the_stat_fields_readable(
            comm in "[ -~\n]{0,16}",
            ppid in proptest::num::u32::ANY,
            start in proptest::num::u64::ANY,
        ) {
            let line = format!(
                "42 ({comm}) S {ppid} 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 {start} 0 0\n"
            );
            proptest::prop_assert_eq!(parse_stat(&line), Some((ppid, start)));
        }
    }

    #[test]
    fn children_and_descendants_follow_parent_pids() {
        let t = Table::new(&[
            (20, 1, &["bash"]),
            (30, 20, &["claude"]),
            (40, 30, &["sh"]),
            (50, 40, &["node"]),
            (60, 1, &["other"]),
        ]);
        let pids = |v: Vec<ProcessInfo>| v.into_iter().map(|p| p.id.pid).collect::<Vec<_>>();
        assert_eq!(pids(children(&t, 20)), [30]);
        let mut d = pids(descendants(&t, 20));
        d.sort_unstable();
        assert_eq!(d, [30, 40, 50]);
    }

    #[test]
    fn codex_s_managed_daemon_is_its_shared_server_and_its_tui_is_not() {
        let codex = Catalog::embedded().agent(AgentKind::Codex);
        let daemon = argv(&[
            "/h/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex",
            "app-server",
            "--listen",
            "unix://",
            "--analytics-default-enabled",
            "--managed-daemon",
        ]);
        assert!(is_agent_program(codex, &daemon));
        assert!(is_shared_server(codex, &daemon));
        for tui in [
            &["codex"][..],
            &["codex", "app-server"],
            &["codex", "-m", "o3"],
            &["codex", "exec", "--managed-daemon"],
        ] {
            assert!(!is_shared_server(codex, &argv(tui)), "{tui:?}");
        }
        assert!(!is_shared_server(claude(), &daemon), "claude declares none");
    }

    #[test]
    fn session_and_terminal_are_read_from_the_stat_line() {
        let line = "42 (a) b) S 7 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 123 0 0";
        assert_eq!(parse_stat_terminal(line), Some((42, 0)));
        let line = "42 (bash) S 7 42 40 34821 42 4194560 0 0 0 0 0 0 0 0 20 0 1 0 123 0 0";
        assert_eq!(parse_stat_terminal(line), Some((40, 34821)));
    }

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let tail = "S 77 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 123456 0 0";
        for comm in ["bash", "a b", "x) S 1 2 (y", ")"] {
            let line = format!("42 ({comm}) {tail}");
            assert_eq!(parse_stat(&line), Some((77, 123456)), "{comm}");
        }
        assert_eq!(parse_stat("42 (bash"), None);
        assert_eq!(parse_stat("42 (bash) S"), None);
    }

    #[test]
    fn cmdline_splits_on_nul_and_keeps_emptied_words() {
        assert_eq!(split_cmdline(b"a\0b c\0"), argv(&["a", "b c"]));
        assert_eq!(split_cmdline(b"claude\0\0\0"), argv(&["claude", "", ""]));
        assert!(split_cmdline(b"").is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_reads_back_with_its_own_argv_and_parent() {
        let me = ProcFs.process(std::process::id()).expect("reads itself");
        assert_eq!(me.ppid, std::os::unix::process::parent_id());
        assert_eq!(me.argv, std::env::args().collect::<Vec<_>>());
        let started = ProcFs.started_at(me.id).expect("its start time");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis();
        let now = i64::try_from(now).expect("fits");
        assert!(
            started.0 <= now + 1000,
            "started in the future: {started:?} > {now}"
        );
        assert!(
            started.0 > now - 3_600_000,
            "a test process started within the hour"
        );
        let stale = ProcessId {
            pid: me.id.pid,
            start: me.id.start + 1,
        };
        assert_eq!(
            ProcFs.started_at(stale),
            None,
            "another start is another process"
        );
        assert_eq!(ProcFs.detached(stale), None);
        assert!(ProcFs.detached(me.id).is_some(), "its terminal is known");
    }
}
