-- Why: capture keeps, per pane, what an agent reported (kind, session id, allowlisted flags, directory, time) outside the host's layout snapshot, and remembers clears so that a stale save can never resurrect a cleared row.
CREATE TABLE agent_sessions (
    pane        TEXT    NOT NULL PRIMARY KEY, -- PaneId: hyphenated lowercase UUID
    agent       INTEGER,                      -- AgentKind code; NULL when it could not be serialized
    session_id  TEXT    NOT NULL,             -- the id the agent reported (re-validated on read)
    flags       TEXT,                         -- JSON [{"name": …, "value": …}]; NULL when it could not be serialized
    program     TEXT,                         -- the user's absolute program path, when it passed its shape
    cwd         BLOB    NOT NULL,             -- raw OS bytes of the directory
    observed_at INTEGER NOT NULL,             -- Unix milliseconds, UTC
    config_home BLOB                          -- raw OS bytes of CLAUDE_CONFIG_DIR, CODEX_HOME, …, when known
) STRICT, WITHOUT ROWID;

CREATE TABLE agent_session_clears (
    pane       TEXT    NOT NULL PRIMARY KEY, -- PaneId whose recording was cleared
    cleared_at INTEGER NOT NULL              -- Unix milliseconds of the newest clear; older saves are refused
) STRICT, WITHOUT ROWID;
