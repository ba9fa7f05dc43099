//! The telemetry file: [`agent_resume_engine::telemetry`].

pub use agent_resume_engine::telemetry::*;
