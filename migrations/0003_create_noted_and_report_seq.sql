-- Why: shell integration notes the allowlisted flags of an agent command line the user runs (never its text) so the agent's first hook can record them with the id it reports; host report messages carry a per-pane seq so late or replayed reports are dropped.
CREATE TABLE noted (
    pane     TEXT    NOT NULL PRIMARY KEY, -- PaneId
    agent    INTEGER NOT NULL,             -- AgentKind code
    argv     TEXT    NOT NULL,             -- JSON array: program word, then allowlisted flags only
    noted_at INTEGER NOT NULL              -- Unix milliseconds, UTC
) STRICT, WITHOUT ROWID;

CREATE TABLE report_seq (
    pane TEXT    NOT NULL PRIMARY KEY, -- PaneId
    seq  INTEGER NOT NULL              -- the highest seq applied for the pane
) STRICT, WITHOUT ROWID;
