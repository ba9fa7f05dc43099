//! `agent-resume demo`: a self-contained tour of the whole path on a
//! temporary database and a private tmux server. Stand-in agent programs
//! (labelled as such: small scripts, not the real CLIs) start in panes and
//! report their sessions through the real capture path (`agent-resume
//! hook`); the server is killed; `tmux restore --recreate` brings the panes
//! back; the tour prints what was recorded, each pane's verdict and reason,
//! the command each resumed pane now runs, and the telemetry events.
//! Without tmux it walks a synthetic layout instead, and says so.
//!
//! Nothing of the user's is read or written: every path (home, XDG
//! directories, tmux socket) points into a temporary directory, and the
//! feature is switched on for the tour only, by environment.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agent_resume_store::{load_or_empty, OpenOptions};
use agent_resume_tmux::{Socket, Start, Tmux};
use anyhow::{bail, Context, Result};

use super::demo_show::{print_plan, print_recordings, print_telemetry, show_resumed, wait_for};
use super::plan;
use super::tmux::{restore_server, save_server};
use crate::paths::{self, Overrides};
use crate::telemetry_file;

#[derive(clap::Args)]
pub struct Args {
    /// Keep the temporary directory (and print where it is).
    #[arg(long)]
    keep: bool,
    /// The host to tour.
    #[arg(long, value_enum, default_value = "tmux")]
    host: Host,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Host {
    /// A private tmux server.
    Tmux,
    /// kitty under a private Xvfb display (needs kitty and Xvfb).
    Kitty,
}

const CLAUDE: &str = r#"#!/bin/sh
# Stand-in for Claude Code, for the agent-resume demo. Not the real agent.
printf '%s\n' claude "$@" > "$DEMO_DIR/ran/$(printf %s "${TMUX_PANE:-$AGENT_RESUME_PANE}" | tr -d %)"
case " $* " in
  *" --resume "*) echo "[stand-in claude] resumed: $*" ;;
  *) id=$(cat /proc/sys/kernel/random/uuid)
     printf '{"session_id":"%s","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$id" "$PWD" \
       | agent-resume hook claude
     echo "[stand-in claude] new conversation $id" ;;
esac
exec sleep 86400
"#;

const CODEX: &str = r#"#!/bin/sh
# Stand-in for the Codex CLI, for the agent-resume demo. Not the real agent.
printf '%s\n' codex "$@" > "$DEMO_DIR/ran/$(printf %s "${TMUX_PANE:-$AGENT_RESUME_PANE}" | tr -d %)"
case " $* " in
  *" resume "*) echo "[stand-in codex] resumed: $*" ;;
  *) id=$(cat /proc/sys/kernel/random/uuid)
     agent-resume hook codex "{\"type\":\"agent-turn-complete\",\"thread-id\":\"$id\",\"cwd\":\"$PWD\",\"client\":\"codex-tui\"}"
     echo "[stand-in codex] new conversation $id" ;;
esac
exec sleep 86400
"#;

const GEMINI: &str = r#"#!/bin/sh
# Stand-in for the Gemini CLI, for the agent-resume demo. Not the real agent.
printf '%s\n' gemini "$@" > "$DEMO_DIR/ran/$(printf %s "${TMUX_PANE:-$AGENT_RESUME_PANE}" | tr -d %)"
case " $* " in
  *" --resume "*) echo "[stand-in gemini] resumed: $*" ;;
  *) id=$(cat /proc/sys/kernel/random/uuid)
     printf '{"session_id":"%s","cwd":"%s","hook_event_name":"SessionStart"}' "$id" "$PWD" | agent-resume hook gemini
     echo "[stand-in gemini] new conversation $id" ;;
esac
exec sleep 86400
"#;

struct Tour {
    dir: PathBuf,
    keep: bool,
    tmux: Option<Tmux>,
}

