-- Why: a headless run typed in a pane (`claude -p`, `codex exec`) must neither become the pane's recording through its hooks nor clear the pane's recording when it exits.
ALTER TABLE noted ADD COLUMN headless INTEGER NOT NULL DEFAULT 0; -- 1: the noted command line was a headless run
