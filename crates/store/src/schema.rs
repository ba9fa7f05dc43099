//! The embedded migrations and the schema version this build writes.

/// One embedded migration.
#[derive(Clone, Copy, Debug)]
pub struct Migration {
    /// The version the database has after this migration.
    pub version: u32,
    /// The file name in `migrations/`.
    pub name: &'static str,
    /// The SQL.
    pub sql: &'static str,
}

/// Every migration, in order. Append-only: never edit or renumber one that
/// has shipped.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "0001_create_agent_sessions.sql",
        sql: include_str!("../../../migrations/0001_create_agent_sessions.sql"),
    },
    Migration {
        version: 2,
        name: "0002_create_armed.sql",
        sql: include_str!("../../../migrations/0002_create_armed.sql"),
    },
    Migration {
        version: 3,
        name: "0003_create_noted_and_report_seq.sql",
        sql: include_str!("../../../migrations/0003_create_noted_and_report_seq.sql"),
    },
    Migration {
        version: 4,
        name: "0004_create_host_layouts.sql",
        sql: include_str!("../../../migrations/0004_create_host_layouts.sql"),
    },
    Migration {
        version: 5,
        name: "0005_add_noted_headless.sql",
        sql: include_str!("../../../migrations/0005_add_noted_headless.sql"),
    },
    Migration {
        version: 6,
        name: "0006_add_noted_pid.sql",
        sql: include_str!("../../../migrations/0006_add_noted_pid.sql"),
    },
    Migration {
        version: 7,
        name: "0007_move_tmux_layout_to_default_server.sql",
        sql: include_str!("../../../migrations/0007_move_tmux_layout_to_default_server.sql"),
    },
    Migration {
        version: 8,
        name: "0008_add_armed_take_key.sql",
        sql: include_str!("../../../migrations/0008_add_armed_take_key.sql"),
    },
    Migration {
        version: 9,
        name: "0009_add_recording_directory_identity.sql",
        sql: include_str!("../../../migrations/0009_add_recording_directory_identity.sql"),
    },
    Migration {
        version: 10,
        name: "0010_drop_armed_line.sql",
        sql: include_str!("../../../migrations/0010_drop_armed_line.sql"),
    },
    Migration {
        version: 11,
        name: "0011_create_resumes.sql",
        sql: include_str!("../../../migrations/0011_create_resumes.sql"),
    },
];

/// The schema version this build writes.
pub const LATEST: u32 = MIGRATIONS.len() as u32;
