//! `agent-resume demo --host kitty`: the tour on a real kitty under a
//! private Xvfb display (software rendering). Windows opened as a user
//! would (two OS windows, tabs, a split), stand-in agents typed into them,
//! the snapshot saved by the shells' prompts; kitty is killed (a crash:
//! nothing is written at exit), `kitty session` plans, arms and writes the
//! session file, and kitty starts again from it.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use agent_resume_kitty::Kitty;
use anyhow::{Context, Result};

use super::demo_show::{print_plan, print_recordings, print_telemetry, show_resumed, wait_for};
use super::kitty::{save_instance, write_session};
use crate::paths::{self, Overrides};

/// Xvfb and kitty, killed when the tour ends.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in self.0.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn start_kitty(display: &str, to: &str, session: &Path, home: &Path) -> Result<Child> {
    Command::new("kitty")
        .args(["--config", "NONE", "-o", "allow_remote_control=yes"])
        .args(["-o", "shell_integration=disabled", "--listen-on", to])
        .arg("--session")
        .arg(session)
        .env("DISPLAY", format!(":{display}"))
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start kitty")
}

fn windows(kitty: &Kitty) -> Vec<u64> {
    kitty
        .ls()
        .map(|ls| {
            ls.iter()
                .flat_map(|o| &o.tabs)
                .flat_map(|t| &t.windows)
                .map(|w| w.id)
                .collect()
        })
        .unwrap_or_default()
}

/// The tour (`set_up` already ran).
pub fn tour(dir: &Path, o: &Overrides) -> Result<()> {
    let home = dir.join("home");
    let (project, notes, gone) = (dir.join("project"), dir.join("notes"), dir.join("scratch"));
    fs::create_dir_all(&gone)?;
    let mut children = Children(Vec::new());
    let mut xvfb = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start Xvfb")?;
    let out = xvfb.stdout.take().context("Xvfb's display")?;
    children.0.push(xvfb);
    let mut display = String::new();
    BufReader::new(out).read_line(&mut display)?;
    let display = display.trim().to_owned();
    let to = format!("unix:{}", dir.join("kitty.sock").display());
    let kitty = Kitty::new("kitty", &to);

    println!("== 1. agents start in kitty windows (two OS windows, tabs, a split) ==");
    let first = dir.join("first.session");
    let cd = |p: &Path| format!("cd {}\nlaunch bash\n", p.display());
    fs::write(
        &first,
        format!(
            "new_tab\nlayout splits\n{}{}new_tab\n{}focus\nnew_os_window\nnew_tab\nlayout tall\n{}{}",
            cd(&project),
            cd(&project),
            cd(&project),
            cd(&notes),
            cd(&gone)
        ),
    )?;
    children.0.push(start_kitty(&display, &to, &first, &home)?);
    wait_for("kitty to open its windows", Duration::from_secs(30), || {
        windows(&kitty).len() == 5
    })?;
    let ids = windows(&kitty);
    for id in &ids {
        wait_for("each shell's prompt", Duration::from_secs(30), || {
            kitty.screen(*id).is_ok_and(|s| s.contains("demo$"))
        })?;
    }
    let commands = [
        (
            ids[0],
            "claude --model opus --permission-mode acceptEdits 'fix the --flaky test'",
        ),
        (ids[2], "codex -m gpt-5 -s workspace-write"),
        (ids[3], "gemini -m gemini-2.5-pro"),
        (ids[4], "claude --model sonnet"),
    ];
    for (id, cmd) in commands {
        println!("  window {id}$ {cmd}");
        kitty.send_text(id, &format!("{cmd}\\r"))?;
    }
    println!("  window {}$ (a plain shell)", ids[1]);
    let db = paths::db(o)?;
    wait_for(
        "the stand-in agents to report their sessions",
        Duration::from_secs(20),
        || {
            agent_resume_store::load_or_empty(&db, &agent_resume_store::OpenOptions::default())
                .rows
                .len()
                >= 4
        },
    )?;
    save_instance(Some(&to.clone().into()), o)?;
    print_recordings(o)?;

    println!("\n== 2. the scratch directory is deleted, then kitty is killed (SIGKILL) ==");
    fs::remove_dir_all(&gone)?;
    if let Some(mut k) = children.0.pop() {
        k.kill()?;
        k.wait()?;
    }
    for entry in fs::read_dir(dir.join("ran"))? {
        fs::remove_file(entry?.path())?;
    }

    println!("\n== 3. agent-resume kitty session, then kitty --session ==");
    let session = dir.join("restore.session");
    let made = write_session(&session, false, o)?;
    print_plan(&made.plans, &made.places)?;
    println!("\n{}", fs::read_to_string(&session)?.trim_end());
    // A new instance, on a socket of its own (as kitty's `-<pid>` gives).
    let to2 = format!("unix:{}", dir.join("kitty-2.sock").display());
    children
        .0
        .push(start_kitty(&display, &to2, &session, &home)?);
    show_resumed(dir, &made.plans, Duration::from_secs(30), "window", "")?;
    print_telemetry()?;
    Ok(())
}
