//! Kilo (`@kilocode/cli`), OpenCode's fork: its sessions are rows of
//! OpenCode's `session` table in `$KILO_DB` (absolute or relative to the
//! data directory, default `$XDG_DATA_HOME/kilo/kilo.db`), read by
//! OpenCode's reader ([`super::opencode`]).

use std::path::PathBuf;

use agent_resume_core::AgentKind;

use super::opencode::{db_home, family, App};
use super::Provider;
use crate::provider::HomeEnv;

pub(super) const PROVIDER: Provider = family(AgentKind::Kilo, home, "/@kilocode/cli/");

const KILO: App = App {
    data_dir: "kilo",
    db_var: "KILO_DB",
    db_file: "kilo.db",
};

fn home(env: &HomeEnv<'_>) -> Option<PathBuf> {
    db_home(env, &KILO)
}
