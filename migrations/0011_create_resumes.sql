-- Why: a restore starts a bounded number of agents at once, the pane in front first, and proves each one reached its conversation. Each armed pane gets its place in the restore's order here; its take waits for its turn and marks when it handed the line out; the agent's next report for the pane (a hook or a scan) marks which conversation it runs; the shell marks when the resumed agent ended.
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
CREATE INDEX resumes_restore ON resumes (restore);
