-- The schema of the agent-resume recordings database, as every migration in
-- migrations/ leaves it. Generated and checked by a test of agent-resume-store
-- (AGENT_RESUME_BLESS=1 rewrites it); do not edit by hand.

PRAGMA user_version = 11;

CREATE TABLE agent_session_clears (
    pane       TEXT    NOT NULL PRIMARY KEY, -- PaneId whose recording was cleared
    cleared_at INTEGER NOT NULL              -- Unix milliseconds of the newest clear; older saves are refused
) STRICT, WITHOUT ROWID;

CREATE TABLE agent_sessions (
    pane        TEXT    NOT NULL PRIMARY KEY, -- PaneId: hyphenated lowercase UUID
    agent       INTEGER,                      -- AgentKind code; NULL when it could not be serialized
    session_id  TEXT    NOT NULL,             -- the id the agent reported (re-validated on read)
    flags       TEXT,                         -- JSON [{"name": …, "value": …}]; NULL when it could not be serialized
    program     TEXT,                         -- the user's absolute program path, when it passed its shape
    cwd         BLOB    NOT NULL,             -- raw OS bytes of the directory
    observed_at INTEGER NOT NULL,             -- Unix milliseconds, UTC
    config_home BLOB                          -- raw OS bytes of CLAUDE_CONFIG_DIR, CODEX_HOME, …, when known
, dir_canonical BLOB, dir_volume INTEGER, dir_inode INTEGER) STRICT, WITHOUT ROWID;

CREATE TABLE armed (
    pane       TEXT    NOT NULL PRIMARY KEY, -- PaneId
    agent      INTEGER NOT NULL,             -- AgentKind code
    session_id TEXT    NOT NULL,
    argv       TEXT    NOT NULL,             -- JSON array of the words the line parses to
    armed_at   INTEGER NOT NULL,             -- Unix milliseconds, UTC
    observed_at INTEGER NOT NULL, take_key TEXT, take_server TEXT,            -- when the recording was observed (telemetry's age band at take)
    UNIQUE (agent, session_id)               -- a session id is armed for at most one pane
) STRICT, WITHOUT ROWID;

CREATE TABLE host_layouts (
    host     TEXT    NOT NULL PRIMARY KEY, -- which host: "tmux"
    layout   TEXT    NOT NULL,             -- the host's own JSON snapshot
    saved_at INTEGER NOT NULL              -- Unix milliseconds, UTC
) STRICT, WITHOUT ROWID;

CREATE TABLE noted (
    pane     TEXT    NOT NULL PRIMARY KEY, -- PaneId
    agent    INTEGER NOT NULL,             -- AgentKind code
    argv     TEXT    NOT NULL,             -- JSON array: program word, then allowlisted flags only
    noted_at INTEGER NOT NULL              -- Unix milliseconds, UTC
, headless INTEGER NOT NULL DEFAULT 0, pid INTEGER) STRICT, WITHOUT ROWID;

CREATE TABLE report_seq (
    pane TEXT    NOT NULL PRIMARY KEY, -- PaneId
    seq  INTEGER NOT NULL              -- the highest seq applied for the pane
) STRICT, WITHOUT ROWID;

CREATE TABLE resumes (
    pane         TEXT    NOT NULL PRIMARY KEY, -- PaneId
    restore      TEXT    NOT NULL,             -- the restore's id (a random uuid)
    rank         INTEGER NOT NULL,             -- 0 starts first
    cap          INTEGER NOT NULL,             -- agents this restore starts at once
    agent        INTEGER NOT NULL,             -- AgentKind code
    session_id   TEXT    NOT NULL,             -- the conversation it resumes
    observed_at  INTEGER NOT NULL,             -- when that recording was observed (telemetry's age band)
    queued_at    INTEGER NOT NULL,             -- Unix milliseconds, UTC
    waiting_at   INTEGER,                      -- when the pane's take arrived
    started_at   INTEGER,                      -- when its take handed the line out
    reported_at  INTEGER,                      -- the first report for the pane after that
    reported_id  TEXT,                         -- the conversation that report named
    ended_at     INTEGER,                      -- when the resumed agent ended
    status       INTEGER                       -- and its exit status
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX armed_take_key ON armed (take_key);

CREATE INDEX resumes_restore ON resumes (restore);
