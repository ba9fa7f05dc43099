-- Why: a noted command line may only inform the hooks of the process it launched, never a later run in the same pane: the note keeps the pid of its launcher (the shell that ran the line, or `run`, which becomes the agent), matched against the agent's own ancestry and start time.
ALTER TABLE noted ADD COLUMN pid INTEGER; -- the launcher's pid; NULL: unbound, never applied to a hook
