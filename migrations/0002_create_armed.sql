-- Why: restore holds each eligible pane's resume invocation as data until the pane's shell is ready, to be taken exactly once, also across processes.
CREATE TABLE armed (
    pane       TEXT    NOT NULL PRIMARY KEY, -- PaneId
    agent      INTEGER NOT NULL,             -- AgentKind code
    session_id TEXT    NOT NULL,
    line       TEXT    NOT NULL,             -- the quoted shell line
    argv       TEXT    NOT NULL,             -- JSON array of the words the line parses to
    armed_at   INTEGER NOT NULL,             -- Unix milliseconds, UTC
    observed_at INTEGER NOT NULL,            -- when the recording was observed (telemetry's age band at take)
    UNIQUE (agent, session_id)               -- a session id is armed for at most one pane
) STRICT, WITHOUT ROWID;
