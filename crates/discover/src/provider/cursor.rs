//! Cursor: declared in the catalog; agent-resume reads no store, registry or
//! hook file of it (docs/agents.md).

use agent_resume_core::AgentKind;

use super::{unread, Provider};

pub(super) const PROVIDER: Provider = unread(AgentKind::Cursor);