impl Drop for Tour {
    fn drop(&mut self) {
        if let Some(t) = &self.tmux {
            let _ = t.kill_server();
        }
        if !self.keep {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

fn write_exec(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// Points this process (and so everything it starts) at the tour's
/// directory, and switches the feature on for the tour only.
fn set_up(dir: &Path) -> Result<Overrides> {
    let home = dir.join("home");
    let bin = dir.join("bin");
    for d in [
        &home,
        &bin,
        &dir.join("ran"),
        &dir.join("tmux"),
        &dir.join("project"),
        &dir.join("notes"),
    ] {
        fs::create_dir_all(d)?;
    }
    write_exec(&bin.join("claude"), CLAUDE)?;
    write_exec(&bin.join("codex"), CODEX)?;
    write_exec(&bin.join("gemini"), GEMINI)?;
    let me = std::env::current_exe().context("cannot locate this program")?;
    let me_dir = me.parent().context("cannot locate this program's folder")?;
    let path = std::env::join_paths([bin.clone(), me_dir.to_path_buf()].into_iter().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))?;
    fs::write(
        home.join(".bashrc"),
        "PS1='demo$ '\neval \"$(agent-resume init bash)\"\n",
    )?;
    fs::write(
        home.join(".tmux.conf"),
        "set -g default-command \"bash -i\"\nrun-shell 'agent-resume init tmux | tmux source-file -'\n",
    )?;
    let vars: [(&str, std::ffi::OsString); 10] = [
        ("HOME", home.into_os_string()),
        ("PATH", path),
        ("SHELL", "/bin/bash".into()),
        ("LANG", "C.UTF-8".into()),
        ("XDG_DATA_HOME", dir.join("data").into_os_string()),
        ("XDG_CONFIG_HOME", dir.join("config").into_os_string()),
        ("XDG_STATE_HOME", dir.join("state").into_os_string()),
        ("TMUX_TMPDIR", dir.join("tmux").into_os_string()),
        ("DEMO_DIR", dir.as_os_str().to_owned()),
        ("AGENT_RESUME", "1".into()),
    ];
    for (k, v) in vars {
        // Single-threaded here, before anything else runs.
        std::env::set_var(k, v);
    }
    for k in [
        "TMUX",
        "TMUX_PANE",
        "AGENT_RESUME_PANE",
        "AGENT_RESUME_DB",
        "AGENT_RESUME_CONFIG",
        "AGENT_RESUME_TELEMETRY",
        "HISTFILE",
    ] {
        std::env::remove_var(k);
    }
    Ok(Overrides::default())
}

fn type_command(tmux: &Tmux, target: &str, text: &str) -> Result<()> {
    tmux.type_line(target, text)
        .context("cannot type into the demo pane")
}

fn with_tmux(tour: &mut Tour, o: &Overrides) -> Result<()> {
    let dir = tour.dir.clone();
    let tmux = Tmux::new(Socket::Name("agent-resume-demo".into()));
    tour.tmux = Some(tmux.clone());
    let project = dir.join("project");
    let notes = dir.join("notes");
    let gone = dir.join("scratch");
    fs::create_dir_all(&gone)?;

    println!("== 1. agents start in panes of a private tmux server ==");
    let start = |cwd| Start {
        take: None,
        id: fresh(),
        cwd: Some(cwd),
        shell: None,
        name: None,
    };
    let p0 = tmux.new_session("work", 0, None, &start(&project))?;
    let p1 = tmux.split(&p0, &start(&project))?;
    let p2 = tmux.new_window("work", 1, &start(&project))?;
    let p3 = tmux.new_session("notes", 0, None, &start(&notes))?;
    let p4 = tmux.split(&p3, &start(&gone))?;
    std::thread::sleep(Duration::from_millis(700));
    let commands = [
        (
            &p0,
            "claude --model opus --permission-mode acceptEdits 'fix the --flaky test'",
        ),
        (&p2, "codex -m gpt-5 -s workspace-write"),
        (&p3, "gemini -m gemini-2.5-pro"),
        (&p4, "claude --model sonnet"),
    ];
    for (target, cmd) in commands {
        println!("  {target}$ {cmd}");
        type_command(&tmux, target, cmd)?;
    }
    println!("  {p1}$ (a plain shell)");
    let db = paths::db(o)?;
    wait_for(
        "the stand-in agents to report their sessions",
        Duration::from_secs(20),
        || load_or_empty(&db, &OpenOptions::default()).rows.len() >= 4,
    )?;
    save_server(&tmux, o)?;
    print_recordings(o)?;

    println!("\n== 2. the scratch directory is deleted, then the tmux server is killed ==");
    fs::remove_dir_all(&gone)?;
    tmux.kill_server()?;
    wait_for("the tmux server to exit", Duration::from_secs(10), || {
        !tmux.running()
    })?;
    for entry in fs::read_dir(dir.join("ran"))? {
        fs::remove_file(entry?.path())?;
    }

    println!("\n== 3. agent-resume tmux restore --recreate ==");
    let restored = restore_server(tmux.clone(), true, false, o)?;
    print_plan(&restored.plans, &restored.places)?;
    show_resumed(&dir, &restored.plans, Duration::from_secs(20), "pane", "%")?;
    print_telemetry()?;
    Ok(())
}

/// The tour without tmux: the same capture, plan, arm and take, on a
/// synthetic layout.
fn synthetic(dir: &Path, o: &Overrides) -> Result<()> {
    use agent_resume_core::{
        AgentKind, IdSource, Layout, Observation, PaneSpec, Shell, Tab, Window,
    };
    use std::collections::HashSet;

    use crate::capture_apply::{observe, Known};
    use crate::restore::{arm_and_report, decide};

    let project = dir.join("project");
    let agents = [
        (
            AgentKind::Claude,
            "claude --model opus --permission-mode acceptEdits 'fix the --flaky test'",
        ),
        (AgentKind::Codex, "codex -m gpt-5 -s workspace-write"),
        (AgentKind::Gemini, "gemini -m gemini-2.5-pro"),
    ];
    let panes: Vec<_> = agents.iter().map(|_| fresh()).collect();
    let now = crate::when::now();
    println!("== 1. three panes report their agents' sessions ==");
    for ((agent, cmd), pane) in agents.iter().zip(&panes) {
        let id = uuid::Uuid::new_v4().hyphenated().to_string();
        println!("  {pane}$ {cmd}");
        let store = agent_resume_store::Store::open(&paths::db(o)?)?;
        let obs = Observation {
            pane: *pane,
            agent: *agent,
            session_id: Some(&id),
            source: IdSource::Hook,
            headless: false,
        };
        let known = Known {
            invocation: Some((*cmd).to_owned()),
            cwd: Some(project.clone()),
            config_home: None,
        };
        observe(store, &obs, &known, now)?;
    }
    print_recordings(o)?;
    let spec = |id| PaneSpec {
        id,
        cwd: Some(project.clone()),
        shared_viewer: false,
        shell: Some(Shell::Bash),
        has_input: false,
        queued_command: false,
    };
    let layout = Layout {
        startup: true,
        windows: vec![Window {
            landing: true,
            visible: true,
            active_tab: 0,
            tabs: vec![Tab {
                focused_pane: Some(panes[0]),
                panes: panes
                    .iter()
                    .map(|p| spec(*p))
                    .chain([spec(fresh())])
                    .collect(),
            }],
        }],
    };
    println!("\n== 2. a restart: the host restores these panes plus a plain shell ==");
    let keep: HashSet<_> = layout.panes().map(|(p, _)| p.id).collect();
    let decided = decide(o, &layout, now, true, Some(&keep))?;
    let mut sink = telemetry_file::FileSink::new(telemetry_file::path()?);
    arm_and_report(&decided, now, &mut sink, None);
    print_plan(&decided.plans, &plan::places_of(&layout))?;
    println!("\n== 3. each resumed pane's shell takes its line at the first prompt ==");
    for pane in &panes {
        let store = OpenOptions::default()
            .open_existing(&paths::db(o)?)?
            .context("the demo database")?;
        if let Some(armed) = store.take(*pane)? {
            // The engine's one take, as `agent-resume take` makes it.
            let request = agent_resume_engine::take::Request {
                shell: Shell::Bash,
                ready: agent_resume_engine::take::Ready::default(),
                now,
                armed_expiry_millis: crate::config::armed_expiry_millis(o),
                fs: &crate::restore::RealFs,
            };
            let (taken, event) = agent_resume_engine::take::decide(&(&armed).into(), &request);
            use agent_resume_core::TelemetrySink;
            sink.emit(&event);
            match taken {
                agent_resume_engine::take::Taken::Line(l) => println!("  {pane}  {}", l.line),
                agent_resume_engine::take::Taken::Dropped(why) => {
                    println!("  {pane}  (dropped: {why:?})")
                }
            }
        }
    }
    drop(sink);
    print_telemetry()
}

fn fresh() -> agent_resume_core::PaneId {
    agent_resume_core::PaneId::from_bytes(*uuid::Uuid::new_v4().as_bytes())
}

pub fn run(args: Args) -> Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("agent-resume-demo-{}", std::process::id()));
    fs::create_dir_all(&dir)?;
    let mut tour = Tour {
        dir: dir.clone(),
        keep: args.keep,
        tmux: None,
    };
    let o = set_up(&dir)?;
    println!("agent-resume demo — stand-in agents (small scripts, not the real CLIs), a temporary database in {}", paths::show(&dir));
    if matches!(args.host, Host::Kitty) {
        for tool in ["kitty", "Xvfb", "bash"] {
            if !which(tool) {
                bail!("`demo --host kitty` needs {tool}, which is not installed (apt-get install kitty xvfb libgl1-mesa-dri)");
            }
        }
        super::demo_kitty::tour(&dir, &o)?;
    } else if which("tmux") && which("bash") {
        with_tmux(&mut tour, &o)?;
    } else {
        println!("tmux or bash is not installed: walking a synthetic layout instead");
        synthetic(&dir, &o)?;
    }
    if args.keep {
        println!("\nkept {}", paths::show(&dir));
    }
    Ok(ExitCode::SUCCESS)
}
