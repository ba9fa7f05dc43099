//! Where things live: [`agent_resume_engine::paths`], shared with an
//! embedding terminal so both find one database.

pub use agent_resume_engine::paths::*;
