//! Capture from a short-lived process: [`agent_resume_engine::capture`].

pub use agent_resume_engine::capture::*;
