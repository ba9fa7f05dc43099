//! Continue CLI (`cn`): `~/.continue/sessions/<uuid>.json` (one JSON
//! document per session, written at the first prompt) and an index
//! `sessions.json` (`sessionId`, `workspaceDirectory`, `dateCreated`).
//! 1.5.47 has no resume by id (the catalog's `resumable_by_id = false`), so
//! nothing here is read: a pane that ran it comes back as a plain shell.

use agent_resume_core::AgentKind;

use super::Provider;

pub(super) const PROVIDER: Provider = super::unread(AgentKind::Continue);
