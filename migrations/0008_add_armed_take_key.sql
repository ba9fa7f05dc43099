-- Why: a pane `tmux restore --recreate` creates takes its armed line without asking the tmux server which pane it is: the restore hands the pane's first process a random single-use key in its own spawn environment and keeps it here, bound to the server it created the pane on.
ALTER TABLE armed ADD COLUMN take_key TEXT;    -- TakeKey; NULL: taken by pane id only
ALTER TABLE armed ADD COLUMN take_server TEXT; -- the server key (`tmux servers`) the pane was created on
CREATE UNIQUE INDEX armed_take_key ON armed (take_key);
