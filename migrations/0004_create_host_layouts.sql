-- Why: a host without its own session file (tmux) keeps its layout snapshot in the same database, in its own table, rebuilt on every save without ever touching recordings.
CREATE TABLE host_layouts (
    host     TEXT    NOT NULL PRIMARY KEY, -- which host: "tmux"
    layout   TEXT    NOT NULL,             -- the host's own JSON snapshot
    saved_at INTEGER NOT NULL              -- Unix milliseconds, UTC
) STRICT, WITHOUT ROWID;
