//! kitty's own layout events save the snapshot, so no shell prompt has to.
//!
//! A shell sees its own directory change (its prompt compares `$PWD` with
//! the directory of its last save, and saves only when it moved: a new
//! window's first prompt, a `cd`), but only kitty sees a window close, a
//! split, a move or the focus change. kitty calls the functions of a
//! *watcher* (a Python file named by `watcher` in kitty.conf, loaded for
//! every window) on those events: this one starts one `agent-resume kitty
//! save` half a second after the first event of a burst, in a session of
//! its own, on the socket kitty itself listens on. A prompt with nothing
//! changed runs no process.
//!
//! ```
//! let tmp = tempfile::tempdir().unwrap();
//! let line = agent_resume_kitty::watcher::watcher_line(tmp.path(), "/usr/bin/agent-resume").unwrap();
//! assert!(line.starts_with("watcher "));
//! let py = std::fs::read_to_string(tmp.path().join("watcher.py")).unwrap();
//! assert!(py.contains("'/usr/bin/agent-resume'"));
//! ```

use std::path::Path;

use crate::start::StartupError;

pub use crate::socket::WATCHER;

/// How long after the first event of a burst the save starts, in seconds.
pub const DELAY_SECS: f64 = 0.5;

/// The watcher's text, running `bin`.
pub fn text(bin: &str) -> String {
    // A Python string literal of `bin`: every character other than a
    // printable ASCII one but `\` and `'` by its code.
    let mut lit = String::from("'");
    for c in bin.chars() {
        match c {
            ' '..='~' if c != '\\' && c != '\'' => lit.push(c),
            _ => lit.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    lit.push('\'');
    format!(
        "# agent-resume: saves the kitty snapshot when kitty's layout changes\n\
         # (a window closed, split, moved or focused), so no shell prompt has\n\
         # to; written by `agent-resume init kitty`.\n\
         import os\n\
         import subprocess\n\
         \n\
         from kitty.fast_data_types import add_timer\n\
         \n\
         BIN = {lit}\n\
         DELAY = {DELAY_SECS}\n\
         \n\
         \n\
         def _state(boss):\n\
         \x20   # One for the whole kitty: the module is loaded for every window.\n\
         \x20   s = getattr(boss, '_agent_resume_watcher', None)\n\
         \x20   if s is None:\n\
         \x20       s = {{'armed': False, 'children': []}}\n\
         \x20       boss._agent_resume_watcher = s\n\
         \x20   return s\n\
         \n\
         \n\
         def _schedule(boss):\n\
         \x20   s = _state(boss)\n\
         \x20   if s['armed'] or not boss.listening_on:\n\
         \x20       return\n\
         \x20   s['armed'] = True\n\
         \n\
         \x20   def save(timer_id):\n\
         \x20       s['armed'] = False\n\
         \x20       s['children'] = [c for c in s['children'] if c.poll() is None]\n\
         \x20       env = dict(os.environ)\n\
         \x20       env['KITTY_LISTEN_ON'] = boss.listening_on\n\
         \x20       try:\n\
         \x20           s['children'].append(subprocess.Popen(\n\
         \x20               [BIN, 'kitty', 'save'], env=env, stdin=subprocess.DEVNULL,\n\
         \x20               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,\n\
         \x20               start_new_session=True))\n\
         \x20       except OSError:\n\
         \x20           pass\n\
         \n\
         \x20   add_timer(save, DELAY, False)\n\
         \n\
         \n\
         def on_resize(boss, window, data):\n\
         \x20   _schedule(boss)\n\
         \n\
         \n\
         def on_close(boss, window, data):\n\
         \x20   _schedule(boss)\n\
         \n\
         \n\
         def on_focus_change(boss, window, data):\n\
         \x20   _schedule(boss)\n"
    )
}

/// Writes the watcher into `dir` (the private socket directory) and
/// returns the kitty.conf line that loads it; the path passes the same
/// boundary as the start session's.
pub fn watcher_line(dir: &Path, bin: &str) -> Result<String, StartupError> {
    let path = dir.join(WATCHER);
    let named = crate::literal(crate::Value::Directory, path.as_os_str())
        .map_err(StartupError::Path)?
        .to_owned();
    crate::host::write(&path, &text(bin))?;
    Ok(format!("watcher {named}\n"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_program_is_a_python_literal_whatever_its_characters() {
        let t = text("/opt/it's \\ x/é/agent-resume");
        assert!(t.contains("BIN = '/opt/it\\U00000027s \\U0000005c x/\\U000000e9/agent-resume'"));
        for line in t.lines() {
            assert!(!line.contains('\t'), "{line:?}");
        }
    }
}
